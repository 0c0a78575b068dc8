"""TorchRL on cardboard's envs, a masked actor (``MaskedCategorical``) playing and learning on each.

``PettingZooWrapper`` takes the AEC env as it is (its infos have fixed shapes); ``GymWrapper`` takes the
Gymnasium vector env with ``autoreset_mode=DISABLED``: TorchRL then resets ended rows itself
(``options={"reset_mask": ...}``) and plays no random move while it builds its specs, given the reader of
``infos["action_mask"]`` with its spec. Both envs raise on an illegal action, so every rollout that finishes is a
rollout of legal moves only."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torchrl", reason="TorchRL: the dev extra")

import torch  # noqa: E402
from tensordict.nn import TensorDictModule  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.data import Binary, Composite  # noqa: E402
from torchrl.envs import (ActionMask, GymWrapper, PettingZooWrapper, TransformedEnv,  # noqa: E402
                          default_info_dict_reader)
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator  # noqa: E402
from torchrl.objectives import ClipPPOLoss  # noqa: E402
from torchrl.objectives.value import GAE  # noqa: E402
from torchrl.objectives.value.functional import reward2go  # noqa: E402

import cardboard  # noqa: E402
from cardboard.envs.vector_env import CardboardVectorEnv  # noqa: E402

GAME = "lords_of_war"
ROWS = 8  # the vector env's games
GROUP = "players"  # both seats in one group: one shared actor, TorchRL's "mask" tells which seat acts
torch.set_num_threads(1)


def pettingzoo_env(seed: int = 0) -> PettingZooWrapper:
    with warnings.catch_warnings():  # TorchRL's note that its PettingZoo support is young
        warnings.simplefilter("ignore")
        return PettingZooWrapper(cardboard.make_env(GAME, illegal="raise"), use_mask=True, categorical_actions=True,
                                 group_map={GROUP: ["player_0", "player_1"]}, seed=seed)


def masked_actor(env: PettingZooWrapper) -> ProbabilisticActor:
    observation = (GROUP, "observation", "observation")
    net = MLP(in_features=env.observation_spec[observation].shape[-1],
              out_features=env.full_action_spec[GROUP, "action"].space.n, num_cells=[64])
    return ProbabilisticActor(TensorDictModule(net, in_keys=[observation], out_keys=[(GROUP, "logits")]),
                              in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
                              out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical,
                              return_log_prob=True, log_prob_key=(GROUP, "action_log_prob"))


def test_pettingzoo_wrapper_masked_actor_plays_legal_games_and_learns():
    """2,048 frames of a collector, each batch checked (legal moves, outcomes +1 / -1, or 0 each for a draw), then
    a REINFORCE update that scores each move with its seat's outcome of the game."""
    torch.manual_seed(0)
    env = pettingzoo_env()
    actor = masked_actor(env)
    collector = Collector(env, actor, frames_per_batch=512, total_frames=2048, auto_register_policy_transforms=False)
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
    games = decided = 0
    for batch in collector:
        acting = batch[GROUP, "mask"]  # (steps, seats): the seat to move
        assert (acting.sum(-1) == 1).all()
        assert batch[GROUP, "action_mask"][acting].gather(-1, batch[GROUP, "action"][acting][:, None]).all()
        done = batch["next", "done"]
        rewards = batch["next", GROUP, "reward"]  # (steps, seats, 1)
        returns = rewards.squeeze(-1)[done.squeeze(-1)]  # (games, seats)
        assert ((returns == 0) | (returns.abs() == 1)).all() and (returns.sum(-1) == 0).all()
        assert (rewards.squeeze(-1)[~done.squeeze(-1)] == 0).all()
        games += len(returns)
        decided += int((returns[:, 0] != 0).sum())

        seat_done = done.expand(acting.shape).unsqueeze(-1)
        outcome = reward2go(rewards.transpose(0, 1), seat_done.transpose(0, 1), gamma=1.0).transpose(0, 1)
        log_prob = actor.get_dist(batch).log_prob(batch[GROUP, "action"])
        loss = -(log_prob[acting] * outcome.squeeze(-1)[acting]).mean()
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None and p.grad.isfinite().all() for p in actor.parameters())
        optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()
    assert games >= 8 and decided > 0


def vector_env(seed: int = 0) -> TransformedEnv:
    """The vector env in TorchRL: ``DISABLED`` auto-reset, the mask read from ``infos`` into the ``ActionMask``."""
    raw = CardboardVectorEnv(cardboard.make_vec_env(GAME, ROWS, opponent="random", seed=seed),
                             autoreset_mode=AutoresetMode.DISABLED)
    env = GymWrapper(raw, categorical_action_encoding=True)
    n = raw.single_action_space.n
    env.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec=Composite(
        action_mask=Binary(n, shape=(ROWS, n), dtype=torch.bool), shape=(ROWS,))))
    return TransformedEnv(env, ActionMask())


def test_gym_wrapper_on_the_vector_env_plays_legal_games_and_trains_ppo():
    """Two back-to-back rollouts (each starts with a full reset) of random legal moves, then PPO on 2,048 frames."""
    torch.manual_seed(0)
    env = vector_env()
    for _ in range(2):
        td = env.rollout(100, break_when_any_done=False)  # (rows, steps); ActionMask keeps random actions legal
        assert td["action_mask"].gather(-1, td["action"][..., None]).all()
        ended, rewards = td["next", "done"].squeeze(-1), td["next", "reward"].squeeze(-1)
        assert ended.sum() >= ROWS // 2 and (rewards[~ended] == 0).all()  # about a game a row in 100 steps
        assert ((rewards[ended] == 0) | (rewards[ended].abs() == 1)).all() and (rewards[ended] != 0).any()
        after = ended[:, :-1]  # a game's last observation is its own, the next root the next game's first
        assert (td["next", "observation"][:, :-1][after] != td["observation"][:, 1:][after]).any(-1).all()
        assert (td["next", "observation"][:, :-1][~after] == td["observation"][:, 1:][~after]).all()

    observation_size, actions = env.observation_spec["observation"].shape[-1], env.action_spec.space.n
    actor = ProbabilisticActor(
        TensorDictModule(MLP(in_features=observation_size, out_features=actions, num_cells=[64]),
                         in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
        distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(MLP(in_features=observation_size, out_features=1, num_cells=[64]), in_keys=["observation"])
    loss, advantage = ClipPPOLoss(actor, critic), GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    collector = Collector(env, actor, frames_per_batch=ROWS * 64, total_frames=ROWS * 64 * 4,
                          auto_register_policy_transforms=False)
    for batch in collector:
        with torch.no_grad():
            advantage(batch)
        out = loss(batch.reshape(-1))
        total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
        assert total.isfinite()
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()

"""RLlib (new API stack) trains on a cardboard seat env through ``MaskedDict``: PPO with RLlib's own
``ActionMaskingTorchRLModule``, which reads ``{"observations", "action_mask"}``. The env raises on an illegal
action (``illegal="raise"``), so two training iterations that finish are two iterations of legal moves only.

Kept small (the suite's time budget): the env runner and the learner are local (this process), ~1,000 env steps
an iteration. Ray is the session's cluster (conftest's ``ray_cluster``): a second ``ray.init`` on this machine
would join it while it runs (``make test``'s Ray worker), and refuse ``num_cpus``."""
from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib", reason="RLlib: the ray extra")

import torch  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # noqa: E402
from ray.tune.registry import register_env  # noqa: E402

import cardboard  # noqa: E402
from cardboard.envs.gym_wrappers import MaskedDict  # noqa: E402

GAME, STEPS = "lords_of_war", 1000


def make(config: dict) -> MaskedDict:
    return MaskedDict(cardboard.make_seat_env(GAME, seat=None, opponent="random", illegal="raise"))


def test_ppo_with_rllibs_action_masking_module_plays_only_legal_moves(ray_cluster):
    torch.set_num_threads(1)
    register_env("cardboard_lords_of_war", make)
    config = (PPOConfig()
              .environment("cardboard_lords_of_war")
              .env_runners(num_env_runners=0)
              .learners(num_learners=0)
              .training(train_batch_size_per_learner=STEPS, minibatch_size=250, num_epochs=1)
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                     model_config={"head_fcnet_hiddens": [64]}))
              .debugging(seed=0))
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 2 * STEPS
    assert runners["num_episodes_lifetime"] > 0 and -1 <= runners["episode_return_mean"] <= 1

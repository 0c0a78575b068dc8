"""The gym wrappers with Stable-Baselines3 / sb3-contrib: MaskablePPO, models as opponents, self-play.

SB3's ``check_env`` on every game, and MaskablePPO through ``gymnasium.make`` and ``SubprocVecEnv``, are in
``test_gym_registration.py``; the trainer (``cardboard.training.ppo``) is tested in ``test_training.py``."""
from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

from cardboard import make_game, make_seat_env, make_self_play_env  # noqa: E402
from cardboard.envs.gym_wrappers import SeatEnv, SelfPlayCallback, policy_from_model  # noqa: E402

GAME = "lords_of_war"
torch.set_num_threads(1)


def small_ppo(env, seed: int = 0) -> MaskablePPO:
    return MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2,
                       policy_kwargs=dict(net_arch=[32]), seed=seed, device="cpu")


def play_masked(env: SeatEnv, model, seed: int) -> float:
    """One greedy masked game of ``model`` in ``env``; every chosen action must be legal."""
    obs, _ = env.reset(seed=seed)
    done, reward = False, 0.0
    while not done:
        mask = env.action_masks()
        action, _ = model.predict(obs, deterministic=True, action_masks=mask)
        assert mask[action]
        obs, reward, done, _, _ = env.step(action)
    return reward


def test_maskable_ppo_on_hearth_with_an_opponent_deck():
    env = make_seat_env("hearth", seat=None, seed=0, opponent="greedy_h")
    model = small_ppo(env).learn(512)
    assert model.num_timesteps >= 512
    assert play_masked(make_seat_env("hearth", seat=1, seed=3), model, 3) in (-1.0, 0.0, 1.0)


def test_maskable_ppo_trains_and_predicts_with_masks():
    env = make_seat_env(GAME, seat=None, seed=0)
    model = small_ppo(env).learn(2048)
    assert model.num_timesteps >= 2048
    for seed in range(2):
        assert play_masked(make_seat_env(GAME, seat=seed), model, seed) in (-1.0, 0.0, 1.0)


def test_frozen_model_as_opponent():
    model = small_ppo(make_seat_env(GAME, seed=0))
    for opponent in (model, model.policy, policy_from_model(model.policy, deterministic=False)):
        env = SeatEnv(make_game(GAME), seat=0, opponent=opponent, seed=1)
        assert play_masked(env, model, seed=1) in (-1.0, 0.0, 1.0)


def test_self_play_callback_freezes_snapshots_into_the_pool():
    venv = make_vec_env(lambda: make_self_play_env(GAME, pool_size=3), n_envs=2, seed=0)
    callback = SelfPlayCallback(every=512)
    model = small_ppo(venv).learn(1024, callback=callback)
    assert callback.snapshots == 3  # at the start, then at 512 and 1024 steps
    for env in venv.envs:
        assert len(env.unwrapped.pool) == 3  # the random starter was pushed out
    env = venv.envs[0].unwrapped
    assert play_masked(env, model, seed=0) in (-1.0, 0.0, 1.0)


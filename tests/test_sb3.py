"""The gym wrappers with Stable-Baselines3 / sb3-contrib: check_env, MaskablePPO, self-play, the training script."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from gymnasium.spaces import Discrete  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

from cardboard.envs.gym_wrappers import SeatEnv, SelfPlayCallback, SelfPlayEnv, policy_from_model  # noqa: E402

GAME = "lords_of_war"
torch.set_num_threads(1)


def sample_legal(env: SeatEnv) -> SeatEnv:
    """check_env steps with ``action_space.sample()``: make it draw legal actions (it knows no masks)."""
    space = env.action_space
    space.sample = lambda mask=None, probability=None: Discrete.sample(space, mask=env.action_masks().astype(np.int8))
    return env


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


@pytest.mark.parametrize("env", [SeatEnv(GAME, seat=1), SeatEnv(GAME, seat=None), SelfPlayEnv(GAME),
                                 SeatEnv("hearth", seat=None), SelfPlayEnv("hearth")],
                         ids=["seat1", "random_seat", "self_play", "hearth_random_seat", "hearth_self_play"])
def test_check_env(env):
    check_env(sample_legal(env))


def test_maskable_ppo_on_hearth_with_an_opponent_deck():
    env = SeatEnv("hearth", seat=None, seed=0, opponent="greedy_h")
    model = small_ppo(env).learn(512)
    assert model.num_timesteps >= 512
    assert play_masked(SeatEnv("hearth", seat=1, seed=3), model, 3) in (-1.0, 0.0, 1.0)


def test_maskable_ppo_trains_and_predicts_with_masks():
    env = SeatEnv(GAME, seat=None, seed=0)
    model = small_ppo(env).learn(2048)
    assert model.num_timesteps >= 2048
    for seed in range(2):
        assert play_masked(SeatEnv(GAME, seat=seed), model, seed) in (-1.0, 0.0, 1.0)


def test_frozen_model_as_opponent():
    model = small_ppo(SeatEnv(GAME, seed=0))
    for opponent in (model, policy_from_model(model.policy, deterministic=False)):
        env = SeatEnv(GAME, seat=0, opponent=opponent, seed=1)
        assert play_masked(env, model, seed=1) in (-1.0, 0.0, 1.0)


def test_self_play_callback_freezes_snapshots_into_the_pool():
    venv = make_vec_env(lambda: SelfPlayEnv(GAME, pool_size=3), n_envs=2, seed=0)
    callback = SelfPlayCallback(every=512)
    model = small_ppo(venv).learn(1024, callback=callback)
    assert callback.snapshots == 3  # at the start, then at 512 and 1024 steps
    for env in venv.envs:
        assert len(env.unwrapped.pool) == 3  # the random starter was pushed out
    env = venv.envs[0].unwrapped
    assert play_masked(env, model, seed=0) in (-1.0, 0.0, 1.0)


def test_training_script_smoke(tmp_path, capsys):
    from cardboard.training.ppo_lords_of_war import main

    final = main(["--smoke", "--out-dir", str(tmp_path)])
    assert final["games"] == 4 and 0.0 <= final["ci95"][0] <= final["win_rate"] <= final["ci95"][1] <= 1.0
    assert (tmp_path / "model.zip").exists()
    assert json.loads((tmp_path / "final.json").read_text()) == final
    lines = (tmp_path / "eval.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[-1])["step"] == 256
    assert "win rate vs random" in capsys.readouterr().out
    MaskablePPO.load(tmp_path / "model.zip")

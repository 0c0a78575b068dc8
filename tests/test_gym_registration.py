"""The envs as the RL ecosystem takes them: Gymnasium ids (``gymnasium.make("cardboard/<game>-v0")``), both
``check_env`` checkers on every registered game as shipped, MaskablePPO through ``SubprocVecEnv``, the
PettingZoo versioned modules (``cardboard.envs.<game>_v0``) and the AEC env's infos."""
from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.spaces import Discrete
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from pettingzoo.test import api_test

import cardboard
from cardboard.envs import hearth_v0, lords_of_war_v0
from cardboard.envs.errors import IllegalActionError, UnknownNameError
from cardboard.envs.gym_wrappers import SeatEnv, SelfPlayEnv
from cardboard.envs.registration import GAMES
from cardboard.registry import gym_id, register_gym_envs
from tests.games.tictactoe import TicTacToeGame

GAME_NAMES = cardboard.games()  # the bundled games and the plugins of tests/external (see conftest)
MAKERS = {"seat_env": lambda name: cardboard.make_seat_env(name, seat=None),
          "self_play_env": lambda name: cardboard.make_self_play_env(name)}


def sb3_check_env(env: gymnasium.Env) -> None:
    pytest.importorskip("stable_baselines3.common.env_checker").check_env(env)


# -- ids -------------------------------------------------------------------------------------------------
def test_every_registered_game_has_an_id_after_import_cardboard():
    assert {"demo_pig3", "demo_tricks", "hearth", "lords_of_war"} <= set(GAME_NAMES)
    for name in GAME_NAMES:
        spec = gymnasium.spec(gym_id(name))
        assert spec.entry_point == "cardboard.registry:make_seat_env" and spec.kwargs == {"name": name}
        env = gymnasium.make(gym_id(name))
        assert isinstance(env.unwrapped, SeatEnv) and env.unwrapped.game.info.name == name


def test_make_takes_game_options_and_env_arguments():
    env = gymnasium.make("cardboard/hearth-v0", decks="handlock", seat=1, opponent="greedy_h", perfect=True,
                         illegal="raise", render_mode="ansi")
    seat_env = env.unwrapped
    assert (seat_env.fixed_seat, seat_env.perfect, seat_env.illegal) == (1, True, "raise")
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and np.array_equal(obs, seat_env.game_state.observation(1, perfect=True))
    assert "Warlock" in env.render()  # the handlock mirror
    with pytest.raises(UnknownNameError, match="bogus"):
        gymnasium.make("cardboard/hearth-v0", bogus=1)


def test_the_module_prefix_imports_cardboard_in_a_fresh_process():
    code = ("import sys, gymnasium; assert 'cardboard' not in sys.modules; "
            "env = gymnasium.make('cardboard:cardboard/hearth-v0'); print(type(env.unwrapped).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "SeatEnv"


def test_a_game_registered_at_run_time_gets_its_id_at_the_next_call():
    cardboard.register_game("gym_test_tictactoe", TicTacToeGame)
    try:
        assert register_gym_envs() == ["cardboard/gym_test_tictactoe-v0"]
        assert register_gym_envs() == []  # every game has its id now
        env = gymnasium.make("cardboard/gym_test_tictactoe-v0", seat=1)
        assert env.reset(seed=0)[1]["seat"] == 1
    finally:
        GAMES.pop("gym_test_tictactoe")
        gymnasium.registry.pop("cardboard/gym_test_tictactoe-v0")


# -- check_env as shipped ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.filterwarnings("ignore:.*not having a spec")  # the registered ids' test covers the render modes
def test_both_checkers_pass_as_shipped(name, make):
    sb3_check_env(make(name))
    gymnasium_check_env(make(name))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_gymnasium_checker_passes_on_the_registered_id(name):
    """With a spec the checker also makes the env again in every render mode and renders it."""
    gymnasium_check_env(gymnasium.make(gym_id(name)).unwrapped)


@pytest.mark.parametrize("checker", ["sb3", "gymnasium"])
def test_the_checkers_fail_on_the_old_behaviour(checker):
    """Before: a plain ``Discrete`` (its samples ignore the mask) and illegal actions raising."""
    env = cardboard.make_seat_env("lords_of_war", seat=None, illegal="raise")
    env.action_space = Discrete(env.action_space.n, seed=0)
    with pytest.raises(IllegalActionError):
        (sb3_check_env if checker == "sb3" else gymnasium_check_env)(env)


def test_legal_sampling_alone_does_not_pass_gymnasiums_checker():
    """Gymnasium's step-determinism check samples before ``reset(seed=123)``: the action was legal in the old
    game, not necessarily in the new one. Hence ``illegal="lose"`` by default."""
    env = cardboard.make_seat_env("lords_of_war", seat=None, illegal="raise")
    env.action_space.seed(0)
    with pytest.raises(IllegalActionError):
        gymnasium_check_env(env)


# -- MaskablePPO through SubprocVecEnv -------------------------------------------------------------------
def test_maskable_ppo_trains_on_gym_make_through_subproc_vec_env():
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch").set_num_threads(1)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    class Infos(BaseCallback):
        def __init__(self):
            super().__init__()
            self.infos: list[dict] = []

        def _on_step(self) -> bool:
            self.infos += self.locals["infos"]
            return True

    # the prefix makes every worker process import cardboard (and so register the ids) before making the env
    venv = make_vec_env("cardboard:cardboard/lords_of_war-v0", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv,
                        env_kwargs=dict(seat=None, opponent="greedy"))
    try:
        assert venv.get_attr("spec")[0].id == "cardboard/lords_of_war-v0"
        callback = Infos()
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1,
                            policy_kwargs=dict(net_arch=[32]), seed=0, device="cpu").learn(256, callback=callback)
        masks = venv.env_method("action_masks")
    finally:
        venv.close()
    assert model.num_timesteps == 256 and len(callback.infos) == 256
    assert not any(info.get("illegal_action") for info in callback.infos)  # masked: every move was legal
    assert all(mask.dtype == bool and mask.shape == (338,) and mask.any() for mask in masks)


# -- PettingZoo versioned modules and the AEC env's infos ------------------------------------------------
@pytest.mark.parametrize("module", [lords_of_war_v0, hearth_v0], ids=["lords_of_war_v0", "hearth_v0"])
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_versioned_modules_pass_the_pettingzoo_api_test(module):
    api_test(module.env(), num_cycles=60)
    assert module.raw_env().metadata["name"] == module.__name__.rpartition(".")[2].removesuffix("_v0")


def test_aec_infos_name_the_acting_agents_legal_actions_on_request_and_turn():
    plain = cardboard.make_env("lords_of_war")
    plain.reset(seed=0)
    assert plain.infos[plain.agent_selection] == {"turn": 0}  # no variable-length array by default (Tianshou)
    env = cardboard.make_env("lords_of_war", legal_actions_info=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(max_iter=200):
        obs, _, terminated, truncated, info = env.last()
        state = env.unwrapped.game_state
        if terminated or truncated:
            assert info == {}
            env.step(None)
            continue
        np.testing.assert_array_equal(info["legal_actions"], np.flatnonzero(obs["action_mask"]))
        assert info["turn"] == state.turn
        assert all(env.infos[other] == {} for other in env.agents if other != agent)
        env.step(int(rng.choice(info["legal_actions"])))


@pytest.mark.parametrize("cls", [SeatEnv, SelfPlayEnv])
def test_action_masks_before_reset_is_a_typed_error(cls):
    env = cls(cardboard.make_game("lords_of_war"))
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.action_masks()
    assert env.action_space.contains(env.action_space.sample())  # sampling needs no game

"""PettingZoo's conventions on every registered game (bundled and plugin, ``cardboard.games()``).

``api_test``, ``seed_test``, ``render_test`` and ``state_test`` pass through ``cardboard.make_env``, which is
the classic wrapper stack of ``pettingzoo.classic`` (``cardboard.envs.aec.wrap``); ``state_test`` runs its AEC
parts, as a turn-based env has no parallel form. An illegal move ends the game with the offender's penalty
(every seat's in a cooperative game) and says so in the infos; ``illegal="raise"`` raises instead. The
versioned modules ``cardboard.envs.<game>_v0`` build the same stack.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_check
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_check
from pettingzoo.utils import wrappers

import cardboard
from cardboard.envs import fifth_aeon_v0, hearth_v0, lords_of_war_v0, pandemic_v0
from cardboard.envs.aec import CardboardAECEnv, TerminateIllegal
from cardboard.envs.errors import IllegalActionError, InvalidParameterError

GAMES = cardboard.games()
VERSIONED = [lords_of_war_v0, hearth_v0, pandemic_v0, fifth_aeon_v0]
CYCLES = 100  # small: the whole file runs in seconds


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api_seed_render_and_state_tests_pass(name, capsys):
    make = functools.partial(cardboard.make_env, name)
    api_test(make(), num_cycles=CYCLES)
    seed_test(make, num_cycles=CYCLES)
    render_test(make)
    env = make()
    pettingzoo_state_space_check(env)
    pettingzoo_state_check(env, num_cycles=CYCLES)  # unmasked random actions: the first illegal one ends the game


def _masked_action(env) -> int:
    obs, *_ = env.last()
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_move_ends_the_game_with_the_offenders_penalty(name, kit):
    env = cardboard.make_env(name)
    env.reset(seed=0)
    info = cardboard.make_game(name).info
    key = kit.full_key(env.unwrapped.game_state)
    offender, action = env.agent_selection, _masked_action(env)
    env.step(action)
    team = info.utility == "cooperative"
    assert env.rewards == {a: info.min_return if team or a == offender else 0.0 for a in env.possible_agents}
    assert all(env.terminations.values()) and all(env.truncations.values())
    for agent in env.possible_agents:
        assert env.infos[agent]["illegal_action"] is True
        assert f"{offender} played action {action}" in env.infos[agent]["illegal_move"]
    assert kit.full_key(env.unwrapped.game_state) == key  # the game is left as it was before the move
    seen = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert terminated and truncated and not obs["action_mask"].any()
        seen[agent] = reward
        env.step(None)
    assert seen == {a: info.min_return if team or a == offender else 0.0 for a in env.possible_agents}
    env.reset(seed=0)  # the next game plays normally
    assert not any(env.terminations.values()) and "illegal_action" not in env.infos[env.agent_selection]


def test_pandemic_team_loses_on_an_illegal_move():
    env = pandemic_v0.env(players=3)
    env.reset(seed=1)
    env.step(_masked_action(env))
    assert env.rewards == dict.fromkeys(env.possible_agents, -1.0)
    assert "the team loses" in env.infos["player_2"]["illegal_move"]


@pytest.mark.parametrize("module", VERSIONED, ids=lambda m: m.__name__.rpartition(".")[2])
def test_versioned_env_is_the_classic_wrapper_stack(module, kit):
    env = module.env()
    stack = [type(env), type(env.env), type(env.env.env), type(env.env.env.env)]
    assert stack == [wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper, TerminateIllegal,
                     CardboardAECEnv]
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(env.action_space(env.agent_selection).n)
    debug = module.env(illegal="raise")
    assert type(debug) is wrappers.OrderEnforcingWrapper and type(debug.env) is CardboardAECEnv
    debug.reset(seed=0)
    key = kit.full_key(debug.unwrapped.game_state)
    with pytest.raises(IllegalActionError):
        debug.step(_masked_action(debug))
    assert kit.full_key(debug.unwrapped.game_state) == key and not any(debug.terminations.values())


def test_an_unknown_illegal_mode_is_a_typed_error():
    with pytest.raises(InvalidParameterError, match="'lose', 'raise'"):
        cardboard.make_env("lords_of_war", illegal="ignore")

"""Property tests (hypothesis) of every registered game's forward model, seeds drawn as strategies.

Each example deals a game from a drawn seed, plays a drawn number of random
moves, and checks one protocol promise there. Helpers are in
``tests/conftest.py`` (fixture ``kit``).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cardboard
from cardboard.envs.errors import IllegalActionError
from cardboard.envs.protocol import CHANCE, TERMINAL, hook

GAMES = cardboard.games()
SEEDS = st.integers(0, 2**32 - 1)
DEPTHS = st.integers(0, 250)
PROPERTY = settings(max_examples=40, deadline=None)
OBSERVATION_SPACES: dict = {}


def _check_terminal(state) -> None:
    info = state.info
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.turn <= info.max_turns
    returns = state.returns()
    assert returns.shape == (info.num_players,)
    assert np.all((info.min_return <= returns) & (returns <= info.max_return))
    if info.utility == "zero_sum":
        assert abs(float(returns.sum())) < 1e-9
    for p in range(info.num_players):  # the heuristic agrees with a decided result
        others = np.delete(returns, p)
        if returns[p] > others.max():
            assert state.heuristic(p) == 1.0
        elif returns[p] < others.min():
            assert state.heuristic(p) == -1.0


@pytest.mark.parametrize("name", GAMES)
@PROPERTY
@given(seed=SEEDS)
def test_random_playout_terminates_with_masks_equal_to_legal_actions(name, seed, kit):
    state = cardboard.new_state(name, seed=seed)
    info = state.info
    rng = np.random.default_rng(seed)
    space = OBSERVATION_SPACES.setdefault(name, cardboard.make_env(name).observation_space("player_0")["observation"])
    last_turn = state.turn
    for step in range(info.max_turns * 64):  # a generous bound on decisions per turn: the loop must not run away
        if state.is_terminal():
            break
        if step % 7 == 0:  # every view, hidden and perfect, stays inside the env's observation space
            for p in range(info.num_players):
                assert space.contains(state.observation(p)) and space.contains(state.observation(p, perfect=True))
        player = state.current_player
        assert player == CHANCE or 0 <= player < info.num_players
        if player != CHANCE:
            legal = state.legal_actions().copy()
            assert len(legal) > 0 and np.all(np.diff(legal) > 0)
            assert 0 <= legal[0] and legal[-1] < info.num_actions
            assert np.array_equal(np.flatnonzero(state.action_mask()), legal)
        state.apply(kit.random_action(state, rng))
        assert last_turn <= state.turn <= info.max_turns
        last_turn = state.turn
    _check_terminal(state)


@pytest.mark.parametrize("name", GAMES)
@PROPERTY
@given(seed=SEEDS, depth=DEPTHS, sample_seed=SEEDS, data=st.data())
def test_determinize_keeps_what_the_player_sees_and_every_card(name, seed, depth, sample_seed, data, kit):
    state = kit.played_state(name, seed, depth)
    player = data.draw(st.integers(0, state.num_players - 1), label="player")
    key = kit.full_key(state)
    det = state.determinize(player, np.random.default_rng(sample_seed))
    assert np.array_equal(det.observation(player), state.observation(player))
    assert kit.card_multiset(det) == kit.card_multiset(state)  # both None: the game offers no card_multiset
    assert det.current_player == state.current_player and det.turn == state.turn
    if state.current_player == player:
        assert np.array_equal(det.legal_actions(), state.legal_actions())
    if state.info.information == "perfect":
        assert kit.state_key(det) == kit.state_key(state)
    assert kit.full_key(state) == key
    # the sample is a live state of its own: playing it on leaves the source alone
    kit.advance(det, np.random.default_rng(sample_seed), 30)
    assert kit.full_key(state) == key


@pytest.mark.parametrize("name", GAMES)
@PROPERTY
@given(seed=SEEDS, depth=DEPTHS, more=st.integers(1, 60))
def test_clone_then_apply_never_changes_the_source(name, seed, depth, more, kit):
    state = kit.played_state(name, seed, depth)
    key = kit.full_key(state)
    clone = state.clone()
    assert kit.full_key(clone) == key
    kit.advance(clone, np.random.default_rng(seed + 1), more)
    assert kit.full_key(state) == key


@pytest.mark.parametrize("name", GAMES)
@PROPERTY
@given(seed=SEEDS, depth=DEPTHS, data=st.data())
def test_illegal_action_raises_and_leaves_the_state_unchanged(name, seed, depth, data, kit):
    state = kit.played_state(name, seed, depth)
    if state.is_terminal():
        legal = set()
    elif state.current_player == CHANCE:
        legal = {int(a) for a, _ in state.chance_outcomes()}
    else:
        legal = {int(a) for a in state.legal_actions()}
    action = data.draw(st.integers(-3, state.num_actions + 3).filter(lambda a: a not in legal), label="action")
    key = kit.full_key(state)
    twin = state.clone()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert kit.full_key(state) == key
    if not state.is_terminal():  # the failed call left no trace: the state plays on like its twin
        nxt = kit.random_action(state, np.random.default_rng(seed))
        state.apply(nxt)
        twin.apply(nxt)
        assert kit.full_key(state) == kit.full_key(twin)


@pytest.mark.parametrize("name", [g for g in GAMES if hook(cardboard.new_state(g, seed=0), "random_playout")])
@PROPERTY
@given(seed=SEEDS, depth=DEPTHS, playout_seed=SEEDS)
def test_compiled_random_playout_ends_in_a_sane_terminal_state(name, seed, depth, playout_seed, kit):
    """The optional ``random_playout`` hook, for every game that offers it."""
    state = kit.played_state(name, seed, depth)
    twin = state.clone()
    steps = state.random_playout(np.random.default_rng(playout_seed))
    assert steps >= 0 and not (twin.is_terminal() and steps > 0)
    if twin.current_player >= 0:  # from a decision node at least one decision is made (chance may end a game first)
        assert steps > 0
    _check_terminal(state)
    # seeded: the same generator plays the same game; the finished state still answers the protocol
    twin.random_playout(np.random.default_rng(playout_seed))
    assert kit.full_key(twin) == kit.full_key(state)
    with pytest.raises(IllegalActionError):
        state.apply(0)

"""Shared helpers of the suite-wide tests: random play through the protocol and per-game hooks.

The conformance and property tests are game-agnostic: they use only the
forward-model protocol (``cardboard.envs.protocol``) and the AEC env. The
protocol exposes no card identities, so two things need a small per-game hook,
registered in ``HOOKS`` below (a new game must add its entry, or its
conformance tests fail with a message pointing here):

``card_multiset(state)``  the sorted ids of every card in every zone (board,
                          hands, decks, discard/dead piles): resampling hidden
                          cards must conserve it. A game without cards returns ().
``state_key(state)``      bytes (or any comparable value) that identify the full
                          state, hidden parts included: "unchanged" and
                          "really resampled" are judged by it.
``private_info``          True when a player holds information its opponents do
                          not see (a hand): resampling for one player must then
                          change an opponent's own view in some samples.

The helpers are handed to tests through the session fixture ``kit``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np
import pytest

import cardboard
from cardboard.envs.protocol import CHANCE, GameState, sample_chance


# ---- per-game hooks ----------------------------------------------------------------------------
@dataclass(frozen=True)
class GameHooks:
    card_multiset: Callable[[Any], tuple]
    state_key: Callable[[Any], Any]
    private_info: bool


def _lords_of_war_cards(state) -> tuple:
    from cardboard.envs.lords_of_war import rules as R
    from cardboard.envs.lords_of_war.constants import ARMY_SIZE, HAND_SIZE, NUM_SQUARES

    s = state.s
    zones = [s[R.BOARD:R.BOARD + NUM_SQUARES]]
    for p in range(2):
        zones.append(s[R.HAND + p * HAND_SIZE:R.HAND + p * HAND_SIZE + int(s[R.NHAND + p])])
        zones.append(s[R.DECK + p * ARMY_SIZE:R.DECK + p * ARMY_SIZE + int(s[R.NDECK + p])])
        zones.append(s[R.DEAD + p * ARMY_SIZE:R.DEAD + p * ARMY_SIZE + int(s[R.NDEAD + p])])
    ids = np.concatenate(zones).astype(int)
    return tuple(sorted(int(c) for c in ids if c >= 0))


def _hearth_cards(state) -> tuple:
    """Every card a player owns in deck, hand (a Spare Part counts as 'a Spare Part': its identity is what
    determinize resamples), mulligan set-aside and board, tagged by owner."""
    from cardboard.envs.hearth import layout as L

    s, out = state.s, []
    for p in range(2):
        b = L.player_base(p)
        deck = s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS]
        out += [(p, "deck or hand", int(c)) for c in np.repeat(np.arange(L.NUM_CARDS), deck)]
        for slot in range(int(s[b + L.P_NHAND])):
            card, origin = int(s[b + L.P_HAND + slot]), int(s[b + L.P_HAND_ORIGIN + slot])
            out.append((p, "deck or hand", card) if origin == L.ORIGIN_DECK else
                       (p, "spare part", -1) if origin == L.ORIGIN_SPARE_PART else (p, "known", card))
        out += [(p, "deck or hand", int(c)) for c in s[b + L.P_ASIDE:b + L.P_ASIDE + int(s[b + L.P_NASIDE])]]
        out += [(p, "board", int(s[L.minion_base(p, i) + L.M_CARD])) for i in range(int(s[b + L.P_NMIN]))]
    return tuple(sorted(out))


HOOKS: dict[str, GameHooks] = {
    "hearth": GameHooks(
        card_multiset=_hearth_cards,
        state_key=lambda state: state.s.tobytes(),
        private_info=True,
    ),
    "lords_of_war": GameHooks(
        card_multiset=_lords_of_war_cards,
        state_key=lambda state: state.s.tobytes(),
        private_info=True,
    ),
}


def hooks(name: str) -> GameHooks:
    if name not in HOOKS:
        pytest.fail(f"game {name!r} has no conformance hooks: add its entry to HOOKS in tests/conftest.py")
    return HOOKS[name]


# ---- random play through the protocol ----------------------------------------------------------
def random_action(state: GameState, rng: np.random.Generator) -> int:
    """A uniformly random legal action (a sampled outcome at a chance node)."""
    if state.current_player == CHANCE:
        return int(sample_chance(state, rng))
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


def advance(state: GameState, rng: np.random.Generator, steps: int) -> GameState:
    """Play up to ``steps`` random moves in place (fewer if the game ends); returns ``state``."""
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply(random_action(state, rng))
    return state


def views(state: GameState) -> tuple:
    """Everything the protocol shows about a state: perfect and private views of every player, legal moves."""
    n = state.num_players
    return (
        state.current_player,
        state.turn,
        bool(state.is_terminal()),
        tuple(state.returns().tolist()) if state.is_terminal() else None,
        tuple(state.observation(p, perfect=True).tobytes() for p in range(n)),
        tuple(state.observation(p).tobytes() for p in range(n)),
        tuple(int(a) for a in state.legal_actions()) if not state.is_terminal() else (),
    )


def full_key(state: GameState) -> tuple:
    """The protocol views plus the game's full-state key: equal keys = the same state."""
    return views(state), hooks(state.info.name).state_key(state)


@functools.lru_cache(maxsize=None)
def _midgame_states(name: str, n_games: int, depths: tuple[int, ...], min_states: int) -> tuple:
    states = []
    seed = 0
    while (seed < n_games or len(states) < min_states) and seed < 50 * n_games:  # short games: deal more
        rng = np.random.default_rng(10_000 + seed)
        state = cardboard.new_state(name, seed=seed)
        done = 0
        for depth in depths:
            advance(state, rng, depth - done)
            done = depth
            if state.is_terminal():
                break
            states.append(state.clone())
        seed += 1
    return tuple(states)


def midgame_states(name: str, n_games: int = 6, depths: tuple[int, ...] = (1, 4, 10, 20, 35, 60, 90, 130),
                   min_states: int = 40) -> list:
    """Non-terminal states reached by seeded random play at several depths (fresh clones each call)."""
    return [s.clone() for s in _midgame_states(name, n_games, depths, min_states)]


def played_state(name: str, seed: int, depth: int) -> GameState:
    """The state after ``depth`` random moves (or the end) of the game dealt with ``seed``."""
    return advance(cardboard.new_state(name, seed=seed), np.random.default_rng([seed, 1]), depth)


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    return SimpleNamespace(
        hooks=hooks,
        random_action=random_action,
        advance=advance,
        views=views,
        full_key=full_key,
        midgame_states=midgame_states,
        played_state=played_state,
    )

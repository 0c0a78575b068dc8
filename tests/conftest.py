"""Shared helpers of the suite-wide tests: random play through the protocol, and the plugin folder.

The conformance and property tests are game-agnostic: they use only the
forward-model protocol (``cardboard.envs.protocol``) and the AEC env. Where the
protocol alone cannot tell two states apart or count cards, they use the
optional hooks a state may offer (looked up with ``protocol.hook``):

``state_key()``      identifies the full state, hidden parts included; without
                     it, states are judged by ``pickle.dumps``.
``card_multiset()``  every card in every zone, sorted; without it, the check that
                     ``determinize`` conserves cards is skipped for that game.

and ``GameInfo.private_information`` (a player holds what another does not see:
resampling for one player must then change another's own view in some samples).

``tests/external`` holds a plugin laid out as an installed package (its
``.dist-info`` declares ``cardboard.games`` entry points). It is put on
``sys.path`` and ``PYTHONPATH`` here, at import time, before anything loads the
registry, so every registered-game test also runs on games written outside the
repository, in this process and in subprocesses (the CLI, match workers).

The helpers are handed to tests through the session fixture ``kit``.
"""
from __future__ import annotations

import functools
import os
import pickle
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

EXTERNAL = str(Path(__file__).resolve().parent / "external")
if EXTERNAL not in sys.path:
    sys.path.insert(0, EXTERNAL)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (EXTERNAL, os.environ.get("PYTHONPATH")) if p)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import cardboard  # noqa: E402
from cardboard.envs.protocol import CHANCE, GameState, hook, sample_chance  # noqa: E402


# ---- what the protocol alone cannot see ---------------------------------------------------------
def state_key(state: GameState) -> Any:
    """The state's ``state_key()`` hook, or its pickle when it offers none."""
    key = hook(state, "state_key")
    return key() if key is not None else pickle.dumps(state)


def card_multiset(state: GameState) -> tuple | None:
    """The state's ``card_multiset()`` hook, or None when it offers none (the conservation check is skipped)."""
    cards = hook(state, "card_multiset")
    return cards() if cards is not None else None


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
    """The protocol views plus the full-state key: equal keys = the same state."""
    return views(state), state_key(state)


def states_in_play(game: Any, n_games: int = 6, depths: tuple[int, ...] = (1, 4, 10, 20, 35, 60, 90, 130),
                   min_states: int = 40) -> list:
    """Non-terminal states of ``game`` (a ``Game``) reached by seeded random play at several depths."""
    states = []
    seed = 0
    while (seed < n_games or len(states) < min_states) and seed < 50 * n_games:  # short games: deal more
        rng = np.random.default_rng(10_000 + seed)
        state = game.new_state(seed)
        done = 0
        for depth in depths:
            advance(state, rng, depth - done)
            done = depth
            if state.is_terminal():
                break
            states.append(state.clone())
        seed += 1
    return states


@functools.lru_cache(maxsize=None)
def _midgame_states(name: str) -> tuple:
    return tuple(states_in_play(cardboard.make_game(name)))


def midgame_states(name: str) -> list:
    """Non-terminal states of registered game ``name`` from seeded random play (fresh clones each call)."""
    return [s.clone() for s in _midgame_states(name)]


def played_state(name: str, seed: int, depth: int) -> GameState:
    """The state after ``depth`` random moves (or the end) of the game dealt with ``seed``."""
    return advance(cardboard.new_state(name, seed=seed), np.random.default_rng([seed, 1]), depth)


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    return SimpleNamespace(
        state_key=state_key,
        card_multiset=card_multiset,
        random_action=random_action,
        advance=advance,
        views=views,
        full_key=full_key,
        states_in_play=states_in_play,
        midgame_states=midgame_states,
        played_state=played_state,
    )


@pytest.fixture
def compiled_runs(monkeypatch):
    """A list that gets the iterations of each search the compiled loop ran in its rollout mode
    (``compiled.CompiledLoop``; tests/test_compiled_*.py)."""
    runs = []
    from cardboard.search import compiled

    steps = compiled.CompiledLoop.steps

    def counted(self, run):
        result = yield from steps(self, run)
        if self.leaf is None:
            runs.append(result.iterations)
        return result

    monkeypatch.setattr(compiled.CompiledLoop, "steps", counted)
    return runs


# ---- one Ray cluster for the session --------------------------------------------------------------
@pytest.fixture(scope="session")
def ray_cluster():
    """A two-node Ray cluster on this machine (a head and a worker node, one CPU each) that this process has
    joined: started once per pytest process, on first use, for every test of that process that asks
    (``cardboard.jobs.ray_backend`` reuses it; under ``make test`` each worker that runs a Ray test file starts
    its own)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'cardboard[ray]' (make test does)")
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield cluster
    ray.shutdown()
    cluster.shutdown()

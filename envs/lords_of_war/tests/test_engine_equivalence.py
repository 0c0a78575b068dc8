"""The derived maps in the state array, and the compiled rollout against one-decision-at-a-time play.

The kernels keep ATT and UNITS (see the layout in ``rules``) in step with the mat incrementally; here
they must equal ``rebuild_maps``' from-scratch recomputation after every decision of many random games,
some of them from crowded mats (where the no-legal-placement modes and full mats occur). And
``random_playout``, which picks a deployment without listing the legal actions, must make exactly the
moves of ``legal_actions`` + ``apply_unchecked`` with the same random draws.
"""
from __future__ import annotations

import numpy as np

from cardboard.envs.kernels import rand_below
from cardboard.envs.lords_of_war import layout as L
from cardboard.envs.lords_of_war import rules as R
from cardboard.envs.lords_of_war.layout import ARMY_SIZE, NUM_SQUARES
from cardboard.envs.lords_of_war.state import LordsOfWarGame

GAME = LordsOfWarGame()
CARDS = GAME.cards


def _start(seed: int) -> np.ndarray:
    """A dealt state; every third seed plays on from a mat crowded with deck cards (BOARD written directly)."""
    rng = np.random.default_rng(seed)
    state = GAME.new_state(seed)
    if seed % 3 == 2:
        for _ in range(int(rng.integers(6, 40))):
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
            if state.is_terminal():
                return state.s
        s = state.s
        empty = list(np.flatnonzero(s[L.BOARD:L.BOARD + NUM_SQUARES] < 0))
        rng.shuffle(empty)
        for sq in empty[:len(empty) - int(rng.integers(1, 4))]:
            p = 0 if sq < NUM_SQUARES // 2 else 1  # each side near its own edge: placements get scarce
            nd = s[L.NDECK + p]
            if nd > 0:
                s[L.BOARD + sq] = s[L.DECK + p * ARMY_SIZE + nd - 1]
                s[L.DECK + p * ARMY_SIZE + nd - 1] = -1
                s[L.NDECK + p] = nd - 1
        R.rebuild_maps(s, CARDS)
    return state.s


def _rng(seed: int) -> np.ndarray:
    """State of the kernels' xorshift generator."""
    return np.array([seed * 7919 + 1], dtype=np.uint64)


def _rebuilt(s: np.ndarray) -> np.ndarray:
    t = s.copy()
    R.rebuild_maps(t, CARDS)
    return t


def _play(seed: int) -> set[int]:
    """Play one game both ways, checking after every decision; return the deploy modes met."""
    s = _start(seed)
    stepped, rolled = s.copy(), s.copy()
    buf = np.empty(L.BUFFER_LEN, dtype=np.int32)
    roll_buf = np.empty(L.BUFFER_LEN, dtype=np.int32)
    rng_step = _rng(seed)
    rng_roll = _rng(seed)
    modes = set()
    steps = 0
    while stepped[L.PHASE] != L.PH_OVER:
        n = R.legal_actions(stepped, CARDS, buf)
        if stepped[L.PHASE] == L.PH_DEPLOY:
            modes.add(int(buf[L.MODE]))
        R.apply_unchecked(stepped, CARDS, buf[rand_below(rng_step, n)], buf)
        assert R.random_playout(rolled, CARDS, roll_buf, rng_roll, 1, L.MAX_TURNS) == 1
        steps += 1
        assert np.array_equal(stepped, rolled) and rng_step[0] == rng_roll[0], f"seed {seed}: parted at {steps}"
        assert np.array_equal(stepped, _rebuilt(stepped)), f"seed {seed}: maps drift at decision {steps}"
    whole = s.copy()
    assert R.random_playout(whole, CARDS, buf, _rng(seed), 1 << 30, L.MAX_TURNS) == steps
    assert np.array_equal(whole, stepped)
    return modes


def test_maps_match_a_recomputation_and_the_rollout_matches_stepping():
    modes = set().union(*(_play(seed) for seed in range(600)))
    assert {0, 1, 2} <= modes, f"crowded mats should reach both no-legal-placement modes, met {modes}"

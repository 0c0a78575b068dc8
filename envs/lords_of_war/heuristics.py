"""Paper 002's eleven pruning heuristics h1..h11 (§2.2-2.3), compiled, and the state after each candidate move.

Building blocks for a player ``p`` (the opponent's with ``opp``): f1 = p's cards on the mat, f2 = p's
eliminated cards, f3 = the sum of their defence values, f4 = the squares (empty or enemy-held) that p's
melee arrows point at (the paper's text; its formula counts cards instead, 002 §4.2), f5 = p's eliminated
Command cards, f6..f11 = the sum over p's cards of the heat map m_a..m_f at the card's square.

===  =============================  ===================================================
h1   card count                     (f1 - f2) - (f1opp - f2opp)
h2   average defence                f3 / f1 - f3opp / f1opp (a side with no card: 0)
h3   threatened area                f4 - f4opp
h4   card count, dead Commanders    (f1 - f2 - f5) - (f1opp - f2opp - f5opp)
h5   own average defence            f3 / f1 (0 with no card)
h6..h11  heat maps                  f6 .. f11 (own cards only, as the paper's formulas)
===  =============================  ===================================================

The maps are ours (002's Fig. 1 did not survive): ``heat_maps.json``, in the owner's frame. A search sees a
heuristic as the state evaluation ``evaluation("h4")`` (the protocol's hook): the raw value mapped into [0, 1]
by ``0.5 + 0.5 tanh(raw / scale)``, strictly increasing, so the order of states (all that pruning uses) is the
raw heuristic's; a decided game is 1 for the winner and 0 for the loser (our decision: a winning move is never
pruned away; a draw is 0.5).
"""
from __future__ import annotations

import json
from importlib import resources

import numpy as np
from numba import njit

from ..errors import InvalidParameterError
from ..kernels import rand_below
from . import rules as R
from .layout import (ARMY_SIZE, ATT, BOARD, BUFFER_LEN, COLS, F_DEF, MODE, NCMD, NDEAD, NSQ, PH_OVER, PHASE, PLAYER,
                     ROWS, TURN, WINNER)

NAMES = tuple(f"h{i}" for i in range(1, 12))
MAP_NAMES = ("front", "back", "midfield", "flanks", "centre", "edges")  # m_a .. m_f: h6 .. h11
# the raw value's scale in the [0, 1] mapping (about the largest difference a game reaches)
SCALES = np.array([24.0, 8.0, 24.0, 24.0, 8.0] + [64.0] * len(MAP_NAMES))


def load_heat_maps() -> np.ndarray:
    """The six maps of ``heat_maps.json`` as a float64 array [6, ROWS, COLS] in m_a..m_f order."""
    data = json.loads(resources.files(__package__).joinpath("heat_maps.json").read_text())["maps"]
    maps = np.array([data[name]["rows"] for name in MAP_NAMES], dtype=np.float64)
    assert maps.shape == (len(MAP_NAMES), ROWS, COLS), maps.shape
    return maps


HEAT_MAPS = load_heat_maps()


def heuristic_index(name: str) -> int:
    """0..10 for 'h1'..'h11'; ``InvalidParameterError`` listing the names otherwise."""
    if name not in NAMES:
        raise InvalidParameterError(f"Lords of War has no evaluation {name!r}; its evaluations are paper 002's "
                                    f"heuristics {', '.join(NAMES)}")
    return NAMES.index(name)


@njit(cache=True, nogil=True)
def _side(s, cards, maps, which, p):
    """(f1, f3, f4, heat) of player p; f4 only for h3 (which = 2), heat is f_{6+k} for which = 5 + k."""
    f1 = 0
    f3 = 0
    heat = 0.0
    for sq in range(NSQ):
        c = s[BOARD + sq]
        if c >= 0 and (c >= ARMY_SIZE) == (p == 1):
            f1 += 1
            f3 += cards[c, F_DEF]
            if which >= 5:
                e = R.ego(sq, p)
                heat += maps[which - 5, e // COLS, e % COLS]
    f4 = threatened(s, p)[0] if which == 2 else 0
    return f1, f3, f4, heat


@njit(cache=True, nogil=True)
def threatened(s, p):
    """(the empty or enemy-held squares under p's melee arrows, the attack p points at them): f4 of 002 §2.2, and
    Cx1 / Cx2 of 000 §2.7 (``LordsOfWarState.complexity``)."""
    squares = 0
    attack = 0
    for sq in range(NSQ):
        c = s[BOARD + sq]
        if s[ATT + p * NSQ + sq] > 0 and (c < 0 or (c >= ARMY_SIZE) != (p == 1)):
            squares += 1
            attack += s[ATT + p * NSQ + sq]
    return squares, attack


@njit(cache=True, nogil=True)
def raw_heuristic(s, cards, maps, which, p):
    """h_{which + 1} for player p (paper 002 §2.3), unscaled."""
    q = 1 - p
    f1, f3, f4, heat = _side(s, cards, maps, which, p)
    if which >= 5:
        return heat
    if which == 4:
        return f3 / f1 if f1 else 0.0
    g1, g3, g4, _ = _side(s, cards, maps, which, q)
    if which == 0:
        return float((f1 - s[NDEAD + p]) - (g1 - s[NDEAD + q]))
    if which == 1:
        return (f3 / f1 if f1 else 0.0) - (g3 / g1 if g1 else 0.0)
    if which == 2:
        return float(f4 - g4)
    return float((f1 - s[NDEAD + p] - s[NCMD + p]) - (g1 - s[NDEAD + q] - s[NCMD + q]))


@njit(cache=True, nogil=True)
def heuristic_value(s, cards, maps, scales, which, p):
    """``raw_heuristic`` mapped into [0, 1] (strictly increasing); 1 / 0 / 0.5 for a won / lost / drawn game."""
    if s[PHASE] == PH_OVER:
        w = s[WINNER]
        return 1.0 if w == p else 0.5 if w == 2 else 0.0
    return 0.5 + 0.5 * np.tanh(raw_heuristic(s, cards, maps, which, p) / scales[which])


@njit(cache=True, nogil=True)
def finish_turn(t, cards, buf, mover, turn, stream):
    """Play the mover's remaining decisions of this turn uniformly at random, in place: until the game
    ends, the opponent is to decide, or a new turn begins (paper 002 §2.6's state extrapolation)."""
    while t[PHASE] != PH_OVER and t[PLAYER] == mover and t[TURN] == turn:
        n = R.legal_actions(t, cards, buf)
        R.apply_unchecked(t, cards, buf[rand_below(stream, n)], buf)


@njit(cache=True, nogil=True)
def values_after(s, cards, maps, scales, mode, actions, which, extrapolate, stream, out):
    """``out[h, i]``: heuristic ``which[h]`` for the player to move of the state after ``actions[i]`` (each legal
    in ``s``; ``mode`` is the deploy mode ``legal_actions`` left in the buffer), after ``finish_turn`` when
    ``extrapolate``."""
    mover = s[PLAYER]
    turn = s[TURN]
    buf = np.empty(BUFFER_LEN, dtype=np.int32)
    for i in range(len(actions)):
        t = s.copy()
        buf[MODE] = mode
        R.apply_unchecked(t, cards, actions[i], buf)
        if extrapolate:
            finish_turn(t, cards, buf, mover, turn, stream)
        for h in range(len(which)):
            out[h, i] = heuristic_value(t, cards, maps, scales, which[h], mover)

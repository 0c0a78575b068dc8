"""The paper's hierarchical default policy (003 §2.2) and RHEA's mutation policy (003 §2.3), compiled.

Both choose among the legal macro-actions (``macro``). The default policy walks its tiers in order
and takes a uniformly random macro of the first tier that has one:

1. discover a cure;  2. treat in a city with 3 cubes of the colour;  3. share knowledge with
immediate effect, else go and wait to share;  4. build a research station (fewer than 5 stand);
5. treat where there are 2 cubes;  6. treat where there is 1;  7. walk away: random drives for the
rest of the turn.

The mutation policy draws from cure / treat (3 cubes, else 2, else 1) / share / build in an order
shuffled at every call, takes a random macro of the first non-empty set, and any legal macro when
all are empty (the authors' code's fallback). Discards (the hand limit) go by the cure-ability
metric: the card whose loss lowers A(t) least, ties at random (003 §1.7).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import rand_below
from .layout import (
    ACTIONS_LEFT, B_COLOUR, B_DEGREE, B_NEIGHBOURS, CUBES, CURE_COLOUR, DECIDER, NUM_CITIES, NUM_COLOURS, PAWN,
    PH_ACTIONS, PH_CURE_DISCARD, PH_OVER, PHASE, PLAYER, ROLE, RESEARCHER, TURN,
)
from .macro import (
    _LEAN, DIST, DP_MAX_STATIONS, M_BUILD, M_CURE, M_DISCARD, M_GIVE, M_PASS, M_TAKE, M_TREAT, M_WALK, NUM_MACROS,
    W_COUNTS, W_LOSSES, W_RULES, _apply_routed, _discard_losses, _legal_routed, _routes, new_scratch,
)
from .rules import settle, stations_built

T_CURE, T_TREAT3, T_SHARE, T_BUILD, T_TREAT2, T_TREAT1, T_WALK, T_PASS, T_SHARE_WAIT, NUM_TIERS = range(10)


@njit(**_LEAN, inline="always")
def _tier(s, m, dist, built):
    """The default policy's tier of legal macro ``m`` (``dist``: the seat's route lengths; ``built``:
    ``stations_built(s)``)."""
    if m < M_CURE:
        c, k = (m - M_TREAT) // NUM_COLOURS, (m - M_TREAT) % NUM_COLOURS
        cubes = s[CUBES + c * NUM_COLOURS + k]
        return T_TREAT3 if cubes >= 3 else T_TREAT2 if cubes == 2 else T_TREAT1
    if m < M_BUILD:
        return T_CURE
    if m < M_GIVE:
        return T_BUILD if built < DP_MAX_STATIONS else -1
    if m < M_WALK:
        p = s[PLAYER]
        give = m < M_TAKE
        q = (m - (M_GIVE if give else M_TAKE)) // NUM_CITIES
        c = (m - (M_GIVE if give else M_TAKE)) % NUM_CITIES
        dest = s[PAWN + q] if (not give or s[ROLE + p] == RESEARCHER) else c
        now = s[PAWN + q] == dest and dist[dest] <= s[ACTIONS_LEFT] - 1
        return T_SHARE if now else T_SHARE_WAIT
    if m < M_PASS:
        return T_WALK
    return T_PASS


@njit(**_LEAN)
def _legal_with_tiers(s, board, buf, r, w, tiers):
    """The legal macros (in ``buf``, routes in ``r``) and each one's tier (in ``tiers``; ``w``: ``macro``'s
    scratch); returns how many."""
    _routes(s, board, s[PLAYER], r, -1, -1, w, -1, s[ACTIONS_LEFT])  # no macro goes farther
    n = _legal_routed(s, board, buf, r, w)
    built = stations_built(s)
    dist = r[DIST]
    for i in range(n):
        tiers[i] = _tier(s, buf[i], dist, built)
    return n


@njit(**_LEAN, inline="always")
def _pick(legal, tiers, n, wanted, stream):
    """A uniformly random macro of tier ``wanted``, or -1."""
    count = 0
    for i in range(n):
        count += tiers[i] == wanted
    if count == 0:
        return -1
    j = rand_below(stream, count)
    for i in range(n):
        if tiers[i] == wanted:
            if j == 0:
                return legal[i]
            j -= 1
    return -1


@njit(cache=True, nogil=True)
def best_discard(s, board, stream):
    """The discard decision by the cure-ability metric (ties at random), as a macro id."""
    return _best_discard(s, board, stream, new_scratch())


@njit(**_LEAN)
def _best_discard(s, board, stream, w):
    """``best_discard`` with ``macro``'s scratch ``w``."""
    losses = w[W_LOSSES]
    seat = s[DECIDER]
    _discard_losses(s, board, seat, losses, w[W_COUNTS])
    cure = s[PHASE] == PH_CURE_DISCARD
    best = np.inf
    for c in range(NUM_CITIES):
        if losses[c] < best and (not cure or board[c, B_COLOUR] == s[CURE_COLOUR]):
            best = losses[c]
    ties = w[W_RULES]
    n = 0
    for c in range(NUM_CITIES):
        if losses[c] == best and (not cure or board[c, B_COLOUR] == s[CURE_COLOUR]):
            ties[n] = c
            n += 1
    return M_DISCARD + ties[rand_below(stream, n)]


_DP_ORDER = np.array([T_CURE, T_TREAT3, T_SHARE, T_SHARE_WAIT, T_BUILD, T_TREAT2, T_TREAT1, T_WALK, T_PASS])


@njit(cache=True, nogil=True)
def default_macro(s, board, buf, stream, r):
    """The default policy's macro at a decision of ``s`` (``buf``: scratch of at least NUM_MACROS ints; ``r``:
    a routes array, left holding the acting seat's routes)."""
    return _default_macro(s, board, buf, stream, r, new_scratch(), np.empty(NUM_MACROS, dtype=np.int32))


@njit(**_LEAN)
def _default_macro(s, board, buf, stream, r, w, tiers):
    """``default_macro`` with ``macro``'s scratch ``w`` and ``tiers`` (NUM_MACROS ints)."""
    if s[PHASE] != PH_ACTIONS:
        return _best_discard(s, board, stream, w)
    n = _legal_with_tiers(s, board, buf, r, w, tiers)
    for wanted in _DP_ORDER:
        m = _pick(buf, tiers, n, wanted, stream)
        if m >= 0:
            return m
    return M_PASS


@njit(cache=True, nogil=True)
def mutation_macro(s, board, buf, stream, r):
    """The mutation policy's macro (003 §2.3): the four candidate sets in a shuffled order, then any macro."""
    w = new_scratch()
    if s[PHASE] != PH_ACTIONS:
        return _best_discard(s, board, stream, w)
    tiers = np.empty(NUM_MACROS, dtype=np.int32)
    n = _legal_with_tiers(s, board, buf, r, w, tiers)
    order = np.arange(4)
    for i in range(3, 0, -1):
        j = rand_below(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    for o in order:
        if o == 0:
            m = _pick(buf, tiers, n, T_CURE, stream)
        elif o == 1:
            m = _pick(buf, tiers, n, T_TREAT3, stream)
            if m < 0:
                m = _pick(buf, tiers, n, T_TREAT2, stream)
            if m < 0:
                m = _pick(buf, tiers, n, T_TREAT1, stream)
        elif o == 2:
            m = _pick(buf, tiers, n, T_SHARE, stream)
            if m < 0:
                m = _pick(buf, tiers, n, T_SHARE_WAIT, stream)
        else:
            m = _pick(buf, tiers, n, T_BUILD, stream)
        if m >= 0:
            return m
    return buf[rand_below(stream, n)]


@njit(**_LEAN)
def walk_away(s, board, stream):
    """Tier 7: a random drive (the policy keeps walking for the rest of the turn)."""
    here = s[PAWN + s[PLAYER]]
    return M_WALK + board[here, B_NEIGHBOURS + rand_below(stream, board[here, B_DEGREE])]



@njit(cache=True, nogil=True)
def play_default(s, board, buf, stream, turn_limit):
    """The default policy for every seat, chance by the stored order (``rules.sample_outcome``), in place,
    until the end or turn ``turn_limit`` begins; returns the decisions made. The compiled forward
    simulation of 003 §2.3 and of the testbed (003 §3.1)."""
    ids = np.empty(NUM_CITIES + 1, dtype=np.int32)
    probs = np.empty(NUM_CITIES + 1, dtype=np.float64)
    r = np.empty((4, NUM_CITIES), dtype=np.int64)
    w = new_scratch()
    tiers = np.empty(NUM_MACROS, dtype=np.int32)
    walking_turn = -1
    steps = 0
    settle(s, board, ids, probs, stream)
    while s[PHASE] != PH_OVER and s[TURN] < turn_limit:
        if s[PHASE] == PH_ACTIONS and walking_turn == s[TURN]:
            m = walk_away(s, board, stream)
        else:
            m = _default_macro(s, board, buf, stream, r, w, tiers)  # leaves the routes of this position in r
            if M_WALK <= m < M_PASS:
                walking_turn = s[TURN]
        _apply_routed(s, board, m, r, w)
        steps += 1
        settle(s, board, ids, probs, stream)
    return steps

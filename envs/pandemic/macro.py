"""Macro-actions (003 §1.7): a second action layer, "the shortest route to a city, then one useful action".

A macro id names the useful action and its target; applying it plays the whole route and the action
(up to the seat's remaining actions) through the primitive rules. Routes are shortest action
sequences over drive/ferry and shuttle flights, and over direct, charter and the Operations Expert's
station flights only with a card whose loss keeps the team's cure-ability A(t) (eq. 1-2): the
``spendable`` cards. The same metric picks discards and tells when sharing helps.

=============  ==========================================================================
macro          meaning
=============  ==========================================================================
TREAT c, k     route to city c (at most ``left - 1`` actions), treat colour k there
CURE c, k      route to the research station c, discover the cure for k
BUILD c        route to c, build there: c has no station, the seat can build (its card,
               or the Operations Expert), c is ``BUILD_MIN_DISTANCE`` drives from every
               station, fewer than 6 stations stand
GIVE q, x      take card x to seat q and give it (x's city; the Researcher goes to q),
               when A rises; q not there (or no action left after the route): wait there
TAKE q, x      go to seat q (in x's city, or anywhere for the Researcher) and take x when
               A rises; no action left after the route: wait there
WALK c         drive to the adjacent city c
PASS           end the actions
DISCARD x      a discard decision (hand limit, or a card for a cure), as the primitive one
=============  ==========================================================================

A macro is legal only if it fits in the actions left (003 §2.3: macros that cannot complete within
the turn performed poorly). A wait ends the seat's actions. Decisions other than the seat's actions
(discards) are the primitive ones under macro ids.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import layout as L
from .board import DRIVE_DISTANCE
from .layout import (
    A_BUILD, A_CHARTER, A_CURE, A_DIRECT, A_DISCARD, A_DRIVE, A_GIVE, A_OPS_MOVE, A_PASS, A_SHUTTLE, A_TAKE,
    A_TREAT, ACTIONS_LEFT, B_COLOUR, B_DEGREE, B_NEIGHBOURS, CUBES, CURED, HAND, MAX_STATIONS, NUM_CITIES,
    NUM_COLOURS, NUM_SEATS, OPERATIONS_EXPERT, OPS_MOVED, PAWN, PH_ACTIONS, PH_CURE_DISCARD, PH_LIMIT_DISCARD,
    MEDIC, PHASE, PLAYER, RESEARCHER, ROLE, STATION,
)
from ..kernels import rand_below
from .rules import apply_action, cure_cards, legal_actions, settle, stations_built

BUILD_MIN_DISTANCE = 4  # 003 §1.7: build "at least 4 steps from any other research station" (code: 3)
DP_MAX_STATIONS = 5  # 003 §2.2 tier 4: the default policy builds "only if there are fewer than 5" (code: 6)

M_TREAT = 0  # + city * 4 + colour
M_CURE = M_TREAT + NUM_CITIES * NUM_COLOURS  # + city * 4 + colour
M_BUILD = M_CURE + NUM_CITIES * NUM_COLOURS  # + city
M_GIVE = M_BUILD + NUM_CITIES  # + seat * 48 + card
M_TAKE = M_GIVE + L.MAX_PLAYERS * NUM_CITIES  # + seat * 48 + card
M_WALK = M_TAKE + L.MAX_PLAYERS * NUM_CITIES  # + city
M_PASS = M_WALK + NUM_CITIES
M_DISCARD = M_PASS + 1  # + card
NUM_MACROS = M_DISCARD + NUM_CITIES
MACRO_KINDS = ("treat", "cure", "build", "give", "take", "walk", "pass", "discard")
MACRO_STARTS = np.array([M_TREAT, M_CURE, M_BUILD, M_GIVE, M_TAKE, M_WALK, M_PASS, M_DISCARD, NUM_MACROS])
_DRIVE = np.ascontiguousarray(DRIVE_DISTANCE)
_OPS_BIT = 62  # in a route's spent-cards mask: the Operations Expert's station move is used
DIST, PREV, STEP, SPENT = range(4)  # rows of a routes array
# The kernels below the public ones take their scratch arrays from the caller and are compiled without the
# runtime's reference counting (numba's ``_nrt``, as Hearth's rules): counting references to s, the board and the
# scratch at every call of every helper cost most of a macro decision (legal macros 18.6 -> ... µs). The public
# kernels allocate the scratch and call them.
_LEAN = dict(cache=True, nogil=True, _nrt=False)
W_OK, W_QUEUE, W_COUNTS, W_ALT, W_FAR, W_RULES, W_STEPS, W_LOSSES, W_CARDS, W_STATIONS = range(10)  # scratch


@njit(cache=True, nogil=True)
def new_scratch():
    """Scratch for the lean kernels: (ok bool [48], queue int32 [48], counts int32 [4, 4], alt routes int64 [4, 48],
    far int32 [48], rules' ids int32 [48], steps int32 [8], losses float64 [48], a route's cards int32 [48], the
    stations int32 [48])."""
    return (np.zeros(NUM_CITIES, dtype=np.bool_), np.empty(NUM_CITIES, dtype=np.int32),
            np.zeros((L.MAX_PLAYERS, NUM_COLOURS), dtype=np.int32), np.empty((4, NUM_CITIES), dtype=np.int64),
            np.empty(NUM_CITIES, dtype=np.int32), np.empty(NUM_CITIES, dtype=np.int32), np.empty(8, dtype=np.int32),
            np.empty(NUM_CITIES, dtype=np.float64), np.empty(NUM_CITIES, dtype=np.int32),
            np.empty(NUM_CITIES, dtype=np.int32))


def new_routes() -> np.ndarray:
    """Scratch for ``routes``: int64 [4, 48]."""
    return np.empty((4, NUM_CITIES), dtype=np.int64)


def macro_kind(m: int) -> str:
    """'treat', 'cure', 'build', 'give', 'take', 'walk', 'pass' or 'discard'."""
    return MACRO_KINDS[int(np.searchsorted(MACRO_STARTS, m, side="right")) - 1]


# ---- the cure-ability metric (003 eq. 1-2) -----------------------------------------------------------------
@njit(**_LEAN)
def _hand_colours(s, board, counts):
    """counts[seat, colour]: the city cards of each colour in each hand."""
    counts[:] = 0
    for q in range(s[NUM_SEATS]):
        for c in range(NUM_CITIES):
            if s[HAND + q * NUM_CITIES + c]:
                counts[q, board[c, B_COLOUR]] += 1


@njit(**_LEAN, inline="always")
def _ability(s, counts, colour):
    """A(t): 1 when cured, else the best seat's share of the cards its cure needs, at most 1."""
    if s[CURED + colour]:
        return 1.0
    best = 0.0
    for q in range(s[NUM_SEATS]):
        best = max(best, min(1.0, counts[q, colour] / cure_cards(s, q)))
    return best


@njit(cache=True, nogil=True)
def cure_ability(s, board, out):
    """Write A(t) of the four colours into ``out``."""
    counts = np.zeros((L.MAX_PLAYERS, NUM_COLOURS), dtype=np.int32)
    _hand_colours(s, board, counts)
    for k in range(NUM_COLOURS):
        out[k] = _ability(s, counts, k)


@njit(cache=True, nogil=True)
def spendable(s, board, seat, out):
    """out[card] = True for the cards in ``seat``'s hand whose loss keeps A(t) of their colour."""
    _spendable(s, board, seat, out, np.zeros((L.MAX_PLAYERS, NUM_COLOURS), dtype=np.int32))


@njit(**_LEAN)
def _spendable(s, board, seat, out, counts):
    """``spendable`` with ``counts`` as scratch."""
    _hand_colours(s, board, counts)
    out[:] = False
    for c in range(NUM_CITIES):
        if s[HAND + seat * NUM_CITIES + c]:
            k = board[c, B_COLOUR]
            before = _ability(s, counts, k)
            counts[seat, k] -= 1
            out[c] = _ability(s, counts, k) >= before
            counts[seat, k] += 1


@njit(**_LEAN, inline="always")
def _share_gain(s, counts, board, giver, receiver, card):
    """A(t) of the card's colour after moving it from giver to receiver, minus before (``counts``: the hands'
    colour counts, restored on return)."""
    k = board[card, B_COLOUR]
    before = _ability(s, counts, k)
    counts[giver, k] -= 1
    counts[receiver, k] += 1
    after = _ability(s, counts, k)
    counts[giver, k] += 1
    counts[receiver, k] -= 1
    return after - before


@njit(cache=True, nogil=True)
def discard_losses(s, board, seat, out):
    """out[card] = the drop of sum A(t) if ``seat`` discards that card (inf for cards it does not hold)."""
    _discard_losses(s, board, seat, out, np.zeros((L.MAX_PLAYERS, NUM_COLOURS), dtype=np.int32))


@njit(**_LEAN)
def _discard_losses(s, board, seat, out, counts):
    """``discard_losses`` with ``counts`` as scratch."""
    _hand_colours(s, board, counts)
    out[:] = np.inf
    for c in range(NUM_CITIES):
        if s[HAND + seat * NUM_CITIES + c]:
            k = board[c, B_COLOUR]
            before = _ability(s, counts, k)
            counts[seat, k] -= 1
            out[c] = before - _ability(s, counts, k)
            counts[seat, k] += 1


# ---- routes -------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def routes(s, board, seat, r, keep_card=-1, keep_colour=-1):
    """Breadth-first shortest action sequences from ``seat``'s city into ``r`` (``new_routes()``): ``r[DIST, c]``
    actions (-1 unreachable), the last step ``r[STEP, c]`` (a primitive action) from ``r[PREV, c]``, and
    ``r[SPENT, c]`` the bitmask of the cards the route spends. Card flights use ``spendable`` cards, each at
    most once on a route, never ``keep_card`` nor a card of ``keep_colour``; the Operations Expert's station
    move (once a turn) spends its lowest-id such card."""
    _routes(s, board, seat, r, keep_card, keep_colour, new_scratch(), -1, NUM_CITIES)


@njit(**_LEAN)
def _routes(s, board, seat, r, keep_card, keep_colour, w, target, max_dist):
    """``routes`` with the scratch ``w`` (``new_scratch``), only as far as ``max_dist`` actions: farther cities are
    left unreached (``DIST`` -1, the other rows unset), which no macro that fits in ``max_dist`` actions reads.
    With a ``target`` city (>= 0) the search stops once it is reached: its route is final then (breadth-first),
    other cities' may be missing. The search also stops once every city is reached (nothing changes after)."""
    ok, queue, cards, stations = w[W_OK], w[W_QUEUE], w[W_CARDS], w[W_STATIONS]
    _spendable(s, board, seat, ok, w[W_COUNTS])
    for c in range(NUM_CITIES):
        if c == keep_card or board[c, B_COLOUR] == keep_colour:
            ok[c] = False
    hand = HAND + seat * NUM_CITIES
    ops = s[ROLE + seat] == OPERATIONS_EXPERT and s[OPS_MOVED] == 0
    ops_card = -1
    n_cards, n_stations = 0, 0  # the spendable cards in hand and the stations, increasing (the loops' order)
    for c in range(NUM_CITIES):
        if ok[c] and ops_card < 0:
            ops_card = c
        if s[hand + c] and ok[c]:
            cards[n_cards] = c
            n_cards += 1
        if s[STATION + c]:
            stations[n_stations] = c
            n_stations += 1
    dist, prev, step, spent = r[DIST], r[PREV], r[STEP], r[SPENT]
    dist[:] = -1
    start = s[PAWN + seat]
    dist[start] = 0
    prev[start] = -1
    step[start] = -1
    spent[start] = 0
    queue[0] = start
    head, tail = 0, 1
    while head < tail and tail < NUM_CITIES and (target < 0 or dist[target] < 0):
        x = queue[head]
        if dist[x] >= max_dist:  # breadth-first: every city left in the queue is as far
            break
        head += 1
        used = spent[x]
        for i in range(board[x, B_DEGREE]):  # drive / ferry
            tail = _reach(x, board[x, B_NEIGHBOURS + i], A_DRIVE + board[x, B_NEIGHBOURS + i], 0, used, dist, prev, step, spent, queue, tail)
        if s[STATION + x]:  # shuttle
            for j in range(n_stations):
                y = stations[j]
                tail = _reach(x, y, A_SHUTTLE + y, 0, used, dist, prev, step, spent, queue, tail)
        for j in range(n_cards):  # direct flights with spendable cards
            y = cards[j]
            if not (used >> y) & 1:
                tail = _reach(x, y, A_DIRECT + y, np.int64(1) << y, used, dist, prev, step, spent, queue, tail)
        if s[hand + x] and ok[x] and not (used >> x) & 1:  # charter
            for y in range(NUM_CITIES):
                tail = _reach(x, y, A_CHARTER + y, np.int64(1) << x, used, dist, prev, step, spent, queue, tail)
        if ops and ops_card >= 0 and s[STATION + x] and not (used >> ops_card) & 1 and not (used >> _OPS_BIT) & 1:
            cost = (np.int64(1) << ops_card) | (np.int64(1) << _OPS_BIT)
            for y in range(NUM_CITIES):
                tail = _reach(x, y, A_OPS_MOVE + y * NUM_CITIES + ops_card, cost, used, dist, prev, step, spent,
                              queue, tail)


@njit(cache=True, nogil=True, inline="always")
def _reach(x, y, a, cost, used, dist, prev, step, spent, queue, tail):
    """Record y as reached from x by the primitive action ``a`` spending ``cost`` (the first way found is kept:
    breadth-first order, drives before flights)."""
    if dist[y] >= 0:
        return tail
    dist[y] = dist[x] + 1
    prev[y] = x
    step[y] = a
    spent[y] = used | cost
    queue[tail] = y
    return tail + 1


@njit(**_LEAN, inline="always")
def _colour_spent(board, mask, colour):
    n = 0
    for c in range(NUM_CITIES):
        if (mask >> c) & 1 and board[c, B_COLOUR] == colour:
            n += 1
    return n


@njit(cache=True, nogil=True)
def macro_legal(s, board, buf):
    """Write the legal macro ids, increasing, to ``buf``; return how many (0 at chance and terminal nodes)."""
    r = np.empty((4, NUM_CITIES), dtype=np.int64)
    w = new_scratch()
    return _legal(s, board, buf, r, w)


@njit(**_LEAN)
def _legal(s, board, buf, r, w):
    """``macro_legal`` with the routes array ``r`` (left holding the acting seat's routes) and scratch ``w``."""
    if s[PHASE] == PH_ACTIONS:
        _routes(s, board, s[PLAYER], r, -1, -1, w, -1, s[ACTIONS_LEFT])  # no macro goes farther
    return _legal_routed(s, board, buf, r, w)


@njit(**_LEAN)
def _station_distances(s, out):
    """out[c]: drives from c to the nearest research station."""
    out[:] = 1 << 20
    for st in range(NUM_CITIES):
        if s[STATION + st]:
            for c in range(NUM_CITIES):
                out[c] = min(out[c], _DRIVE[c, st])


@njit(**_LEAN, inline="always")
def _route_spec(s, board, m, r):
    """Where the route-based macro ``m`` goes and what ends it: (destination, final primitive action or -1,
    partner seat or -1, the most actions the route may take, card to keep or -1, colour to keep or -1). The
    route is ``r``'s unless it spends a card the action needs (the city card of a build or a gift, a cure's colour
    beyond the spare cards): then it is the shortest route keeping that card or colour (``_route_of``)."""
    p = s[PLAYER]
    left = s[ACTIONS_LEFT]
    keep_card, keep_colour, partner = -1, -1, -1
    if m < M_CURE:
        dest, k = (m - M_TREAT) // NUM_COLOURS, (m - M_TREAT) % NUM_COLOURS
        if s[ROLE + p] == MEDIC and s[CURED + k] and dest != s[PAWN + p]:  # its arrival clears the cubes
            return dest, -1, -1, left, -1, -1
        return dest, A_TREAT + k, -1, left - 1, -1, -1
    if m < M_BUILD:
        dest, k = (m - M_CURE) // NUM_COLOURS, (m - M_CURE) % NUM_COLOURS
        final, budget = A_CURE + k, left - 1
        have = 0
        for c in range(NUM_CITIES):
            have += s[HAND + p * NUM_CITIES + c] and board[c, B_COLOUR] == k
        if have - _colour_spent(board, r[SPENT, dest], k) < cure_cards(s, p):
            keep_colour = k
    elif m < M_GIVE:
        dest, final, budget = m - M_BUILD, A_BUILD, left - 1
        if s[ROLE + p] != OPERATIONS_EXPERT and (r[SPENT, dest] >> dest) & 1:
            keep_card = dest
    elif m < M_TAKE:
        partner, c = (m - M_GIVE) // NUM_CITIES, (m - M_GIVE) % NUM_CITIES
        dest = s[PAWN + partner] if s[ROLE + p] == RESEARCHER else c
        final, budget = A_GIVE + partner * NUM_CITIES + c, left
        if (r[SPENT, dest] >> c) & 1:
            keep_card = c
    else:
        partner, c = (m - M_TAKE) // NUM_CITIES, (m - M_TAKE) % NUM_CITIES
        dest, final, budget = s[PAWN + partner], A_TAKE + partner * NUM_CITIES + c, left
    return dest, final, partner, budget, keep_card, keep_colour


@njit(**_LEAN, inline="always")
def _route_of(s, board, m, r, w):
    """``_route_spec`` of ``m`` and whether its route is ``r``'s (else the route keeping the card or colour,
    computed into ``w``'s alt routes): (in ``r``, destination, final action, partner, budget)."""
    dest, final, partner, budget, keep_card, keep_colour = _route_spec(s, board, m, r)
    if keep_card < 0 and keep_colour < 0:
        return True, dest, final, partner, budget
    _routes(s, board, s[PLAYER], w[W_ALT], keep_card, keep_colour, w, dest, budget)  # only dest's route is read
    return False, dest, final, partner, budget


@njit(**_LEAN, inline="always")
def _fits(s, board, m, r, w):
    """Whether the route-based macro ``m`` fits in the actions left."""
    in_r, dest, _, _, budget = _route_of(s, board, m, r, w)
    d = r[DIST, dest] if in_r else w[W_ALT][DIST, dest]
    return 0 <= d <= budget


@njit(cache=True, nogil=True)
def macro_legal_routed(s, board, buf, r):
    """``macro_legal`` with the acting seat's routes already in ``r``."""
    return _legal_routed(s, board, buf, r, new_scratch())


@njit(**_LEAN)
def _legal_routed(s, board, buf, r, w):
    """``macro_legal_routed`` with the scratch ``w``."""
    ph = s[PHASE]
    n = 0
    if ph == PH_CURE_DISCARD or ph == PH_LIMIT_DISCARD:
        from_rules = w[W_RULES]
        m = legal_actions(s, board, from_rules)
        for i in range(m):
            buf[n] = M_DISCARD + from_rules[i] - A_DISCARD
            n += 1
        return n
    if ph != PH_ACTIONS:
        return 0
    p = s[PLAYER]
    counts = w[W_COUNTS]
    _hand_colours(s, board, counts)
    for c in range(NUM_CITIES):  # treat
        for k in range(NUM_COLOURS):
            m = M_TREAT + c * NUM_COLOURS + k
            if s[CUBES + c * NUM_COLOURS + k] > 0 and _fits(s, board, m, r, w):
                buf[n] = m
                n += 1
    for c in range(NUM_CITIES):  # cure
        if s[STATION + c]:
            for k in range(NUM_COLOURS):
                m = M_CURE + c * NUM_COLOURS + k
                if s[CURED + k] == 0 and counts[p, k] >= cure_cards(s, p) and _fits(s, board, m, r, w):
                    buf[n] = m
                    n += 1
    if stations_built(s) < MAX_STATIONS:  # build
        ops = s[ROLE + p] == OPERATIONS_EXPERT
        far = w[W_FAR]
        _station_distances(s, far)
        for c in range(NUM_CITIES):
            if (s[STATION + c] == 0 and (ops or s[HAND + p * NUM_CITIES + c]) and far[c] >= BUILD_MIN_DISTANCE
                    and _fits(s, board, M_BUILD + c, r, w)):
                buf[n] = M_BUILD + c
                n += 1
    seats = s[NUM_SEATS]
    for q in range(seats):  # give
        if q != p:
            for c in range(NUM_CITIES):
                m = M_GIVE + q * NUM_CITIES + c
                if (s[HAND + p * NUM_CITIES + c] and _share_gain(s, counts, board, p, q, c) > 0
                        and _fits(s, board, m, r, w)):
                    buf[n] = m
                    n += 1
    for q in range(seats):  # take
        if q != p:
            for c in range(NUM_CITIES):
                m = M_TAKE + q * NUM_CITIES + c
                if (s[HAND + q * NUM_CITIES + c] and (c == s[PAWN + q] or s[ROLE + q] == RESEARCHER)
                        and _share_gain(s, counts, board, q, p, c) > 0 and _fits(s, board, m, r, w)):
                    buf[n] = m
                    n += 1
    here = s[PAWN + p]
    for i in range(board[here, B_DEGREE]):  # walk (neighbours are sorted)
        buf[n] = M_WALK + board[here, B_NEIGHBOURS + i]
        n += 1
    buf[n] = M_PASS
    n += 1
    return n


@njit(cache=True, nogil=True)
def macro_steps(s, board, m, out):
    """Write the primitive actions of the legal macro ``m`` (its route, then its action, or a wait that ends
    the actions) to ``out``; return how many. A cure's card choice, if any, follows as its own decision."""
    r = np.empty((4, NUM_CITIES), dtype=np.int64)
    w = new_scratch()
    if m < M_WALK:
        _routes(s, board, s[PLAYER], r, -1, -1, w, -1, s[ACTIONS_LEFT])
    return _steps_routed(s, board, m, out, r, w)


@njit(cache=True, nogil=True)
def macro_steps_routed(s, board, m, out, r):
    """``macro_steps`` with the acting seat's routes already in ``r``."""
    return _steps_routed(s, board, m, out, r, new_scratch())


@njit(**_LEAN)
def _steps_routed(s, board, m, out, r, w):
    """``macro_steps_routed`` with the scratch ``w``."""
    if m >= M_DISCARD:
        out[0] = A_DISCARD + m - M_DISCARD
        return 1
    if m == M_PASS:
        out[0] = A_PASS
        return 1
    if m >= M_WALK:
        out[0] = A_DRIVE + m - M_WALK
        return 1
    in_r, dest, final, partner, _ = _route_of(s, board, m, r, w)
    use = r if in_r else w[W_ALT]
    n = use[DIST, dest]
    c = dest
    for i in range(n - 1, -1, -1):
        out[i] = use[STEP, c]
        c = use[PREV, c]
    if n < s[ACTIONS_LEFT] and final >= 0:
        out[n] = final if partner < 0 or s[PAWN + partner] == dest else A_PASS
        n += 1
    return n


@njit(cache=True, nogil=True)
def macro_apply(s, board, m):
    """Play the legal macro ``m`` in place (``macro_steps``); a cure with more cards than it needs keeps the
    most useful ones (the discard metric)."""
    _apply(s, board, m, np.empty((4, NUM_CITIES), dtype=np.int64), new_scratch())


@njit(**_LEAN)
def _apply(s, board, m, r, w):
    """``macro_apply`` with the routes array ``r`` (scratch) and the scratch ``w``."""
    if m < M_WALK:
        _routes(s, board, s[PLAYER], r, -1, -1, w, -1, s[ACTIONS_LEFT])
    _apply_routed(s, board, m, r, w)


@njit(cache=True, nogil=True)
def macro_apply_routed(s, board, m, r):
    """``macro_apply`` with the acting seat's routes already in ``r``."""
    _apply_routed(s, board, m, r, new_scratch())


@njit(**_LEAN)
def _apply_routed(s, board, m, r, w):
    """``macro_apply_routed`` with the scratch ``w``."""
    steps = w[W_STEPS]
    n = _steps_routed(s, board, m, steps, r, w)
    for i in range(n):
        apply_action(s, board, steps[i])
    if s[PHASE] == PH_CURE_DISCARD:
        _cure_discards(s, board, w)


@njit(**_LEAN)
def _cure_discards(s, board, w):
    """Choose a cure's cards: the cheapest by the discard metric first (ties: the lowest city id)."""
    losses = w[W_LOSSES]
    while s[PHASE] == PH_CURE_DISCARD:
        _discard_losses(s, board, s[PLAYER], losses, w[W_COUNTS])
        best = -1
        for c in range(NUM_CITIES):
            if losses[c] < np.inf and board[c, B_COLOUR] == s[L.CURE_COLOUR] and (best < 0 or losses[c] < losses[best]):
                best = c
        apply_action(s, board, A_DISCARD + best)


@njit(cache=True, nogil=True)
def macro_apply_checked(s, board, m, buf, n):
    """Play macro ``m`` if it is among the legal ids (``n`` of them in ``buf``, -1 = not listed yet); return
    the number of legal macros of the new state (in ``buf``), or -1 with ``s`` unchanged when ``m`` is illegal."""
    if n < 0:
        n = macro_legal(s, board, buf)
    for i in range(n):
        if buf[i] == m:
            macro_apply(s, board, m)
            return macro_legal(s, board, buf)
    return -1


@njit(cache=True, nogil=True)
def random_playout(s, board, buf, stream, turn_limit, macros):
    """Uniformly random decisions (macro-actions when ``macros``, else the rules' own actions), chance by the
    stored order, until the end or turn ``turn_limit`` begins; returns the decisions made."""
    ids = np.empty(NUM_CITIES + 1, dtype=np.int32)
    probs = np.empty(NUM_CITIES + 1, dtype=np.float64)
    r = np.empty((4, NUM_CITIES), dtype=np.int64)
    w = new_scratch()
    steps = 0
    settle(s, board, ids, probs, stream)
    while s[PHASE] != L.PH_OVER and s[L.TURN] < turn_limit:
        if macros:
            _apply_routed(s, board, buf[rand_below(stream, _legal(s, board, buf, r, w))], r, w)  # r: this seat's
        else:
            apply_action(s, board, buf[rand_below(stream, legal_actions(s, board, buf))])
        steps += 1
        settle(s, board, ids, probs, stream)
    return steps

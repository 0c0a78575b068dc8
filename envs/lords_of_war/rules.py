"""Lords of War rules: pure state and transitions, compiled with numba.

The whole game state is ONE flat ``int16`` array (``layout``), so a clone is
one array copy, and every rule is a ``@njit`` kernel that works on it in
place. Behind the rules fields the array carries maps derived from the mat
(attack totals per square, a bitboard of each side's units), which the kernels
keep in step with every unit placed or removed, so that no decision scans the
mat. The static card table (``cards``, built by ``cards.build_card_table``)
is a second ``int16`` array shared by all states of a game.

Geometry: 7 rows x 6 columns, square = row * 6 + col. Row 0 is player 0's
back edge, row 6 player 1's. Directions N, NE, E, SE, S, SW, W, NW (0..7) are
absolute in player 0's frame (N = +row). A card's arrows are stored in the
owner's frame in the data file and turned by 180 degrees for player 1 (cards
face their owner, 000 §1.1(B) deployment), so the table holds absolute arrows.

Actions name squares in the ACTING player's frame ("ego" squares: player 1's
square e is absolute square 41 - e), so one policy serves both seats.

Turn = phases, each decision by the same player (000 §1.1(A) "Decisions"):
  OPENING  "issuing the challenge": place a card on your opening square, draw.
  DEPLOY   place a hand card by the engagement rule and its exceptions.
  TARGET   only when the placed card is ranged with an enemy in its grid:
           shoot one enemy in the grid, or hold fire (and melee instead).
  REINFORCE draw the top card or recall an eligible unit (when possible).
Elimination (simultaneous, global, strict >) runs between DEPLOY/TARGET and
REINFORCE; the rules README lists every decision taken where the papers are
ambiguous.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic

from ..kernels import rand_below
from .layout import (
    A_DEPLOY,
    A_DRAW,
    A_HOLD_FIRE,
    A_RECALL,
    A_TARGET,
    ARMY_SIZE,
    ATT,
    BB_BITS,
    BB_WORDS,
    BOARD,
    COLS,
    COUNTS,
    DEAD,
    DEAD_SQ,
    DECK,
    EXTRA,
    F_AMASK,
    F_ATK,
    F_CMD,
    F_DEF,
    F_GEN,
    F_RDMG,
    F_RG,
    F_RN,
    F_SUPPORT,
    F_TYPE,
    FOUGHT,
    HAND,
    HAND_SIZE,
    KNOWN,
    MAX_TURNS,
    MODE,
    NCMD,
    NDEAD,
    NDECK,
    NHAND,
    NSQ,
    OPENING_SQUARES,
    PH_DEPLOY,
    PH_OPENING,
    PH_OVER,
    PH_REINFORCE,
    PH_TARGET,
    PHASE,
    PLACED,
    PLAYER,
    ROWS,
    STATE_LEN,
    TURN,
    UNITS,
    WIN_COMMAND,
    WIN_ELIMINATED,
    WINNER,
)

OPEN0, OPEN1 = OPENING_SQUARES
FULL = (1 << NSQ) - 1
_PH_ELIMINATE, _PH_AFTER_COMBAT, _PH_END_TURN = 10, 11, 12  # transient phases, only inside _settle

DIR_DROW = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)
DIR_DCOL = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)


def _neighbour_table() -> np.ndarray:
    table = np.full((NSQ, 8), -1, dtype=np.int64)
    for sq in range(NSQ):
        r, c = divmod(sq, COLS)
        for d in range(8):
            r2, c2 = r + DIR_DROW[d], c + DIR_DCOL[d]
            if 0 <= r2 < ROWS and 0 <= c2 < COLS:
                table[sq, d] = r2 * COLS + c2
    return table


NEIGH = _neighbour_table()
DIR_SHIFT = COLS * DIR_DROW + DIR_DCOL  # square offset of each direction (-7..7)
# bitboard of the squares that have a neighbour in direction d
DIR_FROM = np.array([sum(1 << sq for sq in range(NSQ) if NEIGH[sq, d] >= 0) for d in range(8)], dtype=np.int64)

_JIT = dict(cache=True, nogil=True)
# Helpers taking the state arrays are inlined by numba into their callers: a compiled call that
# passes arrays pays reference counting on each of them, a real cost in the rollout loop.
_HOT = dict(_JIT, inline="always")
# The hottest entry points make no array, so they are compiled without the runtime's reference counting (numba's
# ``_nrt`` option): the helpers inlined into them would otherwise count references to s, cards and buf at every
# decision (the same games, rollouts ~11% faster).
_LEAN = dict(_JIT, _nrt=False)


@njit(**_JIT)
def ego(sq, player):
    """Absolute square <-> the player's own frame (the map is its own inverse)."""
    return sq if player == 0 else NSQ - 1 - sq


def _int64_intrinsic(op):
    """A kernel-callable int64 -> int64 function from an llvmlite IRBuilder operation."""

    @intrinsic
    def f(typingctx, x):
        return types.int64(types.int64), lambda context, builder, sig, args: op(builder, args[0])

    return f


_popcount = _int64_intrinsic(lambda b, x: b.ctpop(x))
_low_bit = _int64_intrinsic(lambda b, x: b.cttz(x, ir.Constant(ir.IntType(1), 0)))  # index of the lowest set bit
_bitreverse = _int64_intrinsic(lambda b, x: b.bitreverse(x))


@njit(**_JIT)
def _bb(s, off):
    """The bitboard stored at s[off:off + BB_WORDS]."""
    return np.int64(s[off]) | np.int64(s[off + 1]) << BB_BITS | np.int64(s[off + 2]) << 2 * BB_BITS


@njit(**_JIT)
def _units(s, o):
    """Bitboard of player o's units."""
    return _bb(s, UNITS + o * BB_WORDS)


@njit(**_JIT)
def _ego_bb(bb, p):
    """Bitboard bb with bit e for p's ego square e (turned by 180 degrees for player 1)."""
    return bb if p == 0 else _bitreverse(bb << (64 - NSQ))


@njit(**_JIT)
def _toward(bb, d):
    """The squares whose neighbour in direction d is a square of bb (a shift by the direction's
    offset, made non-negative by shifting up 8 first, then the squares that have such a neighbour)."""
    return ((bb << 8) >> (8 + DIR_SHIFT[d])) & DIR_FROM[d]


@njit(**_JIT)
def _toward_each(bb):
    """(_toward(bb, 0), ..., _toward(bb, 7))."""
    return (_toward(bb, 0), _toward(bb, 1), _toward(bb, 2), _toward(bb, 3),
            _toward(bb, 4), _toward(bb, 5), _toward(bb, 6), _toward(bb, 7))


@njit(**_JIT)
def _adjacent(bb):
    """The squares next to a square of bb."""
    adj = np.int64(0)
    for d in range(8):
        adj |= _toward(bb, d)
    return adj


@njit(**_HOT)
def _write_squares(ego_bb, base, buf, n):
    """Write base + e for each ego square e of ego_bb, increasing, to buf[n:]; return the new n."""
    while ego_bb:
        buf[n] = base + _low_bit(ego_bb)
        ego_bb &= ego_bb - 1
        n += 1
    return n


@njit(**_HOT)
def _add_attack(s, cards, sq, c, sign):
    """Add (sign 1) or take away (sign -1) the melee attack of card c on sq in ATT."""
    o = 1 if c >= ARMY_SIZE else 0
    for d in range(8):
        t = NEIGH[sq, d]
        if t >= 0:
            s[ATT + o * NSQ + t] += sign * cards[c, F_ATK + d]


@njit(**_HOT)
def _mark(s, cards, sq, c, sign):
    """Add (sign 1) or take away (sign -1) card c on sq in the maps (ATT and UNITS)."""
    s[UNITS + (1 if c >= ARMY_SIZE else 0) * BB_WORDS + sq // BB_BITS] ^= 1 << (sq % BB_BITS)
    _add_attack(s, cards, sq, c, sign)


@njit(**_HOT)
def _put(s, cards, sq, c):
    """Place card c on the empty square sq."""
    s[BOARD + sq] = c
    _mark(s, cards, sq, c, 1)


@njit(**_HOT)
def _lift(s, cards, sq):
    """Take the unit off sq and return it."""
    c = s[BOARD + sq]
    s[BOARD + sq] = -1
    _mark(s, cards, sq, c, -1)
    return c


@njit(**_JIT)
def rebuild_maps(s, cards):
    """Recompute the maps (ATT, UNITS) from BOARD: for states whose BOARD was written directly."""
    for i in range(ATT, STATE_LEN):
        s[i] = 0
    for sq in range(NSQ):
        if s[BOARD + sq] >= 0:
            _mark(s, cards, sq, s[BOARD + sq], 1)


@njit(**_HOT)
def _recallable(s, p):
    """Bitboard of the units p may recall (000 §1.1(B) reinforcement): p's own, not engaged (no enemy
    arrow points at it), not placed this turn, not in an eliminating combat this turn."""
    out = np.int64(0)
    units = _units(s, p)
    while units:
        sq = _low_bit(units)
        units &= units - 1
        if sq != s[PLACED] and s[FOUGHT + sq] == 0 and s[ATT + (1 - p) * NSQ + sq] == 0:
            out |= np.int64(1) << sq
    return out


@njit(**_JIT)
def _squares(amask, support, empty, near, sup, anyone):
    """Where a card with arrows amask (and support flag) may deploy, given _deployment's sets."""
    v = anyone | (sup if support else 0)
    for d in range(8):
        v |= near[d] & -((amask >> d) & 1)  # an arrow points at an adjacent enemy
    return v & empty


@njit(**_HOT)
def _deployment(s, cards, p, buf):
    """How p may deploy, as bitboards (empty, near, sup, anyone) for _squares; the mode goes to buf[MODE].

    A card may go on an empty square where one of its arrows points at an enemy (near[d]: the squares
    with an enemy next to them in direction d), or in sup if it is a support unit, or in anyone.
    Mode 0: the engagement rule and its two exceptions (000 §1.1(B) deployment): the arrows; a support
    unit beside a friend (sup); no enemy on the mat: next to a friend, or anywhere on an empty mat
    (anyone). No legal placement: any card on any empty square next to an enemy (mode 1, the hand is
    then shown), or on any empty square (mode 2). 3: nothing to place.
    """
    enemy = _units(s, 1 - p)
    friend = _units(s, p)
    empty = FULL & ~(enemy | friend)
    sup = _adjacent(friend)
    anyone = (sup if friend else FULL) if enemy == 0 else np.int64(0)
    hand = HAND + p * HAND_SIZE
    amask = 0
    support = 0
    for k in range(s[NHAND + p]):
        amask |= cards[s[hand + k], F_AMASK]
        support |= cards[s[hand + k], F_SUPPORT]
    near = _toward_each(enemy)
    if _squares(amask, support, empty, near, sup, anyone) != 0:  # some card may go somewhere
        buf[MODE] = 0
        return empty, near, sup, anyone
    next_to_enemy = empty & _adjacent(enemy)
    mode = 3 if s[NHAND + p] == 0 or empty == 0 else 1 if next_to_enemy else 2
    buf[MODE] = mode
    return empty, _toward_each(np.int64(0)), np.int64(0), next_to_enemy if mode == 1 else empty


@njit(**_HOT)
def _range_target(cards, c, sq, k):
    """Absolute square of the k-th grid offset of ranged card c on sq, or -1 when off the board."""
    r = sq // COLS + cards[c, F_RG + 2 * k]
    col = sq % COLS + cards[c, F_RG + 2 * k + 1]
    if 0 <= r < ROWS and 0 <= col < COLS:
        return r * COLS + col
    return -1


@njit(**_HOT)
def _ranged_targets(s, cards, sq):
    """Bitboard of the enemy units in the ranged grid of the unit on sq (none when it is not ranged)."""
    c = s[BOARD + sq]
    enemy = _units(s, 0 if c >= ARMY_SIZE else 1)
    targets = np.int64(0)
    for k in range(cards[c, F_RN]):
        t = _range_target(cards, c, sq, k)
        if t >= 0:
            targets |= enemy & (np.int64(1) << t)
    return targets


@njit(**_LEAN)
def legal_actions(s, cards, buf):
    """Write the legal action ids, increasing, to buf[:n] and return n (buf also holds scratch space)."""
    ph = s[PHASE]
    p = s[PLAYER]
    n = 0
    nh = s[NHAND + p]
    if ph == PH_OPENING:
        e = ego(OPEN0 if p == 0 else OPEN1, p)
        for k in range(nh):
            buf[n] = A_DEPLOY + k * NSQ + e
            n += 1
    elif ph == PH_DEPLOY:
        empty, near, sup, anyone = _deployment(s, cards, p, buf)
        for k in range(nh):
            c = s[HAND + p * HAND_SIZE + k]
            v = _squares(cards[c, F_AMASK], cards[c, F_SUPPORT], empty, near, sup, anyone)
            n = _write_squares(_ego_bb(v, p), A_DEPLOY + k * NSQ, buf, n)
    elif ph == PH_TARGET:
        n = _write_squares(_ego_bb(_ranged_targets(s, cards, s[PLACED]), p), A_TARGET, buf, n)
        buf[n] = A_HOLD_FIRE
        n += 1
    elif ph == PH_REINFORCE:
        if nh < HAND_SIZE:
            if s[NDECK + p] > 0:
                buf[n] = A_DRAW
                n += 1
            n = _write_squares(_ego_bb(_recallable(s, p), p), A_RECALL, buf, n)
    return n


@njit(**_HOT)
def _take_from_hand(s, p, k):
    base = HAND + p * HAND_SIZE
    c = s[base + k]
    nh = s[NHAND + p]
    for i in range(k, nh - 1):
        s[base + i] = s[base + i + 1]
    s[base + nh - 1] = -1
    s[NHAND + p] = nh - 1
    return c


@njit(**_HOT)
def _add_to_hand(s, p, c):
    base = HAND + p * HAND_SIZE
    i = s[NHAND + p]
    while i > 0 and s[base + i - 1] > c:
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = c
    s[NHAND + p] += 1


@njit(**_HOT)
def _draw(s, p):
    """Move the top card of p's deck into p's hand (a fresh, unknown card)."""
    nd = s[NDECK + p]
    if nd == 0 or s[NHAND + p] >= HAND_SIZE:
        return
    nd -= 1
    c = s[DECK + p * ARMY_SIZE + nd]
    s[DECK + p * ARMY_SIZE + nd] = -1
    s[NDECK + p] = nd
    s[KNOWN + c] = 0
    _add_to_hand(s, p, c)


@njit(**_HOT)
def resolve_combat(s, cards, shooter, target, buf):
    """Simultaneous global elimination (000 §1.1(B) phase 2): total enemy attack > defence eliminates.

    ``shooter`` (square of the ranged card that fired this turn, or -1) does not melee in this
    combat; its missile damage adds to ``target``'s total. Sets FOUGHT, the piles, EXTRA and WINNER.
    """
    p = s[PLAYER]
    if shooter >= 0:
        _add_attack(s, cards, shooter, s[BOARD + shooter], -1)  # put back below
    n_dead = 0
    units = _units(s, 0) | _units(s, 1)
    while units:  # in increasing square order
        t = _low_bit(units)
        units &= units - 1
        ct = s[BOARD + t]
        incoming = s[ATT + (0 if ct >= ARMY_SIZE else NSQ) + t]  # the enemy's attack on t
        if t == target:
            incoming += cards[s[BOARD + shooter], F_RDMG]
        if incoming > cards[ct, F_DEF]:
            buf[DEAD_SQ + n_dead] = t
            n_dead += 1
    if shooter >= 0:
        _add_attack(s, cards, shooter, s[BOARD + shooter], 1)
    if n_dead == 0:
        return
    for i in range(n_dead):  # who took part (recall condition 3)
        t = buf[DEAD_SQ + i]
        owner = s[BOARD + t] // ARMY_SIZE
        for d in range(8):
            u = NEIGH[t, d]
            if u >= 0 and u != shooter:
                cu = s[BOARD + u]
                if cu >= 0 and cu // ARMY_SIZE != owner and cards[cu, F_ATK + (d ^ 4)] > 0:
                    s[FOUGHT + u] = 1
        if t == target:
            s[FOUGHT + shooter] = 1
    own_general = False
    enemy_general = False
    for i in range(n_dead):
        t = buf[DEAD_SQ + i]
        ct = _lift(s, cards, t)
        owner = ct // ARMY_SIZE
        s[FOUGHT + t] = 0
        s[DEAD + owner * ARMY_SIZE + s[NDEAD + owner]] = ct
        s[NDEAD + owner] += 1
        if cards[ct, F_CMD]:
            s[NCMD + owner] += 1
        if cards[ct, F_GEN]:
            if owner == p:
                own_general = True
            else:
                enemy_general = True
    if enemy_general and not own_general:
        s[EXTRA] = 1  # the General's extra turn; none when both Generals fall together
    lose0 = s[NDEAD] >= WIN_ELIMINATED or s[NCMD] >= WIN_COMMAND
    lose1 = s[NDEAD + 1] >= WIN_ELIMINATED or s[NCMD + 1] >= WIN_COMMAND
    if lose0 and lose1:
        s[WINNER] = 2
    elif lose0:
        s[WINNER] = 1
    elif lose1:
        s[WINNER] = 0


@njit(**_HOT)
def _can_reinforce(s, p):
    if s[NHAND + p] >= HAND_SIZE:
        return False
    return s[NDECK + p] > 0 or _recallable(s, p) != 0


@njit(**_HOT)
def _settle(s, cards, buf, shooter, target):
    """Run the automatic steps (elimination, turn changes, skipped phases) until a decision or the end.

    ``shooter`` / ``target``: the shot fired this turn (see resolve_combat), or -1.
    """
    while True:
        ph = s[PHASE]
        p = s[PLAYER]
        if ph == _PH_ELIMINATE:
            resolve_combat(s, cards, shooter, target, buf)
            shooter = target = -1  # a later elimination (of a turn with nothing to place) has no shot
            s[PHASE] = _PH_AFTER_COMBAT
        elif ph == _PH_AFTER_COMBAT:
            if s[WINNER] >= 0:
                s[PHASE] = PH_OVER
                return
            s[PHASE] = PH_REINFORCE if _can_reinforce(s, p) else _PH_END_TURN
        elif ph == _PH_END_TURN:
            for sq in range(NSQ):
                s[FOUGHT + sq] = 0
            s[PLACED] = -1
            s[TURN] += 1
            if s[EXTRA]:
                s[EXTRA] = 0
            else:
                s[PLAYER] = 1 - p
            if s[TURN] >= MAX_TURNS:
                s[WINNER] = 2
                s[PHASE] = PH_OVER
                return
            s[PHASE] = PH_OPENING if s[TURN] < 2 else PH_DEPLOY
        elif ph == PH_DEPLOY:
            if s[NHAND + p] > 0 and (_units(s, 0) | _units(s, 1)) != FULL:
                return  # some placement is always legal then (the no-legal-placement rule)
            s[PHASE] = _PH_ELIMINATE  # nothing to place: the elimination phase still runs
        else:
            return


@njit(**_LEAN)
def apply_unchecked(s, cards, a, buf):
    """Play a legal action in place and settle to the next decision.

    Precondition: ``legal_actions(s, cards, buf)`` was the last kernel to write ``buf`` (callers
    check legality with it, and the deploy mode it stored decides whether the hand is shown).
    """
    ph = s[PHASE]
    p = s[PLAYER]
    shooter = target = -1
    if ph == PH_OPENING or ph == PH_DEPLOY:
        k = (a - A_DEPLOY) // NSQ
        sq = ego((a - A_DEPLOY) % NSQ, p)
        show_hand = False
        if ph == PH_DEPLOY:
            show_hand = buf[MODE] != 0  # precondition: buf holds this state's legal actions
        c = _take_from_hand(s, p, k)
        _put(s, cards, sq, c)
        s[KNOWN + c] = 0
        if ph == PH_OPENING:
            _draw(s, p)  # "issuing the challenge": place, then refresh the hand; no elimination
            s[PHASE] = _PH_END_TURN
        else:
            s[PLACED] = sq
            if show_hand:  # no legal placement: the hand is shown to the opponent
                for i in range(s[NHAND + p]):
                    s[KNOWN + s[HAND + p * HAND_SIZE + i]] = 1
            s[PHASE] = PH_TARGET if _ranged_targets(s, cards, sq) != 0 else _PH_ELIMINATE
    elif ph == PH_TARGET:
        if a != A_HOLD_FIRE:
            shooter = s[PLACED]
            target = ego(a - A_TARGET, p)
        s[PHASE] = _PH_ELIMINATE
    elif ph == PH_REINFORCE:
        if a == A_DRAW:
            _draw(s, p)
        else:
            c = _lift(s, cards, ego(a - A_RECALL, p))
            _add_to_hand(s, p, c)
            s[KNOWN + c] = 1  # the opponent saw it leave the mat
        s[PHASE] = _PH_END_TURN
    _settle(s, cards, buf, shooter, target)


@njit(**_JIT)
def apply_checked(s, cards, a, buf, n_cached):
    """Play ``a`` if legal; return the number of legal actions after it (written to buf), or -1 if illegal.

    ``n_cached`` >= 0 says buf[:n_cached] already holds this state's legal actions. An illegal
    action leaves the state untouched (buf then holds its legal actions again).
    """
    n = n_cached if n_cached >= 0 else legal_actions(s, cards, buf)
    lo = 0
    hi = n
    while lo < hi:  # the ids are increasing
        mid = (lo + hi) // 2
        if buf[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    if lo == n or buf[lo] != a:
        return -1
    apply_unchecked(s, cards, a, buf)
    return legal_actions(s, cards, buf)


@njit(**_JIT)
def action_keys(s, cards, actions, non_deploy_key, out):
    """Soft key of each action for the player to move (see ``LordsOfWarState.action_key``)."""
    p = s[PLAYER]
    for i in range(len(actions)):
        a = actions[i]
        if a < A_TARGET:
            c = s[HAND + p * HAND_SIZE + (a - A_DEPLOY) // NSQ]
            out[i] = cards[c, F_TYPE] * NSQ + (a - A_DEPLOY) % NSQ
        else:
            out[i] = non_deploy_key + a


@njit(**_HOT)
def _random_placement(s, cards, buf, rng):
    """In the deploy phase: ``buf[rand_below(rng, legal_actions(s, cards, buf))]`` without listing the
    actions (only the deploy mode is written to buf)."""
    p = s[PLAYER]
    hand = HAND + p * HAND_SIZE
    empty, near, sup, anyone = _deployment(s, cards, p, buf)
    n = 0
    for k in range(s[NHAND + p]):  # the number of squares of each card, kept in the scratch
        c = s[hand + k]
        buf[COUNTS + k] = _popcount(_squares(cards[c, F_AMASK], cards[c, F_SUPPORT], empty, near, sup, anyone))
        n += buf[COUNTS + k]
    i = rand_below(rng, n)
    k = 0
    while i >= buf[COUNTS + k]:  # the card of the i-th action, then its square
        i -= buf[COUNTS + k]
        k += 1
    c = s[hand + k]
    v = _ego_bb(_squares(cards[c, F_AMASK], cards[c, F_SUPPORT], empty, near, sup, anyone), p)
    for _ in range(i):
        v &= v - 1
    return A_DEPLOY + k * NSQ + _low_bit(v)


@njit(**_LEAN)
def random_playout(s, cards, buf, rng, max_steps, turn_limit):
    """Uniformly random moves until the game ends, ``max_steps`` decisions are made or turn ``turn_limit``
    begins; returns the number of decisions made. The same moves as ``buf[rand_below(rng, n)]`` of
    ``n = legal_actions(s, cards, buf)`` at every decision."""
    steps = 0
    while s[PHASE] != PH_OVER and steps < max_steps and s[TURN] < turn_limit:
        if s[PHASE] == PH_DEPLOY:
            a = _random_placement(s, cards, buf, rng)
        else:
            a = buf[rand_below(rng, legal_actions(s, cards, buf))]
        apply_unchecked(s, cards, a, buf)
        steps += 1
    return steps

"""DefaultAI compiled (``default_policy``): numba kernels over the flat state that make ``DefaultPolicy``'s
decisions, with its plan queue, so that DefaultAI plays whole games in compiled code (``playout``).

``act(s, cards, mechs, decks, plan, buf, berserker)`` is ``DefaultPolicy.act`` for the acting player: ``decks`` is an int64
array [2, 1 + MAX_DECK] of each player's deck list (its length, then card indices in the list's order:
``state.decks[p]``, what the resource choice and the mulligan read; ``deck_lists`` builds it), ``plan`` an int64
array of ``PLAN_LEN`` holding each player's queue (``DefaultPolicy._queue``: one policy per player, as
``FifthAeonState.random_playout`` keeps; zero it for fresh policies, ``new_plan``), and ``buf`` the rules' int32
buffer (``flat_machine.BUFFER_LEN``): the legal actions go to ``buf[:n]``, the evaluation's work area is
``flat_evaluation``'s. Every decision is Python's, computed in the same order (``flat_evaluation``'s values are
bit-equal), ties broken the same way (first maximum, stable sorts, ``np.argmax`` for targets).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from . import flat_layout as F
from . import layout as L
from .cards import CardPool
from .constants import BOARD_SLOTS
from .default_policy import ATTACKER_DIES, BLOCKER_DIES, BOTH_DIE, NEITHER_DIES
from .flat_evaluation import (
    FOPT, FROW, I_CHOSEN, I_KEEP, I_OPT, KEEP_BITS, KEEP_WORDS, KNAPSACK_CAP, LETHAL, OPTION_LEN, PLAY,
    card_target_value, card_value, floats, multiplier, prepare, unit_value,
)
from .flat_machine import SCRATCH
from .flat_moves import acting, apply, legal_actions
from .flat_rules import (
    abilities, at, attack, board_at, board_len, can_attack, can_block, candidates, find, hand_card, has, hosts,
    is_unit, life, pb, playable, position, st_get,
)
from .layout import MAX_OPTIONS

_LEAN = dict(cache=True, nogil=True, _nrt=False)

QUEUE = MAX_OPTIONS + 4  # the longest plan: a choice's options and done
PLAN_LEN = 2 * (1 + QUEUE)  # per player: the queue's length, then its actions
OUTCOME_RANK = 100000  # block: the outcome outranks the trade (default_policy.DefaultPolicy.block)
FLYING_FIRST = 1000  # block: Flying attackers first
# the policy's lists in buf[SCRATCH:STACK] (over flat_evaluation.AREA: none is live while an evaluation lists targets)
_ORD, _KEY, _PICK, _OPT = SCRATCH, SCRATCH + 64, SCRATCH + 128, SCRATCH + 192


def new_plan() -> np.ndarray:
    """Both players' empty queues (fresh policies)."""
    return np.zeros(PLAN_LEN, np.int64)


def deck_lists(decks: Sequence[Sequence[str]], pool: CardPool) -> np.ndarray:
    """``act``'s ``decks``: both deck lists (card ids, in order) as card indices."""
    out = np.zeros((2, 1 + F.MAX_DECK), np.int64)
    for p, deck in enumerate(decks):
        if len(deck) > F.MAX_DECK:
            raise ValueError(f"deck list {p}: {len(deck)} cards, more than MAX_DECK = {F.MAX_DECK}")
        out[p, 0] = len(deck)
        out[p, 1:1 + len(deck)] = [pool.index[c] for c in deck]
    return out


# ---- the policy ----------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def act(s, cards, mechs, decks, plan, buf, berserker):
    """``DefaultPolicy.act``: the acting player's next action (the front of its queue while legal, else the first
    of a new plan, whose rest is queued), -1 once the game is over. ``berserker``: BerserkerAI's
    (``default_ai.BerserkerPolicy``: attack with every unit able to, never block)."""
    n = legal_actions(s, cards, mechs, buf)
    if n == 0:
        return -1
    p = acting(s)
    q = p * (1 + QUEUE)
    while plan[q] > 0:
        a = plan[q + 1]
        _drop_first(plan, q)
        if _allowed(buf, n, a):
            return a
        plan[q] = 0
    plan[q] = _plan(s, cards, mechs, decks, buf, p, plan, q + 1, berserker)
    if plan[q] > 0:
        first = plan[q + 1]
        _drop_first(plan, q)
        if _allowed(buf, n, first):
            return first
    return buf[n - 1] if _allowed(buf, n, L.PASS) else buf[0]


@njit(**_LEAN)
def _allowed(buf, n, a):
    for i in range(n):
        if buf[i] == a:
            return True
    return False


@njit(**_LEAN)
def _drop_first(plan, q):
    for i in range(1, plan[q]):
        plan[q + i] = plan[q + i + 1]
    plan[q] -= 1


@njit(**_LEAN)
def _plan(s, cards, mechs, decks, buf, me, out, o, berserker):
    """``DefaultPolicy.plan``: the next actions for ``me`` into ``out[o:]``; returns their number."""
    if s[F.G_NCHOICES] > 0:
        return _choose(s, cards, decks, buf, me, out, o)
    if s[F.G_PEND] == 1:
        out[o] = buf[0]
        return 1
    phase = s[F.G_PHASE]
    if phase == F.BLOCK:
        k = 0
        if not berserker:
            prepare(s, cards, mechs, me, buf)
            k = _block(s, cards, mechs, buf, me, out, o)
        out[o + k] = L.PASS
        return k + 1
    if phase == F.ORDER:
        prepare(s, cards, mechs, me, buf)
        return _order(s, cards, mechs, buf, me, out, o)
    if s[pb(me) + F.P_PLAYED_RESOURCE] == 0:
        out[o] = L.RESOURCE + _resource(s, cards, decks, me)
        return 1
    prepare(s, cards, mechs, me, buf)
    k = _select_action(s, cards, mechs, buf, me, out, o)
    if k > 0:
        return k
    if phase == F.PLAY1:
        k = _all_attackers(s, cards, me, out, o) if berserker else _attackers(s, cards, mechs, buf, me, out, o)
        out[o + k] = L.PASS
        return k + 1
    out[o] = L.PASS
    return 1


# ---- casting: the knapsack -------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _select_action(s, cards, mechs, buf, me, out, o):
    """``DefaultPolicy.select_action``: the knapsack over energy of every playable card and enchantment change;
    the actions of the chosen set's best-scored item into ``out[o:]`` (0: nothing worth playing)."""
    fw = floats(buf)
    b = pb(me)
    energy = s[b + F.P_ENERGY]
    k = 0
    for h in range(s[b + F.P_NHAND]):
        card = hand_card(s, me, h)
        if playable(s, cards, me, card, buf, SCRATCH):
            e = I_OPT + k * OPTION_LEN
            buf[e] = cards[card, F.C_ENERGY]
            fw[FOPT + k] = _score_card(s, cards, mechs, buf, me, h, card, e)
            k += 1
    for side in (me, 1 - me):
        for i in range(board_len(s, side)):
            u = board_at(s, side, i)
            cost = cards[s[at(u) + F.M_CARD], F.C_EMPOWER_COST]
            if (is_unit(s, cards, u) or cost > energy
                    or (side == me and has(s, cards, u, F.AB_CANNOT_BE_EMPOWERED))):
                continue
            e = I_OPT + k * OPTION_LEN
            buf[e] = cost
            buf[e + 1] = 1
            buf[e + 2] = (L.EMPOWER if side == me else L.DIMINISH) + i
            fw[FOPT + k] = _modify_value(s, cards, u)
            k += 1
    chosen = _knapsack(buf, fw, k, energy)
    if chosen == 0:
        return 0
    best = buf[I_CHOSEN]
    for j in range(1, chosen):
        i = buf[I_CHOSEN + j]
        if fw[FOPT + i] > fw[FOPT + best]:
            best = i
    e = I_OPT + best * OPTION_LEN
    for j in range(buf[e + 1]):
        out[o + j] = buf[e + 2 + j]
    return buf[e + 1]


@njit(**_LEAN)
def _score_card(s, cards, mechs, buf, me, h, card, e):
    """``DefaultPolicy.score_card``: the card's value in play plus its best target's (a mandatory target is taken
    even when bad); its actions (play, host, target) into item ``e``."""
    tg = cards[card, F.C_TARGETER]
    score = 0.0
    target = -1
    if F.TARGETER_CHOSEN[tg]:
        n = candidates(s, cards, me, tg, cards[card, F.C_TG_ABILITY], buf, SCRATCH) - SCRATCH
        if n > 0:
            best = 0
            value = card_target_value(s, cards, mechs, card, me, buf[SCRATCH], buf)
            for i in range(1, n):  # np.argmax: the first maximum, or the first NaN
                if math.isnan(value):
                    break
                v = card_target_value(s, cards, mechs, card, me, buf[SCRATCH + i], buf)
                if math.isnan(v) or v > value:
                    best, value = i, v
            if value > 0 or cards[card, F.C_TG_OPTIONAL] == 0:
                score = value
                target = L.TARGET + position(s, me, buf[SCRATCH + best])
        if target < 0:
            target = L.NO_TARGET
    buf[e + 2] = L.PLAY + h
    na = 1
    if cards[card, F.C_TYPE] == F.ITEM:
        n = hosts(s, cards, me, card, buf, SCRATCH) - SCRATCH
        host = buf[SCRATCH]
        best_mult = multiplier(s, cards, mechs, host, buf)
        for i in range(1, n):
            v = multiplier(s, cards, mechs, buf[SCRATCH + i], buf)
            if v > best_mult:
                host, best_mult = buf[SCRATCH + i], v
        buf[e + 2 + na] = L.TARGET + position(s, me, host)
        na += 1
    slot = pb(me) + F.P_HAND + h * F.HF
    value = card_value(s, cards, mechs, card, PLAY, me, s[slot + F.H_ATTACK], s[slot + F.H_LIFE], buf)
    if target >= 0:
        buf[e + 2 + na] = target
        na += 1
    buf[e + 1] = na
    return score + value


@njit(**_LEAN)
def _modify_value(s, cards, u):
    """``default_policy._modify_value``: playCost / (modifyCost x power)."""
    c = s[at(u) + F.M_CARD]
    cost = cards[c, F.C_EMPOWER_COST]
    power = s[at(u) + F.M_POWER]
    if cost <= 0 or power <= 0:
        return math.inf if power <= 0 else float(cards[c, F.C_ENERGY])
    return cards[c, F.C_ENERGY] / (cost * power)


@njit(**_LEAN)
def _knapsack(buf, fw, n, capacity):
    """``default_policy.knapsack`` of the n items (weights ``buf[I_OPT + i * OPTION_LEN]``, values ``fw[FOPT + i]``)
    into ``buf[I_CHOSEN:]`` (reverse input order); returns their number. One row, filled downwards, is the table's
    row by row; the capacity is clamped to the total weight + 1, beyond which every row's cells are equal."""
    if capacity <= 0 or n == 0:
        return 0
    total = 0
    for i in range(n):
        total += buf[I_OPT + i * OPTION_LEN]
    cap = min(capacity, total + 1)
    if cap > KNAPSACK_CAP:
        raise ValueError("the knapsack's items weigh more than flat_evaluation.KNAPSACK_CAP")
    for c in range(cap + 1):
        fw[FROW + c] = 0.0
    for i in range(n):
        w = buf[I_OPT + i * OPTION_LEN]
        v = fw[FOPT + i]
        keep = I_KEEP + i * KEEP_WORDS
        for word in range(cap // KEEP_BITS + 1):
            buf[keep + word] = 0
        for c in range(cap, 0, -1):
            if w <= c and v + fw[FROW + c - w] > fw[FROW + c]:
                fw[FROW + c] = v + fw[FROW + c - w]
                buf[keep + c // KEEP_BITS] |= 1 << (c % KEEP_BITS)
    k = 0
    c = cap
    for i in range(n - 1, -1, -1):
        if (buf[I_KEEP + i * KEEP_WORDS + c // KEEP_BITS] >> (c % KEEP_BITS)) & 1:
            buf[I_CHOSEN + k] = i
            k += 1
            c -= buf[I_OPT + i * OPTION_LEN]
    return k


# ---- combat ----------------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _outcome(s, cards, a, b):
    """``default_policy.outcome`` of a single block of attacker a by b."""
    ak = abilities(s, cards, a)
    bk = abilities(s, cards, b)
    a_lethal = (ak >> F.AB_LETHAL) & 1 or (ak >> F.AB_TRANSFORM_DAMAGED) & 1
    b_lethal = (bk >> F.AB_LETHAL) & 1 or (bk >> F.AB_TRANSFORM_DAMAGED) & 1
    attacker_dies = st_get(s, a, F.ST_SHIELD) == 0 and (b_lethal or attack(s, b) >= life(s, a))
    blocker_dies = st_get(s, b, F.ST_SHIELD) == 0 and (a_lethal or attack(s, a) >= life(s, b))
    if attacker_dies and blocker_dies:
        return BOTH_DIE
    if attacker_dies:
        return ATTACKER_DIES
    return BLOCKER_DIES if blocker_dies else NEITHER_DIES


@njit(**_LEAN)
def _attackers(s, cards, mechs, buf, me, out, o):
    """``DefaultPolicy.attackers``: attack with every ready unit with attack > 0 that no non-exhausted enemy unit
    could block favourably; returns their number."""
    foe = 1 - me
    k = 0
    for i in range(board_len(s, me)):
        a = board_at(s, me, i)
        if not can_attack(s, cards, a) or attack(s, a) <= 0:
            continue
        favourable = False
        for j in range(board_len(s, foe)):
            e = board_at(s, foe, j)
            if is_unit(s, cards, e) and s[at(e) + F.M_EXHAUSTED] == 0 and can_block(s, cards, e, a):
                kind = _outcome(s, cards, a, e)
                if kind == ATTACKER_DIES or kind == NEITHER_DIES or (
                        kind == BOTH_DIE and unit_value(s, cards, mechs, a, LETHAL, buf)
                        > unit_value(s, cards, mechs, e, LETHAL, buf)):
                    favourable = True
                    break
        if not favourable:
            out[o + k] = L.ATTACK + i
            k += 1
    return k


@njit(**_LEAN)
def _all_attackers(s, cards, me, out, o):
    """``BerserkerPolicy.attackers``: every unit able to attack; returns their number."""
    k = 0
    for i in range(board_len(s, me)):
        if can_attack(s, cards, board_at(s, me, i)):
            out[o + k] = L.ATTACK + i
            k += 1
    return k


@njit(**_LEAN)
def _block(s, cards, mechs, buf, me, out, o):
    """``DefaultPolicy.block``: attackers by Flying then attack, each its best single blocker, kept when the outcome
    is good, an even-or-better trade, or the incoming damage lethal; returns the number of blocks."""
    foe = 1 - me
    na = 0
    for i in range(board_len(s, foe)):  # a stable sort of the attackers by -(attack + Flying)
        x = board_at(s, foe, i)
        if s[at(x) + F.M_ATTACKING] == 0:
            continue
        key = -(attack(s, x) + (FLYING_FIRST if has(s, cards, x, F.AB_FLYING) else 0))
        j = na
        while j > 0 and buf[_KEY + j - 1] > key:
            buf[_ORD + j] = buf[_ORD + j - 1]
            buf[_KEY + j] = buf[_KEY + j - 1]
            j -= 1
        buf[_ORD + j] = i
        buf[_KEY + j] = key
        na += 1
    incoming = 0
    for j in range(na):
        incoming += attack(s, board_at(s, foe, buf[_ORD + j]))
    for i in range(board_len(s, me)):  # the pool of blockers
        u = board_at(s, me, i)
        buf[_PICK + i] = (is_unit(s, cards, u) and s[at(u) + F.M_EXHAUSTED] == 0
                          and s[at(u) + F.M_BLOCKING] < 0)
    k = 0
    for j in range(na):
        ai = buf[_ORD + j]
        a = board_at(s, foe, ai)
        best = -1
        best_key = trade = 0.0
        best_kind = 0
        for i in range(board_len(s, me)):
            b = board_at(s, me, i)
            if buf[_PICK + i] == 0 or not can_block(s, cards, b, a):
                continue
            kind = _outcome(s, cards, a, b)
            ub = unit_value(s, cards, mechs, b, LETHAL, buf)
            ua = unit_value(s, cards, mechs, a, LETHAL, buf)
            key = kind * OUTCOME_RANK + ub - ua
            if best < 0 or key < best_key:
                best, best_key, best_kind, trade = i, key, kind, ub - ua
        if best >= 0 and (incoming >= s[pb(me) + F.P_LIFE] or best_kind == ATTACKER_DIES
                          or best_kind == NEITHER_DIES or (best_kind == BOTH_DIE and trade <= 0)):
            out[o + k] = L.BLOCK + BOARD_SLOTS * best + ai
            k += 1
            incoming -= attack(s, a)
            buf[_PICK + best] = 0
    return k


@njit(**_LEAN)
def _order(s, cards, mechs, buf, me, out, o):
    """``DefaultPolicy.order``: the blockers of the attacker to order, the knapsack's kills first (weight a
    blocker's life, value its LETHAL value, capacity the attack), then the others in board order, less those
    named."""
    fw = floats(buf)
    uid = s[F.G_QUEUE]
    record = F.G_ORDERS
    while s[record] != uid:
        record += F.OF
    foe = 1 - me
    n = 0
    for i in range(board_len(s, foe)):
        x = board_at(s, foe, i)
        if s[at(x) + F.M_BLOCKING] == uid:
            buf[_ORD + n] = i
            buf[_PICK + n] = 0
            buf[I_OPT + n * OPTION_LEN] = life(s, x)
            fw[FOPT + n] = unit_value(s, cards, mechs, x, LETHAL, buf)
            n += 1
    kill = _knapsack(buf, fw, n, attack(s, find(s, uid)))
    k = 0
    for j in range(kill + n):
        if j < kill:
            idx = buf[I_CHOSEN + j]
            buf[_PICK + idx] = 1
        elif buf[_PICK + j - kill] == 0:
            idx = j - kill
        else:
            continue
        i = buf[_ORD + idx]
        named = False
        for d in range(s[record + 1]):
            named = named or s[record + 2 + d] == s[at(board_at(s, foe, i)) + F.M_UID]
        if not named:
            out[o + k] = L.ORDER + i
            k += 1
    return k


# ---- the resource and the choices ------------------------------------------------------------------------------------
@njit(**_LEAN)
def _first_copy(decks, p, i):
    """Entry i of p's deck list is its card's first (``default_policy._unique``)."""
    for j in range(i):
        if decks[p, 1 + j] == decks[p, 1 + i]:
            return False
    return True


@njit(**_LEAN)
def _deficit(s, cards, p, card):
    """The card's total threshold deficit for p."""
    t = 0
    for r in range(4):
        t += max(cards[card, F.C_REQ + r] - s[pb(p) + F.P_RES + r], 0)
    return t


@njit(**_LEAN)
def _resource(s, cards, decks, me):
    """``DefaultPolicy.resource``: the largest deficit of the card (in hand, else in the deck list) with the
    smallest total deficit; with none short, the type the deck list needs most."""
    best = -1
    best_t = 0
    for h in range(s[pb(me) + F.P_NHAND]):
        c = hand_card(s, me, h)
        t = _deficit(s, cards, me, c)
        if t > 0 and (best < 0 or t < best_t):
            best, best_t = c, t
    if best < 0:
        for i in range(decks[me, 0]):
            c = decks[me, 1 + i]
            if _first_copy(decks, me, i):
                t = _deficit(s, cards, me, c)
                if t > 0 and (best < 0 or t < best_t):
                    best, best_t = c, t
    out = 0
    most = -1
    for r in range(4):
        if best >= 0:
            v = max(cards[best, F.C_REQ + r] - s[pb(me) + F.P_RES + r], 0)
        else:
            v = 0
            for i in range(decks[me, 0]):
                if _first_copy(decks, me, i):
                    v += cards[decks[me, 1 + i], F.C_REQ + r]
        if v > most:
            out, most = r, v
    return out


@njit(**_LEAN)
def resource_choice(s, cards, mechs, decks, p):
    """The resource action DefaultAI plays for p (what ``FifthAeonState.sensible_actions`` keeps)."""
    return L.RESOURCE + _resource(s, cards, decks, p)


@njit(**_LEAN)
def _sort(buf, idx, n):
    """A stable sort of the option indices ``buf[idx:idx + n]`` by ``buf[_KEY + option]``."""
    for i in range(1, n):
        x = buf[idx + i]
        j = i
        while j > 0 and buf[_KEY + buf[idx + j - 1]] > buf[_KEY + x]:
            buf[idx + j] = buf[idx + j - 1]
            j -= 1
        buf[idx + j] = x


@njit(**_LEAN)
def _choose(s, cards, decks, buf, me, out, o):
    """``DefaultPolicy.choose``: the front choice's picks by |energy - cost| (replace the worst and those worse than
    the deck's mean, discard the worst, search and unbury the best; Abomination eats the highest stats), one by
    one, then done; returns the number of actions."""
    n = s[F.G_NOPTIONS]
    kind = s[F.G_CHOICES + F.Q_KIND]
    min_n = s[F.G_CHOICES + F.Q_MIN]
    max_n = s[F.G_CHOICES + F.Q_MAX]
    energy = s[pb(me) + F.P_ENERGY]
    for i in range(n):
        c = s[F.G_OPTIONS + i]
        buf[_ORD + i] = i
        if kind == F.CK_CONSUME:
            buf[_KEY + i] = -(cards[c, F.C_DAMAGE] + cards[c, F.C_LIFE])
        else:
            h = abs(energy - cards[c, F.C_ENERGY])
            buf[_KEY + i] = -h if kind == F.CK_REPLACE or kind == F.CK_DISCARD else h
    _sort(buf, _ORD, n)
    picked = min(min_n if kind == F.CK_REPLACE or kind == F.CK_DISCARD else max_n, n)
    for i in range(picked):
        buf[_PICK + i] = buf[_ORD + i]
    if kind == F.CK_REPLACE:  # then those worse than the deck list's mean, the least bad first
        total = 0
        unique = 0
        for i in range(decks[me, 0]):
            if _first_copy(decks, me, i):
                total += abs(energy - cards[decks[me, 1 + i], F.C_ENERGY])
                unique += 1
        mean = total / max(unique, 1)
        m = 0
        for i in range(n):
            buf[_KEY + i] = -buf[_KEY + i]
            taken = False
            for j in range(picked):
                taken = taken or buf[_PICK + j] == i
            if not taken and buf[_KEY + i] > mean:
                buf[_OPT + m] = i
                m += 1
        _sort(buf, _OPT, m)
        for j in range(min(m, max_n - picked)):
            buf[_PICK + picked] = buf[_OPT + j]
            picked += 1
    k = 0
    for j in range(picked):
        i = buf[_PICK + j]
        done = False
        for d in range(s[F.G_NPICKED]):
            done = done or s[F.G_PICKED + d] == i
        if not done:
            out[o + k] = L.OPTION + i
            k += 1
    if k + s[F.G_NPICKED] < max_n:
        out[o + k] = L.CHOICE_DONE
        k += 1
    return k


# ---- games -----------------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def playout(s, cards, mechs, decks, plan, buf, turn_limit):
    """DefaultAI on both sides (``FifthAeonState.random_playout`` with ``rollout=default_ai``) until the game ends
    or turn ``turn_limit`` begins; returns the number of decisions."""
    n = 0
    while s[F.G_WINNER] < 0 and s[F.G_TURN] < turn_limit and s[F.G_OVERFLOW] == 0:
        apply(s, cards, mechs, act(s, cards, mechs, decks, plan, buf, False), buf)
        n += 1
    return n

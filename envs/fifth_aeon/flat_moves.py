"""Compiled Fifth Aeon's decisions: the legal action ids and how one is applied (``moves``, compiled).

``legal_actions(s, cards, mechs, buf)`` writes the acting player's legal ids, increasing, to ``buf[:n]``;
``apply(s, cards, mechs, action, buf)`` plays a legal one: what resolves at once here, the rest on
``flat_machine``'s stack, then the perm pool is swept. Ids are ``layout``'s.
"""
from __future__ import annotations

from numba import njit

from . import flat_layout as F
from . import layout as L
from .constants import BOARD_SLOTS, OPENING_DRAW
from .flat_machine import (
    FR_A, FRAME, OP_AFTER_CHOICE, OP_BEGIN_TURN, OP_COMBAT, OP_DEATHS, OP_END_TURN, OP_FINISH_PLAY, SCRATCH, STACK,
    push, resolve,
)
from .flat_rules import (
    ask, at, at_position, attack, board_at, board_len, buff, can_attack, can_block, candidates, collect, draw, find,
    hand_card, hand_remove, has, hosts, is_unit, list_append, pb, picked, playable, position, refresh, resolve_choice,
    st_get, st_set, update_auras,
)

_LEAN = dict(cache=True, nogil=True, _nrt=False)


@njit(**_LEAN)
def acting(s):
    """The player to decide (``Match.acting``); -2 once the game is over."""
    if s[F.G_WINNER] >= 0:
        return -2
    if s[F.G_NCHOICES] > 0:
        return s[F.G_CHOICES + F.Q_PLAYER]
    if s[F.G_PHASE] == F.BLOCK:
        return 1 - s[F.G_TURN_PLAYER]
    return s[F.G_TURN_PLAYER]


@njit(**_LEAN)
def _sort(buf, n):
    for i in range(1, n):
        x = buf[i]
        k = i
        while k > 0 and buf[k - 1] > x:
            buf[k] = buf[k - 1]
            k -= 1
        buf[k] = x


@njit(**_LEAN)
def legal_actions(s, cards, mechs, buf):
    """``moves.legal``: the legal ids, increasing, in ``buf[:n]``; returns n."""
    if s[F.G_WINNER] >= 0:
        return 0
    n = 0
    if s[F.G_NCHOICES] > 0:
        if s[F.G_NPICKED] < s[F.G_CHOICES + F.Q_MAX]:
            for i in range(s[F.G_NOPTIONS]):
                if not picked(s, i):
                    buf[n] = L.OPTION + i
                    n += 1
        if s[F.G_NPICKED] >= s[F.G_CHOICES + F.Q_MIN]:
            buf[n] = L.CHOICE_DONE
            n += 1
        return n
    p = acting(s)
    b = pb(p)
    if s[F.G_PEND] == 1:
        card = hand_card(s, p, s[F.G_PEND_SLOT])
        if s[F.G_PEND_STAGE] == 0:
            k = hosts(s, cards, p, card, buf, SCRATCH) - SCRATCH
        else:
            k = candidates(s, cards, p, cards[card, F.C_TARGETER], cards[card, F.C_TG_ABILITY], buf,
                           SCRATCH) - SCRATCH
        for i in range(k):
            buf[n] = L.TARGET + position(s, p, buf[SCRATCH + i])
            n += 1
        _sort(buf, n)
        if s[F.G_PEND_STAGE] == 1 and (cards[card, F.C_TG_OPTIONAL] == 1 or n == 0):
            buf[n] = L.NO_TARGET
            n += 1
        return n
    foe = 1 - p
    if s[F.G_PHASE] == F.BLOCK:
        for bi in range(board_len(s, p)):
            u = board_at(s, p, bi)
            if not is_unit(s, cards, u) or s[at(u) + F.M_BLOCKING] >= 0:
                continue
            for ai in range(board_len(s, foe)):
                x = board_at(s, foe, ai)
                if s[at(x) + F.M_ATTACKING] == 1 and can_block(s, cards, u, x):
                    buf[n] = L.BLOCK + BOARD_SLOTS * bi + ai
                    n += 1
        buf[n] = L.PASS
        return n + 1
    if s[F.G_PHASE] == F.ORDER:
        a = s[F.G_QUEUE]
        o = _order_record(s, a)
        for i in range(board_len(s, foe)):
            x = board_at(s, foe, i)
            if s[at(x) + F.M_BLOCKING] == a and not _ordered(s, o, s[at(x) + F.M_UID]):
                buf[n] = L.ORDER + i
                n += 1
        return n
    if s[b + F.P_PLAYED_RESOURCE] == 0:
        for r in range(4):
            buf[n] = L.RESOURCE + r
            n += 1
    for h in range(s[b + F.P_NHAND]):
        if playable(s, cards, p, hand_card(s, p, h), buf, SCRATCH):
            buf[n] = L.PLAY + h
            n += 1
    energy = s[b + F.P_ENERGY]
    for i in range(board_len(s, p)):
        u = board_at(s, p, i)
        c = s[at(u) + F.M_CARD]
        if (not is_unit(s, cards, u) and cards[c, F.C_EMPOWER_COST] <= energy
                and not has(s, cards, u, F.AB_CANNOT_BE_EMPOWERED)):
            buf[n] = L.EMPOWER + i
            n += 1
    for i in range(board_len(s, foe)):
        u = board_at(s, foe, i)
        if not is_unit(s, cards, u) and cards[s[at(u) + F.M_CARD], F.C_EMPOWER_COST] <= energy:
            buf[n] = L.DIMINISH + i
            n += 1
    if s[F.G_PHASE] == F.PLAY1:
        for i in range(board_len(s, p)):
            u = board_at(s, p, i)
            if s[at(u) + F.M_ATTACKING] == 0 and can_attack(s, cards, u):
                buf[n] = L.ATTACK + i
                n += 1
    if s[b + F.P_PLAYED_RESOURCE] == 1:
        buf[n] = L.PASS
        n += 1
    return n


@njit(**_LEAN)
def _order_record(s, a):
    """The offset of attacker uid a's damage order (``Match.order[a]``), -1."""
    for k in range(s[F.G_NORDERS]):
        o = F.G_ORDERS + k * F.OF
        if s[o] == a:
            return o
    return -1


@njit(**_LEAN)
def _ordered(s, o, b):
    for k in range(s[o + 1]):
        if s[o + 2 + k] == b:
            return True
    return False


@njit(**_LEAN)
def apply(s, cards, mechs, a, buf):
    """``moves.apply`` of the legal action a, resolved to the next decision."""
    buf[STACK] = 0
    _decide(s, cards, mechs, a, buf)
    resolve(s, cards, mechs, buf)
    collect(s)


@njit(**_LEAN)
def _decide(s, cards, mechs, a, buf):
    """What the decision does at once; what it sets off is pushed on the stack."""
    if s[F.G_NCHOICES] > 0:
        if a != L.CHOICE_DONE:
            s[F.G_PICKED + s[F.G_NPICKED]] = a - L.OPTION
            s[F.G_NPICKED] += 1
        if a == L.CHOICE_DONE or s[F.G_NPICKED] >= s[F.G_CHOICES + F.Q_MAX]:
            resolve_choice(s, cards, mechs)
            push(s, buf, OP_AFTER_CHOICE, 0, 0, 0, 0, 0, 0)
        return
    p = acting(s)
    b = pb(p)
    if s[F.G_PEND] == 1:
        slot = s[F.G_PEND_SLOT]
        card = hand_card(s, p, slot)
        chosen = -1 if a == L.NO_TARGET else at_position(s, p, a - L.TARGET)
        if s[F.G_PEND_STAGE] == 0:
            host = s[at(chosen) + F.M_UID]
            s[F.G_PEND_HOST] = host
            s[F.G_PEND_STAGE] = 1
            if not F.TARGETER_CHOSEN[cards[card, F.C_TARGETER]]:
                _finish_play(s, cards, mechs, buf, p, slot, host, -1)
            return
        _finish_play(s, cards, mechs, buf, p, slot, s[F.G_PEND_HOST], chosen)
        return
    if a < L.PLAY:
        r = a - L.RESOURCE
        s[b + F.P_PLAYED_RESOURCE] = 1
        s[b + F.P_RES + r] += 1
        s[b + F.P_MAX_ENERGY] += 1
        s[b + F.P_ENERGY] += 1
    elif a < L.TARGET:
        slot = a - L.PLAY
        card = hand_card(s, p, slot)
        s[b + F.P_HAND + slot * F.HF + F.H_KNOWN] = 1
        if cards[card, F.C_TYPE] == F.ITEM or F.TARGETER_CHOSEN[cards[card, F.C_TARGETER]]:
            s[F.G_PEND] = 1
            s[F.G_PEND_SLOT] = slot
            s[F.G_PEND_HOST] = -1
            s[F.G_PEND_STAGE] = 0 if cards[card, F.C_TYPE] == F.ITEM else 1
        else:
            _finish_play(s, cards, mechs, buf, p, slot, -1, -1)
    elif L.EMPOWER <= a < L.ATTACK:
        mine = a < L.DIMINISH
        u = board_at(s, p, a - L.EMPOWER) if mine else board_at(s, 1 - p, a - L.DIMINISH)
        s[b + F.P_ENERGY] -= cards[s[at(u) + F.M_CARD], F.C_EMPOWER_COST]
        s[at(u) + F.M_POWER] += 1 if mine else -1
        if not mine:
            push(s, buf, OP_DEATHS, 0, 0, 0, 0, 0, 0)
    elif a < L.BLOCK:
        s[at(board_at(s, p, a - L.ATTACK)) + F.M_ATTACKING] = 1
    elif a < L.ORDER:
        bi = (a - L.BLOCK) // BOARD_SLOTS
        ai = (a - L.BLOCK) % BOARD_SLOTS
        s[at(board_at(s, p, bi)) + F.M_BLOCKING] = s[at(board_at(s, 1 - p, ai)) + F.M_UID]
    elif a < L.PASS:
        _order_next(s, buf, s[at(board_at(s, 1 - p, a - L.ORDER)) + F.M_UID])
    else:
        _pass_phase(s, cards, buf)


@njit(**_LEAN)
def _finish_play(s, cards, mechs, buf, p, slot, host_uid, chosen):
    """``moves.finish_play``: pay for the card in hand ``slot`` (an item attaches at once), then resolve it."""
    s[F.G_PEND] = 0
    b = pb(p)
    h = b + F.P_HAND + slot * F.HF
    bonus_d = s[h + F.H_ATTACK]
    bonus_l = s[h + F.H_LIFE]
    card = hand_remove(s, p, slot)
    s[b + F.P_ENERGY] -= cards[card, F.C_ENERGY]
    host = -1
    if cards[card, F.C_TYPE] == F.ITEM:
        host = find(s, host_uid)
        _attach(s, cards, mechs, host, card)
    push(s, buf, OP_FINISH_PLAY, p, card, host, chosen, 0, bonus_d)
    buf[STACK + 1 + (buf[STACK] - 1) * FRAME + FR_A + 6] = bonus_l


@njit(**_LEAN)
def _attach(s, cards, mechs, host, item):
    """``moves.attach``: the host gets the item's stats and abilities, and the counters they come with."""
    b = at(host)
    if list_append(s, b + F.M_ITEMS, b + F.M_NITEMS, F.MAX_ITEMS, F.OV_ITEMS, item) < 0:
        return
    buff(s, host, cards[item, F.C_DAMAGE], cards[item, F.C_LIFE])
    if cards[item, F.C_SHIELDED] == 1:
        st_set(s, host, F.ST_SHIELD, 1)
    if (cards[item, F.C_ABILITIES] >> F.AB_DEATHLESS) & 1:
        st_set(s, host, F.ST_DEATHLESS, max(st_get(s, host, F.ST_DEATHLESS), cards[item, F.C_DEATHLESS_CHARGES]))
    if cards[item, F.C_RUSH] == 1:
        refresh(s, host)
    update_auras(s, cards, mechs)


@njit(**_LEAN)
def _pass_phase(s, cards, buf):
    """``rules.pass_phase``: Play1 with attackers goes to blocks (or straight to combat); otherwise the turn ends."""
    t = s[F.G_TURN_PLAYER]
    phase = s[F.G_PHASE]
    attacking = False
    for i in range(board_len(s, t)):
        if s[at(board_at(s, t, i)) + F.M_ATTACKING] == 1:
            attacking = True
    if phase == F.PLAY1 and attacking:
        s[F.G_ATTACKED] = 1
        for bi in range(board_len(s, 1 - t)):
            u = board_at(s, 1 - t, bi)
            if not is_unit(s, cards, u):
                continue
            for ai in range(board_len(s, t)):
                x = board_at(s, t, ai)
                if s[at(x) + F.M_ATTACKING] == 1 and can_block(s, cards, u, x):
                    s[F.G_PHASE] = F.BLOCK
                    return
        push(s, buf, OP_COMBAT, 0, 0, 0, 0, 0, 0)
    elif phase == F.BLOCK:
        _start_damage_order(s, buf)
    else:
        push(s, buf, OP_END_TURN, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _start_damage_order(s, buf):
    """``rules.start_damage_order``: the attacker orders the blockers of each attacker blocked by two or more."""
    t = s[F.G_TURN_PLAYER]
    s[F.G_NORDERS] = 0
    s[F.G_NQUEUE] = 0
    for i in range(board_len(s, t)):
        x = board_at(s, t, i)
        if s[at(x) + F.M_ATTACKING] == 0:
            continue
        a = s[at(x) + F.M_UID]
        blockers = 0
        for k in range(board_len(s, 1 - t)):
            if s[at(board_at(s, 1 - t, k)) + F.M_BLOCKING] == a:
                blockers += 1
        if blockers >= 2 and attack(s, x) > 0:
            s[F.G_QUEUE + s[F.G_NQUEUE]] = a
            s[F.G_NQUEUE] += 1
            o = F.G_ORDERS + s[F.G_NORDERS] * F.OF
            s[o] = a
            s[o + 1] = 0
            s[F.G_NORDERS] += 1
    if s[F.G_NQUEUE] > 0:
        s[F.G_PHASE] = F.ORDER
    else:
        push(s, buf, OP_COMBAT, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _order_next(s, buf, blocker):
    """``rules.order_next``: the attacker names the next blocker to take damage; the last one follows by itself."""
    t = s[F.G_TURN_PLAYER]
    a = s[F.G_QUEUE]
    o = _order_record(s, a)
    s[o + 2 + s[o + 1]] = blocker
    s[o + 1] += 1
    left = 0
    last = -1
    for k in range(board_len(s, 1 - t)):
        x = board_at(s, 1 - t, k)
        if s[at(x) + F.M_BLOCKING] == a and not _ordered(s, o, s[at(x) + F.M_UID]):
            left += 1
            last = s[at(x) + F.M_UID]
    if left <= 1:
        if left == 1:
            s[o + 2 + s[o + 1]] = last
            s[o + 1] += 1
        for k in range(1, s[F.G_NQUEUE]):
            s[F.G_QUEUE + k - 1] = s[F.G_QUEUE + k]
        s[F.G_NQUEUE] -= 1
    if s[F.G_NQUEUE] == 0:
        push(s, buf, OP_COMBAT, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def start(s, cards, mechs, buf, mulligan):
    """``rules.start`` on a match with its decks shuffled: the opening draws, player 0's first turn start, then both
    mulligans (none without ``mulligan``: the opening hands are kept)."""
    buf[STACK] = 0
    for p in range(2):
        draw(s, cards, mechs, p, OPENING_DRAW[p])
    push(s, buf, OP_BEGIN_TURN, 0, 0, 0, 0, 0, 0)
    resolve(s, cards, mechs, buf)
    for p in range(2):
        ask(s, cards, mechs, p, F.CK_REPLACE, F.CS_HAND, 0, s[pb(p) + F.P_NHAND], 0)
    if not mulligan:
        s[F.G_NCHOICES] = 0
        s[F.G_NOPTIONS] = -1
        s[F.G_NPICKED] = 0
        s[F.G_SLOTTED] = 0
    collect(s)

"""DefaultAI's evaluation (``evaluation``) compiled: numba kernels over the flat state ``s`` and the card table
(``cards``, ``mechs``), each the ``Evaluator`` method of the same name, computed in the same order (bit-equal).

Python's evaluator recurses: a unit's value adds its effects' target values, which read other units' values, and a
summon adds its token's value. numba may not recurse, so ``prepare(s, cards, mechs, me, buf)`` first tables what
values read: every token's value (``Evaluator.token``, for ``me``) and every permanent's value as a unit in the
LETHAL and NONLETHAL contexts. It computes them in passes until each entry was computed from final entries only;
the dependencies are acyclic wherever Python's recursion ends, so the table is then exact (where Python recurses
without end, the last pass's values stay). The kernels below read the table and compute the rest on demand, so
they hold for the position and player of the last ``prepare``.

A context is an int (``PLAY``, ``LETHAL``, ``NONLETHAL``: ``CONTEXTS`` names them). A value's source is a perm-pool
index, ``NO_SOURCE`` (a card in hand) or ``FAKE``: the unit a card in hand would be (``Perm(-1, card, owner)``,
the target of its own SelfTarget effects); a target is a pool index, ``FAKE`` or a player ``p`` as ``-1 - p``
(``flat_rules.automatic``'s). The work area is ``buf[STACK:WORK_END]`` (floats first): the kernels
run between rules calls, never inside one; ``buf[SCRATCH:STACK]`` holds their short target lists.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import evaluation as E
from . import flat_layout as F
from .constants import BOARD_SLOTS
from .flat_machine import BUFFER_LEN, SCRATCH, STACK
from .flat_rules import (
    abilities, at, attack, automatic, board_at, board_len, full_life, is_unit, life, pb, rules_unit, st_get,
    strongest_attack,
)
from .flat_table import _AMOUNT

_LEAN = dict(cache=True, nogil=True, _nrt=False)
_INLINE = dict(cache=True, nogil=True, _nrt=False, inline="always")

# ---- contexts and the tables built from evaluation.py's dicts ------------------------------------------------------
CONTEXTS = (E.PLAY, E.LETHAL, E.NONLETHAL)
PLAY, LETHAL, NONLETHAL = range(3)
NO_SOURCE = -1
FAKE = -3  # not -1 / -2: those are players as targets


def _ability_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """By ability bit: MULTIPLIERS[name](ctx), ADDENDS[name], and a granted ability's one number (its default)."""
    mult = np.ones((F.MAX_ABILITIES + 1, len(CONTEXTS)))
    addend = np.zeros(F.MAX_ABILITIES + 1)
    granted = np.zeros(F.MAX_ABILITIES + 1, np.int64)
    for name, f in E.MULTIPLIERS.items():
        mult[F.ABILITY_NAMES.index(name)] = [f(c) for c in CONTEXTS]
    for name, v in E.ADDENDS.items():
        addend[F.ABILITY_NAMES.index(name)] = v
    for name, (_, default) in _AMOUNT.items():
        if name in F.ABILITY_NAMES:
            granted[F.ABILITY_NAMES.index(name)] = default
    return mult, addend, granted


MULT, ADDEND, GRANTED_AMOUNT = _ability_tables()
FACTOR = np.array([[E.TRIGGER_FACTORS.get(name, lambda c: 1.0)(c) for c in CONTEXTS] for name in F.TRIGGER_NAMES])
IS_TARGET_VALUE = np.array([name in E.TARGET_VALUES for name in F.EFFECT_NAMES])
assert set(E.LORDSHIPS) == {F.ABILITY_NAMES[b] for b in F.LORDSHIPS}

# The numbers written into evaluation.py's formulas (not in its tables), by the mechanic they value.
RUSH_IN_PLAY = 1.2
SHIELDED_LIVE = 1.25
DAMAGE_ON_BLOCK = 2.0
PREVENT_ALL_DAMAGE = 7.0
DEATH_COUNTER = 6.0
AFFINITY = 0.75
SLEEP_PER_TURN = -3.0
POISONED = -0.75
DRAW_CARD = 3.0
DISCARD = 2.5
AUGUR = 2.0
GAIN_LIFE = 0.75
GAIN_ENERGY = 2.0
RETURN_FROM_CRYPT = 3.0
REMOVED_ENCHANTMENT = 2.0  # x its energy
ANNIHILATE = 1.25
BUFF = 1.1
GRANT = 2.0
POISON = 0.5
CURE_UNPOISONED = 0.7
REFRESH = 0.1
SLEEP = 0.5
WEB_FLYING, WEB = 0.05, 0.6
IMPRISON = 0.9
MIND_CONTROL = 2.0
DRAW_FROM_UNIT = 3.0
DRAIN = 2.0
LIFE_POINT = 0.75  # position_value
HAND_CARD = 3.0

# ---- the work area: buf[STACK:], int32; floats (a float64 view) then ints -------------------------------------------
MAX_TOKENS = 32  # distinct cards a pool's summons name
KNAPSACK_CAP = 1000  # the knapsack's capacity after clamping to the items' total weight + 1
KNAPSACK_ITEMS = 32  # knapsack items: hand cards and enchantments
OPTION_LEN = 5  # an item: weight, its actions' count, up to 3 actions
KEEP_BITS = 30  # knapsack keep flags per int32 word
KEEP_WORDS = (KNAPSACK_CAP + KEEP_BITS) // KEEP_BITS
FV = 0  # a permanent's unit value: FV + 2 * pool index + (ctx - LETHAL)
FT = FV + 2 * F.PERM_SLOTS  # token values, by token slot
FF = FT + MAX_TOKENS  # the fake unit's LETHAL, NONLETHAL values
FROW = FF + 2  # the knapsack's row
FOPT = FROW + KNAPSACK_CAP + 1  # the items' values
NF = FOPT + KNAPSACK_ITEMS
I_NTOK = STACK + 2 * NF
I_TOK = I_NTOK + 1  # the token slots' cards
I_FINAL = I_TOK + MAX_TOKENS  # 1: float entry i (< FROW) is final
I_DIRTY = I_FINAL + FROW  # set when a non-final entry is read
I_KEEP = I_DIRTY + 1
I_OPT = I_KEEP + KNAPSACK_ITEMS * KEEP_WORDS  # the items (OPTION_LEN each)
I_CHOSEN = I_OPT + KNAPSACK_ITEMS * OPTION_LEN  # the knapsack's choice, in its order
WORK_END = I_CHOSEN + KNAPSACK_ITEMS
AREA = SCRATCH + 64  # an automatic targeter's targets (buf[SCRATCH:AREA]: candidates, hosts, policy lists)
MAX_PASSES = 2 * BOARD_SLOTS + MAX_TOKENS + 1  # a pass per table entry (a unit's two are one), and one more
assert WORK_END <= BUFFER_LEN and AREA + 2 * BOARD_SLOTS + 2 <= STACK


# ---- the table ------------------------------------------------------------------------------------------------------
@njit(**_INLINE)
def floats(buf):
    """The float part of the work area."""
    return buf[STACK:STACK + 2 * NF].view(np.float64)


@njit(**_LEAN)
def _read(buf, fw, i):
    """Table entry i, noting a read of a non-final one."""
    if buf[I_FINAL + i] == 0:
        buf[I_DIRTY] = 1
    return fw[i]


@njit(**_LEAN)
def _is_token_row(mechs, r):
    """A mechanic valued by its token's value (``Evaluator.token``)."""
    if mechs[r, F.X_TRIGGER] == F.STATIC_TRIGGER:
        return mechs[r, F.X_ID] == F.AB_SUMMON_UNIT_ON_DAMAGE
    ef = mechs[r, F.X_ID]
    return ef == F.EF_SUMMON or ef == F.EF_ENCHANTMENT_SUMMON or ef == F.EF_SUMMON_FOR_GRAVE


@njit(**_LEAN)
def prepare(s, cards, mechs, me, buf):
    """Table the token values (for ``me``: ``Evaluator(m, me)``) and every permanent's LETHAL and NONLETHAL unit
    values, for the kernels below."""
    fw = floats(buf)
    nt = 0
    for r in range(mechs.shape[0]):
        if _is_token_row(mechs, r):
            c = mechs[r, F.X_CARD]
            known = False
            for k in range(nt):
                known = known or buf[I_TOK + k] == c
            if not known:
                if nt == MAX_TOKENS:
                    raise ValueError("the pool's summons name more distinct cards than flat_evaluation.MAX_TOKENS")
                buf[I_TOK + nt] = c
                buf[I_FINAL + FT + nt] = 0
                nt += 1
    buf[I_NTOK] = nt
    for p in range(2):
        for j in range(board_len(s, p)):
            i = FV + 2 * board_at(s, p, j)
            buf[I_FINAL + i] = buf[I_FINAL + i + 1] = 0
    for _ in range(MAX_PASSES):
        progress = False
        pending = False
        for k in range(nt):
            i = FT + k
            if buf[I_FINAL + i] == 0:
                buf[I_DIRTY] = 0
                fw[i] = _card(s, cards, mechs, buf, fw, buf[I_TOK + k], PLAY, me, 0, 0)
                if buf[I_DIRTY] == 0:
                    buf[I_FINAL + i] = 1
                    progress = True
                else:
                    pending = True
        for p in range(2):
            for j in range(board_len(s, p)):
                i = FV + 2 * board_at(s, p, j)
                if buf[I_FINAL + i] == 0:
                    buf[I_DIRTY] = 0
                    fw[i], fw[i + 1] = _unit(s, cards, mechs, buf, fw, board_at(s, p, j), LETHAL, NONLETHAL)
                    if buf[I_DIRTY] == 0:
                        buf[I_FINAL + i] = buf[I_FINAL + i + 1] = 1
                        progress = True
                    else:
                        buf[I_FINAL + i + 1] = 0
                        pending = True
        if not pending or not progress:
            break


@njit(**_LEAN)
def _token(buf, fw, card):
    for k in range(buf[I_NTOK]):
        if buf[I_TOK + k] == card:
            return _read(buf, fw, FT + k)
    return math.nan  # a granted SummonUnitOnDamage names no card (Python raises)


@njit(**_LEAN)
def _unit_of(buf, fw, t, ctx):
    """``ev.unit(t, ctx)`` of a target (LETHAL or NONLETHAL): from the table, or the fake unit's."""
    if t == FAKE:
        return _read(buf, fw, FF + ctx - LETHAL)
    return _read(buf, fw, FV + 2 * t + ctx - LETHAL)


# ---- units, cards and mechanics --------------------------------------------------------------------------------------
# Two contexts at once: a mechanic's effect does not depend on the context (only which factor or multiplier
# applies does), so the table's LETHAL and NONLETHAL values cost one pass over the mechanics.
@njit(**_LEAN)
def _unit(s, cards, mechs, buf, fw, m, ctx, ctx2):
    """``Evaluator.unit`` in ctx and ctx2: current life and attack, the statuses, the mechanics."""
    fl = full_life(s, m)
    atk = attack(s, m)
    extra = 0.0
    if st_get(s, m, F.ST_SLEEP) != 0:
        extra += SLEEP_PER_TURN * st_get(s, m, F.ST_SLEEP)
    if st_get(s, m, F.ST_POISON) != 0:
        extra += POISONED * (fl + atk)
    v, v2 = _mechanics(s, cards, mechs, buf, fw, ctx, ctx2, s[at(m) + F.M_OWNER], m, -1, extra, False)
    return fl + atk + v, fl + atk + v2


@njit(**_LEAN)
def _card(s, cards, mechs, buf, fw, card, ctx, owner, bonus_d, bonus_l):
    """``Evaluator.card``: a card in hand (a unit's printed stats plus its hand bonus, an item's bonuses)."""
    ct = cards[card, F.C_TYPE]
    base = 0.0
    if ct == F.UNIT or ct == F.ITEM:
        base = float(cards[card, F.C_DAMAGE] + cards[card, F.C_LIFE] + bonus_d + bonus_l)
    if ct == F.UNIT and _self_targeted(cards, mechs, card):
        _fake_values(s, cards, mechs, buf, fw, card, owner)
    c = PLAY if ct == F.ITEM or ct == F.ENCHANTMENT else ctx
    return base + _mechanics(s, cards, mechs, buf, fw, c, c, owner, NO_SOURCE, card, 0.0, False)[0]


@njit(**_LEAN)
def _self_targeted(cards, mechs, card):
    """A target-valued effect of ``card`` hits the unit it will be (its fake's values are then read)."""
    for r in range(cards[card, F.C_MECH_START], cards[card, F.C_MECH_START] + cards[card, F.C_MECH_COUNT]):
        if mechs[r, F.X_TRIGGER] != F.STATIC_TRIGGER and IS_TARGET_VALUE[mechs[r, F.X_ID]]:
            tg = mechs[r, F.X_TARGETER] if mechs[r, F.X_HAS_TARGETER] == 1 else cards[card, F.C_TARGETER]
            if tg == F.TG_SELF_TARGET:
                return True
    return False


@njit(**_LEAN)
def _fake_values(s, cards, mechs, buf, fw, card, owner):
    """``ev.unit(Perm(-1, card, owner), ctx)`` for LETHAL and NONLETHAL into the table (read while being computed:
    NaN, where Python recurses without end)."""
    for k in range(2):
        buf[I_FINAL + FF + k] = 0
        fw[FF + k] = math.nan
    stats = cards[card, F.C_LIFE] + max(0, cards[card, F.C_DAMAGE])
    v, v2 = _mechanics(s, cards, mechs, buf, fw, LETHAL, NONLETHAL, owner, FAKE, card, 0.0, False)
    fw[FF], fw[FF + 1] = stats + v, stats + v2
    buf[I_FINAL + FF] = buf[I_FINAL + FF + 1] = 1


@njit(**_LEAN)
def _perm(s, cards, mechs, buf, fw, m, ctx):
    """``Evaluator.perm``: a unit as a unit, an enchantment by its mechanics in PLAY."""
    if is_unit(s, cards, m):
        if ctx == PLAY:
            return _unit(s, cards, mechs, buf, fw, m, ctx, ctx)[0]
        return _unit_of(buf, fw, m, ctx)
    return _mechanics(s, cards, mechs, buf, fw, PLAY, PLAY, s[at(m) + F.M_OWNER], m, -1, 0.0, False)[0]


@njit(**_LEAN)
def _mechanics(s, cards, mechs, buf, fw, ctx, ctx2, owner, src, card, extra, mult_only):
    """``Evaluator.mechanics`` in ctx and ctx2: ``product(multipliers) * (extra + sum(addends))`` over a source's
    mechanics in ``Perm.mechs`` order (the card's, the granted ones by bit, Imprison's, the items'; less the lost
    ones), or over ``card``'s (``src`` NO_SOURCE or FAKE). ``mult_only``: the products alone
    (``default_policy._multiplier``)."""
    mult = mult2 = 1.0
    total = total2 = extra
    c = card if src < 0 else s[at(src) + F.M_CARD]
    lost = s[at(src) + F.M_LOST] if src >= 0 else 0
    b = at(src) if src >= 0 else 0
    granted = s[b + F.M_GRANTED] & ~lost if src >= 0 else 0
    imprisoned = s[b + F.M_IMPRISONED] if src >= 0 else 0
    items = s[b + F.M_NITEMS] if src >= 0 else 0
    for k in range(-1, items):  # the card's rows, then after them the granted ones, then each item's
        if k >= 0:
            c = s[b + F.M_ITEMS + k]
        for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
            if mechs[r, F.X_TRIGGER] != F.STATIC_TRIGGER or (lost >> mechs[r, F.X_ID]) & 1 == 0:
                a, mul, a2, mul2 = _mechanic(s, cards, mechs, buf, fw, r, ctx, ctx2, owner, src, card, mult_only)
                total += a
                mult *= mul
                total2 += a2
                mult2 *= mul2
        if k >= 0:
            continue
        if granted != 0:
            for bit in range(F.MAX_ABILITIES):
                if (granted >> bit) & 1:
                    a, mul, mul2 = _static(s, cards, buf, fw, bit, GRANTED_AMOUNT[bit], 0, 0, -1, ctx, ctx2, owner,
                                           src, card, mult_only)
                    total += a
                    mult *= mul
                    total2 += a
                    mult2 *= mul2
        for _ in range(imprisoned):
            for bit in (F.AB_CANNOT_ATTACK, F.AB_CANNOT_BLOCK):
                if (lost >> bit) & 1 == 0:
                    a, mul, mul2 = _static(s, cards, buf, fw, bit, 0, 0, 0, -1, ctx, ctx2, owner, src, card,
                                           mult_only)
                    total += a
                    mult *= mul
                    total2 += a
                    mult2 *= mul2
    if mult_only:
        return mult, mult2
    return mult * total, mult2 * total2


@njit(**_LEAN)
def _mechanic(s, cards, mechs, buf, fw, r, ctx, ctx2, owner, src, card, mult_only):
    """``Evaluator.mechanic`` of row r: (addend, multiplier) in ctx, then in ctx2 (the effect computed once)."""
    if mechs[r, F.X_TRIGGER] == F.STATIC_TRIGGER:
        a, mul, mul2 = _static(s, cards, buf, fw, mechs[r, F.X_ID], mechs[r, F.X_AMOUNT], mechs[r, F.X_LIFE],
                               mechs[r, F.X_KIND], mechs[r, F.X_CARD], ctx, ctx2, owner, src, card, mult_only)
        return a, mul, a, mul2
    ef = mechs[r, F.X_ID]
    if ef == F.EF_ENCHANTMENT_SUMMON:  # its own evaluate: no trigger factor
        v = 0.0
        if not mult_only:
            v = _token(buf, fw, mechs[r, F.X_CARD]) * min(mechs[r, F.X_AMOUNT], space(s, owner))
        return v, 1.0, v, 1.0
    tr = mechs[r, F.X_TRIGGER]
    if tr == F.TR_AFFINITY:
        factor = factor2 = 0.0 if src >= 0 and st_get(s, src, F.ST_AFFINITY) != 0 else AFFINITY
    else:
        factor, factor2 = FACTOR[tr, ctx], FACTOR[tr, ctx2]
    v = 0.0
    if not mult_only and (factor != 0 or factor2 != 0):
        v = _effect(s, cards, mechs, buf, fw, r, owner, src, card)
    return (v if factor != 0 else 0.0, factor if factor != 0 else 1.0,
            v if factor2 != 0 else 0.0, factor2 if factor2 != 0 else 1.0)


@njit(**_LEAN)
def _static(s, cards, buf, fw, bit, amount, life_bonus, kind, token, ctx, ctx2, owner, src, card, mult_only):
    """(addend, multiplier in ctx, multiplier in ctx2) of static ability ``bit`` with its row's numbers (a granted
    one: the defaults)."""
    if bit == F.AB_RUSH:
        return 0.0, (RUSH_IN_PLAY if ctx == PLAY else 1.0), (RUSH_IN_PLAY if ctx2 == PLAY else 1.0)
    if bit == F.AB_SHIELDED:
        live = src == NO_SOURCE or (src >= 0 and st_get(s, src, F.ST_SHIELD) != 0)
        return 0.0, (SHIELDED_LIVE if live else 1.0), (SHIELDED_LIVE if live else 1.0)
    if mult_only:
        return 0.0, MULT[bit, ctx], MULT[bit, ctx2]
    if bit == F.AB_DAMAGE_ON_BLOCK:
        return DAMAGE_ON_BLOCK * amount, 1.0, 1.0
    if bit == F.AB_DISCHARGE:
        return -float(amount), 1.0, 1.0
    power = s[at(src) + F.M_POWER] if src >= 0 else cards[card, F.C_POWER]
    if bit == F.AB_PREVENT_ALL_DAMAGE:
        return PREVENT_ALL_DAMAGE * power, 1.0, 1.0
    if bit == F.AB_FORCE_FIELD:
        return float(power), 1.0, 1.0
    if bit == F.AB_DEATH_COUNTER:
        return DEATH_COUNTER * power, 1.0, 1.0
    if bit == F.AB_SUMMON_UNIT_ON_DAMAGE:
        return _token(buf, fw, token), 1.0, 1.0
    if _is_lordship(bit):
        return float(lordship(s, cards, bit, kind, amount, life_bonus, owner, src)), 1.0, 1.0
    return ADDEND[bit], MULT[bit, ctx], MULT[bit, ctx2]


@njit(**_LEAN)
def _is_lordship(bit):
    for b in F.LORDSHIPS:
        if bit == b:
            return True
    return False


@njit(**_LEAN)
def lordship(s, cards, rule, kind, amount, life_bonus, owner, lord):
    """``Evaluator.lordship``: the units lordship ``rule`` (of unit type ``kind``) rules now, times its bonus; the
    lord is a permanent, or (in hand, the fake) none: every other unit counts."""
    lo = s[at(lord) + F.M_OWNER] if lord >= 0 else owner
    n = 0
    for p in range(2):
        for i in range(board_len(s, p)):
            n += rules_unit(s, cards, rule, kind, lo, lord, p, board_at(s, p, i))
    return n * (amount + life_bonus)


@njit(**_LEAN)
def space(s, owner):
    return BOARD_SLOTS - board_len(s, owner)


@njit(**_LEAN)
def _effect(s, cards, mechs, buf, fw, r, owner, src, card):
    """``Evaluator.effect``: a triggered mechanic's value before its trigger factor."""
    ef = mechs[r, F.X_ID]
    amount = mechs[r, F.X_AMOUNT]
    b = pb(owner)
    if ef == F.EF_DRAW:
        return DRAW_CARD * amount
    if ef == F.EF_DISCARD:
        return DISCARD * amount
    if ef == F.EF_AUGUR:
        return AUGUR
    if ef == F.EF_GAIN_LIFE:
        return GAIN_LIFE * amount
    if ef == F.EF_GAIN_RESOURCE:
        return GAIN_ENERGY * mechs[r, F.X_ENERGY]
    if ef == F.EF_SUMMON:
        return _token(buf, fw, mechs[r, F.X_CARD]) * min(amount, space(s, owner))
    if ef == F.EF_SUMMON_FOR_GRAVE:
        n = 0
        for p in range(2):
            for i in range(s[pb(p) + F.P_NCRYPT]):
                n += cards[s[pb(p) + F.P_CRYPT + i], F.C_TYPE] == F.UNIT
        return _token(buf, fw, mechs[r, F.X_CARD]) * min(n // amount, space(s, owner))
    if ef == F.EF_RETURN_FROM_CRYPT:
        n = 0
        for i in range(s[b + F.P_NCRYPT]):
            n += cards[s[b + F.P_CRYPT + i], F.C_TYPE] == mechs[r, F.X_KIND]
        return RETURN_FROM_CRYPT if n > 1 else 0.0
    if ef == F.EF_ABOMINATION:
        if src != NO_SOURCE:
            return 0.0
        n = first = second = 0  # the two highest stats of the unit cards in the crypt
        for i in range(s[b + F.P_NCRYPT]):
            c = s[b + F.P_CRYPT + i]
            if cards[c, F.C_TYPE] == F.UNIT:
                v = cards[c, F.C_DAMAGE] + cards[c, F.C_LIFE]
                if n == 0 or v > first:
                    first, second = v, first
                elif n == 1 or v > second:
                    second = v
                n += 1
        return float(first + second)
    if ef == F.EF_WIN_IF_HIGH_LIFE:
        return math.inf if s[b + F.P_LIFE] >= amount else 0.0
    if IS_TARGET_VALUE[ef]:
        n = _area(s, cards, mechs, buf, r, owner, src, card)
        total = 0.0
        for k in range(n):
            total += target_value(s, cards, mechs, buf, fw, r, owner, buf[AREA + k], card)
        return total
    return 0.0


@njit(**_LEAN)
def _area(s, cards, mechs, buf, r, owner, src, card):
    """``Evaluator.area_targets`` of row r into ``buf[AREA:]``; returns their number. A row without a targeter of
    its own takes its card's, or its source's card's (an item's mechanics: the host's)."""
    if mechs[r, F.X_HAS_TARGETER] == 1:
        tg, tl, tt = mechs[r, F.X_TARGETER], mechs[r, F.X_TG_LIFE], mechs[r, F.X_TG_UNIT_TYPE]
    else:
        c = card if src < 0 else s[at(src) + F.M_CARD]
        tg, tl, tt = cards[c, F.C_TARGETER], cards[c, F.C_TG_LIFE], cards[c, F.C_TG_UNIT_TYPE]
    if not F.TARGETER_AUTOMATIC[tg] or tg == F.TG_TRIGGERING_UNIT or tg == F.TG_UNITS_OF_TYPE_AS_TARGET:
        return 0
    if tg == F.TG_SELF_TARGET:
        if src >= 0:
            buf[AREA] = src
            return 1 if is_unit(s, cards, src) else 0
        buf[AREA] = FAKE
        return 1 if src == FAKE or cards[card, F.C_TYPE] == F.UNIT else 0
    return automatic(s, cards, owner, src if src >= 0 else -1, tg, tl, tt, -1, -1, buf, AREA) - AREA


# ---- target values ---------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def target_value(s, cards, mechs, buf, fw, r, owner, t, card):
    """``Evaluator.target_value`` (``evaluation.TARGET_VALUES``) of row r on target t (``card``: the fake's)."""
    ef = mechs[r, F.X_ID]
    if t >= 0:
        t_owner = s[at(t) + F.M_OWNER]
    else:
        t_owner = owner if t == FAKE else -1 - t
    sign = 1.0 if t_owner != owner else -1.0
    player = t < 0 and t != FAKE
    if ef == F.EF_DEAL or ef == F.EF_DAMAGE_SPAWN or ef == F.EF_BITE or ef == F.EF_DEAL_RESOURCE:
        if ef == F.EF_BITE:
            a = strongest_attack(s, cards, owner)
        elif ef == F.EF_DEAL_RESOURCE:
            a = s[pb(owner) + F.P_RES + mechs[r, F.X_KIND]]
        else:
            a = mechs[r, F.X_AMOUNT]
        if player:
            return E.PLAYER_VALUE * sign if s[pb(t_owner) + F.P_LIFE] < a else 0.0
        t_life = cards[card, F.C_LIFE] if t == FAKE else life(s, t)
        return _unit_of(buf, fw, t, LETHAL) * sign if t_life < a else 0.0
    if player:
        return 0.0
    c = card if t == FAKE else s[at(t) + F.M_CARD]
    unit = cards[c, F.C_TYPE] == F.UNIT
    if ef == F.EF_KILL or ef == F.EF_ANNIHILATE:
        if not unit:
            return REMOVED_ENCHANTMENT * cards[c, F.C_ENERGY]
        if ef == F.EF_KILL:
            return 1.0 * _unit_of(buf, fw, t, LETHAL) * sign
        return ANNIHILATE * _unit_of(buf, fw, t, NONLETHAL) * sign
    power = cards[c, F.C_POWER] if t == FAKE else s[at(t) + F.M_POWER]
    if ef == F.EF_DRAIN_POWER:
        if unit or power <= 0:
            return 0.0
        return sign * min(mechs[r, F.X_AMOUNT] / power, 1.0) * cards[c, F.C_ENERGY] * DRAIN
    if not unit:
        return 0.0
    if ef == F.EF_BUFF:
        return (mechs[r, F.X_AMOUNT] + mechs[r, F.X_LIFE]) * BUFF * -sign
    if ef == F.EF_GRANT:
        return GRANT * -sign
    if ef == F.EF_REFRESH:
        exhausted = 0 if t == FAKE else s[at(t) + F.M_EXHAUSTED]
        return REFRESH * exhausted * -sign
    if ef == F.EF_DRAW_FROM_UNIT:
        if t == FAKE:
            stats = cards[c, F.C_LIFE] + max(0, cards[c, F.C_DAMAGE])
        else:
            stats = full_life(s, t) + attack(s, t)
        return DRAW_FROM_UNIT * (stats // mechs[r, F.X_AMOUNT])
    kw = cards[c, F.C_ABILITIES] if t == FAKE else abilities(s, cards, t)
    if ef == F.EF_POISON:
        if (kw >> F.AB_POISON_IMMUNE) & 1 or (kw >> F.AB_ROBOTIC) & 1:
            return 0.0
        return POISON * _unit_of(buf, fw, t, NONLETHAL) * sign
    if ef == F.EF_CURE:
        poisoned = t != FAKE and st_get(s, t, F.ST_POISON) != 0
        return -sign * (0.0 if poisoned else CURE_UNPOISONED) * _unit_of(buf, fw, t, NONLETHAL)
    if ef == F.EF_SLEEP:
        return SLEEP * _unit_of(buf, fw, t, NONLETHAL) * sign
    if ef == F.EF_WEB:
        return sign * (WEB_FLYING if (kw >> F.AB_FLYING) & 1 else WEB) * _unit_of(buf, fw, t, NONLETHAL)
    if ef == F.EF_IMPRISON:
        return IMPRISON * _unit_of(buf, fw, t, NONLETHAL) * sign
    if ef == F.EF_MIND_CONTROL:
        return MIND_CONTROL * _unit_of(buf, fw, t, NONLETHAL) * sign
    if ef == F.EF_SHUFFLE_INTO_DECK:
        return _unit_of(buf, fw, t, NONLETHAL) * sign
    return 0.0


# ---- the public values (after ``prepare``) ---------------------------------------------------------------------------
@njit(**_LEAN)
def unit_value(s, cards, mechs, m, ctx, buf):
    """``Evaluator.unit`` of permanent m."""
    fw = floats(buf)
    if ctx == PLAY:
        return _unit(s, cards, mechs, buf, fw, m, ctx, ctx)[0]
    return fw[FV + 2 * m + ctx - LETHAL]


@njit(**_LEAN)
def card_value(s, cards, mechs, card, ctx, owner, bonus_d, bonus_l, buf):
    """``Evaluator.card``: ``card`` in ``owner``'s hand with a hand bonus."""
    return _card(s, cards, mechs, buf, floats(buf), card, ctx, owner, bonus_d, bonus_l)


@njit(**_LEAN)
def card_target_value(s, cards, mechs, card, owner, t, buf):
    """``Evaluator.card_target_value``: every target-valued mechanic of ``card`` on permanent t."""
    fw = floats(buf)
    total = 0.0
    for r in range(cards[card, F.C_MECH_START], cards[card, F.C_MECH_START] + cards[card, F.C_MECH_COUNT]):
        if mechs[r, F.X_TRIGGER] != F.STATIC_TRIGGER and IS_TARGET_VALUE[mechs[r, F.X_ID]]:
            total += target_value(s, cards, mechs, buf, fw, r, owner, t, card)
    return total


@njit(**_LEAN)
def multiplier(s, cards, mechs, m, buf):
    """The product of unit m's multipliers in NONLETHAL (``default_policy._multiplier``: an item's host)."""
    return _mechanics(s, cards, mechs, buf, floats(buf), NONLETHAL, NONLETHAL, s[at(m) + F.M_OWNER], m, -1, 0.0,
                      True)[0]


@njit(**_LEAN)
def position_value(s, cards, mechs, player, scale, buf):
    """``evaluation.position_value``: tanh of the difference of both sides' permanents (NONLETHAL), life and hand
    in DefaultAI's points, / ``scale``, for ``player`` (prepares the table for ``player``)."""
    prepare(s, cards, mechs, player, buf)
    fw = floats(buf)
    mine = theirs = 0.0
    for p in range(2):
        b = pb(p)
        total = 0.0
        for i in range(board_len(s, p)):
            total += _perm(s, cards, mechs, buf, fw, board_at(s, p, i), NONLETHAL)
        score = total + LIFE_POINT * max(s[b + F.P_LIFE], 0) + HAND_CARD * s[b + F.P_NHAND]
        if p == player:
            mine = score
        else:
            theirs = score
    diff = mine - theirs
    if math.isnan(diff):
        return 0.0
    return math.tanh(diff / scale)

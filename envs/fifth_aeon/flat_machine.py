"""Compiled Fifth Aeon, what sets triggers off: entering play, triggered mechanics, deaths, combat and the turn.

The object engine resolves these by plain recursion (``enter`` fires Play effects that summon units that enter
...). numba may neither recurse nor cache recursive code, so each of those functions is an *op* here: a frame on an
explicit stack (in the scratch buffer, from ``STACK``) holding the function's arguments, the loop variables it needs
across calls and a snapshot list (what the object engine iterates: ``list(m.board[p])``, a unit's mechanics, the
dying units). An op runs until it calls another (``push``; it resumes at its ``pc`` once the callee has popped) or
returns (``pop``). The order of every step, every ``m.winner`` check and every re-check that a unit is still on the
board is the object engine's, statement for statement, so both engines reach the same state (tested field by field,
``tests/test_flat_rules.py``).
"""
from __future__ import annotations

from numba import njit

from . import flat_layout as F
from .constants import BOARD_SLOTS, MAX_TURNS
from .flat_rules import (
    abilities, activate, all_perms, ask, at, attack, automatic, board_append, board_at, board_len, buff, crypt_append,
    crypt_take, deal_damage, draw, end, find, has_trigger, init_status, is_unit, life, list_append, mech_rows,
    mechanical, new_perm, on_board, on_leave, pb, poison, refresh, remove_perm, st_get, st_has, st_pop, st_set,
    strongest_attack, to_bottom, unit_type, update_auras,
)

_LEAN = dict(cache=True, nogil=True, _nrt=False)

# ---- the stack (in the int32 scratch buffer, after the legal ids and a scratch area) ------------------------------
SCRATCH = 256  # buf[SCRATCH:STACK]: short-lived lists (candidates, hosts)
STACK = 512  # buf[STACK]: the number of frames; frames follow
FR_OP, FR_PC = 0, 1
FR_A = 2  # 8 arguments / loop variables
FR_N = FR_A + 8  # the snapshot list's length
FR_LIST = FR_N + 1
LIST_LEN = 32
FRAME = FR_LIST + LIST_LEN
MAX_FRAMES = 96
BUFFER_LEN = STACK + 1 + MAX_FRAMES * FRAME

(OP_ENTER, OP_FIRE, OP_RUN, OP_DEAL, OP_DEATHS, OP_DIE, OP_SOUL_REAP, OP_SUMMON, OP_RETURNS, OP_START_TURN,
 OP_END_EFFECTS, OP_BEGIN_TURN, OP_END_TURN, OP_SETTLE, OP_COMBAT, OP_FINISH_PLAY, OP_AFTER_CHOICE) = range(17)
DONE = 1 << 20  # a pc: the op pops as soon as it is resumed (its last statement was a call)


@njit(**_LEAN)
def push(s, buf, op, a0, a1, a2, a3, a4, a5):
    sp = buf[STACK]
    if sp >= MAX_FRAMES:
        s[F.G_OVERFLOW] = F.OV_STACK
        return
    f = STACK + 1 + sp * FRAME
    buf[f + FR_OP] = op
    buf[f + FR_PC] = 0
    buf[f + FR_A] = a0
    buf[f + FR_A + 1] = a1
    buf[f + FR_A + 2] = a2
    buf[f + FR_A + 3] = a3
    buf[f + FR_A + 4] = a4
    buf[f + FR_A + 5] = a5
    buf[f + FR_A + 6] = 0
    buf[f + FR_A + 7] = 0
    buf[f + FR_N] = 0
    buf[STACK] = sp + 1


@njit(**_LEAN)
def pop(buf):
    buf[STACK] -= 1


@njit(**_LEAN)
def call(s, buf, f, pc, op, a0, a1, a2, a3, a4, a5):
    """Resume the frame at f at ``pc`` once ``op`` (pushed now) has returned."""
    buf[f + FR_PC] = pc
    push(s, buf, op, a0, a1, a2, a3, a4, a5)


@njit(**_LEAN)
def fire(s, cards, buf, f, pc, u, trigger, chosen, trigger_unit):
    """``call`` of ``OP_FIRE`` (``fire_own(u, trigger, chosen, trigger_unit)``), skipped when u (its card and items)
    has no mechanic with ``trigger``: ``fire_own`` would then do nothing."""
    if has_trigger(s, cards, u, trigger):
        call(s, buf, f, pc, OP_FIRE, u, trigger, chosen, trigger_unit, 0, 0)
    else:
        buf[f + FR_PC] = pc


@njit(**_LEAN)
def resolve(s, cards, mechs, buf):
    """Run the stack to empty (or to a layout overflow, which leaves the state invalid)."""
    while buf[STACK] > 0 and s[F.G_OVERFLOW] == 0:
        f = STACK + 1 + (buf[STACK] - 1) * FRAME
        op = buf[f + FR_OP]
        if buf[f + FR_PC] == DONE:
            pop(buf)
        elif op == OP_ENTER:
            _enter(s, cards, mechs, buf, f)
        elif op == OP_FIRE:
            _fire(s, cards, mechs, buf, f)
        elif op == OP_RUN:
            _run(s, cards, mechs, buf, f)
        elif op == OP_DEAL:
            _deal(s, cards, mechs, buf, f)
        elif op == OP_DEATHS:
            _deaths(s, cards, mechs, buf, f)
        elif op == OP_DIE:
            _die(s, cards, mechs, buf, f)
        elif op == OP_SOUL_REAP:
            _soul_reap(s, cards, mechs, buf, f)
        elif op == OP_SUMMON:
            _summon(s, cards, mechs, buf, f)
        elif op == OP_RETURNS:
            _returns(s, cards, mechs, buf, f)
        elif op == OP_START_TURN:
            _start_turn(s, cards, mechs, buf, f)
        elif op == OP_END_EFFECTS:
            _end_effects(s, cards, mechs, buf, f)
        elif op == OP_BEGIN_TURN:
            _begin_turn(s, cards, mechs, buf, f)
        elif op == OP_END_TURN:
            _end_turn(s, cards, mechs, buf, f)
        elif op == OP_SETTLE:
            _settle(s, cards, mechs, buf, f)
        elif op == OP_COMBAT:
            _combat(s, cards, mechs, buf, f)
        elif op == OP_FINISH_PLAY:
            _finish_play(s, cards, mechs, buf, f)
        else:
            _after_choice(s, cards, mechs, buf, f)


# ---- entering play and triggers ------------------------------------------------------------------------------------
@njit(**_LEAN)
def _enter(s, cards, mechs, buf, f):
    """``effects.enter(m, u, chosen, play_effects)``: a0 u, a1 chosen, a2 play_effects, a3 the loop index."""
    u = buf[f + FR_A]
    pc = buf[f + FR_PC]
    if pc == 0:
        if buf[f + FR_A + 2] == 1:
            fire(s, cards, buf, f, 1, u, F.TR_PLAY, buf[f + FR_A + 1], -1)
            return
        pc = 2
    if pc == 1:
        if s[F.G_WINNER] >= 0:
            pop(buf)
            return
        pc = 2
    if pc == 2:
        p = s[at(u) + F.M_OWNER]
        if board_len(s, p) >= BOARD_SLOTS:
            crypt_append(s, p, s[at(u) + F.M_CARD])
            if is_unit(s, cards, u):
                call(s, buf, f, 3, OP_SOUL_REAP, u, 0, 0, 0, 0, 0)
                return
            pc = 3
        else:
            board_append(s, p, u)
            init_status(s, cards, u)
            if (abilities(s, cards, u) >> F.AB_RUSH) & 1:
                refresh(s, u)
            update_auras(s, cards, mechs)
            if not is_unit(s, cards, u):
                call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)
                return
            n = 0
            for i in range(board_len(s, p)):
                buf[f + FR_LIST + n] = board_at(s, p, i)
                n += 1
            buf[f + FR_N] = n
            buf[f + FR_A + 3] = 0
            pc = 4
    if pc == 3:
        call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    # the enters-play triggers of every friendly permanent (pc 4: next one, 5: its second trigger, 6: Affinity)
    i = buf[f + FR_A + 3]
    while pc == 4:
        if i >= buf[f + FR_N]:
            call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        other = buf[f + FR_LIST + i]
        if not on_board(s, other) or s[F.G_WINNER] >= 0:
            i += 1
            buf[f + FR_A + 3] = i
            continue
        fire(s, cards, buf, f, 5, other, F.TR_FRIENDLY_ENTERS, -1, u)
        return
    other = buf[f + FR_LIST + i]
    if pc == 5:
        trig = F.TR_FRIENDLY_MECH_ENTERS if mechanical(s, cards, u) else F.TR_FRIENDLY_BIO_ENTERS
        fire(s, cards, buf, f, 6, other, trig, -1, u)
        return
    buf[f + FR_A + 3] = i + 1
    if (pc == 6 and other != u and is_unit(s, cards, other) and unit_type(s, cards, u) != 0
            and unit_type(s, cards, other) == unit_type(s, cards, u) and st_get(s, other, F.ST_AFFINITY) == 0
            and has_trigger(s, cards, other, F.TR_AFFINITY)):
        st_set(s, other, F.ST_AFFINITY, 1)
        fire(s, cards, buf, f, 4, other, F.TR_AFFINITY, -1, u)
        return
    buf[f + FR_PC] = 4


@njit(**_LEAN)
def _fire(s, cards, mechs, buf, f):
    """``effects.fire_own(m, u, trigger, chosen, trigger_unit)``: a0 u, a1 trigger, a2 chosen, a3 trigger unit,
    a4 the index into the snapshot of u's mechanic rows (an item's Play rows are not its host's)."""
    u = buf[f + FR_A]
    trigger = buf[f + FR_A + 1]
    if buf[f + FR_PC] == 0:
        card = s[at(u) + F.M_CARD]
        n = mech_rows(s, cards, mechs, u, trigger, -1, buf, f + FR_LIST) - f - FR_LIST
        if trigger == F.TR_PLAY:  # an item's Play rows run when it is attached, not with its host's: keep the
            n = 0  # card's own, which come first
            for r in range(cards[card, F.C_MECH_START], cards[card, F.C_MECH_START] + cards[card, F.C_MECH_COUNT]):
                n += mechs[r, F.X_TRIGGER] == F.TR_PLAY
        buf[f + FR_N] = n
        buf[f + FR_PC] = 1
    while True:
        i = buf[f + FR_A + 4]
        if i >= buf[f + FR_N]:
            pop(buf)
            return
        buf[f + FR_A + 4] = i + 1
        if s[F.G_WINNER] < 0:
            call(s, buf, f, 1, OP_RUN, buf[f + FR_LIST + i], s[at(u) + F.M_OWNER], u, s[at(u) + F.M_CARD],
                 buf[f + FR_A + 2], buf[f + FR_A + 3])
            return


@njit(**_LEAN)
def _targets(s, cards, mechs, buf, f):
    """``targeters.resolve`` for the firing in frame f, into its list."""
    row = buf[f + FR_A]
    o = buf[f + FR_A + 1]
    card = buf[f + FR_A + 3]
    chosen = buf[f + FR_A + 4]
    if mechs[row, F.X_HAS_TARGETER] == 1:
        tg, tg_life, tg_type = mechs[row, F.X_TARGETER], mechs[row, F.X_TG_LIFE], mechs[row, F.X_TG_UNIT_TYPE]
    else:
        tg, tg_life, tg_type = cards[card, F.C_TARGETER], cards[card, F.C_TG_LIFE], cards[card, F.C_TG_UNIT_TYPE]
    start = f + FR_LIST
    if F.TARGETER_AUTOMATIC[tg]:
        n = automatic(s, cards, o, buf[f + FR_A + 2], tg, tg_life, tg_type, buf[f + FR_A + 5], chosen, buf,
                      start) - start
    elif chosen >= 0 and on_board(s, chosen):
        buf[start] = chosen
        n = 1
    else:
        n = 0
    buf[f + FR_N] = n


@njit(**_LEAN)
def _keep_units(s, cards, buf, f):
    """``effects._units``: keep the targets that are units still on the board."""
    n = 0
    for i in range(buf[f + FR_N]):
        t = buf[f + FR_LIST + i]
        if t >= 0 and is_unit(s, cards, t) and on_board(s, t):
            buf[f + FR_LIST + n] = t
            n += 1
    buf[f + FR_N] = n


@njit(**_LEAN)
def _run(s, cards, mechs, buf, f):
    """``effects.run``: a0 the mechanic row, a1 owner, a2 source, a3 card, a4 chosen, a5 trigger unit; a6 a loop
    index, a7 a unit being summoned. pc 0 resolves the targets and does the effect; an effect that sets things
    off goes on at pc >= 1."""
    row = buf[f + FR_A]
    o = buf[f + FR_A + 1]
    source = buf[f + FR_A + 2]
    effect = mechs[row, F.X_ID]
    amount = mechs[row, F.X_AMOUNT]
    pc = buf[f + FR_PC]
    if pc == 0:
        _targets(s, cards, mechs, buf, f)
        if (effect == F.EF_DAMAGE_SPAWN or effect == F.EF_MIND_CONTROL or effect == F.EF_DEAL_RESOURCE
                or effect == F.EF_BITE or effect == F.EF_BUFF or effect == F.EF_GRANT or effect == F.EF_KILL
                or effect == F.EF_SHUFFLE_INTO_DECK or effect == F.EF_REFRESH or effect == F.EF_CURE
                or effect == F.EF_POISON or effect == F.EF_SLEEP or effect == F.EF_WEB or effect == F.EF_IMPRISON
                or effect == F.EF_DRAW_FROM_UNIT):
            _keep_units(s, cards, buf, f)
        if _leaf_effect(s, cards, mechs, buf, f, effect, row, o, source, amount):
            call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        if effect == F.EF_SUMMON:
            call(s, buf, f, DONE, OP_SUMMON, o, mechs[row, F.X_CARD], amount, 0, 0, 0)
            return
        if effect == F.EF_SUMMON_FOR_GRAVE:
            units = 0
            for p in range(2):
                for i in range(s[pb(p) + F.P_NCRYPT]):
                    if cards[s[pb(p) + F.P_CRYPT + i], F.C_TYPE] == F.UNIT:
                        units += 1
            call(s, buf, f, DONE, OP_SUMMON, o, mechs[row, F.X_CARD], units // amount, 0, 0, 0)
            return
        if effect != F.EF_DEAL and effect != F.EF_DAMAGE_SPAWN and effect != F.EF_ENCHANTMENT_SUMMON and (
                effect != F.EF_MIND_CONTROL):
            pop(buf)
            return
        pc = 1
        buf[f + FR_PC] = 1
    i = buf[f + FR_A + 6]
    if effect == F.EF_DEAL:  # pc 1: the next target, 2: its deaths
        if pc == 2:
            call(s, buf, f, 1, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        while i < buf[f + FR_N]:
            t = buf[f + FR_LIST + i]
            i += 1
            buf[f + FR_A + 6] = i
            if t < 0 or (is_unit(s, cards, t) and on_board(s, t)):
                src = source if source >= 0 and is_unit(s, cards, source) else -1
                call(s, buf, f, 2, OP_DEAL, src, t, amount, 0, 0, 0)
                return
        pop(buf)
    elif effect == F.EF_DAMAGE_SPAWN:  # pc 1: the next target, 2: after its deaths
        if pc == 2:
            t = buf[f + FR_LIST + i - 1]
            if not on_board(s, t):
                call(s, buf, f, 1, OP_SUMMON, o, mechs[row, F.X_CARD], 1, 0, 0, 0)
                return
        if i >= buf[f + FR_N]:
            pop(buf)
            return
        t = buf[f + FR_LIST + i]
        buf[f + FR_A + 6] = i + 1
        deal_damage(s, cards, mechs, -1, t, amount, True)
        call(s, buf, f, 2, OP_DEATHS, 0, 0, 0, 0, 0, 0)
    elif effect == F.EF_ENCHANTMENT_SUMMON:  # pc 1: the next unit, 2: it has entered; list[0]: the power
        if i == 0 and pc == 1:
            buf[f + FR_LIST] = s[at(source) + F.M_POWER] if source >= 0 else 1
        if pc == 2:
            u = buf[f + FR_A + 7]
            if on_board(s, u):
                s[at(u) + F.M_DMG] = buf[f + FR_LIST]
                s[at(u) + F.M_MAX_LIFE] = buf[f + FR_LIST]
                call(s, buf, f, 1, OP_DEATHS, 0, 0, 0, 0, 0, 0)
                return
        if i >= amount:
            pop(buf)
            return
        buf[f + FR_A + 6] = i + 1
        u = new_perm(s, cards, mechs[row, F.X_CARD], o, 0, 0)
        buf[f + FR_A + 7] = u
        call(s, buf, f, 2, OP_ENTER, u, -1, 1, 0, 0, 0)
    else:  # MindControl: the next target changes sides; then the deaths
        if i >= buf[f + FR_N]:
            call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        t = buf[f + FR_LIST + i]
        buf[f + FR_A + 6] = i + 1
        remove_perm(s, cards, mechs, t)
        on_leave(s, t)
        b = at(t)
        s[b + F.M_OWNER] = o
        s[b + F.M_ATTACKING] = 0
        s[b + F.M_BLOCKING] = -1
        s[b + F.M_READY] = 0
        s[b + F.M_EXHAUSTED] = 0
        call(s, buf, f, 1, OP_ENTER, t, -1, 0, 0, 0, 0)


@njit(**_LEAN)
def _leaf_effect(s, cards, mechs, buf, f, effect, row, o, source, amount):
    """The effects that set nothing off (``effects.EFFECTS``), over the targets in frame f's list; True when the
    object engine then processes deaths."""
    n = buf[f + FR_N]
    ob = pb(o)
    if effect == F.EF_DEAL_RESOURCE or effect == F.EF_BITE:
        dealt = strongest_attack(s, cards, o) if effect == F.EF_BITE else s[ob + F.P_RES + mechs[row, F.X_KIND]]
        for i in range(n):
            deal_damage(s, cards, mechs, -1, buf[f + FR_LIST + i], dealt, False)
        return True
    if effect == F.EF_BUFF:
        for i in range(n):
            buff(s, buf[f + FR_LIST + i], amount, mechs[row, F.X_LIFE])
        return True
    if effect == F.EF_GRANT:
        ability = mechs[row, F.X_KIND]
        for i in range(n):
            t = buf[f + FR_LIST + i]
            if ability == F.AB_SHIELDED:
                st_set(s, t, F.ST_SHIELD, 1)
            if (abilities(s, cards, t) >> ability) & 1:
                continue
            if (s[at(t) + F.M_LOST] >> ability) & 1:
                s[at(t) + F.M_LOST] &= ~(1 << ability)
            else:
                s[at(t) + F.M_GRANTED] |= 1 << ability
            if ability == F.AB_DEATHLESS:
                st_set(s, t, F.ST_DEATHLESS, max(st_get(s, t, F.ST_DEATHLESS), 1))
        update_auras(s, cards, mechs)
        return True
    if effect == F.EF_KILL:
        for i in range(n):
            st_set(s, buf[f + FR_LIST + i], F.ST_DEAD, 1)
        return True
    if effect == F.EF_ANNIHILATE:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            if t >= 0 and on_board(s, t):
                remove_perm(s, cards, mechs, t)
                on_leave(s, t)
        return True
    if effect == F.EF_SHUFFLE_INTO_DECK:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            remove_perm(s, cards, mechs, t)
            on_leave(s, t)
            to_bottom(s, s[at(t) + F.M_OWNER], s[at(t) + F.M_CARD], F.PUBLIC)
        return True
    if effect == F.EF_DRAIN_POWER:
        drained = 0
        for i in range(n):
            e = buf[f + FR_LIST + i]
            if e >= 0 and not is_unit(s, cards, e):
                power = s[at(e) + F.M_POWER]
                drained += max(0, power) - max(0, power - amount)
                s[at(e) + F.M_POWER] = power - amount
        if source >= 0 and is_unit(s, cards, source):
            buff(s, source, drained, drained)
        return True
    if effect == F.EF_DRAW:
        draw(s, cards, mechs, o, amount)
    elif effect == F.EF_PEEK:
        foe = pb(1 - o)
        for i in range(s[foe + F.P_NHAND]):
            s[foe + F.P_HAND + i * F.HF + F.H_KNOWN] = 1
    elif effect == F.EF_DISCARD:
        ask(s, cards, mechs, 1 - o, F.CK_DISCARD, F.CS_HAND, amount, amount, 0)
    elif effect == F.EF_AUGUR:
        synth = s[ob + F.P_RES]
        if synth < 4:
            ask(s, cards, mechs, o, F.CK_REPLACE, F.CS_HAND, 0, 1, 0)
        elif synth < 8:
            draw(s, cards, mechs, o, 1)
        else:
            ask(s, cards, mechs, o, F.CK_SEARCH, F.CS_DECK, 0, 1, 0)
    elif effect == F.EF_GAIN_LIFE:
        s[ob + F.P_LIFE] += amount
    elif effect == F.EF_GAIN_RESOURCE:
        gained = mechs[row, F.X_ENERGY]
        s[ob + F.P_ENERGY] += gained
        s[ob + F.P_MAX_ENERGY] += gained
        for r in range(4):
            s[ob + F.P_RES + r] += mechs[row, F.X_RES + r]
    elif effect == F.EF_REFRESH:
        for i in range(n):
            refresh(s, buf[f + FR_LIST + i])
    elif effect == F.EF_CURE:
        for i in range(n):
            st_pop(s, buf[f + FR_LIST + i], F.ST_POISON)
    elif effect == F.EF_POISON:
        for i in range(n):
            poison(s, cards, buf[f + FR_LIST + i])
    elif effect == F.EF_SLEEP:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            if (abilities(s, cards, t) >> F.AB_ROBOTIC) & 1:
                continue
            s[at(t) + F.M_EXHAUSTED] = 1
            sleep = st_get(s, t, F.ST_SLEEP)
            st_set(s, t, F.ST_SLEEP, sleep + 1 if sleep != 0 else amount)
    elif effect == F.EF_WEB:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            s[at(t) + F.M_EXHAUSTED] = 1
            if (abilities(s, cards, t) >> F.AB_FLYING) & 1:
                s[at(t) + F.M_LOST] |= 1 << F.AB_FLYING
    elif effect == F.EF_ABOMINATION:
        if source >= 0:
            ask(s, cards, mechs, o, F.CK_CONSUME, F.CS_CRYPT + F.UNIT, 0, 2, s[at(source) + F.M_UID])
    elif effect == F.EF_RETURN_FROM_CRYPT:
        ask(s, cards, mechs, o, F.CK_UNBURY, F.CS_CRYPT + mechs[row, F.X_KIND], 0, 1, 0)
    elif effect == F.EF_IMPRISON:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            s[at(t) + F.M_IMPRISONED] += 1
            if source >= 0:
                st_set(s, source, F.ST_PRISONER, s[at(t) + F.M_UID])
    elif effect == F.EF_WIN_IF_HIGH_LIFE:
        if s[ob + F.P_LIFE] >= amount:
            end(s, o)
    elif effect == F.EF_DRAW_FROM_UNIT:
        for i in range(n):
            t = buf[f + FR_LIST + i]
            draw(s, cards, mechs, o, (attack(s, t) + s[at(t) + F.M_MAX_LIFE] + s[at(t) + F.M_AURA_L]) // amount)
    return False


@njit(**_LEAN)
def _deal(s, cards, mechs, buf, f):
    """``effects.deal_damage`` with its SummonUnitOnDamage: a0 src, a1 target, a2 amount, a3 direct; a4 the
    index into src's summoning rows."""
    src = buf[f + FR_A]
    if buf[f + FR_PC] == 0:
        target = buf[f + FR_A + 1]
        dealt = deal_damage(s, cards, mechs, src, target, buf[f + FR_A + 2], buf[f + FR_A + 3] == 1)
        n = 0
        if target < 0 and dealt > 0 and src >= 0 and buf[f + FR_A + 3] == 0:
            n = mech_rows(s, cards, mechs, src, F.STATIC_TRIGGER, F.AB_SUMMON_UNIT_ON_DAMAGE, buf,
                          f + FR_LIST) - f - FR_LIST
        buf[f + FR_N] = n
        buf[f + FR_PC] = 1
    i = buf[f + FR_A + 4]
    if i >= buf[f + FR_N]:
        pop(buf)
        return
    buf[f + FR_A + 4] = i + 1
    call(s, buf, f, 1, OP_SUMMON, s[at(src) + F.M_OWNER], mechs[buf[f + FR_LIST + i], F.X_CARD], 1, 0, 0, 0)


@njit(**_LEAN)
def _summon(s, cards, mechs, buf, f):
    """``effects.summon``: a0 owner, a1 card, a2 count, a3 how many so far."""
    k = buf[f + FR_A + 3]
    while k < buf[f + FR_A + 2]:
        k += 1
        buf[f + FR_A + 3] = k
        if s[F.G_WINNER] < 0:
            u = new_perm(s, cards, buf[f + FR_A + 1], buf[f + FR_A], 0, 0)
            call(s, buf, f, 1, OP_ENTER, u, -1, 1, 0, 0, 0)
            return
    pop(buf)


# ---- deaths --------------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _deaths(s, cards, mechs, buf, f):
    """``effects.process_deaths``: until the board is settled, the units at 0 life or marked dead die and the
    enchantments at 0 power are dispelled (a0: the index into the dying snapshot)."""
    while True:
        i = buf[f + FR_A]
        if buf[f + FR_PC] == 0 or i >= buf[f + FR_N]:
            if s[F.G_WINNER] >= 0:
                pop(buf)
                return
            n = 0
            t = s[F.G_TURN_PLAYER]
            for p in (t, 1 - t):
                for k in range(board_len(s, p)):
                    u = board_at(s, p, k)
                    if st_has(s, u, F.ST_DYING):
                        continue
                    if is_unit(s, cards, u):
                        dies = life(s, u) <= 0 or st_get(s, u, F.ST_DEAD) != 0
                    else:
                        dies = s[at(u) + F.M_POWER] <= 0
                    if dies:
                        buf[f + FR_LIST + n] = u
                        n += 1
            if n == 0:
                pop(buf)
                return
            buf[f + FR_N] = n
            buf[f + FR_A] = 0
            buf[f + FR_PC] = 1
            i = 0
        u = buf[f + FR_LIST + i]
        buf[f + FR_A] = i + 1
        if on_board(s, u) and s[F.G_WINNER] < 0:
            call(s, buf, f, 1, OP_DIE, u, s[at(u) + F.M_OWNER], 0, 0, 0, 0)
            return


@njit(**_LEAN)
def _die(s, cards, mechs, buf, f):
    """``effects.die``: a0 u, a1 its owner when it began to die."""
    u = buf[f + FR_A]
    pc = buf[f + FR_PC]
    unit = is_unit(s, cards, u)
    if pc == 0 and unit:
        st_set(s, u, F.ST_DYING, 1)
        fire(s, cards, buf, f, 1, u, F.TR_DEATH, -1, -1)
        return
    if pc == 1:
        st_pop(s, u, F.ST_DYING)
        if not on_board(s, u):
            pop(buf)
            return
    p = buf[f + FR_A + 1]
    remove_perm(s, cards, mechs, u)
    on_leave(s, u)
    crypt_append(s, p, s[at(u) + F.M_CARD])
    b = at(u)
    for k in range(s[b + F.M_NITEMS]):
        it = s[b + F.M_ITEMS + k]
        crypt_append(s, p, it)
        buff(s, u, -cards[it, F.C_DAMAGE], -cards[it, F.C_LIFE])
    s[b + F.M_NITEMS] = 0
    if not unit:
        pop(buf)
        return
    st_pop(s, u, F.ST_DEAD)
    immortal = (abilities(s, cards, u) >> F.AB_IMMORTAL) & 1 == 1
    if immortal or st_get(s, u, F.ST_DEATHLESS) > 0:
        if not immortal:
            left = st_get(s, u, F.ST_DEATHLESS) - 1
            st_set(s, u, F.ST_DEATHLESS, left)
            if left == 0:
                s[b + F.M_LOST] |= 1 << F.AB_DEATHLESS
        list_append(s, F.G_RETURNS, F.G_NRETURNS, F.MAX_RETURNS, F.OV_RETURNS, u)
    call(s, buf, f, DONE, OP_SOUL_REAP, u, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _soul_reap(s, cards, mechs, buf, f):
    """``effects.soul_reap``: SoulReap fires for every permanent on the board when it began (a0 the dead unit,
    a1 the index)."""
    if buf[f + FR_PC] == 0:
        buf[f + FR_N] = all_perms(s, buf, f + FR_LIST) - f - FR_LIST
        buf[f + FR_PC] = 1
    while buf[f + FR_A + 1] < buf[f + FR_N]:
        i = buf[f + FR_A + 1]
        buf[f + FR_A + 1] = i + 1
        if s[F.G_WINNER] < 0:
            fire(s, cards, buf, f, 1, buf[f + FR_LIST + i], F.TR_SOUL_REAP, -1, buf[f + FR_A])
            return
    pop(buf)


@njit(**_LEAN)
def _returns(s, cards, mechs, buf, f):
    """``effects.return_units``: the Deathless / Immortal units still in their owner's crypt are played again
    (a0 the index into the returns, taken at the start)."""
    if buf[f + FR_PC] == 0:
        n = s[F.G_NRETURNS]
        for k in range(n):
            buf[f + FR_LIST + k] = s[F.G_RETURNS + k]
        buf[f + FR_N] = n
        s[F.G_NRETURNS] = 0
        buf[f + FR_PC] = 1
    while buf[f + FR_A] < buf[f + FR_N]:
        i = buf[f + FR_A]
        buf[f + FR_A] = i + 1
        u = buf[f + FR_LIST + i]
        b = at(u)
        if s[F.G_WINNER] >= 0 or not crypt_take(s, s[b + F.M_OWNER], s[b + F.M_CARD]):
            continue
        s[b + F.M_HURT] = 0
        s[b + F.M_ATTACKING] = 0
        s[b + F.M_BLOCKING] = -1
        s[b + F.M_READY] = 0
        s[b + F.M_EXHAUSTED] = 0
        call(s, buf, f, 1, OP_ENTER, u, -1, 1, 0, 0, 0)
        return
    pop(buf)


# ---- the turn --------------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _start_turn(s, cards, mechs, buf, f):
    """``effects.start_of_turn(m, p)``: Dawn (p's permanents) and Cycle (every one), then p's Discharge, poison
    and sleep, then deaths. a0 p, a1 the index; pc 1: the next permanent, 2: its Cycle."""
    p = buf[f + FR_A]
    pc = buf[f + FR_PC]
    if pc == 0:
        buf[f + FR_N] = all_perms(s, buf, f + FR_LIST) - f - FR_LIST
        pc = 1
    while pc == 1:
        i = buf[f + FR_A + 1]
        if i >= buf[f + FR_N]:
            break
        u = buf[f + FR_LIST + i]
        if not on_board(s, u):
            buf[f + FR_A + 1] = i + 1
            continue
        if s[at(u) + F.M_OWNER] == p:
            fire(s, cards, buf, f, 2, u, F.TR_DAWN, -1, -1)
            return
        pc = 2
    if pc == 2:
        i = buf[f + FR_A + 1]
        buf[f + FR_A + 1] = i + 1
        fire(s, cards, buf, f, 1, buf[f + FR_LIST + i], F.TR_CYCLE, -1, -1)
        return
    for i in range(board_len(s, p)):
        u = board_at(s, p, i)
        b = at(u)
        kw = abilities(s, cards, u)
        if (kw >> F.AB_DISCHARGE) & 1:
            end_ = mech_rows(s, cards, mechs, u, F.STATIC_TRIGGER, F.AB_DISCHARGE, buf, f + FR_LIST)
            for k in range(f + FR_LIST, end_):
                s[b + F.M_POWER] -= mechs[buf[k], F.X_AMOUNT]
            if (s[b + F.M_GRANTED] >> F.AB_DISCHARGE) & 1:
                s[b + F.M_POWER] -= 1  # a granted Discharge has the default amount
        level = st_get(s, u, F.ST_POISON)
        if level != 0 and is_unit(s, cards, u):
            buff(s, u, -level, -level)
        if st_get(s, u, F.ST_SLEEP) > 0:
            s[b + F.M_EXHAUSTED] = 1
            st_set(s, u, F.ST_SLEEP, st_get(s, u, F.ST_SLEEP) - 1)
    call(s, buf, f, DONE, OP_DEATHS, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _end_effects(s, cards, mechs, buf, f):
    """``effects.end_of_turn(m, p)``: Dusk and Serenity (p's; Serenity only without an attack), Relentless
    refreshes, deaths, then the returns. a0 p, a1 the index; pc 1: the next permanent, 2: its Serenity,
    3: after the deaths."""
    p = buf[f + FR_A]
    pc = buf[f + FR_PC]
    if pc == 0:
        n = 0
        for i in range(board_len(s, p)):
            buf[f + FR_LIST + n] = board_at(s, p, i)
            n += 1
        buf[f + FR_N] = n
        pc = 1
    if pc == 2:
        i = buf[f + FR_A + 1]
        buf[f + FR_A + 1] = i + 1
        if s[F.G_ATTACKED] == 0:
            fire(s, cards, buf, f, 1, buf[f + FR_LIST + i], F.TR_SERENITY, -1, -1)
            return
        pc = 1
    if pc == 1:
        while buf[f + FR_A + 1] < buf[f + FR_N]:
            i = buf[f + FR_A + 1]
            u = buf[f + FR_LIST + i]
            if not on_board(s, u):
                buf[f + FR_A + 1] = i + 1
                continue
            fire(s, cards, buf, f, 2, u, F.TR_DUSK, -1, -1)
            return
        t = s[F.G_TURN_PLAYER]
        for q in (t, 1 - t):
            for i in range(board_len(s, q)):
                u = board_at(s, q, i)
                if is_unit(s, cards, u) and (abilities(s, cards, u) >> F.AB_RELENTLESS) & 1:
                    refresh(s, u)
        call(s, buf, f, 3, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    call(s, buf, f, DONE, OP_RETURNS, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _begin_turn(s, cards, mechs, buf, f):
    """``rules.begin_turn``: refresh, draw, reset the resource play and energy, then start-of-turn effects."""
    p = s[F.G_TURN_PLAYER]
    s[F.G_PHASE] = F.PLAY1
    s[F.G_ATTACKED] = 0
    for i in range(board_len(s, p)):
        refresh(s, board_at(s, p, i))
    draw(s, cards, mechs, p, 1)
    s[pb(p) + F.P_PLAYED_RESOURCE] = 0
    s[pb(p) + F.P_ENERGY] = s[pb(p) + F.P_MAX_ENERGY]
    call(s, buf, f, DONE, OP_START_TURN, p, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _end_turn(s, cards, mechs, buf, f):
    """``rules.end_turn``: end-of-turn effects, then the discard down to 8; the next turn once it is made."""
    p = s[F.G_TURN_PLAYER]
    if buf[f + FR_PC] == 0:
        call(s, buf, f, 1, OP_END_EFFECTS, p, 0, 0, 0, 0, 0)
        return
    if s[F.G_WINNER] >= 0:
        pop(buf)
        return
    s[F.G_THEN] = 1
    ask(s, cards, mechs, p, F.CK_DISCARD, F.CS_TRIM, 0, 0, 0)
    call(s, buf, f, DONE, OP_SETTLE, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _settle(s, cards, mechs, buf, f):
    """``rules.settle``: once no choice waits, the next turn."""
    if s[F.G_NCHOICES] == 0 and s[F.G_THEN] == 1 and s[F.G_WINNER] < 0:
        s[F.G_THEN] = 0
        s[F.G_TURN_PLAYER] = 1 - s[F.G_TURN_PLAYER]
        s[F.G_TURN] += 1
        if s[F.G_TURN] >= MAX_TURNS:
            end(s, 2)
            pop(buf)
            return
        call(s, buf, f, 0, OP_BEGIN_TURN, 0, 0, 0, 0, 0, 0)
        return
    pop(buf)


@njit(**_LEAN)
def _after_choice(s, cards, mechs, buf, f):
    """A choice made (``moves.apply``): deaths, the next choice's options, then ``settle``."""
    if buf[f + FR_PC] == 0:
        call(s, buf, f, 1, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    activate(s, cards, mechs)
    call(s, buf, f, DONE, OP_SETTLE, 0, 0, 0, 0, 0, 0)


@njit(**_LEAN)
def _finish_play(s, cards, mechs, buf, f):
    """``moves.finish_play``'s effects after the card is paid: a0 p, a1 card, a2 host, a3 chosen, a4 the index
    into the card's mechanic rows; pc 1: the next Play mechanic, 2: the deaths, 3: settle."""
    p = buf[f + FR_A]
    card = buf[f + FR_A + 1]
    pc = buf[f + FR_PC]
    ctype = cards[card, F.C_TYPE]
    if pc == 0:
        if ctype == F.UNIT or ctype == F.ENCHANTMENT:
            u = new_perm(s, cards, card, p, buf[f + FR_A + 5], buf[f + FR_A + 6])
            call(s, buf, f, 3, OP_ENTER, u, buf[f + FR_A + 3], 1, 0, 0, 0)
            return
        pc = 1
    if pc == 1:
        host = buf[f + FR_A + 2]
        first = cards[card, F.C_MECH_START]
        while buf[f + FR_A + 4] < cards[card, F.C_MECH_COUNT]:
            r = first + buf[f + FR_A + 4]
            buf[f + FR_A + 4] += 1
            if mechs[r, F.X_TRIGGER] == F.TR_PLAY and (ctype == F.ITEM or s[F.G_WINNER] < 0):
                call(s, buf, f, 1, OP_RUN, r, p, host if ctype == F.ITEM else -1, card, buf[f + FR_A + 3], -1)
                return
        if ctype == F.SPELL:
            crypt_append(s, p, card)
        call(s, buf, f, 3, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    call(s, buf, f, DONE, OP_SETTLE, 0, 0, 0, 0, 0, 0)


# ---- combat (``rules.resolve_combat``: its docstring says what happens) -----------------------------------------------
_ATTACKERS, _BLOCKERS, _MINE, _COUNTS = 0, BOARD_SLOTS, 2 * BOARD_SLOTS, 3 * BOARD_SLOTS  # parts of the frame list


@njit(**_LEAN)
def _now(s, m):
    """``m.find(u.uid) or u``: the unit as it is on the board now (a Statue keeps the uid), else as it left."""
    x = find(s, s[at(m) + F.M_UID])
    return x if x >= 0 else m


@njit(**_LEAN)
def _combat(s, cards, mechs, buf, f):
    """a0 the attacker index, a1 its blockers' count, a2 the blocker index, a3 the damage left, a4 the attacker
    and a5 the blocker as now, a6 the blocker as blocks began, a7 the index of the unblocked-damage loop. The
    list holds the attackers and blockers as combat began and the current attacker's blockers in damage order.
    pc 1: the next attacker, 2: its next blocker, 3-9: after a fight's steps, 20-22: unblocked damage."""
    t = s[F.G_TURN_PLAYER]
    lst = f + FR_LIST
    pc = buf[f + FR_PC]
    if pc == 0:
        n = 0
        for i in range(board_len(s, t)):
            u = board_at(s, t, i)
            if s[at(u) + F.M_ATTACKING] == 1:
                buf[lst + _ATTACKERS + n] = u
                n += 1
        buf[lst + _COUNTS] = n
        n = 0
        for i in range(board_len(s, 1 - t)):
            u = board_at(s, 1 - t, i)
            if s[at(u) + F.M_BLOCKING] >= 0:
                buf[lst + _BLOCKERS + n] = u
                n += 1
        buf[lst + _COUNTS + 1] = n
        pc = 1
    while pc == 1 or pc == 2 or pc == 9:
        if pc == 9:
            if s[F.G_WINNER] >= 0:
                pop(buf)
                return
            pc = 2
        if pc == 1:
            ai = buf[f + FR_A]
            if ai >= buf[lst + _COUNTS]:
                pc = 20
                break
            a = buf[lst + _ATTACKERS + ai]
            _order_blockers(s, buf, lst, s[at(a) + F.M_UID])
            buf[f + FR_A + 2] = 0
            buf[f + FR_A + 3] = attack(s, a)
            buf[f + FR_A + 4] = a
            pc = 2
        bi = buf[f + FR_A + 2]
        if bi >= buf[f + FR_A + 1]:
            buf[f + FR_A] += 1
            pc = 1
            continue
        buf[f + FR_A + 2] = bi + 1
        old_b = buf[lst + _MINE + bi]
        buf[f + FR_A + 6] = old_b
        a_now = find(s, s[at(buf[f + FR_A + 4]) + F.M_UID])
        b_now = find(s, s[at(old_b) + F.M_UID])
        if a_now >= 0:
            buf[f + FR_A + 4] = a_now
        a = buf[f + FR_A + 4]
        left = buf[f + FR_A + 3]
        if b_now < 0:  # a blocker dead before its fight
            share = min(max(s[at(old_b) + F.M_MAX_LIFE] - s[at(old_b) + F.M_HURT], 0), left)
            buf[f + FR_A + 3] = left - share
            if a_now < 0:
                continue
            deal_damage(s, cards, mechs, -1, a, max(s[at(old_b) + F.M_DMG], 0), True)
            s[at(a) + F.M_EXHAUSTED] = 1
            call(s, buf, f, 3, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        b = b_now
        buf[f + FR_A + 5] = b
        share = min(max(life(s, b), 0), left)
        buf[f + FR_A + 3] = left - share
        if a_now < 0:  # the attacker is gone: the blocker still fights it
            deal_damage(s, cards, mechs, -1, b, share, True)
            hit_back = attack(s, b)
            if hit_back > 0 and (abilities(s, cards, b) >> F.AB_LIFESTEAL) & 1:
                s[pb(s[at(b) + F.M_OWNER]) + F.P_LIFE] += hit_back
            s[at(b) + F.M_EXHAUSTED] = 1
            call(s, buf, f, 5, OP_DEATHS, 0, 0, 0, 0, 0, 0)
            return
        _damage_on_block(s, cards, mechs, a, b)
        hit_back = attack(s, b)
        deal_damage(s, cards, mechs, a, b, share, False)
        deal_damage(s, cards, mechs, b, a, hit_back, False)
        a = _now(s, a)
        b = _now(s, b)
        buf[f + FR_A + 4] = a
        buf[f + FR_A + 5] = b
        s[at(a) + F.M_EXHAUSTED] = 1
        s[at(b) + F.M_EXHAUSTED] = 1
        call(s, buf, f, 7, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    a = buf[f + FR_A + 4]
    if pc == 3:  # the dead blocker's fight: the attacker's Lethal Strike
        if s[F.G_WINNER] >= 0:
            pop(buf)
            return
        fire(s, cards, buf, f, 4, _now(s, a), F.TR_LETHAL_STRIKE, -1, buf[f + FR_A + 6])
        return
    if pc == 4:
        call(s, buf, f, 9, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    if pc == 5:  # the gone attacker's fight: the blocker's Lethal Strike
        if s[F.G_WINNER] >= 0:
            pop(buf)
            return
        fire(s, cards, buf, f, 4, buf[f + FR_A + 5], F.TR_LETHAL_STRIKE, -1, a)
        return
    b = buf[f + FR_A + 5]
    if pc == 7:
        if s[F.G_WINNER] >= 0:
            pop(buf)
            return
        if find(s, s[at(b) + F.M_UID]) < 0:
            fire(s, cards, buf, f, 8, _now(s, a), F.TR_LETHAL_STRIKE, -1, b)
            return
        pc = 8
    if pc == 8:
        if find(s, s[at(a) + F.M_UID]) < 0:
            fire(s, cards, buf, f, 4, _now(s, b), F.TR_LETHAL_STRIKE, -1, a)
            return
        call(s, buf, f, 9, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    if pc == 21:  # an unblocked attacker has hit
        x = buf[lst + _ATTACKERS + buf[f + FR_A + 7] - 1]
        s[at(x) + F.M_EXHAUSTED] = 1
        call(s, buf, f, 22, OP_DEATHS, 0, 0, 0, 0, 0, 0)
        return
    if pc == 22 and s[F.G_WINNER] >= 0:
        pop(buf)
        return
    while buf[f + FR_A + 7] < buf[lst + _COUNTS]:
        k = buf[f + FR_A + 7]
        buf[f + FR_A + 7] = k + 1
        x = buf[lst + _ATTACKERS + k]
        if on_board(s, x) and s[at(x) + F.M_EXHAUSTED] == 0:
            call(s, buf, f, 21, OP_DEAL, x, -1 - (1 - t), attack(s, x), 0, 0, 0)
            return
    for p in range(2):
        for i in range(board_len(s, p)):
            if p == t:
                s[at(board_at(s, p, i)) + F.M_ATTACKING] = 0
            else:
                s[at(board_at(s, p, i)) + F.M_BLOCKING] = -1
    s[F.G_NORDERS] = 0
    s[F.G_NQUEUE] = 0
    s[F.G_PHASE] = F.PLAY2
    pop(buf)


@njit(**_LEAN)
def _order_blockers(s, buf, lst, a):
    """The blockers (as combat began) of attacker uid a, into the frame list's damage-order part, ranked by the
    attacker's chosen order (the unranked after, in board order); their count in a1."""
    n = 0
    for k in range(buf[lst + _COUNTS + 1]):
        b = buf[lst + _BLOCKERS + k]
        if s[at(b) + F.M_BLOCKING] == a:
            buf[lst + _MINE + n] = b
            n += 1
    buf[lst - FR_LIST + FR_A + 1] = n
    o = -1
    for k in range(s[F.G_NORDERS]):
        if s[F.G_ORDERS + k * F.OF] == a:
            o = F.G_ORDERS + k * F.OF
    if o < 0 or s[o + 1] == 0:
        return
    for i in range(1, n):  # a stable insertion sort by rank
        x = buf[lst + _MINE + i]
        rx = _rank(s, o, s[at(x) + F.M_UID])
        k = i
        while k > 0 and _rank(s, o, s[at(buf[lst + _MINE + k - 1]) + F.M_UID]) > rx:
            buf[lst + _MINE + k] = buf[lst + _MINE + k - 1]
            k -= 1
        buf[lst + _MINE + k] = x


@njit(**_LEAN)
def _rank(s, o, u):
    for k in range(s[o + 1]):
        if s[o + 2 + k] == u:
            return k
    return s[o + 1]


@njit(**_LEAN)
def _damage_on_block(s, cards, mechs, a, b):
    """The blocker's DamageOnBlock hits the attacker first (its rows', and a granted one's 0)."""
    bb = at(b)
    for k in range(-1, s[bb + F.M_NITEMS]):
        c = s[bb + F.M_CARD] if k < 0 else s[bb + F.M_ITEMS + k]
        for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
            if mechs[r, F.X_TRIGGER] == F.STATIC_TRIGGER and mechs[r, F.X_ID] == F.AB_DAMAGE_ON_BLOCK:
                deal_damage(s, cards, mechs, -1, a, mechs[r, F.X_AMOUNT], True)

"""Paper 001's multi-level rollout policy (HLR, Algorithm 5, §4.8.1) and its cost-effect heuristic H(a), compiled.

One call of ``hlr_turn`` plays the rest of the current player's turn on the flat state, in place:

- a decision with both **high-level** actions (``PLAY`` a card) and **low-level** ones (attacks, the hero power,
  targets, positions) takes a high-level one with probability ``1 - chi`` (001: ``Random(0,1) > chi``), else a
  low-level one; with only one kind available, that kind; ``END_TURN`` only when nothing else is (rollouts never
  pass early);
- **π_h** picks a card: a softmax with temperature ``tau_high`` over ``scores[card]`` of the distinct playable
  cards (the card-play network's sigmoid probabilities, evaluated once at the start of the turn by the caller:
  "the high-level policy network only has to be evaluated once when the turn begins"); the card's first hand
  slot is played;
- **π_l** picks a low-level action: a softmax with temperature ``tau_low`` over H(a) (Eqs. 4.1-4.5, as
  ``greedy.h_value``: heroes count, deaths lose all health, arrivals gain theirs; a target or position decision
  adds the pending card's cost). An action that opens a target or position decision is scored by its best
  continuation (two levels deep); chance outcomes inside an action are sampled once from the stream;
- chance nodes of the turn are sampled by their probabilities; a mulligan decision is uniform and ends the call.

``prune`` restricts every decision to ``rules.sensible_actions`` (001 §2.5), as the game's default rollouts do.
Random draws come from the xorshift64* ``stream`` (``kernels``), seeded by the caller from its ``Generator``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import rand_below, rand_unit
from .layout import (
    END_TURN, F_COST, G_PENDING_CARD, G_PHASE, G_PLAYER, G_SP, G_TURN, M_CARD, M_HP, M_HP_AURA, M_MAXHP, M_UID,
    PH_MAIN, PH_MULLIGAN, PH_OVER, PH_POSITION, PH_TARGET, P_HAND, P_HP, P_MANA, P_MAXHP, P_NMIN, TARGET,
)
from .rules import apply_action, apply_outcome, legal_actions, mb, outcomes, pb, sample_index, sensible_actions

HERO_MANA_COST = 10  # a hero is worth the most expensive card in H(a) (greedy.HERO_MANA_COST; our choice)
HERO_UID = -1
BUFFER = 128  # legal ids per decision (rules: at most NUM_ACTIONS)
SNAPSHOT = 16  # characters on both sides: 2 heroes + 2 x 7 minions


@njit(cache=True, nogil=True)
def snapshot(s, cards, out):
    """Every living character into ``out`` rows (side, uid or HERO_UID, health, max health, mana cost);
    returns how many."""
    n = 0
    for side in range(2):
        b = pb(side)
        out[n, 0], out[n, 1], out[n, 2], out[n, 3], out[n, 4] = side, HERO_UID, s[b + P_HP], s[b + P_MAXHP], \
            HERO_MANA_COST
        n += 1
        for pos in range(s[b + P_NMIN]):
            m = mb(side, pos)
            out[n, 0], out[n, 1], out[n, 2] = side, s[m + M_UID], s[m + M_HP]
            out[n, 3], out[n, 4] = s[m + M_MAXHP] + s[m + M_HP_AURA], cards[s[m + M_CARD], F_COST]
            n += 1
    return n


@njit(cache=True, nogil=True)
def h_value(before, nb, after, na, me, mana):
    """H(a) of 001 Eq. 4.1 from two snapshots (``greedy.h_value`` over arrays)."""
    gain = 0.0
    own_loss = 0.0
    enemy_loss = 0.0
    for i in range(nb):
        found = -1
        for j in range(na):
            if after[j, 0] == before[i, 0] and after[j, 1] == before[i, 1]:
                found = j
                break
        delta = (after[found, 2] if found >= 0 else 0) - before[i, 2]
        if delta < 0:
            loss = -delta * (before[i, 4] + 1) / max(before[i, 3], 1)
            if before[i, 0] == me:
                own_loss += loss
            else:
                enemy_loss += loss
        elif delta > 0 and before[i, 0] == me:
            gain += delta * (before[i, 4] + 1) / max(after[found, 3], 1)
    for j in range(na):
        if after[j, 0] != me:
            continue
        new = True
        for i in range(nb):
            if before[i, 0] == after[j, 0] and before[i, 1] == after[j, 1]:
                new = False
                break
        if new:
            gain += after[j, 2] * (after[j, 4] + 1) / max(after[j, 3], 1)
    return (gain + enemy_loss) / (own_loss + max(mana, 0) + 1)


@njit(cache=True, nogil=True)
def settle_chance(s, cards, ids, weights, stream):
    """Sample chance outcomes by their probabilities, in place, until a decision node or the end."""
    while s[G_PHASE] != PH_OVER and s[G_SP] > 0:
        n = outcomes(s, cards, ids, weights)
        apply_outcome(s, cards, ids[sample_index(stream, weights, n)], ids, weights)


@njit(cache=True, nogil=True)
def _leaf_h(t, cards, before, nb, me, mana, scratch):
    na = snapshot(t, cards, scratch)
    return h_value(before, nb, scratch, na, me, mana - t[pb(me) + P_MANA])


@njit(cache=True, nogil=True)
def _pending(t, me):
    return t[G_PHASE] != PH_OVER and t[G_SP] == 0 and t[G_PLAYER] == me and (
        t[G_PHASE] == PH_TARGET or t[G_PHASE] == PH_POSITION)


@njit(cache=True, nogil=True)
def action_h(s, cards, a, before, nb, me, mana, ids, weights, stream, scratch):
    """H of decision ``a`` at ``s`` (not changed): applied to a copy, chance sampled once, a target or position
    decision it opens scored by its best continuation (two levels)."""
    t = s.copy()
    apply_action(t, cards, a, ids, weights)
    settle_chance(t, cards, ids, weights, stream)
    if not _pending(t, me):
        return _leaf_h(t, cards, before, nb, me, mana, scratch)
    first = np.empty(BUFFER, dtype=np.int32)
    second = np.empty(BUFFER, dtype=np.int32)
    best = -np.inf
    for i in range(legal_actions(t, cards, first)):
        u = t.copy()
        apply_action(u, cards, first[i], ids, weights)
        settle_chance(u, cards, ids, weights, stream)
        if not _pending(u, me):
            best = max(best, _leaf_h(u, cards, before, nb, me, mana, scratch))
            continue
        for j in range(legal_actions(u, cards, second)):
            v = u.copy()
            apply_action(v, cards, second[j], ids, weights)
            settle_chance(v, cards, ids, weights, stream)
            best = max(best, _leaf_h(v, cards, before, nb, me, mana, scratch))
    return best


@njit(cache=True, nogil=True)
def _softmax_pick(values, n, tau, stream):
    """An index in [0, n) drawn with probabilities softmax(values / tau)."""
    top = values[0]
    for i in range(1, n):
        top = max(top, values[i])
    if top == -np.inf:  # nothing scored (cannot happen with legal continuations): uniform
        return rand_below(stream, n)
    total = 0.0
    for i in range(n):
        values[i] = np.exp((values[i] - top) / tau)
        total += values[i]
    r = rand_unit(stream) * total
    for i in range(n):
        r -= values[i]
        if r < 0:
            return i
    return n - 1


@njit(cache=True, nogil=True)
def hlr_turn(s, cards, buf, ids, weights, stream, scores, tau_high, tau_low, chi, prune):
    """Play the rest of the current turn by 001 Algorithm 5 (module docstring), in place; returns the number of
    decisions. ``scores``: float64 per card id (the network's probabilities for the player to move)."""
    turn = s[G_TURN]
    decisions = 0
    high = np.empty(BUFFER, dtype=np.int32)
    low = np.empty(BUFFER, dtype=np.int32)
    values = np.empty(BUFFER, dtype=np.float64)
    before = np.empty((SNAPSHOT, 5), dtype=np.int64)
    scratch = np.empty((SNAPSHOT, 5), dtype=np.int64)
    while s[G_PHASE] != PH_OVER and s[G_TURN] == turn:
        if s[G_SP] > 0:
            n = outcomes(s, cards, ids, weights)
            apply_outcome(s, cards, ids[sample_index(stream, weights, n)], ids, weights)
            continue
        n = legal_actions(s, cards, buf)
        if prune:
            n = sensible_actions(s, cards, buf, n, buf)
        decisions += 1
        phase = s[G_PHASE]
        if phase == PH_MULLIGAN:
            apply_action(s, cards, buf[rand_below(stream, n)], ids, weights)
            return decisions
        me = s[G_PLAYER]
        hand = pb(me) + P_HAND
        nh = 0
        nl = 0
        for i in range(n):
            a = buf[i]
            if phase == PH_MAIN and a < TARGET:
                card = s[hand + a]
                seen = False
                for k in range(nh):
                    if s[hand + high[k]] == card:
                        seen = True
                        break
                if not seen:
                    high[nh] = a
                    nh += 1
            elif a != END_TURN:
                low[nl] = a
                nl += 1
        if nh > 0 and (nl == 0 or rand_unit(stream) > chi):
            for k in range(nh):
                values[k] = scores[s[hand + high[k]]]
            a = high[_softmax_pick(values, nh, tau_high, stream)]
        elif nl > 0:
            nb = snapshot(s, cards, before)
            mana = s[pb(me) + P_MANA]
            if phase == PH_TARGET or phase == PH_POSITION:
                mana += cards[s[G_PENDING_CARD], F_COST]
            for k in range(nl):
                values[k] = action_h(s, cards, low[k], before, nb, me, mana, ids, weights, stream, scratch)
            a = low[_softmax_pick(values, nl, tau_low, stream)]
        else:
            a = END_TURN
        apply_action(s, cards, a, ids, weights)
    return decisions

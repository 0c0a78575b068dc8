"""DefaultAI's decisions over a ``board.Match`` (004 §2.4; Fifth-Aeon-Model ``ai/defaultAi.ts``): the policy of the
``default_ai`` agent (``default_ai``) and of the game's ``default_ai`` rollouts and resource pruning (``state``).

A turn: play a resource (the card closest to castable decides which), then repeatedly solve a 0/1 knapsack over
energy of every playable card (scored with its best target) and enchantment change, cast the best-scored item of
the chosen set and re-plan, then declare every attacker no enemy unit could favourably block, pass, and in the
second play phase knapsack again. Blocks: each attacker (Flying first, then by attack) gets the blocker with the
best outcome (attacker dies < neither dies < both die < blocker dies, then the cheaper trade), blocked only if
that outcome is good or the attack would be lethal. Damage order: the model's default distribution (a knapsack
over the blockers' life kills the most valuable ones first). Choices use the draw heuristic |energy - cost|.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import layout as L
from . import moves
from . import targeters as T
from .board import BLOCK, ORDER, PLAY1, Match, Perm
from .cards import Card
from .constants import BOARD_SLOTS
from .evaluation import LETHAL, PLAY, Evaluator

ATTACKER_DIES, NEITHER_DIES, BOTH_DIE, BLOCKER_DIES = range(4)  # the model's outcome order


def knapsack(items: list[tuple[int, float]], capacity: int) -> list[int]:
    """The model's 0/1 knapsack (``algorithms.ts``): indices of the chosen items, in reverse input order; an item
    is kept only when it strictly improves the cell, and capacity 0 takes nothing."""
    n = len(items)
    if capacity <= 0 or n == 0:
        return []
    table = [[0.0] * (capacity + 1) for _ in range(n + 1)]
    keep = [[False] * (capacity + 1) for _ in range(n + 1)]
    for i, (w, b) in enumerate(items, start=1):
        for c in range(1, capacity + 1):
            old = table[i - 1][c]
            if w <= c and b + table[i - 1][c - w] > old:
                table[i][c] = b + table[i - 1][c - w]
                keep[i][c] = True
            else:
                table[i][c] = old
    chosen, c = [], capacity
    for i in range(n, 0, -1):
        if keep[i][c]:
            chosen.append(i - 1)
            c -= items[i - 1][0]
    return chosen


def outcome(a: Perm, b: Perm) -> int:
    """What a single block of attacker ``a`` by ``b`` does (Lethal and Gorgon kill on any damage, an unused
    shield prevents a death)."""
    a_lethal = "Lethal" in a.kw or "TransformDamaged" in a.kw
    b_lethal = "Lethal" in b.kw or "TransformDamaged" in b.kw
    attacker_dies = not a.st.get("shield") and (b_lethal or b.attack >= a.life)
    blocker_dies = not b.st.get("shield") and (a_lethal or a.attack >= b.life)
    if attacker_dies and blocker_dies:
        return BOTH_DIE
    if attacker_dies:
        return ATTACKER_DIES
    return BLOCKER_DIES if blocker_dies else NEITHER_DIES


def blockable(blocker: Perm, attacker: Perm) -> bool:
    """Could ``blocker`` block ``attacker`` (hypothetically: the attacker need not be attacking)?"""
    return blocker.can_block(attacker)


class DefaultPolicy:
    """DefaultAI's decisions: deterministic; plans from what the acting player may see (its hand, the board,
    both crypts, its own deck list ``deck``) and keeps the rest of a plan for the next decisions."""

    def __init__(self) -> None:
        self._queue: list[int] = []

    def reset(self) -> None:
        self._queue = []

    def act(self, m: Match, deck: Sequence[str], legal: Sequence[int]) -> int:
        """The next action of the acting player, one of ``legal`` (the legal ids, increasing)."""
        allowed = {int(a) for a in legal}
        while self._queue:
            a = self._queue.pop(0)
            if a in allowed:
                return a
            self._queue = []
        plan = self.plan(m, m.acting, deck)
        self._queue = plan[1:]
        if plan and plan[0] in allowed:
            return plan[0]
        return int(legal[-1]) if L.PASS in allowed else int(legal[0])

    # -- planning -------------------------------------------------------------------------------------------
    def plan(self, m: Match, me: int, deck: Sequence[str]) -> list[int]:
        """The next actions for ``me``."""
        if m.choices:
            return self.choose(m, me, deck)
        if m.pend is not None:
            return [moves.legal(m)[0]]
        if m.phase == BLOCK:
            return self.block(m, me) + [L.PASS]
        if m.phase == ORDER:
            return self.order(m, me)
        side = m.sides[me]
        if not side.played_resource:
            return [L.RESOURCE + self.resource(m, me, deck)]
        play = self.select_action(m, me)
        if play:
            return play
        if m.phase == PLAY1:
            return [L.ATTACK + s for s in self.attackers(m, me)] + [L.PASS]
        return [L.PASS]

    def select_action(self, m: Match, me: int) -> list[int]:
        """The knapsack over energy of every playable card and enchantment change; the actions of the
        best-scored item of the chosen set (empty: nothing worth playing)."""
        ev = Evaluator(m, me)
        side = m.sides[me]
        options: list[tuple[int, float, list[int]]] = []
        for h, (cid, d, l) in enumerate(side.hand):
            card = m.card(cid)
            if moves.playable(m, me, card):
                score, actions = self.score_card(ev, m, me, h, card, (d, l))
                options.append((card.energy, score, actions))
        for s, u in enumerate(m.board[me]):
            if not u.is_unit and u.card.empower_cost <= side.energy and "CannotBeEmpowered" not in u.kw:
                options.append((u.card.empower_cost, _modify_value(u), [L.EMPOWER + s]))
        for s, u in enumerate(m.board[1 - me]):
            if not u.is_unit and u.card.empower_cost <= side.energy:
                options.append((u.card.empower_cost, _modify_value(u), [L.DIMINISH + s]))
        chosen = knapsack([(w, b) for w, b, _ in options], side.energy)
        if not chosen:
            return []
        best = max(chosen, key=lambda i: options[i][1])  # first maximum in the knapsack's (reversed) order
        return options[best][2]

    def score_card(self, ev: Evaluator, m: Match, me: int, h: int, card: Card,
                   bonus: tuple[int, int]) -> tuple[float, list[int]]:
        """The model's ``evaluateCard``: the card's value in play plus its best target's (a mandatory target is
        taken even when it is bad), with the actions that play it (host, then target)."""
        actions = [L.PLAY + h]
        score = 0.0
        target_action: list[int] = []
        targeter = card.targeter
        if T.needs_choice(targeter):
            cands = T.candidates(m, me, None, targeter)
            if cands:
                values = [ev.card_target_value(card, me, t) for t in cands]
                i = int(np.argmax(values))
                if values[i] > 0 or not targeter.optional:
                    score = values[i]
                    target_action = [L.TARGET + moves.position(m, me, cands[i])]
            if not target_action:
                target_action = [L.NO_TARGET]
        if card.card_type == "item":
            host = max(moves.hosts(m, me, card), key=lambda u: _multiplier(ev, u))
            actions.append(L.TARGET + moves.position(m, me, host))
        value = ev.card(card, PLAY, me, bonus)
        return score + value, actions + target_action

    def resource(self, m: Match, me: int, deck: Sequence[str]) -> int:
        """The resource for the card (in hand, else in the deck list) with the smallest total deficit: its
        largest deficit; with none short, the type the deck list needs most."""
        res = m.sides[me].res
        deck = _unique(deck)
        for group in ([m.card(c) for c, _, _ in m.sides[me].hand], [m.card(c) for c in deck]):
            short = [(sum(max(q - r, 0) for q, r in zip(c.requirements, res)), c) for c in group]
            short = [(t, c) for t, c in short if t > 0]
            if short:
                card = min(short, key=lambda x: x[0])[1]
                deficits = [max(q - r, 0) for q, r in zip(card.requirements, res)]
                return deficits.index(max(deficits))
        totals = [sum(m.card(c).requirements[i] for c in deck) for i in range(4)]
        return totals.index(max(totals))

    def attackers(self, m: Match, me: int) -> list[int]:
        """Board slots of the units to attack with: ready, with attack > 0, and no non-exhausted enemy unit
        could block them favourably (model ``canFavorablyBlock``)."""
        ev = Evaluator(m, me)
        foes = [u for u in m.units(1 - me) if not u.exhausted]
        out = []
        for s, a in enumerate(m.board[me]):
            if not a.can_attack() or a.attack <= 0:
                continue
            if not any(self.favourable(ev, a, e) for e in foes):
                out.append(s)
        return out

    @staticmethod
    def favourable(ev: Evaluator, a: Perm, e: Perm) -> bool:
        if not blockable(e, a):
            return False
        kind = outcome(a, e)
        return kind in (ATTACKER_DIES, NEITHER_DIES) or (kind == BOTH_DIE and ev.unit(a, LETHAL) > ev.unit(e, LETHAL))

    def block(self, m: Match, me: int) -> list[int]:
        """Blocks as the model's ``block``: attackers by Flying then attack, each given its best single blocker,
        kept when the outcome is good, an even-or-better trade, or the incoming damage is lethal."""
        ev = Evaluator(m, me)
        attackers = sorted((a for a in m.board[1 - me] if a.attacking),
                           key=lambda a: -(a.attack + (1000 if "Flying" in a.kw else 0)))
        pool = [u for u in m.board[me] if u.is_unit and not u.exhausted and u.blocking < 0]
        incoming = sum(a.attack for a in attackers)
        life = m.sides[me].life
        out = []
        for a in attackers:
            opts = [(outcome(a, b) * 100000 + ev.unit(b, LETHAL) - ev.unit(a, LETHAL), outcome(a, b),
                     ev.unit(b, LETHAL) - ev.unit(a, LETHAL), b) for b in pool if b.can_block(a)]
            if not opts:
                continue
            key, kind, trade, b = min(opts, key=lambda o: o[0])
            if incoming >= life or kind in (ATTACKER_DIES, NEITHER_DIES) or (kind == BOTH_DIE and trade <= 0):
                out.append(L.BLOCK + BOARD_SLOTS * m.board[me].index(b) + m.board[1 - me].index(a))
                incoming -= a.attack
                pool.remove(b)
        return out

    def order(self, m: Match, me: int) -> list[int]:
        """The damage order of the attacker to order (the blockers not yet named), as the model's default
        distribution (``game.ts`` ``getBasicDamageDistribution``, which DefaultAI never changes): a knapsack of
        capacity the attacker's damage over its blockers in board order, weight a blocker's life, value its
        evaluation as a unit about to be killed; the kept ones first (in the knapsack's order), then the rest."""
        a = m.find(m.order_queue[0])
        done = m.order[a.uid]
        mine = [(i, b) for i, b in enumerate(m.board[1 - me]) if b.blocking == a.uid]
        ev = Evaluator(m, me)
        kill = knapsack([(b.life, ev.unit(b, LETHAL)) for _, b in mine], a.attack)
        ranked = [mine[k] for k in kill] + [x for k, x in enumerate(mine) if k not in kill]
        return [L.ORDER + i for i, b in ranked if b.uid not in done]

    # -- choices --------------------------------------------------------------------------------------------
    def choose(self, m: Match, me: int, deck: Sequence[str]) -> list[int]:
        """Answer the pending choice with the model's heuristics: replace (mulligan, Insight), discard, draw
        (search, Unbury) and highest stats (Abomination); picks are made one by one, then done."""
        c = m.choices[0]
        energy = m.sides[me].energy
        h = [abs(energy - m.card(o).energy) for o in c.options]
        kind = c.kind.split(":")[0]
        order = list(range(len(c.options)))
        if kind == "replace":
            worst = sorted(order, key=lambda i: -h[i])
            picked = worst[:c.min_n]
            unique = _unique(deck)
            mean = sum(abs(energy - m.card(x).energy) for x in unique) / max(len(unique), 1)
            optional = sorted((i for i in order if i not in picked and h[i] > mean), key=lambda i: h[i])
            picked += optional[:c.max_n - len(picked)]
        elif kind == "discard":
            picked = sorted(order, key=lambda i: -h[i])[:c.min_n]
        elif kind == "consume":
            stats = [m.card(o).damage + m.card(o).life for o in c.options]
            picked = sorted(order, key=lambda i: -stats[i])[:c.max_n]
        else:
            picked = sorted(order, key=lambda i: h[i])[:c.max_n]
        picked = [i for i in picked if i not in (c.picked or ())]
        actions = [L.OPTION + i for i in picked]
        if len(picked) + len(c.picked or ()) < c.max_n:
            actions.append(L.CHOICE_DONE)
        return actions


def _modify_value(u: Perm) -> float:
    """An enchantment change's knapsack value, the model's playCost / (modifyCost x power)."""
    cost = u.card.empower_cost
    if cost <= 0 or u.power <= 0:
        return math.inf if u.power <= 0 else float(u.card.energy)
    return u.card.energy / (cost * u.power)


def _multiplier(ev: Evaluator, u: Perm) -> float:
    """The product of a unit's multipliers (the model picks an item's host by it)."""
    mult = 1.0
    for mech in u.mechs:
        mult *= ev.mechanic(mech, "nonlethal", u.owner, u, None)[1]
    return mult


def _unique(cards: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for c in cards:
        seen.setdefault(c, None)
    return list(seen)

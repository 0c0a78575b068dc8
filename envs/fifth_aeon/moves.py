"""The legal actions of a ``Match`` and how each is applied (ids in ``layout``).

``legal(m)`` lists the acting player's legal ids in increasing order; ``apply(m, a)`` plays one, which the caller
has checked is legal. A card is played once its host and target are chosen (``finish_play``): energy is paid,
then a unit or enchantment enters play (its Play mechanics fire with the chosen target), an item attaches to its
host (the host gets its stats and abilities, then the item's Play mechanics fire), a spell's mechanics fire and
it goes to the crypt.
"""
from __future__ import annotations

from . import layout as L
from . import rules as R
from . import targeters as T
from .board import BLOCK, ORDER, PLAY1, Match, Perm, refresh
from .cards import Card
from .constants import BOARD_SLOTS
from .effects import CHOICES, Ctx, activate, buff, enter, new_perm, process_deaths, run, update_auras


def position(m: Match, player: int, u: Perm) -> int:
    """Board position of ``u`` in ``player``'s frame: own 0..6, the opponent's 7..13."""
    if u.owner == player:
        return m.board[player].index(u)
    return BOARD_SLOTS + m.board[1 - player].index(u)


def at_position(m: Match, player: int, pos: int) -> Perm | None:
    side, i = (player, pos) if pos < BOARD_SLOTS else (1 - player, pos - BOARD_SLOTS)
    board = m.board[side]
    return board[i] if i < len(board) else None


def hosts(m: Match, player: int, card: Card) -> list[Perm]:
    ok = T.HOSTS[card.host_targeter.id if card.host_targeter else "FriendlyUnit"]
    return [u for u in m.units(player) if ok(u)]


def playable(m: Match, player: int, card: Card) -> bool:
    """The model's conditions: cost met, a free board slot for a permanent, a host for an item, and a target
    for a mandatory chosen targeter."""
    if not m.meets(player, card):
        return False
    ctype = card.card_type
    if ctype in ("unit", "enchantment") and len(m.board[player]) >= BOARD_SLOTS:
        return False
    if ctype == "item" and not hosts(m, player, card):
        return False
    t = card.targeter
    if T.needs_choice(t) and not t.optional and not T.candidates(m, player, None, t):
        return False
    return True


def legal(m: Match) -> list[int]:
    if m.winner >= 0:
        return []
    if m.choices:
        c = m.choices[0]
        picked = c.picked or []
        out = [L.OPTION + i for i in range(len(c.options)) if i not in picked] if len(picked) < c.max_n else []
        if len(picked) >= c.min_n:
            out.append(L.CHOICE_DONE)
        return out
    p = m.acting
    if m.pend is not None:
        slot, host_uid, stage = m.pend
        card = m.card(m.sides[p].hand[slot][0])
        if stage == "host":
            return sorted(L.TARGET + position(m, p, u) for u in hosts(m, p, card))
        out = sorted(L.TARGET + position(m, p, u) for u in T.candidates(m, p, None, card.targeter))
        if card.targeter.optional or not out:
            out.append(L.NO_TARGET)
        return out
    if m.phase == BLOCK:
        attackers = m.board[1 - p]
        out = []
        for b, u in enumerate(m.board[p]):
            if u.is_unit and u.blocking < 0:
                out += [L.BLOCK + BOARD_SLOTS * b + a for a, x in enumerate(attackers) if x.attacking and u.can_block(x)]
        out.append(L.PASS)
        return sorted(out)
    if m.phase == ORDER:
        a = m.order_queue[0]
        done = m.order[a]
        return [L.ORDER + i for i, b in enumerate(m.board[1 - p]) if b.blocking == a and b.uid not in done]
    side = m.sides[p]
    out = []
    if not side.played_resource:
        out += [L.RESOURCE + r for r in range(4)]
    for h, (cid, _, _) in enumerate(side.hand):
        if playable(m, p, m.card(cid)):
            out.append(L.PLAY + h)
    for s, u in enumerate(m.board[p]):
        if not u.is_unit and u.card.empower_cost <= side.energy and "CannotBeEmpowered" not in u.kw:
            out.append(L.EMPOWER + s)
    for s, u in enumerate(m.board[1 - p]):
        if not u.is_unit and u.card.empower_cost <= side.energy:
            out.append(L.DIMINISH + s)
    if m.phase == PLAY1:
        out += [L.ATTACK + s for s, u in enumerate(m.board[p]) if not u.attacking and u.can_attack()]
    if side.played_resource:
        out.append(L.PASS)
    return out


def apply(m: Match, a: int) -> None:
    """Play the legal action ``a``."""
    if m.choices:
        c = m.choices[0]
        if a != L.CHOICE_DONE:
            c.picked.append(a - L.OPTION)
        if a == L.CHOICE_DONE or len(c.picked) >= c.max_n:
            m.choices.pop(0)
            CHOICES[c.kind](m, c.player, c.picked, c.options, c.slots)
            process_deaths(m)
            activate(m)
            R.settle(m)
        return
    p = m.acting
    if m.pend is not None:
        slot, host_uid, stage = m.pend
        card = m.card(m.sides[p].hand[slot][0])
        chosen = None if a == L.NO_TARGET else at_position(m, p, a - L.TARGET)
        if stage == "host":
            m.pend = [slot, chosen.uid, "target"]
            if not T.needs_choice(card.targeter):
                finish_play(m, p, slot, chosen.uid, None)
            return
        finish_play(m, p, slot, host_uid, chosen)
        return
    if L.RESOURCE <= a < L.PLAY:
        m.play_resource(p, a - L.RESOURCE)
    elif L.PLAY <= a < L.TARGET:
        slot = a - L.PLAY
        card = m.card(m.sides[p].hand[slot][0])
        m.sides[p].known[slot] = True  # a card being played is shown
        if card.card_type == "item":
            m.pend = [slot, -1, "host"]
        elif T.needs_choice(card.targeter):
            m.pend = [slot, -1, "target"]
        else:
            finish_play(m, p, slot, -1, None)
    elif L.EMPOWER <= a < L.DIMINISH:
        u = m.board[p][a - L.EMPOWER]
        m.sides[p].energy -= u.card.empower_cost
        u.power += 1
    elif L.DIMINISH <= a < L.ATTACK:
        u = m.board[1 - p][a - L.DIMINISH]
        m.sides[p].energy -= u.card.empower_cost
        u.power -= 1
        process_deaths(m)
    elif L.ATTACK <= a < L.BLOCK:
        m.board[p][a - L.ATTACK].attacking = True
    elif L.BLOCK <= a < L.ORDER:
        b, att = divmod(a - L.BLOCK, BOARD_SLOTS)
        m.board[p][b].blocking = m.board[1 - p][att].uid
    elif L.ORDER <= a < L.PASS:
        R.order_next(m, m.board[1 - p][a - L.ORDER].uid)
    elif a == L.PASS:
        R.pass_phase(m)


def finish_play(m: Match, p: int, slot: int, host_uid: int, chosen: Perm | None) -> None:
    """Pay for the card in hand ``slot`` and resolve it (see the module docstring)."""
    m.pend = None
    cid, bonus_d, bonus_l = m.remove_from_hand(p, slot)
    card = m.card(cid)
    m.sides[p].energy -= card.energy
    if card.card_type in ("unit", "enchantment"):
        enter(m, new_perm(m, card, p, (bonus_d, bonus_l)), chosen)
    elif card.card_type == "item":
        host = m.find(host_uid)
        attach(m, host, card)
        for mech in card.mechanics:
            if mech.trigger == "Play":
                run(m, mech, Ctx(p, host, card, chosen))
        process_deaths(m)
    else:
        for mech in card.mechanics:
            if mech.trigger == "Play" and m.winner < 0:
                run(m, mech, Ctx(p, None, card, chosen))
        m.sides[p].crypt.append(cid)
        process_deaths(m)
    R.settle(m)


def attach(m: Match, host: Perm, item: Card) -> None:
    """The host gets the item's stats and abilities (and the counters those abilities come with)."""
    host.items = host.items + (item,)
    buff(host, item.damage, item.life)
    host.rebuild()
    for mech in item.mechanics:
        if mech.id == "Shielded":
            host.st["shield"] = 1
        elif mech.id == "Deathless":
            host.st["deathless"] = max(host.st.get("deathless", 0), int(mech.param("charges", 1)))
        elif mech.id == "Rush":
            refresh(host)
    update_auras(m)


__all__ = ["apply", "legal", "playable", "position", "at_position", "hosts"]

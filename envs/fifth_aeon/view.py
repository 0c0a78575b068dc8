"""What a person sees of a Fifth Aeon match (``envs.view``): each player's panel, hand, board and crypt, the
pending choice where the perspective may see it; the menu paths of the actions; the log line of an action.

Cards are named as printed ("Regal Monarch", not the model's id ``King``), with cost, rules text (``text``),
stats and tags. A perspective sees its own hand and the opponent's cards it has seen (``Side.known``: Peek, cards
returned to hand, a card being played), the other hand cards as ``Card.unseen()``; decks show only their size; a
hand or deck choice of the opponent only as waiting for it (``render.choice_public``). A spectator (None) sees
neither hand.

**Menus** follow the turn's decisions: ``("resource", "decay")``, ``("play", "Crawling Zombie")``, then its
``("target", "enemy Knight 3/3")`` (an item first ``("attach to", ...)``), ``("attack with", "Knight 3/3")``,
``("block", "enemy Dragon 6/6", "with Archer 1/1")``, a choice as ``("discard", "Fireball")``, and passing named
by what it does ("go to combat", "done blocking", "end the turn"). Two copies of a card, or two units that look
the same, are told apart by a number (``envs.view.numbered``): "Crawling Zombie #2".
"""
from __future__ import annotations

from ..view import Card as Face
from ..view import Seat, View, Zone, numbered, status_line
from . import layout as L
from . import moves
from .board import BLOCK, PLAY1, Match, Perm, phase_name
from .cards import Card
from .constants import BOARD_SLOTS, RESOURCES
from .render import choice_public, render_text
from .text import card_text, keywords

CHOICE_GROUPS = {"replace": "replace", "discard": "discard", "search": "take from your deck",
                 "unbury": "return to your hand"}  # "consume:UID" (Abomination): "eat"


def face(m: Match, card: Card, bonus: tuple[int, int] = (0, 0)) -> Face:
    """A card as printed (a unit in hand with its Research AI bonus): cost, rules text, stats, type and faction."""
    if card.card_type == "unit":
        stats: dict[str, int | str] = {"attack": card.damage + bonus[0], "life": card.life + bonus[1],
                                       "type": card.unit_type}
    elif card.card_type == "item":
        stats = {"attack bonus": card.damage, "life bonus": card.life}
    elif card.card_type == "enchantment":
        stats = {"power": card.power, "empower cost": card.empower_cost}
    else:
        stats = {}
    needs = ", ".join(f"{n} {r}" for r, n in zip(RESOURCES, card.requirements) if n)
    if needs:
        stats["requires"] = needs
    return Face(card.name, card.energy, card_text(card, m.pool), stats,
                tuple(t for t in (card.card_type, card.faction.lower()) if t))


def permanent(m: Match, u: Perm) -> Face:
    """A permanent as it stands: current stats, keywords (granted ones included), items, and its state."""
    card = face(m, u.card)
    if u.is_unit:
        stats: dict[str, int | str] = {"attack": u.attack, "life": u.life, "max life": u.full_life,
                                       "type": u.unit_type}
    else:
        stats = {"power": u.power, "empower cost": u.card.empower_cost}
    states = [name for name, on in (("attacking", u.attacking), ("blocking", u.blocking >= 0),
                                    ("exhausted", u.exhausted), ("not ready", u.is_unit and not u.ready),
                                    ("shield up", u.st.get("shield", 0))) if on]
    states += [f"{name} {u.st[key]}" for key, name in (("poison", "poisoned"), ("sleep", "asleep")) if u.st.get(key)]
    items = [f"item: {i.name}" for i in u.items]
    text = " ".join([card.text] + [f"{i.name}: {card_text(i, m.pool)}" for i in u.items]).strip()
    return Face(card.name, card.cost, text, stats, keywords(u.kw) + tuple(states + items))


def fifth_aeon_view(state, perspective: int | None) -> View:
    """What ``perspective`` (a player, or None) sees of ``state`` (module docstring)."""
    m = state.match
    seats, zones = [], []
    for p in range(2):
        side = m.sides[p]
        seats.append(Seat(f"player {p}", {"life": side.life, "energy": f"{side.energy}/{side.max_energy}",
                                          **dict(zip(RESOURCES, side.res)), "hand": len(side.hand),
                                          "deck": len(side.deck), "crypt": len(side.crypt)}))
        hand = tuple(face(m, m.card(cid), (d, l)) if p == perspective or known else Face.unseen()
                     for (cid, d, l), known in zip(side.hand, side.known))
        zones += [Zone(f"hand of player {p}", hand, p),
                  Zone(f"board of player {p}", tuple(permanent(m, u) for u in m.board[p]), p),
                  Zone(f"crypt of player {p}", tuple(face(m, m.card(c)) for c in side.crypt), p)]
    counters: dict[str, int | str] = {"turn": m.turn, "turn player": m.turn_player, "phase": phase_name(m)}
    if m.pend is not None:  # a card being played is shown to both players
        counters["playing"] = m.card(m.sides[m.turn_player].hand[m.pend[0]][0]).name
    if m.choices:
        c = m.choices[0]
        counters["choice"] = f"player {c.player}: {_choice_group(c.kind)}"
        if choice_public(m, perspective):
            zones.append(Zone(f"choice of player {c.player}", tuple(face(m, m.card(o)) for o in c.options),
                              c.player))
    shown = () if perspective is None else (perspective,)
    return View("Fifth Aeon", status_line(state), perspective, render_text(m, shown), tuple(seats), tuple(zones),
                counters=counters)


def _choice_group(kind: str) -> str:
    return "eat" if kind.startswith("consume:") else CHOICE_GROUPS[kind]


def _board_labels(m: Match, p: int) -> list[str]:
    """Labels of the 14 board positions in ``p``'s frame (own 0..6, then the opponent's), unique on each side."""
    def side(q: int) -> list[str]:
        units = numbered([f"{u.card.name} {u.attack}/{u.life}" if u.is_unit else f"{u.card.name} (power {u.power})"
                          for u in m.board[q]])
        return units + [""] * (BOARD_SLOTS - len(units))
    return side(p) + side(1 - p)


def action_path(state, a: int) -> tuple[str, ...]:
    """The menu path of a legal action (module docstring)."""
    m = state.match
    p = m.acting
    if a < L.CHOICE_DONE:
        c = m.choices[0]
        return _choice_group(c.kind), numbered([m.card(o).name for o in c.options])[a - L.OPTION]
    if a == L.CHOICE_DONE:
        return ("done choosing",)
    if a < L.PLAY:
        return "resource", RESOURCES[a - L.RESOURCE]
    if a < L.TARGET:
        return "play", numbered([m.card(cid).name for cid, _, _ in m.sides[p].hand])[a - L.PLAY]
    if a == L.PASS:
        if m.phase == BLOCK:
            return ("done blocking",)
        return ("go to combat",) if m.phase == PLAY1 and any(u.attacking for u in m.board[p]) else ("end the turn",)
    if a == L.NO_TARGET:
        return ("no target",)
    labels = _board_labels(m, p)
    own = [f"your {x}" for x in labels[:BOARD_SLOTS]] + [f"enemy {x}" for x in labels[BOARD_SLOTS:]]
    if a < L.NO_TARGET:
        return "attach to" if m.pend[2] == "host" else "target", own[a - L.TARGET]
    if a < L.DIMINISH:
        return "empower", labels[a - L.EMPOWER]
    if a < L.ATTACK:
        return "diminish", labels[BOARD_SLOTS + a - L.DIMINISH]
    if a < L.BLOCK:
        return "attack with", labels[a - L.ATTACK]
    if a < L.ORDER:
        blocker, attacker = divmod(a - L.BLOCK, BOARD_SLOTS)
        return "block", own[BOARD_SLOTS + attacker], f"with {labels[blocker]}"
    return "damage next", labels[BOARD_SLOTS + a - L.ORDER]


def action_seen(state, a: int, perspective: int | None) -> str:
    """The log line of ``a`` as ``perspective`` sees it: the move in words (an option of a hidden choice as "a
    card"), then the cards it makes each player draw, named only where ``perspective`` sees them ("player 1
    draws 2 cards"; "player 0 draws Crawling Zombie")."""
    m = state.match
    actor = m.acting
    text = state.action_to_string(a)
    if a < L.CHOICE_DONE and not choice_public(m, perspective):
        c = m.choices[0]
        if c.slots is None or not m.sides[actor].known[c.slots[a - L.OPTION]]:
            text = "choose a card"
    after = m.copy()
    moves.apply(after, a)
    lines = [f"player {actor}: {text}"]
    for p in range(2):
        old = {id(h) for h in m.sides[p].hand}  # the entries kept are the same objects; new ones are drawn
        new = [(h[0], k) for h, k in zip(after.sides[p].hand, after.sides[p].known) if id(h) not in old]
        named = [m.card(cid).name for cid, known in new if p == perspective or known]
        hidden = len(new) - len(named)
        if named:
            lines.append(f"player {p} draws {', '.join(named)}")
        if hidden:
            lines.append(f"player {p} draws {'a card' if hidden == 1 else f'{hidden} cards'}")
    return "; ".join(lines)

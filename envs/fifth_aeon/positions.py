"""Hand-built Fifth Aeon positions for rules tests and examples.

``build_position`` sets up a match in a play phase with the given hands, boards, resources, life and decks (the
mulligans skipped); ``play`` plays a card from hand by id with its host and target given as permanents, and
``unit`` / ``find`` look permanents up by card id. Card ids are those of ``cards.json``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidParameterError
from . import layout as L
from .constants import BOARD_SLOTS
from . import moves
from .effects import enter, new_perm, update_auras
from .board import PLAY1, Match, Perm, refresh
from .state import FifthAeonGame, FifthAeonState

_PERM_KEYS = {"card", "attack", "life", "hurt", "power", "ready", "exhausted", "poison", "sleep", "shield", "items"}


def build_position(*, turn_player: int = 0, hands: Sequence[Sequence[str]] = ((), ()),
                   boards: Sequence[Sequence[str | dict[str, Any]]] = ((), ()), life: Sequence[int] = (25, 25),
                   energy: Sequence[int] | None = None, resources: Sequence[Sequence[int]] = ((6, 6, 6, 6),) * 2,
                   decks: Sequence[Sequence[str]] = (("Minotaur",) * 20, ("Minotaur",) * 20),
                   played_resource: bool = True, phase: int = PLAY1, turn: int = 10,
                   game: FifthAeonGame | None = None) -> FifthAeonState:
    """A position in ``phase`` (Play1) of ``turn_player``'s turn, no choice pending.

    resources: per player (synthesis, growth, decay, renewal) counts; maximum energy is their sum and ``energy``
    (default: the maximum) what is left this turn. boards: card ids, or ``{"card", "attack", "life", "hurt",
    "power", "ready", "exhausted", "poison", "sleep", "shield", "items": [item ids]}`` (omitted: printed values;
    units are ready, so they can attack). Permanents enter without their Play mechanics, in order, so auras and
    enters-play triggers of earlier ones apply to later ones as in play.
    """
    game = game or FifthAeonGame(("March of Undeath", "March of Undeath"))
    m = Match(game.pool, (list(decks[0]), list(decks[1])))
    m.turn_player, m.turn, m.phase = turn_player, turn, phase
    for p in range(2):
        side = m.sides[p]
        side.life = life[p]
        side.res = list(resources[p])
        side.max_energy = sum(side.res)
        side.energy = side.max_energy if energy is None else energy[p]
        side.played_resource = played_resource if p == turn_player else False
        for cid in hands[p]:
            game.pool[cid]
            side.hand.append((cid, 0, 0))
            side.known.append(False)
    for p in range(2):
        for spec in boards[p]:
            spec = {"card": spec} if isinstance(spec, str) else dict(spec)
            unknown = set(spec) - _PERM_KEYS
            if unknown:
                raise InvalidParameterError(f"board spec {spec!r}: unknown fields {sorted(unknown)}")
            u = new_perm(m, game.pool[spec["card"]], p)
            enter(m, u, None, play_effects=False)
            for item in spec.get("items", ()):
                moves.attach(m, u, game.pool[item])
            refresh(u)
            if "attack" in spec:
                u.dmg = spec["attack"] - u.aura_d
            if "life" in spec:
                u.max_life = spec["life"] - u.aura_l
            u.hurt = spec.get("hurt", 0)
            if "power" in spec:
                u.power = spec["power"]
            u.ready = spec.get("ready", True)
            u.exhausted = spec.get("exhausted", False)
            for key in ("poison", "sleep", "shield"):
                if key in spec:
                    u.st[key] = spec[key]
    update_auras(m)
    return FifthAeonState(game, m)


def find(state: FifthAeonState, card_id: str, player: int | None = None) -> list[Perm]:
    """The permanents with card ``card_id`` (of ``player`` when given), in board order."""
    m = state.match
    sides = (player,) if player is not None else (0, 1)
    return [u for p in sides for u in m.board[p] if u.card.id == card_id]


def unit(state: FifthAeonState, card_id: str, player: int | None = None) -> Perm:
    """The one permanent with card ``card_id`` (of ``player``); ``LookupError`` unless exactly one."""
    found = find(state, card_id, player)
    if len(found) != 1:
        raise LookupError(f"{len(found)} permanents {card_id!r} on the board, expected 1")
    return found[0]


def play(state: FifthAeonState, card_id: str, target: Perm | None = None, host: Perm | None = None) -> None:
    """The acting player plays ``card_id`` from hand (the first copy), choosing ``host`` (items) and ``target``
    (a chosen targeter; None plays an optional one with no target) through the legal actions."""
    m = state.match
    p = m.acting
    slot = [c for c, _, _ in m.sides[p].hand].index(card_id)
    state.apply(L.PLAY + slot)
    if host is not None:
        state.apply(L.TARGET + moves.position(m, p, host))
    if state.phase == "target":
        state.apply(L.NO_TARGET if target is None else L.TARGET + moves.position(m, p, target))


def attack_and_block(state: FifthAeonState, attackers: Sequence[Perm], blocks: Sequence[tuple[Perm, Perm]] = ()) -> None:
    """The turn player declares ``attackers`` and passes; the defender makes ``blocks`` (blocker, attacker) and
    passes; damage orders, if asked, are taken in board order. Combat is then resolved."""
    m = state.match
    t = m.turn_player
    for a in attackers:
        state.apply(L.ATTACK + m.board[t].index(a))
    state.apply(L.PASS)
    if state.phase == "block":
        for b, a in blocks:
            state.apply(L.BLOCK + BOARD_SLOTS * m.board[1 - t].index(b) + m.board[t].index(a))
        state.apply(L.PASS)
    while state.phase == "order":
        state.apply(int(state.legal_actions()[0]))

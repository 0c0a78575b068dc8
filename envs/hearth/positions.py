"""Hand-built Hearth positions for rules tests and examples.

``build_position`` writes a position straight into a state array: hands,
boards (with any stats and flags), heroes, weapons, secrets and the decks'
remaining cards, then computes auras. Card names are the data file's. The module also holds the action-id
and inspection helpers the rules tests share (``own``, ``attack``, ``legal``, ``outcomes``, ``play``, ...).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import CardDataError, IllegalActionError, InvalidParameterError
from ..protocol import CHANCE
from . import layout as L
from . import rules as R
from .state import HearthGame, HearthState

_ORIGINS = {"deck": L.ORIGIN_DECK, "known": L.ORIGIN_KNOWN, "spare_part": L.ORIGIN_SPARE_PART}
_MINION_FLAGS = {"taunt": L.FL_TAUNT, "divine_shield": L.FL_DIVINE_SHIELD, "stealth": L.FL_STEALTH,
                 "frozen": L.FL_FROZEN, "silenced": L.FL_SILENCED, "exhausted": L.FL_EXHAUSTED}
_MINION_KEYS = {"card", "attack", "health", "max_health", "attacks", *_MINION_FLAGS}
_HERO_KEYS = {"health", "max_health", "mana", "max_mana", "weapon", "weapon_attack", "durability", "frozen", "trap",
              "power_used", "jaraxxus", "fatigue", "spell_tax"}


def _card_id(game: HearthGame, name: str) -> int:
    for i, n in enumerate(game.names):
        if n == name and game.cards[i, L.F_TYPE] != L.TYPE_HERO:
            return i
    raise CardDataError(f"unknown card name {name!r}")


def _spec(item: str | dict, keys: set[str], what: str) -> dict:
    spec = {"card": item} if isinstance(item, str) else dict(item)
    unknown = set(spec) - keys
    if unknown:
        raise InvalidParameterError(f"{what} spec {item!r}: unknown fields {sorted(unknown)}; known: {sorted(keys)}")
    return spec


def build_position(decks: Sequence[str] = ("mech_mage", "mech_mage"), *, to_move: int = 0,
                   hands: Sequence[Sequence[str | dict]] = ((), ()),
                   boards: Sequence[Sequence[str | dict]] = ((), ()),
                   heroes: Sequence[dict[str, Any]] = ({}, {}),
                   deck_cards: Sequence[Sequence[str] | None] = (None, None), turn: int = 4) -> HearthState:
    """A position in the main phase with ``to_move`` acting.

    hands: card names or ``{"card", "cost_delta", "origin": "deck"|"known"|"spare_part"}``; boards: card names
    or ``{"card", "attack", "health", "max_health", "attacks", "taunt", "divine_shield", "stealth", "frozen",
    "silenced", "exhausted"}`` (omitted: printed values; minions can attack unless ``exhausted``); heroes:
    ``{"health", "max_health", "mana", "max_mana", "weapon", "weapon_attack", "durability", "frozen", "trap",
    "power_used", "jaraxxus", "fatigue", "spell_tax"}``; deck_cards: None for the deck list minus the hand
    cards found in it, or the exact list of names left in the deck.
    """
    game = HearthGame(tuple(decks), mulligan=False)
    s = game.empty_state()
    s[L.G_PLAYER] = to_move
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_TURN] = turn
    uid = 0
    for p in range(2):
        b = L.player_base(p)
        deck = np.bincount(game.deck_ids[p], minlength=L.NUM_CARDS)
        for slot, item in enumerate(hands[p]):
            spec = _spec(item, {"card", "cost_delta", "origin"}, "hand card")
            card = _card_id(game, spec["card"])
            s[b + L.P_HAND + slot] = card
            s[b + L.P_HAND_COST + slot] = spec.get("cost_delta", 0)
            s[b + L.P_HAND_ORIGIN + slot] = _ORIGINS[spec.get("origin", "deck")]
            if deck[card] > 0:
                deck[card] -= 1
        s[b + L.P_NHAND] = len(hands[p])
        if deck_cards[p] is not None:
            deck = np.bincount([_card_id(game, n) for n in deck_cards[p]], minlength=L.NUM_CARDS)
        s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS] = deck
        s[b + L.P_NDECK] = int(deck.sum())
        for pos, item in enumerate(boards[p]):
            spec = _spec(item, _MINION_KEYS, "minion")
            card = _card_id(game, spec["card"])
            m = L.minion_base(p, pos)
            s[m + L.M_CARD] = card
            s[m + L.M_ATK] = spec.get("attack", game.cards[card, L.F_ATK])
            s[m + L.M_MAXHP] = spec.get("max_health", max(spec.get("health", 0), game.cards[card, L.F_HP]))
            s[m + L.M_HP] = spec.get("health", game.cards[card, L.F_HP])
            flags = int(game.cards[card, L.F_KEYWORDS])
            for key, bit in _MINION_FLAGS.items():
                if key in spec:
                    flags = flags | bit if spec[key] else flags & ~bit
            s[m + L.M_FLAGS] = flags
            s[m + L.M_ATTACKS] = spec.get("attacks", 0)
            s[m + L.M_UID] = uid
            uid += 1
        s[b + L.P_NMIN] = len(boards[p])
        hero = _spec(heroes[p], _HERO_KEYS | {"card"}, "hero")
        hero.pop("card", None)
        if hero.get("jaraxxus"):
            s[b + L.P_HERO] = L.HERO_JARAXXUS
            s[b + L.P_MAXHP] = s[b + L.P_HP] = L.JARAXXUS_HEALTH
            s[b + L.P_POWER] = L.INFERNO
        s[b + L.P_MAXHP] = hero.get("max_health", s[b + L.P_MAXHP])
        s[b + L.P_HP] = hero.get("health", s[b + L.P_MAXHP])
        s[b + L.P_MANA] = hero.get("mana", 10)
        s[b + L.P_MAX_MANA] = hero.get("max_mana", max(hero.get("mana", 10), 1))
        if hero.get("weapon"):
            R.equip(s, game.cards, p, _card_id(game, hero["weapon"]))
            s[b + L.P_WEAPON_ATK] = hero.get("weapon_attack", s[b + L.P_WEAPON_ATK])
            s[b + L.P_WEAPON_DUR] = hero.get("durability", s[b + L.P_WEAPON_DUR])
        s[b + L.P_FROZEN] = int(bool(hero.get("frozen", False)))
        s[b + L.P_TRAP] = int(bool(hero.get("trap", False)))
        s[b + L.P_POWER_USED] = int(bool(hero.get("power_used", False)))
        s[b + L.P_FATIGUE] = hero.get("fatigue", 0)
        s[b + L.P_SPELL_TAX] = hero.get("spell_tax", 0)
    s[L.G_NEXT_UID] = uid
    R.update_auras(s, game.cards)
    return HearthState(game, s)


# ---- action ids and inspection helpers for the rules tests --------------------------------------------------------
# Ids are in the acting player's frame: ``TARGET + t`` (t: 0 own hero, 1..7 own minions, 8 enemy hero, 9..15 enemy
# minions) and ``ATTACK + 8a + d`` (a: 0 own hero, 1..7 own minion a-1; d: 0 enemy hero, 1..7 enemy minion d-1).
OWN_HERO, ENEMY_HERO = 0, 8  # target indices t of the heroes


def position(*, decks: Sequence[str] = ("face_hunter", "mech_mage"),
             deck_cards: Sequence[Sequence[str] | None] = (("Wolfrider",), ("Spider Tank",)),
             **kwargs: Any) -> HearthState:
    """``build_position`` for Face Hunter against Mech Mage, each deck one known card (a draw has one outcome)."""
    return build_position(decks, deck_cards=deck_cards, **kwargs)


def own(pos: int) -> int:
    """Target index t of the acting player's minion at board position ``pos``."""
    return 1 + pos


def enemy(pos: int) -> int:
    """Target index t of the enemy minion at board position ``pos``."""
    return 9 + pos


def attack(a: int, d: int) -> int:
    """ATTACK id: attacker a (0 hero, 1..7 minion at a-1) at defender d (0 hero, 1..7 minion at d-1)."""
    return L.ATTACK + 8 * a + d


def attack_at(a_pos: int | None, d_pos: int | None) -> int:
    """ATTACK id by board position: own minion ``a_pos`` (None: the hero) at enemy minion ``d_pos`` (None: hero)."""
    return attack(0 if a_pos is None else 1 + a_pos, 0 if d_pos is None else 1 + d_pos)


def legal(state: HearthState) -> set[int]:
    """The legal action ids as a set of ints."""
    return {int(a) for a in state.legal_actions()}


def targets(state: HearthState) -> set[int]:
    """The legal t of ``TARGET + t`` (the state is in the "target" phase)."""
    return {a - L.TARGET for a in legal(state) if L.TARGET <= a < L.TARGET + 16}


def attack_targets(state: HearthState, a: int) -> set[int]:
    """The defenders d that attacker a may attack now."""
    return {(x - L.ATTACK) % 8 for x in legal(state) if L.ATTACK <= x < L.ATTACK + 64 and (x - L.ATTACK) // 8 == a}


def outcomes(state: HearthState) -> dict[int, float]:
    """The chance node's outcomes and their probabilities (which sum to 1)."""
    assert state.current_player == CHANCE
    out = {int(o): float(p) for o, p in state.chance_outcomes()}
    assert math.isclose(sum(out.values()), 1.0)
    return out


def hand_names(state: HearthState, p: int) -> list[str]:
    """The card names in player p's hand, by slot."""
    return [state.game.names[int(c)] for c in state.hand(p)]


def slot(state: HearthState, card: str) -> int:
    """Hand slot of the first copy of ``card`` (a name) in the acting player's hand."""
    return hand_names(state, state.current_player).index(card)


def board(state: HearthState, p: int) -> list[str]:
    """The names of player p's minions, left to right."""
    return [m["name"] for m in state.minions(p)]


def stats(state: HearthState, p: int) -> list[tuple[int, int]]:
    """(attack, health) of player p's minions, left to right."""
    return [(m["attack"], m["health"]) for m in state.minions(p)]


def hp(state: HearthState, p: int) -> int:
    """Player p's hero health."""
    return state.hero(p)["health"]


def play(state: HearthState, card: str, target: int | None = None) -> HearthState:
    """The acting player plays (the first copy in hand of) ``card``, then picks ``TARGET + target`` if given."""
    state.apply(L.PLAY + slot(state, card))
    if target is not None:
        assert state.phase == "target", f"{card} asks for no target"
        state.apply(L.TARGET + target)
    return state


def end_turn(state: HearthState) -> HearthState:
    """END_TURN; the next player's draw comes from a one-kind deck, so it must resolve without a chance node."""
    state.apply(L.END_TURN)
    assert state.current_player != CHANCE, "the test decks hold one kind of card: the draw must not stop"
    return state


def assert_illegal(state: HearthState, action: int) -> None:
    """An illegal id is not in the mask, raises IllegalActionError and leaves ``state.s`` byte-identical."""
    before = state.s.tobytes()
    assert action not in legal(state)
    assert not state.action_mask()[action]
    try:
        state.apply(action)
    except IllegalActionError:
        pass
    else:
        raise AssertionError(f"action {action} was applied")
    assert state.s.tobytes() == before

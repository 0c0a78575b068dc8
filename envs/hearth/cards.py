"""Card data and deck lists of the Hearthstone-style game (paper 001, the 2015 Blackrock-era decks).

``brm_cards.json`` holds every card of the three decks of paper 001 Appendix A,
the tokens and generated cards they create and the hero powers, with their
mid-2015 statistics (a copy of ``shared/data/hearthstone_brm_cards.json``:
facts only; its ``later_changes`` record later patches, which the game must not
use). A deck file names a class and its cards *by name* with copy counts; it is
validated as the game's deck-building rules say: 30 cards, at most 2 copies of
a card and 1 of a legendary, collectible cards of the deck's class or neutral.
Every violation raises ``CardDataError`` naming the file, the entry (``cards[3]``: the fourth, in file order)
and the problem; a value from the file is shown only as ``files.quoted``'s glimpse of it.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import CardDataError, UnknownNameError
from ..files import errors_as, parse_json, quoted, read_json, resource_text
from . import layout as L

DECK_SIZE = 30  # paper 001 §2.1: "each player has a constructed 30-card deck"
MAX_COPIES = 2  # deck-building rule of the real game (not stated in the paper)
MAX_LEGENDARY_COPIES = 1
CARD_TYPES = ("minion", "spell", "weapon", "hero", "hero_power")
CLASSES = ("Mage", "Warlock", "Hunter")
HERO_POWERS = {"Mage": "Fireblast", "Warlock": "Life Tap", "Hunter": "Steady Shot"}
DECK_NAMES = ("mech_mage", "handlock", "face_hunter")

# Each card's rules text as a player reads it, in our own words (the data file holds no text; the effects are
# those the README lists and ``rules`` implements), by card id; an empty text: a card with no effect.
CARD_TEXT = {
    "GVG_082": "Deathrattle: add a random Spare Part to your hand.",
    "GVG_013": "Has +2 Attack while you have a Mech.",
    "NEW1_012": "Whenever you cast a spell, gain +1 Attack.",
    "GVG_085": "Taunt. Divine Shield.",
    "CS2_024": "Deal 3 damage to a character and Freeze it.",
    "GVG_006": "Your Mechs cost (1) less.",
    "GVG_002": "Freeze any character damaged by this minion.",
    "CS2_023": "Draw 2 cards.",
    "EX1_556": "Deathrattle: summon a 2/1 Damaged Golem.",
    "GVG_044": "",
    "GVG_102": "Battlecry: if you have a Mech, gain +1/+1 and add a Spare Part to your hand.",
    "CS2_029": "Deal 6 damage.",
    "GVG_004": "Battlecry: if you have a Mech, deal 4 damage randomly split among all enemies.",
    "GVG_078": "Deathrattle: give each player a Spare Part.",
    "FP1_030": "Battlecry: enemy spells cost (5) more next turn.",
    "EX1_559": "Whenever you cast a spell, add a Fireball to your hand.",
    "GVG_110": "Battlecry: summon a 1/1 Boom Bot on each side of this minion.",
    "CS2_032": "Deal 4 damage to all enemy minions.",
    "EX1_302": "Deal 1 damage to a minion. If that kills it, draw a card.",
    "EX1_045": "Can't attack.",
    "GVG_015": "Deal 3 damage.",
    "EX1_058": "Battlecry: give adjacent minions Taunt.",
    "CS2_203": "Battlecry: Silence a minion.",
    "EX1_093": "Battlecry: give adjacent minions +1/+1 and Taunt.",
    "CS2_062": "Deal 3 damage to ALL characters.",
    "EX1_303": "Destroy a friendly minion and deal its Attack damage to all enemy minions.",
    "EX1_043": "Battlecry: gain +1 Health for each card in your hand.",
    "FP1_022": "Deathrattle: put a random Demon from your hand into the battlefield.",
    "GVG_069": "Battlecry: restore 8 Health to your hero.",
    "EX1_005": "Battlecry: destroy a minion with 7 or more Attack.",
    "FP1_012": "Taunt. Deathrattle: summon a 1/2 Slime with Taunt.",
    "BRM_028": "At the end of your turn, reduce the cost of cards in your hand by (1).",
    "EX1_309": "Destroy a minion. Restore 3 Health to your hero.",
    "EX1_016": "Deathrattle: take control of a random enemy minion.",
    "EX1_323": "Battlecry: destroy your hero and replace it with Lord Jaraxxus (15 Health, a 3/8 Blood Fury, "
               "the hero power INFERNO!).",
    "GVG_021": "Your other Demons have +2/+2. Your hero is Immune.",
    "EX1_105": "Costs (1) less for each other card in your hand.",
    "EX1_620": "Costs (1) less for each damage your hero has taken.",
    "CS2_188": "Battlecry: give a minion +2 Attack this turn.",
    "EX1_029": "Deathrattle: deal 2 damage to the enemy hero.",
    "CS2_146": "Has Charge while you have a weapon equipped.",
    "EX1_010": "Stealth.",
    "EX1_610": "Secret: when your hero is attacked, deal 2 damage to all enemies.",
    "GVG_043": "Battlecry: give a random friendly minion +1 Attack.",
    "FP1_002": "Deathrattle: summon two 1/1 Spectral Spiders.",
    "NEW1_019": "After you summon a minion, deal 1 damage to a random enemy.",
    "FP1_004": "Deathrattle: put a Secret from your deck into the battlefield.",
    "BRM_013": "Deal 3 damage. If your hand is empty, draw a card.",
    "NEW1_031": "Summon a random Beast Companion: Huffer, Leokk or Misha.",
    "EX1_089": "Charge. Battlecry: give your opponent a Mana Crystal.",
    "EX1_536": "Whenever a friendly Secret is revealed, gain +1 Durability.",
    "EX1_539": "Deal 3 damage. If you have a Beast, deal 5 damage instead.",
    "EX1_538": "For each enemy minion, summon a 1/1 Hound with Charge.",
    "CS2_124": "Charge.",
    "EX1_116": "Charge. Battlecry: summon two 1/1 Whelps for your opponent.",
    "PART_001": "Give a minion +1 Health.",
    "PART_002": "Return a friendly minion to your hand.",
    "PART_003": "Give a minion Taunt.",
    "PART_004": "Give a friendly minion Stealth until your next turn.",
    "PART_005": "Freeze a minion.",
    "PART_006": "Swap a minion's Attack and Health.",
    "PART_007": "Give a minion +1 Attack.",
    "GVG_110t": "Deathrattle: deal 1-4 damage to a random enemy.",
    "skele21": "",
    "FP1_002t": "",
    "NEW1_034": "Charge.",
    "NEW1_033": "Your other minions have +1 Attack.",
    "NEW1_032": "Taunt.",
    "EX1_538t": "Charge.",
    "EX1_116t": "",
    "FP1_012t": "Taunt.",
    "EX1_tk34": "",
    "EX1_323w": "",
    "EX1_323h": "Your hero: 15 Health.",
    "GAME_005": "Gain 1 Mana Crystal this turn only.",
    "CS2_034": "Hero Power: deal 1 damage.",
    "CS2_056": "Hero Power: draw a card and take 2 damage.",
    "DS1h_292": "Hero Power: deal 2 damage to the enemy hero.",
    "EX1_tk33": "Hero Power: summon a 6/6 Infernal.",
}
SPARE_PART_TEXT = "A random Spare Part: one of the 7 one-mana spells."

_DATA = "brm_cards.json"
_REQUIRED = {"id": str, "name": str, "type": str, "player_class": str, "collectible": bool, "legendary": bool,
             "cost": int, "mechanics": list}


@dataclass(frozen=True)
class Card:
    """One card's printed statistics (mid-2015). ``health`` is a weapon's durability."""

    id: str
    name: str
    type: str
    player_class: str
    cost: int
    attack: int = 0
    health: int = 0
    race: str | None = None
    mechanics: tuple[str, ...] = ()
    collectible: bool = True
    legendary: bool = False


@dataclass(frozen=True)
class CardPool:
    """Every card the game knows, by id and by name (names are unique except the Jaraxxus minion/hero pair)."""

    cards: tuple[Card, ...]

    def by_name(self, name: str, source: str = "") -> Card:
        """The collectible-first card of this name; an unknown name raises ``CardDataError`` with suggestions."""
        matches = sorted((c for c in self.cards if c.name == name), key=lambda c: not c.collectible)
        if matches:
            return matches[0]
        names = sorted({c.name for c in self.cards})
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else f"; known: {', '.join(names)}"
        raise CardDataError(f"{source or 'card pool'}: unknown card name {quoted(name)}{hint}")


@dataclass(frozen=True)
class Deck:
    """A validated deck: its name, class, and 30 cards (one entry per physical card, in file order)."""

    name: str
    player_class: str
    cards: tuple[Card, ...]

    @property
    def hero_power(self) -> str:
        return HERO_POWERS[self.player_class]


def load_pool(path: str | Path | None = None) -> CardPool:
    """The card pool from ``path`` (default: the packaged ``brm_cards.json``), every field checked."""
    source = str(path) if path is not None else _DATA
    data = _read_json(path if path is not None else resources.files(__package__).joinpath(_DATA), source)
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise CardDataError(f"{source}: expected an object with a 'cards' list")
    cards = tuple(_card(entry, f"{source}: cards[{i}]") for i, entry in enumerate(data["cards"]))
    first: dict[str, int] = {}
    for i, card in enumerate(cards):
        if first.setdefault(card.id, i) != i:
            raise CardDataError(f"{source}: cards[{i}]: the id of cards[{first[card.id]}] again")
    return CardPool(cards)


def load_deck(deck: str | Path, pool: CardPool | None = None) -> Deck:
    """A deck by packaged name (``mech_mage``, ``handlock``, ``face_hunter``) or from a JSON file, validated."""
    pool = pool or load_pool()
    if isinstance(deck, str) and deck in DECK_NAMES:
        source = f"decks/{deck}.json"
        data = _read_json(resources.files(__package__).joinpath(source), source)
    elif isinstance(deck, (str, Path)) and Path(deck).suffix == ".json":
        source = str(deck)
        data = _read_json(deck, source)
    else:
        raise UnknownNameError("deck", deck, DECK_NAMES)
    return _deck(data, pool, source)


def _read_json(path, source: str):
    """The JSON of a card or deck file (a path, checked by ``files``) or of a bundled resource."""
    with errors_as(CardDataError):
        if isinstance(path, (str, Path)):
            return read_json(path, what="card or deck file")
        return parse_json(resource_text(path), source)


def _card(entry: object, where: str) -> Card:
    if not isinstance(entry, dict):
        raise CardDataError(f"{where}: a card entry must be an object, got {quoted(entry)}")
    for field, kind in _REQUIRED.items():
        if not isinstance(entry.get(field), kind) or (kind is int and isinstance(entry.get(field), bool)):
            raise CardDataError(f"{where}: field {field!r} must be {kind.__name__}, got {quoted(entry.get(field))}")
    if entry["type"] not in CARD_TYPES:
        raise CardDataError(f"{where}: type {quoted(entry['type'])} is not one of {CARD_TYPES}")
    stat_fields = {"minion": ("attack", "health"), "weapon": ("attack", "durability"), "hero": ("health",)}
    for field in stat_fields.get(entry["type"], ()):
        value = entry.get(field)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CardDataError(f"{where}: a {entry['type']} needs a non-negative integer {field!r}, got "
                                f"{quoted(value)}")
    if entry["cost"] < 0:
        raise CardDataError(f"{where}: cost must be >= 0, got {entry['cost']}")
    return Card(entry["id"], entry["name"], entry["type"], entry["player_class"], entry["cost"],
                int(entry.get("attack") or 0), int(entry.get("health", entry.get("durability")) or 0),
                entry.get("race"), tuple(entry["mechanics"]), entry["collectible"], entry["legendary"])


def _deck(data: object, pool: CardPool, source: str) -> Deck:
    if not isinstance(data, dict) or not isinstance(data.get("cards"), dict):
        raise CardDataError(f"{source}: expected an object with 'name', 'class' and a 'cards' object of name: copies")
    player_class = data.get("class")
    if player_class not in CLASSES:
        raise CardDataError(f"{source}: class {quoted(player_class)} is not one of {CLASSES}")
    cards: list[Card] = []
    for i, (name, copies) in enumerate(data["cards"].items()):
        where = f"{source}: cards[{i}]"
        card = pool.by_name(name, where)
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            raise CardDataError(f"{where}: {card.name!r} needs a positive integer number of copies, got "
                                f"{quoted(copies)}")
        limit = MAX_LEGENDARY_COPIES if card.legendary else MAX_COPIES
        if copies > limit:
            raise CardDataError(f"{where}: {copies} copies of {card.name!r}; at most {limit} of a "
                                f"{'legendary' if card.legendary else 'card'}")
        if not card.collectible or card.type in ("hero", "hero_power"):
            raise CardDataError(f"{where}: {card.name!r} is not a collectible card and cannot be put in a deck")
        if card.player_class not in ("Neutral", player_class):
            raise CardDataError(f"{where}: {card.name!r} is a {card.player_class} card, the deck is {player_class}")
        cards += [card] * copies
    if len(cards) != DECK_SIZE:
        raise CardDataError(f"{source}: a deck has {DECK_SIZE} cards, this one has {len(cards)}")
    return Deck(str(data.get("name", Path(source).stem)), player_class, tuple(cards))


_TYPE_CODES = {"minion": L.TYPE_MINION, "spell": L.TYPE_SPELL, "weapon": L.TYPE_WEAPON, "hero": L.TYPE_HERO,
               "hero_power": L.TYPE_POWER}


def build_card_table(pool: CardPool) -> np.ndarray:
    """The int table the compiled rules read: one row per card id of ``layout.CARD_IDS`` (fields ``F_*``)."""
    by_id = {c.id: c for c in pool.cards}
    missing = [cid for cid in L.CARD_IDS if cid not in by_id]
    if missing:
        raise CardDataError(f"card pool: the game needs cards {missing}, which the data file lacks")
    table = np.zeros((L.NUM_CARDS, L.NUM_FIELDS), dtype=np.int32)
    targets = {**L.SPELL_TARGETS, **L.BATTLECRY_TARGETS}
    for i, cid in enumerate(L.CARD_IDS):
        card = by_id[cid]
        if card.race not in L.RACES:
            raise CardDataError(f"card pool: card {cid!r} has unknown race {quoted(card.race)}")
        keywords = 0
        for mechanic in card.mechanics:
            keywords |= L.KEYWORD_BITS.get(mechanic, 0)
        if card.legendary:
            level = L.LEVEL_LEGENDARY
        elif card.type == "minion" and {"Battlecry", "Aura"} & set(card.mechanics):
            level = L.LEVEL_AURA_BATTLECRY
        else:
            level = L.LEVEL_OTHER
        table[i] = (card.cost, card.attack, card.health, _TYPE_CODES[card.type], L.RACES[card.race], keywords,
                    targets.get(i, L.TGT_NONE), level)
    return table

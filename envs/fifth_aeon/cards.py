"""Fifth Aeon's card pool and decks, as data.

``cards.json`` (a copy of ``shared/data/fifthaeon_cards.json``) holds the 137 collectible cards and the Statue token
as the game's model defines them: energy cost, resource thresholds, stats, unit type, the card's targeter and its
mechanics (an id, a trigger, parameters and an optional targeter of its own). A card is data: what a mechanic *does*
is one small function in ``effects``, what a targeter picks is one in ``targeters``. A ``CardPool`` may be extended
with the user's own cards (``CardPool.with_cards``, the balancer's variants) in the same JSON form.

``decks.json`` holds the 12 built-in decks (40 cards each). A deck is a name from it or a JSON file
``{"name": ..., "cards": {"CardId": count, ...}}`` (or the built-in list form); a deck with an unknown card, more
than 4 copies of a card or a size outside 40-50 raises ``CardDataError`` naming the file, the entry (``cards[3]``:
the fourth, in file order) and the problem, a value read from the file shown only as ``files.quoted``'s glimpse.
"""
from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from ..errors import CardDataError
from ..files import errors_as, parse_json, quoted, read_json, resource_text
from .constants import DECK_MAX, DECK_MIN, MAX_COPIES, RESOURCES

CARD_TYPES = ("unit", "item", "spell", "enchantment")
MECHANICAL_TYPES = frozenset({"Automaton", "Structure", "Vehicle"})  # rules: "Mechanical"; every other is biological

# The ids card data may name: what each does is in ``effects`` (``EFFECTS``) and ``targeters`` (``SINGLE``,
# ``AUTOMATIC``, ``HOSTS``), whose keys are these sets (tests/test_imports.py checks it).
STATIC = frozenset({  # keywords and passive abilities read by the rules (no trigger)
    "Flying", "Ranged", "Aquatic", "Unblockable", "Rush", "Lifesteal", "Lethal", "Shielded", "Relentless",
    "Deathless", "Immortal", "Venomous", "PoisonImmune", "robotic", "CannotAttack", "CannotBlock", "SpyPower",
    "DamageOnBlock", "SummonUnitOnDamage", "DiscardOnDamage", "TransformDamaged", "ForceField", "PreventAllDamage",
    "DeathCounter", "CannotBeEmpowered", "Discharge", "FriendlyLordship", "UnitTypeLordshipInclusive",
    "UnitTypeLordshipExclusive", "UnitTypeLordshipAll", "NotUnitTypeLordship",
})
TRIGGERS = frozenset({"Play", "Death", "SoulReap", "Dawn", "Dusk", "Cycle", "Serenity", "Affinity", "LethalStrike",
                      "FriendlyUnitEntersPlay", "FriendlyMechUnitEntersPlay", "FriendlyBioUnitEntersPlay",
                      "OwnerDrawsUnit"})
MECHANICS = frozenset({  # triggered effects
    "AbominationConsume", "Annihilate", "AugarCard", "BiteDamage", "BuffTarget", "CurePoison", "DamageSpawnOnKill",
    "DealDamage", "DealResourceDamage", "Discard", "DrainPowerIntoStats", "DrawCard", "DrawCardsFromUnit",
    "EnchantmentSummon", "GainLife", "GainResource", "GrantAbility", "ImprisonTemporarily", "KillTarget",
    "MindControl", "Peek", "PoisonTarget", "RefreshTarget", "ReturnFromCrypt", "ShuffleIntoDeck", "SleepTarget",
    "SummonUnitForGrave", "SummonUnits", "WebTarget", "WinIfHighLife",
})
CHOSEN_TARGETERS = frozenset({  # the player picks one unit
    "BiologicalUnit", "CurePoisonTargeter", "DamagedUnit", "EnemyUnit", "FriendlyUnit", "MechanicalUnit",
    "PoisonableUnit", "RenewalMindControl", "SingleUnit", "SleepableUnit", "UnitWithAbility", "UnitsOfTypeAsTarget",
})
AUTOMATIC_TARGETERS = frozenset({  # computed from the board (UnitsOfTypeAsTarget widens a chosen unit)
    "AllEnchantments", "AllOtherUnits", "AllPermanents", "AllUnits", "Enemies", "EnemyPlayer", "EnemyUnits",
    "FriendlyBiologicalUnits", "FriendlyUnits", "FriendlyUnitsOfType", "LifeLessUnits", "OwningPlayer", "SelfTarget",
    "TriggeringUnit", "UnitsNotOfType", "UnitsOfType", "UnitsOfTypeAsTarget", "Untargeted",
})
TARGETERS = CHOSEN_TARGETERS | AUTOMATIC_TARGETERS
HOST_TARGETERS = frozenset({"FriendlyUnit", "FriendlyVehicleOrStructure"})  # an item's possible hosts


@dataclass(frozen=True)
class Targeter:
    """Who a card or mechanic targets: ``id`` (see ``targeters``), ``optional`` and the targeter's own parameters
    (``life`` of LifeLessUnits, ``unit_type`` of UnitsOfType, ``ability`` of UnitWithAbility)."""

    id: str = "Untargeted"
    optional: bool = False
    life: int = 0
    unit_type: str = ""
    ability: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> "Targeter | None":
        if data is None:
            return None
        tid = str(data["id"])
        if tid.startswith("(unregistered class RenewalMCTargeter)"):
            tid = "RenewalMindControl"  # Call of Justice's targeter class, never registered by name in the model
        optional = bool(data.get("optional", False)) or tid == "CurePoisonTargeter"  # the model: always optional
        return cls(tid, optional, int(data.get("life", 0)),
                   str(data.get("unit_type", data.get("unitType", ""))), str(data.get("abilityId", "")))


@dataclass(frozen=True)
class Mechanic:
    """One ability of a card: ``trigger`` None is a static ability (a keyword); ``targeter`` None inherits the
    card's."""

    id: str
    trigger: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    targeter: Targeter | None = None

    def param(self, name: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return default


@dataclass(frozen=True)
class Card:
    """A card's printed data. ``requirements`` are thresholds on (synthesis, growth, decay, renewal), never spent."""

    id: str
    name: str
    card_type: str
    energy: int
    requirements: tuple[int, int, int, int]
    faction: str = ""
    damage: int = 0  # a unit's attack, an item's attack bonus
    life: int = 0  # a unit's life, an item's life bonus
    unit_type: str = ""
    power: int = 0  # an enchantment's starting power
    empower_cost: int = 0
    targeter: Targeter = field(default_factory=Targeter)
    host_targeter: Targeter | None = None
    mechanics: tuple[Mechanic, ...] = ()
    collectible: bool = True

    @property
    def keywords(self) -> frozenset[str]:
        return frozenset(m.id for m in self.mechanics if m.trigger is None)

    @property
    def mechanical(self) -> bool:
        return self.unit_type in MECHANICAL_TYPES


def card_from_json(data: Mapping[str, Any], where: str | None = None) -> Card:
    """A ``Card`` from one entry of ``cards.json`` (the model's field names); ``CardDataError`` when malformed,
    naming the card by ``where`` (default: its id)."""
    where = where or f"card {quoted(data.get('id', '?') if isinstance(data, Mapping) else '?')}"
    try:
        ctype = data["card_type"]
        if ctype not in CARD_TYPES:
            raise CardDataError(f"{where}: card_type must be one of {CARD_TYPES}, got {quoted(ctype)}")
        cost = data["cost"]
        reqs = tuple(int(cost.get(r, 0)) for r in RESOURCES)
        mechs = tuple(Mechanic(str(m["id"]), m.get("trigger"), tuple(sorted((str(k), _frozen(v))
                                                                               for k, v in m.get("params", {}).items())),
                               Targeter.of(m.get("targeter")))
                      for m in data.get("mechanics", []))
        energy = int(cost["energy"])
        if energy < 0 or min(reqs) < 0:
            raise CardDataError(f"{where}: costs are non-negative, got energy {energy}, requirements {reqs}")
        bonus = ctype == "item"
        card = Card(
            id=str(data["id"]), name=str(data.get("name", data["id"])), card_type=ctype, energy=energy,
            requirements=reqs, faction=str(data.get("faction", "")),
            damage=int(data.get("damage_bonus" if bonus else "damage", 0) or 0),
            life=int(data.get("life_bonus" if bonus else "life", 0) or 0), unit_type=str(data.get("unit_type") or ""),
            power=int(data.get("power", 0) or 0), empower_cost=int(data.get("empower_cost", 0) or 0),
            targeter=Targeter.of(data.get("targeter")) or Targeter(), host_targeter=Targeter.of(data.get("host_targeter")),
            mechanics=mechs, collectible=bool(data.get("collectible", True)))
    except CardDataError:
        raise
    except KeyError as err:
        raise CardDataError(f"{where}: malformed card data (no field {quoted(err.args[0])})") from None
    except (TypeError, ValueError, AttributeError, OverflowError) as err:
        raise CardDataError(f"{where}: malformed card data (a field of the wrong type or value: "
                            f"{type(err).__name__})") from None
    if ctype == "unit" and card.life <= 0:
        raise CardDataError(f"{where}: a unit needs life > 0, got {card.life}")
    if ctype == "item" and card.host_targeter is None:
        raise CardDataError(f"{where}: an item needs a host_targeter")
    for m in card.mechanics:
        check_mechanic(card, m, where)
    return card


def check_mechanic(card: Card, mech: Mechanic, where: str | None = None) -> None:
    """``CardDataError`` for a mechanic, trigger or targeter of ``card`` that the engine does not know (``where``
    names the card; default: its id)."""
    where = where or f"card {quoted(card.id)}"
    if mech.trigger is None:
        if mech.id not in STATIC:
            raise CardDataError(f"{where}: unknown static ability {quoted(mech.id)}; known: "
                                f"{', '.join(sorted(STATIC))}")
    else:
        if mech.trigger not in TRIGGERS:
            raise CardDataError(f"{where}: unknown trigger {quoted(mech.trigger)} of {quoted(mech.id)}; known: "
                                f"{', '.join(sorted(TRIGGERS))}")
        if mech.id not in MECHANICS:
            raise CardDataError(f"{where}: unknown mechanic {quoted(mech.id)}; known: "
                                f"{', '.join(sorted(MECHANICS))}")
    if card.host_targeter is not None and card.host_targeter.id not in HOST_TARGETERS:
        raise CardDataError(f"{where}: unknown host targeter {quoted(card.host_targeter.id)}; known: "
                            f"{', '.join(sorted(HOST_TARGETERS))}")
    for t in (mech.targeter, card.targeter):
        if t is not None and t.id not in TARGETERS:
            raise CardDataError(f"{where}: unknown targeter {quoted(t.id)}; known: {', '.join(sorted(TARGETERS))}")


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


class CardPool:
    """Every card a game knows, by id: the bundled pool, plus the user's own cards."""

    def __init__(self, cards: tuple[Card, ...]):
        self.cards = cards
        self.by_id = {c.id: c for c in cards}
        self.index = {c.id: i for i, c in enumerate(cards)}
        if len(self.by_id) != len(cards):
            dup = [cid for cid, n in Counter(c.id for c in cards).items() if n > 1]
            raise CardDataError(f"card ids must be unique; {len(dup)} repeated, the first {quoted(dup[0])}")

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, card_id: str) -> Card:
        try:
            return self.by_id[card_id]
        except KeyError:
            close = difflib.get_close_matches(str(card_id), list(self.by_id), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise CardDataError(f"unknown card {quoted(card_id)}{hint}") from None

    @property
    def collectible(self) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.collectible)

    def with_cards(self, extra: "list[Card] | tuple[Card, ...]") -> "CardPool":
        """This pool plus ``extra`` (an extra card with a bundled id replaces it)."""
        ids = {c.id for c in extra}
        return CardPool(tuple(c for c in self.cards if c.id not in ids) + tuple(extra))


def load_pool(path: str | Path | None = None) -> CardPool:
    """The bundled pool, or a JSON file in the same form (``{"cards": [...]}`` or a list)."""
    source = str(path or "cards.json")
    with errors_as(CardDataError):
        data = (read_json(path, what="card file") if path is not None
                else parse_json(resource_text(resources.files(__package__).joinpath("cards.json")), source))
    entries = data["cards"] if isinstance(data, dict) and "cards" in data else data
    if not isinstance(entries, list):
        raise CardDataError(f"{source}: expected a list of cards or {{'cards': [...]}}")
    return CardPool(tuple(card_from_json(e, f"{source}: cards[{i}]") for i, e in enumerate(entries)))


_BUNDLED: CardPool | None = None


def bundled_pool() -> CardPool:
    """The 137 cards and the Statue token (loaded once)."""
    global _BUNDLED
    if _BUNDLED is None:
        _BUNDLED = load_pool()
    return _BUNDLED


@dataclass(frozen=True)
class Deck:
    """A named deck: card ids with multiplicity (any order)."""

    name: str
    cards: tuple[str, ...]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cards:
            out[c] = out.get(c, 0) + 1
        return out

    def plus(self, card_id: str, copies: int) -> "Deck":
        """This deck with ``copies`` more of ``card_id`` (the balancer's full injection: 40 + 4 = 44 cards)."""
        return replace(self, name=f"{self.name}+{copies}x{card_id}", cards=self.cards + (card_id,) * copies)


def _builtin_decks() -> dict[str, Any]:
    data = parse_json(resource_text(resources.files(__package__).joinpath("decks.json")), "decks.json")
    return {d["name"]: d for d in data["decks"]}


DECK_LIST = tuple(_builtin_decks())
STANDARD_DECKS = tuple(n for n, d in _builtin_decks().items() if d["difficulty"] != "Easy")  # the 10 AI decks
STARTER_DECKS = tuple(n for n, d in _builtin_decks().items() if d["starter_deck"])  # the constructed format's 4


def deck_key(name: str) -> str:
    """Deck names match ignoring case, spaces, apostrophes and underscores ("the_kings_legions")."""
    return "".join(ch for ch in name.lower().replace("’", "'") if ch.isalnum())


def deck_from_json(data: Any, pool: CardPool, source: str) -> Deck:
    """A validated ``Deck`` from its JSON form; ``CardDataError`` naming ``source`` and the problem."""
    if not isinstance(data, dict) or "cards" not in data:
        raise CardDataError(f"{source}: a deck is {{'name': ..., 'cards': {{card id: count}}}}")
    raw = data["cards"]
    if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
        pairs = [(e.get("id"), e.get("count", 1)) for e in raw]
    elif isinstance(raw, dict):
        pairs = list(raw.items())
    else:
        raise CardDataError(f"{source}: 'cards' must be a mapping of card id to count or a list of "
                            "{'id': ..., 'count': ...}")
    cards: list[str] = []
    for i, (cid, count) in enumerate(pairs):
        where = f"{source}: cards[{i}]"
        try:
            card = pool[str(cid)]
        except CardDataError as err:
            raise CardDataError(f"{where}: {err}") from None
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise CardDataError(f"{where}: the count of {card.id!r} must be a positive integer, got {quoted(count)}")
        if not card.collectible:
            raise CardDataError(f"{where}: {card.id!r} is a token, not a collectible card")
        cards += [card.id] * count
    deck = Deck(str(data.get("name", source)), tuple(cards))
    validate(deck, source)
    return deck


def validate(deck: Deck, source: str = "deck", max_copies: int | None = MAX_COPIES,
             sizes: tuple[int, int] = (DECK_MIN, DECK_MAX)) -> None:
    """``CardDataError`` unless the deck has 40-50 cards and at most 4 copies of each (the standard format)."""
    if not sizes[0] <= len(deck.cards) <= sizes[1]:
        raise CardDataError(f"{source}: a deck has {sizes[0]}-{sizes[1]} cards, {quoted(deck.name)} has "
                            f"{len(deck.cards)}")
    if max_copies is not None:
        over = sorted(c for c, n in deck.counts().items() if n > max_copies)
        if over:
            raise CardDataError(f"{source}: at most {max_copies} copies of a card; {quoted(deck.name)} has "
                                + ", ".join(f"{deck.counts()[c]} x {c}" for c in over))


def load_deck(deck: "str | Path | Deck | Mapping[str, Any]", pool: CardPool | None = None) -> Deck:
    """A deck by built-in name (case, spaces and apostrophes ignored), a ``Deck``, a JSON mapping, or a JSON file."""
    pool = pool or bundled_pool()
    if isinstance(deck, Deck):
        for c in deck.cards:
            pool[c]
        return deck
    if isinstance(deck, Mapping):
        return deck_from_json(dict(deck), pool, "deck")
    builtin = {deck_key(n): d for n, d in _builtin_decks().items()}
    if isinstance(deck, str) and deck_key(deck) in builtin and not deck.endswith(".json"):
        d = builtin[deck_key(deck)]
        return deck_from_json(d, pool, d["name"])
    path = Path(deck)
    if not path.exists():
        close = difflib.get_close_matches(deck_key(str(deck)), list(builtin), n=3)
        raise CardDataError(f"unknown deck {quoted(str(deck))}: not a built-in deck ({', '.join(DECK_LIST)}) nor a file"
                            + (f"; did you mean {', '.join(builtin[c]['name'] for c in close)}?" if close else ""))
    with errors_as(CardDataError):
        data = read_json(path, what="deck file")
    return deck_from_json(data, pool, str(path))

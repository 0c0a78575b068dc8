"""Each game's deck-building rules as deck prediction needs them, read from the game's own card table.

Cards are the game's integer ids: Hearth's index in ``layout.CARD_IDS``, Fifth Aeon's index in its bundled pool.
A deck's **identity** plays the part of Netrunner's identity card (000 §1.2: always visible, and it decides what
the deck may hold):

- Hearth: the hero's class (visible from the first turn). A deck holds cards of its class or neutral ones (a rule),
  30 cards, 2 copies of a card, 1 of a legendary. Class cards are the **special** cards (Netrunner's influence
  cards: the few that tie a deck to its identity).
- Fifth Aeon: its factions, the main one (most cards) first, then the others: ``"Decay"``, ``"Decay+Growth"``.
  The resources a player plays show them within a few turns. The game itself does not restrict factions (40-50
  cards, 4 copies), so a card outside the identity is legal, only unlikely. Cards outside the main faction (the
  splash) are the special cards.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

NEUTRAL = "Neutral"


@dataclass(frozen=True)
class DeckRules:
    """One game's deck rules: per card (by integer id) its id text, display name, copy limit, group (Hearth's
    class or Neutral, Fifth Aeon's faction), cost and synergy tags; which cards a deck may hold; deck sizes."""

    game: str
    ids: tuple[str, ...]
    names: tuple[str, ...]
    limits: tuple[int, ...]  # 0: not a deck card (tokens, hero powers)
    groups: tuple[str, ...]
    costs: tuple[int, ...]
    tags: tuple[frozenset[str], ...]
    sizes: tuple[int, int]
    identity_rule: bool  # True: the identity restricts legal cards (Hearth's class); False: only a likelihood

    @property
    def deck_cards(self) -> tuple[int, ...]:
        return tuple(c for c, limit in enumerate(self.limits) if limit > 0)

    def identity(self, deck: Mapping[int, int]) -> str:
        """A deck's identity from its cards (Hearth: the class of most of its class cards, the first on a tie, Mage
        without any; Fifth Aeon: its factions, main first)."""
        count = Counter()
        for card, n in deck.items():
            count[self.groups[card]] += n
        if self.identity_rule:
            classes = sorted((g for g in count if g != NEUTRAL), key=lambda g: -count[g])  # ties: the first
            return classes[0] if classes else "Mage"
        ranked = sorted(count, key=lambda g: (-count[g], g))
        return "+".join(ranked[:1] + sorted(ranked[1:]))

    def factions(self, identity: str) -> frozenset[str]:
        """The groups an identity's cards come from (Hearth: its class and Neutral)."""
        return frozenset({identity, NEUTRAL}) if self.identity_rule else frozenset(identity.split("+"))

    def legal(self, card: int, identity: str) -> bool:
        """May a deck of this identity hold ``card`` at all."""
        return self.limits[card] > 0 and (not self.identity_rule or self.groups[card] in self.factions(identity))

    def on_identity(self, card: int, identity: str) -> bool:
        """Does ``card`` belong to the identity (a rule in Hearth, a likelihood in Fifth Aeon)."""
        return self.limits[card] > 0 and self.groups[card] in self.factions(identity)

    def special(self, card: int, identity: str) -> bool:
        """Netrunner's influence cards in our games: Hearth's class cards, Fifth Aeon's splash (not the main
        faction)."""
        if self.identity_rule:
            return self.groups[card] == identity
        return self.groups[card] != identity.split("+")[0]

    def problems(self, deck: Mapping[int, int], identity: str | None = None, size: bool = True) -> list[str]:
        """What breaks the rules in ``deck`` (empty: legal): tokens, copies over the limit, cards outside a
        Hearth class, and (``size``) the deck size."""
        identity = identity or self.identity(deck)
        out = []
        for card, n in sorted(deck.items()):
            if n <= 0:
                continue
            if self.limits[card] == 0:
                out.append(f"{self.names[card]!r} is not a card a deck may hold")
            elif n > self.limits[card]:
                out.append(f"{n} copies of {self.names[card]!r}, at most {self.limits[card]}")
            elif not self.legal(card, identity):
                out.append(f"{self.names[card]!r} is a {self.groups[card]} card, the deck is {identity}")
        total = sum(deck.values())
        if size and not self.sizes[0] <= total <= self.sizes[1]:
            want = str(self.sizes[0]) if self.sizes[0] == self.sizes[1] else f"{self.sizes[0]}-{self.sizes[1]}"
            out.append(f"a deck has {want} cards, this one {total}")
        return out

    def card(self, text: str) -> int | None:
        """The card named ``text`` by id or display name (case and spaces ignored), or None."""
        return _lookup(self)[_key(text)] if _key(text) in _lookup(self) else None


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower().replace("’", "'") if ch.isalnum() or ch in "'.-")


@cache
def _lookup(rules: DeckRules) -> dict[str, int]:
    table = {_key(n): c for c, n in enumerate(rules.names) if rules.limits[c]}
    table.update({_key(i): c for c, i in enumerate(rules.ids) if rules.limits[c]})
    return table


@cache
def hearth_rules() -> DeckRules:
    from cardboard.envs.hearth import layout
    from cardboard.envs.hearth.cards import DECK_SIZE, MAX_COPIES, MAX_LEGENDARY_COPIES, load_pool

    by_id = {c.id: c for c in load_pool().cards}
    cards = [by_id[cid] for cid in layout.CARD_IDS]
    deckable = [c.collectible and c.type not in ("hero", "hero_power") for c in cards]
    limits = tuple((MAX_LEGENDARY_COPIES if c.legendary else MAX_COPIES) if ok else 0 for c, ok in zip(cards, deckable))
    tags = tuple(frozenset(filter(None, [c.race, c.type, *c.mechanics])) for c in cards)
    return DeckRules("hearth", tuple(layout.CARD_IDS), tuple(c.name for c in cards), limits,
                     tuple(c.player_class for c in cards), tuple(c.cost for c in cards), tags,
                     (DECK_SIZE, DECK_SIZE), True)


@cache
def fifth_aeon_rules() -> DeckRules:
    from cardboard.envs.fifth_aeon.cards import bundled_pool
    from cardboard.envs.fifth_aeon.constants import DECK_MAX, DECK_MIN, MAX_COPIES

    cards = bundled_pool().cards
    tags = tuple(frozenset(filter(None, [c.card_type, c.unit_type, "mechanical" if c.mechanical else "",
                                         *(m.id for m in c.mechanics)])) for c in cards)
    return DeckRules("fifth_aeon", tuple(c.id for c in cards), tuple(c.name for c in cards),
                     tuple(MAX_COPIES if c.collectible else 0 for c in cards), tuple(c.faction for c in cards),
                     tuple(c.energy for c in cards), tags, (DECK_MIN, DECK_MAX), False)


RULES = {"hearth": hearth_rules, "fifth_aeon": fifth_aeon_rules}


def rules_for(game: str) -> DeckRules:
    """The deck rules of ``game`` (``hearth`` or ``fifth_aeon``)."""
    from cardboard.envs.errors import UnknownNameError

    if game not in RULES:
        raise UnknownNameError("game with decklists", game, RULES)
    return RULES[game]()

"""What every deck predictor reads from its training decklists, and how it completes a deck legally.

A predictor is asked ``predict(observed, size, identity=None)``: a full decklist of ``size`` cards holding the
observed cards and legal under the game's deck rules. ``identity`` (Hearth's class, Fifth Aeon's factions: see
``deck_rules``) is what the paper's identity card is, always visible; left out, it is the identity of the training
deck nearest the observed cards (among those the cards allow).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .deck_rules import DeckRules
from .decklists import Decklist


def as_decklists(corpus: Iterable[Mapping[int, int] | Decklist], rules: DeckRules) -> list[Decklist]:
    """Decklists from card multisets (their identity from their cards) or decklists."""
    return [d if isinstance(d, Decklist) else Decklist("", rules.identity(d), Counter(d)) for d in corpus]


class CorpusModel:
    """Training-corpus statistics: each card's popularity (decks holding it, overall and by identity) and
    cardinality (its usual number of copies, 000 §2.8 a2), each identity's budget of special cards (the mean
    number its decks hold: Netrunner's influence limit, 000 §2.8 a3-a4)."""

    def __init__(self, corpus: Iterable[Mapping[int, int] | Decklist], rules: DeckRules):
        self.rules = rules
        self.decks = as_decklists(corpus, rules)
        if not self.decks:
            raise ValueError("a deck predictor needs at least one training deck")
        self.popularity: Counter = Counter()
        self.by_identity: dict[str, Counter] = defaultdict(Counter)
        copies: Counter = Counter()
        specials: dict[str, list[int]] = defaultdict(list)
        for d in self.decks:
            self.popularity.update(d.cards.keys())
            self.by_identity[d.identity].update(d.cards.keys())
            copies.update(d.cards)
            specials[d.identity].append(sum(n for c, n in d.cards.items() if rules.special(c, d.identity)))
        self.identities = Counter(d.identity for d in self.decks)
        self.cardinality = {c: max(1, min(rules.limits[c], round(copies[c] / self.popularity[c])))
                            for c in self.popularity}
        self.budget = {i: round(sum(s) / len(s)) for i, s in specials.items()}
        self._matrix: np.ndarray | None = None

    def identity_of(self, observed: Mapping[int, int]) -> str:
        """The identity of the training deck sharing most cards with ``observed`` (among identities whose rules
        allow them; ties: the commonest identity)."""
        allowed = [i for i in self.identities if all(self.rules.legal(c, i) for c in observed)] or list(self.identities)
        if self._matrix is None:  # decks x cards, and each deck's identity (index into ``names``)
            names = list(self.identities)
            self._matrix = np.zeros((len(self.decks), len(self.rules.ids)), dtype=np.int16)
            for row, d in enumerate(self.decks):
                self._matrix[row, list(d.cards)] = list(d.cards.values())
            self._deck_identity = np.array([names.index(d.identity) for d in self.decks])
        names = list(self.identities)
        seen = np.zeros(len(self.rules.ids), dtype=np.int16)
        for c, n in observed.items():
            seen[c] = n
        shared = np.minimum(self._matrix, seen).sum(axis=1)
        ok = np.isin(self._deck_identity, [names.index(i) for i in allowed])
        rank = np.where(ok, shared * (len(self.decks) + 1)
                        + np.array([self.identities[names[i]] for i in self._deck_identity]), -1)
        return names[int(self._deck_identity[int(np.argmax(rank))])]

    def copies(self, card: int) -> int:
        """Copies to add of a card (cardinality; the copy limit for a card no training deck holds)."""
        return self.cardinality.get(card, self.rules.limits[card])

    def candidates(self, identity: str, on_identity: bool = False) -> list[int]:
        """Cards a deck of ``identity`` may hold (``on_identity``: only those of its factions)."""
        test = self.rules.on_identity if on_identity else self.rules.legal
        return [c for c in self.rules.deck_cards if test(c, identity)]

    def complete(self, deck: Counter, added: list[int], size: int, identity: str) -> None:
        """Fill ``deck`` to ``size`` with the identity's most popular cards (more copies, up to the limit), recording
        each copy in ``added``; a deck over ``size`` is a caller's error."""
        popular = self.by_identity.get(identity, self.popularity)
        order = sorted(self.candidates(identity), key=lambda c: (-popular[c], -self.popularity[c], c))
        for want in (self.copies, lambda c: self.rules.limits[c]):
            for c in order:
                extra = min(size - sum(deck.values()), want(c) - deck[c])
                if extra > 0:
                    deck[c] += extra
                    added += [c] * extra


def overlap(a: Mapping[int, int], b: Mapping[int, int]) -> int:
    """Cards two multisets share (with multiplicity)."""
    return sum(min(n, b.get(c, 0)) for c, n in a.items())


def accuracy(predicted: Mapping[int, int], actual: Mapping[int, int]) -> float:
    """000 §2.8 match accuracy: the share of the actual decklist (a multiset) found in the predicted one."""
    return overlap(predicted, actual) / sum(actual.values())


def precision_recall(added: Sequence[int], remaining: Mapping[int, int], k: int) -> tuple[float, float]:
    """Precision and recall at ``k`` of a ranked list of added cards (one entry a copy) against the cards of the
    actual deck not observed."""
    hit = overlap(Counter(added[:k]), remaining)
    return hit / k, hit / max(1, sum(remaining.values()))

"""Baselines for deck prediction, with ``DeckPredictor``'s ``predict`` / ``ranked``: the paper's a0 (random legal
cards, 000 §2.8), the identity's most popular cards, and the nearest training decklist."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

from .corpus_model import CorpusModel, overlap
from .deck_rules import DeckRules
from .decklists import Decklist


class _Baseline(CorpusModel):
    def predict(self, observed: Mapping[int, int], size: int, identity: str | None = None) -> Counter:
        """A full decklist of ``size`` cards holding ``observed``, legal under the deck rules."""
        return Counter({c: n for c, n in observed.items() if n > 0}) + Counter(self.ranked(observed, size, identity))

    def ranked(self, observed: Mapping[int, int], size: int, identity: str | None = None) -> list[int]:
        """The cards ``predict`` adds, one entry a copy, in order."""
        identity = identity or self.identity_of(observed)
        deck = Counter({c: n for c, n in observed.items() if n > 0})
        added: list[int] = []
        for card, copies in self.order(deck, identity):
            extra = min(size - sum(deck.values()), copies - deck[card])
            if extra > 0:
                deck[card] += extra
                added += [card] * extra
        self.complete(deck, added, size, identity)
        return added

    def order(self, observed: Counter, identity: str) -> list[tuple[int, int]]:
        """Cards to add, each with the copies the deck should hold."""
        raise NotImplementedError


class RandomLegal(_Baseline):
    """000 §2.8 a0: random cards the deck rules allow, each at a random number of copies (a fresh draw from
    ``seed`` and the observed cards, so a prediction repeats)."""

    def __init__(self, corpus: Iterable[Mapping[int, int] | Decklist], rules: DeckRules, seed: int = 0):
        super().__init__(corpus, rules)
        self.seed = seed

    def order(self, observed: Counter, identity: str) -> list[tuple[int, int]]:
        rng = np.random.default_rng([self.seed, *sorted(observed.elements())])
        cards = self.candidates(identity)
        return [(int(c), int(rng.integers(1, self.rules.limits[c] + 1))) for c in rng.permutation(cards)]


class PopularCards(_Baseline):
    """The cards most decks of the identity hold, each at its cardinality."""

    def order(self, observed: Counter, identity: str) -> list[tuple[int, int]]:
        popular = self.by_identity.get(identity, self.popularity)
        return [(c, self.copies(c)) for c in sorted(self.candidates(identity), key=lambda c: (-popular[c], c))]


class NearestDeck(_Baseline):
    """The training decklist of the identity sharing most cards with the observed ones (ties: the first), its
    cards at its counts; then the identity's most popular cards."""

    def order(self, observed: Counter, identity: str) -> list[tuple[int, int]]:
        same = [d for d in self.decks if d.identity == identity] or self.decks
        nearest = max(same, key=lambda d: overlap(observed, d.cards))
        return sorted(nearest.cards.items(), key=lambda cn: (-self.popularity[cn[0]], cn[0]))

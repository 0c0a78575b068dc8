"""Hidden decklists (the game option ``decklists="hidden"``): what a player has seen of the opponent's cards, and
the default deck model that deals the rest.

With open lists (the default) the opponent's deck list is public and ``determinize`` only reshuffles which of its
unseen cards are in hand rather than in the deck. With hidden lists their identities are unknown too:
``determinize`` deals them from a deck model (``protocol.DeckModel``), by default ``UniformDeck``.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from .board import PUBLIC, Match
from .cards import CardPool
from .constants import MAX_COPIES

DECKLISTS = ("open", "hidden")


def seen_cards(m: Match, player: int) -> Counter:
    """The opponent's collectible cards ``player`` sees now: its known hand cards, its deck positions known to both,
    its crypt and its permanents (with their items), on either side. A card removed from the game is forgotten."""
    foe = 1 - player
    side = m.sides[foe]
    seen = Counter(cid for (cid, _, _), known in zip(side.hand, side.known) if known)
    seen.update(cid for cid, vis in zip(side.deck, side.deck_vis) if vis == PUBLIC)
    seen.update(side.crypt)
    for units in m.board:
        for u in units:
            if u.owner == foe:
                seen[u.card.id] += 1
                seen.update(it.id for it in u.items)
    tokens = _tokens(m.pool)
    return Counter({cid: n for cid, n in seen.items() if cid not in tokens}) if tokens & seen.keys() else seen


@lru_cache(maxsize=8)
def _tokens(pool: CardPool) -> frozenset[str]:
    return frozenset(c.id for c in pool.cards if not c.collectible)


def unseen_slots(m: Match, player: int) -> tuple[list[int], list[int]]:
    """The opponent's hand slots ``player`` has not seen and its deck positions not known to both."""
    side = m.sides[1 - player]
    return ([i for i, known in enumerate(side.known) if not known],
            [i for i, vis in enumerate(side.deck_vis) if vis != PUBLIC])


def hidden_cards(m: Match, player: int) -> list[str]:
    """The true cards in the opponent's ``unseen_slots``, hand first (the truth: an oracle deck model reads it)."""
    side = m.sides[1 - player]
    hand, deck = unseen_slots(m, player)
    return [side.hand[i][0] for i in hand] + [side.deck[i] for i in deck]


class UniformDeck:
    """The default deck model: the unseen cards drawn uniformly, without replacement, from the collectible cards, at
    most ``MAX_COPIES`` of each counted with the ones seen. The cards left for the last ``seen`` are kept: a
    decision's worlds share them."""

    def __init__(self, pool: CardPool):
        self.cards = tuple(c.id for c in pool.collectible)
        self.index = {c: i for i, c in enumerate(self.cards)}
        self._last: tuple[dict, np.ndarray] | None = None

    def sample(self, seen: Counter, count: int, rng: np.random.Generator) -> list[str]:
        if self._last is None or self._last[0] != seen:
            copies = np.full(len(self.cards), MAX_COPIES)
            for cid, n in seen.items():
                copies[self.index[cid]] = max(0, MAX_COPIES - n)
            self._last = (dict(seen), np.repeat(np.arange(len(self.cards)), copies))
        left = self._last[1]
        return [self.cards[i] for i in left[rng.permutation(len(left))[:count]]]

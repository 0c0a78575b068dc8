"""``DeckPredictor``: the paper's association-rule deck prediction a1-a7 (000 §2.8, ch. 6) on our deck rules.

Every variant counts, for each card, the rules S -> c that the observed cards fire (S within the observed cards
and the identity; the paper's ``rulecount``, a count, not a support-weighted sum), and adds cards to the observed
ones in that order (ties: the card in more training decks of the identity, the support of the rule identity ->
card) until the deck has ``size`` cards. What each adds:

- **a1**: each card at its copy limit (Hearth 2, a legendary 1; Fifth Aeon 4).
- **a2**: each card at its cardinality, the mean number of copies of the decks that hold it (rounded).
- **a3**: as a2, but the special cards first (Hearth's class cards, Fifth Aeon's splash: our stand-in for the
  paper's influence cards), up to the identity's budget (the mean number of them its training decks hold: our
  influence limit), then the rest. From a3 on, Fifth Aeon's cards outside the identity's factions are left out
  (legal there, but the identity says they are unlikely; Hearth's class is a rule for every variant).
- **a4**: as a3, with two rule sets (000 Algorithm 7): the special cards by rules among special cards only, the
  rest by rules among the rest only; a set that fires no rule falls back to all rules.
- **a5**: as a4, with rules over copies (``card#2``: a second copy): a fired rule whose consequent is the j-th
  copy of a card adds one copy when the deck holds fewer than j; no cardinality.
- **a6**: as a4, the cards ordered by their fired rules of the largest size first, then the next size, ...
- **a7**: as a6, each card added joins the observed ones and the rules are counted again (000 Algorithm 8).

``predictor_for(game)`` builds one from the game's bundled corpus and keeps it for the process: mining happens
once, never per decision.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache

from .constants import DEFAULT_MIN_SUPPORT, PAPER_MIN_SUPPORT, VARIANTS
from .corpus_model import CorpusModel
from .deck_rules import DeckRules, rules_for
from .decklists import Decklist, bundled_corpus
from .mining import (Itemsets, RuleIndex, Scorer, card_item, copy_item, identity_item, item_card, item_copy)


class MinedCorpus:
    """A corpus's frequent itemsets and rules, over distinct cards and (on first use) over copies, mined once at
    ``min_support``; with ``folds`` (a fold number per deck) also each fold's supports, for cross-validation."""

    def __init__(self, decks: list[Decklist], min_support: int, folds: list[int] | None = None):
        self.decks, self.min_support, self.folds = decks, min_support, folds
        self.identities = sorted({d.identity for d in decks})
        self._levels: dict[str, tuple[Itemsets, RuleIndex]] = {}

    def identity_item(self, identity: str) -> int:
        known = identity in self.identities  # an unknown identity: an item no deck holds
        return identity_item(self.identities.index(identity) if known else len(self.identities))

    def level(self, copies: bool) -> tuple[Itemsets, RuleIndex]:
        """The itemsets and rules over copies (``copies``) or distinct cards."""
        key = "copy" if copies else "card"
        if key not in self._levels:
            transactions = [tuple(sorted([self.identity_item(d.identity), *items(d.cards, copies)]))
                            for d in self.decks]
            itemsets = Itemsets(transactions, self.min_support)
            if self.folds is not None:
                itemsets.per_fold(transactions, self.folds)
            self._levels[key] = itemsets, RuleIndex(itemsets)
        return self._levels[key]


def items(cards: Mapping[int, int], copies: bool) -> list[int]:
    """A multiset's items: one per distinct card, or one per copy."""
    if copies:
        return [copy_item(c, j) for c, n in cards.items() for j in range(1, n + 1)]
    return [card_item(c) for c, n in cards.items() if n > 0]


class DeckPredictor(CorpusModel):
    """Predicts an opponent's decklist from the cards seen (module docstring for the variants).

    ``corpus``: the training decklists (card-id multisets, or ``Decklist``); ``min_support``: an absolute count
    of decks, as in the paper (default: the game's, ``constants.DEFAULT_MIN_SUPPORT``). ``mined``/``fold``: rules
    mined beforehand over a larger corpus holding ``corpus`` (cross-validation: the corpus minus test fold
    ``fold``)."""

    def __init__(self, corpus: Iterable[Mapping[int, int] | Decklist], rules: DeckRules, variant: str = "a7",
                 min_support: int | None = None, *, mined: MinedCorpus | None = None, fold: int | None = None):
        if variant not in VARIANTS:
            from cardboard.envs.errors import UnknownNameError

            raise UnknownNameError("deck prediction variant", variant, VARIANTS)
        super().__init__(corpus, rules)
        min_support = min_support or DEFAULT_MIN_SUPPORT.get(rules.game, PAPER_MIN_SUPPORT)
        self.variant, self.min_support, self.fold = variant, min_support, fold
        self.mined = mined or MinedCorpus(self.decks, min_support)
        self.copy_rules = variant == "a5"
        itemsets, self.rule_index = self.mined.level(self.copy_rules)
        self.alive = itemsets.alive(min_support, fold)

    def scores(self, observed: Mapping[int, int], identity: str | None = None) -> dict[int, float]:
        """Each card's count of rules S -> card fired by the observed cards (and identity), for every card a deck
        of the identity may hold."""
        identity = identity or self.identity_of(observed)
        scorer, _ = self._scorer(observed, identity, lambda c: True)
        item = (lambda c: copy_item(c, 1)) if self.copy_rules else card_item
        return {c: float(scorer.count(item(c))) for c in self.candidates(identity)}

    def predict(self, observed: Mapping[int, int], size: int, identity: str | None = None) -> Counter:
        """A full decklist of ``size`` cards holding ``observed``, legal under the deck rules."""
        return Counter({c: n for c, n in observed.items() if n > 0}) + Counter(self.ranked(observed, size, identity))

    def ranked(self, observed: Mapping[int, int], size: int, identity: str | None = None) -> list[int]:
        """The cards ``predict`` adds to the observed ones, one entry a copy, in the order it adds them."""
        identity = identity or self.identity_of(observed)
        deck = Counter({c: n for c, n in observed.items() if n > 0})
        if sum(deck.values()) > size:
            raise ValueError(f"{sum(deck.values())} cards observed, more than the deck's {size}")
        added: list[int] = []
        if self.variant in ("a1", "a2"):
            phases = [(self.candidates(identity), *self._scorer(deck, identity, lambda c: True), None)]
        else:
            def special(c: int) -> bool:
                return self.rules.special(c, identity)

            def plain(c: int) -> bool:
                return not special(c)

            cards = self.candidates(identity, on_identity=True)
            split = self.variant != "a3"
            phases = [(list(filter(special, cards)), *self._scorer(deck, identity, special, split),
                       self.budget.get(identity, 0)),
                      (list(filter(plain, cards)), *self._scorer(deck, identity, plain, split), None)]
        add = self._add_copies if self.copy_rules else self._add_cards
        for cards, scorer, _, budget in phases:
            add(deck, added, size, identity, cards, scorer, budget, [(s, feeds) for _, s, feeds, _ in phases])
        self.complete(deck, added, size, identity)
        return added

    def _scorer(self, observed: Mapping[int, int], identity: str, wanted: Callable[[int], bool],
                split: bool = False) -> tuple[Scorer, Callable[[int], bool]]:
        """Rules fired by the observed cards, and which added cards it counts as observed; ``split``: only rules
        among ``wanted`` cards (a4), all rules when those fire none."""
        start = self.mined.identity_item(identity)
        if split:
            level = items({c: n for c, n in observed.items() if wanted(c)}, self.copy_rules)
            scorer = Scorer(self.rule_index, self.alive, [start, *level], keep=lambda i: wanted(item_card(i)))
            if scorer.counts:
                return scorer, wanted
        return Scorer(self.rule_index, self.alive, [start, *items(observed, self.copy_rules)]), lambda c: True

    def _key(self, scorer: Scorer, card: int, popular: Counter) -> tuple:
        fired = scorer.by_size(card_item(card)) if self.variant in ("a6", "a7") else (scorer.count(card_item(card)),)
        return (*fired, popular[card], self.popularity[card], -card)

    def _add_cards(self, deck: Counter, added: list[int], size: int, identity: str, cards: list[int],
                   scorer: Scorer, budget: int | None, feed: list[tuple[Scorer, Callable[[int], bool]]]) -> None:
        target = (lambda c: self.rules.limits[c]) if self.variant == "a1" else self.copies
        popular = self.by_identity.get(identity, self.popularity)
        left = set(cards)
        while left and sum(deck.values()) < size:
            if budget is not None and self._specials(deck, identity) >= budget:
                return
            card = max(left, key=lambda c: self._key(scorer, c, popular))
            left.discard(card)
            room = size - sum(deck.values())
            if budget is not None:
                room = min(room, budget - self._specials(deck, identity))
            extra = min(room, target(card) - deck[card])
            if extra <= 0:
                continue
            deck[card] += extra
            added += [card] * extra
            if self.variant == "a7":  # 000 Algorithm 8: the prediction joins the observed cards
                for other, feeds in feed:
                    if feeds(card):
                        other.add(card_item(card))

    def _add_copies(self, deck: Counter, added: list[int], size: int, identity: str, cards: list[int],
                    scorer: Scorer, budget: int | None, feed: list) -> None:
        popular = self.by_identity.get(identity, self.popularity)
        order = sorted((copy_item(c, j) for c in cards for j in range(1, self.rules.limits[c] + 1)),
                       key=lambda i: (-scorer.count(i), -popular[item_card(i)], item_copy(i), i))
        for item in order:
            card = item_card(item)
            if sum(deck.values()) >= size or (budget is not None and self._specials(deck, identity) >= budget):
                return
            if deck[card] < item_copy(item):
                deck[card] += 1
                added.append(card)

    def _specials(self, deck: Counter, identity: str) -> int:
        return sum(n for c, n in deck.items() if self.rules.special(c, identity))


@cache
def _bundled_predictor(game: str, variant: str, min_support: int) -> DeckPredictor:
    return DeckPredictor(bundled_corpus(game), rules_for(game), variant, min_support)


def predictor_for(game_name: str, variant: str = "a7", min_support: int | None = None) -> DeckPredictor:
    """The predictor of ``game_name`` (``hearth``, ``fifth_aeon``) on its bundled corpus, built once a process;
    ``min_support`` defaults to the game's (``constants.DEFAULT_MIN_SUPPORT``)."""
    rules_for(game_name)  # an unknown game: UnknownNameError
    return _bundled_predictor(game_name, variant, min_support or DEFAULT_MIN_SUPPORT[game_name])

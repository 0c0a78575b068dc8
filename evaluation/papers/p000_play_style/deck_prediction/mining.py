"""Frequent itemsets of decklists and the rules S -> c they give (000 §2.8), mined by efficient-apriori.

**Items**: a deck is a transaction of items: its identity (a negative number: Netrunner's identity card, always
observed) and its cards, either once per distinct card (``card_item(c)``) or once per copy, ``copy_item(c, j)``
for the j-th copy (the paper's a5 "duplicates inside the rules": ``{A, B, B#2} -> ...``).

**Rules**: every frequent itemset X of two or more items gives a rule X - {c} -> c for each card item c of X; the
paper uses no confidence threshold (000 §2.8) and neither do we. ``RuleIndex`` keys the rules by antecedent, so
that the rules an observed set fires are found by looking its subsets up, and ``Scorer`` keeps each consequent's
count of fired rules, by rule size, as items are observed one by one (a7 feeds each prediction back).

**Why efficient-apriori** (pure Python, no dependencies): mlxtend's fpgrowth is faster on large data but brings
pandas, scipy and scikit-learn into every install; with itemsets bounded at ``MAX_ITEMSET`` items our corpora mine
in about a second a rule set (``cardboard deck-prediction`` times it), which the 30-fold cross-validation can pay.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

import numpy as np
from efficient_apriori import itemsets_from_transactions

from .constants import MAX_ITEMSET

COPY_SLOTS = 8  # copy items per card: more than any game's copy limit


def card_item(card: int) -> int:
    return card * COPY_SLOTS


def copy_item(card: int, copy: int) -> int:
    """The ``copy``-th copy (1-based) of ``card``."""
    return card * COPY_SLOTS + copy - 1


def item_card(item: int) -> int:
    return item // COPY_SLOTS


def item_copy(item: int) -> int:
    return item % COPY_SLOTS + 1


def identity_item(index: int) -> int:
    return -1 - index


class Itemsets:
    """Frequent itemsets of some transactions with their absolute supports, mined once at the lowest support of
    interest (``alive`` gives those at a higher one), optionally with each fold's share of every support.

    Cross-validation mines once, not once a fold: a training set's support of an itemset is the corpus's minus
    the test fold's (``per_fold``), and an itemset frequent in a training set is frequent in the whole corpus, so
    the training set's itemsets at support m >= the mined support are exactly those whose difference is >= m."""

    def __init__(self, transactions: Sequence[tuple[int, ...]], min_support: int, max_length: int = MAX_ITEMSET):
        self.min_support, self.max_length = min_support, max_length
        self.sets: list[tuple[int, ...]] = []
        counts: list[int] = []
        if transactions:  # the library's test is count / n >= fraction: the fraction just under min_support / n
            found, _ = itemsets_from_transactions(list(transactions), (min_support - 0.5) / len(transactions),
                                                  max_length=max_length)
            for level in found.values():
                self.sets += level.keys()
                counts += level.values()
        self.counts = np.array(counts, dtype=np.int32)
        self.fold_counts = np.zeros((len(self.sets), 0), dtype=np.int32)

    def per_fold(self, transactions: Sequence[tuple[int, ...]], folds: Sequence[int]) -> None:
        """Count every itemset in each fold (``folds[i]``: the fold of transaction i)."""
        index = {s: i for i, s in enumerate(self.sets)}
        self.fold_counts = np.zeros((len(self.sets), max(folds) + 1), dtype=np.int32)
        for items, fold in zip(transactions, folds):
            rows = [index[s] for k in range(1, self.max_length + 1) for s in combinations(items, k) if s in index]
            np.add.at(self.fold_counts[:, fold], rows, 1)

    def alive(self, min_support: int, fold: int | None = None) -> list[bool]:
        """Which itemsets have support >= ``min_support`` (without test fold ``fold``)."""
        if min_support < self.min_support:
            raise ValueError(f"mined at support {self.min_support}, cannot give itemsets at {min_support}")
        counts = self.counts if fold is None else self.counts - self.fold_counts[:, fold]
        return (counts >= min_support).tolist()


class RuleIndex:
    """Every rule S -> c of some itemsets, by antecedent S (a sorted tuple of items): ``fired[S]`` = [(c, |S| + 1,
    the itemset's index), ...]; a ``Scorer`` counts those of the itemsets alive at its support."""

    def __init__(self, itemsets: Itemsets):
        self.max_length = itemsets.max_length
        fired: dict[tuple[int, ...], list[tuple[int, int, int]]] = defaultdict(list)
        for index, items in enumerate(itemsets.sets):
            if len(items) < 2:
                continue
            for i, c in enumerate(items):
                if c >= 0:  # a card, never the identity, is a consequent
                    fired[items[:i] + items[i + 1:]].append((c, len(items), index))
        self.fired = dict(fired)


class Scorer:
    """Each consequent item's count of fired rules, by rule size, for a growing set of observed items, counting
    the rules of alive itemsets whose consequent passes ``keep``."""

    def __init__(self, rules: RuleIndex, alive: Sequence[bool], items: Iterable[int] = (),
                 keep: Callable[[int], bool] | None = None):
        self.rules, self.alive, self.keep = rules, alive, keep
        self.items: list[int] = []
        self.counts: dict[int, list[int]] = defaultdict(lambda: [0] * (rules.max_length + 1))
        for item in items:
            self.add(item)

    def add(self, item: int) -> None:
        """Observe ``item``: count the rules whose antecedent holds it and other observed items."""
        if item in self.items:
            return
        fired, alive, keep = self.rules.fired, self.alive, self.keep
        for k in range(self.rules.max_length - 1):
            for rest in combinations(self.items, k):
                for c, size, index in fired.get(tuple(sorted((*rest, item))), ()):
                    if alive[index] and (keep is None or keep(c)):
                        self.counts[c][size] += 1
        self.items.append(item)

    def count(self, item: int) -> int:
        """Rules fired for ``item`` (the paper's rulecount)."""
        return sum(self.counts[item]) if item in self.counts else 0

    def by_size(self, item: int) -> tuple[int, ...]:
        """Fired rules for ``item``, largest rules first (a6: larger rules take priority)."""
        return tuple(reversed(self.counts[item])) if item in self.counts else (0,) * (self.rules.max_length + 1)

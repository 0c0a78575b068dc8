"""What a decklist corpus is like: the properties that decide how far association rules can beat the baselines.

How many distinct cards a deck holds and how many copies of each (few distinct cards at many copies: a few seen
cards say much of the deck), and how much of a deck the nearest other deck of its identity holds (the archetype
structure: near-copies make the nearest training decklist a strong guess, and rules over pairs add little).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardboard.envs.errors import InvalidParameterError

from .decklists import Decklist


@dataclass(frozen=True)
class CorpusStatistics:
    """``distinct``: mean distinct cards a deck; ``copies``: mean copies a card a deck holds (all decks' cards over
    their distinct cards); ``nearest``: mean share of a deck (a multiset) that the other deck of its identity
    sharing most with it holds (decks alone in their identity left out; NaN when every deck is)."""

    decks: int
    identities: int
    distinct: float
    copies: float
    nearest: float


def corpus_statistics(decks: Sequence[Decklist]) -> CorpusStatistics:
    """The statistics of ``decks`` (class docstring)."""
    if not decks:
        raise InvalidParameterError("corpus statistics need at least one deck")
    groups: dict[str, list[Decklist]] = defaultdict(list)
    for d in decks:
        groups[d.identity].append(d)
    column = {c: i for i, c in enumerate(sorted({c for d in decks for c in d.cards}))}
    shares = []
    for group in groups.values():
        if len(group) < 2:
            continue
        matrix = np.zeros((len(group), len(column)), dtype=np.int32)
        for row, d in enumerate(group):
            matrix[row, [column[c] for c in d.cards]] = list(d.cards.values())
        for row, d in enumerate(group):
            shared = np.minimum(matrix, matrix[row]).sum(axis=1)
            shared[row] = -1
            shares.append(shared.max() / d.size)
    distinct = sum(len(d.cards) for d in decks)
    return CorpusStatistics(len(decks), len(groups), distinct / len(decks), sum(d.size for d in decks) / distinct,
                            float(np.mean(shares)) if shares else float("nan"))

"""Chance-node bucketing with pre-sampling, CNB (paper 001 §2.6): fewer successors at tree chance nodes.

A card draw has as many outcomes as cards left in the deck; CNB groups them into
M buckets of similar outcomes (the thesis: by mana cost) and keeps only N
pre-sampled outcomes per bucket as successors, so the tree below a draw has at
most M·N branches instead of one per card, and their statistics are shared.

Decisions where 001 is silent (its §5.2 item 4): a visit picks a bucket by its
probability in the world being searched, then one of that bucket's pre-samples
uniformly (they were drawn by probability, so uniform among them keeps the
in-bucket distribution). A bucket's pre-samples are drawn the first time the
node picks it, by probability and without replacement while the bucket has
enough outcomes. Determinized searches share one tree across worlds, so a
pre-sample may not be an outcome of the current world (the opponent's deck
differs between worlds): only offered pre-samples are used, and if none is,
the outcome is drawn from the bucket as this world offers it.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState, sample_chance

Bucket = Callable[[GameState, int], Hashable]


@dataclass(frozen=True)
class ChanceBucketing:
    """CNB: ``bucket(state, outcome)`` names an outcome's bucket; ``samples`` is N, fixed or per state
    (the thesis: 2 for a single draw, 1 when several cards are drawn at once)."""

    bucket: Bucket
    samples: int | Callable[[GameState], int] = 2

    def __post_init__(self) -> None:
        if isinstance(self.samples, int) and self.samples < 1:
            raise InvalidParameterError(f"CNB needs at least 1 pre-sample per bucket, got {self.samples}")

    def successor(self, presampled: dict[Hashable, list[int]], state: GameState, rng: np.random.Generator) -> int:
        """The outcome to follow at a tree chance node whose pre-samples (bucket -> outcomes) are ``presampled``.

        One outcome is drawn by probability: its bucket is the bucket picked (by the bucket's probability),
        and it is also the fallback draw from that bucket when no pre-sample is offered here. Only a bucket's
        first visit looks at every outcome's bucket (to pre-sample it), so a visit costs one bucket call."""
        drawn = int(sample_chance(state, rng))
        key = self.bucket(state, drawn)
        outcomes = state.chance_outcomes()
        kept = presampled.get(key)
        if kept is None:
            members = [(o, p) for o, p in outcomes if self.bucket(state, o) == key]
            p = np.array([q for _, q in members])
            n = self.samples if isinstance(self.samples, int) else int(self.samples(state))
            if n < 1:
                raise InvalidParameterError(f"CNB needs at least 1 pre-sample per bucket, got {n}")
            take = min(n, int(np.count_nonzero(p)))
            kept = presampled[key] = [int(members[i][0]) for i in rng.choice(len(members), size=take, replace=False,
                                                                             p=p / p.sum())]
        ids = {int(o) for o, _ in outcomes}
        offered = [o for o in kept if o in ids]
        if offered:
            return offered[int(rng.integers(len(offered)))] if len(offered) > 1 else offered[0]
        return drawn

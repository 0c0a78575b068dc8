"""Final-move selection: which root edge a search plays, the knob of paper 000 ch. 5's play styles.

A ``FinalSelection`` is called with the root's visited legal edges, ``{key: (visits, mean, avail)}`` (``mean``
= w/v in [0, 1] for the player deciding), and an rng; it returns a key. The rules of 000 §2.6 (ch. 5.2):

====================================  =================================================================
``robust_child``                      the most visits (the engine's default)
``max_child``                         the highest mean w/v
``RobustRand(n)``                     uniform over the top n by visits (``RobustRand(1)`` = RobustChild)
``MaxRand(n)``                        uniform over the top n by mean (``MaxRand(1)`` = MaxChild)
``RobustRoulette(n, k)``              P ∝ visits^k over the top n by visits (n = 0: over all children)
``MaxRoulette(n, k)``                 P ∝ mean^k over the top n by mean (n = 0: over all, 000's rule)
====================================  =================================================================

With fewer than n children all of them are used (000 §2.6). **Ties at the top-n cut**: the children are
ordered as the matching single-child rule orders them, RobustChild's by visits then mean, MaxChild's by mean,
and children still level are ordered at random; the top n are the first n of that order, exactly n of them.
So ``RobustRand(1)`` picks as RobustChild does and ``MaxRand(1)`` as MaxChild does (000 §2.6).

``OnlineTuner`` is 000 ch. 5.3.7's auto-tune: after each decision the n of a top-n rule goes up by one when
the chosen move's w/v is above 0.5 (a weaker, wider choice) and down by one otherwise, within [1, 10].
``Decision`` is one line of a search agent's per-decision log (``SearchAgent.decisions``): BestMove, the n in
force, the chosen move's w/v and the board complexity Cx0..Cx4 of 000 §2.7.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import ClassVar, NamedTuple

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState, hook
from .tree import Node, legal_keys

Edges = dict[Hashable, tuple[int, float, int]]  # key -> (visits, mean reward w/v, availability)
FinalSelection = Callable[[Edges, np.random.Generator], Hashable]

# Paper 000 §2.6 (ch. 5.3.7): the auto-tuner's signal, threshold and range; its step is not stated (DECISION: 1).
TUNE_THRESHOLD = 0.5  # chosen move's w/v above this: n goes up
TUNE_STEP = 1
TUNE_MIN, TUNE_MAX = 1, 10  # n is clamped to [1, 10]


def robust_child(edges: Edges, rng: np.random.Generator) -> Hashable:
    """RobustChild (paper 000 §2.1): the most visited edge; ties go to the higher mean, then at random."""
    keys = list(edges)
    score = np.array([edges[k][:2] for k in keys], dtype=float)
    best = np.flatnonzero(score[:, 0] == score[:, 0].max())
    best = best[score[best, 1] == score[best, 1].max()]
    return keys[int(best[rng.integers(len(best))])]


def max_child(edges: Edges, rng: np.random.Generator) -> Hashable:
    """MaxChild: the edge with the highest mean reward (ties at random)."""
    keys = list(edges)
    means = np.array([edges[k][1] for k in keys])
    best = np.flatnonzero(means == means.max())
    return keys[int(best[rng.integers(len(best))])]


def _check_n(n: int, least: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < least:
        raise InvalidParameterError(f"n must be an int >= {least}{' (0: all children)' if least == 0 else ''}, "
                                    f"got {n!r}")


def _check_k(k: float) -> None:
    if not (isinstance(k, (int, float)) and math.isfinite(k) and k >= 0):
        raise InvalidParameterError(f"k must be a finite number >= 0, got {k!r}")


def top(edges: Edges, n: int, by_visits: bool, rng: np.random.Generator) -> tuple[list[Hashable], np.ndarray]:
    """The keys of the top ``n`` edges by visits (or by mean) and those values: all edges, in their order, when ``n``
    is 0 or not below their number; else ranked, ties as the module docstring says (the only random draw)."""
    keys = list(edges)
    value = np.array([edges[k][0 if by_visits else 1] for k in keys], dtype=float)
    if n == 0 or n >= len(keys):
        return keys, value
    tie = rng.random(len(keys))
    columns = (tie, -np.array([edges[k][1] for k in keys], dtype=float), -value) if by_visits else (tie, -value)
    order = np.lexsort(columns)[:n]  # the last column sorts first
    return [keys[i] for i in order], value[order]


@dataclass(frozen=True)
class _TopRand:
    """Uniform over the top n children, by visits (``by_visits``) or by mean."""

    n: int
    by_visits: ClassVar[bool]

    def __post_init__(self) -> None:
        _check_n(self.n, 1)

    def __call__(self, edges: Edges, rng: np.random.Generator) -> Hashable:
        keys, _ = top(edges, self.n, self.by_visits, rng)
        return keys[int(rng.integers(len(keys)))]


class RobustRand(_TopRand):
    """RobustRand_n (000 §2.6): uniform over the n most visited children."""

    by_visits = True


class MaxRand(_TopRand):
    """MaxRand_n (000 §2.6): uniform over the n children of highest mean w/v."""

    by_visits = False


def _roulette(keys: list[Hashable], value: np.ndarray, k: float, rng: np.random.Generator) -> Hashable:
    weight = value ** k
    total = weight.sum()
    p = weight / total if total > 0 else np.full(len(keys), 1.0 / len(keys))  # all means 0: uniform
    return keys[int(rng.choice(len(keys), p=p))]


@dataclass(frozen=True)
class _TopRoulette:
    """P_i ∝ value_i^k over the top n children (n = 0: over all of them), by visits (``by_visits``) or by mean."""

    n: int = 0
    k: float = 1.0
    by_visits: ClassVar[bool]

    def __post_init__(self) -> None:
        _check_n(self.n, 0)
        _check_k(self.k)

    def __call__(self, edges: Edges, rng: np.random.Generator) -> Hashable:
        return _roulette(*top(edges, self.n, self.by_visits, rng), self.k, rng)


class RobustRoulette(_TopRoulette):
    """RobustRoulette_n^k (000 §2.6): P_i ∝ v_i^k over the n most visited children (n = 0: RobustRoulette^k,
    over all of them)."""

    by_visits = True  # RobustRoulette's ranking


class MaxRoulette(_TopRoulette):
    """MaxRoulette^k (000 §2.6): P_i ∝ (w_i/v_i)^k over all children (n = 0), or over the n of highest mean;
    uniform when every mean is 0."""

    by_visits = False


TopN = RobustRand | MaxRand | RobustRoulette | MaxRoulette


class OnlineTuner:
    """000 ch. 5.3.7's auto-tune of a top-n rule: ``update(mean)`` after each decision played moves n by
    ``TUNE_STEP`` up when the chosen move's w/v is above ``TUNE_THRESHOLD``, down otherwise, within
    [``TUNE_MIN``, ``TUNE_MAX``]; ``reset()`` (a new game) puts n back to the rule's own. A ``FinalSelection``:
    it chooses with the n in force (the agent calls ``update``, so only decisions played move n)."""

    def __init__(self, selection: TopN):
        if not isinstance(selection, TopN):
            raise InvalidParameterError(f"the tuner needs a top-n rule, got {selection!r}")
        if not TUNE_MIN <= selection.n <= TUNE_MAX:
            raise InvalidParameterError(f"the tuned n starts in [{TUNE_MIN}, {TUNE_MAX}], got {selection.n}")
        self.start = selection
        self.current = selection

    @property
    def n(self) -> int:
        """The n in force."""
        return self.current.n

    def __call__(self, edges: Edges, rng: np.random.Generator) -> Hashable:
        return self.current(edges, rng)

    def update(self, mean: float) -> None:
        """One step after a decision whose chosen move had w/v ``mean``."""
        step = TUNE_STEP if mean > TUNE_THRESHOLD else -TUNE_STEP
        self.current = replace(self.current, n=min(TUNE_MAX, max(TUNE_MIN, self.n + step)))

    def reset(self) -> None:
        self.current = self.start

    def __repr__(self) -> str:
        return f"OnlineTuner({self.start!r}, n={self.n})"


FINALS = ("robust", "max", "robust_rand", "max_rand", "robust_roulette", "max_roulette")


def make_final(final: str = "robust", n: int = 0, k: float = 1.0, tune: bool = False) -> FinalSelection:
    """The selection of the agents' spec knobs ``final``, ``n``, ``k`` and ``tune`` (see ``agents``); a knob the
    rule does not use is refused unless it keeps its default."""
    if final not in FINALS:
        raise InvalidParameterError(f"final must be one of {', '.join(FINALS)}, got {final!r}")
    if final in ("robust", "max") and (n or tune):
        raise InvalidParameterError(f"final={final} has no n: n={n} and tune={int(tune)} are for the top-n rules")
    if not final.endswith("_roulette") and k != 1.0:
        raise InvalidParameterError(f"k={k:g} is the roulette exponent: final={final} has none")
    if final in ("robust", "max"):
        return robust_child if final == "robust" else max_child
    rule = {"robust_rand": RobustRand, "max_rand": MaxRand, "robust_roulette": RobustRoulette,
            "max_roulette": MaxRoulette}[final]
    selection = rule(n) if final.endswith("_rand") else rule(n, k)
    return OnlineTuner(selection) if tune else selection


# ---- the per-decision log ---------------------------------------------------------------------------------
class Decision(NamedTuple):
    """One decision a search played: ``best_move`` (the chosen move has the most visits of the root's legal
    edges, so RobustChild could have chosen it: 000 §2.6's BestMove), the ``n`` in force (None: the rule has
    none), the chosen move's ``mean`` w/v for the player deciding, and ``complexity``: Cx0 (the number of legal
    actions), followed by the game's Cx1..Cx4 (000 §2.7) when its states offer the ``complexity`` hook; raw,
    before any normalisation."""

    best_move: bool
    n: int | None
    mean: float
    complexity: tuple[float, ...]


def decision(state: GameState, root: Node, action: int, n: int | None) -> Decision:
    """The ``Decision`` of playing ``action`` at ``state`` after a search whose tree is ``root``."""
    stats = root.stats()
    keys = legal_keys(state)
    visits = [stats[k][0] for k in keys if k in stats]
    chosen = stats.get(state.action_key(action), (0, 0.0, 0))
    board = hook(state, "complexity")
    cx = (float(len(keys)), *(board() if board is not None else ()))
    return Decision(bool(chosen[0] == max(visits, default=0)), n, float(chosen[1]), cx)

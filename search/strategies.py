"""Search strategies as objects (as OpenSpiel and mctx pass evaluators and selection functions).

A ``SearchConfig`` holds one of each; the defaults are the engine's classic behaviour:

=============  ==================================  ==================================================
strategy       default                             alternatives
=============  ==================================  ==================================================
``selection``  ``UCB1()``: availability-aware      ``PUCT(c_puct)``: AlphaZero's prior-guided step
               UCB1, unvisited edges first
``evaluator``  ``heuristic_evaluator``: values     any ``state -> values`` or ``state ->
               only                                Evaluation(values, prior)`` (a network later)
``rollout``    ``GameRollout()``: the game's       ``PolicyRollout(policy)``: ``policy(state, rng)``
               compiled playout, else uniform      picks every rollout move
=============  ==================================  ==================================================
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple, Protocol

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, HOOKS, GameState, sample_chance
from .core import prior_over
from .tree import select_edge, select_puct

RANDOM_PLAYOUT = HOOKS["random_playout"].name  # the declared optional hook rollouts use (looked up every rollout)
RolloutPolicy = Callable[[GameState, np.random.Generator], int]
ChanceSampler = Callable[[GameState, np.random.Generator], int]


class Settings(Protocol):
    """What a strategy reads of the search's ``config.SearchConfig`` (typed here: strategies sit below it)."""

    c: float  # UCB1's exploration constant
    depth: int | None  # rollout depth in player turns (None: to the end)
    chance_sampler: ChanceSampler


# ---- selection ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UCB1:
    """Availability-aware UCB1, ``mean + c sqrt(ln(avail) / n)`` with ``c = SearchConfig.c``; unvisited
    edges first, in random order; an edge is expanded (rolled out below) on its first visit."""

    kernel: ClassVar = staticmethod(select_edge)
    expands_nodes: ClassVar[bool] = False

    def constant(self, config: Settings) -> float:
        return config.c


@dataclass(frozen=True)
class PUCT:
    """AlphaZero's PUCT, ``Q + c_puct P sqrt(avail) / (1 + n)`` (``tree.select_puct``), availability in place
    of the parent's visits. Expansion is by node: a decision node first reached is the leaf; it is
    evaluated (or rolled out from) and its ``PRIOR`` row filled with the evaluator's prior (uniform without
    one, or when a rollout of ``depth`` > 0 turns separates the evaluated state from the node); a new
    root's first iteration is its expansion. An unvisited edge's ``Q`` is the node's mean (first-play
    urgency). With several leaves in flight (``SearchConfig.leaves``) an edge's visit is counted when it is
    taken and its reward when the leaf is evaluated: ``Q`` and ``n`` see the pending visits as losses (virtual loss)."""

    c_puct: float = 1.25

    kernel: ClassVar = staticmethod(select_puct)
    expands_nodes: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not self.c_puct >= 0:
            raise InvalidParameterError(f"c_puct must be >= 0, got {self.c_puct}")

    def constant(self, config: Settings) -> float:
        return self.c_puct


class Selection(Protocol):
    """A tree step: a compiled ``kernel`` with ``select_edge``'s signature and result, the exploration
    ``constant`` it takes from a config, and whether it expands whole nodes (filling their priors) or edges."""

    kernel: Callable
    expands_nodes: bool

    def constant(self, config: Settings) -> float: ...


# ---- leaf evaluation -----------------------------------------------------------------------------------
class Evaluation(NamedTuple):
    """An evaluator's answer: per-player ``values`` in [0, 1] and optionally a ``prior``: non-negative weights
    indexed by action id (length ``num_actions``), renormalised by search over the legal actions."""

    values: np.ndarray
    prior: np.ndarray | None = None


Evaluator = Callable[[GameState], "np.ndarray | Evaluation"]


class Flushable(Protocol):
    def flush(self) -> None: ...


class BatchingEvaluator(Protocol):
    """An evaluator that answers many states in one call (a network): ``submit(states)`` queues them and
    returns a token, ``queue.flush()`` evaluates everything queued by every evaluator sharing that queue (one
    forward pass), ``collect(token)`` hands back one answer per state. Search and the lock-step runner use it
    through ``batching.answer`` (checked by ``batching.batches``); it is also a plain ``Evaluator`` (``__call__``)."""

    queue: Flushable

    def __call__(self, state: GameState) -> np.ndarray | Evaluation: ...

    def submit(self, states: list[GameState]) -> object: ...

    def collect(self, token: object) -> list[Evaluation]: ...


class ArrayEvaluator(BatchingEvaluator, Protocol):
    """A batching evaluator over a network that also answers raw arrays, for drivers that build a leaf's rows in
    compiled code (``compiled_network``): ``queue.evaluate(observations, masks) -> (priors, values)``, a row being
    the observation of the player to move and the legal-action mask, the priors over action ids, the values per
    player in the game's return range. ``prior``: whether search takes the prior (else uniform). ``arrays`` is
    True on the class (``answers_arrays``)."""

    arrays: ClassVar[bool]
    prior: bool


def answers_arrays(evaluator: object) -> bool:
    """Whether ``evaluator`` is an ``ArrayEvaluator`` (read from its class: a runtime protocol check is slow)."""
    return getattr(type(evaluator), "arrays", False) is True


def evaluation(answer: np.ndarray | Evaluation) -> Evaluation:
    """An evaluator's answer as an ``Evaluation`` (a bare array is the values, without a prior)."""
    return answer if isinstance(answer, Evaluation) else Evaluation(answer)


def leaf_prior(prior: np.ndarray | None, legal: np.ndarray) -> np.ndarray:
    """The prior of each action of ``legal``, summing to 1: ``prior`` there renormalised, else uniform
    (``core.prior_over``: the compiled drivers' own)."""
    if prior is None:
        return np.full(len(legal), 1.0 / len(legal))
    out = np.empty(len(legal))
    prior_over(np.asarray(prior), np.asarray(legal, dtype=np.int64), out)
    return out


# ---- rollouts -------------------------------------------------------------------------------------------
def uniform_policy(state: GameState, rng: np.random.Generator) -> int:
    """A legal action uniformly at random."""
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


@dataclass(frozen=True)
class PolicyRollout:
    """Rollouts in Python: ``policy(state, rng)`` picks each move, chance comes from
    ``SearchConfig.chance_sampler``, for ``SearchConfig.depth`` player turns (None: to the end)."""

    policy: RolloutPolicy = uniform_policy

    def __call__(self, state: GameState, rng: np.random.Generator, config: Settings) -> None:
        limit = None if config.depth is None else state.turn + config.depth
        while not state.is_terminal() and (limit is None or state.turn < limit):
            if state.current_player == CHANCE:
                state.apply(config.chance_sampler(state, rng))
            else:
                state.apply(self.policy(state, rng))


UNIFORM_ROLLOUT = PolicyRollout()


@dataclass(frozen=True)
class GameRollout:
    """The game's compiled ``random_playout`` (and its documented rollout policy) when it has one and the
    chance sampler is the default; else uniformly random moves (``PolicyRollout()``)."""

    def __call__(self, state: GameState, rng: np.random.Generator, config: Settings) -> None:
        depth = config.depth
        # the game's compiled playout samples chance itself: used only with the default chance sampler
        playout = getattr(state, RANDOM_PLAYOUT, None) if config.chance_sampler is sample_chance else None
        if playout is not None:
            playout(rng, max_turns=depth)
        else:
            UNIFORM_ROLLOUT(state, rng, config)


Rollout = Callable[[GameState, np.random.Generator, "Settings"], None]

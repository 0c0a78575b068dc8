"""What a tree search is asked to do: its budget, tree policy and strategies (``SearchConfig``), and what it
hands back (``SearchResult``).

The bottom of the search engine: every driver (``loop``'s Python descent, ``compiled``'s loop) reads a
``SearchConfig`` and returns into a ``SearchResult``; nothing here knows which driver runs.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState, determinize, sample_chance
from ..envs.stop import stop_point
from .batching import Steps
from .chance import ChanceBucketing
from .core import heuristic_unit
from .final import FinalSelection, robust_child
from .leaf_value import LeafValue
from .pruning import HardPruning
from .strategies import PUCT, UCB1, ChanceSampler, Evaluator, GameRollout, Rollout, Selection
from .tree import Node, legal_keys

Determinizer = Callable[[GameState, int, np.random.Generator], GameState]


uniform_determinizer: Determinizer = determinize
"""A world sampled uniformly from ``player``'s information set: the game's own ``determinize``, guarded
(``protocol.determinize`` refuses a result that is the live state)."""


@dataclass(frozen=True)
class InferenceAccuracy:
    """Paper 001 §3.6.1's inference-accuracy knob as a determinizer: each world starts from the TRUE state
    and each hidden opponent card is replaced, with probability 1 - ``accuracy``, by a different one (a
    research tool: it reads the truth; for games whose ``determinize`` takes ``accuracy``)."""

    accuracy: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.accuracy <= 1.0:
            raise InvalidParameterError(f"accuracy must be in [0, 1], got {self.accuracy}")

    def __call__(self, state: GameState, player: int, rng: np.random.Generator) -> GameState:
        return determinize(state, player, rng, accuracy=self.accuracy)


def heuristic_evaluator(state: GameState) -> np.ndarray:
    """Per-player value in [0, 1] of a non-terminal state from the game's ``heuristic`` ([-1, 1])."""
    return np.array([heuristic_unit(state.heuristic(p)) for p in range(state.num_players)])


@dataclass
class SearchResult:
    """The chosen action, the root visit counts by action key (a policy target) and the work done.

    ``policy``: an improved policy by action key over the root's legal keys, summing to 1, where the search computes
    one (Gumbel search's π′, ``gumbel``); None otherwise (the visits are the target). ``value``: the search's
    estimate of the root player's reward in [0, 1] (the mean over the root's visits; None without any)."""

    action: int
    visits: dict[Hashable, int]
    iterations: int
    seconds: float
    root: Node | None = None  # the search tree's root, a view (None for flat Monte Carlo and PIMC)
    policy: dict[Hashable, float] | None = None
    value: float | None = None
    driver: str | None = None  # the loop that ran it and, where it fell back to a slower one, why (``plan``)


@dataclass
class SearchConfig:
    """Budget and tree-policy settings shared by every algorithm."""

    iterations: int | None = 1000
    seconds: float | None = None
    c: float = 0.7  # UCB1's exploration constant (PUCT carries its own c_puct)
    depth: int | None = None  # rollout depth in player turns; None = to the end of the game, 0 = evaluate the leaf
    evaluator: Evaluator = heuristic_evaluator
    selection: Selection = UCB1()
    rollout: Rollout = GameRollout()
    chance_sampler: ChanceSampler = sample_chance
    final: FinalSelection = robust_child
    bucketing: ChanceBucketing | None = None  # CNB at tree chance nodes (rollouts use chance_sampler)
    determinizer: Determinizer = uniform_determinizer  # where the worlds of ismcts / duct / pimc / mc come from
    prune: bool = False  # tree steps over the game's sensible_actions() (heuristic pruning) instead of all legal
    pruning: HardPruning | None = None  # hard pruning by the game's heuristics at every decision node (paper 002)
    leaves: int = 1  # leaves in flight: iterations descend (virtual loss) until this many wait for the evaluator
    prior: Evaluator | None = None  # PUCT with a rollout (depth != 0): who gives a new node's prior (None: uniform)
    root_prior: Evaluator | None = None  # UCB1 below a PUCT root over this evaluator's prior, asked once (root_prior)
    root_cpuct: float = 1.25  # the root's PUCT constant under a root_prior
    compiled: bool = True  # whole iterations in compiled code where the game and this configuration allow (compiled)
    leaf_value: LeafValue | None = None  # a learned value of the leaves rolled out, mixed with rollouts (leaf_value)
    # learned priors and rollouts are a ``prior`` (``leaf_value.LeafPolicy``) and a ``rollout`` (``LearnedRollout``)

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise InvalidParameterError("a search needs a budget: iterations, seconds or both")
        if self.iterations is not None and self.iterations < 1:
            raise InvalidParameterError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise InvalidParameterError(f"seconds must be > 0, got {self.seconds}")
        if not self.c >= 0:
            raise InvalidParameterError(f"c must be >= 0, got {self.c}")
        if self.depth is not None and self.depth < 0:
            raise InvalidParameterError(f"depth must be >= 0 turns, got {self.depth}")
        if not (isinstance(self.leaves, int) and not isinstance(self.leaves, bool) and self.leaves >= 1):
            raise InvalidParameterError(f"leaves must be an int >= 1, got {self.leaves!r}")
        if not self.root_cpuct >= 0:
            raise InvalidParameterError(f"root_cpuct must be >= 0, got {self.root_cpuct}")
        if self.leaf_value is not None and not (type(self.selection) is UCB1 or
                                                (type(self.selection) is PUCT and self.depth != 0)):
            raise InvalidParameterError("a learned leaf value (vnet=) values the leaves a UCB1 search, or a PUCT "
                                        f"search with rollouts, rolls out: not {type(self.selection).__name__} "
                                        f"selection at depth {self.depth}")
        if self.root_prior is not None and (type(self.selection) is not UCB1 or self.depth == 0):
            raise InvalidParameterError("root_prior steers the root of a UCB1 search over rollouts: it needs UCB1 "
                                        "selection and depth != 0")


def budget_spent(config: SearchConfig, done: int, start: float) -> bool:
    """True once ``done`` iterations or the wall-clock seconds since ``start`` reach the budget; ``Stopped`` when the
    caller stops the decision (``envs.stop``)."""
    stop_point()
    if config.iterations is not None and done >= config.iterations:
        return True
    return config.seconds is not None and time.perf_counter() - start >= config.seconds


def decide(root: Node, state: GameState, final: FinalSelection, rng: np.random.Generator, done: int,
           seconds: float) -> SearchResult:
    """A search's result from its ``root``: ``final`` over the visited edges legal in ``state`` (the first legal
    action when none was visited), their visits, ``done`` iterations in ``seconds``."""
    actions = dict(zip(legal_keys(state), np.asarray(state.legal_actions()).tolist()))
    edges = {k: s for k, s in root.stats().items() if k in actions and s[0] > 0}
    key = final(edges, rng) if edges else next(iter(actions))
    visits = sum(s[0] for s in edges.values())
    value = sum(s[0] * s[1] for s in edges.values()) / visits if visits else None
    return SearchResult(actions[key], {k: s[0] for k, s in edges.items()}, done, seconds, root, value=value)


@dataclass
class Run:
    """One search as the engine hands it to a driver: from ``state`` for its player to move (``me``) with ``rng``;
    ``iterations`` replaces the configured budget (None: the config's iterations and seconds; 0: decide from the
    tree as it is); ``stamp`` counts the engine's earlier iterations (availability
    stamps stay unique across kept trees); ``root`` is a tree to continue (None: a new one)."""

    state: GameState
    rng: np.random.Generator
    iterations: int | None
    stamp: float
    root: Node | None = None
    start: float = 0.0  # set by the driver once it has loaded what it runs: the clock starts there

    @property
    def me(self) -> int:
        """The player searched for: the one to move at ``state``."""
        return self.state.current_player


class Driver(Protocol):
    """A loop that runs a search's iterations (``plan`` chooses one per game): ``steps(run)`` yields the
    evaluation requests it waits for (``batching``) and returns the search's result, its tree included."""

    name: str

    def steps(self, run: Run) -> Steps[SearchResult]: ...

"""Monte Carlo tree search over the forward-model protocol: UCT, SO-ISMCTS, DUCT and PIMC in one engine.

One tree policy serves them all; they differ only in where each iteration's
world comes from (the ``worlds`` strategy):

==========  ====================================================================
``uct``     the true state (perfect information; on a hidden-information game
            this is the "cheating" UCT of paper 000 §2.1, for open mode)
``ismcts``  a fresh ``determinize(me, rng)`` every iteration: single-observer
            ISMCTS (paper 000 §2.3), nodes are information sets
``duct``    ``worlds`` determinizations sampled once per decision, iterations
            round-robin over them (paper 001 Algorithm 3)
==========  ====================================================================

Tree edges are keyed by ``state.action_key(a)``, so actions that mean the same
thing in different worlds share statistics (001 §2.3 "soft equality"). A child's
``avail`` counts the iterations in which it was legal, and UCB1 uses it in place
of the parent's visits (availability counts of SO-ISMCTS). UCB1 is
``mean + c * sqrt(ln(avail) / visits)`` on rewards in [0, 1]; unvisited
children are tried first (001 §2.2). Chance nodes are explicit: their
successor comes from a pluggable ``chance_sampler(state, rng)`` (default: by
the outcome probabilities), the hook chance-node bucketing plugs into.

Rollouts are uniformly random to the end of the game, or for ``depth`` player
turns followed by the ``evaluator`` (default: the game's ``heuristic`` mapped
to [0, 1]). They use the state's compiled ``random_playout`` when it has one.
``PIMC`` runs one UCT tree per determinization and adds up root visits.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, GameState, sample_chance

Evaluator = Callable[[GameState], np.ndarray]
ChanceSampler = Callable[[GameState, np.random.Generator], int]
FinalSelection = Callable[[dict[Hashable, "Node"], np.random.Generator], Hashable]


def rewards(state: GameState) -> np.ndarray:
    """The returns of a terminal state mapped to [0, 1] per player."""
    info = state.info
    return (np.asarray(state.returns(), dtype=float) - info.min_return) / (info.max_return - info.min_return)


def heuristic_evaluator(state: GameState) -> np.ndarray:
    """Per-player value in [0, 1] of a non-terminal state from the game's ``heuristic`` ([-1, 1])."""
    return np.array([(state.heuristic(p) + 1.0) / 2.0 for p in range(state.num_players)])


def robust_child(children: dict[Hashable, "Node"], rng: np.random.Generator) -> Hashable:
    """RobustChild (paper 000 §2.1): the most visited child; ties go to the higher mean, then at random."""
    keys = list(children)
    score = np.array([(children[k].visits, children[k].mean) for k in keys])
    best = np.flatnonzero((score[:, 0] == score[:, 0].max()))
    best = best[score[best, 1] == score[best, 1].max()]
    return keys[int(best[rng.integers(len(best))])]


def max_child(children: dict[Hashable, "Node"], rng: np.random.Generator) -> Hashable:
    """MaxChild: the child with the highest mean reward (ties at random)."""
    keys = list(children)
    means = np.array([children[k].mean for k in keys])
    best = np.flatnonzero(means == means.max())
    return keys[int(best[rng.integers(len(best))])]


@dataclass
class Node:
    """Statistics of one edge: ``player`` chose it (or CHANCE), with these visits, reward total and availability."""

    player: int
    visits: int = 0
    total: float = 0.0
    avail: int = 0
    children: dict[Hashable, "Node"] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass
class SearchResult:
    """The chosen action, the root visit counts by action key (a policy target) and the work done."""

    action: int
    visits: dict[Hashable, int]
    iterations: int
    seconds: float
    root: Node | None = None  # the search tree (None for flat Monte Carlo and PIMC)


@dataclass
class SearchConfig:
    """Budget and tree-policy settings shared by every algorithm."""

    iterations: int | None = 1000
    seconds: float | None = None
    c: float = 0.7
    depth: int | None = None  # rollout depth in player turns; None = to the end of the game
    evaluator: Evaluator = heuristic_evaluator
    chance_sampler: ChanceSampler = sample_chance
    final: FinalSelection = robust_child

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise InvalidParameterError("a search needs a budget: iterations, seconds or both")
        if self.iterations is not None and self.iterations < 1:
            raise InvalidParameterError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise InvalidParameterError(f"seconds must be > 0, got {self.seconds}")
        if not self.c >= 0:
            raise InvalidParameterError(f"c must be >= 0, got {self.c}")
        if self.depth is not None and self.depth < 1:
            raise InvalidParameterError(f"depth must be >= 1 turn, got {self.depth}")


def budget_spent(config: SearchConfig, done: int, start: float) -> bool:
    """True once ``done`` iterations or the wall-clock seconds since ``start`` reach the budget."""
    if config.iterations is not None and done >= config.iterations:
        return True
    return config.seconds is not None and time.perf_counter() - start >= config.seconds


def rollout(state: GameState, rng: np.random.Generator, config: SearchConfig) -> np.ndarray:
    """Random moves in place to the end, or for ``config.depth`` turns then the evaluator; values in [0, 1]."""
    depth = config.depth
    if not state.is_terminal():
        playout = getattr(state, "random_playout", None)
        if playout is not None:
            playout(rng, max_turns=depth)
        else:
            limit = None if depth is None else state.turn + depth
            while not state.is_terminal() and (limit is None or state.turn < limit):
                if state.current_player == CHANCE:
                    state.apply(config.chance_sampler(state, rng))
                else:
                    legal = state.legal_actions()
                    state.apply(int(legal[rng.integers(len(legal))]))
    return rewards(state) if state.is_terminal() else config.evaluator(state)


class TreeSearch:
    """The MCTS engine: ``search(state, rng)`` from the point of view of ``state.current_player``."""

    def __init__(self, config: SearchConfig, worlds: str = "ismcts", num_worlds: int = 1):
        if worlds not in ("uct", "ismcts", "duct"):
            raise InvalidParameterError(f"worlds must be 'uct', 'ismcts' or 'duct', got {worlds!r}")
        if num_worlds < 1:
            raise InvalidParameterError(f"num_worlds must be >= 1, got {num_worlds}")
        self.config = config
        self.worlds = worlds
        self.num_worlds = num_worlds

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = state.current_player
        if me < 0:
            raise InvalidParameterError(f"search needs a decision node, current_player is {me}")
        start = time.perf_counter()
        root = Node(player=me)
        fixed = [state.determinize(me, rng) for _ in range(self.num_worlds)] if self.worlds == "duct" else None
        done = 0
        while not budget_spent(self.config, done, start):
            if self.worlds == "uct":
                world = state.clone()
            elif self.worlds == "ismcts":
                world = state.determinize(me, rng)
            else:
                world = fixed[done % self.num_worlds].clone()
            self._iterate(root, world, rng)
            done += 1
        return self._result(root, state, rng, done, time.perf_counter() - start)

    def _result(self, root: Node, state: GameState, rng: np.random.Generator, done: int, seconds: float) -> SearchResult:
        actions = {state.action_key(int(a)): int(a) for a in state.legal_actions()}
        children = {k: n for k, n in root.children.items() if k in actions and n.visits > 0}
        key = self.config.final(children, rng) if children else next(iter(actions))
        return SearchResult(actions[key], {k: n.visits for k, n in children.items()}, done, seconds, root)

    def _iterate(self, root: Node, state: GameState, rng: np.random.Generator) -> None:
        """Selection with availability, one expansion, a rollout, backpropagation."""
        cfg = self.config
        path = [root]
        node = root
        expanded = False
        while not state.is_terminal() and not expanded:
            player = state.current_player
            if player == CHANCE:
                outcome = cfg.chance_sampler(state, rng)
                node = node.children.setdefault(("chance", outcome), Node(player=CHANCE))
                state.apply(outcome)
                path.append(node)
                continue
            legal = state.legal_actions().tolist()
            keys = state.legal_action_keys() if hasattr(state, "legal_action_keys") else [
                state.action_key(a) for a in legal]
            fresh: list[tuple[Hashable, int]] = []
            best_key, best_score, best_action = None, -math.inf, -1
            seen: set[Hashable] = set()
            for a, key in zip(legal, keys):
                if key in seen:  # two ids with one meaning (e.g. two copies of a card)
                    continue
                seen.add(key)
                child = node.children.get(key)
                if child is None or child.visits == 0:
                    fresh.append((key, a))
                    continue
                child.avail += 1
                score = child.total / child.visits + cfg.c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best_key, best_score, best_action = key, score, a
            if fresh:
                best_key, best_action = fresh[int(rng.integers(len(fresh)))]
                expanded = True
                for key, _ in fresh:
                    child = node.children.setdefault(key, Node(player=player))
                    child.avail += 1
            node = node.children[best_key]
            state.apply(best_action)
            path.append(node)
        values = rollout(state, rng, cfg)
        for n in path[1:]:
            n.visits += 1
            if n.player >= 0:
                n.total += values[n.player]
        root.visits += 1


class PIMC:
    """Perfect-information Monte Carlo: one UCT tree per determinization, root visits added up by action key."""

    def __init__(self, config: SearchConfig, num_worlds: int = 10):
        if num_worlds < 1:
            raise InvalidParameterError(f"num_worlds must be >= 1, got {num_worlds}")
        if config.iterations is None:
            raise InvalidParameterError("PIMC splits an iteration budget over its worlds: give iterations")
        self.config = config
        self.num_worlds = num_worlds

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = state.current_player
        start = time.perf_counter()
        per_world = max(1, self.config.iterations // self.num_worlds)
        sub = SearchConfig(per_world, self.config.seconds, self.config.c, self.config.depth, self.config.evaluator,
                           self.config.chance_sampler, self.config.final)
        votes: dict[Hashable, int] = {}
        done = 0
        for _ in range(self.num_worlds):
            result = TreeSearch(sub, "uct").search(state.determinize(me, rng), rng)
            done += result.iterations
            for key, visits in result.visits.items():
                votes[key] = votes.get(key, 0) + visits
        actions = {state.action_key(int(a)): int(a) for a in state.legal_actions()}
        votes = {k: v for k, v in votes.items() if k in actions}
        keys = list(votes) or list(actions)
        counts = np.array([votes.get(k, 0) for k in keys])
        best = np.flatnonzero(counts == counts.max())
        key = keys[int(best[rng.integers(len(best))])]
        return SearchResult(actions[key], votes, done, time.perf_counter() - start)


class FlatMonteCarlo:
    """Flat Monte Carlo: root actions tried round-robin, each with a random rollout; the best mean wins.

    On a hidden-information game every rollout starts from a fresh determinization.
    """

    def __init__(self, config: SearchConfig):
        self.config = config

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = state.current_player
        start = time.perf_counter()
        legal = [int(a) for a in state.legal_actions()]
        totals = np.zeros(len(legal))
        counts = np.zeros(len(legal))
        done = 0
        while not budget_spent(self.config, done, start):
            i = done % len(legal)
            world = state.determinize(me, rng)
            world.apply(legal[i])
            totals[i] += rollout(world, rng, self.config)[me]
            counts[i] += 1
            done += 1
        means = np.divide(totals, counts, out=np.zeros_like(totals), where=counts > 0)
        best = np.flatnonzero(means == means.max())
        choice = int(best[rng.integers(len(best))])
        visits = {state.action_key(a): int(n) for a, n in zip(legal, counts)}
        return SearchResult(legal[choice], visits, done, time.perf_counter() - start)

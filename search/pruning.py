"""Heuristic hard pruning (paper 002 §2.4-2.6; paper 000 §2.5) as a search strategy, for any game.

At a decision node the search keeps only the top ``limit`` (the Hard Pruning Limit, HPL) legal moves by a
heuristic of the state after the move, for the player who moves, and never looks at the rest
(``SearchConfig.pruning``; agents' ``prune=h4,hpl=15,extrapolate=1``). The heuristics are the game's: its
``evaluation(name)`` hook (lords_of_war: 002's h1 .. h11). With several names (``prune=h1+h4``) the kept set
is the union of each heuristic's top ``limit`` (002 §2.5: between HPL and n x HPL moves). With
``extrapolate`` each candidate is scored after the mover's remaining decisions of the turn are played
uniformly at random, once (002 §2.6: "until just before the opponent's next decision"): the state reached
when the game ends, another player is to decide, or a new turn begins; chance on the way is sampled. Ties at
the cut-off are broken at random (002 leaves this open; a card count ties often). A node with at most
``limit`` moves keeps them all, unscored.

Hard pruning is permanent per node. With one world (UCT) that is the paper's method. Over many worlds
(ISMCTS, DUCT) a node is an information set whose legal moves change between worlds (the opponent's hand):
a node keeps the top ``limit`` of every world it is reached in; a world that offers a move the node has not
judged yet is judged in full, and its top ``limit`` join the kept set. Only kept moves are searched.
Rollouts are not pruned (uniformly random, as UCT's default policy).

A game may offer the compiled fast path ``evaluations_after`` (one call scores every candidate); otherwise
each candidate is a ``clone`` + ``apply`` (+ the random finish of the turn) + ``evaluation(name)`` here. A game
whose ``compiled_model`` scores moves too (``CompiledModel.evaluations_after``) has UCT / ISMCTS with hard
pruning run whole iterations compiled (``compiled``), judging as ``filter`` does, with the same draws.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.kernels import fill_units, seed_stream
from ..envs.protocol import CHANCE, HOOKS, GameState, hook, sample_chance
from .core import FlatTree, mark_top

EVALUATIONS_AFTER = HOOKS["evaluations_after"].name  # the declared fast path, looked up at every judgement


@dataclass
class Judged:
    """A node's pruning memory, by key id: the ids judged so far and those kept."""

    judged: np.ndarray
    kept: np.ndarray

    @classmethod
    def sized(cls, n: int) -> Judged:
        return cls(np.zeros(n, dtype=bool), np.zeros(n, dtype=bool))

    def grow(self, n: int) -> None:
        if n > len(self.judged):
            extra = np.zeros(n - len(self.judged), dtype=bool)
            self.judged = np.concatenate([self.judged, extra])
            self.kept = np.concatenate([self.kept, extra])


def memory_at(tree: FlatTree, node: int) -> Judged | None:
    """Hard pruning's memory at ``node`` of ``tree``: the Python driver's, or the one a compiled search left in the
    tree's judgement table (then kept for the Python driver, which may go on with the tree)."""
    found = tree.pruned.get(node)
    if found is None and tree.shape[2]:
        base = node * tree.num_keys
        mine = (tree.judge_key >= base) & (tree.judge_key < base + tree.num_keys)
        if mine.any():
            found = tree.pruned[node] = Judged.sized(tree.table.size)
            found.judged[tree.judge_key[mine] - base] = True
            found.kept[tree.judge_key[mine & tree.judge_kept] - base] = True
    return found


def finish_turn(state: GameState, mover: int, turn: int, rng: np.random.Generator) -> None:
    """Play ``mover``'s remaining decisions of ``turn`` uniformly at random, in place (002 §2.6): until the game
    ends, another player is to decide or a new turn begins; chance on the way is sampled."""
    while True:
        player = state.current_player
        if player == CHANCE:
            state.apply(sample_chance(state, rng))
        elif player == mover and state.turn == turn:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
        else:
            return


@dataclass(frozen=True)
class HardPruning:
    """Keep the top ``limit`` moves by each heuristic of ``names`` (the game's evaluations), their union."""

    names: tuple[str, ...]
    limit: int = 15
    extrapolate: bool = False

    def __post_init__(self) -> None:
        if not self.names or not all(isinstance(n, str) and n for n in self.names):
            raise InvalidParameterError(f"pruning needs at least one heuristic name, got {self.names!r}")
        if not (isinstance(self.limit, int) and self.limit >= 1):
            raise InvalidParameterError(f"the hard pruning limit (hpl) must be an int >= 1, got {self.limit!r}")

    @classmethod
    def parse(cls, spec: str, limit: int = 15, extrapolate: bool = False) -> HardPruning:
        """From an agent spec's ``prune=h1+h4``."""
        return cls(tuple(n.strip() for n in spec.split("+")), limit, extrapolate)

    def check(self, state: GameState) -> None:
        """Raise ``InvalidParameterError`` unless ``state``'s game has every evaluation named."""
        evaluation = hook(state, "evaluation")
        if evaluation is None:
            raise InvalidParameterError(f"prune={'+'.join(self.names)}: game {state.info.name!r} has no "
                                        "evaluation(name) hook to prune by")
        for name in self.names:
            evaluation(name)

    def scores(self, state: GameState, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``[len(names), len(legal)]``: each heuristic of the state after each move, for the mover."""
        fast = getattr(state, EVALUATIONS_AFTER, None)
        if fast is not None:
            return fast(legal, self.names, self.extrapolate, rng)
        mover = state.current_player
        evaluations: list[Callable[[GameState, int], float]] = [state.evaluation(n) for n in self.names]
        out = np.empty((len(self.names), len(legal)))
        for i, action in enumerate(legal):
            after = state.clone()
            after.apply(int(action))
            if self.extrapolate:
                finish_turn(after, mover, state.turn, rng)
            for h, evaluate in enumerate(evaluations):
                out[h, i] = evaluate(after, mover)
        return out

    def keep(self, state: GameState, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Indices into ``legal`` (increasing) of the moves kept: the union of each heuristic's top ``limit``,
        ties at the cut-off broken at random; every index when there are at most ``limit``.

        The scores come first (the fast path draws its extrapolation stream from ``rng`` then), and the
        tie-breaks from a compiled stream seeded by one more draw of ``rng``: a fixed number of draws a
        judgement, which the compiled search (``compiled``) replays exactly."""
        n = len(legal)
        if n <= self.limit:
            return np.arange(n)
        scores = self.scores(state, legal, rng)
        ties = seed_stream(rng)
        kept = np.zeros(n, dtype=bool)
        u, top = np.empty(n), np.empty(self.limit, dtype=np.int64)
        for row in np.asarray(scores, dtype=np.float64):
            fill_units(ties, u)
            mark_top(np.ascontiguousarray(row), u, n, self.limit, kept, top)
        return np.flatnonzero(kept)

    def filter(self, memory: Judged | None, state: GameState, legal: np.ndarray, ids: np.ndarray,
               rng: np.random.Generator, size: int) -> tuple[Judged, np.ndarray, np.ndarray]:
        """The node's memory (made when None, grown to ``size`` key ids) and the kept ``legal`` moves with their
        key ``ids``; judges this world's moves when one of them is new to the node, or none of them is kept."""
        if memory is None:
            memory = Judged.sized(size)
        memory.grow(size)
        if not memory.judged[ids].all() or not memory.kept[ids].any():
            keep = self.keep(state, legal, rng)
            memory.judged[ids] = True
            memory.kept[ids[keep]] = True
        mask = memory.kept[ids]
        return memory, legal[mask], ids[mask]

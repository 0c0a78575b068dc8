"""One search budget per turn, spent over the turn's several decisions: paper 001 §3.3's time policies.

A Hearthstone turn is a sequence of atomic decisions whose length is unknown in
advance, and the first decisions are the hard ones. 001 gives a turn a budget T
(there seconds, here iterations) and spends it in one of two ways:

- **one-search** (§3.3.2, used for all of 001's final results): a first search of
  ``ALPHA_ONE * T`` from the turn's first decision; if the most-visited path
  through the rest of the turn has no edge under ``PSI`` visits, the rest of T
  goes to that same search and the turn is read off the tree; otherwise the
  decisions up to the first rare edge are read off the tree and a new search
  starts there, with the multiple-search rule (a path through a random event,
  a card drawn mid-turn, counts as rare there: what follows it is not known);
- **multiple-search** (§3.3.1): every decision gets
  ``min(max(ALPHA_MULTIPLE * R, TAU * R / BF), BETA * R)`` of the turn's remaining
  budget R (BF: the decision's number of legal moves), keeping the subtree of the
  move played.

A decision is "read off the tree" when the subtree kept from the last search
(``TreeSearch`` with ``reuse``) has a most-visited edge with ``PSI`` visits or
more: it is played with no new iteration. A chance event inside the turn (a
card drawn) leaves no kept subtree, so the next decision searches again.

Where 001 is silent or does not fit decisions committed one at a time: T is in
iterations, not seconds (results do not depend on the machine); the
"compensation time" of §3.3.1 (going back to search an earlier decision longer)
cannot apply once that decision has been played, so it is left out; a search gets
at least one iteration; and where 001's game loop forces the end of the turn when
the time is up (the protocol has no game-independent "end turn"), a decision
that the spent turn's tree cannot answer (one-search's path cut by a card drawn
mid-turn) gets the multiple-search lower bound ``TAU * T / BF`` of the whole
turn's budget, so such a turn overspends T by that much.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, GameState
from .mcts import SearchResult, TreeSearch
from .tree import VISITS, Node

# Paper 001 §3.6.2 (the settings of Table 3.4, the best found for each policy).
ALPHA_ONE = 0.66  # share of a turn's budget for one-search's first search
ALPHA_MULTIPLE = 0.33  # share of the remaining budget for each multiple-search decision
BETA = 0.8  # at most this share of the remaining budget for one decision
TAU = 1.0  # lower bound: TAU * remaining / branching factor
PSI = 75  # visits below which an edge of the one-search path is "rare" and searched again

POLICIES = ("one", "multiple")


def check_policy(policy: str) -> None:
    """Raise ``InvalidParameterError`` unless ``policy`` names one of 001 §3.3's time policies."""
    if policy not in POLICIES:
        raise InvalidParameterError(f"turn policy must be one of {POLICIES}, got {policy!r}")


class TurnBudget:
    """A searcher that spends ``turn_iterations`` per turn of its player with 001's one- or multiple-search policy."""

    def __init__(self, engine: TreeSearch, turn_iterations: int, policy: str = "one"):
        check_policy(policy)
        if turn_iterations < 1:
            raise InvalidParameterError(f"a turn budget needs at least 1 iteration, got {turn_iterations}")
        engine.reuse = True  # both policies keep the subtree of the move played
        self.engine = engine
        self.explain = engine.explain  # the engine's loop, whatever the turn's budget
        self.turn_iterations = turn_iterations
        self.policy = policy
        self.owner: tuple[int, int] | None = None  # (player, turn) the remaining budget belongs to
        self.left = 0  # iterations left in this turn

    def reset(self) -> None:
        """A new game: no turn owns a budget, no subtree is kept."""
        self.owner, self.left = None, 0
        self.engine.reset()

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        first = (state.current_player, state.turn) != self.owner
        if first:
            self.owner = (state.current_player, state.turn)
            self.left = self.turn_iterations
        kept = self.engine.take_kept(state)
        if kept is not None and self.policy == "one" and solid_edge(kept, state):
            return self.engine.search(state, rng, iterations=0, root=kept)
        if first and self.policy == "one":
            return self._one_search(state, rng)
        if self.left == 0:  # spent, and the tree has no answer (a card drawn mid-turn): the lower bound of all T
            return self._spend(state, rng, TAU * self.turn_iterations / len(state.legal_actions()), kept)
        share = max(ALPHA_MULTIPLE * self.left, TAU * self.left / len(state.legal_actions()))
        return self._spend(state, rng, min(share, BETA * self.left), kept)

    def _one_search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        result = self._spend(state, rng, ALPHA_ONE * self.turn_iterations, None)
        if self.left > 0 and solid_path(result.root, state):
            more = self._spend(state, rng, self.left, result.root)
            result = replace(more, iterations=result.iterations + more.iterations,
                             seconds=result.seconds + more.seconds)
        return result

    def _spend(self, state: GameState, rng: np.random.Generator, iterations: float, root: Node | None) -> SearchResult:
        n = max(1, int(round(iterations)))
        self.left = max(0, self.left - n)
        return self.engine.search(state, rng, iterations=n, root=root)


def most_visited(node: Node, state: GameState) -> tuple[int, int]:
    """(action, visits) of ``node``'s most-visited edge among ``state``'s legal moves ((-1, 0) if none)."""
    best, best_visits = -1, 0
    for a in state.legal_actions():
        e = node.edge(state.action_key(int(a)))
        visits = int(node.stat[VISITS, e]) if e >= 0 else 0
        if visits > best_visits:
            best, best_visits = int(a), visits
    return best, best_visits


def solid_edge(node: Node, state: GameState) -> bool:
    """True when ``node``'s most-visited legal edge has at least ``PSI`` visits: play it without searching."""
    return most_visited(node, state)[1] >= PSI


def solid_path(root: Node, state: GameState) -> bool:
    """True when the most-visited path from ``root`` (in ``state``'s world) reaches the end of its player's turn
    with no edge under ``PSI`` visits and no random event on the way (the path past one is unknown yet)."""
    me, turn = root.player, state.turn
    node, world = root, state.clone()
    while True:
        action, visits = most_visited(node, world)
        if visits < PSI:
            return False
        edge = node.edge(world.action_key(action))
        world.apply(action)
        if world.is_terminal() or world.turn != turn:
            return True
        if world.current_player == CHANCE:
            return False
        if world.current_player != me:
            return True
        node = node.child_for(edge, me)
        if node is None:
            return False

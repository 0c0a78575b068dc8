"""Search agents: each wraps one algorithm of ``mcts`` behind the ``Agent`` interface.

Agent specs (``cardboard.make_agent``), every parameter optional:

- ``mc:iterations=1000,depth=0`` flat Monte Carlo
- ``uct:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0`` UCT on the true state (perfect information / open mode)
- ``ismcts:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0`` single-observer ISMCTS
- ``duct:worlds=10,iterations=1000,c=0.7,depth=0,seconds=0,reuse=0`` determinized UCT (paper 001 Algorithm 3)
- ``pimc:worlds=10,iterations=1000,c=0.7,depth=0`` one UCT tree per determinization, votes added up

``iterations=0`` means no iteration limit (then ``seconds`` must be set); ``seconds=0`` no time limit;
``depth=0`` rollouts to the end of the game, otherwise for that many player turns and then the game's
heuristic. ``c`` is the UCB1 exploration constant on rewards in [0, 1]. ``reuse=1`` (uct, ismcts, duct)
keeps the subtree of the chosen action for the next decision of the same turn.
"""
from __future__ import annotations

import numpy as np

from ..envs.protocol import GameState
from .mcts import PIMC, FlatMonteCarlo, SearchConfig, SearchResult, TreeSearch


def search_config(iterations: int, seconds: float, c: float, depth: int) -> SearchConfig:
    """A ``SearchConfig`` from spec values, where 0 means 'no limit' for iterations, seconds and depth."""
    return SearchConfig(iterations=iterations or None, seconds=seconds or None, c=c, depth=depth or None)


class SearchAgent:
    """An agent that runs a search for every decision with a choice; ``last`` keeps the latest
    ``SearchResult`` (None after a forced move, which is played without searching)."""

    def __init__(self, searcher: TreeSearch | PIMC | FlatMonteCarlo, name: str):
        self.searcher = searcher
        self.name = name
        self.last: SearchResult | None = None

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = None
            return int(legal[0])
        self.last = self.searcher.search(state, rng)
        return self.last.action


def flat_mc(iterations: int = 1000, depth: int = 0) -> SearchAgent:
    return SearchAgent(FlatMonteCarlo(search_config(iterations, 0.0, 0.0, depth)), "mc")


def uct(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
        reuse: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth), "uct", reuse=reuse), "uct")


def ismcts(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
           reuse: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth), "ismcts", reuse=reuse), "ismcts")


def duct(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
         reuse: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth), "duct", worlds, reuse), "duct")


def pimc(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0) -> SearchAgent:
    return SearchAgent(PIMC(search_config(iterations, 0.0, c, depth), worlds), "pimc")

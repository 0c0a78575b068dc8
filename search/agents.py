"""Search agents: each wraps one algorithm of ``mcts`` behind the ``Agent`` interface.

Agent specs (``cardboard.make_agent``), every parameter optional:

- ``mc:iterations=1000,depth=0`` flat Monte Carlo
- ``uct:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0`` UCT on the true state (perfect information /
  open mode)
- ``ismcts:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0`` single-observer ISMCTS
- ``duct:worlds=10,iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0`` determinized UCT (paper 001
  Algorithm 3)
- ``pimc:worlds=10,iterations=1000,c=0.7,depth=0`` one UCT tree per determinization, votes added up

``iterations=0`` means no iteration limit (then ``seconds`` must be set); ``seconds=0`` no time limit;
``depth=0`` rollouts to the end of the game, otherwise for that many player turns and then the game's
heuristic. ``c`` is the UCB1 exploration constant on rewards in [0, 1]. ``reuse=1`` (uct, ismcts, duct)
keeps the subtree of the chosen action for the next decision of the same turn. ``cnb=1`` (uct, ismcts,
duct) turns on chance-node bucketing with pre-sampling at tree chance nodes (001 §2.6, ``chance``) with
the game's own buckets and pre-sample counts: its states' ``chance_bucket(outcome)`` and
``chance_samples()`` (hearth: draws by mana cost, 001 Table 3.2); a game without them is refused with
``InvalidParameterError`` at the first decision.

Other agents built on the forward model live in ``cardboard.policies`` (``lookahead``, and the
hearth-only ``greedy_h``).
"""
from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState
from .chance import ChanceBucketing
from .mcts import PIMC, FlatMonteCarlo, SearchConfig, SearchResult, TreeSearch


def _game_bucket(state: GameState, outcome: int) -> Hashable:
    return state.chance_bucket(outcome)


def _game_samples(state: GameState) -> int:
    return state.chance_samples()


GAME_CNB = ChanceBucketing(bucket=_game_bucket, samples=_game_samples)  # the game's own CNB hooks


def search_config(iterations: int, seconds: float, c: float, depth: int, cnb: bool = False) -> SearchConfig:
    """A ``SearchConfig`` from spec values, where 0 means 'no limit' for iterations, seconds and depth;
    ``cnb`` buckets tree chance nodes with the game's ``chance_bucket`` / ``chance_samples``."""
    return SearchConfig(iterations=iterations or None, seconds=seconds or None, c=c, depth=depth or None,
                        bucketing=GAME_CNB if cnb else None)


def check_cnb(state: GameState) -> None:
    """Raise ``InvalidParameterError`` unless the game's states offer the CNB hooks."""
    if not (hasattr(state, "chance_bucket") and hasattr(state, "chance_samples")):
        raise InvalidParameterError(f"cnb=1: game {state.info.name!r} has no chance-node buckets (its states "
                                    "offer no chance_bucket / chance_samples)")


class SearchAgent:
    """An agent that runs a search for every decision with a choice; ``last`` keeps the latest
    ``SearchResult`` (None after a forced move, which is played without searching). ``cnb``: the search
    buckets chance nodes with the game's hooks, checked at every decision."""

    def __init__(self, searcher: TreeSearch | PIMC | FlatMonteCarlo, name: str, cnb: bool = False):
        self.searcher = searcher
        self.name = name
        self.cnb = cnb
        self.last: SearchResult | None = None

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        if self.cnb:
            check_cnb(state)
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = None
            return int(legal[0])
        self.last = self.searcher.search(state, rng)
        return self.last.action


def flat_mc(iterations: int = 1000, depth: int = 0) -> SearchAgent:
    return SearchAgent(FlatMonteCarlo(search_config(iterations, 0.0, 0.0, depth)), "mc")


def uct(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
        reuse: bool = False, cnb: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth, cnb), "uct", reuse=reuse),
                       "uct", cnb)


def ismcts(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
           reuse: bool = False, cnb: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth, cnb), "ismcts", reuse=reuse),
                       "ismcts", cnb)


def duct(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
         reuse: bool = False, cnb: bool = False) -> SearchAgent:
    return SearchAgent(TreeSearch(search_config(iterations, seconds, c, depth, cnb), "duct", worlds, reuse),
                       "duct", cnb)


def pimc(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0) -> SearchAgent:
    return SearchAgent(PIMC(search_config(iterations, 0.0, c, depth), worlds), "pimc")

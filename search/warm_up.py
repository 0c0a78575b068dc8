"""Time budgets that do not count first-use costs (issue 32): a throw-away search before a searcher's first one.

A kernel loads at its first call in a process (numba compiles it, or reads its cache: milliseconds to minutes),
so a searcher's first search with a budget in ``seconds`` could spend its budget loading and play the first legal
move unsearched. ``WarmUp.warm_up`` runs, once, before that search's clock starts, a searcher of the same kind
with ``WARM_UP_ITERATIONS`` iterations and no clock, on its own generator: every kernel that search calls is
loaded (and ``load_growth``'s, which a tree of that size never needs: issue 47 found it compiling on the first
clock, with a cold numba cache), and nothing the real search sees (its generator, its tree, its engine's state) is
touched.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .core import load_growth

if TYPE_CHECKING:
    from ..envs.protocol import GameState
    from .config import SearchConfig

WARM_UP_ITERATIONS = 16


class WarmUp:
    """A searcher with a ``config`` whose first time-budgeted search is preceded by ``untimed(config)``'s."""

    config: SearchConfig
    _warm = False

    def untimed(self, config: SearchConfig) -> Any:
        """A fresh searcher of this kind with ``config`` (which has an iteration budget and no clock)."""
        raise NotImplementedError

    def warm_up_due(self) -> bool:
        """Whether the next time-budgeted search is the first: a warm-up is due."""
        return self.config.seconds is not None and not self._warm

    def warm_up(self, state: GameState) -> None:
        """The throw-away search from ``state``, once, when the budget is in seconds."""
        if self.warm_up_due():
            self._warm = True
            warm = replace(self.config, iterations=WARM_UP_ITERATIONS, seconds=None)
            self.untimed(warm).search(state, np.random.default_rng(0))
            load_growth()

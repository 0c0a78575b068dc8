"""A prior at the root only: one evaluation a decision steers the root's step, the search below stays plain.

``SearchConfig.root_prior`` (agents: ``net=PATH,root=1``) is an evaluator asked once per search, on the searched
state, for its prior over the actions. The root's step is then PUCT over it (``core.pick_puct`` with
``SearchConfig.root_cpuct``, the prior renormalised over the moves offered: ``core.set_root_prior``); every other
step, the expansions and the rollouts are UCB1's as without it. So a network's knowledge reaches the decision for
the price of one forward pass, and a search compiled for its game (``compiled``) stays compiled: at equal time it
keeps nearly all its iterations, where a prior at every new node (``prior=1``) costs a forward pass each.

The evaluator sees the searched state itself, not a determinization: it must read only what the player to move
may see (a network reads ``observation(player)``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState
from .core import NO_ROOT_PRIOR, KeyTable
from .strategies import evaluation
from .tree import legal_ids, moves

if TYPE_CHECKING:
    from .config import SearchConfig


def root_prior_of(config: SearchConfig, state: GameState, table: KeyTable) -> np.ndarray:
    """The root prior of a search of ``state`` by key id of ``table`` (``core.set_root_prior``'s array): the
    evaluator's weights of the moves searched (the sensible ones under ``prune``) summed per key, -1 for the key ids
    they do not offer; ``NO_ROOT_PRIOR`` without a ``root_prior``."""
    if config.root_prior is None:
        return NO_ROOT_PRIOR
    legal = moves(state, config.prune)
    ids = legal_ids(table, state, legal, not config.prune)
    prior = evaluation(config.root_prior(state)).prior
    if prior is None:
        raise InvalidParameterError("the root_prior evaluator answered values without a prior")
    out = np.full(table.size, -1.0)  # every id legal_ids gave is below the table's size
    out[ids] = 0.0
    np.add.at(out, ids, np.maximum(np.asarray(prior, dtype=np.float64)[legal], 0.0))
    return out

"""Network-guided UCT / ISMCTS with whole descents compiled: leaves reach the network as arrays, many at a time.

``plan`` chooses ``compiled.CompiledLoop`` with this leaf mode (``NetworkLeaves``) when the state's compiled model
(``envs.compiled_model``) offers the ``observation`` kernel, the evaluator answers arrays (``strategies.ArrayEvaluator``: a network's, as ``net=PATH``
builds it), the random generator can be replayed (``compiled``) and the configuration is the one this driver
reproduces: ``PUCT`` selection, ``depth=0`` (the network values the leaf, no rollout), the default chance sampler and
determinizer, no bucketing, ``prune``, hard pruning or tree reuse, ``worlds`` "uct" or "ismcts", any ``leaves``
(``refusal`` says why not). ``SearchConfig(compiled=False)`` keeps the Python path. The result is the Python path's: the same action, visits,
whole tree (``PRIOR`` included) and generator state, as long as the network answers a batch of the same rows
the same way (``tests/test_compiled_network.py`` checks it at 1 to 8 leaves in flight).

The iterations are ``compiled._iterate``'s in its leaf mode (``compiled``'s docstring; one compiled call runs many):
the world, then PUCT steps from the root, each visit counted on the way down, to a node never expanded, the leaf,
whose observation and legal mask fill a row of the batch (``Leaves``). When ``leaves`` leaves wait (or the root
itself is the leaf: it is expanded before any other), the search yields one ``batching.ArrayRequest`` (the rows)
and is sent ``(priors, values)``; one compiled call (``_settle``) expands each leaf's node with its prior
(``core.prior_over``, ``core.add_prior``; the first leaf that reached a node expands it) and backs up its values
(``core.unit_values``, ``core.backup``), leaves in order. Many searches driven together
(``batching.run_together``, self-play's ``--concurrent``) put their rows in one forward pass.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import njit, types

from ..envs.protocol import GameInfo, GameState
from .batching import ArrayRequest, Steps
from .compiled import LEAF_TYPES, either_mode, first_reason, game_refusal, model_of
from .config import SearchConfig
from .core import (N_EDGES, NEED_EDGES, TREE_TYPES, WAITING, FlatTree, add_prior, backup, grown, prior_over,
                   unit_values)
from .strategies import PUCT, answers_arrays
from .worlds import Fresh, TrueState, Worlds


def refusal(config: SearchConfig, worlds: Worlds, state: GameState) -> str | None:
    """Why the leaf mode cannot reproduce ``config`` with ``worlds`` on ``state``'s game (None: it can)."""
    found = first_reason((
        *either_mode(config, worlds),
        (type(config.selection) is not PUCT, f"{type(config.selection).__name__} selection (the leaf mode's is PUCT)"),
        (config.depth != 0, "rollouts below PUCT leaves (the leaf mode values leaves by the network: depth=0)"),
        (not answers_arrays(config.evaluator), "an evaluator that answers no arrays (a network's does)"),
        (type(worlds) not in (TrueState, Fresh), f"{worlds.name} worlds (the leaf mode takes uct and ismcts)"),
        (config.prune or config.pruning is not None, "pruning"))) or game_refusal(state)
    if found is not None:
        return found
    if state.info.chance == "explicit":
        return "chance nodes in the tree (the leaf mode has none)"
    return "the compiled model has no observation kernel" if model_of(state).observation is None else None


class NetworkLeaves:
    """The leaf mode of a ``compiled.CompiledLoop`` (``compiled.LeafMode``): ``leaves`` leaves in flight whose rows
    go to the network evaluator ``evaluator`` (an ``ArrayEvaluator``) in one ``ArrayRequest``, then ``_settle``."""

    def __init__(self, config: SearchConfig):
        self.evaluator, self.k, self.settle = config.evaluator, config.leaves, _settler()

    def leaves_of(self, tree: FlatTree, info: GameInfo) -> Leaves:
        """The leaves kept with ``tree`` from its last search (``FlatTree.of``'s reason), or new ones."""
        size = int(np.prod(info.observation_shape))
        found = tree.leaves
        if found is None or found.observations.shape != (self.k, size):
            found = tree.leaves = Leaves(self.k, size, info.num_actions)
        return found

    def full(self, tree: FlatTree) -> bool:
        """Whether the batch is full, or the root is the leaf (it is expanded before any other)."""
        waiting = tree.counters[WAITING]
        return bool(waiting == self.k or (waiting and tree.node_size[0] == 0))

    def settled(self, tree: FlatTree, leaves: Leaves, info: GameInfo) -> Steps[None]:
        """Ask for the waiting leaves' network answers (one ``ArrayRequest``), then expand and back them up."""
        w = int(tree.counters[WAITING])
        priors, values = yield ArrayRequest(self.evaluator.queue, leaves.observations[:w], leaves.masks[:w])
        tree.counters[NEED_EDGES] = tree.counters[N_EDGES] + w * leaves.actions.shape[1]  # each may expand a node
        tree.make_room()
        self.settle(np.ascontiguousarray(priors, dtype=np.float32), np.ascontiguousarray(values, dtype=np.float32),
                    bool(self.evaluator.prior), float(info.min_return), float(info.max_return), tree.num_keys, *tree.arrays(), *leaves.arrays())


@functools.cache
def _settler() -> Any:
    """``_settle`` compiled (its types are the flat tree's and the leaves', the same for every game)."""
    f32s2, f64 = types.float32[:, ::1], types.float64
    return _settle.compile((f32s2, f32s2, types.boolean, f64, f64, types.int64, *TREE_TYPES, *LEAF_TYPES[:7]))


class Leaves:
    """The leaves in flight: each one's node, path, legal actions and keys, and the batch rows (observation, mask)
    the network reads (``compiled.LEAF_TYPES``); ``make_room`` deepens the paths between kernel calls, keeping what
    waits."""

    def __init__(self, leaves: int, observation_size: int, num_actions: int):
        self.node = np.empty(leaves, dtype=np.int64)
        self.depth = np.empty(leaves, dtype=np.int64)
        self.path_node = np.empty((leaves, 16), dtype=np.int64)
        self.path_edge = np.empty((leaves, 16), dtype=np.int64)
        self.n = np.empty(leaves, dtype=np.int64)
        self.actions = np.empty((leaves, num_actions), dtype=np.int64)
        self.keys = np.empty((leaves, num_actions), dtype=np.int64)
        self.observations = np.empty((leaves, observation_size), dtype=np.float32)
        self.masks = np.empty((leaves, num_actions), dtype=np.bool_)

    def make_room(self, depth: int) -> None:
        if depth > self.path_node.shape[1]:
            size = max(depth, 2 * self.path_node.shape[1])
            self.path_node, self.path_edge = grown(self.path_node, size, 1), grown(self.path_edge, size, 1)

    def arrays(self) -> tuple:
        return self.node, self.depth, self.path_node, self.path_edge, self.n, self.actions, self.keys

    def loop_arrays(self) -> tuple:
        """The loop's leaf arguments (``compiled.LEAF_TYPES``)."""
        return (*self.arrays(), self.observations, self.masks)


# ---- the compiled settlement ------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _settle(priors, values, use_prior, lo, hi, num_keys, node_player, node_size, edge_node, edge_key, stat, edge_child,
            hash_key, hash_edge, judge_key, judge_kept, counters, leaf_node, leaf_depth, leaf_path_node,
            leaf_path_edge, leaf_n, leaf_actions, leaf_keys):
    """Each waiting leaf in order: its node expanded with its prior (row ``priors[w]`` over action ids; uniform
    without ``use_prior``) if no earlier leaf expanded it, then its values (row ``values[w]``, in [``lo``, ``hi``])
    backed up."""
    p = np.empty(leaf_actions.shape[1])
    v = np.empty(edge_child.shape[1])
    for w in range(counters[WAITING]):
        node, n = leaf_node[w], leaf_n[w]
        if node_size[node] == 0:
            if use_prior:
                prior_over(priors[w], leaf_actions[w, :n], p[:n])
            else:
                p[:n] = 1.0 / n
            add_prior(node, leaf_keys[w, :n], p[:n], num_keys, node_size, edge_node, edge_key, stat, edge_child,
                      hash_key, hash_edge, counters)
        unit_values(values[w], lo, hi, v)
        backup(stat, node_player, leaf_path_node[w], leaf_path_edge[w], leaf_depth[w], v)
    counters[WAITING] = 0

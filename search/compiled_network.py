"""Network-guided UCT / ISMCTS with whole descents compiled: leaves reach the network as arrays, many at a time.

``TreeSearch`` hands a search here (``prepare``) when the state's compiled model (``envs.compiled_model``) offers the
``observation`` kernel, the evaluator answers arrays (``strategies.ArrayEvaluator``: a network's, as ``net=PATH``
builds it), the random generator can be replayed (``compiled``) and the configuration is the one this driver
reproduces: ``PUCT`` selection, ``depth=0`` (the network values the leaf, no rollout), the default chance sampler and
determinizer, no bucketing, ``prune``, hard pruning or tree reuse, ``worlds`` "uct" or "ismcts", any ``leaves``.
``SearchConfig(compiled=False)`` keeps the Python path. The result is the Python path's: the same action, visits,
whole tree (``PRIOR`` included) and generator state, as long as the network answers a batch of the same rows
the same way (``tests/test_compiled_network.py`` checks it at 1 to 8 leaves in flight).

The iterations are ``compiled._iterate``'s in its leaf mode (``compiled``'s docstring; one compiled call runs many):
the world, then PUCT steps from the root, each visit counted on the way down, to a node never expanded, the leaf,
whose observation and legal mask fill a row of the batch (``_Leaves``). When ``leaves`` leaves wait (or the root
itself is the leaf: it is expanded before any other), the search yields one ``batching.ArrayRequest`` (the rows)
and is sent ``(priors, values)``; one compiled call (``_settle``) expands each leaf's node with its prior
(``core.prior_over``, ``core.add_prior``; the first leaf that reached a node expands it) and backs up its values
(``core.unit_values``, ``core.backup``), leaves in order. Many searches driven together
(``batching.run_together``, self-play's ``--concurrent``) put their rows in one forward pass.
"""
from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit, types

from ..envs.compiled_model import CompiledModel
from ..envs.stop import stop_point
from ..envs.protocol import GameState
from .batching import ArrayRequest, Steps
from .compiled import COMPILED_MODEL, LEAF_TYPES, REPLAYABLE, SLICE, _defaults, _rewind, _runner, _Runner
from .core import (MAX_DEPTH, N_EDGES, NEED_EDGES, NEED_WORDS, POS, TREE_TYPES, UNIFORMS_BLOCK, WAITING, FlatTree,
                   KeyTable, add_prior, backup, grown, prior_over, unit_values)
from .strategies import PUCT, answers_arrays
from .tree import Node

if TYPE_CHECKING:
    from .mcts import SearchResult, TreeSearch


class Prepared(NamedTuple):
    """What ``prepare`` found: the model, its loop (``compiled._iterate``, run in the leaf mode) and ``_settle``,
    compiled."""

    model: CompiledModel
    run: _Runner
    settle: Any


def prepare(engine: TreeSearch, state: GameState, rng: np.random.Generator) -> Prepared | None:
    """The model and its loop (compiled, or read from numba's cache, on first use in a process: before a time budget's
    clock starts) when ``engine`` may search ``state`` with ``rng`` here, else None."""
    cfg = engine.config
    default = _defaults(type(cfg))
    plain = (cfg.compiled and engine.worlds in ("uct", "ismcts") and not engine.reuse
             and type(cfg.selection) is PUCT and cfg.depth == 0 and answers_arrays(cfg.evaluator)
             and cfg.chance_sampler is default["chance_sampler"] and cfg.bucketing is None and not cfg.prune
             and cfg.pruning is None and (engine.worlds == "uct" or cfg.determinizer is default["determinizer"]))
    info = state.info
    if not plain or info.num_action_keys is None or info.chance == "explicit":
        return None
    if type(rng) is not np.random.Generator or type(rng.bit_generator) not in REPLAYABLE:
        return None
    make = getattr(state, COMPILED_MODEL, None)
    model = make() if make is not None else None
    if model is None or model.observation is None:
        return None
    return Prepared(model, _runner(model), _settler())


@functools.cache
def _settler() -> Any:
    """``_settle`` compiled (its types are the flat tree's and the leaves', the same for every game)."""
    f32s2, f64 = types.float32[:, ::1], types.float64
    return _settle.compile((f32s2, f32s2, types.boolean, f64, f64, types.int64, *TREE_TYPES, *LEAF_TYPES[:7]))


class _Leaves:
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

    @classmethod
    def of(cls, tree: FlatTree, leaves: int, observation_size: int, num_actions: int) -> _Leaves:
        """The leaves kept with ``tree`` from its last search (``FlatTree.of``'s reason), or new ones."""
        found = tree.leaves
        if found is None or found.observations.shape != (leaves, observation_size):
            found = tree.leaves = cls(leaves, observation_size, num_actions)
        return found

    def make_room(self, depth: int) -> None:
        if depth > self.path_node.shape[1]:
            size = max(depth, 2 * self.path_node.shape[1])
            self.path_node, self.path_edge = grown(self.path_node, size, 1), grown(self.path_edge, size, 1)

    def arrays(self) -> tuple:
        return self.node, self.depth, self.path_node, self.path_edge, self.n, self.actions, self.keys


def search(engine: TreeSearch, prepared: Prepared, state: GameState, rng: np.random.Generator,
           iterations: int | None, start: float) -> Steps[SearchResult]:
    """``engine.steps``' search of ``state`` here (``iterations`` and ``start`` as there): yields an ``ArrayRequest``
    per batch of leaves, is sent ``(priors, values)``, returns the ``SearchResult``."""
    model, run, settle = prepared
    cfg, info, me = engine.config, state.info, state.current_player
    target = iterations if iterations is not None else cfg.iterations
    seconds = None if iterations is not None else cfg.seconds
    evaluator, ismcts, k = cfg.evaluator, engine.worlds == "ismcts", cfg.leaves
    lo, hi = float(info.min_return), float(info.max_return)
    tree = FlatTree.of(engine, me, info.num_players, info.num_actions, target, False,
                       table=KeyTable(info.num_action_keys), num_keys=info.num_action_keys, chance=False)
    leaves = _Leaves.of(tree, k, int(np.prod(info.observation_shape)), info.num_actions)
    head = run.head(model, model.state[None].copy(), me, ismcts, cfg, info, np.empty(0, dtype=np.int64),
                    tree.num_keys, k)
    bits = rng.bit_generator
    saved = bits.state
    words = np.empty(0, dtype=np.uint64)
    used = done = 0
    batch = 16 if seconds is not None else target  # a budget in seconds runs in slices of about SLICE seconds
    short = True  # the last kernel call may have stopped for want of room or raw words
    try:
        while (target is None or done < target) and (seconds is None or time.perf_counter() - start < seconds):
            stop_point()
            if target is not None:
                batch = min(batch, target - done)
            if short:
                tree.make_room()
                leaves.make_room(int(tree.counters[MAX_DEPTH]) + 2)
                want = max(int(tree.counters[NEED_WORDS]),
                           UNIFORMS_BLOCK + batch * (model.determinize_draws * ismcts + 4))
                if len(words) - tree.counters[POS] < want:
                    used += int(tree.counters[POS])
                    words = np.concatenate((words[tree.counters[POS]:], bits.random_raw(want)))
                    tree.counters[POS] = 0
            began = time.perf_counter()
            ran = run.loop(*head, done, float(engine._stamp + done), batch, *tree.arrays(), tree.block, words,
                           *leaves.arrays(), leaves.observations, leaves.masks)
            done += ran
            if seconds is not None and ran:
                batch = max(1, int(ran * SLICE / max(time.perf_counter() - began, 1e-6)))
            waiting = tree.counters[WAITING]
            full = waiting == k or (waiting and tree.node_size[0] == 0)
            short = ran < batch and not full
            if full:
                yield from _settled(settle, tree, leaves, evaluator, lo, hi, info.num_actions)
        if tree.counters[WAITING]:
            yield from _settled(settle, tree, leaves, evaluator, lo, hi, info.num_actions)
    finally:
        _rewind(bits, saved, used + int(tree.counters[POS]))
    engine._stamp += done
    return engine._result(Node(tree), state, rng, done, time.perf_counter() - start)


def _settled(settle: Any, tree: FlatTree, leaves: _Leaves, evaluator: Any, lo: float, hi: float,
             max_legal: int) -> Steps[None]:
    """Ask for the waiting leaves' network answers (one ``ArrayRequest``), then expand and back them up."""
    w = int(tree.counters[WAITING])
    priors, values = yield ArrayRequest(evaluator.queue, leaves.observations[:w], leaves.masks[:w])
    tree.counters[NEED_EDGES] = tree.counters[N_EDGES] + w * max_legal  # each leaf may expand a node
    tree.make_room()
    settle(np.ascontiguousarray(priors, dtype=np.float32), np.ascontiguousarray(values, dtype=np.float32),
           bool(evaluator.prior), lo, hi, tree.num_keys, *tree.arrays(), *leaves.arrays())


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

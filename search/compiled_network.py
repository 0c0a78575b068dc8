"""Network-guided UCT / ISMCTS with whole descents compiled: leaves reach the network as arrays, many at a time.

``TreeSearch`` hands a search here (``prepare``) when the state's compiled model (``envs.compiled_model``) offers the
``observation`` kernel, the evaluator answers arrays (``strategies.ArrayEvaluator``: a network's, as ``net=PATH``
builds it), the random generator can be replayed (``compiled``) and the configuration is the one this driver
reproduces: ``PUCT`` selection, ``depth=0`` (the network values the leaf, no rollout), the default chance sampler and
determinizer, no bucketing, ``prune``, hard pruning or tree reuse, ``worlds`` "uct" or "ismcts", any ``leaves``.
``SearchConfig(compiled=False)`` keeps the Python path. The result is the Python path's: the same action, visits,
root statistics (``PRIOR`` included) and generator state, as long as the network answers a batch of the same rows
the same way (``tests/test_compiled_network.py`` checks it at 1 to 8 leaves in flight).

An iteration (``_descend``, one compiled call runs many): the world (determinized from the generator's raw words
under ISMCTS, as ``compiled``), then PUCT steps (``core.pick_puct``) from the root, each visit counted on the way
down (the virtual loss that keeps leaves in flight apart), until a node never expanded, which is the leaf: its
observation (the model's ``observation`` kernel, for the player to move in the world) and legal mask are written
into row ``w`` of the batch, its path and legal actions kept. An iteration that ends the game backs up the returns
at once. When ``leaves`` leaves wait (or the root itself is the leaf: it is expanded before any other), the search
yields one ``batching.ArrayRequest`` (the rows) and is sent ``(priors, values)``; one compiled call (``_settle``)
expands each leaf's node with its prior (``core.prior_over``; the first leaf that reached a node expands it) and
backs up its values (``core.unit_values``, ``core.backup``), leaves in order. Many searches driven together
(``batching.run_together``, self-play's ``--concurrent``) put their rows in one forward pass.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit, types

from ..envs.compiled_model import CompiledModel
from ..envs.protocol import CHANCE, TERMINAL, GameState
from .batching import ArrayRequest, Steps
from .compiled import (COMPILED_MODEL, REPLAYABLE, SLICE, Kernels, _defaults, _rewind, _shape_of, bind,
                       kernel_arguments, new_world, next_uniform, room_for, typed_kernels)
from .core import (MAX_DEPTH, N_EDGES, NEED_EDGES, NEED_WORDS, POS, PRIOR, TREE_TYPES, UNIFORMS_BLOCK, VISITS,
                   WAITING, FlatTree, KeyTable, backup, child_of, edge_of, flat_edges, grown, pick_puct, prior_over,
                   unit_values)
from .strategies import PUCT, answers_arrays
from .tree import Node

if TYPE_CHECKING:
    from .mcts import SearchResult, TreeSearch

KERNELS = ("determinize", "legal_actions", "action_keys", "apply", "player", "returns", "observation")


class _Loop(NamedTuple):
    kernels: Kernels
    descend: Any  # ``_descend`` compiled for the model's types
    settle: Any  # ``_settle``, likewise


class Prepared(NamedTuple):
    """What ``prepare`` found: the model and its compiled loop."""

    model: CompiledModel
    loop: _Loop


_LOOPS: dict[tuple, _Loop] = {}


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
    return Prepared(model, _loop(model))


def _loop(model: CompiledModel) -> _Loop:
    key = (tuple(getattr(model, name) for name in KERNELS), _shape_of(model.state), _shape_of(model.table))
    found = _LOOPS.get(key)
    if found is None:
        kernels, s, table = typed_kernels(model, KERNELS)
        i64, i64s, i64s2, f64, boolean = types.int64, types.int64[::1], types.int64[:, ::1], types.float64, types.boolean
        leaf = (i64s, i64s, i64s2, i64s2, i64s, i64s2, i64s2)
        descend = _descend.compile(kernel_arguments(kernels) + (
            s, table, i64, i64, i64, boolean, i64, i64, f64, f64, f64, f64, i64, i64, *TREE_TYPES,
            types.float64[::1], types.uint64[::1], *leaf, types.float32[:, ::1], types.boolean[:, ::1]))
        settle = _settle.compile((types.float32[:, ::1], types.float32[:, ::1], boolean, f64, f64, i64, *TREE_TYPES,
                                  *leaf))
        found = _LOOPS[key] = _Loop(kernels, descend, settle)
    return found


class _Leaves:
    """The leaves in flight: each one's node, path, legal actions and keys, and the batch rows (observation, mask)
    the network reads; ``make_room`` deepens the paths between kernel calls, keeping what waits."""

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
    model, loop = prepared
    cfg, info, me = engine.config, state.info, state.current_player
    target = iterations if iterations is not None else cfg.iterations
    seconds = None if iterations is not None else cfg.seconds
    evaluator, ismcts, k = cfg.evaluator, engine.worlds == "ismcts", cfg.leaves
    lo, hi = float(info.min_return), float(info.max_return)
    tree = FlatTree.of(engine, me, info.num_players, info.num_actions, target, False,
                       table=KeyTable(info.num_action_keys), num_keys=info.num_action_keys, chance=False)
    leaves = _Leaves.of(tree, k, int(np.prod(info.observation_shape)), info.num_actions)
    s0 = model.state.copy()
    head = (*loop.kernels.arguments(), s0, model.table, model.buffer_len, model.determinize_draws, me, ismcts,
            info.num_action_keys, info.num_actions, float(cfg.selection.c_puct), lo, hi)
    bits = rng.bit_generator
    saved = bits.state
    words = np.empty(0, dtype=np.uint64)
    used = done = 0
    batch = 16 if seconds is not None else target  # a budget in seconds runs in slices of about SLICE seconds
    short = True  # the last kernel call may have stopped for want of room or raw words
    try:
        while (target is None or done < target) and (seconds is None or time.perf_counter() - start < seconds):
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
            ran = loop.descend(*head, float(engine._stamp + done), batch, k, *tree.arrays(), tree.block, words,
                               *leaves.arrays(), leaves.observations, leaves.masks)
            done += ran
            if seconds is not None and ran:
                batch = max(1, int(ran * SLICE / max(time.perf_counter() - began, 1e-6)))
            waiting = tree.counters[WAITING]
            full = waiting == k or (waiting and tree.node_size[0] == 0)
            short = ran < batch and not full
            if full:
                yield from _settled(loop, tree, leaves, evaluator, lo, hi, info.num_action_keys, info.num_actions)
        if tree.counters[WAITING]:
            yield from _settled(loop, tree, leaves, evaluator, lo, hi, info.num_action_keys, info.num_actions)
    finally:
        _rewind(bits, saved, used + int(tree.counters[POS]))
    engine._stamp += done
    return engine._result(Node(tree), state, rng, done, time.perf_counter() - start)


def _settled(loop: _Loop, tree: FlatTree, leaves: _Leaves, evaluator: Any, lo: float, hi: float, num_keys: int,
             max_legal: int) -> Steps[None]:
    """Ask for the waiting leaves' network answers (one ``ArrayRequest``), then expand and back them up."""
    w = int(tree.counters[WAITING])
    priors, values = yield ArrayRequest(evaluator.queue, leaves.observations[:w], leaves.masks[:w])
    tree.counters[NEED_EDGES] = tree.counters[N_EDGES] + w * max_legal  # each leaf may expand a node
    tree.make_room()
    loop.settle(np.ascontiguousarray(priors, dtype=np.float32), np.ascontiguousarray(values, dtype=np.float32),
                bool(evaluator.prior), lo, hi, num_keys, *tree.arrays(), *leaves.arrays())


# ---- the compiled loop ------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _descend(kernels, determinize_t, legal_actions_t, action_keys_t, apply_t, player_t, returns_t, observation_t, s0,
             table, buffer_len, determinize_draws, me, ismcts, num_keys, max_legal, c, lo, hi, stamp0, iterations,
             leaves, node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, judge_key, judge_kept, counters,
             block, words, leaf_node, leaf_depth, leaf_path_node, leaf_path_edge, leaf_n, leaf_actions, leaf_keys,
             observations, masks):
    """Up to ``iterations`` iterations from ``s0`` for player ``me`` (``mcts.TreeSearch._descend`` with PUCT's
    node-wise expansion), until ``leaves`` leaves wait (``counters[WAITING]``) or the root is one, stopping before
    an iteration that might run out of raw ``words`` or of room (what it needs is left in ``counters``); returns
    the number run."""
    determinize, legal_actions = bind(kernels[0], determinize_t), bind(kernels[1], legal_actions_t)
    action_keys, apply, player_of = bind(kernels[2], action_keys_t), bind(kernels[3], apply_t), bind(kernels[4], player_t)
    returns, observation = bind(kernels[5], returns_t), bind(kernels[6], observation_t)
    world = np.empty_like(s0)
    buf = np.empty(buffer_len, dtype=np.int32)
    keys = np.empty(max_legal, dtype=np.int64)
    edges = np.empty(max_legal, dtype=np.int64)
    u = np.empty(determinize_draws)
    num_players = edge_child.shape[1]
    result = np.empty(num_players)
    values = np.empty(num_players)
    path_node = np.empty(leaf_path_node.shape[1], dtype=np.int64)
    path_edge = np.empty(leaf_path_node.shape[1], dtype=np.int64)
    done = 0
    while done < iterations and counters[WAITING] < leaves:
        steps = counters[MAX_DEPTH] + 2
        if steps > len(path_node) or not room_for(steps, determinize_draws * ismcts, 0, max_legal, words, node_player,
                                                  edge_key, hash_key, judge_key, counters):
            break
        pos = new_world(world, s0, table, me, ismcts, determinize, u, words, counters[POS])
        stamp = stamp0 + done + 1
        node = 0
        link = -1
        n_path = 0
        waits = False
        player = player_of(world)
        while player != TERMINAL:
            if player == CHANCE:
                raise ValueError("a compiled model met a chance node (models serve games without chance in play)")
            if link >= 0:
                node = child_of(link, player, node_player, node_size, edge_child, counters)
                counters[MAX_DEPTH] = max(counters[MAX_DEPTH], n_path)
            n = legal_actions(world, table, buf)
            action_keys(world, table, buf, n, keys)
            if node_size[node] == 0:  # never expanded: the leaf
                w = counters[WAITING]
                leaf_node[w], leaf_depth[w], leaf_n[w] = node, n_path, n
                leaf_path_node[w, :n_path] = path_node[:n_path]
                leaf_path_edge[w, :n_path] = path_edge[:n_path]
                masks[w, :] = False
                for i in range(n):
                    leaf_actions[w, i] = buf[i]
                    leaf_keys[w, i] = keys[i]
                    masks[w, buf[i]] = True
                observation(world, table, player, observations[w])
                counters[WAITING] = w + 1
                waits = True
                break
            _, pos = next_uniform(block, words, pos, counters)  # drawn as the Python path draws it (PUCT ignores it)
            flat_edges(node, keys, n, num_keys, stamp, 1.0 / n, edges, node_size, edge_node, edge_key, stat,
                       edge_child, hash_key, hash_edge, counters)
            i = pick_puct(stat, edges, n, c)
            stat[VISITS, edges[i]] += 1.0
            apply(world, table, np.int64(buf[i]), buf)
            path_node[n_path] = node
            path_edge[n_path] = edges[i]
            n_path += 1
            link = edges[i]
            player = player_of(world)
        if not waits:
            returns(world, result)
            unit_values(result, lo, hi, values)
            backup(stat, node_player, path_node, path_edge, n_path, values)
        counters[POS] = pos
        done += 1
        if waits and n_path == 0:
            break  # the root is expanded before any other leaf
    return done


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
            for i in range(n):
                e = edge_of(node, leaf_keys[w, i], num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key,
                            hash_edge, counters)
                stat[PRIOR, e] += p[i]
        unit_values(values[w], lo, hi, v)
        backup(stat, node_player, leaf_path_node[w], leaf_path_edge[w], leaf_depth[w], v)
    counters[WAITING] = 0

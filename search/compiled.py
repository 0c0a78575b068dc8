"""Whole UCT / ISMCTS / DUCT iterations in compiled code, with exactly the statistics of the Python path (``mcts``);
the same loop descends for the network-guided driver (``compiled_network``: the leaf mode, below).

``TreeSearch`` hands a search to ``search`` when the state offers ``compiled_model()`` (``envs.compiled_model``),
the random generator can be replayed (below) and the configuration is one this loop reproduces (``model_for``): UCB1
(the root's step PUCT over a ``root_prior``, asked once before the loop: ``root_prior``), ``GameRollout``, the
default chance sampler and evaluator, no bucketing (CNB), tree reuse or leaves in flight; ``worlds`` "uct", "ismcts"
(with the default determinizer and the model's ``determinize``) or "duct" (any determinizer: its fixed worlds are
drawn in Python, as the Python path draws them, then iterations go round-robin over their arrays); chance nodes in
the tree where the model samples them (``sample_chance``); ``prune`` where it filters moves (``sensible_actions``);
hard ``pruning`` (not with ``prune``) where the model scores moves (``CompiledModel.evaluations_after``) and knows
every heuristic named. ``SearchConfig(compiled=False)`` (agent knob ``compiled=0``) keeps the Python path. The
result is the Python path's: the same action, visits in the same order, iterations, and the Python path's whole tree
(``root``: a ``tree.Node`` view of it; every row of the statistics but ``PRIOR``, nodes and edges made in the same
order).

**Leaf mode** (``_iterate``'s ``leaves`` > 0; else the rollout mode): ``compiled_network``'s PUCT with ``leaves``
leaves in flight. The tree step is ``core.pick_puct`` (the block uniform still drawn, as the Python path draws it,
and ignored), a key first met after its node's expansion gets prior ``1 / legal``, and expansion is by node: the
descent goes on past fresh edges to a node never expanded, the leaf, whose node, path, legal actions and keys are
kept and whose observation (the ``observation`` kernel, for the player to move there) and legal mask fill row
``counters[WAITING]`` of the batch. Visits are counted on the way down: the virtual loss that keeps leaves in
flight apart. An iteration that ends the game backs up the returns at once. A call stops when ``leaves`` leaves
wait or the root is the leaf (it is expanded before any other). No rollouts, pruning or chance nodes (one raises
``ValueError``): the network driver takes no such configuration. The rollout mode passes empty leaf arrays
(``NO_LEAVES``).

**Tree layout.** ``core.FlatTree`` (see there). A chance node (player ``CHANCE``) hangs in ``edge_child``'s last
column, and its edges are its outcomes met so far, keyed by id. The step is ``tree.select_edge``'s: availability
counted once per iteration, unvisited edges first by ``int(u * n_fresh)``, else the first maximum of UCB1; the visit
counted on the way down, the reward on the way up.

**Hard pruning.** ``pruning.HardPruning.filter`` at every decision node, before the tree step: a second hash table
maps (node, key) to "judged" (present) and "kept" (its value). When one of the world's keys is unjudged, or none is
kept, the world's legal moves are judged: all kept when there are at most ``limit``, without a draw; else scored by
the model's ``evaluations_after`` (its stream seeded by one raw word when extrapolating), and a tie stream seeded by
one more word gives each heuristic's row its uniforms (``kernels.fill_units``); each row keeps its top ``limit`` by
(score descending, uniform ascending, index), ``np.lexsort``'s order, and the kept set is their union. Then the
keys and actions are compacted to the kept ones, in legal order, for the tree step, so edges are made only for
kept keys, in the Python path's order. A node's memory reads as ``Node.pruned`` (``pruning.memory_at``).

**Randomness.** The Python path draws from one generator: DUCT's worlds first, then per iteration: the world
(ISMCTS: ``determinize_draws`` uniforms), one uniform per chance node in the tree (``sample_chance``; none where
it answers ``-1 - id``, an outcome the state fixes), one uniform
per tree step from a ``tree.Uniforms`` block (256 drawn when it is empty, taken from the end), before it, with hard
pruning, per judgement of more than ``limit`` moves, a stream seed when extrapolating
and one for the ties, and a rollout stream seed (``kernels.seed_stream``) when the leaf is not terminal. For bit
generators whose ``random()`` is ``(raw >> 11) * 2**-53`` of one 64-bit raw word (numpy's PCG64, PCG64DXSM,
Philox, SFC64) each draw is one raw word, so the generator's state is saved, raw words are drawn and handed to
the kernel, which uses them in that order and stops before an iteration it might lack words for; at the end the
state is put back and advanced by exactly the words used. Any other generator takes the Python path.

**Caching.** A ``cache=True`` kernel that takes other jitted functions as dispatcher arguments is compiled anew
in every process (the dispatcher type names the object); typed as first-class functions (``FunctionType``,
called through their C wrappers) it is cached once per game's argument types. So the loop is compiled, and
cached, for the first-class function types of the model's kernels (``TypeRef`` arguments); the kernels go in as
one int64 array of their C wrappers' addresses, which the loop binds to those types (``bind``): unboxing a
first-class function object costs about 4 µs a kernel on every call, an address array nothing.
"""
from __future__ import annotations

import dataclasses
import functools
import time
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.experimental.function_type import _get_wrapper_address
from numba.extending import intrinsic
from numba.np.numpy_support import as_dtype

from ..envs import stop
from ..envs.compiled_model import CompiledModel
from ..envs.errors import InvalidParameterError
from ..envs.kernels import fill_units
from ..envs.protocol import CHANCE, HOOKS, TERMINAL, GameInfo, GameState
from .core import (LEFT, MAX_DEPTH, N_EDGES, N_JUDGED, N_NODES, NEED_EDGES, NEED_JUDGED, NEED_NODES, NEED_WORDS,
                   NO_ROOT_PRIOR, POS, TREE_TYPES, UNIFORMS_BLOCK, VISITS, WAITING, FlatTree, KeyTable, backup,
                   child_of, edge_of, flat_edges, heuristic_unit, mark_top, pick_puct, pick_ucb1, set_root_prior,
                   slot_of, unit_values)
from .pruning import HardPruning
from .root_prior import root_prior_of
from .strategies import UCB1, GameRollout
from .tree import Node

if TYPE_CHECKING:
    from .mcts import SearchConfig, SearchResult, TreeSearch

COMPILED_MODEL = HOOKS["compiled_model"].name
REPLAYABLE = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)  # random() = one raw word
BLOCK = UNIFORMS_BLOCK  # tree.Uniforms' block
KERNELS = ("determinize", "legal_actions", "action_keys", "apply", "playout", "player", "turn", "returns", "heuristic",
           "evaluations_after", "sample_chance", "sensible_actions", "observation")  # CompiledModel's, the loop's order
MAX_CHANCE_RUN = 64  # chance nodes in a row the loop makes room for (a game with more raises ValueError)
STEP_GUESS = 4  # tree steps an iteration, for the first draw of raw words (more are drawn if it runs short)
SLICE = 0.002  # seconds a kernel call runs under a time budget, between the checks of the clock
LEAF_TYPES = (types.int64[::1],) * 2 + (types.int64[:, ::1],) * 2 + (types.int64[::1],) + (types.int64[:, ::1],) * 2 + (
    types.float32[:, ::1], types.boolean[:, ::1])  # numba's types of the leaves in flight (``compiled_network``'s)
NO_LEAVES = tuple(np.empty((0,) * t.ndim, dtype=as_dtype(t.dtype)) for t in LEAF_TYPES)  # the rollout mode's


# ---- eligibility ------------------------------------------------------------------------------------------
@functools.cache
def _defaults(config_type: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(config_type)}


def model_for(engine: TreeSearch, state: GameState, rng: np.random.Generator) -> CompiledModel | None:
    """The state's compiled model when ``engine`` may search ``state`` with ``rng`` compiled, else None."""
    cfg = engine.config
    default = _defaults(type(cfg))
    plain = (cfg.compiled and engine.worlds in ("uct", "ismcts", "duct") and not engine.reuse
             and type(cfg.selection) is UCB1 and type(cfg.rollout) is GameRollout
             and cfg.chance_sampler is default["chance_sampler"] and cfg.bucketing is None
             and (cfg.pruning is None or type(cfg.pruning) is HardPruning)
             and not (cfg.prune and cfg.pruning is not None) and cfg.leaves == 1
             and (engine.worlds != "ismcts" or cfg.determinizer is default["determinizer"])
             and (cfg.depth is None or cfg.evaluator is default["evaluator"]))
    info = state.info
    if not plain or info.num_action_keys is None:
        return None
    if type(rng) is not np.random.Generator or type(rng.bit_generator) not in REPLAYABLE:
        return None
    make = getattr(state, COMPILED_MODEL, None)
    model = make() if make is not None else None
    if (model is None or (cfg.pruning is not None and _which(model, cfg.pruning) is None)
            or (engine.worlds == "ismcts" and model.determinize is None)
            or (cfg.prune and model.sensible_actions is None)
            or (info.chance == "explicit" and model.sample_chance is None)):
        return None
    return model


def _which(model: CompiledModel, pruning: HardPruning) -> np.ndarray | None:
    """The model's indices of ``pruning``'s heuristics, or None when it cannot score them compiled."""
    if model.evaluations_after is None or model.evaluation_index is None:
        return None
    try:
        return np.array([model.evaluation_index(name) for name in pruning.names], dtype=np.int64)
    except InvalidParameterError:
        return None


# ---- the search -------------------------------------------------------------------------------------------
def prepare(engine: TreeSearch, state: GameState, rng: np.random.Generator) -> tuple[CompiledModel, _Runner] | None:
    """``model_for``'s model and its loop (``_runner``: compiled or read from numba's cache at its first use in a
    process, ~0.4 s to minutes), or None: the caller gets them before a time budget's clock starts."""
    model = model_for(engine, state, rng)
    return None if model is None else (model, _runner(model))


def search(engine: TreeSearch, prepared: tuple[CompiledModel, _Runner], state: GameState, rng: np.random.Generator,
           iterations: int | None, start: float) -> SearchResult:
    """``engine.steps``' search of ``state`` compiled (``iterations`` and ``start`` as there), with ``prepare``'s
    model and loop."""
    model, run = prepared
    cfg, info, me = engine.config, state.info, state.current_player
    target = iterations if iterations is not None else cfg.iterations
    seconds = None if iterations is not None else cfg.seconds
    pruning = cfg.pruning
    which = np.empty(0, dtype=np.int64) if pruning is None else _which(model, pruning)
    judge_words = 0 if pruning is None else 2 * (1 + pruning.extrapolate)  # a guess: two judgements an iteration
    chance = info.chance == "explicit"
    tree = FlatTree.of(engine, me, info.num_players + chance, info.num_actions, target, pruning is not None,  # + CHANCE
                       table=KeyTable(info.num_action_keys), num_keys=max(info.num_action_keys, model.num_outcomes),
                       chance=chance)
    if engine.worlds == "duct":  # drawn as the Python path draws them, before its tree's uniforms
        fixed = [cfg.determinizer(state, me, rng) for _ in range(engine.num_worlds)] if iterations != 0 else [state]
        worlds = np.stack([getattr(world, COMPILED_MODEL)().state for world in fixed])
    else:
        worlds = model.state[None].copy()
    head = run.head(model, worlds, me, engine.worlds == "ismcts", cfg, info, which, tree.num_keys, 0,
                    root_prior_of(cfg, state, tree.table) if iterations != 0 else NO_ROOT_PRIOR)
    bits = rng.bit_generator
    saved = bits.state
    words = np.empty(0, dtype=np.uint64)
    used = 0
    done = 0
    sliced = seconds is not None or stop.current() is not None  # a clock or a stop to check between kernel calls
    batch = 16 if sliced else target  # then slices of about SLICE seconds (the same tree: the words run on)
    try:
        while (target is None or done < target) and (seconds is None or time.perf_counter() - start < seconds):
            stop.stop_point()
            if target is not None:
                batch = min(batch, target - done)
            tree.make_room()
            want = max(int(tree.counters[NEED_WORDS]), BLOCK + batch * (
                model.determinize_draws * (engine.worlds == "ismcts") + 1 + STEP_GUESS + judge_words))
            if len(words) - tree.counters[POS] < want:
                used += int(tree.counters[POS])
                words = np.concatenate((words[tree.counters[POS]:], bits.random_raw(want)))
                tree.counters[POS] = 0
            began = time.perf_counter()
            ran = run.loop(*head, done, float(engine._stamp + done), batch, *tree.arrays(), tree.block, words,
                           *NO_LEAVES)
            done += ran
            if sliced and ran:
                batch = max(1, int(ran * SLICE / max(time.perf_counter() - began, 1e-6)))
    finally:
        _rewind(bits, saved, used + int(tree.counters[POS]))
    engine._stamp += done
    return engine._result(Node(tree), state, rng, done, time.perf_counter() - start)


def _rewind(bits: np.random.BitGenerator, saved: dict, words: int) -> None:
    """Put ``bits`` where ``saved`` plus ``words`` raw draws leave it (PCG64's jump-ahead keeps its buffered half
    word, which ``advance`` clears and a raw draw does not touch)."""
    bits.state = saved
    if type(bits) in (np.random.PCG64, np.random.PCG64DXSM):
        bits.advance(words)
        state = bits.state
        state["has_uint32"], state["uinteger"] = saved["has_uint32"], saved["uinteger"]
        bits.state = state
    else:
        bits.random_raw(words, output=False)


# ---- kernels as first-class functions -----------------------------------------------------------------
class Kernels(NamedTuple):
    """A model's kernels for a compiled loop: the addresses of their C wrappers (one int64 array) and their
    first-class function types, which the loop takes as ``TypeRef`` arguments and binds with ``bind``. Passing the
    dispatchers themselves would cost their unboxing (about 4 µs a kernel) on every call of the loop."""

    addresses: np.ndarray
    types: tuple

    def arguments(self) -> tuple:
        return (self.addresses, *self.types)


def _compiled_kernel(dispatcher: Any, args: tuple) -> tuple[int, Any]:
    """The address of ``dispatcher``'s C wrapper for ``args`` and its first-class function type."""
    dispatcher.compile(args)  # from numba's cache once the game's module has run it
    sig = dispatcher.overloads[args].signature
    return _get_wrapper_address(dispatcher, sig), types.FunctionType(sig)


@intrinsic
def bind(typingctx, address, kernel_type):
    """The kernel at ``address`` (a C wrapper's) as a first-class function of the type ``kernel_type`` (a
    ``TypeRef``)."""
    function_type = kernel_type.instance_type

    def codegen(context, builder, signature, args):
        function = cgutils.create_struct_proxy(function_type)(context, builder)
        function.c_addr = builder.inttoptr(args[0], cgutils.voidptr_t)
        function.py_addr = cgutils.get_null_value(cgutils.voidptr_t)
        function.jit_addr = cgutils.get_null_value(cgutils.voidptr_t)
        return function._getvalue()

    return function_type(address, kernel_type), codegen


class _Runner(NamedTuple):
    """``_iterate`` compiled for a model's kernels: ``loop(*head(...), first, stamp0, iterations, *tree.arrays(),
    tree.block, words, *leaf arrays)`` runs a kernel call of a search (``_iterate``'s arguments)."""

    kernels: Kernels
    loop: Any  # the compiled loop's entry point

    def head(self, model: CompiledModel, worlds: np.ndarray, me: int, ismcts: bool, cfg: SearchConfig,
             info: GameInfo, which: np.ndarray, num_keys: int, leaves: int,
             root_prior: np.ndarray = NO_ROOT_PRIOR) -> tuple:
        """The loop's arguments that a search fixes: from ``worlds`` for ``me``, pruned by the heuristics ``which``
        when there are any, over a tree of key space ``num_keys``, ``leaves`` leaves in flight (0: the rollout
        mode), the root's prior ``root_prior`` by key id (empty: none)."""
        pruning = cfg.pruning
        return (*self.kernels.arguments(), worlds, model.table, model.buffer_len, model.determinize_draws, me, ismcts,
                cfg.prune, MAX_CHANCE_RUN if info.chance == "explicit" else 0, -1 if cfg.depth is None else cfg.depth,
                info.max_turns, num_keys, info.num_actions, info.num_players, float(cfg.selection.constant(cfg)),
                root_prior, float(cfg.root_cpuct), float(info.min_return), float(info.max_return), which,
                0 if pruning is None else pruning.limit, pruning is not None and pruning.extrapolate, leaves)


_RUNNERS: dict[tuple, _Runner] = {}


def _shape_of(value: Any) -> Any:
    """What numba's type of ``value`` depends on, cheaply (``numba.typeof`` costs tens of microseconds)."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.ndim
    if isinstance(value, tuple):
        return tuple(_shape_of(v) for v in value)
    return type(value)


def typed_kernels(model: CompiledModel, names: tuple[str, ...]) -> tuple[Kernels, Any, Any]:
    """The model's kernels ``names`` for a compiled loop, with numba's types of its state and table; an optional
    kernel the model lacks is replaced by its ``_ABSENT`` stand-in (a loop never calls it then)."""
    s, table = numba.typeof(model.state).copy(layout="C", readonly=False), numba.typeof(model.table)
    i64, buf = types.int64, types.int32[::1]
    f64s, i64s, u64s = types.float64[::1], types.int64[::1], types.uint64[::1]
    signatures = {"determinize": (s, table, i64, f64s), "legal_actions": (s, table, buf),
                  "action_keys": (s, table, buf, i64, i64s), "apply": (s, table, i64, buf),
                  "playout": (s, table, buf, u64s, i64), "player": (s,), "turn": (s,), "returns": (s, f64s),
                  "heuristic": (s, table, i64),
                  "evaluations_after": (s, table, buf, i64, i64s, types.boolean, u64s, types.float64[:, ::1]),
                  "observation": (s, table, i64, types.float32[::1]), "sample_chance": (s, table, types.float64),
                  "sensible_actions": (s, table, buf, i64)}
    found = [_compiled_kernel(getattr(model, name) or _ABSENT[name], signatures[name]) for name in names]
    return Kernels(np.array([a for a, _ in found], dtype=np.int64), tuple(t for _, t in found)), s, table


def kernel_arguments(kernels: Kernels) -> tuple:
    """numba's types of ``Kernels.arguments()``, for a loop compiled ahead."""
    return (types.int64[::1], *(types.TypeRef(t) for t in kernels.types))


def _runner(model: CompiledModel) -> _Runner:
    """The loop compiled for ``model``'s kernels and argument types (built once per process and game)."""
    key = (tuple(getattr(model, name) for name in KERNELS), _shape_of(model.state), _shape_of(model.table))
    found = _RUNNERS.get(key)
    if found is None:
        kernels, s, table = typed_kernels(model, KERNELS)
        i64, i64s, f64, boolean = types.int64, types.int64[::1], types.float64, types.boolean
        worlds = types.Array(s.dtype, 2, "C")
        loop_args = kernel_arguments(kernels) + (
            worlds, table, i64, i64, i64, boolean, boolean, i64, i64, i64, i64, i64, i64, f64, types.float64[::1], f64,
            f64, f64, i64s, i64, boolean, i64, i64, f64, i64, *TREE_TYPES, types.float64[::1], types.uint64[::1],
            *LEAF_TYPES)
        found = _RUNNERS[key] = _Runner(kernels, _iterate.compile(loop_args))
    return found


# ---- the compiled loop ------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _no_evaluations(s, table, buf, n, which, extrapolate, stream, out):
    """The scoring kernel of a model without one: never called (such a model never prunes compiled)."""


@njit(cache=True, nogil=True)
def _no_determinize(s, table, player, u):
    """The determinization of a model without one: never called (such a model never runs ISMCTS compiled)."""


@njit(cache=True, nogil=True)
def _no_chance(s, table, u):
    """The chance sampler of a model without one: never called (its game has no chance nodes in play)."""
    return np.int64(-1)


@njit(cache=True, nogil=True)
def _no_sensible(s, table, buf, n):
    """The move filter of a model without one: never called (such a model never searches with ``prune``)."""
    return n


@njit(cache=True, nogil=True)
def _no_observation(s, table, player, out):
    """The observation of a model without one: never called (such a model never searches with a network)."""


_ABSENT = {"determinize": _no_determinize, "evaluations_after": _no_evaluations, "sample_chance": _no_chance,
           "sensible_actions": _no_sensible, "observation": _no_observation}  # stand-ins for a model's optional kernels


@njit(cache=True, nogil=True, inline="always")
def _to_unit(word):
    """numpy's ``random()`` of one raw 64-bit word (PCG64, Philox, SFC64: ``(raw >> 11) * 2**-53``)."""
    return np.float64(word >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _prune(evaluations_after, world, table, buf, n, keys, index, node, num_keys, which, limit, extrapolate, words,
           pos, judge_key, judge_kept, counters, stream):
    """``HardPruning.filter`` at ``node`` over the legal ``buf[:n]`` with keys ``keys[:n]``: judges them when one
    is new to the node or none is kept (drawing from ``words`` at ``pos`` as ``HardPruning.keep`` draws), then
    compacts ``keys`` to the kept ones with their legal indices in ``index``. Returns (number kept, ``pos``). Its
    scratch is made per judgement, so that a kernel call without one (the leaf mode's, often one iteration) makes
    none."""
    base = node * num_keys
    unjudged = False
    any_kept = False
    for i in range(n):
        h = slot_of(judge_key, base + keys[i])
        if judge_key[h] == -1:
            unjudged = True
            break
        any_kept |= judge_kept[h]
    if unjudged or not any_kept:
        kept = np.empty(n, dtype=np.bool_)
        if n <= limit:
            kept[:] = True
        else:
            scores, units, top = np.empty((len(which), n)), np.empty(n), np.empty(limit, dtype=np.int64)
            ties = np.empty(1, dtype=np.uint64)
            if extrapolate:
                stream[0] = words[pos] | np.uint64(1)
                pos += 1
            evaluations_after(world, table, buf, n, which, extrapolate, stream, scores)
            ties[0] = words[pos] | np.uint64(1)
            pos += 1
            kept[:] = False
            for r in range(len(which)):
                fill_units(ties, units)
                mark_top(scores[r], units, n, limit, kept, top)
        for i in range(n):
            h = slot_of(judge_key, base + keys[i])
            if judge_key[h] == -1:
                judge_key[h] = base + keys[i]
                judge_kept[h] = False
                counters[N_JUDGED] += 1
            if kept[i]:
                judge_kept[h] = True
    m = 0
    for i in range(n):
        if judge_kept[slot_of(judge_key, base + keys[i])]:  # every key is judged by now
            keys[m] = keys[i]
            index[m] = i
            m += 1
    return m, pos


@njit(cache=True, nogil=True, inline="always")
def room_for(steps, words_needed, judged, max_legal, words, node_player, edge_key, hash_key, judge_key, counters,
             nodes=1, chance_edges=0):
    """Whether the tree and the raw ``words`` have room for one more iteration of at most ``steps`` tree steps
    (``words_needed`` words besides the uniform blocks, ``judged`` new pruning judgements, ``nodes`` new nodes,
    ``chance_edges`` edges of new chance nodes besides ``steps`` nodes' edges); what it needs is left in
    ``counters`` for ``FlatTree.make_room`` and the word supply."""
    blocks = 0 if steps <= counters[LEFT] else (steps - counters[LEFT] + BLOCK - 1) // BLOCK
    counters[NEED_WORDS] = words_needed + BLOCK * blocks
    counters[NEED_EDGES] = counters[N_EDGES] + steps * max_legal + chance_edges
    counters[NEED_JUDGED] = counters[N_JUDGED] + judged if judged > 0 else 0
    counters[NEED_NODES] = counters[N_NODES] + nodes
    return not (counters[POS] + counters[NEED_WORDS] > len(words) or counters[NEED_EDGES] > len(edge_key)
                or 2 * counters[NEED_EDGES] > len(hash_key) or 2 * counters[NEED_JUDGED] > len(judge_key)
                or counters[NEED_NODES] > len(node_player))


@njit(cache=True, nogil=True, inline="always")
def new_world(world, s0, table, me, ismcts, determinize, u, words, pos):
    """The iteration's world in ``world``: ``s0``, determinized for ``me`` from the raw words at ``pos`` under
    ISMCTS (``len(u)`` uniforms); returns the next word's position."""
    world[:] = s0
    if ismcts:
        for k in range(len(u)):
            u[k] = _to_unit(words[pos + k])
        pos += len(u)
        determinize(world, table, me, u)
    return pos


@njit(cache=True, nogil=True, inline="always")
def next_uniform(block, words, pos, counters):
    """The tree step's uniform as ``tree.Uniforms.next`` gives it (a block of ``BLOCK`` drawn when empty, taken from
    the end); returns it and the next word's position."""
    if counters[LEFT] == 0:
        for k in range(BLOCK):
            block[k] = _to_unit(words[pos + k])
        pos += BLOCK
        counters[LEFT] = BLOCK
    counters[LEFT] -= 1
    return block[counters[LEFT]], pos


@njit(cache=True, nogil=True)
def _iterate(kernels, determinize_t, legal_actions_t, action_keys_t, apply_t, playout_t, player_t, turn_t, returns_t,
             heuristic_t, evaluations_after_t, sample_chance_t, sensible_actions_t, observation_t, worlds, table,
             buffer_len, determinize_draws, me, ismcts, prune, chance_run, depth, max_turns, num_keys, max_legal,
             num_players, c, root_prior, c_root, lo, hi, which, limit, extrapolate, leaves, first, stamp0, iterations,
             node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, judge_key, judge_kept,
             counters, block, words, leaf_node, leaf_depth, leaf_path_node, leaf_path_edge, leaf_n, leaf_actions,
             leaf_keys, observations, masks):
    """Up to ``iterations`` iterations for player ``me`` (``mcts.TreeSearch._descend``, the rollout, the backup),
    stopping before one that might run out of raw ``words`` or of room in the tree (what it needs is left in
    ``counters``); returns the number run. Iteration ``first + i`` starts from ``worlds[(first + i) % len(worlds)]``
    (UCT and ISMCTS: one, the state; DUCT: its fixed worlds), determinized under ``ismcts``. ``depth`` -1: rollouts
    to the end. ``prune``: tree steps over the sensible actions. ``chance_run``: the most chance nodes in a row the
    game may have (0: none in play; one met raises). ``num_keys``: the key space of the hash tables. A non-empty
    ``root_prior`` (by key id) makes the root's step PUCT over it with ``c_root`` (``core.set_root_prior``; rollout
    mode only), every other step UCB1's. With heuristics ``which`` (indices for ``evaluations_after``), hard pruning
    keeps the top ``limit`` at every decision node.
    ``leaves`` > 0: the leaf mode (module docstring), which stops once ``leaves`` leaves wait or the root is one, or
    before an iteration whose leaf path might not fit ``leaf_path_node``."""
    determinize, legal_actions = bind(kernels[0], determinize_t), bind(kernels[1], legal_actions_t)
    action_keys, apply, playout = bind(kernels[2], action_keys_t), bind(kernels[3], apply_t), bind(kernels[4], playout_t)
    player_of, turn_of, returns = bind(kernels[5], player_t), bind(kernels[6], turn_t), bind(kernels[7], returns_t)
    heuristic, evaluations_after = bind(kernels[8], heuristic_t), bind(kernels[9], evaluations_after_t)
    sample_chance, sensible_actions = bind(kernels[10], sample_chance_t), bind(kernels[11], sensible_actions_t)
    observation = bind(kernels[12], observation_t)
    pruning = len(which) > 0
    world = np.empty_like(worlds[0])
    buf = np.empty(buffer_len, dtype=np.int32)
    keys = np.empty(max_legal, dtype=np.int64)
    index = np.empty(max_legal, dtype=np.int64)
    edges_of = np.empty(max_legal, dtype=np.int64)
    u = np.empty(determinize_draws)
    stream = np.empty(1, dtype=np.uint64)
    result = np.empty(num_players)
    values = np.empty(num_players)
    path_node = np.empty(16, dtype=np.int64)
    path_edge = np.empty(16, dtype=np.int64)
    done = 0
    while done < iterations:
        # at most: the deepest level, then up to ``chance_run`` new chance nodes and a new node whose step expands;
        # tree steps (a block uniform, up to max_legal new edges each) only at the levels but the new chance nodes,
        # which make one edge each
        decisions = counters[MAX_DEPTH] + 2
        steps = decisions + chance_run
        words_needed = determinize_draws * ismcts + 1 + (pruning * (1 + extrapolate) + (chance_run > 0)) * steps
        if (leaves and decisions > leaf_path_node.shape[1]) or not room_for(
                decisions, words_needed, decisions * max_legal if pruning else 0, max_legal, words, node_player,
                edge_key, hash_key, judge_key, counters, 1 + chance_run, chance_run):
            break
        if steps > len(path_node):
            path_node = np.empty(2 * steps, dtype=np.int64)
            path_edge = np.empty(2 * steps, dtype=np.int64)
        pos = new_world(world, worlds[(first + done) % len(worlds)], table, me, ismcts, determinize, u, words,
                        counters[POS])
        stamp = stamp0 + done + 1
        node = 0
        link = -1
        level = 0
        n_path = 0
        waits = False
        player = player_of(world)
        while player != TERMINAL:
            if link >= 0:
                node = child_of(link, player, node_player, node_size, edge_child, counters)
                level += 1
                counters[MAX_DEPTH] = max(counters[MAX_DEPTH], level)
            if player == CHANCE:  # the chance sampler's outcome, its edge keyed by the outcome id
                if chance_run == 0:
                    raise ValueError("a compiled model met a chance node (its game has none in play)")
                if level + 2 > steps:
                    raise ValueError("more chance nodes in a row than the compiled search allows (MAX_CHANCE_RUN)")
                outcome = sample_chance(world, table, _to_unit(words[pos]))
                if outcome < 0:  # ``-1 - id``: an outcome the state fixes, no uniform drawn
                    outcome = -1 - outcome
                else:
                    pos += 1
                link = edge_of(node, outcome, num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key,
                               hash_edge, counters)
                apply(world, table, outcome, buf)
                player = player_of(world)
                continue
            n = legal_actions(world, table, buf)
            if prune:
                n = sensible_actions(world, table, buf, n)
            action_keys(world, table, buf, n, keys)
            if leaves and node_size[node] == 0:  # never expanded: the leaf, row ``w`` of the network's batch
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
            m = n
            if pruning:
                m, pos = _prune(evaluations_after, world, table, buf, n, keys, index, node, num_keys, which, limit,
                                extrapolate, words, pos, judge_key, judge_kept, counters, stream)
            x, pos = next_uniform(block, words, pos, counters)  # PUCT ignores it (drawn as the Python path draws it)
            n_fresh = flat_edges(node, keys, m, num_keys, stamp, 1.0 / m if leaves else -1.0, edges_of, node_size,
                                 edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)
            if leaves:
                i = pick_puct(stat, edges_of, m, c)
            elif level == 0 and len(root_prior):
                set_root_prior(stat, edges_of, keys, m, root_prior)
                i = pick_puct(stat, edges_of, m, c_root)
            else:
                i = pick_ucb1(stat, edges_of, m, n_fresh, c, x)
            e = edges_of[i]
            fresh = stat[VISITS, e] == 0.0
            stat[VISITS, e] += 1.0
            apply(world, table, np.int64(buf[index[i] if pruning else i]), buf)
            path_node[n_path] = node
            path_edge[n_path] = e
            n_path += 1
            if fresh and not leaves:  # the rollout mode expands an edge, the leaf mode a node
                break
            link = e
            player = player_of(world)
        if not waits:
            player = player_of(world)
            if player != TERMINAL and depth != 0:
                stream[0] = words[pos] | np.uint64(1)
                pos += 1
                playout(world, table, buf, stream, max_turns + 1 if depth < 0 else turn_of(world) + depth)
                player = player_of(world)
            if player == TERMINAL:
                returns(world, result)
                unit_values(result, lo, hi, values)
            else:
                for q in range(num_players):
                    values[q] = heuristic_unit(heuristic(world, table, q))
            backup(stat, node_player, path_node, path_edge, n_path, values)
        counters[POS] = pos
        done += 1
        if waits and (n_path == 0 or counters[WAITING] == leaves):
            break  # the batch is full, or the root is the leaf: it is expanded before any other
    return done

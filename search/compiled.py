"""Whole UCT / ISMCTS / DUCT iterations in compiled code, with exactly the statistics of the Python loop (``loop``);
the same loop descends for network-guided PUCT (``compiled_network``: the leaf mode, below).

``plan`` chooses this driver (``CompiledLoop``) for a game when its states offer ``compiled_model()``
(``envs.compiled_model``) and the configuration is one this loop reproduces (``refusal`` says why not): UCB1
(the root's step PUCT over a ``root_prior``, asked once before the loop: ``root_prior``) or PUCT over a learned prior
at every node (``leaf_value.LeafPolicy``, with rollouts), ``GameRollout`` or a learned rollout, the
default chance sampler and evaluator, no bucketing (CNB), tree reuse or leaves in flight; ``worlds`` "uct", "ismcts"
(with the default determinizer and the model's ``determinize``) or "duct" (any determinizer: its fixed worlds are
drawn in Python, as the Python path draws them, then iterations go round-robin over their arrays); chance nodes in
the tree where the model samples them (``sample_chance``); ``prune`` where it filters moves (``sensible_actions``);
hard ``pruning`` (not with ``prune``) where the model scores moves (``CompiledModel.evaluations_after``) and knows
every heuristic named. ``SearchConfig(compiled=False)`` (agent knob ``compiled=0``) keeps the Python loop. A search
whose random generator cannot be replayed (below), or that continues a given tree, runs in Python (``call_refusal``).
The result is the Python loop's: the same action, visits in the same order, iterations, and the Python path's whole tree
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

**Learned leaf values, priors and rollouts** (``leaf_value``; the rollout mode; one network, the ``learned``
record): a leaf that is not the end of the game is observed by its player to move (``me`` at a chance node; the
``observation`` kernel) and valued by ``leaf_value.leaf_values``; with ``mix`` < 1 the rollout runs as without it
and its values are mixed in, with ``mix`` 1 there is no rollout and no stream seed is drawn, with ``mix`` 0 no
network (the Python loop's ``rolled_out``). Under PUCT over a ``LeafPolicy`` prior (a prior temperature > 0) the
rollout mode expands by node, as the leaf mode does: the descent goes on past fresh edges to a node never expanded,
whose edges are made at once with the policy head's softmax over its legal moves as their ``PRIOR``
(``policy_weights``, renormalised as ``core.prior_over`` does), then the leaf is valued and backed up as above. A
``LearnedRollout`` (a rollout temperature > 0) replaces the game's ``playout`` by ``_learned_playout``, from the same
stream seed.

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

**Caching.** The loop is compiled, and cached, once per game's kernel types: the kernels go in as first-class
functions by address (``envs.kernel_binding``).
"""
from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import njit, types
from numba.np.numpy_support import as_dtype

from ..envs import stop
from ..envs.compiled_model import CompiledModel
from ..envs.kernel_binding import Kernels, bind, kernel_arguments, shape_of, typed_kernels
from ..envs.errors import InvalidParameterError
from ..envs.kernels import fill_units, rand_unit
from ..envs.protocol import CHANCE, HOOKS, TERMINAL, GameInfo, GameState
from .batching import Steps
from .core import (LEFT, MAX_DEPTH, N_EDGES, N_JUDGED, N_NODES, NEED_EDGES, NEED_JUDGED, NEED_NODES, NEED_WORDS,
                   NO_ROOT_PRIOR, POS, TREE_TYPES, UNIFORMS_BLOCK, VISITS, WAITING, FlatTree, KeyTable, add_prior,
                   backup, child_of, edge_of, flat_edges, heuristic_unit, mark_top, pick_puct, pick_ucb1,
                   set_root_prior, slot_of, unit_values)
from .config import Run, SearchConfig, SearchResult, decide
from .leaf_value import (LeafPolicy, LearnedRollout, hidden_layers, leaf_values, learned_record, pick_weighted,
                         policy_weights, seat_values, shared_net)
from .pruning import HardPruning
from .root_prior import root_prior_of
from .strategies import PUCT, UCB1, GameRollout
from .tree import Node
from .worlds import Fixed, Fresh, TrueState, Worlds

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
def defaults(config_type: type) -> dict[str, Any]:
    """The default of every field of a config class (``SearchConfig``)."""
    return {f.name: f.default for f in dataclasses.fields(config_type)}


def first_reason(checks: tuple[tuple[bool, str], ...]) -> str | None:
    """The reason of the first check that holds (None: none does)."""
    return next((reason for refused, reason in checks if refused), None)


def model_of(state: GameState) -> CompiledModel | None:
    """The state's compiled model (``envs.compiled_model``), or None when its game offers none."""
    make = getattr(state, COMPILED_MODEL, None)
    return make() if make is not None else None


def game_refusal(state: GameState) -> str | None:
    """Why no compiled loop can search ``state``'s game at all (None: its game offers one)."""
    if model_of(state) is None:
        return "the game offers no compiled_model"
    return "the game declares no num_action_keys" if state.info.num_action_keys is None else None


def either_mode(config: SearchConfig, worlds: Worlds) -> tuple[tuple[bool, str], ...]:
    """The checks both modes of the loop make (``refusal``, ``compiled_network.refusal``), first."""
    default = defaults(type(config))
    return ((not config.compiled, "compiled=0"),
            (config.chance_sampler is not default["chance_sampler"], "a chance sampler other than the default"),
            (config.bucketing is not None, "chance-node bucketing (cnb=1)"),
            (type(worlds) is Fresh and config.determinizer is not default["determinizer"],
             "ISMCTS worlds from a determinizer other than the game's own (accuracy=, deckmodel=)"))


def refusal(config: SearchConfig, worlds: Worlds, state: GameState) -> str | None:
    """Why this loop's rollout mode cannot reproduce ``config`` with ``worlds`` on ``state``'s game (None: it can)."""
    default = defaults(type(config))
    found = first_reason((
        *either_mode(config, worlds),
        (type(config.selection) is not UCB1 and not learned_prior(config),
         f"{type(config.selection).__name__} selection has no compiled step (PUCT: over a learned prior, LeafPolicy)"),
        (learned_prior(config) and config.depth == 0, "PUCT at depth 0 (the evaluator values its leaves)"),
        (learned_prior(config) and config.pruning is not None, "hard pruning under a learned prior"),
        (type(config.rollout) not in (GameRollout, LearnedRollout),
         "a rollout other than the game's (GameRollout) or a learned one (LearnedRollout)"),
        (shared_net(learned_parts(config)) is False, "learned value, prior and rollout from different networks"),
        (config.pruning is not None and type(config.pruning) is not HardPruning, "a pruning other than HardPruning"),
        (config.prune and config.pruning is not None, "prune=1 with hard pruning"),
        (config.leaves != 1, "leaves in flight (leaves > 1)"),
        (type(worlds) not in (TrueState, Fresh, Fixed), f"worlds {worlds!r} have no compiled form"),
        (config.depth is not None and config.evaluator is not default["evaluator"],
         "an evaluator other than the game's heuristic after a rollout cut short"))) or game_refusal(state)
    if found is not None:
        return found
    model = model_of(state)
    return first_reason((
        (shared_net(learned_parts(config)) is not None and model.observation is None,
         "the compiled model has no observation kernel (the learned network reads it)"),
        (config.pruning is not None and heuristics_of(model, config.pruning) is None,
         "the compiled model cannot score the pruning heuristics"),
        (type(worlds) is Fresh and model.determinize is None, "the compiled model has no determinize"),
        (config.prune and model.sensible_actions is None, "the compiled model has no sensible_actions"),
        (state.info.chance == "explicit" and model.sample_chance is None, "the compiled model has no sample_chance")))


def learned_prior(config: SearchConfig) -> bool:
    """Whether ``config`` is PUCT over a learned prior at every node (the rollout mode's node-wise expansion)."""
    return type(config.selection) is PUCT and isinstance(config.prior, LeafPolicy)


def learned_parts(config: SearchConfig) -> tuple:
    """The learned value, prior (under PUCT only: UCB1 reads no prior) and rollout of ``config``, for the loop's
    ``learned`` record (``leaf_value.learned_record``)."""
    return config.leaf_value, config.prior if learned_prior(config) else None, config.rollout


def call_refusal(rng: np.random.Generator, root: Node | None) -> str | None:
    """Why one search cannot run compiled whatever its configuration (None: it can)."""
    if root is not None:
        return "a tree to continue (root=)"
    if type(rng) is not np.random.Generator or type(rng.bit_generator) not in REPLAYABLE:
        return f"a generator whose draws the loop cannot replay ({type(getattr(rng, 'bit_generator', rng)).__name__})"
    return None


def heuristics_of(model: CompiledModel, pruning: HardPruning) -> np.ndarray | None:
    """The model's indices of ``pruning``'s heuristics, or None when it cannot score them compiled."""
    if model.evaluations_after is None or model.evaluation_index is None:
        return None
    try:
        return np.array([model.evaluation_index(name) for name in pruning.names], dtype=np.int64)
    except InvalidParameterError:
        return None


# ---- the driver -------------------------------------------------------------------------------------------
class LeafMode(Protocol):
    """The leaf mode's part of a search (``compiled_network.NetworkLeaves``): the leaves in flight kept with a
    tree, whether they fill a batch, and their settlement (the evaluator's answers expanded and backed up)."""

    def leaves_of(self, tree: FlatTree, info: GameInfo) -> Any: ...

    def full(self, tree: FlatTree) -> bool: ...

    def settled(self, tree: FlatTree, leaves: Any, info: GameInfo) -> Steps[None]: ...


class CompiledLoop:
    """The compiled driver (``config.Driver``; module docstring): a search's iterations in kernel calls of
    ``_iterate``, in the rollout mode or, with a ``leaf`` mode, the leaf mode; the same tree, statistics and
    generator state as the Python loop. The clock of a time budget starts once its loop is loaded."""

    def __init__(self, config: SearchConfig, worlds: Worlds, leaf: LeafMode | None = None):
        self.config, self.worlds, self.leaf = config, worlds, leaf
        self.name = "compiled" if leaf is None else "compiled, network leaves"
        self.flat_tree: FlatTree | None = None  # kept from search to search (``FlatTree.of``)

    def steps(self, run: Run) -> Steps[SearchResult]:
        """The iterations of ``run`` compiled (``config.Driver``)."""
        cfg, state, rng, me, leaf = self.config, run.state, run.rng, run.me, self.leaf
        info, model = state.info, model_of(state)
        runner = runner_for(model)  # compiled, or read from numba's cache, at its first use in a process
        run.start = time.perf_counter()
        target = run.iterations if run.iterations is not None else cfg.iterations
        seconds = None if run.iterations is not None else cfg.seconds
        pruning, ismcts = cfg.pruning, type(self.worlds) is Fresh
        which = np.empty(0, dtype=np.int64) if pruning is None else heuristics_of(model, pruning)
        judge_words = 0 if pruning is None else 2 * (1 + pruning.extrapolate)  # a guess: two judgements an iteration
        chance = info.chance == "explicit"
        tree = FlatTree.of(self, me, info.num_players + chance, info.num_actions, target, pruning is not None,
                           table=KeyTable(info.num_action_keys), chance=chance,  # + CHANCE
                           num_keys=info.num_action_keys if leaf else max(info.num_action_keys, model.num_outcomes))
        fixed = self.worlds.draw(state, me, rng, cfg.determinizer) if run.iterations != 0 else []  # as Python draws
        worlds = np.stack([model_of(world).state for world in fixed]) if fixed else model.state[None].copy()
        leaves = None if leaf is None else leaf.leaves_of(tree, info)
        head = runner.head(model, worlds, me, ismcts, cfg, info, which, tree.num_keys, 0 if leaf is None else cfg.leaves,
                           root_prior_of(cfg, state, tree.table) if run.iterations != 0 else NO_ROOT_PRIOR)
        per_iteration = model.determinize_draws * ismcts + 1 + STEP_GUESS + judge_words
        bits = rng.bit_generator
        saved = bits.state
        words = np.empty(0, dtype=np.uint64)
        used = done = 0
        sliced = seconds is not None or stop.current() is not None  # a clock or a stop to check between kernel calls
        batch = 16 if sliced else target  # then slices of about SLICE seconds (the same tree: the words run on)
        try:
            while (target is None or done < target) and (seconds is None or time.perf_counter() - run.start < seconds):
                stop.stop_point()
                if target is not None:
                    batch = min(batch, target - done)
                tree.make_room()
                if leaves is not None:
                    leaves.make_room(int(tree.counters[MAX_DEPTH]) + 2)
                want = max(int(tree.counters[NEED_WORDS]), BLOCK + batch * per_iteration)
                if len(words) - tree.counters[POS] < want:
                    used += int(tree.counters[POS])
                    words = np.concatenate((words[tree.counters[POS]:], bits.random_raw(want)))
                    tree.counters[POS] = 0
                began = time.perf_counter()
                ran = runner.loop(*head, (*tree.arrays(), tree.block, words),
                                  NO_LEAVES if leaves is None else leaves.loop_arrays(), done, float(run.stamp + done),
                                  batch)
                done += ran
                if sliced and ran:
                    batch = max(1, int(ran * SLICE / max(time.perf_counter() - began, 1e-6)))
                if leaves is not None and leaf.full(tree):
                    yield from leaf.settled(tree, leaves, info)
            if leaves is not None and tree.counters[WAITING]:
                yield from leaf.settled(tree, leaves, info)
        finally:
            rewind(bits, saved, used + int(tree.counters[POS]))
        return decide(Node(tree), state, cfg.final, rng, done, time.perf_counter() - run.start)


def rewind(bits: np.random.BitGenerator, saved: dict, words: int) -> None:
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


class Runner(NamedTuple):
    """``_iterate`` compiled for a model's kernels: ``loop(*head(...), (*tree.arrays(), tree.block, words), leaves,
    first, stamp0, iterations)`` runs a kernel call of a search (``_iterate``'s arguments)."""

    kernels: Kernels
    loop: Any  # the compiled loop's entry point

    def head(self, model: CompiledModel, worlds: np.ndarray, me: int, ismcts: bool, cfg: SearchConfig,
             info: GameInfo, which: np.ndarray, num_keys: int, leaves: int,
             root_prior: np.ndarray = NO_ROOT_PRIOR) -> tuple:
        """The loop's arguments that a search fixes: the kernels, the ``model`` record (from ``worlds``, over a tree of
        key space ``num_keys``) and the ``search`` record (for ``me``, pruned by the heuristics ``which`` when there
        are any, ``leaves`` leaves in flight (0: the rollout mode), the root's prior ``root_prior`` by key id (empty:
        none))."""
        pruning = cfg.pruning
        model_record = (worlds, model.table, model.buffer_len, model.determinize_draws,
                        MAX_CHANCE_RUN if info.chance == "explicit" else 0, info.max_turns, num_keys, info.num_actions,
                        info.num_players, float(info.min_return), float(info.max_return))
        search = (me, ismcts, bool(cfg.prune), -1 if cfg.depth is None else cfg.depth,
                  float(cfg.selection.constant(cfg)), root_prior, float(cfg.root_cpuct), which,
                  0 if pruning is None else pruning.limit, bool(pruning is not None and pruning.extrapolate), leaves)
        learned = learned_record(*learned_parts(cfg))
        return (*self.kernels.arguments(), model_record, search, learned)


_RUNNERS: dict[tuple, Runner] = {}


def runner_for(model: CompiledModel) -> Runner:
    """The loop compiled for ``model``'s kernels and argument types (built once per process and game)."""
    key = (tuple(getattr(model, name) for name in KERNELS), shape_of(model.state), shape_of(model.table))
    found = _RUNNERS.get(key)
    if found is None:
        kernels, s, table = typed_kernels(model, KERNELS)
        i64, i64s, f64, boolean = types.int64, types.int64[::1], types.float64, types.boolean
        worlds = types.Array(s.dtype, 2, "C")
        model_types = types.Tuple((worlds, table, i64, i64, i64, i64, i64, i64, i64, f64, f64))
        search_types = types.Tuple((i64, boolean, boolean, i64, f64, types.float64[::1], f64, i64s, i64, boolean, i64))
        f32s, f32s2 = types.float32[::1], types.float32[:, ::1]
        learned_types = types.Tuple((f32s2, f32s, f32s2, f32s, f32s2, f32s, f32s2, f32s, f64, f64, f64))
        tree_types = types.Tuple((*TREE_TYPES, types.float64[::1], types.uint64[::1]))
        loop_args = kernel_arguments(kernels) + (model_types, search_types, learned_types, tree_types,
                                                 types.Tuple(LEAF_TYPES), i64, f64, i64)
        found = _RUNNERS[key] = Runner(kernels, _iterate.compile(loop_args))
    return found


# ---- the compiled loop ------------------------------------------------------------------------------------



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
def _learned_playout(world, table, buf, stream, limit, legal_actions, apply, player_of, turn_of, sample_chance,
                     observation, w1, b1, w2, b2, wp, bp, temperature, seen, hidden1, hidden2, weights):
    """``leaf_value.LearnedRollout`` from ``world`` until the end or turn ``limit`` begins: each move drawn from the
    policy head's softmax (its hidden layers once per turn of a player), a chance outcome by ``sample_chance`` at
    the stream's next unit (none used for an outcome the state fixes)."""
    last_player, last_turn = np.int64(-3), np.int64(-1)
    while True:
        player = player_of(world)
        turn = turn_of(world)
        if player == TERMINAL or turn >= limit:
            return
        if player == CHANCE:
            saved = stream[0]
            outcome = sample_chance(world, table, rand_unit(stream))
            if outcome < 0:
                stream[0] = saved
                outcome = -1 - outcome
            apply(world, table, outcome, buf)
            continue
        if player != last_player or turn != last_turn:
            last_player, last_turn = player, turn
            observation(world, table, player, seen)
            hidden_layers(w1, b1, w2, b2, seen, hidden1, hidden2)
        n = legal_actions(world, table, buf)
        total = policy_weights(hidden2, wp, bp, buf, n, temperature, weights)
        apply(world, table, np.int64(buf[pick_weighted(weights, n, total, rand_unit(stream))]), buf)


@njit(cache=True, nogil=True)
def _iterate(kernels, determinize_t, legal_actions_t, action_keys_t, apply_t, playout_t, player_t, turn_t, returns_t,
             heuristic_t, evaluations_after_t, sample_chance_t, sensible_actions_t, observation_t, model, search, learned,
             tree, in_flight, first, stamp0, iterations):
    """Up to ``iterations`` iterations for player ``me`` (``loop.PythonLoop``'s iteration: ``descend``, the rollout,
    the backup), by the model's kernels (their addresses ``kernels`` bound to the types ``*_t``) over five records:
    ``model`` (the worlds and the game's sizes), ``search`` (whose search and its strategy), ``learned`` (a learned
    leaf value's weights and ``mix``; empty weights: none; ``Runner.head`` builds these three), ``tree`` (``FlatTree.arrays()``, the block of uniforms and the raw ``words``) and ``in_flight`` (the
    leaves in flight, ``LEAF_TYPES``). It stops before an iteration that might run out of raw ``words`` or of room in the tree (what it needs is left in
    ``counters``); returns the number run. Iteration ``first + i`` starts from ``worlds[(first + i) % len(worlds)]``
    (UCT and ISMCTS: one, the state; DUCT: its fixed worlds), determinized under ``ismcts``. ``depth`` -1: rollouts
    to the end. ``prune``: tree steps over the sensible actions. ``chance_run``: the most chance nodes in a row the
    game may have (0: none in play; one met raises). ``num_keys``: the key space of the hash tables. A non-empty
    ``root_prior`` (by key id) makes the root's step PUCT over it with ``c_root`` (``core.set_root_prior``; rollout
    mode only), every other step UCB1's. With heuristics ``which`` (indices for ``evaluations_after``), hard pruning
    keeps the top ``limit`` at every decision node.
    ``leaves`` > 0: the leaf mode (module docstring), which stops once ``leaves`` leaves wait or the root is one, or
    before an iteration whose leaf path might not fit ``leaf_path_node``."""
    worlds, table, buffer_len, determinize_draws, chance_run, max_turns, num_keys, max_legal, num_players, lo, hi = model
    me, ismcts, prune, depth, c, root_prior, c_root, which, limit, extrapolate, leaves = search
    w1, b1, w2, b2, w3, b3, wp, bp, mix, prior_tau, rollout_tau = learned
    (node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, judge_key, judge_kept, counters,
     block, words) = tree
    leaf_node, leaf_depth, leaf_path_node, leaf_path_edge, leaf_n, leaf_actions, leaf_keys, observations, masks = in_flight
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
    valued = w1.shape[0] > 0 and mix > 0.0
    by_node = leaves > 0 or prior_tau > 0.0  # PUCT's node-wise expansion (else UCB1's, by edge)
    seen = np.empty(w1.shape[0], dtype=np.float32)
    hidden1, hidden2 = np.empty_like(b1), np.empty_like(b2)
    relative, learned_values = np.empty(num_players), np.empty(num_players)
    weights = np.empty(max_legal)
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
            if prior_tau > 0.0 and node_size[node] == 0:  # never expanded: the leaf, its prior from the policy head
                observation(world, table, player, seen)
                hidden_layers(w1, b1, w2, b2, seen, hidden1, hidden2)
                total = policy_weights(hidden2, wp, bp, buf, n, prior_tau, weights)
                for i in range(n):  # ``core.prior_over``'s renormalisation
                    weights[i] = weights[i] / total if total > 0.0 else 1.0 / n
                add_prior(node, keys[:n], weights[:n], num_keys, node_size, edge_node, edge_key, stat, edge_child,
                          hash_key, hash_edge, counters)
                break
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
            # ``core.pick_and_visit``'s step, its calls inline here: a call to it costs Hearth's compiled DUCT 4-10%
            n_fresh = flat_edges(node, keys, m, num_keys, stamp, 1.0 / m if by_node else -1.0, edges_of, node_size,
                                 edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)
            if by_node:
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
            if fresh and not by_node:  # UCB1 expands an edge, PUCT a node
                break
            link = e
            player = player_of(world)
        if not waits:
            player = player_of(world)
            netted = valued and player != TERMINAL
            if netted:  # ``leaf_value.LeafValue``: the network's values of the leaf, observed by its player to move
                observer = me if player == CHANCE else player
                observation(world, table, observer, seen)
                leaf_values(w1, b1, w2, b2, w3, b3, seen, hidden1, hidden2, relative)
                seat_values(relative, observer, learned_values)
            if player != TERMINAL and depth != 0 and not (netted and mix == 1.0):
                stream[0] = words[pos] | np.uint64(1)
                pos += 1
                turn_limit = max_turns + 1 if depth < 0 else turn_of(world) + depth
                if rollout_tau > 0.0:
                    _learned_playout(world, table, buf, stream, turn_limit, legal_actions, apply, player_of, turn_of,
                                     sample_chance, observation, w1, b1, w2, b2, wp, bp, rollout_tau, seen, hidden1,
                                     hidden2, weights)
                else:
                    playout(world, table, buf, stream, turn_limit)
                player = player_of(world)
            if netted and mix == 1.0:
                values[:] = learned_values
            elif player == TERMINAL:
                returns(world, result)
                unit_values(result, lo, hi, values)
            else:
                for q in range(num_players):
                    values[q] = heuristic_unit(heuristic(world, table, q))
            if netted and mix < 1.0:
                for q in range(num_players):
                    values[q] = mix * learned_values[q] + (1.0 - mix) * values[q]
            backup(stat, node_player, path_node, path_edge, n_path, values)
        counters[POS] = pos
        done += 1
        if waits and (n_path == 0 or counters[WAITING] == leaves):
            break  # the batch is full, or the root is the leaf: it is expanded before any other
    return done

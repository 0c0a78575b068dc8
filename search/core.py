"""The tree operations of every search driver, each written once and compiled (numba).

Edge statistics live in a ``stat`` array of rows ``VISITS, TOTAL, AVAIL, STAMP, PRIOR`` by edge column: the
``tree.Node`` of the Python driver holds one per node, the flat tree (``FlatTree``) of the compiled drivers one
for the whole tree. Every driver calls the same functions over it:

=====================  ============================================================================================
behaviour              function
=====================  ============================================================================================
availability           ``mark_available``: an edge counted available once per iteration (its ``STAMP``), whether
                       it is unvisited (SO-ISMCTS's availability counts, paper 000 §2.3)
UCB1 step              ``pick_ucb1``: an unvisited edge first, chosen by ``int(u * n_fresh)``; else the first
                       maximum of ``mean + c sqrt(ln(avail) / n)`` (paper 001 §2.2)
PUCT step              ``pick_puct``: the first maximum of ``Q + c P sqrt(avail) / (1 + n)``, unvisited ``Q`` the
                       mean of the visited legal edges (first-play urgency)
root prior             ``set_root_prior``: the root's edges take a prior given once per search (``SearchConfig.
                       root_prior``), renormalised over the edges offered; the root step is then ``pick_puct``
prior of a new node    ``prior_over``: the evaluator's prior on the legal actions, renormalised (uniform if it
                       has no mass there)
value normalisation    ``unit_values``: returns (or a network's values) in [lo, hi] mapped to [0, 1] and clipped;
                       ``heuristic_unit``: the game's heuristic in [-1, 1] mapped to [0, 1]
virtual loss, backup   a visit counted on the way down (``VISITS += 1`` at selection: the virtual loss of an
                       iteration in flight), the reward on the way up: ``backup``
hard pruning's cut     ``mark_top``: each heuristic's top ``limit`` moves, ties by a uniform (paper 002)
edges of a flat node   ``flat_edges``: the (node, key) hash table of ``FlatTree``, making missing edges in the
                       order keys are met, and ``mark_available`` on each
expansion by a prior   ``add_prior``: PUCT's node-wise expansion, the prior added to each legal key's edge
=====================  ============================================================================================

One tree serves every driver, ``FlatTree`` (below); the drivers around the operations: ``mcts.descend`` and
``mcts.back_up``, the tree policy and backup of every search driven from Python (``TreeSearch`` and tree-parallel
search, which passes its lock and virtual loss), whose kernels (``tree.select_edge`` / ``select_puct``,
``tree.expand``) call the functions above; and one compiled loop, ``compiled._iterate``: UCT / ISMCTS / DUCT with
rollouts, chance nodes and pruning, or, in its leaf mode, PUCT whose leaves wait for a network
(``compiled_network``, which expands and backs them up with ``_settle``). A search's result reads the tree through
``tree.Node`` views, whichever driver made it; the Python driver may go on with a tree a compiled loop made (the turn
budget's continued searches), and the two make the same tree from the same draws (tests/test_compiled_*.py compare
whole trees).

``FlatTree``: node ``i`` has player ``node_player[i]`` (node 0: the root of a new search) and ``node_size[i]`` edges;
edge ``e`` belongs to node ``edge_node[e]``, has soft key ``edge_key[e]`` and statistics ``stat[:, e]`` (Fortran
order: an edge's rows side by side, one cache line where five rows would touch five); ``edge_child[e, p]`` is the
node below ``e`` where player ``p`` moves (-1: none yet); in a tree with chance nodes a last column, which
``CHANCE`` = -1 indexes, holds the chance node below ``e``, whose edges are its outcomes (keys: their ids). An
open-addressing hash table maps ``node * num_keys + key`` to the edge (``num_keys``: the key space, chance outcomes
included). Edges are numbered as they are made. Arrays grow by doubling between kernel calls (``make_room``,
``reserve``), never inside one.
"""
from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
from numba import njit, types

LEAN = dict(cache=True, nogil=True, _nrt=False)  # no array is made: no reference counting on every call (arrays
# passed to a helper are counted in and out, tens of ns a call and array, a third of a compiled iteration's time)
VISITS, TOTAL, AVAIL, STAMP, PRIOR = range(5)  # rows of an edge statistics array
(N_NODES, N_EDGES, MAX_DEPTH, LEFT, POS, NEED_WORDS, NEED_EDGES, N_JUDGED, NEED_JUDGED, WAITING,
 NEED_NODES) = range(11)  # counters
UNIFORMS_BLOCK = 256  # uniforms ``tree.Uniforms`` draws at a time (the compiled drivers replay its draws)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing


# ---- one step ---------------------------------------------------------------------------------------------
@njit(**LEAN)
def mark_available(stat, e, stamp):
    """Count edge ``e`` available in iteration ``stamp`` (once, however many legal actions share its key); return
    whether it was never visited."""
    if stat[STAMP, e] != stamp:
        stat[STAMP, e] = stamp
        stat[AVAIL, e] += 1.0
    return stat[VISITS, e] == 0.0


@njit(**LEAN)
def pick_ucb1(stat, edges, n, n_fresh, c, u):
    """UCB1 over the edges ``edges[:n]`` (their availability counted, ``n_fresh`` of them unvisited): the index of
    the ``int(u * n_fresh)``-th unvisited edge when there is one, else the first maximum of
    ``mean + c sqrt(ln(avail) / visits)``."""
    if n_fresh > 0:
        pick = int(u * n_fresh)
        for i in range(n):
            if stat[VISITS, edges[i]] == 0.0:
                if pick == 0:
                    return i
                pick -= 1
    best = 0
    best_value = -np.inf
    for i in range(n):
        e = edges[i]
        visits = stat[VISITS, e]
        value = stat[TOTAL, e] / visits + c * np.sqrt(np.log(stat[AVAIL, e]) / visits)
        if value > best_value:
            best = i
            best_value = value
    return best


@njit(**LEAN)
def pick_puct(stat, edges, n, c):
    """PUCT over the edges ``edges[:n]`` (AlphaZero): the first maximum of ``Q + c P sqrt(avail) / (1 + n)``.

    ``Q`` is the edge's mean reward; an unvisited edge's is the *first-play urgency*: the mean reward of the
    visited edges among ``edges[:n]`` (Leela Chess Zero's FPU with no reduction), 0 while none is visited. ``P``
    is the ``PRIOR`` row; the availability stands in for the parent's visits, as in SO-ISMCTS."""
    seen, total = 0.0, 0.0
    for i in range(n):
        seen += stat[VISITS, edges[i]]
        total += stat[TOTAL, edges[i]]
    first_play = total / seen if seen > 0.0 else 0.0
    best = 0
    best_value = -np.inf
    for i in range(n):
        e = edges[i]
        visits = stat[VISITS, e]
        q = stat[TOTAL, e] / visits if visits > 0.0 else first_play
        value = q + c * stat[PRIOR, e] * np.sqrt(stat[AVAIL, e]) / (1.0 + visits)
        if value > best_value:
            best = i
            best_value = value
    return best


# ---- Gumbel's interior step (Danihelka, Guez, Schrittwieser and Silver 2022; ``gumbel``'s docstring) ----------
TINY = 1e-30  # the prior of an action the evaluator gave none: its logit stays finite
SPAN = 1e-8  # the smallest Q range min-max rescaling divides by (mctx's epsilon)


@njit(**LEAN)
def mixed_value(raw_value, q, visits, prior):
    """v_mix = (v̂ + ΣN · Σ_{N(a)>0} π(a) q(a) / Σ_{N(a)>0} π(a)) / (1 + ΣN): the node's raw value ``raw_value`` mixed
    with the prior-weighted mean Q of its visited actions (mctx's ``_compute_mixed_value``)."""
    total = 0.0
    mass = 0.0
    weighted = 0.0
    for i in range(len(q)):
        total += visits[i]
        if visits[i] > 0:
            p = max(prior[i], TINY)
            mass += p
            weighted += p * q[i]
    if mass > 0:
        weighted /= mass
    return (raw_value + total * weighted) / (total + 1.0)


@njit(**LEAN)
def sigma(q, visits, v_mix, c_visit, c_scale, out):
    """σ(q̂) into ``out``: the completed Q (``q`` where visited, else ``v_mix``), min-max rescaled to [0, 1] over the
    actions, times (c_visit + max N) · c_scale."""
    lo, hi, top = np.inf, -np.inf, 0.0
    for i in range(len(q)):
        out[i] = q[i] if visits[i] > 0 else v_mix
        lo, hi, top = min(lo, out[i]), max(hi, out[i]), max(top, visits[i])
    scale = (c_visit + top) * c_scale / max(hi - lo, SPAN)
    for i in range(len(q)):
        out[i] = (out[i] - lo) * scale


@njit(**LEAN)
def improved_policy(logits, sig, out):
    """π′ = softmax(logits + σ) into ``out``."""
    top = -np.inf
    for i in range(len(logits)):
        out[i] = logits[i] + sig[i]
        top = max(top, out[i])
    mass = 0.0
    for i in range(len(logits)):
        out[i] = math.exp(out[i] - top)
        mass += out[i]
    for i in range(len(logits)):
        out[i] /= mass


@njit(**LEAN)
def interior_choice(pi, visits):
    """argmax[π′(a) − N(a) / (1 + ΣN)], the first on a tie: the action whose visit share lags π′ the most."""
    total = 1.0 + visits.sum()
    best, found = 0, -np.inf
    for i in range(len(pi)):
        score = pi[i] - visits[i] / total
        if score > found:
            best, found = i, score
    return best


@njit(cache=True, nogil=True)
def pick_gumbel(stat, edges, n, raw_value, c_visit, c_scale):
    """Gumbel's interior choice over the edges ``edges[:n]``: ``interior_choice`` over π′ of their distinct edges (two
    legal ids of one key: one edge), priors renormalised over them, ``raw_value`` the node's evaluated value; the
    index of the first legal id of the edge chosen."""
    first, work = np.empty(n, dtype=np.int64), np.empty((6, n))
    k = 0
    for i in range(n):
        seen = False
        for j in range(k):
            seen = seen or edges[first[j]] == edges[i]
        if not seen:
            first[k] = i  # the legal index of each distinct edge (two copies of a card: one key)
            k += 1
    prior, q, count, logits, sig, pi = work[0, :k], work[1, :k], work[2, :k], work[3, :k], work[4, :k], work[5, :k]
    mass = 0.0
    for j in range(k):
        e = edges[first[j]]
        prior[j], count[j] = stat[PRIOR, e], stat[VISITS, e]
        q[j] = stat[TOTAL, e] / count[j] if count[j] > 0 else 0.0
        mass += prior[j]
    for j in range(k):
        prior[j] /= max(mass, TINY)
        logits[j] = math.log(max(prior[j], TINY))
    sigma(q, count, mixed_value(raw_value, q, count, prior), c_visit, c_scale, sig)
    improved_policy(logits, sig, pi)
    return first[interior_choice(pi, count)]


NO_ROOT_PRIOR = np.empty(0)  # a search without a root prior (``set_root_prior``)


@njit(**LEAN)
def set_root_prior(stat, edges, keys, n, root_prior):
    """``PRIOR`` of the root's edges ``edges[:n]`` (keys ``keys[:n]``) from ``root_prior`` (by key id; negative or
    past its end: a key the searched state did not offer, weighted ``1 / n``), renormalised over the ``n`` edges
    (uniform when they weigh nothing). Written at every root step: the edges offered may change with the world."""
    total = 0.0
    for i in range(n):
        k = keys[i]
        p = root_prior[k] if k < len(root_prior) and root_prior[k] >= 0.0 else 1.0 / n
        stat[PRIOR, edges[i]] = p
        total += p
    for i in range(n):
        stat[PRIOR, edges[i]] = stat[PRIOR, edges[i]] / total if total > 0.0 else 1.0 / n


@njit(**LEAN)
def prior_over(prior, legal, out):
    """``out[i]``: the prior of action ``legal[i]`` from ``prior`` (weights over action ids), renormalised to sum
    to 1 over ``legal``; uniform when they sum to 0 there. The sum is sequential in legal order."""
    n = len(legal)
    total = 0.0
    for i in range(n):
        out[i] = np.float64(prior[legal[i]])
        total += out[i]
    for i in range(n):
        out[i] = out[i] / total if total > 0.0 else 1.0 / n


@njit(**LEAN)
def unit_values(returns, lo, hi, out):
    """``out``: per-player ``returns`` in [``lo``, ``hi``] mapped to [0, 1] and clipped."""
    for q in range(len(out)):
        out[q] = min(max((np.float64(returns[q]) - lo) / (hi - lo), 0.0), 1.0)


@njit(**LEAN)
def heuristic_unit(h):
    """A game's heuristic in [-1, 1] mapped to [0, 1]."""
    return (h + 1.0) / 2.0


@njit(**LEAN)
def backup(stat, node_player, path_node, path_edge, n_path, values):
    """Add each edge's reward on the path: ``values`` of the player who chose it (the node's player)."""
    for j in range(n_path):
        stat[TOTAL, path_edge[j]] += values[node_player[path_node[j]]]


@njit(**LEAN)
def _ahead(row, units, i, j):
    """Whether move ``i`` comes before an earlier move ``j``: a higher score, or a tie and a lower uniform."""
    return row[i] > row[j] or (row[i] == row[j] and units[i] < units[j])


@njit(**LEAN)
def mark_top(row, units, n, limit, kept, top):
    """Hard pruning's cut (paper 002): ``kept[np.lexsort((units[:n], -row[:n]))[:limit]] = True``, the ``limit``
    moves of highest score ``row`` (ties to the lower uniform, then the lower index), by insertion into ``top``
    (the best so far, ``limit`` long)."""
    m = 0
    for i in range(n):
        if m == limit and not _ahead(row, units, i, top[m - 1]):
            continue
        j = min(m, limit - 1)  # a full ``top`` drops its last
        while j > 0 and _ahead(row, units, i, top[j - 1]):
            top[j] = top[j - 1]
            j -= 1
        top[j] = i
        m = min(m + 1, limit)
    for j in range(m):
        kept[top[j]] = True


# ---- the flat tree ----------------------------------------------------------------------------------------
@njit(**LEAN)
def slot_of(hash_key, k):
    """The hash slot of the int64 key ``k``: where it is, or the empty slot where it goes."""
    mask = len(hash_key) - 1
    i = np.int64((np.uint64(k) * _GOLDEN) >> np.uint64(32)) & mask
    while hash_key[i] != -1 and hash_key[i] != k:
        i = (i + 1) & mask
    return i


@njit(**LEAN)
def rehash(old_key, old_value, hash_key, hash_value):
    """Every entry of the table (``old_key``, ``old_value``) into the empty table (``hash_key``, ``hash_value``)."""
    for j in range(len(old_key)):
        if old_key[j] != -1:
            i = slot_of(hash_key, old_key[j])
            hash_key[i] = old_key[j]
            hash_value[i] = old_value[j]


@njit(**LEAN)
def edge_of(node, k, num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters):
    """The edge of soft key ``k`` at ``node``, made (zero statistics, no children) when missing."""
    h = slot_of(hash_key, node * num_keys + k)
    if hash_key[h] == -1:
        e = counters[N_EDGES]
        counters[N_EDGES] = e + 1
        hash_key[h] = node * num_keys + k
        hash_edge[h] = e
        edge_node[e] = node
        edge_key[e] = k
        for r in range(stat.shape[0]):  # loops, not slices: a slice is a view, reference-counted on every edge
            stat[r, e] = 0.0
        for p in range(edge_child.shape[1]):
            edge_child[e, p] = -1
        node_size[node] += 1
        return e
    return hash_edge[h]


@njit(**LEAN)
def flat_edges(node, keys, n, num_keys, stamp, new_prior, edges, node_size, edge_node, edge_key, stat, edge_child,
               hash_key, hash_edge, counters):
    """``edges[i]``: the edge of the legal key ``keys[i]`` at ``node`` (made when missing, with ``PRIOR``
    ``new_prior`` when it is >= 0), each counted available in iteration ``stamp``; returns the number
    unvisited."""
    n_fresh = 0
    for i in range(n):
        made = counters[N_EDGES]
        e = edge_of(node, keys[i], num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge,
                    counters)
        if e == made and new_prior >= 0.0:
            stat[PRIOR, e] = new_prior
        edges[i] = e
        if mark_available(stat, e, stamp):
            n_fresh += 1
    return n_fresh


@njit(**LEAN)
def child_of(link, player, node_player, node_size, edge_child, counters):
    """The node below edge ``link`` where ``player`` moves, made when missing."""
    child = edge_child[link, player]
    if child < 0:
        child = counters[N_NODES]
        counters[N_NODES] = child + 1
        node_player[child] = player
        node_size[child] = 0
        edge_child[link, player] = child
    return child


@njit(**LEAN)
def add_prior(node, keys, prior, num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge,
              counters):
    """A node's expansion with a prior (PUCT): the edge of each legal key ``keys[i]`` (made when missing) gets
    ``prior[i]`` added, so two legal actions with one key (two copies of a card) add up."""
    for i in range(len(keys)):
        e = edge_of(node, keys[i], num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge,
                    counters)
        stat[PRIOR, e] += prior[i]


@njit(**LEAN)
def has_room(n, node_player, edge_key, hash_key, counters):
    """Whether the tree has room for a new node and ``n`` new edges (the hash table at most half full)."""
    need = counters[N_EDGES] + n
    return need <= len(edge_key) and 2 * need <= len(hash_key) and counters[N_NODES] < len(node_player)


UCB1_STEP, PUCT_STEP, ROOTED_STEP, GUMBEL_STEP = range(4)  # how ``pick_and_visit`` picks


@njit(**LEAN)
def new_prior(how, n):
    """The ``PRIOR`` of an edge a step makes (``flat_edges``): ``1 / n`` where the pick reads priors, else none."""
    return 1.0 / n if how == PUCT_STEP or how == GUMBEL_STEP else -1.0


@njit(cache=True, nogil=True)
def pick_and_visit(stat, ids, edges, n, n_fresh, how, c, u, visits, root_prior, raw_value, c_scale):
    """The tree step over the edges ``edges[:n]`` of the legal key ids ``ids[:n]`` (made and counted available by
    ``flat_edges``, ``n_fresh`` of them unvisited), written once for the Python steps (``tree.step_at``, Gumbel's
    included; the compiled loop makes the same calls inline, a shared call costing its Hearth DUCT 4-10%): the pick (``UCB1_STEP``:
    ``pick_ucb1`` with the uniform ``u``; ``PUCT_STEP``: ``pick_puct``; ``ROOTED_STEP``: UCB1's edges, their ``PRIOR``
    from ``root_prior`` (``set_root_prior``), then ``pick_puct``; ``GUMBEL_STEP``: ``pick_gumbel`` with ``raw_value``,
    ``c`` as c_visit and ``c_scale``), then ``visits`` visits counted on the edge
    taken (the virtual loss of an iteration in flight). Returns ``(i, edge, fresh)``: the legal index to play, its
    edge, whether it was never visited."""
    if how == UCB1_STEP:
        i = pick_ucb1(stat, edges, n, n_fresh, c, u)
    elif how == GUMBEL_STEP:
        i = pick_gumbel(stat, edges, n, raw_value, c, c_scale)
    else:
        if how == ROOTED_STEP:
            set_root_prior(stat, edges, ids, n, root_prior)
        i = pick_puct(stat, edges, n, c)
    e = edges[i]
    fresh = stat[VISITS, e] == 0.0
    stat[VISITS, e] += visits
    return i, e, fresh


def grown(a: np.ndarray, size: int, axis: int = 0, order: str = "C") -> np.ndarray:
    """``a`` in an array ``size`` long along ``axis``, in memory ``order`` (the kernels fill every entry they make)."""
    shape = list(a.shape)
    shape[axis] = size
    out = np.empty(shape, dtype=a.dtype, order=order)
    out[(slice(None),) * axis + (slice(0, a.shape[axis]),)] = a
    return out


def _room(keys: np.ndarray, values: np.ndarray, entries: int) -> tuple[np.ndarray, np.ndarray]:
    """The hash table (``keys``, ``values``), rehashed into twice its size or more when ``entries`` would fill it
    more than half."""
    size = len(keys)
    if 2 * entries <= size:
        return keys, values
    while size < 2 * entries:
        size *= 2
    grown_keys, grown_values = np.full(size, -1, dtype=np.int64), np.empty(size, dtype=values.dtype)
    rehash(keys, values, grown_keys, grown_values)
    return grown_keys, grown_values


def load_growth() -> None:
    """Load the kernel a growing tree calls (``rehash``, for both of its tables' value types): a warm-up search too
    small to outgrow its tree never calls it, and the first search that does would compile it on its clock."""
    for dtype in (np.int64, np.bool_):
        _room(np.full(1, -1, dtype=np.int64), np.empty(1, dtype=dtype), 1)


class KeyTable:
    """Soft key <-> key id for one tree: the identity for games with dense int keys (``GameInfo.num_action_keys``),
    interning otherwise."""

    def __init__(self, num_keys: int | None):
        self.dense = num_keys is not None
        self.size = num_keys or 0
        self._ids: dict[Hashable, int] = {}
        self._keys: list[Hashable] = []

    def id(self, key: Hashable) -> int:
        """The id of ``key``, interned when new."""
        if self.dense:
            return int(key)
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self._keys)
            self._keys.append(key)
            self.size = len(self._keys)
        return i

    def find(self, key: Hashable) -> int:
        """The id of ``key``, or -1 when it was never interned (nothing is interned)."""
        if self.dense:
            return int(key) if 0 <= int(key) < self.size else -1
        return self._ids.get(key, -1)

    def key(self, i: int) -> Hashable:
        return int(i) if self.dense else self._keys[i]


TREE_TYPES = (types.int64[::1],) * 4 + (types.float64[::1, :], types.int64[:, ::1]) + (types.int64[::1],) * 3 + (
    types.boolean[::1], types.int64[::1])  # numba's types of ``FlatTree.arrays()``, for loops compiled ahead


class FlatTree:
    """The flat tree (module docstring), the kernels' ``counters`` and the hard-pruning memory (a second hash table:
    ``node * num_keys + key`` -> kept, present once judged); ``make_room`` grows it between kernel calls to what the
    last call asked for in ``counters``, ``reserve`` to what a Python tree step may make.

    ``num_players`` is the number of ``edge_child`` columns (a tree with ``chance`` nodes has one more, last:
    ``CHANCE`` = -1 indexes it); ``table`` maps soft keys to the decision edges' key ids (chance edges are keyed by
    the outcome itself); ``num_keys`` bounds the keys of the hash tables. The Python driver keeps two more memories per node in
    dicts: chance-node bucketing's pre-samples (``presampled``) and hard pruning's judgements (``pruned``). Every
    ``reset`` starts a new ``generation``: a ``tree.Node`` read after one raises ``StaleTreeError``."""

    def __init__(self, me: int, num_players: int, max_legal: int, target: int | None, pruning: bool, *,
                 table: KeyTable | None = None, num_keys: int = 1 << 32, chance: bool = True):
        nodes = min(target or 1024, 1 << 16) + 1
        self.node_player = np.empty(nodes, dtype=np.int64)
        self.node_size = np.empty(nodes, dtype=np.int64)
        edges = 8 * max_legal
        self.edge_node = np.empty(edges, dtype=np.int64)
        self.edge_key = np.empty(edges, dtype=np.int64)
        self.stat = np.empty((PRIOR + 1, edges), order="F")  # an edge's statistics side by side: one cache line
        self.edge_child = np.empty((edges, num_players), dtype=np.int64)
        slots = 1 << (2 * edges - 1).bit_length()
        self.hash_key = np.full(slots, -1, dtype=np.int64)
        self.hash_edge = np.empty(slots, dtype=np.int64)
        judged = slots if pruning else 1
        self.judge_key = np.full(judged, -1, dtype=np.int64)
        self.judge_kept = np.empty(judged, dtype=np.bool_)
        self.counters = np.zeros(NEED_NODES + 1, dtype=np.int64)
        self.block = np.empty(UNIFORMS_BLOCK)  # the tree steps' uniforms (``tree.Uniforms``' block)
        self.shape = (num_players, max_legal, pruning)
        self.table = table if table is not None else KeyTable(None)
        self.num_keys = num_keys
        self.chance = chance
        self.leaves = None  # the network driver's leaves in flight (``compiled_network``), kept with the tree
        self.generation = 0
        self.reset(me)

    def reset(self, me: int) -> None:
        """Empty the tree for a new search from a root where ``me`` moves, keeping its arrays."""
        num_players, max_legal, pruning = self.shape
        self.node_player[0], self.node_size[0] = me, 0
        self.hash_key.fill(-1)
        self.judge_key.fill(-1)
        self.counters[:] = 0
        self.counters[N_NODES] = 1
        self.counters[NEED_EDGES] = 2 * max_legal
        self.counters[NEED_JUDGED] = 2 * max_legal if pruning else 0
        self.presampled: dict[int, dict] = {}
        self.pruned: dict[int, object] = {}  # node -> ``pruning.Judged``
        self.root_prior = NO_ROOT_PRIOR  # the root's prior by key id (``set_root_prior``), set per search
        self.generation += 1
        self._by_node: tuple | None = None

    @classmethod
    def of(cls, owner: object, me: int, num_players: int, max_legal: int, target: int | None, pruning: bool, *,
           table: KeyTable, num_keys: int, chance: bool) -> FlatTree:
        """``owner``'s flat tree (a search engine's: one search at a time), emptied for a new search, or a new one
        when it has none of this shape. Kept because the first writes into fresh arrays of this size cost page
        faults on every search: a third of a 32-iteration search's time in lock-step self-play."""
        tree = getattr(owner, "flat_tree", None)
        if tree is None or tree.shape != (num_players, max_legal, pruning):
            tree = owner.flat_tree = cls(me, num_players, max_legal, target, pruning, table=table, num_keys=num_keys,
                                         chance=chance)
        else:
            tree.reset(me)
            tree.table, tree.num_keys, tree.chance = table, num_keys, chance
        return tree

    def make_room(self) -> None:
        """Room for the next iteration: the nodes (one, or ``NEED_NODES``), edges and hash slots (edges, judgements)
        asked for."""
        nodes = max(int(self.counters[N_NODES]) + 1, int(self.counters[NEED_NODES]))
        if nodes > len(self.node_player):
            size = max(nodes, 2 * len(self.node_player))
            self.node_player = grown(self.node_player, size)
            self.node_size = grown(self.node_size, size)
        edges = int(self.counters[NEED_EDGES])
        if edges > len(self.edge_key):
            size = max(edges, 2 * len(self.edge_key))
            self.edge_node = grown(self.edge_node, size)
            self.edge_key = grown(self.edge_key, size)
            self.stat = grown(self.stat, size, axis=1, order="F")
            self.edge_child = grown(self.edge_child, size)
        self.hash_key, self.hash_edge = _room(self.hash_key, self.hash_edge, edges)
        self.judge_key, self.judge_kept = _room(self.judge_key, self.judge_kept, int(self.counters[NEED_JUDGED]))

    def reserve(self, edges: int) -> None:
        """Room for a Python tree step: a new node and ``edges`` new edges."""
        counters = self.counters
        if not has_room(edges, self.node_player, self.edge_key, self.hash_key, counters):
            counters[NEED_EDGES], counters[NEED_NODES] = counters[N_EDGES] + edges, counters[N_NODES] + 1
            self.make_room()

    def arrays(self) -> tuple:
        """The tree's arrays in the kernels' order: node_player, node_size, edge_node, edge_key, stat, edge_child,
        hash_key, hash_edge, judge_key, judge_kept, counters."""
        return (self.node_player, self.node_size, self.edge_node, self.edge_key, self.stat, self.edge_child,
                self.hash_key, self.hash_edge, self.judge_key, self.judge_kept, self.counters)

    def edge_arrays(self) -> tuple:
        """What ``flat_edges`` and ``edge_of`` take after the key space: node_size, edge_node, edge_key, stat,
        edge_child, hash_key, hash_edge, counters."""
        return (self.node_size, self.edge_node, self.edge_key, self.stat, self.edge_child, self.hash_key,
                self.hash_edge, self.counters)

    def step(self, kernel, room: int, *args) -> tuple:
        """A Python driver's tree step, ``kernel(*args, num_keys, node_player, *edge_arrays())`` (``tree.select_edge``,
        ``select_puct``, ``chance_edge``), run again after ``reserve(room)`` when it answers -1 first (no room)."""
        found = kernel(*args, self.num_keys, self.node_player, *self.edge_arrays())
        if found[0] < 0:
            self.reserve(room)
            found = kernel(*args, self.num_keys, self.node_player, *self.edge_arrays())
        return found

    def child(self, link: int, player: int) -> int:
        """The node below edge ``link`` where ``player`` moves, made when missing (``child_of``)."""
        self.reserve(0)
        return int(child_of(link, player, self.node_player, self.node_size, self.edge_child, self.counters))

    def edge(self, node: int, k: int) -> int:
        """The edge of key ``k`` at ``node``, or -1."""
        h = slot_of(self.hash_key, node * self.num_keys + k)
        return int(self.hash_edge[h]) if self.hash_key[h] != -1 else -1

    def edges_of(self, node: int) -> np.ndarray:
        """``node``'s edges, in the order they were made."""
        n = int(self.counters[N_EDGES])
        found = self._by_node
        if found is not None and found[0] == (n, int(self.counters[N_NODES])):
            return found[1][found[2][node]:found[2][node + 1]]
        return np.flatnonzero(self.edge_node[:n] == node)

    def group_edges(self) -> None:
        """Group the edges by node once, so that ``edges_of`` slices: for a reader walking many nodes."""
        size = (int(self.counters[N_EDGES]), int(self.counters[N_NODES]))
        if self._by_node is None or self._by_node[0] != size:
            owner = self.edge_node[:size[0]]
            order = np.argsort(owner, kind="stable")
            self._by_node = (size, order, np.searchsorted(owner[order], np.arange(size[1] + 1)))

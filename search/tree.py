"""The search tree: nodes with compiled edge statistics, and the table of soft keys they are indexed by.

Edges are identified by *key ids*, small ints. A game that declares
``GameInfo.num_action_keys`` already gives int soft keys in
``range(num_action_keys)``; they are the ids. Any other game's hashable keys
are interned per search in a ``KeyTable``. A node maps key id -> edge with a
dense ``slot`` array, so a tree step over ~40 legal actions is one compiled
call (``select_edge``) instead of 40 dict look-ups and a dozen numpy calls:
the tree step, not the game, bounded iterations per second before. Two steps share that layout:
``select_edge`` (UCB1, unvisited edges first) and ``select_puct`` (PUCT over the ``PRIOR`` row).
"""
from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from numba import njit

from ..envs.protocol import CHANCE, HOOKS, GameState
from .core import AVAIL, PRIOR, STAMP, TOTAL, UNIFORMS_BLOCK, VISITS, mark_available, pick_puct, pick_ucb1  # noqa: F401

LEGAL_ACTION_KEYS = HOOKS["legal_action_keys"].name  # the declared optional hook the tree step uses


class KeyTable:
    """Soft key <-> key id for one search: the identity for games with dense int keys, interning otherwise."""

    def __init__(self, num_keys: int | None):
        self.dense = num_keys is not None
        self.size = num_keys or 0
        self._ids: dict[Hashable, int] = {}
        self._keys: list[Hashable] = []

    def id(self, key: Hashable) -> int:
        if self.dense:
            return int(key)
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self._keys)
            self._keys.append(key)
            self.size = len(self._keys)
        return i

    def key(self, i: int) -> Hashable:
        return int(i) if self.dense else self._keys[i]

    def legal_ids(self, state: GameState, legal: np.ndarray, complete: bool) -> np.ndarray:
        """The key id of every action of ``legal``, in order: all legal actions of ``state`` (``complete``), or a
        pruned subset."""
        keys_of_legal = getattr(state, LEGAL_ACTION_KEYS, None) if self.dense else None  # every tree step: no hook()
        if keys_of_legal is not None and complete:
            return keys_of_legal()
        keys = [state.action_key(int(a)) for a in legal]
        return np.array(keys if self.dense else [self.id(k) for k in keys], dtype=np.int64)


def legal_keys(state: GameState) -> list[Hashable]:
    """``action_key`` of every legal action of ``state``, in order: one compiled call where the game offers the
    ``legal_action_keys`` hook."""
    keys_of_legal = getattr(state, LEGAL_ACTION_KEYS, None)
    if keys_of_legal is not None:
        return keys_of_legal().tolist()
    return [state.action_key(int(a)) for a in state.legal_actions()]


class Uniforms:
    """Uniform draws from ``rng`` fetched a block at a time: one numpy call per 256 tree steps, not one each."""

    def __init__(self, rng: np.random.Generator, block: int = UNIFORMS_BLOCK):
        self.rng = rng
        self.block = block
        self._left: list[float] = []

    def next(self) -> float:
        if not self._left:
            self._left = self.rng.random(self.block).tolist()
        return self._left.pop()


class Node:
    """A decision node (edge statistics of the ``player`` who chooses here) or a chance node (``player`` < 0).

    ``stat[:, e]`` of edge ``e``: visits, total reward of ``player``, availability (iterations in which
    it was legal), the last iteration that counted it available and its prior (PUCT, see ``expand``);
    ``edge_key[e]`` its key id; ``slot[key id]`` its edge + 1 (0: none yet, so a fresh node is one
    calloc). ``pruned`` is hard pruning's memory (``pruning``). ``child`` maps an edge (chance nodes: an outcome) to the node below, or ``(edge, player)`` to
    a node of another kind that the same edge leads to in another world; ``presampled`` holds a chance
    node's CNB successors.
    """

    __slots__ = ("player", "table", "slot", "edge_key", "stat", "size", "child", "presampled", "pruned")

    def __init__(self, player: int, table: KeyTable, capacity: int = 8):
        self.player = player
        self.table = table
        self.slot = np.zeros(table.size, dtype=np.int32)
        self.edge_key = np.empty(capacity, dtype=np.int64)
        self.stat = np.zeros((PRIOR + 1, capacity))
        self.size = np.zeros(1, dtype=np.int64)  # edges in use (an array: the compiled step updates it)
        self.child: dict[int | tuple[int, int], Node] = {}  # (edge, player): another kind of node, see mcts
        self.presampled: dict[Hashable, list[int]] | None = {} if player == CHANCE else None  # CNB: bucket -> successors
        self.pruned = None  # hard pruning's memory of the moves judged and kept here (``pruning.Judged``)

    def reserve(self, n_new: int) -> None:
        """Make room for ``n_new`` more edges and for every key id the table knows (see ``select_edge``)."""
        if len(self.slot) < self.table.size:
            self.slot = np.concatenate([self.slot, np.zeros(self.table.size - len(self.slot), np.int32)])
        need = int(self.size[0]) + n_new
        if need > self.edge_key.shape[0]:
            cap = max(need, 2 * self.edge_key.shape[0])
            self.edge_key = np.concatenate([self.edge_key, np.empty(cap - self.edge_key.shape[0], np.int64)])
            self.stat = np.concatenate([self.stat, np.zeros((PRIOR + 1, cap - self.stat.shape[1]))], axis=1)

    def expand(self, ids: np.ndarray, prior: np.ndarray) -> None:
        """Make an edge for every legal key id ``ids[i]`` and add ``prior[i]`` to its ``PRIOR`` (two legal actions
        with one key, two copies of a card, add up)."""
        self.reserve(len(ids))
        add_prior(self.slot, self.edge_key, self.stat, self.size, ids, prior)

    def child_for(self, edge: int, player: int, grow: bool = False) -> "Node | None":
        """The node below ``edge`` where ``player`` is to move (with ``grow``: made if missing, else None).

        One tree serves every world, and the same edge can lead to another kind of node in another world (a
        random event with one outcome here, several there; another player to move): one child per kind, the
        first under ``edge``, the others under ``(edge, player)``, so no statistics are mixed and no reward
        is credited to the wrong player."""
        node = self.child.get(edge)
        if node is not None and node.player == player:
            return node
        key = edge if node is None else (edge, player)
        found = self.child.get(key)
        if found is None and grow:
            found = self.child[key] = Node(player, self.table)
        return found

    def edge(self, key: Hashable) -> int:
        """The edge of a soft key, or -1 when the search never met it here."""
        i = self.table.id(key)
        return int(self.slot[i]) - 1 if i < len(self.slot) else -1

    def stats(self) -> dict[Hashable, tuple[int, float, int]]:
        """Soft key -> (visits, mean reward, availability) of every edge."""
        m = int(self.size[0])
        visits, total = self.stat[VISITS, :m], self.stat[TOTAL, :m]
        means = np.divide(total, visits, out=np.zeros(m), where=visits > 0).tolist()
        keys = self.edge_key[:m].tolist() if self.table.dense else [self.table.key(k) for k in self.edge_key[:m]]
        return dict(zip(keys, zip(visits.astype(np.int64).tolist(), means,
                                  self.stat[AVAIL, :m].astype(np.int64).tolist())))


@njit(cache=True, nogil=True, inline="always")
def count_available(slot, edge_key, stat, size, ids, stamp, new_prior, edges):
    """The selection kernels' first pass over the legal key ``ids``: ``edges[i]`` the edge of ``ids[i]`` (made when
    missing, with ``PRIOR`` ``new_prior`` when it is >= 0), each counted available once in iteration ``stamp``
    (``core.mark_available``). Returns the number of unvisited edges, or -1 when the node needs ``reserve`` first (a
    key id beyond ``slot``, or no room for a new edge); calling again after it counts nothing twice."""
    n_fresh = 0
    for i in range(len(ids)):
        k = ids[i]
        if k >= len(slot):
            return -1
        e = slot[k] - 1
        if e < 0:
            e = size[0]
            if e == len(edge_key):
                return -1
            size[0] = e + 1
            slot[k] = e + 1
            edge_key[e] = k
            if new_prior >= 0.0:
                stat[PRIOR, e] = new_prior
        edges[i] = e
        if mark_available(stat, e, stamp):
            n_fresh += 1
    return n_fresh


@njit(cache=True, nogil=True)
def select_edge(slot, edge_key, stat, size, ids, c, stamp, u):
    """One tree-policy step over the legal key ``ids``: count availability, then ``core.pick_ucb1``.

    Returns ``(i, edge, fresh)``: the legal index to play, its edge, and whether the edge was never visited (an
    expansion). A key offered by two legal ids (two copies of a card) counts as available once. ``(-1, -1,
    False)`` when the node needs ``reserve`` first; calling again after it counts nothing twice.
    """
    edges = np.empty(len(ids), dtype=np.int64)
    n_fresh = count_available(slot, edge_key, stat, size, ids, stamp, -1.0, edges)
    if n_fresh < 0:
        return -1, -1, False
    i = pick_ucb1(stat, edges, len(ids), n_fresh, c, u)
    return i, edges[i], stat[VISITS, edges[i]] == 0.0


@njit(cache=True, nogil=True)
def add_prior(slot, edge_key, stat, size, ids, prior):
    """``Node.expand``'s compiled loop: the edge of each key id (made when missing) gets ``prior[i]`` added."""
    for i in range(len(ids)):
        k = ids[i]
        e = slot[k] - 1
        if e < 0:
            e = size[0]
            size[0] = e + 1
            slot[k] = e + 1
            edge_key[e] = k
        stat[PRIOR, e] += prior[i]


@njit(cache=True, nogil=True)
def select_puct(slot, edge_key, stat, size, ids, c, stamp, u):
    """``select_edge`` with ``core.pick_puct`` (AlphaZero's step; see there). An edge first made here (a key the
    node's ``expand`` did not see: another world offers it) gets the uniform prior ``1 / len(ids)``. ``u`` is unused
    (same signature as ``select_edge``). ``(-1, -1, False)`` when the node needs ``reserve`` first.
    """
    edges = np.empty(len(ids), dtype=np.int64)
    if count_available(slot, edge_key, stat, size, ids, stamp, 1.0 / len(ids), edges) < 0:
        return -1, -1, False
    i = pick_puct(stat, edges, len(ids), c)
    return i, edges[i], stat[VISITS, edges[i]] == 0.0

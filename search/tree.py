"""The search tree as the Python driver steps it and as search results hand it out.

Every driver keeps its tree in one ``core.FlatTree`` (flat node and edge arrays). Edges are identified by *key
ids*, small ints: a game that declares ``GameInfo.num_action_keys`` already gives int soft keys in
``range(num_action_keys)``, they are the ids; any other game's hashable keys are interned per tree in a
``KeyTable`` (chance edges are keyed by the outcome). A tree step over ~40 legal actions is one compiled call
(``select_edge``: UCB1, unvisited edges first; ``select_puct``: PUCT over the ``PRIOR`` row), made of ``core``'s
operations, the ones the compiled loops run. ``Node`` is a node of a tree, read by its index: what
``SearchResult.root`` is, whichever driver searched.
"""
from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from numba import njit

from ..envs.errors import StaleTreeError
from ..envs.protocol import CHANCE, HOOKS, GameState
from .core import (AVAIL, NO_ROOT_PRIOR, PRIOR, PUCT_STEP, ROOTED_STEP, STAMP, TOTAL, UCB1_STEP,  # noqa: F401
                   UNIFORMS_BLOCK, VISITS, FlatTree, KeyTable, add_prior, child_of, edge_of, flat_edges, has_room,
                   new_prior, pick_and_visit)
from .pruning import Judged, memory_at

LEGAL_ACTION_KEYS = HOOKS["legal_action_keys"].name  # the declared optional hook the tree step uses


def legal_ids(table: KeyTable, state: GameState, legal: np.ndarray, complete: bool) -> np.ndarray:
    """The key id of every action of ``legal``, in order: all legal actions of ``state`` (``complete``), or a pruned
    subset."""
    keys_of_legal = getattr(state, LEGAL_ACTION_KEYS, None) if table.dense else None  # every tree step: no hook()
    if keys_of_legal is not None and complete:
        return keys_of_legal()
    keys = [state.action_key(int(a)) for a in legal]
    return np.array(keys if table.dense else [table.id(k) for k in keys], dtype=np.int64)


def moves(state: GameState, prune: bool) -> np.ndarray:
    """The actions a tree step searches at ``state``: its sensible ones (``prune``, the game's move filter) or all
    legal ones."""
    return np.asarray(state.sensible_actions() if prune else state.legal_actions())


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
    """Node ``index`` of a search tree (``core.FlatTree``): a decision node (the edges of the ``player`` who chooses
    here) or a chance node (``player`` < 0, edges keyed by the outcomes met).

    ``edges`` are the node's edge numbers in the tree, in the order they were made; ``stat`` is the tree's statistics
    array (rows ``VISITS, TOTAL, AVAIL, STAMP, PRIOR`` by edge: ``stat[VISITS, node.edges]``, ``stat[VISITS,
    node.edge(key)]``). A view: it reads the tree as it is now, and raises ``StaleTreeError`` once its engine has
    emptied the tree for a later search (a compiled engine keeps one tree from search to search)."""

    __slots__ = ("tree", "index", "generation")

    def __init__(self, tree: FlatTree, index: int = 0):
        self.tree, self.index, self.generation = tree, int(index), tree.generation

    def _live(self) -> FlatTree:
        if self.tree.generation != self.generation:
            raise StaleTreeError(f"node {self.index} belongs to a search tree its engine has since emptied for a "
                                 "later search: read a result's tree before the engine searches again")
        return self.tree

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.tree is self.tree and other.index == self.index \
            and other.generation == self.generation

    def __hash__(self) -> int:
        return hash((id(self.tree), self.index, self.generation))

    def __repr__(self) -> str:
        return f"Node({self.index}, player={self.player}, edges={len(self.edges)})"

    @property
    def player(self) -> int:
        return int(self._live().node_player[self.index])

    @property
    def table(self) -> KeyTable:
        return self._live().table

    @property
    def edges(self) -> np.ndarray:
        return self._live().edges_of(self.index)

    @property
    def stat(self) -> np.ndarray:
        return self._live().stat

    def key(self, edge: int) -> Hashable:
        """The soft key of ``edge`` (a chance node's: the outcome)."""
        k = int(self._live().edge_key[edge])
        return k if self.player == CHANCE else self.tree.table.key(k)

    def edge(self, key: Hashable) -> int:
        """The edge of a soft key (a chance node's: an outcome), or -1 when the search never met it here."""
        tree = self._live()
        k = int(key) if self.player == CHANCE else tree.table.find(key)
        return tree.edge(self.index, k) if k >= 0 else -1

    def child_for(self, edge: int, player: int) -> Node | None:
        """The node below ``edge`` where ``player`` moves (``CHANCE``: the chance node below it), or None.

        One tree serves every world, and the same edge can lead to another kind of node in another world (a random
        event with one outcome here, several there; another player to move): one child per kind, so no statistics
        are mixed and no reward is credited to the wrong player."""
        tree = self._live()
        if player >= tree.edge_child.shape[1] - tree.chance or (player == CHANCE and not tree.chance):
            return None
        child = int(tree.edge_child[edge, player])
        return Node(tree, child) if child >= 0 else None

    def children(self) -> list[Node]:
        """Every node directly below, edge by edge, each edge's kinds in column order (``CHANCE``'s last)."""
        tree = self._live()
        tree.group_edges()
        below = tree.edge_child[self.edges]
        return [Node(tree, c) for c in below[below >= 0].tolist()]

    def stats(self) -> dict[Hashable, tuple[int, float, int]]:
        """Soft key -> (visits, mean reward, availability) of every edge."""
        edges = self.edges
        stat = self.tree.stat
        visits, total = stat[VISITS, edges], stat[TOTAL, edges]
        means = np.divide(total, visits, out=np.zeros(len(edges)), where=visits > 0).tolist()
        keys = self.tree.edge_key[edges].tolist()
        if self.player != CHANCE and not self.tree.table.dense:
            keys = [self.tree.table.key(k) for k in keys]
        avail = stat[AVAIL, edges].astype(np.int64).tolist()
        return dict(zip(keys, zip(visits.astype(np.int64).tolist(), means, avail)))

    @property
    def presampled(self) -> dict[Hashable, list[int]] | None:
        """A chance node's pre-sampled successors by bucket (chance-node bucketing), None at a decision node."""
        return self._live().presampled.setdefault(self.index, {}) if self.player == CHANCE else None

    @property
    def pruned(self) -> Judged | None:
        """Hard pruning's memory here: the key ids judged and kept (None when no judgement was made)."""
        return memory_at(self._live(), self.index)


def new_root(state: GameState, target: int | None = None) -> Node:
    """The root of a new tree for the Python driver, where ``state``'s player moves (``target``: the iterations it
    is sized for)."""
    info = state.info
    return Node(FlatTree(state.current_player, info.num_players + 1, info.num_actions, target, False,  # + CHANCE
                         table=KeyTable(info.num_action_keys)))


def expand(tree: FlatTree, node: int, ids: np.ndarray, prior: np.ndarray) -> None:
    """PUCT's expansion of ``node``: an edge for every legal key id ``ids[i]`` with ``prior[i]`` added to its
    ``PRIOR`` (``core.add_prior``)."""
    tree.reserve(len(ids))
    add_prior(node, ids, np.asarray(prior, dtype=np.float64), tree.num_keys, *tree.edge_arrays())


@njit(cache=True, nogil=True)
def chance_edge(node, link, outcome, num_keys, node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key,
                hash_edge, counters):
    """The tree's chance step: the chance node below edge ``link`` (made when missing; ``link`` < 0: ``node``) and
    the edge of ``outcome`` there (made when missing), as ``(node, edge)``; ``(-1, -1)``, and nothing changed, when the
    tree needs room first (``FlatTree.reserve(1)``)."""
    if not has_room(1, node_player, edge_key, hash_key, counters):
        return -1, -1
    if link >= 0:
        node = child_of(link, CHANCE, node_player, node_size, edge_child, counters)
    return node, edge_of(node, outcome, num_keys, node_size, edge_node, edge_key, stat, edge_child, hash_key,
                         hash_edge, counters)


@njit(cache=True, nogil=True)
def step_at(how, node, link, player, ids, c, stamp, u, visits, root_prior, raw_value, c_scale, num_keys, node_player,
            node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters):
    """A Python driver's tree step: room checked (``core.has_room``), the node below edge ``link`` where ``player``
    moves (made when missing, ``core.child_of``; ``link`` < 0: ``node``), then the edges (``core.flat_edges``) and
    ``core.pick_and_visit`` picking ``how``. Returns ``(node, i, edge, fresh)``; node -1, and nothing changed, when the tree needs room first."""
    if not has_room(len(ids), node_player, edge_key, hash_key, counters):
        return -1, -1, -1, False
    if link >= 0:
        node = child_of(link, player, node_player, node_size, edge_child, counters)
    n = len(ids)
    edges = np.empty(n, dtype=np.int64)
    n_fresh = flat_edges(node, ids, n, num_keys, stamp, new_prior(how, n), edges, node_size, edge_node, edge_key,
                         stat, edge_child, hash_key, hash_edge, counters)
    i, e, fresh = pick_and_visit(stat, ids, edges, n, n_fresh, how, c, u, visits, root_prior, raw_value, c_scale)
    return node, i, e, fresh


@njit(cache=True, nogil=True)
def select_edge(node, link, player, ids, c, stamp, u, visits, num_keys, node_player, node_size, edge_node, edge_key,
                stat, edge_child, hash_key, hash_edge, counters):
    """One tree-policy step over the legal key ``ids`` at the node below edge ``link`` where ``player`` moves (made
    when missing, ``core.child_of``; ``link`` < 0: at ``node``): each edge made when missing and counted available
    (``core.flat_edges``), then ``core.pick_ucb1``; the edge taken counts ``visits`` visits now (virtual loss).

    Returns ``(node, i, edge, fresh)``: the node stepped, the legal index to play, its edge, and whether the edge was
    never visited (an expansion). A key offered by two legal ids (two copies of a card) counts as available once.
    ``node`` is -1, and nothing changed, when the tree needs room first (``FlatTree.reserve(len(ids))``)."""
    return step_at(UCB1_STEP, node, link, player, ids, c, stamp, u, visits, NO_ROOT_PRIOR, 0.0, 0.0, num_keys,
                   node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)


@njit(cache=True, nogil=True)
def select_puct(node, link, player, ids, c, stamp, u, visits, num_keys, node_player, node_size, edge_node, edge_key,
                stat, edge_child, hash_key, hash_edge, counters):
    """``select_edge`` with ``core.pick_puct`` (AlphaZero's step; see there). An edge first made here (a key the
    node's expansion did not see: another world offers it) gets the uniform prior ``1 / len(ids)``. ``u`` is unused
    (same signature as ``select_edge``)."""
    return step_at(PUCT_STEP, node, link, player, ids, c, stamp, u, visits, NO_ROOT_PRIOR, 0.0, 0.0, num_keys,
                   node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)


@njit(cache=True, nogil=True)
def select_rooted(node, link, player, ids, c, stamp, u, visits, root_prior, num_keys, node_player, node_size, edge_node,
                  edge_key, stat, edge_child, hash_key, hash_edge, counters):
    """The root's step under a root prior (``SearchConfig.root_prior``): edges made as ``select_edge`` makes them
    (their expansion, and the rollout below, are UCB1's), their ``PRIOR`` from ``root_prior``
    (``core.set_root_prior``), then ``core.pick_puct`` with ``c``. ``u`` is unused."""
    return step_at(ROOTED_STEP, node, link, player, ids, c, stamp, u, visits, root_prior, 0.0, 0.0, num_keys,
                   node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)

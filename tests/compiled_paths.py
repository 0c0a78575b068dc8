"""What the differential tests of the compiled search drivers share (tests/test_compiled_*.py; their fixture
``compiled_runs`` is in conftest.py): a search's summary (action, visits, the whole tree, the generator's state
afterwards), the comparison of the compiled and the Python path, and a flat tree that starts too small for one
iteration."""
import numpy as np

from cardboard.envs.protocol import CHANCE
from cardboard.search.core import N_EDGES, N_NODES, FlatTree
from cardboard.search.compiled import call_refusal
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.tree import STAMP, Node


def runs_compiled(engine, state, rng):
    """Whether ``engine`` searches ``state`` with ``rng`` in the compiled loop (its plan, and this search)."""
    return engine.plan(state).why is None and call_refusal(rng, None) is None


def as_lists(value):
    """A bit generator's state with its arrays (Philox, SFC64) as lists, so that == compares it."""
    if isinstance(value, dict):
        return {k: as_lists(v) for k, v in value.items()}
    return value.tolist() if isinstance(value, np.ndarray) else value


def summary(state, worlds, iterations, seed, use_compiled, bit_generator=np.random.PCG64, num_worlds=1,
            rows=STAMP + 1, **config):
    """One search's result and what it leaves: action, visits, iterations, the tree (``tree_summary``, the first
    ``rows`` statistics rows), every node's pruning memory, the generator's state."""
    rng = np.random.Generator(bit_generator(seed))
    engine = TreeSearch(SearchConfig(iterations=iterations, compiled=use_compiled, **config), worlds, num_worlds)
    result = engine.search(state, rng)
    tree = result.root.tree
    memories = [Node(tree, i).pruned for i in range(int(tree.counters[N_NODES]))]
    pruned = {i: (np.flatnonzero(m.judged).tolist(), np.flatnonzero(m.kept).tolist())
              for i, m in enumerate(memories) if m is not None}
    return {"action": result.action, "visits": list(result.visits.items()), "iterations": result.iterations,
            "tree": tree_summary(tree, rows), "pruned": pruned, "rng": as_lists(rng.bit_generator.state)}


def tree_summary(tree, rows):
    """The whole tree as made: each node's player, each edge's node, key and first ``rows`` statistics rows, and
    the node below each edge for each player (and ``CHANCE``), whichever driver made it."""
    nodes, edges = int(tree.counters[N_NODES]), int(tree.counters[N_EDGES])
    columns = tree.edge_child.shape[1]
    players = [CHANCE if tree.chance and col == columns - 1 else col for col in range(columns)]
    below = {(e, players[col]): int(tree.edge_child[e, col]) for e in range(edges) for col in range(columns)
             if tree.edge_child[e, col] >= 0}
    return {"players": tree.node_player[:nodes].tolist(), "edge nodes": tree.edge_node[:edges].tolist(),
            "keys": tree.edge_key[:edges].tolist(), "stat": tree.stat[:rows, :edges].tolist(), "below": below}


def assert_same(state, worlds, iterations, seed, runs, **config):
    """The compiled search (which must run: ``runs`` grows) and the Python path's give the same ``summary``."""
    before = len(runs)
    fast = summary(state, worlds, iterations, seed, True, **config)
    assert len(runs) > before, "the compiled loop did not run"
    assert fast == summary(state, worlds, iterations, seed, False, **config)
    return fast


def start_tiny(monkeypatch, pruning_memory: bool = True):
    """Make every new ``FlatTree`` too small for one iteration (one node, one edge, a two-slot hash table), so
    that every kind of room is made between kernel calls."""
    made = FlatTree.__init__

    def tiny(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.node_player, self.node_size = self.node_player[:2], self.node_size[:2]
        self.edge_node, self.edge_key = self.edge_node[:1], self.edge_key[:1]
        self.stat, self.edge_child = self.stat[:, :1], self.edge_child[:1]
        self.hash_key, self.hash_edge = self.hash_key[:2], self.hash_edge[:2]
        if pruning_memory:
            self.judge_key, self.judge_kept = self.judge_key[:1], self.judge_kept[:1]

    monkeypatch.setattr(FlatTree, "__init__", tiny)

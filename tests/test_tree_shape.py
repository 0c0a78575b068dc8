"""The tree-shape measurement (``evaluation.tree_shape``) behind paper 001's CNB reading (its RESULTS.md)."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import CHANCE
from cardboard.evaluation.tree_shape import chance_nodes, chance_profile, positions_in_play, visits
from cardboard.search.core import FlatTree, KeyTable, child_of, edge_of
from cardboard.search.tree import VISITS, Node


def test_chance_node_visits_are_those_of_the_nodes_below():
    """Root -(key 2)-> a draw (outcomes 11 and 12) -> player 1's nodes with 3 and 4 visits: the draw has 7."""
    tree = FlatTree(0, 3, 4, None, False, table=KeyTable(4))
    arrays = tree.node_player, tree.node_size, tree.edge_child, tree.counters

    def edge(node, key, n):
        e = edge_of(node, key, tree.num_keys, *tree.edge_arrays())
        tree.stat[VISITS, e] = n
        return e

    draw = child_of(edge(0, 2, 9), CHANCE, *arrays)
    for outcome, n in ((11, 3), (12, 4)):
        edge(child_of(edge(draw, outcome, 0), 1, *arrays), 0, n)
    root = Node(tree)
    assert visits(Node(tree, draw)) == 7 and visits(root) == 9
    assert chance_nodes(root) == [(7, 2, 1)]


def test_profile_of_a_hearth_search_counts_its_draws():
    game = cardboard.make_game("hearth", decks="face_hunter")
    positions = positions_in_play(game, "random", 3, np.random.default_rng(0), every=3, min_turn=4)
    assert len(positions) == 3 and all(p.current_player >= 0 for p in positions)
    profile = chance_profile(game, "duct:iterations=200,depth=2,worlds=2", positions, seed=0)
    assert profile["chance nodes a search"] >= 1 and profile["successors a chance node"] >= 1
    assert 0 < profile["tree chance steps an iteration"] <= 10


def test_an_agent_without_a_tree_is_refused_by_name():
    game = cardboard.make_game("hearth", decks="face_hunter")
    with pytest.raises(InvalidParameterError, match="greedy_h"):
        chance_profile(game, "greedy_h", [], seed=0)

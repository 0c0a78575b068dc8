"""The tree-shape measurement behind RESULTS.md's CNB reading (``evaluation.tree_shape``)."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import CHANCE
from cardboard.evaluation.tree_shape import chance_nodes, chance_profile, positions_in_play, visits
from cardboard.search.tree import VISITS, KeyTable, Node


def test_chance_node_visits_are_those_of_the_nodes_below():
    table = KeyTable(4)
    root, draw, low, high = Node(0, table), Node(CHANCE, table), Node(1, table), Node(1, table)
    root.child[2] = draw
    draw.child[11], draw.child[12] = low, high
    for node, n in ((low, 3), (high, 4), (root, 9)):
        node.stat[VISITS, 0], node.size[0] = n, 1
    assert visits(draw) == 7 and visits(root) == 9
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

"""Golden trees: exact searches at fixed seeds on the small games, stored literally (as mctx pins its trees).

Any change to what a search does (tree policy, expansion, rollouts, chance sampling, worlds, backpropagation,
final choice, random-number use) shows up here as a diff. A deliberate change regenerates the literals with
``.venv/bin/python -m tests.test_search_golden`` and the diff is read for plausibility before it is committed.

Each tree search is summed up by its chosen action's key, its root edges as ``key: (visits, total reward,
availability)``, and per depth below the root (decision and chance nodes alike) ``(nodes, visited edges,
visits)``; PIMC by its action, votes and iterations. Rewards here are multiples of 1/16, so totals are exact.
"""
import numpy as np
import pytest

from cardboard.search.chance import ChanceBucketing
from cardboard.search.mcts import PIMC, SearchConfig, TreeSearch
from cardboard.search.tree import AVAIL, TOTAL, VISITS

from .games import dice_race, hidden_cards, loaded_die, nim, tictactoe


def top_or_other(state, outcome):
    return "top" if outcome == loaded_die.FACE_BASE + state.game.faces - 1 else "other"


def levels(root):
    """(nodes, visited edges, visits) at each depth below the root, the root first."""
    out, layer = [], [root]
    while layer:
        visits = [node.stat[VISITS, node.edges] for node in layer]
        out.append((len(layer), sum(int(np.count_nonzero(v)) for v in visits), sum(int(v.sum()) for v in visits)))
        layer = [child for node in layer for child in node.children()]
    return out


def tree_search(state, worlds, seed, num_worlds=1, **config):
    result = TreeSearch(SearchConfig(**config), worlds, num_worlds).search(state, np.random.default_rng(seed))
    root = result.root
    edges = {root.key(e): (int(root.stat[VISITS, e]), float(root.stat[TOTAL, e]), int(root.stat[AVAIL, e]))
             for e in root.edges.tolist()}
    return {"action": state.action_key(result.action), "root": dict(sorted(edges.items())), "levels": levels(root)}


def pimc(state, seed, num_worlds, iterations):
    result = PIMC(SearchConfig(iterations=iterations), num_worlds).search(state, np.random.default_rng(seed))
    return {"action": state.action_key(result.action), "votes": dict(sorted(result.visits.items())),
            "iterations": result.iterations}


CASES = {
    "uct_tictactoe": lambda: tree_search(tictactoe.TicTacToeGame().new_state(), "uct", 0, iterations=400),
    "uct_nim_c1": lambda: tree_search(nim.NimGame((1, 3, 5)).new_state(), "uct", 1, iterations=500, c=1.0),
    "uct_tictactoe_depth1": lambda: tree_search(tictactoe.TicTacToeGame().new_state(), "uct", 2, iterations=300,
                                                depth=1),
    "ismcts_hidden_cards": lambda: tree_search(hidden_cards.HiddenCardsGame(5).state_with(3, 5), "ismcts", 3,
                                               iterations=400),
    "duct_hidden_cards": lambda: tree_search(hidden_cards.HiddenCardsGame(5).state_with(3, 5), "duct", 6,
                                             num_worlds=4, iterations=400),
    "duct_dice_race": lambda: tree_search(dice_race.DiceRaceGame(10, 3).state_with((4, 0), 0), "duct", 5,
                                          num_worlds=2, iterations=300),
    "uct_loaded_die": lambda: tree_search(loaded_die.LoadedDieGame().new_state(), "uct", 6, iterations=300),
    "uct_loaded_die_cnb": lambda: tree_search(loaded_die.LoadedDieGame().new_state(), "uct", 7, iterations=300,
                                              bucketing=ChanceBucketing(top_or_other, samples=2)),
    "pimc_hidden_cards": lambda: pimc(hidden_cards.HiddenCardsGame(5).state_with(4, 2), 8, 5, 200),
    "pimc_dice_race": lambda: pimc(dice_race.DiceRaceGame(10, 3).state_with((6, 8), 1), 9, 3, 150),
}

GOLDEN = {
    'duct_dice_race': {'action': ('roll',),
                       'root': {('roll',): (283, 248.0, 300), ('stop',): (17, 9.0, 300)},
                       'levels': [(1, 2, 300),
                                  (2, 2, 16),
                                  (4, 6, 282),
                                  (9, 12, 132),
                                  (15, 18, 157),
                                  (28, 43, 203),
                                  (26, 14, 17),
                                  (44, 73, 102),
                                  (17, 0, 0),
                                  (21, 22, 22)]},
    'duct_hidden_cards': {'action': ('bet',),
                          'root': {('bet',): (375, 190.0, 400), ('fold',): (25, 6.25, 400)},
                          'levels': [(1, 2, 400), (1, 2, 374)]},
    'ismcts_hidden_cards': {'action': ('bet',),
                            'root': {('bet',): (381, 214.25, 400), ('fold',): (19, 4.75, 400)},
                            'levels': [(1, 2, 400), (1, 2, 380)]},
    'pimc_dice_race': {'action': ('stop',), 'votes': {('roll',): 17, ('stop',): 133}, 'iterations': 150},
    'pimc_hidden_cards': {'action': ('bet',), 'votes': {('bet',): 158, ('fold',): 42}, 'iterations': 200},
    'uct_loaded_die': {'action': ('bet',),
                       'root': {('bet',): (260, 172.0, 300), ('pass',): (40, 20.0, 300)},
                       'levels': [(1, 2, 300), (1, 0, 0), (6, 12, 259)]},
    'uct_loaded_die_cnb': {'action': ('bet',),
                           'root': {('bet',): (251, 159.25, 300), ('pass',): (49, 24.5, 300)},
                           'levels': [(1, 2, 300), (1, 0, 0), (3, 6, 250)]},
    'uct_nim_c1': {'action': ('take', 2, 3),
                   'root': {('take', 0, 1): (72, 38.0, 500),
                            ('take', 1, 1): (46, 21.0, 500),
                            ('take', 1, 2): (33, 13.0, 500),
                            ('take', 1, 3): (29, 10.0, 500),
                            ('take', 2, 1): (70, 37.0, 500),
                            ('take', 2, 2): (96, 55.0, 500),
                            ('take', 2, 3): (106, 62.0, 500),
                            ('take', 2, 4): (25, 8.0, 500),
                            ('take', 2, 5): (23, 7.0, 500)},
                   'levels': [(1, 9, 500), (9, 59, 491), (59, 220, 432), (81, 140, 212), (22, 28, 37), (1, 1, 1)]},
    'uct_tictactoe': {'action': ('mark', 4),
                      'root': {('mark', 0): (35, 21.5, 400),
                               ('mark', 1): (39, 24.5, 400),
                               ('mark', 2): (18, 9.0, 400),
                               ('mark', 3): (37, 23.0, 400),
                               ('mark', 4): (87, 64.5, 400),
                               ('mark', 5): (30, 17.5, 400),
                               ('mark', 6): (60, 41.5, 400),
                               ('mark', 7): (46, 30.5, 400),
                               ('mark', 8): (48, 31.5, 400)},
                      'levels': [(1, 9, 400), (9, 72, 391), (67, 281, 319), (23, 38, 38)]},
    'uct_tictactoe_depth1': {'action': ('mark', 4),
                             'root': {('mark', 0): (35, 19.0, 300),
                                      ('mark', 1): (29, 14.8125, 300),
                                      ('mark', 2): (37, 20.1875, 300),
                                      ('mark', 3): (26, 12.8125, 300),
                                      ('mark', 4): (48, 28.0, 300),
                                      ('mark', 5): (26, 12.9375, 300),
                                      ('mark', 6): (35, 18.875, 300),
                                      ('mark', 7): (29, 14.8125, 300),
                                      ('mark', 8): (35, 18.875, 300)},
                             'levels': [(1, 9, 300), (9, 72, 291), (72, 219, 219)]},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_search_matches_its_golden_tree(name):
    assert CASES[name]() == GOLDEN[name]


if __name__ == "__main__":  # regenerate: the output replaces GOLDEN
    import pprint

    pprint.pprint({name: CASES[name]() for name in sorted(CASES)}, width=112, sort_dicts=False)

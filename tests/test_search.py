"""Search on small games whose right moves are known (tests/games), plus engine mechanics."""
import time

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError, UnknownNameError
from cardboard.envs.protocol import CHANCE, GameInfo
from cardboard.search.mcts import PIMC, FlatMonteCarlo, SearchConfig, TreeSearch

from .games import dice_race, hidden_cards, nim, tictactoe
from .trees import visits_below


def search(kind: str, state, iterations: int, seed: int = 0, **kw):
    config = SearchConfig(iterations=iterations, c=kw.pop("c", 0.7))
    engine = PIMC(config, **kw) if kind == "pimc" else TreeSearch(config, kind, **kw)
    return engine.search(state, np.random.default_rng(seed))


@pytest.mark.parametrize("heaps", [(1, 3, 5), (2, 3), (1, 2, 4)])
@pytest.mark.parametrize("kind", ["uct", "ismcts", "pimc"])
def test_search_finds_the_winning_nim_move(kind, heaps):
    """Nim: the player to move wins iff the XOR of the heaps is nonzero; only XOR-zeroing moves keep the win."""
    game = nim.NimGame(heaps)
    state = game.new_state()
    winning = nim.winning_moves(state)
    assert winning  # these positions are wins for the mover
    extra = {"num_worlds": 2} if kind == "pimc" else {}  # perfect information: every world is the same
    assert search(kind, state, 4000, **extra).action in winning


def test_uct_takes_the_win_and_blocks_in_tictactoe():
    game = tictactoe.TicTacToeGame()
    state = game.new_state()
    for a in (0, 3, 1):  # X: 0, 1 (threatens 2); O: 3
        state.apply(a)
    assert search("uct", state, 2000).action == 2  # O must block at 2
    state.apply(4)  # O plays elsewhere; X to move wins at 2
    assert search("uct", state, 2000).action == 2


@pytest.mark.parametrize("kind", ["ismcts", "duct"])
@pytest.mark.parametrize("deal", [(3, 5), (3, 4), (5, 1), (4, 2)])
def test_determinizing_search_bets_where_a_careful_reading_says_so(kind, deal):
    """Hidden cards: player 0 with a card c, 3c > N + 2, must bet whatever player 1 holds.

    (PIMC is left out on purpose: it adds up each world's votes, so with a 3 it folds whenever
    the sampled worlds give player 1 more high cards than low ones: strategy fusion at work.)
    """
    state = hidden_cards.HiddenCardsGame(5).state_with(*deal)
    extra = {"num_worlds": 32} if kind == "duct" else {}  # enough fixed worlds to represent the deal
    assert search(kind, state, 3000, **extra).action == hidden_cards.right_move(state) == hidden_cards.BET


@pytest.mark.parametrize("kind", ["ismcts", "duct"])
@pytest.mark.parametrize("card", [1, 5])
def test_player1_folds_the_lowest_card_and_calls_with_the_highest(kind, card):
    state = hidden_cards.HiddenCardsGame(5).state_with(3, card)
    state.apply(hidden_cards.BET)
    extra = {"num_worlds": 8} if kind == "duct" else {}
    assert search(kind, state, 2000, **extra).action == hidden_cards.right_move(state)


def test_cheating_uct_folds_where_the_honest_searches_bet():
    """UCT on the true state sees player 1's 5 and folds the 3: why hidden games need determinization."""
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    assert search("uct", state, 3000).action == hidden_cards.FOLD


@pytest.mark.parametrize("totals,player", [((8, 6), 1), ((6, 8), 1), ((4, 0), 0), ((10, 0), 0)])
@pytest.mark.parametrize("kind", ["uct", "duct"])
def test_search_through_explicit_chance_nodes(kind, totals, player):
    game = dice_race.DiceRaceGame(target=10, faces=3)
    state = game.state_with(totals, player)
    right = dice_race.right_move(state)
    assert right is not None
    extra = {"num_worlds": 4} if kind == "duct" else {}
    assert search(kind, state, 3000, **extra).action == right


def test_chance_nodes_use_the_pluggable_sampler():
    """A custom successor sampler (the hook chance-node bucketing plugs into) decides every chance outcome."""
    game = dice_race.DiceRaceGame(target=10, faces=3)
    state = game.state_with((4, 0), 0)
    calls = []

    def always_three(s, rng):
        calls.append(1)
        return dice_race.ROLL_OUTCOME_BASE + 2

    result = TreeSearch(SearchConfig(iterations=200, chance_sampler=always_three), "uct").search(
        state, np.random.default_rng(0))
    assert calls
    root = result.root
    roll = root.child_for(root.edge(state.action_key(dice_race.ROLL)), CHANCE)
    assert roll.player < 0 and list(roll.stats()) == [dice_race.ROLL_OUTCOME_BASE + 2]


class _Split:
    """A stub whose determinizations offer action 1 or action 2 (plus 0) at the root, to count availability."""

    info = GameInfo("split", 2, 3, (1,), "none", "imperfect", "zero_sum", -1.0, 1.0, 2)
    num_players, num_actions = 2, 3

    def __init__(self, world=None, done=False):
        self.world, self.done, self.turn = world, done, 0
        self.current_player = -2 if done else 0

    def determinize(self, player, rng):
        return _Split(int(rng.integers(2)))

    def clone(self):
        return _Split(self.world, self.done)

    def legal_actions(self):
        return np.array([], dtype=int) if self.done else np.array([0, 1 if self.world == 0 else 2])

    def action_key(self, a):
        return int(a)

    def apply(self, a):
        self.done, self.current_player = True, -2

    def is_terminal(self):
        return self.done

    def returns(self):
        return np.array([1.0, -1.0])

    def heuristic(self, p):
        return 0.0


def test_availability_counts_how_often_a_child_was_legal():
    """SO-ISMCTS availability: a child's avail = the iterations whose determinization offered it."""
    worlds = []
    stub = _Split(0)
    original = stub.determinize

    def recording(player, rng):
        det = original(player, rng)
        worlds.append(det.world)
        return det

    stub.determinize = recording
    root = TreeSearch(SearchConfig(iterations=500), "ismcts").search(stub, np.random.default_rng(3)).root
    offered_1 = worlds.count(0)
    stats = root.stats()  # key -> (visits, mean, avail)
    assert stats[0][2] == 500
    assert stats[1][2] == offered_1 and stats[2][2] == 500 - offered_1
    assert sum(s[0] for s in stats.values()) == 500
    assert 0 < offered_1 < 500


def test_search_is_deterministic_given_the_seed():
    state = cardboard.new_state("lords_of_war", seed=2)
    a = search("ismcts", state, 200, seed=5)
    b = search("ismcts", state, 200, seed=5)
    assert a.action == b.action and a.visits == b.visits


def test_time_budget_is_respected():
    state = cardboard.new_state("lords_of_war", seed=2)
    engine = TreeSearch(SearchConfig(iterations=None, seconds=0.05), "ismcts")
    start = time.perf_counter()
    result = engine.search(state, np.random.default_rng(0))
    assert time.perf_counter() - start < 0.5 and result.iterations > 0


def test_flat_monte_carlo_prefers_the_certain_call():
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    state.apply(hidden_cards.BET)
    result = FlatMonteCarlo(SearchConfig(iterations=200)).search(state, np.random.default_rng(0))
    assert result.action == hidden_cards.CALL


@pytest.mark.parametrize("spec", ["mc:iterations=30", "uct:iterations=30", "ismcts:iterations=30",
                                  "duct:worlds=3,iterations=30,depth=2", "pimc:worlds=3,iterations=30"])
def test_search_agents_play_lords_of_war_to_the_end(spec):
    game = cardboard.make_game("lords_of_war")
    agent, rng = cardboard.make_agent(spec, game), np.random.default_rng(0)
    state = game.new_state(1)
    while not state.is_terminal():
        state.apply(agent.act(state, rng) if state.current_player == 0 else int(state.legal_actions()[0]))
    assert state.is_terminal()


@pytest.mark.parametrize("spec,error", [
    ("ismcts:iterations=0", InvalidParameterError),  # no budget at all
    ("ismcts:iterations=-5", InvalidParameterError),
    ("uct:c=-1", InvalidParameterError),
    ("duct:worlds=0", InvalidParameterError),
    ("ismcts:depth=-2", InvalidParameterError),
    ("ismcts:iterations=many", InvalidParameterError),
    ("ismcts:budget=3", UnknownNameError),
    ("alphazero", UnknownNameError),
])
def test_bad_search_specs_are_typed_errors(spec, error):
    with pytest.raises(error):
        cardboard.make_agent(spec)


def test_final_selection_policies():
    """RobustChild takes the most visited edge (ties: higher mean); MaxChild the highest mean."""
    from cardboard.search.mcts import max_child, robust_child

    edges = {"a": (10, 0.2, 12), "b": (10, 0.6, 12), "c": (3, 0.9, 12)}  # key -> (visits, mean, avail)
    rng = np.random.default_rng(0)
    assert robust_child(edges, rng) == "b"
    assert max_child(edges, rng) == "c"
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    state.apply(hidden_cards.BET)
    engine = TreeSearch(SearchConfig(iterations=500, final=max_child), "ismcts")
    assert engine.search(state, rng).action == hidden_cards.CALL


def _node(num_keys=None):
    from cardboard.search.core import FlatTree, KeyTable
    from cardboard.search.tree import Node

    return Node(FlatTree(0, 3, 1, None, False, table=KeyTable(num_keys)))  # one edge's room: it must grow


def _step(node, ids, stamp, u=0.0, c=0.7):
    from .trees import step

    return step(node.tree, ids, c, u, stamp)


def test_tree_step_counts_a_key_offered_twice_as_available_once():
    """Two copies of a card (two legal ids, one soft key) make one edge, available once per iteration."""
    from cardboard.search.tree import AVAIL

    node = _node(num_keys=10)
    i, edge, fresh = _step(node, [4, 4, 7], stamp=1)
    assert fresh and len(node.edges) == 2
    assert node.stat[AVAIL, node.edge(4)] == 1 and node.stat[AVAIL, node.edge(7)] == 1


def test_tree_step_tries_unvisited_edges_first_then_ucb():
    from cardboard.search.tree import TOTAL, VISITS

    node = _node(num_keys=10)
    seen = set()
    for stamp in (1, 2, 3):
        i, edge, fresh = _step(node, [1, 2, 3], stamp, u=0.99)
        assert fresh and edge not in seen  # every edge once, before any is tried twice
        seen.add(edge)
        node.stat[VISITS, edge] += 1
        node.stat[TOTAL, edge] += 1.0 if node.key(edge) == 2 else 0.0
    i, edge, fresh = _step(node, [1, 2, 3], 4)
    assert not fresh and i == 1 and node.key(edge) == 2  # the only winner has the best UCB


def test_tree_step_grows_a_full_tree_with_interned_keys():
    """A tree out of room grows before the step (``FlatTree.reserve``); hashable keys are interned to ids."""
    from cardboard.search.tree import AVAIL

    node = _node(num_keys=None)
    ids = [node.table.id(("play", k)) for k in "abcde"]  # hashable keys interned to 0..4
    i, edge, fresh = _step(node, ids, stamp=1)
    assert len(node.edges) == 5 and fresh
    assert [node.stat[AVAIL, node.edge(("play", k))] for k in "abcde"] == [1] * 5
    assert node.edge(("play", "z")) == -1 and node.table.size == 5  # looking a key up interns nothing


def test_search_agents_play_a_forced_move_without_searching():
    state = nim.NimGame((1,)).new_state(0)  # one heap of one stone: taking it is the only move
    assert len(state.legal_actions()) == 1
    agent = cardboard.make_agent("ismcts:iterations=50")
    assert agent.act(state, np.random.default_rng(0)) == int(state.legal_actions()[0]) and agent.last is None
    state = nim.NimGame((1, 2)).new_state(0)
    agent.act(state, np.random.default_rng(0))
    assert agent.last is not None and agent.last.iterations == 50


def _next_decision_in_the_same_turn(engine, seed=3):
    """Play Lords of War with ``engine`` until one of its decisions is followed by another of the same turn;
    return that search's result, the chosen action's soft key, the state after it and the rng."""
    state, rng = cardboard.new_state("lords_of_war", seed=seed), np.random.default_rng(seed)
    while True:
        if len(state.legal_actions()) == 1:
            state.apply(int(state.legal_actions()[0]))
            continue
        player, turn = state.current_player, state.turn
        result = engine.search(state, rng)
        key = state.action_key(result.action)
        state.apply(result.action)
        if state.current_player == player and state.turn == turn and len(state.legal_actions()) > 1:
            return result, key, state, rng


def test_reuse_continues_from_the_subtree_of_the_chosen_action():
    engine = TreeSearch(SearchConfig(iterations=300), "ismcts", reuse=True)
    first, key, state, rng = _next_decision_in_the_same_turn(engine)
    kept = first.root.child_for(first.root.edge(key), first.root.player)
    earlier = visits_below(kept)
    assert earlier > 0
    second = engine.search(state, rng)
    assert second.root == kept and second.iterations == 300
    assert visits_below(kept) == earlier + 300


def test_without_reuse_or_elsewhere_every_search_starts_afresh():
    plain = TreeSearch(SearchConfig(iterations=200), "ismcts")
    _, _, state, rng = _next_decision_in_the_same_turn(plain)
    assert visits_below(plain.search(state, rng).root) == 200
    reusing = TreeSearch(SearchConfig(iterations=200), "ismcts", reuse=True)
    _next_decision_in_the_same_turn(reusing)
    other = cardboard.new_state("lords_of_war", seed=99)  # not where the kept action led
    assert visits_below(reusing.search(other, rng).root) == 200


def test_the_child_for_a_player_is_found_whatever_other_kinds_hang_below_the_edge():
    """An edge can lead to a chance node in one world and a decision in another (one child per kind): reuse and
    the one-search path look up the node where the given player moves."""
    from cardboard.search.core import FlatTree, KeyTable, child_of
    from cardboard.search.tree import Node, expand

    tree = FlatTree(0, 3, 4, None, False, table=KeyTable(8))  # two players and CHANCE's column
    expand(tree, 0, np.array([3, 4]), np.zeros(2))
    root = Node(tree)
    edge = root.edge(3)
    chance = child_of(edge, CHANCE, tree.node_player, tree.node_size, tree.edge_child, tree.counters)
    mine = child_of(edge, 0, tree.node_player, tree.node_size, tree.edge_child, tree.counters)
    assert root.child_for(edge, 0) == Node(tree, mine) and root.child_for(edge, CHANCE) == Node(tree, chance)
    assert root.child_for(edge, CHANCE).player == CHANCE and root.child_for(edge, 0).player == 0
    assert root.child_for(edge, 1) is None and root.child_for(root.edge(4), 0) is None
    assert sorted(n.index for n in root.children()) == sorted([mine, chance])

def test_a_result_s_tree_read_after_its_engine_searched_again_raises_a_typed_error():
    """A compiled engine empties its one tree for the next search: the earlier result's nodes refuse to be read
    (``StaleTreeError``) instead of reading the new tree; a tree the engine made anew (Python) stays readable."""
    from cardboard.envs.errors import StaleTreeError

    state = cardboard.new_state("lords_of_war", seed=1)
    for compiled, stale in ((True, True), (False, False)):
        engine = TreeSearch(SearchConfig(iterations=50, compiled=compiled), "ismcts")
        first = engine.search(state, np.random.default_rng(0))
        before = first.root.stats()
        engine.search(state, np.random.default_rng(1))
        if stale:
            with pytest.raises(StaleTreeError, match="emptied"):
                first.root.stats()
        else:
            assert first.root.stats() == before


def test_every_node_s_edges_are_found_alike_grouped_or_not():
    """``FlatTree.edges_of`` answers from the edges grouped by node (walks) or by a scan: the same edges, in the
    order they were made, for every node of a searched tree, before and after the tree grows."""
    from cardboard.search.core import N_EDGES, N_NODES

    state = cardboard.new_state("lords_of_war", seed=2)
    engine = TreeSearch(SearchConfig(iterations=200, compiled=False), "ismcts", reuse=False)
    root = engine.search(state, np.random.default_rng(0)).root
    tree = root.tree
    scanned = [tree.edges_of(i).tolist() for i in range(int(tree.counters[N_NODES]))]
    tree.group_edges()
    assert [tree.edges_of(i).tolist() for i in range(int(tree.counters[N_NODES]))] == scanned
    assert all(e == sorted(e) and all(tree.edge_node[x] == i for x in e) for i, e in enumerate(scanned))
    engine.search(state, np.random.default_rng(1), iterations=100, root=root)  # grows: the grouping is stale
    assert sorted(e for i in range(int(tree.counters[N_NODES])) for e in tree.edges_of(i).tolist()) == \
        list(range(int(tree.counters[N_EDGES])))

"""Search behaviour pinned case by case, each where a plausible bug would change it.

The tree step's UCB (availability, the constant c, first maximum), the random order of unvisited
children, chance drawn by its probabilities (a loaded die: in the tree, in rollouts and under CNB), the
rollout depth at which the evaluator is called, how many worlds each algorithm draws, tree reuse,
final-move tie-breaking, one expansion per iteration and whose reward each node keeps.
"""
import numpy as np
import pytest

from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo
from cardboard.search.chance import ChanceBucketing
from cardboard.search.mcts import (PIMC, FlatMonteCarlo, SearchConfig, TreeSearch, heuristic_evaluator, max_child,
                                   robust_child, rollout)
from cardboard.search.tree import AVAIL, STAMP, VISITS
from cardboard.search.turn_budget import PSI, most_visited, solid_edge

from .games import hidden_cards, loaded_die, nim, tictactoe
from .games.base import SmallGame, SmallState
from .test_small_games import action_values, check_node
from .trees import hand_tree, step, visits_below

LOADED = loaded_die.LoadedDieGame()  # top face 3/4: betting is right
FAIR = loaded_die.LoadedDieGame((1,) * 6)  # top face 1/6: passing is right
TOP = loaded_die.FACE_BASE + LOADED.faces - 1  # the top face's outcome id


# ---- the tree step on hand-made nodes ---------------------------------------------------------------
def test_ucb_is_the_mean_plus_c_sqrt_log_availability_over_visits():
    """On random visited nodes, every c and a legal subset in random order: the pick is the first maximum of
    ``mean + c sqrt(ln(avail) / n)`` over the legal edges, whose availability (and only theirs) grew by one."""
    rng = np.random.default_rng(7)
    for _ in range(400):
        n = int(rng.integers(2, 8))
        visits = rng.integers(1, 30, n).astype(float)
        totals = rng.uniform(0.0, visits)
        avail = visits + rng.integers(0, 40, n)
        ids = rng.permutation(n)[:int(rng.integers(1, n + 1))]
        c = float(rng.choice([0.0, 0.25, 0.7, 1.5, 4.0]))
        tree = hand_tree(visits, totals, avail)
        i, edge, fresh = step(tree, ids, c, stamp=5.0)
        legal = np.isin(np.arange(n), ids)
        counted = avail + legal
        value = totals[ids] / visits[ids] + c * np.sqrt(np.log(counted[ids]) / visits[ids])
        assert (i, edge, fresh) == (int(np.argmax(value)), ids[int(np.argmax(value))], False)
        assert np.array_equal(tree.stat[AVAIL, :n], counted) and np.array_equal(tree.stat[STAMP, :n] == 5.0, legal)


def test_ucb_counts_availability_where_parent_visits_would_pick_otherwise():
    """Edge 1 was legal in 2 of the node's 12 iterations: with availability its bonus is sqrt(ln 2 / 2), and
    edge 0 (mean 0.6) wins 0.949 to 0.912; with the parent's 12 visits edge 1 would win 1.28 to 0.949."""
    tree = hand_tree(visits=[10, 2], totals=[6.0, 1.0], avail=[11, 1])
    assert step(tree, [0, 1], c=0.7)[:2] == (0, 0)


@pytest.mark.parametrize("c,expected", [(0.0, 0), (0.3, 0), (0.7, 1), (2.0, 1)])
def test_the_exploration_constant_trades_mean_for_fewer_visits(c, expected):
    """Edge 0: mean 0.6 over 30 visits; edge 1: mean 0.4 over 5; both legal in 40 iterations. Below
    c = 0.394 the better mean wins, above it the less visited edge."""
    tree = hand_tree(visits=[30, 5], totals=[18.0, 2.0], avail=[39, 39])
    assert step(tree, [0, 1], c)[1] == expected


def test_ucb_ties_go_to_the_first_legal_id():
    """Equal UCB values: the first maximum in legal order wins, whatever the edges' order in the node."""
    for ids in ([2, 0, 1], [1, 2, 0]):
        tree = hand_tree(visits=[4, 4, 4], totals=[2.0, 2.0, 2.0], avail=[9, 9, 9])
        assert step(tree, ids, c=0.7)[:2] == (0, ids[0])


@pytest.mark.parametrize("u,i,edge", [(0.0, 0, 4), (0.33, 0, 4), (0.34, 2, 3), (0.66, 2, 3), (0.67, 3, 1),
                                      (0.999, 3, 1)])
def test_an_unvisited_edge_is_chosen_by_the_uniform_among_the_unvisited(u, i, edge):
    """Legal order 4, 0, 3, 1, 2 with 0 and 2 visited: the unvisited are 4, 3, 1 in that order, and ``u``
    picks the ``floor(3u)``-th of them, before any UCB."""
    tree = hand_tree(visits=[3, 0, 2, 0, 0], totals=[1.0, 0.0, 2.0, 0.0, 0.0], avail=[3, 3, 3, 3, 3])
    assert step(tree, [4, 0, 3, 1, 2], c=0.7, u=u) == (i, edge, True)


# ---- the tree policy in a search ----------------------------------------------------------------
class Openings(tictactoe.TicTacToeState):
    """Tic-tac-toe that logs each opening move played on it in ``game.log`` (its clones share the game)."""

    def apply(self, action):
        if all(v < 0 for v in self.board):
            self.game.log.append(int(action))
        super().apply(action)


def test_unvisited_root_children_are_tried_in_a_uniformly_random_order():
    """Nine iterations from the empty board try the nine openings once each, in an order that changes with
    the seed (random, not legal order, and a fresh uniform for every step); the visits report only them."""
    game = tictactoe.TicTacToeGame()
    game.log = []
    orders = []
    for seed in range(200):
        game.log.clear()
        result = TreeSearch(SearchConfig(iterations=9), "uct").search(Openings(game), np.random.default_rng(seed))
        assert sorted(game.log) == list(range(9)) and set(result.visits.values()) == {1}
        orders.append(tuple(game.log))
    assert len(set(orders)) >= 195
    assert min(np.bincount([order[0] for order in orders], minlength=9)) >= 10  # about 22 each


def test_a_search_reports_only_the_root_edges_it_visited():
    """One iteration adds nine root edges but visits one: the result lists that one and plays it."""
    result = TreeSearch(SearchConfig(iterations=1), "uct").search(tictactoe.TicTacToeGame().new_state(),
                                                                  np.random.default_rng(0))
    (key, visits), = result.visits.items()
    assert visits == 1 and result.action == key[1]


def test_the_configured_c_reaches_the_tree_step():
    """X wins at once on cell 2 (legal order 2, 5, 6, 7, 8, so it also wins every tie). With c = 0 the search
    tries each move once and then only exploits; with c = 0.7 it keeps exploring the others."""
    state = tictactoe.TicTacToeState(tictactoe.TicTacToeGame(), "XX.OO....")
    greedy = TreeSearch(SearchConfig(iterations=50, c=0.0), "uct").search(state, np.random.default_rng(0))
    assert greedy.visits == {("mark", 2): 46, ("mark", 5): 1, ("mark", 6): 1, ("mark", 7): 1, ("mark", 8): 1}
    exploring = TreeSearch(SearchConfig(iterations=50, c=0.7), "uct").search(state, np.random.default_rng(0))
    assert exploring.visits[("mark", 2)] < 46


def visited_edges(node) -> int:
    """Edges with at least one visit in the whole tree below ``node``."""
    return int(np.count_nonzero(node.stat[VISITS, node.edges])) + sum(
        visited_edges(child) for child in node.children())


def test_each_iteration_expands_exactly_one_edge():
    """Sixty iterations from the empty board (no terminal within reach of the tree) visit sixty distinct edges."""
    result = TreeSearch(SearchConfig(iterations=60), "uct").search(tictactoe.TicTacToeGame().new_state(),
                                                                   np.random.default_rng(1))
    assert visited_edges(result.root) == 60 and sum(result.visits.values()) == 60


def test_each_node_keeps_its_own_players_reward_mapped_to_zero_one():
    """Hidden cards 3 vs 5 (returns in [-2, 2]): player 0's fold always scores (-1 + 2) / 4 = 0.25; below
    the bet, player 1's call always wins 2 (1.0) and its fold loses 1 (0.25)."""
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    root = TreeSearch(SearchConfig(iterations=300), "uct").search(state, np.random.default_rng(0)).root
    assert root.stats()[("fold",)][1] == 0.25
    below = root.child_for(root.edge(("bet",)), 1).stats()
    assert below[("call",)][1] == 1.0 and below[("fold",)][1] == 0.25


class CornersOnly(tictactoe.TicTacToeState):
    """Tic-tac-toe whose expert move generator keeps the free corners (all moves when none is free)."""

    def sensible_actions(self):
        legal = self.legal_actions()
        corners = legal[np.isin(legal, (0, 2, 6, 8))]
        return corners if len(corners) else legal


def test_pruning_steps_over_the_sensible_actions_only():
    """With ``prune`` the root holds only the corners the move generator keeps; without it, all nine cells."""
    state = CornersOnly(tictactoe.TicTacToeGame())
    pruned = TreeSearch(SearchConfig(iterations=100, prune=True), "uct").search(state, np.random.default_rng(0))
    assert set(pruned.root.stats()) == {("mark", c) for c in (0, 2, 6, 8)}
    full = TreeSearch(SearchConfig(iterations=100), "uct").search(state, np.random.default_rng(0))
    assert len(full.root.stats()) == 9


# ---- chance by its probabilities: the loaded die ------------------------------------------------
def test_the_loaded_die_follows_the_protocol_and_its_right_moves_are_the_expectimax_moves():
    """The new small game's protocol checks (tests/test_small_games.py) and its documented right moves."""
    for game in (LOADED, FAIR):
        rng = np.random.default_rng(0)
        state = game.new_state()
        assert loaded_die.right_move(state) == max(action_values(state, {}).items(), key=lambda kv: kv[1])[0]
        check_node(state, rng)
        state.apply(loaded_die.BET)
        check_node(state, rng)
        for outcome, _ in state.chance_outcomes():
            after = state.clone()
            after.apply(outcome)
            check_node(after, rng)
            values = action_values(after, {})
            assert values[loaded_die.right_move(after)] == max(values.values())
    assert loaded_die.right_move(LOADED.new_state()) == loaded_die.BET
    assert loaded_die.right_move(FAIR.new_state()) == loaded_die.PASS


@pytest.mark.parametrize("kind,extra", [("uct", {}), ("ismcts", {}), ("duct", {"num_worlds": 2}), ("pimc", {})])
def test_searches_bet_on_the_loaded_die_and_pass_on_a_fair_one(kind, extra):
    """Betting earns +1/2 with the loaded die and -2/3 with a fair one: a search that drew chance uniformly
    would pass on both."""
    config = SearchConfig(iterations=2000)
    for game, right in ((LOADED, loaded_die.BET), (FAIR, loaded_die.PASS)):
        engine = PIMC(config, num_worlds=2) if kind == "pimc" else TreeSearch(config, kind, **extra)
        assert engine.search(game.new_state(), np.random.default_rng(0)).action == right


def test_tree_chance_nodes_follow_the_outcome_probabilities():
    """Below the bet, each face's node is reached as often as the face's probability says."""
    state = LOADED.new_state()
    root = TreeSearch(SearchConfig(iterations=3000), "uct").search(state, np.random.default_rng(1)).root
    roll = root.child_for(root.edge(("bet",)), CHANCE)
    assert roll.player == CHANCE
    below = [[roll.child_for(roll.edge(loaded_die.FACE_BASE + f), p) for p in (0, 1)] for f in range(LOADED.faces)]
    reached = np.array([sum(visits_below(node) for node in nodes if node is not None) for nodes in below])
    assert reached.sum() > 2000
    assert np.allclose(reached / reached.sum(), LOADED.probs, atol=0.03)


class WithoutFastPath(loaded_die.LoadedDieState):
    """The loaded die without ``random_playout``: rollouts take the engine's own loop."""

    random_playout = None


def test_rollouts_without_a_fast_path_draw_chance_through_the_configured_sampler():
    """By default by the probabilities (the top face 3/4 of the time); a custom sampler decides every draw."""
    state = WithoutFastPath(LOADED)
    state.apply(loaded_die.BET)
    rng = np.random.default_rng(2)
    faces = []
    for _ in range(3000):
        world = state.clone()
        rollout(world, rng, SearchConfig())
        faces.append(world.face)
    assert abs(faces.count(LOADED.faces) / len(faces) - 0.75) < 0.03
    assert_rollouts_roll_face_one(state)


def test_a_custom_chance_sampler_is_used_even_when_the_game_has_a_fast_playout():
    """The game's compiled playout samples chance by itself, so a custom sampler turns it off."""
    state = LOADED.new_state()
    state.apply(loaded_die.BET)
    assert_rollouts_roll_face_one(state)


def assert_rollouts_roll_face_one(state):
    """Twenty rollouts from the chance node ``state`` with a sampler that always answers face 1."""
    calls = []

    def face_one(s, r):
        calls.append(1)
        return loaded_die.FACE_BASE

    for seed in range(20):
        world = state.clone()
        rollout(world, np.random.default_rng(seed), SearchConfig(chance_sampler=face_one))
        assert world.face == 1
    assert len(calls) == 20


def top_or_other(state, outcome):
    return "top" if outcome == TOP else "other"


def rolled_die():
    state = LOADED.new_state()
    state.apply(loaded_die.BET)
    return state


def test_cnb_picks_a_bucket_by_its_probability():
    """The top face's bucket holds 1 of 6 outcomes but 3/4 of the probability."""
    cnb, state, rng, presampled = ChanceBucketing(top_or_other, samples=2), rolled_die(), np.random.default_rng(3), {}
    draws = [cnb.successor(presampled, state, rng) for _ in range(4000)]
    assert abs(draws.count(TOP) / len(draws) - 0.75) < 0.03


def test_cnb_presamples_a_bucket_by_the_outcome_probabilities_without_replacement():
    """One bucket for all six faces: a single pre-sample is the top face 3/4 of the time (drawn uniformly,
    1/6); three pre-samples are three different faces."""
    state = rolled_die()
    single, triple = [], []
    for seed in range(600):
        for samples, out in ((1, single), (3, triple)):
            presampled = {}
            ChanceBucketing(lambda s, o: "all", samples).successor(presampled, state, np.random.default_rng(seed))
            out.append(presampled["all"])
    assert abs(sum(kept == [TOP] for kept in single) / len(single) - 0.75) < 0.05
    assert all(len(set(kept)) == 3 for kept in triple)


def test_search_with_cnb_bets_on_the_loaded_die():
    """Buckets 'top' (3/4) and 'other' (1/4): CNB keeps the bet's expected value, so the search still bets."""
    cnb = ChanceBucketing(top_or_other, samples=2)
    result = TreeSearch(SearchConfig(iterations=2000, bucketing=cnb), "uct").search(LOADED.new_state(),
                                                                                    np.random.default_rng(4))
    assert result.action == loaded_die.BET


# ---- rollout depth and the evaluator ------------------------------------------------------------
class NimWithoutFastPath(nim.NimState):
    """Nim without ``random_playout``: rollouts take the engine's own loop."""

    random_playout = None


def recorder(turns):
    """An evaluator that records the turn of each state it scores and returns (0.3, 0.7)."""
    def evaluator(state):
        turns.append(state.turn)
        return np.array([0.3, 0.7])
    return evaluator


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_rollouts_call_the_evaluator_after_exactly_depth_turns(depth, fast_path):
    """From turn 0 of Nim (27 stones, at most 3 a move), a rollout of ``depth`` turns ends at turn ``depth``."""
    game = nim.NimGame((9, 9, 9), max_take=3)
    state = nim.NimState(game) if fast_path else NimWithoutFastPath(game)
    turns = []
    values = rollout(state, np.random.default_rng(depth), SearchConfig(depth=depth, evaluator=recorder(turns)))
    assert turns == [depth] and state.turn == depth and list(values) == [0.3, 0.7]


def test_the_default_evaluator_maps_the_heuristic_to_zero_one():
    """Tic-tac-toe after X takes a corner: X's heuristic is (8 open lines - 5) / 8 = 3/8, O's -3/8."""
    state = tictactoe.TicTacToeGame().new_state()
    state.apply(0)
    assert list(heuristic_evaluator(state)) == [11 / 16, 5 / 16]


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_rollout_that_ends_the_game_scores_the_result_not_the_evaluation(fast_path):
    """One stone left: the first move wins, so a depth-3 rollout scores (1, 0) and never calls the evaluator."""
    game = nim.NimGame((1,))
    state = nim.NimState(game) if fast_path else NimWithoutFastPath(game)
    turns = []
    values = rollout(state, np.random.default_rng(0), SearchConfig(depth=3, evaluator=recorder(turns)))
    assert turns == [] and list(values) == [1.0, 0.0]


def test_the_search_evaluates_depth_turns_below_the_expanded_edge():
    """One iteration expands a move of turn 0; its rollout plays turns 1 and 2 and evaluates at turn 3."""
    turns = []
    state = nim.NimGame((9, 9, 9), max_take=3).new_state()
    TreeSearch(SearchConfig(iterations=1, depth=2, evaluator=recorder(turns)), "uct").search(
        state, np.random.default_rng(0))
    assert turns == [3]


# ---- worlds: how many each algorithm draws, and how they are used -------------------------------
def counting(calls):
    """The game's own determinizer, recording in ``calls`` the player of each world drawn."""
    def determinizer(state, player, rng):
        calls.append(player)
        return state.determinize(player, rng)
    return determinizer


@pytest.mark.parametrize("kind,num_worlds,expected", [("uct", 1, 0), ("ismcts", 1, 30), ("duct", 4, 4),
                                                      ("duct", 7, 7)])
def test_tree_searches_draw_the_documented_number_of_worlds(kind, num_worlds, expected):
    """UCT searches the true state, ISMCTS draws a world every iteration, DUCT ``num_worlds`` per decision."""
    calls = []
    engine = TreeSearch(SearchConfig(iterations=30, determinizer=counting(calls)), kind, num_worlds)
    result = engine.search(hidden_cards.HiddenCardsGame(5).state_with(3, 5), np.random.default_rng(0))
    assert len(calls) == expected and set(calls) <= {0} and result.iterations == 30


class CountedClones(hidden_cards.HiddenCardsState):
    """A hidden-cards world that counts the copies made of it."""

    def clone(self):
        self.clones += 1
        return super().clone()


def test_duct_iterates_round_robin_over_its_worlds_and_reads_the_tree_without_drawing():
    """Ten iterations over three worlds use them 4, 3 and 3 times; a 0-iteration call draws no world."""
    made = []

    def determinizer(state, player, rng):
        world = CountedClones(state.game, *state.determinize(player, rng).cards)
        world.clones = 0
        made.append(world)
        return world

    engine = TreeSearch(SearchConfig(iterations=10, determinizer=determinizer), "duct", 3)
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    result = engine.search(state, np.random.default_rng(0))
    assert [w.clones for w in made] == [4, 3, 3]
    again = engine.search(state, np.random.default_rng(0), iterations=0, root=result.root)
    assert len(made) == 3 and again.iterations == 0 and again.root is result.root


@pytest.mark.parametrize("iterations,num_worlds,worlds", [(30, 6, 6), (30, 4, 4), (4, 6, 4)])
def test_pimc_spends_its_budget_exactly_over_its_worlds(iterations, num_worlds, worlds):
    """The budget is split as evenly as it goes (30 over 4 worlds: 8, 8, 7, 7) and spent exactly; no more
    worlds are drawn than there are iterations (4 over 6: four worlds of one)."""
    calls = []
    engine = PIMC(SearchConfig(iterations=iterations, determinizer=counting(calls)), num_worlds)
    result = engine.search(hidden_cards.HiddenCardsGame(5).state_with(3, 5), np.random.default_rng(0))
    assert len(calls) == worlds
    assert result.iterations == sum(result.visits.values()) == iterations


def test_flat_monte_carlo_tries_root_actions_round_robin_each_in_a_fresh_world():
    """Eleven rollouts over two moves: 6 and 5, each from its own determinization."""
    calls = []
    engine = FlatMonteCarlo(SearchConfig(iterations=11, determinizer=counting(calls)))
    result = engine.search(hidden_cards.HiddenCardsGame(5).state_with(3, 5), np.random.default_rng(0))
    assert result.visits == {("fold",): 6, ("bet",): 5} and len(calls) == 11


# ---- tree reuse -----------------------------------------------------------------------------------
class TwoPicksGame(SmallGame):
    """A turn of two decisions by one player, no chance: what tree reuse is for."""

    def __init__(self):
        self.info = GameInfo(name="two_picks", num_players=2, num_actions=3, observation_shape=(7,),
                             chance="none", information="perfect", utility="zero_sum", min_return=-1.0,
                             max_return=1.0, max_turns=1)

    def new_state(self, seed=None):
        return TwoPicksState(self)


class TwoPicksState(SmallState):
    """Player 0 picks 0, 1 or 2 twice in one turn and wins when the picks add up to 2."""

    def __init__(self, game):
        super().__init__(game)
        self.picks = []
        self._start()

    def _current(self):
        return 0 if len(self.picks) < 2 else TERMINAL

    def _legal(self):
        return [0, 1, 2] if len(self.picks) < 2 else []

    def _do(self, action):
        self.picks.append(action)

    def _returns(self):
        return (1.0, -1.0) if sum(self.picks) == 2 else (-1.0, 1.0)

    def observation(self, player, perfect=False):
        obs = np.zeros(7, dtype=np.float32)
        for i, pick in enumerate(self.picks):
            obs[3 * i + pick] = 1.0
        obs[6] = float(self._current() == player)
        return obs

    def action_to_string(self, action):
        return f"pick {action}"


def after(state, action):
    """A copy of ``state`` with ``action`` played."""
    state = state.clone()
    state.apply(action)
    return state


def test_reuse_continues_below_the_chosen_action_only_where_it_led():
    """The next decision of the turn continues the chosen action's subtree; another observation, or the same
    one a turn later, starts afresh."""
    engine = TreeSearch(SearchConfig(iterations=100), "uct", reuse=True)
    start, rng = TwoPicksGame().new_state(), np.random.default_rng(0)
    first = engine.search(start, rng)
    kept = first.root.child_for(first.root.edge((f"pick {first.action}",)), 0)
    earlier = visits_below(kept)
    second = engine.search(after(start, first.action), rng)
    assert second.root == kept and visits_below(kept) == earlier + 100
    elsewhere = after(start, (engine.search(start, rng).action + 1) % 3)
    assert visits_below(engine.search(elsewhere, rng).root) == 100
    later = after(start, engine.search(start, rng).action)
    later._turn += 1
    assert visits_below(engine.search(later, rng).root) == 100


def test_a_continued_tree_counts_availability_once_per_iteration_across_searches():
    """Iteration stamps run on from one search of an engine to the next, so a tree continued one iteration at a
    time (``root=``, as the turn budget does) counts every legal edge available in each of those iterations."""
    engine, state = TreeSearch(SearchConfig(iterations=1), "uct"), TwoPicksGame().new_state()
    rng = np.random.default_rng(0)
    root = engine.search(state, rng).root
    for done in range(2, 6):
        engine.search(state, rng, root=root)
        assert np.array_equal(root.stat[AVAIL, root.edges], np.full(3, done))


def test_an_edge_of_exactly_psi_visits_is_read_off_the_tree():
    """The turn budget plays a kept edge without searching once it has PSI visits or more (001 §3.3.2)."""
    state = tictactoe.TicTacToeGame().new_state()
    root = TreeSearch(SearchConfig(iterations=9), "uct").search(state, np.random.default_rng(0)).root
    edge = root.edge(("mark", 4))
    root.stat[VISITS, edge] = PSI - 1
    assert not solid_edge(root, state)
    root.stat[VISITS, edge] = PSI
    assert solid_edge(root, state) and most_visited(root, state) == (4, PSI)


# ---- final-move selection -------------------------------------------------------------------------
def choices(final, edges, draws=300):
    """Every key ``final`` picks from ``edges`` in ``draws`` seeded calls."""
    rng = np.random.default_rng(0)
    return {final(edges, rng) for _ in range(draws)}


def test_robust_child_takes_the_most_visits_then_the_higher_mean_then_chance():
    """RobustChild (000 §2.1): visits first, the mean breaks a visit tie, a full tie is broken at random."""
    assert choices(robust_child, {"a": (10, 0.2, 12), "b": (9, 0.9, 12)}) == {"a"}
    assert choices(robust_child, {"a": (10, 0.2, 12), "b": (10, 0.6, 12), "c": (4, 0.9, 12)}) == {"b"}
    assert choices(robust_child, {"a": (10, 0.2, 12), "b": (10, 0.6, 12), "c": (10, 0.6, 12)}) == {"b", "c"}


def test_the_default_final_choice_is_the_most_visited_root_edge():
    """After 20 iterations from the empty board (seed 0), cell 3 has the most visits (4) and cell 8 the best
    mean (5/6 over 3): the search plays cell 3."""
    result = TreeSearch(SearchConfig(iterations=20), "uct").search(tictactoe.TicTacToeGame().new_state(),
                                                                   np.random.default_rng(0))
    visits = {k[1]: n for k, (n, _, _) in result.root.stats().items()}
    means = {k[1]: mean for k, (_, mean, _) in result.root.stats().items()}
    assert visits[3] == 4 > max(n for cell, n in visits.items() if cell != 3) and means[8] > means[3]
    assert result.action == 3


def test_max_child_takes_the_highest_mean_whatever_the_visits_ties_at_random():
    """MaxChild ignores visits; edges of equal mean are each chosen some of the time."""
    assert choices(max_child, {"a": (50, 0.5, 60), "b": (1, 0.7, 60)}) == {"b"}
    assert choices(max_child, {"a": (50, 0.5, 60), "b": (1, 0.7, 60), "c": (2, 0.7, 60)}) == {"b", "c"}


# ---- the flat tree of the compiled drivers (search.core) ---------------------------------------------------------
def test_an_edge_of_the_flat_tree_leads_to_one_node_per_player_to_move():
    """``core.child_of`` keeps one node per player below an edge (``tree.Node.child_for`` finds it): the
    node a world reaches is found again by the next world that reaches the same player, another player's is another
    node, so no statistics are mixed and no reward goes to the wrong player."""
    from cardboard.search.core import N_NODES, FlatTree, child_of, edge_of

    tree = FlatTree(0, 2, 4, None, False)
    node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, _, _, counters = tree.arrays()
    e = edge_of(0, 3, 8, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters)
    mine = child_of(e, 0, node_player, node_size, edge_child, counters)
    theirs = child_of(e, 1, node_player, node_size, edge_child, counters)
    assert len({0, mine, theirs}) == 3 and counters[N_NODES] == 3
    assert (node_player[mine], node_player[theirs]) == (0, 1) and node_size[mine] == node_size[theirs] == 0
    assert child_of(e, 1, node_player, node_size, edge_child, counters) == theirs
    assert child_of(e, 0, node_player, node_size, edge_child, counters) == mine
    assert counters[N_NODES] == 3


def test_room_for_an_iteration_counts_every_tree_step_s_edges_and_uniforms():
    """``compiled.room_for``, the bound that keeps a compiled iteration inside its arrays and raw words: an iteration
    of at most ``steps`` tree steps may make ``max_legal`` edges at each, and draw a block of uniforms for each step
    beyond those left in the current block, besides the words it names."""
    from cardboard.search.compiled import BLOCK, room_for
    from cardboard.search.core import LEFT, N_EDGES, NEED_EDGES, NEED_WORDS, FlatTree

    tree = FlatTree(0, 2, 4, None, False)  # room for 32 edges, 64 hash slots
    node_player, _, _, edge_key, _, _, hash_key, _, judge_key, _, counters = tree.arrays()

    def room(steps, words=1000):
        return room_for(steps, 5, 0, 4, np.empty(words, dtype=np.uint64), node_player, edge_key, hash_key, judge_key,
                        counters)

    assert room(3) and counters[NEED_EDGES] == 3 * 4 and counters[NEED_WORDS] == 5 + BLOCK
    counters[LEFT] = 2
    assert room(3) and counters[NEED_WORDS] == 5 + BLOCK  # one step beyond the two uniforms left: a new block
    assert not room(3, words=5 + BLOCK - 1)
    counters[LEFT] = 3
    assert room(3) and counters[NEED_WORDS] == 5
    counters[N_EDGES] = 20
    assert room(3) and counters[NEED_EDGES] == 32
    counters[N_EDGES] = 21
    assert not room(3) and counters[NEED_EDGES] == 33  # three steps of four new edges would overrun the 32

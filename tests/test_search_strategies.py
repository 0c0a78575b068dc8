"""Search strategies as objects: the PUCT step, leaf evaluation with a prior (depth 0), rollout policies."""
import numpy as np
import pytest

from cardboard.envs.errors import InvalidParameterError
from cardboard.search.core import N_EDGES
from cardboard.search.mcts import SearchConfig, TreeSearch, rollout
from cardboard.search.strategies import PUCT, UCB1, Evaluation, GameRollout, PolicyRollout, leaf_prior
from cardboard.search.tree import AVAIL, PRIOR, STAMP, select_puct

from .games import loaded_die, nim
from .trees import edge_stats, hand_tree, nodes_of, step


# ---- the PUCT step on hand-made nodes -------------------------------------------------------------------
def puct(tree, ids, c=1.0, stamp=1.0, u=0.0):
    return step(tree, ids, c, u, stamp, kernel=select_puct)


def test_puct_is_q_plus_c_prior_sqrt_availability_over_one_plus_visits():
    """Random nodes (some edges unvisited: Q = the legal edges' mean reward), priors, c and legal subsets: the
    pick is the first maximum of ``Q + c P sqrt(avail) / (1 + n)`` with the availability counted first (legal
    edges only, once)."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.integers(2, 8))
        visits = rng.integers(0, 30, n).astype(float) * (rng.random(n) < 0.7)
        totals = rng.uniform(0.0, visits)
        avail = visits + rng.integers(0, 40, n)
        prior = rng.dirichlet(np.ones(n))
        ids = rng.permutation(n)[:int(rng.integers(1, n + 1))]
        c = float(rng.choice([0.0, 0.5, 1.25, 3.0, 10.0]))
        tree = hand_tree(visits, totals, avail, prior)
        i, edge, fresh = puct(tree, ids, c, 4.0, 0.5)
        stat = tree.stat[:, :n]
        legal = np.isin(np.arange(n), ids)
        counted = avail + legal
        seen = visits[ids].sum()
        first_play = totals[ids].sum() / seen if seen > 0 else 0.0  # the node's mean over its legal edges
        q = np.divide(totals, visits, out=np.full(n, first_play), where=visits > 0)
        value = (q + c * prior * np.sqrt(counted) / (1 + visits))[ids]
        best = int(np.argmax(value))
        assert (i, edge, fresh) == (best, ids[best], visits[ids[best]] == 0)
        assert np.array_equal(stat[AVAIL], counted) and np.array_equal(stat[STAMP] == 4.0, legal)
        assert np.array_equal(stat[PRIOR], prior)


def test_puct_follows_the_prior_between_unvisited_edges_and_q_between_equal_priors():
    assert puct(hand_tree([0, 0, 0], [0, 0, 0], [0, 0, 0], [0.2, 0.5, 0.3]), np.arange(3)) == (1, 1, True)
    assert puct(hand_tree([4, 4], [1, 3], [9, 9], [0.5, 0.5]), np.arange(2)) == (1, 1, False)


def test_a_key_first_met_in_the_puct_step_gets_the_uniform_prior():
    tree = hand_tree([0, 0], [0, 0], [0, 0], [0.9, 0.1], num_keys=6)
    puct(tree, [0, 1, 4, 5])
    assert tree.counters[N_EDGES] == 4
    assert list(tree.stat[PRIOR, :4]) == [0.9, 0.1, 0.25, 0.25] and list(tree.stat[AVAIL, :4]) == [1] * 4


# ---- leaf evaluation and priors --------------------------------------------------------------------------
def counting_evaluator(calls, prior_of=None):
    """Values (0.5, 0.5) and, with ``prior_of``, ``Evaluation(values, prior_of(state))``; records each state."""
    def evaluator(state):
        calls.append(state.clone())
        values = np.array([0.5, 0.5])
        return values if prior_of is None else Evaluation(values, prior_of(state))
    return evaluator


class Forbidden:
    """A rollout that must never run."""

    def __call__(self, state, rng, config):
        raise AssertionError("depth=0 rolled out")


@pytest.mark.parametrize("selection", [UCB1(), PUCT(1.0)])
def test_depth_zero_evaluates_each_leaf_once_per_iteration_and_never_rolls_out(selection):
    calls = []
    config = SearchConfig(iterations=60, depth=0, evaluator=counting_evaluator(calls), selection=selection,
                          rollout=Forbidden())
    TreeSearch(config, "uct").search(nim.NimGame((9, 9, 9), max_take=3).new_state(), np.random.default_rng(0))
    assert len(calls) == 60 and all(not s.is_terminal() for s in calls)


def test_depth_must_be_a_non_negative_number_of_turns():
    with pytest.raises(InvalidParameterError):
        SearchConfig(depth=-1)
    with pytest.raises(InvalidParameterError):
        PUCT(-0.5)


def test_an_evaluator_prior_fills_the_prior_rows_of_the_root_and_of_each_new_node():
    """Nim (1, 3, 5): the prior weights action id a by a + 1; each node's row is that over its legal actions."""
    game = nim.NimGame((1, 3, 5))
    weights = np.arange(1.0, game.info.num_actions + 1)
    calls = []
    config = SearchConfig(iterations=3, depth=0, selection=PUCT(1.0), evaluator=counting_evaluator(calls,
                                                                                                   lambda s: weights))
    result = TreeSearch(config, "uct").search(game.new_state(), np.random.default_rng(0))
    root = result.root
    nodes = sorted(nodes_of(root), key=lambda node: node.index)  # the order the nodes were made in
    assert len(calls) == 3 and len(nodes) == 3  # the root's expansion, then one new node per iteration
    for node, state in zip(nodes, calls):
        legal = np.asarray(state.legal_actions())
        expected = {state.action_key(int(a)): w for a, w in zip(legal, weights[legal] / weights[legal].sum())}
        got = {node.key(e): node.stat[PRIOR, e] for e in node.edges.tolist()}
        assert got.keys() == expected.keys() and all(np.isclose(got[k], expected[k]) for k in got)


def test_without_a_prior_or_with_a_rollout_the_prior_is_uniform():
    legal = np.array([1, 4, 6])
    assert list(leaf_prior(None, legal)) == [1 / 3] * 3
    assert list(leaf_prior(np.zeros(8), legal)) == [1 / 3] * 3
    assert list(leaf_prior(np.arange(8.0), legal)) == [1 / 11, 4 / 11, 6 / 11]
    state = nim.NimGame((1, 3, 5)).new_state()
    config = SearchConfig(iterations=1, depth=1, selection=PUCT(),
                          evaluator=lambda s: Evaluation(np.array([0.5, 0.5]), np.arange(9.0)))
    root = TreeSearch(config, "uct").search(state, np.random.default_rng(0)).root
    n = len(root.edges)
    assert n == len(state.legal_actions()) and np.allclose(edge_stats(root)[PRIOR], 1 / n)


def oracle_prior(wrong):
    """Loaded die priors: 0.9 on the right move (``wrong``: on the other one), 0.1 on the other."""
    def prior_of(state):
        right = loaded_die.right_move(state)
        legal = [int(a) for a in state.legal_actions()]
        prior = np.zeros(state.info.num_actions)
        prior[legal] = 0.1
        if right is not None:
            target = next(a for a in legal if a != right) if wrong else right
            prior[target] = 0.9
        return prior
    return prior_of


def iterations_to_find(prior_of, budgets=(2, 4, 8, 16, 32, 64, 128, 256, 512)):
    """The smallest budget from which every larger one of ``budgets`` bets on the loaded die (PUCT, depth 0)."""
    game = loaded_die.LoadedDieGame()
    right = [TreeSearch(SearchConfig(iterations=n, depth=0, selection=PUCT(1.0), evaluator=counting_evaluator(
        [], prior_of)), "uct").search(game.new_state(), np.random.default_rng(n)).action == loaded_die.BET
             for n in budgets]
    found = [n for k, n in enumerate(budgets) if all(right[k:])]
    return found[0] if found else np.inf


def test_puct_with_a_right_prior_finds_the_bet_in_fewer_iterations_than_with_a_misleading_one():
    good, bad = iterations_to_find(oracle_prior(False)), iterations_to_find(oracle_prior(True))
    assert good <= 4 and bad > 4 * good


@pytest.mark.parametrize("worlds", ["uct", "ismcts", "duct"])
def test_puct_finds_nims_winning_move(worlds):
    state = nim.NimGame((1, 3, 5)).new_state()
    config = SearchConfig(iterations=5000, selection=PUCT(2.0))  # uniform priors, random rollouts
    action = TreeSearch(config, worlds, 2).search(state, np.random.default_rng(3)).action
    assert action in nim.winning_moves(state)


# ---- rollout policies ---------------------------------------------------------------------------------
def test_policy_rollout_plays_its_policy_for_depth_turns():
    played = []

    def last_legal(state, rng):
        played.append(int(state.legal_actions()[-1]))
        return played[-1]

    state = nim.NimGame((9, 9, 9), max_take=3).new_state()
    reference = state.clone()
    rollout(state, np.random.default_rng(0), SearchConfig(depth=4, rollout=PolicyRollout(last_legal)))
    for a in played:
        assert a == int(reference.legal_actions()[-1])
        reference.apply(a)
    assert len(played) == 4 and state.turn == 4 and state.heaps == reference.heaps


def test_a_search_with_a_policy_rollout_uses_it_every_iteration():
    calls = []

    def first_legal(state, rng):
        calls.append(state.turn)
        return int(state.legal_actions()[0])

    config = SearchConfig(iterations=20, rollout=PolicyRollout(first_legal))
    TreeSearch(config, "uct").search(nim.NimGame((9, 9, 9), max_take=3).new_state(), np.random.default_rng(0))
    assert len(set(calls)) > 1 and len(calls) >= 20


def test_the_defaults_are_ucb1_and_the_games_rollout():
    config = SearchConfig()
    assert config.selection == UCB1() and config.rollout == GameRollout() and config.depth is None

"""A prior at the root only (``search.root_prior``, agents' ``net=PATH,root=1``): the formula on hand-computed numbers,
the prior by key, the compiled loop against the Python path with it, what it steers, and what is refused."""
import copy
import dataclasses

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.search.core import AVAIL, PRIOR, VISITS, KeyTable, set_root_prior
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning
from cardboard.search.root_prior import root_prior_of
from cardboard.search.strategies import PUCT, Evaluation
from cardboard.search.tree import legal_ids
from tests.compiled_paths import assert_same, runs_compiled
from tests.test_compiled_search import POSITIONS
from tests.trees import nodes_of


class Prior:
    """An evaluator answering a fixed prior over the action ids (and values it is never asked to use); counts calls
    and keeps the states it was shown."""

    def __init__(self, weights):
        self.weights = np.asarray(weights, dtype=np.float64)
        self.seen = []

    def __call__(self, state):
        self.seen.append(state)
        return Evaluation(np.full(state.num_players, 0.5), self.weights)


def random_prior(state, seed=0):
    return Prior(np.random.default_rng(seed).random(state.info.num_actions) ** 4)


def test_set_root_prior_on_hand_computed_numbers():
    stat = np.zeros((PRIOR + 1, 3), order="F")
    edges = np.array([0, 1, 2])
    # keys 2 and 5 are known (0.2, 0.6); key 7 lies past the array and key 3 is marked -1: each weighs 1/3
    set_root_prior(stat, edges, np.array([2, 5, 7]), 3, np.array([-1, -1, 0.2, -1, -1, 0.6, -1.0]))
    assert stat[PRIOR].tolist() == pytest.approx([0.2 / (0.8 + 1 / 3), 0.6 / (0.8 + 1 / 3), (1 / 3) / (0.8 + 1 / 3)])
    set_root_prior(stat, edges, np.array([2, 3]), 2, np.array([-1, -1, 0.0, -1, -1, 0.0]))  # key 3 unknown: 1/2
    assert stat[PRIOR, :2].tolist() == [0.0, 1.0]
    set_root_prior(stat, edges, np.array([2, 5]), 2, np.array([-1, -1, 0.0, -1, -1, 0.0]))  # no mass: uniform
    assert stat[PRIOR, :2].tolist() == [0.5, 0.5]


def test_the_prior_by_key_sums_the_moves_that_share_a_key():
    state = POSITIONS["mid"]()
    legal = np.asarray(state.legal_actions())
    weights = np.zeros(state.info.num_actions)
    weights[legal] = np.arange(1, len(legal) + 1)
    table = KeyTable(state.info.num_action_keys)
    found = root_prior_of(SearchConfig(root_prior=Prior(weights)), state, table)
    ids = legal_ids(table, state, legal, True)
    expected = np.full(len(found), -1.0)
    for key, weight in zip(ids, weights[legal]):
        expected[key] = max(expected[key], 0.0) + weight
    assert found.tolist() == expected.tolist()
    assert (found >= 0).sum() == len(set(ids.tolist()))
    assert root_prior_of(SearchConfig(), state, table).size == 0


def test_an_evaluator_without_a_prior_is_refused():
    state = POSITIONS["mid"]()
    config = SearchConfig(iterations=5, root_prior=lambda s: np.full(2, 0.5))
    with pytest.raises(InvalidParameterError, match="without a prior"):
        TreeSearch(config, "ismcts").search(state, np.random.default_rng(0))


@pytest.mark.parametrize("pruning", [None, HardPruning(("h4",), 5)], ids=["plain", "pruned"])
@pytest.mark.parametrize("position", ["start", "mid", "end"])
@pytest.mark.parametrize("worlds", ["ismcts", "uct", "duct"])
def test_the_compiled_loop_steers_the_root_as_python_does(worlds, position, pruning, compiled_runs):
    state = POSITIONS[position]()
    for c_root, iterations in ((0.5, 7), (2.0, 400)):
        options = dict(root_prior=random_prior(state), root_cpuct=c_root, pruning=pruning)
        if worlds == "duct":
            options["num_worlds"] = 3
        found = assert_same(state, worlds, iterations, 3, compiled_runs, **options)
        plain = assert_same(state, worlds, iterations, 3, compiled_runs, **{**options, "root_prior": None})
        assert iterations < 400 or found["visits"] != plain["visits"]  # the prior changed the search


@pytest.mark.parametrize("use_compiled", [True, False])
def test_one_evaluation_a_search_of_the_searched_state(use_compiled):
    state = POSITIONS["mid"]()
    prior = random_prior(state)
    engine = TreeSearch(SearchConfig(iterations=200, root_prior=prior, compiled=use_compiled), "ismcts")
    engine.search(state, np.random.default_rng(0))
    assert prior.seen == [state]
    engine.search(state, np.random.default_rng(1), iterations=0)  # decide from the tree as it is: nothing asked
    assert len(prior.seen) == 1


@pytest.mark.parametrize("use_compiled", [True, False])
def test_the_root_step_follows_the_prior(use_compiled):
    """A prior all on one key and a large constant: that key takes most of the root's visits; the root's edges
    carry the prior, renormalised over the moves offered; the plain search spreads its visits."""
    state = POSITIONS["mid"]()
    legal = np.asarray(state.legal_actions())
    favourite = int(legal[len(legal) // 2])
    weights = np.full(state.info.num_actions, 1e-6)
    weights[favourite] = 1.0
    config = SearchConfig(iterations=600, root_prior=Prior(weights), root_cpuct=50.0, compiled=use_compiled)
    result = TreeSearch(config, "ismcts").search(state, np.random.default_rng(0))
    key = state.action_key(favourite)
    assert result.visits[key] > 0.8 * 600
    root = result.root
    priors = {root.key(e): root.stat[PRIOR, e] for e in root.edges}
    assert sum(priors.values()) == pytest.approx(1.0)
    assert priors[key] == pytest.approx(1.0 / (1.0 + 1e-6 * (len(priors) - 1)))
    plain = TreeSearch(dataclasses.replace(config, root_prior=None), "ismcts").search(state, np.random.default_rng(0))
    assert plain.visits[key] < 0.5 * 600


@pytest.mark.parametrize("use_compiled", [True, False])
def test_below_the_root_no_prior_and_ucb1s_rule(use_compiled, compiled_runs):
    """The prior steers the root's step only: every edge below the root keeps ``PRIOR`` 0, and every node below the
    root that offered the same moves at each visit tried each of them once before any twice (UCB1; PUCT over a
    prior revisits a promising edge first). At the root the prior is there and sums to 1."""
    state = POSITIONS["mid"]()
    config = SearchConfig(iterations=600, root_prior=random_prior(state), root_cpuct=2.0, compiled=use_compiled)
    root = TreeSearch(config, "uct").search(state, np.random.default_rng(0)).root
    assert root.stat[PRIOR, root.edges].sum() == pytest.approx(1.0)
    below = [node for node in nodes_of(root)[1:] if node.player >= 0 and len(node.edges)]
    assert len(below) > 20 and sum(node.stat[VISITS, node.edges].sum() for node in below) > 300
    revisited = 0
    for node in below:
        visits, avail = node.stat[VISITS, node.edges], node.stat[AVAIL, node.edges]
        assert node.stat[PRIOR, node.edges].tolist() == [0.0] * len(node.edges)
        if (avail == visits.sum()).all() and visits.max() > 1:  # the same moves at each visit, one revisited
            assert visits.min() >= 1, visits
            revisited += 1
    assert revisited > 5
    assert bool(compiled_runs) == use_compiled


def test_a_root_prior_keeps_the_search_compiled():
    state = POSITIONS["mid"]()
    engine = TreeSearch(SearchConfig(iterations=10, root_prior=random_prior(state), pruning=HardPruning(("h4",))),
                        "ismcts")
    assert runs_compiled(engine, state, np.random.default_rng(0))


@pytest.mark.parametrize("changes, match", [({"selection": PUCT()}, "UCB1"), ({"depth": 0}, "depth"),
                                            ({"root_cpuct": -1.0}, "root_cpuct")])
def test_configurations_refused(changes, match):
    with pytest.raises(InvalidParameterError, match=match):
        SearchConfig(root_prior=Prior([1.0]), **changes)


def test_the_agent_knob():
    game = cardboard.make_game("lords_of_war")
    agent = cardboard.make_agent("ismcts:net=zoo:lords_of_war,root=1,cpuct=0.5,prune=h4,hpl=20,iterations=50", game)
    config = agent.searcher.config
    assert config.root_prior is not None and config.root_cpuct == 0.5 and config.prior is None
    assert type(config.selection).__name__ == "UCB1" and config.depth is None
    state = POSITIONS["mid"]()
    assert runs_compiled(agent.searcher, state, np.random.default_rng(0))
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()


@pytest.mark.parametrize("spec, match", [("ismcts:root=1", "root=1 needs net"),
                                         ("ismcts:net=zoo:lords_of_war,root=1,gumbel=1", "root=1"),
                                         ("ismcts:net=zoo:lords_of_war,root=1,cpuct=-1", "c_puct")])
def test_the_agent_knob_refuses(spec, match):
    with pytest.raises(InvalidParameterError, match=match):
        cardboard.make_agent(spec, cardboard.make_game("lords_of_war"))


def test_threaded_search_refuses_a_root_prior():
    from cardboard.search.parallel import TreeParallel

    with pytest.raises(InvalidParameterError, match="root_prior"):
        TreeParallel(SearchConfig(iterations=10, root_prior=Prior([1.0])))


@pytest.mark.parametrize("prune", [False, True])
def test_interned_keys_and_sensible_moves(prune):
    """A game whose soft keys are interned (Fifth Aeon's, as tuples and without ``num_action_keys``), searched in
    Python, with and without the game's move filter: the root's edges carry the prior of their keys,
    renormalised."""
    from cardboard.envs.fifth_aeon import FifthAeonState

    class TupleKeys(FifthAeonState):
        __slots__ = ()

        def action_key(self, action: int) -> tuple:
            return ("key", super().action_key(action))

    game = copy.copy(cardboard.make_game("fifth_aeon"))
    game.info = dataclasses.replace(game.info, num_action_keys=None)
    state = TupleKeys(game, game.new_state(2).s.copy())
    while len(state.legal_actions()) < 3:
        state.apply(int(state.legal_actions()[0]))
    prior = random_prior(state, seed=4)
    result = TreeSearch(SearchConfig(iterations=60, root_prior=prior, prune=prune, depth=2), "ismcts").search(
        state, np.random.default_rng(0))
    root = result.root
    moves = state.sensible_actions() if prune else state.legal_actions()
    weights = {}
    for action in moves:
        key = state.action_key(int(action))
        weights[key] = weights.get(key, 0.0) + prior.weights[int(action)]
    found = {root.key(e): root.stat[PRIOR, e] for e in root.edges}
    total = sum(weights[k] for k in found)
    assert found == pytest.approx({k: weights[k] / total for k in found})
    assert len(prior.seen) == 1 and sum(result.visits.values()) == 60

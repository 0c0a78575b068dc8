"""Network-guided search with compiled descents (``cardboard.search.compiled_network``) against the Python path.

Differential: at fixed seeds and positions, for UCT and ISMCTS, 1 to 8 leaves in flight, with and without the
network's prior, the compiled and the Python path give the same action, visits, root statistics (the prior row
included) and leave the generator in the same state: the network sees the same rows in the same batches. Then who
takes which path, lock-step batching of many searches, and the observation kernel against ``observation``.
"""
import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.protocol import sample_chance
from cardboard.policies.net_agent import NetworkEvaluator, untrained_evaluator
from cardboard.policies.tickets import TicketQueue
from cardboard.search import compiled, compiled_network
from cardboard.search.batching import ArrayRequest, run_together
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning
from cardboard.search.strategies import PUCT, UCB1
from cardboard.search.core import PRIOR, TOTAL, VISITS
from tests.compiled_paths import start_tiny, tree_summary
from tests.trees import nodes_of


def random_moves(state, rng, moves):
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def near_the_end():
    state, rng, states = cardboard.new_state("lords_of_war", seed=5), np.random.default_rng(5), []
    while not state.is_terminal():
        states.append(state.clone())
        random_moves(state, rng, 1)
    return next(s for s in states[-6::-1] if len(s.legal_actions()) > 1)


POSITIONS = {
    "start": lambda: cardboard.new_state("lords_of_war", seed=3),
    "mid": lambda: random_moves(cardboard.new_state("lords_of_war", seed=1), np.random.default_rng(1), 40),
    "end": near_the_end,
}


@pytest.fixture(scope="module")
def network():
    return untrained_evaluator(cardboard.new_state("lords_of_war", seed=0).info)


@pytest.fixture
def compiled_runs(monkeypatch):
    """A list that gets one entry per search the compiled loop ran in its leaf mode (``compiled_network``)."""
    runs = []
    steps = compiled.CompiledLoop.steps

    def counted(self, run):
        if self.leaf is not None:
            runs.append(True)
        return (yield from steps(self, run))

    monkeypatch.setattr(compiled.CompiledLoop, "steps", counted)
    return runs


def config(network, iterations, leaves, prior=True, compiled=True, **changes):
    return SearchConfig(iterations=iterations, selection=PUCT(1.25), depth=0,
                        evaluator=NetworkEvaluator(network, prior), leaves=leaves, compiled=compiled, **changes)


def summary(state, worlds, seed, cfg):
    rng = np.random.default_rng(seed)
    result = TreeSearch(cfg, worlds).search(state, rng)
    return {"action": result.action, "visits": list(result.visits.items()), "iterations": result.iterations,
            "tree": tree_summary(result.root.tree, PRIOR + 1), "rng": rng.bit_generator.state}


@pytest.mark.parametrize("iterations", [1, 2, 9, 200])
@pytest.mark.parametrize("leaves", [1, 3, 8])
@pytest.mark.parametrize("position", list(POSITIONS))
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_the_compiled_driver_grows_the_python_tree(network, worlds, position, leaves, iterations, compiled_runs):
    state = POSITIONS[position]()
    fast = summary(state, worlds, iterations + leaves, config(network, iterations, leaves))
    assert compiled_runs, "the compiled driver did not run"
    assert fast == summary(state, worlds, iterations + leaves, config(network, iterations, leaves, compiled=False))
    assert fast["iterations"] == iterations


def test_the_flat_tree_and_the_leaf_paths_grow_between_kernel_calls(network, monkeypatch, compiled_runs):
    """From arrays too small for one iteration (tree, hash table, leaf paths), every kind of room is made between
    kernel calls, and the search is still the Python path's."""
    leaves_made = compiled_network.Leaves.__init__

    def shallow(self, *args):
        leaves_made(self, *args)
        self.path_node, self.path_edge = self.path_node[:, :1].copy(), self.path_edge[:, :1].copy()

    start_tiny(monkeypatch, pruning_memory=False)
    monkeypatch.setattr(compiled_network.Leaves, "__init__", shallow)
    state = POSITIONS["mid"]()
    fast = summary(state, "ismcts", 5, config(network, 400, 8))
    assert compiled_runs
    assert fast == summary(state, "ismcts", 5, config(network, 400, 8, compiled=False))


@pytest.mark.parametrize("network_guided", [True, False], ids=["network", "rollouts"])
def test_an_engine_keeps_its_flat_tree_from_search_to_search(network, network_guided, compiled_runs):
    """One engine's searches of three positions, its flat tree (and leaves) emptied and reused between them, are
    the Python path's; the tree is the same object throughout."""
    def searches(compiled):
        cfg = (config(network, 120, 4, compiled=compiled) if network_guided
               else SearchConfig(iterations=120, compiled=compiled))
        engine, out, trees = TreeSearch(cfg, "ismcts"), [], []
        for seed, position in enumerate(["mid", "start", "end"]):
            result = engine.search(POSITIONS[position](), np.random.default_rng(seed))
            out.append((result.action, list(result.visits.items()), tree_summary(result.root.tree, PRIOR + 1)))
            trees.append(getattr(engine.plan(POSITIONS[position]()).driver, "flat_tree", None))
        return out, trees

    fast, trees = searches(True)
    assert fast == searches(False)[0]
    assert trees[0] is not None and trees[0] is trees[1] is trees[2]


def test_without_the_prior_new_nodes_get_a_uniform_one(network, compiled_runs):
    state = POSITIONS["mid"]()
    fast = summary(state, "ismcts", 2, config(network, 300, 4, prior=False))
    assert compiled_runs
    assert fast == summary(state, "ismcts", 2, config(network, 300, 4, prior=False, compiled=False))
    tree = fast["tree"]
    priors, nodes = np.array(tree["stat"])[PRIOR], np.array(tree["edge nodes"])
    assert np.allclose(priors[nodes == 0], 1 / np.count_nonzero(nodes == 0))  # the root's moves: every world's


class KnownValues(TicketQueue):
    """A network's place whose answer is known: ``values`` (returns by seat, as a ``PolicyValueNet`` gives them) for
    every state, a uniform prior over the legal moves; queued (the Python path) or as arrays (the compiled one)."""

    def __init__(self, info, values):
        super().__init__()
        self.info, self.values = info, np.asarray(values, dtype=np.float32)

    def evaluate(self, observations, masks):
        masks = np.asarray(masks, dtype=np.float32)
        return masks / masks.sum(axis=1, keepdims=True), np.tile(self.values, (len(masks), 1))

    def _answer(self, requests):
        return self.evaluate(None, np.stack([mask for _, mask in requests]))


def test_the_network_evaluator_answers_each_seats_value():
    """``NetworkEvaluator`` over ``KnownValues`` (returns 0.5 for seat 0, -0.75 for seat 1): [0.75, 0.125] in [0, 1]
    at either seat's decision and at a chance node (each seat's value read from its own row), the game's own
    returns at the end."""
    state, rng = cardboard.new_state("hearth", seed=0), np.random.default_rng(0)
    evaluator, asked = NetworkEvaluator(KnownValues(state.info, [0.5, -0.75])), set()
    while not state.is_terminal():
        asked.add(state.current_player)
        assert evaluator(state).values.tolist() == [0.75, 0.125], state.current_player
        state.apply(int(sample_chance(state, rng)) if state.current_player < 0 else
                    int(rng.choice(state.legal_actions())))
    assert asked == {-1, 0, 1}
    assert evaluator(state).values.tolist() == [(r + 1) / 2 for r in state.returns()]


@pytest.mark.parametrize("use_compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_networks_values_are_credited_to_the_seat_of_each_node(seat, use_compiled, compiled_runs):
    """A network valuing every state 0.5 for seat 0 and -0.75 for seat 1 (returns in [-1, 1]: 0.75 and 0.125 in
    [0, 1]), searched by each seat: every edge of seat 0's nodes totals 0.75 a visit, every edge of seat 1's 0.125 a
    visit, and the root's value is the searching seat's (the Python evaluator's and the compiled settle's credit)."""
    state = POSITIONS["start"]()
    while state.current_player != seat:
        state.apply(int(state.legal_actions()[0]))
    lo, hi = state.info.min_return, state.info.max_return
    assert (lo, hi) == (-1.0, 1.0)
    unit = {0: 0.75, 1: 0.125}  # (0.5 + 1) / 2, (-0.75 + 1) / 2
    evaluator = NetworkEvaluator(KnownValues(state.info, [0.5, -0.75]))
    cfg = SearchConfig(iterations=300, selection=PUCT(1.25), depth=0, evaluator=evaluator, leaves=4,
                       compiled=use_compiled)
    result = TreeSearch(cfg, "ismcts").search(state, np.random.default_rng(seat))
    assert bool(compiled_runs) == use_compiled
    seen = {0: 0.0, 1: 0.0}
    for node in nodes_of(result.root):
        visits, totals = node.stat[VISITS, node.edges], node.stat[TOTAL, node.edges]
        assert totals.tolist() == (visits * unit[node.player]).tolist(), node.player
        seen[node.player] += visits.sum()
    assert seen[0] > 0 and seen[1] > 0  # the tree holds both seats' decisions
    assert result.value == unit[seat]


def test_thousands_of_iterations_grow_the_flat_tree(network, compiled_runs):
    state = POSITIONS["start"]()
    fast = summary(state, "ismcts", 7, config(network, 3000, 16))
    assert fast == summary(state, "ismcts", 7, config(network, 3000, 16, compiled=False))
    assert sum(v for _, v in fast["visits"]) == 2999  # the first iteration expands the root


def test_a_time_budget_runs_iterations_from_the_first_decision(network):
    cfg = config(network, None, 8, seconds=0.05)
    result = TreeSearch(cfg, "ismcts").search(POSITIONS["mid"](), np.random.default_rng(0))
    assert result.iterations > 8


@pytest.mark.parametrize("change", [dict(compiled=False), dict(selection=UCB1()), dict(depth=1),
                                    dict(pruning=HardPruning(("h4",), 5))], ids=["off", "ucb1", "depth", "pruning"])
def test_configurations_it_does_not_reproduce_go_to_python(network, change, compiled_runs):
    cfg = config(network, 20, 2)
    TreeSearch(SearchConfig(**{**cfg.__dict__, **change}), "ismcts").search(POSITIONS["mid"](),
                                                                             np.random.default_rng(0))
    assert not compiled_runs


def test_an_evaluator_that_answers_no_arrays_goes_to_python(network, compiled_runs):
    inner = NetworkEvaluator(network, True)
    cfg = config(network, 20, 2)
    cfg.evaluator = lambda state: inner(state)
    TreeSearch(cfg, "ismcts").search(POSITIONS["mid"](), np.random.default_rng(0))
    assert not compiled_runs


@pytest.mark.parametrize("overlap", [False, True], ids=["rounds", "halves"])
def test_many_searches_share_one_forward_pass(network, overlap):
    """Lock-step: the searches' rows go to the network together, in whole rounds or in two halves taking turns
    (the pass of one in the background while the other runs on), and each search's result is the one it gets
    alone."""
    states = [random_moves(cardboard.new_state("lords_of_war", seed=s), np.random.default_rng(s), 30) for s in range(6)]
    rows = network.states
    alone = [summary(state, "ismcts", s, config(network, 64, 4)) for s, state in enumerate(states)]
    passes, rows, asked = network.passes, network.states, network.states - rows
    jobs = [TreeSearch(config(network, 64, 4), "ismcts").steps(state, np.random.default_rng(s))
            for s, state in enumerate(states)]
    together = list(run_together(jobs, concurrent=6, overlap=overlap))
    assert network.states - rows == asked  # the same leaves (an iteration that ends the game asks nothing)
    searches = 3 if overlap else 6
    assert (network.states - rows) / (network.passes - passes) > (searches - 1) * 4  # a half's or a round's rows
    by_action = sorted((r.action, sorted(r.visits.items())) for r in together)
    assert by_action == sorted((a["action"], sorted(a["visits"])) for a in alone)


def test_a_search_asks_for_arrays(network):
    steps = TreeSearch(config(network, 16, 4), "ismcts").steps(POSITIONS["mid"](), np.random.default_rng(0))
    request = next(steps)
    assert isinstance(request, ArrayRequest)
    assert request.observations.dtype == np.float32 and request.masks.dtype == np.bool_
    assert len(request.observations) == 1  # the root first, alone
    steps.close()


def test_the_observation_kernel_writes_what_observation_gives():
    for state in (POSITIONS["start"](), POSITIONS["mid"](), POSITIONS["end"]()):
        model = state.compiled_model()
        for player in (0, 1):
            out = np.full(int(np.prod(state.info.observation_shape)), 7.0, dtype=np.float32)
            model.observation(model.state.copy(), model.table, player, out)
            assert np.array_equal(out, state.observation(player).ravel())


CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch.cuda.is_available() is False (CPU-only torch "
                          "build or no GPU): the compiled driver's CUDA path is not exercised")


@CUDA
def test_on_cuda_the_compiled_driver_grows_the_python_tree():
    network = untrained_evaluator(POSITIONS["mid"]().info, "cuda")
    state = POSITIONS["mid"]()
    fast = summary(state, "ismcts", 3, config(network, 200, 8))
    assert fast == summary(state, "ismcts", 3, config(network, 200, 8, compiled=False))


@CUDA
def test_on_cuda_lock_step_halves_take_turns():
    network = untrained_evaluator(POSITIONS["mid"]().info, "cuda")
    states = [random_moves(cardboard.new_state("lords_of_war", seed=s), np.random.default_rng(s), 30) for s in range(8)]
    alone = [summary(state, "ismcts", s, config(network, 64, 8)) for s, state in enumerate(states)]
    passes, rows = network.passes, network.states
    jobs = [TreeSearch(config(network, 64, 8), "ismcts").steps(state, np.random.default_rng(s))
            for s, state in enumerate(states)]
    together = list(run_together(jobs, concurrent=8))  # on a GPU: two halves taking turns
    assert (network.states - rows) / (network.passes - passes) > 8  # several searches a pass
    by_action = sorted((r.action, sorted(r.visits.items())) for r in together)
    assert by_action == sorted((a["action"], sorted(a["visits"])) for a in alone)


# ---- the rows the network is asked (benchmarks/search_mutations.py: net-mask-not-cleared, ...) -----------------------
class RecordingQueue:
    """A network queue that keeps a copy of every row (observation, mask) it is asked, by either path: the compiled
    driver's batches (``evaluate``) and the Python path's states (``enqueue``, answered at ``flush``)."""

    def __init__(self, inner):
        self.inner, self.net, self.info, self.rows = inner, inner.net, inner.info, []

    def evaluate(self, observations, masks):
        self.rows += [(np.ravel(o).copy(), np.array(m)) for o, m in zip(observations, masks)]
        return self.inner.evaluate(observations, masks)

    def enqueue(self, observation, mask):
        self.rows.append((np.ravel(observation).copy(), np.array(mask)))
        return self.inner.enqueue(observation, mask)

    def flush(self):
        self.inner.flush()

    def result(self, ticket):
        return self.inner.result(ticket)


@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_each_leaf_row_is_the_python_paths(network, worlds, compiled_runs):
    """Row by row, the compiled driver asks the network what the Python path asks: the observation of the player to
    move at the leaf and a mask of exactly its legal actions (whatever an earlier leaf left in the batch's row)."""
    rows = {}
    for compiled in (True, False):
        queue = RecordingQueue(network)
        cfg = SearchConfig(iterations=300, selection=PUCT(1.25), depth=0, evaluator=NetworkEvaluator(queue, True),
                           leaves=8, compiled=compiled)
        TreeSearch(cfg, worlds).search(POSITIONS["mid"](), np.random.default_rng(6))
        rows[compiled] = queue.rows
    assert compiled_runs
    assert len(rows[True]) == len(rows[False]) > 100
    for (observation, mask), (expected_observation, expected_mask) in zip(rows[True], rows[False]):
        assert np.array_equal(mask, expected_mask)
        assert np.array_equal(observation, expected_observation)

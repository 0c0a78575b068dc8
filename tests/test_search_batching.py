"""Searches as resumable computations (issue 17, networks in the search loop): ``TreeSearch.steps`` against
``search``, leaves in flight with virtual loss, PUCT priors asked for around rollouts, a node reached twice in
flight expanded once, the lock-step runner and ``answer`` flushing each shared queue once per round, the
``leaves`` refusals, and the network evaluator's batched answers and cache."""
from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from cardboard.envs.errors import InvalidParameterError
from cardboard.search import batching
from cardboard.search.batching import Request, answer, batches, drive, run_together
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.strategies import PUCT, UCB1, Evaluation
from cardboard.search.tree import PRIOR, TOTAL, VISITS, new_root

from .games import nim
from .trees import edge_stats, nodes_of


# ---- helpers --------------------------------------------------------------------------------------------
def nim_values(state):
    """Deterministic per-player values of a nim state that depend on the heaps (not 0.5 everywhere)."""
    f = (sum((i + 2) * h for i, h in enumerate(state.heaps)) % 7) / 6.0
    return np.array([f, 1.0 - f])


def prior_weights(state):
    """A prior that weights action id ``a`` by ``a + 1``."""
    return np.arange(1.0, state.info.num_actions + 1)


def recording(calls, prior=False, values=nim_values):
    """A plain evaluator recording each state it is asked about; with ``prior``, ``Evaluation(values, prior)``."""
    def evaluator(state):
        calls.append(state.clone())
        v = values(state)
        return Evaluation(v, prior_weights(state)) if prior else v
    return evaluator


class CountingQueue:
    """A fake network queue: ``flush`` answers everything submitted since the last one (sizes recorded)."""

    def __init__(self):
        self.pending: dict[int, object] = {}
        self.done: dict[int, object] = {}
        self.flushes: list[int] = []
        self.next = 0

    def submit(self, state):
        ticket = self.next
        self.next += 1
        self.pending[ticket] = state.clone()
        return ticket

    def flush(self):
        self.flushes.append(len(self.pending))
        self.done.update({t: nim_values(s) for t, s in self.pending.items()})
        self.pending.clear()

    def result(self, ticket):
        assert ticket not in self.pending, "collected before its queue was flushed"
        return self.done.pop(ticket)


class FakeBatching:
    """A ``BatchingEvaluator`` over a ``CountingQueue`` (values only); ``calls`` counts direct ``__call__``s."""

    def __init__(self, queue=None):
        self.queue = queue or CountingQueue()
        self.calls = 0

    def submit(self, states):
        return [self.queue.submit(s) for s in states]

    def collect(self, token):
        return [self.queue.result(t) for t in token]

    def __call__(self, state):
        self.calls += 1
        token = self.submit([state])
        self.queue.flush()
        return self.collect(token)[0]


def by_hand(run, evaluator):
    """Drive a resumable search answering each request per state; returns (result, requests seen)."""
    requests = []
    try:
        request = next(run)
        while True:
            requests.append(request)
            request = run.send([evaluator(s) for s in request.states])
    except StopIteration as stop:
        return stop.value, requests


def signature(result):
    return result.action, tuple(sorted(result.visits.items()))


NIM = nim.NimGame((9, 9, 9), max_take=3)  # 9 legal root moves, 27 moves to the end: no terminal in small trees


# ---- 1. search == steps driven by hand -----------------------------------------------------------------
@pytest.mark.parametrize("selection,depth,prior", [(UCB1(), 2, False), (PUCT(1.0), 0, True)])
def test_search_and_steps_driven_by_hand_give_the_same_result_with_one_leaf(selection, depth, prior):
    state = NIM.new_state()
    config = SearchConfig(iterations=80, depth=depth, selection=selection, evaluator=recording([], prior))
    searched = TreeSearch(config, "uct").search(state, np.random.default_rng(5))
    calls = []
    config = SearchConfig(iterations=80, depth=depth, selection=selection, evaluator=recording(calls, prior))
    driven, requests = by_hand(TreeSearch(config, "uct").steps(state, np.random.default_rng(5)), config.evaluator)
    assert signature(driven) == signature(searched) and driven.iterations == searched.iterations == 80
    assert np.array_equal(edge_stats(driven.root), edge_stats(searched.root))
    assert all(isinstance(r, Request) and r.evaluators == [config.evaluator] and len(r.states) == 1 for r in requests)
    assert len(requests) == len(calls) > 0  # leaves=1: one state per request, the evaluator asked only through them


# ---- 2. leaves=K: requests of K states, every iteration backed up ----------------------------------------
@pytest.mark.parametrize("iterations,leaves", [(30, 4), (32, 4), (7, 3)])
def test_leaves_in_flight_come_k_states_per_request_and_every_iteration_is_backed_up(iterations, leaves):
    config = SearchConfig(iterations=iterations, depth=0, leaves=leaves, evaluator=recording([]))
    result, requests = by_hand(TreeSearch(config, "uct").steps(NIM.new_state(), np.random.default_rng(1)),
                               config.evaluator)
    sizes = [len(r.states) for r in requests]
    expected = [leaves] * (iterations // leaves) + ([iterations % leaves] if iterations % leaves else [])
    assert sizes == expected and sum(sizes) == iterations
    root = result.root
    assert root.stat[VISITS, root.edges].sum() == iterations == sum(result.visits.values()) == result.iterations
    assert all(not s.is_terminal() and s.current_player >= 0 for r in requests for s in r.states)


def test_leaves_in_flight_back_up_the_answers_of_their_own_states():
    """Every root edge's total is the sum of the values (for the root player) answered for the states below it."""
    state = NIM.new_state()
    config = SearchConfig(iterations=9, depth=0, leaves=3, evaluator=recording([]))
    result, requests = by_hand(TreeSearch(config, "uct").steps(state, np.random.default_rng(2)), config.evaluator)
    root = result.root
    for r in requests:
        for s in r.states:
            moved = [a for a in state.legal_actions() if _after(state, a).heaps == s.heaps]
            edge = root.edge(state.action_key(int(moved[0])))
            assert np.isclose(root.stat[TOTAL, edge], nim_values(s)[0]) and root.stat[VISITS, edge] == 1


def _after(state, action):
    child = state.clone()
    child.apply(int(action))
    return child


# ---- 3. virtual loss ------------------------------------------------------------------------------------
@pytest.mark.parametrize("leaves", [2, 5, 9])
def test_virtual_loss_sends_the_leaves_in_flight_down_distinct_root_edges(leaves):
    state = NIM.new_state()
    root = new_root(state)
    config = SearchConfig(iterations=40, depth=0, leaves=leaves, evaluator=nim_values)
    run = TreeSearch(config, "uct").steps(state, np.random.default_rng(3), root=root)
    first = next(run)
    assert len(first.states) == leaves
    assert len({tuple(s.heaps) for s in first.states}) == leaves  # one distinct root move each
    visited = root.stat[VISITS, root.edges]
    assert visited.sum() == leaves and visited.max() == 1  # visits counted at descent ...
    assert root.stat[TOTAL, root.edges].sum() == 0  # ... with no reward yet
    run.close()


# ---- 4. PUCT over rollouts asks the evaluator for priors only ------------------------------------------
def test_a_prior_evaluator_is_asked_only_for_new_nodes_priors_and_its_values_are_ignored():
    game = nim.NimGame((2, 3, 4))
    state = game.new_state()
    roots, asked = [], []
    for fake in (0.3, 0.9):  # values the search must not use (rollouts to the end give 0 or 1)
        calls = []
        config = SearchConfig(iterations=60, depth=None, selection=PUCT(1.0),
                              prior=recording(calls, prior=True, values=lambda s, v=fake: np.array([v, v])))
        result = TreeSearch(config, "uct").search(state, np.random.default_rng(4))
        roots.append(result.root)
        asked.append(calls)
        expanded = [node for node in nodes_of(result.root) if len(node.edges)]
        assert len(calls) == len(expanded)  # one ask per new node, none for values
        assert all(not s.is_terminal() for s in calls)
        totals = result.root.stat[TOTAL, result.root.edges]
        assert np.array_equal(totals, np.round(totals))  # only rollouts' 0 / 1 rewards were backed up
    assert np.array_equal(edge_stats(roots[0]), edge_stats(roots[1]))  # the answered values changed nothing
    root, legal = roots[0], np.asarray(state.legal_actions())
    weights = prior_weights(state)[legal]
    expected = {state.action_key(int(a)): w for a, w in zip(legal, weights / weights.sum())}
    got = {root.key(e): root.stat[PRIOR, e] for e in root.edges.tolist()}
    assert got.keys() == expected.keys() and all(np.isclose(got[k], expected[k]) for k in got)
    assert not np.allclose(list(got.values()), 1 / len(legal))  # the prior is the evaluator's, not uniform


def test_without_a_prior_evaluator_a_puct_search_over_rollouts_never_asks_the_evaluator():
    calls = []
    config = SearchConfig(iterations=40, depth=None, selection=PUCT(1.0), evaluator=recording(calls, prior=True))
    run = TreeSearch(config, "uct").steps(nim.NimGame((2, 3, 4)).new_state(), np.random.default_rng(4))
    with pytest.raises(StopIteration):
        next(run)  # runs through without yielding
    assert calls == []


# ---- 5. a PUCT node reached twice in flight is expanded once --------------------------------------------
@pytest.mark.parametrize("depth,separate_prior", [(0, False), (None, True)])
def test_a_puct_node_reached_by_several_leaves_in_flight_is_expanded_once(depth, separate_prior):
    game = nim.NimGame((1, 2), max_take=2)  # 3 root moves, a tiny tree: leaves in flight meet in it
    calls = []
    asked = recording(calls, prior=True)
    config = SearchConfig(iterations=48, depth=depth, leaves=8, selection=PUCT(1.0),
                          **({"prior": asked} if separate_prior else {"evaluator": asked}))
    result = TreeSearch(config, "uct").search(game.new_state(), np.random.default_rng(6))
    states = [tuple(s.heaps) + (s.current_player,) for s in calls]
    assert Counter(states)[(1, 2, 0)] == 1  # a new root is expanded alone, before any leaf goes in flight
    assert sum(result.visits.values()) == 47  # every iteration but the root's expansion reaches an edge
    assert max(Counter(states).values()) > 1  # below the root, leaves in flight meet
    for node in nodes_of(result.root):
        prior = node.stat[PRIOR, node.edges]
        if len(prior):
            assert np.isclose(prior.sum(), 1.0), prior  # not 2, not 8


# ---- 6. run_together ------------------------------------------------------------------------------------
def never_yields(value):
    return value
    yield  # a generator function that returns without yielding


def jobs(evaluator, iterations=10, leaves=4):
    """Three searches that ask ``evaluator`` (depth 0) and two that never yield (rollouts to the end, a stub)."""
    def search(seed):
        config = SearchConfig(iterations=iterations, depth=0, leaves=leaves, evaluator=evaluator)
        return TreeSearch(config, "uct").steps(NIM.new_state(), np.random.default_rng(seed))
    rollouts = TreeSearch(SearchConfig(iterations=20), "uct").steps(NIM.new_state(), np.random.default_rng(9))
    return [search(0), rollouts, search(1), never_yields("stub"), search(2)]


def results_key(results):
    return Counter(r if isinstance(r, str) else signature(r) for r in results)


def test_run_together_returns_every_result_and_flushes_the_shared_queue_once_per_round():
    alone = [drive(job) for job in jobs(FakeBatching())]
    one, three = FakeBatching(), FakeBatching()
    got_one = list(run_together(jobs(one), concurrent=1))
    got_three = list(run_together(jobs(three), concurrent=3))
    assert len(got_one) == len(got_three) == 5
    assert results_key(got_one) == results_key(got_three) == results_key(alone)
    assert one.queue.flushes == [4, 4, 2] * 3  # one search at a time: its own requests
    assert three.queue.flushes == [12, 12, 6]  # three in lock-step: one flush per round, all their states
    assert one.calls == three.calls == 0  # never called state by state


def test_run_together_with_more_places_than_jobs_and_refuses_zero():
    queue = FakeBatching()
    assert results_key(run_together(jobs(queue), concurrent=10)) == results_key(
        [drive(job) for job in jobs(FakeBatching())])
    assert queue.queue.flushes == [12, 12, 6]
    with pytest.raises(ValueError):
        list(run_together(iter([]), concurrent=0))
    assert list(run_together([never_yields(1), never_yields(2)], concurrent=2)) == [1, 2]


# ---- 7. answer ------------------------------------------------------------------------------------------
def test_answer_calls_a_plain_evaluator_once_per_state_and_flushes_a_shared_queue_once():
    states = [_after(NIM.new_state(), a) for a in NIM.new_state().legal_actions()[:5]]
    calls = []
    plain = recording(calls)
    queue = CountingQueue()
    first, second = FakeBatching(queue), FakeBatching(queue)
    assert batches(first) and not batches(plain)
    got = answer([Request.of(first, states[:2]), Request.of(plain, states[2:4]), Request.of(second, states[3:])])
    assert queue.flushes == [4]  # both batching requests in one flush
    assert len(calls) == 2 and [c.heaps for c in calls] == [s.heaps for s in states[2:4]]
    expected = [states[:2], states[2:4], states[3:]]
    assert [len(g) for g in got] == [2, 2, 2]
    for answers, asked in zip(got, expected):
        assert all(np.array_equal(a, nim_values(s)) for a, s in zip(answers, asked))
    assert first.calls == second.calls == 0


def test_act_steps_of_a_plain_agent_never_yields_and_returns_its_action():
    class Fixed:
        def act(self, state, rng):
            return 7

    run = batching.act_steps(Fixed(), NIM.new_state(), np.random.default_rng(0))
    with pytest.raises(StopIteration) as stop:
        next(run)
    assert stop.value.value == 7


# ---- 8. refusals ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("leaves", [0, -1, 1.5, 2.0, "2"])
def test_leaves_must_be_a_positive_int(leaves):
    with pytest.raises(InvalidParameterError):
        SearchConfig(leaves=leaves)


def test_the_leaves_knob_of_a_spec_is_checked():
    from cardboard.registry import make_agent

    with pytest.raises(InvalidParameterError):
        make_agent("ismcts:leaves=0")
    agent = make_agent("ismcts:leaves=3,iterations=10")
    assert agent.searcher.config.leaves == 3


# ---- 9. the network evaluator ---------------------------------------------------------------------------
def test_network_evaluator_answers_a_batch_as_it_answers_each_state(tmp_path):
    torch = pytest.importorskip("torch")
    from cardboard.envs.protocol import CHANCE, sample_chance
    from cardboard.policies.evaluator import BatchedEvaluator
    from cardboard.policies.net_agent import NetworkEvaluator, load_evaluator
    from cardboard.policies.network import PolicyValueNet
    from cardboard.registry import make_game

    torch.set_num_threads(1)
    game = make_game("lords_of_war")
    torch.manual_seed(0)
    net = PolicyValueNet(game.info, hidden=(16,))
    rng = np.random.default_rng(0)
    state = game.new_state(seed=0)
    states = [state.clone()]
    for _ in range(3):
        state.apply(int(rng.choice(state.legal_actions())))
    states.append(state.clone())
    while not state.is_terminal():  # a terminal state too (answered with its returns)
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        else:
            state.apply(int(rng.choice(state.legal_actions())))
    states.append(state)
    evaluator = NetworkEvaluator(BatchedEvaluator(net))
    assert batches(evaluator)
    token = evaluator.submit(states)
    assert evaluator.queue.pending == 2  # the terminal state needs no forward pass
    evaluator.queue.flush()
    batched = evaluator.collect(token)
    single = [evaluator(s) for s in states]
    assert len(batched) == 3
    for b, s in zip(batched, single):
        assert np.allclose(b.values, s.values, atol=1e-6)
        assert (b.prior is None) == (s.prior is None)
        if b.prior is not None:
            assert np.allclose(b.prior, s.prior, atol=1e-6)
    low, span = game.info.min_return, game.info.max_return - game.info.min_return
    assert np.allclose(batched[2].values, (np.asarray(states[2].returns()) - low) / span)
    # one answer() for two requests on one network: one flush, the same answers
    other = NetworkEvaluator(evaluator.queue, prior=False)
    flushes = []
    real_flush = evaluator.queue.flush
    evaluator.queue.flush = lambda: (flushes.append(evaluator.queue.pending), real_flush())
    try:
        got = answer([Request.of(evaluator, states[:2]), Request.of(other, states[:2])])
    finally:
        del evaluator.queue.flush
    assert flushes == [4]
    assert all(np.allclose(g.values, s.values, atol=1e-6) for g, s in zip(got[0] + got[1], single[:2] * 2))
    assert got[1][0].prior is None and got[0][0].prior is not None

    # load_evaluator: one per unchanged file, a new one once the file changed
    path = str(tmp_path / "net.pt")
    net.save(path)
    first = load_evaluator(path, game.info)
    assert load_evaluator(path, game.info) is first
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert load_evaluator(path, game.info) is first  # the same bytes: the same network
    torch.manual_seed(1)
    PolicyValueNet(game.info).save(path)  # rewritten: other weights
    assert load_evaluator(path, game.info) is not first

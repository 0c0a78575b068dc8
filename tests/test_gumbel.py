"""Gumbel policy improvement (search.gumbel): each formula on hand-computed numbers, the tree step, the root's
Gumbel-top-k and sequential halving, the search on small games, and the agent knobs."""
import math

import numpy as np
import pytest

from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import sample_chance
from cardboard.search.core import PRIOR, TOTAL, VISITS
from cardboard.search.gumbel import (Gumbel, GumbelSearch, considered_visits, improved_policy, interior_choice,
                                     mixed_value, root_scores, select_gumbel, sigma)
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.strategies import Evaluation

from .games import hidden_cards, nim
from .trees import hand_tree

RNG = np.random.default_rng(0)


def test_considered_visits_halves_the_candidates():
    # m=4, n=8: ceil(log2 4) = 2 rounds; 4 candidates get 8 // (2*4) = 1 visit each, then 2 get 8 // (2*2) = 2
    assert considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visits(2, 4) == (0, 0, 1, 1)  # one round of 4 // 2 = 2 visits each
    assert considered_visits(16, 16) == (0,) * 16  # 16 // (4*16) = 0 -> one visit each, the budget spent
    # m=3, n=10: 3 candidates get 10 // (2*3) = 1 visit, then 2 get 10 // (2*2) = 2 per round until the budget ends
    assert considered_visits(3, 10) == (0, 0, 0, 1, 1, 2, 2, 3, 3, 4)
    assert considered_visits(1, 3) == (0, 1, 2)


def test_mixed_value_by_hand():
    # v_mix = (0.5 + 3 * (0.5*0.8 + 0.2*0.2) / (0.5 + 0.2)) / 4 = (0.5 + 3 * 0.628571) / 4
    v = mixed_value(0.5, np.array([0.8, 0.0, 0.2]), np.array([2.0, 0.0, 1.0]), np.array([0.5, 0.3, 0.2]))
    assert v == pytest.approx((0.5 + 3 * 0.44 / 0.7) / 4)
    assert v == pytest.approx(0.5964286, abs=1e-7)
    assert mixed_value(0.3, np.zeros(2), np.zeros(2), np.array([0.5, 0.5])) == 0.3  # nothing visited: the raw value


def test_sigma_completes_rescales_and_scales():
    out = np.empty(3)
    sigma(np.array([0.8, 0.0, 0.2]), np.array([2.0, 0.0, 1.0]), 0.5964286, 50.0, 1.0, out)
    # completed (0.8, 0.5964286, 0.2) -> min-max (1, 0.660714, 0) -> times (50 + 2) * 1
    assert out == pytest.approx([52.0, 52 * 0.3964286 / 0.6, 0.0], abs=1e-5)
    sigma(np.array([0.8, 0.0, 0.2]), np.array([2.0, 0.0, 1.0]), 0.5964286, 50.0, 0.1, out)
    assert out == pytest.approx([5.2, 3.4357143, 0.0], abs=1e-6)
    sigma(np.array([0.4, 0.4]), np.array([1.0, 1.0]), 0.1, 50.0, 1.0, out[:2])
    assert out[:2] == pytest.approx([0.0, 0.0])  # equal Q: no range to rescale, no preference


def test_improved_policy_by_hand():
    out = np.empty(2)
    improved_policy(np.array([0.0, math.log(2.0)]), np.array([1.0, 0.0]), out)
    # softmax(1, ln 2) = (e, 2) / (e + 2)
    assert out == pytest.approx([math.e / (math.e + 2), 2 / (math.e + 2)])


def test_interior_choice_by_hand():
    # pi - N / (1 + sum N), sum N = 4: (0.5 - 3/5, 0.3 - 0, 0.2 - 1/5) = (-0.1, 0.3, 0.0)
    assert interior_choice(np.array([0.5, 0.3, 0.2]), np.array([3.0, 0.0, 1.0])) == 1
    assert interior_choice(np.array([0.5, 0.5]), np.array([0.0, 0.0])) == 0  # a tie: the first


def test_root_scores_by_hand():
    score = root_scores(1, np.array([0.1, 0.2, 0.3]), np.array([0.0, -1.0, -2.0]), np.array([0.0, 0.0, 5.0]),
                        np.array([1.0, 0.0, 1.0]))
    assert score[0] == pytest.approx(0.1) and score[1] == -np.inf and score[2] == pytest.approx(3.3)


def test_select_gumbel_takes_the_interior_rule_and_counts_the_visit():
    # priors (0.6, 0.3, 0.1); visits (3, 0, 0), Q (0.2, -, -); raw value 0.9
    tree = hand_tree([3.0, 0.0, 0.0], [0.6, 0.0, 0.0], [3.0, 3.0, 3.0], prior=[0.6, 0.3, 0.1])
    # v_mix = (0.9 + 3 * 0.2) / 4 = 0.375; completed (0.2, 0.375, 0.375) -> q̂ (0, 1, 1) -> sigma (0, 53, 53)
    # pi' ∝ (0.6, 0.3 e^53, 0.1 e^53) = (~0, 0.75, 0.25); minus N / 4: (-0.75, 0.75, 0.25) -> key 1
    node, i, edge, fresh = tree.step(select_gumbel, 3, 0, 0, np.arange(3, dtype=np.int64), 50.0, 1.0, 0.9, 9.0, 1.0)
    assert (node, i, fresh) == (0, 1, True)
    assert tree.stat[VISITS, edge] == 1.0
    # a low raw value turns it around: v_mix = (0.0 + 3 * 0.2) / 4 = 0.15 < 0.2, q̂ (1, 0, 0): pi' ~ (1, 0, 0),
    # minus N / 4: (0.25, 0, 0) -> key 0
    tree.stat[VISITS, edge] = 0.0
    assert tree.step(select_gumbel, 3, 0, 0, np.arange(3, dtype=np.int64), 50.0, 1.0, 0.0, 10.0, 1.0)[1] == 0


def test_select_gumbel_counts_a_key_of_two_legal_actions_once():
    tree = hand_tree([0.0, 0.0], [0.0, 0.0], [0.0, 0.0], prior=[0.5, 0.5])
    # ids (0, 0, 1): key 0 twice. Deduplicated, pi' = (0.5, 0.5) and the first legal index of key 0 is taken
    node, i, edge, _ = tree.step(select_gumbel, 3, 0, 0, np.array([0, 0, 1], dtype=np.int64), 50.0, 1.0, 0.5, 1.0,
                                 1.0)
    assert i == 0 and tree.stat[VISITS, edge] == 1.0


class FixedPrior:
    """An evaluator with a fixed prior over action ids and values (0.5, 0.5)."""

    def __init__(self, prior):
        self.prior = np.asarray(prior, dtype=float)

    def __call__(self, state):
        return Evaluation(np.full(state.num_players, 0.5), self.prior)


def uniform(state):
    return Evaluation(np.full(state.num_players, 0.5))


def gumbel_search(iterations, m=16, worlds="uct", evaluator=uniform, **config):
    cfg = SearchConfig(iterations=iterations, **{"depth": 0, **config}, selection=Gumbel(m), evaluator=evaluator)
    return GumbelSearch(cfg, worlds)


def test_the_root_samples_by_gumbel_top_k():
    # one simulation: the action played is the Gumbel-max draw, distributed as the prior (0.7, 0.2, 0.1)
    game = nim.NimGame((3,))
    engine = gumbel_search(1, m=1, evaluator=FixedPrior([0.7, 0.2, 0.1]))
    rng = np.random.default_rng(1)
    counts = np.bincount([engine.search(game.new_state(), rng).action for _ in range(3000)], minlength=3)
    assert counts / 3000 == pytest.approx([0.7, 0.2, 0.1], abs=0.03)


def test_sequential_halving_spends_the_schedule():
    # heaps (9,): nine keys, m = 4 candidates, 8 simulations: four get one visit, two of them two more
    engine = gumbel_search(8, m=4)
    result = engine.search(nim.NimGame((9,)).new_state(), np.random.default_rng(0))
    assert sorted(result.visits.values()) == [1, 1, 3, 3]
    assert result.iterations == 8
    assert result.visits[nim.NimGame((9,)).new_state().action_key(result.action)] == 3  # among the most visited


def test_the_policy_target_is_the_improved_policy_over_every_legal_key():
    state = nim.NimGame((1, 3)).new_state()
    result = gumbel_search(16).search(state, np.random.default_rng(0))
    keys = {state.action_key(int(a)) for a in state.legal_actions()}
    assert set(result.policy) == keys
    assert sum(result.policy.values()) == pytest.approx(1.0)
    # taking the last object of heap (1) with heap (3) left loses: the improved policy moves mass off it
    assert 0.0 <= result.value <= 1.0


def nim_value(state):
    """The exact value of a Nim position: the player to move wins iff the heaps' XOR is not 0."""
    wins = float(nim.grundy(state) != 0)
    values = np.full(2, 1.0 - wins)
    values[state.current_player] = wins
    return Evaluation(values)


@pytest.mark.parametrize("seed", range(5))
def test_gumbel_finds_the_winning_nim_move(seed):
    # (1, 3, 5): XOR 7, one winning move (5 -> 2) among 9; exact leaf values seen from the mover below must be
    # credited to the root player as their complement
    state = nim.NimGame((1, 3, 5)).new_state()
    result = gumbel_search(24, m=16, evaluator=nim_value).search(state, np.random.default_rng(seed))
    assert result.action in nim.winning_moves(state)
    assert max(result.policy, key=result.policy.get) == state.action_key(result.action)


def test_hidden_information_gumbel_bets_the_right_card():
    # player 0 holding 3 of 5 must bet (hidden_cards' right move); ISMCTS worlds, rollouts to the end
    state = hidden_cards.HiddenCardsGame(5).state_with(3, 5)
    engine = GumbelSearch(SearchConfig(iterations=64, depth=None, selection=Gumbel(16)), "ismcts")
    assert engine.search(state, np.random.default_rng(0)).action == hidden_cards.right_move(state)
    duct = GumbelSearch(SearchConfig(iterations=64, depth=None, selection=Gumbel(16)), "duct", 4)
    assert duct.search(state, np.random.default_rng(0)).action == hidden_cards.right_move(state)


def test_a_time_budget_plans_the_halving_from_the_first_round():
    state = nim.NimGame((9,)).new_state()
    engine = GumbelSearch(SearchConfig(iterations=None, seconds=0.3, depth=0, evaluator=uniform, selection=Gumbel(4)),
                          "uct")
    result = engine.search(state, np.random.default_rng(0))
    assert result.seconds < 3.0 and result.iterations > 4  # the first round (four candidates) and more
    visits = sorted(result.visits.values())
    assert len(visits) == 4 and visits[-1] > visits[0]  # halving: the best candidates got more
    capped = GumbelSearch(SearchConfig(iterations=6, seconds=5.0, depth=0, evaluator=uniform, selection=Gumbel(4)),
                          "uct")
    assert capped.search(state, np.random.default_rng(0)).iterations == 6  # iterations cap a time budget


def test_prune_searches_the_sensible_actions_only():
    game = registry.make_game("fifth_aeon")
    state = game.new_state(2)
    while len(state.sensible_actions()) == len(state.legal_actions()) or state.current_player < 0:
        state.apply(int(state.legal_actions()[0]) if state.current_player >= 0 else sample_chance(state, RNG))
    agent = registry.make_agent("ismcts:gumbel=1,prune=1,heuristic=1,iterations=8", game)
    action = agent.act(state, np.random.default_rng(0))
    sensible = {state.action_key(int(a)) for a in state.sensible_actions()}
    assert state.action_key(action) in sensible and set(agent.last.policy) == sensible


def test_same_seed_same_search():
    state = nim.NimGame((2, 3, 4)).new_state()
    first, second = (gumbel_search(24, leaves=4).search(state, np.random.default_rng(5)) for _ in range(2))
    assert (first.action, first.visits, first.policy) == (second.action, second.visits, second.policy)


def test_gumbel_is_a_selection_rule_of_the_tree_search_and_refuses_what_it_cannot_do():
    """A plain ``TreeSearch`` with ``Gumbel`` selection runs Gumbel search over the one Python loop: the same search
    as ``GumbelSearch``'s, π′ included; its rule refuses tree reuse and a tree to continue."""
    state = nim.NimGame((2, 3, 4)).new_state()
    config = SearchConfig(iterations=24, depth=None, selection=Gumbel(4))
    plain, named = (engine.search(state, np.random.default_rng(5))
                    for engine in (TreeSearch(config, "ismcts"), GumbelSearch(config, "ismcts")))
    assert plain.policy and (plain.action, plain.visits, plain.policy) == (named.action, named.visits, named.policy)
    assert plain.driver.startswith("python (Gumbel selection has no compiled step")
    with pytest.raises(InvalidParameterError, match="reuse"):
        TreeSearch(config, reuse=True)
    with pytest.raises(InvalidParameterError, match="root="):
        TreeSearch(config).search(state, np.random.default_rng(0), root=plain.root)
    with pytest.raises(InvalidParameterError, match="m must be"):
        Gumbel(0)


@pytest.mark.parametrize("spec, error", [("ismcts:gumbel=1,reuse=1", "reuse"), ("ismcts:gumbel=1,cnb=1", "cnb"),
                                         ("ismcts:gumbel=1,parallel=tree", "parallel"),
                                         ("ismcts:gumbel=1,prune=h4", "prune")])
def test_gumbel_knobs_refuse_what_they_cannot_combine(spec, error):
    with pytest.raises(InvalidParameterError, match=error):
        registry.make_agent(spec, registry.make_game("lords_of_war"))


def test_gumbel_agent_with_a_network_plays_and_hands_back_its_policy(tmp_path):
    pytest.importorskip("torch")
    from cardboard.policies.network import PolicyValueNet

    game = registry.make_game("lords_of_war")
    PolicyValueNet(game.info).save(tmp_path / "net")
    agent = registry.make_agent(f"ismcts:net={tmp_path / 'net'},gumbel=1,m=8,iterations=8,leaves=4", game)
    state = game.new_state(0)
    action = agent.act(state, np.random.default_rng(0))
    assert state.action_mask()[action]
    assert agent.last.iterations == 8 and sum(agent.last.policy.values()) == pytest.approx(1.0)


def test_the_root_node_records_the_visits():
    state = nim.NimGame((2, 3)).new_state()
    result = gumbel_search(8, m=4).search(state, np.random.default_rng(0))
    root = result.root
    assert root.stat[VISITS, root.edges].sum() == 8
    assert (root.stat[PRIOR, root.edges] > 0).all() and np.isfinite(root.stat[TOTAL, root.edges]).all()


def test_a_nodes_raw_value_is_its_first_evaluation():
    """Two leaves in flight that reached one node: the node's v̂ (the interior steps' v_mix) is the first one's."""
    from cardboard.search.config import Run
    from cardboard.search.gumbel import GumbelRule
    from cardboard.search.loop import Leaf
    from cardboard.search.tree import new_root

    state = nim.NimGame((3,)).new_state()
    config = SearchConfig(iterations=4, depth=0, selection=Gumbel(2))
    rule = GumbelRule(config.selection, config, Run(state, np.random.default_rng(0), None, 0.0))
    tree = new_root(state).tree
    first, second = Leaf(tree, [], 0), Leaf(tree, [], 0)
    first.values, second.values = np.array([0.9, 0.1]), np.array([0.2, 0.8])
    rule.settled([first, second], 0)
    assert rule.raw == {0: 0.9}


def test_duct_gumbel_takes_the_fixed_worlds_in_turn_after_the_roots_own(monkeypatch):
    """The root's evaluation plays world 0, simulation i world i + 1: the fixed worlds in turn, none twice running."""
    from cardboard.search.worlds import Fixed

    asked, world = [], Fixed.world
    monkeypatch.setattr(Fixed, "world", lambda self, *args: asked.append(args[-1]) or world(self, *args))
    engine = GumbelSearch(SearchConfig(iterations=6, depth=None, selection=Gumbel(4)), "duct", 3)
    engine.search(nim.NimGame((2, 3, 4)).new_state(), np.random.default_rng(0))
    assert asked == list(range(7))


@pytest.mark.parametrize("raw_value, chosen", [(1.0, 1), (0.0, 0)])
def test_the_interior_step_completes_an_unvisited_q_with_the_nodes_value(raw_value, chosen):
    """Two keys of equal prior, the first visited once at 0.5: v_mix = (v̂ + 0.5) / 2 completes the second's Q, so a
    node valued 1 sends the step to the unvisited key, a node valued 0 back to the visited one."""
    from cardboard.search.config import Run
    from cardboard.search.gumbel import C_SCALE, C_VISIT, GumbelRule, select_gumbel
    from cardboard.search.tree import expand, legal_ids, new_root

    state = nim.NimGame((2,)).new_state()

    def node_with_a_visited_key():
        tree = new_root(state).tree
        ids = legal_ids(tree.table, state, np.asarray(state.legal_actions()), True)
        expand(tree, 0, ids, np.array([0.5, 0.5]))
        first = tree.edge(0, int(ids[0]))
        tree.stat[VISITS, first], tree.stat[TOTAL, first] = 1.0, 0.5
        return tree, ids

    tree, ids = node_with_a_visited_key()
    assert len(ids) == 2
    assert tree.step(select_gumbel, 2, 0, 0, ids, C_VISIT, C_SCALE, raw_value, 1.0, 1.0)[1] == chosen
    config = SearchConfig(iterations=4, depth=0, selection=Gumbel(2))
    rule = GumbelRule(config.selection, config, Run(state, np.random.default_rng(0), None, 0.0))
    rule.raw[0] = raw_value  # the rule's interior step reads the node's evaluated value
    tree, ids = node_with_a_visited_key()
    assert rule.step(tree, 0, -1, 0, ids, 1.0, 1.0, False, 0.0)[1] == chosen

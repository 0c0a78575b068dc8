"""What a search is given reaches what it does: leaf values for the right player, RHEA's mutation-rate schedule,
the hard pruning limit on every path, an agent's exploration constant (each kills a mutation of
``benchmarks/search_mutations.py``)."""
from __future__ import annotations

import numpy as np
import pytest

import cardboard
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning
from cardboard.search.rhea import RHEA, Mutator, RandomPolicy
from cardboard.search.strategies import PUCT, Evaluation
from cardboard.search.tree import TOTAL, VISITS

from .games import nim
from .trees import nodes_of


# ---- leaf values are backed up for the player who chose each edge -------------------------------------------
@pytest.mark.parametrize("selection", [None, PUCT()], ids=["ucb1", "puct-with-prior"])
@pytest.mark.parametrize("leaves", [1, 4])
def test_an_evaluators_values_are_credited_to_the_player_of_each_node(selection, leaves):
    """An evaluator (a network's place) that values every state 1 for the searching player and 0 for the other:
    every edge of the searcher's nodes totals its visits, every edge of the opponent's totals 0."""
    state = cardboard.new_state("lords_of_war", seed=2)
    me = state.current_player
    values = np.array([1.0 if p == me else 0.0 for p in range(2)])
    prior = np.ones(state.info.num_actions)

    def evaluator(_):
        return Evaluation(values.copy(), prior)

    config = SearchConfig(iterations=400, depth=0, evaluator=evaluator, leaves=leaves,
                          **({} if selection is None else {"selection": selection}))
    root = TreeSearch(config, "uct").search(state, np.random.default_rng(0)).root
    seen = {me: 0.0, 1 - me: 0.0}
    for node in nodes_of(root):
        visits, totals = node.stat[VISITS, node.edges], node.stat[TOTAL, node.edges]
        assert np.array_equal(totals, visits * values[node.player]), node.player
        seen[node.player] += visits.sum()
    assert seen[me] > 0 and seen[1 - me] > 0  # the tree reaches the opponent's decisions


# ---- RHEA: plan() follows the mutator's schedule ------------------------------------------------------------
class RateSpy(Mutator):
    """A mutator that records the rate ``plan`` asks it to mutate at."""

    def __init__(self, *args):
        super().__init__(*args)
        self.rates = []

    def points(self, genome, rate, rng):
        self.rates.append(rate)
        return super().points(genome, rate, rng)


def test_plan_mutates_at_the_annealed_rate_of_each_generation():
    spy = RateSpy(RandomPolicy(), 1.0, 0.5)
    RHEA(horizon=2, generations=5, evaluations=1, mutator=spy).plan(nim.NimState(nim.NimGame((3, 4, 5))),
                                                                   np.random.default_rng(0))
    assert spy.rates == [1.0, 0.875, 0.75, 0.625, 0.5]


# ---- the hard pruning limit, on every path ------------------------------------------------------------------
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("hpl", [1, 2, 5])
def test_a_pruned_search_keeps_exactly_hpl_moves_at_the_root(hpl, compiled):
    """One heuristic, one world (UCT): the root is judged once and keeps exactly HPL of its many moves, and the
    search visits exactly those."""
    state, rng = cardboard.new_state("lords_of_war", seed=1), np.random.default_rng(1)
    while len(state.legal_actions()) < 10:  # a position with many moves
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    legal = state.legal_actions()
    config = SearchConfig(iterations=300, pruning=HardPruning(("h4",), hpl), compiled=compiled)
    result = TreeSearch(config, "uct").search(state, np.random.default_rng(3))
    ids = np.array([result.root.table.id(state.action_key(int(a))) for a in legal])
    assert result.root.pruned.kept[ids].sum() == hpl
    assert len(result.visits) == hpl
    assert len(HardPruning(("h4",), hpl).keep(state, legal, np.random.default_rng(0))) == hpl


# ---- an agent's c reaches its search ------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["uct:iterations=300", "ismcts:iterations=300", "duct:worlds=2,iterations=300",
                                  "pimc:worlds=2,iterations=300", "uct:iterations=300,compiled=0"])
def test_the_exploration_constant_of_an_agent_spec_shapes_its_search(kind):
    """c=0 exploits (after one visit each, the best mean takes almost every visit), c=5 spreads the visits: on the
    same seed the root's most visited move gets far more visits with c=0."""
    game = cardboard.make_game("lords_of_war")
    state = cardboard.new_state("lords_of_war", seed=4)
    top = {}
    for c in (0, 5):
        agent = cardboard.make_agent(f"{kind},c={c}", game)
        agent.act(state, np.random.default_rng(7))
        top[c] = max(agent.last.visits.values())
    assert top[0] > 2 * top[5], top

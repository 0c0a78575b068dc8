"""Paper 001 §3.3's per-turn time policies (``search.turn_budget``): budget shares, reading a turn off the tree."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.hearth.positions import build_position, slot
from cardboard.evaluation.match import play_game
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.tree import VISITS
from cardboard.search.turn_budget import (ALPHA_MULTIPLE, ALPHA_ONE, BETA, PSI, TAU, TurnBudget, most_visited,
                                          solid_path)

TURN = 600


class Recording(TreeSearch):
    """A TreeSearch that records the iterations asked of each call."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: list[int] = []

    def search(self, state, rng, iterations=None, root=None):
        self.asked.append(iterations)
        return super().search(state, rng, iterations=iterations, root=root)


def play_one_turn(policy: str, seed: int = 0):
    """Play the first main-phase turn of a Mech Mage mirror with a TurnBudget; return the planner, the
    iterations each decision asked for (one list per decision) and the legal-move counts seen."""
    state = cardboard.new_state("hearth", seed=seed, decks="mech_mage", mulligan=False)
    rng = np.random.default_rng(seed)
    while state.turn < 6:  # a few turns in, so a turn has several decisions
        state.apply(int(state.legal_actions()[0]) if state.current_player >= 0 else state.sample_chance(rng))
    while state.current_player < 0:
        state.apply(state.sample_chance(rng))
    engine = Recording(SearchConfig(depth=2), "duct", 4)
    planner = TurnBudget(engine, TURN, policy)
    me, turn, asked, widths = state.current_player, state.turn, [], []
    while state.current_player == me and state.turn == turn:
        before = len(engine.asked)
        widths.append(len(state.legal_actions()))
        state.apply(planner.search(state, rng).action)
        asked.append(engine.asked[before:])
        while state.current_player < 0 and not state.is_terminal():
            state.apply(state.sample_chance(rng))
    return planner, asked, widths


def test_multiple_search_gives_each_decision_its_share_of_what_is_left():
    _, asked, widths = play_one_turn("multiple")
    left = TURN
    assert len(asked) > 1
    for calls, width in zip(asked, widths):
        share = min(max(ALPHA_MULTIPLE * left, TAU * left / width), BETA * left)
        assert calls == [max(1, round(share))]
        left -= calls[0]
    assert sum(c[0] for c in asked) <= TURN


def test_one_search_spends_most_of_the_turn_first_and_reads_trusted_moves_off_the_tree():
    planner, asked, _ = play_one_turn("one")
    first = asked[0]
    assert first[0] == round(ALPHA_ONE * TURN)
    assert first == [first[0]] or first == [first[0], TURN - first[0]]  # the rest when the path is trusted
    later = [n for calls in asked[1:] for n in calls]
    assert sum(first) + sum(n for n in later if n) <= TURN
    assert planner.left == TURN - sum(first) - sum(later)


def test_a_trusted_kept_edge_is_played_without_a_new_iteration():
    state = build_position(hands=[["Mechwarper", "Clockwork Gnome"], []], heroes=[{"mana": 3, "max_mana": 3}, {}])
    engine = TreeSearch(SearchConfig(depth=1), "uct", reuse=True)
    rng = np.random.default_rng(1)
    planner = TurnBudget(engine, 4000, "one")
    first = planner.search(state, rng)
    state.apply(first.action)
    kept_action, visits = most_visited(engine._kept[0], state)
    assert visits >= PSI
    again = planner.search(state, rng)
    assert again.iterations == 0 and again.action == kept_action


def test_a_path_through_a_card_drawn_mid_turn_is_not_trusted():
    state = build_position(hands=[["Arcane Intellect"], []], heroes=[{"mana": 3, "max_mana": 3}, {}])
    engine = TreeSearch(SearchConfig(iterations=400, depth=1, compiled=False), "uct")  # the tree below the root
    result = engine.search(state, np.random.default_rng(2))
    result.root.stat[VISITS, result.root.edge(state.action_key(slot(state, "Arcane Intellect")))] = 10 * PSI
    assert not solid_path(result.root, state)  # the draws come next: the rest of the turn is unknown
    quiet = build_position(hands=[["Mechwarper"], []], heroes=[{"mana": 3, "max_mana": 3}, {}])
    result = engine.search(quiet, np.random.default_rng(2))
    assert solid_path(result.root, quiet)  # play it, end the turn: both moves well visited


@pytest.mark.parametrize("spec, what", [("duct:turn=100,policy=some", "policy"), ("duct:turn=-5", "1 iteration")])
def test_bad_turn_budget_options_are_refused(spec, what):
    with pytest.raises(InvalidParameterError, match=what):
        cardboard.make_agent(spec)


def test_the_agent_option_plays_whole_games():
    game = cardboard.make_game("hearth", decks="face_hunter")
    agents = [cardboard.make_agent("duct:turn=200,depth=1,worlds=2", game), cardboard.make_agent("random", game)]
    rng = np.random.default_rng(3)
    returns, *_ = play_game(game, agents, rng)
    assert sorted(returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0])


def two_move_position():
    """Play Mechwarper or end the turn: a branching factor of 2."""
    return build_position(hands=[["Mechwarper"], []], heroes=[{"mana": 3, "max_mana": 3, "power_used": True}, {}])


def test_the_lower_bound_tau_t_over_bf_applies_to_narrow_decisions():
    state = two_move_position()
    assert len(state.legal_actions()) == 2
    engine = Recording(SearchConfig(depth=1), "uct")
    TurnBudget(engine, 1000, "multiple").search(state, np.random.default_rng(0))
    assert engine.asked == [round(min(max(ALPHA_MULTIPLE * 1000, TAU * 1000 / 2), BETA * 1000))] == [500]


def test_a_decision_after_the_turn_budget_is_spent_gets_the_lower_bound_of_the_whole_turn():
    state = two_move_position()
    engine = Recording(SearchConfig(depth=1), "uct")
    planner = TurnBudget(engine, 1000, "one")
    planner.owner, planner.left = (state.current_player, state.turn), 0  # spent, and no tree to read from
    planner.search(state, np.random.default_rng(0))
    assert engine.asked == [round(TAU * 1000 / 2)]

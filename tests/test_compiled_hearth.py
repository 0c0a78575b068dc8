"""The compiled search loop (``cardboard.search.compiled``) on Hearth against the Python path.

Hearth has chance nodes in play (draws, random damage, Voidcaller's Demon, ...) and heuristic pruning
(``sensible_actions``), and no compiled determinization: DUCT draws its fixed worlds in Python and runs its
iterations compiled, UCT runs compiled, ISMCTS and CNB stay in Python. Differential: at fixed seeds and positions
the two paths give the same action, visits in the same order, root statistics (keys in order, visits, totals,
availability, stamps) and generator state afterwards.
"""
import dataclasses

import numpy as np
import pytest

import cardboard
from cardboard.envs.hearth.positions import build_position
from cardboard.envs.hearth.state import HearthState
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.search.agents import GAME_CNB
from cardboard.search.mcts import InferenceAccuracy, SearchConfig, TreeSearch
from tests.compiled_paths import assert_same, runs_compiled, start_tiny, summary


def played_to(deck, turn, seed=3):
    """``deck``'s mirror match from ``new_state(seed)`` played at random to ``turn``, then to the next decision."""
    state, rng = cardboard.new_state("hearth", seed=seed, decks=deck), np.random.default_rng(seed)
    while state.turn < turn or state.current_player == CHANCE:
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return state


def voidcaller():
    """An edge that leads to a chance node in one world and to a decision in another (the opponent's dying
    Voidcaller puts a random Demon from their hidden hand into play)."""
    return build_position(decks=("handlock", "handlock"), hands=(["Fireball"], ["Mal'Ganis", "Voidcaller",
                          "Lord Jaraxxus"]), boards=([], [{"card": "Voidcaller", "health": 1}]),
                          deck_cards=(["Hellfire"] * 3, ["Mountain Giant", "Hellfire", "Darkbomb", "Twilight Drake"]))


POSITIONS = {
    "mulligan": lambda: cardboard.new_state("hearth", seed=1),
    "mech_mage": lambda: played_to("mech_mage", 10),
    "handlock": lambda: played_to("handlock", 10),
    "face_hunter": lambda: played_to("face_hunter", 14, seed=4),
    "voidcaller": voidcaller,
}


@pytest.mark.parametrize("iterations", [1, 7, 300])
@pytest.mark.parametrize("prune", [False, True], ids=["all-moves", "prune"])
@pytest.mark.parametrize("position", list(POSITIONS))
def test_duct_d5_grows_the_python_tree(position, prune, iterations, compiled_runs):
    """Paper 001's DUCT (10 worlds, c = 0.7, rollouts of 5 turns, then the heuristic), with and without pruning."""
    state = POSITIONS[position]()
    for seed in (0, 7):
        assert_same(state, "duct", iterations, seed, compiled_runs, num_worlds=10, depth=5, prune=prune)


@pytest.mark.parametrize("config", [{"depth": None}, {"depth": 0}, {"depth": 1, "c": 2.0}, {"depth": 5, "c": 0.0}],
                         ids=["to-the-end", "heuristic-leaves", "depth-1-c-2", "c-0"])
@pytest.mark.parametrize("worlds, num_worlds", [("duct", 3), ("uct", 1)])
def test_other_depths_worlds_and_constants(worlds, num_worlds, config, compiled_runs):
    assert_same(POSITIONS["mech_mage"](), worlds, 400, 3, compiled_runs, num_worlds=num_worlds, prune=True, **config)


def test_thousands_of_iterations_reach_chance_nodes_deep_in_the_tree(compiled_runs):
    """Heuristic leaves grow deep trees: past end of turn, through the draw of the next turn's chance node."""
    found = assert_same(POSITIONS["handlock"](), "duct", 4000, 2, compiled_runs, num_worlds=10, depth=0, prune=True)
    assert sum(n for _, n in found["visits"]) == 4000


def test_any_determinizer_serves_duct(compiled_runs):
    """DUCT's worlds are drawn in Python, so a determinizer of the user's (here 001's inference accuracy) runs
    compiled too."""
    assert_same(POSITIONS["mech_mage"](), "duct", 200, 5, compiled_runs, num_worlds=10, depth=5, prune=True,
                determinizer=InferenceAccuracy(0.5))


@pytest.mark.parametrize("iterations", [None, 10 ** 7])
def test_a_time_budget_is_replayed_exactly(iterations, compiled_runs):
    """The clock only decides how many iterations run: that many in Python give the same tree and generator."""
    state = POSITIONS["face_hunter"]()
    timed = summary(state, "duct", iterations, 8, True, num_worlds=10, seconds=0.05, depth=5, prune=True)
    assert compiled_runs and 0 < timed["iterations"] < 10 ** 7
    assert timed == summary(state, "duct", timed["iterations"], 8, False, num_worlds=10, depth=5, prune=True)


def test_the_tree_grows_between_kernel_calls(monkeypatch, compiled_runs):
    """Starting from arrays too small for one iteration (chance nodes need room for a run of them), every kind of
    room is made between kernel calls."""
    start_tiny(monkeypatch, pruning_memory=False)
    assert_same(POSITIONS["voidcaller"](), "duct", 500, 1, compiled_runs, num_worlds=10, depth=1, prune=True)


def test_the_agent_runs_compiled(compiled_runs):
    """``duct:depth=5,prune=1`` (benchmarks/hearth.py's ``duct_prune_d5``) takes the compiled loop."""
    agent = cardboard.make_agent("duct:iterations=50,depth=5,prune=1", cardboard.make_game("hearth"))
    agent.act(POSITIONS["mech_mage"](), np.random.default_rng(0))
    assert compiled_runs == [50]


# ---- who takes which path ---------------------------------------------------------------------------------
def plain(**changes):
    return dataclasses.replace(SearchConfig(iterations=10, depth=5), **changes)


def eligible(config, worlds):
    return runs_compiled(TreeSearch(config, worlds, 10), POSITIONS["mech_mage"](), np.random.default_rng(0))


@pytest.mark.parametrize("config, worlds", [(plain(), "duct"), (plain(prune=True), "duct"), (plain(), "uct"),
                                            (plain(prune=True, depth=None), "uct")],
                         ids=["duct", "duct-prune", "uct", "uct-prune-to-the-end"])
def test_eligible_configurations(config, worlds):
    assert eligible(config, worlds)


@pytest.mark.parametrize("config, worlds", [(plain(), "ismcts"), (plain(bucketing=GAME_CNB), "duct"),
                                            (plain(compiled=False), "duct")],
                         ids=["ismcts-without-a-compiled-determinize", "cnb", "compiled-off"])
def test_configurations_the_loop_does_not_reproduce_go_to_python(config, worlds):
    assert not eligible(config, worlds)


@pytest.mark.parametrize("kernel, config", [("sample_chance", plain()), ("sensible_actions", plain(prune=True))])
def test_a_model_without_an_optional_kernel_goes_to_python(kernel, config, monkeypatch):
    """A game with chance nodes needs ``sample_chance``; ``prune`` needs ``sensible_actions``."""
    model = HearthState.compiled_model
    assert eligible(config, "duct")
    monkeypatch.setattr(HearthState, "compiled_model", lambda self: model(self)._replace(**{kernel: None}))
    assert not eligible(config, "duct")

"""The compiled search loop (``cardboard.search.compiled``) on Pandemic against the Python path.

Pandemic has chance nodes in play (player draws, epidemics, infections: the stored card, drawn without a uniform,
or after an epidemic a uniform one of an unordered stack), 003 §1.7's structured determinization (compiled, from
the same ``rng.random(STATE_LEN)`` uniforms), four cooperative seats and two action layers (macro-actions, the
rules' own actions): ISMCTS, UCT and DUCT run whole iterations compiled on both, CNB stays in Python.
Differential: at fixed seeds and positions the two paths give the same action, visits in the same order, root
statistics (keys in order, visits, totals, availability, stamps) and generator state afterwards.
"""
import dataclasses

import numpy as np
import pytest

import cardboard
from cardboard.envs.kernels import seed_stream
from cardboard.envs.pandemic import default_policy as D
from cardboard.envs.pandemic import layout as L
from cardboard.envs.pandemic.macro import NUM_MACROS
from cardboard.envs.pandemic.state import PandemicState
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.search.agents import GAME_CNB
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning
from tests.compiled_paths import assert_same, runs_compiled, start_tiny, summary


def macro_game(setup="S01", **options):
    return cardboard.make_game("pandemic", setup=setup, actions="macro", **options)


def later(state, turns=6, seed=0):
    """``state`` played ``turns`` turns on by the default policy (benchmarks/pandemic.py's mid-game positions)."""
    after = state.clone()
    D.play_default(after.s, after.cards, np.empty(NUM_MACROS, np.int32), seed_stream(np.random.default_rng(seed)),
                   turns)
    return type(state)(state.game, after.s)


def after_epidemic(setup="S03", seed=0):
    """The first decision after an epidemic, played by the default policy: the infection discard is back on top
    as an unordered stack, so the real state's infections are drawn with a uniform (``sample_chance``)."""
    game = macro_game(setup)
    state, rng, agent = game.new_state(seed), np.random.default_rng(seed), cardboard.make_agent("pandemic_default", game)
    while not (state.s[L.EPIDEMICS_DRAWN] > 0 and state.s[L.PHASE] == L.PH_ACTIONS):
        state.apply(sample_chance(state, rng) if state.current_player == CHANCE else agent.act(state, rng))
    assert state.s[L.GROUP_ORDERED] == 0  # the top group
    return state


POSITIONS = {
    "start": lambda: macro_game().new_state(0),
    "later": lambda: later(macro_game("S04").new_state(0)),
    "after-epidemic": after_epidemic,
    "two-seats-any-roles": lambda: later(cardboard.make_game("pandemic", players=2, roles="random_all",
                                                             actions="macro").new_state(5), turns=3),
    "primitive": lambda: cardboard.make_game("pandemic", setup="S02").new_state(0),
    "uniform-rollouts": lambda: later(macro_game("S05", rollout="uniform").new_state(0), turns=2),
}


@pytest.mark.parametrize("iterations", [1, 7, 300])
@pytest.mark.parametrize("position", list(POSITIONS))
def test_ismcts_d5_grows_the_python_tree(position, iterations, compiled_runs):
    """p003_pandemic/RESULTS.md's ISMCTS over macro-actions (c = 0.7, rollouts of 5 turns by the game's policy, then the
    heuristic), a fresh structured determinization every iteration."""
    state = POSITIONS[position]()
    for seed in (0, 7):
        assert_same(state, "ismcts", iterations, seed, compiled_runs, depth=5)


@pytest.mark.parametrize("worlds, num_worlds", [("uct", 1), ("duct", 4)])
@pytest.mark.parametrize("position", ["start", "after-epidemic", "primitive"])
def test_uct_and_duct(position, worlds, num_worlds, compiled_runs):
    """UCT searches the real state: after an epidemic its infections come from an unordered stack, a uniform
    each in the tree."""
    assert_same(POSITIONS[position](), worlds, 200, 3, compiled_runs, num_worlds=num_worlds, depth=5)


@pytest.mark.parametrize("config", [{"depth": None}, {"depth": 0}, {"depth": 1, "c": 2.0}, {"depth": 5, "c": 0.0}],
                         ids=["to-the-end", "heuristic-leaves", "depth-1-c-2", "c-0"])
def test_other_depths_and_constants(config, compiled_runs):
    assert_same(POSITIONS["later"](), "ismcts", 200, 3, compiled_runs, **config)


def test_thousands_of_iterations_reach_chance_nodes_deep_in_the_tree(compiled_runs):
    """Heuristic leaves grow deep trees: past the end of the turn, through its draws, epidemics and infections."""
    found = assert_same(POSITIONS["after-epidemic"](), "ismcts", 3000, 2, compiled_runs, depth=0, c=0.1)
    assert sum(n for _, n in found["visits"]) == 3000


@pytest.mark.parametrize("iterations", [None, 10 ** 7])
def test_a_time_budget_is_replayed_exactly(iterations, compiled_runs):
    """The clock only decides how many iterations run: that many in Python give the same tree and generator."""
    state = POSITIONS["later"]()
    timed = summary(state, "ismcts", iterations, 8, True, seconds=0.05, depth=5)
    assert compiled_runs and 0 < timed["iterations"] < 10 ** 7
    assert timed == summary(state, "ismcts", timed["iterations"], 8, False, depth=5)


def test_the_tree_grows_between_kernel_calls(monkeypatch, compiled_runs):
    """Starting from arrays too small for one iteration, every kind of room is made between kernel calls."""
    start_tiny(monkeypatch, pruning_memory=False)
    assert_same(POSITIONS["after-epidemic"](), "ismcts", 500, 1, compiled_runs, depth=1)


def test_the_agent_runs_compiled(compiled_runs):
    """``ismcts:iterations=600,depth=5`` (p003_pandemic/RESULTS.md's ISMCTS, benchmarks/pandemic.py) takes the loop."""
    agent = cardboard.make_agent("ismcts:iterations=50,depth=5", macro_game())
    agent.act(POSITIONS["later"](), np.random.default_rng(0))
    assert compiled_runs == [50]


# ---- the kernels against the state's methods, on the macro layer ------------------------------------------
@pytest.mark.parametrize("options", [{"actions": "macro"}, {"actions": "macro", "rollout": "uniform"},
                                     {"players": 3, "roles": "random_all"}], ids=["macro", "uniform", "primitive"])
def test_the_kernels_do_what_the_methods_do(options):
    """Every kernel equals the method it names over a whole game (chance by ``sample_chance``, stored cards
    without a draw, an unordered stack with one uniform; determinize and 3-turn playouts from every decision)."""
    game = cardboard.make_game("pandemic", **options)
    state = game.new_state(4)
    model_rng, state_rng, moves = np.random.default_rng(1), np.random.default_rng(1), np.random.default_rng(2)
    info, drawn = state.info, 0
    while True:
        model = state.compiled_model()
        s, table = model.state.copy(), model.table
        buf, out = np.empty(model.buffer_len, dtype=np.int32), np.empty(info.num_players)
        assert model.player(s) == state.current_player and model.turn(s) == state.turn
        model.returns(s, out)
        assert out.tolist() == state.returns().tolist()
        assert [model.heuristic(s, table, p) for p in range(info.num_players)] == [
            state.heuristic(p) for p in range(info.num_players)]
        if state.is_terminal():
            break
        if state.current_player == CHANCE:
            saved = model_rng.bit_generator.state
            outcome = model.sample_chance(s, table, model_rng.random())
            if outcome < 0:  # the stored card: no uniform
                model_rng.bit_generator.state, outcome = saved, -1 - outcome
            else:
                drawn += 1
            assert outcome == sample_chance(state, state_rng) < model.num_outcomes
            assert model_rng.bit_generator.state == state_rng.bit_generator.state
            model.apply(s, table, outcome, buf)
            state.apply(outcome)
            assert np.array_equal(s, state.s)
            continue
        n = model.legal_actions(s, table, buf)
        assert buf[:n].tolist() == state.legal_actions().tolist()
        keys = np.empty(n, dtype=np.int64)
        model.action_keys(s, table, buf, n, keys)
        assert keys.tolist() == [state.action_key(int(a)) for a in buf[:n]]
        world = state.determinize(state.current_player, state_rng)
        mine = model.state.copy()
        model.determinize(mine, table, state.current_player, model_rng.random(model.determinize_draws))
        assert np.array_equal(mine, world.s)
        world.random_playout(state_rng, max_turns=3)
        model.playout(mine, table, buf, seed_stream(model_rng), state.turn + 3)
        assert np.array_equal(mine, world.s)
        model.legal_actions(s, table, buf)  # the playout above used the buffer
        action = int(buf[moves.integers(n)])
        model.apply(s, table, action, buf)
        state.apply(action)
        assert np.array_equal(s, state.s)
    assert drawn > 0  # stored cards and, after an epidemic, uniform ones from its unordered stack


def test_an_unordered_stack_is_drawn_with_one_uniform():
    """After an epidemic the real state's infection draws come from an unordered stack: ``int(u * n)``."""
    state = after_epidemic()
    while state.current_player != CHANCE or state.s[L.PHASE] != L.PH_INFECT:
        state.apply(state.legal_actions()[-1] if state.current_player != CHANCE else state.sample_chance(None))
    model = state.compiled_model()
    outcomes = set()
    for seed in range(40):
        rng, expected = np.random.default_rng(seed), np.random.default_rng(seed)
        outcome = model.sample_chance(model.state.copy(), model.table, expected.random())
        assert 0 <= outcome == state.sample_chance(rng)
        assert rng.bit_generator.state == expected.bit_generator.state
        outcomes.add(outcome)
    assert len(outcomes) > 1


# ---- who takes which path ---------------------------------------------------------------------------------
def plain(**changes):
    return dataclasses.replace(SearchConfig(iterations=10, depth=5), **changes)


def eligible(config, worlds, rng=None):
    return runs_compiled(TreeSearch(config, worlds, 4), POSITIONS["start"](), rng or np.random.default_rng(0))


@pytest.mark.parametrize("config, worlds", [(plain(), "ismcts"), (plain(), "uct"), (plain(), "duct"),
                                            (plain(depth=None), "ismcts")],
                         ids=["ismcts", "uct", "duct", "ismcts-to-the-end"])
def test_eligible_configurations(config, worlds):
    assert eligible(config, worlds)


@pytest.mark.parametrize("config, worlds", [(plain(bucketing=GAME_CNB), "ismcts"), (plain(compiled=False), "ismcts"),
                                            (plain(pruning=HardPruning(("oa",), 3)), "ismcts")],
                         ids=["cnb", "compiled-off", "hard-pruning-without-evaluations_after"])
def test_configurations_the_loop_does_not_reproduce_go_to_python(config, worlds):
    assert not eligible(config, worlds)


def test_a_generator_it_cannot_replay_goes_to_python():
    assert not eligible(plain(), "ismcts", np.random.Generator(np.random.MT19937(0)))


@pytest.mark.parametrize("kernel, worlds", [("sample_chance", "uct"), ("determinize", "ismcts")])
def test_a_model_without_a_kernel_goes_to_python(kernel, worlds, monkeypatch):
    """A game with chance nodes needs ``sample_chance``; ISMCTS needs ``determinize``."""
    model = PandemicState.compiled_model
    assert eligible(plain(), worlds)
    monkeypatch.setattr(PandemicState, "compiled_model", lambda self: model(self)._replace(**{kernel: None}))
    assert not eligible(plain(), worlds)

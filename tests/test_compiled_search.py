"""The compiled search loop (``cardboard.search.compiled``) against the Python path, and the model it runs on.

Differential: at fixed seeds and positions, for UCT and ISMCTS, the compiled and the Python path give the same
action, the same visits in the same order, the same root statistics (keys in order, visits, totals,
availability, stamps) and leave the generator in the same state; with hard pruning too (one heuristic and
several, HPL 1 to 15, with and without extrapolation; the root's pruning memory as well). Then: who takes which path
(the knob, the configurations the loop does not reproduce, bit generators it cannot replay), and the kernels of
``compiled_model`` against the state's own methods (every registered game that offers one).
"""
import dataclasses

import numpy as np
import pytest

import cardboard
from cardboard.envs.kernels import seed_stream
from cardboard.envs.lords_of_war import heuristics
from cardboard.envs.lords_of_war.state import LordsOfWarState
from cardboard.envs.protocol import CHANCE, HOOKS, sample_chance
from cardboard.search import compiled
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning
from cardboard.search.strategies import PUCT, PolicyRollout
from cardboard.search.tree import STAMP
from tests.games import tictactoe
from tests.compiled_paths import assert_same, runs_compiled, start_tiny, summary
from tests.trees import edge_stats


def random_moves(state, rng, moves):
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def random_game(seed):
    """Every state of one random Lords of War game, the terminal one last."""
    state, rng, states = cardboard.new_state("lords_of_war", seed=seed), np.random.default_rng(seed), []
    while True:
        states.append(state.clone())
        if state.is_terminal():
            return states
        random_moves(state, rng, 1)


def near_the_end():
    states = random_game(5)
    return next(s for s in states[-8::-1] if len(s.legal_actions()) > 1)


def few_moves():
    return next(s for s in random_game(6)[20:] if len(s.legal_actions()) == 2)


POSITIONS = {
    "start": lambda: cardboard.new_state("lords_of_war", seed=3),
    "mid": lambda: random_moves(cardboard.new_state("lords_of_war", seed=1), np.random.default_rng(1), 40),
    "end": near_the_end,
    "few": few_moves,
}


@pytest.mark.parametrize("iterations", [1, 2, 7, 64, 700])
@pytest.mark.parametrize("position", list(POSITIONS))
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_the_compiled_loop_grows_the_python_tree(worlds, position, iterations, compiled_runs):
    state = POSITIONS[position]()
    for seed in (0, 11):
        assert_same(state, worlds, iterations, seed, compiled_runs)


@pytest.mark.parametrize("pruning", [None, HardPruning(("h1", "h4"), 3, True)], ids=["plain", "pruned"])
@pytest.mark.parametrize("position", list(POSITIONS))
def test_duct_runs_its_fixed_worlds_compiled(position, pruning, compiled_runs):
    """DUCT's worlds are drawn in Python before the loop; its iterations go round-robin over them compiled."""
    state = POSITIONS[position]()
    for num_worlds, iterations in ((1, 50), (4, 7), (10, 600)):
        fast = summary(state, "duct", iterations, 3, True, num_worlds=num_worlds, depth=2, pruning=pruning)
        assert compiled_runs
        assert fast == summary(state, "duct", iterations, 3, False, num_worlds=num_worlds, depth=2, pruning=pruning)


@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_thousands_of_iterations(worlds, compiled_runs):
    state = POSITIONS["mid"]()
    for seed in (2, 3):
        found = assert_same(state, worlds, 3000, seed, compiled_runs)
        assert sum(n for _, n in found["visits"]) == 3000


@pytest.mark.parametrize("config", [{"depth": 0}, {"depth": 2}, {"c": 0.0}, {"c": 2.5}],
                         ids=["heuristic-leaves", "depth-2", "c-0", "c-2.5"])
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_depth_and_exploration_constant(worlds, config, compiled_runs):
    assert_same(POSITIONS["mid"](), worlds, 400, 4, compiled_runs, **config)


@pytest.mark.parametrize("pruning", [None, HardPruning(("h1", "h4"), 2)], ids=["plain", "pruned"])
def test_the_flat_tree_grows_between_kernel_calls(pruning, monkeypatch, compiled_runs):
    """Starting from arrays too small for one iteration, every kind of room is made between kernel calls."""
    start_tiny(monkeypatch)
    for worlds in ("ismcts", "uct"):
        assert_same(POSITIONS["mid"](), worlds, 500, 1, compiled_runs, pruning=pruning)


# ---- hard pruning -----------------------------------------------------------------------------------------
PRUNINGS = {
    "h4-hpl15": HardPruning(("h4",), 15),
    "h4-hpl5-extrapolate": HardPruning(("h4",), 5, True),
    "h1+h3+h7-hpl2": HardPruning(("h1", "h3", "h7"), 2),
    "h2+h10-hpl1-extrapolate": HardPruning(("h2", "h10"), 1, True),
    "h1+h4-hpl15-extrapolate": HardPruning(("h1", "h4"), 15, True),
}


@pytest.mark.parametrize("iterations", [7, 300])
@pytest.mark.parametrize("position", list(POSITIONS))
@pytest.mark.parametrize("pruning", list(PRUNINGS))
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_the_compiled_loop_prunes_as_python_does(worlds, pruning, position, iterations, compiled_runs):
    found = assert_same(POSITIONS[position](), worlds, iterations, iterations % 5, compiled_runs,
                        pruning=PRUNINGS[pruning])
    assert found["pruned"][0][1]
    assert iterations < 300 or position == "end" or len(found["pruned"]) > 1  # nodes below were judged too


def tree_edges(node):
    """The edges of the tree below ``node``, every node's."""
    return len(node.edges) + sum(tree_edges(child) for child in node.children())


@pytest.mark.parametrize("hpl", [1, 2])
@pytest.mark.parametrize("position", ["few", "mid"])
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_narrow_trees_reach_the_end_of_the_game(worlds, position, hpl, compiled_runs):
    """HPL 1 and 2 grow deep trees: iterations that reach the end of the game in the tree (UCT with HPL 1: one
    line, so fewer edges than iterations) and extrapolations up to the end."""
    state = POSITIONS[position]()
    for pruning in (HardPruning(("h4",), hpl), HardPruning(("h1", "h9"), hpl, True)):
        assert_same(state, worlds, 1500, hpl, compiled_runs, pruning=pruning)
    if worlds == "uct" and hpl == 1:
        python = TreeSearch(SearchConfig(iterations=400, compiled=False, pruning=HardPruning(("h4",), 1)), "uct")
        assert tree_edges(python.search(state, np.random.default_rng(1)).root) < 400


@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_thousands_of_pruned_iterations(worlds, compiled_runs):
    state = POSITIONS["mid"]()
    for seed, pruning in ((2, HardPruning(("h4",), 15)), (3, HardPruning(("h1", "h4"), 5, True))):
        found = assert_same(state, worlds, 3000, seed, compiled_runs, pruning=pruning)
        assert sum(n for _, n in found["visits"]) == 3000


@pytest.mark.parametrize("pruning", [None, HardPruning(("h4",), 3, True)], ids=["plain", "pruned"])
@pytest.mark.parametrize("iterations", [None, 10 ** 7])
def test_a_time_budget_is_replayed_exactly(iterations, pruning, compiled_runs):
    """The clock only decides how many iterations run: that many in Python give the same tree and generator."""
    state = POSITIONS["mid"]()
    timed = summary(state, "ismcts", iterations, 8, True, seconds=0.05, pruning=pruning)
    assert compiled_runs and timed["iterations"] == sum(n for _, n in timed["visits"]) > 0
    assert timed["iterations"] < 10 ** 7
    assert timed == summary(state, "ismcts", timed["iterations"], 8, False, pruning=pruning)


@pytest.mark.parametrize("pruning", [None, HardPruning(("h4",), 3, True), HardPruning(("h1", "h9"), 2)],
                         ids=["plain", "h4-hpl3-extrapolate", "h1+h9-hpl2"])
def test_the_word_bound_holds_with_no_words_to_spare(pruning, monkeypatch, compiled_runs):
    """With a guess of minus a million tree steps an iteration, each kernel call is given exactly the raw words
    its bound asks for: an iteration needing more than the bound would read past them and leave the Python
    path."""
    monkeypatch.setattr(compiled, "STEP_GUESS", -10 ** 6)
    for worlds in ("ismcts", "uct"):
        assert_same(POSITIONS["mid"](), worlds, 300, 5, compiled_runs, pruning=pruning)


def test_the_engine_stamp_carries_over_searches(compiled_runs):
    """Availability stamps continue across searches of one engine, as in Python."""
    state = POSITIONS["mid"]()
    stats = []
    for use_compiled in (True, False):
        engine, rng = TreeSearch(SearchConfig(iterations=50, compiled=use_compiled), "ismcts"), np.random.default_rng(9)
        for _ in range(3):
            root = engine.search(state, rng).root
        stats.append(edge_stats(root, slice(0, STAMP + 1)).tolist())
    assert stats[0] == stats[1]


# ---- who takes which path ---------------------------------------------------------------------------------
@pytest.fixture
def refusing(monkeypatch):
    """Lords of War states whose compiled_model fails the test if called."""
    def refuse(self):
        raise AssertionError("the compiled path was taken")

    monkeypatch.setattr(LordsOfWarState, "compiled_model", refuse)


def test_compiled_off_takes_the_python_path(refusing):
    state = POSITIONS["mid"]()
    result = TreeSearch(SearchConfig(iterations=30, compiled=False), "ismcts").search(state, np.random.default_rng(0))
    assert result.root.children()


@pytest.mark.parametrize("spec, expected", [("ismcts:iterations=5", True), ("ismcts:iterations=5,compiled=0", False),
                                            ("uct:iterations=5,compiled=0", False), ("uct:iterations=5", True)])
def test_the_agent_knob(spec, expected):
    agent = cardboard.make_agent(spec, cardboard.make_game("lords_of_war"))
    assert agent.searcher.config.compiled is expected


def plain(**changes):
    return dataclasses.replace(SearchConfig(iterations=10), **changes)


INELIGIBLE = {
    "compiled=False": (plain(compiled=False), "ismcts", False),
    "puct": (plain(selection=PUCT()), "ismcts", False),
    "policy rollout": (plain(rollout=PolicyRollout()), "ismcts", False),
    "chance sampler": (plain(chance_sampler=lambda state, rng: 0), "ismcts", False),
    "determinizer": (plain(determinizer=lambda state, player, rng: state.clone()), "ismcts", False),
    "evaluator with depth": (plain(depth=2, evaluator=lambda state: np.full(2, 0.5)), "ismcts", False),
    "prune": (plain(prune=True), "ismcts", False),
    "prune with pruning": (plain(prune=True, pruning=HardPruning(("h4",))), "uct", False),
    "unknown heuristic": (plain(pruning=HardPruning(("h99",))), "uct", False),
    "leaves": (plain(leaves=4), "ismcts", False),
    "reuse": (plain(), "ismcts", True),
    "pruning of another kind": (plain(pruning=object()), "ismcts", False),
}


@pytest.mark.parametrize("name", list(INELIGIBLE))
def test_configurations_the_loop_does_not_reproduce_go_to_python(name):
    config, worlds, reuse = INELIGIBLE[name]
    engine = TreeSearch(config, worlds, reuse=reuse)
    assert not runs_compiled(engine, POSITIONS["mid"](), np.random.default_rng(0))


ELIGIBLE = {"plain": (plain(), "ismcts"), "depth": (plain(depth=3), "ismcts"), "seconds": (plain(seconds=1.0), "uct"),
            "uct ignores the determinizer": (plain(determinizer=lambda state, player, rng: state.clone()), "uct"),
            "pruning": (plain(pruning=HardPruning(("h1", "h11"), 3, True)), "ismcts"), "duct": (plain(), "duct")}


@pytest.mark.parametrize("config, worlds", list(ELIGIBLE.values()), ids=list(ELIGIBLE))
def test_eligible_configurations(config, worlds):
    engine = TreeSearch(config, worlds)
    assert runs_compiled(engine, POSITIONS["mid"](), np.random.default_rng(0))


def test_a_game_without_the_hook_goes_to_python():
    state = tictactoe.TicTacToeGame().new_state(0)
    assert not HOOKS["compiled_model"].offered_by(state)
    engine = TreeSearch(plain(), "ismcts")
    assert not runs_compiled(engine, state, np.random.default_rng(0))


def test_pruning_without_the_scoring_kernel_goes_to_python(monkeypatch):
    model = LordsOfWarState.compiled_model
    monkeypatch.setattr(LordsOfWarState, "compiled_model",
                        lambda self: model(self)._replace(evaluations_after=None, evaluation_index=None))
    state, rng = POSITIONS["mid"](), np.random.default_rng(0)
    assert runs_compiled(TreeSearch(plain(), "uct"), state, rng)
    assert not runs_compiled(TreeSearch(plain(pruning=HardPruning(("h4",))), "uct"), state, rng)


@pytest.mark.parametrize("bit_generator", compiled.REPLAYABLE)
def test_replayable_bit_generators(bit_generator, compiled_runs):
    """Each has random() == (raw >> 11) * 2**-53 of one raw word, and the loop replays it."""
    raw = bit_generator(5).random_raw(64)
    assert np.array_equal(np.random.Generator(bit_generator(5)).random(64), (raw >> np.uint64(11)) * 2.0 ** -53)
    for pruning in (None, HardPruning(("h4", "h6"), 4, True)):
        assert_same(POSITIONS["mid"](), "ismcts", 300, 7, compiled_runs, bit_generator=bit_generator, pruning=pruning)


def test_a_buffered_half_word_survives(compiled_runs):
    """A generator holding half a word from a 32-bit draw keeps it across the search, as on the Python path."""
    states = []
    for use_compiled in (True, False):
        rng = np.random.default_rng(4)
        rng.integers(0, 10, dtype=np.int32)
        TreeSearch(SearchConfig(iterations=100, compiled=use_compiled), "ismcts").search(POSITIONS["mid"](), rng)
        states.append((rng.bit_generator.state, rng.integers(0, 1 << 30, size=4, dtype=np.int32).tolist()))
    assert compiled_runs and states[0] == states[1]


def test_a_bit_generator_it_cannot_replay_takes_the_python_path(refusing):
    """MT19937's random() takes two 32-bit raw words: the Python path runs it."""
    state = POSITIONS["mid"]()
    rng = np.random.Generator(np.random.MT19937(3))
    TreeSearch(SearchConfig(iterations=40), "ismcts").search(state, rng)


# ---- every game's model against its state's methods ---------------------------------------------------------
MODELLED = [name for name in cardboard.games() if HOOKS["compiled_model"].offered_by(cardboard.new_state(name, seed=0))]


def test_lords_of_war_offers_a_model():
    assert "lords_of_war" in MODELLED


def test_hearth_offers_a_model():
    assert "hearth" in MODELLED


def test_pandemic_offers_a_model():
    assert "pandemic" in MODELLED


@pytest.mark.parametrize("name", MODELLED)
def test_the_kernels_do_what_the_methods_do(name):
    """The duty ``compiled_model`` states: every kernel equals the method it names, random draws included (the
    optional ones where the model has them)."""
    model_rng, state_rng, moves = np.random.default_rng(1), np.random.default_rng(1), np.random.default_rng(2)
    state = cardboard.new_state(name, seed=8)
    info = state.info
    assert info.num_action_keys is not None
    while True:
        model = state.compiled_model()
        s, table = model.state.copy(), model.table
        buf, out = np.empty(model.buffer_len, dtype=np.int32), np.empty(info.num_players)
        assert model.player(s) == state.current_player and model.turn(s) == state.turn
        model.returns(s, out)
        assert out.tolist() == np.asarray(state.returns(), dtype=float).tolist()
        players = range(info.num_players)
        assert [model.heuristic(s, table, p) for p in players] == [state.heuristic(p) for p in players]
        if state.is_terminal():
            return
        if state.current_player == CHANCE:
            saved = model_rng.bit_generator.state
            outcome = model.sample_chance(s, table, model_rng.random())
            if outcome < 0:  # ``-1 - id``: an outcome the state fixes, no uniform drawn
                model_rng.bit_generator.state, outcome = saved, -1 - outcome
            assert outcome == sample_chance(state, state_rng) < max(info.num_action_keys, model.num_outcomes)
            model.apply(s, table, outcome, buf)
            state.apply(outcome)
            assert np.array_equal(s, state.s)
            continue
        n = model.legal_actions(s, table, buf)
        assert buf[:n].tolist() == state.legal_actions().tolist()
        keys = np.empty(n, dtype=np.int64)
        model.action_keys(s, table, buf, n, keys)
        assert keys.tolist() == [state.action_key(int(a)) for a in buf[:n]]
        if model.sensible_actions is not None:
            sensible = buf.copy()
            m = model.sensible_actions(s, table, sensible, n)
            assert sensible[:m].tolist() == state.sensible_actions().tolist()
        world = state.determinize(state.current_player, state_rng) if model.determinize is not None else state.clone()
        mine = model.state.copy()
        if model.determinize is not None:
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


def test_lords_of_war_scores_moves_as_its_state_does():
    """The model's ``evaluations_after`` against ``LordsOfWarState.evaluations_after``: every heuristic, with and
    without extrapolation (the same stream), at every decision of a random game."""
    which = np.arange(len(heuristics.NAMES), dtype=np.int64)
    for state in random_game(12)[:-1]:
        model = state.compiled_model()
        assert [model.evaluation_index(name) for name in heuristics.NAMES] == which.tolist()
        s, buf = model.state.copy(), np.empty(model.buffer_len, dtype=np.int32)
        n = model.legal_actions(s, model.table, buf)
        out = np.empty((len(which), n + 3))
        for extrapolate in (False, True):
            stream = seed_stream(np.random.default_rng(n)) if extrapolate else np.ones(1, dtype=np.uint64)
            model.evaluations_after(s, model.table, buf, n, which, extrapolate, stream, out)
            expected = state.evaluations_after(buf[:n], heuristics.NAMES, extrapolate, np.random.default_rng(n))
            assert np.array_equal(out[:, :n], expected)
        assert np.array_equal(s, state.s)


@pytest.mark.parametrize("spec, game, driver", [
    ("ismcts:iterations=20", "lords_of_war", "compiled"),
    ("ismcts:iterations=20,compiled=0", "lords_of_war", "python (compiled=0)"),
    ("ismcts:iterations=20,reuse=1", "lords_of_war", "python (reuse=1 (a kept subtree continues in Python))"),
    ("ismcts:iterations=20,accuracy=0.5", "hearth",
     "python (ISMCTS worlds from a determinizer other than the game's own (accuracy=, deckmodel=))"),
    ("duct:iterations=20,cnb=1", "hearth", "python (chance-node bucketing (cnb=1))"),
    ("ismcts:iterations=20", "fifth_aeon", "compiled")])
def test_the_result_names_the_loop_and_why_it_is_the_slower_one(spec, game, driver):
    game = cardboard.make_game(game)
    agent = cardboard.make_agent(spec, game)
    state = game.new_state(2)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    assert agent.last.driver == driver
    assert agent.searcher.plan(state).describe() == driver


def test_a_generator_the_loop_cannot_replay_is_named_in_the_result():
    engine = TreeSearch(plain(), "ismcts")
    result = engine.search(POSITIONS["mid"](), np.random.Generator(np.random.MT19937(0)))
    assert result.driver == "python (a generator whose draws the loop cannot replay (MT19937))"
    assert engine.plan(POSITIONS["mid"]()).describe() == "compiled"

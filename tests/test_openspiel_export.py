"""The OpenSpiel export (``cardboard.openspiel_export``): every registered game as a ``pyspiel`` game.

Every registered game (the bundled ones and the plugin's) passes OpenSpiel's own random-simulation test;
the exported types, lengths and observations follow the game's ``GameInfo`` and protocol; information
state strings key what the player knows and nothing more; and OpenSpiel's algorithms run on exported
games: ISMCTS finds the forced moves of hidden cards and plays trick duels to the end, outcome-sampling
MCCFR drives a small game's NashConv down.
"""
from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (the dev / bench extras)")

from open_spiel.python.algorithms import exploitability, ismcts, mcts, minimax, outcome_sampling_mccfr  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

import cardboard  # noqa: E402
from cardboard.envs.errors import InvalidParameterError, ProtocolError  # noqa: E402
from cardboard.envs.registration import GAMES  # noqa: E402
from cardboard.openspiel_export import DECISIONS_PER_TURN, OpenSpielMissingError, register  # noqa: E402
from tests.games.hidden_cards import BET, CALL, FOLD, HiddenCardsGame, right_move  # noqa: E402
from tests.games.nim import NimGame  # noqa: E402

HIDDEN, NIM = "os_export_hidden_cards", "os_export_nim"
SIMS = 20


@pytest.fixture(scope="module", autouse=True)
def small_games():
    """Hidden cards and Nim, registered for this module only (not at import: other modules' parametrisations
    over ``cardboard.games()`` stay as they are)."""
    cardboard.register_game(HIDDEN, HiddenCardsGame, "Hidden cards, registered by the OpenSpiel export tests")
    cardboard.register_game(NIM, NimGame, "Nim, registered by the OpenSpiel export tests")
    yield
    for name in (HIDDEN, NIM):
        GAMES.pop(name)


def load(name: str, **params) -> "pyspiel.Game":
    return pyspiel.load_game(register(name), params)


@pytest.mark.parametrize("name", cardboard.games())
def test_every_registered_game_passes_openspiel_random_simulation(name):
    game = load(name)
    start = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=False, verbose=False)
    print(f"\n{name}: random_sim_test, {SIMS} sims, {time.perf_counter() - start:.2f} s")


def test_a_game_without_chance_starts_at_its_first_decision_and_alpha_beta_solves_it():
    game = load(NIM)  # heaps 1, 3, 5: nim-sum 7, a first-player win
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game.max_chance_outcomes() == 0 and "deal_seeds" not in game.get_parameters()
    assert game.new_initial_state().current_player() == 0
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=False, verbose=False)
    value, _ = minimax.alpha_beta_search(game, maximizing_player_id=0)
    assert value == 1.0


def test_the_game_type_and_sizes_follow_the_game_info():
    short = register("hearth", decks="handlock")
    assert short == "cardboard_hearth_decks-handlock"
    assert register("hearth", decks="handlock") == short  # idempotent
    game = pyspiel.load_game(short)
    info, kind = cardboard.make_game("hearth", decks="handlock").info, game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game.num_distinct_actions(), game.num_players()) == (info.num_actions, info.num_players)
    assert (game.min_utility(), game.max_utility()) == (info.min_return, info.max_return)
    assert game.max_game_length() == (info.max_turns + 1) * DECISIONS_PER_TURN
    assert game.observation_tensor_shape() == list(info.observation_shape)
    pig3 = register("demo_pig3")  # this test's own registration: under pytest-xdist no other test runs first
    assert pyspiel.load_game(pig3, {"deal_seeds": 1}).new_initial_state().chance_outcomes() == [(0, 1.0)]
    pig = pyspiel.load_game(pig3).get_type()
    assert pig.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert pyspiel.load_game(register(HIDDEN)).get_type().short_name == "cardboard_os_export_hidden_cards"


def test_a_taken_name_and_bad_parameters_are_refused():
    assert register(HIDDEN, num_cards=4) == "cardboard_os_export_hidden_cards_num_cards-4"
    with pytest.raises(InvalidParameterError, match="taken"):
        register(HIDDEN, num_cards="4")  # folds to the same short name
    with pytest.raises(InvalidParameterError, match="deal_seeds"):
        pyspiel.load_game(register(HIDDEN), {"deal_seeds": 0})
    game = load(HIDDEN)
    with pytest.raises(InvalidParameterError, match="not supported"):
        make_observation(game, pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                                          private_info=pyspiel.PrivateInfoType.NONE))


def test_a_missing_open_spiel_raises_a_typed_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(OpenSpielMissingError, match="open_spiel"):
        register(HIDDEN)


def test_importing_the_export_does_not_import_open_spiel():
    code = ("import sys; sys.modules['pyspiel'] = None; import cardboard.openspiel_export; "
            "assert not any(m.startswith('open_spiel') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def dealt(game: "pyspiel.Game", cards: tuple[int, int], **options) -> "pyspiel.State":
    """The exported hidden-cards state (``options`` as registered) after the deal seed that deals ``cards``."""
    ours = cardboard.make_game(HIDDEN, **options)
    seed = next(k for k in range(game.max_chance_outcomes()) if tuple(ours.new_state(k).cards) == cards)
    state = game.new_initial_state()
    assert state.is_chance_node() and seed in dict(state.chance_outcomes())
    state.apply_action(seed)
    return state


def test_chance_nodes_actions_and_strings():
    game = load(HIDDEN)
    state = game.new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.CHANCE and "before the deal" in str(state)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "deal seed 7"
    state = dealt(game, (4, 2))
    assert state.legal_actions() == [FOLD, BET] and state.action_to_string(0, BET) == "bet #1"
    state.apply_action(BET)
    state.apply_action(CALL)
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == [2.0, -2.0]
    pig = pyspiel.load_game(register("demo_pig3")).new_initial_state()
    pig.apply_action(0)  # the deal
    pig.apply_action(0)  # ROLL: a die roll, our outcome ids 1-6 unchanged
    assert pig.chance_outcomes() == [(face, pytest.approx(1 / 6)) for face in range(1, 7)]
    assert pig.action_to_string(pyspiel.PlayerId.CHANCE, 6) == "chance outcome 6"
    pig.inner.state.chance_outcomes = lambda: [(5000, 1.0)]  # an id above max_chance_outcomes
    with pytest.raises(ProtocolError, match="max_chance_outcomes"):
        pig.chance_outcomes()


def test_observations_are_ours_and_information_states_are_perfect_recall():
    game = load(HIDDEN)
    low, high = dealt(game, (4, 1)), dealt(game, (4, 5))  # player 0 holds 4 in both deals
    for state in (low, high):
        assert np.array_equal(state.observation_tensor(0), state.inner.state.observation(0))
    perfect = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    perfect.set_from(high, 0)
    assert np.array_equal(perfect.tensor, high.inner.state.observation(0, perfect=True))
    assert low.information_state_string(0) == high.information_state_string(0)  # player 0 sees only its 4
    assert low.information_state_string(1) != high.information_state_string(1)
    seen = low.observation_string(0)
    assert low.information_state_string(0) == f"p0 {seen}"
    low.apply_action(BET)
    recalled = f"p0 {seen}>{BET} {low.observation_string(0)}"  # what it saw when it bet, then what it sees
    assert low.information_state_string(0) == recalled
    low.apply_action(FOLD)
    assert low.information_state_string(0) == f"p0 {seen}>{BET} {low.observation_string(0)}"
    assert low.information_state_string(1).split()[1].endswith(f">{FOLD}")


def test_ismcts_finds_the_forced_moves_of_hidden_cards():
    game = load(HIDDEN)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=2.0,
                           max_simulations=200, random_state=np.random.RandomState(1))
    for cards, bets, forced in (((5, 2), 0, BET), ((1, 5), 1, CALL), ((3, 1), 1, FOLD)):
        state = dealt(game, cards)
        for _ in range(bets):
            state.apply_action(BET)
        assert right_move(state.inner.state) == forced
        assert bot.step(state) == forced, cards


def test_ismcts_plays_trick_duels_to_the_end():
    game = load("demo_tricks")
    rng = np.random.RandomState(2)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=20,
                           random_state=rng)
    for _ in range(3):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        assert decisions == 12 and sum(state.returns()) == 0


def test_outcome_sampling_mccfr_drives_nash_conv_down():
    game = pyspiel.load_game(register(HIDDEN, num_cards=3), {"deal_seeds": 60})
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    uniform = exploitability.nash_conv(game, solver.average_policy())  # nothing learnt yet: uniform play
    np.random.seed(0)  # the solver samples with numpy's global generator
    for _ in range(3000):
        solver.iteration()
    policy = solver.average_policy()
    learned = exploitability.nash_conv(game, policy)
    state = dealt(game, (3, 1), num_cards=3)
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)
    assert probs[BET] > 0.9  # the highest card bets (it wins every call)
    print(f"\nMCCFR on hidden cards (3 cards): NashConv {uniform:.3f} (uniform) -> {learned:.3f} (3000 iterations)")
    assert uniform > 0.5 and learned < 0.5 * uniform, (uniform, learned)

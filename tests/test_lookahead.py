"""The turn-level look-ahead agent on the small known games (tests/games) and on Lords of War."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies.lookahead import LookaheadAgent, turn_beam

from .games import dice_race, hidden_cards, nim, tictactoe


def act(agent, state, seed=0):
    return agent.act(state, np.random.default_rng(seed))


@pytest.mark.parametrize("turns", [1, 3])
def test_takes_a_win_in_one_move(turns):
    """X . X / O O . / . . .  X to move: 1 wins at once (O threatens 5 too)."""
    state = tictactoe.TicTacToeState(tictactoe.TicTacToeGame(), "X.XOO....")
    assert act(LookaheadAgent(turns=turns), state) == 1


def test_three_turns_blocks_what_one_turn_does_not_see():
    """X X . / . . O / . . .  O to move must block at 2; the open-lines heuristic alone prefers the centre."""
    state = tictactoe.TicTacToeState(tictactoe.TicTacToeGame(), "XX...O...")
    assert act(LookaheadAgent(turns=1, width=9), state) == 4
    assert act(LookaheadAgent(turns=3, width=9, branch=9), state) == 2


@pytest.mark.parametrize("totals,right", [((8, 10), dice_race.STOP), ((8, 9), dice_race.STOP),
                                          ((8, 6), dice_race.ROLL), ((9, 7), dice_race.ROLL)])
def test_finds_the_one_turn_win_inside_a_multi_move_turn(totals, right):
    """Dice race, player 1's (last) turn: stop when ahead or at the target, roll on while behind."""
    state = dice_race.DiceRaceGame(target=10, faces=3).state_with(totals, 1)
    assert dice_race.right_move(state) == right
    assert act(LookaheadAgent(samples=4), state) == right


def test_three_turns_finds_the_only_winning_nim_move():
    """Nim (1, 2): only 'take 1 from heap 1' (id 2) wins, three plies deep; to one turn every move looks
    equal (the heuristic is 0 before the end), so it keeps the first."""
    state = nim.NimGame((1, 2)).new_state()
    assert nim.winning_moves(state) == [2]
    assert act(LookaheadAgent(turns=1), state) == 0
    assert act(LookaheadAgent(turns=3), state) == 2


def test_turn_beam_ends_every_line_at_the_end_of_the_turn():
    state = dice_race.DiceRaceGame(target=10, faces=3).state_with((3, 0), 0)
    lines = turn_beam(state, np.random.default_rng(0), width=3)
    assert lines and all(ln.state.is_terminal() or ln.state.turn != state.turn for ln in lines)
    assert all(ln.actions[-1] == dice_race.STOP or ln.state.is_terminal() for ln in lines)
    assert [ln.value for ln in lines] == sorted((ln.value for ln in lines), reverse=True)


def play(game, agents, seed):
    """One game; returns the actions played (checks each is legal)."""
    rng = np.random.default_rng(seed)
    state, history = game.new_state(seed), []
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        action = agents[state.current_player].act(state, rng)
        assert action in state.legal_actions()
        state.apply(action)
        history.append(action)
    return history


GAMES = {"tictactoe": tictactoe.TicTacToeGame(), "nim": nim.NimGame((3, 4, 5)),
         "dice_race": dice_race.DiceRaceGame(), "hidden_cards": hidden_cards.HiddenCardsGame(5)}


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("turns", [1, 3])
def test_plays_only_legal_moves_and_is_deterministic_given_the_seed(name, turns):
    game = GAMES[name]
    for seed in range(3):
        first = play(game, [LookaheadAgent(turns=turns), cardboard.make_agent("random")], seed)
        again = play(game, [LookaheadAgent(turns=turns), cardboard.make_agent("random")], seed)
        assert first == again


@pytest.mark.parametrize("spec", ["lookahead:width=2", "lookahead:turns=3,width=2,branch=2"])
def test_lords_of_war_legal_deterministic_and_better_than_random(spec):
    game = cardboard.make_game("lords_of_war")
    histories = [play(game, [cardboard.make_agent(spec, game), cardboard.make_agent("random", game)], 5)
                 for _ in range(2)]
    assert histories[0] == histories[1]
    state = game.new_state(5)
    for action in histories[0]:  # replay (chance only at set-up): one legal game, won by the look-ahead (seat 0)
        state.apply(action)
    assert state.is_terminal() and state.returns()[0] == 1.0


def test_parameters_are_checked():
    for bad in ({"turns": 2}, {"width": 0}, {"samples": 0}, {"branch": 0}):
        with pytest.raises(ValueError):
            LookaheadAgent(**bad)
    agent = cardboard.make_agent("lookahead:turns=3,width=5,samples=2")
    assert (agent.turns, agent.width, agent.samples) == (3, 5, 2)

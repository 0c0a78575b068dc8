"""The end of the game (003 §1.6): the win by four cures, the three losses; every seat gets the same return."""
from __future__ import annotations

import pytest
from pandemic_helpers import BLUE, RED, L, apply_all, cure, draw, drive, infect, position, to_draw

from cardboard.envs.protocol import TERMINAL

RED4 = ["Tokyo", "Osaka", "Seoul", "Beijing"]


def assert_over(state, won, cause):
    assert state.is_terminal() and state.current_player == TERMINAL and state.phase == "over"
    assert bool(state.won()) is won and state.loss_cause() == cause
    assert state.returns().tolist() == [1.0 if won else -1.0] * state.num_players
    assert len(state.legal_actions()) == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fourth_cure_wins_for_every_seat(players):  # 003 §1.6 win
    roles = ("scientist", "medic", "researcher", "operations_expert")[:players]
    state = position(roles=roles, hands={0: RED4}, cured=["blue", "yellow", "black"])
    assert not state.is_terminal() and state.returns().tolist() == [0.0] * players
    state.apply(cure(RED))
    assert_over(state, True, "none")


def test_third_cure_does_not_win():  # 003 §1.6
    state = position(roles=("scientist", "medic"), hands={0: RED4}, cured=["blue", "yellow"])
    state.apply(cure(RED))
    assert not state.is_terminal() and state.s[L.CURED + RED] == 1


def lose_by_infection(**kw):
    state = position(roles=("scientist", "medic", "researcher"), player_deck=[["Lima", "Santiago"]], **kw)
    return draw(to_draw(state), "Lima", "Santiago")


def test_eighth_outbreak_loses():  # 003 §1.6 (ii)
    state = infect(lose_by_infection(outbreaks=7, cubes={"Paris": 3}), "Paris")
    assert state.s[L.OUTBREAKS] == 8
    assert_over(state, False, "outbreaks")


def test_eighth_outbreak_in_the_middle_of_a_chain_loses():  # 003 §1.6 (ii), official rules
    state = infect(lose_by_infection(outbreaks=6, cubes={"Paris": 3, "Essen": 3, "London": 3}), "Paris")
    assert_over(state, False, "outbreaks")


def test_seventh_outbreak_does_not_lose():  # 003 §1.6 (ii): the 8th loses
    state = infect(lose_by_infection(outbreaks=6, cubes={"Paris": 3}), "Paris")
    assert state.s[L.OUTBREAKS] == 7 and not state.is_terminal()


RED_EIGHT = {c: 3 for c in ("Bangkok", "Beijing", "Ho Chi Minh City", "Hong Kong", "Jakarta", "Manila", "Osaka",
                            "Seoul")}  # all 24 red cubes on the board


def test_empty_supply_loses():  # 003 §1.6 (i)
    state = lose_by_infection(cubes=RED_EIGHT)
    assert state.s[L.SUPPLY + RED] == 0
    infect(state, "Paris")  # blue: fine
    assert not state.is_terminal()
    infect(state, "Tokyo")  # red: none left
    assert_over(state, False, "cubes")


def test_last_cube_placed_is_not_a_loss():  # 003 §1.6 (i): a loss only when a cube is needed and none is left
    state = infect(lose_by_infection(cubes={**RED_EIGHT, "Seoul": 2}), "Tokyo")
    assert state.s[L.SUPPLY + RED] == 0 and not state.is_terminal()


def last_turn(roles=("scientist", "medic"), **kw):
    """Seat 1 to act with one card left in the player deck (seat 0 drew two of three)."""
    state = position(roles=roles, player_deck=[["Lima", "Santiago", "Bogota"]], **kw)
    infect(draw(to_draw(state), "Lima", "Santiago"), "Paris", "Essen")
    assert state.current_player == 1 and state.s[L.PEND] - state.s[L.PTOP] == 1
    return state


def test_player_deck_with_one_card_at_the_draw_loses():  # 003 §1.6 (iii), official rules: fewer than 2
    state = apply_all(last_turn(), drive("Chicago"), drive("Atlanta"), drive("Chicago"))
    assert not state.is_terminal()  # the last turn's actions are still played
    state.apply(drive("Atlanta"))
    assert_over(state, False, "player_deck")


def test_last_turn_can_still_win():  # 003 §1.6: the win comes before the draw
    state = last_turn(roles=("medic", "scientist"), hands={1: RED4}, cured=["blue", "yellow", "black"])
    state.apply(cure(RED))
    assert_over(state, True, "none")


def test_player_deck_with_two_cards_is_drawn():  # 003 §1.6 (iii)
    state = draw(to_draw(position(roles=("scientist", "medic"), player_deck=[["Lima", "Tokyo"]])), "Lima", "Tokyo")
    assert state.phase == "infect"
    infect(state, "Paris", "Essen")
    assert state.current_player == 1
    to_draw(state)  # now the deck is empty
    assert_over(state, False, "player_deck")


def test_illegal_after_the_end():  # protocol: no action at a terminal state
    state = position(roles=("scientist", "medic"), hands={0: RED4}, cured=["blue", "yellow", "black"])
    state.apply(cure(RED))
    with pytest.raises(Exception):
        state.apply(cure(BLUE))

"""Infections, outbreaks and epidemics (003 §1.1, §1.5; official rules for chains), and the hand limit (003 §1.5)."""
from __future__ import annotations

import pytest
from pandemic_helpers import (
    BLUE, CHANCE, CITY_NAMES, L, YELLOW, city, cube, discard, draw, give, hand, infect, legal,
    names, position, take, to_draw,
)

from cardboard import new_state
from cardboard.envs.pandemic import setup_of

ROLES = ("scientist", "researcher")
LIMA_TOKYO = [["Lima", "Tokyo"]]  # a player deck of two plain cards: one turn's draw


def infection_turn(**kw):
    """A position at the first infection draw of seat 0's turn (it passed and drew Lima and Tokyo)."""
    state = position(roles=ROLES, player_deck=kw.pop("player_deck", LIMA_TOKYO), **kw)
    return draw(to_draw(state), "Lima", "Tokyo")


def outcomes(state):
    probs = dict(state.chance_outcomes())
    assert sum(probs.values()) == pytest.approx(1.0)
    return probs


def infections_left(state):
    """Play the infection draws of this turn (the first possible outcome each); return how many there were."""
    n = 0
    while state.current_player == CHANCE and state.phase == "infect":
        state.apply(state.chance_outcomes()[0][0])
        n += 1
    return n


# ---- infection and outbreaks ------------------------------------------------------------------------------------
def test_an_infection_places_one_cube():  # 003 §1.5 step 3
    state = infect(infection_turn(), "Paris")
    assert cube(state, "Paris") == 1 and state.s[L.SUPPLY + BLUE] == 23 and state.s[L.IDISCARD + city("Paris")]
    assert state.s[L.OUTBREAKS] == 0


def test_a_fourth_cube_is_an_outbreak_on_every_neighbour():  # 003 §1.1
    state = infect(infection_turn(cubes={"Paris": 3}), "Paris")
    assert state.s[L.OUTBREAKS] == 1 and cube(state, "Paris") == 3
    assert {c: cube(state, c, BLUE) for c in ("Essen", "London", "Madrid", "Milan", "Algiers")} == dict.fromkeys(
        ("Essen", "London", "Madrid", "Milan", "Algiers"), 1)  # Algiers (black) gets a blue cube
    assert state.s[L.SUPPLY + BLUE] == 24 - 3 - 5


def test_chain_reaction_each_city_outbreaks_once():  # 003 §1.1, official rules: chains, once per chain
    cluster = {"London": 3, "Paris": 3, "Essen": 3, "Madrid": 3, "New York": 2}
    state = infect(infection_turn(cubes=cluster), "London")
    # London -> Essen, Paris, Madrid (all at 3) and New York (2 -> 3); Madrid then pushes New York over
    assert state.s[L.OUTBREAKS] == 5
    expect = {"London": 3, "Paris": 3, "Essen": 3, "Madrid": 3, "New York": 3, "Milan": 2, "St. Petersburg": 1,
              "Montreal": 1, "Washington": 1, "Algiers": 2, "Sao Paulo": 1}
    blue = {c: cube(state, c, BLUE) for c in CITY_NAMES if cube(state, c, BLUE)}
    assert blue == expect
    assert state.s[L.SUPPLY + BLUE] == 24 - sum(expect.values())


def test_eradicated_disease_is_not_placed():  # 003 §1.2 eradication
    state = infect(infection_turn(cured=["blue"]), "Paris")
    assert cube(state, "Paris") == 0 and state.s[L.SUPPLY + BLUE] == 24


def test_cured_but_not_eradicated_disease_is_placed():  # 003 §1.2: eradication needs no cube on the board
    state = infect(infection_turn(cured=["blue"], cubes={"Chicago": 1}), "Paris")
    assert cube(state, "Paris") == 1


# ---- the infection rate ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("track, rates", [("official", (2, 2, 2, 3, 3, 4, 4)), ("paper", (2, 2, 2, 2, 3, 3, 4))])
@pytest.mark.parametrize("drawn", range(7))
def test_infection_rate_track(track, rates, drawn):  # 003 §1.5, official rules / 003 §4.2
    state = infection_turn(epidemics_drawn=drawn, infection_rate_track=track)
    assert infections_left(state) == rates[drawn]
    assert state.current_player == 1 and state.phase == "actions"


@pytest.mark.parametrize("option, track", [("official", "official"), ("paper", "paper")])
def test_infection_rate_option(option, track):  # the game option sets the track (003 §4.2)
    assert setup_of(new_state("pandemic", seed=3, infection_rate=option))["infection_rate_track"] == track


def test_paper_track_last_step_is_four():  # 003 §4.2: 6-7 epidemics drawn -> 4
    assert L.INFECTION_RATE_PAPER == (2, 2, 2, 2, 3, 3, 4, 4) and L.INFECTION_RATE_OFFICIAL == (2, 2, 2, 3, 3, 4, 4)


def test_an_epidemic_raises_the_rate_at_once():  # 003 §1.5 step 2.1
    state = position(roles=ROLES, epidemics_drawn=2, player_deck=[["epidemic", "Lima"]])
    draw(to_draw(state), "epidemic", "Lagos", "Lima")
    assert state.s[L.EPIDEMICS_DRAWN] == 3 and infections_left(state) == 3


# ---- epidemics ---------------------------------------------------------------------------------------------------
def epidemic_state(**kw):
    """Seat 0 passed and is about to resolve an epidemic (the first of its two draws)."""
    kw.setdefault("player_deck", [["epidemic", "Lima"]])
    return draw(to_draw(position(roles=ROLES, **kw)), "epidemic")


def test_epidemic_infects_a_card_of_the_bottom_group():  # 003 §1.5 step 2.2
    rest = [c for c in CITY_NAMES if c not in ("Paris", "Essen", "Cairo")]
    state = epidemic_state(infection_deck=[["Paris", "Essen"], rest], infection_discard=["Cairo"])
    assert state.phase == "epidemic" and state.current_player == CHANCE
    assert outcomes(state) == pytest.approx({city(c): 1 / len(rest) for c in rest})
    assert state.sample_chance(None) == city(rest[-1])  # the stored bottom card


def test_epidemic_puts_three_cubes_on_the_bottom_card():  # 003 §1.5 step 2.2
    state = draw(epidemic_state(), "Lagos")
    assert cube(state, "Lagos") == 3 and state.s[L.OUTBREAKS] == 0 and state.s[L.SUPPLY + YELLOW] == 21


def test_epidemic_on_a_city_with_cubes_fills_it_and_outbreaks_once():  # official rules
    state = draw(epidemic_state(cubes={"Lagos": 1}), "Lagos")
    assert cube(state, "Lagos") == 3 and state.s[L.OUTBREAKS] == 1
    assert [cube(state, c, YELLOW) for c in ("Khartoum", "Kinshasa", "Sao Paulo")] == [1, 1, 1]
    full = draw(epidemic_state(cubes={"Lagos": 3}), "Lagos")
    assert cube(full, "Lagos") == 3 and full.s[L.OUTBREAKS] == 1 and full.s[L.SUPPLY + YELLOW] == 24 - 3 - 3


def test_epidemic_of_an_eradicated_disease_places_nothing():  # 003 §1.2 eradication
    state = draw(epidemic_state(cured=["yellow"]), "Lagos")
    assert cube(state, "Lagos") == 0 and state.s[L.SUPPLY + YELLOW] == 24


def test_epidemic_puts_the_discard_back_on_top_as_its_own_group():  # 003 §1.5 step 2.3
    before = ["Paris", "Cairo", "Tokyo"]
    state = draw(epidemic_state(infection_discard=before), "Lagos", "Lima")
    assert not state.s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES].any()
    group = {city(c) for c in before + ["Lagos"]}
    assert outcomes(state) == pytest.approx(dict.fromkeys(group, 0.25))


def test_the_restacked_group_is_drawn_before_the_older_cards():  # 003 §1.5 step 2.3, 003 §1.7
    state = position(roles=ROLES, player_deck=[["epidemic", "Lima", "Tokyo", "Osaka"]],
                     infection_discard=["Paris", "Cairo", "Tokyo"])
    draw(to_draw(state), "epidemic", "Lagos", "Lima")
    infect(state, "Tokyo", "Lagos")
    draw(to_draw(state), "Tokyo", "Osaka")  # seat 1's turn: two more infections
    assert names(outcomes(state)) == {"Paris", "Cairo"}
    infect(state, "Cairo")
    assert names(outcomes(state)) == {"Paris"}
    infect(state, "Paris")
    assert state.current_player == 0 and state.phase == "actions"
    assert len(state.s[L.IDECK + state.s[L.ITOP]:L.IDECK + state.s[L.IBOT]]) == 44


def test_second_epidemic_of_a_turn_restacks_only_its_own_card():  # official rules: Intensify
    state = position(roles=ROLES, player_deck=[["epidemic"], ["epidemic", "Lima"]], infection_discard=["Paris"],
                     cubes={"Cairo": 1})
    draw(to_draw(state), "epidemic", "Lagos", "epidemic", "Cairo")
    assert outcomes(state) == {city("Cairo"): 1.0}  # Cairo alone on top, then Paris and Lagos
    infect(state, "Cairo")  # Cairo has 3 cubes from its epidemic: it outbreaks (the second outbreak)
    assert state.s[L.OUTBREAKS] == 2 and names(outcomes(state)) == {"Paris", "Lagos"}


# ---- the hand limit ----------------------------------------------------------------------------------------------
SEVEN = ["Paris", "London", "Essen", "Milan", "Cairo", "Delhi", "Lagos"]


def test_hand_limit_after_the_draw():  # 003 §1.5: discard down to 7, then infect
    state = position(roles=ROLES, hands={0: SEVEN})
    draw(to_draw(state), "Lima", "Tokyo")
    assert state.phase == "limit_discard" and state.current_player == 0
    assert legal(state) == {discard(c) for c in SEVEN + ["Lima", "Tokyo"]}
    state.apply(discard("Tokyo"))
    assert state.phase == "limit_discard"
    state.apply(discard("Paris"))
    assert state.current_player == CHANCE and state.phase == "infect" and len(hand(state, 0)) == 7


def test_seven_cards_after_the_draw_need_no_discard():  # 003 §1.5
    state = draw(to_draw(position(roles=ROLES, hands={0: SEVEN[:5]})), "Lima", "Tokyo")
    assert state.phase == "infect"


def test_an_eighth_card_by_sharing_is_discarded_at_once_by_its_holder():  # official rules: hand limit at all times
    state = position(roles=ROLES, at={0: "Paris", 1: "Paris"}, hands={0: ["Paris"], 1: SEVEN[1:] + ["Tokyo"]})
    state.apply(give(1, "Paris"))
    assert state.phase == "limit_discard" and state.current_player == 1 and state.turn_player == 0
    assert legal(state) == {discard(c) for c in SEVEN + ["Tokyo"]}
    state.apply(discard("Tokyo"))
    assert state.phase == "actions" and state.current_player == 0 and state.s[L.ACTIONS_LEFT] == 3
    assert hand(state, 1) == set(SEVEN)


def test_an_eighth_card_taken_with_the_last_action():  # official rules; then the draw follows
    state = position(roles=ROLES, at={0: "Paris", 1: "Paris"}, hands={0: SEVEN[1:] + ["Tokyo"], 1: ["Paris"]},
                     actions_left=1)
    state.apply(take(1, "Paris"))
    assert state.phase == "limit_discard" and state.current_player == 0
    state.apply(discard("Paris"))
    assert state.current_player == CHANCE and state.phase == "draw"

"""Each role's special rule: the paper's four (003 §1.3) and the official Dispatcher and Quarantine Specialist."""
from __future__ import annotations

import pytest
from pandemic_helpers import (
    BLACK, BLUE, CITY_NAMES, L, RED, apply_all, build_move, city, cube, cure, direct, dispatch, draw, drive,
    give, hand, infect, legal, names, ops_move, position, take, to_draw, treat,
)

from cardboard.envs.errors import IllegalActionError

BLUE4 = ["Paris", "London", "Essen", "Milan"]


def pawn(state, seat):
    return CITY_NAMES[state.s[L.PAWN + seat]]


def ops_moves(state):
    return {a for a in legal(state) if L.A_OPS_MOVE <= a < L.A_TREAT}


# ---- Operations Expert ------------------------------------------------------------------------------------
def test_operations_expert_builds_without_a_card():  # 003 §1.3
    state = position(at={0: "Paris"}, hands={0: ["Lima"]})
    state.apply(L.A_BUILD)
    assert state.s[L.STATION + city("Paris")] == 1 and hand(state, 0) == {"Lima"}
    full = position(at={0: "Paris"}, stations=["Atlanta", "Tokyo", "Lima", "Cairo", "Essen", "Sydney"])
    full.apply(build_move("Cairo"))  # with 6 built, still without a card
    assert full.s[L.STATION + city("Paris")] == 1 and full.s[L.STATION + city("Cairo")] == 0


def test_operations_expert_station_move_discards_any_card_once_a_turn():  # 003 §1.3
    state = position(hands={0: ["Lima", "Tokyo"]})
    assert ops_moves(state) == {ops_move(d, c) for d in CITY_NAMES if d != "Atlanta" for c in ("Lima", "Tokyo")}
    state.apply(ops_move("Cairo", "Tokyo"))
    assert pawn(state, 0) == "Cairo" and hand(state, 0) == {"Lima"} and state.s[L.PDISCARD + city("Tokyo")]
    state.apply(direct("Lima"))
    assert not ops_moves(state)  # not from a city without a station
    state.apply(L.A_BUILD)  # Lima has a station now, but the move is spent for this turn
    assert not ops_moves(position(hands={0: ["Lima"]}, at={0: "Lima"}))
    assert not ops_moves(state)
    with pytest.raises(IllegalActionError):
        state.apply(ops_move("Tokyo", "Lima"))


def test_operations_expert_station_move_comes_back_next_turn():  # 003 §1.3: once per turn
    state = position(roles=("operations_expert", "medic"), hands={0: ["Lima", "Tokyo"]})
    apply_all(state, ops_move("Cairo", "Tokyo"), direct("Lima"), L.A_BUILD, L.A_PASS)
    draw(state, "Paris", "London")
    infect(state, "Madrid", "Essen")
    to_draw(state)  # the Medic's turn
    draw(state, "Milan", "New York")
    infect(state, "Montreal", "Washington")
    assert state.current_player == 0 and ops_moves(state)


def test_operations_expert_needs_a_card_and_a_station_for_the_move():  # 003 §1.3
    assert not ops_moves(position())
    assert not ops_moves(position(at={0: "Paris"}, hands={0: ["Lima"]}))
    assert not ops_moves(position(roles=("medic", "operations_expert"), hands={0: ["Lima"]}))


# ---- Medic --------------------------------------------------------------------------------------------------
def test_medic_treats_all_cubes_of_a_colour_in_one_action():  # 003 §1.3
    state = position(roles=("medic", "scientist"), at={0: "Cairo"}, cubes={"Cairo": {"black": 3, "red": 2}})
    state.apply(treat(BLACK))
    assert cube(state, "Cairo", BLACK) == 0 and cube(state, "Cairo", RED) == 2 and state.s[L.ACTIONS_LEFT] == 3


def test_medic_removes_cured_cubes_on_entering_a_city():  # official rules (003 §1.3: "freely if cured")
    state = position(roles=("medic", "scientist"), cubes={"Chicago": {"blue": 2, "red": 1}}, cured=["blue"])
    state.apply(drive("Chicago"))
    assert cube(state, "Chicago", BLUE) == 0 and cube(state, "Chicago", RED) == 1
    assert state.s[L.SUPPLY + BLUE] == 24


def test_medic_clears_its_city_when_the_cure_is_found():  # official rules
    state = position(roles=("scientist", "medic"), at={1: "Chicago"}, hands={0: BLUE4},
                     cubes={"Chicago": 3, "Montreal": 2})
    state.apply(cure(BLUE))
    assert cube(state, "Chicago") == 0 and cube(state, "Montreal") == 2


def test_medic_prevents_cubes_of_cured_diseases_where_it_stands():  # official rules
    state = position(roles=("scientist", "medic"), at={1: "Paris"}, cured=["blue"], cubes={"Tokyo": {"blue": 1}},
                     infection_deck=[["Paris", "Essen", "Milan"]], player_deck=[["Lima", "Cairo"]])
    draw(to_draw(state), "Lima", "Cairo")
    infect(state, "Paris", "Essen")
    assert cube(state, "Paris") == 0 and cube(state, "Essen") == 1  # not eradicated: a cube is on Tokyo


def test_medic_does_not_prevent_uncured_diseases():  # official rules
    state = position(roles=("scientist", "medic"), at={1: "Paris"}, infection_deck=[["Paris", "Essen"]],
                     player_deck=[["Lima", "Cairo"]])
    infect(draw(to_draw(state), "Lima", "Cairo"), "Paris")
    assert cube(state, "Paris") == 1


# ---- Researcher -----------------------------------------------------------------------------------------------
def test_researcher_gives_any_card():  # 003 §1.3
    state = position(roles=("researcher", "scientist"), at={0: "Paris", 1: "Paris"}, hands={0: ["Tokyo", "Lima"]})
    assert {a for a in legal(state) if L.A_GIVE <= a < L.A_TAKE} == {give(1, "Tokyo"), give(1, "Lima")}
    state.apply(give(1, "Tokyo"))
    assert hand(state, 1) == {"Tokyo"}


def test_anyone_takes_any_card_from_the_researcher():  # official rules
    state = position(roles=("scientist", "researcher"), at={0: "Paris", 1: "Paris"}, hands={1: ["Tokyo", "Lima"]})
    assert {a for a in legal(state) if L.A_TAKE <= a < L.A_CURE} == {take(1, "Tokyo"), take(1, "Lima")}
    state.apply(take(1, "Lima"))
    assert hand(state, 0) == {"Lima"} and hand(state, 1) == {"Tokyo"}


def test_researcher_still_shares_only_in_the_same_city():  # 003 §1.2
    state = position(roles=("researcher", "scientist"), at={0: "Paris", 1: "Madrid"}, hands={0: ["Tokyo"]})
    assert not {a for a in legal(state) if L.A_GIVE <= a < L.A_CURE}


def test_a_non_researcher_takes_only_the_city_card_from_another_non_researcher():  # 003 §1.2
    state = position(roles=("scientist", "medic"), at={0: "Paris", 1: "Paris"}, hands={1: ["Tokyo", "Paris"]})
    assert {a for a in legal(state) if L.A_TAKE <= a < L.A_CURE} == {take(1, "Paris")}


# ---- Scientist ----------------------------------------------------------------------------------------------------
def test_scientist_cures_with_four_cards():  # 003 §1.3
    state = position(roles=("scientist", "medic"), hands={0: BLUE4 + ["Lima"]})
    state.apply(cure(BLUE))
    assert state.s[L.CURED + BLUE] == 1 and hand(state, 0) == {"Lima"}
    assert cure(BLUE) not in legal(position(roles=("medic", "scientist"), hands={0: BLUE4}))
    assert cure(BLUE) not in legal(position(roles=("scientist", "medic"), hands={0: BLUE4[:3]}))


def test_scientist_with_five_cards_chooses_four():  # official rules
    state = position(roles=("scientist", "medic"), hands={0: BLUE4 + ["Madrid"]})
    state.apply(cure(BLUE))
    assert state.phase == "cure_discard"
    apply_all(state, *(L.A_DISCARD + city(c) for c in BLUE4))
    assert state.s[L.CURED + BLUE] == 1 and hand(state, 0) == {"Madrid"}


# ---- Dispatcher ----------------------------------------------------------------------------------------------------
DISPATCH_ROLES = ("dispatcher", "medic", "scientist")


def dispatches(state, seat, mode):
    base = L.A_DISPATCH + (seat * 5 + L.DISPATCH_MODES.index(mode)) * L.NUM_CITIES
    return names(a - base for a in legal(state) if base <= a < base + L.NUM_CITIES)


def test_dispatcher_drives_another_pawn_to_its_neighbours():  # official rules: Dispatcher
    state = position(roles=DISPATCH_ROLES, at={2: "Tokyo"})
    assert dispatches(state, 1, "drive") == {"Chicago", "Washington", "Miami"}
    state.apply(dispatch(1, "drive", "Miami"))
    assert pawn(state, 1) == "Miami" and pawn(state, 0) == "Atlanta" and state.s[L.ACTIONS_LEFT] == 3


def test_dispatcher_flies_another_pawn_with_its_own_cards():  # official rules: Dispatcher
    state = position(roles=DISPATCH_ROLES, at={1: "Paris"}, hands={0: ["Lima", "Paris"], 1: ["Tokyo"]})
    assert dispatches(state, 1, "direct") == {"Lima"}  # the Dispatcher's cards, not the Medic's Tokyo
    assert dispatches(state, 1, "charter") == set(CITY_NAMES) - {"Paris"}
    state.apply(dispatch(1, "direct", "Lima"))
    assert pawn(state, 1) == "Lima" and hand(state, 0) == {"Paris"} and hand(state, 1) == {"Tokyo"}
    back = position(roles=DISPATCH_ROLES, at={1: "Paris"}, hands={0: ["Paris"]})
    back.apply(dispatch(1, "charter", "Cairo"))
    assert pawn(back, 1) == "Cairo" and hand(back, 0) == set() and back.s[L.PDISCARD + city("Paris")]


def test_dispatcher_shuttles_another_pawn_between_stations():  # official rules: Dispatcher
    state = position(roles=DISPATCH_ROLES, at={0: "Lima"}, stations=["Atlanta", "Tokyo"])
    assert dispatches(state, 1, "shuttle") == {"Tokyo"}
    assert not {a for a in legal(state) if L.A_SHUTTLE <= a < L.A_OPS_MOVE}  # its own pawn is not at a station


def test_dispatcher_joins_any_pawn_to_another_pawn():  # official rules: Dispatcher
    state = position(roles=DISPATCH_ROLES, at={1: "Paris", 2: "Tokyo"})
    assert dispatches(state, 1, "join") == {"Atlanta", "Tokyo"}
    assert dispatches(state, 0, "join") == {"Paris", "Tokyo"}  # its own pawn too
    state.apply(dispatch(0, "join", "Tokyo"))
    assert pawn(state, 0) == "Tokyo"
    with pytest.raises(IllegalActionError):
        state.apply(dispatch(1, "join", "Lima"))


def test_dispatched_medic_clears_cured_cubes():  # official rules: the Medic's passive on any move
    state = position(roles=DISPATCH_ROLES, cubes={"Chicago": 2}, cured=["blue"])
    state.apply(dispatch(1, "drive", "Chicago"))
    assert cube(state, "Chicago") == 0


def test_only_the_dispatcher_dispatches():  # official rules
    state = position(roles=("medic", "dispatcher"), hands={0: ["Lima"]})
    assert not {a for a in legal(state) if a >= L.A_DISPATCH}


# ---- Quarantine Specialist ----------------------------------------------------------------------------------------
def qs_state(**kw):
    return position(roles=("scientist", "quarantine_specialist"), at={1: "Cairo"}, player_deck=[["Lima", "Tokyo"]],
                    **kw)


def test_quarantine_specialist_blocks_infection_in_its_city_and_neighbours():  # official rules
    state = qs_state()
    infect(draw(to_draw(state), "Lima", "Tokyo"), "Cairo", "Istanbul")
    assert cube(state, "Cairo") == 0 and cube(state, "Istanbul") == 0
    assert state.s[L.SUPPLY + BLACK] == 24


def test_quarantine_specialist_does_not_block_further_away():  # official rules
    state = qs_state()
    infect(draw(to_draw(state), "Lima", "Tokyo"), "Tehran")
    assert cube(state, "Tehran") == 1


def test_quarantine_specialist_blocks_outbreak_cubes_next_to_it():  # official rules
    state = qs_state(cubes={"Tehran": 3})
    infect(draw(to_draw(state), "Lima", "Tokyo"), "Tehran")
    assert state.s[L.OUTBREAKS] == 1
    assert cube(state, "Baghdad") == 0  # next to Cairo
    assert [cube(state, c) for c in ("Delhi", "Karachi", "Moscow")] == [1, 1, 1]


def test_quarantine_specialist_blocks_the_epidemic_cubes():  # official rules
    state = position(roles=("scientist", "quarantine_specialist"), at={1: "Cairo"},
                     player_deck=[["epidemic", "Lima", "Tokyo"]])
    draw(to_draw(state), "epidemic", "Cairo")
    assert cube(state, "Cairo") == 0 and state.s[L.SUPPLY + BLACK] == 24


@pytest.mark.parametrize("where", ["Cairo", "Istanbul"])
def test_quarantine_specialist_prevents_outbreaks_in_its_city_and_neighbours(where):  # official rules
    state = qs_state(cubes={where: 3})
    infect(draw(to_draw(state), "Lima", "Tokyo"), where)
    assert state.s[L.OUTBREAKS] == 0 and cube(state, where) == 3 and state.s[L.SUPPLY + BLACK] == 21

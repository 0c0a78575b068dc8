"""The eight player actions of 003 §1.2 (official base-game rules where the paper is silent), the 4-action turn
(003 §1.5) and the checked ``apply``. Seat 0 is the Scientist here unless a test says otherwise, so that no
role's special rule gets in the way (the roles have their own file)."""
from __future__ import annotations

import pytest
from pandemic_helpers import (
    BLACK, BLUE, CHANCE, CITY_NAMES, L, apply_all, build_move, charter, city, cube, cure, direct, discard, drive,
    give, hand, legal, names, neighbours, position, shuttle, take, to_draw, treat,
)

from cardboard.envs.errors import IllegalActionError

ROLES = ("scientist", "quarantine_specialist")  # the Quarantine Specialist's rule only touches infections


def pawn(state, seat):
    return CITY_NAMES[state.s[L.PAWN + seat]]


def discarded(state):
    return names(i for i in range(L.NUM_CITIES) if state.s[L.PDISCARD + i])


def actions_of(kind_start, kind_end, state):
    return {a - kind_start for a in legal(state) if kind_start <= a < kind_end}


def test_drive_ferry_goes_only_to_neighbours():  # 003 §1.2 (a)
    state = position(roles=ROLES)
    assert names(actions_of(L.A_DRIVE, L.A_DIRECT, state)) == {"Chicago", "Washington", "Miami"}
    state.apply(drive("Washington"))
    assert pawn(state, 0) == "Washington" and state.s[L.ACTIONS_LEFT] == 3
    assert names(actions_of(L.A_DRIVE, L.A_DIRECT, state)) == names(neighbours(city("Washington")))
    with pytest.raises(IllegalActionError):
        state.apply(drive("Paris"))


def test_direct_flight_discards_the_destination_card():  # 003 §1.2 (c)
    state = position(roles=ROLES, hands={0: ["Paris", "Lima"]})
    assert names(actions_of(L.A_DIRECT, L.A_CHARTER, state)) == {"Paris", "Lima"}
    state.apply(direct("Paris"))
    assert pawn(state, 0) == "Paris" and hand(state, 0) == {"Lima"} and "Paris" in discarded(state)
    assert names(actions_of(L.A_DIRECT, L.A_CHARTER, state)) == {"Lima"}


def test_charter_flight_discards_the_current_city_card_and_goes_anywhere():  # 003 §1.2 (d)
    assert not actions_of(L.A_CHARTER, L.A_SHUTTLE, position(roles=ROLES, hands={0: ["Paris"]}))
    state = position(roles=ROLES, hands={0: ["Atlanta", "Paris"]})
    assert names(actions_of(L.A_CHARTER, L.A_SHUTTLE, state)) == set(CITY_NAMES) - {"Atlanta"}
    state.apply(charter("Tokyo"))
    assert pawn(state, 0) == "Tokyo" and hand(state, 0) == {"Paris"} and "Atlanta" in discarded(state)


def test_shuttle_flight_only_between_research_stations():  # 003 §1.2 (b)
    state = position(roles=ROLES, stations=["Atlanta", "Tokyo", "Paris"])
    assert names(actions_of(L.A_SHUTTLE, L.A_OPS_MOVE, state)) == {"Tokyo", "Paris"}
    state.apply(shuttle("Tokyo"))
    assert pawn(state, 0) == "Tokyo" and hand(state, 0) == set()
    state.apply(drive("Osaka"))
    assert not actions_of(L.A_SHUTTLE, L.A_OPS_MOVE, state)


def test_treat_removes_one_cube_or_all_of_a_cured_disease():  # 003 §1.2 treat
    state = position(roles=ROLES, at={0: "Cairo"}, cubes={"Cairo": {"black": 3, "blue": 2}})
    assert actions_of(L.A_TREAT, L.A_BUILD, state) == {BLUE, BLACK}
    state.apply(treat(BLACK))
    assert cube(state, "Cairo") == 2 and state.s[L.SUPPLY + BLACK] == 24 - 2
    with pytest.raises(IllegalActionError):
        state.apply(treat(L.COLOUR_NAMES.index("red")))
    cured = position(roles=ROLES, at={0: "Cairo"}, cubes={"Cairo": {"black": 3, "blue": 2}}, cured=["blue"])
    cured.apply(treat(BLUE))
    assert cube(cured, "Cairo", BLUE) == 0 and cube(cured, "Cairo", BLACK) == 3 and cured.s[L.SUPPLY + BLUE] == 24


def test_build_discards_the_city_card():  # 003 §1.2 build
    assert L.A_BUILD not in legal(position(roles=ROLES, at={0: "Paris"}))
    state = position(roles=ROLES, at={0: "Paris"}, hands={0: ["Paris", "Lima"]})
    state.apply(L.A_BUILD)
    assert state.s[L.STATION + city("Paris")] == 1 and hand(state, 0) == {"Lima"} and "Paris" in discarded(state)
    assert L.A_BUILD not in legal(state)  # a station is there now
    assert L.A_BUILD not in legal(position(roles=ROLES, hands={0: ["Atlanta"]}))  # Atlanta has one already


def test_with_six_stations_a_build_moves_one():  # official rules: 6 research stations
    six = ["Atlanta", "Tokyo", "Lima", "Cairo", "Essen", "Sydney"]
    state = position(roles=ROLES, at={0: "Paris"}, hands={0: ["Paris"]}, stations=six)
    assert L.A_BUILD not in legal(state)
    assert names(actions_of(L.A_BUILD_MOVE, L.A_GIVE, state)) == set(six)
    state.apply(build_move("Tokyo"))
    built = names(i for i in range(L.NUM_CITIES) if state.s[L.STATION + i])
    assert built == set(six) - {"Tokyo"} | {"Paris"} and hand(state, 0) == set()


def test_share_knowledge_only_the_card_of_the_shared_city():  # 003 §1.2 share knowledge
    state = position(roles=ROLES, at={0: "Paris", 1: "Paris"}, hands={0: ["Paris", "Tokyo"], 1: ["Madrid"]})
    shares = {a for a in legal(state) if L.A_GIVE <= a < L.A_CURE}
    assert shares == {give(1, "Paris")}
    state.apply(give(1, "Paris"))
    assert hand(state, 0) == {"Tokyo"} and hand(state, 1) == {"Madrid", "Paris"}
    state.apply(take(1, "Paris"))
    assert hand(state, 0) == {"Tokyo", "Paris"} and hand(state, 1) == {"Madrid"}
    apart = position(roles=ROLES, at={0: "Paris", 1: "Madrid"}, hands={0: ["Paris"], 1: ["Madrid"]})
    assert not {a for a in legal(apart) if L.A_GIVE <= a < L.A_CURE}


def test_cure_needs_five_cards_of_a_colour_at_a_station():  # 003 §1.2 discover a cure
    blue5 = ["Paris", "London", "Essen", "Milan", "Madrid"]
    state = position(roles=("medic", "researcher"), hands={0: blue5 + ["Lima"]})
    assert cure(BLUE) in legal(state)
    state.apply(cure(BLUE))
    assert state.s[L.CURED + BLUE] == 1 and hand(state, 0) == {"Lima"} and set(blue5) <= discarded(state)
    assert state.s[L.ACTIONS_LEFT] == 3
    assert cure(BLUE) not in legal(position(roles=("medic", "researcher"), hands={0: blue5[:4]}))
    away = position(roles=("medic", "researcher"), at={0: "Chicago"}, hands={0: blue5})
    assert cure(BLUE) not in legal(away)


def test_cure_with_extra_cards_lets_the_player_choose_the_discards():  # 003 §1.2, official rules
    blue7 = ["Paris", "London", "Essen", "Milan", "Madrid", "Chicago", "Montreal"]
    state = position(roles=("medic", "researcher"), hands={0: blue7})
    state.apply(cure(BLUE))
    assert state.phase == "cure_discard" and state.current_player == 0 and state.s[L.CURED + BLUE] == 0
    assert legal(state) == {discard(c) for c in blue7}
    apply_all(state, *(discard(c) for c in blue7[:4]))
    assert state.phase == "cure_discard" and state.s[L.CURED + BLUE] == 0
    state.apply(discard(blue7[4]))
    assert state.phase == "actions" and state.s[L.CURED + BLUE] == 1 and hand(state, 0) == set(blue7[5:])
    assert state.s[L.ACTIONS_LEFT] == 3


def test_four_actions_then_the_draw():  # 003 §1.2 / §1.5: up to 4 actions, then draw 2 player cards
    state = position(roles=ROLES)
    for k, city_name in enumerate(["Chicago", "Atlanta", "Chicago"]):
        state.apply(drive(city_name))
        assert state.current_player == 0 and state.s[L.ACTIONS_LEFT] == 3 - k
    state.apply(drive("Montreal"))
    assert state.current_player == CHANCE and state.phase == "draw" and state.turn_player == 0


def test_pass_ends_the_actions_early():  # official rules: a player may take fewer than 4 actions
    state = apply_all(position(roles=ROLES), drive("Chicago"))
    to_draw(state)
    assert state.current_player == CHANCE and state.phase == "draw" and state.s[L.ACTIONS_LEFT] == 0


@pytest.mark.parametrize("action", [drive("Paris"), direct("Paris"), charter("Paris"), shuttle("Tokyo"),
                                    L.A_BUILD, give(1, "Atlanta"), cure(BLUE), discard("Atlanta"),
                                    L.NUM_ACTIONS, -1])
def test_an_illegal_action_raises_and_changes_nothing(action):  # protocol: checked apply
    state = position(roles=ROLES, at={1: "Chicago"}, hands={0: ["Lima"]})
    before = state.s.copy()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert (state.s == before).all()
    state.apply(drive("Chicago"))  # and it still plays
    assert state.s[L.ACTIONS_LEFT] == 3


def test_a_decision_at_a_chance_node_is_illegal():  # protocol: chance nodes take outcomes only
    state = to_draw(position(roles=ROLES))
    before = state.s.copy()
    with pytest.raises(IllegalActionError):
        state.apply(L.A_PASS)
    with pytest.raises(IllegalActionError):
        state.apply(L.EPIDEMIC)  # no epidemic in this deck
    assert (state.s == before).all()

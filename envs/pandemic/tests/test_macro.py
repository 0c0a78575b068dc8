"""The macro-action layer (003 §1.7, ``macro.py``; README "Macro-actions"): the cure-ability metric A(t) (eq. 1-2),
``spendable`` cards, the routes (drive / ferry and shuttle always; direct, charter and the Operations Expert's
station move only with spendable cards), and the macros TREAT / CURE / BUILD / GIVE / TAKE / WALK / PASS: what is
legal, that each is its route and one action played through the primitive rules, that it fits in the actions
left (003 §2.3), and that chance, naming and illegal ids behave as on the primitive layer.

Seat roles are given per test; the paper's order (003 §1.3) is Operations Expert, Medic, Researcher, Scientist.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandemic_helpers import (
    BLACK, BLUE, CHANCE, CITY_NAMES, L, RED, YELLOW, charter, check_invariants, city, cube, direct, drive, hand,
    legal, m_build, m_cure, m_discard, m_give, m_take, m_treat, m_walk, macro_position, names, neighbours, ops_move,
    position, random_step, shuttle, treat,
)

import cardboard
from cardboard.envs.errors import IllegalActionError
from cardboard.envs.pandemic import macro as M
from cardboard.envs.pandemic.board import CITY_COLOURS, CITY_INDEX, DRIVE_DISTANCE
from cardboard.envs.pandemic.state import describe_macro

MEDIC_FIRST = ("medic", "operations_expert", "researcher", "scientist")  # seat 0 without a role rule on moves


# ---- ids and small readers -----------------------------------------------------------------------------
def ability(state) -> np.ndarray:
    out = np.empty(L.NUM_COLOURS)
    M.cure_ability(state.s, state.cards, out)
    return out


def spendable_cards(state, seat) -> set[str]:
    out = np.zeros(L.NUM_CITIES, dtype=np.bool_)
    M.spendable(state.s, state.cards, seat, out)
    return names(np.flatnonzero(out))


def route(state, seat=None):
    r = M.new_routes()
    M.routes(state.s, state.cards, int(state.s[L.PLAYER]) if seat is None else seat, r)
    return r


def dist(state, c, seat=None) -> int:
    return int(route(state, seat)[M.DIST, city(c)])


def steps(state, m) -> list[int]:
    out = np.empty(8, dtype=np.int32)
    n = M.macro_steps(state.s, state.cards, m, out)
    return [int(a) for a in out[:n]]


def pawn(state, seat) -> str:
    return CITY_NAMES[state.s[L.PAWN + seat]]


def kinds(state, kind) -> set[int]:
    return {int(m) for m in state.legal_actions() if M.macro_kind(int(m)) == kind}


# ---- A(t), eq. 1-2 -----------------------------------------------------------------------------------------
def manila_example(**kw):
    """003 §4.2's worked example: Player 1 (Operations Expert) holds 2 red cards, Player 2 (Medic, to act) holds
    Manila, the Scientist (Player 4) 1 red card; Player 2 and the Scientist stand in Manila."""
    fields = dict(at={1: "Manila", 3: "Manila"}, hands={0: ["Hong Kong", "Taipei"], 1: ["Manila"], 3: ["Beijing"]},
                  current_player=1)
    fields.update(kw)
    return macro_position(**fields)


def test_cure_ability_worked_example_manila_to_the_scientist():  # 003 §4.2, eq. 1-2
    state = manila_example()
    assert ability(state)[RED] == pytest.approx(2 / 5)  # Player 1's 2 of 5
    state.apply(m_give(3, "Manila"))
    assert "Manila" in hand(state, 3) and "Manila" not in hand(state, 1)
    assert ability(state)[RED] == pytest.approx(2 / 4)  # the Scientist's 2 of 4


def test_cure_ability_takes_the_best_seat_caps_at_one_and_is_one_when_cured():  # 003 eq. 1-2
    state = position(roles=MEDIC_FIRST, hands={
        0: ["Atlanta", "Chicago", "Essen", "London", "Madrid", "Milan"],  # 6 blue for the Medic: min(1, 6/5)
        1: ["Lima"], 2: ["Bogota", "Miami"],  # yellow: 2/5 (the best seat)
        3: ["Cairo", "Delhi", "Tokyo"],  # the Scientist: black 2/4, red 1/4
    })
    assert ability(state) == pytest.approx([1.0, 2 / 5, 2 / 4, 1 / 4])
    cured = position(roles=MEDIC_FIRST, hands={3: ["Tokyo"]}, cured=["red"])
    assert ability(cured) == pytest.approx([0.0, 0.0, 0.0, 1.0])


# ---- spendable cards --------------------------------------------------------------------------------------
def test_spendable_cards_are_those_whose_loss_keeps_a_of_their_colour():  # 003 §1.7
    state = position(roles=MEDIC_FIRST, hands={
        0: ["Tokyo", "Osaka", "Paris", "Lima", "Cairo"],  # red 2 (best), blue 1, yellow 1 (alone), black 1
        1: ["London", "Essen"],  # blue 2: the Medic's Paris does not count
        2: ["Delhi"],  # black 1: a tie, the Medic's Cairo can go
        3: ["Seoul"],  # the Scientist's red 1/4 < the Medic's 2/5
    })
    assert spendable_cards(state, 0) == {"Paris", "Cairo"}
    assert spendable_cards(state, 1) == set()  # its 2 blue are the best
    assert spendable_cards(state, 3) == {"Seoul"}
    cured = position(roles=MEDIC_FIRST, hands={0: ["Lima"]}, cured=["yellow"])
    assert spendable_cards(cured, 0) == {"Lima"}  # A(t) is 1 whatever is discarded


# ---- routes ---------------------------------------------------------------------------------------------------
def test_routes_are_drive_distances_without_cards_or_other_stations():  # 003 §1.7: shortest action sequences
    for start in ("Atlanta", "Cairo", "Santiago"):
        state = position(roles=MEDIC_FIRST, at={0: start})
        r = route(state)
        assert (r[M.DIST] == DRIVE_DISTANCE[city(start)]).all()


def test_routes_use_shuttle_flights():  # 003 §1.7: shuttle always eligible
    state = position(roles=MEDIC_FIRST, stations=["Atlanta", "Cairo"])
    assert DRIVE_DISTANCE[city("Atlanta"), city("Riyadh")] == 6
    assert dist(state, "Riyadh") == 2  # shuttle to Cairo, drive
    assert steps(macro_position(roles=MEDIC_FIRST, stations=["Atlanta", "Cairo"], cubes={"Riyadh": 1}),
                 m_treat("Riyadh")) == [shuttle("Cairo"), drive("Riyadh"), treat(BLACK)]


def test_direct_flights_only_with_spendable_cards():  # 003 §1.7
    alone = position(roles=MEDIC_FIRST, hands={0: ["Lima"]})  # the team's only yellow: not spendable
    assert dist(alone, "Lima") == 3
    spare = position(roles=MEDIC_FIRST, hands={0: ["Lima"], 1: ["Santiago"]})  # a tie: spendable
    assert dist(spare, "Lima") == 1 and dist(spare, "Santiago") == 2
    assert route(spare)[M.STEP, city("Lima")] == direct("Lima")


def test_charter_flights_only_with_a_spendable_card_of_the_city():  # 003 §1.7
    kept = position(roles=MEDIC_FIRST, hands={0: ["Atlanta"]})
    assert (route(kept)[M.DIST] == DRIVE_DISTANCE[city("Atlanta")]).all()
    spare = position(roles=MEDIC_FIRST, hands={0: ["Atlanta"], 1: ["Chicago"]})
    r = route(spare)
    assert r[M.DIST].max() == 1
    assert r[M.STEP, city("Karachi")] == charter("Karachi")


def test_a_route_spends_each_card_once():  # a card discarded for a flight is gone
    state = position(roles=MEDIC_FIRST, hands={0: ["Paris"], 1: ["Essen"]})  # Paris spendable
    assert dist(state, "Paris") == 1 and dist(state, "Milan") == 2
    assert dist(state, "Karachi") == 5  # direct to Paris, then 4 drives: no charter with the Paris card again


def test_operations_expert_station_move_with_its_lowest_spendable_card():  # 003 §1.3, README decisions
    roles = ("operations_expert", "medic", "researcher", "scientist")
    state = macro_position(roles=roles, hands={0: ["Lima", "Bogota"], 1: ["Santiago", "Miami"]},
                           cubes={"Karachi": 1})
    assert spendable_cards(state, 0) == {"Lima", "Bogota"}
    assert route(state)[M.DIST].max() == 1  # from the Atlanta station anywhere
    assert steps(state, m_treat("Karachi")) == [ops_move("Karachi", "Bogota"), treat(BLACK)]  # Bogota < Lima
    unspendable = position(roles=roles, hands={0: ["Lima", "Bogota"]})  # the team's only yellow cards
    assert dist(unspendable, "Karachi") == 7
    not_ops = position(roles=MEDIC_FIRST, hands={0: ["Lima", "Bogota"], 1: ["Santiago", "Miami"]})
    assert dist(not_ops, "Karachi") == 7


def test_operations_expert_station_move_once_a_turn():  # 003 §1.3: "once per turn"
    roles = ("operations_expert", "medic", "researcher", "scientist")
    state = position(roles=roles, hands={0: ["Lima", "Bogota"], 1: ["Santiago", "Miami"]},
                     stations=["Atlanta", "Cairo"])
    state.apply(ops_move("Cairo", "Bogota"))  # now at the Cairo station, the move used
    assert state.s[L.OPS_MOVED] == 1 and spendable_cards(state, 0) == {"Lima"}
    assert dist(state, "Karachi") == 2  # drives only: no second station move
    fresh = state.clone()
    fresh.s[L.OPS_MOVED] = 0
    assert dist(fresh, "Karachi") == 1


# ---- the property: a macro is its primitive steps ------------------------------------------------------------
def _finish_cure(prim) -> None:
    """The documented cure choice: the cheapest card by the discard metric, ties the lowest city id."""
    losses = np.empty(L.NUM_CITIES)
    while prim.phase == "cure_discard":
        M.discard_losses(prim.s, prim.cards, int(prim.s[L.PLAYER]), losses)
        colour = int(prim.s[L.CURE_COLOUR])
        options = [c for c in range(L.NUM_CITIES) if losses[c] < np.inf and CITY_COLOURS[c] == colour]
        prim.apply(L.A_DISCARD + min(options, key=lambda c: (losses[c], c)))


def _medic_treats_a_cured_colour_elsewhere(state, m) -> bool:
    """The Medic's treat macro of a cured colour in another city: the route alone (its arrival clears the cubes)."""
    if M.macro_kind(m) != "treat":
        return False
    c, k = divmod(m - M.M_TREAT, L.NUM_COLOURS)
    p = int(state.s[L.PLAYER])
    return bool(state.s[L.ROLE + p] == L.ROLE_NAMES.index("medic") and state.s[L.CURED + k]
                and state.s[L.PAWN + p] != c)


def check_macro(state, m) -> None:
    """Play ``m``'s ``macro_steps`` on a primitive copy, each legal there; the end equals ``macro_apply``'s; the
    macro fits in the actions left."""
    seq = steps(state, m)
    left = int(state.s[L.ACTIONS_LEFT])
    kind = M.macro_kind(m)
    prim = state.primitive
    for i, a in enumerate(seq):
        assert a in legal(prim), f"{describe_macro(m, state.s)}: step {i} ({a}) is not legal"
        prim.apply(a)
    _finish_cure(prim)
    played = state.clone()
    played.apply(m)
    assert np.array_equal(prim.s, played.s), describe_macro(m, state.s)
    check_invariants(played)
    assert 1 <= len(seq) <= max(left, 1)
    if kind in ("treat", "cure", "build"):  # a route of at most left - 1 actions, then the action
        target = (m - {"treat": M.M_TREAT, "cure": M.M_CURE}[kind]) // L.NUM_COLOURS if kind != "build" else \
            m - M.M_BUILD
        shortest = route(state)[M.DIST, target]
        if kind == "treat" and _medic_treats_a_cured_colour_elsewhere(state, m):  # the Medic's arrival clears them
            assert len(seq) == shortest <= left and seq[-1] < L.A_TREAT
            return
        # the shortest route, or a longer one that keeps a card the action needs (the build's or the cure's)
        assert shortest + 1 <= len(seq) <= left
        assert seq[-1] == (L.A_BUILD if kind == "build" else
                           (L.A_TREAT if kind == "treat" else L.A_CURE) + (m - M.M_TREAT) % L.NUM_COLOURS)
    if kind in ("give", "take"):
        last = seq[-1]
        assert L.A_GIVE <= last < L.A_CURE or last == L.A_PASS or len(seq) == left
    if kind in ("walk", "pass", "discard"):
        assert len(seq) == 1


def positions_of(seed, players, roles, every):
    """Every ``every``-th action-phase decision of a game of uniformly random macros (and every discard)."""
    rng = np.random.default_rng(seed)
    state = cardboard.new_state("pandemic", seed=seed, players=players, roles=roles, actions="macro")
    n = 0
    while not state.is_terminal():
        if state.current_player != CHANCE:
            n += 1
            if n % every == 0 or state.phase != "actions":
                yield state
        random_step(state, rng)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 3, 4]),
       roles=st.sampled_from(["paper", "random_all"]))
def test_every_legal_macro_is_its_legal_primitive_steps(seed, players, roles):  # 003 §1.7
    checked = 0
    for state in positions_of(seed, players, roles, every=3):
        for m in state.legal_actions().tolist():
            check_macro(state, m)
            checked += 1
    assert checked > 0


HAND_BUILT = {  # positions the random games rarely reach: flights, cures, shares, builds, the station move
    "ops": dict(roles=("operations_expert", "medic", "researcher", "scientist"),
                hands={0: ["Lima", "Bogota", "Chicago", "Washington", "New York", "Montreal", "London"],
                       1: ["Santiago", "Miami"], 2: ["Kinshasa"]},
                at={2: "Kinshasa"}, cubes={"Karachi": 2, "Washington": 3}),
    "cure_charter": dict(roles=("scientist", "medic"), hands={0: ["Atlanta", "Chicago", "Paris", "London", "Essen"]},
                         stations=["Tokyo", "Lima"]),
    "share": dict(roles=MEDIC_FIRST, at={0: "Chicago", 3: "Manila", 2: "Lagos"},
                  hands={0: ["Manila", "Tokyo", "Lagos"], 1: ["Osaka"], 2: ["Kinshasa", "Khartoum"], 3: ["Seoul"]}),
    "researcher": dict(roles=("researcher", "scientist", "medic"), at={1: "Chicago"},
                       hands={0: ["Tokyo", "Paris"], 1: ["Osaka"], 2: ["Seoul", "Essen"]}),
    "build": dict(roles=MEDIC_FIRST, at={0: "London"}, hands={0: ["Paris", "Essen", "Milan"]},
                  cubes={"Paris": {"blue": 2, "black": 1}}),
}


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_every_legal_macro_is_its_legal_primitive_steps_hand_built(name):  # 003 §1.7
    state = macro_position(**HAND_BUILT[name])
    for left in (4, 3, 2, 1):
        state.s[L.ACTIONS_LEFT] = left
        state._forget_legal()
        for m in state.legal_actions().tolist():
            check_macro(state, m)


# ---- fitting in the actions left (003 §2.3) --------------------------------------------------------------------
def test_treat_needs_its_route_and_the_treat_to_fit():  # 003 §2.3, README
    state = macro_position(roles=MEDIC_FIRST, cubes={"Bogota": 1, "Lima": 1, "Santiago": 1})
    assert dist(state, "Santiago") == 4
    assert kinds(state, "treat") == {m_treat("Bogota"), m_treat("Lima")}
    three = macro_position(roles=MEDIC_FIRST, cubes={"Bogota": 1, "Lima": 1}, actions_left=3)
    assert kinds(three, "treat") == {m_treat("Bogota")}
    one = macro_position(roles=MEDIC_FIRST, cubes={"Atlanta": 1, "Miami": 1}, actions_left=1)
    assert kinds(one, "treat") == {m_treat("Atlanta")}


def test_cure_needs_its_route_and_the_cure_to_fit():  # 003 §2.3
    blue5 = ["Atlanta", "Chicago", "Washington", "New York", "San Francisco"]
    state = macro_position(roles=MEDIC_FIRST, hands={0: blue5}, stations=["Atlanta", "Los Angeles"])
    assert kinds(state, "cure") == {m_cure("Atlanta", BLUE), m_cure("Los Angeles", BLUE)}
    one = macro_position(roles=MEDIC_FIRST, hands={0: blue5}, stations=["Atlanta", "Tokyo"], at={0: "Chicago"},
                         actions_left=1)  # Chicago is no station
    assert kinds(one, "cure") == set()
    two = macro_position(roles=MEDIC_FIRST, hands={0: blue5}, stations=["Atlanta", "Tokyo"], at={0: "Chicago"},
                         actions_left=2)
    assert kinds(two, "cure") == {m_cure("Atlanta", BLUE)}  # Tokyo: 2 moves + the cure


# ---- TREAT / CURE -------------------------------------------------------------------------------------------
def test_treat_macro_goes_and_treats_one_cube():  # 003 §1.7 treat macro, §1.2 treat
    state = macro_position(roles=("scientist", "medic"), cubes={"Bogota": 3, "Lima": 2})
    m = m_treat("Bogota")
    assert steps(state, m)[-1] == treat(YELLOW) and len(steps(state, m)) == 3
    state.apply(m)
    assert pawn(state, 0) == "Bogota" and cube(state, "Bogota") == 2 and state.s[L.ACTIONS_LEFT] == 1
    assert state.phase == "actions" and state.current_player == 0


def test_cure_macro_flies_with_a_spare_card_and_cures():  # 003 §1.7 cure macro, §1.3 Scientist
    five = ["Atlanta", "Chicago", "Paris", "London", "Essen"]  # 5 blue for the Scientist: any one is spare
    state = macro_position(roles=("scientist", "medic"), hands={0: five}, stations=["Tokyo"])
    assert spendable_cards(state, 0) == set(five)
    assert steps(state, m_cure("Tokyo", BLUE)) == [charter("Tokyo"), L.A_CURE + BLUE]
    state.apply(m_cure("Tokyo", BLUE))
    assert state.s[L.CURED + BLUE] == 1 and hand(state, 0) == set() and state.s[L.ACTIONS_LEFT] == 2
    at_station = macro_position(roles=("scientist", "medic"), hands={0: five})
    at_station.apply(m_cure("Atlanta", BLUE))
    assert at_station.s[L.CURED + BLUE] == 1 and len(hand(at_station, 0)) == 1 and at_station.s[L.ACTIONS_LEFT] == 3


def test_cure_with_spare_cards_keeps_the_spares_and_asks_nothing():  # 003 §1.7: the discard metric picks
    blue6 = ["Atlanta", "Chicago", "Essen", "London", "Madrid", "Milan"]  # ids 0..5
    state = macro_position(roles=MEDIC_FIRST, hands={0: blue6 + ["Tokyo"]})
    state.apply(m_cure("Atlanta", BLUE))
    assert state.s[L.CURED + BLUE] == 1
    assert state.phase == "actions" and state.current_player == 0 and state.s[L.ACTIONS_LEFT] == 3
    kept = hand(state, 0)
    assert kept == {"Milan", "Tokyo"}  # the other colour kept; all blue cards cost the same: ties by the lowest id


# ---- BUILD ----------------------------------------------------------------------------------------------------
def test_build_only_four_drives_from_every_station():  # 003 §1.7 build macro
    state = macro_position(roles=MEDIC_FIRST, at={0: "London"}, hands={0: ["London", "Paris", "Milan", "Atlanta"]})
    assert DRIVE_DISTANCE[city("Atlanta"), city("London")] == 3 and DRIVE_DISTANCE[city("Atlanta"), city("Paris")] == 4
    assert kinds(state, "build") == {m_build("Paris"), m_build("Milan")}
    assert DRIVE_DISTANCE[city("Tehran"), city("Milan")] == 3 and DRIVE_DISTANCE[city("Tehran"), city("Paris")] == 4
    near = macro_position(roles=MEDIC_FIRST, at={0: "London"}, hands={0: ["Paris", "Milan"]},
                          stations=["Atlanta", "Tehran"])
    assert kinds(near, "build") == {m_build("Paris")}  # Milan is 3 drives from the Tehran station


def test_build_needs_the_card_unless_operations_expert():  # 003 §1.3, §1.7
    assert kinds(macro_position(roles=MEDIC_FIRST, at={0: "Paris"}), "build") == set()
    ops = macro_position(roles=("operations_expert", "medic"), at={0: "Paris"})
    assert m_build("Paris") in kinds(ops, "build")
    ops.apply(m_build("Paris"))
    assert ops.s[L.STATION + city("Paris")] == 1 and ops.s[L.ACTIONS_LEFT] == 3


def test_build_macro_discards_the_city_card():  # 003 §1.2 build
    state = macro_position(roles=MEDIC_FIRST, at={0: "London"}, hands={0: ["Paris", "Milan"]})
    state.apply(m_build("Milan"))
    assert pawn(state, 0) == "Milan" and state.s[L.STATION + city("Milan")] == 1
    assert hand(state, 0) == {"Paris"} and state.s[L.PDISCARD + city("Milan")] == 1 and state.s[L.ACTIONS_LEFT] == 1


def test_build_only_while_fewer_than_six_stations():  # README: fewer than 6 stand (the official 6)
    five = ["Atlanta", "Tokyo", "Lima", "Sydney", "Johannesburg"]
    assert all(DRIVE_DISTANCE[city("Paris"), city(c)] >= 4 for c in five)
    state = macro_position(roles=MEDIC_FIRST, at={0: "Paris"}, hands={0: ["Paris"]}, stations=five)
    assert kinds(state, "build") == {m_build("Paris")}
    six = macro_position(roles=MEDIC_FIRST, at={0: "Paris"}, hands={0: ["Paris"]}, stations=five + ["Manila"])
    assert kinds(six, "build") == set()


@pytest.mark.parametrize("case", ["build", "give", "cure"])
def test_macro_is_not_lost_when_the_shortest_route_spends_the_card_it_needs(case):  # 003 §1.7
    if case == "build":  # New York -> London -> Paris (2 drives) + build: 3 actions
        state = macro_position(roles=MEDIC_FIRST, at={0: "New York"}, hands={0: ["Paris"], 3: ["Essen"]})
        wanted = m_build("Paris")
    elif case == "give":  # 2 drives to Paris + give Paris to seat 1 there (A(blue) 1/5 -> 2/5): 3 actions
        state = macro_position(roles=MEDIC_FIRST, at={0: "New York", 1: "Paris"}, hands={0: ["Paris"], 1: ["London"]})
        wanted = m_give(1, "Paris")
    else:  # the Medic with 5 blue, 2 drives to the Tokyo station + cure: 3 actions
        state = macro_position(roles=MEDIC_FIRST, at={0: "Chicago"}, stations=["Madrid", "Tokyo"],
                               hands={0: ["Chicago", "Atlanta", "Washington", "New York", "San Francisco"],
                                      2: ["Essen", "London", "Madrid", "Milan", "Montreal"]})
        wanted = m_cure("Tokyo", BLUE)
    assert wanted in state.legal_actions()


def test_build_card_control_without_a_spendable_card():  # the control case of the test above
    state = macro_position(roles=MEDIC_FIRST, at={0: "New York"}, hands={0: ["Paris"]})  # Paris not spendable
    assert m_build("Paris") in state.legal_actions()
    assert steps(state, m_build("Paris")) == [drive("London"), drive("Paris"), L.A_BUILD]


def test_medic_treat_macro_for_a_cured_colour_is_the_route_alone():  # 003 §1.3 Medic, §1.7 treat macro
    state = macro_position(roles=MEDIC_FIRST, cubes={"Chicago": {"blue": 2, "red": 1}}, cured=["blue"])
    m = m_treat("Chicago", BLUE)
    assert m in state.legal_actions()
    check_macro(state, m)  # one drive: the Medic's arrival removes the blue cubes, no action is spent on a treat
    state.apply(m)
    assert state.s[L.ACTIONS_LEFT] == 3 and state.s[L.CUBES + CITY_INDEX["chicago"] * 4 + BLUE] == 0


# ---- GIVE / TAKE ---------------------------------------------------------------------------------------------------
def test_give_only_when_cure_ability_rises():  # 003 §1.7, §6: "beneficial" sharing means A(t) increases
    state = manila_example()
    gives = kinds(state, "give")
    assert m_give(3, "Manila") in gives  # the Scientist: 2/5 -> 2/4
    assert m_give(0, "Manila") in gives  # Player 1: 2/5 -> 3/5
    assert m_give(2, "Manila") not in gives  # the Researcher: 1/5, A stays 2/5


def test_take_only_when_cure_ability_rises_and_the_card_matches_the_city():  # 003 §1.2, §1.7
    state = macro_position(roles=MEDIC_FIRST, at={3: "Tokyo"}, hands={0: ["Osaka", "Seoul"], 3: ["Tokyo"]})
    assert kinds(state, "take") == {m_take(3, "Tokyo")}  # Medic 2/5 -> 3/5
    elsewhere = macro_position(roles=MEDIC_FIRST, at={3: "Osaka"}, hands={0: ["Beijing", "Seoul"], 3: ["Tokyo"]})
    assert kinds(elsewhere, "take") == set()  # the Scientist is not in Tokyo
    falls = macro_position(roles=MEDIC_FIRST, at={3: "Tokyo"}, hands={0: ["Osaka", "Seoul"],
                                                                      3: ["Tokyo", "Beijing", "Manila"]})
    assert kinds(falls, "take") == set()  # the Scientist's 3/4 would fall to the Medic's 3/5


def test_take_any_card_from_the_researcher():  # official rules, 003 §1.3
    state = macro_position(roles=MEDIC_FIRST, at={2: "Bogota"}, hands={0: ["Osaka", "Seoul"], 2: ["Tokyo", "Lima"]})
    assert kinds(state, "take") == {m_take(2, "Tokyo")}  # Lima: the Medic's 1/5 = the Researcher's 1/5
    state.apply(m_take(2, "Tokyo"))
    assert pawn(state, 0) == "Bogota" and "Tokyo" in hand(state, 0)
    assert state.phase == "actions" and state.s[L.ACTIONS_LEFT] == 1


def test_researcher_gives_any_card_where_the_partner_stands():  # 003 §1.3 Researcher
    state = macro_position(roles=("researcher", "scientist", "medic"), at={1: "Chicago"},
                           hands={0: ["Tokyo", "Paris"], 1: ["Osaka"]})
    assert kinds(state, "give") >= {m_give(1, "Tokyo")}
    assert steps(state, m_give(1, "Tokyo")) == [drive("Chicago"), L.A_GIVE + 1 * L.NUM_CITIES + city("Tokyo")]


def test_give_goes_to_the_city_and_waits_when_the_partner_is_not_there():  # 003 §1.7: wait there (N moves)
    state = macro_position(roles=MEDIC_FIRST, at={0: "Chicago", 3: "Tokyo"}, hands={0: ["Manila"]})
    m = m_give(3, "Manila")  # A(red) 1/5 -> 1/4 (the Scientist); Manila is the team's only red: not spendable
    assert m in state.legal_actions()
    assert steps(state, m) == [drive("San Francisco"), drive("Manila"), L.A_PASS]
    state.apply(m)
    assert pawn(state, 0) == "Manila" and hand(state, 0) == {"Manila"}
    assert state.current_player == CHANCE and state.phase == "draw"  # the wait ended the actions


def test_give_with_the_partner_there_gives():  # 003 §1.7: N-1 moves + 1 share
    state = macro_position(roles=MEDIC_FIRST, at={0: "Chicago", 3: "Manila"}, hands={0: ["Manila"]})
    state.apply(m_give(3, "Manila"))
    assert "Manila" in hand(state, 3) and pawn(state, 0) == "Manila" and state.s[L.ACTIONS_LEFT] == 1


def test_share_whose_route_takes_every_action_left_is_a_wait():  # README: a route that uses the last action
    state = macro_position(roles=MEDIC_FIRST, at={0: "Chicago", 3: "Manila"}, hands={0: ["Manila"]}, actions_left=2)
    m = m_give(3, "Manila")
    assert m in state.legal_actions()
    assert steps(state, m) == [drive("San Francisco"), drive("Manila")]
    state.apply(m)
    assert "Manila" not in hand(state, 3) and state.phase == "draw"
    far = macro_position(roles=MEDIC_FIRST, at={0: "Chicago", 3: "Manila"}, hands={0: ["Manila"]}, actions_left=1)
    assert m not in far.legal_actions()  # 2 drives do not fit in 1 action


# ---- WALK / PASS, chance, names, illegal ids ---------------------------------------------------------------------
def test_walk_is_one_drive_and_pass_ends_the_actions():  # README: walk (one drive), end the actions
    state = macro_position(roles=MEDIC_FIRST)
    assert kinds(state, "walk") == {m_walk(c) for c in ("Chicago", "Washington", "Miami")}
    assert kinds(state, "pass") == {M.M_PASS}
    state.apply(m_walk("Miami"))
    assert pawn(state, 0) == "Miami" and state.s[L.ACTIONS_LEFT] == 3
    assert kinds(state, "walk") == {M.M_WALK + c for c in neighbours(city("Miami"))}
    state.apply(M.M_PASS)
    assert state.current_player == CHANCE and state.phase == "draw"


def test_macro_states_pass_through_chance_like_primitive_ones():  # README: chance is the primitive state's
    for seed in range(3):
        macro = cardboard.new_state("pandemic", seed=seed, actions="macro")
        prim = cardboard.new_state("pandemic", seed=seed)
        assert np.array_equal(macro.s, prim.s)
        macro.apply(M.M_PASS)
        prim.apply(L.A_PASS)
        rng = np.random.default_rng(seed)
        while macro.current_player == CHANCE:
            assert macro.chance_outcomes() == prim.chance_outcomes()
            outcome = prim.sample_chance(rng)
            macro.apply(outcome)
            prim.apply(outcome)
            assert np.array_equal(macro.s, prim.s)
        assert macro.current_player == 1 and macro.phase == "actions"
        assert M.M_PASS in macro.legal_actions() and L.A_PASS in prim.legal_actions()


def test_describe_macro_names():  # README macro table
    s = macro_position(roles=MEDIC_FIRST).s
    assert describe_macro(m_treat("Cairo"), s) == "treat black in Cairo"
    assert describe_macro(m_cure("Atlanta", BLUE), s) == "cure blue in Atlanta"
    assert describe_macro(m_build("Paris"), s) == "build in Paris"
    assert describe_macro(m_give(3, "Manila"), s) == "give Manila to seat 3"
    assert describe_macro(m_take(2, "Tokyo"), s) == "take Tokyo from seat 2"
    assert describe_macro(m_walk("Chicago"), s) == "walk to Chicago"
    assert describe_macro(M.M_PASS, s) == "end the actions"
    assert describe_macro(m_discard("Lima"), s) == "discard Lima"
    state = macro_position(roles=MEDIC_FIRST)
    assert state.action_to_string(m_walk("Miami")) == "walk to Miami"
    assert [M.macro_kind(m) for m in (m_treat("Cairo"), m_cure("Tokyo", RED), m_build("Lima"), m_give(0, "Lima"),
                                      m_take(1, "Lima"), m_walk("Lima"), M.M_PASS, m_discard("Lima"))] == \
        list(M.MACRO_KINDS)


@pytest.mark.parametrize("m", [m_treat("Chicago"), m_cure("Atlanta", BLUE), m_build("Paris"), m_give(1, "Lima"),
                               m_walk("Paris"), m_discard("Lima"), M.NUM_MACROS, -1])
def test_illegal_macro_raises_and_changes_nothing(m):  # README, FlatState.apply
    state = macro_position(roles=MEDIC_FIRST, hands={0: ["Lima"]})
    before, legal_before = state.s.copy(), state.legal_actions().copy()
    with pytest.raises(IllegalActionError):
        state.apply(m)
    assert np.array_equal(state.s, before) and np.array_equal(state.legal_actions(), legal_before)

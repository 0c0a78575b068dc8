"""Issue 36's view of Pandemic (``view``, ``action_path``, ``action_seen``) and chance outcomes in words."""
from __future__ import annotations

import json

import numpy as np
from pandemic_helpers import L, city, draw, ops_move, position, to_draw

from cardboard import new_state
from cardboard.envs.pandemic import PandemicGame
from cardboard.envs.view import menu, seen

ROLES = ("operations_expert", "medic")


def test_chance_outcomes_are_described_as_chance_events_not_actions():
    state = to_draw(position(roles=ROLES, player_deck=[["epidemic", "Lima"]]))
    assert state.action_to_string(L.EPIDEMIC) == "seat 0 draws an epidemic"  # was "direct flight to Atlanta"
    assert state.action_to_string(city("Lima")) == "seat 0 draws Lima"
    draw(state, "epidemic")
    bottom = state.sample_chance(None)
    assert state.action_to_string(city("Bogota")) == "epidemic in Bogota (yellow)"
    draw(state, bottom, "Lima")
    assert state.phase == "infect"
    assert state.action_to_string(city("Paris")) == "infect Paris (blue)"
    assert seen(state, city("Paris"), None) == "infect Paris (blue)"


def test_macro_state_describes_chance_the_same_way():  # the issue: an epidemic printed as "treat blue in Bogota"
    state = PandemicGame(actions="macro").new_state(1)
    while state.phase != "draw":
        state.apply(state.legal_actions()[-1])
    outcomes = [o for o, _ in state.chance_outcomes()]
    assert all("treat" not in state.action_to_string(o) and "draws" in state.action_to_string(o) for o in outcomes)


def test_first_decision_menu_has_a_handful_of_groups():  # the issue: 197 numbered moves
    state = new_state("pandemic", seed=1)
    legal = state.legal_actions()
    tree = menu(state, legal)
    assert len(legal) == 102 and list(tree) == ["move", "share", "end the actions"]
    assert list(tree["move"]) == ["drive", "direct flight", "station move"]
    assert len(tree["move"]["station move"]) == 47


def test_action_paths_group_moves_by_way_then_destination_then_payment():
    state = position(roles=ROLES, hands={0: ["Paris", "Lima"]})
    assert state.action_path(ops_move("Tokyo", "Paris")) == ("move", "station move", "Tokyo", "discarding Paris")
    assert state.action_path(L.A_DRIVE + city("Chicago")) == ("move", "drive", "Chicago")
    assert state.action_path(L.A_DIRECT + city("Lima")) == ("move", "direct flight", "Lima")
    assert state.action_path(L.A_GIVE + 1 * L.NUM_CITIES + city("Paris")) == ("share", "give Paris to seat 1 (Medic)")
    assert state.action_path(L.A_PASS) == ("end the actions",)
    tree = menu(state, state.legal_actions())
    assert tree["move"]["station move"]["Tokyo"] == {"discarding Paris": ops_move("Tokyo", "Paris"),
                                                      "discarding Lima": ops_move("Tokyo", "Lima")}
    assert list(tree) == ["move", "end the actions"]
    no_station = position(roles=ROLES, hands={0: ["Paris"]}, stations=("Cairo",))
    assert menu(no_station, no_station.legal_actions())["build a research station"] == L.A_BUILD
    assert seen(state, L.A_DRIVE + city("Chicago"), 1) == "seat 0 (Operations Expert): drive to Chicago"


def test_view_shows_the_map_hands_and_counters_to_everyone_alike():
    state = position(roles=ROLES, hands={0: ["Paris"], 1: ["Lima", "Tokyo"]}, cubes={"Lagos": 2},
                     stations=("Atlanta", "Cairo"), at={1: "Lagos"})
    view = state.view(None)
    nodes = {n.name: n for n in view.nodes}
    assert len(nodes) == 48 and set(nodes["Atlanta"].links) == {"Chicago", "Washington", "Miami"}
    assert nodes["Lagos"].counters == {"yellow": 2} and "seat 1 (Medic)" in nodes["Lagos"].tags
    assert "research station" in nodes["Cairo"].tags and "research station" not in nodes["Lagos"].tags
    assert nodes["Chicago"].y < nodes["Atlanta"].y < nodes["Lima"].y  # north is up: y = 0 at the top
    assert nodes["Los Angeles"].x < nodes["Atlanta"].x < nodes["Paris"].x < nodes["Tokyo"].x
    assert all(0 <= n.x <= 1 and 0 <= n.y <= 1 for n in view.nodes)
    hands = {z.name: [c.name for c in z.cards] for z in view.zones}
    assert hands["hand of seat 1 (Medic)"] == ["Lima", "Tokyo"]
    assert [s.name for s in view.seats] == ["seat 0 (Operations Expert)", "seat 1 (Medic)"]
    assert view.counters["outbreaks"] == 0 and view.counters["yellow cubes left"] == 22
    assert view.counters["research stations"] == 2 and view.status == "player 0 to move"
    seat, spectator = state.view(1).to_json(), view.to_json()
    assert seat.pop("perspective") == 1 and spectator.pop("perspective") is None and seat == spectator


def test_view_is_the_same_in_every_determinization():  # the decks' order is hidden from everyone
    rng = np.random.default_rng(0)
    state = new_state("pandemic", seed=3)
    for _ in range(60):
        if state.is_terminal():
            break
        for p in (None, 0, 3):
            text = json.dumps(state.view(p).to_json())
            assert json.dumps(state.determinize(p or 0, rng).view(p).to_json()) == text
        state.apply(state.sample_chance(rng) if state.current_player < 0 else int(rng.choice(state.legal_actions())))


def test_macro_paths_are_distinct_and_name_the_place():
    state = PandemicGame(actions="macro").new_state(2)
    legal = state.legal_actions()
    paths = [state.action_path(m) for m in legal]
    assert len(set(paths)) == len(paths) and menu(state, legal)
    assert all(p[0] in {"treat", "cure", "build", "share", "walk", "end the actions", "discard"} for p in paths)


def test_every_decision_of_random_games_has_a_menu_and_a_log_line():
    """Each legal action of every decision of random games (both action layers) gets a menu path and a log line:
    the discard phase once crashed the menu (a card id read as a colour)."""
    for actions in ("primitive", "macro"):
        game, rng = PandemicGame(actions=actions, players=2), np.random.default_rng(4)
        for seed in range(3):
            state = game.new_state(seed)
            while not state.is_terminal():
                legal = state.legal_actions() if state.current_player >= 0 else [a for a, _ in state.chance_outcomes()]
                if state.current_player >= 0:
                    assert menu(state, legal)
                assert all(seen(state, int(a), 0) for a in legal)
                state.apply(int(legal[rng.integers(len(legal))]))

"""The view hooks (``envs.view``) on hand-checked positions: the mat as a grid, hands, the menu and the log."""
from __future__ import annotations

import json

from cardboard.envs.lords_of_war.layout import NUM_SQUARES
from cardboard.envs.lords_of_war.positions import build_position, square_index
from cardboard.envs.lords_of_war.rules import ego
from cardboard.envs.lords_of_war.state import LordsOfWarGame
from cardboard.envs.view import menu

GAME = LordsOfWarGame(("orcs", "dwarves"))


def _cell(view, square: str) -> dict:
    return next(c for c in view.to_json()["cells"] if c["text"] == square)


def test_a_board_cell_is_drawn_from_the_viewers_side():
    """Orc General (arrows N5 NE4 E3 W3 NW4, defence 6) on c3, Dwarf Marauder (N3 NE2 NW1) on c5.

        a     b     c     d     e     f
    5   .     .    d:Mar  .     .     .
    3   .     .    o:Gen  .     .     .
    """
    state = build_position(GAME, board={"c3": (0, "Orc General"), "c5": (1, "Dwarf Marauder")},
                           hands=(["Orc Grunts"], ["Dwarf General"]), fought=["c3"])
    mine = _cell(state.view(0), "c3")
    assert (mine["row"], mine["col"], mine["owner"]) == (4, 2, 0)  # row 3 is the 5th row from the top
    assert mine["card"]["name"] == "Orc General" and mine["card"]["stats"] == {"defence": 6,
                                                                               "arrows": "N5 NE4 E3 W3 NW4"}
    assert {"command", "infantry", "general", "fought"} <= set(mine["card"]["tags"])
    assert mine["card"]["text"] == "Command infantry, the General. Defence 6. Arrows N5 NE4 E3 W3 NW4."
    theirs = _cell(state.view(0), "c5")
    assert theirs["owner"] == 1 and theirs["card"]["stats"]["arrows"] == "SE1 S3 SW2"  # facing player 0
    flipped = _cell(state.view(1), "c3")  # player 1's edge at the bottom: the board turned by 180 degrees
    assert (flipped["row"], flipped["col"]) == (2, 3) and flipped["card"]["stats"]["arrows"] == "E3 SE4 S5 SW4 W3"
    assert _cell(state.view(1), "c5")["card"]["stats"]["arrows"] == "N3 NE2 NW1"
    assert _cell(state.view(0), "a1") == {"row": 6, "col": 0, "card": None, "text": "a1", "owner": None}


def test_a_ranged_card_names_its_target_squares():
    state = build_position(GAME, hands=(["Orc General"], ["Dwarf Axe Thrower"]), player=1)
    hand = next(z for z in state.view(1).to_json()["zones"] if z["name"] == "hand of player 1")
    assert hand["cards"][0]["text"] == ("Veteran ranged, support. Defence 3. Arrows N3. Shoots 3 damage at one enemy "
                                        "on: 1 behind: 1 left, centre, 1 right; 2 behind: 1 left, centre, 1 right.")


def test_hands_show_only_the_cards_the_seat_has_seen():
    """At the start each player knows the other's General is in hand, nothing more; a spectator sees no hand."""
    state = GAME.new_state(3)
    own = [c["name"] for c in state.view(0).to_json()["zones"][0]["cards"]]
    seen_by_1 = state.view(1).to_json()["zones"][0]
    assert seen_by_1["owner"] == 0 and len(own) == 6 and "Orc General" in own
    assert [c["name"] for c in seen_by_1["cards"]] == ["Orc General"] + ["?"] * 5
    assert all(c["hidden"] for c in seen_by_1["cards"][1:])
    spectator = state.view(None).to_json()
    for name in set(own) - {"Orc General"}:
        assert name not in json.dumps(spectator), f"the spectator sees {name}"
        assert name not in json.dumps(state.view(1).to_json()), f"player 1 sees {name}"


def test_menu_tells_copies_apart_and_the_log_reads_as_moves():
    state = build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Grunts", "Orc Grunts"], ["Dwarf General"]))
    a0, a1 = ego(square_index("c4"), 0), NUM_SQUARES + ego(square_index("c4"), 0)
    assert state.action_path(a0) == ("deploy", "Orc Grunts #1", "c4")
    assert state.action_path(a1) == ("deploy", "Orc Grunts #2", "c4")
    tree = menu(state, state.legal_actions())
    assert tree["deploy"]["Orc Grunts #2"]["c4"] == a1
    assert state.action_seen(a0, 0) == "you deploy Orc Grunts to c4"
    assert state.action_seen(a0, 1) == state.action_seen(a0, None) == "player 0 deploys Orc Grunts to c4"


def test_the_opening_deploy_and_the_draw_hide_the_drawn_card():
    state = GAME.new_state(0)
    a = int(state.legal_actions()[0])
    name = state.action_path(a)[1]
    assert state.action_seen(a, 1) == f"player 0 deploys {name} to c4 and draws a card"
    state = build_position(GAME, board={"c4": (0, "Orc Grunts")}, hands=(["Orc General"], ["Dwarf General"]),
                           phase="reinforce")
    assert state.action_path(int(state.legal_actions()[0])) == ("draw",)
    assert state.action_seen(int(state.legal_actions()[0]), 0) == "you draw a card"

"""The view hooks (``envs.view``) on hand-checked positions: hidden hands, the menu, mulligan and draw strings."""
from __future__ import annotations

import json

from cardboard.envs.hearth import layout as L
from cardboard.envs.hearth.cards import CARD_TEXT
from cardboard.envs.hearth.positions import attack_at, build_position, enemy
from cardboard.envs.hearth.state import HearthGame
from cardboard.envs.protocol import CHANCE
from cardboard.envs.view import menu


def _hand(view, owner: int) -> list[dict]:
    return next(z for z in view.to_json()["zones"] if z["name"] == f"hand of player {owner}")["cards"]


def test_every_card_has_its_rules_text():
    assert set(CARD_TEXT) == set(L.CARD_IDS)


def test_the_opponents_fireball_is_nowhere_in_a_view_that_may_not_see_it():
    """Player 1 holds Fireball (drawn: hidden), The Coin (known to both) and a Spare Part (only its kind known)."""
    state = build_position(("mech_mage", "mech_mage"), to_move=0,
                           hands=(["Frostbolt"], ["Fireball", {"card": "The Coin", "origin": "known"},
                                                  {"card": "Rusty Horn", "origin": "spare_part"}]),
                           boards=(["Spider Tank"], ["Snowchugger"]))
    for perspective in (0, None):
        text = json.dumps(state.view(perspective).to_json())  # everything the seat receives, as the page gets it
        assert "Fireball" not in text and "Rusty Horn" not in text, perspective
        assert [c["name"] for c in _hand(state.view(perspective), 1)] == ["?", "The Coin", "Spare Part"]
    assert "Frostbolt" not in json.dumps(state.view(None).to_json())
    fireball, coin, part = _hand(state.view(1), 1)
    assert (fireball["name"], fireball["cost"], fireball["text"]) == ("Fireball", 4, "Deal 6 damage.")
    assert fireball["tags"] == ("spell",)
    assert part["name"] == "Rusty Horn"
    seat = state.view(0).to_json()["seats"][1]["counters"]
    assert seat["health"] == "30/30" and seat["hand"] == 3 and seat["hero power"] == "Fireblast"
    board = next(z for z in state.view(0).to_json()["zones"] if z["name"] == "board of player 1")["cards"]
    assert board[0]["name"] == "Snowchugger" and board[0]["stats"] == {"attack": 2, "health": 3, "max health": 3}


def test_menu_paths_name_cards_and_characters_counting_from_one():
    state = build_position(("mech_mage", "mech_mage"), to_move=0, hands=(["Fireball", "Fireball"], []),
                           boards=(["Spider Tank", "Spider Tank"], ["Snowchugger"]))
    assert state.action_path(L.PLAY + 1) == ("play", "Fireball #2")
    assert state.action_path(attack_at(1, 0)) == ("attack", "Spider Tank #2", "enemy Snowchugger")
    assert state.action_path(attack_at(None, None)) == ("attack", "your hero", "enemy hero")
    assert state.action_path(L.END_TURN) == ("end turn",)
    tree = menu(state, state.legal_actions())
    assert tree["play"] == {"Fireball #1": L.PLAY, "Fireball #2": L.PLAY + 1}
    assert state.action_to_string(attack_at(1, 0)) == "attack: Spider Tank #2: enemy Snowchugger"
    assert state.action_seen(attack_at(1, 0), 1) == "player 0's Spider Tank #2 attacks your Snowchugger"
    state.apply(L.PLAY)  # Fireball: now its target
    assert state.action_path(L.TARGET + enemy(0)) == ("target for Fireball", "enemy Snowchugger")
    assert state.action_seen(L.TARGET + enemy(0), 1) == "player 0 aims Fireball at your Snowchugger"
    assert state.action_seen(L.TARGET + enemy(0), 0) == "you aim Fireball at player 1's Snowchugger"


def test_mulligan_names_the_cards_replaced_and_hides_them_from_the_opponent():
    state = HearthGame(("mech_mage", "mech_mage")).new_state(5)
    names = [state.game.names[c] for c in state.hand(0)]
    mask = 0b101
    assert state.action_to_string(L.MULLIGAN + mask) == f"mulligan: replace {names[0]}, {names[2]}"
    assert state.action_path(L.MULLIGAN) == ("mulligan", "keep every card")
    assert state.action_seen(L.MULLIGAN + mask, 0) == f"you replace {names[0]}, {names[2]}"
    assert state.action_seen(L.MULLIGAN + mask, 1) == "player 0 replaces 2 cards"
    assert len(menu(state, state.legal_actions())["mulligan"]) == 8
    state.apply(L.MULLIGAN + mask)
    assert state.current_player == CHANCE
    drawn = state.chance_outcomes()[0][0]
    assert state.action_seen(drawn, 0) == f"you draw {state.game.names[drawn]}"
    assert state.action_seen(drawn, 1) == state.action_seen(drawn, None) == "player 0 draws a card"
    aside = next(z for z in state.view(1).to_json()["zones"] if z["name"].startswith("set aside by player"))
    assert aside["owner"] == 0 and [c["name"] for c in aside["cards"]] == ["?", "?"]


def test_a_card_drawn_into_a_full_hand_burns_in_view_of_both():
    full = ["Fireball", "Frostbolt", "Spider Tank", "Mechwarper", "Cogmaster"] * 2
    state = build_position(("mech_mage", "mech_mage"), to_move=1, hands=(full, []),
                           deck_cards=(["Flamestrike", "Dr. Boom"], None))
    state.apply(L.END_TURN)  # player 0's turn starts with a draw into a full hand
    assert state.current_player == CHANCE and state.pending_op()[:2] == (L.OP_DRAW, 0)
    for outcome, _ in state.chance_outcomes():
        burned = f"{state.game.names[outcome]}, which burns: the hand is full"
        assert state.action_seen(outcome, 1) == f"player 0 draws {burned}"
        assert state.action_seen(outcome, 0) == f"you draw {burned}"

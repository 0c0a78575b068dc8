"""Issue 36's view of Fifth Aeon (``view``, ``action_path``, ``action_seen``): display names, costs and rules text,
and nothing of a hidden hand or choice in another perspective's view or log."""
from __future__ import annotations

import json

import numpy as np

from cardboard.envs.fifth_aeon import FifthAeonGame
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon.cards import bundled_pool
from cardboard.envs.fifth_aeon.positions import build_position
from cardboard.envs.fifth_aeon.text import card_text
from cardboard.envs.view import menu, seen

HANDS = (("CrawlingZombie", "King"), ("Decapitate", "Unbury"))  # Unbury is printed "Unearth"


def _json(state, perspective) -> str:
    return json.dumps(state.view(perspective).to_json())


def test_actions_and_menus_name_cards_as_printed():  # the issue: "play CrawlingZombie", "King"
    state = build_position(hands=HANDS)
    assert state.action_to_string(L.PLAY + 0) == "play Crawling Zombie"
    assert state.action_to_string(L.PLAY + 1) == "play Regal Monarch"
    assert state.action_path(L.PLAY + 1) == ("play", "Regal Monarch")
    assert state.action_path(L.RESOURCE + 2) == ("resource", "decay")
    assert "Regal Monarch" in state.view(0).text and "King" not in state.view(0).text


def test_a_card_shows_its_cost_stats_and_rules_text():
    hand = build_position(hands=HANDS).view(0).zones[0]
    monarch = hand.cards[1]
    assert (monarch.name, monarch.cost, monarch.stats["attack"], monarch.stats["life"]) == ("Regal Monarch", 6, 3, 5)
    assert monarch.text == "Your Soldier units get +1/+1. At the start of your turn: summon a Pikeman."
    assert monarch.stats["requires"] == "3 renewal" and monarch.tags == ("unit", "renewal")


def test_every_card_of_the_pool_has_rules_text_unless_vanilla():
    pool = bundled_pool()
    for card in pool.cards:
        assert bool(card_text(card, pool)) == bool(card.mechanics or card.host_targeter), card.id
    assert card_text(pool["Decapitate"], pool) == "When played: kill target unit."


def test_the_opponents_hand_is_absent_from_a_players_view():
    state = build_position(hands=HANDS)
    mine, theirs, spectator = _json(state, 0), _json(state, 1), _json(state, None)
    assert "Decapitate" not in mine and "Unearth" not in mine and "Crawling Zombie" in mine
    assert "Decapitate" in theirs and "Crawling Zombie" not in theirs
    assert not any(name in spectator for name in ("Decapitate", "Unearth", "Crawling Zombie", "Regal Monarch"))
    assert [c.hidden for c in state.view(0).zones[3].cards] == [True, True]
    state.match.sides[1].known[0] = True  # seen (Peek): now named for the opponent too
    assert "Decapitate" in _json(state, 0) and "Unearth" not in _json(state, 0)


def test_the_log_names_a_drawn_card_only_to_its_drawer():
    state = build_position(hands=HANDS)
    assert seen(state, L.PASS, 1) == "player 0: pass; player 1 draws Minotaur"
    assert seen(state, L.PASS, 0) == "player 0: pass; player 1 draws a card"
    assert seen(state, L.PASS, None) == "player 0: pass; player 1 draws a card"


def test_a_mulligan_is_hidden_from_the_other_player():
    state = FifthAeonGame(("March of Undeath", "The King's Legions")).new_state(3)
    assert state.phase == "choice" and state.current_player == 0
    first = state.match.sides[0].hand[0][0]
    name = state.match.card(first).name
    assert seen(state, L.OPTION, 0) == f"player 0: choose {name}"
    assert seen(state, L.OPTION, 1) == "player 0: choose a card"
    assert "hidden" in state.view(1).text and name in state.view(0).text
    assert state.action_path(L.OPTION)[0] == "replace" and menu(state, state.legal_actions())["done choosing"] == 60


def test_copies_and_lookalike_units_get_distinct_menu_paths():
    state = build_position(hands=(("Knight", "Knight"), ()), boards=(("Knight", "Knight"), ("Bear",)))
    legal = state.legal_actions()
    tree = menu(state, legal)
    assert list(tree["play"]) == ["Knight #1", "Knight #2"]
    assert list(tree["attack with"]) == ["Knight 3/3 #1", "Knight 3/3 #2"]


def test_views_are_the_same_in_every_determinization_of_their_perspective():
    rng = np.random.default_rng(0)
    state = FifthAeonGame(("Agents of Decay", "Skies and Seas")).new_state(5)
    for step in range(300):
        if state.is_terminal():
            break
        if step % 3 == 0:
            for p in (0, 1):
                assert _json(state.determinize(p, rng), p) == _json(state, p)
                assert _json(state.determinize(p, rng), None) == _json(state, None)
        legal = state.legal_actions()
        menu(state, legal)
        state.apply(int(rng.choice(legal)))

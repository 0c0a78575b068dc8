"""Lords of War army files: the shipped armies, and malformed files raising CardDataError that names the problem."""
from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardboard.envs.errors import CardDataError
from cardboard.envs.lords_of_war import cards, layout as L
from cardboard.envs.lords_of_war.layout import ARMY_SIZE, RANK_SPLIT
from cardboard.envs.lords_of_war.state import LordsOfWarGame

RAW = json.loads((Path(cards.__file__).parent / "armies.json").read_text())


def orcs() -> dict:
    """A fresh, valid copy of the Orc army as a JSON-like dict."""
    return copy.deepcopy(RAW["orcs"])


def card(army: dict, name: str) -> dict:
    return next(c for c in army["cards"] if c["name"] == name)


# ---- the shipped armies ----------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["orcs", "dwarves"])
def test_shipped_armies_have_36_cards_the_rank_split_and_one_general(key):
    army = cards.load_army(key)
    types = army.card_types()
    assert len(types) == ARMY_SIZE == 36
    assert Counter(t.rank for t in types) == Counter(RANK_SPLIT)
    ranks = ("command", "special", "elite", "veteran", "regular", "recruit")
    assert [RANK_SPLIT[r] for r in ranks] == [6, 4, 4, 6, 8, 8]
    generals = [t for t in types if t.general]
    assert len(generals) == 1 and generals[0].command
    assert all(t.support == (t.cls in ("spear", "ranged")) for t in types)
    assert all((t.missile > 0) == (t.cls == "ranged") == bool(t.grid) for t in types)
    assert cards.builtin_armies()[key] == army


def test_the_card_table_has_one_row_per_physical_card_and_the_general_ids():
    game = LordsOfWarGame()
    assert game.cards.shape[0] == 2 * ARMY_SIZE
    assert [game.card_names[g] for g in game.general_ids] == ["Orc General", "Dwarf General"]
    assert int(game.cards[:, L.F_GEN].sum()) == 2 and int(game.cards[:, L.F_CMD].sum()) == 12


def test_a_mirror_match_works():
    game = LordsOfWarGame(("orcs", "orcs"))
    assert game.general_ids == [0, ARMY_SIZE]
    assert game.card_names[:ARMY_SIZE] == game.card_names[ARMY_SIZE:]
    state = game.new_state(3)
    state.random_playout(np.random.default_rng(3))
    assert state.is_terminal()
    text = game.render_ansi(game.new_state(4))
    assert "player 0 (Orcs)" in text and "player 1 (Orcs)" in text


def test_an_army_file_loads_by_path(tmp_path):
    path = tmp_path / "my_orcs.json"
    army = orcs()
    army["name"] = "My Orcs"
    path.write_text(json.dumps(army))
    game = LordsOfWarGame(armies=(path, "dwarves"))
    assert game.armies[0].name == "My Orcs"
    np.testing.assert_array_equal(game.cards, LordsOfWarGame().cards)
    assert LordsOfWarGame(armies=(str(path), "dwarves")).armies[0].name == "My Orcs"


def test_a_game_needs_exactly_two_armies():
    with pytest.raises(ValueError, match="two armies"):
        LordsOfWarGame(("orcs",))


# ---- malformed armies --------------------------------------------------------------------------------
def _rank_split(a):
    card(a, "Orc Grunts")["rank"] = "regular"  # 10 regular, 6 recruit


def _thirty_five(a):
    card(a, "Orc Grunts")["copies"] = 1


def _thirty_seven(a):
    card(a, "Orc Grunts")["copies"] = 3


def _no_general(a):
    card(a, "Orc General")["general"] = False


def _two_generals(a):
    card(a, "Orc Warlord")["general"] = True


def _general_not_command(a):
    card(a, "Orc Ravager")["general"] = True


def _unknown_direction(a):
    card(a, "Orc Ravager")["attack"]["UP"] = 3


def _negative_defence(a):
    card(a, "Orc Ravager")["defence"] = -1


def _too_big_attack(a):
    card(a, "Orc Ravager")["attack"]["N"] = 10


def _non_integer_stat(a):
    card(a, "Orc Ravager")["defence"] = 2.5


def _ranged_without_block(a):
    del card(a, "Orc Catapult")["ranged"]


def _block_without_ranged_class(a):
    card(a, "Orc Ravager")["ranged"] = {"damage": 2, "grid": [[0, 2]]}


def _grid_offset_zero(a):
    card(a, "Orc Catapult")["ranged"]["grid"].append([0, 0])


def _grid_offset_off_board(a):
    card(a, "Orc Catapult")["ranged"]["grid"].append([0, 7])


def _grid_offset_not_a_pair(a):
    card(a, "Orc Catapult")["ranged"]["grid"].append([1])


def _duplicate_grid_offset(a):
    card(a, "Orc Catapult")["ranged"]["grid"].append([0, 1])


def _missile_zero(a):
    card(a, "Orc Catapult")["ranged"]["damage"] = 0


def _duplicate_names(a):
    card(a, "Orc Grunts")["name"] = "Goblin Rabble"


def _unknown_field(a):
    card(a, "Orc Ravager")["speed"] = 3


def _unknown_rank(a):
    card(a, "Orc Ravager")["rank"] = "captain"


def _unknown_class(a):
    card(a, "Orc Ravager")["class"] = "artillery"


def _missing_card_name(a):
    del card(a, "Orc Ravager")["name"]


def _no_cards(a):
    a["cards"] = []


@pytest.mark.parametrize("break_it, message", [
    (_rank_split, r"8 regular cards .* this one 10"),
    (_thirty_five, r"36 cards, this one 35"),
    (_thirty_seven, r"36 cards, this one 37"),
    (_no_general, r"exactly one General, this one 0"),
    (_two_generals, r"exactly one General, this one 2"),
    (_general_not_command, r"General must have rank 'command'"),
    (_unknown_direction, r"1 unknown attack direction\(s\)"),
    (_negative_defence, r"'defence' must be in 0\.\.9, got -1"),
    (_too_big_attack, r"'N' must be in 0\.\.9, got 10"),
    (_non_integer_stat, r"'defence' must be an integer"),
    (_ranged_without_block, r"Orc Catapult.*'ranged' block exactly when its class is 'ranged'"),
    (_block_without_ranged_class, r"Orc Ravager.*'ranged' block exactly when its class is 'ranged'"),
    (_grid_offset_zero, r"bad grid offset 'grid'\[\d+\]"),
    (_grid_offset_off_board, r"bad grid offset 'grid'\[\d+\]"),
    (_grid_offset_not_a_pair, r"bad grid offset 'grid'\[\d+\]"),
    (_duplicate_grid_offset, r"duplicate grid offsets"),
    (_missile_zero, r"'damage' must be in 1\.\.9, got 0"),
    (_duplicate_names, r"duplicate card name 'Goblin Rabble'"),
    (_unknown_field, r"1 unknown field\(s\); the fields are attack, class"),
    (_unknown_rank, r"rank 'captain' is not one of"),
    (_unknown_class, r"class 'artillery' is not one of"),
    (_missing_card_name, r"missing card 'name'"),
    (_no_cards, r"missing 'cards' list"),
])
def test_a_malformed_army_raises_card_data_error_naming_the_problem(break_it, message, tmp_path):
    army = orcs()
    break_it(army)
    with pytest.raises(CardDataError, match=message):
        cards.parse_army(army, "test")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(army))
    with pytest.raises(CardDataError, match=message):
        cards.load_army(path)
    with pytest.raises(CardDataError, match=message):
        LordsOfWarGame(armies=(path, "dwarves"))


def test_the_error_names_the_file_and_the_card(tmp_path):
    army = orcs()
    card(army, "Orc Ravager")["defence"] = 12
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(army))
    with pytest.raises(CardDataError) as info:
        cards.load_army(path)
    assert str(path) in str(info.value) and "Orc Ravager" in str(info.value)


def test_invalid_json_raises_card_data_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"name": "Orcs", "cards": [')
    with pytest.raises(CardDataError, match="not valid JSON"):
        cards.load_army(path)
    with pytest.raises(CardDataError, match="not valid JSON"):
        LordsOfWarGame(armies=(path, "dwarves"))


@pytest.mark.parametrize("data", [[], "orcs", None, {"cards": []}])
def test_an_army_must_be_an_object_with_a_name_and_cards(data):
    with pytest.raises(CardDataError):
        cards.parse_army(data, "test")


def test_an_unknown_builtin_army_name_lists_the_builtin_armies():
    with pytest.raises(CardDataError, match=r"'elves' is neither a built-in army \(dwarves, orcs\) nor a file"):
        cards.load_army("elves")
    with pytest.raises(CardDataError, match="elves"):
        LordsOfWarGame(armies=("elves", "dwarves"))

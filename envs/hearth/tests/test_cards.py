"""Card data and deck lists: the packaged data is right, and every kind of bad deck file is a clear error."""
import json
from importlib import resources

import pytest

from cardboard.envs.errors import CardDataError, UnknownNameError
from cardboard.envs.hearth.cards import DECK_NAMES, DECK_SIZE, load_deck, load_pool

POOL = load_pool()


@pytest.mark.parametrize("name,player_class", [("mech_mage", "Mage"), ("handlock", "Warlock"),
                                               ("face_hunter", "Hunter")])
def test_the_three_decks_of_appendix_a_load(name, player_class):
    deck = load_deck(name, POOL)
    assert len(deck.cards) == DECK_SIZE and deck.player_class == player_class
    assert POOL.by_name(deck.hero_power).type == "hero_power"
    assert all(c.player_class in ("Neutral", player_class) for c in deck.cards)


def test_deck_lists_match_appendix_a_spot_checks():
    """Copy counts and distinct cards as Tables A.1-A.3 list them."""
    counts = {n: {} for n in DECK_NAMES}
    for n in DECK_NAMES:
        for c in load_deck(n, POOL).cards:
            counts[n][c.name] = counts[n].get(c.name, 0) + 1
    assert len(counts["mech_mage"]) == 18 and len(counts["handlock"]) == 22 and len(counts["face_hunter"]) == 18
    assert counts["mech_mage"]["Mana Wyrm"] == 1 and counts["mech_mage"]["Fireball"] == 2
    assert counts["handlock"]["Molten Giant"] == 2 and counts["handlock"]["Lord Jaraxxus"] == 1
    assert counts["face_hunter"]["Leeroy Jenkins"] == 1 and counts["face_hunter"]["Explosive Trap"] == 2


def test_mid_2015_statistics_not_later_patches():
    """The data's later_changes must not leak in: 2015 values of cards that were changed later."""
    stats = {c.name: c for c in POOL.cards if c.collectible}
    assert (stats["Leper Gnome"].attack, stats["Leper Gnome"].health) == (2, 1)  # 1/1 from 2016
    assert stats["Leeroy Jenkins"].cost == 5 and stats["Big Game Hunter"].cost == 3 and stats["Molten Giant"].cost == 20
    assert stats["Ironbeak Owl"].cost == 2 and stats["Knife Juggler"].attack == 3 and stats["Arcane Golem"].health == 2
    assert stats["Mechwarper"].cost == 2 and (stats["Mechwarper"].attack, stats["Mechwarper"].health) == (2, 3)
    assert stats["Glaivezooka"].type == "weapon" and (stats["Glaivezooka"].attack, stats["Glaivezooka"].health) == (2, 2)


def test_tokens_generated_cards_and_hero_powers_are_in_the_pool():
    names = {c.name for c in POOL.cards}
    assert {"Boom Bot", "Damaged Golem", "Spectral Spider", "Huffer", "Leokk", "Misha", "Hound", "Whelp", "Slime",
            "Infernal", "Blood Fury", "The Coin", "Fireblast", "Life Tap", "Steady Shot", "INFERNO!"} <= names
    assert sum(c.name in {"Armor Plating", "Time Rewinder", "Rusty Horn", "Finicky Cloakfield", "Emergency Coolant",
                          "Reversing Switch", "Whirling Blades"} for c in POOL.cards) == 7  # the Spare Parts
    assert POOL.by_name("Lord Jaraxxus").type == "minion"  # the collectible card, not the hero it becomes


def _deck_file(tmp_path, cards, player_class="Mage"):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"name": "test", "class": player_class, "cards": cards}))
    return path


def _mage_cards():
    return {"Fireball": 2, "Frostbolt": 2, "Arcane Intellect": 2, "Flamestrike": 1, "Mana Wyrm": 1, "Spider Tank": 2,
            "Mechwarper": 2, "Snowchugger": 2, "Clockwork Gnome": 2, "Cogmaster": 2, "Annoy-o-Tron": 2,
            "Harvest Golem": 1, "Tinkertown Technician": 2, "Goblin Blastmage": 2, "Mechanical Yeti": 2, "Loatheb": 1,
            "Archmage Antonidas": 1, "Dr. Boom": 1}


def test_a_valid_custom_deck_file_loads(tmp_path):
    assert len(load_deck(_deck_file(tmp_path, _mage_cards()), POOL).cards) == 30


@pytest.mark.parametrize("change,player_class,message", [
    ({"Firebal": 2, "Fireball": None}, "Mage", "unknown card name 'Firebal'; did you mean 'Fireball'"),
    ({"Fireball": 1}, "Mage", "a deck has 30 cards, this one has 29"),
    ({"Fireball": 3, "Frostbolt": 1}, "Mage", "3 copies of 'Fireball'; at most 2"),
    ({"Dr. Boom": 2, "Loatheb": None}, "Mage", "at most 1 of a legendary"),
    ({"Hellfire": 1, "Dr. Boom": None}, "Mage", "'Hellfire' is a Warlock card, the deck is Mage"),
    ({"Boom Bot": 1, "Dr. Boom": None}, "Mage", "'Boom Bot' is not a collectible card"),
    ({"Fireball": 0}, "Mage", "positive integer number of copies"),
    ({}, "Priest", "class 'Priest' is not one of"),
])
def test_bad_deck_files_are_clear_errors(tmp_path, change, player_class, message):
    cards = _mage_cards()
    for name, copies in change.items():
        if copies is None:
            del cards[name]
        else:
            cards[name] = copies
    with pytest.raises(CardDataError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_deck(_deck_file(tmp_path, cards, player_class), POOL)


def test_unknown_deck_name_and_broken_files(tmp_path):
    with pytest.raises(UnknownNameError, match="mech_mage"):
        load_deck("zoo_warlock")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_deck(broken)
    with pytest.raises(CardDataError, match="no such file"):
        load_deck(tmp_path / "missing.json")


@pytest.mark.parametrize("field,value,message", [
    ("cost", -1, "cost must be >= 0"),
    ("cost", "one", "field 'cost' must be int"),
    ("type", "trap", "type 'trap' is not one of"),
    ("health", None, "needs a non-negative integer 'health'"),
])
def test_malformed_card_data_is_a_clear_error(tmp_path, field, value, message):
    data = json.loads(resources.files("cardboard.envs.hearth").joinpath("brm_cards.json").read_text())
    data["cards"][0][field] = value  # Clockwork Gnome, a minion
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CardDataError, match=rf"cards\[0\]: .*{message}"):
        load_pool(path)

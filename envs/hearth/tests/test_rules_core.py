"""Hearth core rules (README "Rules", "Decisions and turns", "Chance", "Hidden information"): one named test
per rule, each from a hand-built position (``build_position``) or, for the set-up, from ``new_state(seed)``.

Positions are drawn in the docstrings:

    p1  hero 30  mana 3/3  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS]      the opponent's side on top
    p0  hero 30  Eaglehorn Bow 3/2  [Wolfrider 3/1]   hand: ...         the side to move (usually) below

``T`` taunt, ``DS`` divine shield, ``S`` stealth, ``F`` frozen, ``*`` exhausted. Actions use the layout
constants in the acting player's frame: ``TARGET + t`` (0 own hero, 1..7 own minions, 8 enemy hero, 9..15
enemy minions), ``ATTACK + 8a + d`` (a: 0 own hero, 1..7 own minion; d: 0 enemy hero, 1..7 enemy minion).
Random events stop at a chance node: the test checks ``chance_outcomes()`` and applies one outcome.
Unless a test says otherwise each deck holds one known card, so a turn-start draw has a single outcome
and is resolved without stopping.
"""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cardboard.envs.errors import CardDataError, IllegalActionError
from cardboard.envs.hearth.layout import (
    DARKBOMB,
    END_TURN,
    FIREBALL,
    FROSTBOLT,
    GLOBAL_LEN,
    HERO_POWER,
    MORTAL_COIL,
    MULLIGAN,
    NUM_ACTIONS,
    OP_DRAW,
    ORIGIN_DECK,
    ORIGIN_KNOWN,
    ORIGIN_SPARE_PART,
    P_HAND,
    P_HAND_ORIGIN,
    P_MINIONS,
    PLAY,
    PLAYER_LEN,
    POSITION,
    SPARE_PARTS,
    TARGET,
    THE_COIN,
    player_base,
)
from cardboard.envs.hearth.positions import (
    ENEMY_HERO,
    OWN_HERO,
    attack,
    attack_targets,
    board,
    end_turn,
    enemy,
    hand_names,
    hp,
    legal,
    outcomes,
    own,
    play,
    position,
    stats,
    targets,
)
from cardboard.envs.hearth.state import HearthGame
from cardboard.envs.protocol import CHANCE, TERMINAL, sample_chance


# ---- helpers (the shared ones are in ``positions``) -------------------------------------------------------
def counts(state, p: int) -> Counter:
    return Counter({int(c): int(n) for c, n in enumerate(state.deck_counts(p)) if n})


def unit(card: int) -> Counter:
    return Counter({card: 1})


# ---- turn structure ------------------------------------------------------------------------------------
def test_turn_start_adds_a_mana_crystal_refills_and_draws_through_a_chance_node():
    """Each turn: +1 mana crystal, mana refilled, then a draw: outcomes = the deck's card ids by copies left.

        p1  hero 30  mana 0/3  [Spider Tank 3/4 *]  power used     deck: Fireball x2, Frostbolt
        p0  hero 30  []                                              (p0 ends its turn)
    """
    state = position(boards=([], [{"card": "Spider Tank", "exhausted": True, "attacks": 1}]),
                     heroes=({}, {"mana": 0, "max_mana": 3, "power_used": True}),
                     deck_cards=(["Wolfrider"], ["Fireball", "Fireball", "Frostbolt"]))
    turn = state.turn
    state.apply(END_TURN)
    assert state.current_player == CHANCE
    op = state.pending_op()
    assert (op[0], op[1]) == (OP_DRAW, 1)
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (4, 4)
    assert outcomes(state) == pytest.approx({FIREBALL: 2 / 3, FROSTBOLT: 1 / 3})
    state.apply(FROSTBOLT)
    assert (state.current_player, state.phase, state.turn) == (1, "main", turn + 1)
    assert hand_names(state, 1) == ["Frostbolt"]
    assert counts(state, 1) == Counter({FIREBALL: 2}) and state.hero(1)["deck_size"] == 2
    assert attack_targets(state, 1) == {0}, "the minion is refreshed"
    assert HERO_POWER in legal(state) and not state.hero(1)["power_used"]


def test_mana_crystals_stop_at_ten():
    """At 10 crystals a new turn refills 10, no 11th crystal.

        p1  hero 30  mana 0/10
    """
    state = position(heroes=({}, {"mana": 0, "max_mana": 10}))
    end_turn(state)
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (10, 10)


def test_fatigue_deals_one_two_three_on_empty_decks():
    """An empty deck deals fatigue damage 1, 2, 3, ... per draw (each player counts its own).

        p1  hero 30  deck: empty
        p0  hero 30  deck: empty     (p0 ends its turn; then both keep passing)
    """
    state = position(deck_cards=([], []))
    end_turn(state)
    assert (hp(state, 1), state.hero(1)["fatigue"]) == (29, 1)
    end_turn(state)
    assert (hp(state, 0), state.hero(0)["fatigue"]) == (29, 1)
    end_turn(state)
    assert hp(state, 1) == 27
    end_turn(state)
    assert hp(state, 0) == 27
    end_turn(state)
    assert (hp(state, 1), state.hero(1)["fatigue"]) == (24, 3)
    assert state.hero(1)["hand_size"] == 0


def test_a_card_drawn_into_a_full_hand_is_burned():
    """Overdraw: with 10 cards in hand the drawn card leaves the deck and is destroyed.

        p1  hero 30  hand: 10 cards     deck: Fireball
    """
    full = ["Frostbolt", "Frostbolt", "Mana Wyrm", "Cogmaster", "Cogmaster", "Annoy-o-Tron", "Annoy-o-Tron",
            "Mechwarper", "Mechwarper", "Snowchugger"]
    state = position(hands=([], full), deck_cards=(["Wolfrider"], ["Fireball"]))
    end_turn(state)
    assert hand_names(state, 1) == full
    assert state.hero(1)["deck_size"] == 0 and state.deck_counts(1)[FIREBALL] == 0
    assert hp(state, 1) == 30


def test_a_card_drawn_into_a_nine_card_hand_is_kept():
    """Nine cards: the draw is the tenth card.

        p1  hero 30  hand: 9 cards     deck: Fireball
    """
    nine = ["Frostbolt", "Frostbolt", "Mana Wyrm", "Cogmaster", "Cogmaster", "Annoy-o-Tron", "Annoy-o-Tron",
            "Mechwarper", "Mechwarper"]
    state = position(hands=([], nine), deck_cards=(["Wolfrider"], ["Fireball"]))
    end_turn(state)
    assert hand_names(state, 1) == nine + ["Fireball"]


def test_end_turn_passes_to_the_other_player_and_counts_turns():
    """END_TURN ends the chain of decisions of one player; turn + 1.

        p0  hero 30  []   hand: Wolfrider
    """
    state = position(hands=(["Wolfrider"], []), turn=6)
    assert state.turn == 6 and END_TURN in legal(state)
    end_turn(state)
    assert (state.current_player, state.turn) == (1, 7)
    end_turn(state)
    assert (state.current_player, state.turn) == (0, 8)


def test_end_turn_is_legal_with_no_mana_and_no_cards():
    """END_TURN is legal in every main-phase position, even with nothing else to do.

        p0  hero 30  mana 0/10  []   hand: empty
    """
    state = position(heroes=({"mana": 0}, {}))
    assert legal(state) == {END_TURN}


# ---- board limit ------------------------------------------------------------------------------------------
def test_a_minion_card_is_not_playable_with_seven_minions():
    """At most 7 minions a side: minion cards leave the mask, spells and weapons stay.

        p1  hero 30  []
        p0  hero 30  [Wolfrider x7]    hand: Leper Gnome, Quick Shot, Eaglehorn Bow
    """
    state = position(hands=(["Leper Gnome", "Quick Shot", "Eaglehorn Bow"], []), boards=(["Wolfrider"] * 7, []))
    assert PLAY + 0 not in legal(state)
    assert {PLAY + 1, PLAY + 2} <= legal(state)


def test_deathrattle_tokens_beyond_seven_are_not_summoned():
    """Haunted Creeper dies on a board of 7: after its death 6 remain, one Spectral Spider fits.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Haunted Creeper 1/2, Wolfrider x6]
    """
    state = position(boards=(["Haunted Creeper"] + ["Wolfrider"] * 6, ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert board(state, 0) == ["Spectral Spider"] + ["Wolfrider"] * 6


def test_leeroys_whelps_are_not_summoned_onto_a_full_enemy_board():
    """The opponent has 7 minions: no Whelp; Leeroy is still played.

        p1  hero 30  [Mana Wyrm x7]
        p0  hero 30  []    hand: Leeroy Jenkins
    """
    state = position(hands=(["Leeroy Jenkins"], []), boards=([], ["Mana Wyrm"] * 7))
    play(state, "Leeroy Jenkins")
    assert board(state, 1) == ["Mana Wyrm"] * 7 and board(state, 0) == ["Leeroy Jenkins"]


# ---- attacking ----------------------------------------------------------------------------------------------
def test_summoning_sickness_unless_charge():
    """A minion cannot attack the turn it is summoned (Leper Gnome) unless it has Charge (Wolfrider).

        p1  hero 30  []
        p0  hero 30  []    hand: Leper Gnome, Wolfrider
    """
    state = position(hands=(["Leper Gnome", "Wolfrider"], []))
    play(state, "Leper Gnome")
    play(state, "Wolfrider")
    assert attack_targets(state, 1) == set()
    assert attack_targets(state, 2) == {0}
    assert state.minions(0)[0]["exhausted"] and not state.minions(0)[0]["can_attack"]
    end_turn(state)
    end_turn(state)
    assert attack_targets(state, 1) == {0}, "next turn the Gnome attacks"


def test_each_character_attacks_once_a_turn():
    """One attack per character per turn: the minion, then the hero (the bow still has durability).

        p1  hero 30  []
        p0  hero 30  Eaglehorn Bow 3/2  [Misha 4/4 T]
    """
    state = position(boards=(["Misha"], []), heroes=({"weapon": "Eaglehorn Bow"}, {}))
    state.apply(attack(1, 0))
    assert attack_targets(state, 1) == set() and attack_targets(state, 0) == {0}
    state.apply(attack(0, 0))
    assert attack_targets(state, 0) == set() and state.hero(0)["durability"] == 1
    assert hp(state, 1) == 30 - 4 - 3
    end_turn(state)
    end_turn(state)
    assert attack_targets(state, 1) == {0} and attack_targets(state, 0) == {0}


def test_a_defending_hero_deals_no_damage():
    """Minion attacks a hero that holds a weapon: the attacker takes nothing.

        p1  hero 30  Eaglehorn Bow 3/2
        p0  hero 30  [Misha 4/4 T]
    """
    state = position(decks=("face_hunter", "face_hunter"), boards=(["Misha"], []),
                     heroes=({}, {"weapon": "Eaglehorn Bow"}), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(attack(1, 0))
    assert hp(state, 1) == 26 and stats(state, 0) == [(4, 4)]


def test_taunt_forces_attacks_onto_taunt_minions_but_not_spells():
    """Taunt minions must be attacked first (minions and hero); spells may target anything.

        p1  hero 30  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS]
        p0  hero 30  Eaglehorn Bow 3/2  [Wolfrider 3/1]    hand: Quick Shot
    """
    state = position(hands=(["Quick Shot"], []), boards=(["Wolfrider"], ["Spider Tank", "Annoy-o-Tron"]),
                     heroes=({"weapon": "Eaglehorn Bow"}, {}))
    assert attack_targets(state, 1) == {2}
    assert attack_targets(state, 0) == {2}
    play(state, "Quick Shot")
    assert targets(state) == {OWN_HERO, own(0), ENEMY_HERO, enemy(0), enemy(1)}


def test_a_stealthed_taunt_does_not_force_attacks():
    """A stealthed Taunt minion cannot be attacked, so it protects nothing.

        p1  hero 30  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS S]
        p0  hero 30  [Wolfrider 3/1]
    """
    state = position(boards=(["Wolfrider"], ["Spider Tank", {"card": "Annoy-o-Tron", "stealth": True}]))
    assert attack_targets(state, 1) == {0, 1}


def test_divine_shield_absorbs_the_first_damage():
    """Divine Shield absorbs the first damage; the attacker still takes the defender's Attack.

        p1  hero 30  [Annoy-o-Tron 1/2 T DS]
        p0  hero 30  [Wolfrider 3/1, Misha 4/4 T]

    Wolfrider hits: shield gone, Annoy-o-Tron still 1/2; Wolfrider takes 1 and dies. Misha kills it, 4/3.
    """
    state = position(boards=(["Wolfrider", "Misha"], ["Annoy-o-Tron"]))
    state.apply(attack(1, 1))
    m = state.minions(1)[0]
    assert (m["health"], m["divine_shield"]) == (2, False)
    assert board(state, 0) == ["Misha"]
    state.apply(attack(1, 1))
    assert board(state, 1) == [] and stats(state, 0) == [(4, 3)]


def test_divine_shield_absorbs_spell_damage_too():
    """Quick Shot (3) on Annoy-o-Tron only pops the shield.

        p1  hero 30  [Annoy-o-Tron 1/2 T DS]
        p0  hero 30  []    hand: Quick Shot, Wolfrider
    """
    state = position(hands=(["Quick Shot", "Wolfrider"], []), boards=([], ["Annoy-o-Tron"]))
    play(state, "Quick Shot", enemy(0))
    assert stats(state, 1) == [(1, 2)] and not state.minions(1)[0]["divine_shield"]


def test_hero_attack_with_a_weapon_costs_durability_and_takes_the_defenders_attack():
    """A hero attacks only with a weapon; it loses 1 durability and takes the defender's Attack.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  Eaglehorn Bow 3/2
    """
    state = position(boards=([], ["Spider Tank"]), heroes=({"weapon": "Eaglehorn Bow"}, {}))
    state.apply(attack(0, 1))
    assert stats(state, 1) == [(3, 1)] and hp(state, 0) == 27
    assert state.hero(0)["durability"] == 1 and state.hero(0)["attack"] == 3


def test_a_hero_without_a_weapon_cannot_attack():
    """No weapon: no hero attack.

        p1  hero 30  []
        p0  hero 30  [Wolfrider 3/1]
    """
    state = position(boards=(["Wolfrider"], []))
    assert attack_targets(state, 0) == set() and state.hero(0)["attack"] == 0


def test_a_weapon_at_zero_durability_is_destroyed():
    """Last durability spent: the weapon is gone, the hero has no Attack and cannot attack next turn.

        p1  hero 30  []
        p0  hero 30  Eaglehorn Bow 3/1
    """
    state = position(heroes=({"weapon": "Eaglehorn Bow", "durability": 1}, {}))
    state.apply(attack(0, 0))
    h = state.hero(0)
    assert hp(state, 1) == 27 and (h["weapon"], h["attack"], h["durability"]) == (-1, 0, 0)
    end_turn(state)
    end_turn(state)
    assert attack_targets(state, 0) == set()


# ---- freeze -------------------------------------------------------------------------------------------------
def test_a_frozen_hero_cannot_attack():
    """Frozen characters cannot attack.

        p1  hero 30  []
        p0  hero 30  F  Eaglehorn Bow 3/2
    """
    state = position(heroes=({"weapon": "Eaglehorn Bow", "frozen": True}, {}))
    assert attack_targets(state, 0) == set()


def test_a_frozen_minion_misses_one_attack_and_thaws_at_the_end_of_its_owners_turn():
    """A frozen minion cannot attack; it thaws at the end of its owner's turn (it did not attack).

        p1  hero 30  []
        p0  hero 30  [Wolfrider 3/1 F]
    """
    state = position(boards=([{"card": "Wolfrider", "frozen": True}], []))
    assert attack_targets(state, 1) == set()
    end_turn(state)
    assert not state.minions(0)[0]["frozen"]
    end_turn(state)
    assert attack_targets(state, 1) == {0}


def test_a_minion_frozen_on_the_turn_it_is_summoned_stays_frozen_through_its_next_turn():
    """A frozen character thaws at its owner's turn end only if it could attack that turn and did not.

        p1  hero 30  []
        p0  hero 30  [Spider Tank 3/4 * F, Wolfrider 3/1 * F]   (both summoned this turn, then frozen)

    The Tank (no Charge) could not attack: still frozen on p0's next turn, thawed at its end. Wolfrider
    (Charge) could attack and did not: it thaws at the end of this turn.
    """
    state = position(boards=([{"card": "Spider Tank", "exhausted": True, "frozen": True},
                              {"card": "Wolfrider", "exhausted": True, "frozen": True}], []))
    assert attack_targets(state, 1) == set() and attack_targets(state, 2) == set()
    end_turn(state)
    assert [m["frozen"] for m in state.minions(0)] == [True, False]
    end_turn(state)
    assert attack_targets(state, 1) == set() and attack_targets(state, 2) == {0}
    end_turn(state)
    assert not state.minions(0)[0]["frozen"]
    end_turn(state)
    assert attack_targets(state, 1) == {0}


def test_frostbolt_freezes_the_hero_through_its_next_turn():
    """Frozen on the enemy's turn: stays frozen for the owner's next turn, thaws at its end.

        p1  hero 30  hand: Frostbolt   (p1 to move)
        p0  hero 30  Eaglehorn Bow 3/2

    Frostbolt: 3 damage and Freeze: p0 27, frozen; p0's turn: no hero attack; after it: thawed.
    """
    state = position(to_move=1, hands=([], ["Frostbolt"]), heroes=({"weapon": "Eaglehorn Bow"}, {}))
    play(state, "Frostbolt", ENEMY_HERO)
    assert hp(state, 0) == 27 and state.hero(0)["frozen"]
    end_turn(state)
    assert state.current_player == 0 and state.hero(0)["frozen"]
    assert attack_targets(state, 0) == set()
    end_turn(state)
    assert not state.hero(0)["frozen"]
    end_turn(state)
    assert attack_targets(state, 0) == {0}


def test_a_minion_frozen_while_attacking_misses_its_next_turn():
    """Misha attacks Snowchugger and is frozen by it: it attacked this turn, so it stays frozen through its
    owner's next turn (no attack) and thaws at the end of that turn.

        p1  hero 30  [Snowchugger 2/3]
        p0  hero 30  [Misha 4/4 T]
    """
    state = position(boards=(["Misha"], ["Snowchugger"]))
    state.apply(attack(1, 1))
    assert board(state, 1) == [] and stats(state, 0) == [(4, 2)] and state.minions(0)[0]["frozen"]
    end_turn(state)
    assert state.minions(0)[0]["frozen"], "it attacked this turn: no thaw yet"
    end_turn(state)
    assert attack_targets(state, 1) == set()
    end_turn(state)
    assert not state.minions(0)[0]["frozen"]
    end_turn(state)
    assert attack_targets(state, 1) == {0}


# ---- The Coin and hero powers -----------------------------------------------------------------------------------
def test_the_coin_gives_one_mana_this_turn():
    """The Coin: 0 mana, +1 mana this turn (crystals unchanged).

        p0  hero 30  mana 3/3    hand: The Coin
    """
    state = position(hands=([{"card": "The Coin", "origin": "known"}], []), heroes=({"mana": 3, "max_mana": 3}, {}))
    play(state, "The Coin")
    assert (state.hero(0)["mana"], state.hero(0)["max_mana"]) == (4, 3) and hand_names(state, 0) == []


def test_the_coin_is_capped_at_ten_mana():
    """Decision 10: mana 10 + The Coin stays 10.

        p0  hero 30  mana 10/10    hand: The Coin
    """
    state = position(hands=([{"card": "The Coin", "origin": "known"}], []))
    play(state, "The Coin")
    assert state.hero(0)["mana"] == 10


def test_hero_power_is_usable_once_a_turn():
    """Fireblast (1 damage, any character), 2 mana, once a turn; available again next turn.

        p1  hero 30  []
        p0  hero 30  mana 10/10   (Mage)
    """
    state = position(decks=("mech_mage", "face_hunter"), deck_cards=(["Fireball"], ["Wolfrider"]))
    state.apply(HERO_POWER)
    assert state.phase == "target" and ENEMY_HERO in targets(state) and OWN_HERO in targets(state)
    state.apply(TARGET + ENEMY_HERO)
    assert hp(state, 1) == 29 and state.hero(0)["mana"] == 8
    assert HERO_POWER not in legal(state)
    end_turn(state)
    end_turn(state)
    assert HERO_POWER in legal(state)


def test_life_tap_draws_and_costs_two_health():
    """Life Tap: draw a card (chance node over the deck), take 2 damage, no target.

        p0  hero 30  (Warlock)   deck: Mortal Coil, Darkbomb
    """
    state = position(decks=("handlock", "face_hunter"), deck_cards=(["Mortal Coil", "Darkbomb"], ["Wolfrider"]))
    state.apply(HERO_POWER)
    assert outcomes(state) == pytest.approx({MORTAL_COIL: 0.5, DARKBOMB: 0.5})
    state.apply(DARKBOMB)
    assert state.current_player == 0 and hand_names(state, 0) == ["Darkbomb"]
    assert hp(state, 0) == 28 and state.hero(0)["mana"] == 8 and HERO_POWER not in legal(state)


# ---- mulligan -------------------------------------------------------------------------------------------------------
def _mulligan_game():
    return HearthGame(decks=("face_hunter", "mech_mage"), mulligan=True)


def test_mulligan_masks_are_three_bits_for_player_0_and_four_for_player_1():
    """Player 0 chooses among 2^3 masks over its 3 cards, then player 1 among 2^4 over its 4.

    Keeping everything draws nothing: the hands stay, the game starts with player 0's turn-1 draw.
    """
    state = _mulligan_game().new_state(3)
    assert (state.phase, state.current_player) == ("mulligan", 0)
    assert len(state.hand(0)) == 3 and len(state.hand(1)) == 4
    assert legal(state) == {MULLIGAN + m for m in range(8)}
    h0, h1 = list(state.hand(0)), list(state.hand(1))
    state.apply(MULLIGAN + 0)
    assert (state.phase, state.current_player) == ("mulligan", 1)
    assert legal(state) == {MULLIGAN + m for m in range(16)}
    assert list(state.hand(0)) == h0
    state.apply(MULLIGAN + 0)
    assert state.current_player == CHANCE and state.pending_op()[:2] == (OP_DRAW, 0)
    assert sorted(int(c) for c in state.hand(1)) == sorted(h1 + [THE_COIN])


def test_mulligan_replacements_are_drawn_without_the_set_aside_cards_which_go_back_into_the_deck():
    """Replace card 0 of player 0 (mask 0b001) and cards 1, 2 of player 1 (mask 0b0110).

    Each replacement is a draw chance node over the deck *without* the set-aside cards; once drawn, the
    set-aside cards are shuffled back (deck counts: -drawn +returned). Player 1 ends with The Coin (known
    to both players), then player 0's first turn starts: 1 mana, a draw.
    """
    state = _mulligan_game().new_state(5)
    h0 = [int(c) for c in state.hand(0)]
    deck0 = counts(state, 0)
    assert sum(deck0.values()) == 27
    state.apply(MULLIGAN + 0b001)
    assert state.current_player == CHANCE
    assert outcomes(state) == pytest.approx({c: n / 27 for c, n in deck0.items()})
    drawn = min(deck0)
    state.apply(drawn)
    assert (state.phase, state.current_player) == ("mulligan", 1)
    assert sorted(int(c) for c in state.hand(0)) == sorted([drawn, h0[1], h0[2]])
    assert counts(state, 0) == deck0 - unit(drawn) + unit(h0[0])

    h1 = [int(c) for c in state.hand(1)]
    deck1 = counts(state, 1)
    assert sum(deck1.values()) == 26
    state.apply(MULLIGAN + 0b0110)
    assert outcomes(state) == pytest.approx({c: n / 26 for c, n in deck1.items()})
    first = max(deck1)
    state.apply(first)
    rest = deck1 - unit(first)
    assert outcomes(state) == pytest.approx({c: n / 25 for c, n in rest.items()})
    second = max(rest)
    state.apply(second)
    assert counts(state, 1) == deck1 - unit(first) - unit(second) + unit(h1[1]) + unit(h1[2])
    hand1 = [int(c) for c in state.hand(1)]
    assert sorted(hand1) == sorted([h1[0], first, second, h1[3], THE_COIN])
    assert state.hand_origin(1)[hand1.index(THE_COIN)] == ORIGIN_KNOWN

    assert state.current_player == CHANCE and state.pending_op()[:2] == (OP_DRAW, 0)
    state.apply(int(state.chance_outcomes()[0][0]))
    assert (state.phase, state.current_player) == ("main", 0)
    assert len(state.hand(0)) == 4 and (state.hero(0)["mana"], state.hero(0)["max_mana"]) == (1, 1)
    assert state.hero(0)["deck_size"] == 26 and state.hero(1)["deck_size"] == 26


def test_without_mulligan_the_game_starts_with_player_0s_draw():
    """mulligan=False: no mulligan phase; player 1 already holds 4 cards and The Coin."""
    state = HearthGame(decks=("face_hunter", "mech_mage"), mulligan=False).new_state(0)
    assert state.current_player == CHANCE and state.pending_op()[:2] == (OP_DRAW, 0)
    assert len(state.hand(0)) == 3 and len(state.hand(1)) == 5 and THE_COIN in state.hand(1)


# ---- deaths -------------------------------------------------------------------------------------------------------
def test_minions_die_together_after_the_action_so_a_dead_juggler_throws_no_knife():
    """Deaths resolve once the action is over, all at once: Flamestrike kills the Juggler, the Creeper and
    the Gnome together; the Gnome's 2 damage lands, the Spiders arrive, and the dead Juggler does not throw.

        p1  hero 30  hand: Flamestrike   (p1 to move)
        p0  hero 30  [Knife Juggler 3/2, Haunted Creeper 1/2, Leper Gnome 2/1]
    """
    state = position(to_move=1, hands=([], ["Flamestrike"]),
                     boards=(["Knife Juggler", "Haunted Creeper", "Leper Gnome"], []))
    play(state, "Flamestrike")
    assert state.current_player == 1, "no knife: the juggler died with the others"
    assert board(state, 0) == ["Spectral Spider", "Spectral Spider"] and hp(state, 1) == 28


def test_deathrattles_run_in_summon_order_when_the_board_is_nearly_full():
    """Simultaneous deaths: deathrattles in the order the minions were summoned; tokens in the dead's place.

        p1  hero 30  trap up
        p0  hero 30  [Creeper(old), Misha, Misha, Leokk, Misha]   hand: Haunted Creeper, Wolfrider

    p0 plays the second Creeper (right end) and Wolfrider (charge), which attacks p1's hero: the trap deals 2
    to everything of p0's: both Creepers and Wolfrider die at once (Wolfrider does not hit). 4 survivors;
    the old Creeper's two Spiders go first (left end), the new Creeper gets one Spider (the 7th slot).
    """
    state = position(decks=("face_hunter", "face_hunter"), hands=(["Haunted Creeper", "Wolfrider"], []),
                     boards=(["Haunted Creeper", "Misha", "Misha", "Leokk", "Misha"], []),
                     heroes=({}, {"trap": True}), deck_cards=(["Leper Gnome"], ["Leper Gnome"]))
    play(state, "Haunted Creeper")
    play(state, "Wolfrider")
    assert len(board(state, 0)) == 7
    state.apply(attack(7, 0))
    assert hp(state, 1) == 30 and hp(state, 0) == 28
    assert board(state, 0) == ["Spectral Spider", "Spectral Spider", "Misha", "Misha", "Leokk", "Misha",
                               "Spectral Spider"]
    assert stats(state, 0) == [(2, 1), (2, 1), (5, 2), (5, 2), (2, 2), (5, 2), (2, 1)]


# ---- the end of the game -----------------------------------------------------------------------------------------
def test_the_game_ends_when_a_hero_dies():
    """Steady Shot takes player 1's hero from 2 to 0: terminal, +1 / -1.

        p1  hero 2
        p0  hero 30   (Hunter)
    """
    state = position(heroes=({}, {"health": 2}))
    state.apply(HERO_POWER)
    assert state.current_player == TERMINAL and state.is_terminal() and state.phase == "over"
    assert list(state.returns()) == [1.0, -1.0] and state.winner() == 0


def test_player_1_wins_when_player_0s_hero_dies():
    """Player 1's Steady Shot kills player 0's hero (2 health): -1 / +1.

        p1  hero 30   (Hunter, to move)
        p0  hero 2
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1, heroes=({"health": 2}, {}),
                     deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(HERO_POWER)
    assert state.current_player == TERMINAL and list(state.returns()) == [-1.0, 1.0] and state.winner() == 1


def test_a_deathrattle_can_end_the_game():
    """Leper Gnome dies attacking; its 2 damage kills the enemy hero once the action has resolved.

        p1  hero 2   [Spider Tank 3/4]
        p0  hero 30  [Leper Gnome 2/1]
    """
    state = position(boards=(["Leper Gnome"], ["Spider Tank"]), heroes=({}, {"health": 2}))
    state.apply(attack(1, 1))
    assert state.current_player == TERMINAL and list(state.returns()) == [1.0, -1.0]


def test_both_heroes_at_zero_is_a_draw():
    """Hellfire (3 damage to all characters) with both heroes at 3: both die at once, a draw (001 §2.1).

        p1  hero 3   (Hunter)
        p0  hero 3   (Warlock)   hand: Hellfire
    """
    state = position(decks=("handlock", "face_hunter"), hands=(["Hellfire"], []),
                     heroes=({"health": 3}, {"health": 3}), deck_cards=(["Darkbomb"], ["Wolfrider"]))
    play(state, "Hellfire")
    assert state.current_player == TERMINAL and state.is_terminal()
    assert list(state.returns()) == [0.0, 0.0] and state.winner() is None


def test_self_damage_that_kills_only_your_own_hero_loses():
    """Hellfire at 3 health against a 5-health hero: the caster loses.

        p1  hero 5
        p0  hero 3   hand: Hellfire
    """
    state = position(decks=("handlock", "face_hunter"), hands=(["Hellfire"], []),
                     heroes=({"health": 3}, {"health": 5}), deck_cards=(["Darkbomb"], ["Wolfrider"]))
    play(state, "Hellfire")
    assert list(state.returns()) == [-1.0, 1.0] and hp(state, 1) == 2


def test_two_hundred_player_turns_without_an_end_is_a_draw():
    """Stall guard: the end of player turn 200 (turns 0..199) ends the game as a draw.

        p0  hero 30   turn 199 (and, for contrast, turn 198)
    """
    state = position(turn=198)
    end_turn(state)
    assert not state.is_terminal() and state.turn == 199
    end_turn(state)
    assert state.current_player == TERMINAL and list(state.returns()) == [0.0, 0.0] and state.winner() is None


# ---- the action space ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("decks", [("face_hunter", "mech_mage"), ("handlock", "face_hunter"), ("mech_mage", "handlock"),
                                   ("face_hunter", "face_hunter")])
def test_mask_equals_legal_actions_and_end_turn_is_always_legal_in_random_games(decks):
    """Along 8 random games: mask == legal actions, END_TURN legal in every main-phase decision, keys agree."""
    game = HearthGame(decks=decks)
    decisions = 0
    for seed in range(8):
        state = game.new_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(4000):
            if state.is_terminal():
                break
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            acts = np.asarray(state.legal_actions()).copy()
            mask = state.action_mask()
            assert mask.shape == (NUM_ACTIONS,) and mask.dtype == bool
            assert np.array_equal(np.flatnonzero(mask), acts)
            assert len(acts) > 0
            if state.phase == "main":
                assert END_TURN in acts
            keys = list(state.legal_action_keys())
            assert keys == [state.action_key(int(a)) for a in acts]
            state.apply(int(rng.choice(acts)))
            decisions += 1
        assert state.is_terminal()
    assert decisions > 200


def test_play_action_keys_are_equal_for_copies_of_a_card_in_different_slots():
    """Soft keys: "play a card named X" for PLAY ids; other decisions keep their own id.

        p0  hand: Wolfrider, Leper Gnome, Wolfrider
    """
    state = position(hands=(["Wolfrider", "Leper Gnome", "Wolfrider"], []))
    k = state.action_key
    assert k(PLAY + 0) == k(PLAY + 2)
    assert k(PLAY + 0) != k(PLAY + 1)
    assert len({k(PLAY + 0), k(PLAY + 1), k(END_TURN), k(HERO_POWER)}) == 4
    assert 0 <= int(k(END_TURN)) < state.info.num_action_keys


# ---- determinization -------------------------------------------------------------------------------------------------
def _hidden_position():
    """p1's hand: Fireball, Frostbolt (from the deck), The Coin (known), a Spare Part, an Antonidas Fireball
    (known), Spider Tank (deck). p0 (the observer) has a hand, a board and its deck.

        p1  hero 24  mana 4/5  [Mana Wyrm 1/3]   hand: 6 cards   deck: 7 cards
        p0  hero 27  Eaglehorn Bow 3/2  [Wolfrider 3/1, Leper Gnome 2/1]   hand: Quick Shot, Kill Command
    """
    return position(
        hands=(["Quick Shot", "Kill Command"],
               ["Fireball", "Frostbolt", {"card": "The Coin", "origin": "known"},
                {"card": "Armor Plating", "origin": "spare_part"}, {"card": "Fireball", "origin": "known"},
                "Spider Tank"]),
        boards=(["Wolfrider", "Leper Gnome"], ["Mana Wyrm"]),
        heroes=({"health": 27, "weapon": "Eaglehorn Bow"}, {"health": 24, "mana": 4, "max_mana": 5}),
        deck_cards=(None, ["Flamestrike", "Mana Wyrm", "Snowchugger", "Snowchugger", "Dr. Boom", "Loatheb",
                           "Cogmaster"]),
    )


def _unseen_pool(state, p: int) -> Counter:
    """The deck contents plus the deck-origin hand cards: what the opponent cannot tell apart."""
    hand, origin = state.hand(p), state.hand_origin(p)
    return counts(state, p) + Counter(int(c) for c, o in zip(hand, origin) if o == ORIGIN_DECK)


def test_determinize_keeps_what_the_observer_sees_and_resamples_the_opponents_hidden_cards():
    """determinize(0, rng): p0's hand, deck, board and both heroes unchanged; p1's known cards kept, its
    deck-origin cards dealt from the unseen pool (deck + those cards), its Spare Part one of the 7."""
    state = _hidden_position()
    before = state.s.copy()
    assert list(state.hand_origin(1)) == [ORIGIN_DECK, ORIGIN_DECK, ORIGIN_KNOWN, ORIGIN_SPARE_PART, ORIGIN_KNOWN,
                                          ORIGIN_DECK]
    true_hand = [int(c) for c in state.hand(1)]
    pool = _unseen_pool(state, 1)
    b0, b1 = player_base(0), player_base(1)
    rng = np.random.default_rng(0)
    hidden_seen, parts_seen = set(), set()
    for _ in range(40):
        det = state.determinize(0, rng)
        assert np.array_equal(state.s, before), "the true state is untouched"
        assert np.array_equal(det.s[:GLOBAL_LEN], state.s[:GLOBAL_LEN])
        assert np.array_equal(det.s[b0:b0 + PLAYER_LEN], state.s[b0:b0 + PLAYER_LEN]), "observer's block"
        assert np.array_equal(det.s[b1:b1 + P_HAND], state.s[b1:b1 + P_HAND]), "opponent's hero, mana, counts"
        assert np.array_equal(det.s[b1 + P_HAND_ORIGIN:b1 + P_HAND_ORIGIN + 10],
                              state.s[b1 + P_HAND_ORIGIN:b1 + P_HAND_ORIGIN + 10])
        assert np.array_equal(det.s[b1 + P_MINIONS:b1 + PLAYER_LEN], state.s[b1 + P_MINIONS:b1 + PLAYER_LEN])
        assert np.array_equal(det.observation(0), state.observation(0))
        hand = [int(c) for c in det.hand(1)]
        assert hand[2] == THE_COIN and hand[4] == FIREBALL, "known cards stay"
        assert hand[3] in SPARE_PARTS
        assert _unseen_pool(det, 1) == pool
        hidden_seen.add((hand[0], hand[1], hand[5]))
        parts_seen.add(hand[3])
    assert len(hidden_seen) > 5 and len(parts_seen) > 2
    assert any(h != (true_hand[0], true_hand[1], true_hand[5]) for h in hidden_seen)


def test_determinize_from_player_1_keeps_player_1s_hand():
    """The observer's own hand is never resampled (player 1 observing player 0)."""
    state = _hidden_position()
    det = state.determinize(1, np.random.default_rng(1))
    assert list(det.hand(1)) == list(state.hand(1)) and list(det.deck_counts(1)) == list(state.deck_counts(1))
    assert _unseen_pool(det, 0) == _unseen_pool(state, 0)
    assert np.array_equal(det.observation(1), state.observation(1))


def test_determinize_with_accuracy_one_returns_the_true_state():
    """accuracy=1.0: every hidden card is kept."""
    state = _hidden_position()
    det = state.determinize(0, np.random.default_rng(2), accuracy=1.0)
    assert np.array_equal(det.s, state.s)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_determinize_with_accuracy_zero_changes_every_hidden_card(seed):
    """accuracy=0.0: each hidden (deck-origin) opponent card becomes a different card of their deck;
    known cards stay; the unseen pool is preserved."""
    state = _hidden_position()
    true_hand = [int(c) for c in state.hand(1)]
    det = state.determinize(0, np.random.default_rng(seed), accuracy=0.0)
    hand = [int(c) for c in det.hand(1)]
    for i in (0, 1, 5):
        assert hand[i] != true_hand[i]
    assert (hand[2], hand[4]) == (THE_COIN, FIREBALL) and hand[3] in SPARE_PARTS
    assert _unseen_pool(det, 1) == _unseen_pool(state, 1)
    assert np.array_equal(det.observation(0), state.observation(0))


def test_determinize_with_accuracy_zero_keeps_a_card_when_no_other_is_possible():
    """"When possible": the hidden Fireball's only alternative in the deck is another Fireball.

        p1  hand: Fireball (hidden)    deck: Fireball
    """
    state = position(hands=([], ["Fireball"]), deck_cards=(["Wolfrider"], ["Fireball"]))
    det = state.determinize(0, np.random.default_rng(0), accuracy=0.0)
    assert list(det.hand(1)) == [FIREBALL] and np.array_equal(det.s, state.s)


# ---- illegal actions and bad data ------------------------------------------------------------------------------------
def _assert_illegal(state, action):
    before = state.s.tobytes()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert state.s.tobytes() == before


def test_illegal_actions_raise_and_leave_the_state_byte_identical():
    """Unaffordable card, empty slot, exhausted attacker, weaponless hero, a target/position/mulligan id in the
    main phase, out-of-range ids; then in the target phase: an empty target slot and END_TURN.

        p1  hero 30  []
        p0  hero 30  mana 3/10  [Leper Gnome 2/1 *]   hand: Leeroy Jenkins, Quick Shot
    """
    state = position(hands=(["Leeroy Jenkins", "Quick Shot"], []),
                     boards=([{"card": "Leper Gnome", "exhausted": True}], []), heroes=({"mana": 3}, {}))
    for a in (PLAY + 0, PLAY + 2, attack(1, 0), attack(0, 0), attack(2, 0), TARGET + ENEMY_HERO, POSITION + 0,
              MULLIGAN + 0, NUM_ACTIONS, -1):
        _assert_illegal(state, a)
    state.apply(PLAY + 1)
    assert state.phase == "target"
    assert all(TARGET <= a < TARGET + 16 for a in legal(state))
    for a in (TARGET + enemy(2), TARGET + own(3), END_TURN, PLAY + 0):
        _assert_illegal(state, a)


def test_an_outcome_that_is_not_offered_is_illegal_at_a_chance_node():
    """At a chance node only the offered outcomes apply.

        p0  hand: Animal Companion
    """
    state = position(hands=(["Animal Companion"], []))
    play(state, "Animal Companion")
    _assert_illegal(state, FIREBALL)


def _deck_file(tmp_path, cards):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"name": "test", "class": "Hunter", "cards": cards}))
    return path


def _hunter_cards():
    return {"Abusive Sergeant": 2, "Leper Gnome": 2, "Southsea Deckhand": 1, "Worgen Infiltrator": 1,
            "Explosive Trap": 2, "Glaivezooka": 2, "Haunted Creeper": 1, "Knife Juggler": 2, "Mad Scientist": 2,
            "Quick Shot": 2, "Animal Companion": 2, "Arcane Golem": 1, "Eaglehorn Bow": 2, "Ironbeak Owl": 1,
            "Kill Command": 2, "Unleash the Hounds": 2, "Wolfrider": 2, "Leeroy Jenkins": 1}


def test_a_custom_deck_file_plays(tmp_path):
    """A valid deck file works as a seat's deck."""
    game = HearthGame(decks=(str(_deck_file(tmp_path, _hunter_cards())), "mech_mage"), mulligan=False)
    assert game.decks[0].player_class == "Hunter" and len(game.deck_ids[0]) == 30


@pytest.mark.parametrize("change,message", [
    ({"Leper Gnom": 2, "Leper Gnome": None}, "unknown card name 'Leper Gnom'"),
    ({"Wolfrider": 1}, "a deck has 30 cards, this one has 29"),
])
def test_the_game_rejects_a_bad_deck_file_with_card_data_error(tmp_path, change, message):
    """HearthGame with a deck file naming an unknown card or holding 29 cards: CardDataError."""
    cards = _hunter_cards()
    for name, copies in change.items():
        if copies is None:
            del cards[name]
        else:
            cards[name] = copies
    with pytest.raises(CardDataError, match=message):
        HearthGame(decks=(str(_deck_file(tmp_path, cards)), "mech_mage"))


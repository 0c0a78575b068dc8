"""Hearth rules, Handlock: one named test per card rule, each from a hand-built position.

Every test builds its position with ``build_position`` and draws it in its
docstring, player 1 (the opponent) on top, player 0 (to move) below:

    P1 hero 30 | [Spider Tank 3/4] [Annoy-o-Tron 1/2 DS T]
    -----------+------------------------------------------
    P0 hero 30 | [Ancient Watcher 4/5]          hand: Darkbomb, ...

``a/h`` is attack / current health, ``T`` Taunt, ``DS`` Divine Shield, ``(x)``
a printed value the test changed. The rules are those of ``envs/hearth/README.md``;
the numbers come from ``brm_cards.json``. Random effects are resolved through
explicit chance nodes: the test checks ``chance_outcomes()`` and applies one.
"""
from __future__ import annotations

import pytest

from cardboard.envs.errors import IllegalActionError
from cardboard.envs.hearth.layout import (
    ANCIENT_WATCHER,
    ANNOY_O_TRON,
    ANTIQUE_HEALBOT,
    ARCHMAGE_ANTONIDAS,
    ATTACK,
    BIG_GAME_HUNTER,
    BLOOD_FURY,
    BOOM_BOT,
    DARKBOMB,
    DEFENDER_OF_ARGUS,
    DR_BOOM,
    EMPEROR_THAURISSAN,
    END_TURN,
    F_ATK,
    F_COST,
    F_HP,
    F_KEYWORDS,
    F_RACE,
    FIREBALL,
    FROSTBOLT,
    HAND_LIMIT,
    HELLFIRE,
    HERO_POWER,
    INFERNAL,
    INFERNO,
    IRONBEAK_OWL,
    JARAXXUS_HEALTH,
    KW_TAUNT,
    LIFE_TAP,
    LOATHEB,
    LORD_JARAXXUS,
    MAL_GANIS,
    MANA_WYRM,
    MOLTEN_GIANT,
    MORTAL_COIL,
    MOUNTAIN_GIANT,
    PLAY,
    POSITION,
    RACE_DEMON,
    SHADOWFLAME,
    SIPHON_SOUL,
    SLIME,
    SLUDGE_BELCHER,
    SPECTRAL_SPIDER,
    SPIDER_TANK,
    SUNFURY_PROTECTOR,
    SYLVANAS_WINDRUNNER,
    TARGET,
    THE_COIN,
    TWILIGHT_DRAKE,
    VOIDCALLER,
)
from cardboard.envs.hearth.positions import assert_illegal, attack_at, build_position, legal, outcomes
from cardboard.envs.protocol import CHANCE, TERMINAL

DECKS = ("handlock", "mech_mage")  # Handlock to move (player 0) against Mech Mage
# single-card decks: the draw at a turn start has one outcome, so it resolves without a chance node
QUIET_DECKS = (["Darkbomb"] * 5, ["Mana Wyrm"] * 5)


# ---- helpers (the shared ones are in ``positions``; own/enemy/OWN_HERO here are TARGET action ids) -----
def build(*, hands=((), ()), boards=((), ()), heroes=({}, {}), deck_cards=QUIET_DECKS, to_move=0, decks=DECKS):
    state = build_position(decks, to_move=to_move, hands=hands, boards=boards, heroes=heroes,
                           deck_cards=deck_cards)
    assert state.phase == "main" and state.current_player == to_move
    return state


def card_table():
    return build().cards


def slot(state, card: int, p: int | None = None) -> int:
    """Hand slot of the first copy of ``card`` in player p's hand (default: the player to move)."""
    p = state.current_player if p is None else p
    return [int(c) for c in state.hand(p)].index(card)


def play(state, card: int) -> int:
    """The PLAY action of ``card`` (first copy in the mover's hand)."""
    return PLAY + slot(state, card)


def own(pos: int) -> int:
    """TARGET id of the mover's own minion at board position pos."""
    return TARGET + 1 + pos


def enemy(pos: int) -> int:
    """TARGET id of the enemy minion at board position pos."""
    return TARGET + 9 + pos


OWN_HERO, ENEMY_HERO = TARGET + 0, TARGET + 8


def do(state, *actions: int):
    for a in actions:
        state.apply(a)
    return state


def board(state, p: int) -> list[int]:
    return [m["card"] for m in state.minions(p)]


def stats(state, p: int) -> list[tuple[int, int, int]]:
    """(card, effective attack, current health) of p's minions, left to right."""
    return [(m["card"], m["attack"], m["health"]) for m in state.minions(p)]


def hand(state, p: int) -> list[int]:
    return [int(c) for c in state.hand(p)]


def costs(state, p: int) -> list[int]:
    return [int(c) for c in state.hand_costs(p)]


def end_turn(state):
    """END_TURN; with QUIET_DECKS the next player's draw has one outcome and resolves at once."""
    p = state.current_player
    state.apply(END_TURN)
    assert state.current_player == 1 - p and state.phase == "main"
    return state


# ---- card draw (chance) ----------------------------------------------------------------------
def test_turn_start_draw_is_a_chance_node_over_the_deck_multiset():
    """A draw's outcomes are the card ids left in the deck, by copies / deck size.

    P1 deck: Fireball, Fireball, Frostbolt (3 cards)
    P0 ends the turn -> P1's turn starts with a draw: Fireball 2/3, Frostbolt 1/3.
    """
    state = build(hands=([], ["Mana Wyrm"]), deck_cards=(["Darkbomb"], ["Fireball", "Fireball", "Frostbolt"]))
    state.apply(END_TURN)
    assert state.current_player == CHANCE
    out = outcomes(state)
    assert set(out) == {FIREBALL, FROSTBOLT}
    assert out[FIREBALL] == pytest.approx(2 / 3) and out[FROSTBOLT] == pytest.approx(1 / 3)
    state.apply(FROSTBOLT)
    assert state.current_player == 1 and state.phase == "main"
    assert hand(state, 1) == [MANA_WYRM, FROSTBOLT]
    assert state.hero(1)["deck_size"] == 2
    assert int(state.deck_counts(1)[FIREBALL]) == 2 and int(state.deck_counts(1)[FROSTBOLT]) == 0


def test_turn_start_draw_illegal_outcome_is_rejected():
    """At a draw node an id that is not in the deck is illegal; the state is unchanged."""
    state = build(deck_cards=(["Darkbomb"], ["Fireball", "Fireball", "Frostbolt"]))
    state.apply(END_TURN)
    assert state.current_player == CHANCE
    before = state.s.copy()
    with pytest.raises(IllegalActionError):
        state.apply(DARKBOMB)
    assert state.s.tobytes() == before.tobytes()


# ---- Life Tap (hero power) --------------------------------------------------------------------
def test_life_tap_draws_a_card_and_deals_2_damage_once_per_turn_for_2_mana():
    """Life Tap: draw a card (a chance node over the deck), take 2 damage; 2 mana; once a turn.

    P0 hero 30, mana 10 | deck: Mortal Coil, Mortal Coil, Darkbomb | hand: Hellfire
    """
    state = build(hands=(["Hellfire"], []), deck_cards=(["Mortal Coil", "Mortal Coil", "Darkbomb"], ["Mana Wyrm"]))
    assert state.hero(0)["power"] == LIFE_TAP
    assert HERO_POWER in legal(state)
    state.apply(HERO_POWER)
    out = outcomes(state)
    assert out == pytest.approx({MORTAL_COIL: 2 / 3, DARKBOMB: 1 / 3})
    state.apply(DARKBOMB)
    assert state.current_player == 0 and state.phase == "main"
    hero = state.hero(0)
    assert (hero["health"], hero["mana"], hero["power_used"]) == (28, 8, True)
    assert hand(state, 0) == [HELLFIRE, DARKBOMB]
    assert hero["deck_size"] == 2 and int(state.deck_counts(0)[MORTAL_COIL]) == 2
    assert_illegal(state, HERO_POWER)  # once a turn


def test_life_tap_needs_2_mana():
    """P0 mana 1: Life Tap (2 mana) is not legal."""
    state = build(heroes=({"mana": 1}, {}))
    assert_illegal(state, HERO_POWER)


def test_life_tap_on_an_empty_deck_deals_fatigue():
    """Life Tap with an empty deck: 2 damage + fatigue 1, then (next fatigue) 2, 3, ...

    P0 hero 30, deck empty, fatigue counter 0 -> 30 - 2 - 1 = 27, no chance node, hand unchanged.
    """
    state = build(hands=(["Hellfire"], []), deck_cards=([], ["Mana Wyrm"]))
    state.apply(HERO_POWER)
    assert state.current_player == 0
    assert state.hero(0)["health"] == 27 and state.hero(0)["fatigue"] == 1
    assert hand(state, 0) == [HELLFIRE]


def test_life_tap_fatigue_grows_with_each_empty_draw():
    """Fatigue counter already 2: the next empty draw deals 3 -> 30 - 2 - 3 = 25."""
    state = build(heroes=({"fatigue": 2}, {}), deck_cards=([], ["Mana Wyrm"]))
    state.apply(HERO_POWER)
    assert state.hero(0)["health"] == 25 and state.hero(0)["fatigue"] == 3


def test_draw_into_a_full_hand_burns_the_card():
    """A card drawn into a full hand (10) is burned: the hand stays the same 10, the deck shrinks.

    P0 hand: 10 cards | deck: Mortal Coil, Darkbomb -> Life Tap draws Darkbomb, which burns.
    """
    ten = ["Hellfire"] * 2 + ["Ancient Watcher"] * 2 + ["Mountain Giant"] * 2 + ["Molten Giant"] * 2 + \
        ["Voidcaller"] * 2
    state = build(hands=(ten, []), deck_cards=(["Mortal Coil", "Darkbomb"], ["Mana Wyrm"]))
    before = hand(state, 0)
    assert len(before) == HAND_LIMIT
    state.apply(HERO_POWER)
    assert outcomes(state) == pytest.approx({MORTAL_COIL: 0.5, DARKBOMB: 0.5})
    state.apply(DARKBOMB)
    assert hand(state, 0) == before
    assert state.hero(0)["deck_size"] == 1 and int(state.deck_counts(0)[DARKBOMB]) == 0
    assert int(state.deck_counts(0)[MORTAL_COIL]) == 1
    assert state.hero(0)["health"] == 28


# ---- Mortal Coil ----------------------------------------------------------------------------
def test_mortal_coil_kills_and_draws():
    """Mortal Coil: 1 damage to a minion; if it dies, draw (a chance node over the deck).

    P1 | [Mana Wyrm 1/(1)]
    P0 | hand: Mortal Coil | deck: Darkbomb, Hellfire
    """
    state = build(hands=(["Mortal Coil"], []), boards=([], [{"card": "Mana Wyrm", "health": 1}]),
                  deck_cards=(["Darkbomb", "Hellfire"], ["Mana Wyrm"]))
    state.apply(play(state, MORTAL_COIL))
    assert state.phase == "target"
    assert legal(state) == {enemy(0)}, "minions only: no hero target"
    state.apply(enemy(0))
    # the draw interrupts the action; the Wyrm (at 0 health) is removed once the action has finished
    assert outcomes(state) == pytest.approx({DARKBOMB: 0.5, HELLFIRE: 0.5})
    state.apply(HELLFIRE)
    assert state.current_player == 0 and hand(state, 0) == [HELLFIRE]
    assert board(state, 1) == []
    assert state.hero(0)["mana"] == 9 and state.hero(0)["deck_size"] == 1


def test_mortal_coil_does_not_draw_when_the_minion_survives():
    """P1 | [Spider Tank 3/4] -> Mortal Coil: 3/3, no draw."""
    state = build(hands=(["Mortal Coil"], []), boards=([], ["Spider Tank"]),
                  deck_cards=(["Darkbomb", "Hellfire"], ["Mana Wyrm"]))
    do(state, play(state, MORTAL_COIL), enemy(0))
    assert state.current_player == 0
    assert stats(state, 1) == [(SPIDER_TANK, 3, 3)]
    assert hand(state, 0) == [] and state.hero(0)["deck_size"] == 2


def test_mortal_coil_does_not_go_through_divine_shield():
    """P1 | [Annoy-o-Tron 1/(1) DS T] -> Mortal Coil pops the shield, no damage, no kill, no draw."""
    state = build(hands=(["Mortal Coil"], []), boards=([], [{"card": "Annoy-o-Tron", "health": 1}]),
                  deck_cards=(["Darkbomb", "Hellfire"], ["Mana Wyrm"]))
    do(state, play(state, MORTAL_COIL), enemy(0))
    assert state.current_player == 0
    m = state.minions(1)[0]
    assert (m["card"], m["health"], m["divine_shield"]) == (ANNOY_O_TRON, 1, False)
    assert hand(state, 0) == [] and state.hero(0)["deck_size"] == 2


def test_mortal_coil_needs_a_minion_on_the_board():
    """No minion anywhere: Mortal Coil has no target, so it is not playable."""
    state = build(hands=(["Mortal Coil"], []))
    assert_illegal(state, play(state, MORTAL_COIL))


# ---- Ancient Watcher ------------------------------------------------------------------------
def test_ancient_watcher_cannot_attack():
    """P1 hero | (empty)
    P0 | [Ancient Watcher 4/5, not exhausted] -> no attack, even though it is not summoning sick.
    """
    state = build(boards=(["Ancient Watcher"], []))
    assert not state.minions(0)[0]["can_attack"]
    assert not any(ATTACK <= a < HERO_POWER for a in legal(state))
    assert_illegal(state, attack_at(0, None))


def test_ancient_watcher_can_attack_after_silence():
    """Ironbeak Owl silences the own Watcher: it loses 'cannot attack' and attacks at once.

    P1 hero 30 | (empty)
    P0 | [Ancient Watcher 4/5] | hand: Ironbeak Owl -> Owl on Watcher; Watcher hits the hero: 26.
    """
    state = build(hands=(["Ironbeak Owl"], []), boards=(["Ancient Watcher"], []))
    state.apply(play(state, IRONBEAK_OWL))
    assert state.phase == "target"
    assert legal(state) == {own(0)}, "the Owl cannot target itself; no hero targets"
    state.apply(own(0))
    watcher = state.minions(0)[0]
    assert watcher["card"] == ANCIENT_WATCHER and watcher["silenced"] and watcher["can_attack"]
    assert attack_at(0, None) in legal(state)
    state.apply(attack_at(0, None))
    assert state.hero(1)["health"] == 26


def test_ancient_watcher_built_silenced_can_attack():
    """P0 | [Ancient Watcher 4/5, silenced] -> attacking the enemy hero is legal."""
    state = build(boards=([{"card": "Ancient Watcher", "silenced": True}], []))
    assert attack_at(0, None) in legal(state)


# ---- Darkbomb -------------------------------------------------------------------------------
def test_darkbomb_deals_3_to_any_character():
    """Darkbomb: 3 damage to any character (both heroes and all minions are targets).

    P1 hero 30 | [Spider Tank 3/4]
    P0 hero 30 | [Ancient Watcher 4/5] | hand: Darkbomb, Darkbomb
    """
    state = build(hands=(["Darkbomb", "Darkbomb"], []), boards=(["Ancient Watcher"], ["Spider Tank"]))
    state.apply(play(state, DARKBOMB))
    assert legal(state) == {OWN_HERO, own(0), ENEMY_HERO, enemy(0)}
    state.apply(ENEMY_HERO)
    assert state.hero(1)["health"] == 27 and state.hero(0)["mana"] == 8
    do(state, play(state, DARKBOMB), enemy(0))
    assert stats(state, 1) == [(SPIDER_TANK, 3, 1)]
    assert state.hero(0)["mana"] == 6


# ---- Sunfury Protector / Defender of Argus (position decision) ---------------------------------
def test_sunfury_protector_position_decision_and_taunt_to_neighbours():
    """Sunfury Protector on a board of 3: POSITION 0..3; both neighbours gain Taunt, nobody else.

    P1 | [Spider Tank]
    P0 | [Watcher] [Mana Wyrm] [Spider Tank]  -> POSITION 1: [Watcher T] [Sunfury] [Wyrm T] [Tank]
    """
    state = build(hands=(["Sunfury Protector"], []),
                  boards=(["Ancient Watcher", "Mana Wyrm", "Spider Tank"], ["Spider Tank"]))
    state.apply(play(state, SUNFURY_PROTECTOR))
    assert state.phase == "position" and state.current_player == 0
    assert legal(state) == {POSITION + p for p in range(4)}
    state.apply(POSITION + 1)
    assert state.phase == "main"
    assert board(state, 0) == [ANCIENT_WATCHER, SUNFURY_PROTECTOR, MANA_WYRM, SPIDER_TANK]
    assert [m["taunt"] for m in state.minions(0)] == [True, False, True, False]
    assert not state.minions(1)[0]["taunt"]
    assert state.hero(0)["mana"] == 8


def test_sunfury_protector_at_the_left_end_has_one_neighbour():
    """POSITION 0 on [Wyrm] [Tank]: [Sunfury] [Wyrm T] [Tank]."""
    state = build(hands=(["Sunfury Protector"], []), boards=(["Mana Wyrm", "Spider Tank"], []))
    do(state, play(state, SUNFURY_PROTECTOR), POSITION + 0)
    assert board(state, 0) == [SUNFURY_PROTECTOR, MANA_WYRM, SPIDER_TANK]
    assert [bool(m["taunt"]) for m in state.minions(0)] == [False, True, False]


def test_sunfury_protector_on_an_empty_board_has_no_position_decision():
    """Empty own board: the Protector is simply played (no position phase), nothing gains Taunt."""
    state = build(hands=(["Sunfury Protector"], []), boards=([], ["Spider Tank"]))
    state.apply(play(state, SUNFURY_PROTECTOR))
    assert state.phase == "main" and state.current_player == 0
    assert board(state, 0) == [SUNFURY_PROTECTOR]
    assert not any(POSITION <= a < ATTACK for a in legal(state))
    assert not state.minions(1)[0]["taunt"]


def test_position_id_beyond_the_board_is_illegal():
    """Board of 2: POSITION 3..7 are illegal in the position phase (state unchanged)."""
    state = build(hands=(["Sunfury Protector"], []), boards=(["Mana Wyrm", "Spider Tank"], []))
    state.apply(play(state, SUNFURY_PROTECTOR))
    assert legal(state) == {POSITION + 0, POSITION + 1, POSITION + 2}
    assert_illegal(state, POSITION + 3)
    assert_illegal(state, END_TURN)


def test_defender_of_argus_gives_neighbours_plus1_plus1_and_taunt():
    """Defender of Argus between two minions: both +1/+1 and Taunt; the far one untouched.

    P0 | [Watcher 4/5] [Wyrm 1/(2)] [Tank 3/4]  -> POSITION 1:
         [Watcher 5/6 T] [Defender 2/3] [Wyrm 2/3 T] [Tank 3/4]
    """
    state = build(hands=(["Defender of Argus"], []),
                  boards=(["Ancient Watcher", {"card": "Mana Wyrm", "health": 2}, "Spider Tank"], []))
    state.apply(play(state, DEFENDER_OF_ARGUS))
    assert state.phase == "position"
    assert legal(state) == {POSITION + p for p in range(4)}
    state.apply(POSITION + 1)
    assert stats(state, 0) == [(ANCIENT_WATCHER, 5, 6), (DEFENDER_OF_ARGUS, 2, 3), (MANA_WYRM, 2, 3),
                               (SPIDER_TANK, 3, 4)]
    assert [m["max_health"] for m in state.minions(0)] == [6, 3, 4, 4]
    assert [bool(m["taunt"]) for m in state.minions(0)] == [True, False, True, False]
    assert state.hero(0)["mana"] == 6


def test_defender_of_argus_at_the_right_end_buffs_only_its_left_neighbour():
    """POSITION n (right end) on [Wyrm] [Tank]: only the Tank gets +1/+1 and Taunt."""
    state = build(hands=(["Defender of Argus"], []), boards=(["Mana Wyrm", "Spider Tank"], []))
    do(state, play(state, DEFENDER_OF_ARGUS), POSITION + 2)
    assert stats(state, 0) == [(MANA_WYRM, 1, 3), (SPIDER_TANK, 4, 5), (DEFENDER_OF_ARGUS, 2, 3)]
    assert [bool(m["taunt"]) for m in state.minions(0)] == [False, True, False]


def test_defender_of_argus_on_an_empty_board_has_no_position_decision():
    state = build(hands=(["Defender of Argus"], []))
    state.apply(play(state, DEFENDER_OF_ARGUS))
    assert state.phase == "main"
    assert stats(state, 0) == [(DEFENDER_OF_ARGUS, 2, 3)]


def test_other_minions_have_no_position_decision_and_go_to_the_right_end():
    """Ancient Watcher onto [Wyrm] [Tank]: no POSITION decision, it lands at the right end."""
    state = build(hands=(["Ancient Watcher"], []), boards=(["Mana Wyrm", "Spider Tank"], []))
    state.apply(play(state, ANCIENT_WATCHER))
    assert state.phase == "main"
    assert board(state, 0) == [MANA_WYRM, SPIDER_TANK, ANCIENT_WATCHER]


# ---- Ironbeak Owl (Silence) ----------------------------------------------------------------------
def test_ironbeak_owl_silence_removes_taunt_and_divine_shield():
    """P1 | [Annoy-o-Tron 1/2 DS T] -> silenced: no Taunt, no Divine Shield, same 1/2.

    Afterwards the enemy hero can be attacked past it.
    """
    state = build(hands=(["Ironbeak Owl"], []), boards=(["Spider Tank"], ["Annoy-o-Tron"]))
    assert attack_at(0, None) not in legal(state), "Taunt guards the hero"
    state.apply(play(state, IRONBEAK_OWL))
    assert legal(state) == {own(0), enemy(0)}
    state.apply(enemy(0))
    m = state.minions(1)[0]
    assert (m["card"], m["attack"], m["health"]) == (ANNOY_O_TRON, 1, 2)
    assert m["silenced"] and not m["taunt"] and not m["divine_shield"]
    assert attack_at(0, None) in legal(state)


def test_ironbeak_owl_silence_removes_buffs_health_capped_by_new_maximum():
    """Defender of Argus buffs the Watcher to 5/6 Taunt; the Owl silences it: 4/5, health 6 -> 5.

    P0 | [Watcher 4/5] | hand: Defender of Argus, Ironbeak Owl
       -> [Watcher 5/6 T] [Defender] -> Owl on Watcher -> [Watcher 4/5] [Defender] [Owl]
    """
    state = build(hands=(["Defender of Argus", "Ironbeak Owl"], []), boards=(["Ancient Watcher"], []))
    do(state, play(state, DEFENDER_OF_ARGUS), POSITION + 1)
    w = state.minions(0)[0]
    assert (w["attack"], w["health"], w["max_health"], bool(w["taunt"])) == (5, 6, 6, True)
    do(state, play(state, IRONBEAK_OWL), own(0))
    assert board(state, 0) == [ANCIENT_WATCHER, DEFENDER_OF_ARGUS, IRONBEAK_OWL]
    w = state.minions(0)[0]
    assert (w["attack"], w["health"], w["max_health"], bool(w["taunt"])) == (4, 5, 5, False)
    assert w["silenced"]


def test_ironbeak_owl_silence_keeps_damage_and_removes_deathrattle():
    """P1 | [Sludge Belcher 3/(2) T] -> silenced: 3/2 (damage kept), no Taunt; killed: no Slime.

    P0 | hand: Ironbeak Owl, Darkbomb
    """
    state = build(hands=(["Ironbeak Owl", "Darkbomb"], []), boards=([], [{"card": "Sludge Belcher", "health": 2}]))
    do(state, PLAY + 0, enemy(0))
    m = state.minions(1)[0]
    assert (m["card"], m["attack"], m["health"], m["max_health"]) == (SLUDGE_BELCHER, 3, 2, 5)
    assert not m["taunt"] and m["silenced"]
    do(state, play(state, DARKBOMB), enemy(0))
    assert board(state, 1) == [], "the silenced Belcher leaves no Slime"


def test_ironbeak_owl_silence_removes_an_aura():
    """Silencing Mal'Ganis removes its aura: the Voidcaller drops from 5/6 to 3/4, the hero loses Immune.

    P1 | [Mal'Ganis 9/7] [Voidcaller 3/4 (+2/+2 aura)]
    P0 | hand: Ironbeak Owl, Darkbomb
    """
    state = build(hands=(["Ironbeak Owl", "Darkbomb"], []), boards=([], ["Mal'Ganis", "Voidcaller"]))
    assert state.minions(1)[1]["attack"] == 5 and state.hero(1)["immune"]
    do(state, PLAY + 0, enemy(0))
    assert stats(state, 1) == [(MAL_GANIS, 9, 7), (VOIDCALLER, 3, 4)]
    assert state.minions(1)[1]["max_health"] == 4
    assert not state.hero(1)["immune"]
    do(state, play(state, DARKBOMB), ENEMY_HERO)
    assert state.hero(1)["health"] == 27


def test_ironbeak_owl_with_no_other_minion_is_played_without_a_target():
    """Empty board: the battlecry has no valid target (never the Owl itself); the Owl is simply played."""
    state = build(hands=(["Ironbeak Owl"], []))
    state.apply(PLAY + 0)
    assert state.phase == "main" and len(board(state, 0)) == 1
    assert not state.minions(0)[0]["silenced"]


# ---- Hellfire -----------------------------------------------------------------------------------
def test_hellfire_hits_both_heroes_and_every_minion():
    """Hellfire: 3 damage to all characters.

    P1 hero 30 | [Spider Tank 3/4] [Annoy-o-Tron 1/2 DS]
    P0 hero 30 | [Watcher 4/5] [Sunfury 2/3]
       -> heroes 27 / 27; Tank 3/1; Annoy-o-Tron loses its shield (1/2); Watcher 4/2; Sunfury dies
    """
    state = build(hands=(["Hellfire"], []), boards=(["Ancient Watcher", "Sunfury Protector"],
                                                    ["Spider Tank", "Annoy-o-Tron"]))
    state.apply(play(state, HELLFIRE))
    assert state.current_player == 0 and state.phase == "main"
    assert state.hero(0)["health"] == 27 and state.hero(1)["health"] == 27
    assert stats(state, 0) == [(ANCIENT_WATCHER, 4, 2)]
    assert stats(state, 1) == [(SPIDER_TANK, 3, 1), (ANNOY_O_TRON, 1, 2)]
    assert not state.minions(1)[1]["divine_shield"]
    assert state.hero(0)["mana"] == 6


def test_hellfire_killing_both_heroes_is_a_draw():
    """Both heroes at 3: Hellfire brings both to 0 at once -> a draw, returns [0, 0]."""
    state = build(hands=(["Hellfire"], []), heroes=({"health": 3}, {"health": 3}))
    state.apply(play(state, HELLFIRE))
    assert state.is_terminal() and state.current_player == TERMINAL and state.phase == "over"
    assert state.winner() is None
    assert [float(r) for r in state.returns()] == [0.0, 0.0]


def test_hellfire_killing_only_the_casters_hero_loses():
    """Own hero at 3, enemy at 30: Hellfire kills the caster -> player 1 wins."""
    state = build(hands=(["Hellfire"], []), heroes=({"health": 3}, {}))
    state.apply(play(state, HELLFIRE))
    assert state.is_terminal() and state.winner() == 1
    assert [float(r) for r in state.returns()] == [-1.0, 1.0]


# ---- Shadowflame --------------------------------------------------------------------------------
def test_shadowflame_needs_a_friendly_minion():
    """No friendly minion (enemy minions do not count): Shadowflame is not playable."""
    state = build(hands=(["Shadowflame"], []), boards=([], ["Spider Tank"]))
    assert_illegal(state, play(state, SHADOWFLAME))


def test_shadowflame_destroys_a_friendly_minion_and_deals_its_effective_attack_to_enemy_minions():
    """Shadowflame on a Voidcaller with Mal'Ganis's aura (3+2 = 5 Attack): 5 to every enemy minion.

    P1 hero 30 | [Spider Tank 3/4] [Antonidas 5/7] [Annoy-o-Tron 1/2 DS]
    P0 hero 30 | [Mal'Ganis 9/7] [Voidcaller 5/6] | hand: Shadowflame (no Demon in hand)
       -> Voidcaller destroyed (no Demon to summon); Tank dies, Antonidas 5/2, Annoy-o-Tron loses the shield
    """
    state = build(hands=(["Shadowflame"], []), boards=(["Mal'Ganis", "Voidcaller"],
                                                       ["Spider Tank", "Archmage Antonidas", "Annoy-o-Tron"]))
    assert state.minions(0)[1]["attack"] == 5
    state.apply(play(state, SHADOWFLAME))
    assert legal(state) == {own(0), own(1)}, "friendly minions only"
    state.apply(own(1))
    assert state.current_player == 0
    assert board(state, 0) == [MAL_GANIS]
    assert stats(state, 1) == [(ARCHMAGE_ANTONIDAS, 5, 2), (ANNOY_O_TRON, 1, 2)]
    assert not state.minions(1)[1]["divine_shield"]
    assert state.hero(0)["health"] == 30 and state.hero(1)["health"] == 30
    assert state.hero(0)["mana"] == 6


# ---- Twilight Drake -----------------------------------------------------------------------------
def test_twilight_drake_gains_1_health_per_other_card_in_hand():
    """Hand: Twilight Drake + 3 others -> a 4/(1+3) = 4/4 Drake."""
    state = build(hands=(["Twilight Drake", "Hellfire", "Darkbomb", "Mortal Coil"], []))
    state.apply(play(state, TWILIGHT_DRAKE))
    m = state.minions(0)[0]
    assert (m["card"], m["attack"], m["health"], m["max_health"]) == (TWILIGHT_DRAKE, 4, 4, 4)


def test_twilight_drake_alone_in_hand_is_a_4_1():
    state = build(hands=(["Twilight Drake"], []))
    state.apply(PLAY + 0)
    assert stats(state, 0) == [(TWILIGHT_DRAKE, 4, 1)]


# ---- Voidcaller ---------------------------------------------------------------------------------
def _voidcaller_dies(hand_cards, extra_board=()):
    """P0 | [Voidcaller 3/4] + extra | hand: Siphon Soul + hand_cards -> Siphon Soul on the Voidcaller."""
    state = build(hands=(["Siphon Soul", *hand_cards], []), boards=(["Voidcaller", *extra_board], []))
    do(state, play(state, SIPHON_SOUL), own(0))
    return state


def test_voidcaller_deathrattle_is_a_chance_node_over_the_demons_in_hand():
    """Hand after the spell: Lord Jaraxxus, Hellfire, Mal'Ganis: outcomes = the two Demon slots, 1/2 each."""
    state = _voidcaller_dies(["Lord Jaraxxus", "Hellfire", "Mal'Ganis"])
    out = outcomes(state)
    assert len(out) == 2 and all(p == pytest.approx(0.5) for p in out.values())
    assert {hand(state, 0)[o] for o in out} == {LORD_JARAXXUS, MAL_GANIS}


def test_voidcaller_summons_jaraxxus_as_a_3_15_minion_without_battlecry():
    """Outcome Lord Jaraxxus: a 3/15 Demon minion; the hero stays a 30-health Warlock with Life Tap."""
    state = _voidcaller_dies(["Lord Jaraxxus", "Hellfire", "Mal'Ganis"])
    out = outcomes(state)
    jslot = next(o for o in out if hand(state, 0)[o] == LORD_JARAXXUS)
    state.apply(jslot)
    assert state.current_player == 0 and state.phase == "main"
    m = state.minions(0)[0]
    assert (m["card"], m["attack"], m["health"], m["max_health"]) == (LORD_JARAXXUS, 3, 15, 15)
    assert sorted(hand(state, 0)) == sorted([HELLFIRE, MAL_GANIS])
    hero = state.hero(0)
    assert not hero["jaraxxus"] and hero["max_health"] == 30 and hero["power"] == LIFE_TAP
    assert hero["weapon"] == -1
    assert state.hero(0)["mana"] == 4, "the summoned Demon costs nothing (10 - 6 for Siphon Soul)"


def test_voidcaller_summons_malganis_with_its_aura():
    """Outcome Mal'Ganis: 9/7 on the board; the other Voidcaller becomes 5/6 and the hero Immune.

    P0 | [Voidcaller A] [Voidcaller B] -> A dies -> [Mal'Ganis 9/7] and [Voidcaller B 5/6]
    """
    state = _voidcaller_dies(["Lord Jaraxxus", "Mal'Ganis"], extra_board=["Voidcaller"])
    out = outcomes(state)
    mslot = next(o for o in out if hand(state, 0)[o] == MAL_GANIS)
    state.apply(mslot)
    assert state.current_player == 0
    assert sorted(stats(state, 0)) == sorted([(VOIDCALLER, 5, 6), (MAL_GANIS, 9, 7)])
    assert state.hero(0)["immune"]
    assert hand(state, 0) == [LORD_JARAXXUS]


def test_voidcaller_with_one_demon_in_hand_resolves_without_a_chance_node():
    state = _voidcaller_dies(["Hellfire", "Mal'Ganis"])
    assert state.current_player == 0
    assert board(state, 0) == [MAL_GANIS] and hand(state, 0) == [HELLFIRE]


def test_voidcaller_with_no_demon_in_hand_does_nothing():
    state = _voidcaller_dies(["Hellfire", "Darkbomb"])
    assert state.current_player == 0
    assert board(state, 0) == [] and hand(state, 0) == [HELLFIRE, DARKBOMB]


def test_voidcaller_with_a_full_board_leaves_the_demon_in_hand():
    """A summon onto a full board fails: Lord Jaraxxus stays in hand (no chance node, no minion).

    P0 | [Haunted Creeper 1/2] [Voidcaller 3/(3)] [Ancient Watcher 4/5] x 5 | hand: Hellfire, Lord Jaraxxus
       Hellfire: the Creeper and the Voidcaller die; the Creeper's deathrattle (summoned first, so first)
       refills the board to 7 with two Spiders before the Voidcaller's runs
    """
    state = build(hands=(["Hellfire", "Lord Jaraxxus"], []),
                  boards=(["Haunted Creeper", {"card": "Voidcaller", "health": 3}, *["Ancient Watcher"] * 5], []))
    state.apply(play(state, HELLFIRE))
    assert state.current_player == 0 and hand(state, 0) == [LORD_JARAXXUS]
    assert board(state, 0) == [SPECTRAL_SPIDER] * 2 + [ANCIENT_WATCHER] * 5


# ---- Antique Healbot ---------------------------------------------------------------------------
def test_antique_healbot_restores_8_health():
    """P0 hero 20/30 -> 28."""
    state = build(hands=(["Antique Healbot"], []), heroes=({"health": 20}, {}))
    state.apply(PLAY + 0)
    assert state.hero(0)["health"] == 28 and state.hero(1)["health"] == 30
    assert stats(state, 0) == [(ANTIQUE_HEALBOT, 3, 3)]


def test_antique_healbot_does_not_heal_above_maximum():
    """P0 hero 25/30 -> 30, not 33."""
    state = build(hands=(["Antique Healbot"], []), heroes=({"health": 25}, {}))
    state.apply(PLAY + 0)
    assert state.hero(0)["health"] == 30 and state.hero(0)["max_health"] == 30


# ---- Big Game Hunter ---------------------------------------------------------------------------
def test_big_game_hunter_targets_only_minions_with_7_or_more_attack():
    """P1 | [Dr. Boom 7/7] [Loatheb 5/5]; P0 | [Mal'Ganis 9/7] -> targets: Dr. Boom and Mal'Ganis (own), not Loatheb."""
    state = build(hands=(["Big Game Hunter"], []), boards=(["Mal'Ganis"], ["Dr. Boom", "Loatheb"]))
    state.apply(PLAY + 0)
    assert state.phase == "target"
    assert legal(state) == {own(0), enemy(0)}
    assert_illegal(state, enemy(1))
    state.apply(enemy(0))
    assert board(state, 1) == [LOATHEB]
    assert board(state, 0) == [MAL_GANIS, BIG_GAME_HUNTER]
    assert state.hero(0)["mana"] == 7


def test_big_game_hunter_destroys_through_divine_shield():
    """P1 | [Dr. Boom 7/7 DS] -> destroyed (destroy is not damage)."""
    state = build(hands=(["Big Game Hunter"], []), boards=([], [{"card": "Dr. Boom", "divine_shield": True}]))
    do(state, PLAY + 0, enemy(0))
    assert board(state, 1) == []


def test_big_game_hunter_without_a_7_attack_minion_is_played_without_a_target():
    """P1 | [Loatheb 5/5] [Spider Tank (6)/4] -> no minion with 7+ Attack: no target phase."""
    state = build(hands=(["Big Game Hunter"], []), boards=([], ["Loatheb", {"card": "Spider Tank", "attack": 6}]))
    state.apply(PLAY + 0)
    assert state.phase == "main" and state.current_player == 0
    assert board(state, 0) == [BIG_GAME_HUNTER] and board(state, 1) == [LOATHEB, SPIDER_TANK]


# ---- Loatheb ------------------------------------------------------------------------------------
def test_loatheb_makes_enemy_spells_cost_5_more_next_turn():
    """Loatheb: on P1's next turn Fireball 4 -> 9, Frostbolt 2 -> 7; minions unchanged; gone after.

    P1 hand: Fireball, Frostbolt, Mana Wyrm; max mana 7 (8 on its turn): Fireball unplayable.
    """
    state = build(hands=(["Loatheb"], ["Fireball", "Frostbolt", "Mana Wyrm"]),
                  heroes=({}, {"mana": 7, "max_mana": 7}))
    state.apply(PLAY + 0)
    assert stats(state, 0) == [(LOATHEB, 5, 5)]
    end_turn(state)
    assert state.hero(1)["mana"] == 8 and state.hero(1)["spell_tax"] == 5
    assert costs(state, 1)[:3] == [9, 7, 1]
    assert_illegal(state, play(state, FIREBALL))
    assert play(state, FROSTBOLT) in legal(state)
    end_turn(state)
    end_turn(state)
    assert state.current_player == 1 and state.hero(1)["spell_tax"] == 0
    assert costs(state, 1)[:3] == [4, 2, 1]


# ---- Sludge Belcher ------------------------------------------------------------------------------
def test_sludge_belcher_has_taunt():
    """P1 | [Belcher 3/5 T] [Spider Tank]; P0 | [Mana Wyrm] -> the Wyrm may attack only the Belcher."""
    state = build(boards=(["Mana Wyrm"], ["Sludge Belcher", "Spider Tank"]))
    assert {a for a in legal(state) if ATTACK <= a < HERO_POWER} == {attack_at(0, 0)}
    assert int(state.cards[SLUDGE_BELCHER, F_KEYWORDS]) & KW_TAUNT


def test_sludge_belcher_leaves_a_1_2_taunt_slime_in_its_place():
    """P1 | [Tank] [Belcher 3/(3) T] [Wyrm] -> Darkbomb the Belcher -> [Tank] [Slime 1/2 T] [Wyrm]."""
    state = build(hands=(["Darkbomb"], []),
                  boards=([], ["Spider Tank", {"card": "Sludge Belcher", "health": 3}, "Mana Wyrm"]))
    do(state, PLAY + 0, enemy(1))
    assert stats(state, 1) == [(SPIDER_TANK, 3, 4), (SLIME, 1, 2), (MANA_WYRM, 1, 3)]
    slime = state.minions(1)[1]
    assert slime["taunt"] and slime["max_health"] == 2
    assert (int(state.cards[SLIME, F_ATK]), int(state.cards[SLIME, F_HP])) == (1, 2)


# ---- Emperor Thaurissan ------------------------------------------------------------------------
def test_emperor_thaurissan_discounts_the_hand_at_end_of_turn_permanently_and_stacking():
    """At the end of P0's turn every card in P0's hand costs 1 less, permanently; never below 0.

    P0 | hand: Emperor Thaurissan, The Coin, Mortal Coil, Hellfire, Siphon Soul (0, 1, 4, 6)
       play Thaurissan (6 mana), end turn          -> 0, 0, 3, 5   (P1's hand untouched: Fireball 4)
       P1 ends; P0 draws Darkbomb (2, not yet discounted)
       P0 ends                                     -> 0, 0, 2, 4, 1
    """
    state = build(hands=(["Emperor Thaurissan", "The Coin", "Mortal Coil", "Hellfire", "Siphon Soul"],
                         ["Fireball"]))
    state.apply(play(state, EMPEROR_THAURISSAN))
    assert board(state, 0) == [EMPEROR_THAURISSAN]
    assert hand(state, 0) == [THE_COIN, MORTAL_COIL, HELLFIRE, SIPHON_SOUL]
    assert costs(state, 0) == [0, 1, 4, 6]
    end_turn(state)
    assert costs(state, 0) == [0, 0, 3, 5]
    assert costs(state, 1)[0] == 4
    end_turn(state)
    assert hand(state, 0) == [THE_COIN, MORTAL_COIL, HELLFIRE, SIPHON_SOUL, DARKBOMB]
    assert costs(state, 0) == [0, 0, 3, 5, 2]
    end_turn(state)
    assert costs(state, 0) == [0, 0, 2, 4, 1]


def test_thaurissan_discounted_card_costs_its_discounted_mana():
    """Hellfire at -2 (cost 2) with 2 mana is playable and leaves 0 mana."""
    state = build(hands=([{"card": "Hellfire", "cost_delta": -2}], []), heroes=({"mana": 2}, {}))
    assert costs(state, 0) == [2]
    state.apply(PLAY + 0)
    assert state.hero(0)["mana"] == 0 and state.hero(1)["health"] == 27


# ---- Siphon Soul --------------------------------------------------------------------------------
def test_siphon_soul_destroys_a_minion_through_divine_shield_and_heals_3():
    """P1 | [Annoy-o-Tron 1/2 DS T]; P0 hero 20 -> Annoy-o-Tron destroyed, hero 23."""
    state = build(hands=(["Siphon Soul"], []), boards=([], ["Annoy-o-Tron"]), heroes=({"health": 20}, {}))
    state.apply(PLAY + 0)
    assert legal(state) == {enemy(0)}
    state.apply(enemy(0))
    assert board(state, 1) == [] and state.hero(0)["health"] == 23 and state.hero(0)["mana"] == 4


def test_siphon_soul_heal_is_capped_at_maximum():
    """P0 hero 29/30 -> 30."""
    state = build(hands=(["Siphon Soul"], []), boards=([], ["Spider Tank"]), heroes=({"health": 29}, {}))
    do(state, PLAY + 0, enemy(0))
    assert state.hero(0)["health"] == 30


# ---- Sylvanas Windrunner ------------------------------------------------------------------------
def test_sylvanas_steals_a_random_enemy_minion_which_cannot_attack_that_turn():
    """Sylvanas dies -> chance node over the enemy minions (positions), 1/2 each.

    P1 | [Spider Tank 3/(2)] [Annoy-o-Tron]
    P0 | [Sylvanas 5/5] | hand: Siphon Soul -> Siphon Soul on Sylvanas; outcome 0: the Tank
       -> P0 | [Spider Tank 3/2] (cannot attack this turn);  P1 | [Annoy-o-Tron]
    """
    state = build(hands=(["Siphon Soul"], []),
                  boards=(["Sylvanas Windrunner"], [{"card": "Spider Tank", "health": 2}, "Annoy-o-Tron"]))
    do(state, PLAY + 0, own(0))
    out = outcomes(state)
    assert out == pytest.approx({0: 0.5, 1: 0.5})
    state.apply(0)
    assert state.current_player == 0
    assert stats(state, 0) == [(SPIDER_TANK, 3, 2)]
    assert board(state, 1) == [ANNOY_O_TRON]
    assert not state.minions(0)[0]["can_attack"]
    assert not any(ATTACK + 8 <= a < ATTACK + 16 for a in legal(state))
    end_turn(state)
    end_turn(state)
    assert state.minions(0)[0]["can_attack"]
    assert attack_at(0, 0) in legal(state)


def test_sylvanas_with_one_enemy_minion_resolves_without_a_chance_node():
    state = build(hands=(["Siphon Soul"], []), boards=(["Sylvanas Windrunner"], ["Spider Tank"]))
    do(state, PLAY + 0, own(0))
    assert state.current_player == 0
    assert board(state, 0) == [SPIDER_TANK] and board(state, 1) == []


def test_sylvanas_with_no_enemy_minion_does_nothing():
    state = build(hands=(["Siphon Soul"], []), boards=(["Sylvanas Windrunner"], []))
    do(state, PLAY + 0, own(0))
    assert state.current_player == 0
    assert board(state, 0) == [] and board(state, 1) == []


# ---- Dr. Boom -----------------------------------------------------------------------------------
def test_dr_boom_summons_a_boom_bot_on_each_side():
    """P0 | [Watcher] -> play Dr. Boom -> [Watcher] [Boom Bot 1/1] [Dr. Boom 7/7] [Boom Bot 1/1]."""
    state = build(hands=(["Dr. Boom"], []), boards=(["Ancient Watcher"], []))
    state.apply(PLAY + 0)
    assert state.phase == "main" and state.current_player == 0
    assert stats(state, 0) == [(ANCIENT_WATCHER, 4, 5), (BOOM_BOT, 1, 1), (DR_BOOM, 7, 7), (BOOM_BOT, 1, 1)]
    assert [bool(m["can_attack"]) for m in state.minions(0)][1:] == [False, False, False]
    assert state.hero(0)["mana"] == 3


def test_boom_bot_deathrattle_is_a_chance_node_over_enemy_characters_and_damage():
    """A dying Boom Bot: 1-4 damage to a random enemy character; outcome = char * 4 + damage - 1.

    P1 hero (char 8) | [Spider Tank 3/4] (char 9)
    P0 | [Boom Bot] | hand: Darkbomb -> Darkbomb own Boom Bot -> 8 outcomes, 1/8 each; 4 to the Tank.
    """
    state = build(hands=(["Darkbomb"], []), boards=(["Boom Bot"], ["Spider Tank"]))
    do(state, PLAY + 0, own(0))
    out = outcomes(state)
    assert set(out) == {8 * 4 + k for k in range(4)} | {9 * 4 + k for k in range(4)}
    assert all(p == pytest.approx(1 / 8) for p in out.values())
    state.apply(9 * 4 + 3)
    assert state.current_player == 0
    assert board(state, 0) == [] and board(state, 1) == [] and state.hero(1)["health"] == 30


# ---- Lord Jaraxxus ------------------------------------------------------------------------------
def test_lord_jaraxxus_replaces_the_hero_with_blood_fury_and_inferno():
    """Jaraxxus (cost 9-7 = 2 here): hero 15/15 from 12/30, Blood Fury 3/8, INFERNO!; no minion.

    Then INFERNO! (2 mana) summons a 6/6 Infernal Demon (cannot attack this turn), once per turn;
    the hero attacks with Blood Fury: enemy hero 30 -> 27, durability 8 -> 7.
    """
    state = build(hands=([{"card": "Lord Jaraxxus", "cost_delta": -7}], []), heroes=({"health": 12}, {}))
    state.apply(PLAY + 0)
    assert state.current_player == 0 and state.phase == "main"
    hero = state.hero(0)
    assert hero["jaraxxus"] and (hero["health"], hero["max_health"]) == (JARAXXUS_HEALTH, 15)
    assert (hero["weapon"], hero["attack"], hero["durability"]) == (BLOOD_FURY, 3, 8)
    assert hero["power"] == INFERNO and hero["mana"] == 8
    assert board(state, 0) == []
    assert HERO_POWER in legal(state)
    state.apply(HERO_POWER)
    assert stats(state, 0) == [(INFERNAL, 6, 6)]
    assert not state.minions(0)[0]["can_attack"]
    assert int(state.cards[INFERNAL, F_RACE]) == RACE_DEMON
    assert state.hero(0)["mana"] == 6 and state.hero(0)["power_used"]
    assert_illegal(state, HERO_POWER)
    state.apply(attack_at(None, None))
    assert state.hero(1)["health"] == 27 and state.hero(0)["durability"] == 7


def test_lord_jaraxxus_cannot_be_played_onto_a_full_board():
    """Jaraxxus is a minion card: with 7 minions he is not playable, like Ancient Watcher; with 6 he is.

    P0 | [Mana Wyrm] x 7 | hand: Lord Jaraxxus (cost 2), Ancient Watcher   -> neither is playable
    P0 | [Mana Wyrm] x 6 | hand: Lord Jaraxxus (cost 2)                    -> played: the hero is Jaraxxus
    """
    full = build(hands=([{"card": "Lord Jaraxxus", "cost_delta": -7}, "Ancient Watcher"], []),
                 boards=(["Mana Wyrm"] * 7, []))
    assert_illegal(full, play(full, LORD_JARAXXUS))
    assert_illegal(full, play(full, ANCIENT_WATCHER))
    six = build(hands=([{"card": "Lord Jaraxxus", "cost_delta": -7}], []), boards=(["Mana Wyrm"] * 6, []))
    assert play(six, LORD_JARAXXUS) in legal(six)
    six.apply(play(six, LORD_JARAXXUS))
    assert six.hero(0)["jaraxxus"] and len(board(six, 0)) == 6


def test_inferno_needs_a_free_board_slot():
    """P0 (Lord Jaraxxus, 10 mana) | [Mana Wyrm] x 7: INFERNO! (summon an Infernal) is not usable."""
    state = build(boards=(["Mana Wyrm"] * 7, []), heroes=({"jaraxxus": True}, {}))
    assert_illegal(state, HERO_POWER)


def test_blood_fury_and_infernal_tokens_have_their_printed_stats():
    assert (int(card_table()[BLOOD_FURY, F_ATK]), int(card_table()[BLOOD_FURY, F_HP])) == (3, 8)
    assert (int(card_table()[INFERNAL, F_ATK]), int(card_table()[INFERNAL, F_HP])) == (6, 6)
    assert int(card_table()[LORD_JARAXXUS, F_COST]) == 9


# ---- Mal'Ganis ----------------------------------------------------------------------------------
def test_malganis_buffs_other_friendly_demons_and_makes_the_hero_immune():
    """Mal'Ganis (cost 7 here): own Voidcallers +2/+2 (damaged one too), the enemy's not; hero Immune.

    P1 | [Voidcaller 3/4]
    P0 | [Voidcaller 3/4] [Voidcaller 3/(2)] | hand: Mal'Ganis, Darkbomb
       -> [V 5/6] [V 5/4] [Mal'Ganis 9/7]; Darkbomb on own hero: no damage
    """
    state = build(hands=([{"card": "Mal'Ganis", "cost_delta": -2}, "Darkbomb"], []),
                  boards=(["Voidcaller", {"card": "Voidcaller", "health": 2}], ["Voidcaller"]))
    state.apply(play(state, MAL_GANIS))
    assert stats(state, 0) == [(VOIDCALLER, 5, 6), (VOIDCALLER, 5, 4), (MAL_GANIS, 9, 7)]
    assert [m["max_health"] for m in state.minions(0)] == [6, 6, 7]
    assert stats(state, 1) == [(VOIDCALLER, 3, 4)]
    assert state.hero(0)["immune"] and not state.hero(1)["immune"]
    do(state, play(state, DARKBOMB), OWN_HERO)
    assert state.hero(0)["health"] == 30


def test_malganis_immune_hero_takes_no_hellfire_or_life_tap_damage():
    """P0 | [Mal'Ganis 9/7] -> Hellfire: own hero 30, enemy 27, Mal'Ganis 9/4; Life Tap: still 30."""
    state = build(hands=(["Hellfire"], []), boards=(["Mal'Ganis"], []), deck_cards=(["Darkbomb"] * 3, ["Mana Wyrm"]))
    state.apply(PLAY + 0)
    assert state.hero(0)["health"] == 30 and state.hero(1)["health"] == 27
    assert stats(state, 0) == [(MAL_GANIS, 9, 4)]
    state.apply(HERO_POWER)
    assert state.hero(0)["health"] == 30 and hand(state, 0) == [DARKBOMB]


def test_malganis_losing_the_aura_lowers_health_only_to_the_new_maximum():
    """Silence Mal'Ganis: Voidcaller 5/6 -> 3/4 (health 6 -> 4); Voidcaller 5/(4) -> 3/4 (stays 4).

    P0 | [V 3/4] [V 3/(2)] | hand: Mal'Ganis (cost 7), Ironbeak Owl
       -> Mal'Ganis: [V 5/6] [V 5/4] [M 9/7]; Owl on Mal'Ganis: [V 3/4] [V 3/4] [M 9/7] [Owl]; not Immune
    """
    state = build(hands=([{"card": "Mal'Ganis", "cost_delta": -2}, "Ironbeak Owl"], []),
                  boards=(["Voidcaller", {"card": "Voidcaller", "health": 2}], []))
    state.apply(play(state, MAL_GANIS))
    assert stats(state, 0)[:2] == [(VOIDCALLER, 5, 6), (VOIDCALLER, 5, 4)]
    do(state, PLAY + 0, own(2))
    assert stats(state, 0)[:3] == [(VOIDCALLER, 3, 4), (VOIDCALLER, 3, 4), (MAL_GANIS, 9, 7)]
    assert [m["max_health"] for m in state.minions(0)][:2] == [4, 4]
    assert not state.hero(0)["immune"]


def test_malganis_death_removes_the_aura():
    """Mal'Ganis destroyed (Siphon Soul): Voidcaller 5/6 -> 3/4, the hero is no longer Immune."""
    state = build(hands=(["Siphon Soul"], []), boards=(["Voidcaller", "Mal'Ganis"], []),
                  heroes=({"health": 20}, {}))
    do(state, PLAY + 0, own(1))
    assert stats(state, 0) == [(VOIDCALLER, 3, 4)]
    assert not state.hero(0)["immune"] and state.hero(0)["health"] == 23


# ---- Giants -------------------------------------------------------------------------------------
def test_mountain_giant_costs_1_less_per_other_card_in_hand():
    """Hand: Mountain Giant + 4 others -> 12 - 4 = 8; playable with 8 mana, not with 7."""
    cards = ["Mountain Giant", "Hellfire", "Darkbomb", "Mortal Coil", "Siphon Soul"]
    state = build(hands=(cards, []), heroes=({"mana": 7}, {}))
    assert costs(state, 0)[0] == 8
    assert_illegal(state, PLAY + 0)
    state = build(hands=(cards, []), heroes=({"mana": 8}, {}))
    state.apply(PLAY + 0)
    assert state.hero(0)["mana"] == 0 and stats(state, 0) == [(MOUNTAIN_GIANT, 8, 8)]


def test_mountain_giant_cost_follows_the_hand_size():
    """Hand of 10 (Giant + 9): cost 3; after a card is played (hand 9): cost 4."""
    cards = ["Mountain Giant"] + ["Mortal Coil"] * 2 + ["Darkbomb"] + ["Hellfire"] * 2 + ["Twilight Drake"] * 2 + \
        ["Ancient Watcher"] * 2
    state = build(hands=(cards, []), boards=([], ["Spider Tank"]))
    assert costs(state, 0)[0] == 3
    do(state, play(state, DARKBOMB), ENEMY_HERO)
    assert costs(state, 0)[slot(state, MOUNTAIN_GIANT)] == 4


def test_molten_giant_costs_1_less_per_damage_taken():
    """Hero 22/30: 8 damage taken -> 20 - 8 = 12."""
    state = build(hands=(["Molten Giant"], []), heroes=({"health": 22}, {}))
    assert costs(state, 0) == [12]


def test_molten_giant_counts_damage_from_jaraxxus_maximum_of_15():
    """Hero 20/30: Molten 10. Jaraxxus (cost 2 here) -> 15/15: Molten 20. Darkbomb own hero -> 12/15: 17."""
    state = build(hands=([{"card": "Lord Jaraxxus", "cost_delta": -7}, "Darkbomb", "Molten Giant"], []),
                  heroes=({"health": 20}, {}))
    assert costs(state, 0)[2] == 10
    state.apply(play(state, LORD_JARAXXUS))
    assert costs(state, 0)[slot(state, MOLTEN_GIANT)] == 20
    do(state, play(state, DARKBOMB), OWN_HERO)
    assert state.hero(0)["health"] == 12
    assert costs(state, 0)[slot(state, MOLTEN_GIANT)] == 17


# ---- printed data the tests rely on ----------------------------------------------------------------
def test_handlock_printed_costs():
    cards = card_table()
    expected = {MORTAL_COIL: 1, ANCIENT_WATCHER: 2, DARKBOMB: 2, SUNFURY_PROTECTOR: 2, DEFENDER_OF_ARGUS: 4,
                HELLFIRE: 4, SHADOWFLAME: 4, TWILIGHT_DRAKE: 4, VOIDCALLER: 4, ANTIQUE_HEALBOT: 5,
                BIG_GAME_HUNTER: 3, LOATHEB: 5, SLUDGE_BELCHER: 5, SIPHON_SOUL: 6, SYLVANAS_WINDRUNNER: 6,
                DR_BOOM: 7, LORD_JARAXXUS: 9, MAL_GANIS: 9, MOUNTAIN_GIANT: 12, MOLTEN_GIANT: 20}
    assert {c: int(cards[c, F_COST]) for c in expected} == expected

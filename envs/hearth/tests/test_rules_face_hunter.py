"""Face Hunter rules: one named test per card effect (README "Cards"), each from a hand-built position.

Every test builds its position with ``build_position`` and draws it in its docstring:

    p1  hero 30  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS]      the opponent's side on top
    p0  hero 30  [Knife Juggler 3/2]     hand: Wolfrider       the side to move (usually) below

``T`` taunt, ``DS`` divine shield, ``S`` stealth, ``*`` exhausted (summoned this turn). Minion positions are
left to right from 0. Actions use the layout constants in the acting player's frame: ``TARGET + t`` (0 own
hero, 1..7 own minions, 8 enemy hero, 9..15 enemy minions), ``ATTACK + 8a + d`` (a: 0 own hero, 1..7 own
minion; d: 0 enemy hero, 1..7 enemy minion). Random events stop at a chance node whose outcomes the test
checks and then picks: absolute character ids ``side * 8 + (0 hero | 1 + position)`` for random targets,
card ids for draws and Animal Companion, friendly positions for Glaivezooka.

Unless a test says otherwise each deck holds one known card, so a turn-start draw has one outcome and is
resolved without stopping.
"""
from __future__ import annotations

import pytest

from cardboard.envs.hearth.layout import (
    EAGLEHORN_BOW,
    EXPLOSIVE_TRAP,
    F_ATK,
    F_HP,
    F_KEYWORDS,
    F_RACE,
    GLAIVEZOOKA,
    HERO_POWER,
    HUFFER,
    KW_CHARGE,
    KW_TAUNT,
    LEOKK,
    LEPER_GNOME,
    MISHA,
    PLAY,
    RACE_BEAST,
    RACE_DRAGON,
    RACE_NONE,
    TARGET,
    WOLFRIDER,
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
from cardboard.envs.protocol import CHANCE, TERMINAL


# ---- Abusive Sergeant --------------------------------------------------------------------------------
def test_abusive_sergeant_gives_another_minion_two_attack_for_this_turn_only():
    """Battlecry: a minion +2 Attack this turn; the Sergeant cannot target itself.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Wolfrider 3/1]      hand: Abusive Sergeant (2/1)

    Targets: own Wolfrider (t=1) and the enemy Spider Tank (t=9), not the Sergeant (t=2), no hero.
    Wolfrider 3+2 = 5 hits the enemy hero: 30 - 5 = 25; at the end of the turn it is 3 again.
    """
    state = position(hands=(["Abusive Sergeant"], []), boards=(["Wolfrider"], ["Spider Tank"]))
    state.apply(PLAY + 0)
    assert state.phase == "target"
    assert targets(state) == {own(0), enemy(0)}
    state.apply(TARGET + own(0))
    assert state.phase == "main" and board(state, 0) == ["Wolfrider", "Abusive Sergeant"]
    assert stats(state, 0) == [(5, 1), (2, 1)], "the Sergeant does not buff itself"
    state.apply(attack(1, 0))
    assert hp(state, 1) == 25
    end_turn(state)
    assert stats(state, 0) == [(3, 1), (2, 1)], "the +2 lasts until the end of the turn"


def test_abusive_sergeant_on_an_enemy_minion_wears_off_before_its_owner_can_use_it():
    """Battlecry on an enemy: Spider Tank 3 -> 5 now, back to 3 when the opponent's turn starts.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []                   hand: Abusive Sergeant
    """
    state = position(hands=(["Abusive Sergeant"], []), boards=([], ["Spider Tank"]))
    play(state, "Abusive Sergeant", enemy(0))
    assert stats(state, 1) == [(5, 4)]
    end_turn(state)
    assert state.current_player == 1 and stats(state, 1) == [(3, 4)]


def test_abusive_sergeant_without_another_minion_is_played_without_a_target():
    """Optional battlecry: no other minion on the board, so no target decision and no buff.

        p1  hero 30  []
        p0  hero 30  []                   hand: Abusive Sergeant
    """
    state = position(hands=(["Abusive Sergeant"], []))
    state.apply(PLAY + 0)
    assert (state.phase, state.current_player) == ("main", 0)
    assert board(state, 0) == ["Abusive Sergeant"] and stats(state, 0) == [(2, 1)]
    assert state.hero(0)["mana"] == 9


# ---- Leper Gnome ---------------------------------------------------------------------------------------
def test_leper_gnome_deals_two_to_the_enemy_hero_when_it_dies_attacking():
    """Deathrattle: 2 damage to the enemy hero.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Leper Gnome 2/1]

    Gnome attacks the Tank: Tank 4-2 = 2, Gnome dies, enemy hero 30-2 = 28.
    """
    state = position(boards=(["Leper Gnome"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert board(state, 0) == [] and stats(state, 1) == [(3, 2)]
    assert hp(state, 1) == 28 and hp(state, 0) == 30


def test_leper_gnome_killed_on_the_opponents_turn_hits_the_opponent():
    """Deathrattle on the opponent's turn: its owner's enemy (the attacker's hero) takes 2.

        p1  hero 30  [Spider Tank 3/4]     (p1 to move)
        p0  hero 30  [Leper Gnome 2/1]
    """
    state = position(to_move=1, boards=(["Leper Gnome"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert board(state, 0) == [] and hp(state, 1) == 28 and hp(state, 0) == 30


# ---- Southsea Deckhand -------------------------------------------------------------------------------------
def test_southsea_deckhand_without_a_weapon_has_no_charge():
    """Charge only while a weapon is equipped: none here, so it cannot attack the turn it is played.

        p1  hero 30  []
        p0  hero 30  []        hand: Southsea Deckhand
    """
    state = position(hands=(["Southsea Deckhand"], []))
    play(state, "Southsea Deckhand")
    assert attack_targets(state, 1) == set()


def test_southsea_deckhand_with_a_weapon_charges():
    """With Eaglehorn Bow equipped the Deckhand attacks at once: 30 - 2 = 28.

        p1  hero 30  []
        p0  hero 30  Eaglehorn Bow 3/2   hand: Southsea Deckhand
    """
    state = position(hands=(["Southsea Deckhand"], []), heroes=({"weapon": "Eaglehorn Bow"}, {}))
    play(state, "Southsea Deckhand")
    assert attack_targets(state, 1) == {0}
    state.apply(attack(1, 0))
    assert hp(state, 1) == 28


def test_southsea_deckhand_gains_charge_when_a_weapon_arrives():
    """Aura recomputed after every event: Deckhand played first, then Glaivezooka equips a weapon.

        p1  hero 30  []
        p0  hero 30  []        hand: Southsea Deckhand, Glaivezooka

    Glaivezooka's +1 Attack has one friendly minion to go to (no chance node): Deckhand 3/1, charging.
    """
    state = position(hands=(["Southsea Deckhand", "Glaivezooka"], []))
    play(state, "Southsea Deckhand")
    assert attack_targets(state, 1) == set()
    play(state, "Glaivezooka")
    assert state.current_player == 0 and stats(state, 0) == [(3, 1)]
    assert attack_targets(state, 1) == {0}
    state.apply(attack(1, 0))
    assert hp(state, 1) == 27


def test_southsea_deckhand_loses_charge_when_the_weapon_breaks():
    """The bow (durability 1) breaks when the hero attacks; the fresh Deckhand can no longer attack.

        p1  hero 30  []
        p0  hero 30  Eaglehorn Bow 3/1   hand: Southsea Deckhand
    """
    state = position(hands=(["Southsea Deckhand"], []), heroes=({"weapon": "Eaglehorn Bow", "durability": 1}, {}))
    play(state, "Southsea Deckhand")
    assert attack_targets(state, 1) == {0}
    state.apply(attack(0, 0))
    assert hp(state, 1) == 27 and state.hero(0)["weapon"] == -1
    assert attack_targets(state, 1) == set()


# ---- Worgen Infiltrator ----------------------------------------------------------------------------------
def test_worgen_infiltrator_cannot_be_attacked_or_targeted_by_the_enemy():
    """Stealth: the enemy's minions, spells and battlecries cannot pick it.

        p1  hero 30  [Wolfrider 3/1]     hand: Quick Shot, Ironbeak Owl   (p1 to move)
        p0  hero 30  [Worgen Infiltrator 2/1 S]
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1, hands=([], ["Quick Shot", "Ironbeak Owl"]),
                     boards=(["Worgen Infiltrator"], ["Wolfrider"]), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    assert state.minions(0)[0]["stealth"]
    assert attack_targets(state, 1) == {0}, "only the hero can be attacked"
    shot = state.clone()
    play(shot, "Quick Shot")
    assert targets(shot) == {OWN_HERO, own(0), ENEMY_HERO}
    play(state, "Ironbeak Owl")
    assert targets(state) == {own(0)}, "the Owl may only silence its own Wolfrider"


def test_worgen_infiltrator_loses_stealth_when_it_attacks():
    """Stealth ends when the minion attacks; on the next turn the enemy may attack it.

        p1  hero 30  [Wolfrider 3/1]
        p0  hero 30  [Worgen Infiltrator 2/1 S]
    """
    state = position(decks=("face_hunter", "face_hunter"), boards=(["Worgen Infiltrator"], ["Wolfrider"]),
                     deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(attack(1, 0))
    assert hp(state, 1) == 28 and not state.minions(0)[0]["stealth"]
    end_turn(state)
    assert attack_targets(state, 1) == {0, 1}


# ---- Explosive Trap -------------------------------------------------------------------------------------------
def test_explosive_trap_is_played_as_a_secret_and_only_one_can_be_active():
    """Playing it: 2 mana, the trap is up; with a trap already up a second copy is not playable.

        p0  hero 30  mana 10     hand: Explosive Trap, Explosive Trap
    """
    state = position(hands=(["Explosive Trap", "Explosive Trap"], []))
    assert not state.hero(0)["trap"]
    state.apply(PLAY + 0)
    assert state.hero(0)["trap"] and state.hero(0)["mana"] == 8
    assert hand_names(state, 0) == ["Explosive Trap"]
    assert PLAY + 0 not in legal(state)


def test_explosive_trap_fires_when_a_minion_attacks_the_hero_before_the_hit():
    """Attack on the trapped hero: 2 damage to all enemies first, then the surviving attacker hits.

        p1  hero 30  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS, Mana Wyrm 1/3]   (p1 to move)
        p0  hero 30  trap up, Eaglehorn Bow 3/1  []

    Spider Tank attacks p0's hero: p1 hero 28, Tank 3/2, Annoy-o-Tron loses its shield (2), Wyrm 1/1;
    Tank hits: 30 - 3 = 27. Eaglehorn Bow: +1 durability (1 -> 2) as the secret is revealed; trap gone.
    """
    state = position(to_move=1, boards=([], ["Spider Tank", "Annoy-o-Tron", "Mana Wyrm"]),
                     heroes=({"trap": True, "weapon": "Eaglehorn Bow", "durability": 1}, {}))
    state.apply(attack(1, 0))
    assert hp(state, 1) == 28 and hp(state, 0) == 27
    assert stats(state, 1) == [(3, 2), (1, 2), (1, 1)]
    assert not state.minions(1)[1]["divine_shield"]
    assert not state.hero(0)["trap"]
    assert state.hero(0)["durability"] == 2


def test_explosive_trap_kills_the_attacker_before_it_hits():
    """An attacker killed by the trap deals no damage.

        p1  hero 30  [Cogmaster 1/2]    (p1 to move)
        p0  hero 30  trap up
    """
    state = position(to_move=1, boards=([], ["Cogmaster"]), heroes=({"trap": True}, {}))
    state.apply(attack(1, 0))
    assert board(state, 1) == [] and hp(state, 0) == 30 and hp(state, 1) == 28
    assert not state.hero(0)["trap"]


def test_explosive_trap_fires_when_the_enemy_hero_attacks():
    """A hero attacking with a weapon also springs it: the attacking hero takes 2, then hits for 3.

        p1  hero 30  Eaglehorn Bow 3/2   (p1 to move)
        p0  hero 30  trap up
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1,
                     heroes=({"trap": True}, {"weapon": "Eaglehorn Bow"}), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(attack(0, 0))
    assert hp(state, 1) == 28 and hp(state, 0) == 27
    assert state.hero(1)["durability"] == 1 and not state.hero(0)["trap"]


def test_explosive_trap_killing_the_attacking_hero_ends_the_game_without_the_hit():
    """The trap kills the attacking hero (2 health): no hit, the trap's owner wins.

        p1  hero 2  Eaglehorn Bow 3/2   (p1 to move)
        p0  hero 3  trap up
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1,
                     heroes=({"trap": True, "health": 3}, {"weapon": "Eaglehorn Bow", "health": 2}),
                     deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(attack(0, 0))
    assert hp(state, 0) == 3
    assert state.current_player == TERMINAL and list(state.returns()) == [1.0, -1.0]


def test_explosive_trap_ignores_attacks_on_minions_spells_and_hero_powers():
    """Only an attack on the hero springs it.

        p1  hero 30  [Spider Tank 3/4]    hand: Fireball   (p1 to move, Mage: Fireblast)
        p0  hero 30  trap up  [Misha 4/4 T]
    """
    state = position(to_move=1, hands=([], ["Fireball"]), boards=(["Misha"], ["Spider Tank"]),
                     heroes=({"trap": True}, {}))
    state.apply(attack(1, 1))
    play(state, "Fireball", ENEMY_HERO)
    state.apply(HERO_POWER)
    state.apply(TARGET + ENEMY_HERO)
    assert board(state, 1) == [] and stats(state, 0) == [(4, 1)], "Tank 4 - 4 = 0 dies, Misha 4 - 3 = 1"
    assert hp(state, 0) == 30 - 6 - 1 and hp(state, 1) == 30 and state.hero(1)["mana"] == 10 - 4 - 2
    assert state.hero(0)["trap"]


def test_explosive_trap_pops_a_divine_shield_and_the_attacker_still_hits():
    """Annoy-o-Tron's shield absorbs the trap's 2: it survives at 1/2 and hits for 1.

        p1  hero 30  [Annoy-o-Tron 1/2 T DS]    (p1 to move)
        p0  hero 30  trap up
    """
    state = position(to_move=1, boards=([], ["Annoy-o-Tron"]), heroes=({"trap": True}, {}))
    state.apply(attack(1, 0))
    assert stats(state, 1) == [(1, 2)] and not state.minions(1)[0]["divine_shield"]
    assert hp(state, 0) == 29 and hp(state, 1) == 28


def test_explosive_trap_killing_a_leper_gnome_still_runs_its_deathrattle():
    """The trap kills the attacking Leper Gnome: no hit, but its deathrattle deals 2 to the trap's owner.

        p1  hero 30  [Leper Gnome 2/1]    (p1 to move)
        p0  hero 30  trap up
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1, boards=([], ["Leper Gnome"]),
                     heroes=({"trap": True}, {}), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    state.apply(attack(1, 0))
    assert board(state, 1) == [] and hp(state, 0) == 28 and hp(state, 1) == 28


def test_explosive_trap_kills_an_aura_source_before_the_attacker_hits():
    """The minions the trap kills die before the combat damage: Leokk's aura is gone when Misha hits.

        p1  hero 30  [Leokk 2/(2), Misha 5/4 T (4/4 + Leokk)]    (p1 to move)
        p0  hero 30  trap up

    Misha attacks p0's hero: the trap kills Leokk and leaves Misha 4/2, which hits for 4: 30 - 4 = 26.
    """
    state = position(to_move=1, boards=([], [{"card": "Leokk", "health": 2}, "Misha"]), heroes=({"trap": True}, {}))
    assert stats(state, 1) == [(2, 2), (5, 4)]
    state.apply(attack(2, 0))
    assert board(state, 1) == ["Misha"] and stats(state, 1) == [(4, 2)]
    assert hp(state, 0) == 26 and hp(state, 1) == 28


def test_explosive_trap_deathrattles_resolve_before_the_attacker_hits():
    """The death step comes before the combat damage: the Boom Bot the trap kills throws its bomb (a chance
    node) while the attack has not hit yet; the Spider Tank hits after it.

        p1  hero 30  [Boom Bot 1/1, Spider Tank 3/4]    (p1 to move)
        p0  hero 30  trap up

    Trap: Boom Bot dies, Tank 3/2, p1 28; Boom Bot: 1-4 damage to p0's hero, its only character (outcome 3:
    4 damage): 30 - 4 = 26; then the Tank hits: 26 - 3 = 23.
    """
    state = position(to_move=1, boards=([], ["Boom Bot", "Spider Tank"]), heroes=({"trap": True}, {}))
    state.apply(attack(2, 0))
    assert state.current_player == CHANCE and hp(state, 0) == 30 and board(state, 1) == ["Spider Tank"]
    assert outcomes(state) == pytest.approx({d: 0.25 for d in range(4)})
    state.apply(3)
    assert hp(state, 0) == 23 and hp(state, 1) == 28 and stats(state, 1) == [(3, 2)]


# ---- Glaivezooka -------------------------------------------------------------------------------------------------
def test_glaivezooka_buffs_a_random_friendly_minion_through_a_chance_node():
    """2/2 weapon; Battlecry: +1 Attack to a random friendly minion (outcome: its position).

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Leper Gnome 2/1, Wolfrider 3/1]     hand: Glaivezooka
    """
    state = position(hands=(["Glaivezooka"], []), boards=(["Leper Gnome", "Wolfrider"], ["Spider Tank"]))
    play(state, "Glaivezooka")
    assert state.current_player == CHANCE
    assert outcomes(state) == pytest.approx({0: 0.5, 1: 0.5})
    state.apply(1)
    assert state.current_player == 0
    assert stats(state, 0) == [(2, 1), (4, 1)] and stats(state, 1) == [(3, 4)]
    h = state.hero(0)
    assert (h["weapon"], h["attack"], h["durability"], h["mana"]) == (GLAIVEZOOKA, 2, 2, 8)
    end_turn(state)
    assert stats(state, 0) == [(2, 1), (4, 1)], "the +1 Attack is permanent"


def test_glaivezooka_without_a_friendly_minion_has_no_chance_node():
    """No friendly minion: the weapon is equipped and nothing is random (enemy minions never count).

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []        hand: Glaivezooka
    """
    state = position(hands=(["Glaivezooka"], []), boards=([], ["Spider Tank"]))
    play(state, "Glaivezooka")
    assert state.current_player == 0 and state.phase == "main"
    assert state.hero(0)["weapon"] == GLAIVEZOOKA and stats(state, 1) == [(3, 4)]
    state.apply(attack(0, 0))
    assert hp(state, 1) == 28 and state.hero(0)["durability"] == 1


# ---- Haunted Creeper ----------------------------------------------------------------------------------------------
def test_haunted_creeper_leaves_two_spectral_spiders_in_its_place():
    """Deathrattle: two 1/1 Spectral Spiders where the Creeper was; they cannot attack this turn.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Wolfrider 3/1, Haunted Creeper 1/2, Leper Gnome 2/1]

    Creeper attacks the Tank: Tank 4-1 = 3, Creeper dies -> [Wolfrider, Spider, Spider, Leper Gnome].
    """
    state = position(boards=(["Wolfrider", "Haunted Creeper", "Leper Gnome"], ["Spider Tank"]))
    state.apply(attack(2, 1))
    assert board(state, 0) == ["Wolfrider", "Spectral Spider", "Spectral Spider", "Leper Gnome"]
    assert stats(state, 0) == [(3, 1), (1, 1), (1, 1), (2, 1)] and stats(state, 1) == [(3, 3)]
    assert attack_targets(state, 2) == attack_targets(state, 3) == set()
    assert attack_targets(state, 1) == {0, 1}


# ---- Knife Juggler ---------------------------------------------------------------------------------------------------
def test_knife_juggler_throws_at_a_random_enemy_after_a_friendly_summon():
    """After you summon a minion: 1 damage to a random enemy character (enemy hero 8, minion 0 -> 9).

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Knife Juggler 3/2]     hand: Wolfrider
    """
    state = position(hands=(["Wolfrider"], []), boards=(["Knife Juggler"], ["Spider Tank"]))
    play(state, "Wolfrider")
    assert state.current_player == CHANCE
    assert outcomes(state) == pytest.approx({8: 0.5, 9: 0.5})
    hero_hit = state.clone()
    hero_hit.apply(8)
    assert hp(hero_hit, 1) == 29 and stats(hero_hit, 1) == [(3, 4)] and hero_hit.current_player == 0
    state.apply(9)
    assert state.current_player == 0 and hp(state, 1) == 30 and stats(state, 1) == [(3, 3)]


def test_knife_juggler_with_one_enemy_character_resolves_without_a_chance_node():
    """One living enemy character (the hero): the node has one outcome and does not stop.

        p1  hero 30  []
        p0  hero 30  [Knife Juggler 3/2]     hand: Leper Gnome
    """
    state = position(hands=(["Leper Gnome"], []), boards=(["Knife Juggler"], []))
    play(state, "Leper Gnome")
    assert state.current_player == 0 and hp(state, 1) == 29


def test_knife_juggler_does_not_trigger_on_its_own_summon():
    """Knife Juggler's own summon does not throw a knife.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []      hand: Knife Juggler
    """
    state = position(hands=(["Knife Juggler"], []), boards=([], ["Spider Tank"]))
    play(state, "Knife Juggler")
    assert state.current_player == 0 and hp(state, 1) == 30 and stats(state, 1) == [(3, 4)]


def test_knife_juggler_throws_after_the_battlecry_so_leeroys_whelps_are_targets():
    """Decision 5: the battlecry (two Whelps for the opponent) resolves before the juggler's knife.

        p1  hero 30  []
        p0  hero 30  [Knife Juggler 3/2]     hand: Leeroy Jenkins

    Knife outcomes: enemy hero 8, Whelp 9, Whelp 10, each 1/3.
    """
    state = position(hands=(["Leeroy Jenkins"], []), boards=(["Knife Juggler"], []))
    play(state, "Leeroy Jenkins")
    assert state.current_player == CHANCE
    assert outcomes(state) == pytest.approx({8: 1 / 3, 9: 1 / 3, 10: 1 / 3})
    state.apply(10)
    assert board(state, 1) == ["Whelp"], "the hit Whelp died when the action finished"


def test_knife_juggler_skips_characters_already_at_zero_health():
    """Unleash the Hounds summons two Hounds: two knives; the second avoids the Whelp the first killed.

        p1  hero 30  [Whelp 1/1, Whelp 1/1]
        p0  hero 30  [Knife Juggler 3/2]     hand: Unleash the Hounds
    """
    state = position(hands=(["Unleash the Hounds"], []), boards=(["Knife Juggler"], ["Whelp", "Whelp"]))
    play(state, "Unleash the Hounds")
    assert outcomes(state) == pytest.approx({8: 1 / 3, 9: 1 / 3, 10: 1 / 3})
    state.apply(9)
    assert outcomes(state) == pytest.approx({8: 0.5, 10: 0.5})
    state.apply(10)
    assert state.current_player == 0
    assert board(state, 1) == [] and board(state, 0) == ["Knife Juggler", "Hound", "Hound"]
    assert hp(state, 1) == 30


def test_knife_juggler_outcomes_are_absolute_character_ids_for_player_1():
    """Player 1's juggler aims at player 0's side: hero 0, minion 0 -> 1.

        p1  hero 30  [Knife Juggler 3/2]    hand: Leper Gnome   (p1 to move)
        p0  hero 30  [Wolfrider 3/1]
    """
    state = position(decks=("face_hunter", "face_hunter"), to_move=1, hands=([], ["Leper Gnome"]),
                     boards=(["Wolfrider"], ["Knife Juggler"]), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    play(state, "Leper Gnome")
    assert outcomes(state) == pytest.approx({0: 0.5, 1: 0.5})
    state.apply(0)
    assert hp(state, 0) == 29 and state.current_player == 1


def test_knife_juggler_throws_once_per_spider_when_a_creeper_dies():
    """Deathrattle summons are friendly summons: two Spiders, two knives (the Tank is alive at 3).

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Knife Juggler 3/2, Haunted Creeper 1/2]
    """
    state = position(boards=(["Knife Juggler", "Haunted Creeper"], ["Spider Tank"]))
    state.apply(attack(2, 1))
    assert outcomes(state) == pytest.approx({8: 0.5, 9: 0.5})
    state.apply(9)
    assert outcomes(state) == pytest.approx({8: 0.5, 9: 0.5})
    state.apply(8)
    assert state.current_player == 0 and stats(state, 1) == [(3, 2)] and hp(state, 1) == 29
    assert board(state, 0) == ["Knife Juggler", "Spectral Spider", "Spectral Spider"]


def test_an_opponents_knife_juggler_throws_for_leeroys_whelps():
    """The Whelps are summoned on the opponent's side: a friendly summon for the opponent's juggler.

        p1  hero 30  [Knife Juggler 3/2]
        p0  hero 30  []    hand: Leeroy Jenkins

    Two knives at p0's characters: hero 0, Leeroy 1 (absolute ids).
    """
    state = position(decks=("face_hunter", "face_hunter"), hands=(["Leeroy Jenkins"], []),
                     boards=([], ["Knife Juggler"]), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    play(state, "Leeroy Jenkins")
    assert outcomes(state) == pytest.approx({0: 0.5, 1: 0.5})
    state.apply(1)
    assert outcomes(state) == pytest.approx({0: 0.5, 1: 0.5})
    state.apply(0)
    assert state.current_player == 0 and stats(state, 0) == [(6, 1)] and hp(state, 0) == 29
    assert board(state, 1) == ["Knife Juggler", "Whelp", "Whelp"]


# ---- Mad Scientist ------------------------------------------------------------------------------------------------
def test_mad_scientist_puts_an_explosive_trap_from_the_deck_into_play():
    """Deathrattle: a Secret from the deck into play; the deck loses that copy.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Mad Scientist 2/2]     deck: Explosive Trap x2, Wolfrider
    """
    state = position(boards=(["Mad Scientist"], ["Spider Tank"]),
                     deck_cards=(["Explosive Trap", "Explosive Trap", "Wolfrider"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert board(state, 0) == [] and state.current_player == 0
    assert state.hero(0)["trap"]
    assert state.deck_counts(0)[EXPLOSIVE_TRAP] == 1 and state.hero(0)["deck_size"] == 2
    assert state.hero(0)["hand_size"] == 0, "put into play, not drawn"


def test_mad_scientist_does_nothing_when_a_trap_is_already_up():
    """A second Explosive Trap cannot be active: the deck keeps both copies.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  trap up  [Mad Scientist 2/2]     deck: Explosive Trap x2, Wolfrider
    """
    state = position(boards=(["Mad Scientist"], ["Spider Tank"]), heroes=({"trap": True}, {}),
                     deck_cards=(["Explosive Trap", "Explosive Trap", "Wolfrider"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert state.hero(0)["trap"]
    assert state.deck_counts(0)[EXPLOSIVE_TRAP] == 2 and state.hero(0)["deck_size"] == 3


def test_mad_scientist_with_no_trap_in_the_deck_does_nothing():
    """No Secret left in the deck: nothing happens.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Mad Scientist 2/2]     deck: Wolfrider
    """
    state = position(boards=(["Mad Scientist"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert not state.hero(0)["trap"] and state.hero(0)["deck_size"] == 1
    assert state.deck_counts(0)[WOLFRIDER] == 1


# ---- Quick Shot ------------------------------------------------------------------------------------------------------
def test_quick_shot_draws_when_it_empties_the_hand():
    """3 damage; then the hand is empty, so draw (a chance node over the deck).

        p1  hero 30  []
        p0  hero 30  []    hand: Quick Shot     deck: Wolfrider, Leper Gnome
    """
    state = position(hands=(["Quick Shot"], []), deck_cards=(["Wolfrider", "Leper Gnome"], ["Spider Tank"]))
    play(state, "Quick Shot", ENEMY_HERO)
    assert hp(state, 1) == 27 and state.hero(0)["mana"] == 8
    assert outcomes(state) == pytest.approx({WOLFRIDER: 0.5, LEPER_GNOME: 0.5})
    state.apply(WOLFRIDER)
    assert state.current_player == 0 and hand_names(state, 0) == ["Wolfrider"]
    assert state.deck_counts(0)[WOLFRIDER] == 0 and state.hero(0)["deck_size"] == 1


def test_quick_shot_does_not_draw_while_other_cards_remain():
    """Another card in hand: no draw.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []    hand: Quick Shot, Leper Gnome     deck: Wolfrider, Leper Gnome
    """
    state = position(hands=(["Quick Shot", "Leper Gnome"], []), boards=([], ["Spider Tank"]),
                     deck_cards=(["Wolfrider", "Leper Gnome"], ["Spider Tank"]))
    play(state, "Quick Shot", enemy(0))
    assert state.current_player == 0 and stats(state, 1) == [(3, 1)]
    assert hand_names(state, 0) == ["Leper Gnome"] and state.hero(0)["deck_size"] == 2


def test_quick_shot_emptying_the_hand_with_an_empty_deck_takes_fatigue():
    """The draw from an empty deck is fatigue (1).

        p0  hero 30  []    hand: Quick Shot     deck: empty
    """
    state = position(hands=(["Quick Shot"], []), deck_cards=([], ["Spider Tank"]))
    play(state, "Quick Shot", ENEMY_HERO)
    assert state.current_player == 0 and hp(state, 1) == 27
    assert (hp(state, 0), state.hero(0)["fatigue"]) == (29, 1)


# ---- Animal Companion ----------------------------------------------------------------------------------------------
def test_animal_companion_is_a_chance_node_over_huffer_leokk_and_misha():
    """A random one of the three beasts, 1/3 each (outcome: the card id).

        p0  hero 30  []    hand: Animal Companion
    """
    state = position(hands=(["Animal Companion"], []))
    play(state, "Animal Companion")
    assert state.hero(0)["mana"] == 7
    assert outcomes(state) == pytest.approx({HUFFER: 1 / 3, LEOKK: 1 / 3, MISHA: 1 / 3})
    assert state.pending_op() is not None


def test_animal_companion_huffer_has_charge():
    """Huffer 4/2 Charge attacks the turn it arrives: 30 - 4 = 26.

        p1  hero 30  []
        p0  hero 30  []    hand: Animal Companion  -> Huffer
    """
    state = position(hands=(["Animal Companion"], []))
    play(state, "Animal Companion")
    state.apply(HUFFER)
    assert board(state, 0) == ["Huffer"] and stats(state, 0) == [(4, 2)]
    assert attack_targets(state, 1) == {0}
    state.apply(attack(1, 0))
    assert hp(state, 1) == 26


def test_animal_companion_leokk_gives_other_friendly_minions_one_attack():
    """Leokk 2/4: your other minions +1 Attack (not Leokk, not the enemy's); gone when Leokk dies.

        p1  hero 30  [Spider Tank 3/4]      hand: Fireball (later)
        p0  hero 30  [Wolfrider 3/1]        hand: Animal Companion  -> Leokk
    """
    state = position(hands=(["Animal Companion"], ["Fireball"]), boards=(["Wolfrider"], ["Spider Tank"]))
    play(state, "Animal Companion")
    state.apply(LEOKK)
    assert board(state, 0) == ["Wolfrider", "Leokk"]
    assert stats(state, 0) == [(4, 1), (2, 4)] and stats(state, 1) == [(3, 4)]
    assert attack_targets(state, 2) == set(), "Leokk has no charge"
    end_turn(state)
    play(state, "Fireball", enemy(1))
    assert board(state, 0) == ["Wolfrider"] and stats(state, 0) == [(3, 1)]


def test_animal_companion_misha_is_a_taunt():
    """Misha 4/4 Taunt: no charge; on the next turn the enemy must attack Misha.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Wolfrider 3/1]   hand: Animal Companion  -> Misha
    """
    state = position(hands=(["Animal Companion"], []), boards=(["Wolfrider"], ["Spider Tank"]))
    play(state, "Animal Companion")
    state.apply(MISHA)
    m = state.minions(0)[1]
    assert (m["name"], m["attack"], m["health"], m["taunt"]) == ("Misha", 4, 4, True)
    assert attack_targets(state, 2) == set()
    end_turn(state)
    assert attack_targets(state, 1) == {2}


# ---- Arcane Golem --------------------------------------------------------------------------------------------------
def test_arcane_golem_charges_and_gives_the_opponent_a_mana_crystal():
    """Charge; Battlecry: the opponent gains a full mana crystal (decision 9).

        p1  hero 30  mana 2/3
        p0  hero 30  []    hand: Arcane Golem

    p1: max 3 -> 4 and mana 2 -> 3 now; at its turn start max 5, mana 5.
    """
    state = position(hands=(["Arcane Golem"], []), heroes=({}, {"mana": 2, "max_mana": 3}))
    play(state, "Arcane Golem")
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (4, 3)
    assert attack_targets(state, 1) == {0}
    state.apply(attack(1, 0))
    assert hp(state, 1) == 26
    end_turn(state)
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (5, 5)


def test_arcane_golem_mana_crystal_is_capped_at_ten():
    """Opponent already at 10 mana crystals: stays 10.

        p1  hero 30  mana 10/10
        p0  hero 30  []    hand: Arcane Golem
    """
    state = position(hands=(["Arcane Golem"], []))
    play(state, "Arcane Golem")
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (10, 10)
    end_turn(state)
    assert (state.hero(1)["max_mana"], state.hero(1)["mana"]) == (10, 10)


# ---- Eaglehorn Bow ---------------------------------------------------------------------------------------------------
def test_eaglehorn_bow_is_a_three_two_weapon():
    """3/2 weapon: the hero attacks for 3 and the bow loses 1 durability; one attack a turn.

        p1  hero 30  []
        p0  hero 30  []     hand: Eaglehorn Bow
    """
    state = position(hands=(["Eaglehorn Bow"], []))
    play(state, "Eaglehorn Bow")
    h = state.hero(0)
    assert (h["weapon"], h["attack"], h["durability"], h["mana"]) == (EAGLEHORN_BOW, 3, 2, 7)
    state.apply(attack(0, 0))
    assert hp(state, 1) == 27 and state.hero(0)["durability"] == 1
    assert attack_targets(state, 0) == set()


def test_eaglehorn_bow_gains_durability_when_mad_scientists_trap_later_fires():
    """+1 durability when a friendly secret is revealed (the trap fires), not when it is put into play.

        p1  hero 30  [Spider Tank 3/4]     (p1 attacks after p0's turn)
        p0  hero 30  Eaglehorn Bow 3/1  [Mad Scientist 2/2]   deck: Explosive Trap
    """
    state = position(boards=(["Mad Scientist"], ["Spider Tank"]),
                     heroes=({"weapon": "Eaglehorn Bow", "durability": 1}, {}),
                     deck_cards=(["Explosive Trap"], ["Spider Tank"]))
    state.apply(attack(1, 1))
    assert state.hero(0)["trap"] and state.hero(0)["durability"] == 1
    end_turn(state)
    assert stats(state, 1) == [(3, 2)]
    state.apply(attack(1, 0))
    assert board(state, 1) == [] and hp(state, 0) == 30 and hp(state, 1) == 28
    assert state.hero(0)["durability"] == 2


# ---- Ironbeak Owl ----------------------------------------------------------------------------------------------------
def test_ironbeak_owl_silences_taunt_and_divine_shield():
    """Battlecry: Silence a minion (any minion but itself). Annoy-o-Tron loses Taunt and Divine Shield.

        p1  hero 30  [Annoy-o-Tron 1/2 T DS, Spider Tank 3/4]
        p0  hero 30  [Wolfrider 3/1]    hand: Ironbeak Owl
    """
    state = position(hands=(["Ironbeak Owl"], []), boards=(["Wolfrider"], ["Annoy-o-Tron", "Spider Tank"]))
    assert attack_targets(state, 1) == {1}
    state.apply(PLAY + 0)
    assert targets(state) == {own(0), enemy(0), enemy(1)}
    state.apply(TARGET + enemy(0))
    m = state.minions(1)[0]
    assert (m["silenced"], m["taunt"], m["divine_shield"], m["health"]) == (True, False, False, 2)
    assert attack_targets(state, 1) == {0, 1, 2}
    state.apply(attack(1, 1))
    assert board(state, 1) == ["Spider Tank"], "no shield left: 3 damage kills it"


def test_ironbeak_owl_silence_removes_a_deathrattle():
    """A silenced Leper Gnome dies without its 2 damage.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Leper Gnome 2/1]    hand: Ironbeak Owl
    """
    state = position(hands=(["Ironbeak Owl"], []), boards=(["Leper Gnome"], ["Spider Tank"]))
    play(state, "Ironbeak Owl", own(0))
    assert state.minions(0)[0]["silenced"]
    state.apply(attack(1, 1))
    assert board(state, 0) == ["Ironbeak Owl"] and hp(state, 1) == 30


def test_ironbeak_owl_silence_removes_an_aura():
    """Silencing Leokk removes its +1 Attack aura from Wolfrider.

        p1  hero 30  []
        p0  hero 30  [Wolfrider 3/1 (+1), Leokk 2/4]    hand: Ironbeak Owl
    """
    state = position(hands=(["Ironbeak Owl"], []), boards=(["Wolfrider", "Leokk"], []))
    assert stats(state, 0) == [(4, 1), (2, 4)]
    play(state, "Ironbeak Owl", own(1))
    assert stats(state, 0) == [(3, 1), (2, 4), (2, 1)]


def test_ironbeak_owl_silence_keeps_damage():
    """Silence keeps damage: a Spider Tank at 2/4 health stays at 2.

        p1  hero 30  [Spider Tank 3/2 (max 4)]
        p0  hero 30  []    hand: Ironbeak Owl
    """
    state = position(hands=(["Ironbeak Owl"], []), boards=([], [{"card": "Spider Tank", "health": 2}]))
    play(state, "Ironbeak Owl", enemy(0))
    m = state.minions(1)[0]
    assert (m["attack"], m["health"], m["max_health"], m["silenced"]) == (3, 2, 4, True)


# ---- Kill Command ----------------------------------------------------------------------------------------------------
def test_kill_command_deals_three_without_a_beast():
    """3 damage; the enemy's Beast (Misha) does not count.

        p1  hero 30  [Misha 4/4 T]
        p0  hero 30  [Wolfrider 3/1]     hand: Kill Command
    """
    state = position(decks=("face_hunter", "face_hunter"), hands=(["Kill Command"], []),
                     boards=(["Wolfrider"], ["Misha"]), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    play(state, "Kill Command", ENEMY_HERO)
    assert hp(state, 1) == 27 and state.hero(0)["mana"] == 7


def test_kill_command_deals_five_with_a_friendly_beast():
    """5 damage while you have a Beast (Haunted Creeper).

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  [Haunted Creeper 1/2 Beast]     hand: Kill Command, Kill Command
    """
    state = position(hands=(["Kill Command", "Kill Command"], []), boards=(["Haunted Creeper"], ["Spider Tank"]))
    play(state, "Kill Command", ENEMY_HERO)
    assert hp(state, 1) == 25
    play(state, "Kill Command", enemy(0))
    assert board(state, 1) == []


# ---- Unleash the Hounds ----------------------------------------------------------------------------------------------
def test_unleash_the_hounds_summons_a_charging_hound_per_enemy_minion():
    """One 1/1 Charge Hound for each enemy minion; they may attack at once.

        p1  hero 30  [Spider Tank 3/4, Annoy-o-Tron 1/2 T DS, Mana Wyrm 1/3]
        p0  hero 30  []    hand: Unleash the Hounds
    """
    state = position(hands=(["Unleash the Hounds"], []), boards=([], ["Spider Tank", "Annoy-o-Tron", "Mana Wyrm"]))
    play(state, "Unleash the Hounds")
    assert state.current_player == 0 and state.hero(0)["mana"] == 7
    assert board(state, 0) == ["Hound"] * 3 and stats(state, 0) == [(1, 1)] * 3
    for a in (1, 2, 3):
        assert attack_targets(state, a) == {2}, "charge, but Annoy-o-Tron's taunt"


def test_unleash_the_hounds_stops_at_the_board_limit():
    """Five friendly minions and three enemy minions: only two Hounds fit (7).

        p1  hero 30  [Spider Tank, Spider Tank, Mana Wyrm]
        p0  hero 30  [Wolfrider x5]     hand: Unleash the Hounds
    """
    state = position(hands=(["Unleash the Hounds"], []),
                     boards=(["Wolfrider"] * 5, ["Spider Tank", "Spider Tank", "Mana Wyrm"]))
    play(state, "Unleash the Hounds")
    assert board(state, 0) == ["Wolfrider"] * 5 + ["Hound"] * 2


def test_unleash_the_hounds_is_not_playable_without_an_enemy_minion():
    """Needs an enemy minion.

        p1  hero 30  []
        p0  hero 30  [Wolfrider 3/1]     hand: Unleash the Hounds
    """
    state = position(hands=(["Unleash the Hounds"], []), boards=(["Wolfrider"], []))
    assert PLAY + 0 not in legal(state)


def test_unleash_the_hounds_counts_stealthed_enemy_minions():
    """Every enemy minion counts, a stealthed Worgen Infiltrator included.

        p1  hero 30  [Worgen Infiltrator 2/1 S]
        p0  hero 30  []    hand: Unleash the Hounds
    """
    state = position(decks=("face_hunter", "face_hunter"), hands=(["Unleash the Hounds"], []),
                     boards=([], ["Worgen Infiltrator"]), deck_cards=(["Wolfrider"], ["Wolfrider"]))
    assert PLAY + 0 in legal(state)
    play(state, "Unleash the Hounds")
    assert board(state, 0) == ["Hound"]
    assert attack_targets(state, 1) == {0}, "the Hound cannot attack the stealthed Worgen"


# ---- Wolfrider -------------------------------------------------------------------------------------------------------
def test_wolfrider_charges():
    """3/1 Charge: attacks the turn it is played, 30 - 3 = 27.

        p0  hero 30  []    hand: Wolfrider
    """
    state = position(hands=(["Wolfrider"], []))
    play(state, "Wolfrider")
    assert stats(state, 0) == [(3, 1)] and state.hero(0)["mana"] == 7
    state.apply(attack(1, 0))
    assert hp(state, 1) == 27


# ---- Leeroy Jenkins --------------------------------------------------------------------------------------------------
def test_leeroy_jenkins_charges_and_gives_the_opponent_two_whelps():
    """6/2 Charge, 5 mana; Battlecry: two 1/1 Whelps for the opponent.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []    hand: Leeroy Jenkins
    """
    state = position(hands=(["Leeroy Jenkins"], []), boards=([], ["Spider Tank"]))
    play(state, "Leeroy Jenkins")
    assert state.hero(0)["mana"] == 5
    assert board(state, 1) == ["Spider Tank", "Whelp", "Whelp"] and stats(state, 1)[1:] == [(1, 1), (1, 1)]
    assert board(state, 0) == ["Leeroy Jenkins"] and stats(state, 0) == [(6, 2)]
    state.apply(attack(1, 0))
    assert hp(state, 1) == 24


def test_leeroy_jenkins_whelps_respect_the_opponents_board_limit():
    """The opponent has 6 minions: one Whelp fits.

        p1  hero 30  [Mana Wyrm x6]
        p0  hero 30  []    hand: Leeroy Jenkins
    """
    state = position(hands=(["Leeroy Jenkins"], []), boards=([], ["Mana Wyrm"] * 6))
    play(state, "Leeroy Jenkins")
    assert board(state, 1) == ["Mana Wyrm"] * 6 + ["Whelp"]


# ---- Steady Shot -----------------------------------------------------------------------------------------------------
def test_steady_shot_hits_the_enemy_hero_without_a_target_decision():
    """Hero power: 2 damage to the enemy hero, 2 mana, no target phase (decision 11); once a turn.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  mana 10
    """
    state = position(boards=([], ["Spider Tank"]))
    assert state.hero(0)["power"] == state.game.names.index("Steady Shot")
    state.apply(HERO_POWER)
    assert (state.phase, state.current_player) == ("main", 0)
    assert hp(state, 1) == 28 and stats(state, 1) == [(3, 4)]
    assert state.hero(0)["mana"] == 8 and state.hero(0)["power_used"]
    assert HERO_POWER not in legal(state)


def test_steady_shot_needs_two_mana():
    """One mana left: the hero power is not legal.

        p0  hero 30  mana 1/10
    """
    state = position(heroes=({"mana": 1}, {}))
    assert HERO_POWER not in legal(state)


# ---- tokens ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,attack_,health,race,charge,taunt", [
    ("Huffer", 4, 2, RACE_BEAST, True, False),
    ("Leokk", 2, 4, RACE_BEAST, False, False),
    ("Misha", 4, 4, RACE_BEAST, False, True),
    ("Hound", 1, 1, RACE_BEAST, True, False),
    ("Whelp", 1, 1, RACE_DRAGON, False, False),
    ("Spectral Spider", 1, 1, RACE_NONE, False, False),
])
def test_face_hunter_tokens_have_their_printed_statistics(name, attack_, health, race, charge, taunt):
    """Tokens: statistics and keywords in the card table, and on the board.

        p0  hero 30  [<token>]
    """
    state = position()
    c = state.game.names.index(name)
    row = state.cards[c]
    assert (int(row[F_ATK]), int(row[F_HP]), int(row[F_RACE])) == (attack_, health, race)
    assert bool(row[F_KEYWORDS] & KW_CHARGE) == charge and bool(row[F_KEYWORDS] & KW_TAUNT) == taunt
    state = position(boards=([name], []))
    m = state.minions(0)[0]
    assert (m["card"], m["attack"], m["health"], m["taunt"]) == (c, attack_, health, taunt)


def test_kill_command_counts_a_hound_as_a_beast():
    """A Hound from Unleash the Hounds is a Beast: Kill Command then deals 5.

        p1  hero 30  [Spider Tank 3/4]
        p0  hero 30  []    hand: Unleash the Hounds, Kill Command
    """
    state = position(hands=(["Unleash the Hounds", "Kill Command"], []), boards=([], ["Spider Tank"]))
    play(state, "Unleash the Hounds")
    play(state, "Kill Command", ENEMY_HERO)
    assert hp(state, 1) == 25


"""Mech Mage rules: one or more named tests per card, token, generated card and hero power of the deck.

Every test builds its position with ``positions.build_position`` and draws it in
its docstring, player 1 (the opponent) on top, player 0 (to move unless said
otherwise) below:

    P1  hero 30   [Spider Tank 3/4]              deck: Tinkertown Technician x4
    P0  hero 30   [Mana Wyrm 1/3, Cogmaster 1/2]  hand: Frostbolt   mana 10

``A/H`` is attack / current health; ``(ds)`` Divine Shield, ``(t)`` Taunt,
``(st)`` Stealth, ``(fz)`` Frozen. Numbers come from ``brm_cards.json`` (mid-2015)
and the effects from ``envs/hearth/README.md`` ("Cards", "Rules", "Decisions").

Decks are set to one kind of card (or to nothing) where a turn passes, so the
turn-start draw is a one-outcome chance node, resolved without stopping
(README "Chance"). Chance nodes of the cards themselves are checked explicitly:
the state is at ``CHANCE``, the pending op and its outcomes with their
probabilities are asserted, a chosen outcome is applied and its result checked.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from cardboard.envs.hearth.layout import (
    ARMOR_PLATING,
    ATTACK,
    BOOM_BOT,
    DAMAGED_GOLEM,
    EMERGENCY_COOLANT,
    F_ATK,
    F_COST,
    F_HP,
    F_RACE,
    F_TYPE,
    FINICKY_CLOAKFIELD,
    FIREBALL,
    FROSTBOLT,
    HERO_POWER,
    MAX_OUTCOMES,
    OP_BOOM_BOT,
    OP_DRAW,
    OP_RANDOM_DAMAGE,
    OP_SPARE_PART,
    ORIGIN_KNOWN,
    ORIGIN_SPARE_PART,
    PLAY,
    RACE_MECH,
    REVERSING_SWITCH,
    RUSTY_HORN,
    SPARE_PARTS,
    SPIDER_TANK,
    TARGET,
    TIME_REWINDER,
    TYPE_MINION,
    TYPE_SPELL,
    WHIRLING_BLADES,
)
from cardboard.envs.hearth.positions import (
    ENEMY_HERO,
    OWN_HERO,
    assert_illegal,
    attack_at,
    build_position,
    end_turn,
    enemy,
    hand_names,
    hp,
    legal,
    own,
    play,
    slot,
    targets,
)
from cardboard.envs.protocol import CHANCE

# ---- helpers: name things the way the rules do (the shared ones are in ``positions``) -------------------
HERO = None  # the hero as attacker or defender in attack_at() and char()
FILLER = "Tinkertown Technician"  # a non-Mech minion: the only card of a "quiet" deck


def target(t: int) -> int:
    return TARGET + t


def char(side: int, pos: int | None = HERO) -> int:
    """Absolute character id of a random-target outcome: side * 8 + (0 hero | 1 + minion position)."""
    return side * 8 + (0 if pos is HERO else 1 + pos)


def boom(side: int, pos: int | None, damage: int) -> int:
    """Boom Bot outcome id: character * 4 + damage - 1."""
    return char(side, pos) * 4 + damage - 1


def build(hands=((), ()), boards=((), ()), heroes=({}, {}), deck_cards=([FILLER] * 4, [FILLER] * 4), **kw):
    """build_position with quiet decks (a one-kind deck: every draw is a one-outcome node) by default."""
    return build_position(decks=("mech_mage", "mech_mage"), hands=hands, boards=boards, heroes=heroes,
                          deck_cards=deck_cards, **kw)


def cost(state, p: int, name: str) -> int:
    """Effective cost of the first copy of ``name`` in player p's hand."""
    return int(state.hand_costs(p)[hand_names(state, p).index(name)])


def power(state, t: int):
    """Hero power (Fireblast) at TARGET ``t``."""
    state.apply(HERO_POWER)
    state.apply(target(t))
    return state


def outcomes(state) -> dict[int, Fraction]:
    assert state.current_player == CHANCE
    out = {}
    for o, p in state.chance_outcomes():
        out[int(o)] = Fraction(p).limit_denominator(1000)
    assert sum(out.values()) == 1
    return out


def resolve(state, outcome: int):
    assert state.current_player == CHANCE
    assert outcome in outcomes(state)
    state.apply(outcome)
    return state


def board(state, p: int) -> list[tuple[str, int, int]]:
    """Player p's minions left to right as (name, attack, health)."""
    return [(m["name"], m["attack"], m["health"]) for m in state.minions(p)]


def minion(state, p: int, pos: int) -> dict:
    return state.minions(p)[pos]


def attacks(state) -> set[int]:
    return {a for a in legal(state) if ATTACK <= a < ATTACK + 64}


def mana(state, p: int) -> int:
    return state.hero(p)["mana"]


# ---- card data the tests rely on ------------------------------------------------------------------
def test_mech_mage_card_statistics_and_races():
    """The printed numbers used below (brm_cards.json, mid-2015), and which cards are Mechs."""
    cards = build().cards
    names = build().game.names
    stats = {names[c]: tuple(int(x) for x in cards[c, [F_COST, F_ATK, F_HP]]) for c in range(len(names))}
    assert stats["Clockwork Gnome"] == (1, 2, 1)
    assert stats["Cogmaster"] == (1, 1, 2)
    assert stats["Mana Wyrm"] == (1, 1, 3)
    assert stats["Annoy-o-Tron"] == (2, 1, 2)
    assert stats["Mechwarper"] == (2, 2, 3)
    assert stats["Snowchugger"] == (2, 2, 3)
    assert stats["Harvest Golem"] == (3, 2, 3)
    assert stats["Spider Tank"] == (3, 3, 4)
    assert stats["Tinkertown Technician"] == (3, 3, 3)
    assert stats["Goblin Blastmage"] == (4, 5, 4)
    assert stats["Mechanical Yeti"] == (4, 4, 5)
    assert stats["Loatheb"] == (5, 5, 5)
    assert stats["Archmage Antonidas"] == (7, 5, 7)
    assert stats["Dr. Boom"] == (7, 7, 7)
    assert stats["Boom Bot"] == (1, 1, 1)
    assert stats["Damaged Golem"] == (1, 2, 1)
    for spell, c in (("Frostbolt", 2), ("Arcane Intellect", 3), ("Fireball", 4), ("Flamestrike", 7)):
        assert stats[spell][0] == c
    for part in SPARE_PARTS:
        assert cards[part, F_COST] == 1 and cards[part, F_TYPE] == TYPE_SPELL
    mechs = {names[c] for c in range(len(names)) if cards[c, F_TYPE] == TYPE_MINION and cards[c, F_RACE] == RACE_MECH}
    mage_mechs = {"Clockwork Gnome", "Annoy-o-Tron", "Mechwarper", "Snowchugger", "Harvest Golem", "Spider Tank",
                  "Mechanical Yeti", "Boom Bot", "Damaged Golem"}
    assert mage_mechs <= mechs
    assert not ({"Cogmaster", "Mana Wyrm", "Tinkertown Technician", "Goblin Blastmage", "Loatheb",
                 "Archmage Antonidas", "Dr. Boom"} & mechs)


# ---- paper 001 §2.1.3: the worked turn -----------------------------------------------------------
def test_worked_turn_of_paper_001():
    """001 §2.1.3 (notes §1.2): [CP(Fireball), TS(Fireball, M4), TS(M1, M3), CP(Mechwarper), TS(M2, hero), ET].

        P1  hero 24   [M3 2/2, M4 3/5]
        P0  hero 30   [M1 4/5, M2 5/4]   hand: Fireball, Mechwarper   mana 6

    Fireball (4) kills M4 (5 HP); M1 hits M3: M1 takes 2 (5 -> 3), M3 takes 4 and dies; Mechwarper (2) is
    played to the right end; M2 hits the hero 24 -> 19 and takes nothing; 6 mana used.
    """
    state = build(hands=(["Fireball", "Mechwarper"], []),
                  boards=([{"card": "Spider Tank", "attack": 4, "health": 5, "max_health": 5},
                           {"card": "Spider Tank", "attack": 5, "health": 4}],
                          [{"card": "Spider Tank", "attack": 2, "health": 2, "max_health": 2},
                           {"card": "Spider Tank", "attack": 3, "health": 5, "max_health": 5}]),
                  heroes=({"mana": 6, "max_mana": 6}, {"health": 24}))
    play(state, "Fireball", enemy(1))
    assert board(state, 1) == [("Spider Tank", 2, 2)]
    assert mana(state, 0) == 2
    state.apply(attack_at(0, 0))
    assert board(state, 1) == []
    assert board(state, 0) == [("Spider Tank", 4, 3), ("Spider Tank", 5, 4)]
    play(state, "Mechwarper")
    assert board(state, 0) == [("Spider Tank", 4, 3), ("Spider Tank", 5, 4), ("Mechwarper", 2, 3)]
    assert mana(state, 0) == 0
    state.apply(attack_at(1, HERO))
    assert hp(state, 1) == 19
    assert board(state, 0) == [("Spider Tank", 4, 3), ("Spider Tank", 5, 4), ("Mechwarper", 2, 3)]
    assert hand_names(state, 0) == []
    assert attacks(state) == set(), "M1 and M2 have attacked, Mechwarper was just summoned"
    turn = state.turn
    end_turn(state)
    assert state.current_player == 1 and state.turn == turn + 1


# ---- Fireblast (hero power) ---------------------------------------------------------------------
def test_fireblast_deals_one_damage_to_any_character_for_two_mana_once_a_turn():
    """Fireblast: 1 damage to any character (Decision 11), 2 mana, once a turn.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Mana Wyrm 1/3]   mana 5
    """
    state = build(boards=(["Mana Wyrm"], ["Spider Tank"]), heroes=({"mana": 5}, {}))
    assert HERO_POWER in legal(state)
    state.apply(HERO_POWER)
    assert state.phase == "target"
    assert targets(state) == {OWN_HERO, own(0), ENEMY_HERO, enemy(0)}
    state.apply(target(enemy(0)))
    assert board(state, 1) == [("Spider Tank", 3, 3)]
    assert mana(state, 0) == 3
    assert state.hero(0)["power_used"]
    assert HERO_POWER not in legal(state), "once a turn"
    assert_illegal(state, HERO_POWER)
    assert board(state, 0) == [("Mana Wyrm", 1, 3)], "a hero power is not a spell: no Mana Wyrm trigger"


def test_fireblast_hits_heroes_and_kills_a_one_health_minion():
    """Fireblast on the enemy hero (30 -> 29); on a 1-health minion (dies); on our own hero (30 -> 29).

        P1  hero 30   [Spider Tank 3/1]
        P0  hero 30   mana 10
    """
    state = build(boards=([], [{"card": "Spider Tank", "health": 1}]))
    power(state, ENEMY_HERO)
    assert hp(state, 1) == 29
    state = build(boards=([], [{"card": "Spider Tank", "health": 1}]))
    power(state, enemy(0))
    assert board(state, 1) == []
    state = build()
    power(state, OWN_HERO)
    assert hp(state, 0) == 29


def test_fireblast_needs_two_mana_and_cannot_target_an_enemy_stealth_minion():
    """1 mana: no hero power. With 2: the stealthed enemy minion is not a target.

        P1  hero 30   [Spider Tank 3/4 (st), Spider Tank 3/4]
        P0  hero 30   mana 1 / 2
    """
    boards = ([], [{"card": "Spider Tank", "stealth": True}, "Spider Tank"])
    state = build(boards=boards, heroes=({"mana": 1}, {}))
    assert_illegal(state, HERO_POWER)
    state = build(boards=boards, heroes=({"mana": 2}, {}))
    state.apply(HERO_POWER)
    assert targets(state) == {OWN_HERO, ENEMY_HERO, enemy(1)}
    assert_illegal(state, target(enemy(0)))


def test_fireblast_is_refreshed_next_turn():
    """power_used resets: the opponent (also Mech Mage) can use Fireblast on its turn after ours.

        P1  hero 30               deck: Tinkertown x4
        P0  hero 30   mana 10     (uses Fireblast, ends the turn)
    """
    state = build()
    power(state, ENEMY_HERO)
    end_turn(state)
    assert state.current_player == 1
    assert HERO_POWER in legal(state)
    power(state, ENEMY_HERO)
    assert hp(state, 0) == 29
    end_turn(state)
    assert not state.hero(0)["power_used"] and HERO_POWER in legal(state)


# ---- legality ----------------------------------------------------------------------------------
def test_a_card_costing_more_than_the_mana_is_not_legal():
    """Fireball costs 4: with 3 mana it is not in legal_actions and applying it raises, state unchanged.

        P0  hand: Fireball, Frostbolt   mana 3 / 4
    """
    state = build(hands=(["Fireball", "Frostbolt"], []), heroes=({"mana": 3}, {}))
    assert PLAY + 0 not in legal(state) and PLAY + 1 in legal(state)
    assert_illegal(state, PLAY + 0)
    state = build(hands=(["Fireball", "Frostbolt"], []), heroes=({"mana": 4}, {}))
    assert {PLAY + 0, PLAY + 1} <= legal(state)


def test_illegal_attacks_raise_and_leave_the_state_unchanged():
    """An exhausted minion cannot attack; a frozen one cannot either; a Taunt must be attacked first.

        P1  hero 30   [Spider Tank 3/4, Annoy-o-Tron 1/2 (t)(ds)]
        P0  hero 30   [Spider Tank 3/4 exhausted, Mana Wyrm 1/3 (fz), Snowchugger 2/3]
    """
    state = build(boards=([{"card": "Spider Tank", "exhausted": True}, {"card": "Mana Wyrm", "frozen": True},
                           "Snowchugger"], ["Spider Tank", "Annoy-o-Tron"]))
    assert attacks(state) == {attack_at(2, 1)}, "only Snowchugger can attack, and only the Taunt"
    for a in (attack_at(0, 1), attack_at(1, 1), attack_at(2, HERO), attack_at(2, 0), attack_at(2, 5)):
        assert_illegal(state, a)
    assert_illegal(state, PLAY + 0)  # empty hand
    assert_illegal(state, target(ENEMY_HERO))  # no target phase


def test_frostbolt_and_fireball_cannot_target_an_enemy_stealth_minion():
    """Stealth minions cannot be targeted by the enemy; one's own stealthed minion can be.

        P1  hero 30   [Spider Tank 3/4 (st), Spider Tank 3/4]
        P0  hero 30   [Mana Wyrm 1/3 (st)]   hand: Frostbolt, Fireball
    """
    boards = ([{"card": "Mana Wyrm", "stealth": True}], [{"card": "Spider Tank", "stealth": True}, "Spider Tank"])
    for spell in ("Frostbolt", "Fireball"):
        state = build(hands=(["Frostbolt", "Fireball"], []), boards=boards)
        state.apply(PLAY + slot(state, spell))
        assert state.phase == "target"
        assert targets(state) == {OWN_HERO, own(0), ENEMY_HERO, enemy(1)}
        assert_illegal(state, target(enemy(0)))
    state = build(boards=boards)
    assert attack_at(0, 0) not in attacks(state) and attack_at(0, 1) in attacks(state)


# ---- Clockwork Gnome ---------------------------------------------------------------------------
def test_clockwork_gnome_deathrattle_gives_its_owner_a_random_spare_part():
    """Deathrattle: a random Spare Part (7 outcomes at 1/7) to the Gnome owner's hand, origin spare_part.

        P1  hero 30
        P0  hero 30   [Clockwork Gnome 2/1]   hand: Fireball   mana 10
    """
    state = build(hands=(["Fireball"], []), boards=(["Clockwork Gnome"], []))
    power(state, own(0))
    assert board(state, 0) == []
    assert state.current_player == CHANCE
    op, player, _, _ = state.pending_op()
    assert (op, player) == (OP_SPARE_PART, 0)
    assert outcomes(state) == {part: Fraction(1, 7) for part in SPARE_PARTS}
    resolve(state, RUSTY_HORN)
    assert state.current_player == 0
    assert hand_names(state, 0) == ["Fireball", "Rusty Horn"]
    assert list(state.hand_origin(0))[1] == ORIGIN_SPARE_PART
    assert cost(state, 0, "Rusty Horn") == 1


def test_clockwork_gnome_of_the_enemy_gives_the_part_to_the_enemy():
    """The enemy's Gnome killed on our turn: its owner (player 1) gets the Spare Part.

        P1  hero 30   [Clockwork Gnome 2/1]
        P0  hero 30   mana 10
    """
    state = build(hands=([], []), boards=([], ["Clockwork Gnome"]))
    n1 = state.hero(1)["hand_size"]
    power(state, enemy(0))
    assert state.pending_op()[:2] == (OP_SPARE_PART, 1)
    resolve(state, ARMOR_PLATING)
    assert hand_names(state, 0) == []
    assert hand_names(state, 1)[-1] == "Armor Plating" and state.hero(1)["hand_size"] == n1 + 1
    assert list(state.hand_origin(1))[-1] == ORIGIN_SPARE_PART


# ---- Cogmaster -----------------------------------------------------------------------------------
def test_cogmaster_has_plus_two_attack_only_while_you_have_a_mech():
    """Cogmaster 1/2 (+2 Attack while you have a Mech). An enemy Mech does not count.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Cogmaster 1/2]   hand: Spider Tank, Fireball   mana 10
    Play Spider Tank -> Cogmaster 3/2; Fireball our own tank -> back to 1/2.
    """
    state = build(hands=(["Spider Tank", "Fireball"], []), boards=(["Cogmaster"], ["Spider Tank"]))
    assert board(state, 0) == [("Cogmaster", 1, 2)]
    play(state, "Spider Tank")
    assert board(state, 0) == [("Cogmaster", 3, 2), ("Spider Tank", 3, 4)]
    play(state, "Fireball", own(1))
    assert board(state, 0) == [("Cogmaster", 1, 2)]


def test_cogmaster_attacks_with_its_aura_attack():
    """Cogmaster with a Mech hits for 3: enemy 3/5 -> 3/2, Cogmaster takes 3 and dies.

        P1  hero 30   [Spider Tank 3/5]
        P0  hero 30   [Cogmaster 1/2 (+2), Annoy-o-Tron 1/2]
    """
    state = build(boards=(["Cogmaster", "Annoy-o-Tron"], [{"card": "Spider Tank", "health": 5, "max_health": 5}]))
    assert minion(state, 0, 0)["attack"] == 3
    state.apply(attack_at(0, 0))
    assert board(state, 1) == [("Spider Tank", 3, 2)]
    assert board(state, 0) == [("Annoy-o-Tron", 1, 2)]


def test_cogmaster_loses_the_bonus_when_its_only_mech_dies_in_combat():
    """Our Spider Tank 3/4 attacks a 4/4: the Tank dies; Cogmaster 3/2 -> 1/2 once deaths resolve.

        P1  hero 30   [Spider Tank 4/4]
        P0  hero 30   [Cogmaster 1/2 (+2), Spider Tank 3/4]
    """
    state = build(boards=(["Cogmaster", "Spider Tank"], [{"card": "Spider Tank", "attack": 4}]))
    assert minion(state, 0, 0)["attack"] == 3
    state.apply(attack_at(1, 0))
    assert board(state, 0) == [("Cogmaster", 1, 2)]
    assert board(state, 1) == [("Spider Tank", 4, 1)]


def test_cogmaster_keeps_the_bonus_when_harvest_golem_leaves_a_damaged_golem():
    """Harvest Golem (Mech) dies; its Damaged Golem (a Mech) takes its place: Cogmaster stays 3/2.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Cogmaster 1/2 (+2), Harvest Golem 2/3]
    """
    state = build(boards=(["Cogmaster", "Harvest Golem"], ["Spider Tank"]))
    state.apply(attack_at(1, 0))
    assert board(state, 0) == [("Cogmaster", 3, 2), ("Damaged Golem", 2, 1)]


# ---- Mana Wyrm -----------------------------------------------------------------------------------
def test_mana_wyrm_gains_one_attack_per_spell_cast_including_the_coin():
    """+1 Attack whenever you cast a spell: The Coin, Frostbolt and Fireball -> 1/3 becomes 4/3.

        P1  hero 30
        P0  hero 30   [Mana Wyrm 1/3]   hand: The Coin, Frostbolt, Fireball   mana 5
    The Coin: +1 mana this turn (5 -> 6); Frostbolt 2 and Fireball 4 then spend all 6.
    """
    state = build(hands=([{"card": "The Coin", "origin": "known"}, "Frostbolt", "Fireball"], []),
                  boards=(["Mana Wyrm"], []), heroes=({"mana": 5, "max_mana": 5}, {}))
    play(state, "The Coin")
    assert mana(state, 0) == 6
    assert board(state, 0) == [("Mana Wyrm", 2, 3)]
    play(state, "Frostbolt", ENEMY_HERO)
    assert board(state, 0) == [("Mana Wyrm", 3, 3)]
    play(state, "Fireball", ENEMY_HERO)
    assert board(state, 0) == [("Mana Wyrm", 4, 3)]
    assert mana(state, 0) == 0 and hp(state, 1) == 30 - 3 - 6
    end_turn(state)
    end_turn(state)
    assert board(state, 0) == [("Mana Wyrm", 4, 3)], "the gain is permanent"


def test_the_coin_mana_is_capped_at_ten():
    """Decision 10: The Coin's extra mana is capped at 10.

        P0  hero 30   hand: The Coin   mana 10
    """
    state = build(hands=(["The Coin"], []))
    play(state, "The Coin")
    assert mana(state, 0) == 10 and hand_names(state, 0) == []


def test_mana_wyrm_trigger_comes_before_the_spell_resolves():
    """Decision 5 + 7: Reversing Switch on the Wyrm itself: the cast trigger first (1/3 -> 2/3), then the swap
    (Attack = current Health 3, Health = current Attack 2) -> 3/2.

        P0  hero 30   [Mana Wyrm 1/3]   hand: Reversing Switch
    """
    state = build(hands=(["Reversing Switch"], []), boards=(["Mana Wyrm"], []))
    play(state, "Reversing Switch", own(0))
    assert board(state, 0) == [("Mana Wyrm", 3, 2)]
    assert minion(state, 0, 0)["max_health"] == 2


def test_mana_wyrm_ignores_the_opponents_spells():
    """Only *your* spells count: the opponent's Frostbolt on our hero does not grow our Wyrm.

        P1  hero 30   hand: Frostbolt           (to move)
        P0  hero 30   [Mana Wyrm 1/3]
    """
    state = build(to_move=1, hands=([], ["Frostbolt"]), boards=(["Mana Wyrm"], []))
    play(state, "Frostbolt", ENEMY_HERO)
    assert hp(state, 0) == 27 and state.hero(0)["frozen"]
    assert board(state, 0) == [("Mana Wyrm", 1, 3)]


# ---- Annoy-o-Tron --------------------------------------------------------------------------------
def test_annoy_o_tron_taunt_forces_attacks_and_divine_shield_absorbs_the_first_hit():
    """Taunt: only the Annoy-o-Tron can be attacked. Divine Shield: the first hit deals nothing (shield
    lost), the attacker still takes 1; the second hit kills it.

        P1  hero 30   [Spider Tank 3/4, Annoy-o-Tron 1/2 (t)(ds)]
        P0  hero 30   [Spider Tank 3/4, Mechwarper 2/3]
    """
    state = build(boards=(["Spider Tank", "Mechwarper"], ["Spider Tank", "Annoy-o-Tron"]))
    assert attacks(state) == {attack_at(0, 1), attack_at(1, 1)}
    state.apply(attack_at(0, 1))
    assert board(state, 1) == [("Spider Tank", 3, 4), ("Annoy-o-Tron", 1, 2)]
    assert not minion(state, 1, 1)["divine_shield"] and minion(state, 1, 1)["taunt"]
    assert board(state, 0)[0] == ("Spider Tank", 3, 3)
    assert attacks(state) == {attack_at(1, 1)}
    state.apply(attack_at(1, 1))
    assert board(state, 1) == [("Spider Tank", 3, 4)]
    assert board(state, 0) == [("Spider Tank", 3, 3), ("Mechwarper", 2, 2)]


def test_annoy_o_tron_divine_shield_absorbs_a_spell():
    """Fireball (6) on the shielded Annoy-o-Tron only removes the shield.

        P1  hero 30   [Annoy-o-Tron 1/2 (t)(ds)]
        P0  hero 30   hand: Fireball, Frostbolt
    """
    state = build(hands=(["Fireball", "Frostbolt"], []), boards=([], ["Annoy-o-Tron"]))
    play(state, "Fireball", enemy(0))
    assert board(state, 1) == [("Annoy-o-Tron", 1, 2)] and not minion(state, 1, 0)["divine_shield"]
    play(state, "Frostbolt", enemy(0))
    assert board(state, 1) == []


# ---- Frostbolt and freezing ------------------------------------------------------------------------
def test_frostbolt_deals_three_and_freezes_a_minion_for_its_owners_next_turn():
    """Frostbolt (2 mana): 3 damage + Freeze. Frozen on P0's turn, the P1 minion cannot attack on P1's turn,
    and thaws at the end of that turn (it missed exactly one attack).

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   hand: Frostbolt   mana 10
    """
    state = build(hands=(["Frostbolt"], []), boards=([], ["Spider Tank"]))
    play(state, "Frostbolt", enemy(0))
    assert board(state, 1) == [("Spider Tank", 3, 1)]
    assert minion(state, 1, 0)["frozen"] and mana(state, 0) == 8
    end_turn(state)
    assert state.current_player == 1
    assert minion(state, 1, 0)["frozen"]
    assert attacks(state) == set()
    assert_illegal(state, attack_at(0, HERO))
    end_turn(state)
    assert not minion(state, 1, 0)["frozen"], "thawed at the end of its owner's turn"
    end_turn(state)
    assert attacks(state) == {attack_at(0, HERO)}


def test_frostbolt_on_the_enemy_hero():
    """3 damage and the hero is frozen (30 -> 27); it thaws at the end of its owner's turn.

        P1  hero 30
        P0  hero 30   hand: Frostbolt
    """
    state = build(hands=(["Frostbolt"], []))
    play(state, "Frostbolt", ENEMY_HERO)
    assert hp(state, 1) == 27 and state.hero(1)["frozen"]
    end_turn(state)
    assert state.hero(1)["frozen"]
    end_turn(state)
    assert not state.hero(1)["frozen"]


def test_frostbolt_kills_a_three_health_minion():
    """3 damage on a 2/3 Snowchugger: dies.

        P1  hero 30   [Snowchugger 2/3]
        P0  hero 30   hand: Frostbolt
    """
    state = build(hands=(["Frostbolt"], []), boards=([], ["Snowchugger"]))
    play(state, "Frostbolt", enemy(0))
    assert board(state, 1) == []


# ---- Mechwarper ------------------------------------------------------------------------------------
def test_mechwarper_discounts_mechs_in_hand_only():
    """Mechwarper: your Mechs in hand cost 1 less (not spells, not non-Mech minions, not the enemy's hand).

        P1  hero 30   hand: Spider Tank
        P0  hero 30   [Mechwarper 2/3]   hand: Spider Tank, Cogmaster, Fireball, Harvest Golem, Annoy-o-Tron
    """
    hand0 = ["Spider Tank", "Cogmaster", "Fireball", "Harvest Golem", "Annoy-o-Tron"]
    state = build(hands=(hand0, ["Spider Tank"]), boards=(["Mechwarper"], []))
    assert list(state.hand_costs(0)) == [2, 1, 4, 2, 1]
    assert cost(state, 1, "Spider Tank") == 3
    play(state, "Spider Tank")
    assert mana(state, 0) == 8, "the discounted cost is what is paid"


def test_two_mechwarpers_stack_and_costs_stop_at_zero():
    """Two Mechwarpers: -2 per Mech, never below 0 (Clockwork Gnome 1 -> 0; Mechwarper 2 -> 0).

        P0  hero 30   [Mechwarper, Mechwarper]   hand: Clockwork Gnome, Spider Tank, Mechwarper, Cogmaster
                      mana 0
    A 0-cost Gnome is playable with 0 mana.
    """
    state = build(hands=(["Clockwork Gnome", "Spider Tank", "Mechwarper", "Cogmaster"], []),
                  boards=(["Mechwarper", "Mechwarper"], []), heroes=({"mana": 0}, {}))
    assert list(state.hand_costs(0)) == [0, 1, 0, 1]
    assert legal(state) & {PLAY + i for i in range(4)} == {PLAY + 0, PLAY + 2}
    play(state, "Clockwork Gnome")
    assert mana(state, 0) == 0 and board(state, 0)[-1] == ("Clockwork Gnome", 2, 1)


def test_mechwarper_discount_disappears_when_it_dies():
    """Fireball kills one Mechwarper: the discount drops from 2 to 1; Frostbolt the other: none left.

        P0  hero 30   [Mechwarper, Mechwarper]   hand: Spider Tank, Fireball, Frostbolt, Fireball
    """
    state = build(hands=(["Spider Tank", "Fireball", "Frostbolt", "Fireball"], []),
                  boards=(["Mechwarper", "Mechwarper"], []))
    assert cost(state, 0, "Spider Tank") == 1
    play(state, "Fireball", own(0))
    assert board(state, 0) == [("Mechwarper", 2, 3)]
    assert cost(state, 0, "Spider Tank") == 2
    play(state, "Frostbolt", own(0))
    assert board(state, 0) == []
    assert cost(state, 0, "Spider Tank") == 3


def test_mechwarper_played_from_hand_discounts_the_rest_of_the_turn():
    """After playing Mechwarper (2), Harvest Golem costs 2 instead of 3.

        P0  hero 30   hand: Mechwarper, Harvest Golem   mana 4
    """
    state = build(hands=(["Mechwarper", "Harvest Golem"], []), heroes=({"mana": 4}, {}))
    assert cost(state, 0, "Harvest Golem") == 3
    play(state, "Mechwarper")
    assert cost(state, 0, "Harvest Golem") == 2 and mana(state, 0) == 2
    play(state, "Harvest Golem")
    assert mana(state, 0) == 0
    assert board(state, 0) == [("Mechwarper", 2, 3), ("Harvest Golem", 2, 3)]


# ---- Snowchugger -----------------------------------------------------------------------------------
def test_snowchugger_freezes_the_minion_it_attacks():
    """Snowchugger 2/3 attacks Mana Wyrm 1/3: Wyrm 1/1 and frozen (it misses P1's turn); Snowchugger 2/2,
    not frozen itself.

        P1  hero 30   [Mana Wyrm 1/3]
        P0  hero 30   [Snowchugger 2/3]
    """
    state = build(boards=(["Snowchugger"], ["Mana Wyrm"]))
    state.apply(attack_at(0, 0))
    assert board(state, 1) == [("Mana Wyrm", 1, 1)] and minion(state, 1, 0)["frozen"]
    assert board(state, 0) == [("Snowchugger", 2, 2)] and not minion(state, 0, 0)["frozen"]
    end_turn(state)
    assert attacks(state) == set()
    end_turn(state)
    assert not minion(state, 1, 0)["frozen"]


def test_snowchugger_freezes_the_hero_it_attacks():
    """Snowchugger hits the enemy hero: 30 -> 28 and the hero is frozen.

        P1  hero 30
        P0  hero 30   [Snowchugger 2/3]
    """
    state = build(boards=(["Snowchugger"], []))
    state.apply(attack_at(0, HERO))
    assert hp(state, 1) == 28 and state.hero(1)["frozen"]


def test_snowchugger_freezes_its_attacker_which_misses_its_next_turn():
    """Spider Tank 3/4 attacks the enemy Snowchugger 2/5: the Tank takes 2 and is frozen. It attacked this
    turn, so it does not thaw at this turn's end; it cannot attack on its next turn and thaws at that
    turn's end.

        P1  hero 30   [Snowchugger 2/5]
        P0  hero 30   [Spider Tank 3/4]
    """
    state = build(boards=(["Spider Tank"], [{"card": "Snowchugger", "health": 5, "max_health": 5}]))
    state.apply(attack_at(0, 0))
    assert board(state, 0) == [("Spider Tank", 3, 2)] and minion(state, 0, 0)["frozen"]
    assert board(state, 1) == [("Snowchugger", 2, 2)]
    end_turn(state)
    assert minion(state, 0, 0)["frozen"], "attacked this turn: still frozen"
    end_turn(state)
    assert state.current_player == 0 and minion(state, 0, 0)["frozen"]
    assert attacks(state) == set()
    assert_illegal(state, attack_at(0, HERO))
    end_turn(state)
    assert not minion(state, 0, 0)["frozen"]
    end_turn(state)
    assert attacks(state) == {attack_at(0, HERO), attack_at(0, 0)}


def test_snowchugger_does_not_freeze_through_divine_shield():
    """Divine Shield absorbs the hit, so the Annoy-o-Tron is not damaged and not frozen.

        P1  hero 30   [Annoy-o-Tron 1/2 (t)(ds)]
        P0  hero 30   [Snowchugger 2/3]
    """
    state = build(boards=(["Snowchugger"], ["Annoy-o-Tron"]))
    state.apply(attack_at(0, 0))
    assert board(state, 1) == [("Annoy-o-Tron", 1, 2)]
    assert not minion(state, 1, 0)["frozen"] and not minion(state, 1, 0)["divine_shield"]
    assert board(state, 0) == [("Snowchugger", 2, 2)]


def test_a_minion_frozen_on_its_own_turn_before_attacking_thaws_at_that_turns_end():
    """Emergency Coolant on our own ready Tank: it cannot attack now, thaws at our turn's end, attacks next turn.

        P1  hero 30
        P0  hero 30   [Spider Tank 3/4]   hand: Emergency Coolant
    """
    state = build(hands=(["Emergency Coolant"], []), boards=(["Spider Tank"], []))
    play(state, "Emergency Coolant", own(0))
    assert minion(state, 0, 0)["frozen"] and attacks(state) == set()
    end_turn(state)
    assert not minion(state, 0, 0)["frozen"]
    end_turn(state)
    assert attacks(state) == {attack_at(0, HERO)}


# ---- Arcane Intellect --------------------------------------------------------------------------------
def test_arcane_intellect_draws_two_cards_by_copies_left():
    """Draw 2: each draw is a chance node over the card ids left, weighted by copies.

        P0  hero 30   hand: Arcane Intellect   deck: Fireball x2, Frostbolt   mana 10
    First draw: Fireball 2/3, Frostbolt 1/3 -> Frostbolt; the second has one outcome (Fireball): no stop.
    """
    state = build(hands=(["Arcane Intellect"], []), deck_cards=(["Fireball", "Fireball", "Frostbolt"], [FILLER]))
    play(state, "Arcane Intellect")
    assert mana(state, 0) == 7
    assert state.pending_op()[:2] == (OP_DRAW, 0)
    assert outcomes(state) == {FIREBALL: Fraction(2, 3), FROSTBOLT: Fraction(1, 3)}
    resolve(state, FROSTBOLT)
    assert state.current_player == 0
    assert hand_names(state, 0) == ["Frostbolt", "Fireball"]
    assert state.hero(0)["deck_size"] == 1 and state.deck_counts(0)[FIREBALL] == 1


def test_arcane_intellect_with_an_empty_deck_deals_fatigue_one_then_two():
    """Fatigue follows the real game: 1 then 2 damage (30 -> 27).

        P0  hero 30   hand: Arcane Intellect   deck: (empty)
    """
    state = build(hands=(["Arcane Intellect"], []), deck_cards=([], [FILLER]))
    play(state, "Arcane Intellect")
    assert hp(state, 0) == 27 and state.hero(0)["fatigue"] == 2 and hand_names(state, 0) == []


def test_arcane_intellect_into_a_full_hand_burns_the_second_card():
    """10 cards incl. Arcane Intellect: 9 after casting, the first draw fills the hand, the second is burned.

        P0  hero 30   hand: Arcane Intellect + 9 Frostbolt   deck: Fireball x2
    """
    state = build(hands=(["Arcane Intellect"] + ["Frostbolt"] * 9, []), deck_cards=(["Fireball"] * 2, [FILLER]))
    play(state, "Arcane Intellect")
    assert state.current_player == 0
    assert hand_names(state, 0) == ["Frostbolt"] * 9 + ["Fireball"]
    assert state.hero(0)["deck_size"] == 0


# ---- Harvest Golem and Damaged Golem ------------------------------------------------------------------
def test_harvest_golem_leaves_a_damaged_golem_in_its_place():
    """Deathrattle: a 2/1 Damaged Golem where the Golem was (Decision 4); summoned this turn, it cannot attack.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Mana Wyrm 1/3, Harvest Golem 2/3, Spider Tank 3/4]
    The Golem hits the Tank (4 -> 2) and takes 3.
    """
    state = build(boards=(["Mana Wyrm", "Harvest Golem", "Spider Tank"], ["Spider Tank"]))
    state.apply(attack_at(1, 0))
    assert board(state, 1) == [("Spider Tank", 3, 2)]
    assert board(state, 0) == [("Mana Wyrm", 1, 3), ("Damaged Golem", 2, 1), ("Spider Tank", 3, 4)]
    assert minion(state, 0, 1)["card"] == DAMAGED_GOLEM
    assert not minion(state, 0, 1)["can_attack"]
    assert attacks(state) == {attack_at(0, HERO), attack_at(0, 0), attack_at(2, HERO), attack_at(2, 0)}


def test_damaged_golem_summoned_on_the_enemy_turn_can_attack_on_ours():
    """The enemy kills our Harvest Golem on its turn; the Damaged Golem attacks on our turn (30 -> 28).

        P1  hero 30   hand: Fireball   (to move)
        P0  hero 30   [Harvest Golem 2/3]
    """
    state = build(to_move=1, hands=([], ["Fireball"]), boards=(["Harvest Golem"], []))
    play(state, "Fireball", enemy(0))
    assert board(state, 0) == [("Damaged Golem", 2, 1)]
    end_turn(state)
    state.apply(attack_at(0, HERO))
    assert hp(state, 1) == 28


# ---- Spider Tank ---------------------------------------------------------------------------------------
def test_spider_tank_is_a_vanilla_three_four_for_three_that_waits_a_turn():
    """Spider Tank: 3 mana 3/4, no effect; it cannot attack the turn it is summoned, it can the next.

        P0  hero 30   hand: Spider Tank   mana 3
    """
    state = build(hands=(["Spider Tank"], []), heroes=({"mana": 3, "max_mana": 3}, {}))
    play(state, "Spider Tank")
    assert board(state, 0) == [("Spider Tank", 3, 4)] and mana(state, 0) == 0
    assert minion(state, 0, 0)["card"] == SPIDER_TANK
    assert attacks(state) == set() and not minion(state, 0, 0)["can_attack"]
    end_turn(state)
    end_turn(state)
    assert attacks(state) == {attack_at(0, HERO)}
    state.apply(attack_at(0, HERO))
    assert hp(state, 1) == 27
    assert attacks(state) == set(), "one attack a turn"


# ---- Tinkertown Technician -------------------------------------------------------------------------------
def test_tinkertown_technician_with_a_mech_gets_plus_one_and_a_spare_part():
    """Battlecry: if you have a Mech, +1/+1 (4/4) and a random Spare Part (7 outcomes, 1/7 each).

        P0  hero 30   [Annoy-o-Tron]   hand: Tinkertown Technician   mana 10
    """
    state = build(hands=(["Tinkertown Technician"], []), boards=(["Annoy-o-Tron"], []))
    play(state, "Tinkertown Technician")
    assert state.current_player == CHANCE
    assert state.pending_op()[:2] == (OP_SPARE_PART, 0)
    assert outcomes(state) == {part: Fraction(1, 7) for part in SPARE_PARTS}
    resolve(state, WHIRLING_BLADES)
    assert board(state, 0) == [("Annoy-o-Tron", 1, 2), ("Tinkertown Technician", 4, 4)]
    assert minion(state, 0, 1)["max_health"] == 4
    assert hand_names(state, 0) == ["Whirling Blades"] and list(state.hand_origin(0)) == [ORIGIN_SPARE_PART]
    assert mana(state, 0) == 7


def test_tinkertown_technician_without_a_mech_is_a_plain_three_three():
    """No friendly Mech (an enemy Mech does not count): 3/3, no Spare Part, no chance node.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Cogmaster 1/2]   hand: Tinkertown Technician
    """
    state = build(hands=(["Tinkertown Technician"], []), boards=(["Cogmaster"], ["Spider Tank"]))
    play(state, "Tinkertown Technician")
    assert state.current_player == 0
    assert board(state, 0) == [("Cogmaster", 1, 2), ("Tinkertown Technician", 3, 3)]
    assert hand_names(state, 0) == []


# ---- Fireball ----------------------------------------------------------------------------------------
def test_fireball_deals_six_damage():
    """Fireball (4 mana): 6 damage. A 6-health minion dies, a 7-health one survives at 1, the hero 30 -> 24.

        P1  hero 30   [Spider Tank 3/6, Spider Tank 3/7]
        P0  hero 30   hand: Fireball x3   mana 10 (then 8 for the last)
    """
    state = build(hands=(["Fireball"] * 3, []),
                  boards=([], [{"card": "Spider Tank", "health": 6, "max_health": 6},
                               {"card": "Spider Tank", "health": 7, "max_health": 7}]))
    play(state, "Fireball", enemy(0))
    assert board(state, 1) == [("Spider Tank", 3, 7)] and mana(state, 0) == 6
    play(state, "Fireball", enemy(0))
    assert board(state, 1) == [("Spider Tank", 3, 1)] and mana(state, 0) == 2
    assert PLAY + 0 not in legal(state)
    state = build(hands=(["Fireball"], []))
    play(state, "Fireball", ENEMY_HERO)
    assert hp(state, 1) == 24


# ---- Goblin Blastmage -----------------------------------------------------------------------------------
def test_goblin_blastmage_with_a_mech_fires_four_missiles_one_chance_node_each():
    """Battlecry with a Mech: 4 x 1 damage, each missile a node uniform over the living enemy characters.

        P1  hero 30   [Spider Tank 3/2]
        P0  hero 30   [Clockwork Gnome 2/1]   hand: Goblin Blastmage   mana 10
    Missiles: hero, Tank, Tank (now at 0: avoided), and the 4th has one outcome (the hero): no stop.
    Result: hero 28, Tank dead.
    """
    state = build(hands=(["Goblin Blastmage"], []), boards=(["Clockwork Gnome"], [{"card": "Spider Tank",
                                                                                    "health": 2}]))
    play(state, "Goblin Blastmage")
    assert mana(state, 0) == 6
    half = {char(1): Fraction(1, 2), char(1, 0): Fraction(1, 2)}
    assert state.pending_op()[0] == OP_RANDOM_DAMAGE
    assert outcomes(state) == half
    resolve(state, char(1))
    assert hp(state, 1) == 29 and outcomes(state) == half
    resolve(state, char(1, 0))
    assert board(state, 1)[0][2] == 1 and outcomes(state) == half
    resolve(state, char(1, 0))
    assert state.current_player == 0, "the last missile has one outcome (the Tank is at 0 health)"
    assert hp(state, 1) == 28 and board(state, 1) == []
    assert board(state, 0) == [("Clockwork Gnome", 2, 1), ("Goblin Blastmage", 5, 4)]


def test_goblin_blastmage_missiles_skip_a_minion_at_zero_health():
    """The first missile kills the 1-health Wyrm; the other three can only hit the hero: 30 -> 27.

        P1  hero 30   [Mana Wyrm 1/1]
        P0  hero 30   [Spider Tank 3/4]   hand: Goblin Blastmage
    """
    state = build(hands=(["Goblin Blastmage"], []), boards=(["Spider Tank"], [{"card": "Mana Wyrm", "health": 1}]))
    play(state, "Goblin Blastmage")
    assert outcomes(state) == {char(1): Fraction(1, 2), char(1, 0): Fraction(1, 2)}
    resolve(state, char(1, 0))
    assert state.current_player == 0
    assert hp(state, 1) == 27 and board(state, 1) == []


def test_goblin_blastmage_missile_pops_divine_shield():
    """A missile into Annoy-o-Tron removes its shield (no damage); the next one deals 1.

        P1  hero 30   [Annoy-o-Tron 1/2 (ds), Spider Tank 3/4]
        P0  hero 30   [Mechwarper 2/3]   hand: Goblin Blastmage
    """
    state = build(hands=(["Goblin Blastmage"], []), boards=(["Mechwarper"], ["Annoy-o-Tron", "Spider Tank"]))
    play(state, "Goblin Blastmage")
    third = Fraction(1, 3)
    assert outcomes(state) == {char(1): third, char(1, 0): third, char(1, 1): third}
    resolve(state, char(1, 0))
    assert board(state, 1)[0] == ("Annoy-o-Tron", 1, 2) and not minion(state, 1, 0)["divine_shield"]
    resolve(state, char(1, 0))
    resolve(state, char(1, 1))
    resolve(state, char(1, 1))
    assert state.current_player == 0
    assert board(state, 1) == [("Annoy-o-Tron", 1, 1), ("Spider Tank", 3, 2)] and hp(state, 1) == 30


def test_goblin_blastmage_against_a_lone_hero_needs_no_chance_node():
    """Only the enemy hero lives: each missile node has one outcome, resolved without stopping (30 -> 26).

        P1  hero 30
        P0  hero 30   [Spider Tank 3/4]   hand: Goblin Blastmage
    """
    state = build(hands=(["Goblin Blastmage"], []), boards=(["Spider Tank"], []))
    play(state, "Goblin Blastmage")
    assert state.current_player == 0 and hp(state, 1) == 26


def test_goblin_blastmage_without_a_mech_does_nothing_more():
    """No friendly Mech (the enemy's Mech does not count): a plain 5/4, no missiles, no chance node.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Cogmaster 1/2]   hand: Goblin Blastmage
    """
    state = build(hands=(["Goblin Blastmage"], []), boards=(["Cogmaster"], ["Spider Tank"]))
    play(state, "Goblin Blastmage")
    assert state.current_player == 0
    assert hp(state, 1) == 30 and board(state, 1) == [("Spider Tank", 3, 4)]
    assert board(state, 0) == [("Cogmaster", 1, 2), ("Goblin Blastmage", 5, 4)]


# ---- Mechanical Yeti ------------------------------------------------------------------------------------
def test_mechanical_yeti_deathrattle_gives_each_player_a_spare_part():
    """Deathrattle: each player gets a random Spare Part (two nodes of 7 outcomes at 1/7).

        P1  hero 30   hand: (empty)
        P0  hero 30   [Mechanical Yeti 4/5]   hand: Fireball
    """
    state = build(hands=(["Fireball"], []), boards=(["Mechanical Yeti"], []))
    play(state, "Fireball", own(0))
    assert board(state, 0) == []
    got = {}
    for part in (TIME_REWINDER, FINICKY_CLOAKFIELD):
        op, player, _, _ = state.pending_op()
        assert op == OP_SPARE_PART and player not in got
        assert outcomes(state) == {p: Fraction(1, 7) for p in SPARE_PARTS}
        resolve(state, part)
        got[player] = part
    assert state.current_player == 0 and set(got) == {0, 1}
    for p in (0, 1):
        assert list(state.hand(p)) == [got[p]]
        assert list(state.hand_origin(p)) == [ORIGIN_SPARE_PART]


def test_mechanical_yeti_survives_flamestrike_at_one_health():
    """Yeti 4/5 takes 4: stays 4/1 (no deathrattle).

        P1  hero 30   [Mechanical Yeti 4/5]
        P0  hero 30   hand: Flamestrike
    """
    state = build(hands=(["Flamestrike"], []), boards=([], ["Mechanical Yeti"]))
    play(state, "Flamestrike")
    assert state.current_player == 0 and board(state, 1) == [("Mechanical Yeti", 4, 1)]


# ---- Loatheb ----------------------------------------------------------------------------------------------
def test_loatheb_taxes_enemy_spells_by_five_on_their_next_turn_only():
    """Battlecry: enemy spells cost 5 more next turn. Minions, our own spells and the hero power are untouched;
    the turn after, the tax is gone.

        P1  hero 30   hand: Fireball, Spider Tank, Frostbolt   max mana 7   deck: Arcane Intellect x3
        P0  hero 30   hand: Loatheb, Fireball   mana 10
    P1's turn: 8 mana; Fireball 9 (not playable), Spider Tank 3, Frostbolt 7, drawn Arcane Intellect 8.
    """
    state = build(hands=(["Loatheb", "Fireball"], ["Fireball", "Spider Tank", "Frostbolt"]),
                  heroes=({}, {"max_mana": 7, "mana": 7}),
                  deck_cards=([FILLER] * 4, ["Arcane Intellect"] * 3))
    play(state, "Loatheb")
    assert board(state, 0) == [("Loatheb", 5, 5)] and mana(state, 0) == 5
    assert cost(state, 0, "Fireball") == 4, "our own spells are not taxed"
    end_turn(state)
    assert state.current_player == 1 and mana(state, 1) == 8
    assert hand_names(state, 1) == ["Fireball", "Spider Tank", "Frostbolt", "Arcane Intellect"]
    assert list(state.hand_costs(1)) == [9, 3, 7, 8]
    assert state.hero(1)["spell_tax"] == 5
    assert legal(state) & {PLAY + i for i in range(4)} == {PLAY + 1, PLAY + 2, PLAY + 3}
    assert_illegal(state, PLAY + 0)
    assert HERO_POWER in legal(state)
    play(state, "Frostbolt", ENEMY_HERO)
    assert mana(state, 1) == 1 and hp(state, 0) == 27
    end_turn(state)
    assert cost(state, 0, "Fireball") == 4
    end_turn(state)
    assert state.current_player == 1 and state.hero(1)["spell_tax"] == 0
    assert list(state.hand_costs(1)) == [4, 3, 3, 3]


def test_loatheb_tax_applies_to_spare_parts_and_the_coin():
    """Every spell is taxed: a Spare Part 1 -> 6, The Coin 0 -> 5.

        P1  hero 30   hand: Rusty Horn (spare part), The Coin
        P0  hero 30   hand: Loatheb
    """
    state = build(hands=(["Loatheb"], [{"card": "Rusty Horn", "origin": "spare_part"},
                                       {"card": "The Coin", "origin": "known"}]))
    play(state, "Loatheb")
    end_turn(state)
    assert cost(state, 1, "Rusty Horn") == 6 and cost(state, 1, "The Coin") == 5


# ---- Archmage Antonidas -------------------------------------------------------------------------------
def test_antonidas_adds_a_known_fireball_for_each_spell_cast():
    """Whenever you cast a spell, a Fireball to your hand, known to both players (origin "known").

        P1  hero 30
        P0  hero 30   [Archmage Antonidas 5/7]   hand: Frostbolt   mana 10
    Frostbolt -> hand [Fireball]; that Fireball -> hand [Fireball] again (a new one).
    """
    state = build(hands=(["Frostbolt"], []), boards=(["Archmage Antonidas"], []))
    play(state, "Frostbolt", ENEMY_HERO)
    assert hand_names(state, 0) == ["Fireball"]
    assert list(state.hand_origin(0)) == [ORIGIN_KNOWN]
    play(state, "Fireball", ENEMY_HERO)
    assert hand_names(state, 0) == ["Fireball"] and list(state.hand_origin(0)) == [ORIGIN_KNOWN]
    assert hp(state, 1) == 30 - 3 - 6 and mana(state, 0) == 4
    assert cost(state, 0, "Fireball") == 4


def test_antonidas_triggers_on_the_coin_and_spare_parts_but_not_on_fireblast():
    """The Coin and a Spare Part are spells (two Fireballs); the hero power is not (no third).

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Archmage Antonidas 5/7]   hand: The Coin, Whirling Blades   mana 5
    """
    state = build(hands=([{"card": "The Coin", "origin": "known"},
                          {"card": "Whirling Blades", "origin": "spare_part"}], []),
                  boards=(["Archmage Antonidas"], ["Spider Tank"]), heroes=({"mana": 5}, {}))
    play(state, "The Coin")
    assert hand_names(state, 0) == ["Whirling Blades", "Fireball"]
    play(state, "Whirling Blades", own(0))
    assert hand_names(state, 0) == ["Fireball", "Fireball"]
    assert list(state.hand_origin(0)) == [ORIGIN_KNOWN, ORIGIN_KNOWN]
    assert board(state, 0) == [("Archmage Antonidas", 6, 7)]
    power(state, enemy(0))
    assert hand_names(state, 0) == ["Fireball", "Fireball"]
    assert board(state, 1) == [("Spider Tank", 3, 3)]


def test_antonidas_ignores_the_opponents_spells():
    """The opponent's Frostbolt gives *us* nothing.

        P1  hero 30   hand: Frostbolt   (to move)
        P0  hero 30   [Archmage Antonidas 5/7]   hand: (empty)
    """
    state = build(to_move=1, hands=([], ["Frostbolt"]), boards=(["Archmage Antonidas"], []))
    play(state, "Frostbolt", enemy(0))
    assert hand_names(state, 0) == [] and hand_names(state, 1) == []
    assert board(state, 0) == [("Archmage Antonidas", 5, 4)]


def test_antonidas_fireball_arrives_before_time_rewinder_resolves():
    """Decisions 5 + 8: 10 cards in hand incl. Time Rewinder. Casting it leaves 9; Antonidas's Fireball comes
    first (cast trigger) and fills the hand; the returned Spider Tank finds a full hand and is destroyed.

        P0  hero 30   [Archmage Antonidas, Spider Tank]   hand: Time Rewinder + 9 Frostbolt
    """
    state = build(hands=(["Time Rewinder"] + ["Frostbolt"] * 9, []), boards=(["Archmage Antonidas", "Spider Tank"],
                                                                             []))
    play(state, "Time Rewinder", own(1))
    assert hand_names(state, 0) == ["Frostbolt"] * 9 + ["Fireball"]
    assert board(state, 0) == [("Archmage Antonidas", 5, 7)]


# ---- Dr. Boom and Boom Bot ---------------------------------------------------------------------------------
def test_dr_boom_summons_a_boom_bot_on_each_side():
    """Battlecry: two 1/1 Boom Bots, one each side of Dr. Boom (Decision 4); none can attack this turn.

        P0  hero 30   [Mana Wyrm 1/3]   hand: Dr. Boom   mana 7
    -> [Mana Wyrm, Boom Bot, Dr. Boom, Boom Bot]
    """
    state = build(hands=(["Dr. Boom"], []), boards=(["Mana Wyrm"], []), heroes=({"mana": 7}, {}))
    play(state, "Dr. Boom")
    assert state.current_player == 0 and mana(state, 0) == 0
    assert board(state, 0) == [("Mana Wyrm", 1, 3), ("Boom Bot", 1, 1), ("Dr. Boom", 7, 7), ("Boom Bot", 1, 1)]
    assert minion(state, 0, 1)["card"] == BOOM_BOT
    assert attacks(state) == {attack_at(0, HERO)}


def test_dr_boom_on_a_board_of_six_has_no_room_for_bots():
    """At most 7 minions a side: Dr. Boom is the 7th, no Boom Bot fits; with 7, no minion can be played.

        P0  hero 30   [Mana Wyrm x6]   hand: Dr. Boom, Spider Tank   mana 10
    """
    state = build(hands=(["Dr. Boom", "Spider Tank"], []), boards=(["Mana Wyrm"] * 6, []))
    play(state, "Dr. Boom")
    assert state.current_player == 0
    assert board(state, 0) == [("Mana Wyrm", 1, 3)] * 6 + [("Dr. Boom", 7, 7)]
    assert_illegal(state, PLAY + slot(state, "Spider Tank"))


def test_boom_bot_deathrattle_is_one_node_of_target_times_damage():
    """Boom Bot dies: one node over each living enemy character x damage 1..4, uniform.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Boom Bot 1/1]   (Fireblast our own Bot)
    Outcomes: hero (char 8) and Tank (char 9) x 1..4 = 8, each 1/8, ids char * 4 + damage - 1.
    Chosen: the Tank, 3 damage -> 3/1.
    """
    state = build(boards=(["Boom Bot"], ["Spider Tank"]))
    power(state, own(0))
    assert board(state, 0) == []
    assert state.pending_op()[0] == OP_BOOM_BOT
    expected = {boom(1, pos, d): Fraction(1, 8) for pos in (HERO, 0) for d in (1, 2, 3, 4)}
    assert outcomes(state) == expected
    assert sorted(expected) == [32, 33, 34, 35, 36, 37, 38, 39]
    resolve(state, boom(1, 0, 3))
    assert state.current_player == 0 and board(state, 1) == [("Spider Tank", 3, 1)] and hp(state, 1) == 30


def test_boom_bot_hits_the_enemy_hero_for_four():
    """Outcome hero x 4: 30 -> 26.

        P1  hero 30
        P0  hero 30   [Boom Bot 1/1]
    """
    state = build(boards=(["Boom Bot"], []))
    power(state, own(0))
    assert outcomes(state) == {boom(1, HERO, d): Fraction(1, 4) for d in (1, 2, 3, 4)}
    resolve(state, boom(1, HERO, 4))
    assert hp(state, 1) == 26


def test_boom_bot_on_a_full_enemy_board_has_32_outcomes_below_the_64_maximum():
    """8 enemy characters x 4 damages = 32 outcomes at 1/32; ids (char * 4 + damage - 1) stay < MAX_OUTCOMES (64).
    Player 0's Bot: enemies are side 1, ids 32..63; player 1's Bot: enemies side 0, ids 0..31.

        P1  hero 30   [Spider Tank 3/4 x7]
        P0  hero 30   [Boom Bot 1/1]
    Chosen: the 7th Tank for 4 -> dies.
    """
    state = build(boards=(["Boom Bot"], ["Spider Tank"] * 7))
    power(state, own(0))
    out = outcomes(state)
    assert MAX_OUTCOMES == 64
    assert out == {o: Fraction(1, 32) for o in range(32, 64)}
    resolve(state, boom(1, 6, 4))
    assert board(state, 1) == [("Spider Tank", 3, 4)] * 6

    state = build(boards=(["Spider Tank"] * 7, ["Boom Bot"]))
    power(state, enemy(0))
    assert state.pending_op()[:2] == (OP_BOOM_BOT, 1)
    assert outcomes(state) == {o: Fraction(1, 32) for o in range(0, 32)}
    resolve(state, boom(0, HERO, 2))
    assert hp(state, 0) == 28


def test_two_boom_bots_dying_at_once_the_second_avoids_a_character_at_zero_health():
    """Flamestrike kills both enemy Boom Bots at once; their deathrattles run one after the other. The first
    brings our Wyrm to 0 health; the second's node avoids it (only our hero x 1..4). Then the Wyrm dies.

        P1  hero 30   [Boom Bot, Boom Bot]
        P0  hero 30   [Mana Wyrm 1/1]   hand: Flamestrike   mana 7
    """
    state = build(hands=(["Flamestrike"], []), boards=([{"card": "Mana Wyrm", "health": 1}], ["Boom Bot"] * 2),
                  heroes=({"mana": 7}, {}))
    play(state, "Flamestrike")
    assert board(state, 1) == []
    assert state.pending_op()[:2] == (OP_BOOM_BOT, 1)
    assert outcomes(state) == {boom(0, pos, d): Fraction(1, 8) for pos in (HERO, 0) for d in (1, 2, 3, 4)}
    resolve(state, boom(0, 0, 1))
    assert state.pending_op()[:2] == (OP_BOOM_BOT, 1)
    assert outcomes(state) == {boom(0, HERO, d): Fraction(1, 4) for d in (1, 2, 3, 4)}
    resolve(state, boom(0, HERO, 4))
    assert state.current_player == 0
    assert hp(state, 0) == 26 and board(state, 0) == []


def test_boom_bot_deathrattle_can_kill_and_cascade():
    """A Boom Bot's hit can kill another Boom Bot, whose deathrattle then runs: deaths repeat until none.

        P1  hero 30   [Boom Bot 1/1]
        P0  hero 30   [Boom Bot 1/1]   (Fireblast our own Bot)
    Our Bot hits theirs for 1 (dies) -> their Bot hits our hero for 2 -> 28.
    """
    state = build(boards=(["Boom Bot"], ["Boom Bot"]))
    power(state, own(0))
    resolve(state, boom(1, 0, 1))
    assert board(state, 1) == []
    assert state.pending_op()[:2] == (OP_BOOM_BOT, 1)
    assert outcomes(state) == {boom(0, HERO, d): Fraction(1, 4) for d in (1, 2, 3, 4)}
    resolve(state, boom(0, HERO, 2))
    assert hp(state, 0) == 28 and state.current_player == 0


# ---- Flamestrike ----------------------------------------------------------------------------------------
def test_flamestrike_deals_four_to_every_enemy_minion_only():
    """4 damage to all enemy minions: Tank dies, Yeti 4/1, Annoy-o-Tron loses only its shield; our minions and
    both heroes untouched; our Wyrm grows (spell cast).

        P1  hero 30   [Spider Tank 3/4, Mechanical Yeti 4/5, Annoy-o-Tron 1/2 (ds)]
        P0  hero 30   [Mana Wyrm 1/3]   hand: Flamestrike   mana 7
    """
    state = build(hands=(["Flamestrike"], []), boards=(["Mana Wyrm"], ["Spider Tank", "Mechanical Yeti",
                                                                       "Annoy-o-Tron"]),
                  heroes=({"mana": 7}, {}))
    assert PLAY + 0 in legal(state)
    play(state, "Flamestrike")
    assert state.current_player == 0 and mana(state, 0) == 0
    assert board(state, 1) == [("Mechanical Yeti", 4, 1), ("Annoy-o-Tron", 1, 2)]
    assert not minion(state, 1, 1)["divine_shield"]
    assert board(state, 0) == [("Mana Wyrm", 2, 3)]
    assert hp(state, 0) == 30 and hp(state, 1) == 30


def test_flamestrike_costs_seven():
    """6 mana: not playable.

        P0  hero 30   hand: Flamestrike   mana 6
    """
    state = build(hands=(["Flamestrike"], []), heroes=({"mana": 6}, {}))
    assert_illegal(state, PLAY + 0)


# ---- Spare Parts -----------------------------------------------------------------------------------------
PART_TARGETS = {"Armor Plating": "minion", "Time Rewinder": "friendly", "Rusty Horn": "minion",
                "Finicky Cloakfield": "friendly", "Emergency Coolant": "minion", "Reversing Switch": "minion",
                "Whirling Blades": "minion"}


@pytest.mark.parametrize("part", sorted(PART_TARGETS))
def test_spare_part_costs_one_targets_as_printed_and_grows_mana_wyrm(part):
    """Each Spare Part is a 1-mana spell (Mana Wyrm +1) with its target set (minion / friendly minion).

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   [Mana Wyrm 1/3, Spider Tank 3/4]   hand: <part> (spare part)   mana 10
    """
    state = build(hands=([{"card": part, "origin": "spare_part"}], []),
                  boards=(["Mana Wyrm", "Spider Tank"], ["Spider Tank"]))
    assert list(state.hand_costs(0)) == [1]
    state.apply(PLAY + 0)
    assert state.phase == "target"
    friendly = {own(0), own(1)}
    assert targets(state) == (friendly if PART_TARGETS[part] == "friendly" else friendly | {enemy(0)})
    state.apply(target(own(1)))
    assert mana(state, 0) == 9
    assert minion(state, 0, 0)["attack"] == 2


def test_spare_part_needs_a_target_to_be_playable():
    """Time Rewinder and Finicky Cloakfield need a friendly minion; with only an enemy one they are not playable,
    while Rusty Horn (any minion) is.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   hand: Time Rewinder, Finicky Cloakfield, Rusty Horn
    """
    state = build(hands=(["Time Rewinder", "Finicky Cloakfield", "Rusty Horn"], []), boards=([], ["Spider Tank"]))
    assert legal(state) & {PLAY + i for i in range(3)} == {PLAY + 2}
    assert_illegal(state, PLAY + 0)
    state = build(hands=(["Rusty Horn"], []))
    assert_illegal(state, PLAY + 0)


def test_armor_plating_gives_plus_one_health():
    """+1 Health (current and max): damaged Tank 3/2 (max 4) -> 3/3 (max 5).

        P0  hero 30   [Spider Tank 3/2]   hand: Armor Plating
    """
    state = build(hands=(["Armor Plating"], []), boards=([{"card": "Spider Tank", "health": 2}], []))
    play(state, "Armor Plating", own(0))
    assert board(state, 0) == [("Spider Tank", 3, 3)] and minion(state, 0, 0)["max_health"] == 5


def test_time_rewinder_returns_the_printed_card_as_a_known_card():
    """Decision 8: the damaged, buffed Tank returns to hand as a plain Spider Tank (cost 3), known to both;
    replayed, it is a fresh 3/4 that cannot attack this turn.

        P0  hero 30   [Spider Tank 5/2]   hand: Time Rewinder   mana 10
    """
    state = build(hands=(["Time Rewinder"], []), boards=([{"card": "Spider Tank", "attack": 5, "health": 2}], []))
    play(state, "Time Rewinder", own(0))
    assert board(state, 0) == []
    assert hand_names(state, 0) == ["Spider Tank"] and list(state.hand_origin(0)) == [ORIGIN_KNOWN]
    assert list(state.hand_costs(0)) == [3]
    play(state, "Spider Tank")
    assert board(state, 0) == [("Spider Tank", 3, 4)] and mana(state, 0) == 6
    assert attacks(state) == set()


def test_rusty_horn_gives_taunt():
    """Taunt on the enemy's right-hand minion: our attacker must now attack it.

        P1  hero 30   [Spider Tank 3/4, Mana Wyrm 1/3]
        P0  hero 30   [Spider Tank 3/4]   hand: Rusty Horn
    """
    state = build(hands=(["Rusty Horn"], []), boards=(["Spider Tank"], ["Spider Tank", "Mana Wyrm"]))
    assert attacks(state) == {attack_at(0, HERO), attack_at(0, 0), attack_at(0, 1)}
    play(state, "Rusty Horn", enemy(1))
    assert minion(state, 1, 1)["taunt"]
    assert attacks(state) == {attack_at(0, 1)}


def test_finicky_cloakfield_gives_stealth_until_our_next_turn():
    """Stealth until your next turn: on the enemy turn the Tank cannot be attacked or targeted; at the start
    of our next turn the Stealth is gone.

        P1  hero 30   [Spider Tank 3/4]   hand: Frostbolt   deck: Tinkertown x4
        P0  hero 30   [Spider Tank 3/4]   hand: Finicky Cloakfield
    """
    state = build(hands=(["Finicky Cloakfield"], ["Frostbolt"]), boards=(["Spider Tank"], ["Spider Tank"]))
    play(state, "Finicky Cloakfield", own(0))
    assert minion(state, 0, 0)["stealth"]
    end_turn(state)
    assert attacks(state) == {attack_at(0, HERO)}
    state.apply(PLAY + slot(state, "Frostbolt"))
    assert targets(state) == {OWN_HERO, own(0), ENEMY_HERO}
    state.apply(target(ENEMY_HERO))
    end_turn(state)
    assert state.current_player == 0 and not minion(state, 0, 0)["stealth"]


def test_emergency_coolant_freezes_an_enemy_minion():
    """Freeze (no damage): the enemy Tank cannot attack on its turn, then thaws.

        P1  hero 30   [Spider Tank 3/4]
        P0  hero 30   hand: Emergency Coolant
    """
    state = build(hands=(["Emergency Coolant"], []), boards=([], ["Spider Tank"]))
    play(state, "Emergency Coolant", enemy(0))
    assert board(state, 1) == [("Spider Tank", 3, 4)] and minion(state, 1, 0)["frozen"]
    end_turn(state)
    assert attacks(state) == set()
    end_turn(state)
    assert not minion(state, 1, 0)["frozen"]


def test_reversing_switch_swaps_current_attack_and_health():
    """Decision 7: damaged Tank 3/2 (max 4) -> 2/3 with max Health 3.

        P1  hero 30   [Spider Tank 3/2]
        P0  hero 30   hand: Reversing Switch
    """
    state = build(hands=(["Reversing Switch"], []), boards=([], [{"card": "Spider Tank", "health": 2}]))
    play(state, "Reversing Switch", enemy(0))
    assert board(state, 1) == [("Spider Tank", 2, 3)] and minion(state, 1, 0)["max_health"] == 3


def test_reversing_switch_can_kill_a_zero_attack_minion():
    """A 0-attack minion gets Health 0 and dies.

        P1  hero 30   [Spider Tank 0/4]
        P0  hero 30   hand: Reversing Switch
    """
    state = build(hands=(["Reversing Switch"], []), boards=([], [{"card": "Spider Tank", "attack": 0}]))
    play(state, "Reversing Switch", enemy(0))
    assert board(state, 1) == []


def test_whirling_blades_gives_plus_one_attack_permanently():
    """+1 Attack: Tank 3/4 -> 4/4, still 4/4 two turns later, and it hits for 4.

        P1  hero 30
        P0  hero 30   [Spider Tank 3/4]   hand: Whirling Blades
    """
    state = build(hands=(["Whirling Blades"], []), boards=(["Spider Tank"], []))
    play(state, "Whirling Blades", own(0))
    assert board(state, 0) == [("Spider Tank", 4, 4)]
    end_turn(state)
    end_turn(state)
    assert board(state, 0) == [("Spider Tank", 4, 4)]
    state.apply(attack_at(0, HERO))
    assert hp(state, 1) == 26


def test_spare_part_constants_are_the_seven_parts():
    """The 7 Spare Parts by name, in layout order."""
    names = build().game.names
    assert [names[p] for p in SPARE_PARTS] == ["Armor Plating", "Time Rewinder", "Rusty Horn", "Finicky Cloakfield",
                                             "Emergency Coolant", "Reversing Switch", "Whirling Blades"]
    assert (ARMOR_PLATING, TIME_REWINDER, RUSTY_HORN, FINICKY_CLOAKFIELD, EMERGENCY_COOLANT, REVERSING_SWITCH,
            WHIRLING_BLADES) == SPARE_PARTS

"""Per-card rules tests for Fifth Aeon's Synthesis and Growth cards (71 cards of ``cards.json``).

Every test builds a small position with ``positions.build_position`` (player 0 to move in Play1 with the resource
already played, resources 6/6/6/6 = 24 energy each unless stated, decks of Minotaurs), plays a card or lets a
trigger fire, and checks the exact outcome. The spec is ``runs/fa_semantics.md`` (the model's behaviour) except
where ``runs/fa_decisions.md`` decides otherwise. A test of behaviour the engine gets wrong is marked
``xfail(strict=True)`` with the bug in its reason.

``COVERED`` collects the card ids the tests exercise (``covers``); the last test checks that it is exactly the
two factions' cards.
"""
from __future__ import annotations

import pytest

from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon.cards import bundled_pool
from cardboard.envs.fifth_aeon.constants import BOARD_SLOTS
from cardboard.envs.fifth_aeon.moves import position
from cardboard.envs.fifth_aeon.positions import attack_and_block, build_position, find, play, unit
from cardboard.envs.fifth_aeon.board import OWNER_KNOWS

POOL = bundled_pool()
FACTION_IDS = frozenset(c.id for c in POOL.cards if c.faction in ("Synthesis", "Growth"))
COVERED: set[str] = set()


def covers(*ids: str):
    """Record that the decorated test exercises the cards ``ids``."""
    unknown = set(ids) - FACTION_IDS
    assert not unknown, unknown
    COVERED.update(ids)
    return lambda f: f


# ---- helpers ------------------------------------------------------------------------------------------------------
def side(s, p):
    return s.match.sides[p]


def hand(s, p):
    return [h[0] for h in side(s, p).hand]


def stats(u):
    return (u.attack, u.life)


def end_turn(s):
    """The turn player ends the turn (playing a renewal resource first if it has not played one)."""
    m = s.match
    if not m.sides[m.turn_player].played_resource:
        s.apply(L.RESOURCE + 3)
    s.apply(L.PASS)


def target_actions(s):
    """The legal TARGET positions while a card waits for its host or target."""
    return sorted(int(a) - L.TARGET for a in s.legal_actions() if L.TARGET <= a < L.NO_TARGET)


def pos_of(s, u):
    return position(s.match, s.match.acting, u)


def can_play(s, cid):
    slot = hand(s, s.match.acting).index(cid)
    return L.PLAY + slot in s.legal_actions()


def can_attack_action(s, u):
    return L.ATTACK + s.match.board[s.match.turn_player].index(u) in s.legal_actions()


# ---- every card: cost and thresholds ------------------------------------------------------------------------------
# (this parametrized test plays every card of both factions; COVERED counts only the dedicated behaviour tests below)
@pytest.mark.parametrize("cid", sorted(FACTION_IDS))
def test_cost_thresholds_and_printed_numbers(cid):
    """Every Synthesis / Growth card: playable with exactly its energy and resource thresholds, not with one energy
    or one threshold less; playing it spends exactly its energy (thresholds are not spent); a unit enters with its
    printed stats and keywords, not ready unless it has Rush; an enchantment with its printed power; an item sits on
    its host; a spell goes to the crypt."""
    card = POOL[cid]
    req = card.requirements

    def position_with(res, energy):
        return build_position(hands=([cid], []), boards=(["Airship", "Bear"], ["Minotaur"]),
                              resources=(tuple(res), (6, 6, 6, 6)), energy=(energy, 0))

    assert not can_play(position_with(req, card.energy - 1), cid)
    for i, r in enumerate(req):
        if r:
            short = list(req)
            short[i] -= 1
            assert not can_play(position_with(short, card.energy), cid)
    s = position_with(req, card.energy)
    assert can_play(s, cid)
    before = {u.uid for b in s.match.board for u in b}
    s.apply(L.PLAY)
    while s.phase == "target":
        s.apply(int(s.legal_actions()[0]))
    assert cid not in hand(s, 0)
    assert side(s, 0).energy == (1 if cid == "NaturesBounty" else 0)
    gained = (0, 1, 0, 0) if cid == "NaturesBounty" else (0, 0, 0, 0)  # thresholds are not spent
    assert side(s, 0).res == [r + g for r, g in zip(req, gained)]
    new = [u for u in s.match.board[0] if u.uid not in before]
    if card.card_type == "unit":
        (u,) = new
        expected = (1, 2) if cid == "Workbot" else (card.damage, card.life)  # Workbot buffs itself on entering
        assert stats(u) == expected
        assert u.kw == card.keywords
        assert u.unit_type == card.unit_type
        assert u.ready == ("Rush" in card.keywords)
    elif card.card_type == "enchantment":
        (e,) = new
        assert e.power == card.power and not e.is_unit
        assert cid not in side(s, 0).crypt  # decision: not in the crypt while on the board
    elif card.card_type == "item":
        assert any(card in u.items for u in s.match.board[0])
        assert cid not in side(s, 0).crypt
    else:
        assert side(s, 0).crypt[-1] == cid


# ==================================================================================================================
# Synthesis
# ==================================================================================================================
@covers("AssemblyLine", "AutomatedInfantry")
def test_assembly_line_summons_infantry_at_owners_dusk_with_stats_equal_to_power():
    """Assembly Line (Dusk, EnchantmentSummon): at the end of its owner's turn an Automated Infantry (robotic)
    enters with attack = life = the enchantment's power (1 when played); the opponent's dusk summons nothing."""
    s = build_position(hands=(["AssemblyLine"], []))
    play(s, "AssemblyLine")
    assert unit(s, "AssemblyLine", 0).power == 1 and side(s, 0).energy == 21
    assert find(s, "AutomatedInfantry") == []
    end_turn(s)
    inf = unit(s, "AutomatedInfantry", 0)
    assert stats(inf) == (1, 1) and "robotic" in inf.kw and not inf.ready
    end_turn(s)  # player 1's turn ends: not the owner's dusk
    assert len(find(s, "AutomatedInfantry", 0)) == 1


@covers("AssemblyLine")
def test_assembly_line_empowered_summons_bigger_infantry():
    """Assembly Line: empowering (5 energy, +1 power) makes the next Infantry 2/2."""
    s = build_position(boards=(["AssemblyLine"], []))
    s.apply(L.EMPOWER + 0)
    assert unit(s, "AssemblyLine", 0).power == 2 and side(s, 0).energy == 19
    end_turn(s)
    assert stats(unit(s, "AutomatedInfantry", 0)) == (2, 2)


@covers("AssemblyLine", "ComsTower")
def test_assembly_line_infantry_gets_lordships_on_top():
    """Assembly Line (decision: stats set to the power, lordships apply on top): with a Communication Tower the
    power-3 line's Infantry is 4/4."""
    s = build_position(boards=([{"card": "AssemblyLine", "power": 3}, "ComsTower"], []))
    end_turn(s)
    assert stats(unit(s, "AutomatedInfantry", 0)) == (4, 4)


@covers("AssemblyLine", "Workbot")
def test_assembly_line_set_stats_overwrites_enter_buffs():
    """Assembly Line: setStats(P, P) runs after the summon, so a non-lordship enters-play buff (Workbot) is
    overwritten: the Infantry is 1/1."""
    s = build_position(boards=(["AssemblyLine", "Workbot"], []))
    end_turn(s)
    assert stats(unit(s, "AutomatedInfantry", 0)) == (1, 1)


@covers("MedicalConvoy")
def test_medical_convoy_refreshes_friendly_biological_units():
    """Medical Convoy (Play, RefreshTarget on FriendlyBiologicalUnits): a friendly biological unit is healed,
    un-exhausted and made ready (so a unit played this turn can attack); friendly machines and enemy units are
    not refreshed; the Convoy itself (played) is a 2/2 not ready."""
    s = build_position(hands=(["MedicalConvoy"], []),
                       boards=([{"card": "Bear", "hurt": 2, "ready": False, "exhausted": True},
                                {"card": "Golem", "hurt": 1, "exhausted": True}],
                               [{"card": "Minotaur", "hurt": 3, "exhausted": True}]))
    play(s, "MedicalConvoy")
    bear, golem, mino = unit(s, "Bear", 0), unit(s, "Golem", 0), unit(s, "Minotaur", 1)
    assert stats(bear) == (3, 4) and bear.ready and not bear.exhausted
    assert can_attack_action(s, bear)
    assert golem.life == 2 and golem.exhausted
    assert mino.life == 2 and mino.exhausted
    convoy = unit(s, "MedicalConvoy", 0)
    assert stats(convoy) == (2, 2) and not convoy.ready
    assert side(s, 0).energy == 22


ROBOTS = ["AutomatedInfantry", "Golem", "TitanMk2", "Workbot", "Paragon"]


@covers(*ROBOTS)
@pytest.mark.parametrize("robot", ROBOTS)
def test_robotic_units_cannot_be_slept_or_poisoned(robot):
    """robotic (Automated Infantry, Golem, Titan Mk. 2, Workbot, P.A.R.A.G.O.N): not a Sleep Dart candidate, and
    area poison (Creeping Corrosion, Deadly Plague) leaves it unpoisoned."""
    s = build_position(hands=(["SleepDart", "CreepingCorrosion"], []), boards=([], [robot, "Spiderling"]))
    bot = unit(s, robot, 1)
    assert "robotic" in bot.kw
    play_slot = hand(s, 0).index("SleepDart")
    s.apply(L.PLAY + play_slot)
    assert target_actions(s) == [pos_of(s, unit(s, "Spiderling", 1))]
    s.apply(L.TARGET + pos_of(s, unit(s, "Spiderling", 1)))
    play(s, "CreepingCorrosion")
    assert "poison" not in bot.st
    assert unit(s, "Spiderling", 1).st["poison"] == 1


@covers("Interceptor")
def test_interceptor_deals_3_to_the_attacker_it_blocks():
    """Prototype Interceptor (DamageOnBlock 3): blocking a 4/5 Minotaur, the attacker takes 3 first, then the
    fight: the Interceptor (1/2) takes 2 (its life) and dies, the Minotaur takes 1 more and survives at 1."""
    s = build_position(boards=(["Minotaur"], ["Interceptor"]))
    mino, icp = unit(s, "Minotaur", 0), unit(s, "Interceptor", 1)
    attack_and_block(s, [mino], [(icp, mino)])
    assert mino.life == 1
    assert find(s, "Interceptor") == [] and side(s, 1).crypt == ["Interceptor"]
    assert side(s, 1).life == 25


@covers("Interceptor", "Golem")
def test_interceptor_killed_attacker_still_fights():
    """Prototype Interceptor (decision: the attacker still fights even if the 3 damage killed it): a 3/3 Golem dies
    to the 3 but still deals its damage, killing the Interceptor."""
    s = build_position(boards=(["Golem"], ["Interceptor"]))
    golem, icp = unit(s, "Golem", 0), unit(s, "Interceptor", 1)
    attack_and_block(s, [golem], [(icp, golem)])
    assert find(s, "Golem") == [] and find(s, "Interceptor") == []
    assert side(s, 0).crypt == ["Golem"] and side(s, 1).crypt == ["Interceptor"]


@covers("Interceptor", "Dragon")
def test_interceptor_flying_can_block_flyers():
    """Prototype Interceptor has Flying: it may block a Flying Dragon, a ground unit may not."""
    s = build_position(boards=(["Dragon"], ["Interceptor", "Bear"]))
    dragon = unit(s, "Dragon", 0)
    assert unit(s, "Interceptor", 1).can_block(dragon)
    assert not unit(s, "Bear", 1).can_block(dragon)


@covers("ForceField")
def test_force_field_absorbs_player_damage_and_loses_that_much_power():
    """Forcefield Matrix (power 12): 4 combat damage to its owner becomes 0 and the power drops by 4."""
    s = build_position(boards=(["Minotaur"], ["ForceField"]))
    attack_and_block(s, [unit(s, "Minotaur", 0)])
    assert side(s, 1).life == 25
    assert unit(s, "ForceField", 1).power == 8


@covers("ForceField")
def test_force_field_lets_excess_through_and_breaks():
    """Forcefield Matrix at power 3 against 4 damage: 1 gets through, the power falls to -1 and the enchantment
    goes to the crypt."""
    s = build_position(boards=(["Minotaur"], [{"card": "ForceField", "power": 3}]))
    attack_and_block(s, [unit(s, "Minotaur", 0)])
    assert side(s, 1).life == 24
    assert find(s, "ForceField") == [] and side(s, 1).crypt == ["ForceField"]


@covers("ForceField")
def test_force_field_absorbs_fatigue():
    """Forcefield Matrix hooks every damage its owner takes (takeDamage listeners), fatigue included: drawing from
    an empty deck (1 damage) costs 1 power instead of 1 life."""
    s = build_position(boards=([], ["ForceField"]), decks=(("Minotaur",) * 5, ()))
    end_turn(s)  # player 1 draws from an empty deck
    assert side(s, 1).fatigue == 1
    assert side(s, 1).life == 25
    assert unit(s, "ForceField", 1).power == 11


@covers("GasMask", "DangerousInjection")
def test_gas_mask_buffs_and_makes_the_host_poison_immune():
    """Gas Mask (+1/+2, PoisonImmune): a Minotaur becomes 5/7; Dangerous Injection still buffs it (+3/+2) but the
    poison does not take."""
    s = build_position(hands=(["GasMask", "DangerousInjection"], []), boards=(["Minotaur"], []))
    mino = unit(s, "Minotaur", 0)
    play(s, "GasMask", host=mino)
    assert stats(mino) == (5, 7) and "PoisonImmune" in mino.kw
    play(s, "DangerousInjection", target=mino)
    assert stats(mino) == (8, 9) and "poison" not in mino.st
    assert side(s, 0).energy == 22


@covers("Battleship", "Mermaid", "Airship", "MissileMech")
def test_aquatic_attacker_blocked_only_by_aquatic_or_flying():
    """Battleship (Aquatic): can be blocked by Aquatic (Mermaid) or Flying (Airship) units only, not by a ground
    unit nor a Ranged one (Missile Mech)."""
    s = build_position(boards=(["Battleship"], ["Minotaur", "Mermaid", "Airship", "MissileMech"]))
    ship = unit(s, "Battleship", 0)
    assert [b.can_block(ship) for b in s.match.board[1]] == [False, True, True, False]


@covers("Battleship", "Mermaid", "Submarine")
def test_aquatic_blocker_blocks_only_aquatic_attackers():
    """Aquatic blockers (Battleship, Mermaid) can block only Aquatic attackers: a Mermaid attacker, not a Minotaur;
    nobody blocks the Unblockable Submarine."""
    s = build_position(boards=(["Minotaur", "Mermaid", "Submarine"], ["Battleship", "Mermaid"]))
    mino, mer, sub = unit(s, "Minotaur", 0), unit(s, "Mermaid", 0), unit(s, "Submarine", 0)
    for blocker in s.match.board[1]:
        assert not blocker.can_block(mino)
        assert blocker.can_block(mer)
        assert not blocker.can_block(sub)


@covers("MissileMech")
def test_missile_mech_ranged_blocks_flyers():
    """Missile Mech (Ranged): may block a Flying Dragon, and ground units as usual; it kills the 6/4 Dragon."""
    s = build_position(boards=(["Dragon", "Bear"], ["MissileMech"]))
    dragon, mech = unit(s, "Dragon", 0), unit(s, "MissileMech", 1)
    assert mech.can_block(dragon) and mech.can_block(unit(s, "Bear", 0))
    attack_and_block(s, [dragon], [(mech, dragon)])
    assert find(s, "Dragon") == [] and find(s, "MissileMech") == []


@covers("SpySatalite")
def test_spy_satellite_draws_and_reveals_at_dawn():
    """Spy Satellite (Dawn: draw 1, Peek): at its owner's turn start the owner draws an extra card and the
    opponent's hand becomes known; it can neither attack nor block."""
    s = build_position(turn_player=1, hands=([], ["Bear", "Dragon"]), boards=(["SpySatalite"], ["Bear"]))
    assert side(s, 1).known == [False, False]
    s.apply(L.PASS)  # player 1 ends the turn: player 0's dawn
    assert hand(s, 0) == ["Minotaur", "Minotaur"]
    assert side(s, 1).known == [True, True]
    sat = unit(s, "SpySatalite", 0)
    assert sat.ready and not can_attack_action(s, sat)
    assert not sat.can_block(unit(s, "Bear", 1))


@covers("ShieldGenerator")
def test_shield_generator_shields_friendly_units_at_dawn():
    """Shield Generator (Dawn: grant Shielded to friendly units): at its owner's turn start every friendly unit,
    itself included, is shielded; the shield absorbs the next damage (an own Energy Beam); enemy units are not
    shielded; the Generator cannot attack."""
    s = build_position(turn_player=1, hands=(["EnergyBeam"], []), boards=(["ShieldGenerator", "Minotaur"], ["Bear"]))
    s.apply(L.PASS)
    gen, mino = unit(s, "ShieldGenerator", 0), unit(s, "Minotaur", 0)
    for u in (gen, mino):
        assert u.st.get("shield") == 1 and "Shielded" in u.kw
    assert not unit(s, "Bear", 1).st.get("shield")
    assert not can_attack_action(s, gen)
    play(s, "EnergyBeam", target=mino)
    assert stats(mino) == (4, 5) and mino.st["shield"] == 0


@covers("ShieldGenerator", "TitanMk2")
def test_shield_generator_rearms_a_spent_shield():
    """Shield Generator: granting Shielded to a unit that has it re-arms the shield (Shielded.stack): a Titan Mk. 2
    whose shield was spent is shielded again at dawn."""
    s = build_position(turn_player=1, boards=(["ShieldGenerator", {"card": "TitanMk2", "shield": 0}], []))
    titan = unit(s, "TitanMk2", 0)
    assert titan.st["shield"] == 0
    s.apply(L.PASS)
    assert titan.st["shield"] == 1


@covers("ResearchAI")
def test_research_ai_draws_at_dawn_and_buffs_units_drawn():
    """Research A.I (Dawn: draw 1; OwnerDrawsUnit: +1/+1): its owner draws 2 at turn start; the unit drawn gets
    +1/+1 in hand (hand entry (id, 1, 1)), a spell does not; played, the Minotaur is a 5/6."""
    s = build_position(turn_player=1, boards=(["ResearchAI"], []),
                       decks=(("Minotaur", "Insight", "Bear"), ("Minotaur",) * 5))
    s.apply(L.PASS)
    assert side(s, 0).hand == [("Minotaur", 1, 1), ("Insight", 0, 0)]
    assert unit(s, "ResearchAI", 0).power == 3
    s.apply(L.RESOURCE + 3)
    play(s, "Minotaur")
    assert stats(unit(s, "Minotaur", 0)) == (5, 6)


@covers("ResearchAI")
def test_research_ai_gone_stops_buffing():
    """Research A.I (decision: a permanent's triggers stop when it leaves play): diminished to 0 it is dispelled,
    and a unit drawn later is not buffed."""
    s = build_position(turn_player=1, boards=(["ResearchAI"], []), resources=((6, 6, 6, 6), (6, 6, 6, 6)))
    for _ in range(3):
        s.apply(L.DIMINISH + 0)  # player 1 pays 5 each time
    assert find(s, "ResearchAI") == [] and side(s, 0).crypt == ["ResearchAI"]
    s.apply(L.PASS)
    assert side(s, 0).hand == [("Minotaur", 0, 0)]


@covers("Submarine")
def test_submarine_is_unblockable():
    """Submarine (Aquatic, Unblockable): no block phase even against Aquatic and Flying units; it hits for 3."""
    s = build_position(boards=(["Submarine"], ["Mermaid", "Airship", "Battleship"]))
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "play2"
    assert side(s, 1).life == 22


@covers("AutomataCrew", "Airship", "GoldMine")
def test_automata_crew_only_on_vehicles_or_structures_and_grants_relentless():
    """Automata Crew (+3/+3, robotic, Relentless; host a friendly Vehicle or Structure): a Minotaur or an Automaton
    cannot carry it; an Airship becomes 6/6 robotic and Relentless, and is refreshed at the end of the turn after
    attacking."""
    s = build_position(hands=(["AutomataCrew"], []), boards=(["Minotaur", "Golem", "Airship", "GoldMine"], []))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [2, 3]
    ship = unit(s, "Airship", 0)
    s.apply(L.TARGET + 2)
    assert stats(ship) == (6, 6) and {"robotic", "Relentless", "Flying"} <= ship.kw
    attack_and_block(s, [ship])
    assert side(s, 1).life == 19 and ship.exhausted
    end_turn(s)
    assert not ship.exhausted


@covers("OccularImplant")
def test_ocular_implant_host_draws_when_it_damages_the_player():
    """Ocular Implant (+3/+3, SpyPower): a Minotaur becomes 7/8, hits the player for 7 and its owner draws 1."""
    s = build_position(hands=(["OccularImplant"], []), boards=(["Minotaur"], []))
    mino = unit(s, "Minotaur", 0)
    play(s, "OccularImplant", host=mino)
    assert stats(mino) == (7, 8) and "SpyPower" in mino.kw and hand(s, 0) == []
    attack_and_block(s, [mino])
    assert side(s, 1).life == 18 and hand(s, 0) == ["Minotaur"]


@covers("Rifle")
def test_rifle_needs_an_enemy_unit_and_shoots_it_for_2():
    """Marksman's Rifle (+3/+2, Ranged, Play: 2 damage to an enemy unit): not playable without an enemy unit; with
    one, the host becomes 7/7 Ranged and the Bear takes 2."""
    s = build_position(hands=(["Rifle"], []), boards=(["Minotaur"], []))
    assert not can_play(s, "Rifle")
    s = build_position(hands=(["Rifle"], []), boards=(["Minotaur"], ["Bear"]))
    mino, bear = unit(s, "Minotaur", 0), unit(s, "Bear", 1)
    s.apply(L.PLAY + 0)
    s.apply(L.TARGET + pos_of(s, mino))
    assert target_actions(s) == [BOARD_SLOTS]  # only the enemy unit
    s.apply(L.TARGET + BOARD_SLOTS)
    assert stats(mino) == (7, 7) and "Ranged" in mino.kw
    assert bear.life == 2 and side(s, 0).energy == 20


@covers("Rifle", "SnappingCobra")
def test_rifle_damage_comes_from_the_host():
    """Marksman's Rifle: the item's damage source is its host, so a Lethal host (Snapping Cobra) kills the target."""
    s = build_position(hands=(["Rifle"], []), boards=(["SnappingCobra"], ["Battleship"]))
    play(s, "Rifle", host=unit(s, "SnappingCobra", 0), target=unit(s, "Battleship", 1))
    assert find(s, "Battleship") == []


@covers("AtomicStrike", "TitanMk2")
def test_atomic_strike_hits_every_enemy_unit_and_the_enemy_player_for_7():
    """Atomic Strike (12 energy, 6 synthesis; 7 to Enemies): enemy Minotaur and Battleship die, a Titan Mk. 2's
    shield takes the hit, the enemy player loses 7; friendly units are untouched."""
    s = build_position(hands=(["AtomicStrike"], []), boards=(["Bear"], ["Minotaur", "Battleship", "TitanMk2"]))
    play(s, "AtomicStrike")
    assert [u.card.id for u in s.match.board[1]] == ["TitanMk2"]
    titan = unit(s, "TitanMk2", 1)
    assert stats(titan) == (7, 7) and titan.st["shield"] == 0
    assert side(s, 1).life == 18 and stats(unit(s, "Bear", 0)) == (3, 4)
    assert side(s, 0).energy == 12 and side(s, 0).crypt == ["AtomicStrike"]


@covers("TitanMk2")
def test_titan_shield_absorbs_only_the_first_damage():
    """Titan Mk. 2 (Shielded): the first Energy Beam (6) is absorbed; the second leaves it at 1."""
    s = build_position(hands=(["EnergyBeam", "EnergyBeam"], []), boards=([], ["TitanMk2"]))
    titan = unit(s, "TitanMk2", 1)
    play(s, "EnergyBeam", target=titan)
    assert titan.life == 7 and titan.st["shield"] == 0
    play(s, "EnergyBeam", target=titan)
    assert titan.life == 1


@covers("Spy")
def test_spy_draws_when_it_hits_the_player():
    """Spy (1/1, SpyPower): unblocked it deals 1 to the player and its owner draws 1; blocked, no draw."""
    s = build_position(boards=(["Spy"], []))
    attack_and_block(s, [unit(s, "Spy", 0)])
    assert side(s, 1).life == 24 and hand(s, 0) == ["Minotaur"]
    s = build_position(boards=(["Spy"], ["Bear"]))
    spy = unit(s, "Spy", 0)
    attack_and_block(s, [spy], [(unit(s, "Bear", 1), spy)])
    assert hand(s, 0) == [] and side(s, 0).crypt == ["Spy"]


@covers("Spy", "ForceField")
def test_spy_absorbed_damage_draws_nothing():
    """Spy: damage a Forcefield Matrix reduces to 0 sets off no SpyPower draw."""
    s = build_position(boards=(["Spy"], ["ForceField"]))
    attack_and_block(s, [unit(s, "Spy", 0)])
    assert side(s, 1).life == 25 and hand(s, 0) == []


@covers("BombingRun")
def test_bombing_run_hits_enemy_units_for_3():
    """Bombing Run (3 to each enemy unit): an enemy Bear drops to 1, an enemy Spiderling dies; friendly units and
    players are untouched."""
    s = build_position(hands=(["BombingRun"], []), boards=(["Bear"], ["Bear", "Spiderling"]))
    play(s, "BombingRun")
    assert stats(unit(s, "Bear", 1)) == (3, 1) and find(s, "Spiderling") == []
    assert stats(unit(s, "Bear", 0)) == (3, 4)
    assert side(s, 0).life == side(s, 1).life == 25 and side(s, 0).energy == 18


@covers("EnergyBeam")
@pytest.mark.parametrize("synth,life_left", [(2, 5), (4, 3), (6, 1)])
def test_energy_beam_damage_is_your_synthesis(synth, life_left):
    """Energy Beam (damage = the caster's Synthesis count, not energy): a 7/7 Battleship is left at 7 - synthesis."""
    s = build_position(hands=(["EnergyBeam"], []), boards=([], ["Battleship"]),
                       resources=((synth, 6, 6, 6), (6, 6, 6, 6)))
    play(s, "EnergyBeam", target=unit(s, "Battleship", 1))
    assert unit(s, "Battleship", 1).life == life_left
    assert side(s, 0).energy == synth + 18 - 4


@covers("EnergyBeam")
def test_energy_beam_can_hit_own_units_and_kill():
    """Energy Beam targets any unit (SingleUnit): with synthesis 7 it kills a friendly 7/7."""
    s = build_position(hands=(["EnergyBeam"], []), boards=(["Battleship"], ["Bear"]),
                       resources=((7, 6, 6, 6), (6, 6, 6, 6)))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [0, BOARD_SLOTS]
    s.apply(L.TARGET + 0)
    assert find(s, "Battleship") == [] and sorted(side(s, 0).crypt) == ["Battleship", "EnergyBeam"]


@covers("ArchivesSearch")
def test_search_the_archives_draws_two():
    """Search the Archives (draw 2): the top two cards of the deck join the hand; 3 energy spent."""
    s = build_position(hands=(["ArchivesSearch"], []), decks=(("Bear", "Dragon", "Minotaur"), ("Minotaur",)))
    play(s, "ArchivesSearch")
    assert hand(s, 0) == ["Bear", "Dragon"] and side(s, 0).deck == ["Minotaur"]
    assert side(s, 0).energy == 21 and side(s, 0).crypt == ["ArchivesSearch"]


@covers("AlloyTransmute")
def test_alloy_transmutation_buffs_and_shields_a_machine():
    """Alloy Transmutation (MechanicalUnit: +3/+6 and Shielded): only machines (either side) are targets; a Golem
    becomes 6/9 and shielded."""
    s = build_position(hands=(["AlloyTransmute"], []), boards=(["Golem", "Bear"], ["Airship", "Minotaur"]))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [0, BOARD_SLOTS]
    s.apply(L.TARGET + 0)
    golem = unit(s, "Golem", 0)
    assert stats(golem) == (6, 9) and golem.st["shield"] == 1 and "Shielded" in golem.kw


@covers("DangerousInjection")
def test_dangerous_injection_buffs_and_poisons_a_biological_unit():
    """Dangerous Injection (BiologicalUnit: poison, +3/+2): machines are not targets; an enemy Bear becomes 6/6
    poisoned, and loses 1/1 at its owner's next turn start."""
    s = build_position(hands=(["DangerousInjection"], []), boards=(["Golem"], ["Bear", "Airship"]))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [BOARD_SLOTS]
    s.apply(L.TARGET + BOARD_SLOTS)
    bear = unit(s, "Bear", 1)
    assert stats(bear) == (6, 6) and bear.st["poison"] == 1
    end_turn(s)
    assert stats(bear) == (5, 5)


@covers("Workbot", "Golem")
def test_workbot_buffs_entering_friendly_machines_including_itself():
    """Workbot (FriendlyMechUnitEntersPlay: +0/+1): it enters as 1/2, a friendly Golem entering becomes 3/4, a
    biological Minotaur is not buffed."""
    s = build_position(hands=(["Workbot", "Golem", "Minotaur"], []), boards=([], ["Golem"]))
    play(s, "Workbot")
    assert stats(unit(s, "Workbot", 0)) == (1, 2)
    play(s, "Golem")
    assert stats(unit(s, "Golem", 0)) == (3, 4) and stats(unit(s, "Workbot", 0)) == (1, 2)
    play(s, "Minotaur")
    assert stats(unit(s, "Minotaur", 0)) == (4, 5) and stats(unit(s, "Golem", 1)) == (3, 3)


@covers("ComsTower")
def test_communication_tower_lordship_for_other_friendly_units():
    """Communication Tower (FriendlyLordship +1/+1, CannotAttack): other friendly units get +1/+1 (also later
    ones), the Tower and enemy units do not; when the Tower dies the bonus goes."""
    s = build_position(hands=(["ComsTower", "Bear", "EnergyBeam"], []), boards=(["Minotaur"], ["Bear"]))
    play(s, "ComsTower")
    tower = unit(s, "ComsTower", 0)
    assert stats(tower) == (0, 5) and stats(unit(s, "Minotaur", 0)) == (5, 6)
    assert stats(unit(s, "Bear", 1)) == (3, 4)
    play(s, "Bear")
    assert stats(unit(s, "Bear", 0)) == (4, 5)
    play(s, "EnergyBeam", target=tower)
    assert find(s, "ComsTower") == []
    assert stats(unit(s, "Minotaur", 0)) == (4, 5) and stats(unit(s, "Bear", 0)) == (3, 4)


@covers("ComsTower")
def test_communication_tower_leaving_kills_a_unit_living_on_its_bonus():
    """Communication Tower: when it dies, a friendly unit whose remaining life came from its +1 life dies too
    (a Bear at 4/5 with 4 damage)."""
    s = build_position(turn_player=1, hands=([], ["EnergyBeam"]), boards=(["ComsTower", {"card": "Bear", "hurt": 4}], []))
    bear = unit(s, "Bear", 0)
    assert stats(bear) == (4, 1)
    play(s, "EnergyBeam", target=unit(s, "ComsTower", 0))
    assert s.match.board[0] == [] and sorted(side(s, 0).crypt) == ["Bear", "ComsTower"]


@covers("ComsTower")
def test_communication_tower_cannot_attack():
    """Communication Tower (CannotAttack): even ready, it is never offered as an attacker."""
    s = build_position(boards=(["ComsTower"], []))
    assert not can_attack_action(s, unit(s, "ComsTower", 0))


@covers("EnhancmentChamber")
def test_enhancement_chamber_buffs_entering_biological_units():
    """Enhancement Chamber (FriendlyBioUnitEntersPlay: +3/+3): it is a Structure, so not buffed itself (0/5); a
    friendly Minotaur entering becomes 7/8, a Golem stays 3/3."""
    s = build_position(hands=(["EnhancmentChamber", "Minotaur", "Golem"], []))
    play(s, "EnhancmentChamber")
    assert stats(unit(s, "EnhancmentChamber", 0)) == (0, 5)
    play(s, "Minotaur")
    play(s, "Golem")
    assert stats(unit(s, "Minotaur", 0)) == (7, 8) and stats(unit(s, "Golem", 0)) == (3, 3)


@covers("ObsesrvationBallon")
def test_observation_balloon_reveals_the_opponents_hand():
    """Observation Balloon (Play: Peek; 0/3 Flying): the opponent's hand becomes known when it is played."""
    s = build_position(hands=(["ObsesrvationBallon"], ["Bear", "Dragon"]))
    assert side(s, 1).known == [False, False]
    play(s, "ObsesrvationBallon")
    assert side(s, 1).known == [True, True]
    assert hand(s, 1) == ["Bear", "Dragon"]
    balloon = unit(s, "ObsesrvationBallon", 0)
    assert stats(balloon) == (0, 3) and "Flying" in balloon.kw


@covers("SiegeArtillery")
def test_siege_artillery_pings_the_enemy_player_at_owners_dusk():
    """Siege Artillery (Dusk: 1 to the enemy player): the opponent loses 1 at the end of the owner's turn only."""
    s = build_position(boards=(["SiegeArtillery"], []))
    end_turn(s)
    assert side(s, 1).life == 24 and side(s, 0).life == 25
    end_turn(s)
    assert side(s, 1).life == 24
    end_turn(s)
    assert side(s, 1).life == 23


@covers("Paragon")
def test_paragon_shield_lethal_and_relentless():
    """P.A.R.A.G.O.N (Lethal, Shielded, Relentless): blocked by a Minotaur, its shield absorbs the 4, the Minotaur
    dies; at the end of the turn it is refreshed, so on the enemy turn it can block."""
    s = build_position(boards=(["Paragon"], ["Minotaur", "Bear"]))
    para, mino = unit(s, "Paragon", 0), unit(s, "Minotaur", 1)
    attack_and_block(s, [para], [(mino, para)])
    assert stats(para) == (4, 5) and para.st["shield"] == 0
    assert find(s, "Minotaur") == [] and side(s, 1).crypt == ["Minotaur"]
    assert para.exhausted
    end_turn(s)
    assert not para.exhausted
    s.apply(L.RESOURCE + 3)
    bear = unit(s, "Bear", 1)
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "block" and para.can_block(bear)


@covers("Paragon")
def test_paragon_lethal_as_a_blocker():
    """P.A.R.A.G.O.N (Lethal): blocking an attacking Minotaur (4/5) it deals 4 and the Minotaur dies (Lethal),
    while its shield takes the Minotaur's 4."""
    s = build_position(turn_player=1, boards=(["Paragon"], ["Minotaur"]))
    mino, para = unit(s, "Minotaur", 1), unit(s, "Paragon", 0)
    attack_and_block(s, [mino], [(para, mino)])
    assert find(s, "Minotaur") == [] and stats(para) == (4, 5)


@covers("ScoutGlider")
def test_scout_glider_flies_and_cannot_block():
    """Scout Glider (3/1 Flying, CannotBlock): it cannot block even a ground unit; attacking, a ground Bear cannot
    block it and the player takes 3."""
    s = build_position(boards=(["ScoutGlider"], ["Bear"]))
    glider, bear = unit(s, "ScoutGlider", 0), unit(s, "Bear", 1)
    assert not glider.can_block(bear) and not bear.can_block(glider)
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "play2" and side(s, 1).life == 22


@covers("Airship", "MissileMech")
def test_airship_blocked_only_by_flying_or_ranged():
    """Airship (3/3 Flying): a Minotaur cannot block it; a Missile Mech (Ranged) or another Airship can."""
    s = build_position(boards=(["Airship"], ["Minotaur", "MissileMech", "Airship"]))
    ship = unit(s, "Airship", 0)
    assert [b.can_block(ship) for b in s.match.board[1]] == [False, True, True]


@covers("Insight")
def test_insight_low_synthesis_replaces_a_card():
    """Insight with synthesis < 4: choose 0-1 hand cards to put at the bottom of the deck (known to the owner), then
    draw that many."""
    s = build_position(hands=(["Insight", "Bear"], []), resources=((3, 6, 6, 6), (6, 6, 6, 6)),
                       decks=(("Dragon", "Minotaur"), ("Minotaur",)))
    play(s, "Insight")
    assert s.phase == "choice" and s.match.choices[0].options == ["Bear"]
    assert sorted(int(a) for a in s.legal_actions()) == [L.OPTION, L.CHOICE_DONE]
    s.apply(L.OPTION + 0)
    assert hand(s, 0) == ["Dragon"]
    assert side(s, 0).deck == ["Minotaur", "Bear"] and side(s, 0).deck_vis[-1] == OWNER_KNOWS
    assert side(s, 0).energy == 20 and side(s, 0).crypt == ["Insight"]


@covers("Insight")
def test_insight_low_synthesis_may_keep_the_hand():
    """Insight with synthesis < 4: picking nothing keeps the hand and draws nothing."""
    s = build_position(hands=(["Insight", "Bear"], []), resources=((1, 6, 6, 6), (6, 6, 6, 6)),
                       decks=(("Dragon",), ("Minotaur",)))
    play(s, "Insight")
    s.apply(L.CHOICE_DONE)
    assert hand(s, 0) == ["Bear"] and side(s, 0).deck == ["Dragon"]


@covers("Insight")
@pytest.mark.parametrize("synth", [4, 7])
def test_insight_mid_synthesis_draws_one(synth):
    """Insight with synthesis 4-7: draw 1, no choice."""
    s = build_position(hands=(["Insight", "Bear"], []), resources=((synth, 6, 6, 6), (6, 6, 6, 6)),
                       decks=(("Dragon", "Minotaur"), ("Minotaur",)))
    play(s, "Insight")
    assert s.phase == "play1" and hand(s, 0) == ["Bear", "Dragon"]


@covers("Insight")
def test_insight_high_synthesis_searches_the_deck():
    """Insight with synthesis >= 8: choose 0-1 cards of the deck into hand; the card leaves the real deck
    (decision) and the rest of the deck keeps its order."""
    s = build_position(hands=(["Insight"], []), resources=((8, 6, 6, 6), (6, 6, 6, 6)),
                       decks=(("Minotaur", "Dragon", "Bear"), ("Minotaur",)))
    play(s, "Insight")
    assert s.phase == "choice" and s.match.choices[0].options == ["Bear", "Dragon", "Minotaur"]
    s.apply(L.OPTION + 1)
    assert hand(s, 0) == ["Dragon"] and side(s, 0).deck == ["Minotaur", "Bear"]


@covers("RiftBlast", "Hydra", "Fairy")
def test_rift_pulse_annihilates_without_death():
    """Rift Pulse (Annihilate a unit): the unit leaves the game, not to the crypt; a Deathless Hydra does not come
    back at the end of the turn, a Fairy's Death draw does not happen."""
    s = build_position(hands=(["RiftBlast", "RiftBlast"], []), boards=([], ["Hydra", "Fairy"]))
    play(s, "RiftBlast", target=unit(s, "Hydra", 1))
    play(s, "RiftBlast", target=unit(s, "Fairy", 1))
    assert s.match.board[1] == [] and side(s, 1).crypt == [] and hand(s, 1) == []
    assert side(s, 0).energy == 12
    end_turn(s)
    assert find(s, "Hydra") == []


@covers("GoldMine")
def test_gold_mine_draws_and_wears_out_at_dusk():
    """Gold Mine (Dusk: draw 1, then -0/-1 to itself): its owner draws at the end of the turn and the Mine drops
    to 0/2; a Mine at 1 life draws, then dies into the crypt."""
    s = build_position(boards=(["GoldMine"], []), decks=(("Bear",) * 3, ("Minotaur",) * 3))
    end_turn(s)
    assert hand(s, 0) == ["Bear"] and stats(unit(s, "GoldMine", 0)) == (0, 2)
    s = build_position(boards=([{"card": "GoldMine", "life": 1}], []), decks=(("Bear",) * 3, ("Minotaur",) * 3))
    end_turn(s)
    assert hand(s, 0) == ["Bear"] and find(s, "GoldMine") == [] and side(s, 0).crypt == ["GoldMine"]


@covers("GoldMine")
def test_gold_mine_cannot_attack():
    """Gold Mine (CannotAttack)."""
    s = build_position(boards=(["GoldMine"], []))
    assert not can_attack_action(s, unit(s, "GoldMine", 0))


# ==================================================================================================================
# Growth
# ==================================================================================================================
@covers("Flourishing")
def test_flourishing_grows_resources_three_dawns_then_discharges():
    """Flourishing (power 3, Discharge 1; Dawn: +1 energy, +1 max energy, +1 growth): three owner turn starts each
    give +1/+1/+1 growth, and the third one's discharge (power 0) sends it to the crypt."""
    s = build_position(turn_player=1, boards=(["Flourishing"], []))
    s.apply(L.PASS)  # player 0's dawn
    me = side(s, 0)
    assert (me.energy, me.max_energy, me.res) == (25, 25, [6, 7, 6, 6])
    assert unit(s, "Flourishing", 0).power == 2
    end_turn(s)  # +1 renewal
    end_turn(s)
    assert (me.energy, me.max_energy, me.res) == (27, 27, [6, 8, 6, 7])
    assert unit(s, "Flourishing", 0).power == 1
    end_turn(s)
    end_turn(s)
    assert (me.energy, me.max_energy, me.res) == (29, 29, [6, 9, 6, 8])
    assert find(s, "Flourishing") == [] and me.crypt == ["Flourishing"]


@covers("Fairy")
def test_fairy_draws_for_its_owner_when_it_dies():
    """Fairy (1/1 Flying; Death: draw 1): bitten by the enemy, its owner draws a card."""
    s = build_position(hands=(["Bite"], []), boards=(["Bear"], ["Fairy"]), decks=(("Minotaur",), ("Dragon",)))
    play(s, "Bite", target=unit(s, "Fairy", 1))
    assert find(s, "Fairy") == [] and side(s, 1).crypt == ["Fairy"]
    assert hand(s, 1) == ["Dragon"] and hand(s, 0) == []


@covers("BotanicElemental")
def test_botanic_elemental_grows_each_owner_dawn():
    """Botanic Elemental (Dawn: +1/+1 to itself): 3/3 becomes 4/4 at its owner's turn start, 5/5 at the next,
    and not at the opponent's."""
    s = build_position(turn_player=1, boards=(["BotanicElemental"], []))
    s.apply(L.PASS)
    bot = unit(s, "BotanicElemental", 0)
    assert stats(bot) == (4, 4)
    end_turn(s)
    assert stats(bot) == (4, 4)
    end_turn(s)
    assert stats(bot) == (5, 5)


@covers("ElderDragon")
def test_elder_dragon_needs_an_enemy_unit_and_deals_8():
    """Elder Dragon (10 energy, 6 growth; Play: 8 to an enemy unit, mandatory): not playable with no enemy unit
    (even with friendly ones); with an enemy Battleship (7/7) it kills it and enters as an 8/8 Flyer."""
    s = build_position(hands=(["ElderDragon"], []), boards=(["Bear"], []))
    assert not can_play(s, "ElderDragon")
    s = build_position(hands=(["ElderDragon"], []), boards=(["Bear"], ["Battleship"]))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [BOARD_SLOTS]
    s.apply(L.TARGET + BOARD_SLOTS)
    assert find(s, "Battleship") == [] and side(s, 1).crypt == ["Battleship"]
    dragon = unit(s, "ElderDragon", 0)
    assert stats(dragon) == (8, 8) and "Flying" in dragon.kw and side(s, 0).energy == 14


@covers("DrainingTree", "ResearchAI", "ForceField", "AssemblyLine")
def test_draining_tree_drains_every_enchantment_into_stats():
    """Draining Tree (Dawn: every enchantment on both sides loses 1 power; +X/+X for the power removed): with an
    own Research A.I and the enemy's Forcefield and Assembly Line, it becomes 3/7 and the power-1 Assembly Line is
    dispelled into its owner's crypt."""
    s = build_position(turn_player=1, boards=(["DrainingTree", "ResearchAI"], ["ForceField", "AssemblyLine"]))
    s.apply(L.PASS)
    assert stats(unit(s, "DrainingTree", 0)) == (3, 7)
    assert unit(s, "ResearchAI", 0).power == 2 and unit(s, "ForceField", 1).power == 11
    assert find(s, "AssemblyLine") == [] and side(s, 1).crypt == ["AssemblyLine"]
    assert not can_attack_action(s, unit(s, "DrainingTree", 0))


@covers("ElvenBow")
def test_elven_bow_pings_any_unit():
    """Elven Bow (+1/+0, Ranged; Play: 1 to any unit): target choices are every unit on both sides; the host
    becomes 5/5 Ranged and an enemy Spiderling dies."""
    s = build_position(hands=(["ElvenBow"], []), boards=(["Minotaur"], ["Bear", "Spiderling"]))
    mino = unit(s, "Minotaur", 0)
    s.apply(L.PLAY + 0)
    s.apply(L.TARGET + 0)
    assert target_actions(s) == [0, BOARD_SLOTS, BOARD_SLOTS + 1]
    s.apply(L.TARGET + BOARD_SLOTS + 1)
    assert stats(mino) == (5, 5) and "Ranged" in mino.kw
    assert find(s, "Spiderling") == [] and side(s, 0).energy == 23


@covers("DeadlyPlague")
def test_deadly_plague_poisons_all_units_each_turn_start_then_discharges():
    """Deadly Plague (power 1, Discharge 1; Cycle: poison every unit): it poisons every unit at the opponent's next
    turn start and again at its owner's, then discharges (crypt): every non-robotic unit ends at poison 2; robots
    stay clean."""
    s = build_position(hands=(["DeadlyPlague"], []), boards=(["Minotaur"], ["Bear", "Golem"]))
    play(s, "DeadlyPlague")
    mino, bear, golem = unit(s, "Minotaur", 0), unit(s, "Bear", 1), unit(s, "Golem", 1)
    assert "poison" not in mino.st
    end_turn(s)  # player 1's turn start: everyone poisoned, player 1's units tick
    assert mino.st["poison"] == 1 and bear.st["poison"] == 1 and stats(bear) == (2, 3)
    assert stats(mino) == (4, 5)
    end_turn(s)  # player 0's turn start: poisoned again, plague discharges
    assert mino.st["poison"] == 2 and bear.st["poison"] == 2 and stats(mino) == (2, 3)
    assert find(s, "DeadlyPlague") == [] and side(s, 0).crypt == ["DeadlyPlague"]
    assert "poison" not in golem.st and stats(golem) == (3, 3)
    end_turn(s)
    assert stats(bear) == (0, 1)
    end_turn(s)
    assert bear.st["poison"] == 2  # no more plague


@covers("SleepDart")
def test_sleep_dart_keeps_a_unit_exhausted_for_three_owner_turns():
    """Sleep Dart (SleepableUnit, 3 turns): the unit is exhausted now (cannot block) and stays exhausted through
    its owner's next three turn starts; on the fourth it can attack again."""
    s = build_position(hands=(["SleepDart"], []), boards=(["Bear"], ["Minotaur"]))
    mino = unit(s, "Minotaur", 1)
    play(s, "SleepDart", target=mino)
    assert mino.exhausted and mino.st["sleep"] == 3 and not mino.can_block(unit(s, "Bear", 0))
    assert side(s, 0).energy == 23
    for left in (2, 1, 0):
        end_turn(s)  # player 1's turn starts
        assert mino.exhausted and mino.st["sleep"] == left
        assert not can_attack_action(s, mino)
        end_turn(s)
    end_turn(s)
    assert not mino.exhausted and can_attack_action(s, mino)


@covers("SleepDart")
def test_sleep_dart_again_adds_one_turn():
    """Sleep Dart on a sleeping unit stacks by one turn (Sleeping.stack), not three."""
    s = build_position(hands=(["SleepDart", "SleepDart"], []), boards=([], ["Minotaur"]))
    mino = unit(s, "Minotaur", 1)
    play(s, "SleepDart", target=mino)
    play(s, "SleepDart", target=mino)
    assert mino.st["sleep"] == 4


@covers("CreepingCorrosion")
def test_creeping_corrosion_poisons_units_with_life_at_most_4():
    """Creeping Corrosion (poison every unit, both sides, with current life <= 4): a Bear (4) and a damaged
    Minotaur (life 4) are poisoned, a full Minotaur (5) and a robotic Golem are not."""
    s = build_position(hands=(["CreepingCorrosion"], []),
                       boards=(["Bear", "Minotaur"], [{"card": "Minotaur", "hurt": 1}, "Golem"]))
    play(s, "CreepingCorrosion")
    assert unit(s, "Bear", 0).st.get("poison") == 1
    assert "poison" not in unit(s, "Minotaur", 0).st
    assert unit(s, "Minotaur", 1).st.get("poison") == 1
    assert "poison" not in unit(s, "Golem", 1).st
    assert side(s, 0).energy == 21


@covers("EvolutionaryLeap", "Bear", "Minotaur", "ChargingTiger", "Dragon")
def test_evolutionary_leap_buffs_every_unit_of_the_chosen_type():
    """Evolutionary Leap (UnitsOfTypeAsTarget: +4/+4, Relentless, Flying, Venomous): choosing a Bear (Mammal) buffs
    every Mammal on both sides; a Dragon is untouched."""
    s = build_position(hands=(["EvolutionaryLeap"], []), boards=(["Bear", "Minotaur"], ["ChargingTiger", "Dragon"]))
    play(s, "EvolutionaryLeap", target=unit(s, "Bear", 0))
    for cid, p, st in (("Bear", 0, (7, 8)), ("Minotaur", 0, (8, 9)), ("ChargingTiger", 1, (7, 6))):
        u = unit(s, cid, p)
        assert stats(u) == st and {"Relentless", "Flying", "Venomous"} <= u.kw
    dragon = unit(s, "Dragon", 1)
    assert stats(dragon) == (6, 4) and "Venomous" not in dragon.kw
    assert side(s, 0).energy == 15


@covers("FireElemental")
def test_flame_ifrit_hits_all_other_units_for_3():
    """Flame Ifrit (Play: 3 to all other units, both sides): a friendly Bear drops to 1, an enemy Minotaur to 2, a
    Spiderling dies; the Ifrit itself enters unhurt as 8/4."""
    s = build_position(hands=(["FireElemental"], []), boards=(["Bear"], ["Minotaur", "Spiderling"]))
    play(s, "FireElemental")
    assert unit(s, "Bear", 0).life == 1 and unit(s, "Minotaur", 1).life == 2
    assert find(s, "Spiderling") == []
    assert stats(unit(s, "FireElemental", 0)) == (8, 4)
    assert side(s, 0).life == side(s, 1).life == 25


@covers("GiantClub")
def test_giant_club_adds_5_5():
    """Giant Club (+5/+5): a Minotaur becomes 9/10; when the host dies the club goes to the crypt too."""
    s = build_position(hands=(["GiantClub", "EnergyBeam"], []), boards=(["Minotaur"], []),
                       resources=((10, 6, 6, 6), (6, 6, 6, 6)))
    mino = unit(s, "Minotaur", 0)
    play(s, "GiantClub", host=mino)
    assert stats(mino) == (9, 10) and side(s, 0).energy == 23
    play(s, "EnergyBeam", target=mino)
    assert find(s, "Minotaur") == [] and sorted(side(s, 0).crypt) == ["EnergyBeam", "GiantClub", "Minotaur"]


@covers("SnappingCobra")
def test_snapping_cobra_lethal_in_combat():
    """Snapping Cobra (1/2 Lethal): blocked by a Minotaur, its 1 damage kills it; the Cobra dies too."""
    s = build_position(boards=(["SnappingCobra"], ["Minotaur"]))
    cobra, mino = unit(s, "SnappingCobra", 0), unit(s, "Minotaur", 1)
    attack_and_block(s, [cobra], [(mino, cobra)])
    assert s.match.board == ([], [])
    assert side(s, 0).crypt == ["SnappingCobra"] and side(s, 1).crypt == ["Minotaur"]


@covers("GreatWhale")
def test_great_whale_target_never_matches_and_it_gains_2_life():
    """Great Whale (Play: gain 2 life; optional target UnitWithAbility 'aquatic', which matches nothing because the
    id is 'Aquatic'): even with a Mermaid on the board, the only choice is no target; its owner gains 2."""
    s = build_position(hands=(["GreatWhale"], []), boards=(["Mermaid"], ["Mermaid"]))
    s.apply(L.PLAY + 0)
    assert s.phase == "target" and [int(a) for a in s.legal_actions()] == [L.NO_TARGET]
    s.apply(L.NO_TARGET)
    assert side(s, 0).life == 27 and side(s, 1).life == 25
    whale = unit(s, "GreatWhale", 0)
    assert stats(whale) == (2, 5) and "Aquatic" in whale.kw
    assert len(find(s, "Mermaid")) == 2


@covers("Kraken")
def test_kraken_kills_an_optional_aquatic_target():
    """Shipwrecker Kraken (Play: kill an Aquatic unit, optional): only Aquatic units (either side) are choices;
    it kills the enemy Mermaid; it may also be played with no target."""
    s = build_position(hands=(["Kraken", "Kraken"], []), boards=(["Battleship"], ["Mermaid", "Minotaur"]))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [0, BOARD_SLOTS] and L.NO_TARGET in s.legal_actions()
    s.apply(L.TARGET + BOARD_SLOTS)
    assert find(s, "Mermaid") == [] and side(s, 1).crypt == ["Mermaid"]
    assert stats(unit(s, "Kraken", 0)) == (5, 5)
    play(s, "Kraken")  # no target
    assert len(find(s, "Kraken", 0)) == 2 and len(find(s, "Battleship")) == 1


@covers("ChargingTiger")
def test_charging_tiger_rush_attacks_the_turn_it_is_played():
    """Charging Tiger (3/2 Rush): ready on entering, it attacks at once for 3."""
    s = build_position(hands=(["ChargingTiger"], []))
    play(s, "ChargingTiger")
    tiger = unit(s, "ChargingTiger", 0)
    assert tiger.ready and can_attack_action(s, tiger)
    attack_and_block(s, [tiger])
    assert side(s, 1).life == 22


@covers("Hydra")
def test_hydra_returns_twice_growing_each_death():
    """Hydra (Deathless 2; Death: +1/+1 to itself): killed, it returns at the end of that turn as 6/6 (not ready),
    killed again it returns as 7/7, the third death is final (stays in the crypt)."""
    s = build_position(hands=(["EnergyBeam", "EnergyBeam"], ["EnergyBeam"]), boards=(["Hydra"], []),
                       resources=((8, 6, 6, 6), (8, 6, 6, 6)))
    hydra = unit(s, "Hydra", 0)
    play(s, "EnergyBeam", target=hydra)
    assert find(s, "Hydra") == [] and side(s, 0).crypt == ["Hydra", "EnergyBeam"]  # the spell after its effect
    end_turn(s)
    hydra = unit(s, "Hydra", 0)
    assert stats(hydra) == (6, 6) and not hydra.ready and "Hydra" not in side(s, 0).crypt
    assert hydra.st["deathless"] == 1
    assert "Flying" in hydra.kw
    play(s, "EnergyBeam", target=hydra)  # player 1
    assert find(s, "Hydra") == []
    end_turn(s)
    hydra = unit(s, "Hydra", 0)
    assert stats(hydra) == (7, 7) and hydra.st.get("deathless", 0) == 0
    play(s, "EnergyBeam", target=hydra)
    end_turn(s)
    assert find(s, "Hydra") == [] and side(s, 0).crypt.count("Hydra") == 1


@covers("Hydra")
def test_hydra_loses_deathless_after_its_last_return():
    """Hydra: after its second return (charges 0) it no longer has the Deathless ability."""
    s = build_position(hands=(["EnergyBeam", "EnergyBeam"], []), boards=(["Hydra"], []),
                       resources=((8, 6, 6, 6), (6, 6, 6, 6)))
    play(s, "EnergyBeam", target=unit(s, "Hydra", 0))
    end_turn(s)
    end_turn(s)
    play(s, "EnergyBeam", target=unit(s, "Hydra", 0))
    end_turn(s)
    hydra = unit(s, "Hydra", 0)
    assert stats(hydra) == (7, 7)
    assert "Deathless" not in hydra.kw


@covers("NeuralResonance")
def test_synaptic_resonance_draws_attack_plus_max_life_over_3():
    """Synaptic Resonance (friendly unit; draw floor((attack + max life) / 3)): a damaged Minotaur (4/5, life 2)
    draws 3; enemy units are not choices."""
    s = build_position(hands=(["NeuralResonance"], []), boards=([{"card": "Minotaur", "hurt": 3}], ["Dragon"]))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [0]
    s.apply(L.TARGET + 0)
    assert hand(s, 0) == ["Minotaur"] * 3 and side(s, 0).energy == 18


@covers("NeuralResonance", "Spiderling")
def test_synaptic_resonance_rounds_down():
    """Synaptic Resonance on a 1/1 Spiderling draws floor(2/3) = 0."""
    s = build_position(hands=(["NeuralResonance"], []), boards=(["Spiderling"], []))
    play(s, "NeuralResonance", target=unit(s, "Spiderling", 0))
    assert hand(s, 0) == []


@covers("NaturesBounty")
def test_natures_bounty_life_energy_and_growth():
    """Nature's Bounty (gain 2 life; +1 energy, +1 max energy, +1 growth): 24 energy - 3 + 1 = 22, max 25,
    growth 7, life 27."""
    s = build_position(hands=(["NaturesBounty"], []))
    play(s, "NaturesBounty")
    me = side(s, 0)
    assert (me.life, me.energy, me.max_energy, me.res) == (27, 22, 25, [6, 7, 6, 6])


@covers("Webspit", "Dragon")
def test_spit_web_exhausts_and_removes_flying_for_good():
    """Spit Web (exhaust a unit, remove its Flying permanently): an enemy Dragon cannot block now; at its owner's
    turn it is refreshed but still has no Flying, so a ground Minotaur may block it."""
    s = build_position(hands=(["Webspit"], []), boards=(["Minotaur"], ["Dragon"]))
    dragon, mino = unit(s, "Dragon", 1), unit(s, "Minotaur", 0)
    play(s, "Webspit", target=dragon)
    assert dragon.exhausted and "Flying" not in dragon.kw and not dragon.can_block(mino)
    assert side(s, 0).energy == 23
    end_turn(s)
    assert not dragon.exhausted and "Flying" not in dragon.kw
    assert mino.can_block(dragon)


@covers("Bite")
def test_bite_uses_your_strongest_units_attack():
    """Bite (damage = the highest attack among the caster's units): with a Minotaur (4) and a Bear (3) it deals 4,
    killing a 6/4 Dragon; with no units of your own it deals 0."""
    s = build_position(hands=(["Bite"], []), boards=(["Bear", "Minotaur"], ["Dragon", "Bear"]))
    play(s, "Bite", target=unit(s, "Dragon", 1))
    assert find(s, "Dragon") == [] and side(s, 0).energy == 22
    s = build_position(hands=(["Bite"], []), boards=([], ["Bear"]))
    play(s, "Bite", target=unit(s, "Bear", 1))
    assert unit(s, "Bear", 1).life == 4


@covers("SweetFragrance")
def test_soporific_pollen_puts_enemy_units_to_sleep_for_one_turn():
    """Soporific Pollen (sleep 1 turn on every enemy unit): enemy units are exhausted now (cannot block), stay
    exhausted through their owner's next turn, and are free the turn after; robots and own units are untouched."""
    s = build_position(hands=(["SweetFragrance"], []), boards=(["Bear"], ["Minotaur", "Golem"]))
    play(s, "SweetFragrance")
    mino, golem, bear = unit(s, "Minotaur", 1), unit(s, "Golem", 1), unit(s, "Bear", 0)
    assert mino.exhausted and mino.st["sleep"] == 1 and not mino.can_block(bear)
    assert not golem.exhausted and golem.can_block(bear) and not bear.exhausted
    end_turn(s)
    assert mino.exhausted and not can_attack_action(s, mino) and can_attack_action(s, golem)
    end_turn(s)
    end_turn(s)
    assert not mino.exhausted and can_attack_action(s, mino)


@covers("Spiderling")
def test_spiderling_venom_poisons_what_it_damages():
    """Toxic Spiderling (1/1 Venomous): blocked by a Minotaur, the Minotaur is poisoned (and hurt 1); it loses 1/1
    at its owner's turn start."""
    s = build_position(boards=(["Spiderling"], ["Minotaur"]))
    sp, mino = unit(s, "Spiderling", 0), unit(s, "Minotaur", 1)
    attack_and_block(s, [sp], [(mino, sp)])
    assert mino.st["poison"] == 1 and mino.life == 4 and find(s, "Spiderling") == []
    end_turn(s)
    assert stats(mino) == (3, 4)


@covers("Wasp")
def test_wasp_flying_and_venomous():
    """Wasp (1/1 Flying, Venomous): a ground Bear cannot block it; a blocking Airship is poisoned."""
    s = build_position(boards=(["Wasp"], ["Bear", "Airship"]))
    wasp, ship = unit(s, "Wasp", 0), unit(s, "Airship", 1)
    assert not unit(s, "Bear", 1).can_block(wasp)
    attack_and_block(s, [wasp], [(ship, wasp)])
    assert ship.st["poison"] == 1 and ship.life == 2 and find(s, "Wasp") == []


@covers("WolfPup", "Werewolf")
def test_wolf_pup_affinity_once():
    """Wolf Pup (Affinity: +0/+1 to itself, once): the first other friendly Wolf entering makes it 2/2; a second
    one does nothing more."""
    s = build_position(hands=(["Werewolf", "WolfPup"], []), boards=(["WolfPup"], []))
    pup = unit(s, "WolfPup", 0)
    play(s, "Werewolf")
    assert stats(pup) == (2, 2)
    play(s, "WolfPup")
    assert stats(pup) == (3, 2)  # +1/+0 from the Werewolf's own Affinity, no second +0/+1


@covers("SpiderHatchling", "Spiderling")
def test_spider_hatchling_affinity_once():
    """Spider Hatchling (Affinity: +1/+0 to itself, once): a friendly Spiderling entering makes it 3/3; a second
    one does not; an enemy Spider does not count."""
    s = build_position(hands=(["Spiderling", "Spiderling"], []), boards=(["SpiderHatchling"], ["SpiderQueen"]))
    hatch = unit(s, "SpiderHatchling", 0)
    play(s, "Spiderling")
    assert stats(hatch) == (3, 3)
    play(s, "Spiderling")
    assert stats(hatch) == (3, 3)


@covers("Werewolf", "WolfPup")
def test_werewolf_affinity_buffs_every_wolf_once():
    """Werewolf (Affinity: +1/+0 to every Wolf, both sides, itself included, once): when a friendly Wolf Pup
    enters, the Werewolf, the new Pup and an enemy Pup gain +1/+0; a later Pup does not set it off again."""
    s = build_position(hands=(["WolfPup", "WolfPup"], []), boards=(["Werewolf"], ["WolfPup"]))
    wolf, enemy_pup = unit(s, "Werewolf", 0), unit(s, "WolfPup", 1)
    play(s, "WolfPup")
    new_pup = find(s, "WolfPup", 0)[0]
    assert stats(wolf) == (4, 3) and stats(new_pup) == (3, 1) and stats(enemy_pup) == (3, 1)
    play(s, "WolfPup")
    assert stats(wolf) == (4, 3) and stats(enemy_pup) == (3, 1)
    assert stats(find(s, "WolfPup", 0)[1]) == (2, 1)
    assert stats(new_pup) == (3, 2)  # the first pup's own Affinity: +0/+1 when the second enters


@covers("WolfHowl", "WolfPup")
def test_wolf_howl_summons_two_pups():
    """Wolf Howl (summon 2 Wolf Pups): two not-ready pups; the first one's Affinity fires when the second enters
    (2/2 and 2/1)."""
    s = build_position(hands=(["WolfHowl"], []))
    play(s, "WolfHowl")
    pups = find(s, "WolfPup", 0)
    assert [stats(p) for p in pups] == [(2, 2), (2, 1)]
    assert not any(p.ready for p in pups)
    assert side(s, 0).energy == 20 and side(s, 0).crypt == ["WolfHowl"]


@covers("WolfHowl")
def test_wolf_howl_on_a_nearly_full_board():
    """Wolf Howl with 6 permanents: the first Pup takes the last slot, the second dies on entering (crypt)."""
    s = build_position(hands=(["WolfHowl"], []), boards=(["Bear"] * 6, []))
    play(s, "WolfHowl")
    assert len(find(s, "WolfPup", 0)) == 1 and len(s.match.board[0]) == BOARD_SLOTS
    assert sorted(side(s, 0).crypt) == ["WolfHowl", "WolfPup"]


@covers("mutation")
def test_metabolic_mutation_buffs_and_grants_relentless():
    """Metabolic Mutation (BiologicalUnit: +2/+2, Relentless): machines are not choices; a Minotaur becomes 6/7
    Relentless and is refreshed at the end of the turn after attacking."""
    s = build_position(hands=(["mutation"], []), boards=(["Minotaur", "Golem"], []))
    s.apply(L.PLAY + 0)
    assert target_actions(s) == [0]
    s.apply(L.TARGET + 0)
    mino = unit(s, "Minotaur", 0)
    assert stats(mino) == (6, 7) and "Relentless" in mino.kw
    attack_and_block(s, [mino])
    assert side(s, 1).life == 19 and mino.exhausted
    end_turn(s)
    assert not mino.exhausted


@covers("SpiderQueen", "Spiderling")
def test_spider_queen_summons_a_spiderling_when_it_kills_in_combat():
    """Spider Queen (LethalStrike: summon a Spiderling): attacking, it kills a blocking Spiderling and its owner
    gets a Spiderling (not ready); a kill by a spell does not count."""
    s = build_position(boards=(["SpiderQueen"], ["Spiderling"]))
    queen, foe = unit(s, "SpiderQueen", 0), unit(s, "Spiderling", 1)
    attack_and_block(s, [queen], [(foe, queen)])
    assert find(s, "Spiderling", 1) == []
    (spawn,) = find(s, "Spiderling", 0)
    assert not spawn.ready and queen.st["poison"] == 1


@covers("SpiderQueen")
def test_spider_queen_strike_fires_even_if_it_dies():
    """Spider Queen: LethalStrike fires when its opponent died even if the Queen died in the same fight (blocking
    a Bear at life 3 with the Queen at life 3: both die, the Queen's owner still gets a Spiderling)."""
    s = build_position(turn_player=1, boards=([{"card": "SpiderQueen", "hurt": 3}], [{"card": "Bear", "hurt": 1}]))
    bear, queen = unit(s, "Bear", 1), unit(s, "SpiderQueen", 0)
    attack_and_block(s, [bear], [(queen, bear)])
    assert find(s, "SpiderQueen") == [] and find(s, "Bear") == []
    assert len(find(s, "Spiderling", 0)) == 1


@covers("SpiderQueen")
def test_spider_queen_no_spawn_without_a_kill():
    """Spider Queen: a fight the opponent survives summons nothing."""
    s = build_position(boards=(["SpiderQueen"], ["Minotaur"]))
    queen, mino = unit(s, "SpiderQueen", 0), unit(s, "Minotaur", 1)
    attack_and_block(s, [queen], [(mino, queen)])
    assert find(s, "Spiderling") == [] and mino.life == 2


@covers("AncientBeast")
def test_ancient_beast_relentless_blocks_after_attacking():
    """Ancient Beast (5/5 Relentless): after attacking it is refreshed at the end of the turn and may block on the
    enemy's turn."""
    s = build_position(boards=(["AncientBeast"], ["Bear"]))
    beast = unit(s, "AncientBeast", 0)
    attack_and_block(s, [beast])
    assert side(s, 1).life == 20 and beast.exhausted
    end_turn(s)
    assert not beast.exhausted
    s.apply(L.RESOURCE + 3)
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "block" and L.BLOCK + BOARD_SLOTS * 0 + 0 in s.legal_actions()


@covers("AncientBeast", "SleepDart")
def test_relentless_wakes_a_sleeping_unit_at_each_turn_end():
    """Ancient Beast slept by Sleep Dart: Relentless un-exhausts it at the end of the caster's turn (it can block
    then), but Sleeping exhausts it again at its owner's turn start."""
    s = build_position(hands=(["SleepDart"], []), boards=(["Bear"], ["AncientBeast"]))
    beast = unit(s, "AncientBeast", 1)
    play(s, "SleepDart", target=beast)
    assert beast.exhausted
    s.apply(L.PASS)  # end of player 0's turn (Relentless), then player 1's turn start (sleep)
    assert beast.exhausted and beast.st["sleep"] == 2 and not can_attack_action(s, beast)
    end_turn(s)  # Relentless at the end of player 1's turn
    assert not beast.exhausted and beast.can_block(unit(s, "Bear", 0))


@covers("Dragon", "Bear", "Minotaur")
def test_dragon_flies_over_ground_blockers():
    """Dragon (6/4 Flying): ground Bear and Minotaur cannot block it; the enemy takes 6."""
    s = build_position(boards=(["Dragon"], ["Bear", "Minotaur"]))
    dragon = unit(s, "Dragon", 0)
    assert not any(b.can_block(dragon) for b in s.match.board[1])
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert side(s, 1).life == 19


@covers("Minotaur", "Bear")
@pytest.mark.parametrize("cid,printed", [("Minotaur", (4, 5)), ("Bear", (3, 4))])
def test_vanilla_mammals_fight_with_printed_stats(cid, printed):
    """Minotaur (vanilla 4/5) and Bear (vanilla 3/4): in combat against a 3/3 Golem each deals its printed attack
    (killing the Golem) and takes 3."""
    s = build_position(boards=([cid], ["Golem"]))
    u, golem = unit(s, cid, 0), unit(s, "Golem", 1)
    assert stats(u) == printed and u.kw == frozenset()
    attack_and_block(s, [u], [(golem, u)])
    assert find(s, "Golem") == [] and u.life == printed[1] - 3


@covers("Eruption", "Battleship", "Hydra")
def test_eruption_hits_every_unit_for_5():
    """Eruption (5 to all units, both sides): Minotaurs (5 life) die, a Battleship is left at 2, a friendly Hydra
    dies (and comes back at the end of the turn, Deathless); players are untouched."""
    s = build_position(hands=(["Eruption"], []), boards=(["Minotaur", "Hydra"], ["Minotaur", "Battleship"]))
    play(s, "Eruption")
    assert [u.card.id for u in s.match.board[0]] == []
    assert [u.card.id for u in s.match.board[1]] == ["Battleship"] and unit(s, "Battleship", 1).life == 2
    assert side(s, 0).life == side(s, 1).life == 25 and side(s, 0).energy == 18
    end_turn(s)
    assert stats(unit(s, "Hydra", 0)) == (6, 6)


@covers("Mermaid")
def test_mermaid_cannot_block_ground_units():
    """Mermaid (2/2 Aquatic): it cannot block a ground Bear (Aquatic blockers block only Aquatic attackers), so
    the Bear's attack goes straight through."""
    s = build_position(boards=(["Bear"], ["Mermaid"]))
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "play2" and side(s, 1).life == 22


def test_every_synthesis_and_growth_card_is_covered():
    """Coverage: the cards exercised by the dedicated behaviour tests (``covers``) are exactly the Synthesis and
    Growth cards (71), on top of the cost test that plays every one of them."""
    assert len(FACTION_IDS) == 71
    assert COVERED == FACTION_IDS

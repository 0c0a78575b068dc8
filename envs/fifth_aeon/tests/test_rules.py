"""Fifth Aeon rules: one test per rule, mostly from hand-built positions (``positions.build_position``).

The spec is ``shared/data/fifthaeon_rules.md`` (constants, turn structure), ``runs/fa_semantics.md`` (the model)
and ``runs/fa_decisions.md`` (our decisions, which win where they apply). Card numbers used (cards.json):
Minotaur 4/5 (4 energy, growth 4), Knight 3/3, Bear 3/4, Pikeman 2/1, Castle 4/7 CannotAttack, Dragon 6/4 Flying,
Imp 1/1 Flying, Archer 1/2 Ranged, Mermaid 2/2 Aquatic, Naval Galley 2/3 Aquatic, Submarine 3/4 Aquatic
Unblockable, Valiant Defenses (enchantment, power 3, empower 3), Assembly Line (enchantment, power 1, empower 5).
"""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cardboard.envs.errors import CardDataError, IllegalActionError
from cardboard.envs.fifth_aeon import FifthAeonGame
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon import flat_layout as F
from cardboard.envs.fifth_aeon.cards import DECK_LIST, bundled_pool, load_deck, load_pool
from cardboard.envs.fifth_aeon.constants import BOARD_SLOTS, MAX_TURNS, STARTING_LIFE
from cardboard.envs.fifth_aeon.positions import attack_and_block, build_position, find, play, unit
from cardboard.envs.fifth_aeon.board import OWNER_KNOWS

GAME = FifthAeonGame(("March of Undeath", "The King's Legions"))


# -- helpers ------------------------------------------------------------------------------------------------------
def legal(s) -> set[int]:
    return set(s.legal_actions().tolist())


def slot(s, u) -> int:
    return s.match.board[u.owner].index(u)


def block_id(s, blocker, attacker) -> int:
    return L.BLOCK + BOARD_SLOTS * slot(s, blocker) + slot(s, attacker)


def finish_turn(s) -> None:
    """The turn player plays a growth resource if it still must, then passes (no attack)."""
    m = s.match
    if not m.sides[m.acting].played_resource:
        s.apply(L.RESOURCE + 1)
    s.apply(L.PASS)


def declare(s, *attackers) -> None:
    """The turn player declares ``attackers`` and passes Play1 (playing a growth resource first if it must)."""
    if not s.match.sides[s.match.acting].played_resource:
        s.apply(L.RESOURCE + 1)
    for a in attackers:
        s.apply(L.ATTACK + slot(s, a))
    s.apply(L.PASS)


def keep_all(s) -> None:
    """Both players keep their opening hands."""
    while s.phase == "choice":
        s.apply(L.CHOICE_DONE)


# -- set-up -------------------------------------------------------------------------------------------------------
def test_opening_hands_player0_three_plus_draw_player1_four():
    """At the mulligan player 0 holds 3 + its turn-1 draw = 4 cards, player 1 holds 4; decks are 40 - 4."""
    s = GAME.new_state(3)
    m = s.match
    assert s.phase == "choice" and s.turn == 0 and m.turn_player == 0
    assert [len(x.hand) for x in m.sides] == [4, 4]
    assert [len(x.deck) for x in m.sides] == [36, 36]
    keep_all(s)
    finish_turn(s)
    assert m.turn_player == 1 and len(m.sides[1].hand) == 5 and len(m.sides[0].hand) == 4


def test_both_mulligans_are_choices_player0_first():
    """Both players get a replace choice over their whole hand (0..all cards), player 0 first, then player 1."""
    s = GAME.new_state(4)
    m = s.match
    assert [(c.player, c.kind, c.min_n, c.max_n) for c in m.choices] == [(0, "replace", 0, 4), (1, "replace", 0, 4)]
    assert s.current_player == 0
    assert legal(s) == {L.OPTION + i for i in range(4)} | {L.CHOICE_DONE}
    s.apply(L.CHOICE_DONE)
    assert s.current_player == 1 and s.phase == "choice"
    s.apply(L.CHOICE_DONE)
    assert s.current_player == 0 and s.phase == "play1" and s.turn == 0


def test_mulligan_puts_cards_at_the_bottom_and_redraws_from_the_top():
    """Replaced cards go to the deck bottom (known to their owner) and as many are drawn from the top."""
    s = GAME.new_state(5)
    side = s.match.sides[0]
    hand_before = [h[0] for h in side.hand]
    top_before = list(side.deck[:2])
    s.apply(L.OPTION + 0)
    s.apply(L.OPTION + 2)
    s.apply(L.CHOICE_DONE)
    assert len(side.hand) == 4 and len(side.deck) == 36
    assert Counter(side.deck[-2:]) == Counter([hand_before[0], hand_before[2]])
    assert side.deck_vis[-2:] == [OWNER_KNOWS, OWNER_KNOWS]
    assert Counter(h[0] for h in side.hand) == Counter([hand_before[1], hand_before[3]] + top_before)


def test_starting_life_is_25():
    """Both players start at 25 life."""
    s = GAME.new_state(0)
    assert STARTING_LIFE == 25
    assert [x.life for x in s.match.sides] == [25, 25]


# -- resources ----------------------------------------------------------------------------------------------------
def test_resource_play_gives_energy_max_and_threshold_once_a_turn():
    """A resource: +1 energy now, +1 maximum, +1 of its type; only one per turn."""
    s = build_position(resources=((1, 2, 0, 0), (0, 0, 0, 0)), energy=(1, 0), played_resource=False)
    side = s.match.sides[0]
    assert {L.RESOURCE + r for r in range(4)} <= legal(s)
    s.apply(L.RESOURCE + 2)  # decay
    assert (side.energy, side.max_energy, side.res) == (2, 4, [1, 2, 1, 0])
    assert not any(L.RESOURCE <= a < L.PLAY for a in legal(s))


def test_pass_illegal_before_the_resource_play():
    """PASS is not legal until the turn's resource was played (decision: the resource play is mandatory)."""
    s = build_position(played_resource=False)
    assert L.PASS not in legal(s)
    with pytest.raises(IllegalActionError):
        s.apply(L.PASS)
    s.apply(L.RESOURCE + 0)
    assert L.PASS in legal(s)


def test_thresholds_are_not_spent():
    """Playing a card spends energy only; the resource-type counts are thresholds and stay."""
    s = build_position(hands=(("Minotaur",), ()), resources=((0, 4, 0, 0), (0, 0, 0, 0)))
    play(s, "Minotaur")
    side = s.match.sides[0]
    assert side.energy == 0 and side.max_energy == 4 and side.res == [0, 4, 0, 0]


def test_thresholds_gate_playability():
    """A card whose type requirement is unmet is unplayable even with enough energy."""
    s = build_position(hands=(("Minotaur",), ()), resources=((4, 3, 0, 0), (0, 0, 0, 0)))
    assert L.PLAY + 0 not in legal(s)


def test_energy_refills_at_turn_start():
    """Energy spent this turn is back to the maximum at the owner's next turn start."""
    s = build_position(resources=((3, 0, 0, 0), (0, 0, 0, 0)), energy=(0, 0))
    finish_turn(s)
    finish_turn(s)
    assert s.match.turn_player == 0 and s.match.sides[0].energy == 3


# -- attacking ----------------------------------------------------------------------------------------------------
def test_summoning_sickness():
    """A unit cannot attack the turn it is played, and can at its owner's next turn."""
    s = build_position(hands=(("Minotaur",), ()))
    play(s, "Minotaur")
    mino = unit(s, "Minotaur", 0)
    assert L.ATTACK + slot(s, mino) not in legal(s)
    finish_turn(s)
    finish_turn(s)
    assert L.ATTACK + slot(s, mino) in legal(s)


def test_attack_only_in_play1():
    """After combat (Play2) no attacker can be declared, even by a ready unit that did not attack."""
    s = build_position(boards=(("Minotaur", "Knight"), ()))
    declare(s, unit(s, "Minotaur"))
    assert s.phase == "play2"
    assert unit(s, "Knight").can_attack()
    assert not any(L.ATTACK <= a < L.BLOCK for a in legal(s))


def test_pass_in_play1_without_attackers_ends_the_turn():
    """PASS in Play1 with no attacker ends the turn: no Play2, the opponent's turn starts."""
    s = build_position(boards=(("Minotaur",), ()), turn=10)
    s.apply(L.PASS)
    assert s.match.turn_player == 1 and s.turn == 11 and s.phase == "play1" and s.current_player == 1


def test_blocks_are_the_defenders_decision_inside_the_attackers_turn():
    """After the attack the defender acts (block phase) while the turn and turn player stay the attacker's."""
    s = build_position(boards=(("Minotaur",), ("Knight",)), turn=10)
    declare(s, unit(s, "Minotaur"))
    assert s.phase == "block" and s.current_player == 1
    assert s.turn == 10 and s.match.turn_player == 0
    assert legal(s) == {block_id(s, unit(s, "Knight"), unit(s, "Minotaur")), L.PASS}
    s.apply(L.PASS)
    assert s.phase == "play2" and s.current_player == 0


def test_no_block_phase_without_a_legal_blocker():
    """With no unit able to block (an exhausted one here), combat resolves at once: straight to Play2."""
    s = build_position(boards=(("Minotaur",), ({"card": "Knight", "exhausted": True},)))
    declare(s, unit(s, "Minotaur"))
    assert s.phase == "play2" and s.current_player == 0
    assert s.match.sides[1].life == 21


@pytest.mark.parametrize("attacker,blocker,ok", [
    ("Dragon", "Knight", False),  # Flying: only Flying or Ranged blockers
    ("Dragon", "Imp", True),
    ("Dragon", "Archer", True),
    ("Knight", "Imp", True),  # a flyer may block a ground unit
    ("Archer", "Knight", True),  # Ranged restricts nothing when attacking
    ("Mermaid", "Knight", False),  # Aquatic: only Aquatic or Flying blockers
    ("Mermaid", "NavalGalley", True),
    ("Mermaid", "Imp", True),
    ("Knight", "NavalGalley", False),  # an Aquatic unit blocks only Aquatic attackers
    ("Submarine", "NavalGalley", False),  # Unblockable
    ("Submarine", "Imp", False),
])
def test_keyword_blocking_rules(attacker, blocker, ok):
    """Flying / Ranged / Aquatic / Unblockable: which blocks are legal (no block phase when none is)."""
    s = build_position(boards=((attacker,), (blocker,)))
    declare(s, unit(s, attacker))
    if ok:
        assert s.phase == "block"
        assert block_id(s, unit(s, blocker), unit(s, attacker)) in legal(s)
    else:
        assert s.phase == "play2"


# -- combat -------------------------------------------------------------------------------------------------------
def test_multi_block_attacker_orders_the_damage():
    """Two blockers on one attacker: the attacker's player picks the damage order (phase 'order')."""
    s = build_position(boards=(("Minotaur",), ("Knight", "Bear")), turn=10)
    mino, knight, bear = unit(s, "Minotaur"), unit(s, "Knight"), unit(s, "Bear")
    declare(s, mino)
    s.apply(block_id(s, knight, mino))
    s.apply(block_id(s, bear, mino))
    s.apply(L.PASS)
    assert s.phase == "order" and s.current_player == 0 and s.turn == 10
    assert legal(s) == {L.ORDER + slot(s, knight), L.ORDER + slot(s, bear)}
    s.apply(L.ORDER + slot(s, bear))  # Bear first: it takes 4 (dies), the Knight gets nothing
    assert s.phase == "play2"
    assert find(s, "Bear") == [] and unit(s, "Knight").hurt == 0
    assert find(s, "Minotaur") == []  # 3 + 3 back >= 5


def test_damage_order_gives_min_life_then_the_rest():
    """In damage order each blocker takes min(its life, damage left): Knight first takes 3, the Bear 1."""
    s = build_position(boards=(("Minotaur",), ("Knight", "Bear")))
    mino, knight, bear = unit(s, "Minotaur"), unit(s, "Knight"), unit(s, "Bear")
    declare(s, mino)
    s.apply(block_id(s, knight, mino))
    s.apply(block_id(s, bear, mino))
    s.apply(L.PASS)
    s.apply(L.ORDER + slot(s, knight))
    assert find(s, "Knight") == [] and unit(s, "Bear").hurt == 1


def test_no_trample():
    """Damage beyond the blockers' life is lost: the defending player takes nothing."""
    s = build_position(boards=(("Minotaur",), ("Pikeman",)))
    attack_and_block(s, [unit(s, "Minotaur")], [(unit(s, "Pikeman"), unit(s, "Minotaur"))])
    assert find(s, "Pikeman") == [] and s.match.sides[1].life == 25


def test_blocker_deals_full_damage_back_even_when_it_dies():
    """A blocker that dies still deals its full damage to the attacker."""
    s = build_position(boards=(("Minotaur",), ("Knight",)))
    attack_and_block(s, [unit(s, "Minotaur")], [(unit(s, "Knight"), unit(s, "Minotaur"))])
    assert find(s, "Knight") == [] and unit(s, "Minotaur").life == 2


def test_unblocked_damage_hits_the_player():
    """An unblocked attacker deals its attack to the defending player."""
    s = build_position(boards=(("Minotaur", "Knight"), ()))
    declare(s, unit(s, "Minotaur"), unit(s, "Knight"))
    assert s.match.sides[1].life == 25 - 7


def test_attacker_exhausted_cannot_block_next_enemy_turn():
    """A unit that attacked stays exhausted through the opponent's turn, so it cannot block there."""
    s = build_position(boards=(("Minotaur",), ("Knight",)))
    knight_of_1 = unit(s, "Knight")
    knight_of_1.exhausted = True  # player 1's knight does not block this turn
    declare(s, unit(s, "Minotaur"))
    assert unit(s, "Minotaur").exhausted
    finish_turn(s)
    assert s.match.turn_player == 1 and unit(s, "Minotaur").exhausted
    declare(s, unit(s, "Knight"))
    assert s.phase == "play2"  # no legal blocker: no block phase
    assert s.match.sides[0].life == 22


def test_blocker_exhausted_after_combat():
    """A blocker is exhausted by the fight (it cannot block again before its owner's refresh)."""
    s = build_position(boards=(("Knight",), ("Castle",)))
    attack_and_block(s, [unit(s, "Knight")], [(unit(s, "Castle"), unit(s, "Knight"))])
    assert unit(s, "Castle").exhausted


def test_damage_heals_at_the_owners_refresh():
    """A damaged unit keeps its damage through the opponent's turn and is healed at its owner's turn start."""
    s = build_position(boards=(("Minotaur",), ("Knight",)))
    attack_and_block(s, [unit(s, "Minotaur")], [(unit(s, "Knight"), unit(s, "Minotaur"))])
    mino = unit(s, "Minotaur")
    finish_turn(s)
    assert mino.hurt == 3
    finish_turn(s)
    assert mino.hurt == 0 and mino.life == 5 and not mino.exhausted


# -- limits -------------------------------------------------------------------------------------------------------
def test_board_limit_seven_permanents_units_and_enchantments():
    """Seven permanents (units and enchantments together) fill the board: units and enchantments become
    unplayable, a spell still is."""
    board = ("Knight",) * 5 + ("ValiantDefenses", "AssemblyLine")
    s = build_position(hands=(("Pikeman", "ValiantDefenses", "Recruitment"), ()), boards=(board, ()))
    assert len(s.match.board[0]) == 7
    ok = legal(s)
    assert L.PLAY + 0 not in ok and L.PLAY + 1 not in ok and L.PLAY + 2 in ok


def test_summons_on_a_full_board_die():
    """A summon entering a full board dies on entering (to the crypt)."""
    s = build_position(hands=(("Recruitment",), ()), boards=(("Knight",) * 6, ()))
    play(s, "Recruitment")
    m = s.match
    assert len(m.board[0]) == 7 and len(find(s, "Pikeman", 0)) == 1
    assert Counter(m.sides[0].crypt) == Counter(["Recruitment", "Pikeman"])


def test_soft_hand_limit_discard_choice_at_end_of_turn():
    """Ending the turn with 10 cards: the player chooses 2 to discard, then the turn passes."""
    hand = ("Knight",) * 5 + ("Bear",) * 5
    s = build_position(hands=(hand, ()), energy=(0, 0), turn=10)
    s.apply(L.PASS)
    c = s.match.choices[0]
    assert s.phase == "choice" and s.current_player == 0 and (c.kind, c.min_n, c.max_n) == ("discard", 2, 2)
    assert s.turn == 10
    assert L.CHOICE_DONE not in legal(s)
    s.apply(L.OPTION + 0)
    s.apply(L.OPTION + 9)
    m = s.match
    assert len(m.sides[0].hand) == 8 and Counter(m.sides[0].crypt) == Counter(["Knight", "Bear"])
    assert m.turn_player == 1 and s.turn == 11


def test_hard_hand_limit_burns_the_13th_card():
    """A card drawn while holding 12 goes to the crypt."""
    s = build_position(hands=((), ("Knight",) * 12), decks=(("Minotaur",) * 20, ("Bear",) + ("Minotaur",) * 19))
    finish_turn(s)
    side = s.match.sides[1]
    assert len(side.hand) == 12 and side.crypt == ["Bear"] and len(side.deck) == 19


def test_fatigue_doubles():
    """Drawing from an empty deck deals 1, 2, 4, 8 damage on successive draws."""
    s = build_position(decks=((), ()), life=(25, 25))
    lives = []
    for _ in range(8):
        finish_turn(s)  # the next turn player draws from its empty deck
        lives.append(s.match.sides[s.match.turn_player].life)
    assert lives == [24, 24, 22, 22, 18, 18, 10, 10]
    assert [s.match.sides[p].fatigue for p in (0, 1)] == [4, 4]


# -- winning ------------------------------------------------------------------------------------------------------
def test_player_at_zero_life_loses():
    """Lethal combat damage ends the game: the attacker wins, returns +1 / -1."""
    s = build_position(boards=(("Minotaur",), ()), life=(25, 4))
    declare(s, unit(s, "Minotaur"))
    assert s.is_terminal() and s.winner() == 0 and s.returns().tolist() == [1.0, -1.0] and s.phase == "over"
    assert len(s.legal_actions()) == 0


def test_fatigue_can_kill():
    """A fatigue draw that takes a player to 0 life loses it the game."""
    s = build_position(decks=(("Minotaur",) * 5, ()), life=(25, 1))
    finish_turn(s)
    assert s.is_terminal() and s.winner() == 0


def test_both_players_dead_at_once_is_a_draw():
    """Both players at 0 life at the same check: a draw (0 / 0)."""
    s = build_position()
    m = s.match
    m.sides[0].life = 0
    m.sides[1].life = -2
    m.check_players()
    assert s.is_terminal() and s.winner() is None and s.returns().tolist() == [0.0, 0.0]


def test_200_turn_draw():
    """A game still running after 200 player turns (turns 0..199) is a draw."""
    assert MAX_TURNS == 200
    s = build_position(turn=198)
    finish_turn(s)
    assert not s.is_terminal() and s.turn == 199
    finish_turn(s)
    assert s.is_terminal() and s.winner() is None and s.returns().tolist() == [0.0, 0.0]


# -- enchantments -------------------------------------------------------------------------------------------------
def test_empower_adds_power_and_costs_empower_cost():
    """The owner pays the empower cost (energy) for +1 power."""
    s = build_position(boards=(("ValiantDefenses",), ()), resources=((0, 0, 0, 5), (0, 0, 0, 0)))
    vd = unit(s, "ValiantDefenses")
    assert L.EMPOWER + 0 in legal(s)
    s.apply(L.EMPOWER + 0)
    assert vd.power == 4 and s.match.sides[0].energy == 2
    assert L.EMPOWER + 0 not in legal(s)  # 2 energy < 3


def test_diminish_removes_power_and_dispels_at_zero():
    """The opponent pays the empower cost for -1 power; at 0 the enchantment is dispelled to its owner's crypt."""
    s = build_position(boards=((), ("AssemblyLine", "ValiantDefenses")), resources=((5, 0, 0, 0), (0, 0, 0, 0)))
    assert {L.DIMINISH + 0, L.DIMINISH + 1} <= legal(s)  # empower costs 5 and 3, both <= 5 energy
    s.apply(L.DIMINISH + 0)
    m = s.match
    assert m.sides[0].energy == 0
    assert find(s, "AssemblyLine") == [] and m.sides[1].crypt == ["AssemblyLine"]


def test_diminish_without_dispel():
    """Diminishing a power-3 enchantment leaves it at 2 on the board."""
    s = build_position(boards=((), ("ValiantDefenses",)), resources=((3, 0, 0, 0), (0, 0, 0, 0)))
    s.apply(L.DIMINISH + 0)
    assert unit(s, "ValiantDefenses").power == 2 and s.match.sides[0].energy == 0


def test_cannot_be_empowered_blocks_only_the_owner():
    """Supreme Aegis (CannotBeEmpowered): its owner cannot empower it, the opponent may still diminish it."""
    s = build_position(boards=(("SupremeAgeis",), ("SupremeAgeis",)), resources=((0, 0, 0, 12), (0, 0, 0, 0)))
    assert L.EMPOWER + 0 not in legal(s) and L.DIMINISH + 0 in legal(s)


def test_enchantment_on_the_board_is_not_in_the_crypt():
    """A played enchantment sits on the board only (decision: not also in the crypt)."""
    s = build_position(hands=(("ValiantDefenses",), ()))
    play(s, "ValiantDefenses")
    assert len(find(s, "ValiantDefenses", 0)) == 1 and s.match.sides[0].crypt == []


# -- the protocol -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [L.PASS, L.ATTACK + 0, L.PLAY + 5, 999, -1])
def test_illegal_action_raises_and_changes_nothing(action):
    """An illegal action raises IllegalActionError and leaves the state (state_key) unchanged."""
    s = build_position(hands=(("Minotaur",), ()), boards=(({"card": "Knight", "ready": False},), ()),
                       played_resource=False)
    key = s.state_key()
    with pytest.raises(IllegalActionError):
        s.apply(action)
    assert s.state_key() == key


def test_non_integer_action_raises():
    """A non-integer action raises IllegalActionError and changes nothing."""
    s = GAME.new_state(1)
    key = s.state_key()
    with pytest.raises(IllegalActionError):
        s.apply("pass")
    assert s.state_key() == key


def _check_determinization(s, player, det):
    assert det.observation(player).tolist() == s.observation(player).tolist()
    assert det.legal_actions().tolist() == s.legal_actions().tolist()
    assert det.card_multiset() == s.card_multiset()
    assert det.current_player == s.current_player


def test_determinize_keeps_view_and_resamples_the_opponents_hand():
    """determinize keeps the observer's observation, legal actions and card multiset, and resamples the
    opponent's unseen hand (differently for different draws), keeping the opponent's hand+deck multiset."""
    s = GAME.new_state(11)
    keep_all(s)
    foe = s.match.sides[1]
    foe_cards = Counter([h[0] for h in foe.hand] + foe.deck)
    hands = set()
    for seed in range(20):
        det = s.determinize(0, np.random.default_rng(seed))
        _check_determinization(s, 0, det)
        dfoe = det.match.sides[1]
        assert Counter([h[0] for h in dfoe.hand] + dfoe.deck) == foe_cards
        assert det.match.sides[0].hand == s.match.sides[0].hand
        hands.add(tuple(sorted(h[0] for h in dfoe.hand)))
    assert len(hands) > 1


def test_determinize_keeps_cards_revealed_by_observation_balloon():
    """After Observation Balloon's Peek, the opponent's hand is known and kept by determinize."""
    s = build_position(hands=(("ObsesrvationBallon",), ("Knight", "Bear", "Dragon")),
                       decks=(("Minotaur",) * 20, ("Pikeman", "Imp", "Castle", "Archer") * 5))
    play(s, "ObsesrvationBallon")
    assert s.match.sides[1].known == [True, True, True]
    for seed in range(10):
        det = s.determinize(0, np.random.default_rng(seed))
        _check_determinization(s, 0, det)
        assert [h[0] for h in det.match.sides[1].hand] == ["Knight", "Bear", "Dragon"]


def test_determinize_keeps_cards_revealed_by_spy_satellite():
    """Spy Satellite peeks at its owner's Dawn: those hand cards are kept, a card drawn later is resampled."""
    s2 = build_position(turn_player=1, boards=(("SpySatalite",), ()), hands=((), ("Knight", "Bear")),
                        decks=(("Minotaur",) * 20, ("Pikeman", "Imp", "Castle", "Archer") * 5))
    finish_turn(s2)  # player 1 ends; player 0's Dawn: draw, Peek
    assert s2.match.turn_player == 0 and s2.match.sides[1].known == [True, True]
    finish_turn(s2)  # player 0 ends; player 1 draws Pikeman, unseen
    foe = s2.match.sides[1]
    assert [h[0] for h in foe.hand] == ["Knight", "Bear", "Pikeman"] and foe.known == [True, True, False]
    drawn = set()
    for seed in range(20):
        det = s2.determinize(0, np.random.default_rng(seed))
        _check_determinization(s2, 0, det)
        hand = [h[0] for h in det.match.sides[1].hand]
        assert hand[:2] == ["Knight", "Bear"]
        drawn.add(hand[2])
    assert len(drawn) > 1


def test_determinize_keeps_own_mulligan_bottom_cards():
    """After a mulligan the owner knows its bottom cards: determinize for the owner keeps them in place and
    shuffles the rest of its deck; determinize for the opponent does not keep them."""
    s = GAME.new_state(7)
    s.apply(L.OPTION + 0)
    s.apply(L.OPTION + 1)
    s.apply(L.CHOICE_DONE)
    s.apply(L.CHOICE_DONE)
    deck = list(s.match.sides[0].deck)
    tops, bottoms_for_foe = set(), set()
    for seed in range(20):
        det = s.determinize(0, np.random.default_rng(seed))
        _check_determinization(s, 0, det)
        d = det.match.sides[0].deck
        assert d[-2:] == deck[-2:]
        assert Counter(d) == Counter(deck)
        tops.add(tuple(d[:5]))
        other = s.determinize(1, np.random.default_rng(seed))
        _check_determinization(s, 1, other)
        bottoms_for_foe.add(tuple(other.match.sides[0].deck[-2:]))
    assert len(tops) > 1 and len(bottoms_for_foe) > 1


def test_determinize_hides_the_opponents_pending_choice_options():
    """Determinizing for player 1 during player 0's mulligan: player 0's choice options name the resampled hand
    (as action_key does), not the true one."""
    s = GAME.new_state(3)
    for seed in range(5):
        det = s.determinize(1, np.random.default_rng(seed))
        hand = [h[0] for h in det.match.sides[0].hand]
        assert det.match.choices[0].options == hand
        card = GAME.card_ids.index(hand[0])
        assert det.action_key(L.OPTION + 0) == L.NUM_ACTIONS + len(GAME.card_ids) * (1 + F.CK_REPLACE) + card


# -- decks and cards ----------------------------------------------------------------------------------------------
def test_twelve_builtin_decks_load_by_name():
    """The 12 built-in decks load by name, 40 cards each."""
    assert len(DECK_LIST) == 12
    for name in DECK_LIST:
        deck = load_deck(name)
        assert deck.name == name and len(deck.cards) == 40


@pytest.mark.parametrize("spelling", ["the kings legions", "THE KING'S LEGIONS", "The King’s Legions",
                                      "thekingslegions", "The Kings  Legions"])
def test_deck_names_ignore_case_space_and_apostrophes(spelling):
    """Deck names match ignoring case, spaces and apostrophes."""
    assert load_deck(spelling) == load_deck("The King's Legions")


def _deck_file(tmp_path, cards, name="d.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"name": "Test", "cards": cards}))
    return path


@pytest.mark.parametrize("cards,words", [
    ({"Minotaur": 4, "Knight": 4, "NoSuchCard": 4, "Bear": 4, "Pikeman": 4, "Imp": 4, "Archer": 4, "Castle": 4,
      "Dragon": 4, "Mermaid": 4}, "NoSuchCard"),
    ({"Minotaur": 5, "Knight": 4, "Bear": 4, "Pikeman": 4, "Imp": 4, "Archer": 4, "Castle": 4, "Dragon": 4,
      "Mermaid": 4, "Skeleton": 3}, "Minotaur"),
    ({"Minotaur": 4, "Knight": 4, "Bear": 4, "Pikeman": 4, "Imp": 4, "Archer": 4, "Castle": 4, "Dragon": 4,
      "Mermaid": 4, "Skeleton": 3}, "39"),
    ({"Minotaur": 4, "Knight": 4, "Bear": 4, "Pikeman": 4, "Imp": 4, "Archer": 4, "Castle": 4, "Dragon": 4,
      "Mermaid": 4, "Skeleton": 4, "Golem": 4, "Spy": 4, "Airship": 3}, "51"),
    ({"Statue": 1, "Minotaur": 4, "Knight": 4, "Bear": 4, "Pikeman": 4, "Imp": 4, "Archer": 4, "Castle": 4,
      "Dragon": 4, "Mermaid": 4, "Skeleton": 3}, "Statue"),
])
def test_bad_deck_file_raises_card_data_error(tmp_path, cards, words):
    """A deck with an unknown card, 5 copies, 39 or 51 cards, or a token raises CardDataError naming it."""
    path = _deck_file(tmp_path, cards)
    with pytest.raises(CardDataError, match=words):
        load_deck(str(path))
    with pytest.raises(CardDataError):
        FifthAeonGame((str(path), "March of Undeath"))


def test_deck_sizes_40_and_50_are_valid(tmp_path):
    """40 and 50 cards with at most 4 copies are valid decks."""
    forty = {c: 4 for c in ("Minotaur", "Knight", "Bear", "Pikeman", "Imp", "Archer", "Castle", "Dragon", "Mermaid",
                            "Skeleton")}
    assert len(load_deck(str(_deck_file(tmp_path, forty))).cards) == 40
    fifty = dict(forty, Golem=4, Spy=4, Airship=2)
    assert len(load_deck(str(_deck_file(tmp_path, fifty, "e.json"))).cards) == 50


def _card(**over):
    base = {"id": "TestOgre", "name": "Test Ogre", "card_type": "unit", "faction": "Growth",
            "cost": {"energy": 3, "synthesis": 0, "growth": 1, "decay": 0, "renewal": 0},
            "unit_type": "Monster", "damage": 5, "life": 5, "targeter": {"id": "Untargeted"}, "mechanics": []}
    base.update(over)
    return base


def _pool_file(tmp_path, entries):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"cards": entries}))
    return path


@pytest.mark.parametrize("entry,words", [
    (_card(mechanics=[{"id": "Teleport"}]), "Teleport"),
    (_card(mechanics=[{"id": "DrawCard", "trigger": "Midnight", "params": {"count": 1}}]), "Midnight"),
    (_card(mechanics=[{"id": "Explode", "trigger": "Play"}]), "Explode"),
    (_card(cost={"energy": -1}), "non-negative"),
    (_card(cost={"energy": 2, "growth": -1}), "non-negative"),
])
def test_malformed_cards_file_raises_card_data_error(tmp_path, entry, words):
    """A cards file with an unknown mechanic or trigger, or a negative cost, raises CardDataError naming it."""
    path = _pool_file(tmp_path, [entry])
    with pytest.raises(CardDataError, match=words):
        load_pool(path)
    with pytest.raises(CardDataError):
        FifthAeonGame("March of Undeath", cards=path)


def test_cards_file_that_is_not_json_raises_card_data_error(tmp_path):
    """A cards file that is not JSON raises CardDataError."""
    path = tmp_path / "cards.json"
    path.write_text("{not json")
    with pytest.raises(CardDataError, match="JSON"):
        load_pool(path)


def test_custom_cards_can_be_put_in_a_deck_and_played(tmp_path):
    """Extra cards from FifthAeonGame(cards=FILE) join the pool, can be in a deck and be played."""
    cards = _pool_file(tmp_path, [_card()])
    deck = _deck_file(tmp_path, {"TestOgre": 4, "Minotaur": 4, "Knight": 4, "Bear": 4, "Pikeman": 4, "Imp": 4,
                                 "Archer": 4, "Castle": 4, "Dragon": 4, "Mermaid": 4})
    game = FifthAeonGame((str(deck), "March of Undeath"), cards=cards)
    assert "TestOgre" in game.decks[0].cards and len(game.pool) == len(bundled_pool()) + 1
    s = build_position(hands=(("TestOgre",), ()), game=game)
    play(s, "TestOgre")
    ogre = unit(s, "TestOgre")
    assert (ogre.attack, ogre.life) == (5, 5)
    s2 = game.new_state(0)
    assert s2.phase == "choice"


def test_an_attacker_turned_to_stone_by_its_first_blocker_fights_on_as_the_statue():
    """Two Gorgons block a Charging Tiger 2/10: the first fight turns the Tiger into a Statue (it survived the
    damage), the same unit (its uid) still in the fight; the Statue goes on with the 0 damage left, so the second
    Gorgon takes nothing, and its 3 back kill the Statue (no second transformation: it did not survive). A search
    rollout once crashed on this case (the second Gorgon turning the Tiger already replaced)."""
    s = build_position(boards=([{"card": "ChargingTiger", "attack": 2, "life": 10}], ["Gorgon", "Gorgon"]))
    tiger = unit(s, "ChargingTiger")
    g1, g2 = find(s, "Gorgon", 1)
    attack_and_block(s, [tiger], [(g1, tiger), (g2, tiger)])
    assert s.phase == "play2"
    assert s.match.board[0] == [] and s.match.sides[0].crypt == ["Statue"]
    assert g1.hurt == 2 and g2.hurt == 0 and g1.exhausted and g2.exhausted

"""Rules taken from the game's own model (Fifth-Aeon-Model @ 5759634) in issue 34, on hand-built positions with
hand-computed outcomes: a multi-block goes on after the attacker died, after it was turned to stone (it fights on
as the Statue) and past blockers that died before their turn (they still hit the attacker), the default damage
order is the model's knapsack, and DefaultAI blocks with every non-exhausted unit (the thesis and the pre-2020
code)."""
from __future__ import annotations

import numpy as np

from cardboard.envs.fifth_aeon import DefaultAI
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon.cards import Mechanic
from cardboard.envs.fifth_aeon.constants import BOARD_SLOTS
from cardboard.envs.fifth_aeon.default_policy import DefaultPolicy
from cardboard.envs.fifth_aeon.positions import attack_and_block, build_position, find, unit


def test_a_multi_block_goes_on_after_the_attacker_died():
    """Minotaur 5/3 blocked by Knight 3/2, Vampire 1/5, Vampire Bat 2/2 (damage in board order). Knight: takes 2,
    deals 3, both die. The dead Minotaur still fights on (game.ts resolveCombat): the Vampire takes its remaining
    3 (life 5 -> 2) and, the Minotaur being in the crypt, its Lethal Strike fires (+1/+1: 2/3); the Bat takes
    nothing (0 left) and its Lifesteal heals player 1 for its 2. Before issue 34 the fight stopped at the Knight."""
    s = build_position(boards=([{"card": "Minotaur", "attack": 5, "life": 3}],
                               [{"card": "Knight", "attack": 3, "life": 2}, {"card": "Vampire", "attack": 1, "life": 5},
                                {"card": "VampireBat", "attack": 2, "life": 2}]))
    mino = unit(s, "Minotaur")
    knight, vampire, bat = s.match.board[1]
    attack_and_block(s, [mino], [(knight, mino), (vampire, mino), (bat, mino)])
    assert s.phase == "play2"
    assert find(s, "Minotaur") == [] and find(s, "Knight") == []
    assert (vampire.hurt, vampire.attack, vampire.life) == (3, 2, 3)
    assert bat.hurt == 0 and bat.exhausted and vampire.exhausted
    assert s.match.sides[1].life == 27 and s.match.sides[0].life == 25
    assert s.match.sides[0].crypt == ["Minotaur"]


def test_a_dead_attacker_deals_its_damage_without_its_abilities():
    """A Lethal attacker 3/1 blocked by Bear 2/1 then Minotaur 4/5: the Bear takes 1 and kills it; the Minotaur
    takes the 2 left but not Lethal's kill (the ability left play with the unit, unit.ts leaveBoard)."""
    s = build_position(boards=([{"card": "Knight", "attack": 3, "life": 1}],
                               [{"card": "Bear", "attack": 2, "life": 1}, "Minotaur"]))
    knight = unit(s, "Knight")
    knight.granted = (Mechanic("Lethal"),)
    knight.rebuild()
    bear, mino = unit(s, "Bear"), unit(s, "Minotaur")
    attack_and_block(s, [knight], [(bear, knight), (mino, knight)])
    assert find(s, "Knight") == [] and find(s, "Bear") == []
    assert mino.hurt == 2 and mino.life == 3


def test_an_attacker_turned_to_stone_fights_its_later_blockers_as_the_statue():
    """Minotaur 9/10 blocked by Gorgon 3/7 then Vampire 0/3. The Gorgon takes 7 (dies) and its 3 leave the Minotaur
    alive, so it becomes a Statue in place (unit.ts ``transform``: the same unit, still attacking). It goes on
    fighting (game.ts ``resolveCombat``): the Vampire takes the 2 left of the Minotaur's 9 (not the Statue's 0 attack)
    and deals its 0 back; the Statue is on the board, so the Vampire's Lethal Strike does not fire. Before, the
    Statue was a new unit and the Minotaur counted as gone: the Vampire's Lethal Strike fired (+1/+1)."""
    s = build_position(boards=([{"card": "Minotaur", "attack": 9, "life": 10}],
                               ["Gorgon", {"card": "Vampire", "attack": 0}]))
    mino = unit(s, "Minotaur")
    gorgon, vampire = s.match.board[1]
    attack_and_block(s, [mino], [(gorgon, mino), (vampire, mino)])
    assert s.phase == "play2"
    statue = unit(s, "Statue")
    assert s.match.board[0] == [statue] and statue.uid == mino.uid
    assert (statue.attack, statue.life, statue.hurt) == (0, 1, 0) and statue.kw == {"CannotAttack"}
    assert statue.exhausted and not statue.attacking
    assert s.match.sides[1].crypt == ["Gorgon"]
    assert (vampire.hurt, vampire.attack, vampire.life) == (2, 0, 1) and vampire.exhausted
    assert s.match.sides[0].life == 25 and s.match.sides[1].life == 25


def test_a_unit_turned_to_stone_in_a_fight_has_no_lethal_strike_left():
    """Spider Queen 7/10 blocked by a Gorgon: the Gorgon takes 7 and dies, the Queen survives its 3 and is a
    Statue when the fight ends, so no Lethal Strike fires (the Statue has only CannotAttack; the model's unit kept
    its old abilities, README decisions). Before, the replaced Queen's Lethal Strike still summoned a Spiderling."""
    s = build_position(boards=([{"card": "SpiderQueen", "attack": 7, "life": 10}], ["Gorgon"]))
    queen, gorgon = unit(s, "SpiderQueen"), unit(s, "Gorgon")
    attack_and_block(s, [queen], [(gorgon, queen)])
    assert [u.card.id for u in s.match.board[0]] == ["Statue"] and s.match.board[0][0].uid == queen.uid
    assert s.match.board[1] == [] and s.match.sides[1].crypt == ["Gorgon"]


def test_a_blocker_dead_before_its_fight_still_hits_the_attacker():
    """Spider Queen 6/12 blocked by General 3/3 (Soldiers +1/+1, itself too), Pikeman 3/2 with 1 damage, Archer
    2/3. The General takes 3 and dies; without its lordship the Pikeman is at 0 life and dies before its fight.
    As in game.ts ``resolveCombat`` (the damage order is a fixed list) the dead Pikeman still fights: it is
    given min(its 0 life, 3 left) = 0, deals its 2 (1 + 1 lordship gone) to the Queen, and, the Pikeman being
    in the crypt, the Queen's Lethal Strike fires (unit.ts ``afterDamage``). The Archer (1/2 now) takes 2 of the
    3 left. Queen: 3 + 2 + 1 damage, three Spiderlings. Before, the dead Pikeman was skipped (3 + 1, two)."""
    s = build_position(boards=([{"card": "SpiderQueen", "attack": 6, "life": 12}],
                               ["General", {"card": "Pikeman", "hurt": 1}, "Archer"]))
    queen = unit(s, "SpiderQueen")
    general, pikeman, archer = s.match.board[1]
    assert [(u.attack, u.life) for u in s.match.board[1]] == [(3, 3), (3, 1), (2, 3)]
    attack_and_block(s, [queen], [(general, queen), (pikeman, queen), (archer, queen)])
    assert s.phase == "play2"
    assert s.match.board[1] == [] and s.match.sides[1].crypt == ["General", "Pikeman", "Archer"]
    assert queen.hurt == 6 and queen.life == 6 and queen.exhausted
    assert [u.card.id for u in s.match.board[0]] == ["SpiderQueen"] + ["Spiderling"] * 3
    assert s.match.sides[0].life == 25 and s.match.sides[1].life == 25


def test_a_blocker_dead_before_its_fight_with_life_below_0_takes_no_damage():
    """Minotaur 5/20 blocked by General 4/4 then Pikeman 4/3 with 2 damage then Archer 3/4 (a King, not blocking,
    and the General each give Soldiers +1/+1). The General takes 4 of 5 and dies; the Pikeman (3/2, 2 damage) dies
    at 0 and is at -1 without the lordships. It is given 0 (README decision: the model's min(-1, 1) would raise
    the damage left to 2), deals its 2 back; the Archer (2/3 now) takes the 1 left."""
    s = build_position(boards=([{"card": "Minotaur", "attack": 5, "life": 20}],
                               ["King", "General", {"card": "Pikeman", "hurt": 2}, "Archer"]))
    mino = unit(s, "Minotaur")
    king, general, pikeman, archer = s.match.board[1]
    assert [(u.attack, u.life) for u in (general, pikeman, archer)] == [(4, 4), (4, 1), (3, 4)]
    attack_and_block(s, [mino], [(general, mino), (pikeman, mino), (archer, mino)])
    assert s.match.board[1] == [king, archer] and s.match.sides[1].crypt == ["General", "Pikeman"]
    assert archer.hurt == 1 and mino.hurt == 4 + 2 + 2


def test_a_blocker_dead_before_its_fight_has_no_lethal_strike():
    """Minotaur 5/3 blocked by Communications Tower 0/5 (other friendly units +1/+1) then Spider Queen 4/7 with 6
    damage. The Tower takes 5 and dies, so the Queen dies at 0 before its fight; it still deals its 3, which kill
    the Minotaur, but its Lethal Strike left play with it (README decision; the model never unhooks it): no
    Spiderling."""
    s = build_position(boards=([{"card": "Minotaur", "attack": 5, "life": 3}],
                               ["ComsTower", {"card": "SpiderQueen", "hurt": 6}]))
    mino = unit(s, "Minotaur")
    tower, queen = s.match.board[1]
    assert (queen.attack, queen.life) == (4, 1)
    attack_and_block(s, [mino], [(tower, mino), (queen, mino)])
    assert s.match.board == ([], []) and s.match.sides[0].crypt == ["Minotaur"]
    assert s.match.sides[1].crypt == ["ComsTower", "SpiderQueen"]


def _ordered(boards) -> tuple:
    """Player 0's first unit attacks, every unit of player 1 blocks it, and DefaultAI orders the damage."""
    s = build_position(boards=boards)
    m = s.match
    attacker = m.board[0][0]
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    for b in range(len(m.board[1])):
        s.apply(L.BLOCK + BOARD_SLOTS * b + 0)
    s.apply(L.PASS)
    assert s.phase == "order"
    plan = DefaultPolicy().order(m, 0)
    ai = DefaultAI()
    while s.phase == "order":
        s.apply(ai.act(s, np.random.default_rng(0)))
    return plan, attacker, list(m.board[1])


def test_default_damage_order_kills_the_most_valuable_blockers():
    """Minotaur 5/20 blocked by Pikeman 1/2 (worth 3), Knight 1/3 (4) and Bear 6/5 (11): the knapsack over life
    (capacity 5) keeps the Bear alone (11 > 3 + 4), so the Bear takes all 5 and dies; weakest-first would have
    killed the Pikeman and the Knight instead."""
    plan, mino, left = _ordered(([{"card": "Minotaur", "attack": 5, "life": 20}],
                                 [{"card": "Pikeman", "attack": 1, "life": 2},
                                  {"card": "Knight", "attack": 1, "life": 3},
                                  {"card": "Bear", "attack": 6, "life": 5}]))
    assert plan == [L.ORDER + 2, L.ORDER + 0, L.ORDER + 1]
    assert [u.card.id for u in left] == ["Pikeman", "Knight"] and [u.hurt for u in left] == [0, 0]
    assert mino.hurt == 8


def test_default_damage_order_puts_the_knapsack_set_first_in_its_order():
    """Pikeman 1/2 (worth 3), Knight 1/3 (4), Bear 1/6 (7) on a 5-damage attacker: the knapsack keeps Pikeman and
    Knight (the Bear does not fit), listed last-first as the model's solution set, then the Bear: Knight, Pikeman,
    Bear; both kept ones die."""
    plan, _, left = _ordered(([{"card": "Minotaur", "attack": 5, "life": 20}],
                              [{"card": "Pikeman", "attack": 1, "life": 2}, {"card": "Knight", "attack": 1, "life": 3},
                               {"card": "Bear", "attack": 1, "life": 6}]))
    assert plan == [L.ORDER + 1, L.ORDER + 0, L.ORDER + 2]
    assert [u.card.id for u in left] == ["Bear"] and left[0].hurt == 0


def test_default_ai_blocks_with_a_non_exhausted_unit():
    """DefaultAI's blockers are its non-exhausted units (thesis §2.4, the model before commit e45adc9; since then
    the model's filter keeps only units that cannot block, so it never blocks): Knight 3/3 blocks a Pikeman 2/1."""
    s = build_position(turn_player=1, boards=(("Knight",), ("Pikeman",)))
    s.apply(L.ATTACK + 0)
    s.apply(L.PASS)
    assert s.phase == "block" and s.current_player == 0
    assert DefaultAI().act(s, np.random.default_rng(0)) == L.BLOCK + BOARD_SLOTS * 0 + 0

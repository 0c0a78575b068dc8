"""Rules taken from the game's own model (Fifth-Aeon-Model @ 5759634) in issue 34, on hand-built positions with
hand-computed outcomes: a multi-block goes on after the attacker died, the default damage order is the model's
knapsack, and DefaultAI blocks with every non-exhausted unit (the thesis and the pre-2020 code)."""
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

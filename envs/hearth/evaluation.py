"""End-of-turn evaluation of a Hearth state, in the spirit of Silverfish (paper 001 §2.1, §2.5).

Silverfish scores a position with a hand-tuned linear combination of hero
health, a board score per side and a hand score (001 §2.1; its weights are not
in the thesis). This module does the same from the raw state array, compiled:
``evaluate(s, cards, player)`` is ``side(player) - side(opponent)``, so it is
antisymmetric by construction (``evaluate(s, c, 0) == -evaluate(s, c, 1)``),
and ``heuristic(s, cards, player)`` maps it to [-1, 1] with
``tanh(score / SCALE)``, +1 / -1 at a decided terminal and 0 at a draw.
``HearthState.heuristic(p)`` calls it, so search's default evaluator
(``(heuristic + 1) / 2``) is DUCT's leaf value "scaled to (0, 1)" (001 §2.5).

The unit is one point of hero health (above the danger zone). A side's value:

================  ==================================================================
hero              ``HERO_HP`` per health point, minus ``DANGER * (DANGER_HP - hp)^2``
                  below ``DANGER_HP`` (Silverfish's "hpboarder" of 10: the last points
                  of health are worth far more, so lethal threats dominate);
                  ``JARAXXUS`` for Lord Jaraxxus (INFERNO! makes a 6/6 every turn,
                  which his 15 health does not show)
weapon            ``WEAPON`` per point of attack x durability (damage still to deal)
minion            ``MINION`` (a body on the board: trades, synergies, a target to
                  clear) + ``ATK`` x attack + ``HP`` x health + ``COST`` x printed cost
                  unless silenced (a proxy for its text: auras, deathrattles,
                  triggers); ``TAUNT`` (protects the hero and the board),
                  ``SHIELD`` x (1 + attack) for Divine Shield (the enemy needs one
                  more hit, which the minion's attack punishes), ``STEALTH`` (it
                  cannot be answered by targeted removal or attacks); a frozen
                  minion's attack counts ``FROZEN`` of itself (it misses one attack),
                  and one that cannot attack (Ancient Watcher) ``NO_ATTACK`` of itself
                  (its attack only hurts attackers)
hand              ``HAND`` per card up to ``HAND_FULL`` cards, ``HAND_EXTRA`` for each
                  card beyond (diminishing returns: options matter less than mana)
mana              ``MANA`` per mana crystal (Silverfish's max-mana term; tempo from
                  The Coin and Arcane Golem)
board control     ``CONTROL`` when the side has minions and their total attack
                  reaches the enemy minions' total health (001 Table 4.1's global
                  feature "total attack >= enemy's board HP")
Explosive Trap    ``TRAP`` while it is up (2 damage to every enemy when triggered)
================  ==================================================================

Only lasting quantities count: a minion's attack is its base plus aura bonus,
without the "this turn" bonus (Abusive Sergeant), which is gone once the turn
ends. Silverfish's turn-history features (cards drawn, damage taken, penalties
for bad plays during the turn) need the move list, not the state, and are left
out. ``SCALE`` puts one good minion (about 10 points) at tanh(1/3) = 0.32.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    ANCIENT_WATCHER,
    F_COST,
    FL_DIVINE_SHIELD,
    FL_FROZEN,
    FL_SILENCED,
    FL_STEALTH,
    FL_STEALTH_TEMP,
    FL_TAUNT,
    G_PHASE,
    G_WINNER,
    GLOBAL_LEN,
    HERO_JARAXXUS,
    M_ATK,
    M_ATK_AURA,
    M_CARD,
    M_FLAGS,
    M_HP,
    MF,
    P_HERO,
    P_HP,
    P_MAX_MANA,
    P_MINIONS,
    P_NHAND,
    P_NMIN,
    P_TRAP,
    P_WEAPON,
    P_WEAPON_ATK,
    P_WEAPON_DUR,
    PH_OVER,
    PLAYER_LEN,
)

# ---- weights (units: hero health points) ------------------------------------------------------------
HERO_HP = 1.0  # the unit
DANGER_HP = 10  # Silverfish's "hpboarder": below it each lost point costs extra
DANGER = 0.3  # convex term: at 1 health a point is worth 1 + 2 * 0.3 * 9 = 6.4
JARAXXUS = 10.0  # INFERNO!: a 6/6 every turn for 2 mana, against 15 health instead of 30
WEAPON = 0.5  # per damage left in the weapon (attack x durability); the hero takes hits to use it
MINION = 2.0  # a body on the board
ATK = 1.0  # per attack point
HP = 1.0  # per health point
COST = 0.5  # per mana of printed cost (card text) unless silenced
TAUNT = 2.0
SHIELD = 1.0  # times (1 + attack)
STEALTH = 1.5
FROZEN = 0.5  # share of the attack a frozen minion keeps
NO_ATTACK = 0.25  # share of the attack of a minion that cannot attack (Ancient Watcher)
HAND = 3.0  # per card, up to HAND_FULL
HAND_FULL = 4
HAND_EXTRA = 1.0  # per card beyond HAND_FULL
MANA = 1.0  # per mana crystal
CONTROL = 3.0  # own board attack >= enemy board health
TRAP = 3.0  # Explosive Trap up
SCALE = 30.0  # heuristic = tanh(score / SCALE)
DRAW = 2  # s[G_WINNER] of a drawn game


@njit(cache=True, nogil=True)
def _side(s: np.ndarray, cards: np.ndarray, p: int) -> tuple[float, float, float]:
    """(value of player ``p``'s side, total minion attack, total minion health)."""
    b = GLOBAL_LEN + p * PLAYER_LEN
    hp = s[b + P_HP]
    v = HERO_HP * hp
    if hp < DANGER_HP:
        v -= DANGER * (DANGER_HP - hp) ** 2
    if s[b + P_HERO] == HERO_JARAXXUS:
        v += JARAXXUS
    if s[b + P_WEAPON] >= 0:
        v += WEAPON * s[b + P_WEAPON_ATK] * s[b + P_WEAPON_DUR]
    n = s[b + P_NHAND]
    v += HAND * min(n, HAND_FULL) + HAND_EXTRA * max(n - HAND_FULL, 0)
    v += MANA * s[b + P_MAX_MANA]
    if s[b + P_TRAP] != 0:
        v += TRAP
    total_atk = 0.0
    total_hp = 0.0
    for pos in range(s[b + P_NMIN]):
        m = b + P_MINIONS + pos * MF
        health = s[m + M_HP]
        if health <= 0:
            continue
        flags = s[m + M_FLAGS]
        card = s[m + M_CARD]
        atk = float(max(s[m + M_ATK] + s[m + M_ATK_AURA], 0))
        silenced = (flags & FL_SILENCED) != 0
        if card == ANCIENT_WATCHER and not silenced:
            atk *= NO_ATTACK
        if flags & FL_FROZEN:
            atk *= FROZEN
        v += MINION + ATK * atk + HP * health
        if not silenced:
            v += COST * cards[card, F_COST]
        if flags & FL_TAUNT:
            v += TAUNT
        if flags & FL_DIVINE_SHIELD:
            v += SHIELD * (1.0 + atk)
        if flags & (FL_STEALTH | FL_STEALTH_TEMP):
            v += STEALTH
        total_atk += atk
        total_hp += health
    return v, total_atk, total_hp


@njit(cache=True, nogil=True)
def evaluate(s: np.ndarray, cards: np.ndarray, player: int) -> float:
    """Raw score of the position from ``player``'s view (antisymmetric between the players)."""
    mine, my_atk, my_hp = _side(s, cards, player)
    theirs, their_atk, their_hp = _side(s, cards, 1 - player)
    if my_atk > 0 and my_atk >= their_hp:
        mine += CONTROL
    if their_atk > 0 and their_atk >= my_hp:
        theirs += CONTROL
    return mine - theirs


@njit(cache=True, nogil=True)
def heuristic(s: np.ndarray, cards: np.ndarray, player: int) -> float:
    """``tanh(evaluate / SCALE)`` in (-1, 1); +1 / -1 at a decided terminal, 0 at a draw."""
    if s[G_PHASE] == PH_OVER:
        w = s[G_WINNER]
        if w == DRAW:
            return 0.0
        return 1.0 if w == player else -1.0
    return np.tanh(evaluate(s, cards, player) / SCALE)

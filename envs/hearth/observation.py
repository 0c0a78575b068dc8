"""The observation vector of the Hearthstone-style game: what one player may see, as float32 in [0, 1].

Layout, in the observer's frame (own side first), every value clipped to [0, 1]:

=================  ===========================================================================
global (7)         phase one-hot (mulligan, main, target, position, over), observer to move, turn / 200
pending (NC + 4)   the card waiting for a target or a position (one-hot), its kind (spell,
                   battlecry, hero power, minion)
heroes (2 x 15)    health / 30, max health / 30, is Jaraxxus, weapon attack / 10, durability / 8,
                   frozen, mana / 10, crystals / 10, hero power used, Explosive Trap up, immune,
                   fatigue / 20, hand size / 10, deck size / 30, extra spell cost / 10
hands (2 x 10 x    per slot: card one-hot, cost / 10, origin one-hot (deck, known, Spare Part).
  (NC + 4))        The opponent's cards show only where the observer may know them (origin
                   known), unless ``perfect``
boards (14 x       per minion, own then enemy, left to right: card one-hot, attack / 10,
  (NC + 11))       health / 10, max health / 10, taunt, divine shield, stealth, frozen, silenced,
                   summoned this turn, can attack, attacked this turn
decks (2 x NC)     copies left / 2 of each card in the own deck; for the opponent the unseen
                   pool (deck, hidden hand cards and mulligan cards set aside), or with ``perfect`` their deck alone
=================  ===========================================================================

NC = ``NUM_CARDS``. The own deck's contents are known to its owner (the deck list
is public, the order is chance), so no determinization changes a player's view.
"""
from __future__ import annotations

from numba import njit

from ..structure import Globals, ObservationStructure, Tokens
from .layout import (
    BOARD_LIMIT, FL_DIVINE_SHIELD, FL_EXHAUSTED, FL_FROZEN, FL_SILENCED, FL_STEALTH, FL_TAUNT, G_PENDING_CARD,
    G_PENDING_KIND, G_PHASE, G_PLAYER, G_TURN, HAND_LIMIT, HERO_JARAXXUS, M_ATTACKS, M_CARD, M_FLAGS, M_HP,
    MAX_TURNS, NUM_CARDS, ORIGIN_DECK, ORIGIN_KNOWN, P_ASIDE, P_DECK, P_FATIGUE, P_FROZEN, P_HAND, P_HAND_ORIGIN, P_HERO,
    P_HP, P_MANA, P_MAX_MANA, P_MAXHP, P_NASIDE, P_NDECK, P_NHAND, P_NMIN, P_POWER_USED, P_SPELL_TAX, P_TRAP, P_WEAPON,
    P_WEAPON_ATK, P_WEAPON_DUR, PH_TARGET, PH_POSITION,
)
from .rules import can_attack, card_cost, hero_immune, mb, minion_attack, minion_max_health, pb

GLOBAL_BLOCK = 7
PENDING_BLOCK = NUM_CARDS + 4
HERO_BLOCK = 15
HAND_SLOT = NUM_CARDS + 4
MINION_SLOT = NUM_CARDS + 11
OBS_LEN = GLOBAL_BLOCK + PENDING_BLOCK + 2 * HERO_BLOCK + 2 * HAND_LIMIT * HAND_SLOT \
    + 2 * BOARD_LIMIT * MINION_SLOT + 2 * NUM_CARDS
_HANDS = GLOBAL_BLOCK + PENDING_BLOCK + 2 * HERO_BLOCK
_BOARDS = _HANDS + 2 * HAND_LIMIT * HAND_SLOT
_ORIGIN = (NUM_CARDS + 1, NUM_CARDS + 4)  # every held card shows its origin, even a hidden one
STRUCTURE = ObservationStructure((
    Globals("global", 0, GLOBAL_BLOCK, meaning="phase, observer to move, turn"),
    Globals("pending", GLOBAL_BLOCK, PENDING_BLOCK, meaning="the card waiting for a target or a position"),
    Globals("heroes", GLOBAL_BLOCK + PENDING_BLOCK, 2 * HERO_BLOCK, meaning="own, then the enemy hero"),
    Tokens("hand", _HANDS, HAND_LIMIT, HAND_SLOT, presence=_ORIGIN, meaning="the observer's hand by slot"),
    Tokens("opponent_hand", _HANDS + HAND_LIMIT * HAND_SLOT, HAND_LIMIT, HAND_SLOT, presence=_ORIGIN,
           meaning="the opponent's hand; a card unknown to the observer shows only its origin"),
    Tokens("minions", _BOARDS, BOARD_LIMIT, MINION_SLOT, presence=(0, NUM_CARDS),
           meaning="the observer's minions, left to right"),
    Tokens("enemy_minions", _BOARDS + BOARD_LIMIT * MINION_SLOT, BOARD_LIMIT, MINION_SLOT, presence=(0, NUM_CARDS),
           meaning="the enemy's minions, left to right"),
    Globals("decks", OBS_LEN - 2 * NUM_CARDS, 2 * NUM_CARDS, meaning="copies left by card: own deck, unseen pool"),
), (OBS_LEN,))


@njit(cache=True, nogil=True)
def _put(out, i, value):
    out[i] = min(max(value, 0.0), 1.0)


@njit(cache=True, nogil=True)
def observe(s, cards, me, perfect, out):
    """Fill ``out`` (zeros, length OBS_LEN) with player ``me``'s view of state ``s``."""
    phase = s[G_PHASE]
    out[phase] = 1.0
    out[5] = 1.0 if s[G_PLAYER] == me else 0.0
    _put(out, 6, s[G_TURN] / MAX_TURNS)
    i = GLOBAL_BLOCK
    if phase == PH_TARGET or phase == PH_POSITION:
        out[i + s[G_PENDING_CARD]] = 1.0
        out[i + NUM_CARDS + s[G_PENDING_KIND]] = 1.0
    i += PENDING_BLOCK
    for k in range(2):
        p = me if k == 0 else 1 - me
        b = pb(p)
        _put(out, i, s[b + P_HP] / 30.0)
        _put(out, i + 1, s[b + P_MAXHP] / 30.0)
        out[i + 2] = 1.0 if s[b + P_HERO] == HERO_JARAXXUS else 0.0
        if s[b + P_WEAPON] >= 0:
            _put(out, i + 3, s[b + P_WEAPON_ATK] / 10.0)
            _put(out, i + 4, s[b + P_WEAPON_DUR] / 8.0)
        out[i + 5] = 1.0 if s[b + P_FROZEN] else 0.0
        _put(out, i + 6, s[b + P_MANA] / 10.0)
        _put(out, i + 7, s[b + P_MAX_MANA] / 10.0)
        out[i + 8] = 1.0 if s[b + P_POWER_USED] else 0.0
        out[i + 9] = 1.0 if s[b + P_TRAP] else 0.0
        out[i + 10] = 1.0 if hero_immune(s, p) else 0.0
        _put(out, i + 11, s[b + P_FATIGUE] / 20.0)
        _put(out, i + 12, s[b + P_NHAND] / 10.0)
        _put(out, i + 13, s[b + P_NDECK] / 30.0)
        _put(out, i + 14, s[b + P_SPELL_TAX] / 10.0)
        i += HERO_BLOCK
    for k in range(2):
        p = me if k == 0 else 1 - me
        b = pb(p)
        for slot in range(s[b + P_NHAND]):
            o = i + slot * HAND_SLOT
            origin = s[b + P_HAND_ORIGIN + slot]
            out[o + NUM_CARDS + 1 + origin] = 1.0
            if k == 0 or perfect or origin == ORIGIN_KNOWN:
                out[o + s[b + P_HAND + slot]] = 1.0
                _put(out, o + NUM_CARDS, card_cost(s, cards, p, slot) / 10.0)
        i += HAND_LIMIT * HAND_SLOT
    for k in range(2):
        p = me if k == 0 else 1 - me
        for pos in range(s[pb(p) + P_NMIN]):
            m = mb(p, pos)
            o = i + pos * MINION_SLOT
            f = s[m + M_FLAGS]
            out[o + s[m + M_CARD]] = 1.0
            _put(out, o + NUM_CARDS, minion_attack(s, m) / 10.0)
            _put(out, o + NUM_CARDS + 1, s[m + M_HP] / 10.0)
            _put(out, o + NUM_CARDS + 2, minion_max_health(s, m) / 10.0)
            bits = (FL_TAUNT, FL_DIVINE_SHIELD, FL_STEALTH, FL_FROZEN, FL_SILENCED, FL_EXHAUSTED)
            for j in range(6):
                out[o + NUM_CARDS + 3 + j] = 1.0 if f & bits[j] else 0.0
            out[o + NUM_CARDS + 9] = 1.0 if s[G_PLAYER] == p and can_attack(s, p, pos + 1) else 0.0
            out[o + NUM_CARDS + 10] = 1.0 if s[m + M_ATTACKS] > 0 else 0.0
        i += BOARD_LIMIT * MINION_SLOT
    for k in range(2):
        p = me if k == 0 else 1 - me
        b = pb(p)
        for c in range(NUM_CARDS):
            _put(out, i + c, s[b + P_DECK + c] / 2.0)
        if k == 1 and not perfect:
            for slot in range(s[b + P_NHAND]):
                if s[b + P_HAND_ORIGIN + slot] == ORIGIN_DECK:
                    c = s[b + P_HAND + slot]
                    _put(out, i + c, out[i + c] + 0.5)
            for j in range(s[b + P_NASIDE]):  # mulligan cards set aside are as hidden as the hand
                c = s[b + P_ASIDE + j]
                _put(out, i + c, out[i + c] + 0.5)
        i += NUM_CARDS

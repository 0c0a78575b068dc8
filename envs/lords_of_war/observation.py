"""The Lords of War observation vector: what one player may see, as float32 in [0, 1], in that player's frame.

Layout (offsets ``OBS_*``), every value clipped to [0, 1]:

=====================  ===========================================================================
board (42 x 17)        per square, in the observer's frame (row 0 = own edge): own unit, enemy
                       unit, attack per arrow direction / 8 (observer's frame), defence / 8,
                       command, support, missile damage / 8, placed this turn, engaged, fought
own hand (6 x 24)      per card: present, attack per arrow / 8 (owner's frame), defence / 8,
                       command, general, support, missile / 8, rank one-hot (6), class one-hot (4)
opponent's hand        the same, for the opponent's cards the observer knows (seen entering the
  (6 x 24)             hand), in id order among themselves; every card with ``perfect``
next cards (2 x 24)    the top card of the own, then the opponent's deck (``perfect`` only)
global (16)            phase one-hot (5), eliminated own / enemy / 20, Command lost own / enemy / 4,
                       hand sizes / 6, deck sizes / 36, extra turn earned, turn / 400, observer id
=====================  ===========================================================================

``STRUCTURE`` (``observation_structure()``) names these parts and maps the actions onto them: deploy ids
``k * 42 + e`` as (hand slot k, board square e) pairs, shoot-at and recall ids as one per board square; the
board's square ``row * COLS + column`` in the observer's frame is the action's square in the acting player's
frame (both ``rules.ego``), so the network scores a move from the square and card it names.
"""
from __future__ import annotations

from numba import njit

from ..structure import ActionCells, ActionPairs, Globals, ObservationStructure, Planes, Tokens
from .layout import (
    A_DEPLOY,
    A_RECALL,
    A_TARGET,
    ARMY_SIZE,
    ATT,
    BOARD,
    COLS,
    DECK,
    EXTRA,
    F_ATK,
    F_CLASS,
    F_CMD,
    F_DEF,
    F_GEN,
    F_RANK,
    F_RATK,
    F_RDMG,
    F_SUPPORT,
    FOUGHT,
    HAND,
    HAND_SIZE,
    KNOWN,
    MAX_TURNS,
    NCMD,
    NDEAD,
    NDECK,
    NHAND,
    NSQ,
    NUM_ACTIONS,
    NUM_PHASES,
    PH_OVER,
    PHASE,
    PLACED,
    ROWS,
    TURN,
    WIN_COMMAND,
    WIN_ELIMINATED,
)
from .rules import ego

ATK_SCALE = 8.0
DEF_SCALE = 8.0
CARD_FEATURES = 24  # present, 8 arrows (owner frame), defence, command, general, support, missile, rank x6, class x4
BOARD_CHANNELS = 17  # own, enemy, 8 arrows (observer frame), defence, command, support, missile, placed, engaged, fought
GLOBAL_FEATURES = NUM_PHASES + 11
OBS_BOARD = 0
OBS_HAND = OBS_BOARD + NSQ * BOARD_CHANNELS
OBS_OPP_HAND = OBS_HAND + HAND_SIZE * CARD_FEATURES
OBS_NEXT = OBS_OPP_HAND + HAND_SIZE * CARD_FEATURES
OBS_GLOBAL = OBS_NEXT + 2 * CARD_FEATURES
OBS_LEN = OBS_GLOBAL + GLOBAL_FEATURES
STRUCTURE = ObservationStructure((
    Planes("board", OBS_BOARD, BOARD_CHANNELS, ROWS, COLS, channels_last=True,
           meaning="the mat in the observer's frame (row 0 = own edge), square by square"),
    Tokens("hand", OBS_HAND, HAND_SIZE, CARD_FEATURES, presence=(0, 1),
           meaning="the observer's hand; the deploy actions name its slots"),
    Tokens("opponent_hand", OBS_OPP_HAND, HAND_SIZE, CARD_FEATURES, presence=(0, 1),
           meaning="the opponent's cards the observer knows"),
    Globals("next_cards", OBS_NEXT, 2 * CARD_FEATURES, meaning="the own, then the opponent's top card (perfect)"),
    Globals("global", OBS_GLOBAL, GLOBAL_FEATURES, meaning="phase, losses, hand and deck sizes, turn, observer"),
), (OBS_LEN,), actions=(
    # the actions' squares are in the acting player's frame, the board's in the observer's (the same ``ego``
    # map): square row * COLS + column of the planes is the action's square for the player to move
    ActionPairs(A_DEPLOY, tokens="hand", planes="board", meaning="deploy the card of hand slot k on square e"),
    ActionCells(A_TARGET, planes="board", meaning="shoot at square e"),
    ActionCells(A_RECALL, planes="board", meaning="recall the unit on square e"),
), num_actions=NUM_ACTIONS)  # A_HOLD_FIRE and A_DRAW keep the flat head


@njit(cache=True, nogil=True)
def _card_features(cards, c, out, off):
    out[off] = 1.0
    for d in range(8):
        out[off + 1 + d] = min(cards[c, F_RATK + d] / ATK_SCALE, 1.0)
    out[off + 9] = min(cards[c, F_DEF] / DEF_SCALE, 1.0)
    out[off + 10] = cards[c, F_CMD]
    out[off + 11] = cards[c, F_GEN]
    out[off + 12] = cards[c, F_SUPPORT]
    out[off + 13] = min(cards[c, F_RDMG] / ATK_SCALE, 1.0)
    out[off + 14 + cards[c, F_RANK]] = 1.0
    out[off + 20 + cards[c, F_CLASS]] = 1.0


@njit(cache=True, nogil=True)
def observe(s, cards, p, perfect, out):
    """Fill ``out`` (float32, zeroed, OBS_LEN) with what player p sees, in p's frame; ``perfect`` adds the rest."""
    q = 1 - p
    for sq in range(NSQ):
        c = s[BOARD + sq]
        if c < 0:
            continue
        base = OBS_BOARD + ego(sq, p) * BOARD_CHANNELS
        out[base + (0 if c // ARMY_SIZE == p else 1)] = 1.0
        for d in range(8):
            out[base + 2 + (d if p == 0 else (d + 4) % 8)] = min(cards[c, F_ATK + d] / ATK_SCALE, 1.0)
        out[base + 10] = min(cards[c, F_DEF] / DEF_SCALE, 1.0)
        out[base + 11] = cards[c, F_CMD]
        out[base + 12] = cards[c, F_SUPPORT]
        out[base + 13] = min(cards[c, F_RDMG] / ATK_SCALE, 1.0)
        out[base + 14] = 1.0 if sq == s[PLACED] else 0.0
        out[base + 15] = 1.0 if s[ATT + (0 if c >= ARMY_SIZE else NSQ) + sq] > 0 else 0.0  # engaged
        out[base + 16] = s[FOUGHT + sq]
    for k in range(s[NHAND + p]):
        _card_features(cards, s[HAND + p * HAND_SIZE + k], out, OBS_HAND + k * CARD_FEATURES)
    j = 0
    for k in range(s[NHAND + q]):  # known cards only, in id order among themselves: no position leak
        c = s[HAND + q * HAND_SIZE + k]
        if perfect or s[KNOWN + c]:
            _card_features(cards, c, out, OBS_OPP_HAND + j * CARD_FEATURES)
            j += 1
    if perfect:
        for i in range(2):
            who = p if i == 0 else q
            if s[NDECK + who] > 0:
                top = s[DECK + who * ARMY_SIZE + s[NDECK + who] - 1]
                _card_features(cards, top, out, OBS_NEXT + i * CARD_FEATURES)
    g = OBS_GLOBAL
    out[g + min(s[PHASE], PH_OVER)] = 1.0
    g += NUM_PHASES
    out[g] = min(s[NDEAD + p] / WIN_ELIMINATED, 1.0)  # a last multi-kill can pass 20
    out[g + 1] = min(s[NDEAD + q] / WIN_ELIMINATED, 1.0)
    out[g + 2] = min(s[NCMD + p] / WIN_COMMAND, 1.0)
    out[g + 3] = min(s[NCMD + q] / WIN_COMMAND, 1.0)
    out[g + 4] = s[NHAND + p] / HAND_SIZE
    out[g + 5] = s[NHAND + q] / HAND_SIZE
    out[g + 6] = s[NDECK + p] / ARMY_SIZE
    out[g + 7] = s[NDECK + q] / ARMY_SIZE
    out[g + 8] = s[EXTRA]
    out[g + 9] = min(s[TURN] / MAX_TURNS, 1.0)
    out[g + 10] = p

"""The observation vector of Fifth Aeon (float32 in [0, 1]), in the observing player's frame (own side first).

With N cards in the pool (138 bundled) the blocks are, in order:

====================  =====================================================================================
globals (29)          phase one-hot (choice, target, play1, block, order, play2), the observer acts, the
                      observer is the turn player, turn / 200, both players' life / 60, energy / 20, maximum
                      energy / 20, the four resource counts / 10, resource played, hand size / 12, deck size / 50
hand (12 x N)         the observer's hand, one one-hot card row per slot (the actions name slots)
hand bonus (12 x 2)   Research AI's attack / life bonus of each hand card / 10
board (14 x (N + F))  own then enemy permanents by slot: card one-hot, then F = 16 features (attack / 20,
                      life / 20, maximum life / 20, power / 20, ready, exhausted, attacking, blocking, blocked
                      by the observer's view slot / 14, poison / 5, sleep / 5, shield, Deathless charges / 3,
                      items / 3, imprisoned (a granted CannotBlock), lost Flying)
opponent hand (N)     counts / 4 of the opponent's hand cards the observer has seen (all with ``perfect``)
opponent hidden (1)   the opponent's unseen hand cards / 12
own deck (N)          counts / 4 of the cards left in the observer's deck (the observer knows its list)
crypts (2 x N)        counts / 4 of each crypt, own first
choice (2N + 5)       the pending choice's options and picked options (counts / 4), its kind one-hot
                      (replace, discard, search, unbury, consume) when the observer makes it
pending (N + 1)       the card being played (one-hot) and whether its host is chosen
deck tops (2 x N)     the next card of the observer's and of the opponent's deck (one-hot), ``perfect`` only
====================  =====================================================================================

With ``perfect=True`` the opponent's whole hand is shown (the hidden count is 0) and the deck tops are filled in.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..structure import Attached, Globals, ObservationStructure, Tokens
from .board import Match, phase_name
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT

GLOBALS = 29  # 6 phases, who acts, whose turn, the turn, then 10 per side
FEATURES = 16
KINDS = ("replace", "discard", "search", "unbury", "consume")
PHASES = ("choice", "target", "play1", "block", "order", "play2")  # the phase one-hot (``board.phase_name``)
SIDE_GLOBALS = 10  # per side: life, energy, maximum energy, 4 resources, resource played, hand size, deck size
# the scales (a value is divided by its scale, then clipped to [0, 1])
TURN_SCALE = 200
LIFE_SCALE = 60  # a player's life
ENERGY_SCALE = 20  # energy and maximum energy
RESOURCE_SCALE = 10
DECK_SCALE = 50
BONUS_SCALE = 10  # Research AI's hand bonuses
STAT_SCALE = 20  # a permanent's attack, life, maximum life and power
SLOT_SCALE = 14  # the blocked attacker's view slot + 1
POISON_SCALE = 5
SLEEP_SCALE = 5
DEATHLESS_SCALE = 3  # Deathless charges
ITEMS_SCALE = 3
COUNT_STEP = 0.25  # one card in a count block (counts / 4)


def observation_length(n_cards: int) -> int:
    return (GLOBALS + HARD_HAND_LIMIT * n_cards + HARD_HAND_LIMIT * 2 + 2 * BOARD_SLOTS * (n_cards + FEATURES)
            + n_cards + 1 + n_cards + 2 * n_cards + 2 * n_cards + len(KINDS) + n_cards + 1 + 2 * n_cards)


@lru_cache(maxsize=None)
def observation_structure(n: int) -> ObservationStructure:
    """The parts of the observation with ``n`` cards in the pool."""
    hand, bonus = GLOBALS, GLOBALS + HARD_HAND_LIMIT * n
    board = bonus + HARD_HAND_LIMIT * 2
    rest = board + 2 * BOARD_SLOTS * (n + FEATURES)
    tail = ((n + 1, "opponent_hand", "seen opponent's hand cards by card, the unseen count"),
            (n, "own_deck", "cards left in the own deck"), (2 * n, "crypts", "own, then the enemy crypt by card"),
            (2 * n + len(KINDS), "choice", "the pending choice's options, picks and kind"),
            (n + 1, "pending", "the card being played, its host chosen"),
            (2 * n, "deck_tops", "the next card of each deck (perfect)"))
    parts = [Globals("globals", 0, GLOBALS, meaning="phase, who acts, turn, life, energy, resources, sizes"),
             Tokens("hand", hand, HARD_HAND_LIMIT, n, presence=(0, n), meaning="the observer's hand by slot (card)"),
             Attached("hand_bonus", bonus, "hand", HARD_HAND_LIMIT, 2, meaning="Research AI's attack / life bonus"),
             Tokens("permanents", board, BOARD_SLOTS, n + FEATURES, presence=(0, n),
                    meaning="the observer's permanents by slot: card, then its state"),
             Tokens("enemy_permanents", board + BOARD_SLOTS * (n + FEATURES), BOARD_SLOTS, n + FEATURES,
                    presence=(0, n), meaning="the enemy's permanents by slot")]
    for size, name, meaning in tail:
        parts.append(Globals(name, rest, size, meaning=meaning))
        rest += size
    return ObservationStructure(tuple(parts), (observation_length(n),))


def observe(m: Match, player: int, perfect: bool) -> np.ndarray:
    """What ``player`` sees of the match (the blocks of the module docstring)."""
    index = m.pool.index
    n = len(index)
    out = np.zeros(observation_length(n), dtype=np.float32)
    me, foe = m.sides[player], m.sides[1 - player]
    phase = phase_name(m)
    k = 0
    for i, name in enumerate(PHASES):
        out[k + i] = phase == name
    k += len(PHASES)
    out[k] = m.winner < 0 and m.acting == player
    out[k + 1] = m.turn_player == player
    out[k + 2] = m.turn / TURN_SCALE
    for j, side in enumerate((me, foe)):
        base = k + 3 + SIDE_GLOBALS * j
        out[base] = side.life / LIFE_SCALE
        out[base + 1] = side.energy / ENERGY_SCALE
        out[base + 2] = side.max_energy / ENERGY_SCALE
        out[base + 3:base + 7] = np.asarray(side.res) / RESOURCE_SCALE
        out[base + 7] = side.played_resource
        out[base + 8] = len(side.hand) / HARD_HAND_LIMIT
        out[base + 9] = len(side.deck) / DECK_SCALE
    k = GLOBALS
    for slot, (cid, d, l) in enumerate(me.hand):
        out[k + slot * n + index[cid]] = 1
        out[k + HARD_HAND_LIMIT * n + 2 * slot] = d / BONUS_SCALE
        out[k + HARD_HAND_LIMIT * n + 2 * slot + 1] = l / BONUS_SCALE
    k += HARD_HAND_LIMIT * (n + 2)
    view = m.board[player] + [None] * (BOARD_SLOTS - len(m.board[player]))
    view += m.board[1 - player] + [None] * (BOARD_SLOTS - len(m.board[1 - player]))
    uids = {u.uid: i for i, u in enumerate(view) if u is not None}
    row = n + FEATURES
    for i, u in enumerate(view):
        if u is None:
            continue
        base = k + i * row
        out[base + index[u.card.id]] = 1
        f = base + n
        out[f:f + FEATURES] = (u.attack / STAT_SCALE, u.life / STAT_SCALE, u.full_life / STAT_SCALE,
                               u.power / STAT_SCALE, u.ready, u.exhausted, u.attacking, u.blocking >= 0,
                               (uids.get(u.blocking, -1) + 1) / SLOT_SCALE, u.st.get("poison", 0) / POISON_SCALE,
                               u.st.get("sleep", 0) / SLEEP_SCALE, u.st.get("shield", 0),
                               u.st.get("deathless", 0) / DEATHLESS_SCALE, len(u.items) / ITEMS_SCALE,
                               any(g.id == "CannotBlock" for g in u.granted), u.st.get("lost:Flying", 0))
    k += 2 * BOARD_SLOTS * row
    hidden = 0
    for (cid, _, _), seen in zip(foe.hand, foe.known):
        if seen or perfect:
            out[k + index[cid]] += COUNT_STEP
        else:
            hidden += 1
    out[k + n] = hidden / HARD_HAND_LIMIT
    k += n + 1
    for cid in me.deck:
        out[k + index[cid]] += COUNT_STEP
    k += n
    for j, side in enumerate((me, foe)):
        for cid in side.crypt:
            out[k + j * n + index[cid]] += COUNT_STEP
    k += 2 * n
    if m.choices and m.choices[0].player == player:
        c = m.choices[0]
        for i, cid in enumerate(c.options):
            out[k + index[cid]] += COUNT_STEP
            if i in (c.picked or ()):
                out[k + n + index[cid]] += COUNT_STEP
        out[k + 2 * n + KINDS.index(c.kind.split(":")[0])] = 1
    k += 2 * n + len(KINDS)
    if m.pend is not None and m.acting == player:
        out[k + index[me.hand[m.pend[0]][0]]] = 1
        out[k + n] = m.pend[2] == "target"
    k += n + 1
    if perfect:
        for j, side in enumerate((me, foe)):
            if side.deck:
                out[k + j * n + index[side.deck[0]]] = 1
    np.clip(out, 0.0, 1.0, out=out)
    return out

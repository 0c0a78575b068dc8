"""State features of paper 001 (Zhang 2017, §4.4, Table 4.1) for the Hearthstone-style game.

Three one-hot groups describe a ``HearthState`` from the view of one player
``P_a`` (``player``; the paper uses the player to move, both seats work here)
against ``P_o``, for the card-play networks of paper 001 §4.5:

* **global** ``[G = 47]``, fed to a fully connected layer;
* **hand** ``[16, K]``, a 1D sequence over the K card columns with 16 channels;
* **board** ``[18, K, 5]``, 18 planes over card column x minion health bucket.

Every entry is 0 or 1 (float32). ``encode`` does one state, ``encode_batch``
stacks a batch, and ``sparse_indices`` returns only the flat indices of the
hot entries (the thesis's "allocate a Numpy array and just send the indices
of the entries to be filled", §3.6 of the notes): one compiled (numba) pass
over the raw state arrays finds them, and ``encode_batch`` scatters them into
zeroed arrays. Costs and attack come from the engine's own rule functions
(``rules.card_cost``, the function behind ``state.hand_costs``, and
``rules.minion_attack``). Torch is not imported here.

Card columns (K, per match-up)
------------------------------
Every card that can appear in a game of the two decks of ``state.game``:
their deck cards, The Coin, and the closure of ``CREATES`` (which card puts
which new card into play or hand): Clockwork Gnome, Tinkertown Technician and
Mechanical Yeti -> the 7 Spare Parts; Dr. Boom -> Boom Bot; Harvest Golem ->
Damaged Golem; Haunted Creeper -> Spectral Spider; Animal Companion ->
Huffer, Leokk, Misha; Unleash the Hounds -> Hound; Leeroy Jenkins -> Whelp;
Sludge Belcher -> Slime; Lord Jaraxxus -> Blood Fury and (through INFERNO!)
Infernal; Archmage Antonidas -> Fireball. Hero powers and the Jaraxxus hero
card are never in a hand or on the board and get no column. A card is a
column whoever may own it (Leeroy's Whelps go to the opponent; K is the union
over both decks), so a mirror match has the K of one deck: 28 Mech Mage, 27
Handlock, 25 Face Hunter.

Columns are ordered by Algorithm 4 (001 §4.4): minions first by ascending
printed cost, then the non-minions (spells and weapons in one group) by
printed cost. Algorithm 4 leaves ties (and spell-vs-weapon pairs) open; they
are broken by type (spell before weapon) and then by name (Python string
order). The sort key is ``(not minion, cost, type, name)``.

Global vector (offsets ``GV_*``)
--------------------------------
* ``0..9`` mana ``P_a`` has until the end of the turn, one-hot of 1..10. When
  ``P_a`` is not the player whose turn it is (the state's turn owner
  ``G_PLAYER``), its mana at the start of its next turn,
  ``min(max mana + 1, 10)``. With 0 mana left the block is all zero.
* ``10..19`` ``P_o``'s mana on its next turn, ``min(max mana + 1, 10)``,
  one-hot of 1..10.
* ``20..44`` both heroes' health, joint one-hot ``5 * level(P_a) +
  level(P_o)`` with levels 0: <= 6 (0 and below too), 1: 7-12, 2: 13-18,
  3: 19-24, 4: >= 25
  (``HERO_HP_EDGES``; equal 6-point bands down from 30, so Jaraxxus's 15 is
  level 2). The text says "0-4 for each player, 25 values" and Table 4.1 says
  "4 states"; we follow the text (5 levels) and choose the thresholds, which
  the paper does not give.
* ``45`` 1 when ``P_a`` is player 0, the starting player ``P_1``.
* ``46`` 1 when the total effective attack of ``P_a``'s minions is >= the
  total current health of ``P_o``'s minions (Table 4.1's ">="; the text says
  ">"). Every minion counts, also one that cannot attack now; weapons and
  heroes do not. An empty enemy board therefore gives 1.

Hand array ``[16, K]`` (exactly one hot per column in each row group)
---------------------------------------------------------------------
* rows ``0..8``: copies of the card in ``P_a``'s and ``P_o``'s hands, each
  clipped at 2, one-hot in the paper's order ``JOINT9``: 0 (0,2), 1 (0,1),
  2 (1,2), 3 (0,0), 4 (1,1), 5 (2,2), 6 (2,1), 7 (1,0), 8 (2,0).
* rows ``9..12``: playable for (``P_a``, ``P_o``): 9 (no, yes), 10 (yes, yes),
  11 (yes, no), 12 (no, no). A card is playable for a player when that player
  holds a copy (visible in this view) whose effective cost now (the engine's
  ``card_cost``, as ``state.hand_costs``: Mechwarper, giants, Thaurissan,
  this turn's spell tax) is at most that
  player's mana of the global vector: ``P_a``'s mana left this turn, ``P_o``'s
  mana on its next turn. Only mana is judged (not targets or board space), and
  ``P_o``'s costs are those of now (next turn's draw and Loatheb's tax are not
  anticipated). A card a player does not hold is not playable for it, so the
  columns of cards in no hand sit on row 12.
* rows ``13..15``: ``P_a``'s follow-up card-play after playing the card: 13
  none, 14 low-mana, 15 high-mana. After playing a copy of the card with cost
  ``c`` (``c`` <= ``P_a``'s mana ``m``), a follow-up is another card of
  ``P_a``'s hand (another slot; a second copy counts) costing at most
  ``m - c``; it is high-mana when the most expensive such card costs more than
  ``LOW_FOLLOW_UP_MAX`` (2) and low-mana otherwise. The best copy decides;
  the played card's own effect (The Coin's mana, a discount) is not simulated.
  A card that ``P_a`` does not hold or cannot play has no follow-up (row 13).

Board array ``[18, K, 5]`` (exactly one hot per cell in each plane group)
--------------------------------------------------------------------------
A minion's cell is (its card's column, the bucket of its *current* health):
0: <= 1, 1: 2, 2: 3-4, 3: 5-6, 4: >= 7 (``MINION_HP_EDGES``; the paper's
``[0-1, 2-3, 3-4, 5-6, 7+]`` puts 3 in two buckets; we give 3 to the 3-4
bucket, so 2 stands alone). A minion at 0 health or below that has not died
yet (a chance node inside an action) is in bucket 0.

* planes ``0..8``: how many minions of ``P_a`` and of ``P_o`` are in the cell,
  each clipped at 2, in the ``JOINT9`` order (empty cells on plane 3).
* planes ``9..17``: the specialty level in the cell of ``P_a`` and of
  ``P_o``, ``9 + JOINT9[level(P_a), level(P_o)]``: the card table's
  ``F_LEVEL`` (2 legendary, 1 aura or battlecry minion, 0 others) when that
  side has a minion in the cell, else 0. (The level is a property of the
  card, so pairs (1,2) and (2,1) never occur; the paper's planes are kept.)

Buffs, keywords, frozen, weapons, secrets and deck contents are not encoded,
as in the paper.

Views
-----
``perfect=True`` (the thesis's open-hand states) counts every card of
``P_o``'s hand. ``perfect=False`` counts only ``P_o``'s cards whose identity
is public (``hand_origin == ORIGIN_KNOWN``: The Coin, Antonidas's Fireballs,
a minion returned by Time Rewinder); ``P_o``'s hidden cards and Spare Parts
are left out, so the view is unchanged by ``state.determinize(P_a, rng)``.
The two views differ only in rows 0..12 of the hand array.

``features_for(game)`` builds (and caches by ``game.deck_keys``) the encoder
of a match-up; the module-level ``encode``, ``encode_batch`` and
``sparse_indices`` use it, and a state of another match-up is refused.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from .layout import (
    ANIMAL_COMPANION, ARCHMAGE_ANTONIDAS, BLOOD_FURY, BOOM_BOT, CLOCKWORK_GNOME, COMPANIONS, DAMAGED_GOLEM,
    DR_BOOM, F_COST, F_LEVEL, F_TYPE, FIREBALL, G_PLAYER, HAND_LIMIT, HARVEST_GOLEM, HAUNTED_CREEPER, HOUND,
    INFERNAL, LEEROY_JENKINS, LORD_JARAXXUS, M_CARD, M_HP, MAX_MANA, MECHANICAL_YETI, NUM_CARDS, ORIGIN_KNOWN,
    P_HAND, P_HAND_ORIGIN, P_HP, P_MANA, P_MAX_MANA, P_NHAND, P_NMIN, SLIME, SLUDGE_BELCHER, SPARE_PARTS,
    SPECTRAL_SPIDER, THE_COIN, TINKERTOWN_TECHNICIAN, TYPE_MINION, UNLEASH_THE_HOUNDS, WHELP,
)
from .rules import card_cost, mb, minion_attack, pb

# which card puts which new cards into a hand or onto the board (the closure is taken)
CREATES: dict[int, tuple[int, ...]] = {
    CLOCKWORK_GNOME: SPARE_PARTS,  # Deathrattle: a random Spare Part
    TINKERTOWN_TECHNICIAN: SPARE_PARTS,  # Battlecry: a Spare Part
    MECHANICAL_YETI: SPARE_PARTS,  # Deathrattle: each player a Spare Part
    DR_BOOM: (BOOM_BOT,),
    HARVEST_GOLEM: (DAMAGED_GOLEM,),
    HAUNTED_CREEPER: (SPECTRAL_SPIDER,),
    ANIMAL_COMPANION: COMPANIONS,
    UNLEASH_THE_HOUNDS: (HOUND,),
    LEEROY_JENKINS: (WHELP,),  # for the opponent
    SLUDGE_BELCHER: (SLIME,),
    LORD_JARAXXUS: (BLOOD_FURY, INFERNAL),  # his weapon; his hero power INFERNO! summons Infernals
    ARCHMAGE_ANTONIDAS: (FIREBALL,),
}
ALWAYS_IN_GAME = (THE_COIN,)  # the second player's Coin

# the paper's 9-state order of a joint (P_a, P_o) value in 0..2: JOINT9[own, opp]
JOINT9 = np.array([[3, 1, 0], [7, 4, 2], [8, 6, 5]], dtype=np.int64)
OWN_HELD_ROWS = np.sort(JOINT9[1:].ravel())  # hand rows where P_a holds 1 or 2 copies
MAX_COUNT = 2
HERO_HP_EDGES = np.array([7, 13, 19, 25], dtype=np.int64)  # hero health levels: <=6, 7-12, 13-18, 19-24, >=25
HP_LEVELS = len(HERO_HP_EDGES) + 1
MINION_HP_EDGES = np.array([2, 3, 5, 7], dtype=np.int64)  # minion health buckets: <=1, 2, 3-4, 5-6, >=7
HP_BUCKETS = len(MINION_HP_EDGES) + 1
LOW_FOLLOW_UP_MAX = 2  # a follow-up card costing at most this is low-mana

# global vector
GV_OWN_MANA, GV_OPP_MANA = 0, MAX_MANA
GV_HP = 2 * MAX_MANA
GV_FIRST = GV_HP + HP_LEVELS * HP_LEVELS
GV_ATK = GV_FIRST + 1
GLOBAL_SIZE = GV_ATK + 1
GLOBAL_HOTS = 5  # at most one hot per global block: own mana, opponent mana, health, first player, attack
# hand rows
HR_COUNT, HR_PLAY, HR_FOLLOW = 0, 9, 13
HAND_ROWS = 16
HAND_GROUPS = 3  # one-hot row groups: count, playable, follow-up
PLAY_ROW = HR_PLAY + np.array([[3, 0], [2, 1]], dtype=np.int64)  # [own playable, opp playable] -> row
FOLLOW_NONE, FOLLOW_LOW, FOLLOW_HIGH = 0, 1, 2
# board planes
BP_COUNT, BP_LEVEL = 0, 9
BOARD_PLANES = 18
BOARD_GROUPS = 2  # one-hot plane groups: count, specialty level

NO_COST = 1 << 20  # the cost of a card that is not there: never playable, never a follow-up


def column_cards(deck_ids: Sequence[np.ndarray], cards: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Card ids of the K columns for these decks, in Algorithm 4 order (see the module docstring)."""
    present = {int(c) for ids in deck_ids for c in ids} | set(ALWAYS_IN_GAME)
    frontier = list(present)
    while frontier:
        new = set(CREATES.get(frontier.pop(), ())) - present
        present |= new
        frontier += new
    key = lambda c: (cards[c, F_TYPE] != TYPE_MINION, cards[c, F_COST], cards[c, F_TYPE], names[c])  # noqa: E731
    return np.array(sorted(present, key=key), dtype=np.int64)


class HearthFeatures:
    """The feature encoder of one match-up: its K card columns, shapes and lookups."""

    def __init__(self, game) -> None:
        self.deck_keys = tuple(game.deck_keys)
        self.cards = game.cards
        self.columns = column_cards(game.deck_ids, game.cards, game.names)
        self.names = tuple(game.names[c] for c in self.columns)
        self.K = len(self.columns)
        self.column_of = np.full(NUM_CARDS, -1, dtype=np.int64)  # card id -> column (-1: not in the match-up)
        self.column_of[self.columns] = np.arange(self.K)
        self.cell_level = np.repeat(game.cards[self.columns, F_LEVEL].astype(np.int64), HP_BUCKETS)
        self.global_shape = (GLOBAL_SIZE,)
        self.hand_shape = (HAND_ROWS, self.K)
        self.board_shape = (BOARD_PLANES, self.K, HP_BUCKETS)

    def sparse_indices(self, states: Sequence, players: Sequence[int], perfect: bool = True
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flat int64 indices of the hot entries of the batch arrays ``[B, G]``, ``[B, 16, K]``, ``[B, 18, K, 5]``."""
        for state in states:
            if state.game.deck_keys != self.deck_keys:
                raise ValueError(f"a state of match-up {state.game.deck_keys}, the encoder's is {self.deck_keys}")
        n, me = len(states), np.asarray(players, dtype=np.int64)
        if me.shape != (n,) or not set(me.tolist()) <= {0, 1}:
            raise ValueError(f"players must be one 0 or 1 per state, got {players!r}")
        hot_global = np.empty((n, GLOBAL_HOTS), dtype=np.int64)
        hot_hand = np.empty((n, HAND_GROUPS, self.K), dtype=np.int64)
        hot_board = np.empty((n, BOARD_GROUPS, self.K * HP_BUCKETS), dtype=np.int64)
        missing = _hot_indices(np.stack([state.s for state in states]), me, perfect, self.cards, self.column_of,
                               self.cell_level, hot_global, hot_hand, hot_board)
        if missing >= 0:
            raise ValueError(f"{states[0].game.names[missing]!r} is not a column of the match-up {self.deck_keys}")
        return hot_global[hot_global >= 0], hot_hand.ravel(), hot_board.ravel()

    def encode_batch(self, states: Sequence, players: Sequence[int], perfect: bool = True
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """float32 arrays global ``[B, G]``, hand ``[B, 16, K]``, board ``[B, 18, K, 5]``."""
        out = []
        for shape, hot in zip((self.global_shape, self.hand_shape, self.board_shape),
                              self.sparse_indices(states, players, perfect)):
            dense = np.zeros((len(states),) + shape, dtype=np.float32)
            dense.reshape(-1)[hot] = 1.0
            out.append(dense)
        return tuple(out)

    @staticmethod
    def mana(global_: np.ndarray) -> np.ndarray:
        """int ``[B]``: the mana ``P_a`` has (1..10, 0 for none), from global arrays ``[B, G]`` (the first block)."""
        block = global_[:, GV_OWN_MANA:GV_OWN_MANA + MAX_MANA]
        return np.where(block.any(axis=1), block.argmax(axis=1) + 1, 0)

    @staticmethod
    def held(hand: np.ndarray) -> np.ndarray:
        """bool ``[B, K]``: the columns of which ``P_a`` holds a copy, from hand arrays ``[B, 16, K]`` (rows 0..8)."""
        return hand[:, OWN_HELD_ROWS, :].max(axis=1) > 0

    def encode(self, state, player: int, perfect: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """float32 arrays global ``[G]``, hand ``[16, K]``, board ``[18, K, 5]`` of one state from ``player``'s view."""
        return tuple(a[0] for a in self.encode_batch([state], [player], perfect))


# ---- the compiled pass ----------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _hot_indices(states, players, perfect, cards, column_of, cell_level, hot_global, hot_hand, hot_board):
    """Fill the flat hot indices of each state (``hot_global``: -1 where a block has none).

    Returns -1, or the id of a card that has no column in this match-up."""
    k, cells = hot_hand.shape[2], hot_board.shape[2]
    own_n, opp_n = np.empty(k, np.int64), np.empty(k, np.int64)
    own_min, opp_min, follow = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64)
    own_costs, opp_costs = np.empty(HAND_LIMIT, np.int64), np.empty(HAND_LIMIT, np.int64)
    own_c, opp_c = np.empty(cells, np.int64), np.empty(cells, np.int64)
    for i in range(states.shape[0]):
        s, me = states[i], players[i]
        own, opp = pb(me), pb(1 - me)
        own_mana = s[own + P_MANA] if s[G_PLAYER] == me else _next_mana(s, own)
        opp_mana = _next_mana(s, opp)
        own_attack, _, missing_own = _board_side(s, me, column_of, own_c)
        _, opp_health, missing_opp = _board_side(s, 1 - me, column_of, opp_c)
        missing = max(missing_own, missing_opp,
                      _hand_side(s, cards, me, False, column_of, own_n, own_min, own_costs),
                      _hand_side(s, cards, 1 - me, not perfect, column_of, opp_n, opp_min, opp_costs))
        if missing >= 0:
            return missing
        _follow_ups(s, me, own_costs, own_mana, column_of, follow)
        base = i * HAND_ROWS * k
        for j in range(k):
            hot_hand[i, 0, j] = base + (HR_COUNT + JOINT9[own_n[j], opp_n[j]]) * k + j
            hot_hand[i, 1, j] = base + PLAY_ROW[int(own_min[j] <= own_mana), int(opp_min[j] <= opp_mana)] * k + j
            hot_hand[i, 2, j] = base + (HR_FOLLOW + follow[j]) * k + j
        base = i * BOARD_PLANES * cells
        for cell in range(cells):
            lv = cell_level[cell]
            hot_board[i, 0, cell] = base + (BP_COUNT + JOINT9[own_c[cell], opp_c[cell]]) * cells + cell
            level = JOINT9[lv if own_c[cell] else 0, lv if opp_c[cell] else 0]
            hot_board[i, 1, cell] = base + (BP_LEVEL + level) * cells + cell
        base = i * GLOBAL_SIZE
        hot_global[i, 0] = base + GV_OWN_MANA + own_mana - 1 if own_mana >= 1 else -1
        hot_global[i, 1] = base + GV_OPP_MANA + opp_mana - 1
        hp = HP_LEVELS * _level(s[own + P_HP], HERO_HP_EDGES) + _level(s[opp + P_HP], HERO_HP_EDGES)
        hot_global[i, 2] = base + GV_HP + hp
        hot_global[i, 3] = base + GV_FIRST if me == 0 else -1
        hot_global[i, 4] = base + GV_ATK if own_attack >= opp_health else -1
    return -1


@njit(cache=True, nogil=True)
def _next_mana(s, base):
    """A player's mana at the start of its next turn."""
    return min(s[base + P_MAX_MANA] + 1, MAX_MANA)


@njit(cache=True, nogil=True)
def _level(value, edges):
    """How many of the ascending ``edges`` are <= ``value``: the level (bucket) of ``value``."""
    n = 0
    while n < len(edges) and edges[n] <= value:
        n += 1
    return n


@njit(cache=True, nogil=True)
def _hand_side(s, cards, p, known_only, column_of, counts, cheapest, costs):
    """p's hand cards (``known_only``: only those whose identity is public) per column: copies clipped at 2 into
    ``counts``, the cheapest effective cost into ``cheapest`` (NO_COST: none), and each slot's cost into ``costs``.

    Returns -1, or the id of a card that has no column."""
    counts[:] = 0
    cheapest[:] = NO_COST
    costs[:] = NO_COST
    b = pb(p)
    for slot in range(s[b + P_NHAND]):
        if known_only and s[b + P_HAND_ORIGIN + slot] != ORIGIN_KNOWN:
            continue
        c = column_of[s[b + P_HAND + slot]]
        if c < 0:
            return s[b + P_HAND + slot]
        costs[slot] = card_cost(s, cards, p, slot)
        counts[c] = min(counts[c] + 1, MAX_COUNT)
        cheapest[c] = min(cheapest[c], costs[slot])
    return -1


@njit(cache=True, nogil=True)
def _follow_ups(s, p, costs, mana, column_of, follow):
    """Per column of p's hand cards, the best FOLLOW_* over its copies into ``follow``."""
    follow[:] = FOLLOW_NONE
    b = pb(p)
    for slot in range(s[b + P_NHAND]):
        c = column_of[s[b + P_HAND + slot]]
        follow[c] = max(follow[c], _follow_up(costs, slot, mana))


@njit(cache=True, nogil=True)
def _follow_up(costs, slot, mana):
    """FOLLOW_* after playing the card in ``slot``: the dearest other hand card affordable with the mana left."""
    left = mana - costs[slot]
    best = -1
    for other in range(len(costs)):
        if other != slot and costs[other] <= left:
            best = max(best, costs[other])
    if best < 0:
        return FOLLOW_NONE
    return FOLLOW_LOW if best <= LOW_FOLLOW_UP_MAX else FOLLOW_HIGH


@njit(cache=True, nogil=True)
def _board_side(s, p, column_of, counts):
    """p's minions per board cell (column * 5 + health bucket), clipped at 2, into ``counts``.

    Returns (total effective attack, total current health (a negative one counts 0), -1 or the id of a card that
    has no column)."""
    counts[:] = 0
    attack = health = 0
    for pos in range(s[pb(p) + P_NMIN]):
        m = mb(p, pos)
        c = column_of[s[m + M_CARD]]
        if c < 0:
            return 0, 0, s[m + M_CARD]
        cell = c * HP_BUCKETS + _level(s[m + M_HP], MINION_HP_EDGES)
        counts[cell] = min(counts[cell] + 1, MAX_COUNT)
        attack += minion_attack(s, m)
        health += max(s[m + M_HP], 0)
    return attack, health, -1


_ENCODERS: dict[tuple, HearthFeatures] = {}


def features_for(game) -> HearthFeatures:
    """The (cached) encoder of ``game``'s match-up."""
    key = tuple(game.deck_keys)
    if key not in _ENCODERS:
        _ENCODERS[key] = HearthFeatures(game)
    return _ENCODERS[key]


def encode(state, player: int, perfect: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """global ``[G]``, hand ``[16, K]``, board ``[18, K, 5]`` float32 features of ``state`` from ``player``'s view."""
    return features_for(state.game).encode(state, player, perfect)


def encode_batch(states: Sequence, players: Sequence[int], perfect: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacked features of one match-up's states: global ``[B, G]``, hand ``[B, 16, K]``, board ``[B, 18, K, 5]``."""
    return features_for(states[0].game).encode_batch(states, players, perfect)


def sparse_indices(states: Sequence, players: Sequence[int], perfect: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat hot indices into the ``encode_batch`` arrays (global, hand, board), for sending only what is set."""
    return features_for(states[0].game).sparse_indices(states, players, perfect)

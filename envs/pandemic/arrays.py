"""Building a Pandemic state array by hand: a blank board, the decks from their piles, cubes (the set-up and the
set-up files, ``setup_file``)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from . import layout as L
from .rules import draw_infection_card


def blank_state(players: int, roles: Sequence[int], paper_rate: bool = False) -> np.ndarray:
    """A state with no cards dealt: pawns and the first station in Atlanta, full supplies, seat 0 to act."""
    s = np.zeros(L.STATE_LEN, dtype=np.int32)
    s[L.NUM_SEATS] = players
    s[L.ROLE:L.ROLE + L.MAX_PLAYERS] = -1
    s[L.ROLE:L.ROLE + players] = roles
    s[L.PAWN:L.PAWN + L.MAX_PLAYERS] = L.START_CITY
    s[L.STATION + L.START_CITY] = 1
    s[L.SUPPLY:L.SUPPLY + L.NUM_COLOURS] = L.CUBES_PER_COLOUR
    s[L.ACTIONS_LEFT] = L.ACTIONS_PER_TURN
    s[L.PHASE] = L.PH_ACTIONS
    s[L.RATE_TRACK] = int(paper_rate)
    s[L.CURE_COLOUR] = -1
    return s


def set_player_deck(s: np.ndarray, piles: Sequence[Sequence[int]]) -> None:
    """The player deck from its piles, top pile first, each top card first."""
    cards = np.array([c for pile in piles for c in pile], dtype=np.int32)
    put_player_deck(s, cards, np.cumsum([len(p) for p in piles]).astype(np.int32))


def set_infection_deck(s: np.ndarray, groups: Sequence[Sequence[int]], ordered: Sequence[bool]) -> None:
    """The infection deck from its groups, top group first, each top card first, packed against IDECK's end."""
    cards = np.array([c for g in groups for c in g], dtype=np.int32)
    put_infection_deck(s, cards, np.array([len(g) for g in groups], dtype=np.int32),
                       np.array(ordered, dtype=np.bool_))


@njit(cache=True, nogil=True)
def put_player_deck(s, cards, ends):
    """The player deck ``cards`` (top first) in piles ending at ``ends`` (exclusive, top pile first)."""
    n = len(cards)
    s[L.PDECK:L.PDECK + n] = cards
    s[L.PTOP], s[L.PEND], s[L.NPILES] = 0, n, len(ends)
    s[L.PILE_END:L.PILE_END + L.MAX_PILES] = 0
    s[L.PILE_END:L.PILE_END + len(ends)] = ends


@njit(cache=True, nogil=True)
def put_infection_deck(s, cards, sizes, ordered):
    """The infection deck ``cards`` (top first) in groups of ``sizes`` (top first; empty ones dropped), each
    ``ordered`` or not, packed against IDECK's end."""
    top = L.NUM_CITIES - len(cards)
    s[L.IDECK + top:L.IDECK + L.NUM_CITIES] = cards
    s[L.ITOP], s[L.IBOT] = top, L.NUM_CITIES
    kept, start = 0, top
    for g in range(len(sizes)):
        if sizes[g]:
            s[L.GROUP_START + kept], s[L.GROUP_ORDERED + kept] = start, ordered[g]
            kept += 1
        start += sizes[g]
    s[L.NGROUPS] = kept


@njit(cache=True, nogil=True)
def add_cubes(s, city, colour, count):
    """Put ``count`` cubes (at most 3 a city) from the supply, no outbreak (set-up)."""
    s[L.CUBES + city * L.NUM_COLOURS + colour] += count
    s[L.SUPPLY + colour] -= count


@njit(cache=True, nogil=True)
def deal_cards(s, cities, per_hand, players, sizes, pile_orders, deck, colours):
    """003 §1.4's deal onto a blank ``s``, from its shuffles: ``per_hand`` cards a seat from the top of ``cities``
    (a permutation of the city cards), the rest in piles of ``sizes`` (top first), each with an epidemic card
    appended and then reordered by its slice of ``pile_orders`` (a permutation of its positions); the infection
    deck ``deck`` in one ordered group, then 9 cities infected from its top, 3/3/3, 2/2/2, 1/1/1."""
    for p in range(players):
        for c in cities[p * per_hand:(p + 1) * per_hand]:
            s[L.HAND + p * L.NUM_CITIES + c] = 1
        s[L.NHAND + p] = per_hand
    cards = np.empty(len(pile_orders), dtype=np.int32)
    ends = np.empty(len(sizes), dtype=np.int32)
    pile = np.empty(len(pile_orders), dtype=np.int32)
    at, k = players * per_hand, 0
    for g in range(len(sizes)):
        pile[:sizes[g]] = cities[at:at + sizes[g]]
        pile[sizes[g]] = L.EPIDEMIC
        for j in range(sizes[g] + 1):
            cards[k + j] = pile[pile_orders[k + j]]
        at += sizes[g]
        k += sizes[g] + 1
        ends[g] = k
    put_player_deck(s, cards, ends)
    put_infection_deck(s, deck.astype(np.int32), np.full(1, len(deck), dtype=np.int32), np.ones(1, dtype=np.bool_))
    for count in L.INITIAL_INFECTIONS:
        city = s[L.IDECK + s[L.ITOP]]
        draw_infection_card(s, city, False)
        add_cubes(s, city, colours[city], count)

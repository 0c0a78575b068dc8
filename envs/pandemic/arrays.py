"""Building a Pandemic state array by hand: a blank board, the decks from their piles, cubes (the set-up and the
set-up files, ``setup_file``)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import layout as L


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
    cards = [int(c) for pile in piles for c in pile]
    s[L.PDECK:L.PDECK + len(cards)] = cards
    s[L.PTOP], s[L.PEND], s[L.NPILES] = 0, len(cards), len(piles)
    s[L.PILE_END:L.PILE_END + L.MAX_PILES] = 0
    s[L.PILE_END:L.PILE_END + len(piles)] = np.cumsum([len(p) for p in piles])


def set_infection_deck(s: np.ndarray, groups: Sequence[Sequence[int]], ordered: Sequence[bool]) -> None:
    """The infection deck from its groups, top group first, each top card first, packed against IDECK's end."""
    cards = [int(c) for g in groups for c in g]
    top = L.NUM_CITIES - len(cards)
    s[L.IDECK + top:L.IDECK + L.NUM_CITIES] = cards
    s[L.ITOP], s[L.IBOT] = top, L.NUM_CITIES
    starts = top + np.concatenate([[0], np.cumsum([len(g) for g in groups])[:-1]]).astype(int)
    kept = [(int(a), bool(o)) for a, g, o in zip(starts, groups, ordered) if len(g)]
    s[L.NGROUPS] = len(kept)
    for i, (start, o) in enumerate(kept):
        s[L.GROUP_START + i], s[L.GROUP_ORDERED + i] = start, int(o)


def add_cubes(s: np.ndarray, city: int, colour: int, count: int) -> None:
    """Put ``count`` cubes (at most 3 a city) from the supply, no outbreak (set-up)."""
    s[L.CUBES + city * L.NUM_COLOURS + colour] += count
    s[L.SUPPLY + colour] -= count

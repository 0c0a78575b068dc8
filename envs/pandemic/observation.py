"""The observation vector: the public board, hands and deck structure; the deck orders in open mode only.

Every seat sees the same public facts (hands are public in Pandemic); the vector also says which seat
observes, whose turn it is and who decides. ``perfect=True`` adds the next player cards and the next
infection cards of the stored order (as far as an order has been drawn).

==========================  =====  ==========================================================
block                       size   meaning
==========================  =====  ==========================================================
cubes                       192    city x colour, / 3
stations                    48     1 = research station
pawns                       192    seat x city, one-hot
roles                       24     seat x role, one-hot
hands                       192    seat x city card
cured, eradicated, supply   12     per colour; supply / 24
counters                    9      outbreaks / 8, epidemics / 6, rate / 4, deck / 54, top pile / 14,
                                   epidemics in the top pile, actions left / 4, station move used,
                                   cure cards still to choose / 5
player discard              48
infection discard           48
infection-deck groups       48     1 / (1 + group index) for a city in the deck (top group = 1)
seats and phase             23     turn seat, decider, observer (4 each), phase (7), cure colour (4)
open: next player cards     98     2 x 49 one-hot (open mode; zeros otherwise)
open: next infection cards  432    9 x 48 one-hot, as far as the order is drawn (open mode)
==========================  =====  ==========================================================
"""
from __future__ import annotations

from numba import njit

from ..structure import Attached, Globals, Graph, ObservationStructure
from .board import BOARD
from .layout import (
    ACTIONS_LEFT, B_DEGREE, B_NEIGHBOURS, CUBES, CURE_COLOUR, CURE_LEFT, CURED, DECIDER, EPIDEMIC, EPIDEMICS_DRAWN,
    GROUP_ORDERED, GROUP_START, HAND, IBOT, IDECK, IDISCARD, MAX_PLAYERS, NGROUPS, NUM_CITIES, NUM_COLOURS, NUM_SEATS,
    OPS_MOVED, OUTBREAKS, PAWN, PDECK, PDISCARD, PEND, PHASE, PHASE_NAMES, PILE_END, PLAYER, PLAYER_DECK_MAX,
    PTOP, ROLE, ROLE_NAMES, STATION, SUPPLY,
)
from .rules import _top_pile, infection_rate

NEXT_PLAYER_CARDS = 2
NEXT_INFECTIONS = 9
_NR = len(ROLE_NAMES)
O_CUBES = 0
O_STATIONS = O_CUBES + NUM_CITIES * NUM_COLOURS
O_PAWNS = O_STATIONS + NUM_CITIES
O_ROLES = O_PAWNS + MAX_PLAYERS * NUM_CITIES
O_HANDS = O_ROLES + MAX_PLAYERS * _NR
O_COLOURS = O_HANDS + MAX_PLAYERS * NUM_CITIES
O_COUNTERS = O_COLOURS + 3 * NUM_COLOURS
O_PDISCARD = O_COUNTERS + 9
O_IDISCARD = O_PDISCARD + NUM_CITIES
O_GROUPS = O_IDISCARD + NUM_CITIES
O_SEATS = O_GROUPS + NUM_CITIES
O_NEXT_PLAYER = O_SEATS + 3 * MAX_PLAYERS + len(PHASE_NAMES) + NUM_COLOURS
O_NEXT_INFECTION = O_NEXT_PLAYER + NEXT_PLAYER_CARDS * (NUM_CITIES + 1)
OBS_LEN = O_NEXT_INFECTION + NEXT_INFECTIONS * NUM_CITIES
_EDGES = tuple((a, int(b)) for a in range(NUM_CITIES) for b in BOARD[a, B_NEIGHBOURS:B_NEIGHBOURS + BOARD[a, B_DEGREE]]
               if a < b)  # drive / ferry links
STRUCTURE = ObservationStructure((
    Graph("cities", O_CUBES, NUM_CITIES, NUM_COLOURS, _EDGES, meaning="cubes of each colour on each city / 3"),
    Attached("stations", O_STATIONS, "cities", NUM_CITIES, 1, meaning="research stations"),
    Attached("pawns", O_PAWNS, "cities", NUM_CITIES, MAX_PLAYERS, node_major=False, meaning="seat x city pawns"),
    Globals("roles", O_ROLES, MAX_PLAYERS * _NR, meaning="seat x role"),
    Attached("hands", O_HANDS, "cities", NUM_CITIES, MAX_PLAYERS, node_major=False,
             meaning="seat x city card held"),
    Globals("colours", O_COLOURS, 3 * NUM_COLOURS, meaning="cured, eradicated, supply per colour"),
    Globals("counters", O_COUNTERS, 9,
            meaning="outbreaks, epidemics, rate, deck, top pile and its epidemics, actions, station move, cure cards"),
    Attached("player_discard", O_PDISCARD, "cities", NUM_CITIES, 1, meaning="city cards discarded"),
    Attached("infection_discard", O_IDISCARD, "cities", NUM_CITIES, 1, meaning="infection cards discarded"),
    Attached("infection_groups", O_GROUPS, "cities", NUM_CITIES, 1,
             meaning="1 / (1 + group) of a city's infection card in the deck (top group = 1)"),
    Globals("seats", O_SEATS, O_NEXT_PLAYER - O_SEATS, meaning="turn seat, decider, observer, phase, cure colour"),
    Globals("next_player_cards", O_NEXT_PLAYER, NEXT_PLAYER_CARDS * (NUM_CITIES + 1),
            meaning="the next 2 player cards, city or epidemic one-hot (perfect)"),
    Attached("next_infections", O_NEXT_INFECTION, "cities", NUM_CITIES, NEXT_INFECTIONS, node_major=False,
             meaning="the next 9 infection cards, as far as their order is drawn (perfect)"),
), (OBS_LEN,))


@njit(cache=True, nogil=True)
def observe(s, board, player, perfect, out):
    """Write ``player``'s view of ``s`` into the zeroed float32 vector ``out``."""
    seats = s[NUM_SEATS]
    for i in range(NUM_CITIES * NUM_COLOURS):
        out[O_CUBES + i] = s[CUBES + i] / 3.0
    for c in range(NUM_CITIES):
        out[O_STATIONS + c] = s[STATION + c]
        out[O_PDISCARD + c] = s[PDISCARD + c]
        out[O_IDISCARD + c] = s[IDISCARD + c]
    for q in range(seats):
        out[O_PAWNS + q * NUM_CITIES + s[PAWN + q]] = 1.0
        out[O_ROLES + q * _NR + s[ROLE + q]] = 1.0
        for c in range(NUM_CITIES):
            out[O_HANDS + q * NUM_CITIES + c] = s[HAND + q * NUM_CITIES + c]
    for k in range(NUM_COLOURS):
        out[O_COLOURS + k] = s[CURED + k]
        out[O_COLOURS + NUM_COLOURS + k] = s[CURED + k] == 1 and s[SUPPLY + k] == 24
        out[O_COLOURS + 2 * NUM_COLOURS + k] = s[SUPPLY + k] / 24.0
    deck = s[PEND] - s[PTOP]
    k = _top_pile(s)
    out[O_COUNTERS] = s[OUTBREAKS] / 8.0
    out[O_COUNTERS + 1] = s[EPIDEMICS_DRAWN] / 6.0
    out[O_COUNTERS + 2] = infection_rate(s) / 4.0
    out[O_COUNTERS + 3] = deck / float(PLAYER_DECK_MAX)
    if k >= 0:
        out[O_COUNTERS + 4] = (s[PILE_END + k] - s[PTOP]) / 14.0
        e = 0
        for i in range(s[PTOP], s[PILE_END + k]):
            e += s[PDECK + i] == EPIDEMIC
        out[O_COUNTERS + 5] = e
    out[O_COUNTERS + 6] = s[ACTIONS_LEFT] / 4.0
    out[O_COUNTERS + 7] = s[OPS_MOVED]
    out[O_COUNTERS + 8] = s[CURE_LEFT] / 5.0
    for g in range(s[NGROUPS]):
        end = s[GROUP_START + g + 1] if g + 1 < s[NGROUPS] else s[IBOT]
        for i in range(s[GROUP_START + g], end):
            out[O_GROUPS + s[IDECK + i]] = 1.0 / (1.0 + g)
    out[O_SEATS + s[PLAYER]] = 1.0
    out[O_SEATS + MAX_PLAYERS + s[DECIDER]] = 1.0
    out[O_SEATS + 2 * MAX_PLAYERS + player] = 1.0
    out[O_SEATS + 3 * MAX_PLAYERS + s[PHASE]] = 1.0
    if s[CURE_COLOUR] >= 0:
        out[O_SEATS + 3 * MAX_PLAYERS + len(PHASE_NAMES) + s[CURE_COLOUR]] = 1.0
    if not perfect:
        return
    for i in range(min(NEXT_PLAYER_CARDS, deck)):
        out[O_NEXT_PLAYER + i * (NUM_CITIES + 1) + s[PDECK + s[PTOP] + i]] = 1.0
    shown = 0
    for g in range(s[NGROUPS]):
        if not s[GROUP_ORDERED + g]:
            break
        end = s[GROUP_START + g + 1] if g + 1 < s[NGROUPS] else s[IBOT]
        for i in range(s[GROUP_START + g], end):
            if shown < NEXT_INFECTIONS:
                out[O_NEXT_INFECTION + shown * NUM_CITIES + s[IDECK + i]] = 1.0
                shown += 1

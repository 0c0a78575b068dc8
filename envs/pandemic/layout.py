"""Pandemic layout: every number of the game, each named once and cited, and the flat state array.

Sources: Sfikas & Liapis, FDG 2020 (paper 003; §n below are sections of our notes,
``shared/papers/003_*.notes.md``) and the official base-game rules (Z-Man Games, 2013), which the
issue tells us to follow where the two differ. Numbers marked DECISION are ours; the game's
README gives the reason for each.

**State.** One flat ``int32`` array ``s`` (a clone is one copy): the board, the pawns, the hands,
both decks with their public structure, and the turn's bookkeeping. **Board.** ``map.build_board``
gives an ``int32`` table ``[48, BOARD_COLS]``: a city's colour, degree and neighbours.
**Actions** (flat, ``NUM_ACTIONS``): the primitive actions below; ``macro`` adds a second layer.
"""
from __future__ import annotations

# ---- rule constants (003 §1, official rules) -------------------------------------------------------
NUM_CITIES = 48  # 003 §1.1: 48 cities, 12 of each colour
NUM_COLOURS = 4
COLOUR_NAMES = ("blue", "yellow", "black", "red")  # the source's infection types 0..3 (shared/data/pandemic_map.json)
CUBES_PER_COLOUR = 24  # 003 §1.1
MAX_CUBES_PER_CITY = 3  # 003 §1.1: a 4th cube of a colour is an outbreak instead
MAX_OUTBREAKS = 8  # 003 §1.6 (ii): the game is lost when the outbreak marker reaches 8
ACTIONS_PER_TURN = 4  # 003 §1.2
CARDS_DRAWN = 2  # 003 §1.5 step 2
HAND_LIMIT = 7  # 003 §1.5: discard down to 7
CURE_CARDS = 5  # 003 §1.2: discover a cure with 5 cards of one colour ...
SCIENTIST_CURE_CARDS = 4  # 003 §1.3: ... 4 for the Scientist
MAX_STATIONS = 6  # official rules (003 §1.1 [code]: 1 built + 5 available)
START_CITY = 0  # Atlanta: the first research station and every pawn's start (003 §1.1 [code])
INITIAL_INFECTIONS = (3, 3, 3, 2, 2, 2, 1, 1, 1)  # 003 §1.4: 9 cities, 3/3/3 cubes, 2/2/2, 1/1/1
HAND_SIZE_OFFICIAL = {2: 4, 3: 3, 4: 2}  # official rules, 003 §1.4 [code]
HAND_SIZE_PAPER = 2  # 003 §1.4: "each player receives two player cards" (the paper's variant for 2-3 players)
# infection rate by epidemics drawn so far: official track (003 §1.5 [code]) and the paper's text (003 §4.2)
INFECTION_RATE_OFFICIAL = (2, 2, 2, 3, 3, 4, 4)
INFECTION_RATE_PAPER = (2, 2, 2, 2, 3, 3, 4, 4)
EPIDEMICS = {"easy": 4, "medium": 5, "hard": 6}  # 003 §1.4, §3.5
MIN_PLAYERS, MAX_PLAYERS = 2, 4

ROLE_NAMES = ("operations_expert", "medic", "researcher", "scientist", "dispatcher", "quarantine_specialist")
OPERATIONS_EXPERT, MEDIC, RESEARCHER, SCIENTIST, DISPATCHER, QUARANTINE_SPECIALIST = range(6)
# 003's four roles in the order of the authors' testbed files (role__per__player [2, 6, 7, 5] in their code:
# what the paper played), and in the order of its text (003 §1.3), Researcher before Scientist
PAPER_ROLES = ("operations_expert", "medic", "scientist", "researcher")
PAPER_TEXT_ROLES = ("operations_expert", "medic", "researcher", "scientist")

# ---- cards -------------------------------------------------------------------------------------------
EPIDEMIC = NUM_CITIES  # player-card id of an epidemic (city cards are 0..47, one per city)
MAX_EPIDEMICS = 6
MAX_PILES = MAX_EPIDEMICS
PLAYER_DECK_MAX = NUM_CITIES + MAX_EPIDEMICS
MAX_GROUPS = MAX_EPIDEMICS + 2  # infection-deck groups: the original deck and one stack per epidemic (+1 spare)
# DECISION: a turn bound for the protocol (info.max_turns): the largest deck (48 cities + 6 epidemics,
# 2 players with 2 cards each) lasts 25 turns of 2 draws; the loss by an empty deck comes on the next
MAX_TURNS = 30

# ---- primitive actions ---------------------------------------------------------------------------------
A_DRIVE = 0  # + city: drive / ferry to an adjacent city
A_DIRECT = A_DRIVE + NUM_CITIES  # + city: direct flight, discarding that city's card
A_CHARTER = A_DIRECT + NUM_CITIES  # + city: charter flight, discarding the card of the city you are in
A_SHUTTLE = A_CHARTER + NUM_CITIES  # + city: shuttle flight between research stations
A_OPS_MOVE = A_SHUTTLE + NUM_CITIES  # + dest * 48 + card: Operations Expert, station -> any city, any card
A_TREAT = A_OPS_MOVE + NUM_CITIES * NUM_CITIES  # + colour
A_BUILD = A_TREAT + NUM_COLOURS  # build a research station here
A_BUILD_MOVE = A_BUILD + 1  # + city: build here, moving the station of that city (all 6 already built)
A_GIVE = A_BUILD_MOVE + NUM_CITIES  # + seat * 48 + card: share knowledge, give
A_TAKE = A_GIVE + MAX_PLAYERS * NUM_CITIES  # + seat * 48 + card: share knowledge, take
A_CURE = A_TAKE + MAX_PLAYERS * NUM_CITIES  # + colour: discover a cure
A_PASS = A_CURE + NUM_COLOURS  # end the action phase early
A_DISCARD = A_PASS + 1  # + card: discard (hand limit, or a card chosen for a cure)
DISPATCH_MODES = ("drive", "direct", "charter", "shuttle", "join")
A_DISPATCH = A_DISCARD + NUM_CITIES  # + (seat * 5 + mode) * 48 + city: the Dispatcher moves a pawn
NUM_ACTIONS = A_DISPATCH + MAX_PLAYERS * len(DISPATCH_MODES) * NUM_CITIES

# chance outcomes: a player card (city id, or EPIDEMIC) or an infection card (city id)

# ---- phases ---------------------------------------------------------------------------------------------
PH_ACTIONS, PH_CURE_DISCARD, PH_LIMIT_DISCARD, PH_DRAW, PH_EPIDEMIC, PH_INFECT, PH_OVER = range(7)
PHASE_NAMES = ("actions", "cure_discard", "limit_discard", "draw", "epidemic", "infect", "over")
CHANCE_PHASES = (PH_DRAW, PH_EPIDEMIC, PH_INFECT)
LOSS_NAMES = ("none", "outbreaks", "cubes", "player_deck")
LOSS_NONE, LOSS_OUTBREAKS, LOSS_CUBES, LOSS_DECK = range(4)

# ---- board table -----------------------------------------------------------------------------------------
B_COLOUR, B_DEGREE, B_NEIGHBOURS = 0, 1, 2
MAX_DEGREE = 6
BOARD_COLS = B_NEIGHBOURS + MAX_DEGREE

# ---- state layout -----------------------------------------------------------------------------------------
CUBES = 0  # 48 x 4: cubes of each colour on each city
STATION = CUBES + NUM_CITIES * NUM_COLOURS  # 48: 1 = research station
PAWN = STATION + NUM_CITIES  # 4: each seat's city
ROLE = PAWN + MAX_PLAYERS  # 4: each seat's role (-1 = no such seat)
HAND = ROLE + MAX_PLAYERS  # 4 x 48: 1 = the seat holds that city card
NHAND = HAND + MAX_PLAYERS * NUM_CITIES  # 4: cards in each hand
CURED = NHAND + MAX_PLAYERS  # 4
SUPPLY = CURED + NUM_COLOURS  # 4: cubes of each colour off the board
PDISCARD = SUPPLY + NUM_COLOURS  # 48: 1 = the city card is in the player discard pile
PDECK = PDISCARD + NUM_CITIES  # PLAYER_DECK_MAX: the player deck, top first, from PTOP on
PILE_END = PDECK + PLAYER_DECK_MAX  # MAX_PILES: end (exclusive) of each pile in PDECK, top pile first
IDECK = PILE_END + MAX_PILES  # 48: the infection deck, top first, IDECK[ITOP:IBOT]
GROUP_START = IDECK + NUM_CITIES  # MAX_GROUPS: start of each infection-deck group, top group first
GROUP_ORDERED = GROUP_START + MAX_GROUPS  # MAX_GROUPS: 1 = the group's order is fixed (set-up or determinize)
IDISCARD = GROUP_ORDERED + MAX_GROUPS  # 48: 1 = the infection card is in the discard pile
NUM_SEATS = IDISCARD + NUM_CITIES  # scalars from here on
PLAYER = NUM_SEATS + 1  # the seat whose turn it is
DECIDER = PLAYER + 1  # the seat deciding now (another seat discards to the hand limit after a share)
PHASE = DECIDER + 1
ACTIONS_LEFT = PHASE + 1
TURN = ACTIONS_LEFT + 1
OUTBREAKS = TURN + 1
EPIDEMICS_DRAWN = OUTBREAKS + 1  # epidemic cards drawn (they lie in the player discard pile)
PTOP = EPIDEMICS_DRAWN + 1  # first undrawn position of PDECK
PEND = PTOP + 1  # end of PDECK
NPILES = PEND + 1
ITOP = NPILES + 1
IBOT = ITOP + 1
NGROUPS = IBOT + 1
DRAWS_LEFT = NGROUPS + 1
INFECT_LEFT = DRAWS_LEFT + 1
OPS_MOVED = INFECT_LEFT + 1  # the Operations Expert used its station move this turn
CURE_COLOUR = OPS_MOVED + 1  # the colour being cured in PH_CURE_DISCARD
CURE_LEFT = CURE_COLOUR + 1  # cards still to choose for it
RESUME = CURE_LEFT + 1  # the phase a hand-limit discard returns to
RESULT = RESUME + 1  # 0 running, 1 won, -1 lost
LOSS = RESULT + 1  # LOSS_* cause
RATE_TRACK = LOSS + 1  # 0 official infection-rate track, 1 the paper's
STATE_LEN = RATE_TRACK + 1

BUFFER_LEN = NUM_ACTIONS

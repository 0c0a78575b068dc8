"""Lords of War layout: every number of the game, each named once and cited, and the flat arrays.

Everything the compiled rules (``rules``), the forward model (``state``), the
observation encoder, the position builder and the renderer agree on lives here,
as plain ints.

Sources: Sephton's EngD thesis (paper 000, §1.1 of our notes: (A) the thesis's
implementation, (B) the publisher's rulebook, Appendix C) and the CIG 2014
pruning paper (paper 002, §1.1). Numbers marked DECISION are ours, where the
papers are silent; the game's README gives the reason for each.

**State.** One flat ``int16`` array (a clone is one copy): the rules fields
(``BOARD`` .. ``WINNER``), then two maps derived from the mat that the kernels
keep in step with it (``ATT``, ``UNITS``; ``rules.rebuild_maps`` recomputes
them). **Card table.** ``cards.build_card_table`` builds an ``int16`` table
``[72, NUM_CARD_FIELDS]`` (fields ``F_*``) shared by all states of a game.
**Actions** (flat, ``NUM_ACTIONS``; squares in the ACTING player's frame, see
``rules``): deploy hand slot k on square e, shoot at e, hold fire, draw, recall from e.
"""
from __future__ import annotations

# ---- rule constants -----------------------------------------------------------------------------
ROWS = 7  # 000 §1.1(A), 002 §1.1: a 7x6 board; the short (6-square) sides face the players (000 §1.1(B) set-up 3)
COLS = 6
NUM_SQUARES = ROWS * COLS
HAND_SIZE = 6  # 000 §1.1(B): hand = General + 5
ARMY_SIZE = 36  # 000 §1.1(B): 36 cards per army deck
RANK_SPLIT = {"command": 6, "special": 4, "elite": 4, "veteran": 6, "regular": 8, "recruit": 8}  # 000 §1.1(B)
WIN_ELIMINATED = 20  # 000 §1.1(A)/(B), 002 §1.1: eliminate 20 enemy cards ...
WIN_COMMAND = 4  # ... or 4 of the enemy's 6 Command cards
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")  # 002 §1.1: 8 neighbouring squares; N = toward the enemy's edge, owner's frame

# DECISION: the opening squares "1" and "2" (positions not given, 000 §5.2): the two centre squares of the
# middle row, (row 3, col 2) for player 0 and (row 3, col 3) for player 1, a pair that a 180-degree turn of
# the board swaps, so both players see the same opening.
OPENING_SQUARES = (3 * COLS + 2, 3 * COLS + 3)
# DECISION: a game that reaches this many player turns is a draw (the rulebook has no limit; random games
# end in 50-120 turns, 000 §1.1(A), so the cap only stops pathological stalls with empty hands and decks).
MAX_TURNS = 400

# ---- flat action space (squares in the acting player's frame) -------------------------------------
NUM_DEPLOY = HAND_SIZE * NUM_SQUARES
A_DEPLOY = 0
A_TARGET = A_DEPLOY + NUM_DEPLOY
A_HOLD_FIRE = A_TARGET + NUM_SQUARES
A_DRAW = A_HOLD_FIRE + 1
A_RECALL = A_DRAW + 1
NUM_ACTIONS = A_RECALL + NUM_SQUARES

RANKS = ("command", "special", "elite", "veteran", "regular", "recruit")
CLASSES = ("infantry", "cavalry", "spear", "ranged")
SUPPORT_CLASSES = ("spear", "ranged")  # 000 §1.1(B): all spear and ranged units are support units
MAX_RANGED_OFFSETS = 12

# ---- state layout -------------------------------------------------------------------------------
NSQ = NUM_SQUARES
# A bitboard (bit sq for square sq) is an int64 in the kernels and BB_WORDS words of BB_BITS bits in the state.
BB_BITS, BB_WORDS = 14, 3
BOARD = 0  # NSQ: card id or -1
HAND = BOARD + NSQ  # 2 x HAND_SIZE: card ids sorted ascending, -1 padded
DECK = HAND + 2 * HAND_SIZE  # 2 x ARMY_SIZE: positions 0..ndeck-1, top card last
DEAD = DECK + 2 * ARMY_SIZE  # 2 x ARMY_SIZE: eliminated piles in order of elimination
KNOWN = DEAD + 2 * ARMY_SIZE  # per card id: 1 if it is in its owner's hand and known to the opponent
FOUGHT = KNOWN + 2 * ARMY_SIZE  # NSQ: the unit took part in a combat that eliminated an enemy this turn
NHAND = FOUGHT + NSQ  # 2
NDECK = NHAND + 2  # 2
NDEAD = NDECK + 2  # 2
NCMD = NDEAD + 2  # 2: Command cards eliminated
PLAYER = NCMD + 2
PHASE = PLAYER + 1
TURN = PHASE + 1
PLACED = TURN + 1  # square of the card placed this turn, or -1
EXTRA = PLACED + 1  # 1 once the active player has earned the General's extra turn
WINNER = EXTRA + 1  # -1 running, 0 / 1 winner, 2 draw
# derived from BOARD, kept in step with it by the kernels:
ATT = WINNER + 1  # 2 x NSQ: total melee attack of player o's units pointed at sq
UNITS = ATT + 2 * NSQ  # 2 x BB_WORDS: bitboard of the squares holding player o's units
STATE_LEN = UNITS + 2 * BB_WORDS

# decision phases (the rules add transient ones inside their settling loop)
PH_OPENING, PH_DEPLOY, PH_TARGET, PH_REINFORCE, PH_OVER = 0, 1, 2, 3, 4
NUM_PHASES = 5
PHASE_NAMES = ("opening", "deploy", "target", "reinforce", "over")

# ---- card table layout --------------------------------------------------------------------------
F_ATK = 0  # 8: attack per absolute direction
F_RATK = 8  # 8: attack per direction in the owner's frame (for observations)
F_DEF = 16
F_RANK = 17
F_CLASS = 18
F_CMD = 19
F_GEN = 20
F_SUPPORT = 21
F_RDMG = 22  # missile damage (0: not ranged)
F_AMASK = 23  # bitmask of absolute arrow directions
F_TYPE = 24  # index into the game's list of card types
F_RN = 25  # number of ranged-grid offsets
F_RG = 26  # MAX_RANGED_OFFSETS pairs (d_row, d_col), absolute
NUM_CARD_FIELDS = F_RG + 2 * MAX_RANGED_OFFSETS

# ---- the int32 buffer every state owns: legal action ids, then scratch space ----------------------
DEAD_SQ = NUM_ACTIONS  # NSQ: squares eliminated by a combat (see rules.resolve_combat)
COUNTS = NUM_ACTIONS  # HAND_SIZE (the same space): number of squares of each hand card (see rules._random_placement)
MODE = DEAD_SQ + NSQ  # the deploy mode found by the last legal_actions (see rules._deployment)
BUFFER_LEN = MODE + 1


def square_name(sq: int) -> str:
    """Absolute square as 'a1'..'f7': column letter from player 0's left, row number from player 0's edge."""
    row, col = divmod(int(sq), COLS)
    return f"{'abcdef'[col]}{row + 1}"

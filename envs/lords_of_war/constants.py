"""Lords of War numbers, each named once and cited.

Sources: Sephton's EngD thesis (paper 000, §1.1 of our notes: (A) the thesis's
implementation, (B) the publisher's rulebook, Appendix C) and the CIG 2014
pruning paper (paper 002, §1.1). Numbers marked DECISION are ours, where the
papers are silent; the game's README gives the reason for each.
"""

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

# Flat action space (squares in the acting player's frame, see rules.py).
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

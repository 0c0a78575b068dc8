"""Fifth Aeon's numbers, in one place, each with its source.

``rules`` = ``shared/data/fifthaeon_rules.md`` (facts read from the game's own model, Fifth-Aeon-Model @ 5759634,
file:line cited there); ``004`` = Ritson's thesis (paper 004) and its notes.
"""
from __future__ import annotations

STARTING_LIFE = 25  # 004 §4.1.1; rules "Format constants" (gameFormat.ts:15)
BOARD_SLOTS = 7  # units and enchantments of one player; rules (gameFormat.ts:8)
OPENING_DRAW = (3, 4)  # player 0 draws 3, player 1 draws 4 before the game; rules (gameFormat.ts:14)
SOFT_HAND_LIMIT = 8  # discard down to 8 at the end of your turn; rules (player.ts:23)
HARD_HAND_LIMIT = 12  # a card drawn at 12 goes to the crypt; rules (player.ts:22)
DECK_MIN, DECK_MAX = 40, 50  # rules (gameFormat.ts:19-21); 004 §1.8 says 40
MAX_COPIES = 4  # 004 §1.8; rules (deckList.ts isValid)
RESOURCES = ("synthesis", "growth", "decay", "renewal")  # 004 §1.2; rules "Resources"
WIN_LIFE_THRESHOLD_DEFAULT = 60  # Overwhelming Radiance's WinIfHighLife; rules "Winning"
MAX_TURNS = 200  # a game still running after 200 player turns is a draw (ours: the engine has no limit)

# The competition's tournament formats (004 §1.8 [REPO] Bot-Tool-Kit data/tournaments/*.json).
CONSTRUCTED_GAMES = 10  # games per deck pair per seat order
LIMITED_GAMES = 100  # games per AI pair per seat order
LIMITED_POOL = 100  # cards sampled uniformly with replacement from the collectible pool
PRECONSTRUCTED_GAMES = 10  # games per deck pair per seat order

# The balancer (004 §3.3-3.4, §5.2.1): full injection of 4 copies, 10 decks, 10 repetitions, costs 0..10.
INJECTED_COPIES = 4
BALANCER_REPETITIONS = 10  # 10 x 10 decks x 10 decks... see balancer.py for the pairing we use
BALANCER_ENERGY_RANGE = (0, 10)
GOAL_CARD = "Decapitate"  # 4 energy, 3 decay, "kill target unit": the Goal of every §5.2 experiment

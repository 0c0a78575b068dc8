"""The action ids of Fifth Aeon (``Discrete(170)``), all in the acting player's frame.

A board position ``b`` is 0..6 for the acting player's own permanents (units and enchantments share the 7 slots,
in the order they entered) and 7..13 for the opponent's. A card is played in one to three decisions: ``PLAY + h``
(hand slot h), then ``TARGET + b`` for an item's host, then ``TARGET + b`` (or ``NO_TARGET`` when the targeter is
optional) for the card's target. A choice (the mulligan, a discard, a search, a replace) is made one option at a
time: ``OPTION + i`` picks option i of ``Match.choice.options``, ``CHOICE_DONE`` ends it once enough are picked.
"""
from __future__ import annotations

from .constants import BOARD_SLOTS, HARD_HAND_LIMIT

MAX_OPTIONS = 60  # a choice offers at most this many options (a deck search offers the deck's distinct cards)
OPTION = 0
CHOICE_DONE = OPTION + MAX_OPTIONS  # 60
RESOURCE = CHOICE_DONE + 1  # 61..64: synthesis, growth, decay, renewal
PLAY = RESOURCE + 4  # 65..76: hand slot 0..11
TARGET = PLAY + HARD_HAND_LIMIT  # 77..90: board position 0..13 (host or target)
NO_TARGET = TARGET + 2 * BOARD_SLOTS  # 91
EMPOWER = NO_TARGET + 1  # 92..98: own enchantment at slot s
DIMINISH = EMPOWER + BOARD_SLOTS  # 99..105: the opponent's enchantment at slot s
ATTACK = DIMINISH + BOARD_SLOTS  # 106..112: declare own unit at slot s an attacker
BLOCK = ATTACK + BOARD_SLOTS  # 113..161: 7 * blocker slot + attacker slot
ORDER = BLOCK + BOARD_SLOTS * BOARD_SLOTS  # 162..168: the opponent's blocker at slot s takes damage next
PASS = ORDER + BOARD_SLOTS  # 169: end the phase (Play1 with attackers: go to combat; otherwise end the turn)
NUM_ACTIONS = PASS + 1

"""Build Lords of War positions by hand: for rules tests, puzzles and search experiments.

    state = build_position(game, board={"c4": (0, "Orc Ravager"), "c5": (1, "Dwarf Marauder")},
                           hands=(["Orc General"], ["Dwarf General"]), player=0)

Squares are absolute names ("a1".."f7", column letter from player 0's left, row 1 at
player 0's edge). Cards are named; each name takes the next unused copy of that card
in the owner's army. Every card not named goes to its owner's deck below any
``deck_tops`` cards, so every position conserves all 72 cards.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import CardDataError
from . import layout as L
from . import rules as R
from .layout import ARMY_SIZE, COLS, HAND_SIZE, ROWS
from .state import LordsOfWarGame, LordsOfWarState

_PHASES = {"opening": L.PH_OPENING, "deploy": L.PH_DEPLOY, "reinforce": L.PH_REINFORCE}


def square_index(name: str) -> int:
    """'c4' -> absolute square index."""
    if len(name) != 2 or name[0] not in "abcdef"[:COLS] or not name[1].isdigit() or not 1 <= int(name[1]) <= ROWS:
        raise ValueError(f"bad square {name!r}: use a1..f7")
    return (int(name[1]) - 1) * COLS + "abcdef".index(name[0])


def build_position(
    game: LordsOfWarGame,
    board: Mapping[str, tuple[int, str]] = {},
    hands: Sequence[Sequence[str]] = ((), ()),
    deck_tops: Sequence[Sequence[str]] = ((), ()),
    dead: Sequence[Sequence[str]] = ((), ()),
    player: int = 0,
    phase: str = "deploy",
    turn: int = 10,
    known: Sequence[str] = (),
    placed: str | None = None,
    fought: Sequence[str] = (),
) -> LordsOfWarState:
    """A state with the given cards; ``known`` names opponent-visible hand cards ('p:Name').

    A "deploy" position whose player has nothing to place (empty hand or full mat) is settled the
    way a turn starting like that is: the elimination phase runs and play goes on to the next
    decision. Otherwise the position is returned as given (no combat is resolved).
    """
    free = [list(range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE)) for p in range(2)]

    def take(p: int, name: str) -> int:
        for c in free[p]:
            if game.card_names[c] == name:
                free[p].remove(c)
                return c
        raise CardDataError(f"player {p} has no unused card named {name!r}")

    s = np.full(L.STATE_LEN, -1, dtype=np.int16)
    s[L.KNOWN:L.KNOWN + 2 * ARMY_SIZE] = 0
    s[L.FOUGHT:L.FOUGHT + L.NSQ] = 0
    s[L.NHAND:L.NCMD + 2] = 0
    for sq_name, (p, name) in board.items():
        s[L.BOARD + square_index(sq_name)] = take(p, name)
    for p in range(2):
        if len(hands[p]) > HAND_SIZE:
            raise ValueError(f"player {p}: at most {HAND_SIZE} cards in hand")
        cards = sorted(take(p, n) for n in hands[p])
        s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + len(cards)] = cards
        s[L.NHAND + p] = len(cards)
        for c in (take(p, n) for n in dead[p]):
            s[L.DEAD + p * ARMY_SIZE + s[L.NDEAD + p]] = c
            s[L.NDEAD + p] += 1
            s[L.NCMD + p] += game.cards[c, L.F_CMD]
        tops = [take(p, n) for n in deck_tops[p]]
        deck = free[p] + tops[::-1]  # the top card is last
        s[L.DECK + p * ARMY_SIZE:L.DECK + p * ARMY_SIZE + len(deck)] = deck
        s[L.NDECK + p] = len(deck)
    for entry in known:
        p, name = entry.split(":", 1)
        hand = s[L.HAND + int(p) * HAND_SIZE:L.HAND + int(p) * HAND_SIZE + s[L.NHAND + int(p)]]
        match = [c for c in hand if game.card_names[c] == name and not s[L.KNOWN + c]]
        if not match:
            raise ValueError(f"known card {entry!r} is not in that hand")
        s[L.KNOWN + match[0]] = 1
    for sq_name in fought:
        s[L.FOUGHT + square_index(sq_name)] = 1
    if phase not in _PHASES:
        raise ValueError(f"phase must be one of {sorted(_PHASES)}")
    s[L.PLAYER] = player
    s[L.PHASE] = _PHASES[phase]
    s[L.TURN] = turn
    s[L.PLACED] = square_index(placed) if placed else -1
    s[L.EXTRA] = 0
    R.rebuild_maps(s, game.cards)
    state = LordsOfWarState(game, s)
    if s[L.PHASE] == L.PH_DEPLOY:
        # With an empty hand or a full mat the deployment is skipped and the elimination phase runs
        # (as at the start of any such turn); otherwise this returns at once, changing nothing.
        R._settle(s, game.cards, state._buf, -1, -1)
    return state

"""Lords of War pictures: a readable text board (``ansi``) and an RGB image (``rgb_array``).

Text board: row 7 (player 1's edge) on top, row 1 (player 0's edge) at the
bottom. Each card shows its arrows in their absolute directions (a digit is
the strength, '.' no arrow) around a tag: army letter, two-letter name code
and defence, e.g. ``ORa:3``. A legend names the cards.
"""
from __future__ import annotations

from collections.abc import Collection

import numpy as np

from ..flat_state import FlatState
from . import layout as L
from . import rules as R
from .layout import ARMY_SIZE, COLS, HAND_SIZE, ROWS, square_name

CELL = 48  # pixels per square in rgb_array
PLAYER_RGB = (np.array([200, 60, 50]), np.array([50, 90, 200]))


def _tag_letters(state: FlatState) -> tuple[str, str]:
    a, b = (army.name[0].upper() for army in state.game.armies)
    return ("0", "1") if a == b else (a, b)


def card_codes(state: FlatState) -> dict[int, str]:
    """A two-letter code per card, unique within each army (e.g. Orc Ravager -> 'Ra')."""
    codes: dict[int, str] = {}
    for p in range(2):
        used: dict[str, str] = {}
        for c in range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE):
            name = state.game.card_names[c]
            if name not in used:
                last = name.split()[-1]
                options = [last[:2]] + [last[0] + ch for ch in last[2:]] + [w[0] + last[0] for w in name.split()]
                used[name] = next(o.title() for o in options + [f"{len(used):02d}"] if o.title() not in used.values())
            codes[c] = used[name]
    return codes


def render_ansi(state: FlatState, perspective: int | None = None) -> str:
    """The board, legend and zones; hands are shown for ``perspective`` (None: both)."""
    return render_text(state, range(2) if perspective is None else (perspective,))


def render_text(state: FlatState, shown: Collection[int]) -> str:
    """The board, legend and zones, with the hands of the players in ``shown`` (a spectator's view: none)."""
    s, cards, names = state.s, state.cards, state.game.card_names
    letters = _tag_letters(state)
    codes = card_codes(state)
    sep = "   +" + "+".join(["---------"] * COLS) + "+"
    lines = ["     " + "".join(f"{'abcdef'[c]:^10}" for c in range(COLS)), sep]
    legend: dict[str, str] = {}
    for row in reversed(range(ROWS)):
        parts = [[], [], []]
        for col in range(COLS):
            c = int(s[L.BOARD + row * COLS + col])
            if c < 0:
                parts[0].append(" " * 9)
                parts[1].append("    .    ")
                parts[2].append(" " * 9)
                continue
            arrow = ["." if cards[c, L.F_ATK + d] == 0 else str(cards[c, L.F_ATK + d]) for d in range(8)]
            tag = f"{letters[c // ARMY_SIZE]}{codes[c]}:{cards[c, L.F_DEF]}"
            legend[tag[:3]] = names[c]
            parts[0].append(f"{arrow[7]}   {arrow[0]}   {arrow[1]}")
            parts[1].append(f"{arrow[6]} {tag:^5} {arrow[2]}")
            parts[2].append(f"{arrow[5]}   {arrow[4]}   {arrow[3]}")
        for i, cells in enumerate(parts):
            label = f" {row + 1} " if i == 1 else "   "
            lines.append(label + "|" + "|".join(cells) + "|")
        lines.append(sep)
    if legend:
        lines.append("cards: " + ", ".join(f"{k} {v}" for k, v in sorted(legend.items())))
    for p in range(2):
        army = state.game.armies[p].name
        hand = [names[c] for c in s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + s[L.NHAND + p]]]
        held = ", ".join(hand) if p in shown else f"{len(hand)} hidden"
        lines.append(f"player {p} ({army}): eliminated {s[L.NDEAD + p]}/20, command lost {s[L.NCMD + p]}/4, "
                     f"deck {s[L.NDECK + p]}, hand: {held}")
    status = f"turn {state.turn}, player {int(s[L.PLAYER])} to {state.phase}"
    if state.is_terminal():
        w = state.winner()
        status = f"turn {state.turn}: game over, " + ("draw" if w is None else f"player {w} wins")
    elif s[L.PLACED] >= 0:
        status += f" (placed on {square_name(s[L.PLACED])})"
    lines.append(status)
    return "\n".join(lines)


def render_rgb(state: FlatState) -> np.ndarray:
    """An H x W x 3 uint8 image: owner colour (brighter = more defence), arrows as bars, Command gold rim."""
    s, cards = state.s, state.cards
    img = np.full((ROWS * CELL, COLS * CELL, 3), 235, dtype=np.uint8)
    img[::CELL, :] = 120
    img[:, ::CELL] = 120
    for sq in range(L.NSQ):
        c = int(s[L.BOARD + sq])
        if c < 0:
            continue
        row, col = divmod(sq, COLS)
        y0, x0 = (ROWS - 1 - row) * CELL, col * CELL  # row 1 at the bottom
        shade = 0.45 + 0.08 * min(int(cards[c, L.F_DEF]), 7)
        img[y0 + 2:y0 + CELL - 1, x0 + 2:x0 + CELL - 1] = np.clip(PLAYER_RGB[c // ARMY_SIZE] * shade, 0, 255)
        if cards[c, L.F_CMD]:
            img[y0 + 2:y0 + 5, x0 + 2:x0 + CELL - 1] = (230, 190, 40)
            img[y0 + CELL - 4:y0 + CELL - 1, x0 + 2:x0 + CELL - 1] = (230, 190, 40)
        mid = CELL // 2
        for d in range(8):
            strength = int(cards[c, L.F_ATK + d])
            if strength == 0:
                continue
            length = 3 + 2 * strength
            dy, dx = -R.DIR_DROW[d], R.DIR_DCOL[d]  # image rows grow downwards
            for k in range(length):
                y, x = y0 + mid + dy * (mid - 4 - k), x0 + mid + dx * (mid - 4 - k)
                img[y - 1:y + 2, x - 1:x + 2] = 255
        if cards[c, L.F_RDMG]:
            img[y0 + mid - 4:y0 + mid + 4, x0 + mid - 4:x0 + mid + 4] = 20
    return img

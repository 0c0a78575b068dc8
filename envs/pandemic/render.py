"""Text and image renderings of a Pandemic state (the env's ``ansi`` and ``rgb_array`` modes)."""
from __future__ import annotations

import numpy as np

from . import layout as L
from .board import BOARD_XY, CITY_COLOURS, CITY_NAMES

_RGB = np.array([(60, 110, 230), (230, 200, 40), (90, 90, 90), (220, 50, 50)], dtype=np.uint8)


def render_ansi(state, perspective: int | None = None) -> str:
    """The board as text: counters, cures, seats with roles, cities and hands, and every city with cubes.
    Everything shown is public (``perspective`` changes nothing: Pandemic's hands are open)."""
    s = state.s
    head = f"turn {state.turn}, {state.phase}"
    if state.is_terminal():
        head += ": won" if state.won() else f": lost ({state.loss_cause()})"
    else:
        head += f", seat {int(s[L.PLAYER])} ({int(s[L.ACTIONS_LEFT])} actions left)"
    cures = " ".join(f"{n}:{'eradicated' if s[L.CURED + k] and s[L.SUPPLY + k] == 24 else 'cured' if s[L.CURED + k] else int(s[L.SUPPLY + k])}"
                     for k, n in enumerate(L.COLOUR_NAMES))
    lines = [head, f"outbreaks {int(s[L.OUTBREAKS])}/8, epidemics {int(s[L.EPIDEMICS_DRAWN])}, player deck "
             f"{int(s[L.PEND] - s[L.PTOP])}, supply/cures {cures}"]
    for q in range(state.num_players):
        hand = [CITY_NAMES[c] for c in np.flatnonzero(s[L.HAND + q * L.NUM_CITIES:L.HAND + (q + 1) * L.NUM_CITIES])]
        lines.append(f"seat {q} {L.ROLE_NAMES[s[L.ROLE + q]]} in {CITY_NAMES[s[L.PAWN + q]]}: {', '.join(hand) or '-'}")
    infected = []
    for c in range(L.NUM_CITIES):
        cubes = s[L.CUBES + c * L.NUM_COLOURS:L.CUBES + (c + 1) * L.NUM_COLOURS]
        if cubes.any() or s[L.STATION + c]:
            marks = " ".join(f"{L.COLOUR_NAMES[k]}x{int(n)}" for k, n in enumerate(cubes) if n)
            infected.append(f"{CITY_NAMES[c]}{' [station]' if s[L.STATION + c] else ''} {marks}".rstrip())
    lines.append("cities: " + "; ".join(infected))
    return "\n".join(lines)


def render_rgb(state) -> np.ndarray:
    """The map: each city a square of its colour (a white frame for a station), its cubes as bars above it,
    pawns as white dots below."""
    h, w = 240, 480
    img = np.full((h, w, 3), 20, dtype=np.uint8)
    xy = BOARD_XY - BOARD_XY.min(axis=0)
    xy = xy / xy.max(axis=0)
    s = state.s
    for c in range(L.NUM_CITIES):
        x = int(10 + xy[c, 0] * (w - 30))
        y = int(h - 30 - xy[c, 1] * (h - 50))
        if s[L.STATION + c]:
            img[y - 1:y + 7, x - 1:x + 7] = 255
        img[y:y + 6, x:x + 6] = _RGB[CITY_COLOURS[c]]
        for k in range(L.NUM_COLOURS):
            n = int(s[L.CUBES + c * L.NUM_COLOURS + k])
            if n:
                img[max(y - 3 * n, 0):y, x + 2 * k:x + 2 * k + 2] = _RGB[k]
        for q in range(state.num_players):
            if s[L.PAWN + q] == c:
                img[y + 7:y + 9, x + 2 * q:x + 2 * q + 2] = 255
    return img

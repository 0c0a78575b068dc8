"""The 48-city map (``map.json``, from the authors' MIT-licensed testbeds, 003 §1.1) as arrays.

``BOARD`` is the ``int32`` table ``[48, BOARD_COLS]`` the compiled rules read: a city's colour, its
degree and its neighbours (sorted, -1 padded). ``DRIVE_DISTANCE`` holds the all-pairs shortest
drive/ferry distances (the macro-action layer's routes start from it).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .layout import B_COLOUR, B_DEGREE, B_NEIGHBOURS, BOARD_COLS, COLOUR_NAMES, MAX_DEGREE, NUM_CITIES

MAP_FILE = Path(__file__).with_name("map.json")


def _load() -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    cities = sorted(json.loads(MAP_FILE.read_text())["cities"], key=lambda c: c["id"])
    assert [c["id"] for c in cities] == list(range(NUM_CITIES)), "map.json must list cities 0..47"
    board = np.full((NUM_CITIES, BOARD_COLS), -1, dtype=np.int32)
    xy = np.zeros((NUM_CITIES, 2), dtype=np.float64)
    for c in cities:
        neighbours = sorted(c["neighbors"])
        assert len(neighbours) <= MAX_DEGREE
        board[c["id"], B_COLOUR] = COLOUR_NAMES.index(c["color"])
        board[c["id"], B_DEGREE] = len(neighbours)
        board[c["id"], B_NEIGHBOURS:B_NEIGHBOURS + len(neighbours)] = neighbours
        xy[c["id"]] = c["board_xy"]
    return tuple(c["name"] for c in cities), board, xy


def _distances(board: np.ndarray) -> np.ndarray:
    """All-pairs drive/ferry distances (BFS from every city)."""
    dist = np.full((NUM_CITIES, NUM_CITIES), -1, dtype=np.int32)
    for source in range(NUM_CITIES):
        dist[source, source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for a in frontier:
                for b in board[a, B_NEIGHBOURS:B_NEIGHBOURS + board[a, B_DEGREE]]:
                    if dist[source, b] < 0:
                        dist[source, b] = dist[source, a] + 1
                        nxt.append(int(b))
            frontier = nxt
    return dist


CITY_NAMES, BOARD, BOARD_XY = _load()
CITY_COLOURS = BOARD[:, B_COLOUR].copy()
DRIVE_DISTANCE = _distances(BOARD)
CITY_INDEX = {name.lower(): i for i, name in enumerate(CITY_NAMES)}
for _a in (BOARD, BOARD_XY, CITY_COLOURS, DRIVE_DISTANCE):
    _a.flags.writeable = False


def neighbours(city: int) -> list[int]:
    """The cities one drive/ferry from ``city``."""
    return [int(b) for b in BOARD[city, B_NEIGHBOURS:B_NEIGHBOURS + BOARD[city, B_DEGREE]]]

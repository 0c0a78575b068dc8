"""Who sits where in game ``i`` of a match (``cardboard.evaluation.match``'s docstring tells the whole story).

``"cyclic"``: agent ``k`` sits in seat ``(k + i) mod N``. ``"permutations"``: game ``i`` seats the agents by the
``(i mod N!)``-th permutation of ``range(N)`` in lexicographic order (seat ``s`` holds agent ``perm[s]``), so every
seating comes equally often in each block of ``N!`` games. For two players the two are the same.
"""
from __future__ import annotations

import math

ROTATIONS = ("cyclic", "permutations")


def seat_order(index: int, players: int, rotation: str = "cyclic") -> tuple[int, ...]:
    """Who sits where in game ``index``: ``seats[s]`` is the agent in seat ``s`` (``ROTATIONS``)."""
    if rotation == "cyclic":
        return tuple((seat - index) % players for seat in range(players))
    rank, items, seats = index % math.factorial(players), list(range(players)), []
    for left in range(players, 0, -1):  # the rank-th permutation in lexicographic order
        position, rank = divmod(rank, math.factorial(left - 1))
        seats.append(items.pop(position))
    return tuple(seats)

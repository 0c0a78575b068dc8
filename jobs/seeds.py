"""Common random numbers: game ``i`` of a run with master seed ``s`` has its own streams, whoever plays it.

``SeedSequence(s, spawn_key=(i,))`` depends on neither the number of games nor the workers, and spawns 1 + N
streams: stream 0 deals the game and samples every chance node, stream ``1 + k`` is the agent's in seat ``k``.
What the agents draw never moves the chance stream, so two agents matched against one opponent with one seed
meet the same luck (``cardboard.evaluation.paired`` cancels it).
"""
from __future__ import annotations

import numpy as np


def game_streams(seed: int, index: int, players: int) -> list[np.random.Generator]:
    """Game ``index``'s random streams: [chance and deal, seat 0, ..., seat N-1]."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed, spawn_key=(index,)).spawn(1 + players)]

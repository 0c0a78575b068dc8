"""Agents: anything that picks an action for the player to move in a forward-model state.

An agent is handed the true state and must use only what the acting player may
know: ``state.observation(player)`` or a ``state.determinize(player, rng)``
sample. Scripted agents here are cheap baselines; search agents live in
``cardboard.search``.
"""
from __future__ import annotations

import numpy as np

from ..envs.protocol import GameState, determinize


class RandomAgent:
    """Uniformly random legal action."""

    name = "random"

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


class GreedyAgent:
    """One-turn greedy on the game's heuristic ``state.heuristic(player)``.

    Each legal action is scored after finishing the rest of the player's turn
    with random decisions ("state extrapolation", paper 002 §2.6), averaged over
    ``samples`` roll-forwards; ties are broken at random.
    """

    name = "greedy"

    def __init__(self, samples: int = 1):
        """samples: random roll-forwards of the rest of the turn per legal action"""
        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples}")
        self.samples = samples

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        player, turn = state.current_player, state.turn
        legal = state.legal_actions().copy()
        if len(legal) == 1:
            return int(legal[0])
        world = determinize(state, player, rng)
        scores = np.empty(len(legal))
        for i, action in enumerate(legal):
            total = 0.0
            for _ in range(self.samples):
                child = world.clone()
                child.apply(int(action))
                while not child.is_terminal() and child.turn == turn and child.current_player == player:
                    options = child.legal_actions()
                    child.apply(int(options[rng.integers(len(options))]))
                total += child.heuristic(player)
            scores[i] = total
        best = np.flatnonzero(scores == scores.max())
        return int(legal[best[rng.integers(len(best))]])

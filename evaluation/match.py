"""Matches between two agents on any game: seats swapped every other game, seeded, with a summary.

Game ``i`` of a match with master seed ``s`` is dealt from
``SeedSequence(s).spawn(n)[i]``, so every game is reproducible on its own.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, Game, sample_chance
from ..policies.agents import Agent

WILSON_Z = 1.959963984540054  # 95% two-sided


def wilson_interval(successes: float, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half successes)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class GameRecord:
    """One finished game: who sat where, the returns per seat, its length and cost."""

    index: int
    seats: tuple[int, ...]  # seats[k] = index of the agent playing seat k
    returns: tuple[float, ...]
    turns: int
    decisions: tuple[int, ...]  # per seat
    seconds: tuple[float, ...]  # thinking time per seat


def play_game(game: Game, agents: Sequence[Agent], rng: np.random.Generator) -> tuple[np.ndarray, int, list[int], list[float]]:
    """Play one game; agents[k] plays seat k. Returns (returns, turns, decisions per seat, seconds per seat)."""
    state = game.new_state(rng)
    decisions = [0] * len(agents)
    seconds = [0.0] * len(agents)
    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        start = time.perf_counter()
        action = agents[player].act(state, rng)
        seconds[player] += time.perf_counter() - start
        state.apply(action)
        decisions[player] += 1
    return state.returns(), state.turn, decisions, seconds


@dataclass
class MatchSummary:
    names: tuple[str, str]
    games: int
    wins: int
    draws: int
    losses: int
    mean_turns: float
    seconds_per_decision: tuple[float, float]
    seat_wins: tuple[int, int]  # games won by whoever sat in seat 0 / seat 1 (first-move or army balance)

    @property
    def score(self) -> float:
        """Agent 0's score: (wins + draws / 2) / games."""
        return (self.wins + 0.5 * self.draws) / max(self.games, 1)

    def win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def summarize(names: tuple[str, str], records: Sequence[GameRecord]) -> MatchSummary:
    """Win/draw/loss of agent 0 against agent 1 over the records."""
    wins = draws = losses = 0
    for r in records:
        mine = r.returns[r.seats.index(0)]
        theirs = r.returns[r.seats.index(1)]
        wins += mine > theirs
        draws += mine == theirs
        losses += mine < theirs
    per_decision = []
    for agent in (0, 1):
        total = sum(r.seconds[r.seats.index(agent)] for r in records)
        count = sum(r.decisions[r.seats.index(agent)] for r in records)
        per_decision.append(total / max(count, 1))
    turns = float(np.mean([r.turns for r in records])) if records else 0.0
    seat_wins = tuple(sum(r.returns[seat] > r.returns[1 - seat] for r in records) for seat in (0, 1))
    return MatchSummary(names, len(records), wins, draws, losses, turns, (per_decision[0], per_decision[1]), seat_wins)


def play_match(
    game: Game,
    agents: tuple[Agent, Agent],
    games: int,
    seed: int,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """``games`` games between two agents, agent 0 in seat 0 in even games and seat 1 in odd ones."""
    if games < 1:
        raise InvalidParameterError(f"a match needs at least one game, got games={games}")
    records = []
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(games)):
        seats = (0, 1) if i % 2 == 0 else (1, 0)
        returns, turns, decisions, seconds = play_game(game, [agents[k] for k in seats], np.random.default_rng(child))
        record = GameRecord(i, seats, tuple(float(x) for x in returns), turns, tuple(decisions), tuple(seconds))
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records

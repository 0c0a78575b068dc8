"""Calibration of the synthetic armies against the thesis (paper 000 §1.1(A)), over seeded random games.

* "Random-move games normally last 50-120 turns": the mean final ``state.turn`` of 300
  random-vs-random games lies in 50..120.
* "a mid-game branching factor of 25-50": the mean number of legal deployment actions in
  turns 10-40 (phase "deploy") lies in 25..50.
"""
from __future__ import annotations

import numpy as np
import pytest

from cardboard.envs.lords_of_war.state import LordsOfWarGame

GAMES = 300
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def game():
    return LordsOfWarGame()


def test_random_games_last_50_to_120_turns_on_average(game):
    rng = np.random.default_rng(2024)
    lengths = []
    for seed in range(GAMES):
        state = game.new_state(seed)
        state.random_playout(rng)
        assert state.is_terminal()
        lengths.append(state.turn)
    mean = float(np.mean(lengths))
    assert 50 <= mean <= 120, f"mean game length {mean:.1f} turns"
    assert sum(state_turn < 400 for state_turn in lengths) > 0.95 * GAMES, "the 400-turn cap is for stalls only"


def test_mid_game_deployment_branching_factor_is_25_to_50(game):
    rng = np.random.default_rng(7)
    counts = []
    lengths = []
    for seed in range(GAMES):
        state = game.new_state(10_000 + seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.phase == "deploy" and 10 <= state.turn <= 40:
                counts.append(len(legal))
            state.apply(int(legal[rng.integers(len(legal))]))
        lengths.append(state.turn)
    mean = float(np.mean(counts))
    assert len(counts) > 10 * GAMES
    assert 25 <= mean <= 50, f"mean mid-game deployment branching factor {mean:.1f}"
    assert 50 <= float(np.mean(lengths)) <= 120, "the Python loop agrees with the compiled playout"

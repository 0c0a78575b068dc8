"""Property tests: random play keeps every invariant of the rules after every step (``check_invariants``: cubes
conserved per colour and at most 3 a city, 003 §1.1; every player card once in hands + deck + discard and the
epidemics accounted for, every pile with at most its epidemic, 003 §1.4; every infection card once in deck +
discard; hands within 7 at decisions, 003 §1.5; fewer than 8 outbreaks unless lost, equal returns, 003 §1.6).

Decisions are uniform over the legal actions; chance is ``sample_chance`` (the stored order) or a uniformly
drawn possible outcome (any card the players' knowledge allows, exercising the swaps that keep the decks'
structure); a third, "benign" mode plays long games that reach the end of the player deck, the hand limit and
cures (``random_step``). The default run is small; the long run (10^5 steps for each of 2, 3 and 4 players) is

    PANDEMIC_STEPS=100000 .venv/bin/python -m pytest envs/pandemic/tests/test_properties.py -k volume -q
"""
from __future__ import annotations

import os
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandemic_helpers import CHANCE, check_invariants, random_step

import cardboard
from cardboard.envs.pandemic import layout as L

STEPS = int(os.environ.get("PANDEMIC_STEPS", "6000"))  # random steps per player count in the volume test
MODES = ("sample", "uniform", "benign")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 3, 4]), mode=st.sampled_from(MODES),
       roles=st.sampled_from(["paper", "random", "random_all"]), epidemics=st.sampled_from([4, 5, 6]),
       infection_rate=st.sampled_from(["official", "paper"]), hand_size=st.sampled_from(["official", "paper"]))
def test_random_game_keeps_the_invariants(seed, players, mode, roles, epidemics, infection_rate, hand_size):
    rng = np.random.default_rng(seed)
    state = cardboard.new_state("pandemic", seed=seed, players=players, roles=roles, epidemics=epidemics,
                                infection_rate=infection_rate, hand_size=hand_size)
    check_invariants(state)
    while not state.is_terminal():
        random_step(state, rng, mode)
        check_invariants(state)
        assert state.card_multiset().count(L.EPIDEMIC) == epidemics  # drawn + in the deck, every step


@pytest.mark.parametrize("players", [2, 3, 4])
def test_volume_random_steps(players):
    """STEPS random steps over as many games as it takes, cycling through the modes and the role sets."""
    steps, games, ends, chance_nodes = 0, 0, Counter(), 0
    start = time.perf_counter()
    while steps < STEPS:
        rng = np.random.default_rng(games)
        state = cardboard.new_state("pandemic", seed=games, players=players,
                                    roles=("paper", "random_all")[games // 2 % 2])
        mode = MODES[games % 3]
        while not state.is_terminal() and steps < STEPS:
            if state.current_player == CHANCE:
                chance_nodes += 1
                assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
            random_step(state, rng, mode)
            check_invariants(state)
            steps += 1
        games += 1
        ends[state.loss_cause() if state.is_terminal() else "unfinished"] += 1
    print(f"\n{players} players: {steps} steps ({chance_nodes} chance) in {games} games, "
          f"{time.perf_counter() - start:.1f} s, ends {dict(ends)}")
    assert chance_nodes > 0 and games > 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_random_playout_keeps_the_invariants(players):  # the compiled playout plays the same rules
    for seed in range(20):
        state = cardboard.new_state("pandemic", seed=seed, players=players, roles="random_all")
        state.random_playout(np.random.default_rng(seed))
        assert state.is_terminal()
        check_invariants(state)

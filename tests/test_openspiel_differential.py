"""Differential tests: our UCT against OpenSpiel's MCTS bots, same budget, on OpenSpiel's own tic-tac-toe.

OpenSpiel's ``tic_tac_toe`` is wrapped as a cardboard forward-model state (``cardboard.envs.openspiel_adapter``),
so our ``TreeSearch(..., "uct")`` searches exactly the game ``pyspiel.MCTSBot`` searches. Both get
``ITERATIONS`` simulations a move with random rollouts, the exploration constants matched (OpenSpiel's
rewards are in [-1, 1], ours in [0, 1]: its ``uct_c = 2`` is our ``c = 1``), ``solve=False`` so that
OpenSpiel runs plain UCT, seats alternating, everything seeded. Two correct UCTs of one budget are
about equally strong: ours must score (wins + draws / 2) inside a band around 50%; a UCT that backs up the
wrong player's reward, or explores wrongly, falls far out of it.

Why ours scores above 50% against ``pyspiel.MCTSBot``: OpenSpiel's ``SearchNode::UCTValue`` returns a
child's exact outcome, WITHOUT the exploration bonus, once a simulation has ended on that child at the end
of the game, even with ``solve=False``. An immediate win then stops being tried ahead of its siblings
(they keep their bonus), so OpenSpiel's tree under-weights one-move threats. Its pure-Python
``MCTSBot`` has the same rule; given plain UCB1 as its ``child_selection_fn`` instead, it plays ours to an
even score (measured: 0.501 over 400 games, Wilson 95% [0.45, 0.55], against 0.59 [0.54, 0.65] with the
rule left in). The second test checks exactly that: two UCB1 searches of one budget, 50% within noise.

By hand, longer matches: ``.venv/bin/python -c "from tests.test_openspiel_differential import play_match;
print(play_match(200))"`` (C++ bot) and ``play_match(400, opponent=python_ucb1_bot)``.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
os_mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")

from cardboard.envs.openspiel_adapter import OpenSpielState  # noqa: E402
from cardboard.envs.protocol import TERMINAL  # noqa: E402
from cardboard.jobs.intervals import wilson_interval  # noqa: E402
from cardboard.search.mcts import SearchConfig, TreeSearch  # noqa: E402

ITERATIONS = 100
GAMES = 100
# Against pyspiel.MCTSBot (measured by hand, seeded: 0.61 over 400 games at 100 simulations, Wilson 95%
# [0.56, 0.66]) ours has the edge explained above; this band catches a broken UCT (wrong player's reward,
# no exploration), which scores far below 0.35.
BAND = (0.35, 0.75)
# Against plain-UCB1 OpenSpiel: the same algorithm, so 50% within noise (200 games: about +-0.05).
EVEN_GAMES = 200
EVEN_BAND = (0.42, 0.58)


def cpp_bot(game, iterations: int, seed: int):
    """``pyspiel.MCTSBot``: uct_c = 2, one random rollout per leaf, ``solve=False``."""
    return pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, iterations, 1000, False, seed, False)


def ucb1(node, parent_explore_count: int, uct_c: float) -> float:
    """UCB1 as in the papers: OpenSpiel's ``SearchNode.uct_value`` without its exact-outcome shortcut."""
    if node.explore_count == 0:
        return math.inf
    return node.total_reward / node.explore_count + uct_c * math.sqrt(
        math.log(parent_explore_count) / node.explore_count)


def python_ucb1_bot(game, iterations: int, seed: int):
    """OpenSpiel's pure-Python ``MCTSBot`` (uct_c = 2, one random rollout, ``solve=False``) with plain UCB1."""
    rs = np.random.RandomState(seed)
    return os_mcts.MCTSBot(game, 2.0, iterations, os_mcts.RandomRolloutEvaluator(1, rs), solve=False,
                           random_state=rs, child_selection_fn=ucb1)


def play_match(games: int = GAMES, iterations: int = ITERATIONS, seed: int = 0, opponent=cpp_bot) -> dict:
    """Ours (UCT, c=1) against an OpenSpiel bot made by ``opponent(game, iterations, seed)``, seats
    alternating; our score (wins + draws / 2) with its Wilson interval."""
    game = pyspiel.load_game("tic_tac_toe")
    ours = TreeSearch(SearchConfig(iterations=iterations, c=1.0), "uct")
    rng = np.random.default_rng(seed)
    wins = draws = losses = 0
    for i in range(games):
        theirs = opponent(game, iterations, seed + i)
        our_seat = i % 2
        state = OpenSpielState(game)
        while not state.is_terminal():
            if state.current_player == our_seat:
                action = ours.search(state, rng).action
            else:
                action = theirs.step(state.state)
            state.apply(action)
        result = state.returns()[our_seat]
        wins += result > 0
        draws += result == 0
        losses += result < 0
    score = (wins + draws / 2) / games
    return {"games": games, "iterations": iterations, "wins": int(wins), "draws": int(draws),
            "losses": int(losses), "score": score, "wilson": wilson_interval(wins + draws / 2, games)}


def test_adapter_follows_the_protocol():
    game = pyspiel.load_game("tic_tac_toe")
    state = OpenSpielState(game)
    assert state.current_player == 0 and list(state.legal_actions()) == list(range(9))
    copy = state.clone()
    copy.apply(4)
    assert state.current_player == 0 and copy.current_player == 1  # the clone is independent
    for a in (0, 3, 1, 5, 2):  # X wins on the top row
        state.apply(a)
    assert state.is_terminal() and state.current_player == TERMINAL
    assert list(state.returns()) == [1.0, -1.0]


def test_our_uct_is_as_strong_as_openspiel_mcts_on_tic_tac_toe():
    start = time.perf_counter()
    match = play_match()
    low, high = match["wilson"]
    print(f"\nours vs pyspiel.MCTSBot, {match['iterations']} simulations: {match['wins']}W {match['draws']}D "
          f"{match['losses']}L, score {match['score']:.3f}, Wilson 95% [{low:.3f}, {high:.3f}], "
          f"{time.perf_counter() - start:.1f} s")
    assert BAND[0] <= match["score"] <= BAND[1], match


def test_our_uct_plays_plain_ucb1_openspiel_mcts_to_an_even_score():
    start = time.perf_counter()
    match = play_match(EVEN_GAMES, opponent=python_ucb1_bot)
    low, high = match["wilson"]
    print(f"\nours vs OpenSpiel Python MCTSBot with UCB1: {match['wins']}W {match['draws']}D {match['losses']}L, "
          f"score {match['score']:.3f}, Wilson 95% [{low:.3f}, {high:.3f}], {time.perf_counter() - start:.1f} s")
    assert EVEN_BAND[0] <= match["score"] <= EVEN_BAND[1], match

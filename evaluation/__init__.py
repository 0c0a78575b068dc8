"""Evaluation: matches between agents with confidence intervals, and round-robin tournaments with ratings.

``match``       ``play_match`` (agent objects, in process), ``play_match_specs``
                (spec strings, worker processes, resumable JSONL results), one
                agent per seat of an N-seat game, seats rotated (``seat_order``),
                chance and each seat on their own random streams (``game_streams``:
                common random numbers); ``summarize``, ``agent_score``,
                ``load_results``, ``wilson_interval``, ``normal_estimate``.
``paired``      ``compare_results``: two agents' matches against one opponent with
                one seed, paired game by game (paper 001's design, sharpened).
``tournament``  ``round_robin`` (every N-combination of the agents, Bradley–Terry
                ratings as Elo from pairwise comparisons of returns, none for
                cooperative games; PNG matrix), ``bradley_terry``.
"""
from ..jobs.intervals import Estimate, normal_estimate, wilson_interval
from ..jobs.seats import ROTATIONS, seat_order
from ..jobs.seeds import game_streams
from .match import (RESULTS_VERSION, GameRecord, MatchConfig, MatchSummary, agent_score, load_results, play_game,
                    play_match, play_match_specs, read_results, summarize)
from .paired import PairedComparison, compare_results
from .tournament import TournamentResult, bradley_terry, plot_matrix, round_robin

__all__ = ["RESULTS_VERSION", "ROTATIONS", "Estimate", "GameRecord", "MatchConfig", "MatchSummary",
           "PairedComparison", "TournamentResult", "agent_score", "bradley_terry", "compare_results",
           "game_streams", "load_results", "normal_estimate", "play_game", "play_match", "play_match_specs",
           "plot_matrix", "read_results", "round_robin", "seat_order", "summarize", "wilson_interval"]

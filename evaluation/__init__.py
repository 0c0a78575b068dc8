"""Evaluation: matches between agents with confidence intervals, and round-robin tournaments with ratings.

``match``       ``play_match`` (agent objects, in process), ``play_match_specs``
                (spec strings, worker processes, resumable JSONL results),
                ``summarize``, ``agent_score``, ``load_results``, ``wilson_interval``.
``paired``      ``compare_results``: two agents' matches against one opponent with
                one seed, paired game by game (paper 001's design, sharpened).
``tournament``  ``round_robin`` (every pair, Bradley–Terry ratings as Elo, PNG
                score matrix), ``bradley_terry``.
"""
from .match import (GameRecord, MatchConfig, MatchSummary, agent_score, load_results, play_game, play_match,
                    play_match_specs, read_results, summarize, wilson_interval)
from .paired import PairedComparison, compare_results
from .tournament import TournamentResult, bradley_terry, plot_matrix, round_robin

__all__ = ["GameRecord", "MatchConfig", "MatchSummary", "PairedComparison", "TournamentResult", "agent_score",
           "bradley_terry", "compare_results", "load_results", "play_game", "play_match", "play_match_specs",
           "plot_matrix", "read_results", "round_robin", "summarize", "wilson_interval"]

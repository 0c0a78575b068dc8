"""Evaluation: matches between agents with confidence intervals, and round-robin tournaments with ratings.

``match``       ``play_match`` (agent objects, in process), ``play_match_specs``
                (spec strings, worker processes, resumable JSONL results),
                ``summarize``, ``wilson_interval``.
``tournament``  ``round_robin`` (every pair, Bradley–Terry ratings as Elo, PNG
                score matrix), ``bradley_terry``.
"""
from .match import GameRecord, MatchConfig, MatchSummary, play_game, play_match, play_match_specs, read_results, summarize, wilson_interval
from .tournament import TournamentResult, bradley_terry, plot_matrix, round_robin

__all__ = ["GameRecord", "MatchConfig", "MatchSummary", "TournamentResult", "bradley_terry", "play_game", "play_match",
           "play_match_specs", "plot_matrix", "read_results", "round_robin", "summarize", "wilson_interval"]

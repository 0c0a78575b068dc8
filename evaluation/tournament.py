"""Round-robin tournaments between agent specs, with a Bradley–Terry / Elo rating table.

Every pair of agents ``(i, j)``, ``i < j``, plays a match of ``games`` games
with seats swapped every game (``play_match_specs``); the pair's match seed is
drawn from ``SeedSequence(seed).spawn(n_pairs)`` in pair order, so the whole
tournament is determined by ``seed`` and does not depend on ``workers``.

Ratings
    Bradley–Terry: agent ``i`` beats ``j`` with probability
    ``p_i / (p_i + p_j)``. Strengths are fitted by the MM algorithm of Hunter
    (2004, "MM algorithms for generalized Bradley–Terry models", eq. 3):
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``, where ``W_i`` counts wins plus
    half the draws. ``prior`` virtual drawn games are added to every pair
    (default 1) so that an agent that won or lost every game still gets a
    finite strength. Strengths are reported as Elo, ``400 log10 p_i``,
    shifted to mean 0.

Files (``out_dir``)
    ``pair_<i>_<j>.jsonl``  one resumable results file per pair (see ``evaluation.match``);
    ``tournament.json``     config, score matrix and ratings;
    ``matrix.png``          the score matrix as a heat map, ratings in the labels.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import InvalidParameterError
from .match import GameRecord, play_match_specs

ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log unit of BT strength


def bradley_terry(points: np.ndarray, games: np.ndarray, prior: float = 1.0, iterations: int = 10_000,
                  tol: float = 1e-10) -> np.ndarray:
    """Log-strengths (mean 0) of a Bradley–Terry model fitted by Hunter's MM algorithm.

    ``points[i, j]``: points of ``i`` against ``j`` (a win 1, a draw 1/2);
    ``games[i, j]``: games between them (symmetric). ``prior`` virtual draws
    are added to every pair that played.
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    n = len(points)
    if points.shape != (n, n) or games.shape != (n, n):
        raise InvalidParameterError(f"points and games must be square matrices of one size, got {points.shape}, {games.shape}")
    played = (games > 0) & ~np.eye(n, dtype=bool)
    points = np.where(played, points + prior / 2, 0.0)
    games = np.where(played, games + prior, 0.0)
    wins = points.sum(axis=1)
    strength = np.ones(n)
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denominator > 0, wins / np.where(denominator > 0, denominator, 1.0), 0.0)
        new = np.maximum(new, 1e-300)
        new /= math.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(strength))) < tol:
            strength = new
            break
        strength = new
    logs = np.log(strength)
    return logs - logs.mean()


@dataclass
class TournamentResult:
    """A finished round robin: names, pairwise results and ratings (all indexed like ``specs``)."""

    specs: tuple[str, ...]
    names: tuple[str, ...]          # specs, made unique with '#k' where repeated
    games: int                      # games per pair
    points: np.ndarray              # points[i, j] = wins of i against j + draws / 2
    played: np.ndarray              # games between i and j
    elo: np.ndarray                 # Bradley–Terry strengths as Elo, mean 0
    records: dict[tuple[int, int], list[GameRecord]]

    @property
    def scores(self) -> np.ndarray:
        """score[i, j] = points of i against j / games (NaN on the diagonal)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.played > 0, self.points / np.maximum(self.played, 1), np.nan)

    def ranking(self) -> list[int]:
        """Agent indices from the highest Elo down (ties by index)."""
        return sorted(range(len(self.specs)), key=lambda i: (-self.elo[i], i))

    def to_json(self) -> dict[str, Any]:
        scores = self.scores
        return {"specs": list(self.specs), "names": list(self.names), "games": self.games,
                "points": self.points.tolist(), "played": self.played.tolist(),
                "scores": [[None if math.isnan(x) else float(x) for x in row] for row in scores],
                "elo": self.elo.tolist()}


def unique_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Specs with '#2', '#3', ... appended to repeats, so each agent has its own label."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(names)


def round_robin(
    game_name: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    *,
    game_options: dict[str, Any] | None = None,
    workers: int = 1,
    out_dir: str | os.PathLike | None = None,
    prior: float = 1.0,
    on_game: Callable[[tuple[int, int], GameRecord], None] | None = None,
) -> TournamentResult:
    """Play every pair of ``specs`` for ``games`` games each and rate the agents (see the module docstring).

    With ``out_dir`` the per-pair JSONL files make the tournament resumable and
    ``tournament.json`` plus ``matrix.png`` are written at the end.
    """
    specs = tuple(specs)
    if len(specs) < 2:
        raise InvalidParameterError(f"a tournament needs at least two agents, got {len(specs)}: {list(specs)}")
    if games < 1:
        raise InvalidParameterError(f"a tournament needs at least one game per pair, got games={games}")
    n = len(specs)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    pair_seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(len(pairs))]
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    points = np.zeros((n, n))
    played = np.zeros((n, n))
    records: dict[tuple[int, int], list[GameRecord]] = {}
    for (i, j), pair_seed in zip(pairs, pair_seeds):
        callback = None if on_game is None else (lambda record, pair=(i, j): on_game(pair, record))
        path = None if out is None else out / f"pair_{i}_{j}.jsonl"
        pair_records = play_match_specs(game_name, (specs[i], specs[j]), games, pair_seed, game_options=game_options,
                                        workers=workers, results_path=path, on_game=callback)
        records[(i, j)] = pair_records
        for r in pair_records:
            mine, theirs = r.returns[r.seats.index(0)], r.returns[r.seats.index(1)]
            points[i, j] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            points[j, i] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        played[i, j] = played[j, i] = len(pair_records)
    elo = ELO_SCALE * bradley_terry(points, played, prior=prior)
    result = TournamentResult(specs, unique_names(specs), games, points, played, elo, records)
    if out is not None:
        config = {"game": game_name, "options": dict(game_options or {}), "specs": list(specs), "games": games,
                  "seed": seed, "prior": prior, "pair_seeds": pair_seeds}
        (out / "tournament.json").write_text(json.dumps({"config": config} | result.to_json(), indent=1) + "\n",
                                             encoding="utf-8")
        plot_matrix(result, out / "matrix.png", title=f"{game_name}: {games} games per pair, seed {seed}")
    return result


def plot_matrix(result: TournamentResult, path: str | os.PathLike, title: str = "") -> Path:
    """Save the score matrix as a PNG heat map (row agent's score against the column agent)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(result.names)
    order = result.ranking()
    scores = result.scores[np.ix_(order, order)]
    labels = [f"{result.names[i]} ({result.elo[i]:+.0f})" for i in order]
    size = 2.0 + 0.9 * n
    fig = Figure(figsize=(size + 1.5, size))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(scores), vmin=0.0, vmax=1.0, cmap="RdYlGn")
    for r in range(n):
        for c in range(n):
            if not math.isnan(scores[r, c]):
                ax.text(c, r, f"{scores[r, c]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(n), [result.names[i] for i in order], rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent (Elo)")
    ax.set_title(title or "score matrix", fontsize=10)
    fig.colorbar(image, ax=ax, label="score (wins + draws/2) / games")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    return path

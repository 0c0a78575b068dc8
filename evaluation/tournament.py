"""Round-robin tournaments between agent specs on an N-seat game, with a Bradley–Terry / Elo rating table.

Every N-combination of the K agents (K >= N; pairs for two-player games) plays
a match of ``games`` games with seats rotated (``play_match_specs``); the
combination's match seed is drawn from ``SeedSequence(seed).spawn(n_matches)``
in combination order, so the whole tournament is determined by ``seed`` and
does not depend on ``workers``.

Ratings (competitive games)
    Inside each game every pair of agents is compared by their returns (the
    higher wins, equal returns draw); ``points[i, j]`` adds up ``i``'s wins
    plus half the draws against ``j`` over the tournament. Bradley–Terry:
    agent ``i`` beats ``j`` with probability ``p_i / (p_i + p_j)``. Strengths
    are fitted by the MM algorithm of Hunter (2004, "MM algorithms for
    generalized Bradley–Terry models", eq. 3): ``p_i <- W_i / sum_j n_ij /
    (p_i + p_j)``, where ``W_i`` counts wins plus half the draws. ``prior``
    virtual drawn games are added to every pair (default 1) so that an agent
    that won or lost every comparison still gets a finite strength. Strengths
    are reported as Elo, ``400 log10 p_i``, shifted to mean 0.

Cooperative games
    The seats win or lose together, so there is nothing to rate: ``elo`` is
    None, agents are ranked by their mean return, and the matrix holds the mean
    return of the games that the row and column agents played together.

Files (``out_dir``)
    ``pair_<i>_<j>.jsonl`` (two players) or ``group_<i>_<j>_<k>...jsonl``
                            one resumable results file per match (see ``evaluation.match``);
    ``tournament.json``     config, matrix, ratings and mean returns;
    ``matrix.png``          the matrix as a heat map, ratings (or mean returns) in the labels.
"""
from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameInfo
from ..jobs.backends import Backend
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
    """A finished round robin: names, pairwise results, ratings and mean returns (all indexed like ``specs``)."""

    specs: tuple[str, ...]
    names: tuple[str, ...]          # specs, made unique with '#k' where repeated
    games: int                      # games per match
    cooperative: bool
    points: np.ndarray              # competitive: comparisons i won against j + draws / 2; cooperative: the
                                    # sum of the returns of the games i and j played together
    played: np.ndarray              # competitive: comparisons of i with j; cooperative: games together
    elo: np.ndarray | None          # Bradley–Terry strengths as Elo, mean 0; None for cooperative games
    mean_returns: np.ndarray        # each agent's mean return over its games
    agent_games: np.ndarray         # games each agent played
    records: dict[tuple[int, ...], list[GameRecord]]  # by combination of agent indices

    @property
    def scores(self) -> np.ndarray:
        """score[i, j] = points of i against j / comparisons (cooperative: mean return together); NaN on the
        diagonal."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.played > 0, self.points / np.maximum(self.played, 1), np.nan)

    def ranking(self) -> list[int]:
        """Agent indices from the highest Elo (cooperative: mean return) down, ties by index."""
        key = self.mean_returns if self.elo is None else self.elo
        return sorted(range(len(self.specs)), key=lambda i: (-key[i], i))

    def to_json(self) -> dict[str, Any]:
        scores = self.scores
        return {"specs": list(self.specs), "names": list(self.names), "games": self.games,
                "cooperative": self.cooperative, "points": self.points.tolist(), "played": self.played.tolist(),
                "scores": [[None if math.isnan(x) else float(x) for x in row] for row in scores],
                "elo": None if self.elo is None else self.elo.tolist(), "mean_returns": self.mean_returns.tolist(),
                "agent_games": self.agent_games.tolist()}


def unique_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Specs with '#2', '#3', ... appended to repeats, so each agent has its own label."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(names)


def check_tournament(info: GameInfo, specs: Sequence[str], games: int) -> None:
    """Raise ``InvalidParameterError`` unless ``specs`` (at least two, and one per seat) and ``games`` per match
    make a round robin of the game ``info`` describes."""
    seats = info.num_players
    if len(specs) < max(seats, 2):
        raise InvalidParameterError(f"a tournament of {info.name!r} ({seats} seats) needs at least "
                                    f"{max(seats, 2)} agents, got {len(specs)}: {list(specs)}")
    if games < 1:
        raise InvalidParameterError(f"a tournament needs at least one game per match, got games={games}")


def round_robin(
    game_name: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    *,
    game_options: dict[str, Any] | None = None,
    rotation: str = "cyclic",
    workers: int = 1,
    out_dir: str | os.PathLike | None = None,
    prior: float = 1.0,
    on_game: Callable[[tuple[int, ...], GameRecord], None] | None = None,
    backend: Backend | None = None,
) -> TournamentResult:
    """Play every N-combination of ``specs`` for ``games`` games each and rate the agents (see the module
    docstring).

    With ``out_dir`` the per-match JSONL files make the tournament resumable and
    ``tournament.json`` plus ``matrix.png`` are written at the end. ``backend``: where the games run
    (``cardboard.jobs.backends``; default ``workers`` local processes).
    """
    from cardboard import registry  # late: registry imports the games, which may import this package

    specs = tuple(specs)
    info = registry.make_game(game_name, **(game_options or {})).info
    check_tournament(info, specs, games)
    seats = info.num_players
    n = len(specs)
    cooperative = info.utility == "cooperative"
    groups = list(itertools.combinations(range(n), seats))
    group_seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(len(groups))]
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    points = np.zeros((n, n))
    played = np.zeros((n, n))
    total_returns = np.zeros(n)
    total_games = np.zeros(n)
    records: dict[tuple[int, ...], list[GameRecord]] = {}
    for group, group_seed in zip(groups, group_seeds):
        callback = None if on_game is None else (lambda record, group=group: on_game(group, record))
        path = None if out is None else out / f"{'pair' if seats == 2 else 'group'}_{'_'.join(map(str, group))}.jsonl"
        group_records = play_match_specs(game_name, [specs[i] for i in group], games, group_seed,
                                         rotation=rotation, game_options=game_options, workers=workers,
                                         results_path=path, on_game=callback, backend=backend)
        records[group] = group_records
        for r in group_records:
            returns = {group[k]: r.returns_of(k) for k in range(seats)}
            for i, j in itertools.permutations(group, 2):
                mine, theirs = returns[i], returns[j]
                points[i, j] += mine if cooperative else 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
                played[i, j] += 1
            for i in group:
                total_returns[i] += returns[i]
                total_games[i] += 1
    elo = None if cooperative else ELO_SCALE * bradley_terry(points, played, prior=prior)
    result = TournamentResult(specs, unique_names(specs), games, cooperative, points, played, elo,
                              total_returns / np.maximum(total_games, 1), total_games, records)
    if out is not None:
        config = {"game": game_name, "options": dict(game_options or {}), "specs": list(specs), "games": games,
                  "seed": seed, "rotation": rotation, "prior": prior, "match_seeds": group_seeds}
        (out / "tournament.json").write_text(json.dumps({"config": config} | result.to_json(), indent=1) + "\n",
                                             encoding="utf-8")
        plot_matrix(result, out / "matrix.png", title=f"{game_name}: {games} games per match, seed {seed}",
                    value_range=(info.min_return, info.max_return) if cooperative else (0.0, 1.0))
    return result


def plot_matrix(result: TournamentResult, path: str | os.PathLike, title: str = "",
                value_range: tuple[float, float] = (0.0, 1.0)) -> Path:
    """Save the matrix as a PNG heat map: the row agent's score against the column agent (cooperative: the
    mean return of their games together, coloured over ``value_range``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(result.names)
    order = result.ranking()
    scores = result.scores[np.ix_(order, order)]
    if result.elo is None:
        labels = [f"{result.names[i]} ({result.mean_returns[i]:+.2f})" for i in order]
        ylabel, colour = "agent (mean return)", "mean return of their games together"
    else:
        labels = [f"{result.names[i]} ({result.elo[i]:+.0f})" for i in order]
        ylabel, colour = "agent (Elo)", "score (wins + draws/2) / comparisons"
    size = 2.0 + 0.9 * n
    fig = Figure(figsize=(size + 1.5, size))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(scores), vmin=value_range[0], vmax=value_range[1], cmap="RdYlGn")
    for r in range(n):
        for c in range(n):
            if not math.isnan(scores[r, c]):
                ax.text(c, r, f"{scores[r, c]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(n), [result.names[i] for i in order], rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("with agent" if result.elo is None else "opponent")
    ax.set_ylabel(ylabel)
    ax.set_title(title or "score matrix", fontsize=10)
    fig.colorbar(image, ax=ax, label=colour)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    return path

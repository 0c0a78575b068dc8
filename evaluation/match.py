"""Matches between two agents on any game: seats swapped every other game, seeded, resumable, with a summary.

Seeding
    Game ``i`` of a match with master seed ``s`` is dealt from
    ``SeedSequence(s).spawn(n)[i]``, so every game is reproducible on its own
    and the records do not depend on how many worker processes played them.
    Agent 0 sits in seat 0 in even games and in seat 1 in odd ones.

In-process and parallel
    ``play_match(game, agents, games, seed)`` plays with agent objects in this
    process. ``play_match_specs(game_name, specs, games, seed, workers=W,
    results_path=P)`` takes a game name and agent spec strings (see
    ``cardboard.registry``) so that each worker process (``spawn`` context)
    rebuilds the game and the agents itself.

Results file (JSONL)
    With ``results_path`` the first line is a header
    ``{"config": {"game", "options", "specs", "games", "seed"}}`` and each
    finished game appends one line ``{"index", "seats", "returns", "turns",
    "decisions", "seconds"}`` (flushed at once; lines are in finishing order,
    which may differ from index order with several workers). Starting again on
    an existing file resumes: the header must match the new config, every line
    must parse, and only the missing game indices are played. A match asked for
    with more games than its file's header extends that file (the header's
    count is raised; game ``i``'s seed does not depend on the count, so the
    records are those of the longer match from the start). Any other mismatch
    or a corrupted / truncated line raises ``ResultsFileError``; delete the bad
    line (or the file) by hand to go on.
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import InvalidParameterError, ResultsFileError
from ..envs.protocol import CHANCE, Game, sample_chance
from ..policies.agents import Agent

WILSON_Z = 1.959963984540054  # 95% two-sided
HEADER_KEYS = frozenset({"game", "options", "specs", "games", "seed"})  # a results file's first line


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

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (one line of a results file)."""
        return asdict(self) | {"seats": list(self.seats), "returns": list(self.returns),
                               "decisions": list(self.decisions), "seconds": list(self.seconds)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of ``to_json``; raises KeyError/TypeError/ValueError on a malformed dict."""
        return cls(int(data["index"]), tuple(int(x) for x in data["seats"]), tuple(float(x) for x in data["returns"]),
                   int(data["turns"]), tuple(int(x) for x in data["decisions"]),
                   tuple(float(x) for x in data["seconds"]))


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


def agent_score(record: GameRecord, agent: int = 0) -> float:
    """``agent``'s score in one game: 1 for a win, ½ for a draw, 0 for a loss."""
    mine, theirs = record.returns[record.seats.index(agent)], record.returns[record.seats.index(1 - agent)]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def summarize(names: tuple[str, str], records: Sequence[GameRecord]) -> MatchSummary:
    """Win/draw/loss of agent 0 against agent 1 over the records."""
    scores = [agent_score(r) for r in records]
    wins, draws, losses = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    per_decision = []
    for agent in (0, 1):
        total = sum(r.seconds[r.seats.index(agent)] for r in records)
        count = sum(r.decisions[r.seats.index(agent)] for r in records)
        per_decision.append(total / max(count, 1))
    turns = float(np.mean([r.turns for r in records])) if records else 0.0
    seat_wins = tuple(sum(r.returns[seat] > r.returns[1 - seat] for r in records) for seat in (0, 1))
    return MatchSummary(names, len(records), wins, draws, losses, turns, (per_decision[0], per_decision[1]), seat_wins)


def _seats(index: int) -> tuple[int, int]:
    return (0, 1) if index % 2 == 0 else (1, 0)


def _play_indexed(game: Game, agents: Sequence[Agent], index: int, child: np.random.SeedSequence) -> GameRecord:
    seats = _seats(index)
    returns, turns, decisions, seconds = play_game(game, [agents[k] for k in seats], np.random.default_rng(child))
    return GameRecord(index, seats, tuple(float(x) for x in returns), turns, tuple(decisions), tuple(seconds))


def _check_games(games: int) -> None:
    if games < 1:
        raise InvalidParameterError(f"a match needs at least one game, got games={games}")


def play_match(
    game: Game,
    agents: tuple[Agent, Agent],
    games: int,
    seed: int,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """``games`` games between two agent objects in this process, agent 0 in seat 0 in even games."""
    _check_games(games)
    records = []
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(games)):
        record = _play_indexed(game, agents, i, child)
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records


# ---- matches from spec strings: worker processes and a resumable results file -----------------
@dataclass(frozen=True)
class MatchConfig:
    """What a results file was written for; resuming requires an equal config."""

    game: str
    specs: tuple[str, str]
    games: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-normalised dict (tuples become lists), comparable with a header read back."""
        return json.loads(json.dumps({"game": self.game, "options": self.options, "specs": list(self.specs),
                                      "games": self.games, "seed": self.seed}))


def load_results(path: str | os.PathLike) -> tuple[dict[str, Any], dict[int, GameRecord]]:
    """A results file's header config and its records by game index.

    Raises ``ResultsFileError`` on a missing file or header, a line that is not a
    complete JSON record, a duplicate index or an index out of range.
    """
    path = Path(path)
    if not path.is_file():
        raise ResultsFileError(f"{path}: no such results file")
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise ResultsFileError(f"{path}: empty results file (no config header); delete it to start again")
    try:
        header = json.loads(lines[0])["config"]
        if not HEADER_KEYS <= header.keys() or len(header["specs"]) != 2:
            raise KeyError("config")
        total = int(header["games"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        keys = ", ".join(sorted(HEADER_KEYS))
        raise ResultsFileError(f"{path}:1: first line is not a config header {{\"config\": {{{keys}}}}}") from None
    records: dict[int, GameRecord] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = GameRecord.from_json(json.loads(line))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            raise ResultsFileError(f"{path}:{number}: corrupted or truncated record {line[:80]!r}; "
                                   "delete that line to resume") from None
        if not 0 <= record.index < total:
            raise ResultsFileError(f"{path}:{number}: game index {record.index} out of range 0..{total - 1}")
        if record.index in records:
            raise ResultsFileError(f"{path}:{number}: game {record.index} recorded twice")
        if record.seats != _seats(record.index):
            raise ResultsFileError(f"{path}:{number}: game {record.index} has seats {record.seats}, "
                                   f"expected {_seats(record.index)}")
        records[record.index] = record
    return header, records


def read_results(path: str | os.PathLike) -> dict[int, GameRecord]:
    """Records of a results file by game index (``load_results`` without the header)."""
    return load_results(path)[1]


def _resume_header(path: Path, header: dict[str, Any], config: MatchConfig) -> None:
    """Check that ``path`` (whose header is ``header``) can be resumed as ``config``'s match.

    A header that differs only by fewer games is raised to ``config.games`` (game
    ``i``'s seed does not depend on the count); any other difference raises
    ``ResultsFileError``.
    """
    wanted = config.to_json()
    if header == wanted:
        return
    if header | {"games": config.games} != wanted or int(header["games"]) > config.games:
        raise ResultsFileError(f"{path}: written for another match config {header}, not {wanted}; "
                               "use another results file or delete this one")
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = json.dumps({"config": wanted})
    staged = path.with_name(path.name + ".extending")
    staged.write_text("\n".join(lines), encoding="utf-8")
    os.replace(staged, path)


_WORKER: dict[str, Any] = {}


def _build(game_name: str, options: dict[str, Any], specs: Sequence[str]) -> tuple[Game, tuple[Agent, ...]]:
    from cardboard import registry  # late: registry imports the games, which may import this package

    game = registry.make_game(game_name, **options)
    return game, tuple(registry.make_agent(spec, game) for spec in specs)


def _worker_init(game_name: str, options: dict[str, Any], specs: tuple[str, ...]) -> None:
    _WORKER["game"], _WORKER["agents"] = _build(game_name, options, specs)


def _worker_play(index: int, child: np.random.SeedSequence) -> GameRecord:
    return _play_indexed(_WORKER["game"], _WORKER["agents"], index, child)


def play_match_specs(
    game_name: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    *,
    game_options: dict[str, Any] | None = None,
    workers: int = 1,
    results_path: str | os.PathLike | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """A match between two agent specs on a registered game; parallel over ``workers`` processes, resumable.

    Records (sorted by game index) are identical for any ``workers`` and for a
    resumed run, apart from the measured ``seconds``. ``on_game`` is called for
    every record, first for those read back from ``results_path``.
    """
    _check_games(games)
    if workers < 1:
        raise InvalidParameterError(f"workers must be >= 1, got {workers}")
    if len(specs) != 2:
        raise InvalidParameterError(f"a match needs exactly two agent specs, got {len(specs)}: {list(specs)}")
    config = MatchConfig(game_name, (specs[0], specs[1]), games, seed, dict(game_options or {}))
    game, agents = _build(game_name, config.options, config.specs)  # fail early on bad names, in this process
    done: dict[int, GameRecord] = {}
    out = None
    if results_path is not None:
        path = Path(results_path)
        if path.exists() and path.stat().st_size > 0:
            header, done = load_results(path)
            _resume_header(path, header, config)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"config": config.to_json()}) + "\n", encoding="utf-8")
        out = path.open("a", encoding="utf-8")
    for index in sorted(done):
        if on_game is not None:
            on_game(done[index])
    children = np.random.SeedSequence(seed).spawn(games)
    missing = [i for i in range(games) if i not in done]
    records = dict(done)

    def finish(record: GameRecord) -> None:
        records[record.index] = record
        if out is not None:
            out.write(json.dumps(record.to_json()) + "\n")
            out.flush()
        if on_game is not None:
            on_game(record)

    try:
        if workers == 1 or len(missing) <= 1:
            for i in missing:
                finish(_play_indexed(game, agents, i, children[i]))
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(min(workers, len(missing)), mp_context=context, initializer=_worker_init,
                                     initargs=(game_name, config.options, config.specs)) as pool:
                futures = [pool.submit(_worker_play, i, children[i]) for i in missing]
                try:
                    for future in as_completed(futures):
                        finish(future.result())
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
    finally:
        if out is not None:
            out.close()
    return [records[i] for i in range(games)]

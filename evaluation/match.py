"""Matches between the N agents of any N-seat game: seats rotated, common random numbers, resumable, summarized.

Seats
    ``play_match`` / ``play_match_specs`` take one agent per seat of the game
    (N = ``info.num_players``). ``rotation`` says who sits where in game ``i``
    (``seats[s]`` of a record is the agent in seat ``s``):

    ``"cyclic"`` (default)  agent ``k`` sits in seat ``(k + i) mod N``; with two
                            players agent 0 has seat 0 in even games, seat 1 in odd ones.
    ``"permutations"``      game ``i`` seats the agents by the ``(i mod N!)``-th
                            permutation of ``range(N)`` in lexicographic order
                            (seat ``s`` holds agent ``perm[s]``): every seating
                            equally often in each block of N! games.

    For N = 2 the two are the same.

Seeding: common random numbers
    Game ``i`` of a match with master seed ``s`` is seeded by
    ``SeedSequence(s).spawn(n)[i]`` (built directly as ``SeedSequence(s,
    spawn_key=(i,))``: it depends on neither the number of games nor the
    workers), which spawns 1 + N streams: stream 0 deals the game and samples
    every chance node, stream ``1 + k`` is the ``rng`` handed to the agent in
    seat ``k``. What the agents draw never moves the chance stream, so one seed
    gives the same deal and the same outcomes at the same chance nodes whoever
    plays: two agents each matched against one opponent with one seed meet the
    same luck, and a paired comparison (``evaluation.paired``) cancels it.
    ``play_game`` calls every agent's ``reset()`` before the game.

In-process and parallel
    ``play_match(game, agents, games, seed)`` plays with agent objects in this
    process. ``play_match_specs(game_name, specs, games, seed, workers=W,
    results_path=P)`` takes a game name and agent spec strings (see
    ``cardboard.registry``); each worker process (``spawn`` context) gets the
    registry entries of the game and the agents (``registry.restore``), so
    games and agents registered at run time from an importable module play in
    workers too, and rebuilds them itself.

Summaries (``summarize``; 95% intervals)
    Every agent's mean return, with a normal interval from the sample standard
    deviation. Two-player zero-sum games: agent 0's wins / draws / losses (win
    rates with Wilson intervals) and the wins of whoever sat in each seat.
    Cooperative games (every seat gets the same return, a game is won when it
    reaches ``max_return``): the team's wins (Wilson). Other competitive games
    (general-sum, or more than two players): every agent's rank score
    (``agent_score``: the share of the other seats whose return it beat, a tie
    counting half) with a normal interval.

Results file (JSONL)
    With ``results_path`` the first line is a header ``{"config": {"version":
    2, "game", "options", "specs", "games", "seed", "rotation"}}`` and each
    finished game appends one line ``{"index", "seats", "returns", "turns",
    "decisions", "seconds", "moves"}`` (per seat; ``moves``: every decision's
    action, which ``replay_record`` replays; flushed at once; lines are in
    finishing order, which may differ from index order with several workers).
    Starting again on an existing file resumes: the header must match the new
    config, every line must parse, and only the missing game indices are
    played. A match asked for with more games than its file's header extends
    that file (the header's count is raised; game ``i``'s seed does not depend
    on the count). Any other mismatch or a corrupted / truncated line raises
    ``ResultsFileError``; delete the bad line (or the file) by hand to go on.
    A header without ``version`` was written by cardboard 0.1 (results version
    1: two players, cyclic seats, one random stream per game for chance and
    both agents): ``load_results`` reads it (its header gets ``version`` 1 and
    ``rotation`` ``"cyclic"``) for summaries and comparisons, but it cannot be
    resumed or extended, since its games cannot be replayed.
"""
from __future__ import annotations

import json
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import InvalidParameterError, ResultsFileError
from ..envs.files import RESULTS_LIMIT, differing_fields, errors_as, quoted, read_text
from ..envs.protocol import CHANCE, Agent, Game, GameInfo, GameState, sample_chance
from ..jobs.intervals import Estimate, normal_estimate
from ..jobs.seats import ROTATIONS, seat_order
from ..jobs.seeds import game_streams
from ..jobs.backends import Backend, run_tasks
from .cluster import job_on_backend

RESULTS_VERSION = 2  # written in every new results file's header
HEADER_KEYS = frozenset({"game", "options", "specs", "games", "seed", "rotation", "version"})  # as load_results returns it


@dataclass
class GameRecord:
    """One finished game: who sat where, the returns per seat, its length and cost."""

    index: int
    seats: tuple[int, ...]  # seats[k] = index of the agent playing seat k
    returns: tuple[float, ...]
    turns: int
    decisions: tuple[int, ...]  # per seat
    seconds: tuple[float, ...]  # thinking time per seat
    moves: tuple[int, ...] = ()  # every decision's action in order (chance comes from the seed): replay_record

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (one line of a results file)."""
        return asdict(self) | {"seats": list(self.seats), "returns": list(self.returns),
                               "decisions": list(self.decisions), "seconds": list(self.seconds),
                               "moves": list(self.moves)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of ``to_json``; raises KeyError/TypeError/ValueError on a malformed dict."""
        return cls(int(data["index"]), tuple(int(x) for x in data["seats"]), tuple(float(x) for x in data["returns"]),
                   int(data["turns"]), tuple(int(x) for x in data["decisions"]),
                   tuple(float(x) for x in data["seconds"]), tuple(int(x) for x in data.get("moves", ())))

    def returns_of(self, agent: int) -> float:
        """The return of agent ``agent`` (an index into the match's agents)."""
        return self.returns[self.seats.index(agent)]


def play_game(game: Game, agents: Sequence[Agent], rng: np.random.Generator,
              agent_rngs: Sequence[np.random.Generator] | None = None,
              moves: list[int] | None = None) -> tuple[np.ndarray, int, list[int], list[float]]:
    """Play one game; agents[k] plays seat k, each ``reset()`` first.

    The deal and every chance node draw from ``rng``; the agent in seat ``k``
    from ``agent_rngs[k]`` (default: ``rng`` too, one shared stream). Agents with
    the optional ``observe(state, action, seat)`` see every action (chance
    outcomes too) before it is applied, and those with ``game_over(state, seat)``
    the final state. Each decision's action is appended to ``moves`` when given.
    Returns (returns, turns, decisions per seat, seconds per seat).
    """
    for agent in agents:
        agent.reset()
    rngs = [rng] * len(agents) if agent_rngs is None else agent_rngs
    watchers = [(seat, agent.observe) for seat, agent in enumerate(agents) if callable(getattr(agent, "observe", None))]
    state = game.new_state(rng)
    decisions = [0] * len(agents)
    seconds = [0.0] * len(agents)
    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            action = sample_chance(state, rng)
        else:
            start = time.perf_counter()
            action = agents[player].act(state, rngs[player])
            seconds[player] += time.perf_counter() - start
            decisions[player] += 1
            if moves is not None:
                moves.append(int(action))
        for seat, observe in watchers:
            observe(state, action, seat)
        state.apply(action)
    for seat, agent in enumerate(agents):
        over = getattr(agent, "game_over", None)
        if callable(over):
            over(state, seat)
    return state.returns(), state.turn, decisions, seconds


def replay_record(game: Game, seed: int, record: GameRecord) -> Iterator[tuple[GameState, int]]:
    """Game ``record.index`` of a match with master seed ``seed`` played again from its recorded moves: each state
    before an action (chance outcomes included, drawn from the game's chance stream as the match drew them; do not
    change the state) and the action applied, then the final state with action -1. A record without moves (written
    before they were kept) or whose moves do not fit the game raises ``ResultsFileError``."""
    if not record.moves and sum(record.decisions):
        raise ResultsFileError(f"game {record.index}: the record keeps no moves (written before results kept "
                               "them): play the match again to replay it")
    rng = game_streams(seed, record.index, len(record.seats))[0]
    state, moves = game.new_state(rng), iter(record.moves)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            action = sample_chance(state, rng)
        else:
            action = next(moves, None)
            if not isinstance(action, int) or not 0 <= action < state.num_actions or not state.action_mask()[action]:
                raise ResultsFileError(f"game {record.index}: move {action} does not fit the replayed state (seat "
                                       f"{state.current_player}, turn {state.turn}); another game version or options?")
        yield state, action
        state.apply(action)
    if next(moves, None) is not None:
        raise ResultsFileError(f"game {record.index}: moves left after the replayed game's end")
    yield state, -1


def agent_score(record: GameRecord, agent: int = 0) -> float:
    """``agent``'s rank score in one game: the share of the other seats whose return it beat, a tie counting
    half (two players: 1 for a win, ½ for a draw, 0 for a loss; N: 1 for the strictly best return)."""
    mine = record.returns_of(agent)
    others = [r for seat, r in enumerate(record.returns) if record.seats[seat] != agent]
    return sum(1.0 if mine > r else 0.5 if mine == r else 0.0 for r in others) / len(others)


@dataclass
class MatchSummary:
    """A match per agent (indexed like ``names``); a field that does not apply to the game's kind is None."""

    names: tuple[str, ...]
    games: int
    utility: str
    mean_returns: tuple[Estimate, ...]  # 95% normal intervals from the sample standard deviation
    mean_turns: float
    seconds_per_decision: tuple[float, ...]
    wins: int | None = None  # two-player zero-sum: agent 0's wins, draws and losses against agent 1
    draws: int | None = None
    losses: int | None = None
    seat_wins: tuple[int, int] | None = None  # two-player competitive: games won by whoever sat in seat 0 / 1
    rank_scores: tuple[Estimate, ...] | None = None  # other competitive games: ``agent_score``, normal intervals
    team_wins: int | None = None  # cooperative: games whose return reached ``max_return``


def summarize(names: Sequence[str], records: Sequence[GameRecord], info: GameInfo) -> MatchSummary:
    """The match's summary for the kind of game ``info`` describes (see the module docstring)."""
    names = tuple(names)
    agents = range(len(names))
    per_decision = []
    for agent in agents:
        total = sum(r.seconds[r.seats.index(agent)] for r in records)
        count = sum(r.decisions[r.seats.index(agent)] for r in records)
        per_decision.append(total / max(count, 1))
    summary = MatchSummary(names, len(records), info.utility,
                           tuple(normal_estimate([r.returns_of(k) for r in records]) for k in agents),
                           float(np.mean([r.turns for r in records])) if records else 0.0, tuple(per_decision))
    if info.utility == "cooperative":
        summary.team_wins = sum(r.returns[0] >= info.max_return for r in records)
    elif len(names) == 2:
        summary.seat_wins = (sum(r.returns[0] > r.returns[1] for r in records),
                             sum(r.returns[1] > r.returns[0] for r in records))
    if info.utility == "zero_sum" and len(names) == 2:
        scores = [agent_score(r) for r in records]
        summary.wins, summary.draws, summary.losses = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    elif info.utility != "cooperative" and len(names) > 1:
        summary.rank_scores = tuple(normal_estimate([agent_score(r, k) for r in records]) for k in agents)
    return summary


def _play_indexed(game: Game, agents: Sequence[Agent], index: int, seed: int, rotation: str) -> GameRecord:
    seats = seat_order(index, len(agents), rotation)
    chance, *seat_rngs = game_streams(seed, index, len(agents))
    moves: list[int] = []
    returns, turns, decisions, seconds = play_game(game, [agents[k] for k in seats], chance, seat_rngs, moves)
    return GameRecord(index, seats, tuple(float(x) for x in returns), turns, tuple(decisions), tuple(seconds),
                      tuple(moves))


def _check_match(games: int, rotation: str) -> None:
    if games < 1:
        raise InvalidParameterError(f"a match needs at least one game, got games={games}")
    if rotation not in ROTATIONS:
        raise InvalidParameterError(f"unknown seat rotation {rotation!r}; known: {', '.join(ROTATIONS)}")


def _check_seats(info: GameInfo, agents: Sequence[Any]) -> None:
    if len(agents) != info.num_players:
        raise InvalidParameterError(f"game {info.name!r} has {info.num_players} seats, but the match got "
                                    f"{len(agents)} agents: {[getattr(a, 'name', a) for a in agents]}")


def play_match(
    game: Game,
    agents: Sequence[Agent],
    games: int,
    seed: int,
    on_game: Callable[[GameRecord], None] | None = None,
    *,
    rotation: str = "cyclic",
) -> list[GameRecord]:
    """``games`` games between one agent object per seat of ``game``, in this process, seats rotated."""
    _check_match(games, rotation)
    _check_seats(game.info, agents)
    records = []
    for i in range(games):
        record = _play_indexed(game, agents, i, seed, rotation)
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records


# ---- matches from spec strings: worker processes and a resumable results file -----------------
@dataclass(frozen=True)
class MatchConfig:
    """What a results file was written for; resuming requires an equal config."""

    game: str
    specs: tuple[str, ...]
    games: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    rotation: str = "cyclic"

    def to_json(self) -> dict[str, Any]:
        """The header's config, JSON-normalised (tuples become lists), comparable with a header read back."""
        return json.loads(json.dumps({"version": RESULTS_VERSION, "game": self.game, "options": self.options,
                                      "specs": list(self.specs), "games": self.games, "seed": self.seed,
                                      "rotation": self.rotation}))


def _read_header(path: Path, line: str) -> dict[str, Any]:
    """The config of a header line, ``version`` and ``rotation`` filled in for version 1 (see the module docstring)."""
    try:
        header = json.loads(line)["config"]
        version = header.setdefault("version", 1)  # no version: written by cardboard 0.1
        if version == 1:
            header.setdefault("rotation", "cyclic")
        players = len(header["specs"])
        valid = (HEADER_KEYS <= header.keys() and header["rotation"] in ROTATIONS and int(header["games"]) >= 0
                 and (players == 2 if version == 1 else players >= 1))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        valid = False
    if valid and version not in (1, RESULTS_VERSION):
        raise ResultsFileError(f"{path}:1: results version {quoted(version)}; this cardboard reads versions 1 and "
                               f"{RESULTS_VERSION}")
    if not valid:
        keys = ", ".join(sorted(HEADER_KEYS - {"version"}))
        raise ResultsFileError(f"{path}:1: first line is not a config header {{\"config\": {{version, {keys}}}}}")
    return header


def load_results(path: str | os.PathLike) -> tuple[dict[str, Any], dict[int, GameRecord]]:
    """A results file's header config (``version`` and ``rotation`` filled in for version 1) and its records
    by game index.

    Raises ``ResultsFileError`` on a missing file, one that is no regular file or over ``RESULTS_LIMIT``
    (checked before it is read), a missing header, an unknown version, a line that is not a complete JSON
    record, a duplicate index, an index out of range or seats that are not the rotation's.
    """
    path = Path(path)
    lines = _results_lines(path)
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise ResultsFileError(f"{path}: empty results file (no config header); delete it to start again")
    header = _read_header(path, lines[0])
    total, players = int(header["games"]), len(header["specs"])
    records: dict[int, GameRecord] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = GameRecord.from_json(json.loads(line))
            if not len(record.returns) == len(record.decisions) == len(record.seconds) == players:
                raise ValueError(line)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            raise ResultsFileError(f"{path}:{number}: corrupted or truncated record; delete that line to resume"
                                   ) from None
        if not 0 <= record.index < total:
            raise ResultsFileError(f"{path}:{number}: game index {record.index} out of range 0..{total - 1}")
        if record.index in records:
            raise ResultsFileError(f"{path}:{number}: game {record.index} recorded twice")
        expected = seat_order(record.index, players, header["rotation"])
        if record.seats != expected:
            raise ResultsFileError(f"{path}:{number}: game {record.index} has seats {record.seats}, "
                                   f"expected {expected}")
        records[record.index] = record
    return header, records


def _results_lines(path: Path) -> list[str]:
    """The lines of the results file ``path`` (``ResultsFileError`` when it cannot be read)."""
    with errors_as(ResultsFileError):
        return read_text(path, RESULTS_LIMIT, "results file").split("\n")


def read_results(path: str | os.PathLike) -> dict[int, GameRecord]:
    """Records of a results file by game index (``load_results`` without the header)."""
    return load_results(path)[1]


def _resume_header(path: Path, header: dict[str, Any], config: MatchConfig) -> None:
    """Check that ``path`` (whose header is ``header``) can be resumed as ``config``'s match.

    A header that differs only by fewer games is raised to ``config.games`` (game
    ``i``'s seed does not depend on the count); a version-1 file or any other
    difference raises ``ResultsFileError``.
    """
    if header["version"] == 1:
        raise ResultsFileError(f"{path}: written by cardboard 0.1 (results version 1, one random stream per "
                               "game): it can be read and compared but not resumed; start a new file")
    wanted = config.to_json()
    if header == wanted:
        return
    if header | {"games": config.games} != wanted or int(header["games"]) > config.games:
        raise ResultsFileError(f"{path}: written for another match config (it differs in "
                               f"{differing_fields(header, wanted)}); use another results file or delete this one")
    lines = _results_lines(path)
    lines[0] = json.dumps({"config": wanted})
    staged = path.with_name(path.name + ".extending")
    staged.write_text("\n".join(lines), encoding="utf-8")
    os.replace(staged, path)


def _build(game_name: str, options: dict[str, Any], specs: Sequence[str]) -> tuple[Game, tuple[Agent, ...]]:
    from cardboard import registry  # late: registry imports the games, which may import this package

    game = registry.make_game(game_name, **options)
    _check_seats(game.info, specs)
    return game, tuple(registry.make_agent(spec, game) for spec in specs)


def _setup(entries: bytes, game_name: str, options: dict[str, Any], specs: tuple[str, ...], seed: int,
           rotation: str) -> tuple:
    """A worker's game and agents (the registry entries of its parent first: plugins registered at run time)."""
    from cardboard import registry

    registry.restore(pickle.loads(entries))
    return (*_build(game_name, options, specs), seed, rotation)


def _play(context: tuple, index: int) -> GameRecord:
    game, agents, seed, rotation = context
    return _play_indexed(game, agents, index, seed, rotation)


@job_on_backend
def play_match_specs(
    game_name: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    *,
    rotation: str = "cyclic",
    game_options: dict[str, Any] | None = None,
    workers: int = 1,
    results_path: str | os.PathLike | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    torch_threads: int = 1,
    backend: Backend | None = None,
) -> list[GameRecord]:
    """A match between one agent spec per seat of a registered game; parallel over ``workers`` processes,
    resumable.

    Records (sorted by game index) are identical for any ``workers`` and for a
    resumed run, apart from the measured ``seconds``. ``on_game`` is called for
    every record, first for those read back from ``results_path``. On an
    exception (``KeyboardInterrupt`` included) the games in progress are dropped
    at once, workers terminated, and the exception re-raised; every finished
    game is already a complete line of ``results_path``. ``torch_threads``: torch's thread count in each worker
    process whose agents load torch (this process's is left alone). ``backend`` (``cardboard.jobs.backends``):
    where the games run, ``workers`` local processes by default; records are the same on every backend.
    """
    _check_match(games, rotation)
    for name, value in (("workers", workers), ("torch_threads", torch_threads)):
        if value < 1:
            raise InvalidParameterError(f"{name} must be >= 1, got {value}")
    config = MatchConfig(game_name, tuple(specs), games, seed, dict(game_options or {}), rotation)
    game, agents = _build(game_name, config.options, config.specs)  # fail early on bad names, in this process
    path = None if results_path is None else Path(results_path)
    resume = path is not None and path.exists() and path.stat().st_size > 0
    header, done = load_results(path) if resume else ({}, {})
    missing = [i for i in range(games) if i not in done]
    backend = backend or Backend("local", workers)
    parallel = backend.elsewhere(len(missing))
    from cardboard import registry  # late: registry imports the games, which may import this package

    entries = registry.pickled_entries(game_name, config.specs) if parallel else b""
    if resume:
        _resume_header(path, header, config)
    elif path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"config": config.to_json()}) + "\n", encoding="utf-8")
    out = None if path is None else path.open("a", encoding="utf-8")
    for index in sorted(done):
        if on_game is not None:
            on_game(done[index])
    records = dict(done)

    def finish(record: GameRecord) -> None:
        records[record.index] = record
        if out is not None:
            out.write(json.dumps(record.to_json()) + "\n")
            out.flush()
        if on_game is not None:
            on_game(record)

    try:
        if parallel:
            run_tasks(backend, missing, _play, finish, setup=_setup,
                      setup_args=(entries, game_name, config.options, config.specs, seed, rotation),
                      torch_threads=torch_threads, files=registry.files_named(config.specs, config.options))
        else:
            for i in missing:
                finish(_play_indexed(game, agents, i, seed, rotation))
    finally:
        if out is not None:
            out.close()
    return [records[i] for i in range(games)]

"""Self-play records for expert iteration (issue 17): search agents play, every decision becomes a training record.

    cardboard selfplay lords_of_war --agents ismcts:iterations=100 --games 200 --seed 1 --out runs/selfplay/low
    cardboard selfplay hearth --agents duct:iterations=300,lookahead:turns=3 --games 50 --out DIR --workers 2
    cardboard selfplay lords_of_war --agents ismcts:iterations=400 --games 2000 --out DIR --workers 64 \
        --backend ray --address auto
    cardboard selfplay lords_of_war --agents ismcts:iterations=200,net=NET.safetensors --games 256 --concurrent 64 \
        --out DIR
    cardboard selfplay lords_of_war --agents ismcts:iterations=600,net=NET.safetensors \
        --fast ismcts:iterations=100,net=NET.safetensors --full-fraction 0.25 --games 256 --out DIR

Games
    ``--agents`` gives one spec for every seat or one spec per seat. Game ``i`` seats the specs by
    ``evaluation.match.seat_order(i, N)`` (cyclic rotation) and draws from ``game_streams(seed, i, N)`` (stream 0
    deals and samples chance, stream ``1 + k`` is seat ``k``'s), exactly as ``cardboard play`` would: game ``i``'s
    records depend on nothing but ``(game, options, specs, seed, i)``, not on the number of games, the workers, the
    backend or on resuming. ``--concurrent G`` plays G games at once per process in lock-step (``play_many``), their
    searches' network requests answered together; with a network, batch composition can change results only
    through floating-point rounding (CPU matrix products differ in the last bit between batch sizes).

Playout-cap randomisation (KataGo, arXiv 1902.10565 §3.1)
    ``--fast SPEC[,SPEC] --full-fraction p``: each decision of a recorded seat (one whose agent searches) is made by
    that seat's agent (a *full* decision) with probability p, else by the seat's fast agent (one spec for every
    seat or one per ``--agents`` spec, seated alike). The draws come from the game's stream ``1 + N`` (after the
    seats' streams: ``cap_stream``), one per decision of a recorded seat, so game ``i``'s records still depend on
    nothing but ``(game, options, specs, fast specs, p, seed, i)``. Both kinds are recorded, ``full`` telling
    them apart: the learner fits the policy to full records only, the value to all.

Records
    One per decision of an agent that searches (it has a ``last`` ``SearchResult``, as ``SearchAgent`` and ``rhea``); other
    agents' decisions (``random``, ``greedy``) are played but not recorded. A forced move (one legal action) is
    played without a search: its record has a one-hot policy and ``searched`` False (so has a fast decision whose
    fast agent does not search). Fields, N records:

    ==============  ====================  ================================================================
    ``obs``         float32 [N, *obs]     ``state.observation(seat)`` before the decision
    ``mask``        bool [N, A]           ``state.action_mask()``
    ``policy``      float32 [N, A]        the search's improved policy ``SearchResult.policy`` (Gumbel's
                                          π′) where it has one, else its root visit distribution, over
                                          action ids: each legal action gets the weight of its soft key
                                          ``state.action_key(a)``, split evenly among the legal actions
                                          sharing the key; sums to 1 over the legal actions, 0 elsewhere
    ``action``      int32 [N]             the action played
    ``returns``     float32 [N, P]        the game's final returns, every seat (absolute seat order)
    ``value``       float32 [N]           ``returns[seat]``: the final return from the acting seat's view
    ``game``        int64 [N]             game index
    ``seat``        int32 [N]             the acting seat
    ``turn``        int32 [N]             ``state.turn`` at the decision
    ``searched``    bool [N]              False for a forced move
    ``root_value``  float32 [N]           the search's value of the root for the acting seat
                                          (``SearchResult.value`` v in [0, 1]) as a return:
                                          min_return + v (max_return - min_return); NaN without one
    ``full``        bool [N]              made by the full agent (always True without ``--fast``)
    ==============  ====================  ================================================================

Files (``--out DIR``)
    ``header.json``: ``{"format": "cardboard.selfplay/2", "game", "options", "agents", "fast", "full_fraction",
    "seed", "games", "rotation", "num_players", "num_actions", "observation_shape"}`` (``fast`` None and
    ``full_fraction`` 1 without ``--fast``). ``shard-IIIIII.npz`` (``IIIIII`` its lowest game index): the fields
    above for whole games, plus ``games`` (int64 [G], the game indices the shard holds, those without a record
    included) and ``game_returns`` (float32 [G, P]). Every file is written to a temporary name beside it and
    renamed (``os.replace``), so a shard is either absent or complete. Format 1 (before ``root_value`` and
    ``full``; a resumed one stays format 1) is still read, its records' missing fields as NaN and True; any other
    format is a ``DataError`` naming it.

Resuming
    Running again on a folder with a header resumes: the header's game, options, agents, fast agents, full
    fraction and seed must match (more ``--games`` extend the run), every shard is read back, and only the
    missing game indices are played.
    Killing the command loses at most the games not yet written (the games in progress, and with ``shard_games``
    > 1 the finished games still buffered for the next shard); a game is never written twice. Only the command's
    own process writes: a worker killed mid-run (``--workers``, ``--backend ray``) costs only the time of its games
    in progress, which are played again. Ctrl-C writes every finished game and prints how many are saved where and
    the command that resumes (exit code 130). A truncated or corrupt shard, a game index in two shards or one
    outside the header's range raises ``DataError`` naming the file: delete that shard and run again to replay its
    games.

This module does not import torch (``training.learn`` does).
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardboard import registry
from cardboard.envs.errors import DataError, InvalidParameterError
from cardboard.envs.files import SHARD_LIMIT, TEXT_LIMIT, check_file, errors_as, quoted, read_json
from cardboard.envs.protocol import CHANCE, Agent, Game, GameState, sample_chance
from cardboard.evaluation.cluster import job_on_backend
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.interrupts import track
from cardboard.jobs.resumable import write_atomically
from cardboard.jobs.seats import seat_order
from cardboard.jobs.seeds import game_streams
from cardboard.search.batching import Steps, act_steps, drive, run_together
from cardboard.search.tree import legal_keys

FORMAT = "cardboard.selfplay/2"
FORMAT_1 = "cardboard.selfplay/1"  # before root_value and full: still read
HEADER = "header.json"
RECORD_FIELDS = ("obs", "mask", "policy", "action", "returns", "value", "game", "seat", "turn", "searched",
                 "root_value", "full")
GAME_FIELDS = ("games", "game_returns")
FORMAT_1_FILL = {"root_value": np.float32(np.nan), "full": np.True_}  # the fields format 1 lacks, as read
HEADER_DEFAULTS = {"fast": None, "full_fraction": 1.0}  # header fields format 1 lacks
MATCHED = ("game", "options", "agents", "fast", "full_fraction", "seed", "rotation")  # a resumed run shares these
FULL_FRACTION = 0.25  # KataGo's share of full searches


OVERLAP = {"auto": None, "on": True, "off": False}  # --overlap: run_together's overlap


@dataclass
class Args:
    game: str
    """a registered game (see ``cardboard games``)"""
    agents: str = "ismcts:iterations=100"
    """one agent spec for every seat, or one per seat, comma-separated"""
    fast: str | None = None
    """playout-cap randomisation: the fast agents (one spec, or one per ``agents`` spec)"""
    full_fraction: float = FULL_FRACTION
    """with ``fast``: the probability of a full decision"""
    games: int = 100
    seed: int = 0
    out: str | None = None
    """output folder (default runs/selfplay/GAME-seedS); resumed when it holds a header"""
    workers: int = 1
    shard_games: int = 1
    """finished games per shard (1: each game is written as soon as it ends)"""
    concurrent: int = 1
    """games played at once in lock-step per process, their network calls batched"""
    option: list[str] = field(default_factory=list)
    """game options as KEY=VALUE (repeatable)"""
    quiet: bool = False


# -- playing -------------------------------------------------------------------------------------------------
def key_policy(keys: Sequence[Any], legal: np.ndarray, weights: dict[Any, float], num_actions: int) -> np.ndarray:
    """A search root's weights by soft key (visit counts, or an improved policy) as a dense distribution over
    action ids: each legal action ``legal[i]`` (soft key ``keys[i]``) gets its key's weight split evenly among the
    legal actions sharing that key; normalised over the legal actions (all-zero weights give a uniform
    distribution over them)."""
    sharing: dict[Any, int] = {}
    for key in keys:
        sharing[key] = sharing.get(key, 0) + 1
    policy = np.zeros(num_actions, dtype=np.float64)
    for a, key in zip(legal, keys):
        policy[int(a)] = weights.get(key, 0) / sharing[key]
    total = policy.sum()
    if total <= 0:
        policy[np.asarray(legal, dtype=np.int64)] = 1.0
        total = float(len(legal))
    return (policy / total).astype(np.float32)


def _searches(agent: Agent) -> bool:
    """Whether ``agent`` hands back its decisions as a ``last`` ``SearchResult`` (search agents, RHEA)."""
    return hasattr(agent, "last")


def cap_stream(seed: int, index: int, players: int) -> np.random.Generator:
    """Game ``index``'s playout-cap draws: the stream after ``game_streams``' (chance, then one per seat)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 1 + players)))


def play_recorded(game: Game, agents: Sequence[Agent], index: int, seed: int, fast: Sequence[Agent] | None = None,
                  full_fraction: float = 1.0) -> dict[str, np.ndarray]:
    """Play game ``index`` (``agents[k]`` in seat ``k``, streams from ``game_streams``, as ``play_game``) and
    return its records (``RECORD_FIELDS``) plus ``games`` / ``game_returns`` for this one game. ``fast``: the
    seats' fast agents (playout-cap randomisation: a full decision with probability ``full_fraction``)."""
    return drive(recorded_steps(game, agents, index, seed, fast, full_fraction))


def recorded_steps(game: Game, agents: Sequence[Agent], index: int, seed: int, fast: Sequence[Agent] | None = None,
                   full_fraction: float = 1.0) -> Steps[dict[str, np.ndarray]]:
    """``play_recorded`` as a resumable computation: the agents' evaluation requests are yielded (see
    ``search.batching``), so many games can share network batches (``run_together``)."""
    info = game.info
    streams = game_streams(seed, index, info.num_players)
    rng, rngs = streams[0], streams[1:]
    caps = cap_stream(seed, index, info.num_players) if fast is not None else None
    for agent in [*agents, *(fast or ())]:
        agent.reset()
    low, high = float(info.min_return), float(info.max_return)
    state = game.new_state(rng)
    names = ("obs", "mask", "policy", "action", "seat", "turn", "searched", "root_value", "full")
    rows: dict[str, list] = {name: [] for name in names}
    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        actor = agents[player]
        record = _searches(actor)
        if record:
            legal = np.array(state.legal_actions(), dtype=np.int64)  # copied: a view may change on apply
            keys = legal_keys(state)
            obs = np.asarray(state.observation(player), dtype=np.float32)
            mask = np.asarray(state.action_mask(), dtype=bool).copy()
            turn = state.turn
            full = caps is None or bool(caps.random() < full_fraction)
            actor = actor if full else fast[player]
        action = int((yield from act_steps(actor, state, rngs[player])))
        if record:
            result = actor.last if _searches(actor) else None
            if result is None:  # a forced move, played without a search (or a fast agent that does not search)
                policy = np.zeros(info.num_actions, dtype=np.float32)
                policy[action] = 1.0
            else:
                policy = key_policy(keys, legal, result.visits if result.policy is None else result.policy,
                                    info.num_actions)
            root = np.nan if result is None or result.value is None else low + result.value * (high - low)
            for name, value in zip(names, (obs, mask, policy, action, player, turn, result is not None, root, full)):
                rows[name].append(value)
        state.apply(action)
    returns = np.asarray(state.returns(), dtype=np.float32)
    n = len(rows["action"])
    return {
        "obs": np.asarray(rows["obs"], dtype=np.float32).reshape((n, *info.observation_shape)),
        "mask": np.asarray(rows["mask"], dtype=bool).reshape(n, info.num_actions),
        "policy": np.asarray(rows["policy"], dtype=np.float32).reshape(n, info.num_actions),
        "action": np.asarray(rows["action"], dtype=np.int32),
        "returns": np.tile(returns, (n, 1)).astype(np.float32).reshape(n, info.num_players),
        "value": returns[np.asarray(rows["seat"], dtype=np.int64)].astype(np.float32) if n else np.zeros(0, np.float32),
        "game": np.full(n, index, dtype=np.int64),
        "seat": np.asarray(rows["seat"], dtype=np.int32),
        "turn": np.asarray(rows["turn"], dtype=np.int32),
        "searched": np.asarray(rows["searched"], dtype=bool),
        "root_value": np.asarray(rows["root_value"], dtype=np.float32),
        "full": np.asarray(rows["full"], dtype=bool),
        "games": np.array([index], dtype=np.int64),
        "game_returns": returns.reshape(1, info.num_players),
    }


def seated(agents: Sequence[Agent], index: int) -> list[Agent]:
    """The agents of game ``index`` by seat (cyclic rotation, as ``cardboard play``)."""
    return [agents[k] for k in seat_order(index, len(agents))]


def play_many(game: Game, agent_sets: Sequence[Sequence[Agent]], indices: Iterable[int], seed: int,
              overlap: bool | None = None, fast_sets: Sequence[Sequence[Agent]] | None = None,
              full_fraction: float = 1.0) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """Play games ``indices``, ``len(agent_sets)`` at a time in lock-step (``run_together``: their searches'
    network requests share forward passes), each game with a set of agents no other running game uses (a search
    keeps per-game state); yields ``(index, records)`` as games end. A game's moves do not depend on the
    others, except through the network's floating-point rounding, which can differ in the last bit between
    batch sizes (torch on CPU). ``overlap``: ``run_together``'s (None: the network overlaps the searches when it
    runs on a GPU). ``fast_sets``: the fast agents beside each set (playout-cap randomisation, ``recorded_steps``)."""
    free = list(zip(agent_sets, fast_sets or [None] * len(agent_sets)))

    def job(index: int) -> Steps[tuple[int, dict[str, np.ndarray]]]:
        agents, fast = pair = free.pop()
        try:
            return index, (yield from recorded_steps(game, seated(agents, index), index, seed,
                                                     None if fast is None else seated(fast, index), full_fraction))
        finally:
            free.append(pair)

    yield from run_together((job(i) for i in indices), len(agent_sets), overlap)


def replay_game(game: Game, seed: int, records: dict[str, np.ndarray], index: int) -> Iterator[tuple[GameState, int]]:
    """Game ``index`` of a run played again from its records: each decision's state (before it; do not change it)
    and the action played. Chance is drawn from the game's stream 0 (``game_streams(seed, index, N)``) as the run
    drew it, so every decision must have been recorded (all seats searching agents); a record that does not fit
    (another seat or turn, an illegal action, too few or too many records) raises ``DataError``."""
    rows = np.flatnonzero(records["game"] == index)
    rng = game_streams(seed, index, game.info.num_players)[0]
    state = game.new_state(rng)
    done = 0
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        if done == len(rows):
            raise DataError(f"game {index}: a decision without a record (replay needs every seat recorded)")
        row = rows[done]
        seat, turn, action = int(records["seat"][row]), int(records["turn"][row]), int(records["action"][row])
        if (seat, turn) != (state.current_player, state.turn) or not state.action_mask()[action]:
            raise DataError(f"game {index}, record {done}: seat {seat} turn {turn} action {action} does not fit the "
                            f"replayed state (seat {state.current_player}, turn {state.turn}); another game version?")
        yield state, action
        state.apply(action)
        done += 1
    if done != len(rows):
        raise DataError(f"game {index}: {len(rows) - done} records after the replayed game's end")


# -- files ---------------------------------------------------------------------------------------------------
def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Records of several games (or shards) as one set of arrays."""
    return {name: np.concatenate([p[name] for p in parts]) for name in RECORD_FIELDS + GAME_FIELDS}


def write_shard(folder: Path, data: dict[str, np.ndarray]) -> Path:
    """Write one shard of whole games atomically; its name comes from its lowest game index."""
    path = folder / f"shard-{int(data['games'].min()):06d}.npz"
    write_atomically(path, lambda f: np.savez_compressed(f, **data))
    return path


def read_shard(path: Path, header: dict[str, Any]) -> dict[str, np.ndarray]:
    """A shard's arrays, checked against the run's header; ``DataError`` naming the file otherwise. A format 1
    run's shard gets the fields it lacks (``FORMAT_1_FILL``); one that is no regular file or is over
    ``SHARD_LIMIT`` is refused before it is opened."""
    with errors_as(DataError):
        check_file(path, SHARD_LIMIT, "self-play shard")
    try:
        with np.load(path, allow_pickle=False) as npz:
            lacking = set(FORMAT_1_FILL) - set(npz.files) if header["format"] == FORMAT_1 else set()
            data = {name: npz[name] for name in RECORD_FIELDS + GAME_FIELDS if name not in lacking}
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, pickle.UnpicklingError) as exc:
        raise DataError(f"{path}: truncated or corrupt self-play shard ({type(exc).__name__}: {exc}); delete it "
                        "and run selfplay again to replay its games") from None
    n, a, p = len(data["game"]), header["num_actions"], header["num_players"]
    data |= {name: np.full(n, FORMAT_1_FILL[name]) for name in lacking}
    shapes = {"obs": (n, *header["observation_shape"]), "mask": (n, a), "policy": (n, a), "returns": (n, p),
              "game_returns": (len(data["games"]), p)}
    bad = [f"{k} {data[k].shape} != {s}" for k, s in shapes.items() if data[k].shape != tuple(s)]
    bad += [f"{k} has {len(data[k])} rows, not {n}" for k in RECORD_FIELDS if len(data[k]) != n]
    if not set(np.unique(data["game"]).tolist()) <= set(data["games"].tolist()):
        bad.append("records of games it does not list")
    if bad:
        raise DataError(f"{path}: not a shard of this run ({'; '.join(bad)})")
    return data


def read_header(folder: str | os.PathLike) -> dict[str, Any]:
    """The run's ``header.json`` (``DataError`` naming it when missing, unreadable or of another format)."""
    path = Path(folder) / HEADER
    with errors_as(DataError):
        header = read_json(path, TEXT_LIMIT, "self-play header")
    if not isinstance(header, dict) or header.get("format") not in (FORMAT, FORMAT_1):
        raise DataError(f"{path}: format {quoted(header.get('format') if isinstance(header, dict) else None)}, "
                        f"expected {FORMAT!r} (or {FORMAT_1!r})")
    return HEADER_DEFAULTS | header


def shard_paths(folder: str | os.PathLike) -> list[Path]:
    return sorted(Path(folder).glob("shard-*.npz"))


def iter_shards(folder: str | os.PathLike, header: dict[str, Any] | None = None) -> Iterator[tuple[Path, dict]]:
    """Every shard of a run, checked: no game index twice, none outside the header's ``games``."""
    header = header or read_header(folder)
    seen: dict[int, Path] = {}
    for path in shard_paths(folder):
        data = read_shard(path, header)
        for g in data["games"].tolist():
            if g in seen:
                raise DataError(f"{path}: game {g} is also in {seen[g]}; delete one of the two shards")
            if not 0 <= g < header["games"]:
                raise DataError(f"{path}: game {g} is outside the run's {header['games']} games")
            seen[g] = path
        yield path, data


def load_data(folder: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(header, records)`` of a self-play run: every shard's arrays concatenated, sorted by game index."""
    header = read_header(folder)
    parts = [data for _, data in iter_shards(folder, header)]
    if not parts:
        raise DataError(f"{folder}: no self-play shards")
    data = concatenate(parts)
    order = np.argsort(data["game"], kind="stable")
    games = np.argsort(data["games"], kind="stable")
    return header, {k: (v[order] if k in RECORD_FIELDS else v[games]) for k, v in data.items()}


def load_runs(folders: Sequence[str | os.PathLike]) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """``(headers, records)`` of several self-play runs as one record set: each run's game indices offset by the
    games of the runs before it (``games`` of run ``j`` start at the sum of the earlier headers' ``games``)."""
    headers, parts, offset = [], [], 0
    for folder in folders:
        header, data = load_data(folder)
        headers.append(header)
        parts.append(data | {"game": data["game"] + offset, "games": data["games"] + offset})
        offset += int(header["games"])
    if not parts:
        raise DataError("no self-play folders given")
    return headers, concatenate(parts)


def done_games(folder: str | os.PathLike, header: dict[str, Any]) -> set[int]:
    return {g for _, data in iter_shards(folder, header) for g in data["games"].tolist()}


# -- a run ---------------------------------------------------------------------------------------------------
CHUNK_SETS = 4  # with --concurrent G > 1, a worker's task holds up to this many times G games


def _build(game_name: str, options: dict[str, Any], specs: Sequence[str], concurrent: int = 1,
           fast: Sequence[str] | None = None) -> tuple[Game, list[list[Agent]], list[list[Agent]] | None]:
    """The game, ``concurrent`` independent sets of its agents (one per seat) and as many sets of the ``fast``
    agents (None without)."""
    game = registry.make_game(game_name, **options)
    n = game.info.num_players

    def agent_sets(flag: str, specs: Sequence[str]) -> list[list[Agent]]:
        if len(specs) == 1:
            specs = list(specs) * n
        if len(specs) != n:
            raise InvalidParameterError(f"{flag}: game {game_name!r} has {n} seats: give one spec for all of them or "
                                        f"{n}; got {len(specs)}: {list(specs)}")
        return [[registry.make_agent(spec, game) for spec in specs] for _ in range(concurrent)]

    return game, agent_sets("--agents", specs), None if fast is None else agent_sets("--fast", fast)


def chunks(missing: Sequence[int], concurrent: int, workers: int) -> list[tuple[int, ...]]:
    """The missing game indices as tasks of ``backends.run_tasks``: one game each at ``concurrent`` 1, else
    ``concurrent`` to ``CHUNK_SETS * concurrent`` consecutive games, fewer where that gives every worker two tasks
    (a worker plays a task's games ``concurrent`` at a time: the more games, the longer its batches stay full)."""
    size = 1 if concurrent == 1 else max(concurrent, min(CHUNK_SETS * concurrent, len(missing) // (2 * workers)))
    return [tuple(missing[i:i + size]) for i in range(0, len(missing), size)]


def _setup(entries: bytes, game_name: str, options: dict[str, Any], specs: list[str], fast: list[str] | None,
           concurrent: int, seed: int, overlap: bool | None, full_fraction: float) -> tuple:
    """A worker's game and agent sets (the registry entries of its parent first: plugins registered at run time)."""
    registry.restore(pickle.loads(entries))
    return (*_build(game_name, options, specs, concurrent, fast), seed, overlap, full_fraction)


def _play(context: tuple, indices: Iterable[int]) -> list[tuple[int, dict[str, np.ndarray]]]:
    """A task: games ``indices`` played ``concurrent`` at a time (``play_many``), as ``(index, records)``."""
    game, agent_sets, fast_sets, seed, overlap, full_fraction = context
    return list(play_many(game, agent_sets, indices, seed, overlap, fast_sets, full_fraction))


@job_on_backend
def generate(game_name: str, specs: Sequence[str], games: int, seed: int, out: str | os.PathLike, *,
             options: dict[str, Any] | None = None, fast: Sequence[str] | None = None,
             full_fraction: float = FULL_FRACTION, workers: int = 1, shard_games: int = 1, concurrent: int = 1,
             torch_threads: int = 1, overlap: bool | None = None, backend: Backend | None = None,
             on_game: Callable[[int, dict[str, np.ndarray]], None] | None = None,
             on_start: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play the missing games of a self-play run in ``out`` and write their shards; returns the header.

    ``backend`` (``cardboard.jobs.backends``): where the games run, ``workers`` local processes by default; the
    records are the same on every backend (Ray workers get the files the specs and options name, checkpoints,
    through the object store: ``registry.files_named``). ``concurrent``: games each process plays at once in
    lock-step (``play_many``): in this process all the missing games, on a parallel backend each task's
    (``chunks``). Only this process writes shards, as games come back: a worker killed mid-task costs only that
    task's games, played again and never written twice. ``torch_threads``: torch's thread count in each worker
    that loads torch (this process's is left alone). ``overlap``: whether each process's network passes run beside
    its searches (``batching.run_together``; None: where the network runs on a GPU).

    ``fast``: the fast agents' specs of playout-cap randomisation (each recorded decision is full with probability
    ``full_fraction``, else the fast agent's; ignored without ``fast``).

    ``on_start(done, games)`` is called once the folder is checked; ``on_game(index, records)`` after every
    game played. On an exception (``KeyboardInterrupt`` too) the games in progress are dropped and every finished
    game is written."""
    for flag, value, least in (("games", games, 1), ("workers", workers, 1), ("shard_games", shard_games, 1),
                               ("seed", seed, 0), ("concurrent", concurrent, 1), ("torch_threads", torch_threads, 1)):
        if value < least:
            raise InvalidParameterError(f"{flag} must be at least {least}, got {value}")
    if fast is not None and not 0 < full_fraction <= 1:
        raise InvalidParameterError(f"full_fraction must be in (0, 1], got {full_fraction}")
    options = dict(options or {})
    specs, fast = list(specs), None if fast is None else list(fast)
    full_fraction = 1.0 if fast is None else float(full_fraction)
    backend = backend or Backend("local", workers)
    game, agent_sets, fast_sets = _build(game_name, options, specs, 1 if backend.parallel else concurrent,
                                         fast)  # fails before writing
    info = game.info
    folder = Path(out)
    header = json.loads(json.dumps({
        "format": FORMAT, "game": game_name, "options": options, "agents": specs, "fast": fast,
        "full_fraction": full_fraction, "seed": seed, "games": games, "rotation": "cyclic",
        "num_players": info.num_players, "num_actions": info.num_actions,
        "observation_shape": list(info.observation_shape)}))
    if (folder / HEADER).exists():
        old = read_header(folder)
        diff = [f"{k}: {old.get(k)!r} there, {header[k]!r} now" for k in MATCHED if old.get(k) != header[k]]
        if diff:
            raise DataError(f"{folder / HEADER}: another run's data ({'; '.join(diff)}); use another --out")
        header["games"] = max(games, int(old["games"]))
        header["format"] = old["format"]  # a format 1 run stays one (its shards lack the newer fields)
        done = done_games(folder, header)
        for stale in folder.glob(".*.tmp"):  # a write cut short by a kill: never a shard
            stale.unlink()
    else:
        done = set()
        folder.mkdir(parents=True, exist_ok=True)
    write_atomically(folder / HEADER, lambda f: f.write(json.dumps(header, indent=2) + "\n"), mode="w")
    missing = [i for i in range(games) if i not in done]
    if on_start is not None:
        on_start(len([i for i in range(games) if i in done]), games)
    buffer: list[dict[str, np.ndarray]] = []

    def finished(index: int, data: dict[str, np.ndarray]) -> None:
        buffer.append(data)
        if len(buffer) >= shard_games:
            write_shard(folder, concatenate(buffer))
            buffer.clear()
        if on_game is not None:
            on_game(index, data)

    def task_done(played: list[tuple[int, dict[str, np.ndarray]]]) -> None:
        for index, data in played:
            finished(index, data)

    try:
        if backend.elsewhere(len(missing)):
            entries = registry.pickled_entries(game_name, specs + (fast or []))
            run_tasks(backend, chunks(missing, concurrent, backend.workers), _play, task_done, setup=_setup,
                      setup_args=(entries, game_name, options, specs, fast, concurrent, seed, overlap, full_fraction),
                      torch_threads=torch_threads, files=registry.files_named(specs + (fast or []), options))
        else:
            for index, data in play_many(game, agent_sets, missing, seed, overlap, fast_sets, full_fraction):
                finished(index, data)
    finally:
        if buffer:  # finished games still buffered: written whole, even on the way out of an exception
            write_shard(folder, concatenate(buffer))
    return header


# -- command line --------------------------------------------------------------------------------------------
SUMMARY = "search agents play; each decision becomes a training record (resumable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``GAME --agents SPEC[,SPEC] [--fast SPEC --full-fraction P] --games N --seed S --out DIR [--workers W]
    [--backend ray [--address A]] [--shard-games K] [--option k=v]``."""
    parser.add_argument("game", help="a registered game (see 'cardboard games')")
    parser.add_argument("--agents", default=Args.agents,
                        help=f"one agent spec for every seat, or one per seat (default {Args.agents})")
    parser.add_argument("--fast", metavar="SPEC[,SPEC]",
                        help="playout-cap randomisation: the fast agent (one spec, or one per seat) that makes a "
                             "recorded seat's decision unless a draw picks the full agent")
    parser.add_argument("--full-fraction", type=float, metavar="P",
                        help=f"with --fast: the probability of a full decision (default {FULL_FRACTION})")
    parser.add_argument("--games", type=int, default=Args.games, help=f"games to play (default {Args.games})")
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--out", metavar="DIR", help="output folder (default runs/selfplay/GAME-seedS); resumed "
                                                     "when it holds a header")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (the data do not depend on it)")
    add_backend_arguments(parser)
    parser.add_argument("--shard-games", type=int, default=1, help="finished games per shard (default 1)")
    parser.add_argument("--concurrent", type=int, default=1,
                        help="games played at once in lock-step per process, their network calls batched (default 1)")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads in each worker process that runs a network (default 1)")
    parser.add_argument("--overlap", choices=OVERLAP, default="auto",
                        help="network passes beside the searches (double buffering): auto (on a GPU), on, off; "
                             "on pays on the CPU where each process has a core to spare")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (repeatable)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, console: Any) -> int:
    """``cardboard selfplay``: play and write the records; 0 on success. Ctrl-C leaves the saved games (counted in
    ``args.saved``: ``jobs.interrupts``) and goes on to the caller."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    specs = registry.split_agent_specs(args.agents)
    fast = None if args.fast is None else registry.split_agent_specs(args.fast)
    if fast is None and args.full_fraction is not None:
        raise InvalidParameterError("--full-fraction needs --fast (the agent of the other decisions)")
    out = args.out or f"runs/selfplay/{args.game}-seed{args.seed}"
    options = registry.parse_game_options(args.option)
    backend = backend_from(args)
    track(args, out, "games")
    records = 0
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=getattr(args, "quiet", False)) as progress:
        task = progress.add_task(f"self-play {args.game}", total=args.games, status="")

        def on_start(done: int, games: int) -> None:
            args.saved = done
            progress.update(task, completed=done, status=f"{done} resumed" if done else "")

        def on_game(index: int, data: dict[str, np.ndarray]) -> None:
            nonlocal records
            records += len(data["game"])
            args.saved += 1
            progress.update(task, advance=1, status=f"{records} records")

        generate(args.game, specs, args.games, args.seed, out, options=options, fast=fast,
                 full_fraction=FULL_FRACTION if args.full_fraction is None else args.full_fraction,
                 workers=args.workers, shard_games=args.shard_games, concurrent=args.concurrent,
                 torch_threads=args.torch_threads, overlap=OVERLAP[args.overlap], backend=backend, on_game=on_game,
                 on_start=on_start)
    console.print(f"{args.games} games in {out}/ ({records} new records)", highlight=False)
    return 0

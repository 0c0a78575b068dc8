"""The Fifth Aeon AI competition's three tournament formats (paper 004 §2.3; the Bot-Tool-Kit's configs, §1.8).

Every pair of agents plays, every game twice (each agent once in the first seat):

- **constructed**: each agent brings its deck list (default: the game's four starter decks, for every agent; the
  competition's bots brought their own); every deck of one against every deck of the other, ``games`` times
  (BTK: 10).
- **limited**: one pool of 100 cards drawn uniformly with replacement from the 137 collectible ones, shared by every
  agent; each builds a 40-card deck from its own copy of the pool with DefaultAI's builder (a distinct card of what
  is left, uniformly, until 40; no copy limit), then each pair plays ``games`` times (BTK: 100). With ``pools=P``
  repetition ``k`` uses pool ``k mod P`` (BTK: one pool for the whole tournament); more pools average out the luck
  of the builds, which one pool leaves in every game of a pair (p004_fifth_aeon/RESULTS.md measures how much).
- **preconstructed**: every standard AI deck against every one (mirror match-ups included), the same decks for both
  agents, ``games`` times a pairing (BTK: 10 = 2,000 games an agent pair).

A format's win rate of an agent is its wins (a draw counts half) over its games, with a Wilson interval; the
competition ranked by the unweighted mean over the formats (§2.3). Game ``i`` of the schedule draws the deal from
``SeedSequence([seed, i])`` and each seat's agent from its own stream, so results do not depend on ``workers`` or
on the backend (``cardboard.jobs.backends``: local processes or a Ray cluster). Each finished game is a line of
``games.jsonl`` in ``out``, written by this process only: a killed run resumes where it stopped. ``results.json``
holds the table, ``results.png`` the per-format win rates with their intervals.

    cardboard fifth-aeon-tournament --agents default_ai,berserker --formats all --workers 2 --out runs/fa-tournament
    cardboard fifth-aeon-tournament --agents default_ai,berserker --backend ray --address auto --workers 64
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.envs.errors import InvalidParameterError, UnknownNameError
from cardboard.envs.files import InputFileError, read_json
from cardboard.envs.fifth_aeon.cards import STANDARD_DECKS, Deck, bundled_pool, load_deck, validate
from cardboard.envs.fifth_aeon.constants import (
    CONSTRUCTED_GAMES,
    DECK_MIN,
    LIMITED_GAMES,
    LIMITED_POOL,
    PRECONSTRUCTED_GAMES,
)
from cardboard.envs.fifth_aeon.state import FifthAeonGame
from cardboard.evaluation.tournament import unique_names
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.interrupts import track
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.jobs.resumable import claim_folder, read_lines

FORMATS = ("constructed", "limited", "preconstructed")
STARTER_DECKS = ("March of Undeath", "The King's Legions", "Ancient Giants", "Skies and Seas")
DEFAULT_GAMES = {"constructed": CONSTRUCTED_GAMES, "limited": LIMITED_GAMES, "preconstructed": PRECONSTRUCTED_GAMES}


@dataclass(frozen=True)
class Job:
    """One game of the schedule: agents ``first`` and ``second`` (indices) with their decks (card ids)."""

    index: int
    fmt: str
    first: int
    second: int
    decks: tuple[tuple[str, ...], tuple[str, ...]]
    names: tuple[str, str]


def limited_decks(n_agents: int, seed: int, pool_size: int = LIMITED_POOL, pool: int = 0) -> list[Deck]:
    """The limited format's decks from pool number ``pool``: one shared pool, each agent's builder drawing from its
    own copy of it."""
    collectible = [c.id for c in bundled_pool().collectible]
    extra = [] if pool == 0 else [pool]  # pool 0 keeps the one-pool tournament's seeds
    rng = np.random.default_rng([seed, 1, *extra])
    cards_in_pool = [collectible[i] for i in rng.integers(len(collectible), size=pool_size)]
    decks = []
    for a in range(n_agents):
        left, cards = list(cards_in_pool), []
        builder = np.random.default_rng([seed, 2, a, *extra])
        while len(cards) < DECK_MIN:
            if not left:
                raise InvalidParameterError(f"a limited pool of {pool_size} cards cannot make a {DECK_MIN}-card deck")
            distinct = sorted(set(left))
            pick = distinct[int(builder.integers(len(distinct)))]
            left.remove(pick)
            cards.append(pick)
        deck = Deck(f"limited-{a}", tuple(cards))
        validate(deck, "limited deck", max_copies=None)
        decks.append(deck)
    return decks


def schedule(specs: Sequence[str], formats: Sequence[str], games: dict[str, int], seed: int,
             deck_lists: Sequence[Sequence[str]] | None = None, pools: int = 1) -> list[Job]:
    """Every game of the tournament, in a fixed order (see the module docstring)."""
    names = unique_names(specs)
    n = len(specs)
    if n < 2:
        raise InvalidParameterError(f"a tournament needs at least two agents, got {list(specs)}")
    if pools < 1:
        raise InvalidParameterError(f"limited pools must be >= 1, got {pools}")
    for f in formats:
        if f not in FORMATS:
            raise UnknownNameError("format", f, FORMATS)
        if games.get(f, 0) < 1:
            raise InvalidParameterError(f"{f}: games must be >= 1, got {games.get(f)}")
    lists = [list(STARTER_DECKS)] * n if deck_lists is None else [list(d) for d in deck_lists]
    if len(lists) != n:
        raise InvalidParameterError(f"one deck list per agent: {n} agents, {len(lists)} deck lists")
    pool = bundled_pool()
    constructed = [[load_deck(d, pool) for d in ds] for ds in lists]
    precon = [load_deck(d, pool) for d in STANDARD_DECKS]
    jobs: list[Job] = []

    def add(fmt: str, a: int, b: int, da: Deck, db: Deck) -> None:
        for first, second, d1, d2 in ((a, b, da, db), (b, a, db, da)):
            jobs.append(Job(len(jobs), fmt, first, second, (d1.cards, d2.cards), (names[first], names[second])))

    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    for fmt in formats:
        for a, b in pairs:
            for k in range(games[fmt]):
                if fmt == "constructed":
                    for da in constructed[a]:
                        for db in constructed[b]:
                            add(fmt, a, b, da, db)
                elif fmt == "limited":
                    decks = limited_decks(n, seed, pool=k % pools)
                    add(fmt, a, b, decks[a], decks[b])
                else:
                    for da in precon:
                        for db in precon:
                            add(fmt, a, b, da, db)
    return jobs


# ---- playing -----------------------------------------------------------------------------------------------
def _setup(entries: bytes, specs: tuple[str, ...], options: dict[str, Any], seed: int) -> tuple:
    """A worker's agents (the registry entries of its parent first: plugins registered at run time)."""
    from cardboard import registry

    registry.restore(pickle.loads(entries))
    return [registry.make_agent(s, FifthAeonGame(**options)) for s in specs], options, seed


def play_job(context: tuple, job: Job) -> dict[str, Any]:
    """Play one scheduled game with a worker's ``(agents, game options, seed)``; the record names the winner by
    agent index (-1: a draw)."""
    agents, options, seed = context
    game = FifthAeonGame(tuple(Deck(f"deck{k}", job.decks[k]) for k in range(2)), **options)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, job.index]).spawn(3)]
    state = game.new_state(streams[0])
    seats = (agents[job.first], agents[job.second])
    for agent in seats:
        agent.reset()
    seconds = [0.0, 0.0]
    while not state.is_terminal():
        p = state.current_player
        start = time.perf_counter()
        action = seats[p].act(state, streams[1 + p])
        seconds[p] += time.perf_counter() - start
        state.apply(action)
    w = state.winner()
    return {"index": job.index, "fmt": job.fmt, "first": job.first, "second": job.second,
            "winner": -1 if w is None else (job.first, job.second)[w], "turns": state.turn, "seconds": seconds}


def run_tournament(specs: Sequence[str], formats: Sequence[str], games: dict[str, int], out: Path, seed: int = 0,
                   workers: int = 1, deck_lists: Sequence[Sequence[str]] | None = None,
                   game_options: dict[str, Any] | None = None, quiet: bool = False, pools: int = 1, *,
                   backend: Backend | None = None, on_saved: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play (or resume) the tournament into ``out`` on ``backend`` (default: ``workers`` local processes); return
    the results (also in ``results.json``). ``on_saved(n)``: ``n`` more games are in ``games.jsonl`` (first those
    already there)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from cardboard import registry

    options = dict(game_options or {})
    jobs = schedule(specs, formats, games, seed, deck_lists, pools)
    for s in specs:  # bad specs fail here, before any game
        registry.make_agent(s, FifthAeonGame(**options))
    config = {"specs": list(specs), "formats": list(formats), "games": {f: games[f] for f in formats}, "seed": seed,
              "deck_lists": None if deck_lists is None else [list(d) for d in deck_lists], "options": options}
    if pools != 1:
        config["pools"] = pools
    claim_folder(out, config, "tournament")
    path = out / "games.jsonl"
    done = read_lines(path, lambda r: r["index"])
    todo = [j for j in jobs if j.index not in done]
    backend = backend or Backend("local", workers)
    entries = registry.pickled_entries("fifth_aeon", specs) if backend.parallel else pickle.dumps([])
    saved = on_saved or (lambda n: None)
    saved(len(done))
    columns = (TextColumn("fifth_aeon tournament"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, disable=quiet) as progress, path.open("a") as sink:
        task = progress.add_task("games", total=len(jobs), completed=len(done))

        def finish(record: dict[str, Any]) -> None:
            done[record["index"]] = record
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            os.fsync(sink.fileno())
            saved(1)
            progress.advance(task)

        run_tasks(backend, todo, play_job, finish, setup=_setup, setup_args=(entries, tuple(specs), options, seed),
                  files=registry.files_named(specs, options))
    results = summarize(unique_names(specs), formats, [done[j.index] for j in jobs])
    results["config"] = config
    (out / "results.json").write_text(json.dumps(results, indent=1))
    plot(results, out / "results.png")
    return results


def summarize(names: Sequence[str], formats: Sequence[str], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per format and agent: games, win rate (a draw half) and its Wilson interval; the pairwise win rates; the
    mean over formats."""
    n = len(names)
    table: dict[str, Any] = {"agents": list(names), "formats": {}, "mean": {}}
    for fmt in formats:
        wins = np.zeros((n, n))
        games = np.zeros((n, n))
        for r in (r for r in records if r["fmt"] == fmt):
            a, b = r["first"], r["second"]
            games[a, b] += 1
            games[b, a] += 1
            w = r["winner"]
            if w < 0:
                wins[a, b] += 0.5
                wins[b, a] += 0.5
            else:
                wins[w, b if w == a else a] += 1
        rows = {}
        for i, name in enumerate(names):
            g = int(games[i].sum())
            lo, hi = wilson_interval(wins[i].sum(), g)
            rows[name] = {"games": g, "win_rate": wins[i].sum() / g if g else 0.0, "ci": [lo, hi],
                          "vs": {names[j]: wins[i, j] / games[i, j] for j in range(n) if games[i, j]}}
        table["formats"][fmt] = rows
    for name in names:
        table["mean"][name] = float(np.mean([table["formats"][f][name]["win_rate"] for f in formats]))
    return table


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names, formats = results["agents"], list(results["formats"])
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        rates = [results["formats"][f][name]["win_rate"] for f in formats]
        cis = [results["formats"][f][name]["ci"] for f in formats]
        err = error_bars(rates, [lo for lo, _ in cis], [hi for _, hi in cis])
        ax.bar(np.arange(len(formats)) + k * width, rates, width, yerr=err, capsize=3, label=name[:40])
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.set_xticks(np.arange(len(formats)) + width * (len(names) - 1) / 2, formats)
    ax.set_ylabel("win rate (95% CI)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


SUMMARY = "paper 004's competition formats: constructed, limited, preconstructed"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", required=True, help="comma-separated agent specs (at least two)")
    p.add_argument("--formats", default="all", help=f"comma list of {', '.join(FORMATS)}, or all")
    for fmt in FORMATS:
        p.add_argument(f"--{fmt}-games", type=int, default=DEFAULT_GAMES[fmt],
                       help=f"{fmt}: games per pairing and seat order (BTK: {DEFAULT_GAMES[fmt]})")
    p.add_argument("--deck-lists", default="", help="constructed: a JSON file, a list of deck lists (names or "
                   "files), one per agent (default: the four starter decks for every agent)")
    p.add_argument("--limited-pools", type=int, default=1, help="limited: pools cycled over the repetitions (BTK: 1)")
    p.add_argument("--option", action="append", default=[], help="game option key=value (e.g. rollout=default_ai)")
    p.add_argument("--out", default="runs/fifth-aeon-tournament")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors (results do not depend "
                   "on it)")
    add_backend_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def read_deck_lists(path: str) -> list[list[str | dict]]:
    """The ``--deck-lists`` file: one list of decks (built-in names, deck files or deck objects) per agent."""
    lists = read_json(path, what="deck-list file")
    if not (isinstance(lists, list) and all(isinstance(decks, list) and all(isinstance(d, (str, dict)) for d in decks)
                                            for decks in lists)):
        raise InputFileError(path, "not a list of deck lists (one list of deck names, files or objects per agent)")
    return lists


def run(args: argparse.Namespace, console: Any) -> int:
    from cardboard.registry import parse_game_options, split_agent_specs

    saved = track(args, args.out, "games")

    specs = split_agent_specs(args.agents)
    formats = list(FORMATS) if args.formats == "all" else [f.strip() for f in args.formats.split(",") if f.strip()]
    games = {f: getattr(args, f"{f}_games") for f in FORMATS}
    lists = read_deck_lists(args.deck_lists) if args.deck_lists else None
    options = parse_game_options(args.option)
    results = run_tournament(specs, formats, games, Path(args.out), args.seed, deck_lists=lists, game_options=options,
                             quiet=args.quiet, pools=args.limited_pools, backend=backend_from(args), on_saved=saved)
    from rich.table import Table

    table = Table("agent", *formats, "mean")
    for name in results["agents"]:
        cells = []
        for f in formats:
            r = results["formats"][f][name]
            cells.append(f"{r['win_rate']:.1%} ({r['ci'][0]:.0%}-{r['ci'][1]:.0%}, n={r['games']})")
        table.add_row(name, *cells, f"{results['mean'][name]:.1%}")
    console.print(table)
    console.print(f"games.jsonl, results.json and results.png in {args.out}")
    return 0



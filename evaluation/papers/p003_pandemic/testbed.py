"""The paper's testbed (003 §3.1): random set-ups, the default policy's record on each, k-medoids.

1. Deal ``setups`` random games (4 players, the paper's roles, 4 epidemics: both deck orders fixed by
   the deal) and play each ``games`` times with the default policy (compiled: ``play_default``).
2. Keep the ``keep`` set-ups with the highest default-policy win ratio.
3. Cluster them by k-medoids on (win ratio, mean length / 23 turns) and write the ``k`` medoids as
   set-up files ``S01.json`` .. (highest win ratio first), with ``testbed.json`` (every kept set-up's
   record, the medoids') and ``testbed.png`` (the scatter, medoids marked).

The paper's size is ``--setups 10000 --games 100 --keep 1000 --k 10`` (10^6 games). Progress is saved
after every chunk to ``setups.jsonl`` in the output folder (by this process only): a killed run resumes where it
stopped, nothing lost or counted twice, and the result does not depend on ``--workers`` or ``--backend``
(``cardboard.jobs.backends``: local processes or a Ray cluster).

    cardboard pandemic-testbed --out runs/pandemic-testbed [--setups 10000 --games 100 --workers 2]
    cardboard pandemic-testbed --out runs/pandemic-testbed --backend ray --address auto --workers 64
"""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.kernels import seed_stream
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.interrupts import track
from cardboard.jobs.resumable import claim_folder, read_lines
from cardboard.envs.pandemic import layout as L
from cardboard.envs.pandemic.default_policy import play_default
from cardboard.envs.pandemic.macro import NUM_MACROS
from cardboard.envs.pandemic.setup_file import write_setup
from cardboard.envs.pandemic.state import PandemicGame

MAX_GAME_TURNS = 23  # 003 §1.6: the longest game (44 player cards, 2 drawn a turn); lengths are normalised by it
CHUNK = 25  # set-ups a worker plays before the results are saved


def setup_state(seed: int, index: int):
    """Set-up ``index`` of a testbed run with ``seed``: a 4-player easy deal with the paper's roles."""
    return PandemicGame(players=4, epidemics=4).new_state(np.random.default_rng([seed, index]))


def play_setup(seed: int, index: int, games: int) -> dict[str, Any]:
    """The default policy's record on set-up ``index``: wins, mean length in turns, loss causes."""
    start = setup_state(seed, index)
    buf = np.empty(NUM_MACROS, dtype=np.int32)
    wins, turns = 0, 0
    causes = dict.fromkeys(L.LOSS_NAMES[1:], 0)
    for g in range(games):
        state = start.clone()
        stream = seed_stream(np.random.default_rng([seed, index, g]))
        play_default(state.s, state.cards, buf, stream, L.MAX_TURNS + 1)
        wins += state.won()
        turns += state.turn + 1
        if not state.won():
            causes[state.loss_cause()] += 1
    return {"index": index, "games": games, "wins": wins, "win_ratio": wins / games,
            "mean_turns": turns / games, "losses": causes}


def _settings(seed: int, games: int) -> tuple[int, int]:
    return seed, games


def _play_chunk(settings: tuple[int, int], indices: list[int]) -> list[dict[str, Any]]:
    seed, games = settings
    return [play_setup(seed, i, games) for i in indices]


def k_medoids(points: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 100) -> np.ndarray:
    """Indices of ``k`` medoids of ``points`` (Euclidean) by PAM (Kaufman & Rousseeuw 1990): k-medoids++ seeding,
    then the swap phase: while some exchange of a medoid with a non-medoid lowers the total distance of the
    points to their nearest medoid, make the best one."""
    if not 1 <= k <= len(points):
        raise InvalidParameterError(f"k-medoids needs 1 <= k <= {len(points)} points, got k={k}")
    dist = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    medoids = [int(rng.integers(len(points)))]
    while len(medoids) < k:
        d2 = dist[:, medoids].min(axis=1) ** 2
        medoids.append(int(rng.choice(len(points), p=d2 / d2.sum())) if d2.sum() > 0 else
                       int(np.setdiff1d(np.arange(len(points)), medoids)[0]))
    medoids = np.array(medoids)
    cost = dist[:, medoids].min(axis=1).sum()
    for _ in range(iterations):
        best = (cost, -1, -1)
        for i in range(k):
            others = np.delete(medoids, i)
            rest = dist[:, others].min(axis=1) if len(others) else np.full(len(points), np.inf)
            costs = np.minimum(rest[:, None], dist).sum(axis=0)  # the cost with medoid i swapped for each point
            h = int(costs.argmin())
            if costs[h] < best[0] - 1e-12:
                best = (float(costs[h]), i, h)
        if best[1] < 0:
            break
        cost, medoids[best[1]] = best[0], best[2]
    return medoids


def build_testbed(out: Path, setups: int, games: int, keep: int, k: int, seed: int, workers: int = 1,
                  quiet: bool = False, *, backend: Backend | None = None,
                  on_saved: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Run the whole procedure into ``out`` (resumable) on ``backend`` (default: ``workers`` local processes);
    return the medoids' records, best first. ``on_saved(n)``: ``n`` more set-ups are in ``setups.jsonl`` (first
    those already there)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    if not 1 <= k <= keep <= setups:
        raise InvalidParameterError(f"need 1 <= k <= keep <= setups, got k={k}, keep={keep}, setups={setups}")
    config = {"setups": setups, "games": games, "seed": seed}
    claim_folder(out, config, "testbed run")
    records_path = out / "setups.jsonl"
    done = read_lines(records_path, lambda r: r["index"])  # a line cut by a kill is dropped, its set-up replayed
    todo = [i for i in range(setups) if i not in done]
    chunks = [todo[a:a + CHUNK] for a in range(0, len(todo), CHUNK)]
    columns = (TextColumn("testbed"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    saved = on_saved or (lambda n: None)
    saved(len(done))
    with Progress(*columns, disable=quiet) as progress, records_path.open("a") as sink:
        task = progress.add_task("setups", total=setups, completed=len(done))

        def finish(result: list[dict[str, Any]]) -> None:
            for record in result:
                sink.write(json.dumps(record) + "\n")
                done[record["index"]] = record
            sink.flush()
            os.fsync(sink.fileno())
            saved(len(result))
            progress.advance(task, len(result))

        run_tasks(backend or Backend("local", workers), chunks, _play_chunk, finish, setup=_settings,
                  setup_args=(seed, games))
    ranked = sorted(done.values(), key=lambda r: (-r["win_ratio"], r["index"]))[:keep]
    points = np.array([[r["win_ratio"], r["mean_turns"] / MAX_GAME_TURNS] for r in ranked])
    medoids = sorted((ranked[i] for i in k_medoids(points, k, np.random.default_rng(seed))),
                     key=lambda r: (-r["win_ratio"], r["index"]))
    for n, record in enumerate(medoids, start=1):
        record["name"] = f"S{n:02d}"
        write_setup(setup_state(seed, record["index"]), out / f"{record['name']}.json")
    summary = {"config": config, "keep": keep, "k": k, "medoids": medoids, "kept": ranked,
               "kept_mean_win_ratio": float(points[:, 0].mean()),
               "medoid_mean_win_ratio": float(np.mean([r["win_ratio"] for r in medoids])),
               "medoid_mean_turns": float(np.mean([r["mean_turns"] for r in medoids]))}
    (out / "testbed.json").write_text(json.dumps(summary, indent=1))
    _plot(points, [ranked.index(r) for r in medoids], out / "testbed.png")
    return medoids


def _plot(points: np.ndarray, medoids: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(points[:, 0], points[:, 1] * MAX_GAME_TURNS, s=6, alpha=0.4, label="kept set-ups")
    ax.scatter(points[medoids, 0], points[medoids, 1] * MAX_GAME_TURNS, s=40, c="red", label="medoids")
    ax.set_xlabel("default policy win ratio")
    ax.set_ylabel("mean game length (turns)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


SUMMARY = "paper 003's testbed: random Pandemic set-ups, the default policy, k-medoids"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="runs/pandemic-testbed", help="output folder (resumed when it exists)")
    p.add_argument("--setups", type=int, default=10_000, help="random set-ups (paper: 10^4)")
    p.add_argument("--games", type=int, default=100, help="default-policy games per set-up (paper: 100)")
    p.add_argument("--keep", type=int, default=1000, help="set-ups kept by win ratio (paper: 10^3)")
    p.add_argument("--k", type=int, default=10, help="medoids written as set-up files (paper: 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors (the result does not "
                   "depend on it)")
    add_backend_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, console: Any) -> int:
    saved = track(args, args.out, "set-ups")

    medoids = build_testbed(Path(args.out), args.setups, args.games, args.keep, args.k, args.seed, quiet=args.quiet,
                            backend=backend_from(args), on_saved=saved)
    from rich.table import Table

    table = Table("set-up", "deal", "DP win ratio", "mean turns", "losses (outbreaks / cubes / deck)")
    for r in medoids:
        losses = r["losses"]
        table.add_row(r["name"], str(r["index"]), f"{r['win_ratio']:.1%}", f"{r['mean_turns']:.1f}",
                      f"{losses['outbreaks']} / {losses['cubes']} / {losses['player_deck']}")
    console.print(table)
    console.print(f"set-up files, testbed.json and testbed.png in {args.out}")
    return 0


if __name__ == "__main__":
    from cardboard.jobs.script import run_script

    raise SystemExit(run_script("python -m cardboard.evaluation.papers.p003_pandemic.testbed", __doc__,
                                add_arguments, run))

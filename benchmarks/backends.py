"""Where long jobs run (``cardboard.jobs.backends``): games per second at 1 and 2 workers on the local backend and
on Ray, and what a Ray task costs beyond its work.

- **Games/s**: a round robin of three ISMCTS-1000 agents on Lords of War (``ismcts:iterations=1000`` with ``c``
  0.7, 1.0 and 0.5), ``--games`` games a pair, through ``round_robin`` (the code under ``cardboard tournament``),
  timed from the call to its return, pools or actors started inside the timing. Rows: local 1 (this
  process), local 2 (two worker processes), ray 1 and ray 2 (actors on a Ray instance started on this machine
  with 2 CPUs, before the timing: its start is reported apart). Ratios: 2 workers over 1 of the same backend.
- **Per-task overhead**: ``--tasks`` tasks that do nothing (``operator.add`` of two empty strings) through
  ``run_tasks`` on one Ray actor, and on a local pool of two processes (one local worker runs in this process):
  seconds a task beyond a run of one task (the pool's or actors' start is paid by both), what every game pays on
  top of its play. The start itself is in the games/s rows.

The records are checked identical on every row (apart from their timings).

Ratios: the best round of each row, and the median over rounds of each round's own ratio.

Usage: ``.venv/bin/python benchmarks/backends.py [--games 8] [--rounds 3] [--tasks 1000] [--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import operator
import os
import statistics
import time
from pathlib import Path

from cardboard.evaluation.match import play_match_specs
from cardboard.evaluation.tournament import round_robin
from cardboard.jobs.backends import Backend, run_tasks

SPECS = ["ismcts:iterations=1000", "ismcts:iterations=1000,c=1.0", "ismcts:iterations=1000,c=0.5"]
PAIRS = 3


def games_per_second(backend: Backend, games: int, seed: int) -> tuple[float, list]:
    start = time.perf_counter()
    result = round_robin("lords_of_war", SPECS, games, seed, workers=backend.workers, backend=backend)
    elapsed = time.perf_counter() - start
    return PAIRS * games / elapsed, [result.points.tolist(), result.played.tolist(), result.mean_returns.tolist()]


def task_overhead(backend: Backend, tasks: int) -> float:
    """Seconds a no-op task adds: (``tasks`` of them - one of them) / (``tasks`` - 1), the start paid by both."""
    def elapsed(n: int) -> float:
        start = time.perf_counter()
        run_tasks(backend, [""] * n, operator.add, lambda result: None, setup=str, setup_args=("",))
        return time.perf_counter() - start

    return (elapsed(tasks) - elapsed(1)) / (tasks - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games a pair")
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the four rows, taking turns")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import ray

    play_match_specs("lords_of_war", SPECS[:2], 1, args.seed)  # kernels compiled and cached before any timing
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray_start = time.perf_counter() - start
    rows: dict[str, list[float]] = {}
    records = {}
    for _ in range(args.rounds):  # the rows take turns, so a slow spell of the machine hits each alike
        for name, workers in (("local", 1), ("local", 2), ("ray", 1), ("ray", 2)):
            rate, records[(name, workers)] = games_per_second(Backend(name, workers), args.games, args.seed)
            rows.setdefault(f"{name} {workers}", []).append(rate)
            print(f"{name:5s} {workers} worker(s): {rate:.3f} games/s", flush=True)
    assert all(r == records[("local", 1)] for r in records.values()), "records differ between backends"
    overhead = {name: task_overhead(Backend(name, 1) if name == "ray" else Backend("local", 2), args.tasks)
                for name in ("local", "ray")}
    print(f"ray started in {ray_start:.1f} s; records identical on every row")
    for name in ("local", "ray"):
        best = max(rows[f"{name} 2"]) / max(rows[f"{name} 1"])
        paired = statistics.median(b / a for a, b in zip(rows[f"{name} 1"], rows[f"{name} 2"]))
        print(f"{name}: 2 workers / 1 = {best:.2f}x best, {paired:.2f}x median of the rounds; "
              f"a no-op task: {1e3 * overhead[name]:.2f} ms")
    if args.json:
        args.json.write_text(json.dumps({"games_per_second": rows, "task_seconds": overhead,
                                         "ray_start_seconds": ray_start, "games": args.games,
                                         "cpus": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()

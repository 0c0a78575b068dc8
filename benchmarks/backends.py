"""Where long jobs run (``cardboard.jobs.backends``): games per second at 1 and 2 workers on the local backend and
on Ray, and what a Ray task costs beyond its work.

- **Games/s**: a match of ``--games`` Lords of War games between two ISMCTS-1000 agents (``ismcts:iterations=1000``
  and ``ismcts:iterations=1000,c=1.0``) through ``play_match_specs`` (the code under ``cardboard play`` and
  ``tournament``), timed from the call to its return, pool or actors started inside the timing. Rows: local 1 (this
  process), local 2 (two worker processes), ray 1 and ray 2 (actors on a Ray instance started on this machine
  with 2 CPUs, before the timing: its start is reported apart). Ratios: 2 workers over 1 of the same backend.
- **Per-task overhead**: ``--tasks`` tasks that do nothing (``operator.add`` of two empty strings) through
  ``run_tasks`` on one Ray actor, and on a local pool of two processes (one local worker runs in this process):
  seconds a task, start included, which is what every game pays on top of its play.

The records are checked identical on every row (apart from their timings).

Usage: ``.venv/bin/python benchmarks/backends.py [--games 16] [--tasks 300] [--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import operator
import os
import time
from pathlib import Path

from cardboard.evaluation.match import play_match_specs
from cardboard.jobs.backends import Backend, run_tasks

SPECS = ["ismcts:iterations=1000", "ismcts:iterations=1000,c=1.0"]


def games_per_second(backend: Backend, games: int, seed: int) -> tuple[float, list]:
    start = time.perf_counter()
    records = play_match_specs("lords_of_war", SPECS, games, seed, workers=backend.workers, backend=backend)
    elapsed = time.perf_counter() - start
    return games / elapsed, [(r.index, r.seats, r.returns, r.turns) for r in records]


def task_overhead(backend: Backend, tasks: int) -> float:
    start = time.perf_counter()
    run_tasks(backend, [""] * tasks, operator.add, lambda result: None, setup=str, setup_args=("",))
    return (time.perf_counter() - start) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import ray

    play_match_specs("lords_of_war", SPECS, 1, args.seed)  # kernels compiled and cached before any timing
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray_start = time.perf_counter() - start
    rows, records = {}, {}
    for name, workers in (("local", 1), ("local", 2), ("ray", 1), ("ray", 2)):
        rate, records[(name, workers)] = games_per_second(Backend(name, workers), args.games, args.seed)
        rows[f"{name} {workers}"] = rate
        print(f"{name:5s} {workers} worker(s): {rate:.3f} games/s", flush=True)
    assert all(r == records[("local", 1)] for r in records.values()), "records differ between backends"
    overhead = {name: task_overhead(Backend(name, 1) if name == "ray" else Backend("local", 2), args.tasks)
                for name in ("local", "ray")}
    print(f"ray started in {ray_start:.1f} s; records identical on every row")
    for name in ("local", "ray"):
        print(f"{name}: 2 workers / 1 = {rows[f'{name} 2'] / rows[f'{name} 1']:.2f}x; "
              f"a no-op task: {1e3 * overhead[name]:.2f} ms")
    if args.json:
        args.json.write_text(json.dumps({"games_per_second": rows, "task_seconds": overhead,
                                         "ray_start_seconds": ray_start, "games": args.games,
                                         "cpus": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()

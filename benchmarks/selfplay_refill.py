"""Network batch fill of lock-step self-play in one worker: fixed chunks vs refilling as games end (issue 32).

Before issue 32, ``cardboard selfplay --workers W --concurrent C`` handed each worker chunks of C games and the
worker played each chunk to its end, so the batches shrank to 1 in every chunk's tail. Now each worker keeps C
games in flight, taking the next game index as a game ends. This plays the same ``--games`` Lords of War games
(``ismcts:iterations=I,net=PATH`` in both seats, the untrained default network seeded 0, torch at 1 thread, CPU)
the way one worker does under each scheduling, in one process:

- ``chunks``: ``play_many`` over each chunk of C games in turn (the old worker);
- ``refill``: ``play_many`` over all the games, C in flight (the new worker).

Reported per scheduling: forward passes, states, mean states per pass (``BatchedEvaluator.passes`` /
``states``), wall seconds. The records are the same games either way.

Usage: ``.venv/bin/python benchmarks/selfplay_refill.py [--games 128] [--concurrent 32] [--iterations 8]
[--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch

from cardboard import registry
from cardboard.policies.network import PolicyValueNet
from cardboard.training.selfplay import play_many


def measure(schedule: str, games: int, concurrent: int, iterations: int, path: Path) -> dict:
    """Play games 0..games-1 under ``schedule`` (chunks or refill); the evaluator's batch counts and the time."""
    game = registry.make_game("lords_of_war")
    spec = f"ismcts:iterations={iterations},net={path}"
    sets = [[registry.make_agent(spec, game) for _ in range(2)] for _ in range(concurrent)]
    evaluator = sets[0][0].searcher.config.evaluator.queue
    evaluator.passes = evaluator.states = 0
    indices = list(range(games))
    chunks = [indices[k:k + concurrent] for k in range(0, games, concurrent)] if schedule == "chunks" else [indices]
    start = time.perf_counter()
    played = sum(1 for chunk in chunks for _ in play_many(game, sets, chunk, seed=0))
    wall = time.perf_counter() - start
    return {"schedule": schedule, "games": played, "concurrent": concurrent, "passes": evaluator.passes,
            "states": evaluator.states, "states_per_pass": evaluator.states / evaluator.passes, "wall_s": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=128)
    parser.add_argument("--concurrent", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "net.pt"
        torch.manual_seed(0)
        PolicyValueNet(registry.make_game("lords_of_war").info).save(path)
        measure("refill", 1, 1, args.iterations, path)  # warm-up: kernels compiled, network loaded
        for schedule in ("chunks", "refill"):
            rows.append(measure(schedule, args.games, args.concurrent, args.iterations, path))
            r = rows[-1]
            print(f"{schedule:7s} {r['games']} games, {args.concurrent} in flight: {r['passes']} passes, "
                  f"{r['states']} states, {r['states_per_pass']:.1f} states/pass, {r['wall_s']:.1f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""One inference server per machine (issue 35) against a network per worker: states/s and latency per request.

The network is the latest shipped Lords of War model (``zoo:lords_of_war``; BENCHMARKS.md measured
``lords_of_war-v1``, whose shape ``lords_of_war-v2`` keeps); the rows are the observations and masks of 256 Lords
of War states from random play. For each request size K (a search's leaves in flight; 1, 8, 32, 128):

- ``local``: ``--workers`` processes, each with its own ``BatchedEvaluator`` (CPU, ``--threads`` torch threads),
  each evaluating K rows per call for ``--seconds``;
- ``server``: as many Ray actors (one CPU each, no torch) sending K rows per call to one ``InferenceServer``
  (``device`` ``--device``, default cuda if available else cpu, ``--threads`` torch threads) configured to start a
  pass at ``workers * K`` rows or after ``--window`` seconds; ``fill``: its states per pass.

``states/s`` is all workers' states over the wall time; ``ms/request`` a worker's mean time per call. Then the
cost of the actor call itself: ``call``: a round trip to the server that does nothing (its ``stats``); ``overhead``:
one worker's request (window 0) minus the same K rows evaluated in-process (the server's own forward time).

Usage: ``python benchmarks/inference_server.py [--seconds 3] [--workers 2] [--threads 1] [--window 0.002]
[--device cpu] [--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import numpy as np

from cardboard import registry

MODEL = "zoo:lords_of_war"  # the latest shipped version
GAME = "lords_of_war"
SIZES = (1, 8, 32, 128)


def sample_rows(n: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``n`` Lords of War states of the players to act, from random play."""
    game = registry.make_game(GAME)
    rng = np.random.default_rng(0)
    observations, masks, state = [], [], game.new_state(0)
    while len(observations) < n:
        if state.is_terminal():
            state = game.new_state(len(observations))
            continue
        if state.current_player >= 0:
            observations.append(state.observation(state.current_player).copy())
            masks.append(state.action_mask().copy())
        state.apply(int(rng.choice(state.legal_actions())))
    return np.stack(observations).astype(np.float32), np.stack(masks)


def loop(evaluate, rows: tuple[np.ndarray, np.ndarray], k: int, seconds: float) -> tuple[int, float]:
    """Call ``evaluate`` on K rows at a time (cycling through ``rows``) for ``seconds``: (calls, elapsed)."""
    evaluate(rows[0][:k], rows[1][:k])  # warm
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        first = (calls * k) % (len(rows[0]) - k + 1)
        evaluate(rows[0][first:first + k], rows[1][first:first + k])
        calls += 1
    return calls, time.perf_counter() - start


def local_worker(k: int, seconds: float, threads: int, start: multiprocessing.Barrier) -> tuple[int, float]:
    """A worker process with its own network."""
    from cardboard.policies.evaluator import BatchedEvaluator
    from cardboard.policies.network import PolicyValueNet
    from cardboard.policies.zoo import resolve

    evaluator = BatchedEvaluator(PolicyValueNet.load(resolve(MODEL, GAME), registry.make_game(GAME).info),
                                 device="cpu", threads=threads)
    rows = sample_rows()
    start.wait()
    return loop(evaluator.evaluate, rows, k, seconds)


def run_local(k: int, workers: int, seconds: float, threads: int) -> dict:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier = manager.Barrier(workers)
        with context.Pool(workers) as pool:
            results = pool.starmap(local_worker, [(k, seconds, threads, barrier)] * workers)
    return summary("local", k, results)


class Client:
    """A Ray worker with no network: a ``RemoteEvaluator`` of its node's server."""

    def __init__(self) -> None:
        self.rows = sample_rows()

    def run(self, k: int, seconds: float) -> tuple[int, float]:
        from cardboard.policies.inference_server import connect

        return loop(connect(MODEL, registry.make_game(GAME).info).evaluate, self.rows, k, seconds)


def summary(kind: str, k: int, results: list[tuple[int, float]], **extra) -> dict:
    calls = sum(c for c, _ in results)
    wall = max(t for _, t in results)
    return dict(kind=kind, k=k, states_per_s=calls * k / wall,
                ms_per_request=1e3 * np.mean([t / c for c, t in results]), **extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--window", type=float, default=0.002)
    parser.add_argument("--device", default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import ray

    from cardboard.policies.evaluator import BatchedEvaluator
    from cardboard.policies.inference_server import node_server
    from cardboard.policies.network import PolicyValueNet
    from cardboard.policies.zoo import resolve

    rows_out = [run_local(k, args.workers, args.seconds, args.threads) for k in SIZES]

    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    server = node_server(device=args.device, threads=args.threads)
    clients = [ray.remote(num_cpus=1)(Client).remote() for _ in range(args.workers)]
    device = ray.get(server.stats.remote())["device"]
    for k in SIZES:
        ray.get([server.configure.remote(args.workers * k, args.window), server.reset_stats.remote()])
        results = ray.get([c.run.remote(k, args.seconds) for c in clients])
        stats = ray.get(server.stats.remote())
        rows_out.append(summary("server", k, results, fill=stats["states"] / stats["passes"], device=device))

    # the actor call's own cost, and a request's beyond the server's forward pass
    rows = sample_rows()
    calls = 200
    start = time.perf_counter()
    for _ in range(calls):
        ray.get(server.stats.remote())
    call_ms = 1e3 * (time.perf_counter() - start) / calls
    local = BatchedEvaluator(PolicyValueNet.load(resolve(MODEL, GAME), registry.make_game(GAME).info),
                             device=device, threads=args.threads)
    overheads = []
    for k in SIZES:
        ray.get(server.configure.remote(1, 0.0))
        one = ray.get(clients[0].run.remote(k, args.seconds / 2))
        forward = loop(local.evaluate, rows, k, args.seconds / 2)
        overheads.append(dict(k=k, request_ms=1e3 * one[1] / one[0], forward_ms=1e3 * forward[1] / forward[0]))
    ray.shutdown()

    print(f"{args.workers} workers, {args.threads} torch thread(s) per network, window {args.window * 1e3:g} ms, "
          f"server on {device}")
    print(f"{'K':>4} {'kind':>7} {'states/s':>9} {'ms/request':>11} {'fill':>6}")
    for row in rows_out:
        fill = f"{row['fill']:.1f}" if "fill" in row else ""
        print(f"{row['k']:>4} {row['kind']:>7} {row['states_per_s']:>9.0f} {row['ms_per_request']:>11.2f} {fill:>6}")
    print(f"actor call (a no-op round trip): {call_ms:.2f} ms")
    print(f"{'K':>4} {'request ms':>11} {'forward ms':>11} {'overhead ms':>12}")
    for row in overheads:
        print(f"{row['k']:>4} {row['request_ms']:>11.2f} {row['forward_ms']:>11.2f} "
              f"{row['request_ms'] - row['forward_ms']:>12.2f}")
    if args.json:
        args.json.write_text(json.dumps(dict(rows=rows_out, call_ms=call_ms, overheads=overheads), indent=1))


if __name__ == "__main__":
    main()

"""``BatchedEvaluator`` on CUDA vs the CPU (issue 32): states/s by batch size, and what double buffering hides.

The network is ``PolicyValueNet(lords_of_war info)`` at its default sizes (seeded 0); the inputs are random
observations of the game's shape and random masks (a legal action in every row): throughput does not depend on
the values. Per device (``cpu`` with ``--cpu-threads`` torch threads; ``cuda`` when torch has it) and batch size
B (1, 64, 256, 1024; ``max_batch`` = B):

- ``states/s``: one batch staged (``staging``), launched and waited for (``launch(B).wait()``), repeated for
  ``--seconds``; ``launch µs`` and ``wait µs``: the mean time of each call, i.e. what the caller's thread pays
  to start a batch and what it waits for its answers;
- ``overlap states/s``: two slots in turn, the next batch's staging copy written while the other slot's batch
  runs, ``--work-us`` µs of the caller's own busy work (standing in for tree work) per batch before each wait;
  ``hidden``: the share of that work the network's time covered, 1 - (overlapped time - network-only time) /
  (work time), clipped to [0, 1].

Writes a JSON list of rows to ``--json``. Usage: ``python benchmarks/gpu_evaluator.py [--seconds 1]
[--work-us 500] [--cpu-threads 1] [--json PATH]``
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from cardboard import registry
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.network import PolicyValueNet

BATCHES = (1, 64, 256, 1024)


def busy(microseconds: float) -> None:
    """Spin for ``microseconds`` holding the GIL, as tree work in Python would."""
    end = time.perf_counter() + microseconds * 1e-6
    while time.perf_counter() < end:
        pass


def measure(evaluator: BatchedEvaluator, batch: int, seconds: float, work_us: float, rng: np.random.Generator) -> dict:
    obs = rng.standard_normal((batch, *evaluator.observation_shape)).astype(np.float32)
    masks = rng.random((batch, evaluator.num_actions)) < 0.3
    masks[:, 0] = True
    for slot in (0, 1):
        staged_obs, staged_masks = evaluator.staging(slot)
        staged_obs[:batch], staged_masks[:batch] = obs, masks
        evaluator.launch(batch, slot).wait()  # warm-up
    launch = wait = 0.0
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        staged_obs, staged_masks = evaluator.staging(0)
        staged_obs[:batch], staged_masks[:batch] = obs, masks
        pending = evaluator.launch(batch, 0)
        t1 = time.perf_counter()
        pending.wait()
        t2 = time.perf_counter()
        launch, wait, n = launch + t1 - t0, wait + t2 - t1, n + 1
    plain = time.perf_counter() - start
    per_batch = plain / n
    # double buffering: stage and launch slot k % 2, do the caller's work, then wait for the previous batch
    rounds = max(4, n)
    start = time.perf_counter()
    previous = None
    for k in range(rounds):
        staged_obs, staged_masks = evaluator.staging(k % 2)
        staged_obs[:batch], staged_masks[:batch] = obs, masks
        pending = evaluator.launch(batch, k % 2)
        busy(work_us)
        if previous is not None:
            previous.wait()
        previous = pending
    previous.wait()
    overlapped = (time.perf_counter() - start) / rounds
    hidden = 1 - (overlapped - per_batch) / (work_us * 1e-6) if work_us else 0.0
    return {"device": str(evaluator.device), "batch": batch, "states_per_s": batch / per_batch,
            "launch_us": 1e6 * launch / n, "wait_us": 1e6 * wait / n,
            "overlap_states_per_s": batch / overlapped, "work_us": work_us,
            "hidden": float(np.clip(hidden, 0.0, 1.0)), "batches": n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--work-us", type=float, default=500.0)
    parser.add_argument("--cpu-threads", type=int, default=1)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    torch.set_num_threads(args.cpu_threads)
    info = registry.make_game("lords_of_war").info
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    if len(devices) == 1:
        print("torch.cuda.is_available() is False: CPU rows only")
    rows = []
    for device in devices:
        for batch in BATCHES:
            torch.manual_seed(0)
            evaluator = BatchedEvaluator(PolicyValueNet(info), device=device, max_batch=batch)
            row = measure(evaluator, batch, args.seconds, args.work_us, np.random.default_rng(0))
            rows.append(row)
            print(f"{row['device']:6s} B={batch:5d} {row['states_per_s']:12,.0f} states/s  launch "
                  f"{row['launch_us']:8.1f} µs  wait {row['wait_us']:8.1f} µs  overlapped "
                  f"{row['overlap_states_per_s']:12,.0f} states/s with {args.work_us:.0f} µs work, "
                  f"{row['hidden']:.0%} of it hidden", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

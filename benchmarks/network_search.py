"""Search with a network at the leaf: ISMCTS iterations/s on Lords of War, random rollouts vs network evaluation.

What is measured: iterations per second (and µs per iteration) of whole ISMCTS decisions, each a fresh
``TreeSearch(..., "ismcts")`` search of ``--iterations`` iterations from the FIXED mid-game position of
``benchmarks/search.py`` (``new_state("lords_of_war", seed=1)`` then 40 random moves drawn with
``default_rng(1)``), timed around the search call. The network is the default-size, untrained
``PolicyValueNet`` of Lords of War (weights seeded 0, ``untrained_evaluator``) on CPU, called through
``NetworkEvaluator`` (a batching evaluator: the search yields its leaves and ``batching.drive`` answers each
request with one ``BatchedEvaluator`` flush, a single forward pass). Rows:

- ``rollout``: today's default, UCB1 (c 0.7) and a random rollout to the end of the game per iteration;
- ``net``: the ``ismcts:net=...`` default, ``PUCT(1.25)`` prior + network value, ``depth=0`` (no rollout), one
  leaf per network call;
- ``net_leaves8``: ``net`` with ``SearchConfig.leaves=8`` (``ismcts:net=...,leaves=8``): iterations descend with
  virtual loss until 8 leaves wait, then one forward pass answers them all;
- ``net_value``: UCB1 with the network value only (``prior=0,value=1``), ``depth=0``;
- ``net_prior_rollout``: ``prior=1,value=0``: ``PUCT(1.25)`` with each new node's prior from the network
  (``SearchConfig.prior``) and a random rollout to the end of the game for the values (``depth`` None);
- ``call``: context, not a search: one ``NetworkEvaluator`` call on the position's state (observation, mask,
  evaluate, values mapped to [0, 1]), units are calls.

"net calls / iteration" counts the evaluator's requests (each one forward pass); "states / call" the states
per request (about 8 with ``leaves=8``; fewer at the end of a search, when fewer iterations are left).

Paper 001's 140 µs per network call (state) is printed as context. Rows are interleaved in ``--rounds``
rounds, each warmed up first; torch runs with ``--threads`` threads (default 1: a batch of one gains nothing
from more).

Usage: ``.venv/bin/python benchmarks/network_search.py [--seconds 3] [--rounds 3] [--iterations 1000] [--json PATH]``
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

import cardboard
from harness import machine, print_machine_and_notes, timed, timing_arguments
from search import LOW_MOVES, LOW_SEED, lords_of_war_position
from cardboard.policies.net_agent import NetworkEvaluator, untrained_evaluator
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.strategies import PUCT

PAPER_US_PER_CALL = 140.0  # paper 001: 140 µs per state


class Counting:
    """A batching evaluator wrapper (``submit`` / ``collect`` / ``queue`` passed through, so the search still
    batches) counting its requests (network calls: each answered by one flush) and their states."""

    def __init__(self, inner: NetworkEvaluator):
        self.inner, self.queue, self.calls, self.states = inner, inner.queue, 0, 0

    def submit(self, states):
        self.calls += 1
        self.states += len(states)
        return self.inner.submit(states)

    def collect(self, token):
        return self.inner.collect(token)

    def __call__(self, state):
        self.calls += 1
        self.states += 1
        return self.inner(state)


@dataclass
class Row:
    key: str
    label: str
    work: Callable[[], int]
    counter: Counting | None = None
    units: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.units / self.seconds

    def measure(self, seconds: float) -> None:
        units, _, elapsed = timed(self.work, seconds)
        self.units += units
        self.seconds += elapsed


def search_row(key: str, label: str, state, config: SearchConfig, seed: int, counter: Counting | None = None) -> Row:
    search = TreeSearch(config, "ismcts")
    rng = np.random.default_rng(seed)
    return Row(key, label, lambda: search.search(state, rng).iterations, counter)


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--iterations", type=int, default=1000, help="iterations per decision (default 1000)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the searches (default 0)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    console = Console()
    notes: list[str] = []

    state = lords_of_war_position()
    evaluator = untrained_evaluator(state.info)
    with_prior, value_only = Counting(NetworkEvaluator(evaluator, prior=True)), Counting(NetworkEvaluator(evaluator,
                                                                                                          prior=False))
    leaves8 = Counting(NetworkEvaluator(evaluator, prior=True))
    prior_rollout = Counting(NetworkEvaluator(evaluator, prior=True))
    n = args.iterations
    rows = [
        search_row("rollout", "ISMCTS, random rollouts (UCB1)", state, SearchConfig(iterations=n), args.seed),
        search_row("net", "ISMCTS, PUCT prior + net value, depth 0", state,
                   SearchConfig(iterations=n, selection=PUCT(1.25), depth=0, evaluator=with_prior), args.seed,
                   with_prior),
        search_row("net_leaves8", "ISMCTS, PUCT prior + net value, depth 0, leaves=8", state,
                   SearchConfig(iterations=n, selection=PUCT(1.25), depth=0, evaluator=leaves8, leaves=8), args.seed,
                   leaves8),
        search_row("net_value", "ISMCTS, UCB1 + net value, depth 0", state,
                   SearchConfig(iterations=n, depth=0, evaluator=value_only), args.seed, value_only),
        search_row("net_prior_rollout", "ISMCTS, PUCT net prior + random rollouts (prior=1,value=0)", state,
                   SearchConfig(iterations=n, selection=PUCT(1.25), prior=prior_rollout),
                   args.seed, prior_rollout),
    ]
    call = NetworkEvaluator(evaluator, prior=True)
    rows.append(Row("call", "one NetworkEvaluator call (context)", lambda: (call(state), 1)[1]))

    for row in rows:
        row.work()  # warm-up
    for row in rows:
        if row.counter is not None:
            row.counter.calls = row.counter.states = 0
    for _ in range(args.rounds):
        for row in rows:
            row.measure(args.seconds / args.rounds)

    base = next(r for r in rows if r.key == "rollout")
    table = Table(title=f"Lords of War ISMCTS with a network at the leaf ({n} iterations a decision, "
                        f"{args.seconds:g} s a row, {args.rounds} rounds, torch {args.threads} thread(s))")
    for column in ("row", "it/s (calls/s)", "µs / iteration (call)", "vs rollouts", "net calls / iteration",
                   "states / call"):
        table.add_column(column, justify="left" if column == "row" else "right")
    results = {}
    for row in rows:
        per = row.counter.calls / row.units if row.counter is not None else (1.0 if row.key == "call" else 0.0)
        states = (row.counter.states / row.counter.calls if row.counter is not None and row.counter.calls
                  else (1.0 if row.key == "call" else 0.0))
        results[row.key] = {"label": row.label, "units": row.units, "seconds": row.seconds, "per_s": row.rate,
                            "us": 1e6 / row.rate, "vs_rollout": row.rate / base.rate, "net_calls_per_unit": per,
                            "states_per_call": states}
        table.add_row(row.label, f"{row.rate:,.0f}", f"{1e6 / row.rate:,.1f}",
                      "-" if row.key == "call" else f"{row.rate / base.rate:.2f}x", f"{per:.2f}",
                      f"{states:.2f}" if states else "-")
    console.print(table)
    console.print(f"Position: new_state(lords_of_war, seed={LOW_SEED}) + {LOW_MOVES} random moves; network "
                  f"{evaluator.net.num_parameters():,} parameters, untrained (seed 0), CPU. Paper 001: "
                  f"{PAPER_US_PER_CALL:.0f} µs per network call = at most {1e6 / PAPER_US_PER_CALL:,.0f} "
                  f"it/s with one call per leaf.")
    net, leaves = results.get("net"), results.get("net_leaves8")
    if net and leaves:
        console.print(f"leaves=8 / leaves=1: {leaves['per_s'] / net['per_s']:.2f}x it/s")
    info = machine(["numpy", "numba", "torch"])
    print_machine_and_notes(console, info, notes)
    if args.json:
        args.json.write_text(json.dumps({
            "seconds_per_row": args.seconds, "rounds": args.rounds, "iterations": n, "threads": args.threads,
            "seed": args.seed, "machine": info, "rows": results, "notes": notes,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()

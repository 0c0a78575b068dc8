"""Network evaluation throughput (states/s, one call per state vs. batches) and self-play games/s with batching.

Part 1, states/s. The network is ``PolicyValueNet(lords_of_war info)`` with its default sizes, evaluated through
``BatchedEvaluator.evaluate`` (priors over the legal actions and values, numpy in and out) on real Lords of
War observations: the decision states of random games (``new_state(seed=s)`` for s = 0, 1, ..., random moves
from ``default_rng(0)``) until there are 2,048, each seen by the player to move, with its legal-action mask.

Columns: CPU with one thread, CPU with all threads (``os.cpu_count()``), and CUDA when torch has it (skipped
with a note otherwise). Rows: one call per state (batch 1), then batches of 16, 64, 256 and 1024 states per
call (``max_batch`` equal to the batch, so each is one forward pass).

Targets (issue 17): the best batch at >= 8x the one-call rate on CPU; paper 001's 140 µs per state
(7,143 states/s) as the yardstick of absolute speed.

Part 2, self-play games/s (skipped with ``--skip-selfplay``). Lords of War self-play through
``training.selfplay.play_many(game, agent_sets, indices, seed=0)``: the untrained default-size network
(``torch.manual_seed(0)``, ``PolicyValueNet(info).save`` to a temporary file), torch at 1 thread, CPU, one
agent per seat built with ``registry.make_agent(spec, game)``, ``concurrent`` agent sets (games in lock-step,
``search.batching.run_together``: their network requests share one forward pass). Every agent of a row loads
the same checkpoint, hence shares one ``BatchedEvaluator`` (``max_batch`` 256), whose ``flush`` is wrapped to
count the states and forward passes. Rows (spec ``ismcts:iterations=32,net=PATH`` in both seats unless said):

- ``sp_seq``: one game at a time (``concurrent=1``, ``leaves=1``): one network call per leaf;
- ``sp_leaves8``: one game at a time, ``leaves=8`` (8 leaves in flight per call inside ONE search, virtual loss);
- ``sp_conc16``, ``sp_conc64``: 16 / 64 games in lock-step, ``leaves=1`` (batching across games);
- ``sp_conc64_leaves8``: 64 games in lock-step and ``leaves=8``;
- ``sp_seq_rollout``, ``sp_conc64_rollout``: ``prior=1,value=0`` (PUCT prior from the network, random rollouts
  to the end give the values), one game at a time vs 64 in lock-step.

Each row plays a fixed set of seeded games, the same in every round: games 0..``--selfplay-seq-games``-1
(default 8) for the one-game-at-a-time rows, games 0..``--selfplay-games``-1 (default 64) for the concurrent
ones. Reported: games/s, decisions/s (self-play records: every decision of a search agent, forced moves
included), network states per forward pass (mean) and per flush. Rows are interleaved over ``--rounds`` rounds
(each round plays each row's games once), after a one-game warm-up per spec.

Target (issue 17): ``sp_conc64`` >= 3x the games/s of ``sp_seq``; the other ratios are context (no target).
The sequential and concurrent rows play different numbers of games (the first 8 are shared), so the
decisions/s ratio is printed too: it does not depend on the games' lengths.

Usage: ``.venv/bin/python benchmarks/evaluator.py [--seconds 3] [--rounds 3] [--json PATH] [--skip-selfplay]
[--selfplay-games 64] [--selfplay-seq-games 8]``
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

import cardboard
from harness import Comparison, compare, machine, print_machine_and_notes, ratio_table, timed, timing_arguments
from cardboard import registry
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.net_agent import load_evaluator
from cardboard.policies.network import PolicyValueNet
from cardboard.training.selfplay import play_many

GAME, POOL = "lords_of_war", 2048
BATCHES = (1, 16, 64, 256, 1024)
PAPER_STATES_PER_S = 1 / 140e-6  # paper 001: 140 µs per state
SELFPLAY_ITERATIONS = 32
# row -> (knobs after net=PATH, concurrent games; None: one game at a time)
SELFPLAY_ROWS = {
    "sp_seq": ("", None),
    "sp_leaves8": (",leaves=8", None),
    "sp_conc16": ("", 16),
    "sp_conc64": ("", 64),
    "sp_conc64_leaves8": (",leaves=8", 64),
    "sp_seq_rollout": (",prior=1,value=0", None),
    "sp_conc64_rollout": (",prior=1,value=0", 64),
}


def observations(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and legal-action masks of decision states of random games (module docstring)."""
    rng = np.random.default_rng(0)
    obs, masks = [], []
    seed = 0
    while len(obs) < count:
        state = cardboard.new_state(GAME, seed=seed)
        seed += 1
        while not state.is_terminal() and len(obs) < count:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            obs.append(state.observation(state.current_player))
            masks.append(state.action_mask())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs), np.stack(masks)


class FlushCounter:
    """Wraps a ``BatchedEvaluator``'s ``flush`` (on the instance) to count non-empty flushes, the states they
    hold and the forward passes they take (chunks of ``max_batch``)."""

    def __init__(self, queue: BatchedEvaluator):
        self.queue, self.inner = queue, queue.flush
        self.flushes = self.states = self.passes = 0
        queue.flush = self.flush

    def flush(self) -> None:
        n = self.queue.pending
        if n:
            self.flushes += 1
            self.states += n
            self.passes += math.ceil(n / self.queue.max_batch)
        self.inner()

    def snapshot(self) -> tuple[int, int, int]:
        return self.flushes, self.states, self.passes


@dataclass
class SelfPlayRow:
    """One self-play row: its agent sets (built once) and the totals of its measured rounds."""

    name: str
    spec: str
    concurrent: int
    games: int
    agent_sets: list
    seconds: float = 0.0
    played: int = 0
    decisions: int = 0
    flushes: int = 0
    states: int = 0
    passes: int = 0

    def play(self, game, counter: FlushCounter,
             indices: list[int] | None = None) -> tuple[int, int, float, tuple[int, ...]]:
        """Play the row's games (or ``indices``) once; returns (games, decisions, seconds, the counter's
        (flushes, states, forward passes) during the games)."""
        indices = list(range(self.games)) if indices is None else indices
        before = counter.snapshot()
        start = time.perf_counter()
        decisions = sum(len(records["action"]) for _, records in play_many(game, self.agent_sets, indices, seed=0))
        elapsed = time.perf_counter() - start
        after = counter.snapshot()
        return len(indices), decisions, elapsed, tuple(a - b for a, b in zip(after, before))

    def measure(self, game, counter: FlushCounter) -> None:
        games, decisions, elapsed, (flushes, states, passes) = self.play(game, counter)
        self.played += games
        self.decisions += decisions
        self.seconds += elapsed
        self.flushes += flushes
        self.states += states
        self.passes += passes

    def summary(self) -> dict:
        return {"spec": self.spec, "concurrent": self.concurrent, "games_per_round": self.games,
                "games": self.played, "decisions": self.decisions, "seconds": self.seconds,
                "games_per_s": self.played / self.seconds, "decisions_per_s": self.decisions / self.seconds,
                "flushes": self.flushes, "forward_passes": self.passes, "states": self.states,
                "states_per_forward_pass": self.states / self.passes if self.passes else 0.0,
                "states_per_flush": self.states / self.flushes if self.flushes else 0.0}


def selfplay(args, console: Console) -> dict:
    """Part 2 of the module docstring: the self-play rows, measured and printed; returns the JSON part."""
    torch.set_num_threads(1)
    game = registry.make_game(GAME)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "untrained.pt")
        torch.manual_seed(0)
        PolicyValueNet(game.info).save(path)
        seats = game.info.num_players
        rows = []
        for name, (knobs, concurrent) in SELFPLAY_ROWS.items():
            spec = f"ismcts:iterations={SELFPLAY_ITERATIONS},net={path}{knobs}"
            sets = concurrent or 1
            agent_sets = [[registry.make_agent(spec, game) for _ in range(seats)] for _ in range(sets)]
            games = args.selfplay_games if concurrent else args.selfplay_seq_games
            rows.append(SelfPlayRow(name, spec.replace(path, "PATH"), sets, games, agent_sets))
        counter = FlushCounter(load_evaluator(path, game.info))  # the queue every agent above shares
        warmed = set()
        for row in rows:  # one game per spec, not measured
            if row.spec not in warmed:
                warmed.add(row.spec)
                row.play(game, counter, [0])
        if counter.flushes == 0:
            raise RuntimeError("the agents do not use the counted evaluator (load_evaluator's cache)")
        for _ in range(args.rounds):
            for row in rows:
                row.measure(game, counter)
    results = {row.name: row.summary() for row in rows}

    table = Table(title=f"{GAME} self-play, ismcts:iterations={SELFPLAY_ITERATIONS} with the untrained network in "
                        f"both seats, torch 1 thread ({args.rounds} rounds; games {args.selfplay_seq_games} a round "
                        f"one at a time, {args.selfplay_games} concurrent)")
    for column in ("row", "games", "games/s", "decisions/s", "states/pass", "states/flush", "passes/decision"):
        table.add_column(column, justify="left" if column == "row" else "right")
    for name, r in results.items():
        table.add_row(name, str(r["games"]), f"{r['games_per_s']:.2f}", f"{r['decisions_per_s']:,.0f}",
                      f"{r['states_per_forward_pass']:.1f}", f"{r['states_per_flush']:.1f}",
                      f"{r['forward_passes'] / r['decisions']:.1f}")
    console.print(table)
    console.print("Specs: " + "; ".join(f"{name}: {r['spec']}, concurrent {r['concurrent']}"
                                        for name, r in results.items()))

    rates = {name: r["games_per_s"] for name, r in results.items()}
    rates.update({f"{name}/decisions": r["decisions_per_s"] for name, r in results.items()})
    comparisons = compare(rates, [
        Comparison("sp_conc64", "sp_seq", 3.0, "self-play games/s: 64 games in lock-step / one at a time"),
        Comparison("sp_conc64/decisions", "sp_seq/decisions", None, "decisions/s: 64 in lock-step / one at a time"),
        Comparison("sp_conc16", "sp_seq", None, "games/s: 16 games in lock-step / one at a time"),
        Comparison("sp_leaves8", "sp_seq", None, "games/s: leaves=8 in one search / leaves=1"),
        Comparison("sp_conc64_leaves8", "sp_seq", None, "games/s: 64 in lock-step + leaves=8 / one at a time"),
        Comparison("sp_conc64_leaves8", "sp_conc64", None, "games/s: 64 in lock-step, leaves=8 / leaves=1"),
        Comparison("sp_conc64_rollout", "sp_seq_rollout", None,
                   "prior=1,value=0 games/s: 64 in lock-step / one at a time"),
        Comparison("sp_conc64_rollout/decisions", "sp_seq_rollout/decisions", None,
                   "prior=1,value=0 decisions/s: 64 in lock-step / one at a time"),
    ])
    console.print(ratio_table(comparisons, "games/s"))
    return {"iterations": SELFPLAY_ITERATIONS, "threads": 1, "rounds": args.rounds,
            "games_sequential": args.selfplay_seq_games, "games_concurrent": args.selfplay_games,
            "rows": results, "comparisons": comparisons}


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--skip-selfplay", action="store_true", help="measure states/s only (quick)")
    parser.add_argument("--selfplay-games", type=int, default=64,
                        help="games a round of each concurrent self-play row (default 64)")
    parser.add_argument("--selfplay-seq-games", type=int, default=8,
                        help="games a round of each one-game-at-a-time self-play row (default 8)")
    args = parser.parse_args()
    console = Console()
    notes: list[str] = []
    obs, masks = observations(POOL)
    torch.manual_seed(0)
    net = PolicyValueNet(cardboard.make_game(GAME).info)
    cores = os.cpu_count() or 1
    columns = {"cpu_1t": ("cpu", 1), f"cpu_{cores}t": ("cpu", cores)}
    if torch.cuda.is_available():
        columns["cuda"] = ("cuda", None)
    else:
        notes.append(f"CUDA column skipped: torch {torch.__version__} has no CUDA device here")
    rows = {}  # name -> (threads, work returning states evaluated)
    for column, (device, threads) in columns.items():
        for batch in BATCHES:
            evaluator = BatchedEvaluator(net, device=device, max_batch=batch)
            starts = iter(range(0, 1 << 40, batch))

            def work(evaluator=evaluator, batch=batch, starts=starts) -> int:
                start = next(starts) % POOL
                evaluator.evaluate(obs[start:start + batch], masks[start:start + batch])
                return batch
            rows[f"{column}_b{batch}"] = (threads, work)
    default_threads = torch.get_num_threads()
    for threads, work in rows.values():  # warm-up
        torch.set_num_threads(threads or default_threads)
        for _ in range(3):
            work()
    totals = {name: [0, 0.0] for name in rows}
    for _ in range(args.rounds):
        for name, (threads, work) in rows.items():
            torch.set_num_threads(threads or default_threads)
            units, _, elapsed = timed(work, args.seconds / args.rounds)
            totals[name][0] += units
            totals[name][1] += elapsed
    rates = {name: units / elapsed for name, (units, elapsed) in totals.items()}

    table = Table(title=f"{GAME} policy-value net ({net.num_parameters():,} parameters): states/s "
                        f"[µs per state] ({args.seconds:g} s a row, {args.rounds} rounds)")
    table.add_column("batch", justify="right")
    for column in columns:
        table.add_column(column, justify="right")
    for batch in BATCHES:
        cells = [f"{rates[f'{c}_b{batch}']:,.0f} [{1e6 / rates[f'{c}_b{batch}']:.1f}]" for c in columns]
        table.add_row("1 (one call per state)" if batch == 1 else str(batch), *cells)
    console.print(table)

    comparisons_spec = []
    for column in columns:
        best = max((f"{column}_b{b}" for b in BATCHES[1:]), key=rates.get)
        target = 8.0 if column.startswith("cpu") else None
        comparisons_spec += [
            Comparison(best, f"{column}_b1", target, f"{column}: best batch ({best.rsplit('_b', 1)[1]}) / one call"),
            Comparison(best, None, PAPER_STATES_PER_S, f"{column}: best batch, states/s (paper 001: 7,143)"),
            Comparison(f"{column}_b1", None, PAPER_STATES_PER_S, f"{column}: one call, states/s (paper 001: 7,143)"),
        ]
    comparisons = compare(rates, comparisons_spec)
    console.print(ratio_table(comparisons, "states/s"))
    if args.skip_selfplay:
        notes.append("self-play games/s skipped (--skip-selfplay)")
        selfplay_results = None
    else:
        selfplay_results = selfplay(args, console)
    info = machine(["numpy", "torch"])
    print_machine_and_notes(console, info, notes)
    if args.json:
        args.json.write_text(json.dumps({
            "seconds_per_row": args.seconds, "rounds": args.rounds, "parameters": net.num_parameters(),
            "machine": info, "states_per_s": rates, "comparisons": comparisons, "selfplay": selfplay_results,
            "notes": notes,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()

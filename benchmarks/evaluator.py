"""Network evaluation throughput: states/s of the default policy-value network, one call per state vs. batches.

The network is ``PolicyValueNet(lords_of_war info)`` with its default sizes, evaluated through
``BatchedEvaluator.evaluate`` (priors over the legal actions and values, numpy in and out) on real Lords of
War observations: the decision states of random games (``new_state(seed=s)`` for s = 0, 1, ..., random moves
from ``default_rng(0)``) until there are 2,048, each seen by the player to move, with its legal-action mask.

Columns: CPU with one thread, CPU with all threads (``os.cpu_count()``), and CUDA when torch has it (skipped
with a note otherwise). Rows: one call per state (batch 1), then batches of 16, 64, 256 and 1024 states per
call (``max_batch`` equal to the batch, so each is one forward pass).

Targets (issue 17): the best batch at >= 8x the one-call rate on CPU; paper 001's 140 µs per state
(7,143 states/s) as the yardstick of absolute speed.

Usage: ``.venv/bin/python benchmarks/evaluator.py [--seconds 3] [--rounds 3] [--json PATH]``
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

import cardboard
from harness import Comparison, compare, machine, print_machine_and_notes, ratio_table, timed, timing_arguments
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.network import PolicyValueNet

GAME, POOL = "lords_of_war", 2048
BATCHES = (1, 16, 64, 256, 1024)
PAPER_STATES_PER_S = 1 / 140e-6  # paper 001: 140 µs per state


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


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
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
    info = machine(["numpy", "torch"])
    print_machine_and_notes(console, info, notes)
    if args.json:
        args.json.write_text(json.dumps({
            "seconds_per_row": args.seconds, "rounds": args.rounds, "parameters": net.num_parameters(),
            "machine": info, "states_per_s": rates, "comparisons": comparisons, "notes": notes,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()

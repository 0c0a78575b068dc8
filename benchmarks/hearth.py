"""Hearth throughput: random playouts (steps/s) and DUCT iterations per second with d = 5 turns.

Rows, each measured from FIXED mid-game positions of the three mirror matches (Mech Mage, Handlock, Face
Hunter: ``new_state(seed=3)`` played randomly to turn 10 with ``default_rng(3)``, then to the next decision):

- ``playout``: the compiled ``random_playout`` from a clone of the position to the end of the game
  (decisions per second; chance outcomes are sampled inside and not counted);
- ``python_loop``: the same through the protocol from Python (``legal_actions`` / ``apply`` /
  ``sample_chance``), the path of a user-written loop;
- ``duct_d5``: paper 001's DUCT (Algorithm 3: 10 determinized worlds, c = 0.7, random rollouts of d = 5
  turns, then the evaluation scaled to (0, 1)), iterations per second of whole decisions of
  ``--iterations`` iterations (tree set-up and determinization included);
- ``duct_cnb_d5``: the same with chance-node bucketing (001 §2.6, Table 3.2 buckets);
- ``duct_prune_d5``: the same with heuristic pruning (001 §2.5), the configuration of p001_hearthstone/RESULTS.md;
- ``duct_d5_python``, ``duct_prune_d5_python``: ``duct_d5`` and ``duct_prune_d5`` on the Python path
  (``compiled=False``); the rows above run whole iterations compiled (``search.compiled``; CNB stays in Python);
- ``lords_of_war_playout``: the compiled Lords of War playout, a yardstick of this machine's speed in the
  same run (``benchmarks/playout.py`` compares it with OpenSpiel).

Rollouts use the game's default policy (``rollout="sensible"``: uniform over the pruned moves, never
ending a turn while another move is legal; README decision 13).

Target (the issue): DUCT with d = 5 at >= 3.3k iterations/s on one core, the thesis's C# figure
(001 §4.10: 10,000 iterations in about 3 s on an i7 laptop, Silverfish evaluation at the leaves).

Usage: ``.venv/bin/python benchmarks/hearth.py [--seconds 3] [--rounds 3] [--iterations 1000]``
"""
from __future__ import annotations

import dataclasses

import numpy as np
from rich.console import Console
from rich.table import Table

import cardboard
from harness import (Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table,
                     timing_arguments)
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.search.agents import duct
from cardboard.search.mcts import TreeSearch

DECKS = ("mech_mage", "handlock", "face_hunter")
SEED, TURN = 3, 10
COMPARISONS = [
    Comparison("duct_d5", None, 3300.0, "DUCT d=5 iterations/s (thesis C#: 3.3k)"),
    Comparison("duct_cnb_d5", None, 3300.0, "DUCT+CNB d=5 iterations/s"),
    Comparison("duct_prune_d5", None, 3300.0, "DUCT+pruning d=5 iterations/s"),
    Comparison("duct_prune_d5", "duct_prune_d5_python", 3.0, "DUCT+pruning d=5: compiled vs the Python path"),
    Comparison("duct_d5", "duct_d5_python", None, "DUCT d=5: compiled vs the Python path"),
    Comparison("playout", "lords_of_war_playout", None, "hearth playout steps/s vs Lords of War's"),
    Comparison("playout", "python_loop", None, "compiled playout vs the Python protocol loop"),
]


def position(deck: str):
    """The fixed mid-game position of a mirror match (see the module docstring)."""
    state = cardboard.new_state("hearth", seed=SEED, decks=deck)
    rng = np.random.default_rng(SEED)
    while state.turn < TURN or state.current_player == CHANCE:
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return state


def python_loop(state, rng) -> int:
    steps = 0
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--iterations", type=int, default=1000, help="DUCT iterations per decision (default 1000)")
    args = parser.parse_args()
    console = Console()
    rng = np.random.default_rng(0)
    positions = [position(d) for d in DECKS]
    low = cardboard.new_state("lords_of_war", seed=1)
    agents = {"duct_d5": duct(iterations=args.iterations, depth=5),
              "duct_cnb_d5": duct(iterations=args.iterations, depth=5, cnb=True),
              "duct_prune_d5": duct(iterations=args.iterations, depth=5, prune=True)}
    python = {f"{name}_python": TreeSearch(dataclasses.replace(agents[name].searcher.config, compiled=False),
                                           "duct", 10) for name in ("duct_d5", "duct_prune_d5")}
    rows = {
        "playout": lambda i: positions[i % 3].clone().random_playout(rng),
        "python_loop": lambda i: python_loop(positions[i % 3].clone(), rng),
        "duct_d5": lambda i: agents["duct_d5"].searcher.search(positions[i % 3], rng).iterations,
        "duct_cnb_d5": lambda i: agents["duct_cnb_d5"].searcher.search(positions[i % 3], rng).iterations,
        "duct_prune_d5": lambda i: agents["duct_prune_d5"].searcher.search(positions[i % 3], rng).iterations,
        "duct_d5_python": lambda i: python["duct_d5_python"].search(positions[i % 3], rng).iterations,
        "duct_prune_d5_python": lambda i: python["duct_prune_d5_python"].search(positions[i % 3], rng).iterations,
        "lords_of_war_playout": lambda i: low.clone().random_playout(rng),
    }
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    table = Table(title=f"Hearth throughput ({args.seconds:.0f} s a row, {args.rounds} rounds)")
    table.add_column("row")
    table.add_column("rate", justify="right")
    for name, rate in rates.items():
        unit = "iterations/s" if name.startswith("duct") else "steps/s"
        table.add_row(name, f"{rate:,.0f} {unit}")
    console.print(table)
    console.print(ratio_table(compare(rates, COMPARISONS), "iterations/s"))
    print_machine_and_notes(console, machine(["numpy", "numba"]), [])


if __name__ == "__main__":
    main()

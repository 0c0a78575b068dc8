"""Every bundled game's PettingZoo AEC loop against PettingZoo's ``connect_four_v3``, in the same run (issue 50).

Each row is the loop a user writes (``playout.aec_loop``: ``reset(seed)``, ``agent_iter``, ``last``, a uniformly
random legal move from the action mask, ``step``) over ``cardboard.make_env(game)`` with the game's defaults, in
steps (decisions) per second; the rows are interleaved round by round. Target (issue 50): Fifth Aeon >= 1.5x
connect_four.

Usage: ``.venv/bin/python benchmarks/aec_loops.py [--seconds 3] [--rounds 3]``
"""
from __future__ import annotations

from rich.console import Console

import cardboard
from harness import (Comparison, compare, interleaved_rates, machine, print_machine_and_notes, rates_table, ratio_table,
                     timing_arguments)
from playout import aec_loop, pettingzoo_connect_four

GAMES = ("lords_of_war", "hearth", "pandemic", "fifth_aeon")
COMPARISONS = tuple(Comparison(g, "connect_four", 1.5 if g == "fifth_aeon" else None, f"{g} / connect_four_v3")
                    for g in GAMES)


def main() -> None:
    args = timing_arguments(__doc__.splitlines()[0], rounds=3).parse_args()
    console = Console()
    loops = {g: aec_loop(cardboard.make_env(g), 0) for g in GAMES}
    loops["connect_four"] = aec_loop(pettingzoo_connect_four(), 0)
    rates = interleaved_rates({name: (lambda i, play=play: play()) for name, play in loops.items()}, args.seconds,
                              args.rounds)
    console.print(rates_table(rates, f"AEC loops ({args.seconds:.0f} s a row, {args.rounds} rounds)"))
    console.print(ratio_table(compare(rates, COMPARISONS), "steps/s"))
    print_machine_and_notes(console, machine(["numpy", "pettingzoo"]), [])


if __name__ == "__main__":
    main()

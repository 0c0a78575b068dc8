"""Fifth Aeon search speed (issue 50): ISMCTS iterations per second with DefaultAI's rollouts (depth 4, prune=1,
the game's heuristic at the leaf; paper 004's search agent), compiled loop against the Python path, same positions.

Positions: 12 mid-game states (random moves from each built-in deck pair's deal, seeded), each searched for
``--iterations`` iterations by ``ismcts:depth=4,c=0.2,prune=1`` with ``rollout=default_ai``; rows interleaved.
``--python-only`` runs the Python row alone (what a checkout without the compiled model can run: the baseline).

Usage: ``.venv/bin/python benchmarks/fifth_aeon_search.py [--iterations 150] [--seconds 6] [--rounds 3]``
"""
from __future__ import annotations

import numpy as np
from rich.console import Console

import cardboard
from cardboard.envs.fifth_aeon.cards import DECK_LIST
from cardboard.search.mcts import SearchConfig, TreeSearch
from harness import Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table, timing_arguments

COMPARISONS = (Comparison("compiled", "python", 10.0, "ISMCTS it/s, compiled / Python path"),)


def positions() -> list:
    out = []
    for i, deck in enumerate(DECK_LIST):
        state = cardboard.make_game("fifth_aeon", decks=(deck, DECK_LIST[(i * 5 + 3) % len(DECK_LIST)]),
                                    rollout="default_ai").new_state(i)
        rng = np.random.default_rng(i)
        for _ in range(30):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
        out.append(state)
    return [s for s in out if not s.is_terminal()]


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--python-only", action="store_true")
    args = parser.parse_args()
    console = Console()
    states = positions()

    def search(compiled: bool):
        engine = TreeSearch(SearchConfig(iterations=args.iterations, depth=4, c=0.2, prune=True, compiled=compiled),
                            "ismcts")

        def work(i: int) -> int:
            return engine.search(states[i % len(states)], np.random.default_rng(i)).iterations
        return work

    rows = {"python": search(False)} if args.python_only else {"compiled": search(True), "python": search(False)}
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    for name, rate in rates.items():
        console.print(f"{name}: {rate:,.0f} iterations/s ({1000 * args.iterations / rate:,.1f} ms a decision of "
                      f"{args.iterations} iterations)")
    if not args.python_only:
        console.print(ratio_table(compare(rates, COMPARISONS), "iterations/s"))
    print_machine_and_notes(console, machine(["numpy", "numba"]), [])


if __name__ == "__main__":
    main()

"""Fifth Aeon's forward model: random-playout decisions per second and DefaultAI games per second (paper 004).

Rows, each over the 12 built-in decks paired in turn, seeded:

- ``random_steps``: uniformly random decisions through the engine (``random_playout``, whole games from the
  deal, the mulligans included), in decisions per second;
- ``random_steps_protocol``: the same through the protocol (``legal_actions`` and ``apply`` from Python, as a
  generic agent pays: the legal-action array and the legality check);
- ``default_ai_games``: whole DefaultAI-against-DefaultAI games through the agents (``act`` then ``apply`` from
  Python), in games per second;
- ``default_ai_playout``: the same games as the game's ``default_ai`` rollout (``random_playout``: DefaultAI on
  both sides in one compiled call, the balancer's unit of work);
- ``clone``: ``FifthAeonState.clone`` of a mid-game state (search's unit of work), in clones per second.

The thesis's balancer ran its 2,000-game tournaments on an i7-4720HQ "in approximately an hour and a half" (004
§5.2.1, per grid value or per search: not said); the ratio printed is DefaultAI's games/s against that figure
read both ways. Targets (issue 50, against the object engine's figures of issue 20 in BENCHMARKS.md): random
decisions >= 20x 79,718 a second, DefaultAI games >= 10x 185 a second.

Usage: ``.venv/bin/python benchmarks/fifth_aeon.py [--seconds 3] [--rounds 3]``
"""
from __future__ import annotations

import numpy as np
from rich.console import Console
from rich.table import Table

from cardboard.envs.fifth_aeon import DefaultAI, FifthAeonGame
from cardboard.envs.fifth_aeon.cards import DECK_LIST
from harness import Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table, timing_arguments

THESIS_GAMES_PER_SECOND = {"per value": 2000 / 5400, "per 11-value search": 22000 / 5400}
OBJECT_ENGINE = {"random_steps": 79_718, "default_ai_games": 185}  # issue 20's rates (BENCHMARKS.md)
COMPARISONS = (Comparison("random_steps_protocol", "random_steps", None, "protocol-stepped / engine playout"),
               Comparison("random_steps", None, 20 * OBJECT_ENGINE["random_steps"], "random decisions/s (20x)"),
               Comparison("default_ai_games", None, 10 * OBJECT_ENGINE["default_ai_games"], "agents' games/s (10x)"),
               Comparison("default_ai_playout", None, 10 * OBJECT_ENGINE["default_ai_games"],
                          "compiled DefaultAI games/s (10x)"))


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    args = parser.parse_args()
    console = Console()
    rng = np.random.default_rng(0)
    games = [FifthAeonGame((DECK_LIST[i], DECK_LIST[(i * 5 + 3) % len(DECK_LIST)])) for i in range(len(DECK_LIST))]
    bot_games = [FifthAeonGame(g.decks, rollout="default_ai") for g in games]
    bots = (DefaultAI(), DefaultAI())
    mid = []
    for i, g in enumerate(games):
        s = g.new_state(i)
        s.random_playout(rng, max_turns=8)
        if not s.is_terminal():
            mid.append(s)

    def random_steps(i: int) -> int:
        return games[i % len(games)].new_state(i).random_playout(rng)

    def random_steps_protocol(i: int) -> int:
        s = games[i % len(games)].new_state(i)
        n = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply(int(legal[rng.integers(len(legal))]))
            n += 1
        return n

    def default_ai_game(i: int) -> int:
        s = games[i % len(games)].new_state(i)
        for b in bots:
            b.reset()
        while not s.is_terminal():
            s.apply(bots[s.current_player].act(s, rng))
        return 1

    def default_ai_playout(i: int) -> int:
        bot_games[i % len(games)].new_state(i).random_playout(rng)
        return 1

    def clones(i: int) -> int:
        s = mid[i % len(mid)]
        for _ in range(100):
            s.clone()
        return 100

    rows = {"random_steps": random_steps, "random_steps_protocol": random_steps_protocol,
            "default_ai_games": default_ai_game, "default_ai_playout": default_ai_playout, "clone": clones}
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    units = {"random_steps": "decisions/s", "random_steps_protocol": "decisions/s", "default_ai_games": "games/s",
             "default_ai_playout": "games/s", "clone": "clones/s"}
    table = Table(title=f"Fifth Aeon, the 12 decks paired ({args.seconds:.0f} s a row, {args.rounds} rounds)")
    for column in ("row", "rate", "cost"):
        table.add_column(column, justify="left" if column == "row" else "right")
    for name, rate in rates.items():
        table.add_row(name, f"{rate:,.1f} {units[name]}", f"{1e6 / rate:,.1f} µs")
    console.print(table)
    console.print(ratio_table(compare(rates, COMPARISONS), "decisions/s"))
    for reading, thesis in THESIS_GAMES_PER_SECOND.items():
        console.print(f"DefaultAI games/s vs the thesis's balancer ({reading}: {thesis:.2f} games/s on 8 threads): "
                      f"{rates['default_ai_playout'] / thesis:,.0f}x on one core")
    print_machine_and_notes(console, machine(["numpy"]), [])


if __name__ == "__main__":
    main()

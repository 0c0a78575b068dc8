"""Random-playout throughput of Lords of War, measured three ways, with yardsticks measured in the same run.

What is measured: steps per second of uniformly random games, a step being one decision (chance
moves, where a yardstick has them, count as steps too; AEC calls with ``action=None`` for finished
agents do not). Lords of War is played

1. ``compiled``: by the compiled rollout ``state.random_playout(rng)`` on a fresh
   ``game.new_state(seed)`` per game (the deal is part of the cost), and also ``kernel``: the same
   rollout on clones of 64 pre-dealt states, so the kernel's own rate is visible;
2. ``python``: by a plain Python loop over ``legal_actions()`` / ``apply()``, a seeded
   ``numpy.random.Generator`` picking uniformly, as a user would write it;
3. ``aec``: through the PettingZoo AEC env, with the loop a user writes (``reset``, ``agent_iter``,
   ``last``, a uniform pick from ``obs["action_mask"]``, ``step``).

The yardsticks, stepped from Python the same way:

a. OpenSpiel ``connect_four`` through pyspiel (compared with 1: target >= 1x);
b. OpenSpiel's pure-Python games ``python_tic_tac_toe`` and ``python_kuhn_poker`` (context for 2,
   whose target is >= 100k steps/s absolute);
c. PettingZoo ``connect_four_v3`` (compared with 3: target >= 1x).

Why ratios: absolute rates drift with the machine and its load, so every comparison is a ratio of
two rows of one process run, and the rows are interleaved in ``--rounds`` rounds so that a change
of load mid-run hits all of them alike. Each row gets a warm-up first (numba compiles or loads its
cache on the first call) that is not counted.

OpenSpiel is optional (the ``bench`` extra): without it its rows are skipped with a note.

Usage: ``.venv/bin/python benchmarks/playout.py [--seconds 3] [--rounds 10] [--seed 0] [--json PATH]``
(``make bench`` installs the extra and runs it).
"""
from __future__ import annotations

import itertools
import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from rich.console import Console
from rich.table import Table

import cardboard
from harness import Comparison, compare, machine, print_machine_and_notes, ratio_table, timed, timing_arguments
from cardboard.envs.lords_of_war.layout import MAX_TURNS
from cardboard.envs.lords_of_war.state import LordsOfWarGame

try:
    import open_spiel.python.games  # noqa: F401  (registers the python_* games)
    import pyspiel
except ImportError:
    pyspiel = None

Play = Callable[[], int]  # plays one game, returns the number of steps it took

NUM_DEALS = 64  # pre-dealt states cycled through by the kernel-only row
WARM_UP_GAMES = 3


# -- one game, each way --------------------------------------------------------------------------------
def compiled_playout(game: LordsOfWarGame, seed: int) -> Play:
    """(1) A fresh deal, then the compiled random rollout."""
    rng = np.random.default_rng(seed)
    seeds = itertools.count(seed)

    def play() -> int:
        return game.new_state(next(seeds)).random_playout(rng)

    return play


def compiled_kernel(game: LordsOfWarGame, seed: int) -> Play:
    """(1, kernel only) The compiled random rollout on a clone of a pre-dealt state."""
    rng = np.random.default_rng(seed)
    deals = itertools.cycle([game.new_state(seed + i) for i in range(NUM_DEALS)])

    def play() -> int:
        return next(deals).clone().random_playout(rng)

    return play


def python_loop(game: LordsOfWarGame, seed: int) -> Play:
    """(2) The forward model stepped from Python."""
    rng = np.random.default_rng(seed)
    seeds = itertools.count(seed)

    def play() -> int:
        state = game.new_state(next(seeds))
        steps = 0
        while not state.is_terminal():
            la = state.legal_actions()
            state.apply(la[int(rng.random() * len(la))])
            steps += 1
        return steps

    return play


def aec_loop(env: AECEnv, seed: int) -> Play:
    """(3) and (c): the PettingZoo AEC loop as a user writes it."""
    rng = np.random.default_rng(seed)
    seeds = itertools.count(seed)

    def play() -> int:
        env.reset(seed=next(seeds))
        steps = 0
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
                steps += 1
            env.step(action)
        return steps

    return play


def openspiel_loop(game: Any, seed: int) -> Play:
    """(a) and (b): an OpenSpiel game stepped through pyspiel (chance outcomes are uniform in these games)."""
    rng = np.random.default_rng(seed)

    def play() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            la = state.legal_actions()
            state.apply_action(la[int(rng.random() * len(la))])
            steps += 1
        return steps

    return play


def pettingzoo_connect_four() -> AECEnv:
    """PettingZoo's ``connect_four_v3`` env (its module needs pygame: the ``bench`` extra installs it)."""
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


# -- measuring ---------------------------------------------------------------------------------------------
@dataclass
class Row:
    key: str
    label: str
    play: Play
    steps: int = 0
    games: int = 0
    seconds: float = 0.0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def steps_per_game(self) -> float:
        return self.steps / self.games

    def warm_up(self) -> None:
        for _ in range(WARM_UP_GAMES):
            self.play()

    def measure(self, seconds: float) -> None:
        """Play whole games until ``seconds`` have passed; add them to the totals."""
        steps, games, elapsed = timed(self.play, seconds)
        self.steps += steps
        self.games += games
        self.seconds += elapsed


COMPARISONS = (
    Comparison("compiled", "openspiel_connect_four", 1.0, "(1) compiled playout vs pyspiel connect_four"),
    Comparison("kernel", "openspiel_connect_four", None, "(1) kernel only vs pyspiel connect_four"),
    Comparison("python", None, 100_000.0, "(2) Python loop, absolute steps/s"),
    Comparison("python", "openspiel_python_tic_tac_toe", None, "(2) Python loop vs python_tic_tac_toe"),
    Comparison("python", "openspiel_python_kuhn_poker", None, "(2) Python loop vs python_kuhn_poker"),
    Comparison("aec", "pettingzoo_connect_four", 1.0, "(3) AEC loop vs PettingZoo connect_four_v3"),
)


def build_rows(seed: int, notes: list[str]) -> list[Row]:
    game = cardboard.make_game("lords_of_war")
    pz_env = pettingzoo_connect_four()
    rows = []
    if pyspiel is not None:
        rows.append(Row("openspiel_connect_four", "OpenSpiel connect_four",
                        openspiel_loop(pyspiel.load_game("connect_four"), seed)))
    rows += [
        Row("compiled", "(1) LoW compiled playout + new_state", compiled_playout(game, seed)),
        Row("kernel", "(1) LoW compiled playout, kernel only", compiled_kernel(game, seed)),
        Row("python", "(2) LoW Python loop", python_loop(game, seed)),
    ]
    if pyspiel is not None:
        rows += [Row(f"openspiel_{name}", f"OpenSpiel {name}", openspiel_loop(pyspiel.load_game(name), seed))
                 for name in ("python_tic_tac_toe", "python_kuhn_poker")]
    else:
        notes.append("open_spiel is not importable (pip install -e '.[bench]'): its rows and ratios are skipped")
    rows += [
        Row("aec", "(3) LoW AEC loop", aec_loop(cardboard.make_env("lords_of_war"), seed)),
        Row("pettingzoo_connect_four", "PettingZoo connect_four_v3", aec_loop(pz_env, seed)),
    ]
    return rows


def game_length(game: LordsOfWarGame, games: int, seed: int) -> dict[str, float]:
    """Mean decisions and player turns of compiled random games on deals ``seed .. seed + games - 1``."""
    rng = np.random.default_rng(seed)
    decisions, turns = [], []
    for i in range(games):
        state = game.new_state(seed + i)
        decisions.append(state.random_playout(rng))
        turns.append(min(state.turn + 1, MAX_TURNS))  # ``turn`` counts completed turns; a win ends one midway
    return {"games": games, "decisions": statistics.fmean(decisions), "turns": statistics.fmean(turns),
            "decisions_per_turn": sum(decisions) / sum(turns)}


# -- report ------------------------------------------------------------------------------------------------
def print_report(console: Console, rows: list[Row], comparisons: list[dict[str, Any]],
                 length: dict[str, float], info: dict[str, Any], notes: list[str]) -> None:
    table = Table(title="Random playouts (a step = one decision)")
    for column in ("path", "steps/s", "games/s", "steps/game", "games"):
        table.add_column(column, justify="left" if column == "path" else "right")
    for row in rows:
        table.add_row(row.label, f"{row.steps_per_s:,.0f}", f"{row.games / row.seconds:,.0f}",
                      f"{row.steps_per_game:.1f}", f"{row.games:,}")
    console.print(table)

    console.print(ratio_table(comparisons, "steps/s"))

    console.print(f"Lords of War random games ({length['games']} deals): {length['decisions']:.1f} decisions, "
                  f"{length['turns']:.1f} player turns ({length['decisions_per_turn']:.2f} decisions per turn)")
    print_machine_and_notes(console, info, notes)


def main(argv: list[str] | None = None) -> None:
    parser = timing_arguments(__doc__.split("\n", 1)[0], rounds=10)
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and of the random moves (default 0)")
    parser.add_argument("--length-games", type=int, default=2000,
                        help="random games for the mean Lords of War game length (default 2000)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args(argv)

    console = Console()
    notes: list[str] = []
    rows = build_rows(args.seed, notes)
    for row in rows:
        row.warm_up()
    for _ in range(args.rounds):
        for row in rows:
            row.measure(args.seconds / args.rounds)
    comparisons = compare({row.key: row.steps_per_s for row in rows}, COMPARISONS)
    length = game_length(cardboard.make_game("lords_of_war"), args.length_games, args.seed)
    info = machine(("numpy", "numba", "pettingzoo", "open_spiel"))
    print_report(console, rows, comparisons, length, info, notes)

    if args.json:
        args.json.write_text(json.dumps({
            "seconds_per_row": args.seconds, "rounds": args.rounds, "seed": args.seed, "machine": info,
            "rows": {row.key: {"label": row.label, "steps": row.steps, "games": row.games, "seconds": row.seconds,
                               "steps_per_s": row.steps_per_s} for row in rows},
            "comparisons": comparisons, "lords_of_war_game_length": length, "notes": notes,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Vectorised envs against the AEC loops and pgx's connect_four, in the same run (issue 51).

Rows, in steps (decisions) per second, interleaved round by round:

- ``<game> vec``: ``cardboard.make_vec_env(game, N, self_play=True)`` stepped with ``random_actions()``: every
  step writes every row's observation and action mask, and games that end are dealt again (auto-reset).
- ``<game> vec vs random``: the caller plays a drawn seat, a compiled random opponent the others (steps: the
  caller's decisions; the opponent's are played inside the call and not counted).
- ``<game> AEC``: the PettingZoo AEC loop a user writes (``playout.aec_loop``).
- ``pgx connect_four``: ``benchmarks/pgx_connect_four.py`` (pgx's own benchmark: the jitted, vmapped,
  auto-resetting step over N games, random legal actions drawn inside it), after the others, in a child process of
  its own venv (``--pgx-python``, default ``.venv-pgx/bin/python``, which ``make bench`` makes: pgx installs a
  top-level ``tests`` package that would shadow ours); skipped without it.

Targets (issue 51): Lords of War's vec >= 1,000,000 steps/s, >= 30x its AEC loop and >= pgx connect_four; Hearth and
Pandemic >= 300,000.

Usage: ``.venv/bin/python benchmarks/vector.py [--num-envs 1024] [--seconds 3] [--rounds 3] [--games ...]``
"""
from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

import cardboard
from harness import (Comparison, compare, interleaved_rates, machine, print_machine_and_notes, rates_table, ratio_table,
                     timing_arguments)
from playout import aec_loop

GAMES = ("lords_of_war", "hearth", "pandemic", "fifth_aeon")
STEPS = 16  # vector steps per timed call
COMPARISONS = (
    Comparison("lords_of_war vec", None, 1_000_000, "lords_of_war vec"),
    Comparison("lords_of_war vec", "lords_of_war AEC", 30, "lords_of_war vec / its AEC loop"),
    Comparison("lords_of_war vec", "pgx connect_four", 1, "lords_of_war vec / pgx connect_four"),
    Comparison("hearth vec", None, 300_000, "hearth vec"),
    Comparison("pandemic vec", None, 300_000, "pandemic vec"),
    Comparison("fifth_aeon vec", None, None, "fifth_aeon vec"),
    *(Comparison(f"{g} vec", f"{g} AEC", None, f"{g} vec / its AEC loop") for g in GAMES[1:]),
)


def vector_rows(game: str, num_envs: int) -> dict[str, Callable[[int], int]]:
    """The self-play row and the row against a compiled random opponent."""
    rows = {}
    for label, kwargs in (("vec", dict(self_play=True)), ("vec vs random", dict(opponent="random"))):
        vec = cardboard.make_vec_env(game, num_envs, seed=0, **kwargs)

        def work(_i: int, vec=vec) -> int:
            for _ in range(STEPS):
                vec.step(vec.random_actions())
            return STEPS * vec.num_envs

        rows[f"{game} {label}"] = work
    return rows


def pgx_rate(num_envs: int, seconds: float, python: str) -> float:
    """``pgx_connect_four.py``'s steps per second, run by ``python`` (its own venv: pgx shadows our ``tests``)."""
    child = subprocess.run([python, str(Path(__file__).with_name("pgx_connect_four.py")), "--num-envs", str(num_envs),
                            "--seconds", str(seconds)], capture_output=True, text=True, check=True)
    return float(child.stdout.splitlines()[-1])


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--pgx-python", default=".venv-pgx/bin/python", help="a Python with pgx and jax (make bench)")
    args = parser.parse_args()
    console, notes = Console(), []
    rows: dict[str, Callable[[int], int]] = {}
    for game in args.games:
        rows.update(vector_rows(game, args.num_envs))
        loop = aec_loop(cardboard.make_env(game), 0)
        rows[f"{game} AEC"] = lambda _i, play=loop: play()
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    try:
        rates["pgx connect_four"] = pgx_rate(args.num_envs, args.seconds * args.rounds, args.pgx_python)
    except (OSError, subprocess.CalledProcessError) as error:
        notes.append(f"pgx connect_four skipped: {error} (make bench makes .venv-pgx with pgx and jax)")
    console.print(rates_table(rates, f"Vector envs at num_envs={args.num_envs} and AEC loops "
                                     f"({args.seconds:.0f} s a row, {args.rounds} rounds)"))
    console.print(ratio_table(compare(rates, COMPARISONS), "steps/s"))
    print_machine_and_notes(console, machine(["numpy", "numba", "pettingzoo", "jax", "pgx"]), notes)


if __name__ == "__main__":
    main()

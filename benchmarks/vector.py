"""Vectorised envs against the AEC loops and pgx's connect_four, in the same run (issue 51).

Rows, in steps (decisions) per second, interleaved round by round:

- ``<game> vec``: ``cardboard.make_vec_env(game, N, self_play=True)`` stepped with ``random_actions()``: every
  step writes every row's observation and action mask, and games that end are dealt again (auto-reset).
- ``<game> vec vs random``: the caller plays a drawn seat, a compiled random opponent the others (steps: the
  caller's decisions; the opponent's are played inside the call and not counted).
- ``<game> AEC``: the PettingZoo AEC loop a user writes (``playout.aec_loop``).
- ``pgx connect_four``: ``pgx.make("connect_four")``, ``jax.jit`` of ``jax.vmap``'s auto-resetting step over N games,
  random legal actions drawn inside the jitted call (pgx's own benchmark); in a child process after the others, so
  that XLA's thread pool does not share a process with them; skipped without pgx and jax (the ``bench`` extra).

Targets (issue 51): Lords of War's vec >= 1,000,000 steps/s, >= 30x its AEC loop and >= pgx connect_four; Hearth and
Pandemic >= 300,000.

Usage: ``.venv/bin/python benchmarks/vector.py [--num-envs 1024] [--seconds 3] [--rounds 3] [--games ...]``
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

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


def pgx_row(num_envs: int) -> Callable[[int], int]:
    """pgx's connect_four over ``num_envs`` games as pgx benchmarks itself: one jitted call a batched step, uniform
    legal actions drawn inside it, ``pgx.experimental.auto_reset`` (ImportError without pgx and jax)."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("connect_four")
    step_one = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def advance(state, key):
        key, pick, deal = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        return step_one(state, action, jax.random.split(deal, num_envs)), key

    box = [jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), num_envs)), jax.random.PRNGKey(1)]

    def work(_i: int) -> int:
        state, key = box
        for _ in range(STEPS):
            state, key = advance(state, key)
        jax.block_until_ready(state)
        box[:] = state, key
        return STEPS * num_envs

    return work


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--pgx-only", action="store_true", help="print pgx's rate alone (the child process's part)")
    args = parser.parse_args()
    if args.pgx_only:
        print(json.dumps(interleaved_rates({"pgx": pgx_row(args.num_envs)}, args.seconds, args.rounds)["pgx"]))
        return
    console, notes = Console(), []
    rows: dict[str, Callable[[int], int]] = {}
    for game in args.games:
        rows.update(vector_rows(game, args.num_envs))
        loop = aec_loop(cardboard.make_env(game), 0)
        rows[f"{game} AEC"] = lambda _i, play=loop: play()
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    child = subprocess.run([sys.executable, __file__, "--pgx-only", "--num-envs", str(args.num_envs), "--seconds",
                            str(args.seconds), "--rounds", str(args.rounds)], capture_output=True, text=True)
    if child.returncode == 0:
        rates["pgx connect_four"] = json.loads(child.stdout.splitlines()[-1])
    else:
        notes.append(f"pgx connect_four skipped: {child.stderr.strip().splitlines()[-1]} (the bench extra: pgx, jax)")
    console.print(rates_table(rates, f"Vector envs at num_envs={args.num_envs} and AEC loops "
                                     f"({args.seconds:.0f} s a row, {args.rounds} rounds)"))
    console.print(ratio_table(compare(rates, COMPARISONS), "steps/s"))
    print_machine_and_notes(console, machine(["numpy", "numba", "pettingzoo", "jax", "pgx"]), notes)


if __name__ == "__main__":
    main()

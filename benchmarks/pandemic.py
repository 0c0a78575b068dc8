"""Pandemic's forward model: five-turn simulations per second and RHEA's seconds per decision (paper 003).

Positions: the start of each bundled testbed set-up (``envs/pandemic/testbeds``, 4 players, easy) and, to see
mid-game too, each played 6 turns on by the default policy (seeded). Rows, all from clones of those positions:

- ``sim5_default``: 003 §2.3's forward simulation: the default policy for every seat over 5 player turns (macro
  decisions, the end-of-turn draws, epidemics and infections included), compiled (``play_default``), in
  simulations per second;
- ``sim5_default_python``: the same five turns stepped through the protocol from Python (the ``pandemic_default``
  agent's ``act`` and ``state.apply``, chance by ``sample_chance``): what a generic planner pays;
- ``random_steps``: uniformly random primitive decisions (compiled ``random_playout``, ``rollout=uniform``) in
  decisions per second, for the engine alone;
- ``rhea_decision``: one ``rhea`` decision at the paper's setting (horizon 5, 100 generations, 5 evaluations,
  fitness ``p_oa_cm``, ``pandemic_default`` repair, ``pandemic_mutator``), in decisions per second; the report
  also prints its inverse, seconds per decision, and the five-turn simulations it runs (about 600);
- ``ismcts_macro``: p003_pandemic/RESULTS.md's ISMCTS over macro-actions (``ismcts:iterations=600,depth=5``: a structured
  determinization an iteration, c = 0.7, rollouts of 5 turns by the default policy, then the heuristic), in
  iterations per second of whole 600-iteration decisions, whole iterations compiled (``search.compiled`` with
  Pandemic's ``compiled_model``); ``ismcts_macro_python``: the same on the Python path (``compiled=False``), the
  same trees and generator state (tests/test_compiled_pandemic.py).

The paper reports no timing; the ratio printed is RHEA's effective simulation rate against the compiled one.

Usage: ``.venv/bin/python benchmarks/pandemic.py [--seconds 3] [--rounds 3]``
"""
from __future__ import annotations

import dataclasses

import numpy as np
from rich.console import Console
from rich.table import Table

import cardboard
from cardboard.envs.kernels import seed_stream
from cardboard.envs.pandemic import default_policy as D
from cardboard.envs.pandemic.macro import NUM_MACROS
from cardboard.envs.pandemic.setup_file import TESTBED_DIR
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.search.mcts import TreeSearch
from harness import Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table, timing_arguments

HORIZON = 5
RHEA_SPEC = "rhea:fitness=p_oa_cm,repair=pandemic_default,mutator=pandemic_mutator"
COMPARISONS = (Comparison("rhea_sims", "sim5_default", None,
                          "RHEA's five-turn simulations per second / the compiled simulation's"),
               Comparison("sim5_default_python", "sim5_default", None,
                          "five turns stepped from Python / compiled"),
               Comparison("ismcts_macro", "ismcts_macro_python", 3.0,
                          "ISMCTS over macro-actions (d=5): compiled vs the Python path (issue 32: >= 3x)"))
ISMCTS_SPEC = "ismcts:iterations=600,depth=5"  # p003_pandemic/RESULTS.md's ISMCTS


def positions(games: dict[str, object], rng: np.random.Generator) -> list:
    """Every testbed set-up's start, and each 6 turns on (default policy)."""
    out = []
    for name, game in games.items():
        start = game.new_state(0)
        out.append(start)
        later = start.clone()
        D.play_default(later.s, later.cards, np.empty(NUM_MACROS, np.int32), seed_stream(rng), 6)
        if not later.is_terminal():
            out.append(type(start)(game, later.s))
    return out


def sim5_compiled(state, buf: np.ndarray, rng: np.random.Generator) -> int:
    world = state.s.copy()
    D.play_default(world, state.cards, buf, seed_stream(rng), state.turn + HORIZON)
    return 1


def sim5_python(state, agent, rng: np.random.Generator) -> int:
    world = state.clone()
    agent.reset()
    while not world.is_terminal() and world.turn < state.turn + HORIZON:
        world.apply(sample_chance(world, rng) if world.current_player == CHANCE else agent.act(world, rng))
    return 1


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    args = parser.parse_args()
    console = Console()
    rng = np.random.default_rng(0)
    names = sorted(p.stem for p in TESTBED_DIR.glob("S*.json"))
    games = {n: cardboard.make_game("pandemic", setup=n, actions="macro") for n in names}
    uniform = {n: cardboard.make_game("pandemic", setup=n, rollout="uniform") for n in names}
    states = positions(games, rng)
    primitive = [uniform[n].new_state(0) for n in names]
    buf = np.empty(NUM_MACROS, dtype=np.int32)
    dp = cardboard.make_agent("pandemic_default", games[names[0]])
    rhea = cardboard.make_agent(RHEA_SPEC, games[names[0]])
    ismcts = cardboard.make_agent(ISMCTS_SPEC, games[names[0]]).searcher
    ismcts_python = TreeSearch(dataclasses.replace(ismcts.config, compiled=False), "ismcts")
    sims_per_decision = []

    def rhea_decision(i: int) -> int:
        result = rhea.plan(states[i % len(states)], rng)
        sims_per_decision.append(1 + result.generations_run + result.evaluations_run)  # builds + evaluations
        return 1

    rows = {
        "sim5_default": lambda i: sim5_compiled(states[i % len(states)], buf, rng),
        "sim5_default_python": lambda i: sim5_python(states[i % len(states)], dp, rng),
        "random_steps": lambda i: primitive[i % len(primitive)].clone().random_playout(rng),
        "rhea_decision": rhea_decision,
        "ismcts_macro": lambda i: ismcts.search(states[i % len(states)], rng).iterations,
        "ismcts_macro_python": lambda i: ismcts_python.search(states[i % len(states)], rng).iterations,
    }
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    sims = float(np.mean(sims_per_decision))
    rates["rhea_sims"] = rates["rhea_decision"] * sims
    table = Table(title=f"Pandemic, {len(states)} positions of the testbed ({args.seconds:.0f} s a row, "
                        f"{args.rounds} rounds)")
    for column in ("row", "rate", "cost"):
        table.add_column(column, justify="left" if column == "row" else "right")
    units = {"sim5_default": "five-turn sims/s", "sim5_default_python": "five-turn sims/s",
             "random_steps": "decisions/s", "rhea_decision": "decisions/s", "rhea_sims": "five-turn sims/s",
             "ismcts_macro": "iterations/s", "ismcts_macro_python": "iterations/s"}
    for name, rate in rates.items():
        cost = f"{1 / rate:.3f} s" if name == "rhea_decision" else f"{1e6 / rate:,.1f} µs"
        table.add_row(name, f"{rate:,.1f} {units[name]}", cost)
    console.print(table)
    console.print(f"RHEA: {sims:.0f} five-turn simulations a decision (1 parent build + generations x (1 build + "
                  f"5 evaluations) + 5 parent evaluations)")
    console.print(ratio_table(compare(rates, COMPARISONS), "sims/s"))
    print_machine_and_notes(console, machine(["numpy", "numba"]), [])


if __name__ == "__main__":
    main()

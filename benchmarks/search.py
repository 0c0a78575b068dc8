"""Search throughput: iterations per second of our UCT and ISMCTS, with OpenSpiel's MCTS/ISMCTS in the same run.

What is measured: simulations (iterations) per second of whole decisions, each decision a fresh search
of ``--iterations`` iterations from one FIXED position, random rollouts to the end of the game, timed
around the search call (tree set-up included). Rows:

- ``uct``: our ``TreeSearch(..., "uct")`` on Lords of War, searching the true state (perfect information), by
  default: whole iterations compiled (``cardboard.search.compiled``);
- ``ismcts``: our ``TreeSearch(..., "ismcts")`` on Lords of War (a fresh determinization every iteration), compiled;
- ``uct_python`` / ``ismcts_python``: the same searches on the Python path (``SearchConfig(compiled=False)``: the
  same trees, every tree step a Python call);
- ``uct_connect_four``: our UCT on OpenSpiel's ``connect_four`` through a small protocol adapter
  (context only: every step is a pyspiel call from Python, so this mostly measures the adapter);
- ``os_cpp_ismcts`` / ``os_py_ismcts``: OpenSpiel's C++ ``pyspiel.ISMCTSBot`` and pure-Python
  ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on ``hearts`` (a card game of similar length);
- ``os_cpp_mcts`` / ``os_py_mcts``: OpenSpiel's C++ ``pyspiel.MCTSBot`` and pure-Python
  ``open_spiel.python.algorithms.mcts.MCTSBot`` on ``connect_four`` (``solve=False``: plain UCT).

Every OpenSpiel bot uses a random-rollout evaluator with one rollout, UCT constant ``--c-openspiel``
(OpenSpiel's rewards are in [-1, 1], ours in [0, 1], so its 2.0 is about our 1.0; the constant changes
tree shape, not the cost of an iteration, much).

The positions: Lords of War ``new_state("lords_of_war", seed=1)`` then 40 random moves drawn with
``numpy.random.default_rng(1)``; hearts: the deal (chance outcomes drawn with ``default_rng(1)``), the
passes and 20 random card plays; connect_four: the opening ``3 3 2 4 3 2``. The report prints the
number of decisions left in a random playout from each, the length a rollout pays for.

Ratios are of rows of one process run, interleaved in ``--rounds`` rounds, each row warmed up first.
OpenSpiel is optional (the ``bench`` extra): without it its rows are skipped with a note.

Usage: ``.venv/bin/python benchmarks/search.py [--seconds 3] [--rounds 3] [--iterations 1000] [--json PATH]``
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

import cardboard
from harness import Comparison, compare, machine, print_machine_and_notes, ratio_table, timed, timing_arguments
from cardboard.envs.openspiel_adapter import OpenSpielState
from cardboard.search.mcts import SearchConfig, TreeSearch

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts
except ImportError:
    pyspiel = None

Decide = Callable[[], int]  # runs one search from the fixed position, returns the simulations it did

LOW_SEED, LOW_MOVES = 1, 40
HEARTS_SEED, HEARTS_PLAYS = 1, 20
CONNECT_FOUR_OPENING = (3, 3, 2, 4, 3, 2)


# -- positions ---------------------------------------------------------------------------------------------
def lords_of_war_position():
    state = cardboard.new_state("lords_of_war", seed=LOW_SEED)
    rng = np.random.default_rng(LOW_SEED)
    for _ in range(LOW_MOVES):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def hearts_position(game: Any):
    """The deal and passes, then ``HEARTS_PLAYS`` random card plays (the pass phase is 12 decisions)."""
    rng = np.random.default_rng(HEARTS_SEED)
    state = game.new_initial_state()
    decisions = 0
    while True:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.array(probs) / sum(probs))]))
            continue
        if decisions >= 12 + HEARTS_PLAYS:
            return state
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        decisions += 1


def connect_four_position(game: Any):
    state = game.new_initial_state()
    for a in CONNECT_FOUR_OPENING:
        state.apply_action(a)
    return state


def decisions_left_openspiel(state: Any, games: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    total = 0
    for _ in range(games):
        s = state.clone()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.array(probs) / sum(probs))]))
                continue
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
            total += 1
    return total / games


# -- one decision, each way --------------------------------------------------------------------------------
def ours(state: Any, worlds: str, iterations: int, c: float, seed: int, use_compiled: bool = True) -> Decide:
    search = TreeSearch(SearchConfig(iterations=iterations, c=c, compiled=use_compiled), worlds)
    rng = np.random.default_rng(seed)

    def decide() -> int:
        return search.search(state, rng).iterations

    return decide


def openspiel_bot(bot: Any, state: Any, iterations: int) -> Decide:
    def decide() -> int:
        bot.step(state)
        return iterations

    return decide


# -- measuring ---------------------------------------------------------------------------------------------
@dataclass
class Row:
    key: str
    label: str
    game: str
    decide: Decide
    sims: int = 0
    decisions: int = 0
    seconds: float = 0.0
    decisions_left: float = float("nan")

    @property
    def sims_per_s(self) -> float:
        return self.sims / self.seconds

    def measure(self, seconds: float) -> None:
        """Whole decisions until ``seconds`` have passed (at least one)."""
        sims, decisions, elapsed = timed(self.decide, seconds)
        self.sims += sims
        self.decisions += decisions
        self.seconds += elapsed


COMPARISONS = (
    Comparison("ismcts", "os_cpp_ismcts", 1.0, "compiled ISMCTS (LoW) / OpenSpiel C++ ISMCTS (hearts)"),
    Comparison("ismcts", "ismcts_python", 3.0, "compiled ISMCTS / Python ISMCTS (both LoW)"),
    Comparison("uct", "uct_python", None, "compiled UCT / Python UCT (both LoW)"),
    Comparison("ismcts_python", "os_py_ismcts", 5.0, "ours Python ISMCTS (LoW) / OpenSpiel Python ISMCTS (hearts)"),
    Comparison("ismcts_python", None, 10_000.0, "ours Python ISMCTS (LoW), absolute it/s"),
    Comparison("uct", "os_py_mcts", None, "compiled UCT (LoW) / OpenSpiel Python MCTS (connect_four)"),
    Comparison("uct", "os_cpp_mcts", None, "compiled UCT (LoW) / OpenSpiel C++ MCTS (connect_four)"),
    Comparison("uct_connect_four", "os_py_mcts", None,
               "ours UCT via pyspiel adapter / OpenSpiel Python MCTS (both connect_four)"),
)


def build_rows(iterations: int, c: float, c_openspiel: float, seed: int, notes: list[str]) -> list[Row]:
    low = lords_of_war_position()
    left = np.random.default_rng(seed)
    low_left = float(np.mean([low.clone().random_playout(left) for _ in range(200)]))
    rows = [Row("uct", "ours UCT (true state), compiled", "lords_of_war", ours(low, "uct", iterations, c, seed)),
            Row("ismcts", "ours ISMCTS, compiled", "lords_of_war", ours(low, "ismcts", iterations, c, seed)),
            Row("uct_python", "ours UCT (true state), Python", "lords_of_war",
                ours(low, "uct", iterations, c, seed, use_compiled=False)),
            Row("ismcts_python", "ours ISMCTS, Python", "lords_of_war",
                ours(low, "ismcts", iterations, c, seed, use_compiled=False))]
    ours_rows = len(rows)
    for row in rows:
        row.decisions_left = low_left
    if pyspiel is None:
        notes.append("open_spiel is not importable (pip install -e '.[bench]'): its rows and ratios are skipped")
        return rows
    hearts = pyspiel.load_game("hearts")
    hearts_state = hearts_position(hearts)
    c4 = pyspiel.load_game("connect_four")
    c4_state = connect_four_position(c4)
    final = pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
    rows += [
        Row("uct_connect_four", "ours UCT, pyspiel adapter", "connect_four",
            ours(OpenSpielState(c4, c4_state.clone()), "uct", iterations, c, seed)),
        Row("os_cpp_ismcts", "OpenSpiel C++ ISMCTSBot", "hearts", openspiel_bot(
            pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), c_openspiel, iterations, -1, final,
                              False, False), hearts_state, iterations)),
        Row("os_py_ismcts", "OpenSpiel Python ISMCTSBot", "hearts", openspiel_bot(
            os_ismcts.ISMCTSBot(hearts, os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), c_openspiel,
                                iterations, random_state=np.random.RandomState(seed),
                                final_policy_type=os_ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT),
            hearts_state, iterations)),
        Row("os_cpp_mcts", "OpenSpiel C++ MCTSBot", "connect_four", openspiel_bot(
            pyspiel.MCTSBot(c4, pyspiel.RandomRolloutEvaluator(1, seed), c_openspiel, iterations, 1000, False, seed,
                            False), c4_state, iterations)),
        Row("os_py_mcts", "OpenSpiel Python MCTSBot", "connect_four", openspiel_bot(
            os_mcts.MCTSBot(c4, c_openspiel, iterations, os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                            solve=False, random_state=np.random.RandomState(seed)), c4_state, iterations)),
    ]
    for row in rows[ours_rows:]:
        row.decisions_left = decisions_left_openspiel(hearts_state if row.game == "hearts" else c4_state, 200, seed)
    return rows


# -- report ------------------------------------------------------------------------------------------------
def print_report(console: Console, rows: list[Row], comparisons: list[dict[str, Any]], iterations: int,
                 info: dict[str, Any], notes: list[str]) -> None:
    table = Table(title=f"Search iterations per second ({iterations} iterations a decision, random rollouts)")
    for column in ("search", "game", "it/s", "ms/decision", "decisions", "decisions left"):
        table.add_column(column, justify="left" if column in ("search", "game") else "right")
    for row in rows:
        table.add_row(row.label, row.game, f"{row.sims_per_s:,.0f}", f"{1000 * row.seconds / row.decisions:,.1f}",
                      f"{row.decisions:,}", f"{row.decisions_left:.1f}")
    console.print(table)

    console.print(ratio_table(comparisons, "it/s"))
    console.print(f"Positions: Lords of War new_state(seed={LOW_SEED}) + {LOW_MOVES} random moves "
                  f"(default_rng({LOW_SEED})); hearts deal+passes (default_rng({HEARTS_SEED})) + {HEARTS_PLAYS} "
                  f"random plays; connect_four opening {' '.join(map(str, CONNECT_FOUR_OPENING))}")
    print_machine_and_notes(console, info, notes)


def main(argv: list[str] | None = None) -> None:
    parser = timing_arguments(__doc__.split("\n", 1)[0], rounds=3)
    parser.add_argument("--iterations", type=int, default=1000, help="iterations per decision, every row (default 1000)")
    parser.add_argument("--c", type=float, default=0.7, help="our UCB1 constant, rewards in [0, 1] (default 0.7)")
    parser.add_argument("--c-openspiel", type=float, default=2.0,
                        help="OpenSpiel's uct_c, rewards in [-1, 1] (default 2.0)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the searches (default 0)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args(argv)

    console = Console()
    notes: list[str] = []
    rows = build_rows(args.iterations, args.c, args.c_openspiel, args.seed, notes)
    for row in rows:
        row.decide()  # warm-up: numba caches, first-call costs
    for _ in range(args.rounds):
        for row in rows:
            row.measure(args.seconds / args.rounds)
    comparisons = compare({row.key: row.sims_per_s for row in rows}, COMPARISONS)
    info = machine(("numpy", "numba", "open_spiel"))
    print_report(console, rows, comparisons, args.iterations, info, notes)

    if args.json:
        args.json.write_text(json.dumps({
            "seconds_per_row": args.seconds, "rounds": args.rounds, "iterations": args.iterations, "c": args.c,
            "c_openspiel": args.c_openspiel, "seed": args.seed, "machine": info,
            "positions": {"lords_of_war": f"new_state(seed={LOW_SEED}) + {LOW_MOVES} random moves",
                          "hearts": f"deal + passes + {HEARTS_PLAYS} random plays",
                          "connect_four": " ".join(map(str, CONNECT_FOUR_OPENING))},
            "rows": {row.key: {"label": row.label, "game": row.game, "iterations": row.sims,
                               "decisions": row.decisions, "seconds": row.seconds, "iterations_per_s": row.sims_per_s,
                               "decisions_left": row.decisions_left} for row in rows},
            "comparisons": comparisons, "notes": notes,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()

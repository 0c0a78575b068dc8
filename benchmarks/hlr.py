"""Paper 001's network-guided rollouts (HLR, Algorithm 5) against the default rollouts, and DUCT+HLR iterations/s.

Rows, from the FIXED mid-game positions of ``benchmarks/hearth.py`` (the three mirrors), every rollout d = 5 turns
from a clone of the position, in rollouts per second:

- ``random_rollout``: the game's compiled playout (``random_playout``: the default ``sensible`` policy, uniform
  over the pruned moves, never passing early), what DUCT's rollouts are without a network;
- ``hlr_rollout_bB`` (B = 1, 10, 64): ``HLRRollout`` with the small DNN+Merge (``dnn_140k``, untrained weights
  seeded 0: the cost does not depend on them) on CPU, B rollouts advanced in lock-step so each simulated turn's
  network call scores B states in one batch (``batching.run_together``: what DUCT with ``leaves=B`` does; the
  thesis's loop over its 10 worlds gives B = 10);
- ``hlr_rollout_nonet``: the same compiled turns with constant scores (no network, no encoding): the cost of
  the H(a) low-level policy alone;
- ``duct_prune_d5`` and ``duct_hlr_d5`` (``leaves=10``): whole decisions of ``--iterations`` iterations
  (10 worlds, c = 0.7, pruning), iterations per second.

Targets (issue 18): an HLR rollout costs at most 2x a random one on CPU at the batch sizes search reaches
(thesis: 5x or more, one state per network call through PythonNet), i.e. a rate ratio of at least 0.5.

Usage: ``.venv/bin/python benchmarks/hlr.py [--seconds 3] [--rounds 3] [--iterations 300]``
"""
from __future__ import annotations

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

import cardboard
from harness import (Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table,
                     timing_arguments)
from hearth import DECKS, position
from cardboard.envs.hearth import layout as L
from cardboard.evaluation.papers.p001_hearthstone.card_play import make_card_play_net
from cardboard.evaluation.papers.p001_hearthstone.hlr import CardScorer, HLRRollout, num_card_ids
from cardboard.search.agents import duct
from cardboard.search.batching import run_together
from cardboard.search.mcts import SearchConfig

DEPTH = 5
BATCHES = (1, 10, 64)
COMPARISONS = [Comparison(f"hlr_rollout_b{b}", "random_rollout", 0.5, f"HLR rollout rate / random rollout, batch {b}")
               for b in BATCHES] + [
    Comparison("hlr_rollout_nonet", "random_rollout", None, "HLR turns without the network / random rollout"),
    Comparison("duct_hlr_d5", "duct_prune_d5", None, "DUCT+HLR iterations/s / DUCT's"),
]


class Constant:
    """Scores every card 0.5: the HLR turns without a network."""

    def __call__(self, state) -> np.ndarray:
        return np.full(L.NUM_CARDS, 0.5)


def lockstep(rollout: HLRRollout, states: list, rng: np.random.Generator) -> int:
    """Run one rollout per state, all advanced together; returns how many."""
    config = SearchConfig(depth=DEPTH)
    return sum(1 for _ in run_together((rollout.steps(s.clone(), rng, config) for s in states), len(states)))


def random_rollout(state, rng: np.random.Generator) -> int:
    """One compiled rollout of ``DEPTH`` turns from a clone; returns 1."""
    state.clone().random_playout(rng, DEPTH)
    return 1


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--iterations", type=int, default=300, help="DUCT iterations per decision (default 300)")
    args = parser.parse_args()
    console = Console()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    positions = [position(d) for d in DECKS]
    rollouts, agents = [], []
    for deck, state in zip(DECKS, positions):
        features = state.card_play_features()
        scorer = CardScorer(make_card_play_net("dnn_140k", features.K), features, num_card_ids(state))
        rollouts.append(HLRRollout(scorer))
        path = f"/tmp/cardboard-bench-hlr-{deck}.pt"
        scorer.net.save(path)
        game = cardboard.registry.make_game("hearth", decks=deck)
        agents.append((duct(iterations=args.iterations, depth=DEPTH, prune=True, game=game),
                       cardboard.registry.make_agent(f"duct:iterations={args.iterations},depth={DEPTH},prune=1,"
                                                     f"leaves=10,hlr={path}", game)))
    plain = HLRRollout(Constant())
    rows = {"random_rollout": lambda i: random_rollout(positions[i % 3], rng)}
    for b in BATCHES:
        rows[f"hlr_rollout_b{b}"] = lambda i, b=b: lockstep(rollouts[i % 3], [positions[i % 3]] * b, rng)
    rows["hlr_rollout_nonet"] = lambda i: lockstep(plain, [positions[i % 3]] * 10, rng)
    rows["duct_prune_d5"] = lambda i: agents[i % 3][0].searcher.search(positions[i % 3], rng).iterations
    rows["duct_hlr_d5"] = lambda i: agents[i % 3][1].searcher.search(positions[i % 3], rng).iterations
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    table = Table(title=f"HLR rollouts, d = {DEPTH} turns ({args.seconds:.0f} s a row, {args.rounds} rounds)")
    table.add_column("row")
    table.add_column("rate", justify="right")
    table.add_column("cost", justify="right")
    for name, rate in rates.items():
        unit = "iterations/s" if name.startswith("duct") else "rollouts/s"
        table.add_row(name, f"{rate:,.0f} {unit}", f"{1e6 / rate:,.0f} µs")
    console.print(table)
    console.print(ratio_table(compare(rates, COMPARISONS), "rollouts/s"))
    print_machine_and_notes(console, machine(["numpy", "numba", "torch"]) | {"torch_threads": torch.get_num_threads()},
                            [])


if __name__ == "__main__":
    main()

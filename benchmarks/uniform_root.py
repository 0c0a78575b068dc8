"""Does a ``root=1`` agent win by its network's knowledge or by PUCT's rule at the root? The control.

Plays agent A, a ``root=1`` spec, with its network's prior replaced by a uniform one (the same PUCT step at the
root, no knowledge; no forward pass either, so the control's search keeps the iterations the network's pass costs)
against agent B at equal time, seats swapped, two worker processes of one torch thread. ``--each KEY=V1,V2`` plays
the match under each value of a game option (Hearth's three mirrors), ``--games`` games each, and pools them.

    python benchmarks/uniform_root.py hearth \\
        duct:net=zoo:hearth,root=1,cpuct=2,depth=5,prune=1,iterations=0,seconds=0.02 \\
        duct:depth=5,prune=1,iterations=0,seconds=0.02 --games 300 --seed 3331 \\
        --each decks=mech_mage,handlock,face_hunter
"""
from __future__ import annotations

import argparse
import dataclasses
from multiprocessing import Pool

import numpy as np
import torch

from cardboard.evaluation.match import play_game
from cardboard.jobs.intervals import wilson_interval
from cardboard.registry import make_agent, make_game
from cardboard.search.strategies import Evaluation


@dataclasses.dataclass(frozen=True)
class UniformPrior:
    """A root-prior evaluator that knows nothing: every action weighted alike, values zero."""

    num_actions: int
    num_players: int
    arrays = False
    prior = True

    def __call__(self, state) -> Evaluation:
        return Evaluation(np.zeros(self.num_players), np.ones(self.num_actions))


def play(job: tuple[str, dict[str, str], str, str, int, int]) -> tuple[int, int]:
    """Game ``g`` of the control (seat 0 in even games) against B: (A won, drawn)."""
    name, options, a_spec, b_spec, seed, g = job
    torch.set_num_threads(1)
    game = make_game(name, **options)
    a = make_agent(a_spec, game)
    if a.searcher.config.root_prior is None:
        raise SystemExit(f"{a_spec!r} has no root prior: expected a root=1 spec")
    a.searcher.config = dataclasses.replace(a.searcher.config,
                                            root_prior=UniformPrior(game.info.num_actions, game.info.num_players))
    b = make_agent(b_spec, game)
    seat = g % 2
    returns, *_ = play_game(game, [a, b] if seat == 0 else [b, a], np.random.default_rng([seed, g]))
    return int(returns[seat] > returns[1 - seat]), int(returns[seat] == returns[1 - seat])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("agents", nargs=2, help="A (a root=1 spec) and B")
    parser.add_argument("--games", type=int, default=100, help="games under each option value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--each", default=None, metavar="KEY=V1,V2", help="play the match under each value")
    args = parser.parse_args()
    key, values = (args.each.split("=", 1)[0], args.each.split("=", 1)[1].split(",")) if args.each else (None, [None])
    total = [0, 0, 0]
    with Pool(2) as pool:
        for i, value in enumerate(values):
            options = {key: value} if key else {}
            jobs = [(args.game, options, *args.agents, args.seed + i, g) for g in range(args.games)]
            results = pool.map(play, jobs, chunksize=4)
            won, drawn = sum(r[0] for r in results), sum(r[1] for r in results)
            row = (won, drawn, len(results) - won - drawn)
            total = [t + r for t, r in zip(total, row)]
            print(f"{value or args.game}: {_line(*row)}", flush=True)
    print(f"uniform root prior, pooled: {_line(*total)}")


def _line(won: int, drawn: int, lost: int) -> str:
    n = won + drawn + lost
    low, high = wilson_interval(won, n)
    return f"{won}/{drawn}/{lost}, wins {100 * won / n:.1f}% ({100 * low:.1f}-{100 * high:.1f}) of {n}"

if __name__ == "__main__":
    main()

"""Is an equal-time match fair? The wall time of each side's searched decisions, forced moves apart.

A match table's ``ms/dec.`` averages over every decision, forced ones (a single legal move, played at once)
included, so two agents with the same budget differ there when one is led into more forced moves. This plays
``--games`` games (seats swapped) with one torch thread, as ``cardboard play`` runs them, and prints for each side
its decisions, forced moves, and the mean and median milliseconds and iterations of its searched decisions (the first
search of the process, which loads the network, left out).

    python benchmarks/equal_time.py lords_of_war \\
        ismcts:net=zoo:lords_of_war,root=1,cpuct=2,prune=h4,hpl=20,iterations=0,seconds=0.01 \\
        ismcts:prune=h4,hpl=20,iterations=0,seconds=0.01 --games 6
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from cardboard.evaluation.match import play_game
from cardboard.registry import make_agent, make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("agents", nargs=2, help="two agent specs")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make_game(args.game, **dict(o.split("=", 1) for o in args.option))
    agents = [make_agent(spec, game) for spec in args.agents]
    logs: list[list[tuple[int, float, int]]] = [[], []]
    for agent, log in zip(agents, logs):
        act = agent.act

        def timed(state, rng, act=act, log=log, agent=agent):
            legal = len(state.legal_actions())
            start = time.perf_counter()
            action = act(state, rng)
            searched = getattr(agent, "last", None)
            log.append((legal, time.perf_counter() - start, searched.iterations if searched is not None else 0))
            return action

        agent.act = timed
    for g in range(args.games):
        play_game(game, agents if g % 2 == 0 else agents[::-1], np.random.default_rng(args.seed + g))
    for spec, log in zip(args.agents, logs):
        rows = np.array(log)
        forced = rows[:, 0] == 1
        searched = rows[~forced][1:]
        print(f"{spec}\n  decisions {len(rows)}, forced {int(forced.sum())}; searched: "
              f"{1000 * searched[:, 1].mean():.2f} ms mean, {1000 * np.median(searched[:, 1]):.2f} ms median, "
              f"{searched[:, 2].mean():.0f} iterations mean")


if __name__ == "__main__":
    main()

"""How a search tree spreads its visits over chance nodes: the measurement behind p001_hearthstone/RESULTS.md's CNB reading.

Chance-node bucketing (paper 001 §2.6) can only matter where iterations pass
through tree chance nodes often enough for the split of their visits among
successors to change what is learned below them. ``chance_profile`` measures
that on positions met in real play::

    python -m cardboard.evaluation.tree_shape hearth --option decks=mech_mage \\
        --agent duct:iterations=1000,depth=5,prune=1,cnb=1 --play greedy_h --positions 50 --seed 0
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from .. import registry
from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, Game, GameState, sample_chance
from ..search.agents import SearchAgent
from ..search.mcts import SearchConfig
from ..search.tree import VISITS, Node


def visits(node: Node) -> int:
    """Iterations that passed through ``node`` (a chance node's: those of the nodes below it)."""
    if node.player == CHANCE:
        return sum(visits(child) for child in node.children())
    return int(node.stat[VISITS, node.edges].sum())


def chance_nodes(root: Node) -> list[tuple[int, int, int]]:
    """(visits, successors, depth) of every chance node below ``root``, the most visited first."""
    found, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.player == CHANCE:
            found.append((visits(node), len(node.edges), depth))
        stack.extend((child, depth + 1) for child in node.children())
    return sorted(found, reverse=True)


def positions_in_play(game: Game, spec: str, count: int, rng: np.random.Generator, every: int = 7,
                      min_turn: int = 6) -> list[GameState]:
    """``count`` decision points with a choice, every ``every``-th decision from turn ``min_turn`` on, of games
    that agent ``spec`` plays against itself."""
    agent, found = registry.make_agent(spec, game), []
    while len(found) < count:
        state, decisions = game.new_state(rng), 0
        while not state.is_terminal() and len(found) < count:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            decisions += 1
            if decisions % every == 0 and state.turn >= min_turn and len(state.legal_actions()) > 1:
                found.append(state.clone())
            state.apply(agent.act(state, rng))
    return found


def chance_profile(game: Game, spec: str, positions: Sequence[GameState], seed: int, hottest: int = 4) -> dict:
    """Means over one search per position by search agent ``spec``: chance nodes, their successors, the
    visits and successors of the ``hottest`` most visited, and tree chance steps per iteration."""
    agent = registry.make_agent(spec, game)
    if not isinstance(agent, SearchAgent) or not isinstance(getattr(agent.searcher, "config", None), SearchConfig):
        raise InvalidParameterError(f"tree_shape needs a tree-search agent, got {spec!r}")
    nodes, successors, steps, hot_visits, hot_successors = [], [], [], [], []
    for i, state in enumerate(positions):
        agent.act(state, np.random.default_rng([seed, i]))
        if agent.last is None or not agent.last.iterations:
            continue  # a forced move, or one read off a kept tree: no search to look at
        found = chance_nodes(agent.last.root)
        nodes.append(len(found))
        successors.extend(n for _, n, _ in found)
        steps.append(sum(v for v, _, _ in found) / agent.last.iterations)
        hot_visits.extend(v for v, _, _ in found[:hottest])
        hot_successors.extend(n for _, n, _ in found[:hottest])
    return {"chance nodes a search": float(np.mean(nodes)), "successors a chance node": float(np.mean(successors)),
            "tree chance steps an iteration": float(np.mean(steps)),
            f"visits of the {hottest} hottest": float(np.mean(hot_visits)),
            f"successors of the {hottest} hottest": float(np.mean(hot_successors))}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m cardboard.evaluation.tree_shape", description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    parser.add_argument("--agent", action="append", required=True, help="a tree-search agent spec (repeatable)")
    parser.add_argument("--play", default="random", help="the agent whose self-play games give the positions")
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = registry.make_game(args.game, **registry.parse_game_options(args.option))
    positions = positions_in_play(game, args.play, args.positions, np.random.default_rng(args.seed))
    for spec in args.agent:
        profile = chance_profile(game, spec, positions, args.seed)
        print(spec, "  ".join(f"{k}: {v:.2f}" for k, v in profile.items()), sep="\n  ")


if __name__ == "__main__":
    main()

"""What a learned leaf value and a learned rollout cost against a compiled random rollout from the same leaves (issue
49's bar: one call of the compiled network on a Lords of War leaf costs at most twice a rollout), in one process.

    python benchmarks/leaf_value_cost.py [--game lords_of_war] [--hidden 128 32] [--leaves 200] [--repeat 20]

Leaves: the decision states of random games (every fifth move's; chance by ``sample_chance``). A rollout: the leaf copied, the
game's compiled ``playout`` to the end. A network call: the leaf's compiled ``observation`` for its player to move,
then ``leaf_value.leaf_values`` (random weights of the given hidden sizes: the cost does not depend on them). A
learned rollout (``vroll``): the leaf copied, the compiled loop's own ``_learned_playout`` to the end (the network's
hidden layers once a turn, its policy head every move). All timed inside one compiled loop over all leaves (no
Python between calls); the median of ``--repeat`` rounds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

import cardboard
from cardboard.envs.protocol import CHANCE, TERMINAL, sample_chance
from cardboard.search.compiled import _learned_playout, _no_chance
from cardboard.search.leaf_value import LeafNet, leaf_values


def leaves_of(game: str, count: int, seed: int) -> list:
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = cardboard.new_state(game, seed=int(rng.integers(1 << 30)))
        moves = 0
        while not state.is_terminal():
            if moves % 5 == 0 and state.current_player >= 0:
                found.append(state.clone())
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
            moves += 1
    return found[:count]


@njit(cache=True)
def _rollouts(playout, worlds, table, buf, world, turn_limit):
    stream = np.ones(1, dtype=np.uint64)
    for i in range(worlds.shape[0]):
        world[:] = worlds[i]
        stream[0] = np.uint64(2 * i + 1)
        playout(world, table, buf, stream, turn_limit)


@njit(cache=True)
def _learned(legal_actions, apply, player, turn, sample_chance, observation, worlds, table, buf, world, turn_limit,
             w1, b1, w2, b2, wp, bp):
    stream = np.ones(1, dtype=np.uint64)
    seen = np.empty(w1.shape[0], dtype=np.float32)
    h1, h2, weights = np.empty_like(b1), np.empty_like(b2), np.empty(buf.shape[0])
    for i in range(worlds.shape[0]):
        world[:] = worlds[i]
        stream[0] = np.uint64(2 * i + 1)
        _learned_playout(world, table, buf, stream, turn_limit, legal_actions, apply, player, turn, sample_chance,
                         observation, w1, b1, w2, b2, wp, bp, 1.0, seen, h1, h2, weights)


@njit(cache=True)
def _network(observation, player, worlds, table, players, w1, b1, w2, b2, w3, b3, out):
    seen = np.empty(w1.shape[0], dtype=np.float32)
    h1, h2 = np.empty_like(b1), np.empty_like(b2)
    for i in range(worlds.shape[0]):
        observation(worlds[i], table, player(worlds[i]), seen)
        leaf_values(w1, b1, w2, b2, w3, b3, seen, h1, h2, out[i])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="lords_of_war")
    parser.add_argument("--hidden", type=int, nargs=2, default=(128, 32))
    parser.add_argument("--leaves", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    leaves = leaves_of(args.game, args.leaves, 7)
    models = [leaf.compiled_model() for leaf in leaves]
    model, info = models[0], leaves[0].info
    assert model.observation is not None, f"{args.game} offers no compiled observation kernel"
    worlds = np.stack([m.state for m in models])
    size, (h1, h2) = int(np.prod(info.observation_shape)), args.hidden
    rng = np.random.default_rng(0)
    net = LeafNet(*(rng.normal(0, 0.1, shape).astype(np.float32) for shape in
                    ((size, h1), (h1,), (h1, h2), (h2,), (h2, info.num_players), (info.num_players,),
                     (h2, info.num_actions), (info.num_actions,))))
    buf, world = np.empty(model.buffer_len, dtype=np.int32), np.empty_like(worlds[0])
    out = np.empty((len(leaves), info.num_players))
    rollout = lambda: _rollouts(model.playout, worlds, model.table, buf, world, info.max_turns + 1)  # noqa: E731
    network = lambda: _network(model.observation, model.player, worlds, model.table, info.num_players,  # noqa: E731
                               *net.value_layers, out)
    learned = lambda: _learned(model.legal_actions, model.apply, model.player, model.turn,  # noqa: E731
                               model.sample_chance or _no_chance, model.observation, worlds, model.table, buf, world,
                               info.max_turns + 1, *net.value_layers[:4], net.wp, net.bp)
    times = {}
    for name, run in (("rollout", rollout), ("network", network), ("learned rollout", learned)):
        run()
        rounds = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            run()
            rounds.append((time.perf_counter() - start) / len(leaves))
        times[name] = float(np.median(rounds))
    assert all(m.player(m.state) != TERMINAL for m in models)
    print(f"{args.game}, {len(leaves)} leaves, hidden {h1}x{h2}: rollout {1e6 * times['rollout']:.2f} us, "
          f"network {1e6 * times['network']:.2f} us a leaf; network / rollout = "
          f"{times['network'] / times['rollout']:.2f}; learned rollout {1e6 * times['learned rollout']:.2f} us = "
          f"{times['learned rollout'] / times['rollout']:.1f} random rollouts")


if __name__ == "__main__":
    main()

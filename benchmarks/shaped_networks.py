"""Game-shaped networks and Gumbel search (issue 33): what a network call and a decision cost, in one process.

Part 1, states/s of ``BatchedEvaluator.evaluate`` on each game's real observations (the decision states of random
games from ``new_state(seed=s)``, random moves from ``default_rng(0)``, 256 of them), torch at one thread, CPU:
for each game the MLP (``PolicyValueNet(info)``), the structured trunk with the flat head (``structure`` without its
action ranges) and, where the game declares action ranges, the structured trunk with structured heads; batch 1
(one call per state) and batch 64. Ratios: each structured row over the MLP row of the same game and batch.

Part 2, decisions/s on Lords of War with the latest shipped network (``zoo:lords_of_war``; BENCHMARKS.md
measured ``lords_of_war-v1``, whose shape ``lords_of_war-v2`` keeps): Gumbel search at 16 simulations
(``gumbel=1,m=16,iterations=16,leaves=16``) against PUCT at 128 (``iterations=128,leaves=8``, the compiled network
driver), both over the same decision states (the first 32 of a random game).

``--device cuda``: the networks on that device (batches 1, 64 and 256) and the searches' networks too.

Usage: ``.venv/bin/python benchmarks/shaped_networks.py [--seconds 2] [--rounds 3] [--device cpu] [--json PATH]``
"""
from __future__ import annotations

import json

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from harness import Comparison, compare, interleaved_rates, machine, print_machine_and_notes, ratio_table, \
    timing_arguments
from cardboard import registry
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.structure import structure_of
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.network import PolicyValueNet

GAMES = ("lords_of_war", "hearth", "pandemic", "fifth_aeon")
STATES = 256


def decision_states(game, count: int) -> list:
    """The first ``count`` decision states of random games, seeds 0, 1, ..."""
    rng, states, seed = np.random.default_rng(0), [], 0
    while len(states) < count:
        state = game.new_state(seed)
        seed += 1
        while not state.is_terminal() and len(states) < count:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return states


def batch_sizes(device: str) -> tuple[int, ...]:
    """The batches timed: 256 too off the CPU, where larger passes are where a GPU pays."""
    return (1, 64) if device == "cpu" else (1, 64, 256)


def network_rows(name: str, device: str) -> dict:
    """``{row: work}`` for one game: each network at batch 1 and 64 (and 256 off the CPU) over the game's
    observations, on ``device``."""
    game = registry.make_game(name)
    states = decision_states(game, STATES)
    obs = np.stack([s.observation(s.current_player) for s in states]).astype(np.float32)
    masks = np.stack([s.action_mask() for s in states])
    structure = structure_of(game)
    nets = {"mlp": PolicyValueNet(game.info), "trunk": PolicyValueNet(game.info, structure=structure.without_actions())}
    if structure.actions:
        nets["heads"] = PolicyValueNet(game.info, structure=structure)
    rows = {}
    for label, net in nets.items():
        evaluator = BatchedEvaluator(net.eval(), max_batch=max(batch_sizes(device)), device=device)
        for batch in batch_sizes(device):
            def work(i: int, evaluator=evaluator, batch=batch) -> int:
                first = (i * batch) % (STATES - batch + 1)
                evaluator.evaluate(obs[first:first + batch], masks[first:first + batch])
                return batch
            rows[f"{name}/{label}/b{batch}"] = work
    return rows


def search_rows(device: str) -> dict:
    """Lords of War decisions of Gumbel-16 and PUCT-128 over the shipped network on ``device``."""
    game = registry.make_game("lords_of_war")
    states = decision_states(game, 32)
    rows = {}
    for label, spec in (("gumbel16", "ismcts:net=zoo:lords_of_war,gumbel=1,m=16,iterations=16,leaves=16"),
                        ("puct128", "ismcts:net=zoo:lords_of_war,iterations=128,leaves=8")):
        agent, rng = registry.make_agent(f"{spec},device={device}", game), np.random.default_rng(1)

        def work(i: int, agent=agent, rng=rng) -> int:
            agent.act(states[i % len(states)], rng)
            return 1
        rows[f"lords_of_war/{label}"] = work
    return rows


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--json", default=None, help="write the rates and ratios here")
    parser.add_argument("--device", default="cpu", help="the torch device of every network (default cpu)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    console = Console()
    rows = {k: v for name in GAMES for k, v in network_rows(name, args.device).items()}
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    search = interleaved_rates(search_rows(args.device), 2 * args.seconds, args.rounds)
    table = Table(title=f"states/s (networks) and decisions/s (search), torch at 1 thread, {args.device}")
    table.add_column("row")
    table.add_column("rate", justify="right")
    for row, rate in {**rates, **search}.items():
        table.add_row(row, f"{rate:,.0f}" if rate >= 100 else f"{rate:,.1f}")
    console.print(table)
    comparisons = [Comparison(f"{g}/{kind}/b{b}", f"{g}/mlp/b{b}", None, f"{g}: {kind} over the MLP, batch {b}")
                   for g in GAMES for kind in ("trunk", "heads") for b in batch_sizes(args.device)]
    comparisons.append(Comparison("lords_of_war/gumbel16", "lords_of_war/puct128", None,
                                  "Gumbel-16 decisions/s over PUCT-128's"))
    results = compare({**rates, **search}, comparisons)
    console.print(ratio_table(results, "states/s"))
    info = machine(["torch", "numpy", "numba"])
    print_machine_and_notes(console, info, [f"networks on {args.device}"])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": args.device, "rates": rates, "search": search, "ratios": results, "machine": info},
                      f, indent=1)


if __name__ == "__main__":
    main()

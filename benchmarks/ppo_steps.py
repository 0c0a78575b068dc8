"""MaskablePPO's training steps a second through the vector env against the path before it (issue 51), same run.

Rows, in learner decisions per wall second and per CPU-second of this process (its threads included), Lords of
War against the random opponent, one torch thread, rows interleaved round by round, each timed over whole
``learn`` calls of one rollout (collection and the update, no evaluation):

- ``vector``: ``cardboard train-ppo`` as it is: ``sb3_vec_env(make_vec_env(game, 512))``, 16-step rollouts, one
  epoch of 4,096-sample minibatches, 64-64 nets, lr 1e-3, ``training.masked_distribution``'s distribution.
- ``seat (before)``: its defaults before issue 51: 8 ``SeatEnv`` in SB3's ``DummyVecEnv``, 256-step rollouts, 4
  epochs of 256-sample minibatches, 256-256 nets, lr 3e-4, sb3-contrib's distribution with torch's argument checks.

Target (issue 51): ``vector`` >= 10x ``seat (before)`` in steps a second.

Usage: ``.venv/bin/python benchmarks/ppo_steps.py [--seconds 40] [--rounds 2] [--game lords_of_war]``
"""
from __future__ import annotations

import time
from collections.abc import Callable

import torch
from rich.console import Console
from sb3_contrib import MaskablePPO

from cardboard.training.masked_distribution import use_fast_masked_distribution
from cardboard.training.ppo import Args, training_env
from harness import (Comparison, compare, interleaved_rates, machine, print_machine_and_notes, rates_table, ratio_table,
                     timing_arguments)

CONFIGS = {  # name: (the learner's arguments but the game, whether it has train-ppo's fast distribution)
    "vector": (dict(), True),
    "seat (before)": (dict(backend="seat", n_envs=8, n_steps=256, batch_size=256, n_epochs=4, learning_rate=3e-4,
                           net_arch=(256, 256)), False),
}
COMPARISONS = (
    Comparison("vector", "seat (before)", 10, "vector / seat (before), wall"),
    Comparison("vector cpu", "seat (before) cpu", None, "vector / seat (before), CPU"),
)


def learner(args: Args, fast: bool, cpu: list[float]) -> Callable[[int], int]:
    """One rollout and its update per call; returns the decisions it collected (its CPU seconds go to ``cpu``)."""
    model = MaskablePPO("MlpPolicy", training_env(args, {}), n_steps=args.n_steps, batch_size=args.batch_size,
                        n_epochs=args.n_epochs, learning_rate=args.learning_rate,
                        policy_kwargs=dict(net_arch=list(args.net_arch)), seed=1, verbose=0)
    if fast:
        use_fast_masked_distribution(model.policy)
    rollout = args.n_envs * args.n_steps

    def work(_i: int) -> int:
        start = time.process_time()
        model.learn(rollout, reset_num_timesteps=False)
        cpu.append(time.process_time() - start)
        return rollout

    return work


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=2)
    parser.add_argument("--game", default="lords_of_war")
    parser.set_defaults(seconds=40.0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    console, cpu, rows = Console(), {}, {}
    configs = {name: (Args(args.game, **kwargs), fast) for name, (kwargs, fast) in CONFIGS.items()}
    for name, (config, fast) in configs.items():
        cpu[name] = []
        rows[name] = learner(config, fast, cpu[name])
    rates = interleaved_rates(rows, args.seconds, args.rounds)
    for name, (config, _) in configs.items():  # over the timed calls: interleaved_rates' 3 warm-up calls left out
        timed_calls = cpu[name][3:]
        rates[f"{name} cpu"] = len(timed_calls) * config.n_envs * config.n_steps / sum(timed_calls)
    console.print(rates_table(rates, f"MaskablePPO on {args.game} against random: decisions a second"))
    console.print(ratio_table(compare(rates, COMPARISONS), "decisions/s"))
    print_machine_and_notes(console, machine(["torch", "stable-baselines3", "sb3-contrib", "numba"]), [])


if __name__ == "__main__":
    main()

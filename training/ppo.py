"""MaskablePPO on any registered game against a fixed opponent, in one readable file (CleanRL style).

The learner plays a random seat each game and is rewarded with its return on its last decision. Its ``n_envs``
games are one batch (``--backend vector``, the default: ``sb3_vec_env(cardboard.make_vec_env(GAME, n_envs,
opponent=SPEC, seat=None))``, stepped by one compiled call where the game has a compiled model) or that many
Gymnasium envs (``--backend seat``: ``cardboard.make_seat_env(GAME, seat=None, opponent=SPEC)`` each, in one
process). ``--cpu-minutes M`` stops training once it has used M minutes of this process's CPU time (evaluations
aside), so runs of different settings can be compared at equal compute. Every ``eval_every`` steps it plays
``eval_games`` games against the opponent, seat ``i % num_players`` in game ``i``, deterministic and masked; each
evaluation is printed and appended to ``<out_dir>/eval.jsonl`` (plotted to ``eval.png`` when matplotlib is
installed). At the end it plays ``final_eval_games`` other games the same way and prints a table: wins / draws /
losses (a win: the learner's return beats every other seat's; on a cooperative game the team's win, every seat's
return reaching ``max_return``, and no draws), the win rate with its Wilson 95% interval and the mean return
with its normal 95% interval; ``final.json`` and ``model.zip`` go to ``<out_dir>``.

    cardboard train-ppo lords_of_war --opponent random --cpu-minutes 10  # the run of training/README.md
    python -m cardboard.training.ppo hearth --opponent greedy_h --option decks=face_hunter --smoke
    python -m cardboard.training.ppo --help

torch, stable-baselines3 and sb3-contrib (the ``rl`` extra) are imported when training starts, so the
``cardboard`` command line can offer this trainer without them.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import GameInfo
from cardboard.jobs.intervals import WILSON_Z, wilson_interval
from cardboard.jobs.script import dataclass_arguments, run_script


@dataclass
class Args:
    game: str
    """a registered game (see ``cardboard games``)"""
    opponent: str = "random"
    """the agent spec the learner trains and is evaluated against, e.g. 'greedy:samples=2'"""
    option: list[str] = field(default_factory=list)
    """game options as KEY=VALUE (repeatable)"""
    seed: int = 1
    """seeds the training envs, torch and the network's initialisation"""
    timesteps: int = 5_000_000
    """learner decisions to train on (rounded up to whole rollouts)"""
    cpu_minutes: float = 0.0
    """stop training after this many minutes of the process's CPU time, evaluations aside (0: no limit)"""
    backend: str = "vector"
    """'vector': the n_envs games as one VectorGame batch; 'seat': n_envs SeatEnvs in SB3's DummyVecEnv"""
    n_envs: int = 512
    n_steps: int = 16
    """rollout length per env (a rollout is n_envs * n_steps decisions)"""
    batch_size: int = 4096
    n_epochs: int = 1
    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (64, 64)
    """hidden layers of the policy and value networks (separate)"""
    eval_every: int = 500_000
    eval_games: int = 100
    final_eval_games: int = 400
    eval_seed: int = 10_000
    """game i of every evaluation is dealt with seed eval_seed + i: the same games at each checkpoint"""
    torch_threads: int = 1
    device: str = "cpu"
    """torch device of the networks ('cpu' is fastest for these small MLPs; 'cuda', 'auto')"""
    out_dir: str | None = None
    """output folder (default runs/ppo/GAME-vs-OPPONENT-seedS)"""
    smoke: bool = False
    """a tiny budget (a few hundred steps, 2- and 4-game evaluations) to check that everything runs"""
    quiet: bool = False
    """no progress bar"""


SMOKE = dict(timesteps=256, n_envs=2, n_steps=64, batch_size=64, n_epochs=1, eval_every=128,
             eval_games=2, final_eval_games=4)
POSITIVE = ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "eval_every", "eval_games",
            "final_eval_games", "torch_threads")


BACKENDS = ("vector", "seat")
SUMMARY = "train MaskablePPO on a game against a fixed opponent"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One argument per field of ``Args``: ``GAME``, then ``--opponent``, ``--option``, ``--net-arch 64 64``..."""
    dataclass_arguments(parser, Args)


def to_args(namespace: argparse.Namespace) -> Args:
    """``Args`` from parsed arguments (other attributes, such as the CLI's ``command``, are ignored)."""
    args = Args(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(Args)})
    args.net_arch = tuple(args.net_arch)
    if args.smoke:
        args = dataclasses.replace(args, **SMOKE)
    for name in POSITIVE:
        if getattr(args, name) < 1:
            raise InvalidParameterError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.cpu_minutes < 0:
        raise InvalidParameterError(f"--cpu-minutes must be >= 0, got {args.cpu_minutes}")
    if args.backend not in BACKENDS:
        raise InvalidParameterError(f"--backend must be one of {', '.join(BACKENDS)}, got {args.backend!r}")
    if args.out_dir is None:
        opponent = re.sub(r"[^A-Za-z0-9_.=-]+", "_", args.opponent)
        args.out_dir = f"runs/ppo/{args.game}-vs-{opponent}-seed{args.seed}"
    return args


# -- evaluation --------------------------------------------------------------------------------------------
def outcome(returns: Sequence[float], seat: int, info: GameInfo) -> int:
    """1 win, 0 draw, -1 loss for the learner in ``seat``: its return against the best other seat's, or on a
    cooperative game (``info.utility``) the team's result, won when the return reaches ``info.max_return``."""
    mine = float(returns[seat])
    if info.utility == "cooperative":
        return 1 if mine >= info.max_return else -1
    best_other = max(float(r) for k, r in enumerate(returns) if k != seat)
    return (mine > best_other) - (mine < best_other)


def evaluate(model: Any, args: Args, games: int, seed: int) -> dict:
    """``games`` games against the opponent, the model in seat ``i % num_players`` of game ``i`` (dealt with
    seed ``seed + i``), deterministic and masked."""
    options = registry.parse_game_options(args.option)
    info = registry.make_game(args.game, **options).info
    envs = [registry.make_seat_env(args.game, seat=seat, opponent=args.opponent, **options)
            for seat in range(info.num_players)]
    outcomes, returns, wins_by_seat = [], [], [0] * info.num_players
    for i in range(games):
        seat, env = i % len(envs), envs[i % len(envs)]
        obs, _ = env.reset(seed=seed + i)
        done = False
        while not done:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, _, done, _, step_info = env.step(action)
        outcomes.append(outcome(step_info["returns"], seat, info))
        returns.append(float(step_info["returns"][seat]))
        wins_by_seat[seat] += outcomes[-1] == 1
    wins, draws = outcomes.count(1), outcomes.count(0)
    mean = float(np.mean(returns))
    half = WILSON_Z * float(np.std(returns, ddof=1)) / math.sqrt(games) if games > 1 else math.inf
    return dict(games=games, wins=wins, draws=draws, losses=games - wins - draws, win_rate=wins / games,
                ci95=list(wilson_interval(wins, games)), mean_return=mean,
                mean_return_ci95=[max(info.min_return, mean - half), min(info.max_return, mean + half)],
                wins_by_seat=wins_by_seat)


def report(result: dict, opponent: str) -> str:
    low, high = result["ci95"]
    r_low, r_high = result["mean_return_ci95"]
    return (f"win rate vs {opponent} {100 * result['win_rate']:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%) "
            f"over {result['games']} games, W/D/L {result['wins']}/{result['draws']}/{result['losses']}, "
            f"mean return {result['mean_return']:+.3f} ({r_low:+.3f} to {r_high:+.3f}), "
            f"wins by seat {'/'.join(map(str, result['wins_by_seat']))}")


def final_table(result: dict, args: Args) -> Table:
    table = Table(title=f"{args.game}: the final model vs {args.opponent}, {result['games']} held-out games, "
                        f"deterministic, masked")
    for col in ("games", "wins", "draws", "losses", "win rate (95% Wilson)", "mean return (95% normal)",
                "wins by seat"):
        table.add_column(col, justify="right")
    low, high = result["ci95"]
    r_low, r_high = result["mean_return_ci95"]
    table.add_row(str(result["games"]), str(result["wins"]), str(result["draws"]), str(result["losses"]),
                  f"{result['win_rate']:.1%} ({low:.1%}-{high:.1%})",
                  f"{result['mean_return']:+.3f} ({r_low:+.3f} to {r_high:+.3f})",
                  " / ".join(map(str, result["wins_by_seat"])))
    return table


class Monitor:
    """SB3 calls it after every vector step (``learn(callback=monitor)``): it advances the progress bar,
    every ``eval_every`` steps evaluates, prints and appends a line to ``eval.jsonl``, and stops training (returns
    False) once ``cpu_minutes`` of CPU time have gone to training."""

    def __init__(self, model: Any, args: Args, progress: Progress, console: Console, start: float):
        self.model, self.args, self.progress, self.console, self.start = model, args, progress, console, start
        self.task = progress.add_task(f"MaskablePPO on {args.game} vs {args.opponent}",
                                      total=_rounded_timesteps(args), status="")
        self.history: list[dict] = []
        self._next = args.eval_every
        self._cpu_start, self._eval_cpu = time.process_time(), 0.0

    def train_cpu_s(self) -> float:
        """CPU seconds (every thread of this process) spent training since the monitor was made, evaluations
        aside."""
        return time.process_time() - self._cpu_start - self._eval_cpu

    def __call__(self, _locals: dict, _globals: dict) -> bool:
        step = self.model.num_timesteps
        self.progress.update(self.task, completed=step)
        if step >= self._next:
            self._next += self.args.eval_every
            eval_start = time.process_time()
            result = dict(step=step, wall_s=round(time.time() - self.start, 1),
                          **evaluate(self.model, self.args, self.args.eval_games, self.args.eval_seed))
            self.history.append(result)
            with (Path(self.args.out_dir) / "eval.jsonl").open("a") as f:
                f.write(json.dumps(result) + "\n")
            self.progress.update(self.task, status=f"{result['win_rate']:.0%} vs {self.args.opponent}")
            self.console.print(f"step {step:>8} | {result['wall_s'] / 60:5.1f} min | "
                               f"{report(result, self.args.opponent)}", soft_wrap=True, highlight=False)
            self._eval_cpu += time.process_time() - eval_start
        return not self.args.cpu_minutes or self.train_cpu_s() < 60 * self.args.cpu_minutes


def _rounded_timesteps(args: Args) -> int:
    """The steps ``learn(args.timesteps)`` takes: whole rollouts of ``n_envs * n_steps`` decisions."""
    rollout = args.n_envs * args.n_steps
    return -(-args.timesteps // rollout) * rollout


def plot(history: list[dict], path: Path, args: Args) -> None:
    """Win rate against steps with its interval, when matplotlib is installed."""
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in history]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, [r["win_rate"] for r in history], marker="o")
    ax.fill_between(steps, [r["ci95"][0] for r in history], [r["ci95"][1] for r in history], alpha=0.25)
    ax.set(xlabel="learner decisions", ylabel=f"win rate vs {args.opponent}", ylim=(0, 1),
           title=f"MaskablePPO, {args.game}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- training ----------------------------------------------------------------------------------------------
def training_env(args: Args, options: dict[str, Any]) -> Any:
    """The ``n_envs`` training games as SB3's ``VecEnv``, for ``args.backend`` (see the module docstring)."""
    if args.backend == "seat":
        from stable_baselines3.common.env_util import make_vec_env

        return make_vec_env(lambda: registry.make_seat_env(args.game, seat=None, opponent=args.opponent, **options),
                            n_envs=args.n_envs, seed=args.seed)
    from cardboard.envs.vector_env import sb3_vec_env

    return sb3_vec_env(registry.make_vec_env(args.game, args.n_envs, opponent=args.opponent, seat=None,
                                             seed=args.seed, **options))


def train(args: Args, console: Console) -> dict:
    """Train, evaluate, save; return the final evaluation (also in ``<out_dir>/final.json``)."""
    options = registry.parse_game_options(args.option)
    registry.make_seat_env(args.game, opponent=args.opponent, **options)  # unknown names fail before any output
    import torch
    from sb3_contrib import MaskablePPO

    from cardboard.training.masked_distribution import use_fast_masked_distribution

    torch.set_num_threads(args.torch_threads)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.jsonl").unlink(missing_ok=True)
    (out / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))
    start = time.time()

    model = MaskablePPO(
        "MlpPolicy", training_env(args, options), n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, learning_rate=args.learning_rate, gamma=args.gamma, gae_lambda=args.gae_lambda,
        ent_coef=args.ent_coef, policy_kwargs=dict(net_arch=list(args.net_arch)), seed=args.seed, device=args.device,
        verbose=0,
    )
    use_fast_masked_distribution(model.policy)  # sb3-contrib's law, computed faster (see the module)
    budget = f" or {args.cpu_minutes:g} CPU-minutes" if args.cpu_minutes else ""
    console.print(f"training MaskablePPO on {args.game} vs {args.opponent}: {args.timesteps} steps{budget}, "
                  f"{args.n_envs} envs ({args.backend}), seed {args.seed}", soft_wrap=True, highlight=False)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=args.quiet) as progress:
        monitor = Monitor(model, args, progress, console, start)
        model.learn(args.timesteps, callback=monitor)
    train_s, train_cpu_s = time.time() - start, monitor.train_cpu_s()
    model.save(out / "model.zip")

    final = dict(game=args.game, opponent=args.opponent, step=model.num_timesteps, train_wall_s=round(train_s, 1),
                 **evaluate(model, args, args.final_eval_games, args.eval_seed + args.eval_games))
    (out / "final.json").write_text(json.dumps(final, indent=2))
    if monitor.history:
        plot(monitor.history, out / "eval.png", args)
    console.print(final_table(final, args))
    console.print(f"final after {final['step']} steps ({train_s / 60:.1f} min training, "
                  f"{train_cpu_s / 60:.1f} CPU-min): "
                  f"{report(final, args.opponent)}", soft_wrap=True, highlight=False)
    console.print(f"model, eval.jsonl and final.json in {out}/", highlight=False)
    return final


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train-ppo``: train with the parsed arguments (see ``add_arguments``); 0 on success."""
    train(to_args(args), console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.training.ppo GAME ...``: 0 on success, 2 on a cardboard error (printed)."""
    return run_script("python -m cardboard.training.ppo", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

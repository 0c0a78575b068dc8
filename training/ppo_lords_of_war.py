"""MaskablePPO on Lords of War against a random opponent, in one readable file (CleanRL style).

The learner plays a random seat each episode (``SeatEnv(seat=None)``) against
``RandomAgent``. Every ``eval_every`` steps it plays ``eval_games`` games against
random, seats alternating, with ``deterministic=True`` and action masks; the
results go to stdout and ``<out_dir>/eval.jsonl`` (plus ``eval.png`` when
matplotlib is installed). At the end: ``final_eval_games`` games, the win rate
with its Wilson 95% interval, ``<out_dir>/final.json`` and ``<out_dir>/model.zip``.

    python -m cardboard.training.ppo_lords_of_war                  # the run of training/README.md
    python -m cardboard.training.ppo_lords_of_war --smoke          # seconds: proves it runs
    python -m cardboard.training.ppo_lords_of_war --help
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

from cardboard.envs.gym_wrappers import SeatEnv
from cardboard.evaluation.match import wilson_interval
from cardboard.policies.agents import RandomAgent


@dataclass
class Args:
    seed: int = 1
    """seeds the training envs, torch and the network's initialisation"""
    total_timesteps: int = 500_000
    """learner decisions to train on"""
    n_envs: int = 8
    n_steps: int = 256
    """rollout length per env (a rollout is n_envs * n_steps decisions)"""
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and value networks (separate)"""
    eval_every: int = 50_000
    eval_games: int = 100
    final_eval_games: int = 400
    eval_seed: int = 10_000
    """game i of every evaluation is dealt with seed eval_seed + i: the same games at each checkpoint"""
    torch_threads: int = 1
    out_dir: str = "runs/ppo_lords_of_war"
    smoke: bool = False
    """a tiny budget (a few hundred steps, 4-game evaluations) to check that everything runs"""


SMOKE = dict(total_timesteps=256, n_envs=2, n_steps=64, batch_size=64, n_epochs=1, eval_every=128,
             eval_games=2, final_eval_games=4)


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """``Args`` from the command line: one ``--flag`` per field (``--net-arch 256 256``, ``--smoke``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        elif f.type.startswith("tuple"):
            parser.add_argument(flag, type=int, nargs="+", default=f.default, help=f"default: {f.default}")
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default, help=f"default: {f.default}")
    args = Args(**vars(parser.parse_args(argv)))
    args.net_arch = tuple(args.net_arch)
    return dataclasses.replace(args, **SMOKE) if args.smoke else args


def evaluate(model: MaskablePPO, games: int, seed: int) -> dict:
    """``games`` games against random, the model in seat ``i % 2`` of game ``i``, deterministic, masked."""
    envs = [SeatEnv("lords_of_war", seat=seat, opponent=RandomAgent()) for seat in (0, 1)]
    seat_wins, draws = [0, 0], 0
    for i in range(games):
        env = envs[i % 2]
        obs, _ = env.reset(seed=seed + i)
        done, reward = False, 0.0
        while not done:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, reward, done, _, _ = env.step(action)
        seat_wins[i % 2] += reward > 0
        draws += reward == 0
    wins = sum(seat_wins)
    low, high = wilson_interval(wins, games)
    return dict(games=games, wins=wins, draws=draws, losses=games - wins - draws,
                win_rate=wins / games, ci95=[low, high], wins_by_seat=seat_wins)


def report(result: dict) -> str:
    low, high = result["ci95"]
    return (f"win rate vs random {100 * result['win_rate']:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%) "
            f"over {result['games']} games, W/D/L {result['wins']}/{result['draws']}/{result['losses']}, "
            f"wins as seat 0/1 {result['wins_by_seat'][0]}/{result['wins_by_seat'][1]}")


class EvalVsRandom(BaseCallback):
    """Every ``every`` steps: evaluate against random, print, append a line to ``log``."""

    def __init__(self, every: int, games: int, seed: int, log: Path, start: float):
        super().__init__()
        self.every, self.games, self.seed, self.log, self.start = every, games, seed, log, start
        self.history: list[dict] = []
        self._next = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.every
            result = dict(step=self.num_timesteps, wall_s=round(time.time() - self.start, 1),
                          **evaluate(self.model, self.games, self.seed))
            self.history.append(result)
            with self.log.open("a") as f:
                f.write(json.dumps(result) + "\n")
            print(f"step {result['step']:>8} | {result['wall_s'] / 60:5.1f} min | {report(result)}", flush=True)
        return True


def plot(history: list[dict], path: Path) -> None:
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
    ax.set(xlabel="learner decisions", ylabel="win rate vs random", ylim=(0, 1), title="MaskablePPO, Lords of War")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict:
    """Train, evaluate, save; return the final evaluation (also in ``<out_dir>/final.json``)."""
    args = parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.jsonl").unlink(missing_ok=True)
    (out / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))
    start = time.time()

    env = make_vec_env(lambda: SeatEnv("lords_of_war", seat=None, opponent=RandomAgent()),
                       n_envs=args.n_envs, seed=args.seed)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
        learning_rate=args.learning_rate, gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.ent_coef,
        policy_kwargs=dict(net_arch=list(args.net_arch)), seed=args.seed, verbose=0,
    )
    callback = EvalVsRandom(args.eval_every, args.eval_games, args.eval_seed, out / "eval.jsonl", start)
    print(f"training MaskablePPO on lords_of_war vs random: {args.total_timesteps} steps, {args.n_envs} envs", flush=True)
    model.learn(args.total_timesteps, callback=callback)
    train_s = time.time() - start
    model.save(out / "model.zip")

    final = dict(step=model.num_timesteps, train_wall_s=round(train_s, 1),
                 **evaluate(model, args.final_eval_games, args.eval_seed + args.eval_games))
    (out / "final.json").write_text(json.dumps(final, indent=2))
    plot(callback.history, out / "eval.png")
    print(f"final after {final['step']} steps ({train_s / 60:.1f} min training): {report(final)}")
    print(f"model, eval.jsonl and final.json in {out}/", flush=True)
    return final


if __name__ == "__main__":
    main()

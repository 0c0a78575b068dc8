"""Deep Monte-Carlo (DouZero, Zha et al. 2021) over the vector env, in one readable file (CleanRL style).

An action-value network ``Q(observation, action)`` takes the action as an input: an MLP over the observation
concatenated with the one-hot action id, its first layer computed as ``W obs + E[action]`` (``E``: the one-hot's
columns of that layer, a learned embedding), so a row's observation is multiplied once and all its legal actions
are scored in one forward pass. The learner plays every seat (``make_vec_env(GAME, self_play=True)``),
epsilon-greedy on Q over the legal actions. When a game ends, each of its moves becomes a transition whose
target is the final return of the seat that made it (Monte-Carlo, no bootstrapping); the most recent
``--replay`` transitions are kept, and every ``--batch-size / --reuse`` new ones buy one MSE step on a batch drawn
from them (``--reuse 1``: each transition is used about once, DouZero's on-policy batches). The budget is
``--minutes`` of training (evaluations not counted) or ``--timesteps`` decisions of every seat.

Evaluations, outputs and their formats are ``vec_ppo``'s: the greedy policy (argmax Q over the legal actions)
against each of ``--eval-opponents``, seats swapped; ``eval.jsonl``, ``eval.png``, ``final.json``, ``args.json``
and ``model.safetensors`` (``QNetwork``) in ``<out_dir>`` (default ``runs/dmc/GAME-seedS``).

    cardboard train-dmc lords_of_war --minutes 10
    python -m cardboard.training.dmc lords_of_war --smoke

torch, safetensors and matplotlib are imported when training starts.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.vector import BatchPolicy
from cardboard.jobs.script import dataclass_arguments, run_script
from cardboard.training.vec_ppo import Budget, LearnerArgs, Run, evaluate, parsed_args


@dataclass
class Args(LearnerArgs):
    """Deep Monte-Carlo's arguments (``hidden``: ReLU layers, the first taking the observation and the action)."""

    epsilon: float = 0.01
    """probability of a uniformly random legal move instead of argmax Q (DouZero: 0.01)"""
    learning_rate: float = 1e-3
    batch_size: int = 512
    replay: int = 32_768
    """the most recent finished transitions kept, updates draw their batches from them"""
    reuse: float = 1.0
    """times each transition is drawn on average: one update per batch_size / reuse new transitions"""
    max_grad_norm: float = 40.0


SMOKE = dict(minutes=0.0, timesteps=2048, num_envs=8, batch_size=64, replay=1024, evals=2, eval_games=4,
             final_eval_games=4, eval_envs=2)
SUMMARY = "train Deep Monte-Carlo (DouZero) action values by self-play over the vector env"


def q_network(obs_dim: int, num_actions: int, hidden: Sequence[int]) -> Any:
    """``QNetwork``: ``Q(observation, action)``, an MLP over ``[observation; one-hot(action)]``."""
    import torch
    from torch import nn

    class QNetwork(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.obs_in = nn.Linear(obs_dim, hidden[0])
            self.action_in = nn.Embedding(num_actions, hidden[0])  # the first layer's columns of one-hot(action)
            bound = obs_dim ** -0.5
            nn.init.uniform_(self.action_in.weight, -bound, bound)
            layers: list[nn.Module] = []
            for a, b in zip(hidden, [*hidden[1:], 1]):
                layers += [nn.ReLU(), nn.Linear(a, b)]
            self.head = nn.Sequential(*layers)

        def forward(self, obs: torch.Tensor, actions: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
            """Q of ``(obs[rows[k]], actions[k])`` for each ``k`` (``rows`` None: ``obs[k]``)."""
            x = self.obs_in(obs)
            return self.head((x if rows is None else x[rows]) + self.action_in(actions)).squeeze(-1)

        def scores(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
            """Q of every legal action of each row in one pass, ``-inf`` where illegal: shape ``masks.shape``."""
            rows, actions = masks.nonzero(as_tuple=True)
            out = torch.full(masks.shape, -torch.inf, device=obs.device)
            out[rows, actions] = self(obs, actions, rows)
            return out

    return QNetwork()


def greedy_policy(net: Any, device: str) -> BatchPolicy:
    """``(observations, masks) -> actions``: argmax Q over each row's legal actions."""
    import torch

    @torch.no_grad()
    def policy(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(observations.reshape(len(observations), -1), device=device)
        return net.scores(obs, torch.as_tensor(action_masks, device=device)).argmax(-1).cpu().numpy()

    return policy


class Pending:
    """Each row's moves in the game it is playing (observation, action, mover), in a ring over steps that doubles
    when a game outlasts it."""

    def __init__(self, num_envs: int, obs_dim: int, length: int = 256):
        self.obs = np.zeros((length, num_envs, obs_dim), dtype=np.float32)
        self.actions = np.zeros((length, num_envs), dtype=np.int64)
        self.movers = np.zeros((length, num_envs), dtype=np.int64)
        self.t = 0
        self.start = np.zeros(num_envs, dtype=np.int64)  # the step of each row's game's first move

    def push(self, obs: np.ndarray, actions: np.ndarray, movers: np.ndarray) -> None:
        if self.t - self.start.min() >= len(self.obs):
            self._grow()
        k = self.t % len(self.obs)
        self.obs[k], self.actions[k], self.movers[k] = obs.reshape(len(actions), -1), actions, movers
        self.t += 1

    def take(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row ``i``'s moves since its game began (its game over, the next begins)."""
        ts = np.arange(self.start[i], self.t) % len(self.obs)
        self.start[i] = self.t
        return self.obs[ts, i], self.actions[ts, i], self.movers[ts, i]

    def _grow(self) -> None:
        old_len, ts = len(self.obs), np.arange(self.start.min(), self.t)
        for name in ("obs", "actions", "movers"):
            old = getattr(self, name)
            new = np.zeros((2 * old_len, *old.shape[1:]), dtype=old.dtype)
            new[ts % (2 * old_len)] = old[ts % old_len]
            setattr(self, name, new)


class Replay:
    """The most recent ``capacity`` finished transitions: observation, action, target (the mover's final return)."""

    def __init__(self, capacity: int, obs_dim: int):
        self.obs = np.zeros((capacity, obs_dim), dtype=np.float32)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.targets = np.zeros(capacity, dtype=np.float32)
        self.size = self.next = 0

    def add(self, obs: np.ndarray, actions: np.ndarray, targets: np.ndarray) -> None:
        capacity = len(self.actions)
        at = (self.next + np.arange(len(actions))) % capacity
        self.obs[at], self.actions[at], self.targets[at] = obs, actions, targets
        self.next = (self.next + len(actions)) % capacity
        self.size = min(capacity, self.size + len(actions))

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        at = rng.integers(self.size, size=n)
        return self.obs[at], self.actions[at], self.targets[at]


def train(args: Args, console: Console) -> dict:
    """Train, evaluate, save; return the final evaluation (also in ``<out_dir>/final.json``)."""
    import torch
    from safetensors.torch import save_file

    if not 0.0 <= args.epsilon <= 1.0 or args.reuse <= 0 or args.replay < args.batch_size:
        raise InvalidParameterError(f"need 0 <= --epsilon <= 1, --reuse > 0 and --replay >= --batch-size, got "
                                    f"{args.epsilon}, {args.reuse} and {args.replay} < {args.batch_size}")
    options = registry.parse_game_options(args.option)
    info = registry.make_game(args.game, **options).info
    for spec in args.eval_opponents:
        registry.make_vec_env(args.game, 1, opponent=spec, seed=0, **options)  # bad names fail before any output
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    obs_dim = int(np.prod(info.observation_shape))
    net = q_network(obs_dim, info.num_actions, args.hidden).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    vec = registry.make_vec_env(args.game, args.num_envs, self_play=True, seed=args.seed, **options)
    rng = np.random.default_rng(args.seed)
    pending, replay = Pending(args.num_envs, obs_dim), Replay(args.replay, obs_dim)
    greedy = greedy_policy(net, args.device)
    run = Run(args, console, "Deep Monte-Carlo")
    console.print(f"Deep Monte-Carlo self-play on {args.game}: {args.num_envs} envs, epsilon {args.epsilon}, "
                  f"{args.minutes:g} min / {args.timesteps:,} decisions (0: none), seed {args.seed}",
                  soft_wrap=True, highlight=False)

    budget = Budget(args.minutes, args.timesteps)
    step, added, updates, games, next_eval, losses = 0, 0, 0, 0, 0, []
    with run.progress() as progress:
        task = progress.add_task("Deep Monte-Carlo", total=1.0, status="")
        while (progress_now := budget.progress(step)) < 1.0:
            if progress_now >= next_eval / args.evals:
                loss = float(np.mean(losses)) if losses else None
                run.record(evaluate(greedy, args, step, budget, args.eval_games, args.eval_seed, loss=loss))
                losses, next_eval = [], int(budget.progress(step) * args.evals) + 1
            actions = greedy(vec.observations, vec.action_masks)
            explore = rng.random(args.num_envs) < args.epsilon
            actions[explore] = vec.random_actions()[explore]
            pending.push(vec.observations, actions, vec.players)
            vec.step(actions)
            step += args.num_envs
            for i in np.flatnonzero(vec.terminations):
                obs, moves, movers = pending.take(i)
                replay.add(obs, moves, vec.final_returns[i, movers])
                added += len(moves)
                games += 1
            while updates < int(added * args.reuse / args.batch_size):
                obs, moves, targets = (torch.as_tensor(x, device=device)
                                       for x in replay.sample(rng, args.batch_size))
                loss = torch.nn.functional.mse_loss(net(obs, moves), targets)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                optimizer.step()
                losses.append(loss.item())
                updates += 1
            progress.update(task, completed=min(1.0, budget.progress(step)),
                            status=f"{step:,} decisions, {step / max(budget.train_s(), 1e-9):,.0f}/s, "
                                   f"{games:,} games, {updates:,} updates")

    save_file(net.state_dict(), str(run.out / "model.safetensors"))
    final = evaluate(greedy, args, step, budget, args.final_eval_games, args.eval_seed + 1, final=True,
                     loss=float(np.mean(losses)) if losses else None, training_games=games, updates=updates)
    run.record(final)
    run.finish(final)
    return final


def load_policy(run_dir: str | Path, device: str = "cpu") -> BatchPolicy:
    """The greedy policy (argmax Q over the legal actions) of a run's ``model.safetensors``, built as its
    ``args.json`` says."""
    from safetensors.torch import load_file

    args = json.loads((Path(run_dir) / "args.json").read_text())
    info = registry.make_game(args["game"], **registry.parse_game_options(args["option"])).info
    net = q_network(int(np.prod(info.observation_shape)), info.num_actions, args["hidden"])
    net.load_state_dict(load_file(str(Path(run_dir) / "model.safetensors"), device=device))
    return greedy_policy(net.to(device), device)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One argument per field of ``Args``: ``GAME``, then ``--minutes``, ``--epsilon``, ``--hidden 256 256``..."""
    dataclass_arguments(parser, Args)


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train-dmc``: train with the parsed arguments; 0 on success."""
    train(parsed_args(args, Args, SMOKE, "dmc"), console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.training.dmc GAME ...``: 0 on success, 2 on a cardboard error (printed)."""
    return run_script("python -m cardboard.training.dmc", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

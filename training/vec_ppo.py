"""Masked PPO over the vector env (``cardboard.make_vec_env``), in one readable file (CleanRL style).

The learner plays a seat drawn each game against ``--opponent`` (an agent spec; ``random`` and ``greedy`` run
compiled where the game is) or, with ``--self-play``, against a frozen copy of its own actor, refreshed every
``--snapshot-every`` updates (argmax, or sampled with ``--snapshot-sample``). Illegal actions' logits are set to
``ILLEGAL`` before the softmax, so the policy never picks one. Each update: a rollout of ``num_envs`` x
``num_steps`` learner decisions, GAE, ``update_epochs`` epochs of the clipped objective, value loss and entropy
bonus over ``num_minibatches`` minibatches. The budget is ``--minutes`` of training (evaluations not counted) or
``--timesteps`` learner decisions, whichever ends first.

``--evals`` times, evenly over the budget (the first at step 0), the greedy (argmax) policy plays ``--eval-games``
games against each of ``--eval-opponents``, seats swapped (half the games in each seat of a two-player game), the
same deals each time; at the end ``--final-eval-games`` other games. A win: the learner's return beats every other
seat's (``ppo.outcome``). Each evaluation is printed and appended to ``<out_dir>/eval.jsonl`` (steps, training
seconds of wall and CPU time, total wall seconds, steps/s, wins, draws, losses, win rate with its Wilson 95%
interval, wins by seat), plotted to ``eval.png``; the final one also goes to ``final.json``, the weights to
``model.safetensors`` (``ActorCritic``), the arguments to ``args.json``.

    cardboard train-vec-ppo lords_of_war --minutes 10
    cardboard train-vec-ppo lords_of_war --self-play --minutes 10
    cardboard train-vec-ppo lords_of_war --opponent greedy --init runs/vec_ppo/lords_of_war-seed1 --out-dir DIR
    python -m cardboard.training.vec_ppo lords_of_war --smoke

torch, safetensors and matplotlib are imported when training starts.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.vector import BatchPolicy
from cardboard.jobs.intervals import wilson_interval
from cardboard.jobs.script import dataclass_arguments, run_script
from cardboard.training.ppo import outcome

ILLEGAL = -1e8  # the logit of an illegal action: probability exactly 0, and 0 * ILLEGAL = 0 in the entropy


@dataclass
class LearnerArgs:
    """What both learners over the vector env take (``vec_ppo.Args``, ``dmc.Args`` add their own)."""

    game: str
    """a registered game (see 'cardboard games')"""
    option: list[str] = field(default_factory=list)
    """game options as KEY=VALUE (repeatable)"""
    seed: int = 1
    """seeds the training envs, the learner's draws, torch and the network's initialisation"""
    minutes: float = 10.0
    """training wall budget in minutes, evaluations not counted (0: none)"""
    timesteps: int = 0
    """decisions to train on: the learner's (PPO, rounded up to whole rollouts), every seat's (DMC); 0: none"""
    num_envs: int = 64
    hidden: tuple[int, ...] = (128, 128)
    """hidden layers of the networks"""
    evals: int = 10
    """evaluations during training, evenly over the budget (the first at step 0)"""
    eval_games: int = 100
    final_eval_games: int = 400
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    eval_envs: int = 50
    """games played at once by an evaluation, per seat"""
    eval_seed: int = 10_000
    """the final evaluation's deals come from eval_seed + 1 (the others' from eval_seed)"""
    torch_threads: int = 1
    device: str = "cpu"
    """torch device ('cpu' is fastest for these small MLPs on one core)"""
    out_dir: str | None = None
    """output folder (default runs/TRAINER/GAME-seedS)"""
    smoke: bool = False
    """a tiny budget to check that everything runs"""
    quiet: bool = False
    """no progress bar"""


@dataclass
class Args(LearnerArgs):
    """Masked PPO's arguments (``hidden``: the actor's and the critic's, separate, tanh)."""

    opponent: str = "random"
    """the agent spec the learner trains against (without --self-play)"""
    self_play: bool = False
    """train against a frozen copy of the actor instead of --opponent"""
    snapshot_every: int = 10
    """updates between refreshes of the self-play snapshot"""
    snapshot_sample: bool = False
    """the snapshot samples its moves from its policy (default: argmax)"""
    init: str | None = None
    """a run folder whose model.safetensors starts the network (same game and --hidden): a curriculum's next stage"""
    num_steps: int = 64
    """rollout length per env (a rollout is num_envs * num_steps decisions)"""
    num_minibatches: int = 4
    update_epochs: int = 4
    learning_rate: float = 5e-4
    anneal_lr: bool = True
    """the learning rate falls linearly to 0 over the budget"""
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


SMOKE = dict(minutes=0.0, timesteps=512, num_envs=8, num_steps=32, num_minibatches=2, update_epochs=1, evals=2,
             eval_games=4, final_eval_games=4, eval_envs=2)
SUMMARY = "train masked PPO over the vector env against a fixed opponent or frozen snapshots of itself"


# -- arguments, shared with dmc.py ---------------------------------------------------------------------------------
def parsed_args(namespace: argparse.Namespace, cls: type, smoke: dict, trainer: str) -> Any:
    """``cls`` from parsed arguments, with the smoke budget applied, checked, and its default ``out_dir``."""
    args = cls(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(cls)})
    args.hidden = tuple(args.hidden)
    if args.smoke:
        args = dataclasses.replace(args, **smoke)
    for f in dataclasses.fields(cls):
        value, lowest = getattr(args, f.name), 0 if f.name == "timesteps" else 1
        if f.type == "int" and f.name not in ("seed", "eval_seed") and value < lowest:
            raise InvalidParameterError(f"--{f.name.replace('_', '-')} must be >= {lowest}, got {value}")
    if args.minutes < 0 or (args.minutes == 0 and args.timesteps == 0):
        raise InvalidParameterError("give a budget: --minutes > 0 or --timesteps > 0")
    if args.out_dir is None:
        args.out_dir = f"runs/{trainer}/{args.game}-seed{args.seed}"
    return args


# -- budget, evaluation, plot, shared with dmc.py -----------------------------------------------------------------
class Budget:
    """Training progress in [0, 1]: the larger of steps / timesteps and training seconds / (minutes * 60), where
    training seconds (wall, and the process's CPU seconds beside them) leave out the time spent in ``paused()``
    (evaluations)."""

    def __init__(self, minutes: float, timesteps: int):
        self.seconds, self.timesteps = minutes * 60, timesteps
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        self.paused_s = self.paused_cpu_s = 0.0

    def train_s(self) -> float:
        return time.perf_counter() - self.start - self.paused_s

    def cpu_s(self) -> float:
        return time.process_time() - self.cpu_start - self.paused_cpu_s

    def wall_s(self) -> float:
        return time.perf_counter() - self.start

    def progress(self, steps: int) -> float:
        return max(steps / self.timesteps if self.timesteps else 0.0,
                   self.train_s() / self.seconds if self.seconds else 0.0)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        began, cpu_began = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.paused_s += time.perf_counter() - began
            self.paused_cpu_s += time.process_time() - cpu_began


def play_games(policy: BatchPolicy, game: str, options: dict, opponent: str, games: int, num_envs: int,
               seed: int) -> dict:
    """``games`` games of ``policy`` against ``opponent``, seats swapped (``games / num_players`` in each seat; the
    first ``k`` games of each of at most ``num_envs`` rows, so long games are not under-counted)."""
    info = registry.make_game(game, **options).info
    outcomes, wins_by_seat = [], [0] * info.num_players
    for seat in range(info.num_players):
        share = games // info.num_players + (seat < games % info.num_players)
        if share == 0:
            continue
        rows = min(num_envs, share)
        quota = np.full(rows, share // rows) + (np.arange(rows) < share % rows)
        vec = registry.make_vec_env(game, rows, opponent=opponent, seat=seat, seed=seed + seat, **options)
        played = np.zeros(rows, dtype=np.int64)
        while (played < quota).any():
            vec.step(policy(vec.observations, vec.action_masks))
            for i in np.flatnonzero(vec.terminations & (played < quota)):
                outcomes.append(outcome(vec.final_returns[i], seat, info))
                wins_by_seat[seat] += outcomes[-1] == 1
                played[i] += 1
    wins, draws = outcomes.count(1), outcomes.count(0)
    return dict(games=games, wins=wins, draws=draws, losses=games - wins - draws, win_rate=wins / games,
                ci95=[round(x, 4) for x in wilson_interval(wins, games)], wins_by_seat=wins_by_seat)


def evaluate(policy: BatchPolicy, args: Any, step: int, budget: Budget, games: int, seed: int,
             **extra: Any) -> dict:
    """One line of ``eval.jsonl``: ``games`` games against each of ``args.eval_opponents`` (outside the budget)."""
    options = registry.parse_game_options(args.option)
    with budget.paused():
        results = {opponent: play_games(policy, args.game, options, opponent, games, args.eval_envs, seed)
                   for opponent in args.eval_opponents}
    train_s = budget.train_s()
    return dict(step=step, train_s=round(train_s, 1), train_cpu_s=round(budget.cpu_s(), 1),
                wall_s=round(budget.wall_s(), 1), steps_per_s=round(step / max(train_s, 1e-9)), **extra, **results)


def summary(record: dict, opponents: Sequence[str]) -> str:
    """One printed line: steps, minutes of training, steps/s and the win rates with their intervals."""
    rates = ", ".join(f"vs {o} {record[o]['win_rate']:.1%} ({record[o]['ci95'][0]:.1%}-{record[o]['ci95'][1]:.1%})"
                      for o in opponents)
    return (f"step {record['step']:>9,} | {record['train_s'] / 60:5.1f} min | {record['steps_per_s']:>6,} steps/s | "
            f"{rates}")


def final_table(record: dict, opponents: Sequence[str], title: str) -> Table:
    table = Table(title=title)
    for col in ("opponent", "games", "wins", "draws", "losses", "win rate (95% Wilson)", "wins by seat"):
        table.add_column(col, justify="right")
    for o in opponents:
        r = record[o]
        table.add_row(o, str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
                      f"{r['win_rate']:.1%} ({r['ci95'][0]:.1%}-{r['ci95'][1]:.1%})",
                      " / ".join(map(str, r["wins_by_seat"])))
    return table


def plot(history: list[dict], opponents: Sequence[str], path: Path, title: str) -> None:
    """Win rate against learner decisions, one line per opponent with its interval shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in history]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for o in opponents:
        ax.plot(steps, [r[o]["win_rate"] for r in history], marker="o", label=f"vs {o}")
        ax.fill_between(steps, [r[o]["ci95"][0] for r in history], [r[o]["ci95"][1] for r in history], alpha=0.2)
    ax.set(xlabel="learner decisions", ylabel="win rate", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


class Run:
    """The output folder and the console of one run: eval.jsonl, eval.png, final.json, args.json."""

    def __init__(self, args: Any, console: Console, title: str):
        self.args, self.console, self.title = args, console, title
        self.out = Path(args.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "eval.jsonl").unlink(missing_ok=True)
        (self.out / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))
        self.history: list[dict] = []

    def record(self, line: dict) -> None:
        self.history.append(line)
        with (self.out / "eval.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        self.console.print(summary(line, self.args.eval_opponents), soft_wrap=True, highlight=False)

    def finish(self, final: dict) -> None:
        (self.out / "final.json").write_text(json.dumps(final, indent=2))
        plot(self.history, self.args.eval_opponents, self.out / "eval.png",
             f"{self.title}, {self.args.game}, {final['steps_per_s']:,} steps/s")
        self.console.print(final_table(final, self.args.eval_opponents,
                                       f"{self.title} on {self.args.game} after {final['step']:,} steps "
                                       f"({final['train_s'] / 60:.1f} min), greedy policy, held-out games"))
        self.console.print(f"weights, eval.jsonl, eval.png and final.json in {self.out}/", highlight=False)

    def progress(self) -> Progress:
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        return Progress(*columns, console=self.console, disable=self.args.quiet)


# -- the network ---------------------------------------------------------------------------------------------------
def mlp(sizes: Sequence[int], out_std: float) -> Any:
    """Tanh MLP with orthogonal initialisation (gain sqrt 2 inside, ``out_std`` on the last layer)."""
    from torch import nn

    layers: list[nn.Module] = []
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        linear = nn.Linear(a, b)
        nn.init.orthogonal_(linear.weight, out_std if k == len(sizes) - 2 else 2 ** 0.5)
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def actor_critic(obs_dim: int, num_actions: int, hidden: Sequence[int]) -> Any:
    """``ActorCritic``: separate actor (logits) and critic (value) MLPs over the flat observation."""
    import torch
    from torch import nn

    class ActorCritic(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.actor = mlp([obs_dim, *hidden, num_actions], 0.01)
            self.critic = mlp([obs_dim, *hidden, 1], 1.0)

        def logits(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
            return self.actor(obs).masked_fill(~masks, ILLEGAL)

        def value(self, obs: torch.Tensor) -> torch.Tensor:
            return self.critic(obs).squeeze(-1)

    return ActorCritic()


def batch_policy(actor: Any, device: str, sample: bool = False, seed: int = 0) -> BatchPolicy:
    """``(observations, masks) -> actions`` of ``actor`` on masked logits: argmax, or sampled (its own stream)."""
    import torch

    generator = torch.Generator(device=device).manual_seed(seed)

    @torch.no_grad()
    def policy(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(observations.reshape(len(observations), -1), device=device)
        masks = torch.as_tensor(action_masks, device=device)
        logits = actor(obs).masked_fill(~masks, ILLEGAL)
        if sample:
            actions = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
        else:
            actions = logits.argmax(-1)
        return actions.cpu().numpy()

    return policy


# -- training ------------------------------------------------------------------------------------------------------
def train(args: Args, console: Console) -> dict:
    """Train, evaluate, save; return the final evaluation (also in ``<out_dir>/final.json``)."""
    import copy

    import torch
    from safetensors.torch import load_file, save_file
    from torch.distributions import Categorical

    options = registry.parse_game_options(args.option)
    info = registry.make_game(args.game, **options).info
    for spec in [*args.eval_opponents, *([] if args.self_play else [args.opponent])]:
        registry.make_vec_env(args.game, 1, opponent=spec, seed=0, **options)  # bad names fail before any output
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    obs_dim, num_actions = int(np.prod(info.observation_shape)), info.num_actions
    net = actor_critic(obs_dim, num_actions, args.hidden).to(device)
    if args.init is not None:
        net.load_state_dict(load_file(str(Path(args.init) / "model.safetensors"), device=args.device))
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    snapshot = copy.deepcopy(net.actor).requires_grad_(False) if args.self_play else None
    opponent: str | Callable = (batch_policy(snapshot, args.device, args.snapshot_sample, args.seed)
                                if snapshot is not None else args.opponent)
    vec = registry.make_vec_env(args.game, args.num_envs, opponent=opponent, seed=args.seed, **options)
    greedy = batch_policy(net.actor, args.device)
    title = "masked PPO" + (" (self-play)" if args.self_play else f" vs {args.opponent}")
    run = Run(args, console, title)
    console.print(f"{title} on {args.game}: {args.num_envs} envs x {args.num_steps} steps per update, "
                  f"{args.minutes:g} min / {args.timesteps:,} steps (0: none), seed {args.seed}",
                  soft_wrap=True, highlight=False)

    T, N = args.num_steps, args.num_envs
    obs = torch.zeros((T, N, obs_dim), device=device)
    masks = torch.zeros((T, N, num_actions), dtype=torch.bool, device=device)
    actions = torch.zeros((T, N), dtype=torch.long, device=device)
    logprobs, rewards, dones, values = (torch.zeros((T, N), device=device) for _ in range(4))
    next_done = torch.zeros(N, device=device)
    batch_size = T * N
    minibatch = batch_size // args.num_minibatches
    budget = Budget(args.minutes, args.timesteps)
    step, update, games, won, next_eval = 0, 0, 0, 0, 0
    with run.progress() as progress:
        task = progress.add_task(title, total=1.0, status="")
        while (progress_now := budget.progress(step)) < 1.0:
            if progress_now >= next_eval / args.evals:
                run.record(evaluate(greedy, args, step, budget, args.eval_games, args.eval_seed))
                next_eval = int(budget.progress(step) * args.evals) + 1
            if args.anneal_lr:
                optimizer.param_groups[0]["lr"] = (1.0 - progress_now) * args.learning_rate
            for t in range(T):
                obs[t] = torch.as_tensor(vec.observations.reshape(N, -1), device=device)
                masks[t] = torch.as_tensor(vec.action_masks, device=device)
                dones[t] = next_done
                with torch.no_grad():
                    dist = Categorical(logits=net.logits(obs[t], masks[t]))
                    actions[t] = dist.sample()
                    logprobs[t], values[t] = dist.log_prob(actions[t]), net.value(obs[t])
                vec.step(actions[t].cpu().numpy())
                rewards[t] = torch.as_tensor(vec.rewards, device=device)
                next_done = torch.as_tensor(vec.terminations, device=device, dtype=torch.float32)
                games += int(vec.terminations.sum())
                won += int((vec.rewards[vec.terminations] > 0).sum())
            step += batch_size
            update += 1

            with torch.no_grad():  # GAE: dones[t] marks obs[t] as a new game's first observation
                next_value = net.value(torch.as_tensor(vec.observations.reshape(N, -1), device=device))
                advantages = torch.zeros_like(rewards)
                last = torch.zeros(N, device=device)
                for t in reversed(range(T)):
                    not_done = 1.0 - (next_done if t == T - 1 else dones[t + 1])
                    following = next_value if t == T - 1 else values[t + 1]
                    delta = rewards[t] + args.gamma * following * not_done - values[t]
                    advantages[t] = last = delta + args.gamma * args.gae_lambda * not_done * last
                returns = advantages + values

            b_obs, b_masks, b_actions = obs.reshape(batch_size, -1), masks.reshape(batch_size, -1), actions.flatten()
            b_logprobs, b_adv, b_returns = logprobs.flatten(), advantages.flatten(), returns.flatten()
            for _ in range(args.update_epochs):
                order = torch.randperm(batch_size, device=device)
                for start in range(0, batch_size, minibatch):
                    mb = order[start:start + minibatch]
                    dist = Categorical(logits=net.logits(b_obs[mb], b_masks[mb]))
                    ratio = (dist.log_prob(b_actions[mb]) - b_logprobs[mb]).exp()
                    adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                    pg_loss = torch.max(-adv * ratio,
                                        -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                    v_loss = 0.5 * ((net.value(b_obs[mb]) - b_returns[mb]) ** 2).mean()
                    loss = pg_loss - args.ent_coef * dist.entropy().mean() + args.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                    optimizer.step()
            if snapshot is not None and update % args.snapshot_every == 0:
                snapshot.load_state_dict(net.actor.state_dict())
            progress.update(task, completed=min(1.0, budget.progress(step)),
                            status=f"{step:,} steps, {step / budget.train_s():,.0f}/s, "
                                   f"{won / max(games, 1):.0%} of {games:,} training games won")

    save_file(net.state_dict(), str(run.out / "model.safetensors"))
    final = evaluate(greedy, args, step, budget, args.final_eval_games, args.eval_seed + 1, final=True,
                     training_games=games, training_win_rate=round(won / max(games, 1), 4))
    run.record(final)
    run.finish(final)
    return final


def load_policy(run_dir: str | Path, device: str = "cpu") -> BatchPolicy:
    """The greedy (argmax, masked) policy of a run's ``model.safetensors``, built as its ``args.json`` says."""
    from safetensors.torch import load_file

    args = json.loads((Path(run_dir) / "args.json").read_text())
    info = registry.make_game(args["game"], **registry.parse_game_options(args["option"])).info
    net = actor_critic(int(np.prod(info.observation_shape)), info.num_actions, args["hidden"])
    net.load_state_dict(load_file(str(Path(run_dir) / "model.safetensors"), device=device))
    return batch_policy(net.to(device).actor, device)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One argument per field of ``Args``: ``GAME``, then ``--opponent``, ``--self-play``, ``--minutes``..."""
    dataclass_arguments(parser, Args)


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train-vec-ppo``: train with the parsed arguments; 0 on success."""
    train(parsed_args(args, Args, SMOKE, "vec_ppo"), console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.training.vec_ppo GAME ...``: 0 on success, 2 on a cardboard error (printed)."""
    return run_script("python -m cardboard.training.vec_ppo", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

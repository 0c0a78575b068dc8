"""Supervised learning on self-play records (issue 17): a ``PolicyValueNet`` fitted to search's policy targets.

    cardboard train lords_of_war --data runs/selfplay/low --out runs/learn/low
    cardboard train lords_of_war --data runs/exit/gen-3/data runs/exit/gen-4/data --value-mix 0.2 --out DIR
    python -m cardboard.training.learn hearth --data DIR --out DIR --option decks=face_hunter --epochs 20
    cardboard train hearth --data MECH HANDLOCK FACE --mixed-options --out DIR    # one network, three mirrors

Loads the shards of the ``--data`` folders (``training.selfplay``, several as one record set: ``load_runs``; each
header's game and options must be GAME and its ``--option``s, or with ``--mixed-options`` any options of GAME of the
same observation and action shapes), splits them by game index into training and
validation games (``--val-fraction`` of the games, drawn with ``--seed``), and trains with Adam on

    loss = cross-entropy(policy target, masked policy) over the full records
           + value_weight * MSE(values, value targets) over all records

The policy target is the search's (improved policy or visits; ``--target-temperature T`` sharpens it to
target^(1/T), 0 trains on the moves played); records of fast decisions (``full`` False, playout-cap
randomisation) train the value only. The value target is the final returns, the acting seat's mixed with the
root's value (KataGo): ``(1 - λ) outcome + λ root_value`` with ``λ = --value-mix`` (``value_targets``).
The policy's illegal actions get probability 0; the value head predicts every seat's return from the acting
seat's observation. On ``--device`` (``cuda`` trains on the GPU; an unknown or unavailable device is refused
before anything is read or written). After each epoch the validation loss decides: the best network so far is
written to ``<out>/model.safetensors`` (``PolicyValueNet.save``, a safetensors file; its metadata add ``training``:
data folders, epochs, best epoch, losses), and training stops after ``--patience`` epochs without improvement.
``log.json`` holds every epoch's losses, ``curve.png`` the learning curves. ``--trunk structured`` (the default)
shapes the network by the game's observation structure (``envs.structure.structure_of``), ``mlp`` is the MLP;
with it, ``--policy-head structured`` (the default) scores the action ranges the game declares from the squares
and slots they name (``policies.heads``), ``flat`` keeps one linear layer over every action.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardboard import registry
from cardboard.envs.errors import DataError, InvalidParameterError
from cardboard.envs.protocol import GameInfo
from cardboard.envs.structure import structure_of
from cardboard.jobs.script import run_script
from cardboard.training.selfplay import load_runs


@dataclass
class Args:
    game: str
    """a registered game (see ``cardboard games``)"""
    data: str | list[str] = ""
    """self-play folders (``cardboard selfplay --out``), read as one record set"""
    out: str | None = None
    """output folder (default runs/learn/GAME)"""
    option: list[str] = field(default_factory=list)
    """game options as KEY=VALUE (repeatable); must equal the data's"""
    mixed_options: bool = False
    """take data played with other options of GAME (Hearth's three mirrors) whose observations and actions have
    the shapes of GAME with --option's: one network for them all"""
    epochs: int = 50
    batch_size: int = 256
    lr: float = 1e-3
    hidden: tuple[int, ...] = (176, 176)
    """the trunk's layer widths"""
    trunk: str = "structured"
    """structured: a trunk shaped by the game's declared observation structure (the MLP where it declares none);
    mlp: the MLP over the flat observation"""
    policy_head: str = "structured"
    """structured: with the structured trunk, the action ranges the game declares are scored from the board's
    squares and the hand's slots (policies.heads), the other actions by a linear layer; flat: one linear layer"""
    val_fraction: float = 0.1
    """share of the games held out for validation (0: none; early stopping then watches the training loss)"""
    patience: int = 5
    """epochs without a better validation loss before stopping"""
    value_weight: float = 1.0
    value_mix: float = 0.0
    """λ: the value target (1 - λ) outcome + λ root value, for the acting seat (the outcome where no root value)"""
    weight_decay: float = 0.0
    target_temperature: float = 1.0
    """policy target: target^(1/T) renormalised (1: the search's target as recorded; 0: one-hot on the action played)"""
    seed: int = 0
    torch_threads: int = 1
    device: str = "cpu"
    """the torch device to train on (cpu, cuda, cuda:N); model.safetensors loads on any device"""
    quiet: bool = False
    """no progress bar"""


TRUNKS = ("structured", "mlp")
POLICY_HEADS = ("structured", "flat")
MODEL = "model.safetensors"  # the network's file in --out


SUMMARY = "fit a policy-value network to self-play records"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One argument per field of ``Args`` (``GAME``, ``--data``, ``--out``, ``--hidden 176 176``...)."""
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if f.name == "game":
            parser.add_argument("game", help="a registered game (see 'cardboard games')")
        elif f.name == "data":
            parser.add_argument(flag, required=True, nargs="+", metavar="DIR",
                                help="self-play folders (cardboard selfplay), read as one record set")
        elif f.name == "option":
            parser.add_argument(flag, action="append", default=[], metavar="KEY=VALUE",
                                help="a game option (repeatable); must equal the data's")
        elif f.type == "bool":
            parser.add_argument(flag, action="store_true")
        elif f.type.startswith("tuple"):
            parser.add_argument(flag, type=int, nargs="+", default=default, help=f"default: {default}")
        elif f.type == "str | None":
            parser.add_argument(flag, metavar="DIR", default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=f"default: {default}")


def to_args(namespace: argparse.Namespace) -> Args:
    """``Args`` from parsed arguments, checked (other attributes, such as the CLI's ``command``, are ignored)."""
    args = Args(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(Args)})
    args.hidden = tuple(args.hidden)
    if args.trunk not in TRUNKS:
        raise InvalidParameterError(f"--trunk {args.trunk!r}: expected one of {', '.join(TRUNKS)}")
    if args.policy_head not in POLICY_HEADS:
        raise InvalidParameterError(f"--policy-head {args.policy_head!r}: expected one of "
                                    f"{', '.join(POLICY_HEADS)}")
    for name in ("epochs", "batch_size", "patience", "torch_threads"):
        if getattr(args, name) < 1:
            raise InvalidParameterError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if not 0 <= args.val_fraction < 1:
        raise InvalidParameterError(f"--val-fraction must be in [0, 1), got {args.val_fraction}")
    if not args.lr > 0:
        raise InvalidParameterError(f"--lr must be > 0, got {args.lr}")
    if not 0 <= args.value_mix <= 1:
        raise InvalidParameterError(f"--value-mix must be in [0, 1], got {args.value_mix}")
    if args.out is None:
        args.out = f"runs/learn/{args.game}"
    return args


def split_games(games: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(training games, validation games)``: ``ceil(fraction * G)`` of the ``G`` games, drawn with ``seed``,
    for validation (at least one training game is kept)."""
    games = np.unique(games)
    n_val = min(math.ceil(fraction * len(games)), len(games) - 1) if fraction > 0 else 0
    shuffled = np.random.default_rng(seed).permutation(games)
    return np.sort(shuffled[n_val:]), np.sort(shuffled[:n_val])


def check_header(header: dict[str, Any], game: str, options: dict[str, Any], folder: str,
                 shapes: GameInfo | None = None) -> None:
    """``DataError`` unless the data were played on ``game`` with ``options``, or (``shapes``: mixed options) with
    any options of ``game`` whose observations and actions have the shapes of ``shapes``."""
    played = header.get("options", {})
    same = played == json.loads(json.dumps(options))
    if not same and shapes is not None and header.get("game") == game:
        info = registry.make_game(game, **played).info
        same = all(getattr(info, f) == getattr(shapes, f) for f in ("observation_shape", "num_actions", "num_players"))
    if header.get("game") != game or not same:
        raise DataError(f"{Path(folder) / 'header.json'}: the data are of game {header.get('game')!r} with options "
                        f"{played!r}, not {game!r} with {options!r}"
                        + (" or other options of the same shapes" if shapes is not None else ""))


def sharpened(policy: np.ndarray, action: np.ndarray, temperature: float) -> np.ndarray:
    """Policy targets ``policy^(1/temperature)`` renormalised per row (ExIt's visit counts with few iterations
    over many actions are nearly flat); temperature 0: one-hot on ``action``, the move the search played."""
    if temperature < 0:
        raise InvalidParameterError(f"target_temperature must be >= 0, got {temperature}")
    if temperature == 1.0:
        return policy
    if temperature == 0.0:
        out = np.zeros_like(policy)
        out[np.arange(len(action)), action] = 1.0
        return out
    out = np.power(policy.astype(np.float64), 1.0 / temperature)
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def value_targets(returns: np.ndarray, seat: np.ndarray, root_value: np.ndarray, mix: float,
                  utility: str) -> np.ndarray:
    """The value head's targets [N, P]: ``returns`` with the acting seat's moved to ``(1 - mix) returns[seat] +
    mix root_value`` (unchanged where ``root_value`` is NaN). The move ``d`` keeps the returns' structure: in a
    two-player zero-sum game the other seat's target moves by ``-d``, in a cooperative game every seat's by ``d``;
    otherwise only the acting seat's moves."""
    targets = returns.astype(np.float32)
    rows = np.arange(len(seat))
    delta = mix * (root_value - returns[rows, seat])
    delta = np.where(np.isnan(delta), 0.0, delta).astype(np.float32)
    if utility == "cooperative":
        return targets + delta[:, None]
    targets[rows, seat] += delta
    if utility == "zero_sum" and returns.shape[1] == 2:
        targets[rows, 1 - seat] -= delta
    return targets


def loss_sums(net: Any, batch: dict[str, Any]) -> tuple[Any, Any]:
    """``(policy cross-entropy summed over the full records, value squared error averaged over the seats and
    summed over all records)`` of a batch of tensors (obs, mask, policy, returns, full)."""
    logits, values = net(batch["obs"])
    logp = logits.masked_fill(~batch["mask"], float("-inf")).log_softmax(dim=-1).masked_fill(~batch["mask"], 0.0)
    policy = -(batch["policy"] * logp).sum(dim=-1)
    return policy.where(batch["full"], 0.0).sum(), ((values - batch["returns"]) ** 2).mean(dim=-1).sum()


def losses(net: Any, batch: dict[str, Any], value_weight: float) -> tuple[Any, Any, Any]:
    """``(total, policy cross-entropy, value MSE)`` of a batch of tensors: the cross-entropy is the mean over the
    batch's full records (0 without any), the MSE over all records and seats."""
    policy_sum, value_sum = loss_sums(net, batch)
    policy = policy_sum / batch["full"].sum().clamp(min=1)
    value = value_sum / len(batch["obs"])
    return policy + value_weight * value, policy, value


class BestSoFar:
    """Early stopping: keeps a copy of the weights of the epoch with the lowest watched loss; ``update`` says
    when ``patience`` epochs in a row have not improved on it."""

    def __init__(self, patience: int):
        self.patience, self.loss, self.epoch, self.state, self.waited = patience, math.inf, 0, None, 0

    def update(self, net: Any, loss: float, epoch: int) -> bool:
        """Record epoch ``epoch``'s watched ``loss``; True when training should stop."""
        if loss < self.loss:
            self.loss, self.epoch, self.waited = loss, epoch, 0
            self.state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        else:
            self.waited += 1
        return self.waited >= self.patience


def train(args: Args, console: Console) -> dict[str, Any]:
    """Train, keep the best network by validation loss, write model.safetensors / log.json / curve.png; return the
    log."""
    import torch

    from cardboard.policies.evaluator import resolve_device
    from cardboard.policies.network import PolicyValueNet

    device = resolve_device(args.device)
    options = registry.parse_game_options(args.option)
    game = registry.make_game(args.game, **options)  # unknown names fail first
    folders = [args.data] if isinstance(args.data, str) else list(args.data)
    headers, data = load_runs(folders)
    for header, folder in zip(headers, folders):
        check_header(header, args.game, options, folder, game.info if args.mixed_options else None)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    train_games, val_games = split_games(data["games"], args.val_fraction, args.seed)
    fields = ("obs", "mask", "policy", "returns", "full")
    data = dict(data, policy=sharpened(data["policy"], data["action"], args.target_temperature),
                returns=value_targets(data["returns"], data["seat"], data["root_value"], args.value_mix,
                                      game.info.utility))
    tensors = {k: torch.as_tensor(data[k]).to(device) for k in fields}

    def subset(games: np.ndarray) -> dict[str, Any]:
        rows = torch.as_tensor(np.flatnonzero(np.isin(data["game"], games)), device=device)
        return {k: v[rows] for k, v in tensors.items()}

    train_set, val_set = subset(train_games), subset(val_games)
    n_train, n_val = len(train_set["obs"]), len(val_set["obs"])
    if n_train == 0:
        raise DataError(f"{', '.join(folders)}: no training records (games without a searched decision?)")
    structure = structure_of(game) if args.trunk == "structured" else None
    if structure is not None and args.policy_head == "flat":
        structure = structure.without_actions()
    net = PolicyValueNet(game.info, args.hidden, options, structure).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(args.seed)
    console.print(f"training on {', '.join(folders)}: {n_train} records of {len(train_games)} games "
                  f"({int(train_set['full'].sum())} full), validation {n_val} records of {len(val_games)} games; "
                  f"{net.num_parameters():,} parameters", highlight=False)

    def evaluate(dataset: dict[str, Any]) -> tuple[float, float, float]:
        """``(total, policy, value)`` losses of a whole record set, as ``losses`` of one batch of it."""
        net.eval()
        policy_sum = value_sum = 0.0
        with torch.no_grad():
            for start in range(0, len(dataset["obs"]), 4096):
                sums = loss_sums(net, {k: v[start:start + 4096] for k, v in dataset.items()})
                policy_sum, value_sum = policy_sum + float(sums[0]), value_sum + float(sums[1])
        policy, value = policy_sum / max(int(dataset["full"].sum()), 1), value_sum / len(dataset["obs"])
        return policy + args.value_weight * value, policy, value

    history: list[dict[str, Any]] = []
    keeper, start = BestSoFar(args.patience), time.time()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=args.quiet) as progress:
        task = progress.add_task(f"learn {args.game}", total=args.epochs, status="")
        initial = evaluate(train_set)
        for epoch in range(1, args.epochs + 1):
            net.train()
            order = torch.randperm(n_train, generator=generator).to(device)
            for first in range(0, n_train, args.batch_size):
                rows = order[first:first + args.batch_size]
                loss, _, _ = losses(net, {k: v[rows] for k, v in train_set.items()}, args.value_weight)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            train_loss = evaluate(train_set)
            val_loss = evaluate(val_set) if n_val else (math.nan,) * 3
            watched = val_loss[0] if n_val else train_loss[0]
            history.append(dict(epoch=epoch, train_loss=train_loss[0], train_policy=train_loss[1],
                                train_value=train_loss[2], val_loss=val_loss[0], val_policy=val_loss[1],
                                val_value=val_loss[2], wall_s=round(time.time() - start, 2)))
            stop = keeper.update(net, watched, epoch)
            progress.update(task, advance=1, status=f"train {train_loss[0]:.4f} val {val_loss[0]:.4f} "
                                                    f"(best {keeper.loss:.4f} @ {keeper.epoch})")
            if stop:
                break
    net.load_state_dict(keeper.state)
    best, best_epoch = keeper.loss, keeper.epoch
    log = dict(args=dataclasses.asdict(args), data=folders, data_headers=headers, records=dict(
        train=n_train, val=n_val, train_full=int(train_set["full"].sum())), games=dict(
        train=train_games.tolist(), val=val_games.tolist()),
        initial_train_loss=dict(zip(("loss", "policy", "value"), initial)), epochs=history, best_epoch=best_epoch,
        best_loss=best, stopped_early=len(history) < args.epochs)
    training = dict(data=folders, epochs=len(history), best_epoch=best_epoch, best_loss=best,
                    train_loss=history[best_epoch - 1]["train_loss"], val_loss=history[best_epoch - 1]["val_loss"],
                    seed=args.seed, lr=args.lr, batch_size=args.batch_size)
    _save(net, out / MODEL, training)
    (out / "log.json").write_text(json.dumps(log, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    plot(history, out / "curve.png", args)
    console.print(f"best epoch {best_epoch} of {len(history)}: loss {best:.4f}; {MODEL}, log.json and curve.png "
                  f"in {out}/", highlight=False)
    return log


def _save(net: Any, path: Path, training: dict[str, Any]) -> None:
    """``net.save`` with a ``training`` entry in its metadata, written to a temporary file and renamed."""
    base = net.metadata()
    net.metadata = lambda: base | {"training": json.loads(json.dumps(training))}
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        net.save(tmp)
        os.replace(tmp, path)
    finally:
        del net.metadata


def plot(history: list[dict[str, Any]], path: Path, args: Args) -> None:
    """Training and validation loss (total, and its policy and value parts) against epochs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.3))
    for ax, part in zip(axes, ("loss", "policy", "value")):
        ax.plot(epochs, [h[f"train_{part}"] for h in history], marker=".", label="train")
        if any(not math.isnan(h[f"val_{part}"]) for h in history):
            ax.plot(epochs, [h[f"val_{part}"] for h in history], marker=".", label="validation")
        ax.set(xlabel="epoch", title={"loss": "total", "policy": "policy cross-entropy", "value": "value MSE"}[part])
        ax.grid(alpha=0.3)
    axes[0].legend()
    data = [args.data] if isinstance(args.data, str) else args.data
    fig.suptitle(f"{args.game}: policy-value network on {', '.join(Path(d).name for d in data)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train``: train with the parsed arguments (see ``add_arguments``); 0 on success."""
    train(to_args(args), console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.training.learn GAME ...``: 0 on success, 2 on a cardboard error (printed)."""
    return run_script("python -m cardboard.training.learn", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

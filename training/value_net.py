"""Leaf value networks fitted to self-play records (issue 49): the small network a search evaluates in compiled code
(``search.leaf_value``; agent knobs ``vnet=PATH,mix=λ``).

    cardboard train-value lords_of_war --data runs/vnet/low_gen0 --out runs/vnet/low_net0
    cardboard train-value hearth --data D1 D2 D3 --mixed-options --target td --lam 0.7 --out DIR

Reads the ``--data`` folders (``training.selfplay``, one record set: ``load_runs``), splits them by game into
training and validation games (``--val-fraction``, drawn with ``--seed``) and fits ``LeafNet``'s shape in torch:
the acting seat's observation through ``Linear(observation, H1)``, clipped ReLU, ``Linear(H1, H2)``, clipped ReLU,
``Linear(H2, players)`` and a sigmoid, the values in [0, 1] of the seats counted from the observer, with Adam on
the mean squared error against the value targets (``--target``):

- ``mc``: the final returns (Monte Carlo), the observer's own mixed with the search's root value
  (``(1 - a) outcome + a root_value``, ``a = --root-mix``; as ``cardboard train``'s ``--value-mix``);
- ``td``: TD(λ) returns (Sutton 1988; TD-Gammon): a position's target is ``(1 - λ) V(next) + λ target(next)`` over
  the game's next recorded position, the final returns after the last, with ``V`` the network's own values,
  recomputed before every epoch (``td_targets``).

``--policy-weight W`` > 0 adds a policy head (``Linear(H2, actions)``, the ``vprior`` and ``vroll`` knobs' logits)
trained on the records' visit distributions: the cross-entropy of the softmax over the legal actions, weighted by
``W`` in the loss (records without a search's visits count for the value alone).

After each epoch the validation loss (value, plus ``W`` times policy) decides: the best network so far is written to ``<out>/value_net.safetensors``
(``policies.value_net.save``; its metadata add ``training``), and training stops after ``--patience`` epochs
without improvement. ``log.json`` holds every epoch's losses, ``curve.png`` the learning curve. Torch is imported
when training starts; the written network is read by search with numpy.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardboard import registry
from cardboard.envs.errors import DataError, InvalidParameterError
from cardboard.envs.protocol import GameInfo
from cardboard.jobs.script import run_script
from cardboard.training.learn import check_header, split_games
from cardboard.training.selfplay import load_runs

SUMMARY = "fit a small leaf value network (vnet=) to self-play records"
MODEL = "value_net.safetensors"  # the network's file in --out
TARGETS = ("mc", "td")


@dataclass
class Args:
    game: str
    data: list[str] = field(default_factory=list)
    out: str | None = None
    option: list[str] = field(default_factory=list)
    mixed_options: bool = False
    hidden: tuple[int, ...] = (128, 32)
    target: str = "mc"
    lam: float = 0.7
    root_mix: float = 0.0
    policy_weight: float = 0.0
    epochs: int = 20
    batch_size: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-5
    patience: int = 3
    val_fraction: float = 0.1
    seed: int = 0
    torch_threads: int = 1
    quiet: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``GAME``, ``--data DIR...`` and one flag per other field of ``Args``."""
    parser.add_argument("game", help="a registered game (see 'cardboard games')")
    parser.add_argument("--data", required=True, nargs="+", metavar="DIR", help="self-play folders (cardboard selfplay)")
    parser.add_argument("--out", metavar="DIR", default=None, help="default: runs/value_net/GAME")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (repeatable); must equal the data's")
    parser.add_argument("--mixed-options", action="store_true",
                        help="data of any options of GAME with the same observation and action shapes")
    parser.add_argument("--hidden", type=int, nargs=2, default=(128, 32), metavar=("H1", "H2"), help="default: 128 32")
    parser.add_argument("--target", choices=TARGETS, default="mc", help="value targets: mc or td (default: mc)")
    parser.add_argument("--quiet", action="store_true")
    for f in dataclasses.fields(Args):
        if f.name not in ("game", "data", "out", "option", "mixed_options", "hidden", "target", "quiet"):
            parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default,
                                help=f"default: {f.default}")


def to_args(namespace: argparse.Namespace) -> Args:
    """``Args`` from parsed arguments, checked."""
    args = Args(**{f.name: getattr(namespace, f.name) for f in dataclasses.fields(Args)})
    args.hidden = tuple(args.hidden)
    if len(args.hidden) != 2 or min(args.hidden) < 1:
        raise InvalidParameterError(f"--hidden: two sizes >= 1, got {args.hidden}")
    if args.target not in TARGETS:
        raise InvalidParameterError(f"--target {args.target!r}: expected one of {', '.join(TARGETS)}")
    for name in ("epochs", "batch_size", "patience", "torch_threads"):
        if getattr(args, name) < 1:
            raise InvalidParameterError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if not args.policy_weight >= 0:
        raise InvalidParameterError(f"--policy-weight must be >= 0, got {args.policy_weight}")
    for name in ("lam", "root_mix"):
        if not 0 <= getattr(args, name) <= 1:
            raise InvalidParameterError(f"--{name.replace('_', '-')} must be in [0, 1], got {getattr(args, name)}")
    if not 0 <= args.val_fraction < 1:
        raise InvalidParameterError(f"--val-fraction must be in [0, 1), got {args.val_fraction}")
    if not args.lr > 0:
        raise InvalidParameterError(f"--lr must be > 0, got {args.lr}")
    if args.out is None:
        args.out = f"runs/value_net/{args.game}"
    return args


def unit(returns: np.ndarray, info: GameInfo) -> np.ndarray:
    """Returns mapped from the game's range to [0, 1]."""
    return (np.asarray(returns, dtype=np.float64) - info.min_return) / (info.max_return - info.min_return)


def relative(by_seat: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Rows of values by seat as rows by seat counted from ``seat`` (the observer first)."""
    players = by_seat.shape[1]
    return by_seat[np.arange(len(seat))[:, None], (seat[:, None] + np.arange(players)) % players]


def absolute(from_seat: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``relative``'s inverse."""
    players = from_seat.shape[1]
    out = np.empty_like(from_seat)
    out[np.arange(len(seat))[:, None], (seat[:, None] + np.arange(players)) % players] = from_seat
    return out


def mc_targets(returns: np.ndarray, seat: np.ndarray, root_value: np.ndarray, root_mix: float,
               info: GameInfo) -> np.ndarray:
    """Monte Carlo targets from the observer (module docstring): the final returns in [0, 1], the observer's own
    mixed with the root value where the record has one."""
    targets = relative(unit(returns, info), seat)
    if root_mix:
        root = unit(root_value, info)
        known = np.isfinite(root)
        targets[known, 0] = (1 - root_mix) * targets[known, 0] + root_mix * root[known]
    return targets


@njit(cache=True)
def _lambda_returns(predicted, final, game, lam, out):
    """``out[t] = (1 - lam) predicted[t + 1] + lam out[t + 1]`` within each game's run of rows, ``final`` (by row)
    after its last; all by seat."""
    for t in range(predicted.shape[0] - 1, -1, -1):
        if t == predicted.shape[0] - 1 or game[t + 1] != game[t]:
            out[t] = final[t]
        else:
            out[t] = (1.0 - lam) * predicted[t + 1] + lam * out[t + 1]


def td_targets(predicted: np.ndarray, returns: np.ndarray, seat: np.ndarray, game: np.ndarray, lam: float,
               info: GameInfo) -> np.ndarray:
    """TD(λ) targets from the observer: ``predicted`` (the network's values from each record's observer, in [0, 1])
    and the final ``returns`` (by seat) of records in play order, grouped by ``game``."""
    out = np.empty((len(seat), info.num_players))
    _lambda_returns(absolute(np.asarray(predicted, dtype=np.float64), seat), unit(returns, info), game, lam, out)
    return relative(out, seat)


def network(size: int, hidden: tuple[int, int], players: int, actions: int = 0) -> Any:
    """The torch module of ``LeafNet``'s shape (module docstring), with a policy head of ``actions`` logits when
    ``actions`` > 0 (``logits``)."""
    import torch

    class ValueNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = torch.nn.Linear(size, hidden[0])
            self.l2 = torch.nn.Linear(hidden[0], hidden[1])
            self.l3 = torch.nn.Linear(hidden[1], players)
            self.policy = torch.nn.Linear(hidden[1], actions) if actions else None

        def hidden(self, x: Any) -> Any:
            return torch.clamp(self.l2(torch.clamp(self.l1(x), 0.0, 1.0)), 0.0, 1.0)

        def forward(self, x: Any) -> Any:
            return torch.sigmoid(self.l3(self.hidden(x)))

        def logits(self, x: Any) -> Any:
            """The policy head's logit of every action id."""
            return self.policy(self.hidden(x))

        def leaf_net(self) -> Any:
            """The weights as ``search.leaf_value.LeafNet`` (numpy, float32, the input side first)."""
            from cardboard.search.leaf_value import LeafNet

            layers = [self.l1.weight.T, self.l1.bias, self.l2.weight.T, self.l2.bias, self.l3.weight.T, self.l3.bias]
            if self.policy is not None:
                layers += [self.policy.weight.T, self.policy.bias]
            arrays = [p.detach().cpu().numpy().astype(np.float32) for p in layers]
            return LeafNet(*(np.ascontiguousarray(a) for a in arrays))

    return ValueNet()


def policy_loss(logits: Any, mask: Any, target: Any) -> Any:
    """The mean cross-entropy of the visit distributions ``target`` against the softmax of ``logits`` over the legal
    actions (``mask``), over the rows with a target."""
    import torch

    logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    return -(target * logp.masked_fill(~mask, 0.0)).sum(dim=1).mean()


def train(args: Args, console: Console) -> dict[str, Any]:
    """Train, keep the best network by validation loss, write value_net.safetensors / log.json / curve.png; return
    the log."""
    import torch

    from cardboard.policies import value_net

    options = registry.parse_game_options(args.option)
    game = registry.make_game(args.game, **options)
    info = game.info
    headers, data = load_runs(args.data)
    for header, folder in zip(headers, args.data):
        check_header(header, args.game, options, folder, info if args.mixed_options else None)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    train_games, val_games = split_games(data["games"], args.val_fraction, args.seed)
    observations = torch.as_tensor(data["obs"].reshape(len(data["obs"]), -1))
    seat, returns, game_of = data["seat"].astype(np.int64), data["returns"], data["game"]
    targets = mc_targets(returns, seat, data["root_value"], args.root_mix, info)
    train_rows = np.flatnonzero(np.isin(game_of, train_games))
    val_rows = np.flatnonzero(np.isin(game_of, val_games))
    if len(train_rows) == 0:
        raise DataError(f"{', '.join(args.data)}: no training records")
    policies, masks = torch.as_tensor(data["policy"]), torch.as_tensor(data["mask"])
    searched = policies.sum(dim=1).numpy() > 0  # records with a visit distribution (a policy target)
    net = network(observations.shape[1], args.hidden, info.num_players, info.num_actions if args.policy_weight else 0)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(args.seed)
    console.print(f"training on {', '.join(args.data)}: {len(train_rows)} records of {len(train_games)} games, "
                  f"validation {len(val_rows)} of {len(val_games)}; targets {args.target}", highlight=False)

    def predict() -> np.ndarray:
        net.eval()
        with torch.no_grad():
            return torch.cat([net(observations[i:i + 8192]) for i in range(0, len(observations), 8192)]).numpy()

    def losses(rows: np.ndarray, target: torch.Tensor) -> tuple[Any, Any]:
        """The value MSE and the policy cross-entropy (0 without a head) of ``rows``."""
        index = torch.as_tensor(rows)
        value = torch.nn.functional.mse_loss(net(observations[index]), target[index])
        with_policy = torch.as_tensor(rows[searched[rows]])
        if not args.policy_weight or len(with_policy) == 0:
            return value, torch.zeros(())
        return value, policy_loss(net.logits(observations[with_policy]), masks[with_policy], policies[with_policy])

    def loss_of(rows: np.ndarray, target: torch.Tensor) -> tuple[float, float]:
        if len(rows) == 0:
            return math.nan, math.nan
        net.eval()
        with torch.no_grad():
            value, policy = losses(rows, target)
            return float(value), float(policy)

    history: list[dict[str, Any]] = []
    best = (math.inf, 0, None)
    start = time.time()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=args.quiet) as progress:
        task = progress.add_task(f"value net {args.game}", total=args.epochs, status="")
        for epoch in range(1, args.epochs + 1):
            if args.target == "td":
                targets = td_targets(predict(), returns, seat, game_of, args.lam, info)
            target = torch.as_tensor(targets, dtype=torch.float32)
            net.train()
            order = train_rows[torch.randperm(len(train_rows), generator=generator).numpy()]
            for first in range(0, len(order), args.batch_size):
                value, policy = losses(order[first:first + args.batch_size], target)
                loss = value + args.policy_weight * policy
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            (train_loss, train_policy), (val_loss, val_policy) = loss_of(train_rows, target), loss_of(val_rows, target)
            watched = (val_loss + args.policy_weight * val_policy if len(val_rows)
                       else train_loss + args.policy_weight * train_policy)
            history.append(dict(epoch=epoch, train_loss=train_loss, val_loss=val_loss, train_policy_loss=train_policy,
                                val_policy_loss=val_policy, wall_s=round(time.time() - start, 2)))
            if watched < best[0]:
                best = (watched, epoch, net.leaf_net())
            progress.update(task, advance=1, status=f"train {train_loss:.4f} val {val_loss:.4f} policy "
                                                    f"{val_policy:.3f} (best {best[0]:.4f} @ {best[1]})")
            if epoch - best[1] >= args.patience:
                break
    training = dict(data=list(args.data), records=len(train_rows) + len(val_rows), epochs=len(history),
                    best_epoch=best[1], best_loss=best[0], target=args.target, lam=args.lam, root_mix=args.root_mix,
                    policy_weight=args.policy_weight,
                    seed=args.seed, lr=args.lr, batch_size=args.batch_size)
    value_net.save(best[2], info, out / MODEL, {"training": training})
    log = dict(args=dataclasses.asdict(args), data_headers=headers, epochs=history, best_epoch=best[1],
               best_loss=best[0], stopped_early=len(history) < args.epochs,
               games=dict(train=train_games.tolist(), val=val_games.tolist()))
    (out / "log.json").write_text(json.dumps(log, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    plot(history, out / "curve.png", args)
    console.print(f"best epoch {best[1]} of {len(history)}: loss {best[0]:.4f}; {MODEL}, log.json and curve.png in "
                  f"{out}/", highlight=False)
    return log


def plot(history: list[dict[str, Any]], path: Path, args: Args) -> None:
    """Training and validation MSE against epochs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("loss", "value MSE"),) + ((("policy_loss", "policy cross-entropy"),) if args.policy_weight else ())
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.3), squeeze=False)
    epochs = [h["epoch"] for h in history]
    for ax, (key, label) in zip(axes[0], panels):
        ax.plot(epochs, [h[f"train_{key}"] for h in history], marker=".", label="train")
        ax.plot(epochs, [h[f"val_{key}"] for h in history], marker=".", label="validation")
        ax.set(xlabel="epoch", ylabel=label, title=f"{args.game}: leaf net ({args.target})")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train-value``: train with the parsed arguments; 0 on success."""
    train(to_args(args), console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.training.value_net GAME ...``: 0 on success, 2 on a cardboard error (printed)."""
    return run_script("python -m cardboard.training.value_net", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

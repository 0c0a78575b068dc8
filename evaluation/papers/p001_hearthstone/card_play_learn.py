"""Train paper 001's card-play networks on turn-card sets (§3.1, §4.5; issue 18).

    cardboard train-card-play runs/tcs/handlock --preset cnn_290k --out runs/tcs/handlock/cnn_290k
    python -m cardboard.evaluation.papers.p001_hearthstone.card_play_learn runs/tcs/handlock --preset dnn_140k --epochs 100

Reads the samples of a self-play folder (``card_play_data.turn_card_sets``: every in-turn state and the cards its
turn plays), splits the GAMES three ways with ``--seed`` (``split``: ``--test-fraction`` held out for Table
4.2, never seen here; ``--val-fraction`` of the rest for early stopping), and trains the preset's network
(``policies.card_play.PRESETS``) with binary cross-entropy on the K sigmoid outputs, Adam (lr 1e-3, β = 0.9 /
0.999, ε = 1e-8; 001 §4.5) and mini-batches of 200. The thesis's "decay √(t/3)" has no agreed meaning and is not
applied. After each epoch the validation BCE decides: the best network so far is kept, training stops after
``--patience`` epochs without improvement, and ``<out>/model.safetensors`` (``CardPlayNet.save``; metadata ``training``:
data, split, seed, epochs, losses), ``log.json`` and ``curve.png`` (BCE and validation turn-start accuracy
against epochs) are written, each to a temporary name and renamed. ``--device cuda`` trains on the GPU (the
checkpoint loads on any device); an unknown or unavailable device is refused before anything is written.

Accuracy is 001's strict set equality at the turn's first decision: the predicted set is the cards with
probability > 0.5 among those the player holds (``decode``; 001 does not say how it decodes, notes §5.2 #13).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardboard.envs.errors import DataError, InvalidParameterError
from cardboard.evaluation.papers.p001_hearthstone.card_play_data import encoder_of, features, turn_card_sets
from cardboard.training.learn import MODEL, BestSoFar
from cardboard.jobs.script import run_script

BATCH = 200  # 001 §4.5
LR = 1e-3  # 001 §4.5
THRESHOLD = 0.5  # decoding a set from the sigmoids (our choice; 001 §5.2 #13)
MEASURED = 5000  # training samples the per-epoch training curve is measured on


def split(games: np.ndarray, test_fraction: float, val_fraction: float, seed: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(train, validation, test)`` game indices: ``ceil(test_fraction * G)`` games drawn with ``seed`` are the
    test set, then ``ceil(val_fraction * rest)`` validation; at least one training game is kept."""
    games = np.unique(games)
    order = np.random.default_rng(seed).permutation(games)
    n_test = min(math.ceil(test_fraction * len(games)), len(games) - 1) if test_fraction > 0 else 0
    rest = order[n_test:]
    n_val = min(math.ceil(val_fraction * len(rest)), len(rest) - 1) if val_fraction > 0 else 0
    return np.sort(rest[n_val:]), np.sort(rest[:n_val]), np.sort(order[:n_test])


def decode(probabilities: np.ndarray, held: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """The predicted turn-card sets ``[B, K]`` (bool): probability above ``threshold`` and held by the player."""
    return (probabilities > threshold) & held


def strict_accuracy(predicted: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per row: the predicted set equals the target set exactly (001's strict set equality)."""
    return (predicted == target.astype(bool)).all(axis=1)


def predict(net: Any, samples: dict[str, np.ndarray], rows: np.ndarray, encoder: Any,
            chunk: int = 2048) -> tuple[np.ndarray, np.ndarray]:
    """``(probabilities [B, K], held [B, K])`` of the samples ``rows`` (network in eval mode, on its device)."""
    import torch

    net.eval()
    device = next(net.parameters()).device
    probs, held = [], []
    with torch.inference_mode():
        for start in range(0, len(rows), chunk):
            arrays = features(samples, rows[start:start + chunk], encoder)
            probs.append(torch.sigmoid(net(*(torch.from_numpy(a).to(device) for a in arrays))).cpu().numpy())
            held.append(encoder.held(arrays[1]))
    k = samples["target"].shape[1]
    return (np.concatenate(probs) if probs else np.zeros((0, k), np.float32),
            np.concatenate(held) if held else np.zeros((0, k), bool))


def train(data: str, preset: str, out: str, *, epochs: int = 200, patience: int = 10, batch_size: int = BATCH,
          lr: float = LR, test_fraction: float = 0.15, val_fraction: float = 0.1, seed: int = 0,
          max_train_games: int | None = None, torch_threads: int = 1, device: str = "cpu", quiet: bool = False,
          console: Console | None = None) -> dict[str, Any]:
    """Train (see the module) and write model.safetensors, log.json and curve.png in ``out``; returns the log.
    ``max_train_games``: train on at most that many of the training games (drawn with ``seed``; the validation
    and test games stay the same): how accuracy grows with data."""
    import torch

    from cardboard.evaluation.papers.p001_hearthstone.card_play import PRESETS, make_card_play_net
    from cardboard.policies.evaluator import resolve_device

    target_device = resolve_device(device)
    console = console or Console()
    if preset not in PRESETS:
        raise InvalidParameterError(f"unknown card-play preset {preset!r}; known: {', '.join(PRESETS)}")
    for name, value in (("epochs", epochs), ("patience", patience), ("batch_size", batch_size),
                        ("torch_threads", torch_threads)):
        if value < 1:
            raise InvalidParameterError(f"{name} must be >= 1, got {value}")
    if not (0 <= test_fraction < 1 and 0 <= val_fraction < 1 and lr > 0):
        raise InvalidParameterError(f"need test and validation fractions in [0, 1) and lr > 0; got {test_fraction}, "
                                    f"{val_fraction}, {lr}")
    header, samples = turn_card_sets(data)
    encoder = encoder_of(header)
    train_games, val_games, test_games = split(samples["games"], test_fraction, val_fraction, seed)
    if max_train_games is not None:
        if max_train_games < 1:
            raise InvalidParameterError(f"max_train_games must be >= 1, got {max_train_games}")
        train_games = np.sort(np.random.default_rng(seed).permutation(train_games)[:max_train_games])
    rows = {name: np.flatnonzero(np.isin(samples["game"], games))
            for name, games in (("train", train_games), ("val", val_games))}
    if len(rows["train"]) == 0:
        raise DataError(f"{data}: no training samples")
    torch.manual_seed(seed)
    torch.set_num_threads(torch_threads)
    net = make_card_play_net(preset, encoder.K).to(target_device)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    targets = torch.from_numpy(samples["target"].astype(np.float32)).to(target_device)
    generator = np.random.default_rng(seed)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    console.print(f"{preset} ({net.num_parameters():,} parameters, K = {encoder.K}) on {data}: "
                  f"{len(rows['train'])} samples of {len(train_games)} games; validation {len(rows['val'])} of "
                  f"{len(val_games)}; {len(test_games)} test games held out", highlight=False)

    def measure(which: np.ndarray) -> tuple[float, float]:
        """(BCE, strict accuracy at turn starts) of samples ``which``."""
        if len(which) == 0:
            return math.nan, math.nan
        probs, held = predict(net, samples, which, encoder)
        p = np.clip(probs, 1e-7, 1 - 1e-7)
        y = samples["target"][which].astype(np.float64)
        bce = float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())
        first = samples["first"][which]
        hits = strict_accuracy(decode(probs, held), samples["target"][which])
        return bce, float(hits[first].mean()) if first.any() else math.nan

    history: list[dict[str, Any]] = []
    # the training curve is measured on a fixed sample of at most MEASURED rows (a full pass costs a third of an epoch)
    watched_train = rows["train"] if len(rows["train"]) <= MEASURED else np.sort(
        np.random.default_rng(seed).choice(rows["train"], MEASURED, replace=False))
    keeper, start = BestSoFar(patience), time.time()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=quiet) as progress:
        task = progress.add_task(f"train {preset}", total=epochs, status="")
        for epoch in range(1, epochs + 1):
            net.train()
            order = generator.permutation(rows["train"])
            for first in range(0, len(order), batch_size):
                batch = np.sort(order[first:first + batch_size])
                arrays = [torch.from_numpy(a).to(target_device) for a in features(samples, batch, encoder)]
                loss = loss_fn(net(*arrays), targets[batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            train_bce, train_acc = measure(watched_train)
            val_bce, val_acc = measure(rows["val"])
            watched = val_bce if len(rows["val"]) else train_bce
            history.append(dict(epoch=epoch, train_bce=train_bce, train_accuracy=train_acc, val_bce=val_bce,
                                val_accuracy=val_acc, wall_s=round(time.time() - start, 2)))
            stop = keeper.update(net, watched, epoch)
            progress.update(task, advance=1, status=f"val BCE {val_bce:.4f} acc {val_acc:.3f} (best "
                                                    f"{keeper.loss:.4f} @ {keeper.epoch})")
            if stop:
                break
    net.load_state_dict(keeper.state)
    best, best_epoch = keeper.loss, keeper.epoch
    chosen = history[best_epoch - 1]
    training = dict(data=str(data), preset=preset, seed=seed, test_fraction=test_fraction,
                    val_fraction=val_fraction, games=dict(train=len(train_games), val=len(val_games),
                                                          test=test_games.tolist()),
                    samples=dict(train=len(rows["train"]), val=len(rows["val"])), epochs=len(history),
                    best_epoch=best_epoch, val_bce=chosen["val_bce"], val_accuracy=chosen["val_accuracy"],
                    lr=lr, batch_size=batch_size)
    tmp = folder / f".{MODEL}.tmp"
    net.save(tmp, training)
    os.replace(tmp, folder / MODEL)
    log = dict(training, history=history, parameters=net.num_parameters(), data_header=header)
    tmp = folder / ".log.json.tmp"
    tmp.write_text(json.dumps(log, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    os.replace(tmp, folder / "log.json")
    plot(history, folder / "curve.png", f"{preset} on {Path(data).name}")
    console.print(f"best epoch {best_epoch} of {len(history)}: validation BCE {best:.4f}, turn-start accuracy "
                  f"{chosen['val_accuracy']:.3f}; {MODEL}, log.json, curve.png in {folder}/", highlight=False)
    return log


def plot(history: list[dict[str, Any]], path: Path, title: str) -> None:
    """BCE (training, validation) and validation turn-start accuracy against epochs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.3))
    left.plot(epochs, [h["train_bce"] for h in history], marker=".", label="train")
    left.plot(epochs, [h["val_bce"] for h in history], marker=".", label="validation")
    left.set(xlabel="epoch", title="binary cross-entropy")
    left.legend()
    right.plot(epochs, [h["train_accuracy"] for h in history], marker=".", label="train")
    right.plot(epochs, [h["val_accuracy"] for h in history], marker=".", label="validation")
    right.set(xlabel="epoch", title="turn-card set accuracy (turn starts)")
    right.legend()
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


SUMMARY = "fit paper 001's card-play network to turn-card sets of self-play"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``DATA --preset P --out DIR [--epochs N --patience N --seed S ...]``."""
    parser.add_argument("data", help="a self-play folder of one match-up (cardboard selfplay --out)")
    parser.add_argument("--preset", default="cnn_290k", help="cnn_1.75m, cnn_290k, dnn_230k or dnn_140k")
    parser.add_argument("--out", help="output folder (default DATA/PRESET)")
    parser.add_argument("--epochs", type=int, default=200, help="at most this many epochs (default 200)")
    parser.add_argument("--patience", type=int, default=10, help="stop after this many epochs without a better "
                                                                 "validation BCE (default 10)")
    parser.add_argument("--batch-size", type=int, default=BATCH)
    parser.add_argument("--lr", type=float, default=LR)
    parser.add_argument("--test-fraction", type=float, default=0.15, help="games held out for Table 4.2")
    parser.add_argument("--val-fraction", type=float, default=0.1, help="of the other games, for early stopping")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-train-games", type=int, help="train on at most this many of the training games")
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="torch device to train on: cpu, cuda, cuda:N (default cpu)")
    parser.add_argument("--quiet", action="store_true")


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard train-card-play``: 0 on success."""
    train(args.data, args.preset, args.out or str(Path(args.data) / args.preset), epochs=args.epochs,
          patience=args.patience, batch_size=args.batch_size, lr=args.lr, test_fraction=args.test_fraction,
          val_fraction=args.val_fraction, seed=args.seed, max_train_games=args.max_train_games,
          torch_threads=args.torch_threads, device=args.device, quiet=args.quiet,
          console=console)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(
        "python -m cardboard.evaluation.papers.p001_hearthstone.card_play_learn", __doc__, add_arguments, run, argv)


if __name__ == "__main__":
    sys.exit(main())

"""Turn-card-set data (paper 001 §3.1-3.2) from self-play records: every in-turn state with the cards its turn plays.

    cardboard selfplay hearth --agents uct:iterations=1000,depth=5,prune=1 --games 150 --seed 18 \\
        --option decks=handlock --workers 2 --out runs/tcs/handlock       # the generator (open hand: true state)
    python -m cardboard.evaluation.papers.p001_hearthstone.card_play_data runs/tcs/handlock          # build (and cache) the samples

The thesis's generator is open-hand DUCT self-play; here it is ``uct`` (search on the true state; deck order
stays chance, explicit in the tree), with the configuration p001_hearthstone/RESULTS.md found strongest for DUCT on these decks
(1,000 iterations, d = 5, ``prune=1``). The records of a ``cardboard selfplay`` run hold every decision's action,
so each game is replayed (``selfplay.replay_game``) and

- every decision of the player whose turn it is is a sample (§3.2: "we use all intermediate state-TCS pairs");
- its target is the turn-card set from that state: the card columns of the cards the same player plays in the
  rest of the turn (``state.played_card(action)`` of the decisions until the turn changes), a K-vector of 0/1
  (§3.1; a card played twice is one column);
- ``first`` marks a turn's first decision (Table 4.2 measures turn-start states), ``mana`` the mana the player
  has then (the encoder's ``mana``: 1-10, 0 for none).

Features are the game's ``card_play_features()`` (Table 4.1, open view: the thesis's open-hand states), stored
bit-packed (``bits``: global, hand and board flattened in that order, ``np.packbits``); ``features(data, rows)``
unpacks rows into the network's three float32 arrays. ``turn_card_sets(folder)`` caches the samples in
``<folder>/turn-card-sets.npz`` (written whole, renamed into place) and rebuilds when the run has other games.
Games need the hooks ``played_card`` and ``card_play_features``. Does not import torch.
"""
from __future__ import annotations

import argparse
import pickle
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardboard import registry
from cardboard.envs.errors import DataError
from cardboard.envs.files import SHARD_LIMIT, check_file
from cardboard.envs.protocol import Game, require_hooks
from cardboard.jobs.script import run_script
from cardboard.jobs.resumable import write_atomically
from cardboard.training.selfplay import load_data, replay_game

CACHE = "turn-card-sets.npz"
FIELDS = ("bits", "target", "game", "seat", "turn", "first", "mana")
NEEDED = ("played_card", "card_play_features")


def check_game(game: Game) -> Any:
    """The game's card-play encoder; ``InvalidParameterError`` if it lacks the hooks this data needs."""
    require_hooks(game, {"turn-card sets": NEEDED})
    return game.new_state(0).card_play_features()


def game_samples(game: Game, encoder: Any, seed: int, records: dict[str, np.ndarray], index: int
                 ) -> dict[str, np.ndarray]:
    """The samples of game ``index`` (see the module), features still dense per group."""
    states, seats, turns, firsts, targets = [], [], [], [], []
    open_turn: list[int] = []  # rows of the turn being played
    last: tuple[int, int] | None = None
    for state, action in replay_game(game, seed, records, index):
        now = (state.current_player, state.turn)
        if now != last:
            open_turn = []
            last = now
        open_turn.append(len(states))
        firsts.append(len(open_turn) == 1)
        states.append(state.clone())
        seats.append(now[0])
        turns.append(now[1])
        targets.append(np.zeros(encoder.K, dtype=np.uint8))
        card = state.played_card(action)
        if card >= 0:
            column = encoder.column_of[card]
            if column < 0:
                raise DataError(f"game {index}: card {card} has no column in the encoder of this match-up")
            for row in open_turn:  # every state of the turn so far plays it later (or now)
                targets[row][column] = 1
    if not states:
        return empty(encoder)
    groups = encoder.encode_batch(states, seats, True)
    flat = np.concatenate([g.reshape(len(states), -1) for g in groups], axis=1).astype(np.uint8)
    mana = encoder.mana(groups[0])
    return {"bits": np.packbits(flat, axis=1), "target": np.stack(targets), "game": np.full(len(states), index),
            "seat": np.asarray(seats, dtype=np.int8), "turn": np.asarray(turns, dtype=np.int32),
            "first": np.asarray(firsts, dtype=bool), "mana": mana.astype(np.int8)}


def empty(encoder: Any) -> dict[str, np.ndarray]:
    width = (int(np.prod(encoder.global_shape)) + int(np.prod(encoder.hand_shape))
             + int(np.prod(encoder.board_shape)) + 7) // 8
    return {"bits": np.zeros((0, width), np.uint8), "target": np.zeros((0, encoder.K), np.uint8),
            "game": np.zeros(0, np.int64), "seat": np.zeros(0, np.int8), "turn": np.zeros(0, np.int32),
            "first": np.zeros(0, bool), "mana": np.zeros(0, np.int8)}


def build(folder: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(header, samples)`` of the self-play run in ``folder``, every game replayed."""
    header, records = load_data(folder)
    game = registry.make_game(header["game"], **header["options"])
    encoder = check_game(game)
    parts = [game_samples(game, encoder, header["seed"], records, int(g)) for g in np.sort(records["games"])]
    samples = {k: np.concatenate([p[k] for p in parts] or [empty(encoder)[k]]) for k in FIELDS}
    samples["games"] = np.sort(records["games"]).astype(np.int64)
    samples["columns"] = np.asarray(encoder.columns, dtype=np.int64)
    return header, samples


def turn_card_sets(folder: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``build(folder)``, cached in ``<folder>/turn-card-sets.npz`` while the run holds the same games."""
    header, records = load_data(folder)
    path = Path(folder) / CACHE
    if path.exists():
        try:
            check_file(path, SHARD_LIMIT, "turn-card-set cache")  # a FIFO or device is never opened
            with np.load(path, allow_pickle=False) as npz:
                cached = {k: npz[k] for k in FIELDS + ("games", "columns")}
        except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, pickle.UnpicklingError):
            cached = None  # a cut-short, foreign or oversized cache, or no regular file, is rebuilt
        if cached is not None and np.array_equal(cached["games"], np.sort(records["games"])):
            return header, cached
    header, samples = build(folder)
    write_atomically(path, lambda f: np.savez(f, **samples))
    return header, samples


def features(samples: dict[str, np.ndarray], rows: np.ndarray, encoder: Any) -> tuple[np.ndarray, ...]:
    """The float32 global ``[B, G]``, hand ``[B, 16, K]`` and board ``[B, 18, K, 5]`` arrays of ``rows``."""
    shapes = (encoder.global_shape, encoder.hand_shape, encoder.board_shape)
    sizes = [int(np.prod(s)) for s in shapes]
    flat = np.unpackbits(samples["bits"][rows], axis=1, count=sum(sizes)).astype(np.float32)
    out, start = [], 0
    for shape, size in zip(shapes, sizes):
        out.append(flat[:, start:start + size].reshape((len(rows),) + tuple(shape)))
        start += size
    return tuple(out)


def encoder_of(header: dict[str, Any]) -> Any:
    """The card-play encoder of a self-play run's game and options."""
    return check_game(registry.make_game(header["game"], **header["options"]))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardboard.evaluation.papers.p001_hearthstone.card_play_data FOLDER [FOLDER ...]``: build the caches, print a summary."""
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("folders", nargs="+", help="self-play folders (cardboard selfplay --out)")

    def run(args: argparse.Namespace, console: Any) -> int:
        for folder in args.folders:
            header, samples = turn_card_sets(folder)
            n, first = len(samples["game"]), int(samples["first"].sum())
            sizes = samples["target"].sum(axis=1)
            console.print(f"{folder}: {len(samples['games'])} games, {n} samples ({first} turn starts), K = "
                          f"{samples['target'].shape[1]}; turn-card set sizes at turn start: mean "
                          f"{sizes[samples['first']].mean():.2f}; {folder}/{CACHE}", highlight=False)
        return 0

    return run_script(
        "python -m cardboard.evaluation.papers.p001_hearthstone.card_play_data", __doc__, add, run, argv)


if __name__ == "__main__":
    sys.exit(main())

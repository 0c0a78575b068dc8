"""Paper 001's Table 4.2: turn-card-set prediction accuracy per mana bucket on held-out games (issue 18).

    python -m cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy runs/tcs/mech_mage runs/tcs/handlock runs/tcs/face_hunter \\
        --models cnn_1.75m cnn_290k dnn_230k dnn_140k --baselines greedy_h lookahead:turns=3 --out runs/tcs/table_4_2.json

For every self-play folder (one match-up), the test games are those the models held out (``card_play_learn``
writes them into each checkpoint's metadata; every model of a folder must hold out the same games). A test state
is the first decision of a turn with 1-10 mana (001: "ten states per game, one at each of 1..10 available mana";
here every turn start of the test games). Its target is the turn-card set the self-play generator played.

- A network (``<folder>/<model>/model.safetensors``) predicts the cards with probability > 0.5 among those the
  player holds (``card_play_learn.decode``).
- A baseline agent (a registry spec, e.g. ``greedy_h``, ``lookahead:turns=3``) plays the rest of the turn on a
  copy of the state (chance drawn with ``--seed``); its set is the cards it played.
- ``nothing`` always predicts the empty set: the share of turns that play no card, the floor to beat.

Accuracy is strict set equality (001 §3.1), per bucket of the player's mana (1-2, 3-4, 5-7, 8-10) and pooled
over the folders as in the thesis, with Wilson 95% intervals; per-folder numbers go to the JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import DataError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.jobs.intervals import wilson_interval
from cardboard.evaluation.papers.p001_hearthstone.card_play_data import encoder_of, turn_card_sets
from cardboard.evaluation.papers.p001_hearthstone.card_play_learn import MODEL, decode, predict, strict_accuracy
from cardboard.jobs.script import run_script
from cardboard.training.selfplay import load_data, replay_game

BUCKETS = ((1, 2), (3, 4), (5, 7), (8, 10))  # 001 Table 4.2's mana columns
NOTHING = "nothing"  # the reference predictor: the empty set (the turn plays no card)
THESIS = {  # 001 Table 4.2, pooled over the three mirrors
    "cnn_1.75m": (91.9, 74.9, 76.6, 79.3), "cnn_290k": (91.5, 71.7, 75.4, 77.8), "dnn_230k": (89.9, 66.6, 69.2, 73.2),
    "Silverfish": (86.7, 66.2, 67.0, 73.8), "greedy_h": (82.7, 50.3, 50.4, 55.5)}


def bucket_of(mana: np.ndarray) -> np.ndarray:
    """Index of each mana value's bucket, -1 outside 1-10."""
    out = np.full(len(mana), -1)
    for i, (low, high) in enumerate(BUCKETS):
        out[(mana >= low) & (mana <= high)] = i
    return out


def test_games(folder: Path, models: Sequence[str]) -> np.ndarray:
    """The games the folder's models held out (all the same, else ``DataError``)."""
    from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet

    found = None
    for model in models:
        held = np.array(CardPlayNet.metadata(folder / model / MODEL).get("training", {}).get("games", {})
                        .get("test", []), dtype=np.int64)
        if found is not None and not np.array_equal(found, held):
            raise DataError(f"{folder}: the models hold out different test games ({models[0]} vs {model})")
        found = held
    if found is None or len(found) == 0:
        raise DataError(f"{folder}: no held-out test games in the models' metadata")
    return found


def network_hits(folder: Path, model: str, samples: dict[str, np.ndarray], rows: np.ndarray, encoder: Any
                 ) -> np.ndarray:
    from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet

    net = CardPlayNet.load(folder / model / MODEL, num_cards=encoder.K)
    probs, held = predict(net, samples, rows, encoder)
    return strict_accuracy(decode(probs, held), samples["target"][rows])


def baseline_hits(folder: Path, spec: str, samples: dict[str, np.ndarray], rows: np.ndarray, seed: int
                  ) -> np.ndarray:
    """Per test row: the agent's cards played in the rest of the turn equal the target set."""
    header, records = load_data(folder)
    game = registry.make_game(header["game"], **header["options"])
    agent = registry.make_agent(spec, game)
    encoder = encoder_of(header)
    wanted = set(rows.tolist())
    hits = {}
    rng = np.random.default_rng(seed)
    for index in np.unique(samples["game"][rows]):
        at = int(np.flatnonzero(samples["game"] == index)[0])
        for k, (state, _) in enumerate(replay_game(game, header["seed"], records, int(index))):
            if at + k not in wanted:
                continue
            world, me, turn = state.clone(), state.current_player, state.turn
            played = np.zeros(encoder.K, dtype=bool)
            agent.reset()
            while not world.is_terminal() and world.turn == turn:
                if world.current_player == CHANCE:
                    world.apply(sample_chance(world, rng))
                    continue
                action = int(agent.act(world, rng))
                card = world.played_card(action) if world.current_player == me else -1
                if card >= 0:
                    played[encoder.column_of[card]] = True
                world.apply(action)
            hits[at + k] = bool((played == samples["target"][at + k].astype(bool)).all())
    return np.array([hits[r] for r in rows.tolist()])


def measure(folders: Sequence[str], models: Sequence[str], baselines: Sequence[str], seed: int,
            max_states: int | None, console: Console) -> dict[str, Any]:
    """Hits per method, folder and bucket (see the module)."""
    result: dict[str, Any] = {"folders": {}, "buckets": [list(b) for b in BUCKETS]}
    for name in folders:
        folder = Path(name)
        header, samples = turn_card_sets(folder)
        encoder = encoder_of(header)
        if not models:
            raise DataError("give at least one --models entry: the test games come from its metadata")
        held = test_games(folder, models)
        bucket = bucket_of(samples["mana"].astype(np.int64))
        rows = np.flatnonzero(np.isin(samples["game"], held) & samples["first"] & (bucket >= 0))
        if max_states is not None and len(rows) > max_states:
            rows = np.sort(np.random.default_rng(seed).choice(rows, max_states, replace=False))
        entry: dict[str, Any] = {"test_games": len(held), "states": len(rows),
                                 "bucket_states": [int((bucket[rows] == i).sum()) for i in range(len(BUCKETS))]}
        for method in list(models) + list(baselines):
            console.print(f"{folder.name}: {method} on {len(rows)} turn starts of {len(held)} test games",
                          highlight=False)
            if method in models:
                hits = network_hits(folder, method, samples, rows, encoder)
            elif method == NOTHING:
                hits = samples["target"][rows].sum(axis=1) == 0
            else:
                hits = baseline_hits(folder, method, samples, rows, seed)
            entry[method] = [[int(hits[bucket[rows] == i].sum()), int((bucket[rows] == i).sum())]
                             for i in range(len(BUCKETS))]
        result["folders"][folder.name] = entry
    return result


def report(result: dict[str, Any], methods: Sequence[str], console: Console) -> None:
    table = Table(title="Turn-card-set accuracy, turn starts of held-out games, pooled (001 Table 4.2)")
    table.add_column("method")
    for low, high in BUCKETS:
        table.add_column(f"mana {low}-{high}", justify="right")
    for method in methods:
        cells = []
        for i in range(len(BUCKETS)):
            hit = sum(f[method][i][0] for f in result["folders"].values())
            n = sum(f[method][i][1] for f in result["folders"].values())
            low, high = wilson_interval(hit, n) if n else (float("nan"), float("nan"))
            paper = THESIS.get(method)
            cells.append(f"{100 * hit / max(n, 1):.1f}% ({100 * low:.0f}-{100 * high:.0f}) n={n}"
                         + (f" [001: {paper[i]}]" if paper else ""))
        table.add_row(method, *cells)
    console.print(table)


def main(argv: Sequence[str] | None = None) -> int:
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("folders", nargs="+", help="self-play folders with trained models in <folder>/<model>")
        parser.add_argument("--models", nargs="*", default=["cnn_1.75m", "cnn_290k", "dnn_230k", "dnn_140k"])
        parser.add_argument("--baselines", nargs="*", default=["greedy_h", "lookahead:turns=3", NOTHING],
                            help=f"agent specs, and {NOTHING!r}: always the empty set")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--max-states", type=int, help="at most this many test states per folder (sampled)")
        parser.add_argument("--out", help="JSON file for every count")

    def run(args: argparse.Namespace, console: Console) -> int:
        result = measure(args.folders, args.models, args.baselines, args.seed, args.max_states, console)
        report(result, list(args.models) + list(args.baselines), console)
        if args.out:
            tmp = Path(args.out).with_name(f".{Path(args.out).name}.tmp")
            tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, args.out)
        return 0

    return run_script(
        "python -m cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy", __doc__, add, run, argv)


if __name__ == "__main__":
    sys.exit(main())

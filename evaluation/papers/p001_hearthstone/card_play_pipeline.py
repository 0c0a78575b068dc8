"""Paper 001's learning half end to end, by budget: turn-card-set self-play on the three mirrors, the card-play
networks, Table 4.2 (issue 18).

    python -m cardboard.evaluation.papers.p001_hearthstone.card_play_pipeline --budget small --workers 2      # minutes per mirror
    python -m cardboard.evaluation.papers.p001_hearthstone.card_play_pipeline --budget thesis --workers 32    # 001's 81,000 games: overnight

Steps, each resumable (run the same command again after a kill: finished games, models and tables are kept):

1. ``cardboard selfplay hearth --agents GENERATOR --games G --seed SEED --option decks=D --out OUT/D`` for each
   mirror D (the generator: open-hand search, ``uct`` on the true state with p001_hearthstone/RESULTS.md's strongest DUCT
   configuration, ``GENERATOR``);
2. ``cardboard train-card-play OUT/D --preset P`` for each preset (skipped when ``OUT/D/P/model.safetensors``
   exists; a folder holding only an older ``model.pt``, a ``torch.save`` file no longer read, is trained again);
3. ``python -m cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy`` over the three folders: ``OUT/table_4_2.json``.

A model trained before its data grew is kept: delete ``OUT/D/P`` to train it again on the larger set.

Budgets (games per mirror): ``small`` 150 (about 8 minutes a mirror on two cores, 13k samples), ``medium``
1,000, ``thesis`` 27,000 (001 §3.2: 81,000 games, about 4M samples; at about 3 core-seconds a game that is
68 core-hours: overnight on 32 cores). ``--games`` overrides.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from cardboard.jobs.script import run_script

GENERATOR = "uct:iterations=1000,depth=5,prune=1"
MIRRORS = ("mech_mage", "handlock", "face_hunter")
PRESETS = ("dnn_230k", "dnn_140k", "cnn_290k", "cnn_1.75m")
BUDGETS = {"small": 150, "medium": 1000, "thesis": 27000}


def pipeline(budget: str, out: str, workers: int, seed: int, games: int | None, console: Console,
             generator: str = GENERATOR, presets: Sequence[str] = PRESETS) -> None:
    """Steps 1-3 of the module for every mirror (``generator``: the self-play agent spec)."""
    from cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy import main as accuracy
    from cardboard.training import selfplay
    from cardboard.evaluation.papers.p001_hearthstone.card_play_learn import MODEL, train

    count = games or BUDGETS[budget]
    for deck in MIRRORS:
        folder = Path(out) / deck
        console.print(f"self-play {deck}: {count} games into {folder}", highlight=False)
        selfplay.generate("hearth", [generator], count, seed, folder, options={"decks": deck}, workers=workers,
                          shard_games=5)
        for preset in presets:
            if not (folder / preset / MODEL).exists():
                train(str(folder), preset, str(folder / preset), console=console)
    accuracy([str(Path(out) / d) for d in MIRRORS] + ["--models", *presets, "--out", str(Path(out) / "table_4_2.json")])


def main(argv: Sequence[str] | None = None) -> int:
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--budget", choices=tuple(BUDGETS), default="small")
        parser.add_argument("--games", type=int, help="games per mirror (overrides the budget)")
        parser.add_argument("--out", default="runs/tcs")
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--seed", type=int, default=18)
        parser.add_argument("--generator", default=GENERATOR, help=f"self-play agent spec (default {GENERATOR})")
        parser.add_argument("--presets", nargs="+", default=list(PRESETS), help="networks to train")

    def run(args: argparse.Namespace, console: Any) -> int:
        pipeline(args.budget, args.out, args.workers, args.seed, args.games, console, args.generator, args.presets)
        return 0

    return run_script(
        "python -m cardboard.evaluation.papers.p001_hearthstone.card_play_pipeline", __doc__, add, run, argv)


if __name__ == "__main__":
    sys.exit(main())

"""Cross-validated deck prediction (000 ch. 6): accuracy against the number of observed cards and against the
minimum support, per game, every variant a1-a7 beside the baselines.

The corpus is split into ``FOLDS`` seeded folds; for each fold the predictors learn from the others (the rules
mined once over the corpus, each fold's supports taken out: ``mining.Itemsets``), and each of ``--tests`` decks
of the fold is shown its identity plus k random cards (k = 0..10, drawn from the deck as a multiset, seeded by the
deck and k; the paper's "at least 2 unique cards" needs k >= 2 and is not enforced). Accuracy = the share of the
deck (a multiset) in the prediction, averaged over the fold's test decks; the curves are the mean over folds with
95% normal intervals across folds. Precision / recall@k rank the cards a predictor adds, at the default 5 observed.

    cardboard deck-prediction --game fifth_aeon --out runs/deck_prediction      # about 5 minutes a game
    cardboard deck-prediction --quick --out runs/deck_prediction-quick           # seconds: 3 folds, 3 decks
    cardboard deck-prediction --game hearth --decklists my_lists.txt --folds 10  # your own decklists

Each finished fold is a line of ``folds.jsonl``: a killed run resumes; ``curves.json`` (with the corpus's
statistics, ``corpus_stats``) and the PNGs are written at the end. Nothing is written before every decklist file is
read and checked; ``config.json`` records each file's SHA-256, and a run over a changed file is refused.
"""
from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.files import read_json
from cardboard.jobs.interrupts import settings, track
from cardboard.jobs.intervals import error_bars, normal_estimate
from cardboard.jobs.resumable import claim_folder, read_lines, write_atomically

from .baselines import NearestDeck, PopularCards, RandomLegal
from .constants import (DEFAULT_MIN_SUPPORT, DEFAULT_OBSERVED, FOLDS, MIN_SUPPORTS, OBSERVED_RANGE, PAPER_ACCURACY,
                        PRECISION_AT, VARIANTS)
from .corpus_model import accuracy, precision_recall
from .corpus_stats import CorpusStatistics, corpus_statistics
from .deck_rules import rules_for
from .decklists import Decklist, bundled_corpus, bundled_digest, corpus_file, read_decklists
from .predictor import DeckPredictor, MinedCorpus

BASELINES = ("random", "popular", "nearest")
GAMES = ("fifth_aeon", "hearth")
QUICK_DECKS = 240


def observed_cards(deck: Decklist, k: int, seed: int, index: int) -> Counter:
    """``k`` random cards of ``deck`` (as a multiset), the same for a seed, deck and k."""
    cards = sorted(deck.cards.elements())
    pick = np.random.default_rng([seed, index, k]).choice(len(cards), size=min(k, len(cards)), replace=False)
    return Counter(cards[i] for i in pick)


def fold_of(decks: int, folds: int, seed: int) -> list[int]:
    """Each deck's fold: a seeded permutation cut into ``folds`` near-equal parts."""
    order = np.random.default_rng([seed, decks]).permutation(decks)
    out = [0] * decks
    for position, deck in enumerate(order):
        out[int(deck)] = position * folds // decks
    return out


def run_fold(game: str, fold: int, decks: list[Decklist], folds: list[int], mined: MinedCorpus,
             config: dict[str, Any]) -> dict[str, Any]:
    """One fold's record: per model, the mean accuracy at each k (default support), at each support (default k),
    and precision / recall@k (default k)."""
    rules = rules_for(game)
    train = [d for d, f in zip(decks, folds) if f != fold]
    tests = [i for i, f in enumerate(folds) if f == fold][:config["tests"]]
    support = config["support"][game]
    models: dict[str, Any] = {v: DeckPredictor(train, rules, v, support, mined=mined, fold=fold)
                              for v in config["variants"]}
    models.update(random=RandomLegal(train, rules, config["seed"]), popular=PopularCards(train, rules),
                  nearest=NearestDeck(train, rules))
    by_k = {name: [] for name in models}
    pr = {name: {str(at): [0.0, 0.0] for at in PRECISION_AT} for name in models}
    for k in config["observed"]:
        sums = Counter()
        for i in tests:
            deck, seen = decks[i], observed_cards(decks[i], k, config["seed"], i)
            for name, model in models.items():
                added = model.ranked(seen, deck.size, deck.identity)
                predicted = seen + Counter(added)
                sums[name] += accuracy(predicted, deck.cards)
                if k == DEFAULT_OBSERVED:
                    for at in PRECISION_AT:
                        p, r = precision_recall(added, deck.cards - seen, at)
                        pr[name][str(at)][0] += p / len(tests)
                        pr[name][str(at)][1] += r / len(tests)
        for name in models:
            by_k[name].append(sums[name] / len(tests))
    by_support = {v: [] for v in config["variants"]}
    for s in config["supports"][game]:
        for v in config["variants"]:
            model = models[v] if s == support else DeckPredictor(train, rules, v, s, mined=mined, fold=fold)
            total = 0.0
            for i in tests:
                seen = observed_cards(decks[i], DEFAULT_OBSERVED, config["seed"], i)
                total += accuracy(model.predict(seen, decks[i].size, decks[i].identity), decks[i].cards)
            by_support[v].append(total / len(tests))
    return {"game": game, "fold": fold, "tests": len(tests), "by_k": by_k, "by_support": by_support, "pr": pr}


def summarise(records: list[dict[str, Any]], config: dict[str, Any],
              corpus: dict[str, CorpusStatistics]) -> dict[str, Any]:
    """Per game: each model's mean over folds with its 95% interval, against k and against support, and the
    corpus's statistics."""
    out: dict[str, Any] = {"config": config, "paper": PAPER_ACCURACY}
    for game in config["games"]:
        rows = [r for r in records if r["game"] == game]
        if not rows:
            continue

        def curve(field: str, name: str) -> list[list[float]]:
            return [list(normal_estimate([r[field][name][j] for r in rows]))
                    for j in range(len(rows[0][field][name]))]

        models = list(rows[0]["by_k"])
        out[game] = {"folds": len(rows), "tests": sum(r["tests"] for r in rows), "corpus": asdict(corpus[game]),
                     "observed": config["observed"], "supports": config["supports"][game],
                     "default_support": config["support"][game],
                     "by_k": {m: curve("by_k", m) for m in models},
                     "by_support": {v: curve("by_support", v) for v in rows[0]["by_support"]},
                     "pr": {m: {at: [float(np.mean([r["pr"][m][at][i] for r in rows])) for i in (0, 1)]
                                for at in rows[0]["pr"][m]} for m in models}}
    return out


def plot(summary: dict[str, Any], game: str, out: Path) -> list[Path]:
    """``{game}-observed.png`` (accuracy against observed cards) and ``{game}-support.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data, paths = summary[game], []
    for field, xs, label in (("by_k", data["observed"], "observed cards (plus the identity)"),
                             ("by_support", data["supports"], "minimum support (decks)")):
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        for i, (name, curve) in enumerate(data[field].items()):
            values, lows, highs = zip(*curve)
            style = "--" if name in BASELINES else "-"
            ax.errorbar(xs, [100 * v for v in values], yerr=error_bars(values, lows, highs, 100), label=name,
                        linestyle=style, marker="o", markersize=3, capsize=2)
        if field == "by_k":
            for name, value in PAPER_ACCURACY.items():
                if not isinstance(value, tuple):
                    ax.scatter([DEFAULT_OBSERVED + 0.15], [100 * value], marker="x", color="black", zorder=5)
            ax.annotate("x: the paper's a1, a2, a4, a7 at 5 (Netrunner)", (0.01, 0.01), xycoords="axes fraction",
                        fontsize=7)
        ax.set_xlabel(label)
        ax.set_ylabel("accuracy: share of the deck predicted (%)")
        where = f"{DEFAULT_OBSERVED} observed" if field == "by_support" else f"support {data['default_support']}"
        ax.set_title(f"{game}: deck prediction, {data['folds']} folds, {where}, 95% intervals over folds")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        path = out / f"{game}-{'observed' if field == 'by_k' else 'support'}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


SUMMARY = "paper 000 ch. 6: cross-validated deck prediction by association rules (curves, PNG and JSON)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=GAMES, action="append", help="a game (repeatable; default both)")
    p.add_argument("--out", default="runs/deck_prediction", help="output folder (resumed when it exists)")
    p.add_argument("--folds", type=int, default=FOLDS, help=f"cross-validation folds (paper: {FOLDS})")
    p.add_argument("--tests", type=int, default=20, help="test decks per fold (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--decklists", default=None, help="your own decklist file (text or .jsonl, see decklists.py) "
                   "instead of the bundled corpus; needs one --game")
    p.add_argument("--quick", action="store_true", help=f"the first {QUICK_DECKS} decks, 3 folds of 3 test decks, "
                   "k in 0 and 5, two supports (the tests)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def config_of(args: argparse.Namespace) -> dict[str, Any]:
    games = sorted(set(args.game or GAMES))
    supports = {g: list(MIN_SUPPORTS[g][-2:] if args.quick else MIN_SUPPORTS[g]) for g in games}
    if args.decklists and len(games) != 1:
        raise InvalidParameterError("--decklists needs exactly one --game (the game its cards are of)")
    quick = args.quick
    return {"games": games, "decklists": args.decklists, "decks": QUICK_DECKS if quick else None,
            "folds": 3 if quick else args.folds, "tests": 3 if quick else args.tests, "seed": args.seed,
            "variants": list(VARIANTS), "observed": [0, DEFAULT_OBSERVED] if quick else list(OBSERVED_RANGE),
            "supports": supports,
            "support": {g: MIN_SUPPORTS[g][-1] if quick else DEFAULT_MIN_SUPPORT[g] for g in games}}


def read_corpora(config: dict[str, Any]) -> dict[str, tuple[list[Decklist], str, str]]:
    """Per game, its decks (cut to ``config["decks"]``), where they come from (for messages) and the SHA-256 of
    that file's text, every file read and checked: enough decks for the folds."""
    out = {}
    for game in config["games"]:
        if config["decklists"]:
            source = config["decklists"]
            decks, sha = read_decklists(source, game)
        else:
            source, decks, sha = f"the bundled {corpus_file(game)}", bundled_corpus(game), bundled_digest(game)
        decks = decks[:config["decks"]]
        if len(decks) < config["folds"]:
            raise InvalidParameterError(f"{source}: {len(decks)} {game} decklists cannot make {config['folds']} folds")
        out[game] = decks, source, sha
    return out


def refuse_changed_input(out: Path, config: dict[str, Any]) -> None:
    """``InvalidParameterError`` when ``out`` holds this run (``config``) over a decklist file whose contents have
    changed since (``claim_folder`` refuses any other difference)."""
    path = out / "config.json"
    if not path.exists():
        return
    old, new = read_json(path, what="run config"), json.loads(json.dumps(config))
    if not isinstance(old, dict) or not isinstance(old.get("sha256"), dict) or old == new:
        return
    if {**old, "sha256": new["sha256"]} == new:
        game = next(g for g in new["sha256"] if old["sha256"].get(g) != new["sha256"][g])
        source = config["decklists"] or corpus_file(game)
        raise InvalidParameterError(f"{source} has changed since {out} was run on it (SHA-256 "
                                    f"{str(old['sha256'].get(game))[:12]}... then, {new['sha256'][game][:12]}... "
                                    "now); use another --out")


def run(args: argparse.Namespace, console: Any) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    out = Path(args.out)
    config = config_of(args)
    saved = track(args, args.out, "folds")
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, disable=args.quiet, console=console) as progress:
        reading = progress.add_task(f"reading {config['decklists'] or 'the bundled corpora'}", total=None)
        corpora = read_corpora(config)  # nothing is written before every input is read and checked
        progress.remove_task(reading)
        config["sha256"] = {game: sha for game, (_, _, sha) in corpora.items()}
        claimed = {**config, "args": {k: v for k, v in settings(args).items() if k != "quiet"}}
        refuse_changed_input(out, claimed)
        claim_folder(out, claimed, "deck-prediction run")
        path = out / "folds.jsonl"
        done = read_lines(path, lambda r: (r["game"], r["fold"]))
        saved(len(done))
        with path.open("a") as sink:
            for game, (decks, source, _) in corpora.items():
                todo = [f for f in range(config["folds"]) if (game, f) not in done]
                task = progress.add_task(f"{game}: mining {len(decks)} decks of {source}", total=config["folds"],
                                         completed=config["folds"] - len(todo))
                if not todo:
                    continue
                folds = fold_of(len(decks), config["folds"], config["seed"])
                mined = MinedCorpus(decks, min(config["supports"][game] + [config["support"][game]]), folds)
                mined.level(False), mined.level(True)
                for fold in todo:
                    progress.update(task, refresh=True,
                                    description=f"{game}: fold {fold + 1}/{config['folds']} of {source}")
                    record = run_fold(game, fold, decks, folds, mined, config)
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
                    os.fsync(sink.fileno())
                    done[(game, fold)] = record
                    saved(1)
                    progress.advance(task)
    summary = summarise(list(done.values()), config,
                        {game: corpus_statistics(decks) for game, (decks, _, _) in corpora.items()})
    write_atomically(out / "curves.json", lambda f: f.write(json.dumps(summary, indent=1)), "w")
    for game in config["games"]:
        plot(summary, game, out)
        report(summary[game], game, console)
    console.print(f"curves.json and the PNGs in {out}")
    return 0


def report(data: dict[str, Any], game: str, console: Any) -> None:
    """Print a game's models at the default k (with precision / recall), every model at each k beside the best
    rule variant's lead over the best baseline, and the corpus's statistics."""
    from rich import box
    from rich.table import Column, Table

    k = data["observed"].index(DEFAULT_OBSERVED)
    table = Table(f"{game}: model", f"accuracy at {DEFAULT_OBSERVED} observed (95% over folds)",
                  *(f"P/R@{at}" for at in PRECISION_AT), title=f"{game}, support {data['default_support']}, "
                  f"{data['folds']} folds, {data['tests']} test decks")
    for name, curve in data["by_k"].items():
        value, low, high = curve[k]
        table.add_row(name, f"{value:.1%} ({low:.1%}-{high:.1%})",
                      *(f"{data['pr'][name][str(at)][0]:.2f}/{data['pr'][name][str(at)][1]:.2f}"
                        for at in PRECISION_AT))
    console.print(table)
    by_k = Table(Column("model", no_wrap=True, width=7),
                 *(Column(str(seen), justify="right", no_wrap=True, width=5) for seen in data["observed"]),
                 title=f"{game}: accuracy (%) against observed cards", box=box.SIMPLE, padding=(0, 1),
                 caption="lead: the best rule variant less the better of popular and nearest",
                 collapse_padding=True, pad_edge=False)
    for name, curve in data["by_k"].items():
        by_k.add_row(name, *(f"{100 * v[0]:.1f}" for v in curve))
    by_k.add_row("lead", *(f"{100 * lead:+.1f}" for lead in lead_over_baselines(data["by_k"])))
    console.print(by_k)
    c = data["corpus"]
    console.print(f"{game} corpus: {c['decks']} decks, {c['identities']} identities, {c['distinct']:.1f} distinct "
                  f"cards a deck, {c['copies']:.2f} copies a card, {c['nearest']:.1%} of a deck in the nearest "
                  "other deck of its identity", highlight=False)


def lead_over_baselines(by_k: dict[str, list[list[float]]]) -> list[float]:
    """At each k, the best rule variant's mean accuracy less the better of "most popular" and "nearest decklist"
    (random legal is no bar to clear)."""
    variants = [m for m in by_k if m not in BASELINES]
    return [max(by_k[m][j][0] for m in variants) - max(by_k[b][j][0] for b in ("popular", "nearest"))
            for j in range(len(by_k["popular"]))]

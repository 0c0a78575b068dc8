"""Paper 000 ch. 5's play styles on Lords of War: each final-move selection against RobustChild, with BestMove% and Cx.

Each variant (a final-move rule of ``search.final`` as the search agents' spec knobs, 000 §2.6) plays ``--games``
games against the same algorithm with RobustChild at the same iteration budget (000 §3.7: both at 10,000), the
variant in seat 0 in even games and seat 1 in odd ones. Game ``g`` is dealt and played from
``match.game_streams(seed, g, 2)`` whatever the workers, so every variant meets the same deals (common random
numbers). Each finished game is one JSON line of ``<out>/<label>.jsonl``: the variant's seat and score (1 win,
½ draw, 0 loss), the game's length, and the variant's per-decision log (``SearchAgent.decisions``: BestMove, n in
force, the chosen move's w/v, Cx0..Cx4 of 000 §2.7, raw). A killed run resumes (a line cut short is replayed); a
folder holding another configuration is refused; more ``--games`` extend a finished run. At the end:
``summary.json`` (per variant: win rate with a 95% Wilson interval, BestMove%, mean n, mean chosen w/v, the mean
of each Cx normalised to [0, 1] by the min / max observed over every decision of the run, 000 §2.7) and
``play_style.png`` (win rates with their intervals, BestMove%, normalised Cx).

    python -m cardboard.evaluation.papers.p000_play_style.low_play_style --out runs/low-play-style --workers 2

runs the default, small set-up (UCT, 200 iterations, 20 games a variant: a few minutes on two cores);
``--paper-size`` plays the thesis's (10,000 iterations, 200 games a variant, 000 §3.7), with UCT as its figure
captions say; ``--algorithm ismcts`` for its text's reading (our notes on 000, §5.2):

    python -m cardboard.evaluation.papers.p000_play_style.low_play_style --out runs/low-play-style-paper --paper-size \\
        --algorithm ismcts --workers 16

``--variant LABEL=KNOBS`` (repeatable) replaces the default variants, e.g. ``--variant rr2_4=final=robust_roulette,n=4,k=2``.
``--backend ray`` plays the games on a Ray cluster (``cardboard.jobs.backends``; the records are the same); Ctrl-C
prints the games saved and the command that resumes.
"""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import cardboard
from cardboard.evaluation.match import play_game
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.jobs.resumable import claim_folder, read_lines
from cardboard.jobs.script import run_module
from cardboard.jobs.seats import seat_order
from cardboard.jobs.seeds import game_streams

# label -> spec knobs: 000 §3.7's families at the settings its results single out (RobustRoulette^2_n, n = 2 and 3:
# the "stable-strength" candidates; MaxRand_n and RobustRand_n at n = 3; the online tuner on RobustRoulette^2_n)
VARIANTS = {
    "robust_child": "",
    "max_child": "final=max",
    "max_rand_3": "final=max_rand,n=3",
    "robust_rand_3": "final=robust_rand,n=3",
    "robust_roulette2_2": "final=robust_roulette,n=2,k=2",
    "robust_roulette2_3": "final=robust_roulette,n=3,k=2",
    "tuned_robust_roulette2": "final=robust_roulette,n=3,k=2,tune=1",
}
SMALL = {"iterations": 200, "games": 20}
PAPER = {"iterations": 10_000, "games": 200}  # 000 §3.7: both agents at 10,000 iterations, 200 games a configuration
CX = ("Cx0", "Cx1", "Cx2", "Cx3", "Cx4")


def specs(algorithm: str, iterations: int, knobs: str) -> tuple[str, str]:
    """The variant's and the control's agent specs."""
    control = f"{algorithm}:iterations={iterations}"
    return (f"{control},{knobs}" if knobs else control), control


def worker(variants: dict[str, str], seed: int, algorithm: str, iterations: int) -> dict[str, Any]:
    """A worker's context for ``play_one``: the run's settings and its agents, made on first use."""
    return {"game": cardboard.make_game("lords_of_war"), "variants": variants, "seed": seed, "algorithm": algorithm,
            "iterations": iterations, "agents": {}}


def play_one(context: dict[str, Any], item: tuple[str, int]) -> dict[str, Any]:
    """Game ``index`` of variant ``label`` (``item``) against RobustChild: its record."""
    label, index = item
    game, seed, cache = context["game"], context["seed"], context["agents"]
    agents = []
    for who, spec in enumerate(specs(context["algorithm"], context["iterations"], context["variants"][label])):
        if (spec, who) not in cache:  # who 0: the variant, 1: the control
            cache[spec, who] = cardboard.make_agent(spec, game)
        agents.append(cache[spec, who])
    seats = seat_order(index, 2)
    streams = game_streams(seed, index, 2)
    returns, turns, _, _ = play_game(game, [agents[a] for a in seats], streams[0], streams[1:])
    seat = seats.index(0)
    log = agents[0].decisions
    return {"variant": label, "game": index, "seat": seat, "score": float(np.sign(returns[seat]) + 1) / 2,
            "turns": turns, "best": [int(d.best_move) for d in log], "n": [d.n for d in log],
            "mean": [round(d.mean, 4) for d in log], "cx": [list(d.complexity) for d in log]}


def run(variants: dict[str, str], out: Path, games: int, seed: int, algorithm: str, iterations: int, workers: int = 1,
        progress: Any = None, *, backend: Backend | None = None,
        on_saved: Callable[[int], None] | None = None) -> dict[str, list[dict]]:
    """Play (or resume) ``games`` games of every variant on ``backend`` (default: ``workers`` local processes);
    return their records by label, in game order. ``on_saved(n)``: ``n`` more games are in the variants' files
    (first those already there)."""
    done, todo, tasks = {}, [], {}
    saved = on_saved or (lambda n: None)
    for label in variants:
        done[label] = read_lines(out / f"{label}.jsonl", lambda r: r["game"])
        missing = [g for g in range(games) if g not in done[label]]
        todo += [(label, g) for g in missing]
        saved(games - len(missing))
        if progress:
            tasks[label] = progress.add_task(label, total=games, completed=games - len(missing))
    sinks = {label: (out / f"{label}.jsonl").open("a") for label in variants}

    def finish(record: dict[str, Any]) -> None:
        sink = sinks[record["variant"]]
        sink.write(json.dumps(record) + "\n")
        sink.flush()
        os.fsync(sink.fileno())
        done[record["variant"]][record["game"]] = record
        saved(1)
        if progress:
            progress.advance(tasks[record["variant"]])

    try:
        run_tasks(backend or Backend("local", workers), todo, play_one, finish, setup=worker,
                  setup_args=(variants, seed, algorithm, iterations))
    finally:
        for sink in sinks.values():
            sink.close()
    return {label: [done[label][g] for g in range(games)] for label in variants}


def summarize(records: dict[str, list[dict]]) -> dict[str, Any]:
    """Per variant: win rate (Wilson, a draw counting half), BestMove%, mean n and chosen w/v, the mean of each Cx
    normalised by the min / max over every decision of every variant (000 §2.7), and the raw means."""
    every = np.array([cx for rs in records.values() for r in rs for cx in r["cx"]], dtype=float).reshape(-1, len(CX))
    low, high = every.min(axis=0), every.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    out: dict[str, Any] = {"cx_range": {c: [float(a), float(b)] for c, a, b in zip(CX, low, high)}, "variants": {}}
    for label, rs in records.items():
        score = sum(r["score"] for r in rs)
        cx = np.array([c for r in rs for c in r["cx"]], dtype=float).reshape(-1, len(CX))
        best = [b for r in rs for b in r["best"]]
        ns = [n for r in rs for n in r["n"] if n is not None]
        out["variants"][label] = {
            "games": len(rs), "wins": sum(r["score"] == 1 for r in rs), "draws": sum(r["score"] == 0.5 for r in rs),
            "win_rate": score / len(rs), "interval": list(wilson_interval(score, len(rs))),
            "decisions": len(best), "best_move": float(np.mean(best)) if best else None,
            "mean_n": float(np.mean(ns)) if ns else None,
            "mean_chosen_wv": float(np.mean([m for r in rs for m in r["mean"]])) if best else None,
            "cx_normalised": dict(zip(CX, ((cx - low) / span).mean(axis=0).tolist())),
            "cx_raw": dict(zip(CX, cx.mean(axis=0).tolist())),
            "mean_turns": float(np.mean([r["turns"] for r in rs]))}
    return out


def plots(summary: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(summary["variants"])
    v = [summary["variants"][label] for label in labels]
    x = np.arange(len(labels))
    fig, (wins, best, cx) = plt.subplots(1, 3, figsize=(16, 4.5))
    rate = [s["win_rate"] for s in v]
    err = error_bars(rate, [s["interval"][0] for s in v], [s["interval"][1] for s in v])
    wins.bar(x, rate, yerr=err, capsize=3)
    wins.axhline(0.5, color="grey", lw=0.8, ls="--")
    wins.set_ylabel("win rate vs RobustChild (95% Wilson)")
    best.bar(x, [s["best_move"] or 0.0 for s in v])
    best.set_ylabel("BestMove% (share of decisions)")
    width = 0.8 / len(CX)
    for i, c in enumerate(CX):
        cx.bar(x + (i - (len(CX) - 1) / 2) * width, [s["cx_normalised"][c] for s in v], width, label=c)
    cx.set_ylabel("mean Cx, normalised to the observed range")
    cx.legend(fontsize=7)
    for ax in (wins, best, cx):
        ax.set_xticks(x, labels, rotation=35, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(out / "play_style.png", dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Run the experiment; 0, or 130 after Ctrl-C (the games saved, the command that resumes, printed)."""
    return run_module(__spec__.name, argv, arguments, _run)


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/low-play-style")
    parser.add_argument("--algorithm", choices=("uct", "ismcts"), default="uct")
    parser.add_argument("--iterations", type=int, help=f"per decision, both agents (default {SMALL['iterations']})")
    parser.add_argument("--games", type=int, help=f"per variant (default {SMALL['games']})")
    parser.add_argument("--paper-size", action="store_true", help="000 §3.7: 10,000 iterations, 200 games a variant")
    parser.add_argument("--variant", action="append", metavar="LABEL=KNOBS",
                        help="a variant's spec knobs (repeatable; replaces the default variants)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors")
    add_backend_arguments(parser)
    parser.add_argument("--quiet", action="store_true")
    return parser.parse_args(argv)


def _run(args: argparse.Namespace, saved: Callable[[int], None]) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.table import Table

    size = PAPER if args.paper_size else SMALL
    iterations, games = args.iterations or size["iterations"], args.games or size["games"]
    variants = dict(v.split("=", 1) for v in args.variant) if args.variant else VARIANTS
    for knobs in variants.values():  # a bad knob fails here, not in a worker
        cardboard.make_agent(specs(args.algorithm, iterations, knobs)[0])
    out = Path(args.out)
    config = {"experiment": "low_play_style", "algorithm": args.algorithm, "iterations": iterations,
              "seed": args.seed, "variants": variants}
    claim_folder(out, config, "play-style run")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())


    with Progress(*columns, disable=args.quiet) as progress:
        records = run(variants, out, games, args.seed, args.algorithm, iterations, progress=progress,
                      backend=backend_from(args), on_saved=saved)
    summary = {"config": config | {"games": games}} | summarize(records)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    plots(summary, out)
    table = Table("variant", "win rate (95% Wilson)", "BestMove%", "mean n", *CX, title=f"vs RobustChild, {games} games")
    for label, s in summary["variants"].items():
        table.add_row(label, f"{s['win_rate']:.1%} ({s['interval'][0]:.1%}-{s['interval'][1]:.1%})",
                      f"{s['best_move']:.1%}" if s["best_move"] is not None else "-",
                      f"{s['mean_n']:.2f}" if s["mean_n"] is not None else "-",
                      *(f"{s['cx_normalised'][c]:.2f}" for c in CX))
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

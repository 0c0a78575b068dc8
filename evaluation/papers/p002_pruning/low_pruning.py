"""Paper 002's heuristic hard pruning on Lords of War: the HPL sweep, state extrapolation, multi-heuristic union.

Every cell is a match of a pruned UCT agent against plain UCT with the same iteration budget, seats swapped
every game (both see the true state: the paper's perfect-information setting):

- sweep: ``uct:iterations=B,prune=H,hpl=N`` vs ``uct:iterations=B`` for each heuristic H and HPL N (002 Fig. 2);
- extrapolation: ``prune=H,hpl=15,extrapolate=1`` vs ``prune=H,hpl=15`` (002 §3.3: h4R vs h4 about 80%), and each
  R agent vs plain UCT;
- multi: ``prune=h4+Hj,hpl=15`` vs plain UCT and vs ``prune=h4,hpl=15`` (002 §3.2, Fig. 5).

Each cell's games are a resumable results file ``<out>/cells/<name>.jsonl`` (``evaluation.match``: game ``i``
draws from ``SeedSequence(seed, spawn_key=(i,))`` whatever the workers; a killed run resumes, an extended one
plays only the new games). The games are played in rounds (``--rounds``: every cell gets its first games
before any cell gets more), so a run stopped early still covers the whole grid evenly; the head-to-head cells
play ``--vs-games``. ``summary.json`` (a run of some parts keeps the other cells already there) holds
each cell's wins / draws / losses, win rate (draws half) with a 95% Wilson interval, seconds per decision of
each side; ``sweep.png`` plots the sweep (002 Fig. 2) and ``extrapolation.png`` the R experiments. ``--backend ray``
plays the games on a Ray cluster (``cardboard.jobs.backends``; the records are the same); Ctrl-C prints the games
saved and the command that resumes.

    python -m cardboard.evaluation.papers.p002_pruning.low_pruning --out runs/low-pruning            # small: minutes
    python -m cardboard.evaluation.papers.p002_pruning.low_pruning --out runs/low-pruning --games 200 --vs-games 400 \\
        --iterations 2000 --parts sweep,extrapolation --workers 2
    python -m cardboard.evaluation.papers.p002_pruning.low_pruning --out runs/low-pruning-paper --paper-size --workers 2
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardboard.envs.files import read_json
from cardboard.registry import make_game
from cardboard.evaluation.match import GameRecord, load_results, play_match_specs, summarize
from cardboard.jobs.backends import add_backend_arguments, backend_from
from cardboard.jobs.interrupts import settings as run_settings
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.jobs.script import run_module

GAME = "lords_of_war"
PAPER_HPLS = (1, 2, 5, 10, 15, 20, 25, 30)  # 002 §3.1, Fig. 2's rows
PAPER_HEURISTICS = tuple(f"h{i}" for i in range(1, 12))
PAPER_GAMES = 500  # 002 §3.1: "each repeated 500 times"
PAPER_ITERATIONS = 10_000  # 002 §2.1: both sides, every decision
PAPER_CELL_HPL = 15  # 002 §2.5-2.6: the multi-heuristic and extrapolation experiments' HPL
PAPER_WIN = {  # 002 Fig. 2: win % against plain UCT, by heuristic, at HPL 1, 2, 5, 10, 15, 20, 25, 30
    "h1": (6.0, 22.0, 58.0, 77.6, 86.8, 85.4, 80.0, 79.4), "h2": (0.0, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.8),
    "h3": (2.4, 7.8, 18.8, 35.6, 47.8, 47.6, 58.6, 56.0), "h4": (11.6, 24.8, 60.8, 82.6, 90.0, 88.6, 83.2, 79.0),
    "h5": (6.2, 15.8, 50.0, 77.6, 81.4, 83.6, 83.6, 82.8), "h6": (0.0, 0.8, 3.8, 13.8, 30.8, 25.6, 39.6, 38.0),
    "h7": (0.0, 2.2, 3.8, 14.4, 25.8, 31.8, 41.0, 38.8), "h8": (0.0, 0.6, 4.0, 17.0, 29.6, 28.6, 35.4, 42.0),
    "h9": (0.0, 1.2, 3.4, 17.0, 28.8, 33.6, 34.2, 40.4), "h10": (0.0, 3.2, 0.0, 6.8, 14.2, 29.0, 44.2, 50.0),
    "h11": (0.0, 2.8, 0.0, 11.2, 16.6, 33.4, 27.8, 41.6),
}


def cells(parts: list[str], heuristics: list[str], hpls: list[int], extrapolated: list[str], multi: list[str],
          iterations: int) -> dict[str, tuple[str, str]]:
    """Cell name -> (the agent measured, its opponent)."""
    plain = f"uct:iterations={iterations}"

    def pruned(names: str, hpl: int = PAPER_CELL_HPL, extrapolate: bool = False) -> str:
        return f"{plain},prune={names},hpl={hpl}" + (",extrapolate=1" if extrapolate else "")

    out: dict[str, tuple[str, str]] = {}
    if "sweep" in parts:
        out |= {f"{h}-{n}": (pruned(h, n), plain) for h in heuristics for n in hpls}
    if "extrapolation" in parts:
        for h in extrapolated:
            out[f"{h}R-vs-{h}"] = (pruned(h, extrapolate=True), pruned(h))
            out[f"{h}R-{PAPER_CELL_HPL}"] = (pruned(h, extrapolate=True), plain)
    if "multi" in parts:
        for h in multi:
            out[f"h4+{h}-{PAPER_CELL_HPL}"] = (pruned(f"h4+{h}"), plain)
            out[f"h4+{h}-vs-h4"] = (pruned(f"h4+{h}"), pruned("h4"))
    return out


def cell_summary(path: Path) -> dict[str, Any]:
    """A cell's results: wins, draws, losses of the measured agent, its win rate (draws half) with a Wilson
    interval, and each side's seconds per decision."""
    header, records = load_results(path)
    s = summarize(header["specs"], list(records.values()), make_game(GAME).info)
    points = s.wins + 0.5 * s.draws
    low, high = wilson_interval(points, s.games)
    return {"specs": header["specs"], "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
            "win_rate": points / s.games if s.games else None, "low": low, "high": high,
            "seconds_per_decision": list(s.seconds_per_decision), "mean_turns": s.mean_turns}


def cell_error_bars(rows: list[dict[str, Any]]) -> list[list[float]]:
    """Matplotlib's ``yerr`` (in %) of cells' Wilson intervals around their win rates."""
    return error_bars([r["win_rate"] for r in rows], [r["low"] for r in rows], [r["high"] for r in rows], 100)


def plot_sweep(summary: dict[str, Any], heuristics: list[str], hpls: list[int], path: Path) -> None:
    """Win rate against HPL per heuristic with 95% intervals, the paper's Fig. 2 dashed beside."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    played = {h: [(n, r) for n in hpls if (r := summary.get(f"{h}-{n}")) and r["games"]] for h in heuristics}
    if not any(played.values()):
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, (h, rows) in enumerate(played.items()):
        if not rows:
            continue
        colour = f"C{k % 10}"
        xs = [n for n, _ in rows]
        ys = [100 * r["win_rate"] for _, r in rows]
        err = cell_error_bars([r for _, r in rows])
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colour, label=f"{h} (ours)")
        if h in PAPER_WIN:
            ax.plot(PAPER_HPLS, PAPER_WIN[h], ls="--", color=colour, alpha=0.5, label=f"{h} (paper 002)")
    ax.axhline(50, color="grey", lw=0.8)
    ax.set_xlabel("hard pruning limit (HPL)")
    ax.set_ylabel("win % against plain UCT")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Lords of War: UCT with hard pruning vs plain UCT")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_bars(summary: dict[str, Any], names: list[str], path: Path, title: str) -> None:
    """One bar per cell with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(n, summary[n]) for n in names if n in summary and summary[n]["games"]]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(max(5, 0.8 * len(rows)), 4))
    ys = [100 * r["win_rate"] for _, r in rows]
    err = cell_error_bars([r for _, r in rows])
    ax.bar(range(len(rows)), ys, yerr=err, capsize=3, color="C0")
    ax.set_xticks(range(len(rows)), [n for n, _ in rows], rotation=45, ha="right", fontsize=8)
    ax.axhline(50, color="grey", lw=0.8)
    ax.set_ylabel("win % of the first agent")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="result folder (resumed if it exists)")
    parser.add_argument("--parts", default="sweep,extrapolation", help="comma list of sweep, extrapolation, multi")
    parser.add_argument("--heuristics", default="h1,h3,h4,h5,h10", help="the sweep's heuristics")
    parser.add_argument("--hpl", default=",".join(map(str, PAPER_HPLS)), help="the sweep's HPL values")
    parser.add_argument("--extrapolated", default="h4", help="heuristics run with and without extrapolation")
    parser.add_argument("--multi", default="h5,h6,h7,h10", help="heuristics joined to h4 in the multi part")
    parser.add_argument("--iterations", type=int, default=200, help="UCT iterations a decision, both sides")
    parser.add_argument("--games", type=int, default=10, help="games a cell")
    parser.add_argument("--vs-games", type=int, help="games of the head-to-head cells (h4R-vs-h4, h4+h-vs-h4; "
                        "the issue asks >= 400); default: --games")
    parser.add_argument("--rounds", type=int, default=1, help="the games of every cell are played in this many steps")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="worker processes or Ray actors")
    add_backend_arguments(parser)
    parser.add_argument("--paper-size", action="store_true",
                        help="002's size: every heuristic, 10,000 iterations, 500 games a cell, every part")
    args = parser.parse_args(argv)
    if args.paper_size:
        args.parts, args.heuristics = "sweep,extrapolation,multi", ",".join(PAPER_HEURISTICS)
        args.extrapolated = args.heuristics
        args.multi = ",".join(h for h in PAPER_HEURISTICS if h != "h4")
        args.iterations, args.games, args.rounds = PAPER_ITERATIONS, PAPER_GAMES, 5
    args.vs_games = args.games if args.vs_games is None else args.vs_games
    small = [f"--{k.replace('_', '-')} {v}" for k in ("iterations", "games", "vs_games", "rounds", "workers")
             if (v := getattr(args, k)) < 1]
    if small:
        parser.error(f"these must be at least 1: {', '.join(small)}")
    return args


def _planned(path: Path) -> int:
    """The games a cell's results file was written for (0 before its first run): a rerun never asks for fewer."""
    return int(load_results(path)[0]["games"]) if path.exists() and path.stat().st_size else 0


def main(argv: list[str] | None = None) -> int:
    """Run the experiment; 0, or 130 after Ctrl-C (the games saved, the command that resumes, printed)."""
    return run_module(__spec__.name, argv, arguments, _run)


def _run(args: argparse.Namespace, saved: Callable[[int], None]) -> int:
    split = (lambda text: [t for t in text.split(",") if t])
    heuristics, hpls = split(args.heuristics), [int(n) for n in split(args.hpl)]
    grid = cells(split(args.parts), heuristics, hpls, split(args.extrapolated), split(args.multi), args.iterations)
    (args.out / "cells").mkdir(parents=True, exist_ok=True)
    settings = run_settings(args)
    (args.out / "config.json").write_text(json.dumps(settings | {"out": str(args.out)}, indent=1))
    backend = backend_from(args)
    console = Console()
    start = time.perf_counter()
    total = {name: args.vs_games if "-vs-" in name else args.games for name in grid}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task("games", total=sum(total.values()))
        counted = dict.fromkeys(grid, 0)  # games of each cell already on the progress bar (and in args.saved)

        def on_game(record: GameRecord, lo: int) -> None:
            if record.index >= lo:
                saved(1)
                progress.advance(task)

        for r in range(args.rounds):
            for name, (agent, opponent) in grid.items():
                path = args.out / "cells" / f"{name}.jsonl"
                games = max(1, total[name] * (r + 1) // args.rounds, min(_planned(path), total[name]))
                if games <= counted[name]:
                    continue  # an earlier, longer run already took this cell past the round
                progress.update(task, description=f"{name} (to {games} games)")
                play_match_specs(GAME, [agent, opponent], games, args.seed, results_path=path, backend=backend,
                                 on_game=lambda record, lo=counted[name]: on_game(record, lo))
                counted[name] = games
    summary_path = args.out / "summary.json"
    summary = read_json(summary_path, what="summary") if summary_path.exists() else {}  # other parts' cells kept
    summary |= {name: cell_summary(args.out / "cells" / f"{name}.jsonl") for name in grid}
    summary_path.write_text(json.dumps(summary, indent=1))
    plot_sweep(summary, heuristics, hpls, args.out / "sweep.png")
    plot_bars(summary, [n for n in summary if "R" in n or "+" in n],
              args.out / "extrapolation.png", "Lords of War: extrapolation and multi-heuristic cells")
    table = Table(title=f"pruned UCT vs opponent ({args.iterations} iterations a decision)")
    for column in ("cell", "games", "W/D/L", "win rate (95% CI)", "paper", "s/decision"):
        table.add_column(column)
    for name, r in summary.items():
        h, _, n = name.partition("-")
        paper = PAPER_WIN.get(h, ())
        paper_value = f"{paper[PAPER_HPLS.index(int(n))]:.1f}%" if n.isdigit() and int(n) in PAPER_HPLS and paper else ""
        table.add_row(name, str(r["games"]), f"{r['wins']}/{r['draws']}/{r['losses']}",
                      f"{100 * r['win_rate']:.1f}% ({100 * r['low']:.1f}-{100 * r['high']:.1f})", paper_value,
                      " / ".join(f"{x:.3f}" for x in r["seconds_per_decision"]))
    console.print(table)
    console.print(f"{time.perf_counter() - start:.0f} s; summary.json, sweep.png, extrapolation.png in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

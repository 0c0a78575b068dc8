"""Paper 000 ch. 4 on Lords of War: parallel search's decision time at a fixed budget and its strength at a fixed time.

Modes (``cardboard.search.parallel``; agents' ``parallel=``): ``none`` (the unparallelised engine), ``root``
(worker processes, root statistics summed), ``tree`` (threads on one tree, no virtual loss: ``vl=0``), ``tree_vl``
(the same with the thesis's virtual loss of one visit, ``vl=1``) and ``leaf`` (threads run the rollouts); for
``uct`` (the true state) and ``ismcts``.

- timing (000 §4, Figs A.1 / A.2): from one fixed position, the thesis's S1 (the state after the two opening
  placements; deal ``--position-seed``, placements drawn from it), every cell (algorithm x mode x workers)
  searches ``--iterations`` iterations (split statically among the workers) ``--repeats`` times. Cells take
  turns repeat by repeat, so a change in the machine's load hits them alike, and repeat ``r`` of every cell
  uses the rng ``default_rng([seed, r])``. Each cell first makes one decision that is not timed (root's process
  pool start-up, compiled kernels). A decision's time is the wall clock around ``search``. Per cell: mean ms
  with a 95% normal interval; the speed-up t1/tn over the same mode with one worker (the thesis's), the
  efficiency t1/(n tn) and the speed-up over ``none``, with 95% paired-bootstrap intervals (repeats resampled
  together across cells). A calibration cell (algorithm ``machine``, mode ``spin``) takes its turn too: a fixed
  amount of compiled arithmetic split over 1 .. n threads that hold no interpreter lock, so its t1/tn is the
  speed-up the machine offered at that time (2 on two idle cores; less while others run).
- strength (000 §4, Figs A.3 / A.4): each parallel agent with ``--strength-workers`` workers against the
  unparallelised agent, both ``--seconds`` a decision, seats swapped every game; game ``i`` draws from
  ``SeedSequence(seed, spawn_key=(i,))`` whatever the mode or workers (``evaluation.match``), so every mode
  meets the same deals. Win rate (draws half) with a 95% Wilson interval. ``--match-workers`` games at once, on
  local processes or, with ``--backend ray``, a Ray cluster (``cardboard.jobs.backends``; the records are the same;
  each game's parallel agent uses its own ``--strength-workers`` besides).

Everything resumes: timing lines go to ``<out>/timing.jsonl`` (one per timed decision, with the 1-minute load
average when it started; a cut line is dropped and redone), each strength match to
``<out>/strength/<algorithm>-<mode>.jsonl``; more repeats or games extend a run. ``summary.json`` and the plots
``decision_time.png``, ``speedup.png`` and ``win_rate.png`` are written at the end; the thesis's numbers are
beside ours. Machine-dependent: the thesis ran 12 cores (24 threads); run nothing else meanwhile, and read the
load column. Ctrl-C prints what is saved and the command that resumes.

    python -m cardboard.evaluation.papers.p000_play_style.low_parallel --out runs/low-parallel          # small: minutes
    python -m cardboard.evaluation.papers.p000_play_style.low_parallel --out runs/low-parallel --parts timing --repeats 100
    python -m cardboard.evaluation.papers.p000_play_style.low_parallel --out runs/low-parallel-paper --paper-size
"""
from __future__ import annotations

import argparse
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.files import InputFileError, read_json
from cardboard.envs.protocol import GameState
from cardboard.jobs.script import run_module
from cardboard.jobs.resumable import claim_folder, read_lines
from cardboard.registry import make_agent, make_game
from cardboard.evaluation.match import GameRecord, load_results, play_match_specs, summarize
from cardboard.jobs.backends import Backend, add_backend_arguments
from cardboard.jobs.interrupts import settings as run_settings
from cardboard.jobs.intervals import error_bars, normal_estimate, wilson_interval

GAME = "lords_of_war"
MODES = {"none": "", "root": ",parallel=root", "tree": ",parallel=tree,vl=0", "tree_vl": ",parallel=tree,vl=1",
         "leaf": ",parallel=leaf"}
PAPER_ITERATIONS, PAPER_REPEATS, PAPER_SECONDS, PAPER_GAMES = 5000, 1000, 0.5, 1000  # 000 §4.1
PAPER_AGENTS = (1, 2, 3, 4, 5, 6, 7, 8, 16)
PAPER_MS = {  # 000 Figs A.1 (UCT) / A.2 (ISMCTS): ms a decision, 5000 iterations split 5000/n, n = PAPER_AGENTS
    "uct": {"root": (505.74, 253.47, 191.71, 154.77, 135.94, 113.21, 104.41, 91.74, 82.14),
            "tree": (514.09, 299.13, 207.51, 163.61, 133.19, 109.64, 105.74, 98.05, 84.11),
            "tree_vl": (511.58, 297.60, 198.75, 152.99, 131.45, 110.64, 105.86, 98.42, 92.73),
            "leaf": (1226.18, 676.75, 615.35, 618.23, 630.62, 619.71, 626.06, 634.27, 627.83)},
    "ismcts": {"root": (1061.07, 533.23, 376.74, 341.36, 273.27, 259.20, 220.66, 194.92, 187.23),
               "tree": (1057.69, 768.74, 528.83, 432.33, 348.83, 291.88, 282.98, 259.58, 248.13),
               "tree_vl": (1056.35, 751.91, 531.36, 444.21, 344.75, 295.64, 283.22, 264.05, 246.13),
               "leaf": (1885.77, 1087.50, 981.75, 1019.97, 975.29, 987.03, 1049.48, 1005.02, 970.34)},
}
PAPER_WIN = {  # 000 Figs A.3 / A.4: win % against the unparallelised agent at 500 ms a decision, n = PAPER_AGENTS
    "uct": {"root": (50.2, 54.6, 56.2, 57.8, 59.2, 60.8, 61.2, 62.4, 65.3),
            "tree": (49.1, 58.2, 62.8, 65.3, 66.8, 68.0, 69.2, 71.9, 72.1),
            "tree_vl": (48.8, 57.6, 61.7, 66.0, 64.3, 67.5, 70.7, 72.4, 73.2),
            "leaf": (47.2, 49.7, 50.6, 51.7, 50.9, 52.1, 52.9, 53.4, 52.8)},
    "ismcts": {"root": (50.3, 52.9, 55.4, 56.4, 60.1, 61.0, 62.7, 63.7, 66.2),
               "tree": (47.1, 58.4, 61.9, 64.7, 66.2, 66.3, 67.9, 70.6, 71.8),
               "tree_vl": (46.8, 56.2, 60.4, 63.9, 65.7, 66.7, 68.3, 72.1, 74.3),
               "leaf": (45.6, 48.2, 49.7, 51.3, 52.4, 52.7, 52.4, 53.1, 52.9)},
}
BOOTSTRAP = 2000  # resamples of the speed-up intervals
SPIN_WORK = 40_000_000  # the calibration cell's arithmetic (about 80 ms on one core)


@njit(cache=True, nogil=True)
def _spin(n: int) -> float:
    x = 0.0
    for i in range(n):
        x += i ** 0.5
    return x


def spin(workers: int) -> None:
    """The calibration cell: ``SPIN_WORK`` compiled steps split over ``workers`` threads, none holding the GIL."""
    threads = [threading.Thread(target=_spin, args=(SPIN_WORK // workers,)) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def opening_position(seed: int) -> GameState:
    """The thesis's S1 on our cards: deal ``seed``, then the two opening placements (turns 0 and 1) drawn with
    ``default_rng(seed)``."""
    state = make_game(GAME).new_state(seed)
    rng = np.random.default_rng(seed)
    while state.turn < 2:
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def spec(algorithm: str, mode: str, workers: int, budget: str) -> str:
    """The agent spec of a cell (``budget``: ``iterations=N`` or ``iterations=0,seconds=S``)."""
    return f"{algorithm}:{budget}{MODES[mode]}" + (f",workers={workers}" if mode != "none" else "")


def timing_cells(algorithms: list[str], modes: list[str], workers: list[int]) -> list[tuple[str, str, int]]:
    """(algorithm, mode, workers) of every timing cell; ``none`` once, with one worker; the calibration cells."""
    searched = [(a, m, n) for a in algorithms for m in modes for n in ([1] if m == "none" else workers)]
    return searched + [("machine", "spin", n) for n in sorted(set(workers) | {1})]


def run_timing(args: argparse.Namespace, progress: Progress) -> list[dict[str, Any]]:
    """Time every cell ``--repeats`` times, the cells taking turns (resuming ``timing.jsonl``; ``args.saved``
    counts its lines); the records in file order. Every agent lives for the whole run (root's process pools
    included)."""
    path = args.out / "timing.jsonl"
    done = read_lines(path, lambda r: (r["algorithm"], r["mode"], r["workers"], r["repeat"]))
    args.saved += len(done)
    state = opening_position(args.position_seed)
    game = make_game(GAME)
    cells = timing_cells(args.algorithms, args.modes, args.workers)
    task = progress.add_task("timing", total=len(cells) * args.repeats,
                             completed=sum(k[3] < args.repeats for k in done if k[:3] in set(cells)))
    warm: set[tuple[str, str, int]] = set()  # cells whose untimed first decision is made
    agents = {cell: make_agent(spec(*cell, f"iterations={args.iterations}"), game) for cell in cells
              if cell[0] != "machine"}
    try:
        with path.open("a") as sink:
            for repeat in range(args.repeats):
                for cell in cells:
                    if (*cell, repeat) in done:
                        continue
                    agent = agents.get(cell)
                    if cell not in warm:  # compiled kernels loaded, root's pool started
                        spin(cell[2]) if agent is None else agent.searcher.search(state, np.random.default_rng(
                            [args.seed, 1 << 20]))
                        warm.add(cell)
                    progress.update(task, description=f"timing {cell[0]} {cell[1]} {cell[2]}")
                    load = os.getloadavg()[0]
                    start = time.perf_counter()
                    if agent is None:
                        spin(cell[2])
                        iterations = 0
                    else:
                        iterations = agent.searcher.search(state, np.random.default_rng([args.seed, repeat])).iterations
                    record = {"algorithm": cell[0], "mode": cell[1], "workers": cell[2], "repeat": repeat,
                              "seconds": time.perf_counter() - start, "iterations": iterations, "load": load}
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
                    done[(*cell, repeat)] = record
                    args.saved += 1
                    progress.advance(task)
    finally:
        for agent in agents.values():
            agent.close()
    return list(done.values())


def paired_ratio(numerator: dict[int, float], denominator: dict[int, float], rng: np.random.Generator) -> list[float]:
    """mean(numerator) / mean(denominator) over their common repeats, with a 95% percentile interval from a
    bootstrap that resamples the repeats together (the cells took turns, so repeat r of each ran side by side)."""
    common = sorted(set(numerator) & set(denominator))
    if not common:
        return [float("nan")] * 3
    a, b = np.array([numerator[r] for r in common]), np.array([denominator[r] for r in common])
    picks = rng.integers(len(common), size=(BOOTSTRAP, len(common)))
    ratios = a[picks].mean(axis=1) / b[picks].mean(axis=1)
    return [float(a.mean() / b.mean()), float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))]


def paper_speedup(algorithm: str, mode: str, workers: int) -> float | None:
    """The thesis's t1/tn of ``mode`` at ``workers`` agents (None where it has no number)."""
    rows = PAPER_MS.get(algorithm, {}).get(mode)
    if rows is None or workers not in PAPER_AGENTS:
        return None
    return rows[0] / rows[PAPER_AGENTS.index(workers)]


def timing_summary(records: list[dict[str, Any]], cells: list[tuple[str, str, int]]) -> dict[str, Any]:
    """Per cell: ms a decision (95% normal interval), t1/tn, efficiency and speed-up over none (95% paired
    bootstrap), the thesis's t1/tn, the mean load while it ran."""
    seconds: dict[tuple[str, str, int], dict[int, float]] = {}
    loads: dict[tuple[str, str, int], list[float]] = {}
    for r in records:
        seconds.setdefault((r["algorithm"], r["mode"], r["workers"]), {})[r["repeat"]] = r["seconds"]
        loads.setdefault((r["algorithm"], r["mode"], r["workers"]), []).append(r["load"])
    rng = np.random.default_rng(0)
    out: dict[str, Any] = {}
    for cell in cells:
        times = seconds.get(cell, {})
        if not times:
            continue
        algorithm, mode, workers = cell
        ms = normal_estimate([1000 * t for t in times.values()])
        one = seconds.get((algorithm, mode, 1), {})
        t1_tn = paired_ratio(one, times, rng)
        out[f"{algorithm}/{mode}/{workers}"] = {
            "algorithm": algorithm, "mode": mode, "workers": workers, "repeats": len(times),
            "ms": list(ms), "speedup": t1_tn, "efficiency": [x / workers for x in t1_tn],
            "speedup_over_none": paired_ratio(none, times, rng) if (none := seconds.get((algorithm, "none", 1)))
            else None,
            "paper_speedup": paper_speedup(algorithm, mode, workers), "load": float(np.mean(loads[cell]))}
    return out


def run_strength(args: argparse.Namespace, progress: Progress) -> dict[str, Any]:
    """Each parallel mode with ``--strength-workers`` workers against ``none`` at ``--seconds`` a decision
    (``args.saved`` counts the games in the matches' files)."""
    budget = f"iterations=0,seconds={args.seconds:g}"
    backend = Backend(args.backend, args.match_workers, args.address)
    matches = [(a, m) for a in args.algorithms for m in args.modes if m != "none"]
    task = progress.add_task("strength", total=len(matches) * args.games)

    def on_game(record: GameRecord) -> None:
        args.saved += 1
        progress.advance(task)

    out = {}
    for algorithm, mode in matches:
        specs = [spec(algorithm, mode, args.strength_workers, budget), spec(algorithm, "none", 1, budget)]
        progress.update(task, description=f"strength {algorithm} {mode}")
        path = args.out / "strength" / f"{algorithm}-{mode}.jsonl"
        play_match_specs(GAME, specs, args.games, args.seed, results_path=path, on_game=on_game, backend=backend)
        header, records = load_results(path)
        s = summarize(header["specs"], list(records.values()), make_game(GAME).info)
        points = s.wins + 0.5 * s.draws
        low, high = wilson_interval(points, s.games)
        paper = PAPER_WIN[algorithm].get(mode)
        n = args.strength_workers
        out[f"{algorithm}/{mode}"] = {
            "algorithm": algorithm, "mode": mode, "specs": specs, "games": s.games, "wins": s.wins,
            "draws": s.draws, "losses": s.losses, "win_rate": points / s.games, "low": low, "high": high,
            "seconds_per_decision": list(s.seconds_per_decision),
            "paper_win_rate": paper[PAPER_AGENTS.index(n)] / 100 if paper and n in PAPER_AGENTS else None}
    return out


def plot_timing(summary: dict[str, Any], algorithms: list[str], out: Path) -> None:
    """``decision_time.png``: ms a decision per mode and workers; ``speedup.png``: t1/tn against workers, the
    thesis's dashed, the ideal dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = list(summary.values())
    fig, axes = plt.subplots(1, len(algorithms), figsize=(6 * len(algorithms), 4), squeeze=False)
    for ax, algorithm in zip(axes[0], algorithms):
        mine = [c for c in cells if c["algorithm"] == algorithm]
        labels = [f"{c['mode']}\n{c['workers']}" for c in mine]
        ms = [c["ms"][0] for c in mine]
        err = error_bars(ms, [c["ms"][1] for c in mine], [c["ms"][2] for c in mine])
        ax.bar(range(len(mine)), ms, yerr=err, capsize=3, color=[f"C{list(MODES).index(c['mode'])}" for c in mine])
        ax.set_xticks(range(len(mine)), labels, fontsize=8)
        ax.set_ylabel("ms a decision (95% CI)")
        ax.set_title(f"{algorithm}: mode / workers")
    fig.tight_layout()
    fig.savefig(out / "decision_time.png", dpi=120)
    plt.close(fig)
    fig, axes = plt.subplots(1, len(algorithms), figsize=(6 * len(algorithms), 4), squeeze=False)
    for ax, algorithm in zip(axes[0], algorithms):
        top = 1
        for mode in MODES:
            mine = sorted((c for c in cells if c["algorithm"] == algorithm and c["mode"] == mode and mode != "none"),
                          key=lambda c: c["workers"])
            if not mine:
                continue
            colour = f"C{list(MODES).index(mode)}"
            xs = [c["workers"] for c in mine]
            ys = [c["speedup"][0] for c in mine]
            err = error_bars(ys, [c["speedup"][1] for c in mine], [c["speedup"][2] for c in mine])
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colour, label=f"{mode} (ours)")
            paper = [(n, paper_speedup(algorithm, mode, n)) for n in PAPER_AGENTS if n <= max(xs)]
            ax.plot([n for n, _ in paper], [v for _, v in paper], ls="--", color=colour, alpha=0.5,
                    label=f"{mode} (thesis)")
            top = max(top, max(xs))
        machine = sorted((c for c in cells if c["algorithm"] == "machine"), key=lambda c: c["workers"])
        if machine:
            ax.plot([c["workers"] for c in machine], [c["speedup"][0] for c in machine], color="black", marker="s",
                    label="machine (calibration)")
        ax.plot([1, top], [1, top], ls=":", color="grey", label="ideal")
        ax.set_xticks(sorted({c["workers"] for c in cells}))
        ax.set_xlabel("workers")
        ax.set_ylabel("speed-up t1/tn (95% CI)")
        ax.set_title(algorithm)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "speedup.png", dpi=120)
    plt.close(fig)


def plot_strength(summary: dict[str, Any], out: Path) -> None:
    """``win_rate.png``: each parallel agent's win rate against ``none``, the thesis's as a cross."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(summary.values())
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(rows)), 4))
    ys = [100 * r["win_rate"] for r in rows]
    err = error_bars([r["win_rate"] for r in rows], [r["low"] for r in rows], [r["high"] for r in rows], 100)
    ax.bar(range(len(rows)), ys, yerr=err, capsize=3, color=[f"C{list(MODES).index(r['mode'])}" for r in rows])
    paper = [(i, 100 * r["paper_win_rate"]) for i, r in enumerate(rows) if r["paper_win_rate"] is not None]
    ax.plot([i for i, _ in paper], [v for _, v in paper], "kx", label="thesis")
    ax.set_xticks(range(len(rows)), [f"{r['algorithm']}\n{r['mode']}" for r in rows], fontsize=8)
    ax.axhline(50, color="grey", lw=0.8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("win % against the unparallelised agent (95% Wilson)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "win_rate.png", dpi=120)
    plt.close(fig)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    listed = (lambda kind: (lambda text: [kind(t) for t in text.split(",") if t]))
    parser.add_argument("--out", type=Path, required=True, help="result folder (resumed if it exists)")
    parser.add_argument("--parts", type=listed(str), default=["timing", "strength"], help="timing,strength")
    parser.add_argument("--algorithms", type=listed(str), default=["uct", "ismcts"])
    parser.add_argument("--modes", type=listed(str), default=list(MODES), help=f"among {','.join(MODES)}")
    parser.add_argument("--workers", type=listed(int), default=[1, 2], help="timing: worker counts (2 cores: 1,2)")
    parser.add_argument("--iterations", type=int, default=PAPER_ITERATIONS, help="timing: iterations a decision")
    parser.add_argument("--repeats", type=int, default=10, help="timing: decisions a cell")
    parser.add_argument("--position-seed", type=int, default=1, help="timing: the deal of the fixed position")
    parser.add_argument("--seconds", type=float, default=0.05, help="strength: seconds a decision, both sides")
    parser.add_argument("--strength-workers", type=int, default=2, help="strength: the parallel agents' workers")
    parser.add_argument("--games", type=int, default=4, help="strength: games a match, seats swapped")
    parser.add_argument("--match-workers", type=int, default=1,
                        help="strength: games played at once, worker processes or Ray actors (default 1: in turn)")
    add_backend_arguments(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--paper-size", action="store_true",
                        help="000 ch. 4's size: 5000 iterations x 1000 repeats; 500 ms a decision, 1000 games")
    args = parser.parse_args(argv)
    if args.paper_size:
        args.iterations, args.repeats, args.seconds, args.games = PAPER_ITERATIONS, PAPER_REPEATS, PAPER_SECONDS, \
            PAPER_GAMES
    unknown = [m for m in args.modes if m not in MODES] + [p for p in args.parts if p not in ("timing", "strength")]
    if unknown:
        parser.error(f"unknown mode or part: {', '.join(unknown)}")
    try:
        Backend(args.backend, args.match_workers, args.address)
    except InvalidParameterError as exc:
        parser.error(str(exc))
    return args


def previous_parts(path: Path) -> dict[str, Any]:
    """The timing and strength cells of an earlier summary in the same folder, so that a run of one part (or of
    some cells) keeps the others' results."""
    previous = read_json(path, what="summary") if path.exists() else {}
    if not isinstance(previous, dict):
        raise InputFileError(path, "not a summary of this experiment (a JSON object)")
    return {part: previous.get(part) or {} for part in ("timing", "strength")}


def main(argv: list[str] | None = None) -> int:
    """Run the parts asked for; 0, or 130 after Ctrl-C (what is saved, the command that resumes, printed)."""
    return run_module(__spec__.name, argv, arguments, _run, _unit)


def _unit(args: argparse.Namespace) -> str:
    """What the parts asked for save: timed decisions, games or both."""
    units = {"timing": "timed decisions", "strength": "games"}
    return " and ".join(units[part] for part in units if part in args.parts)


def _run(args: argparse.Namespace, saved: Callable[[int], None]) -> int:
    claim_folder(args.out, {"game": GAME, "iterations": args.iterations, "position_seed": args.position_seed,
                            "seconds": args.seconds, "strength_workers": args.strength_workers, "seed": args.seed},
                 "parallel-search run")
    (args.out / "strength").mkdir(exist_ok=True)
    console = Console()
    summary = previous_parts(args.out / "summary.json")
    settings = run_settings(args)
    summary |= {"config": settings | {"out": str(args.out)}, "cpus": os.cpu_count()}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console) as progress:
        if "timing" in args.parts:
            cells = timing_cells(args.algorithms, args.modes, args.workers)
            summary["timing"] |= timing_summary(run_timing(args, progress), cells)
        if "strength" in args.parts:
            summary["strength"] |= run_strength(args, progress)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    if summary["timing"]:
        timed = summary["timing"].values()
        algorithms = list(dict.fromkeys(c["algorithm"] for c in timed if c["algorithm"] != "machine"))
        plot_timing(summary["timing"], algorithms, args.out)
        table = Table(title=f"decision time, {args.iterations} iterations split among the workers "
                            f"({os.cpu_count()} cores; 95% intervals)")
        for column in ("alg.", "mode", "n", "ms", "t1/tn", "over none", "thesis t1/tn", "load"):
            table.add_column(column)
        for c in summary["timing"].values():
            ms, s, o = c["ms"], c["speedup"], c["speedup_over_none"]
            table.add_row(c["algorithm"], c["mode"], str(c["workers"]), f"{ms[0]:.0f} ({ms[1]:.0f}-{ms[2]:.0f})",
                          f"{s[0]:.2f} ({s[1]:.2f}-{s[2]:.2f})",
                          "" if o is None else f"{o[0]:.2f} ({o[1]:.2f}-{o[2]:.2f})",
                          "" if c["paper_speedup"] is None else f"{c['paper_speedup']:.2f}", f"{c['load']:.1f}")
        console.print(table)
    if summary["strength"]:
        plot_strength(summary["strength"], args.out)
        table = Table(title=f"{args.strength_workers} workers vs unparallelised, {args.seconds:g} s a decision")
        for column in ("algorithm", "mode", "games", "W/D/L", "win rate (95% CI)", "thesis", "s/decision"):
            table.add_column(column)
        for r in summary["strength"].values():
            table.add_row(r["algorithm"], r["mode"], str(r["games"]), f"{r['wins']}/{r['draws']}/{r['losses']}",
                          f"{100 * r['win_rate']:.1f}% ({100 * r['low']:.1f}-{100 * r['high']:.1f})",
                          "" if r["paper_win_rate"] is None else f"{100 * r['paper_win_rate']:.1f}%",
                          " / ".join(f"{x:.3f}" for x in r["seconds_per_decision"]))
        console.print(table)
    console.print(f"summary.json and plots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

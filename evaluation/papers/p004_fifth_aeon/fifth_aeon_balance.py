"""Paper 004's balancer experiments (§5.2.2-5.2.3): every test card of the thesis, with and without early stopping.

For each experiment (a test card, the parameter it sweeps, the grid) the balancer (``evaluation.fifth_aeon_balancer``)
runs into ``<out>/<name>`` (early stopping) and, with ``--compare``, ``<out>/<name>-full`` (every round of every
value), both resumable. ``summary.json`` and ``summary.md`` hold, per experiment, the thesis's answer, the chosen
value of each run with its win rate, the games played and the wall time: the speed-up of early stopping at the
answers it gives. ``--backend ray`` plays the games on a Ray cluster (``cardboard.jobs.backends``); Ctrl-C prints
what is saved and the command that resumes.

    python -m cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_balance --out runs/fifth-aeon-balance --workers 2 --compare
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_balancer import THESIS_ANSWERS, balance
from cardboard.jobs.backends import add_backend_arguments, backend_from
from cardboard.jobs.script import run_module

EXPERIMENTS = (  # name, test card, parameter, grid (004 §5.2.2 energy sweeps; §5.2.3 stat sweeps at 7 energy)
    ("ten_ten-energy", "ten_ten", "energy", list(range(0, 11))),
    ("three_three-energy", "three_three", "energy", list(range(0, 11))),
    ("five_five_flyer-energy", "five_five_flyer", "energy", list(range(0, 11))),
    ("decapitate_clone-energy", "decapitate_clone", "energy", list(range(0, 11))),
    ("draw_three-energy", "draw_three", "energy", list(range(0, 11))),
    ("draw_three_untargeted-energy", "draw_three_untargeted", "energy", list(range(0, 11))),
    ("x_10-attack", "ten_ten", "damage", list(range(0, 11))),
    ("x_3-attack", "three_three", "damage", list(range(0, 11))),
    ("x_5_flyer-attack", "five_five_flyer", "damage", list(range(0, 11))),
    ("relentless_5_x-life", "relentless", "life", list(range(1, 11))),
)


def main(argv: list[str] | None = None) -> int:
    """Run the experiments; 0, or 130 after Ctrl-C (the games saved, the command that resumes, printed)."""
    return run_module(__spec__.name, argv, arguments, _run)


def arguments(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/fifth-aeon-balance")
    p.add_argument("--rounds", type=int, default=10, help="rounds a value (thesis: 10 = 2,000 games)")
    p.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors")
    add_backend_arguments(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compare", action="store_true", help="also run without early stopping")
    p.add_argument("--compare-only", default="", help="with --compare: only these experiments (comma list)")
    p.add_argument("--only", default="", help="comma list of experiment names")
    return p.parse_args(argv)


def _run(args: argparse.Namespace, saved: Callable[[int], None]) -> int:
    out = Path(args.out)
    backend = backend_from(args)
    wanted = set(filter(None, args.only.split(",")))
    compared = set(filter(None, args.compare_only.split(",")))
    rows: list[dict[str, Any]] = []
    for name, card, parameter, values in EXPERIMENTS:
        if wanted and name not in wanted:
            continue
        row: dict[str, Any] = {"experiment": name, "thesis": THESIS_ANSWERS.get((card, parameter))}
        both = args.compare and (not compared or name in compared)
        for label, early in (("early", True), ("full", False)) if both else (("early", True),):
            start = time.perf_counter()
            summary = balance(card, parameter, values, out / (name if early else f"{name}-full"), args.rounds,
                              early_stop=early, seed=args.seed, backend=backend, on_saved=saved)
            best = next(r for r in summary["rows"] if r["value"] == summary["best"])
            row[label] = {"best": summary["best"], "win_rate": best["win_rate"], "ci": best["ci"],
                          "games": summary["games"], "full_games": summary["full_games"],
                          "seconds": time.perf_counter() - start, "curve": {r["value"]: round(r["win_rate"], 4)
                                                                          for r in summary["rows"]}}
            print(f"{name} [{label}]: best {summary['best']} ({best['win_rate']:.1%}), {summary['games']} games, "
                  f"{row[label]['seconds']:.0f} s", flush=True)
        rows.append(row)
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    lines = ["| experiment | thesis | early stop: best (WR) | games | s | full: best (WR) | games | s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e, f = r["early"], r.get("full")
        full = (f"{f['best']} ({f['win_rate']:.1%}) | {f['games']} | {f['seconds']:.0f}" if f else "- | - | -")
        lines.append(f"| {r['experiment']} | {r['thesis'] if r['thesis'] is not None else '-'} | "
                     f"{e['best']} ({e['win_rate']:.1%}) | {e['games']} | {e['seconds']:.0f} | {full} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What the benchmark scripts share: a timing loop, ratio comparisons and a machine description.

Imported by the scripts beside it (``python benchmarks/playout.py`` puts this folder on ``sys.path``).
"""
from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def timed(work: Callable[[], int], seconds: float) -> tuple[int, int, float]:
    """Call ``work`` (returning units done: steps, simulations) until ``seconds`` have passed, at least once.

    Returns (units, calls, elapsed seconds).
    """
    start = time.perf_counter()
    end = start + seconds
    units = calls = 0
    while True:
        units += work()
        calls += 1
        now = time.perf_counter()
        if now >= end:
            return units, calls, now - start


def interleaved_rates(rows: dict[str, Callable[[int], int]], seconds: float, rounds: int) -> dict[str, float]:
    """Units per second of each row: ``work(i)`` (i = 0, 1, ...: the call's index) returns the units it did.
    Each row is warmed up (three calls: compile, fill caches), then gets ``seconds / rounds`` per round, the
    rows interleaved round by round so that a change of load mid-run hits all of them alike."""
    for work in rows.values():
        for i in range(3):
            work(i)
    totals = {name: [0, 0.0] for name in rows}
    for _ in range(rounds):
        for name, work in rows.items():
            calls = iter(range(1 << 30))
            units, _, elapsed = timed(lambda: work(next(calls)), seconds / rounds)
            totals[name][0] += units
            totals[name][1] += elapsed
    return {name: units / elapsed for name, (units, elapsed) in totals.items()}


@dataclass(frozen=True)
class Comparison:
    """``row``'s rate over ``baseline``'s (or the absolute rate when ``baseline`` is None) against ``target``."""

    row: str
    baseline: str | None
    target: float | None  # None: shown for context, no target
    what: str


def compare(rates: dict[str, float], comparisons: Iterable[Comparison]) -> list[dict[str, Any]]:
    """Evaluate every comparison whose rows were measured."""
    results = []
    for c in comparisons:
        if c.row not in rates or (c.baseline is not None and c.baseline not in rates):
            continue
        value = rates[c.row] / (rates[c.baseline] if c.baseline else 1.0)
        results.append({"what": c.what, "row": c.row, "baseline": c.baseline, "value": value, "target": c.target,
                        "met": None if c.target is None else value >= c.target})
    return results


def machine(packages: Iterable[str]) -> dict[str, Any]:
    """CPU, core count, Python and package versions, and the load average at the end of the run."""
    cpu = platform.processor()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {}
    for package in packages:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": platform.python_version(), **versions,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
            "load_1min": round(os.getloadavg()[0], 2)}  # this process included


def rates_table(rates: dict[str, float], title: str) -> Table:
    """A rich table of each row's steps per second."""
    table = Table(title=title)
    table.add_column("env")
    table.add_column("steps/s", justify="right")
    for name, rate in rates.items():
        table.add_row(name, f"{rate:,.0f}")
    return table


def ratio_table(comparisons: list[dict[str, Any]], unit: str) -> Table:
    """A rich table of the comparisons; absolute rates are shown in ``unit`` (e.g. 'steps/s')."""
    table = Table(title="Ratios (same run) and targets")
    for column in ("comparison", "value", "target", "met"):
        table.add_column(column, justify="left" if column == "comparison" else "right")
    for c in comparisons:
        absolute = c["baseline"] is None
        value = f"{c['value']:,.0f} {unit}" if absolute else f"{c['value']:.2f}x"
        target = "-" if c["target"] is None else (f">= {c['target']:,.0f}" if absolute else f">= {c['target']:g}x")
        met = "-" if c["met"] is None else ("[green]yes[/]" if c["met"] else "[red]NO[/]")
        table.add_row(c["what"], value, target, met)
    return table


def print_machine_and_notes(console: Console, info: dict[str, Any], notes: list[str]) -> None:
    """The report's last lines: the machine description, then each note (skipped rows and why)."""
    console.print("Machine: " + ", ".join(f"{k}={v}" for k, v in info.items()))
    for note in notes:
        console.print(f"[yellow]Note:[/] {escape(note)}")


def timing_arguments(description: str, rounds: int) -> argparse.ArgumentParser:
    """A parser with the options every benchmark shares: seconds per row and interleaved rounds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=3.0, help="measured wall-clock time per row (default 3)")
    parser.add_argument("--rounds", type=int, default=rounds,
                        help=f"interleaved rounds the time is split into (default {rounds})")
    return parser

"""Ctrl-C on a long job, the same everywhere: one line on what is saved where and the exact command that resumes,
exit code 130, no traceback.

A command reports its progress on its parsed arguments as it goes: ``args.saved`` (how many units of work are
saved), ``args.unit`` (what they are: "games" unless it says otherwise) and ``args.saved_in`` (the file or folder;
None when this run saves nothing). ``interrupted`` turns them into the line.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

INTERRUPTED = 130  # the shell's code for a process stopped by SIGINT


PROGRESS = ("saved", "saved_in", "unit")  # what ``track`` adds to the parsed arguments


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed arguments without the progress ``track`` added: a run's settings, as its results folder keeps
    them."""
    return {k: v for k, v in vars(args).items() if k not in PROGRESS}


def track(args: argparse.Namespace, saved_in: Any, unit: str = "games") -> Callable[[int], None]:
    """Start counting (nothing saved yet, in ``saved_in``); returns what a job calls with each number of units it
    saves."""
    args.saved, args.saved_in, args.unit = 0, saved_in, unit

    def saved(n: int) -> None:
        args.saved += n

    return saved


def interrupted(args: argparse.Namespace, console: Any, command_line: str) -> int:
    """Print the line for ``args`` (see the module docstring) and return ``INTERRUPTED``."""
    where = getattr(args, "saved_in", None)
    if where is None:
        note = "nothing was saved" + (" (no --results file)" if hasattr(args, "results") else "")
    else:
        saved, unit = getattr(args, "saved", 0), getattr(args, "unit", "games")
        if saved == 1 and " " not in unit:
            unit = unit.removesuffix("s")  # "1 game", "1 set-up"
        note = f"{saved} {unit} saved in {where}; resume with: {command_line}"
    console.print(f"interrupted: {note}", highlight=False, markup=False, soft_wrap=True)
    return INTERRUPTED

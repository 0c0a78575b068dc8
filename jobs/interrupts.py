"""Ctrl-C on a long job, the same everywhere: one line on what is saved where and the exact command that resumes,
exit code 130, no traceback.

A command reports its progress on its parsed arguments as it goes: ``args.saved`` (how many units of work are
saved), ``args.unit`` (what they are: "games" unless it says otherwise) and ``args.saved_in`` (the file or folder;
None when this run saves nothing). ``interrupted`` turns them into the line.
"""
from __future__ import annotations

import argparse
from typing import Any

INTERRUPTED = 130  # the shell's code for a process stopped by SIGINT


def track(args: argparse.Namespace, saved_in: Any, unit: str = "games") -> None:
    """Start counting: nothing saved yet, in ``saved_in``."""
    args.saved, args.saved_in, args.unit = 0, saved_in, unit


def interrupted(args: argparse.Namespace, console: Any, command_line: str) -> int:
    """Print the line for ``args`` (see the module docstring) and return ``INTERRUPTED``."""
    where = getattr(args, "saved_in", None)
    if where is None:
        note = "nothing was saved" + (" (no --results file)" if hasattr(args, "results") else "")
    else:
        note = (f"{getattr(args, 'saved', 0)} {getattr(args, 'unit', 'games')} saved in {where}; resume with: "
                f"{command_line}")
    console.print(f"interrupted: {note}", highlight=False, markup=False, soft_wrap=True)
    return INTERRUPTED

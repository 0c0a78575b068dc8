"""``cardboard pig-odds``: a command a plugin adds to the ``cardboard`` command line (entry point group
``cardboard.commands``): the chance that ``--rolls`` rolls of a die show no 1, Pig's risk of holding on."""
from __future__ import annotations

SUMMARY = "the chance that N rolls of a die show no 1 (a plugin's command)"


def add_arguments(parser) -> None:
    parser.add_argument("--rolls", type=int, default=3, help="rolls in a row (default 3)")


def run(args, console) -> int:
    console.print(f"{args.rolls} rolls without a 1: {(5 / 6) ** args.rolls:.4f}", highlight=False)
    return 0

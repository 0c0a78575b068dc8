"""Running a training module as a script (``python -m cardboard.training.MODULE GAME ...``), as the CLI does."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from rich.console import Console

from cardboard.envs.errors import CardboardError


def run_script(prog: str, doc: str, add_arguments: Callable[[argparse.ArgumentParser], None],
               run: Callable[[argparse.Namespace, Console], int], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with ``add_arguments`` and ``run`` it: its exit code, or 2 on a cardboard error (printed)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n", 1)[0])
    add_arguments(parser)
    console = Console()
    try:
        return run(parser.parse_args(argv), console)
    except CardboardError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True, highlight=False)
        return 2

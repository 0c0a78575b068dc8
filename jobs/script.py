"""Running a command's module as a script (``python -m cardboard.training.selfplay GAME ...``), as the CLI runs it:
a cardboard error is one line and exit code 2, Ctrl-C the resume line of ``interrupts`` and exit code 130; and an
experiment module's ``main`` (``run_module``) the same way; and a trainer's flags from its arguments' dataclass
(``dataclass_arguments``)."""
from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from collections.abc import Callable, Sequence

from rich.console import Console

from ..envs.errors import CardboardError
from .interrupts import interrupted, track


def dataclass_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One argument per field of the dataclass ``cls`` (annotations as strings: ``from __future__ import
    annotations``): ``game`` positional, ``option`` repeatable, then a ``--name`` flag per field, booleans as
    ``--name`` / ``--no-name``, tuples and lists as ``nargs="+"``."""
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if f.name == "game":
            parser.add_argument("game", help="a registered game (see 'cardboard games')")
        elif f.name == "option":
            parser.add_argument(flag, action="append", default=[], metavar="KEY=VALUE",
                                help="a game option (repeatable)")
        elif f.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        elif f.type.startswith(("tuple", "list")):
            kind = int if "int" in f.type else str
            parser.add_argument(flag, type=kind, nargs="+", default=default, help=f"default: {default}")
        elif f.type == "str | None":
            parser.add_argument(flag, default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=f"default: {default}")


def run_script(prog: str, doc: str, add_arguments: Callable[[argparse.ArgumentParser], None],
               run: Callable[[argparse.Namespace, Console], int], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with ``add_arguments`` and ``run`` it: its exit code, 2 on a cardboard error (printed), 130
    on Ctrl-C (what is saved and how to resume, printed)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n", 1)[0])
    add_arguments(parser)
    console = Console()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    try:
        return run(args, console)
    except CardboardError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True, highlight=False)
        return 2
    except KeyboardInterrupt:
        return interrupted(args, console, shlex.join([*shlex.split(prog), *argv]))


def run_module(module: str, argv: Sequence[str] | None, arguments: Callable[[list[str]], argparse.Namespace],
               run: Callable[[argparse.Namespace, Callable[[int], None]], int],
               unit: str | Callable[[argparse.Namespace], str] = "games") -> int:
    """An experiment module's ``main``: parse ``argv`` with ``arguments``, count what ``run(args, saved)`` saves
    in ``args.out`` (``saved(n)``: n more ``unit``), and return its code; on Ctrl-C print what is saved and the
    ``python -m MODULE ...`` command that resumes, and return 130."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = arguments(argv)
    saved = track(args, args.out, unit(args) if callable(unit) else unit)
    try:
        return run(args, saved)
    except KeyboardInterrupt:
        return interrupted(args, Console(), shlex.join(["python", "-m", module, *argv]))

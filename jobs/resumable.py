"""What resumable result folders share: claiming a folder for one run's config, reading a JSON-lines file back,
writing a file atomically.

A long job writes its config to ``config.json`` in its output folder and one JSON line per finished unit of work;
a second run with the same config resumes (lines cut short by a kill are dropped and their work done again),
one with another config is refused rather than mixed in.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import IO, Any

from ..envs.errors import InvalidParameterError
from ..envs.files import RESULTS_LIMIT, InputFileError, differing_fields, errors_as, read_json, read_text


def claim_folder(out: Path, config: dict[str, Any], what: str) -> None:
    """Create ``out`` and write ``config`` there, or check it equals the config of the run already there
    (``InvalidParameterError`` naming the fields that differ, or the config file that cannot be read)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "config.json"
    wanted = json.loads(json.dumps(config))
    if path.exists():
        with errors_as(InvalidParameterError):
            found = read_json(path, what="run config")
        if found != wanted:
            raise InvalidParameterError(f"{out} holds another {what} (it differs in "
                                        f"{differing_fields(found, wanted)}); use another --out")
    path.write_text(json.dumps(config))


def read_lines(path: Path, key: Callable[[dict[str, Any]], Hashable]) -> dict[Hashable, dict[str, Any]]:
    """The records of a JSON-lines file by ``key`` (a later line with the same key wins; a cut line is dropped),
    and the file rewritten with just them, so that appending goes on after whole lines. ``InputFileError`` for a
    file that cannot be read (``files.read_text``) or a whole line that is not one of its records."""
    done: dict[Hashable, dict[str, Any]] = {}
    if path.exists():
        for number, line in enumerate(read_text(path, RESULTS_LIMIT, "results file").splitlines(), start=1):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # a line cut short by a kill
                continue
            try:
                done[key(record)] = record
            except (KeyError, TypeError, IndexError):
                raise InputFileError(f"{path}:{number}", "not a record of this run") from None
    path.write_text("".join(json.dumps(r) + "\n" for r in done.values()))
    return done


def write_atomically(path: Path, write: Callable[[IO], None], mode: str = "wb") -> None:
    """Write ``path`` through ``write(file)`` into a temporary sibling, synced, then renamed over it: a kill leaves
    the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, mode) as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)

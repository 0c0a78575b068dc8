"""Reading a file a user named: a regular file under a size limit, checked before a byte is read.

Every loader of cardboard (card tables, decks, set-ups, decklists, checkpoints, results, self-play shards) reads
through here, so ``/dev/zero``, a FIFO, ``/dev/stdin``, a directory or a file of gigabytes is refused at once with
an ``InputFileError`` naming the file, never read until memory runs out or a writer appears. The file is opened
without blocking and checked on the open descriptor (``fstat``), so a path swapped between check and read is
caught too. Errors name the file (and, for JSON, the line and column), never echo its contents.

The limits are named here, one per kind of file, far above anything cardboard writes or bundles.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import CardboardError

MiB = 1 << 20
TEXT_LIMIT = 16 * MiB  # card tables, decks, set-ups, decklists, configs: the largest bundled one is under 1 MiB
RESULTS_LIMIT = 1024 * MiB  # a match's or experiment's JSONL results
CHECKPOINT_LIMIT = 2048 * MiB  # a network checkpoint (safetensors); the shipped models are a few MiB
SHARD_LIMIT = 1024 * MiB  # one self-play shard (.npz)


class InputFileError(CardboardError, ValueError):
    """A file that cannot be read as asked: missing, not a regular file (a device, FIFO, socket or folder), over
    its size limit, unreadable, not UTF-8 or not the JSON it should be. ``path`` names it; the message starts
    with it."""

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"{path}: {problem}")


def check_file(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "file") -> int:
    """The size of ``path`` after checking that it is a regular file of at most ``limit`` bytes (``what``: the
    kind of file, for the message); ``InputFileError`` otherwise. Reads nothing: for loaders that hand the path
    to a library (safetensors, numpy)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(path, f"no such {what}") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from None
    return _checked(path, info, limit, what)


def read_bytes(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "file") -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``InputFileError`` otherwise)."""
    check_file(path, limit, what)  # a friendly "no such file" before open's errno
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        size = _checked(path, os.fstat(fd), limit, what)
        data = handle.read(min(size, limit) + 1)
    if len(data) > limit:
        raise InputFileError(path, f"grew past the {_size(limit)} limit of a {what} while it was read")
    return data


def read_text(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (see ``read_bytes``)."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputFileError(f"{path}:{line}", f"not UTF-8 text (byte {exc.start})") from None


def read_json(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "JSON file") -> Any:
    """The JSON value in ``path`` (see ``read_bytes``); a syntax error names the line and column, not the text."""
    return parse_json(read_text(path, limit, what), path)


def parse_json(text: str, source: str | os.PathLike) -> Any:
    """``text`` (the contents of ``source``) as JSON; ``InputFileError`` at ``source:line`` otherwise."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{source}:{exc.lineno}", f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputFileError(source, "not valid JSON (nested too deeply)") from None


def resource_text(resource: Any) -> str:
    """The text of a bundled resource (``importlib.resources`` traversable) or of a file path."""
    return read_text(resource) if isinstance(resource, (str, Path)) else resource.read_text(encoding="utf-8")


def _checked(path: str | os.PathLike, info: os.stat_result, limit: int, what: str) -> int:
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(path, f"a folder, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(path, f"not a regular file (a device, FIFO or socket); a {what} must be one")
    if info.st_size > limit:
        raise InputFileError(path, f"{_size(info.st_size)}, over the {_size(limit)} limit of a {what}")
    return info.st_size


def _size(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n >= MiB else f"{n} bytes"

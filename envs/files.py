"""Reading a file a user named: a regular file under a size limit, checked before a byte is read.

Every loader of cardboard (card tables, decks, set-ups, decklists, checkpoints, results, self-play shards) reads
through here, so ``/dev/zero``, a FIFO, ``/dev/stdin``, a directory or a file of gigabytes is refused at once with
an ``InputFileError`` naming the file, never read until memory runs out or a writer appears. The file is opened
without blocking and checked on the open descriptor (``fstat``), so a path swapped between check and read is
caught too; what is read is the file as that check saw it (at most its size then). Errors name the file (and, for
JSON, the line and column), never echo its contents: a hint that needs a value read from a file (an unknown card
name with a did-you-mean) shows at most ``quoted``'s glimpse of it. A loader whose callers catch its own error
class (``CardDataError``, ``CheckpointError``...) reads inside ``errors_as(ThatError)``.

The limits are named here, one per kind of file, far above anything cardboard writes or bundles.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from .errors import InputFileError

MiB = 1 << 20
TEXT_LIMIT = 16 * MiB  # card tables, decks, set-ups, decklists, configs: the largest bundled one is under 1 MiB
RESULTS_LIMIT = 1024 * MiB  # a match's or experiment's JSONL results
CHECKPOINT_LIMIT = 2048 * MiB  # a network checkpoint (safetensors); the shipped models are a few MiB
SHARD_LIMIT = 1024 * MiB  # one self-play shard (.npz)
QUOTE_LIMIT = 40  # characters of a value read from a file that an error message may show
_CHUNK = MiB


def check_file(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "file") -> int:
    """The size of ``path`` after checking that it is a regular file of at most ``limit`` bytes (``what``: the
    kind of file, for the message); ``InputFileError`` otherwise. Reads nothing: for loaders that hand the path
    to a library (safetensors, numpy)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from None
    except ValueError:  # a NUL byte in the path
        raise InputFileError(path, f"not a valid path of a {what}") from None
    return _checked(path, info, limit, what)


def read_bytes(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str = "file") -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``InputFileError`` otherwise)."""
    with _opened(path, limit, what) as (handle, size):
        return _read(path, handle, size)


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
    except ValueError:  # an integer of more digits than Python converts
        raise InputFileError(source, "not valid JSON (a number too long)") from None


def sha256(path: str | os.PathLike, limit: int = CHECKPOINT_LIMIT, what: str = "file") -> str:
    """The SHA-256 hex digest of ``path``, checked as ``read_bytes`` checks it and hashed in chunks (a large file
    is never held whole)."""
    digest = hashlib.sha256()
    with _opened(path, limit, what) as (handle, size):
        while size > 0:
            chunk = _read(path, handle, min(size, _CHUNK))
            if not chunk:
                break
            digest.update(chunk)
            size -= len(chunk)
    return digest.hexdigest()


def resource_text(resource: Any) -> str:
    """The text of a bundled resource (``importlib.resources`` traversable) or of a file path."""
    return read_text(resource) if isinstance(resource, (str, Path)) else resource.read_text(encoding="utf-8")


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """How an error message shows a value read from a file, a glimpse and never a dump: a string, number, bool or
    null as its ``repr`` cut to ``limit`` characters ("..." marks a cut), an array or object by its kind only."""
    if isinstance(value, (list, tuple, dict)):
        return "an object" if isinstance(value, dict) else "an array"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def unknown_fields(found: Iterable[str], known: Iterable[str]) -> str:
    """The problem of an object read from a file with keys outside ``known``, '' when it has none: how many and
    the known ones, never the unknown names (they may be anything the file holds)."""
    known = set(known)
    unknown = sum(key not in known for key in found)
    return f"{unknown} unknown field(s); the fields are {', '.join(sorted(known))}" if unknown else ""


def differing_fields(found: object, wanted: Mapping[str, Any]) -> str:
    """The fields of the config ``wanted`` whose values the config ``found`` (read from a file) does not share,
    for a message that says how two configs differ without showing the file's values."""
    if not isinstance(found, dict):
        return "everything"
    return ", ".join(key for key in wanted if found.get(key) != wanted[key]) or "fields of its own"


@contextmanager
def errors_as(kind: Callable[[str], Exception]) -> Iterator[None]:
    """Within it an ``InputFileError`` is raised again as ``kind(its message)``: a loader's own error class, the
    one its callers catch."""
    try:
        yield
    except InputFileError as exc:
        raise kind(str(exc)) from None


@contextmanager
def _opened(path: str | os.PathLike, limit: int, what: str) -> Iterator[tuple[BinaryIO, int]]:
    """``path`` open for reading, without blocking, and its size, checked on the descriptor."""
    check_file(path, limit, what)  # a friendly "no such file" before open's errno
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        yield handle, _checked(path, os.fstat(fd), limit, what)


def _read(path: str | os.PathLike, handle: BinaryIO, size: int) -> bytes:
    try:
        return handle.read(size)
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from None


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

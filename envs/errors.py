"""Typed errors shared by every game, agent and tool in cardboard.

Each error names what was wrong and, where there is a closed set of valid
choices, lists them. A state that raises one of these is left unchanged.
"""
from __future__ import annotations

import difflib
import os
from collections.abc import Iterable


class CardboardError(Exception):
    """Base class of every error cardboard raises on purpose."""


class IllegalActionError(CardboardError, ValueError):
    """An action that is not legal in the current state (the state is unchanged)."""


class ProtocolError(CardboardError, RuntimeError):
    """A forward-model call made at the wrong kind of node (e.g. chance outcomes at a player node)."""


class StaleTreeError(CardboardError, RuntimeError):
    """A search tree read through a ``Node`` after its engine emptied the tree for a later search."""


class CardDataError(CardboardError, ValueError):
    """A malformed card or army data file."""


class UnknownNameError(CardboardError, ValueError):
    """An unknown game, agent, option or similar name; the message lists the known ones and ends with the
    closest of them (``close``, by ``difflib``), if any."""

    def __init__(self, kind: str, name: object, known: Iterable[str]):
        self.kind, self.name, self.known = kind, name, sorted(known)
        self.close = difflib.get_close_matches(str(name), self.known, n=1)
        hint = f"; did you mean {self.close[0]!r}?" if self.close else ""
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known) or '(none)'}{hint}")


class InvalidParameterError(CardboardError, ValueError):
    """A known option or parameter with a value it cannot take."""


class ResultsFileError(CardboardError, ValueError):
    """A results file (JSONL) that cannot be resumed: another run's config, or a corrupted line."""


class CheckpointError(CardboardError):
    """A model checkpoint that cannot be loaded: missing, not a zip, truncated, or not an algorithm it plays."""


class DataError(CardboardError, ValueError):
    """A training-data folder (self-play shards and their header) that cannot be read or resumed: a truncated or
    corrupt shard, another run's header, a game index twice. The message names the file."""


class DecklistError(CardDataError):
    """A decklist file (paper 000's deck prediction corpora, or a user's own lists) that cannot be read: a
    malformed line, a card not in the game, a deck breaking the game's deck rules. ``path`` and ``line`` (1-based;
    0: the file as a whole) name where; the message starts with ``path:line:``."""

    def __init__(self, path: str, line: int, problem: str):
        self.path, self.line, self.problem = path, line, problem
        super().__init__(f"{path}:{line}: {problem}")


class InputFileError(CardboardError, ValueError):
    """A file that cannot be read as asked: missing, not a regular file (a device, FIFO, socket or folder), over
    its size limit, unreadable, not UTF-8 or not the JSON it should be. ``path`` names it; the message starts
    with it."""

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"{path}: {problem}")

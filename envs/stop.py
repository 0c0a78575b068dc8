"""A cooperative stop for an agent's decision: its caller (the page of ``cardboard serve``, when the page closes)
sets an event, and the search loops raise ``Stopped`` at their next ``stop_point`` (where they check their time
budget), so the decision is abandoned within an iteration or a compiled slice.

The event belongs to the thread that decides (``stoppable``); a search that runs threads of its own carries it into
them (``current`` then ``stoppable`` there). Without an event every ``stop_point`` is a no-op. Searches in worker
processes (root parallelisation) are not reached: they end at their own budget.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCAL = threading.local()


class Stopped(Exception):
    """A decision abandoned because its caller asked it to stop (not an error of the game or the agent)."""


@contextmanager
def stoppable(event: threading.Event | None) -> Iterator[None]:
    """While the block runs, ``stop_point`` in this thread raises ``Stopped`` once ``event`` is set."""
    previous = getattr(_LOCAL, "event", None)
    _LOCAL.event = event
    try:
        yield
    finally:
        _LOCAL.event = previous


def current() -> threading.Event | None:
    """The event this thread's decision may be stopped by (None: none)."""
    return getattr(_LOCAL, "event", None)


def stop_point() -> None:
    """Raise ``Stopped`` when this thread's decision was asked to stop."""
    event = getattr(_LOCAL, "event", None)
    if event is not None and event.is_set():
        raise Stopped("the decision was stopped by its caller")

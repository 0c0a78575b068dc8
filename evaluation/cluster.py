"""A job's time on its backend (``jobs.backends``): on Ray, this process joins the cluster before the job builds
its agents, so agents with ``device=server`` reach their node's inference server from this process too; the
inference servers started during the job (``policies.inference_server``) are stopped when it ends; and an
exception (Ctrl-C) shuts down the Ray this process joined before it goes on, so nothing of Ray's prints after the
job's last line ("interrupted: ..."). Nested jobs (a tournament's matches, inside the command) are part of the
outermost one: its servers live until it ends. Servers are shared by node, not owned by a job: one started by
another job on the same cluster meanwhile is stopped too."""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..jobs.backends import Backend, join

_OPEN: list[Backend] = []  # the outermost job on Ray in this process, while it runs
Job = TypeVar("Job", bound=Callable[..., Any])


@contextmanager
def on_backend(backend: Backend | None) -> Iterator[None]:
    """Run the block as a job on ``backend`` (see the module); nothing to do for a local one (or None)."""
    if backend is None or backend.name != "ray" or _OPEN:
        yield
        return
    from ..jobs.ray_backend import leave
    from ..policies.inference_server import server_names, stop_servers

    join(backend)
    before = server_names()
    _OPEN.append(backend)
    ended = False
    try:
        yield
        ended = True
    finally:
        _OPEN.clear()
        stop_servers(server_names() - before)
        if not ended:
            leave()


def job_on_backend(job: Job) -> Job:
    """``job`` (a function with a keyword argument ``backend``) run ``on_backend(backend)``."""
    @functools.wraps(job)
    def wrapped(*args: Any, backend: Backend | None = None, **kwargs: Any) -> Any:
        with on_backend(backend):
            return job(*args, backend=backend, **kwargs)

    return wrapped  # type: ignore[return-value]

"""Process pools whose workers die with the process that made them.

A ``ProcessPoolExecutor``'s workers outlive a parent killed by a signal (``kill``, ``kill -9``, a job scheduler's
stop): each finishes its task, then idles forever holding its memory. Long jobs (matches, self-play,
experiments) are meant to be killed and resumed, so their pools come from here: every worker runs a daemon
thread that waits on the parent's sentinel and exits the moment the parent is gone. Their initializers cap
torch's threads with ``limit_torch_threads`` (workers that run networks would otherwise each use every core).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any, Callable

ORPHAN_EXIT_CODE = 70  # what a worker exits with when its parent is gone (EX_SOFTWARE)


def process_pool(workers: int, *, context: BaseContext | None = None, initializer: Callable[..., Any] | None = None,
                 initargs: tuple = ()) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` of ``workers`` processes (``context``: a start method's context, the default's
    otherwise) that each run ``initializer(*initargs)`` and exit when this process dies."""
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                               initargs=(initializer, initargs))


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), name="cardboard-exit-with-parent",
                         daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(ORPHAN_EXIT_CODE)


def limit_torch_threads(threads: int) -> None:
    """``torch.set_num_threads(threads)`` when this process has imported torch (a worker whose agents run a
    network): W workers with torch's default of one thread per core would each use every core. Imports nothing:
    a process without a network never loads torch."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)

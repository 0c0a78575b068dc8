"""Where a long job's tasks run: this process, a local process pool (the default) or a Ray cluster.

A job is a list of items (game indices, set-ups, ...) and a task that is a pure function of its item: the same item
gives the same result wherever and however often it runs, so a retried task changes nothing. ``setup(*args)`` runs
once per worker (it builds the game and the agents, loading a network's weights once, not once per game) and its
value is handed to every ``task(context, item)`` on that worker. ``run_tasks`` calls ``on_result`` in this process
for each result as it arrives (in completion order), which is where a job appends its resumable results file and
advances its progress bar: the results are written by this process only, so a task that ran twice is written once.

``Backend("local", workers=W)``: W > 1 worker processes (``spawn``; they die with this process:
``worker_pool``), kept for this process's later jobs (each worker sets a job up at its first task of it); one
killed breaks the pool, whose unfinished tasks then run again in a new one. W = 1: in this process.
``Backend("ray", workers=W, address=A)``: W Ray actors of one CPU each, on the cluster at ``A`` (``"auto"``,
``"HOST:6379"``, ``"ray://HOST:10001"``; without one, ``RAY_ADDRESS``'s, as ``ray job submit`` sets it) or,
without either, on a Ray instance started on this machine (or the one this process already joined). Ray is
imported only by the ray backend (``pip install 'cardboard[ray]'``). The tasks wait in one queue of this process
and each Ray worker, once started, takes the next: a worker that dies (a SIGKILL, a lost node) gives its task back
to the queue, and workers that never get a CPU hold none, so neither stalls a job (``ray_backend``); a worker
whose ``setup`` raises ends the job with that error (``WorkerSetupError``), never a hang. ``join`` joins the
cluster ahead of a job (before it builds agents that reach the cluster: ``device=server``): a malformed address
is refused (``InvalidParameterError``), one where no cluster answers is a ``ClusterError`` within seconds.

On any exception in this process (Ctrl-C included) the tasks in flight are dropped and the workers stopped at
once, then the exception goes on: everything ``on_result`` had received is kept by the job.
"""
from __future__ import annotations

import argparse
import multiprocessing
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..envs.errors import CardboardError, InvalidParameterError
from .worker_pool import process_pool

BACKENDS = ("local", "ray")
POOL_RESTARTS = 3  # a local pool broken by a dead worker is started again this often before the job fails
STOP_WAIT_S = 10  # how long a stopped pool's manager thread is given to end (it joins the terminated workers)
_CONTEXT: dict[str, Any] = {}  # a local worker process's job key and setup value
_POOLS: dict[int, ProcessPoolExecutor] = {}  # worker count -> the local pool this process reuses


class WorkerSetupError(CardboardError):
    """A worker could not start: its ``setup`` raised (the message names the error)."""


class ClusterError(CardboardError):
    """The Ray cluster cannot be joined: Ray is missing, or nothing answers at the address (which it names)."""


@dataclass(frozen=True)
class Backend:
    """Where tasks run (see the module docstring)."""

    name: str = "local"
    workers: int = 1
    address: str | None = None

    def __post_init__(self) -> None:
        if self.name not in BACKENDS:
            raise InvalidParameterError(f"unknown backend {self.name!r}; known: {', '.join(BACKENDS)}")
        if self.workers < 1:
            raise InvalidParameterError(f"workers must be >= 1, got {self.workers}")
        if self.address is not None and self.name != "ray":
            raise InvalidParameterError(f"--address {self.address!r} needs --backend ray")
        if self.address is not None:
            cluster_address(self.address, "--address")

    @property
    def parallel(self) -> bool:
        """Whether tasks leave this process (a pool of more than one, or Ray)."""
        return self.name == "ray" or self.workers > 1

    def elsewhere(self, tasks: int) -> bool:
        """Whether a job of ``tasks`` tasks runs them outside this process: on Ray always (the cluster was asked
        for, one task too); on a local pool only more than one (a single one plays here, where the job's agents
        are built already)."""
        return self.name == "ray" or (self.workers > 1 and tasks > 1)


def cluster_address(address: str, source: str) -> tuple[str, int] | None:
    """The (host, port) of a Ray ``address`` (``source``, as the error names it: ``--address``, ``RAY_ADDRESS``):
    None for ``"auto"`` (Ray looks the cluster up itself); else ``HOST:PORT`` or ``ray://HOST:PORT``."""
    if address == "auto":
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # an IPv6 host: [::1]:6379
    if not (colon and host and port.isdigit() and 0 < int(port) < 65536):
        raise InvalidParameterError(f"{source} {address!r}: expected 'auto', HOST:PORT or ray://HOST:PORT")
    return host, int(port)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--address`` (a job's ``--workers`` is its own)."""
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="where games run: local worker processes (default) or Ray (pip install 'cardboard[ray]')")
    parser.add_argument("--address", metavar="ADDRESS",
                        help="with --backend ray: an existing cluster ('auto', HOST:6379 or 'ray://HOST:10001'); "
                             "default: $RAY_ADDRESS when set, else a Ray instance on this machine")


def backend_from(args: argparse.Namespace) -> Backend:
    """The backend of parsed ``add_backend_arguments`` and ``--workers``."""
    return Backend(getattr(args, "backend", "local"), getattr(args, "workers", 1), getattr(args, "address", None))


def join(backend: Backend) -> None:
    """On Ray: join ``backend``'s cluster now (``ray_backend.connect``), before a job builds agents that reach it;
    nothing locally."""
    if backend.name == "ray":
        from .ray_backend import connect  # Ray only when asked for

        connect(backend)


def run_tasks(backend: Backend, items: Sequence[Any], task: Callable[[Any, Any], Any],
              on_result: Callable[[Any], None], *, setup: Callable[..., Any], setup_args: tuple = (),
              torch_threads: int = 1, files: Sequence[str] = ()) -> Counter:
    """Run ``task(setup(*setup_args), item)`` for every item on ``backend``; ``on_result(result)`` here for each
    as it arrives. ``task`` and ``setup`` are module-level functions (they travel by reference); ``torch_threads``
    caps torch in each worker whose setup loaded it; ``files``: the files ``setup_args`` name that setup reads
    (checkpoints), shipped to Ray workers through the object store (``ray_backend``). Returns how many tasks ran
    where: Ray's node ids, else ``"local"``."""
    items = list(items)
    if not items:
        return Counter()
    if not backend.parallel:
        context = setup(*setup_args)
        for item in items:
            on_result(task(context, item))
    elif backend.name == "local":
        _run_local(backend.workers, items, task, on_result, setup, setup_args, torch_threads)
    else:
        from .ray_backend import run_ray  # Ray only when asked for

        return run_ray(backend, items, task, on_result, setup, setup_args, torch_threads, files)
    return Counter({"local": len(items)})


@dataclass(frozen=True)
class Job:
    """What a local worker needs to run one job's tasks (sent with each task; ``key`` tells jobs apart)."""

    key: str
    setup: Callable[..., Any]
    setup_args: tuple
    task: Callable[[Any, Any], Any]
    torch_threads: int


def _start_local() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers


def _context(job: Job) -> Any:
    """This worker's setup value for ``job``: made at its first task (the previous job's dropped first)."""
    from .worker_pool import limit_torch_threads

    if _CONTEXT.get("job") != job.key:
        _CONTEXT.clear()
        _CONTEXT["value"] = job.setup(*job.setup_args)
        limit_torch_threads(job.torch_threads)
        _CONTEXT["job"] = job.key
    return _CONTEXT["value"]


def _local_task(job: Job, item: Any) -> Any:
    return job.task(_context(job), item)


def _pool(workers: int) -> ProcessPoolExecutor:
    """The pool of ``workers`` processes this process keeps for its jobs: started once, so a tournament's matches
    or expert iteration's generations do not each pay for new processes."""
    if workers not in _POOLS:
        _POOLS[workers] = process_pool(workers, context=multiprocessing.get_context("spawn"),
                                       initializer=_start_local)
    return _POOLS[workers]


def _run_local(workers: int, items: list, task: Callable, on_result: Callable, setup: Callable, setup_args: tuple,
               torch_threads: int) -> None:
    """The pool's loop: results as they come; a worker that dies (a SIGKILL: the pool breaks) costs only the tasks
    then in flight, which a new pool runs again, ``POOL_RESTARTS`` times at most."""
    job = Job(uuid.uuid4().hex, setup, setup_args, task, torch_threads)
    left = list(items)
    for attempt in range(POOL_RESTARTS + 1):
        pool = _pool(workers)
        try:
            pending = {pool.submit(_local_task, job, item): item for item in left}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    pending.pop(future)
                    on_result(result)
        except BrokenProcessPool:
            _stop(workers)
            if attempt == POOL_RESTARTS:
                raise
            left = list(pending.values())  # those that had not come back: played again from their items
            continue
        except BaseException:  # Ctrl-C or a failed task: drop the tasks in flight, keep what arrived
            _stop(workers)
            raise
        return


def _stop(workers: int) -> None:
    """Drop the pool's queued tasks and end its workers now (the next job starts a new pool)."""
    pool = _POOLS.pop(workers)
    running = list((pool._processes or {}).values())  # no public handle before Python 3.14
    manager = pool._executor_manager_thread
    pool.shutdown(wait=False, cancel_futures=True)
    for process in running:
        process.terminate()
    if manager is not None:  # it closes its wake-up pipe as it ends: racing Python's exit hook, which writes to it
        manager.join(timeout=STOP_WAIT_S)

"""``run_tasks`` on Ray (``backends``; imported only when a job asks for ``--backend ray``).

**Tasks belong to the job, not to a worker.** The items wait in one queue in this process. Each worker is an actor
of one CPU that sets up in its first call (``start``: so a failing ``setup`` reaches the driver as that call's
error, ``WorkerSetupError``, and ends the job) and, once started, is handed the next item each time it returns a
result: one task in flight per started worker, all awaited with one ``ray.wait``. A worker that never gets a CPU
(more workers than the cluster has free) holds no item; one whose process dies (a SIGKILL, a lost node) gives its
item back to the queue and is replaced; once the queue is empty, every worker with nothing to play is killed,
freeing its CPU (for a replacement, should one be needed). So neither a lost node nor too many workers stalls a
job, and since a task is a pure function of its item, an item played again gives the same result. An item whose
worker dies ``LOSSES`` times ends the job (``WorkerLostError``). A wait of ``STALL_S`` without a result prints a
line on stderr saying what it waits for.

**Joining** (``connect``): the cluster at ``--address``, else at ``RAY_ADDRESS`` (Ray's own variable, which
``ray job submit`` sets for its driver), else a Ray instance started on this machine with ``workers`` CPUs. A
``HOST:PORT`` where nothing answers within ``CONNECT_S`` is a ``ClusterError`` before Ray is asked (Ray itself
would wait minutes); one that answers but is no Ray cluster is Ray's failure to join after ``CONNECT_S`` seconds
(unless ``RAY_gcs_server_port_wait_time_s`` says otherwise), also a one-line ``ClusterError``.

**Files** (``run_tasks(files=...)``: checkpoints the agents load): each goes into the object store once per job, as
bytes; an actor writes it to a node-local cache (``cardboard-files/<sha256>/<name>`` in the temp folder, once per
node and content) and every string of ``setup_args`` naming the file's path is rewritten to that copy before
``setup`` runs. So a worker on a machine without the driver's files loads them all the same, once, and a new
generation's weights (another content) replace the old in the next job.
"""
from __future__ import annotations

import hashlib
import os
import socket
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..envs.errors import CardboardError
from ..envs.files import CHECKPOINT_LIMIT, read_bytes
from .backends import Backend, ClusterError, WorkerSetupError, cluster_address

CONNECT_S = 5.0  # seconds a cluster's address is given to answer, and then its GCS (unless GCS_WAIT is set)
GCS_WAIT = "RAY_gcs_server_port_wait_time_s"  # Ray's variable: how many seconds joining tries the GCS
STALL_S = 60.0  # a wait this long without a result prints a line saying so
LOSSES = 3  # an item whose worker dies this often ends the job
_JOINED: list[str] = []  # the Ray job id of the session ``connect`` joined (or started) in this process


class WorkerLostError(CardboardError):
    """The same task's Ray worker died ``LOSSES`` times (the message names the item)."""


class _SetupFailed(Exception):
    """Raised inside an actor when ``setup`` fails: the driver turns it into ``WorkerSetupError``."""


class Worker:
    """A Ray actor running ``task(setup(*setup_args), item)``; ``setup`` in its first call, ``start``."""

    def __init__(self, setup: Callable[..., Any], setup_args: tuple, task: Callable[[Any, Any], Any],
                 torch_threads: int) -> None:
        self.setup, self.setup_args, self.task, self.torch_threads = setup, setup_args, task, torch_threads
        self.context: Any = None

    def start(self, files: dict[str, tuple[str, Any]]) -> None:
        """Set up: ``files`` (driver path -> (content hash, object ref of its bytes)) copied to this node, the
        setup arguments naming them rewritten to the copies."""
        from .worker_pool import limit_torch_threads

        try:
            local = {path: _cached(path, digest, ref) for path, (digest, ref) in files.items()}
            self.context = self.setup(*_renamed(self.setup_args, local))
        except Exception as exc:
            raise _SetupFailed(f"{type(exc).__name__}: {exc}") from exc
        limit_torch_threads(self.torch_threads)

    def run(self, item: Any) -> tuple[str, Any]:
        """(this node's id, the task's result)."""
        import ray

        return ray.get_runtime_context().get_node_id(), self.task(self.context, item)


def _cached(path: str, digest: str, ref: Any) -> str:
    """This node's copy of the file ``path`` (sha256 ``digest``; its bytes the object ``ref``), fetched and
    written once per node."""
    import ray

    target = Path(tempfile.gettempdir()) / "cardboard-files" / digest / Path(path).name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = target.with_name(f".{target.name}.{os.getpid()}")
        staged.write_bytes(ray.get(ref))
        os.replace(staged, target)
    return str(target)


def _renamed(value: Any, local: dict[str, str]) -> Any:
    """``value`` with every driver path of ``local`` inside its strings (through tuples, lists and dicts) replaced
    by this node's copy."""
    if isinstance(value, str):
        for path in sorted(local, key=len, reverse=True):
            value = value.replace(path, local[path])
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_renamed(v, local) for v in value)
    if isinstance(value, dict):
        return {k: _renamed(v, local) for k, v in value.items()}
    return value


def shipped(files: Sequence[str]) -> dict[str, tuple[str, Any]]:
    """Each file's bytes put into the object store once: driver path -> (sha256, object ref)."""
    import ray

    out = {}
    for path in dict.fromkeys(str(f) for f in files):
        data = read_bytes(path, CHECKPOINT_LIMIT, "file shipped to the workers")
        out[path] = (hashlib.sha256(data).hexdigest(), ray.put(data))
    return out


def connect(backend: Backend) -> None:
    """Join the cluster at ``backend.address`` (else ``RAY_ADDRESS``), or start Ray on this machine with
    ``workers`` CPUs; nothing when this process already joined one (it stays joined for the next job)."""
    try:
        import ray
    except ImportError:
        raise ClusterError("--backend ray needs Ray: pip install 'cardboard[ray]'") from None
    if ray.is_initialized():
        return
    address, source = backend.address, "--address"
    if address is None and os.environ.get("RAY_ADDRESS"):
        address, source = os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
    where = cluster_address(address, source) if address is not None else None
    if where is not None:
        try:
            socket.create_connection(where, timeout=CONNECT_S).close()
        except OSError as exc:
            why = exc.strerror or f"no answer within {CONNECT_S:g} s"
            raise ClusterError(f"{source} {address!r}: no Ray cluster answers there ({why})") from None
    options: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    wait = os.environ.get(GCS_WAIT)
    os.environ[GCS_WAIT] = wait or f"{CONNECT_S:.0f}"  # Ray's own default: 20 tries, a second each
    try:
        if address is None:
            ray.init(num_cpus=backend.workers, **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        raise ClusterError(f"{source} {address!r}: cannot join: {lines[0]}" if address else
                           f"cannot start Ray: {lines[0]}") from None
    finally:
        if wait is None:
            del os.environ[GCS_WAIT]
    _JOINED[:] = [ray.get_runtime_context().get_job_id()]


def leave() -> None:
    """Shut down this process's Ray if ``connect`` joined or started it (a job's exception, Ctrl-C: so that nothing
    of Ray's prints after the job's last line); a Ray its user joined is left alone."""
    import ray

    if ray.is_initialized() and _JOINED == [ray.get_runtime_context().get_job_id()]:
        _JOINED.clear()
        ray.shutdown()


def run_ray(backend: Backend, items: list, task: Callable, on_result: Callable, setup: Callable, setup_args: tuple,
            torch_threads: int, files: Sequence[str] = ()) -> Counter:
    """``run_tasks`` on Ray (see the module); returns how many tasks each node ran."""
    import ray

    connect(backend)
    actor = ray.remote(num_cpus=1, max_restarts=0)(Worker)  # a dead one is replaced by the loop, never restarted
    sent = shipped(files)
    queue = list(reversed(range(len(items))))  # item positions, popped from the end: in order
    calls: dict[Any, tuple[Any, int | None]] = {}  # object ref -> (worker, its item's position; None: ``start``)
    hired: list = []
    losses: Counter = Counter()
    nodes: Counter = Counter()

    def hire() -> None:
        hired.append(actor.remote(setup, setup_args, task, torch_threads))
        calls[hired[-1].start.remote(sent)] = (hired[-1], None)

    for _ in range(min(backend.workers, len(items))):
        hire()
    try:
        while calls:
            done, _ = ray.wait(list(calls), num_returns=1, timeout=STALL_S)
            if not done:
                _report_stall(ray, calls, len(queue), len(items))
                continue
            worker, position = calls.pop(done[0])
            try:
                value = _value(ray, done[0])
            except _Lost:
                ray.kill(worker, no_restart=True)
                if position is not None:
                    losses[position] += 1
                    if losses[position] == LOSSES:
                        raise WorkerLostError(f"task {items[position]!r}: its Ray worker died {LOSSES} "
                                              "times") from None
                    queue.append(position)
                if queue:
                    hire()
                continue
            if position is not None:
                nodes[value[0]] += 1
                on_result(value[1])
            if queue:
                position = queue.pop()
                calls[worker.run.remote(items[position])] = (worker, position)
            else:  # nothing left to hand out: this worker and those still starting are let go
                ray.kill(worker, no_restart=True)
                for ref in [ref for ref, (_, held) in calls.items() if held is None]:
                    ray.kill(calls.pop(ref)[0], no_restart=True)
    finally:
        for worker in hired:  # done or interrupted: free the CPUs at once (tasks in flight are dropped)
            ray.kill(worker, no_restart=True)
    return nodes


class _Lost(Exception):
    """A call's worker died (its process killed, its node lost): its item goes back to the queue."""


def _value(ray: Any, ref: Any) -> Any:
    """``ray.get(ref)``; ``_Lost`` when its worker died; a task's own exception raised as itself, a failed
    ``setup`` as ``WorkerSetupError``."""
    from ray.exceptions import RayActorError, RayTaskError

    try:
        return ray.get(ref)
    except RayActorError:
        raise _Lost from None
    except RayTaskError as exc:
        cause = exc.cause if isinstance(exc.cause, BaseException) else exc
        if isinstance(cause, _SetupFailed):
            raise WorkerSetupError(f"a Ray worker could not set up: {cause}") from None
        raise cause from None


def _report_stall(ray: Any, calls: dict, queued: int, total: int) -> None:
    """The line printed after ``STALL_S`` without a result: what the job waits for, and the cluster's free CPUs."""
    running = sum(position is not None for _, position in calls.values())
    done = total - queued - running
    free, cpus = ray.available_resources().get("CPU", 0.0), ray.cluster_resources().get("CPU", 0.0)
    print(f"Ray: no task finished in {STALL_S:g} s; {done} of {total} done, {running} running, "
          f"{len(calls) - running} workers waiting to start; cluster CPUs free: {free:g} of {cpus:g}",
          file=sys.stderr, flush=True)

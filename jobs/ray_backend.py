"""``run_tasks`` on Ray (``backends``; imported only when a job asks for ``--backend ray``).

Each worker is an actor of one CPU, restarted when its process dies (``max_restarts=-1``), whose method calls are
retried on the restarted actor (``max_task_retries=-1``): a SIGKILLed worker's task runs again, and since a task is
a pure function of its item the result is the same. An exception raised by a task or by ``setup`` is not retried:
it ends the job (``setup``'s as ``WorkerSetupError``). ``setup`` runs in the actor's first call, not its
constructor, so a failing one reaches the driver as that call's error, and a restarted actor sets up again.
One task is in flight per actor; the driver waits with ``ray.wait`` over all of them.

**Files** (``run_tasks(files=...)``: checkpoints the agents load): each goes into the object store once per job, as
bytes; an actor writes it to a node-local cache (``cardboard-files/<sha256>/<name>`` in the temp folder, once per
node and content) and every string of ``setup_args`` naming the file's path is rewritten to that copy before
``setup`` runs. So a worker on a machine without the driver's files loads them all the same, once, and a new
generation's weights (another content) replace the old in the next job.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .backends import Backend, WorkerSetupError


class _SetupFailed(Exception):
    """Raised inside an actor when ``setup`` fails: the driver turns it into ``WorkerSetupError``."""


class Worker:
    """A Ray actor running ``task(setup(*setup_args), item)``; ``setup`` once per process."""

    def __init__(self, setup: Callable[..., Any], setup_args: tuple, task: Callable[[Any, Any], Any],
                 torch_threads: int) -> None:
        self.setup, self.setup_args, self.task, self.torch_threads = setup, setup_args, task, torch_threads
        self.context: Any = None
        self.ready = False

    def run(self, item: Any, files: dict[str, tuple[str, Any]]) -> tuple[str, Any]:
        """(this node's id, the task's result). ``files``: driver path -> (content hash, object ref of its bytes),
        read at set-up (handed to each call, not to the constructor: a restarted actor's constructor arguments
        are not kept in the object store)."""
        import ray

        from .worker_pool import limit_torch_threads

        if not self.ready:
            try:
                local = {path: _cached(path, digest, ref) for path, (digest, ref) in files.items()}
                self.context = self.setup(*_renamed(self.setup_args, local))
            except Exception as exc:
                raise _SetupFailed(f"{type(exc).__name__}: {exc}") from exc
            limit_torch_threads(self.torch_threads)
            self.ready = True
        return ray.get_runtime_context().get_node_id(), self.task(self.context, item)

    def pid(self) -> int:
        return os.getpid()


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
        data = Path(path).read_bytes()
        out[path] = (hashlib.sha256(data).hexdigest(), ray.put(data))
    return out


def connect(backend: Backend) -> None:
    """Join ``backend.address``'s cluster, or start Ray on this machine with ``workers`` CPUs; nothing when this
    process already joined one (it stays joined for the next job)."""
    import ray

    if ray.is_initialized():
        return
    options: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    if backend.address is None:
        ray.init(num_cpus=backend.workers, **options)
    else:
        ray.init(address=backend.address, **options)


def run_ray(backend: Backend, items: list, task: Callable, on_result: Callable, setup: Callable, setup_args: tuple,
            torch_threads: int, files: Sequence[str] = ()) -> Counter:
    """``run_tasks`` on Ray; returns how many tasks each node ran."""
    import ray
    from ray.exceptions import RayTaskError

    connect(backend)
    actor = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=-1)(Worker)
    sent = shipped(files)
    workers = [actor.remote(setup, setup_args, task, torch_threads) for _ in range(min(backend.workers, len(items)))]
    queue = list(reversed(items))
    in_flight: dict[Any, Any] = {}
    nodes: Counter = Counter()
    try:
        for worker in workers:
            if queue:
                in_flight[worker.run.remote(queue.pop(), sent)] = worker
        while in_flight:
            done, _ = ray.wait(list(in_flight), num_returns=1)
            worker = in_flight.pop(done[0])
            try:
                node, result = ray.get(done[0])
            except RayTaskError as exc:
                cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                if isinstance(cause, _SetupFailed):
                    raise WorkerSetupError(f"a Ray worker could not set up: {cause}") from None
                raise cause from None
            nodes[node] += 1
            on_result(result)
            if queue:
                in_flight[worker.run.remote(queue.pop(), sent)] = worker
    finally:
        for worker in workers:  # done or interrupted: free the CPUs at once (tasks in flight are dropped)
            ray.kill(worker, no_restart=True)
    return nodes

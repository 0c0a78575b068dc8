"""One inference server per machine (issue 35): a Ray actor that owns the machine's ``BatchedEvaluator`` (the GPU
when it has one) and answers the leaf evaluations of every worker on that machine, batched across workers.

A worker asks for it with ``device=server`` on a network agent (``ismcts:net=zoo:lords_of_war,device=server``,
``net:model=...,device=server``): ``net_agent.load_evaluator`` then returns a ``RemoteEvaluator``, which has the
``BatchedEvaluator`` calls search uses (``evaluate``; ``enqueue`` / ``flush`` / ``result``) and sends each batch
(one search's K leaves, or the leaves of a worker's lock-step games) to the server of its own node in one actor
call. The worker loads no network and needs no torch threads. The server is the named actor
``cardboard-inference-<node id>`` in Ray namespace ``cardboard``, created by the first worker of a node that asks
(``get_if_exists``), pinned to that node, detached (a worker's death does not stop it; the end of the job that
started it does, ``evaluation.cluster``, as do ``stop_servers`` and the cluster's end), restarted if its process
dies (it reloads its networks from their files). It reserves no Ray CPU or GPU: it runs on ``device`` (default
``"cuda"`` when torch sees a GPU on that node, else ``"cpu"``).

Batching: each request waits until the queued rows reach ``batch`` or the oldest queued request has waited
``window`` seconds, then everything queued for one network runs as one forward pass, on one thread beside the
actor's event loop (requests keep arriving during a pass: they make the next batch). The answers are the
server's ``BatchedEvaluator.evaluate`` of that concatenated batch: bit for bit what a local evaluator gives for the
same batch; against a worker's own smaller batches, equal up to float32 rounding in the last bits (batch
composition changes the kernels' summation order). ``stats()`` reports the passes, their sizes and the requests.

Ray is imported only inside functions: importing cardboard never imports it. Without Ray installed, or from a
process that has not joined a Ray cluster, ``connect`` raises ``InferenceServerError``.
"""
from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..envs.errors import CardboardError, CheckpointError, InvalidParameterError
from ..envs.files import CHECKPOINT_LIMIT, errors_as, sha256
from ..envs.protocol import GameInfo
from . import zoo
from .tickets import TicketQueue

SERVER = "server"  # the agents' device knob value that selects this machine's server
NAMESPACE = "cardboard"
PREFIX = "cardboard-inference-"
BATCH = 256  # rows that start a pass at once
WINDOW = 0.002  # seconds the oldest queued request waits for others before its pass starts


class InferenceServerError(CardboardError):
    """The inference server cannot be reached: Ray is missing or not running, or the server's actor failed."""


class _ServerGone(InferenceServerError):
    """The server's actor is dead (stopped, or its node lost): ``RemoteEvaluator.evaluate`` asks for this node's."""


class _UnknownModel(Exception):
    """Raised by a restarted server for a model it has not loaded again yet: the client loads it and retries."""


def server_name(node_id: str) -> str:
    """The actor name of the server on node ``node_id``."""
    return PREFIX + node_id


class InferenceServer:
    """The Ray actor (see the module): networks by model key, each a ``BatchedEvaluator`` on ``device``
    (None: "cuda" when available, else "cpu"); ``threads`` caps torch's CPU threads (None: torch's default)."""

    def __init__(self, device: str | None = None, batch: int = BATCH, window: float = WINDOW,
                 threads: int | None = None):
        import torch

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.threads = threads
        self._configure(batch, window)
        self._models: dict[str, Any] = {}
        self._queued: dict[str, list[tuple[np.ndarray, np.ndarray, asyncio.Future, float]]] = {}
        self._arrived: asyncio.Event | None = None
        self._runner: asyncio.Task | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="cardboard-inference")
        self._sizes: Counter = Counter()
        self._requests = 0

    def _configure(self, batch: int, window: float) -> None:
        if not isinstance(batch, int) or batch < 1:
            raise InvalidParameterError(f"batch={batch!r}: expected a positive int")
        if not window >= 0:
            raise InvalidParameterError(f"window={window!r}: expected seconds >= 0")
        self.batch, self.window = batch, window

    async def configure(self, batch: int, window: float) -> None:
        """Set the rows that start a pass at once and the longest wait for them (from the next pass on)."""
        self._configure(batch, window)

    async def load(self, path: str, digest: str, info: GameInfo | None) -> tuple[str, GameInfo]:
        """Load the checkpoint at ``path`` (whose sha256 is ``digest``: the worker's view of the file; checked
        against ``info``) once; returns the model key that ``evaluate`` takes and the network's game info."""
        from .evaluator import BatchedEvaluator
        from .network import PolicyValueNet

        key = f"{'' if info is None else info.name}:{digest}"
        if key not in self._models:
            net = PolicyValueNet.load(path, info)
            self._models[key] = BatchedEvaluator(net, device=self.device, threads=self.threads)
        return key, self._models[key].info

    async def evaluate(self, key: str, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors, values)`` of one request's rows, answered in a pass shared with the other queued requests."""
        from .evaluator import _check_masks  # the server process has torch: it loaded the network

        evaluator = self._models.get(key)
        if evaluator is None:
            raise _UnknownModel(key)
        if observations.shape[1:] != evaluator.observation_shape or masks.shape != (len(observations),
                                                                                    evaluator.num_actions):
            raise InvalidParameterError(f"observations {observations.shape} and masks {masks.shape}: expected "
                                        f"(n, {', '.join(map(str, evaluator.observation_shape))}) and "
                                        f"(n, {evaluator.num_actions})")
        if not len(observations):
            raise InvalidParameterError("a request needs at least one row")
        _check_masks(masks)
        loop = asyncio.get_running_loop()
        if self._arrived is None:
            self._arrived = asyncio.Event()
        future = loop.create_future()
        self._queued.setdefault(key, []).append((observations, masks, future, time.monotonic()))
        self._requests += 1
        self._arrived.set()
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run())
        return await future

    async def _run(self) -> None:
        """Run passes while requests are queued: each after ``batch`` rows or the oldest one's ``window``."""
        loop = asyncio.get_running_loop()
        while self._queued:
            while self._rows() < self.batch:
                left = min(request[3] for queue in self._queued.values() for request in queue) + self.window \
                    - time.monotonic()
                if left <= 0:
                    break
                self._arrived.clear()
                try:
                    await asyncio.wait_for(self._arrived.wait(), left)
                except asyncio.TimeoutError:
                    break
            taken, self._queued = self._queued, {}
            for key, requests in taken.items():
                observations = np.concatenate([r[0] for r in requests])
                masks = np.concatenate([r[1] for r in requests])
                self._sizes[len(observations)] += 1
                try:
                    priors, values = await loop.run_in_executor(self._pool, self._models[key].evaluate,
                                                                observations, masks)
                except Exception as exc:  # the whole pass failed: every request in it hears why
                    for request in requests:
                        if not request[2].done():
                            request[2].set_exception(exc)
                    continue
                first = 0
                for request in requests:
                    last = first + len(request[0])
                    if not request[2].done():  # its caller may have gone
                        request[2].set_result((priors[first:last], values[first:last]))
                    first = last

    def _rows(self) -> int:
        return sum(len(request[0]) for queue in self._queued.values() for request in queue)

    async def stats(self) -> dict[str, Any]:
        """``device``, ``node``, ``requests`` answered or queued, ``passes``, ``states`` and ``sizes`` (rows per
        pass: count)."""
        import ray

        return dict(device=self.device, node=ray.get_runtime_context().get_node_id(), requests=self._requests,
                    passes=sum(self._sizes.values()), states=sum(n * c for n, c in self._sizes.items()),
                    sizes=dict(self._sizes))

    async def reset_stats(self) -> None:
        """Forget the counts of ``stats``."""
        self._sizes.clear()
        self._requests = 0


class RemoteEvaluator(TicketQueue):
    """A worker's handle on its node's server for one network: ``evaluate`` sends a batch in one actor call;
    ``submit`` / ``enqueue`` queue states here until ``flush`` sends them together in one (``TicketQueue``: the
    calls of ``BatchedEvaluator``, so search and ``net_agent`` use either)."""

    def __init__(self, server: Any, path: str, digest: str, info: GameInfo | None):
        super().__init__()
        self.path, self.digest, self.info = path, digest, info
        self._attach(server)

    def _attach(self, server: Any) -> None:
        """Load the network on ``server`` (a handle of this Ray session) and send it the next batches."""
        self.server, self.session = server, _ray().get_runtime_context().get_job_id()
        self._key, self.info = self._call(server.load, self.path, self.digest, self.info)

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors [B, num_actions], values [B, num_players])`` of observations [B, *observation_shape] and
        legal-action masks [B, num_actions], evaluated by the server. A server stopped since (its job ended), or
        one of an earlier Ray session, is replaced by this node's server now (started again if need be)."""
        observations = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.ascontiguousarray(masks, dtype=bool)
        if self.session != _ray().get_runtime_context().get_job_id():
            self._attach(node_server())
        try:
            priors, values = self._call(self.server.evaluate, self._key, observations, masks)
        except _UnknownModel:  # the server restarted: load the network again
            self._key, _ = self._call(self.server.load, self.path, self.digest, self.info)
            priors, values = self._call(self.server.evaluate, self._key, observations, masks)
        except _ServerGone:
            self._attach(node_server())
            priors, values = self._call(self.server.evaluate, self._key, observations, masks)
        return _writable(priors), _writable(values)

    def _call(self, method: Any, *args: Any) -> Any:
        """``method.remote(*args)``'s value; an error raised in the server is raised here as itself."""
        import ray
        from ray.exceptions import RayActorError, RayTaskError

        try:
            return ray.get(method.remote(*args))
        except RayTaskError as exc:
            cause = exc.cause if isinstance(exc.cause, BaseException) else None
            if cause is None:
                raise InferenceServerError(f"the inference server failed: {exc}") from None
            raise cause from None
        except RayActorError as exc:
            raise _ServerGone(f"the inference server is gone: {exc}") from None

    def _answer(self, requests: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        return self.evaluate(*self._stacked(requests))

    def stats(self) -> dict[str, Any]:
        """The server's ``stats()``."""
        return self._call(self.server.stats)


def _writable(array: np.ndarray) -> np.ndarray:
    """``array``, copied when Ray handed it over read-only (a large result read from its object store)."""
    return array if array.flags.writeable else array.copy()


def _ray() -> Any:
    """The ``ray`` module of a process that has joined a cluster, or ``InferenceServerError`` saying why not."""
    try:
        import ray
    except ImportError:
        raise InferenceServerError("device=server needs Ray: pip install 'cardboard[ray]'") from None
    if not ray.is_initialized():
        raise InferenceServerError("device=server needs a running Ray: this process has not joined a Ray cluster "
                                   "(run the job with --backend ray, or call ray.init() first)")
    return ray


def node_server(device: str | None = None, batch: int = BATCH, window: float = WINDOW,
                threads: int | None = None) -> Any:
    """The actor handle of this node's server, created (with these settings) if it does not exist yet."""
    ray = _ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    actor = ray.remote(InferenceServer).options(
        name=server_name(node), namespace=NAMESPACE, get_if_exists=True, lifetime="detached", num_cpus=0,
        max_restarts=-1, max_task_retries=-1, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
    return actor.remote(device, batch, window, threads)


def connect(path: str, info: GameInfo | None = None, **server_options: Any) -> RemoteEvaluator:
    """A ``RemoteEvaluator`` of the checkpoint at ``path`` (``zoo:NAME``: a shipped model; checked against
    ``info``) on this node's server (``node_server(**server_options)``)."""
    server = node_server(**server_options)
    path = zoo.resolve(path, None if info is None else info.name)
    with errors_as(CheckpointError):
        digest = sha256(path, CHECKPOINT_LIMIT, "checkpoint")
    return RemoteEvaluator(server, os.path.realpath(path), digest, info)


def server_names() -> set[str]:
    """The actor names of the servers running on the cluster (in namespace ``cardboard``)."""
    return {a["name"] for a in _ray().util.list_named_actors(all_namespaces=True)
            if a["namespace"] == NAMESPACE and a["name"].startswith(PREFIX)}


def stop_servers(names: Collection[str] | None = None) -> int:
    """Kill the servers ``names`` (default: every node's); returns how many that was."""
    ray = _ray()
    names = server_names() if names is None else names
    for name in names:
        ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
    return len(names)

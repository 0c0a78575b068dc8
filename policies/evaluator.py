"""Batched evaluation of a ``PolicyValueNet``: many states per forward pass (issue 17), with a staging API so
that a batch is written once, straight into the memory the network reads (issue 32).

Three ways in:

- ``evaluate(observations, masks)``: a whole batch at once, run in chunks of at most ``max_batch`` states;
- ``submit(observation, mask) -> ticket``, then ``flush()`` (all pending requests in one batch), then
  ``result(ticket)``: for callers that gather leaves from many searches or games before one network call;
- ``staging(slot)`` (two slots of ``max_batch`` rows, allocated once; pinned host memory on CUDA), filled in
  place by the caller, then ``launch(n, slot) -> Pending`` and ``Pending.wait()``: the network runs while the
  caller works (on CUDA asynchronously, on the CPU on a background thread: torch releases the GIL), so the
  caller fills one slot while the other's batch runs (double buffering).

Every path copies a state's observation and mask once, into a staging slot; on CUDA a batch's priors and values
come back in one device-to-host copy with one synchronisation (a CUDA event), and the pass itself is one replay of
a captured CUDA graph (``_CapturedPass``, one per power-of-two batch size). Priors are float32 and sum to 1
over the legal actions (exactly 0 elsewhere); values are float32, one per player, in [``min_return``,
``max_return``]. Bad devices, shapes, slots and tickets raise typed errors.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import torch

from ..envs.errors import InvalidParameterError, ProtocolError
from ..envs.protocol import GameInfo
from .network import PolicyValueNet, masked_policy
from .tickets import TicketQueue

SLOTS = 2


class Pending:
    """A launched batch of ``n`` states. ``wait()`` blocks until its answers are on the host and returns
    ``(priors [n, num_actions], values [n, num_players])``, float32 numpy views that stay valid until the same
    slot is launched again; the slot's staging arrays may be written again once ``wait`` has returned."""

    def __init__(self, evaluator: BatchedEvaluator, slot: int, n: int, answer: Callable[[], tuple]):
        self._evaluator, self.slot, self.n, self._answer = evaluator, slot, n, answer
        self._result: tuple[np.ndarray, np.ndarray] | None = None

    def wait(self) -> tuple[np.ndarray, np.ndarray]:
        if self._result is None:
            self._result = self._answer()
            self._answer = None
            if self._evaluator._in_flight[self.slot] is self:
                self._evaluator._in_flight[self.slot] = None
        return self._result


class _CapturedPass:
    """A forward pass on CUDA captured as a CUDA graph for ``rows`` states: static device inputs ``x`` (observations)
    and ``m`` (masks) and output ``out`` (priors then values), replayed with one launch. Eagerly, a pass is a dozen
    kernel launches, each a driver call that costs tens of µs where calls are slow (about 0.5 ms a pass measured on
    an H200 under a sandboxing kernel, whatever the batch). A batch of fewer states fills the first rows; the
    others keep earlier rows (each with a legal action, so no row turns to NaN) and are not read. The graph reads
    the network's parameters where they are, so training them in place needs no new capture."""

    def __init__(self, net: PolicyValueNet, rows: int, observation_shape: tuple, num_actions: int,
                 device: torch.device):
        self.x = torch.zeros((rows, *observation_shape), dtype=torch.float32, device=device)
        self.m = torch.ones((rows, num_actions), dtype=torch.bool, device=device)
        self.net = net
        side = torch.cuda.Stream(device)  # warm-up runs on a side stream before a capture (torch's rule)
        side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(2):
                self._pass()
        torch.cuda.current_stream(device).wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.out = self._pass()

    def _pass(self) -> torch.Tensor:
        logits, values = self.net(self.x)
        return torch.cat((masked_policy(logits, self.m), values), dim=1)

    def replay(self) -> None:
        self.graph.replay()


class _Slot:
    """One staging slot: input arrays (numpy views of torch tensors, pinned on CUDA) and, on CUDA, the pinned
    output rows [max_batch, num_actions + num_players] that a batch's priors and values come back in."""

    def __init__(self, evaluator: BatchedEvaluator):
        pin, rows = evaluator.device.type == "cuda", evaluator.max_batch
        self.obs = torch.empty((rows, *evaluator.observation_shape), dtype=torch.float32, pin_memory=pin)
        self.masks = torch.empty((rows, evaluator.num_actions), dtype=torch.bool, pin_memory=pin)
        self.out = torch.empty((rows, evaluator.num_actions + evaluator.num_players), dtype=torch.float32,
                               pin_memory=True) if pin else None
        self.obs_np, self.masks_np = self.obs.numpy(), self.masks.numpy()


class BatchedEvaluator(TicketQueue):
    """Runs ``net`` (moved to ``device``, "cpu", "cuda" or "cuda:N", in eval mode) under ``torch.inference_mode()``.

    ``threads``: if given, ``torch.set_num_threads(threads)`` (process-wide); None leaves torch's default.
    ``passes`` and ``states`` count the forward passes run and the states they evaluated (batch fill).
    """

    def __init__(self, net: PolicyValueNet, device: str = "cpu", max_batch: int = 1024, threads: int | None = None):
        if not isinstance(max_batch, int) or max_batch < 1:
            raise InvalidParameterError(f"max_batch={max_batch!r}: expected a positive int")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise InvalidParameterError(f"threads={threads!r}: expected a positive int or None")
        self.device = resolve_device(device)
        if threads is not None:
            torch.set_num_threads(threads)
        self.net = net.to(self.device).eval()
        self.max_batch = max_batch
        info = net.info
        self.observation_shape, self.num_actions = tuple(info.observation_shape), info.num_actions
        self.num_players = info.num_players
        self.passes = self.states = 0
        self._slots: list[_Slot | None] = [None] * SLOTS
        self._in_flight: list[Pending | None] = [None] * SLOTS
        self._thread: ThreadPoolExecutor | None = None
        self._graphs: dict[int, _CapturedPass] = {}  # CUDA: a captured pass per batch size, powers of two
        super().__init__()

    @property
    def info(self) -> GameInfo:
        """The network's game info (its shapes and returns)."""
        return self.net.info

    # -- staging ---------------------------------------------------------------------------------------------
    def staging(self, slot: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``(observations float32 [max_batch, *observation_shape], masks bool [max_batch, num_actions])``: the
        writable input rows of ``slot`` (0 or 1), allocated once (pinned host memory on CUDA). Write the first
        ``n`` rows, then ``launch(n, slot)``; do not write them again while that batch is in flight."""
        return self._slot(slot).obs_np, self._slot(slot).masks_np

    def launch(self, n: int, slot: int = 0, background: bool = True) -> Pending:
        """Start the forward pass on the first ``n`` rows of ``slot``'s staging arrays (1 <= n <= max_batch,
        every row with a legal action) and return at once; ``Pending.wait()`` gives the answers. On the CPU the
        pass runs on a background thread (``background=False``: here, before ``launch`` returns, for a caller
        that would wait at once: a thread's hand-over costs more than it saves then), on CUDA asynchronously on
        the current stream."""
        if not isinstance(n, (int, np.integer)) or not 1 <= n <= self.max_batch:
            raise InvalidParameterError(f"n={n!r}: expected an int in [1, {self.max_batch}] (max_batch)")
        staged = self._slot(slot)
        _check_masks(staged.masks_np[:n])
        return self._start(int(n), slot, background=background)

    def _slot(self, slot: int) -> _Slot:
        if not isinstance(slot, (int, np.integer)) or not 0 <= slot < SLOTS:
            raise InvalidParameterError(f"slot={slot!r}: expected 0 or 1")
        if self._slots[slot] is None:
            self._slots[slot] = _Slot(self)
        return self._slots[slot]

    def _start(self, n: int, slot: int, background: bool) -> Pending:
        """Launch ``n`` checked rows of ``slot``; on the CPU in the background or (for a caller that waits at
        once) inline."""
        if self._in_flight[slot] is not None:
            raise ProtocolError(f"slot {slot} has a batch in flight: wait() for it before launching the slot again")
        staged = self._slot(slot)
        self.passes += 1
        self.states += n
        if self.device.type == "cuda":
            graph = self._graph(n)
            with torch.no_grad():
                graph.x[:n].copy_(staged.obs[:n], non_blocking=True)
                graph.m[:n].copy_(staged.masks[:n], non_blocking=True)
                graph.replay()
                staged.out[:n].copy_(graph.out[:n], non_blocking=True)
                done = torch.cuda.Event()
                done.record()
            out = staged.out.numpy()[:n]

            def answer() -> tuple[np.ndarray, np.ndarray]:
                done.synchronize()
                return out[:, :self.num_actions], out[:, self.num_actions:]
        elif background:
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="cardboard-evaluator")
            future: Future = self._thread.submit(self._forward_cpu, staged, n)
            answer = future.result
        else:
            found = self._forward_cpu(staged, n)
            answer = lambda: found  # noqa: E731
        pending = self._in_flight[slot] = Pending(self, slot, n, answer)
        return pending

    def _graph(self, n: int) -> _CapturedPass:
        """The captured pass for ``n`` states: that of the smallest power of two (at most ``max_batch``) holding
        them, captured at its first use."""
        rows = min(1 << (n - 1).bit_length(), self.max_batch)
        found = self._graphs.get(rows)
        if found is None:
            found = self._graphs[rows] = _CapturedPass(self.net, rows, self.observation_shape, self.num_actions,
                                                       self.device)
        return found

    def _forward_cpu(self, staged: _Slot, n: int) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = self.net(staged.obs[:n])
            return masked_policy(logits, staged.masks[:n]).numpy(), values.numpy()

    def _run(self, n: int, fill: Callable[[np.ndarray, np.ndarray, int, int], None]) -> tuple[np.ndarray, np.ndarray]:
        """The answers of ``n`` states in chunks of ``max_batch``: ``fill(observations, masks, start, stop)``
        writes states ``start:stop`` into a slot's first rows; chunks alternate slots, so on CUDA the next chunk
        is copied in and launched before the previous one is waited for."""
        if n <= self.max_batch:  # one pass: on the CPU its answers are fresh arrays, handed over as they are
            obs, masks = self.staging(0)
            fill(obs, masks, 0, n)
            _check_masks(masks[:n])
            priors, values = self._start(n, 0, background=False).wait()
            return (priors, values) if self.device.type == "cpu" else (priors.copy(), values.copy())
        priors = np.empty((n, self.num_actions), np.float32)
        values = np.empty((n, self.num_players), np.float32)
        previous: tuple[Pending, int] | None = None
        for chunk, start in enumerate(range(0, n, self.max_batch)):
            stop, slot = min(start + self.max_batch, n), chunk % SLOTS
            obs, masks = self.staging(slot)
            fill(obs, masks, start, stop)
            _check_masks(masks[:stop - start], start)
            pending = self._start(stop - start, slot, background=False)
            if previous is not None:
                _collect(previous, priors, values)
            previous = (pending, start)
        if previous is not None:
            _collect(previous, priors, values)
        return priors, values

    # -- whole batches and queued requests ---------------------------------------------------------------------
    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors [B, num_actions], values [B, num_players])`` of observations [B, *observation_shape]
        and legal-action masks [B, num_actions] (every row with at least one legal action)."""
        observations, masks = np.asarray(observations), np.asarray(masks)
        if observations.shape[1:] != self.observation_shape or observations.ndim != len(self.observation_shape) + 1:
            raise InvalidParameterError(f"observations of shape {observations.shape}: expected "
                                        f"(batch, {', '.join(map(str, self.observation_shape))}) for game "
                                        f"{self.net.info.name!r}")
        if masks.shape != (len(observations), self.num_actions):
            raise InvalidParameterError(f"masks of shape {masks.shape}: expected ({len(observations)}, "
                                        f"{self.num_actions}) for {len(observations)} observations of game "
                                        f"{self.net.info.name!r}")

        def fill(obs: np.ndarray, staged_masks: np.ndarray, start: int, stop: int) -> None:
            obs[:stop - start] = observations[start:stop]
            staged_masks[:stop - start] = masks[start:stop]

        return self._run(len(observations), fill)

    def _answer(self, requests: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        """``flush``'s batch (chunks of ``max_batch``): each request copied once, into a staging slot."""
        def fill(obs: np.ndarray, masks: np.ndarray, start: int, stop: int) -> None:
            self._stacked(requests[start:stop], obs[:stop - start], masks[:stop - start])

        return self._run(len(requests), fill)


def _check_masks(masks: np.ndarray, offset: int = 0) -> None:
    """``InvalidParameterError`` naming the rows (numbered from ``offset``) of ``masks`` with no legal action."""
    empty = np.flatnonzero(~masks.any(axis=1))
    if len(empty):
        raise InvalidParameterError(f"masks rows {(empty[:10] + offset).tolist()} have no legal action")


def _collect(launched: tuple[Pending, int], priors: np.ndarray, values: np.ndarray) -> None:
    """Copy a launched chunk's answers (views of its slot) into rows ``start:`` of ``priors`` and ``values``."""
    pending, start = launched
    p, v = pending.wait()
    priors[start:start + pending.n] = p
    values[start:start + pending.n] = v


def resolve_device(device: str) -> torch.device:
    """``device`` as a torch device, or ``InvalidParameterError`` naming it (unknown, or CUDA unavailable)."""
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise InvalidParameterError(f"device {device!r}: expected 'cpu', 'cuda' or 'cuda:N'") from None
    if parsed.type not in ("cpu", "cuda"):
        raise InvalidParameterError(f"device {device!r}: expected 'cpu', 'cuda' or 'cuda:N'")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise InvalidParameterError(f"device {device!r}: CUDA is not available to torch {torch.__version__}")
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise InvalidParameterError(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s)")
    return parsed

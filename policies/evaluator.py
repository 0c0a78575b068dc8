"""Batched evaluation of a ``PolicyValueNet``: many states per forward pass (issue 17).

Two ways in:

- ``evaluate(observations, masks)``: a whole batch at once, run in chunks of at most ``max_batch`` states;
- ``submit(observation, mask) -> ticket``, then ``flush()`` (all pending requests in one batch), then
  ``result(ticket)``: for callers that gather leaves from many searches or games before one network call.

Priors are float32 and sum to 1 over the legal actions (exactly 0 elsewhere); values are float32, one per
player, in [``min_return``, ``max_return``]. Bad devices, shapes and tickets raise typed errors.
"""
from __future__ import annotations

import numpy as np
import torch

from ..envs.errors import InvalidParameterError, ProtocolError
from .network import PolicyValueNet, masked_policy


class BatchedEvaluator:
    """Runs ``net`` (moved to ``device``, "cpu", "cuda" or "cuda:N", in eval mode) under ``torch.inference_mode()``.

    ``threads``: if given, ``torch.set_num_threads(threads)`` (process-wide); None leaves torch's default.
    """

    def __init__(self, net: PolicyValueNet, device: str = "cpu", max_batch: int = 256, threads: int | None = None):
        if not isinstance(max_batch, int) or max_batch < 1:
            raise InvalidParameterError(f"max_batch={max_batch!r}: expected a positive int")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise InvalidParameterError(f"threads={threads!r}: expected a positive int or None")
        self.device = _device(device)
        if threads is not None:
            torch.set_num_threads(threads)
        self.net = net.to(self.device).eval()
        self.max_batch = max_batch
        info = net.info
        self.observation_shape, self.num_actions = tuple(info.observation_shape), info.num_actions
        self._pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._next_ticket = 0

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
        masks = masks.astype(bool, copy=False)
        empty = np.flatnonzero(~masks.any(axis=1))
        if len(empty):
            raise InvalidParameterError(f"masks rows {empty[:10].tolist()} have no legal action")
        observations = np.ascontiguousarray(observations, dtype=np.float32)
        priors, values = [], []
        with torch.inference_mode():
            for start in range(0, len(observations), self.max_batch):
                stop = start + self.max_batch
                x = torch.from_numpy(observations[start:stop]).to(self.device)
                m = torch.from_numpy(masks[start:stop]).to(self.device)
                logits, value = self.net(x)
                priors.append(masked_policy(logits, m).cpu().numpy())
                values.append(value.cpu().numpy())
        if not priors:
            return (np.zeros((0, self.num_actions), np.float32),
                    np.zeros((0, self.net.info.num_players), np.float32))
        if len(priors) == 1:
            return priors[0], values[0]
        return np.concatenate(priors), np.concatenate(values)

    def submit(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """Queue one state (its observation and legal-action mask) for the next ``flush``; returns its ticket."""
        observation, mask = np.asarray(observation), np.asarray(mask)
        if observation.shape != self.observation_shape:
            raise InvalidParameterError(f"observation of shape {observation.shape}: expected "
                                        f"{self.observation_shape} for game {self.net.info.name!r}")
        if mask.shape != (self.num_actions,):
            raise InvalidParameterError(f"mask of shape {mask.shape}: expected ({self.num_actions},) for game "
                                        f"{self.net.info.name!r}")
        if not mask.any():
            raise InvalidParameterError("mask has no legal action")
        return self.enqueue(observation, mask)

    def enqueue(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """``submit`` without its per-request checks, for callers that build the arrays themselves (search's
        ``NetworkEvaluator``); ``flush`` still checks the stacked batch's shapes and masks."""
        ticket = self._next_ticket
        self._next_ticket += 1
        self._pending[ticket] = (observation, mask)
        return ticket

    @property
    def pending(self) -> int:
        """The number of submitted requests not yet flushed."""
        return len(self._pending)

    def flush(self) -> None:
        """Evaluate every pending request in one batch (chunks of ``max_batch``), making their results ready."""
        if not self._pending:
            return
        tickets = list(self._pending)
        observations = np.stack([self._pending[t][0] for t in tickets])
        masks = np.stack([self._pending[t][1] for t in tickets])
        self._pending.clear()
        priors, values = self.evaluate(observations, masks)
        self._done.update(zip(tickets, zip(priors, values)))

    def result(self, ticket: int) -> tuple[np.ndarray, np.ndarray]:
        """``(priors [num_actions], values [num_players])`` of a flushed ticket; each result is handed out once."""
        if ticket in self._pending:
            raise ProtocolError(f"ticket {ticket} is pending: call flush() before result()")
        if ticket not in self._done:
            raise InvalidParameterError(f"unknown ticket {ticket!r} (never submitted, or its result was taken)")
        return self._done.pop(ticket)


def _device(device: str) -> torch.device:
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

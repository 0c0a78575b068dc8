"""``TicketQueue``: the submit / flush / result calls every network evaluator offers search (torch-free).

A caller queues states one by one (``submit``, checked; ``enqueue``, unchecked, for callers that build the arrays
themselves), ``flush`` answers every queued state in one batch (a subclass's ``_answer``), and ``result`` hands each
answer out once. ``BatchedEvaluator`` answers in this process, ``RemoteEvaluator`` on its node's inference server.
"""
from __future__ import annotations

import numpy as np

from ..envs.errors import InvalidParameterError, ProtocolError
from ..envs.protocol import GameInfo


class TicketQueue:
    """Queued states by ticket (see the module docstring); a subclass sets ``info`` and defines ``_answer``."""

    info: GameInfo

    def __init__(self) -> None:
        self._pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._next_ticket = 0

    def submit(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """Queue one state (its observation and legal-action mask) for the next ``flush``; returns its ticket."""
        observation, mask = np.asarray(observation), np.asarray(mask)
        info = self.info
        if observation.shape != tuple(info.observation_shape):
            raise InvalidParameterError(f"observation of shape {observation.shape}: expected "
                                        f"{tuple(info.observation_shape)} for game {info.name!r}")
        if mask.shape != (info.num_actions,):
            raise InvalidParameterError(f"mask of shape {mask.shape}: expected ({info.num_actions},) for game "
                                        f"{info.name!r}")
        if not mask.any():
            raise InvalidParameterError("mask has no legal action")
        return self.enqueue(observation, mask)

    def enqueue(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """``submit`` without its per-request checks, for callers that build the arrays themselves (search's
        ``NetworkEvaluator``). Nothing is copied here: hand over arrays that stay unchanged until ``flush``, which
        checks their shapes and masks."""
        ticket = self._next_ticket
        self._next_ticket += 1
        self._pending[ticket] = (observation, mask)
        return ticket

    @property
    def pending(self) -> int:
        """The number of queued states not yet flushed."""
        return len(self._pending)

    def flush(self) -> None:
        """Answer every queued state in one batch, making their results ready; a bad shape or mask raises
        ``InvalidParameterError`` and drops the whole batch."""
        if not self._pending:
            return
        tickets, requests = list(self._pending), list(self._pending.values())
        self._pending.clear()
        priors, values = self._answer(requests)
        self._done.update(zip(tickets, zip(priors, values)))

    def _answer(self, requests: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _stacked(self, requests: list[tuple[np.ndarray, np.ndarray]], observations: np.ndarray | None = None,
                 masks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The requests' observations and masks as two arrays (into ``observations`` / ``masks`` when given); a
        request that does not fit the game is an ``InvalidParameterError``."""
        try:
            return (np.stack([r[0] for r in requests], out=observations),
                    np.stack([r[1] for r in requests], out=masks))
        except ValueError as exc:
            info = self.info
            raise InvalidParameterError(f"queued requests do not fit observations {tuple(info.observation_shape)} "
                                        f"and masks ({info.num_actions},) of game {info.name!r}: {exc}") from None

    def result(self, ticket: int) -> tuple[np.ndarray, np.ndarray]:
        """``(priors [num_actions], values [num_players])`` of a flushed ticket; each result is handed out once."""
        if ticket in self._pending:
            raise ProtocolError(f"ticket {ticket} is pending: call flush() before result()")
        if ticket not in self._done:
            raise InvalidParameterError(f"unknown ticket {ticket!r} (never submitted, or its result was taken)")
        return self._done.pop(ticket)

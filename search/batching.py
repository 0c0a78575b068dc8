"""Searches as resumable computations, and many of them answered in one network batch (issue 17).

A search that needs an evaluator does not call it: ``TreeSearch.steps`` *yields* a ``Request`` (the states it
waits for, each with the evaluator that should answer it) and is sent the answers. ``drive`` runs one such
computation to its end; ``run_together`` advances many (the games of a self-play run) in lock-step, so that
in each round every waiting request of evaluators that share a queue (``BatchingEvaluator.queue``: one
network) goes into one forward pass. Computations that never yield (rollouts only, scripted agents) simply run through.
"""
from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from typing import Any, NamedTuple, TypeVar

import numpy as np

from ..envs.protocol import Agent, GameState
from .strategies import Evaluator

T = TypeVar("T")


class Request(NamedTuple):
    """What a resumable search waits for: the answer of ``evaluators[i]`` for ``states[i]``, in order (a PUCT
    search over rollouts asks the network for priors and another evaluator for values)."""

    evaluators: list[Evaluator]
    states: list[GameState]

    @classmethod
    def of(cls, evaluator: Evaluator, states: list[GameState]) -> Request:
        """Every state asked of one evaluator."""
        return cls([evaluator] * len(states), states)


class ArrayRequest(NamedTuple):
    """What a compiled search waits for (``compiled_network``): the network ``queue``'s ``(priors, values)`` for
    rows built in compiled code: the observations and legal-action masks of its leaves, no state object per leaf."""

    queue: Any
    observations: np.ndarray
    masks: np.ndarray


Steps = Generator[Request | ArrayRequest, Any, T]
"""A resumable computation: yields ``Request``s, is sent their answers, returns its result."""


def answer(requests: list[Request | ArrayRequest]) -> list:
    """The answers of every request: batching evaluators submit all their states first, each distinct queue is
    flushed once (one forward pass for all the requests that share it), then each collects its own answers;
    other evaluators are called once per state. The array requests of one queue are answered together by one
    ``queue.evaluate`` over their rows, each getting its slice of ``(priors, values)``."""
    if len(requests) == 1 and type(requests[0]) is Request:  # one search's leaves, asked of one plain evaluator
        evaluators, states = requests[0]
        if evaluators and all(e is evaluators[0] for e in evaluators) and not batches(evaluators[0]):
            return [[evaluators[0](state) for state in states]]
    out: list = [None] * len(requests)
    if len(requests) == 1 and isinstance(requests[0], ArrayRequest):  # one compiled search's batch
        _answer_arrays(requests, [0], out)
        return out
    by_queue: dict[int, list[int]] = {}
    for j, request in enumerate(requests):
        if isinstance(request, ArrayRequest):
            by_queue.setdefault(id(request.queue), []).append(j)
    plans: list[tuple[int, Request, list[tuple[Evaluator, list[int], Any]]]] = []
    queues: dict[int, Any] = {}
    for j, request in enumerate(requests):
        if isinstance(request, ArrayRequest):
            continue
        groups: dict[int, tuple[Evaluator, list[int]]] = {}
        for i, evaluator in enumerate(request.evaluators):
            groups.setdefault(id(evaluator), (evaluator, []))[1].append(i)
        plan = []
        for evaluator, indices in groups.values():
            token = None
            if batches(evaluator):
                token = evaluator.submit([request.states[i] for i in indices])
                queues[id(evaluator.queue)] = evaluator.queue
            plan.append((evaluator, indices, token))
        plans.append((j, request, plan))
    for queue in queues.values():
        queue.flush()
    for members in by_queue.values():
        _answer_arrays([requests[j] for j in members], members, out)
    for j, request, plan in plans:
        answers: list = [None] * len(request.states)
        for evaluator, indices, token in plan:
            got = [evaluator(request.states[i]) for i in indices] if token is None else evaluator.collect(token)
            for i, found in zip(indices, got):
                answers[i] = found
        out[j] = answers
    return out


def _answer_arrays(requests: list[ArrayRequest], where: list[int], out: list) -> None:
    """One forward pass over the rows of ``requests`` (one queue): ``out[where[i]]`` gets request ``i``'s slice. The
    rows are copied once into the queue's input: one request's by ``evaluate``, several staged side by side."""
    if len(requests) == 1:
        answers = [requests[0].queue.evaluate(requests[0].observations, requests[0].masks)]
    elif _stageable(requests):
        answers = _Launched(requests, 0, background=False).wait()
    else:
        observations = np.concatenate([r.observations for r in requests])
        masks = np.concatenate([r.masks for r in requests])
        answers = _split(requests, *requests[0].queue.evaluate(observations, masks))
    for j, found in zip(where, answers):
        out[j] = found


def _split(requests: list[ArrayRequest], priors: np.ndarray, values: np.ndarray) -> list:
    """Each request's slice of the rows ``(priors, values)`` answered for all of them, in order."""
    out, first = [], 0
    for request in requests:
        last = first + len(request.observations)
        out.append((priors[first:last], values[first:last]))
        first = last
    return out


def _stageable(requests: list) -> bool:
    """Whether ``requests`` are array requests of one queue that stages batches (``staging`` / ``launch``, as
    ``policies.BatchedEvaluator``) and fit one of its batches."""
    if not requests or not all(isinstance(r, ArrayRequest) for r in requests):
        return False
    queue = requests[0].queue
    return (all(r.queue is queue for r in requests) and hasattr(queue, "launch")
            and sum(len(r.observations) for r in requests) <= queue.max_batch)


class _Launched:
    """A forward pass started over the rows of ``requests``: each one's rows copied once into the queue's staging
    ``slot`` (pinned memory on CUDA), then launched (on the CPU in the ``background`` or at once); ``wait`` gives
    each request its answers."""

    def __init__(self, requests: list[ArrayRequest], slot: int, background: bool = True):
        self.requests = requests
        queue = requests[0].queue
        observations, masks = queue.staging(slot)
        first = 0
        for request in requests:
            last = first + len(request.observations)
            observations[first:last] = request.observations
            masks[first:last] = request.masks
            first = last
        self.pending = queue.launch(first, slot, background)

    def wait(self) -> list:
        return _split(self.requests, *self.pending.wait())


class _Answered:
    """Answers already computed, with ``_Launched``'s ``wait``."""

    def __init__(self, answers: list):
        self.answers = answers

    def wait(self) -> list:
        return self.answers


def batches(evaluator: Evaluator) -> bool:
    """Whether ``evaluator`` is a ``BatchingEvaluator`` (checked by its methods: a runtime protocol check costs
    microseconds per request)."""
    kind = type(evaluator)
    return hasattr(kind, "submit") and hasattr(kind, "collect") and hasattr(evaluator, "queue")


def drive(run: Steps[T]) -> T:
    """Run one resumable computation to its end, answering each request as it comes."""
    try:
        request = next(run)
        while True:
            request = run.send(answer([request])[0])
    except StopIteration as stop:
        return stop.value


def run_together(jobs: Iterable[Steps[T]], concurrent: int, overlap: bool | None = None) -> Iterator[T]:
    """Advance up to ``concurrent`` computations from ``jobs`` in lock-step and yield each one's result as it
    finishes (a finished job's place goes to the next). Results come in the order the jobs finish; each job's own
    computation does not depend on the others (a network's answers only through floating-point rounding, which
    may differ in the last bit between batch compositions).

    Each round answers every waiting request at once (``answer``: one flush per queue), so a network sees up to
    ``concurrent`` requests' states per forward pass. With ``overlap``, when the first round's requests are all
    array requests of one staging queue (``ArrayRequest`` of a ``policies.BatchedEvaluator``: compiled searches),
    the jobs run in two halves that take turns instead, so that the network and the searches overlap (double
    buffering): one half's rows are launched into their own staging slot and, while that pass runs, the other
    half gets its answers and runs on to its next requests (``_pipelined``). ``overlap`` None: when that queue's
    device is a GPU (on the CPU the pass would share the cores with the searches: on 2 cores, 64 Lords of War
    games in lock-step ran 2.4-3.0 games/s overlapped against 4.1-4.7 in whole rounds)."""
    if concurrent < 1:
        raise ValueError(f"concurrent must be >= 1, got {concurrent}")
    pending = iter(jobs)
    active: list[tuple[Steps[T], Request | ArrayRequest]] = []
    more = yield from _fill(active, pending, concurrent)
    requests = [request for _, request in active]
    if overlap is None:
        overlap = bool(requests) and _on_gpu(requests[0])
    if overlap and concurrent > 1 and _stageable(requests):
        yield from _pipelined(active, pending, concurrent, more)
        return
    while active:
        current, active = active, []
        for (run, _), answers in zip(current, answer([request for _, request in current])):
            try:
                active.append((run, run.send(answers)))
            except StopIteration as stop:
                yield stop.value
        if more:
            more = yield from _fill(active, pending, concurrent)


def _on_gpu(request: Request | ArrayRequest) -> bool:
    """Whether ``request`` is an array request whose queue runs on a GPU (its ``device.type`` is "cuda")."""
    device = getattr(getattr(request, "queue", None), "device", None)
    return getattr(device, "type", None) == "cuda"


def _fill(active: list, pending: Iterator, size: int) -> Generator[Any, None, bool]:
    """Start jobs from ``pending`` until ``active`` holds ``size`` waiting ones (yielding the results of jobs that
    finish without asking anything); returns whether ``pending`` may have more."""
    while len(active) < size:
        run = next(pending, None)
        if run is None:
            return False
        try:
            active.append((run, next(run)))
        except StopIteration as stop:
            yield stop.value
    return True


def _pipelined(active: list, pending: Iterator, concurrent: int, more: bool) -> Iterator:
    """``run_together`` in two halves that take turns: launch one half's rows into its staging slot, then hand the
    other half the answers of its pass (launched on the last turn) while this one runs. A half whose requests
    cannot be staged is answered at once (``answer``), after the other half's pass has been collected (answering
    at once may use either staging slot)."""
    sizes = ((concurrent + 1) // 2, concurrent // 2)
    halves = [active[:sizes[0]], active[sizes[0]:]]
    launched: list[_Launched | _Answered | None] = [None, None]
    turn = 0
    while halves[0] or halves[1]:
        half, other = halves[turn], 1 - turn
        if more:
            more = yield from _fill(half, pending, sizes[turn])
        if half:
            requests = [request for _, request in half]
            if _stageable(requests):
                launched[turn] = _Launched(requests, turn)
            else:
                if launched[other] is not None:
                    yield from _deliver(halves, launched, other)
                launched[turn] = _Answered(answer(requests))
        if launched[other] is not None:
            yield from _deliver(halves, launched, other)
        turn = other


def _deliver(halves: list[list], launched: list, which: int) -> Iterator:
    """Hand half ``which`` its answers: each job runs on to its next request or finishes (its result yielded)."""
    current, halves[which] = halves[which], []
    answers, launched[which] = launched[which].wait(), None
    for (run, _), found in zip(current, answers):
        try:
            halves[which].append((run, run.send(found)))
        except StopIteration as stop:
            yield stop.value


def act_steps(agent: Agent, state: GameState, rng: np.random.Generator) -> Steps[int]:
    """``agent.act`` as a resumable computation: the agent's own ``act_steps`` when it has one (search
    agents), else a plain ``act`` that never yields."""
    steps = getattr(agent, "act_steps", None)
    if steps is None:
        return agent.act(state, rng)
    return (yield from steps(state, rng))

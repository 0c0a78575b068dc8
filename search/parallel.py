"""Parallel MCTS (paper 000 ch. 4): root, tree (with virtual loss) and leaf parallelisation, budget split statically.

Three searchers with ``TreeSearch``'s interface (``search(state, rng) -> SearchResult``, ``reset()``), for the
worlds ``uct``, ``ismcts`` and ``duct``; agents get them with ``parallel=root|tree|leaf,workers=N,vl=1``. As in the
thesis (§2.4: 5000 iterations split 5000/n), an iteration budget is split statically: each of the ``workers``
gets ``iterations // workers``, the first ``iterations % workers`` one more (``static_split``); nothing is
rebalanced when one finishes early.

``RootParallel`` (the thesis's Algorithm 2)
    ``workers`` independent trees from the same root, one per worker PROCESS (Python threads would serialise
    on the interpreter lock in the tree steps). Tree ``i`` gets its share of the budget and its own seed,
    drawn from the caller's rng (``tree_seeds``; DUCT: each tree draws its own worlds); its root statistics
    (visits, total reward and availability per soft key) are summed over the trees, and ``config.final``
    (RobustChild by default: the thesis's most visited move) picks from the sum. No locking.
    ``SearchResult.root`` is a one-level node holding the summed statistics; ``RootParallel.trees`` the last
    decision's per-tree ones. Each worker runs a plain ``TreeSearch`` (compiled where the engine can). The
    pool is started at the first decision (``forkserver``: safe with numba, torch or threads in the caller;
    as with any start method but fork, a script needs the ``if __name__ == "__main__":`` guard), warmed up by
    a tiny search in every worker before the clock starts, kept for the later decisions and stopped by
    ``close()`` or when the searcher is garbage collected.
``TreeParallel`` (Algorithm 3, with and without virtual loss)
    ``workers`` THREADS run whole iterations on ONE shared tree (a ``core.FlatTree`` and the compiled UCB1 step
    of ``tree``). They overlap in the rollouts, which for games with a compiled ``random_playout`` run without
    the interpreter lock (numba ``nogil``); the Python tree steps hold it. The thesis locks a node while it is
    expanded and while its statistics are updated at backup. In this engine every tree step writes the tree
    (availability counts, edges made for keys met for the first time: the expansion, the visit count) and may grow
    its arrays, which every node shares, so the tree has one lock: held for each compiled step (microseconds), for
    making a child and for a backup, never for the game's moves, the rollout or the world sampling. The
    threads walk the tree in Python (one compiled kernel per step), so they are measured against the engine's
    Python path: the unparallelised engine may run whole iterations compiled (``compiled``), which a tree
    shared between threads cannot.
``LeafParallel`` (Algorithm 4)
    One thread (the caller) selects and expands; each simulation is handed to the next idle worker of a pool
    of ``workers`` threads, each rolling out its own copy of the state; the caller waits only when every
    worker is busy, and backs results up as they arrive. Only the caller touches the tree: no locks.

Virtual loss (``vl``, tree and leaf): a simulation in flight counts ``vl`` visits with reward 0 on every edge of
its path; backup adds its reward and ``1 - vl`` visits, so a finished iteration counts exactly one visit.
``loop.descend`` counts an edge's visit when it is selected and its reward at backup: that IS the
thesis's virtual loss of one visit with zero reward, invisible in a sequential search (nothing selects while
an iteration is in flight) and visible here and with ``leaves=K``. ``vl=1`` is therefore the engine's own
bookkeeping (the thesis's Tree + VL); ``vl=0`` counts the visit at backup (the thesis's plain Tree, whose
threads may all expand one unvisited edge); larger values push concurrent selections further apart.

Time budgets (``seconds``): root gives every worker the same time limit (the workers search side by side);
tree stops each thread at the shared deadline; leaf starts no new simulation after it and waits for those in
flight. With both budgets, each worker stops at whichever comes first. No first decision counts the loading of
kernels against its time: root warms its workers up when it starts them, tree and leaf run a throw-away search
first (``warm_up``).

Determinism: root parallelisation with an iteration budget is reproducible: the same caller rng gives the same
seeds, tree ``i`` always gets seed ``i`` and share ``i`` whichever process runs it, and the sums are taken in
tree order, so the decision does not depend on scheduling (1 and 2 workers are different searches, each
reproducible). Tree and leaf parallelisation are not: which statistics a selection sees depends on how the
threads interleave, so the same seed can give different trees (each thread's random streams are still drawn
from the caller's rng). Any search under a time budget is not reproducible either.

Not supported (refused with ``InvalidParameterError``): tree reuse and per-turn budgets (agents), networks
(agents' ``net=`` / ``hlr=``), and for tree / leaf: PUCT's node-wise expansion, ``leaves`` > 1, resumable
rollouts and hard pruning (``SearchConfig.pruning``: its judgements play the game's moves, which the tree's lock
would then hold).
"""
from __future__ import annotations

import itertools
import multiprocessing
import pickle
import queue
import signal
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs import stop
from ..envs.protocol import GameState
from .config import SearchConfig, SearchResult, budget_spent, decide
from .loop import NO_LOCK, KernelRule, back_up, descend, rewards, rollout
from .mcts import TreeSearch
from .tree import AVAIL, TOTAL, VISITS, Node, Uniforms, expand, new_root
from .warm_up import WARM_UP_ITERATIONS, WarmUp
from .worlds import Worlds, worlds_of

MODES = ("none", "root", "tree", "leaf")
START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
Statistics = dict[Hashable, tuple[int, float, int]]  # soft key -> (visits, total reward, availability)


def check_parallel(mode: str, workers: int, vl: int) -> None:
    """Refuse an unknown mode, fewer than one worker or a negative virtual loss (naming the value)."""
    if mode not in MODES:
        raise InvalidParameterError(f"parallel must be one of {', '.join(MODES)}, got {mode!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"workers must be an int >= 1, got {workers!r}")
    if isinstance(vl, bool) or not isinstance(vl, int) or vl < 0:
        raise InvalidParameterError(f"vl (virtual loss, in visits) must be an int >= 0, got {vl!r}")


def parallel_search(mode: str, config: SearchConfig, worlds: str | Worlds = "ismcts", num_worlds: int = 1,
                    workers: int = 2, vl: int = 1) -> RootParallel | TreeParallel | LeafParallel:
    """The searcher of ``mode`` (``root``, ``tree`` or ``leaf``; ``vl`` is used by tree and leaf only)."""
    check_parallel(mode, workers, vl)
    if mode == "root":
        return RootParallel(config, worlds, num_worlds, workers)
    if mode in ("tree", "leaf"):
        return (TreeParallel if mode == "tree" else LeafParallel)(config, worlds, num_worlds, workers, vl)
    raise InvalidParameterError(f"parallel={mode} is a plain TreeSearch, not a parallel searcher")


def static_split(total: int | None, workers: int) -> list[int | None]:
    """The thesis's static split of an iteration budget: ``total // workers`` each, the first ``total % workers``
    one more (None: no iteration limit, every worker runs to the time limit)."""
    if total is None:
        return [None] * workers
    base, extra = divmod(total, workers)
    return [base + (i < extra) for i in range(workers)]


def tree_seeds(rng: np.random.Generator, workers: int) -> list[int]:
    """One seed per worker, drawn from the caller's ``rng`` (worker ``i``'s random streams start from seed ``i``)."""
    return [int(s) for s in rng.integers(0, np.iinfo(np.int64).max, size=workers)]


def root_statistics(root: Node) -> Statistics:
    """Soft key -> (visits, total reward, availability) of every edge of ``root``: what root parallelisation sums."""
    stat = root.stat
    return {root.key(e): (int(stat[VISITS, e]), float(stat[TOTAL, e]), int(stat[AVAIL, e]))
            for e in root.edges.tolist()}


def merge(trees: list[Statistics]) -> Statistics:
    """The per-key sums of the trees' root statistics, added in tree order."""
    merged: Statistics = {}
    for stats in trees:
        for key, (n, total, avail) in stats.items():
            m = merged.get(key, (0, 0.0, 0))
            merged[key] = (m[0] + n, m[1] + total, m[2] + avail)
    return merged


def _root_node(state: GameState, stats: Statistics) -> Node:
    """A one-level node of ``state``'s player holding ``stats`` (root parallelisation's merged first level)."""
    root = new_root(state)
    keys = list(stats)
    ids = np.array([root.table.id(k) for k in keys], dtype=np.int64)
    expand(root.tree, 0, ids, np.zeros(len(keys)))
    edges = root.edges
    root.stat[VISITS, edges], root.stat[TOTAL, edges], root.stat[AVAIL, edges] = np.array(
        [stats[k] for k in keys], dtype=float).reshape(len(keys), 3).T
    return root



def _decision_node(state: GameState) -> int:
    me = state.current_player
    if me < 0:
        raise InvalidParameterError(f"search needs a decision node, current_player is {me}")
    return me


# ---- root parallelisation: worker processes -------------------------------------------------------------
def _serve(pipe: Connection) -> None:
    """A root-parallel worker process: for each ``(config, worlds, state, seed)`` received, one
    ``TreeSearch`` seeded with ``seed``; sends back ``(root statistics, iterations)``, or the error's traceback
    as a string. Stops at None or when the caller is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's: it stops the workers
    while True:
        try:
            task = pipe.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            config, worlds, state, seed = task
            result = TreeSearch(config, worlds).search(state, np.random.default_rng(seed))
            pipe.send((root_statistics(result.root), result.iterations))
        except Exception:
            pipe.send(traceback.format_exc())


class _Workers:
    """``n`` worker processes, each answering on its own pipe (``_serve``), so tree ``i`` goes to worker ``i``."""

    def __init__(self, n: int):
        context = multiprocessing.get_context(START_METHOD)
        if START_METHOD == "forkserver":
            context.set_forkserver_preload([__name__])  # the server imports cardboard once; workers fork from it
        self.pipes: list[Connection] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        for i in range(n):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), name=f"cardboard-root-parallel-{i}", daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def run(self, tasks: list[tuple[int, Any]]) -> list[Any]:
        """Send each ``(worker, task)``, then collect the replies in that order; a worker's error is raised here."""
        for worker, task in tasks:
            self.pipes[worker].send(task)
        replies = []
        for worker, _ in tasks:
            try:
                replies.append(self.pipes[worker].recv())
            except (EOFError, OSError):
                raise RuntimeError(f"root-parallel worker {worker} died (exit code "
                                   f"{self.processes[worker].exitcode})") from None
        for worker, reply in zip((w for w, _ in tasks), replies):
            if isinstance(reply, str):
                raise RuntimeError(f"root-parallel worker {worker} failed:\n{reply}")
        return replies

    def close(self) -> None:
        """Ask every worker to stop, wait a little, then terminate any that is left."""
        for pipe in self.pipes:
            try:
                pipe.send(None)
            except OSError:
                pass  # already gone
        for process, pipe in zip(self.processes, self.pipes):
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
            pipe.close()


class RootParallel:
    """Root parallelisation: one tree per worker process, root statistics summed (see the module docstring).

    ``workers``: processes (and trees); ``trees``: the last decision's root statistics of each tree, in tree
    order; ``processes``: the pool's processes (empty until the first decision and after ``close()``)."""

    def __init__(self, config: SearchConfig, worlds: str | Worlds = "ismcts", num_worlds: int = 1,
                 workers: int = 2):
        TreeSearch(config, worlds, num_worlds)  # validates worlds and num_worlds
        check_parallel("root", workers, 1)
        try:
            pickle.dumps(config)
        except Exception as error:
            raise InvalidParameterError(f"parallel=root sends the search config to worker processes, but it does "
                                        f"not pickle ({error})") from None
        self.config, self.worlds, self.workers = config, worlds_of(worlds, num_worlds), workers
        self.trees: list[Statistics] = []
        self._pool: _Workers | None = None
        self._finalizer: weakref.finalize | None = None

    def explain(self, state: GameState) -> str:
        """Each worker process's loop (a plain ``TreeSearch``'s)."""
        return f"{self.workers} worker processes, each: {TreeSearch(self.config, self.worlds).explain(state)}"

    @property
    def processes(self) -> list[multiprocessing.process.BaseProcess]:
        return list(self._pool.processes) if self._pool is not None else []

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        """Search ``state`` with every tree at once; the pool's start-up (first decision) is not in ``seconds``."""
        _decision_node(state)
        if self._pool is None:
            self._start(state)
        start = time.perf_counter()
        shares = static_split(self.config.iterations, self.workers)
        tasks = [(i, (replace(self.config, iterations=share), self.worlds, state, seed))
                 for i, (share, seed) in enumerate(zip(shares, tree_seeds(rng, self.workers))) if share != 0]
        try:
            replies = self._pool.run(tasks)
        except BaseException:
            self.close()  # the pipes may hold stale replies: a later decision starts a fresh pool
            raise
        self.trees = [stats for stats, _ in replies]
        root = _root_node(state, merge(self.trees))
        return decide(root, state, self.config.final, rng, sum(done for _, done in replies),
                      time.perf_counter() - start)

    def _start(self, state: GameState) -> None:
        pool = _Workers(self.workers)
        self._pool, self._finalizer = pool, weakref.finalize(self, pool.close)  # holds the pool, not the searcher
        warm = replace(self.config, iterations=WARM_UP_ITERATIONS, seconds=None)
        try:
            pool.run([(i, (warm, self.worlds, state, 0)) for i in range(self.workers)])
        except BaseException:
            self.close()
            raise

    def reset(self) -> None:
        """Nothing is kept between decisions (tree reuse is not supported); the pool stays up."""

    def close(self) -> None:
        """Stop the worker processes (a later decision starts a new pool)."""
        if self._finalizer is not None:
            self._finalizer()
        self._pool, self._finalizer = None, None


# ---- tree and leaf parallelisation: threads on one tree -------------------------------------------------
class SharedTree:
    """One search tree and what the iterations on it share: the tree step (``loop.descend``'s UCB1 step
    with availability, one expansion per iteration) with a virtual loss of ``vl`` visits, the iteration stamps,
    and with ``locked`` (several threads select on it) the tree's lock."""

    def __init__(self, root: Node, config: SearchConfig, vl: int, locked: bool):
        self.root, self.config, self.vl = root, config, vl
        self.lock: AbstractContextManager = threading.Lock() if locked else NO_LOCK
        self.stamps = itertools.count(1)  # availability stamps, one per iteration (next() is atomic)

    def descend(self, state: GameState, rng: np.random.Generator, rule: KernelRule,
                stamp: int) -> list[tuple[int, int]]:
        """Selection and one expansion from the root in the world ``state`` (played along, in place; ``loop.descend``
        by the thread's ``rule``, with this tree's lock): the path of (node, edge) taken, each edge already holding
        ``vl`` virtual visits."""
        return descend(self.root.tree, self.root.index, state, rng, self.config, rule, stamp, self.lock, self.vl)[0]

    def backup(self, path: list[tuple[int, int]], values: np.ndarray) -> None:
        """Add the simulation's reward to every edge of ``path`` for the player who chose it, and turn its ``vl``
        virtual visits into one real visit."""
        back_up(self.root.tree, path, values, self.lock, 1 - self.vl)


def check_threaded(config: SearchConfig) -> None:
    """Refuse what the threaded searchers' tree step does not do (naming the value)."""
    if config.selection.expands_nodes:
        raise InvalidParameterError(f"parallel=tree / leaf step the tree with UCB1's edge-wise expansion, not "
                                    f"{type(config.selection).__name__}")
    if config.leaves != 1:
        raise InvalidParameterError(f"parallel=tree / leaf keep one simulation per worker in flight: leaves must be "
                                    f"1, got {config.leaves}")
    if config.depth != 0 and getattr(config.rollout, "steps", None) is not None:
        raise InvalidParameterError("parallel=tree / leaf run rollouts to completion: resumable rollouts "
                                    f"({type(config.rollout).__name__}) are not supported")
    if config.pruning is not None:
        raise InvalidParameterError(f"parallel=tree / leaf do not support hard pruning ({config.pruning!r})")
    if config.root_prior is not None:
        raise InvalidParameterError("parallel=tree / leaf do not steer the root by a root_prior")


class _Threaded(WarmUp):
    """What tree and leaf parallelisation share: the config, worlds, workers, virtual loss, where worlds come from."""

    def __init__(self, config: SearchConfig, worlds: str | Worlds = "ismcts", num_worlds: int = 1,
                 workers: int = 2, vl: int = 1):
        TreeSearch(config, worlds, num_worlds)  # validates worlds and num_worlds
        check_parallel("tree", workers, vl)
        check_threaded(config)
        self.config, self.worlds, self.workers, self.vl = config, worlds_of(worlds, num_worlds), workers, vl

    def reset(self) -> None:
        """Nothing is kept between decisions (tree reuse is not supported)."""

    def explain(self, state: GameState) -> str:
        return f"python ({self.workers} threads step one shared tree: no compiled loop takes a shared tree)"

    def untimed(self, config: SearchConfig) -> _Threaded:
        return type(self)(config, self.worlds, 1, self.workers, self.vl)

class TreeParallel(_Threaded):
    """Tree parallelisation: ``workers`` threads iterate on one tree, with the tree's lock and virtual loss ``vl``
    (see the module docstring). The caller's thread is worker 0."""

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = _decision_node(state)
        self.warm_up(state)
        start = time.perf_counter()
        tree = SharedTree(new_root(state), self.config, self.vl, locked=True)
        fixed = self.worlds.draw(state, me, rng, self.config.determinizer)
        deadline = None if self.config.seconds is None else start + self.config.seconds
        shares = static_split(self.config.iterations, self.workers)
        jobs = [(tree, state.clone(), [w.clone() for w in fixed], np.random.default_rng(seed), share, deadline)
                for share, seed in zip(shares, tree_seeds(rng, self.workers)) if share != 0]
        done = sum(_together(self._iterate, jobs))
        return decide(tree.root, state, self.config.final, rng, done, time.perf_counter() - start)

    def _iterate(self, tree: SharedTree, state: GameState, fixed: list[GameState], rng: np.random.Generator,
                 share: int | None, deadline: float | None) -> int:
        """One worker's iterations on ``tree`` (its own copies of the root state and worlds, its own rng) until its
        ``share`` is done or the deadline passes; returns how many it ran."""
        me, rule, done = state.current_player, KernelRule(self.config, Uniforms(rng)), 0
        while (share is None or done < share) and (deadline is None or time.perf_counter() < deadline):
            stop.stop_point()
            stamp = next(tree.stamps)
            world = self.worlds.world(state, me, rng, self.config.determinizer, fixed, stamp - 1)
            path = tree.descend(world, rng, rule, stamp)
            tree.backup(path, rollout(world, rng, self.config))
            done += 1
        return done


def _together(work: Callable[..., int], jobs: list[tuple]) -> list[int]:
    """``work(*job)`` for every job at once: the first in this thread, the others in threads of their own; their
    results in order, or the first error raised (after every thread has finished)."""
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []
    event = stop.current()  # the caller's stop reaches every thread

    def run(i: int) -> None:
        try:
            with stop.stoppable(event):
                results[i] = work(*jobs[i])
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,), name=f"cardboard-tree-parallel-{i}")
               for i in range(1, len(jobs))]
    for thread in threads:
        thread.start()
    run(0)
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


class LeafParallel(_Threaded):
    """Leaf parallelisation: the caller selects and expands, ``workers`` threads run the simulations (see the
    module docstring)."""

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = _decision_node(state)
        self.warm_up(state)
        start = time.perf_counter()
        tree = SharedTree(new_root(state), self.config, self.vl, locked=False)
        fixed = self.worlds.draw(state, me, rng, self.config.determinizer)
        tasks: queue.SimpleQueue = queue.SimpleQueue()
        results: queue.SimpleQueue = queue.SimpleQueue()
        threads = [threading.Thread(target=_simulate, args=(tasks, results, np.random.default_rng(seed), self.config),
                                    name=f"cardboard-leaf-parallel-{i}", daemon=True)
                   for i, seed in enumerate(tree_seeds(rng, self.workers))]
        for thread in threads:
            thread.start()
        rule, busy, done = KernelRule(self.config, Uniforms(rng)), 0, 0
        try:
            while not budget_spent(self.config, done, start):
                while busy and (busy == self.workers or not results.empty()):  # wait only when all are busy
                    busy -= 1
                    tree.backup(*_arrived(results))
                stamp = next(tree.stamps)
                world = self.worlds.world(state, me, rng, self.config.determinizer, fixed, stamp - 1)
                path = tree.descend(world, rng, rule, stamp)
                done += 1
                if world.is_terminal():
                    tree.backup(path, rewards(world))
                else:
                    tasks.put((path, world))
                    busy += 1
            for _ in range(busy):
                tree.backup(*_arrived(results))
        finally:
            for _ in threads:
                tasks.put(None)
            for thread in threads:
                thread.join()
        return decide(tree.root, state, self.config.final, rng, done, time.perf_counter() - start)


def _simulate(tasks: queue.SimpleQueue, results: queue.SimpleQueue, rng: np.random.Generator,
              config: SearchConfig) -> None:
    """A leaf-parallel worker thread: for each ``(path, state)`` received, the rollout's values (or its error) go
    back with the path; stops at None."""
    while (task := tasks.get()) is not None:
        path, state = task
        try:
            values = rollout(state, rng, config)
        except BaseException as error:
            values = error
        results.put((path, values))


def _arrived(results: queue.SimpleQueue) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The next simulation back from a worker (waiting for it); a worker's error is raised here."""
    path, values = results.get()
    if isinstance(values, BaseException):
        raise values
    return path, values

"""The Python descent: every search of a game without a compiled loop (or a configuration it cannot reproduce) runs
its iterations here, one tree step at a time, as one compiled call each (``tree``'s kernels over ``core.FlatTree``).

An iteration: the world (``worlds``), then ``descend`` (selection with availability counts, chance nodes by the
sampler or by bucketing, the game's sensible moves or hard pruning) to an expansion or the end of the game, then the
leaf's values (a rollout and the evaluator, or the evaluator's prior and values for a PUCT node) and ``back_up``.
``PythonLoop`` is the driver (``config.Driver``) that runs them; its leaves wait for the evaluator in ``Leaf`` and
are answered many at a time (``SearchConfig.leaves``; ``batching``).
"""
from __future__ import annotations

import time
from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

import numpy as np

from ..envs.protocol import CHANCE, TERMINAL, GameState
from ..envs.stop import stop_point
from .batching import Request, Steps
from .config import Run, SearchConfig, SearchResult, budget_spent, decide
from .core import FlatTree, backup, unit_values
from .pruning import memory_at
from .root_prior import root_prior_of
from .strategies import Evaluator, evaluation, leaf_prior
from .tree import VISITS, Node, Uniforms, chance_edge, expand, legal_ids, moves, new_root, select_rooted
from .worlds import Worlds

def rewards(state: GameState) -> np.ndarray:
    """The returns of a terminal state mapped to [0, 1] per player."""
    info, out = state.info, np.empty(state.num_players)
    unit_values(np.asarray(state.returns(), dtype=np.float64), float(info.min_return), float(info.max_return), out)
    return out


def play_out(state: GameState, rng: np.random.Generator, config: SearchConfig) -> None:
    """``config.rollout`` in place to the end, or for ``config.depth`` turns (none at depth 0)."""
    if config.depth != 0 and not state.is_terminal():
        config.rollout(state, rng, config)


def rollout(state: GameState, rng: np.random.Generator, config: SearchConfig) -> np.ndarray:
    """``play_out``, then the rewards, or the evaluator's values where it stopped short of the end; in [0, 1]."""
    play_out(state, rng, config)
    return rewards(state) if state.is_terminal() else evaluation(config.evaluator(state)).values


NO_LOCK = nullcontext()


def descend(tree: FlatTree, root: int, state: GameState, rng: np.random.Generator, cfg: SearchConfig, rule: Rule,
            stamp: float, lock: AbstractContextManager = NO_LOCK,
            visits: float = 1.0) -> tuple[list[tuple[int, int]], int, np.ndarray | None, np.ndarray | None]:
    """The tree policy of every Python-driven search: selection from node ``root`` of ``tree`` in the world ``state``
    (played along, in place) by the selection ``rule`` (``Rule.step``; ``stamp``: the iteration), chance nodes by
    ``cfg``'s sampler or bucketing, the game's sensible moves (``cfg.prune``) and hard pruning (``cfg.pruning``), until
    an expansion (a never-visited edge; with a rule that ``expands_nodes``, PUCT's and Gumbel's node-wise expansion: a
    node never expanded) or the end of the game. Each edge taken counts ``visits`` visits now and its reward at
    backup: the virtual loss of the iterations still in flight. Returns the path of (node, edge) and, for a node-wise
    expansion, the node with its legal key ids and actions (else -1, None, None). ``lock`` guards the tree when
    threads share it (held for each compiled step, never while the game moves)."""
    table, by_node, step, draw = tree.table, rule.expands_nodes, rule.step, rule.draw
    prune, pruning = cfg.prune, cfg.pruning
    path: list[tuple[int, int]] = []
    node, link = root, -1
    while (player := state.current_player) != TERMINAL:
        if player == CHANCE:
            if cfg.bucketing is None:
                outcome = int(cfg.chance_sampler(state, rng))
            else:
                with lock:  # CNB's pre-samples are the chance node's: it is made first
                    if link >= 0:
                        node, link = tree.child(link, CHANCE), -1
                    outcome = cfg.bucketing.successor(tree.presampled.setdefault(node, {}), state, rng)
            with lock:
                node, link = tree.step(chance_edge, 1, node, link, outcome)
            state.apply(outcome)
            continue
        legal = moves(state, prune)
        with lock:
            ids = legal_ids(table, state, legal, not prune)
            if link >= 0 and (by_node or pruning is not None):  # the node is read before the step
                node, link = tree.child(link, player), -1
        if pruning is not None:
            with lock:
                tree.pruned[node], legal, ids = pruning.filter(memory_at(tree, node), state, legal, ids, rng,
                                                               table.size)
        if by_node and tree.node_size[node] == 0:  # node-wise expansion (PUCT): a node never reached before
            return path, node, ids.copy(), legal.copy()
        u = draw()  # outside the lock: threads sharing the tree wait only for the compiled step
        with lock:  # the compiled step writes the tree: the child, availability, new edges, the visit
            node, i, link, fresh = step(tree, node, link, player, ids, stamp, visits, not path, u)
        state.apply(int(legal[i]))
        path.append((node, link))
        if fresh and not by_node:
            break  # expansion: the rollout starts below the new edge
    return path, -1, None, None


def back_up(tree: FlatTree, path: list[tuple[int, int]], values: np.ndarray, lock: AbstractContextManager = NO_LOCK,
            visits: float = 0.0) -> None:
    """The backup of every Python-driven search (``core.backup``): each edge of ``path`` gets the reward ``values``
    of the player who chose it (its node's player) and ``visits`` more visits (a virtual loss larger than one visit,
    settled)."""
    if not path:
        return
    nodes, edges = np.array(path, dtype=np.int64).T.copy()
    with lock:
        backup(tree.stat, tree.node_player, nodes, edges, len(path), np.asarray(values, dtype=np.float64))
        if visits:
            tree.stat[VISITS, edges] += visits




class Rule(Protocol):
    """One search's selection rule over the loop (as mctx's ``search`` takes its root and interior action selection
    functions): ``step`` is the tree step at a decision node, at the root or below, with a uniform from ``draw``;
    ``begin`` what the search does
    before its iterations; ``more`` whether another iteration runs; ``flush`` whether the leaves waiting are settled
    now; ``settled`` sees the leaves once backed up; ``result`` makes the ``SearchResult``. ``expands_nodes``: a node
    first reached is the leaf (PUCT, Gumbel), else an edge first taken; ``offset``: iterations' world index offset
    (1 where ``begin`` evaluated the root in world 0); ``holds_backups``: leaves without asks wait for ``flush`` too."""

    expands_nodes: bool
    offset: int
    holds_backups: bool

    def draw(self) -> float: ...

    def step(self, tree: FlatTree, node: int, link: int, player: int, ids: np.ndarray, stamp: float, visits: float,
             at_root: bool, u: float) -> tuple[int, int, int, bool]: ...

    def begin(self, loop: PythonLoop, tree: FlatTree, run: Run, fixed: list[GameState]) -> Steps[None]: ...

    def more(self, done: int, start: float) -> bool: ...

    def flush(self, waiting: list[Leaf], leaf: Leaf, done: int) -> bool: ...

    def settled(self, leaves: list[Leaf], done: int) -> None: ...

    def result(self, root: Node, run: Run, done: int) -> SearchResult: ...


class KernelRule:
    """The rule of a selection with a compiled ``kernel`` (UCB1: ``tree.select_edge``; PUCT: ``tree.select_puct``):
    one uniform from the block a step (PUCT's unused), the root's step PUCT over a root prior where one is set
    (``tree.select_rooted``), the budget the config's (or the call's ``iterations``), ``config.final`` decides."""

    offset = 0
    holds_backups = False

    def __init__(self, config: SearchConfig, uniforms: Uniforms, iterations: int | None = None):
        selection = config.selection
        self.kernel, self.c, self.expands_nodes = selection.kernel, selection.constant(config), selection.expands_nodes
        self.config, self.draw, self.iterations = config, uniforms.next, iterations

    def step(self, tree: FlatTree, node: int, link: int, player: int, ids: np.ndarray, stamp: float, visits: float,
             at_root: bool, u: float) -> tuple[int, int, int, bool]:
        if at_root and len(tree.root_prior):  # the root under a root prior (``root_prior``)
            return tree.step(select_rooted, len(ids), node, link, player, ids, self.config.root_cpuct, stamp, u,
                             visits, tree.root_prior)
        return tree.step(self.kernel, len(ids), node, link, player, ids, self.c, stamp, u, visits)

    def begin(self, loop: PythonLoop, tree: FlatTree, run: Run, fixed: list[GameState]) -> Steps[None]:
        yield from ()

    def more(self, done: int, start: float) -> bool:
        iterations = self.iterations
        return (done < iterations) if iterations is not None else not budget_spent(self.config, done, start)

    def flush(self, waiting: list[Leaf], leaf: Leaf, done: int) -> bool:
        return len(waiting) >= self.config.leaves or not leaf.path  # a new root is expanded before any other leaf

    def settled(self, leaves: list[Leaf], done: int) -> None:
        pass

    def result(self, root: Node, run: Run, done: int) -> SearchResult:
        return decide(root, run.state, self.config.final, run.rng, done, time.perf_counter() - run.start)


class PythonLoop:
    """The Python driver (module docstring): ``steps(run)`` runs a search's iterations on ``run.root``'s tree or a
    new one by the selection's rule (``KernelRule``, or the selection's own ``rule``: Gumbel's) and returns its
    ``SearchResult``."""

    name = "python"

    def __init__(self, config: SearchConfig, worlds: Worlds):
        self.config, self.worlds = config, worlds

    def rule(self, run: Run, uniforms: Uniforms) -> Rule:
        """The selection's rule for ``run``."""
        selection = self.config.selection
        if selection.kernel is None:
            return selection.rule(self.config, run)
        return KernelRule(self.config, uniforms, run.iterations)

    def steps(self, run: Run) -> Steps[SearchResult]:
        """The iterations of ``run`` (``config.Driver``): it yields a ``Request`` for the states whose evaluation it
        waits for (``config.leaves`` leaves, more when a PUCT leaf also needs values after a rollout), is sent the
        evaluator's answers for them in order, and returns the result. A search that never needs the evaluator
        (rollouts to the end) runs through without yielding."""
        run.start = time.perf_counter()
        cfg, state, rng, iterations, me = self.config, run.state, run.rng, run.iterations, run.me
        uniforms = Uniforms(rng)
        rule = self.rule(run, uniforms)
        root = run.root or new_root(state, iterations or cfg.iterations)
        tree, at = root._live(), root.index
        if iterations != 0:
            tree.root_prior = root_prior_of(cfg, state, tree.table)
        fixed = self.worlds.draw(state, me, rng, cfg.determinizer) if iterations != 0 or rule.offset else []
        yield from rule.begin(self, tree, run, fixed)
        waiting: list[Leaf] = []
        done = 0
        while rule.more(done, run.start):
            stop_point()
            world = self.worlds.world(state, me, rng, cfg.determinizer, fixed, done + rule.offset)
            done += 1
            leaf = self.iteration(tree, at, world, rng, rule, run.stamp + done, me)
            if rule.holds_backups or leaf.asks or leaf.rollout is not None:
                waiting.append(leaf)
                if rule.flush(waiting, leaf, done):
                    yield from self.finish(waiting, rule, done)
            else:
                leaf.backup()
                rule.settled([leaf], done)
        if waiting:
            yield from self.finish(waiting, rule, done)
        return rule.result(root, run, done)

    def iteration(self, tree: FlatTree, root: int, state: GameState, rng: np.random.Generator, rule: Rule,
                  stamp: float, me: int) -> Leaf:
        """One iteration for player ``me`` from node ``root`` in the world ``state`` up to what it waits for
        (``descend``, then the node's expansion or the rollout; ``stamp``: the iteration). The leaf's ``asks`` are the
        evaluations it still needs."""
        path, node, ids, legal = descend(tree, root, state, rng, self.config, rule, stamp)
        if node >= 0:
            return self.expansion(Leaf(tree, path, node, ids, legal), state, rng, me)
        return self.rolled_out(Leaf(tree, path), state, rng, me)

    def finish(self, waiting: list[Leaf], rule: Rule, done: int) -> Steps[None]:
        """Back up the waiting leaves that need no answer, settle the others (``settle``), show them all to ``rule``
        and empty ``waiting``."""
        leaves, pending = list(waiting), [leaf for leaf in waiting if leaf.asks or leaf.rollout is not None]
        for leaf in leaves:
            if not (leaf.asks or leaf.rollout is not None):
                leaf.backup()
        if pending:
            yield from self.settle(pending)
        rule.settled(leaves, done)
        waiting.clear()

    def rolled_out(self, leaf: Leaf, state: GameState, rng: np.random.Generator, me: int) -> Leaf:
        """``leaf`` after a rollout from ``state`` (none at depth 0): its values, or an ask for them. A resumable
        rollout (the rollout strategy's ``steps``, e.g. a network's rollout policy) is started here and left in
        ``leaf.rollout`` when it waits for an evaluator: the leaves in flight advance it together (``settle``). A
        learned leaf value (``leaf_value``) values it first, for ``me`` at a chance node, then mixes in the
        rollout's values unless ``mix`` is 1."""
        learned = self.config.leaf_value
        if learned is not None and learned.mix > 0.0 and not state.is_terminal():  # mix 0: the rollout's alone
            leaf.values = learned(state, me)
            if learned.mix < 1.0:
                leaf.values = learned.mix * leaf.values + (1.0 - learned.mix) * rollout(state, rng, self.config)
            return leaf
        resumable = getattr(self.config.rollout, "steps", None) if self.config.depth != 0 else None
        if resumable is None or state.is_terminal():
            play_out(state, rng, self.config)
            return leaf.rolled_out(state, self.config.evaluator)
        leaf.rollout, leaf.state = resumable(state, rng, self.config), state
        leaf.advance(None, self.config.evaluator)
        return leaf

    def expansion(self, leaf: Leaf, state: GameState, rng: np.random.Generator, me: int) -> Leaf:
        """A PUCT ``leaf``: its node waits for its prior (from the evaluator at depth 0, from ``config.prior`` before
        a rollout, else uniform) and the iteration for its values (the evaluator's at depth 0, else a rollout's)."""
        if self.config.depth == 0:
            leaf.asks.append((self.config.evaluator, state, PRIOR_AND_VALUES))
            return leaf
        if self.config.prior is not None:
            leaf.asks.append((self.config.prior, state.clone(), PRIOR_ONLY))
        return self.rolled_out(leaf, state, rng, me)

    def settle(self, waiting: list[Leaf]) -> Steps[None]:
        """Finish every waiting leaf, then empty ``waiting``. Each round yields one ``Request``: the states of
        every leaf whose rollout waits (its rollout's request) and the asks of every leaf whose rollout is done
        (in the leaves' order); it hands each leaf its answers, advances the rollouts, and expands and backs up
        the leaves whose asks were answered. Without resumable rollouts this is one round."""
        evaluator = self.config.evaluator
        while waiting:
            parts = [leaf.pending if leaf.rollout is not None else Request(*leaf.ask_lists()) for leaf in waiting]
            request = Request([e for p in parts for e in p.evaluators], [s for p in parts for s in p.states])
            answers = (yield request) if request.states else []
            first, still = 0, []
            for leaf, part in zip(waiting, parts):
                got, first = answers[first:first + len(part.states)], first + len(part.states)
                if leaf.rollout is not None:
                    leaf.advance(got, evaluator)
                    still.append(leaf)
                else:
                    leaf.settle(got)
            waiting[:] = still


VALUES, PRIOR_ONLY, PRIOR_AND_VALUES = range(3)  # what a leaf asks an evaluator for


class Leaf:
    """An iteration of ``tree`` waiting to finish: its ``path`` of (node, edge) (visits already counted), the PUCT
    ``node`` to expand (-1: none) with its legal ``ids`` / ``legal`` actions, the ``asks`` (evaluator, state, VALUES /
    PRIOR_ONLY / PRIOR_AND_VALUES) it waits for, and its per-player ``values`` once known."""

    __slots__ = ("tree", "path", "node", "ids", "legal", "asks", "values", "rollout", "state", "pending")

    def __init__(self, tree: FlatTree, path: list[tuple[int, int]], node: int = -1, ids: np.ndarray | None = None,
                 legal: np.ndarray | None = None):
        self.tree, self.path, self.node, self.ids, self.legal = tree, path, node, ids, legal
        self.asks: list[tuple[Evaluator, GameState, int]] = []
        self.values: np.ndarray | None = None
        self.rollout: Steps[None] | None = None  # a resumable rollout still running, from ``state``
        self.state: GameState | None = None
        self.pending: Request | None = None  # what the running rollout waits for

    def rolled_out(self, state: GameState, evaluator: Evaluator) -> Leaf:
        """After the rollout: the rewards at a terminal ``state``, else an ask for the evaluator's values."""
        if state.is_terminal():
            self.values = rewards(state)
        else:
            self.asks.append((evaluator, state, VALUES))
        return self

    def advance(self, answers: list | None, evaluator: Evaluator) -> None:
        """Send the running rollout ``answers`` (None: start it); when it returns, ``rolled_out``."""
        try:
            self.pending = self.rollout.send(answers)
        except StopIteration:
            self.rollout, self.pending = None, None
            self.rolled_out(self.state, evaluator)
            self.state = None

    def ask_lists(self) -> tuple[list[Evaluator], list[GameState]]:
        """The evaluators and states of the asks, in order."""
        return [evaluator for evaluator, _, _ in self.asks], [state for _, state, _ in self.asks]

    def settle(self, answers: list) -> None:
        """Take the answers of the asks (in order): expand the PUCT node with a prior, keep the values; back up."""
        for (_, _, use), answer in zip(self.asks, answers):
            found = evaluation(answer)
            if use != VALUES and self.tree.node_size[self.node] == 0:  # another leaf in flight may have expanded it
                expand(self.tree, self.node, self.ids, leaf_prior(found.prior, self.legal))
            if use != PRIOR_ONLY:
                self.values = found.values
        self.backup()

    def backup(self) -> None:
        """Expand the PUCT node (uniform prior if nothing filled it) and add the values to the total of every
        edge on the path, for the player who chose it."""
        if self.node >= 0 and self.tree.node_size[self.node] == 0:
            expand(self.tree, self.node, self.ids, leaf_prior(None, self.legal))
        back_up(self.tree, self.path, self.values)

"""Monte Carlo tree search over the forward-model protocol: UCT, SO-ISMCTS, DUCT and PIMC in one engine.

One tree policy serves them all; they differ only in where each iteration's
world comes from (the ``worlds`` strategy):

==========  ====================================================================
``uct``     the true state (perfect information; on a hidden-information game
            this is the "cheating" UCT of paper 000 §2.1, for open mode)
``ismcts``  a fresh ``determinize(me, rng)`` every iteration: single-observer
            ISMCTS (paper 000 §2.3), nodes are information sets
``duct``    ``worlds`` determinizations sampled once per decision, iterations
            round-robin over them (paper 001 Algorithm 3)
==========  ====================================================================

Tree edges are keyed by ``state.action_key(a)``, so actions that mean the same
thing in different worlds share statistics (001 §2.3 "soft equality"). A child's
``avail`` counts the iterations in which it was legal, and UCB1 uses it in place
of the parent's visits (availability counts of SO-ISMCTS). UCB1 is
``mean + c * sqrt(ln(avail) / visits)`` on rewards in [0, 1]; unvisited
children are tried first, in random order (001 §2.2). The tree is a flat
``core.FlatTree``, the one the compiled drivers fill; one tree step is one
compiled call over it (``tree.select_edge``). Chance nodes are
explicit: their successor comes from a pluggable ``chance_sampler(state, rng)``
(default: by the outcome probabilities), or, with ``bucketing``, from
chance-node bucketing with pre-sampled successors (``chance``, 001 §2.6).

The tree step, the leaf evaluation and the rollout are strategy objects
(``strategies``): ``selection`` (``UCB1()``, or ``PUCT(c_puct)`` over priors
from the evaluator), ``evaluator`` (values, optionally an ``Evaluation`` with a
prior) and ``rollout`` (``GameRollout()``: the state's compiled
``random_playout`` when it has one and the chance sampler is the default, else
uniformly random moves; ``PolicyRollout(policy)``). Rollouts run to the end of
the game, or for ``depth`` player turns followed by the ``evaluator``
(default: the game's ``heuristic`` mapped to [0, 1]); ``depth=0`` evaluates
the leaf directly, without a rollout. With PUCT and a rollout, a new node's
prior comes from ``prior`` (an evaluator whose answer carries one, e.g. a
network), the values from the rollout as above. ``root_prior`` (UCB1 only) is asked once a search: the root's step is
PUCT over its prior, the rest of the search UCB1's (``root_prior``), compiled where the search is.
``prune`` steps the tree over the game's ``sensible_actions`` (its own move filter); ``pruning`` (a
``pruning.HardPruning``) keeps only the top moves by the game's heuristics at every decision node
(paper 002's hard pruning). ``PIMC`` runs one UCT tree per determinization and adds up root visits.
UCT and ISMCTS searches of a game that offers ``compiled_model()``, in the plain configuration (hard pruning
included where the model scores moves), run whole iterations compiled (``compiled``: the same statistics,
``SearchConfig(compiled=False)`` to opt out).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, TERMINAL, GameState, determinize, sample_chance
from ..envs.stop import stop_point
from . import compiled, compiled_network
from .batching import Request, Steps, drive
from .core import FlatTree, backup, heuristic_unit, unit_values
from .chance import ChanceBucketing
from .final import FinalSelection, max_child, robust_child  # max_child: re-exported
from .pruning import HardPruning, memory_at
from .strategies import UCB1, Evaluator, GameRollout, Rollout, Selection, evaluation, leaf_prior
from .root_prior import root_prior_of
from .tree import (VISITS, Node, Uniforms, chance_edge, expand, legal_ids, legal_keys, moves, new_root,
                   select_rooted)
from .warm_up import WarmUp

Determinizer = Callable[[GameState, int, np.random.Generator], GameState]
ChanceSampler = Callable[[GameState, np.random.Generator], int]


def rewards(state: GameState) -> np.ndarray:
    """The returns of a terminal state mapped to [0, 1] per player."""
    info, out = state.info, np.empty(state.num_players)
    unit_values(np.asarray(state.returns(), dtype=np.float64), float(info.min_return), float(info.max_return), out)
    return out


uniform_determinizer: Determinizer = determinize
"""A world sampled uniformly from ``player``'s information set: the game's own ``determinize``, guarded
(``protocol.determinize`` refuses a result that is the live state)."""


@dataclass(frozen=True)
class InferenceAccuracy:
    """Paper 001 §3.6.1's inference-accuracy knob as a determinizer: each world starts from the TRUE state
    and each hidden opponent card is replaced, with probability 1 - ``accuracy``, by a different one (a
    research tool: it reads the truth; for games whose ``determinize`` takes ``accuracy``)."""

    accuracy: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.accuracy <= 1.0:
            raise InvalidParameterError(f"accuracy must be in [0, 1], got {self.accuracy}")

    def __call__(self, state: GameState, player: int, rng: np.random.Generator) -> GameState:
        return determinize(state, player, rng, accuracy=self.accuracy)


def heuristic_evaluator(state: GameState) -> np.ndarray:
    """Per-player value in [0, 1] of a non-terminal state from the game's ``heuristic`` ([-1, 1])."""
    return np.array([heuristic_unit(state.heuristic(p)) for p in range(state.num_players)])


@dataclass
class SearchResult:
    """The chosen action, the root visit counts by action key (a policy target) and the work done.

    ``policy``: an improved policy by action key over the root's legal keys, summing to 1, where the search computes
    one (Gumbel search's π′, ``gumbel``); None otherwise (the visits are the target). ``value``: the search's
    estimate of the root player's reward in [0, 1] (the mean over the root's visits; None without any)."""

    action: int
    visits: dict[Hashable, int]
    iterations: int
    seconds: float
    root: Node | None = None  # the search tree's root, a view (None for flat Monte Carlo and PIMC)
    policy: dict[Hashable, float] | None = None
    value: float | None = None


@dataclass
class SearchConfig:
    """Budget and tree-policy settings shared by every algorithm."""

    iterations: int | None = 1000
    seconds: float | None = None
    c: float = 0.7  # UCB1's exploration constant (PUCT carries its own c_puct)
    depth: int | None = None  # rollout depth in player turns; None = to the end of the game, 0 = evaluate the leaf
    evaluator: Evaluator = heuristic_evaluator
    selection: Selection = UCB1()
    rollout: Rollout = GameRollout()
    chance_sampler: ChanceSampler = sample_chance
    final: FinalSelection = robust_child
    bucketing: ChanceBucketing | None = None  # CNB at tree chance nodes (rollouts use chance_sampler)
    determinizer: Determinizer = uniform_determinizer  # where the worlds of ismcts / duct / pimc / mc come from
    prune: bool = False  # tree steps over the game's sensible_actions() (heuristic pruning) instead of all legal
    pruning: HardPruning | None = None  # hard pruning by the game's heuristics at every decision node (paper 002)
    leaves: int = 1  # leaves in flight: iterations descend (virtual loss) until this many wait for the evaluator
    prior: Evaluator | None = None  # PUCT with a rollout (depth != 0): who gives a new node's prior (None: uniform)
    root_prior: Evaluator | None = None  # UCB1 below a PUCT root over this evaluator's prior, asked once (root_prior)
    root_cpuct: float = 1.25  # the root's PUCT constant under a root_prior
    compiled: bool = True  # whole iterations in compiled code where the game and this configuration allow (compiled)

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise InvalidParameterError("a search needs a budget: iterations, seconds or both")
        if self.iterations is not None and self.iterations < 1:
            raise InvalidParameterError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise InvalidParameterError(f"seconds must be > 0, got {self.seconds}")
        if not self.c >= 0:
            raise InvalidParameterError(f"c must be >= 0, got {self.c}")
        if self.depth is not None and self.depth < 0:
            raise InvalidParameterError(f"depth must be >= 0 turns, got {self.depth}")
        if not (isinstance(self.leaves, int) and not isinstance(self.leaves, bool) and self.leaves >= 1):
            raise InvalidParameterError(f"leaves must be an int >= 1, got {self.leaves!r}")
        if not self.root_cpuct >= 0:
            raise InvalidParameterError(f"root_cpuct must be >= 0, got {self.root_cpuct}")
        if self.root_prior is not None and (type(self.selection) is not UCB1 or self.depth == 0):
            raise InvalidParameterError("root_prior steers the root of a UCB1 search over rollouts: it needs UCB1 "
                                        "selection and depth != 0")


def budget_spent(config: SearchConfig, done: int, start: float) -> bool:
    """True once ``done`` iterations or the wall-clock seconds since ``start`` reach the budget; ``Stopped`` when the
    caller stops the decision (``envs.stop``)."""
    stop_point()
    if config.iterations is not None and done >= config.iterations:
        return True
    return config.seconds is not None and time.perf_counter() - start >= config.seconds


def play_out(state: GameState, rng: np.random.Generator, config: SearchConfig) -> None:
    """``config.rollout`` in place to the end, or for ``config.depth`` turns (none at depth 0)."""
    if config.depth != 0 and not state.is_terminal():
        config.rollout(state, rng, config)


def rollout(state: GameState, rng: np.random.Generator, config: SearchConfig) -> np.ndarray:
    """``play_out``, then the rewards, or the evaluator's values where it stopped short of the end; in [0, 1]."""
    play_out(state, rng, config)
    return rewards(state) if state.is_terminal() else evaluation(config.evaluator(state)).values


def decide(root: Node, state: GameState, final: FinalSelection, rng: np.random.Generator, done: int,
           seconds: float) -> SearchResult:
    """A search's result from its ``root``: ``final`` over the visited edges legal in ``state`` (the first legal
    action when none was visited), their visits, ``done`` iterations in ``seconds``."""
    actions = dict(zip(legal_keys(state), np.asarray(state.legal_actions()).tolist()))
    edges = {k: s for k, s in root.stats().items() if k in actions and s[0] > 0}
    key = final(edges, rng) if edges else next(iter(actions))
    visits = sum(s[0] for s in edges.values())
    value = sum(s[0] * s[1] for s in edges.values()) / visits if visits else None
    return SearchResult(actions[key], {k: s[0] for k, s in edges.items()}, done, seconds, root, value=value)


NO_LOCK = nullcontext()


def descend(tree: FlatTree, root: int, state: GameState, rng: np.random.Generator, cfg: SearchConfig,
            select: Callable, c: float, by_node: bool, uniforms: Uniforms, stamp: float,
            lock: AbstractContextManager = NO_LOCK,
            visits: float = 1.0) -> tuple[list[tuple[int, int]], int, np.ndarray | None, np.ndarray | None]:
    """The tree policy of every Python-driven search: selection from node ``root`` of ``tree`` in the world ``state``
    (played along, in place) with availability (``select``: the selection's kernel with constant ``c``; ``stamp``:
    the iteration), chance nodes by ``cfg``'s sampler or bucketing, the game's sensible moves (``cfg.prune``) and
    hard pruning (``cfg.pruning``), until an expansion (a never-visited edge; with ``by_node``, PUCT's node-wise
    expansion: a node never expanded) or the end of the game. Each edge taken counts ``visits`` visits now and its
    reward at backup: the virtual loss of the iterations still in flight. Returns the path of (node, edge) and, for
    a node-wise expansion, the node with its legal key ids and actions (else -1, None, None). ``lock`` guards the
    tree when threads share it (held for each compiled step, never while the game moves)."""
    table = tree.table
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
        legal = moves(state, cfg.prune)
        with lock:
            ids = legal_ids(table, state, legal, not cfg.prune)
            if link >= 0 and (by_node or cfg.pruning is not None):  # the node is read before the step
                node, link = tree.child(link, player), -1
        if cfg.pruning is not None:
            with lock:
                tree.pruned[node], legal, ids = cfg.pruning.filter(memory_at(tree, node), state, legal, ids, rng,
                                                                   table.size)
        if by_node and tree.node_size[node] == 0:  # node-wise expansion (PUCT): a node never reached before
            return path, node, ids.copy(), legal.copy()
        u = uniforms.next()
        with lock:  # the compiled step writes the tree: the child, availability, new edges, the visit
            if path or not len(tree.root_prior):
                node, i, link, fresh = tree.step(select, len(ids), node, link, player, ids, c, stamp, u, visits)
            else:  # the root under a root prior (``root_prior``)
                node, i, link, fresh = tree.step(select_rooted, len(ids), node, link, player, ids, cfg.root_cpuct,
                                                 stamp, u, visits, tree.root_prior)
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


class TreeSearch(WarmUp):
    """The MCTS engine: ``search(state, rng)`` from the point of view of ``state.current_player``.

    With ``reuse``, the subtree below the chosen action is kept and the next search starts from it when
    it is the same player's next decision of the same turn and the player's observation is the one that
    action led to (001 §2.4: a turn is several decisions; the tree of the first serves the next).
    """

    def __init__(self, config: SearchConfig, worlds: str = "ismcts", num_worlds: int = 1, reuse: bool = False):
        if worlds not in ("uct", "ismcts", "duct"):
            raise InvalidParameterError(f"worlds must be 'uct', 'ismcts' or 'duct', got {worlds!r}")
        if num_worlds < 1:
            raise InvalidParameterError(f"num_worlds must be >= 1, got {num_worlds}")
        if config.selection.kernel is None and type(self).steps is TreeSearch.steps:
            raise InvalidParameterError(f"{type(config.selection).__name__} steps the tree itself: search with its own "
                                        "engine (search.gumbel.GumbelSearch)")
        self.config = config
        self.worlds = worlds
        self.num_worlds = num_worlds
        self.reuse = reuse
        self._kept: tuple[Node, int, np.ndarray] | None = None  # subtree, turn, observation it belongs to
        self._stamp = 0.0  # iterations run by this engine: availability stamps stay unique across kept trees
        self.flat_tree: FlatTree | None = None  # the compiled drivers' tree, kept from search to search

    def untimed(self, config: SearchConfig) -> TreeSearch:
        return TreeSearch(config, self.worlds, self.num_worlds)

    def search(self, state: GameState, rng: np.random.Generator, iterations: int | None = None,
               root: Node | None = None) -> SearchResult:
        """Search from ``state`` for its player. ``iterations`` replaces the configured budget for this call
        (0: decide from the tree as it is); ``root`` continues that tree instead of the kept one or a new one.
        The evaluator answers each batch of leaves at once (``batching.drive``)."""
        return drive(self.steps(state, rng, iterations, root))

    def steps(self, state: GameState, rng: np.random.Generator, iterations: int | None = None,
              root: Node | None = None) -> Steps[SearchResult]:
        """``search`` as a resumable computation: it yields a ``Request`` for the states whose evaluation it
        waits for (``config.leaves`` leaves, more when a PUCT leaf also needs values after a rollout), is sent
        the evaluator's answers for them in order, and returns the ``SearchResult``. A search that never
        needs the evaluator (rollouts to the end) runs through without yielding. Many searches driven
        together (``batching.run_together``) put their leaves in one network batch."""
        me = state.current_player
        if me < 0:
            raise InvalidParameterError(f"search needs a decision node, current_player is {me}")
        if iterations is None:
            self.warm_up(state)
        prepared = compiled.prepare(self, state, rng) if root is None else None  # loaded before the clock starts
        guided = compiled_network.prepare(self, state, rng) if root is None and prepared is None else None
        start = time.perf_counter()
        if prepared is not None:
            return compiled.search(self, prepared, state, rng, iterations, start)
        if guided is not None:
            return (yield from compiled_network.search(self, guided, state, rng, iterations, start))
        root = root or self.take_kept(state) or new_root(state, iterations or self.config.iterations)
        tree, at = root._live(), root.index
        if iterations != 0:
            tree.root_prior = root_prior_of(self.config, state, tree.table)
        worlds = range(self.num_worlds) if self.worlds == "duct" else ()
        fixed = [self.config.determinizer(state, me, rng) for _ in worlds] if iterations != 0 else []
        uniforms = Uniforms(rng)
        selection = self.config.selection
        resumable = getattr(self.config.rollout, "steps", None) if self.config.depth != 0 else None
        step = selection.kernel, selection.constant(self.config), selection.expands_nodes, resumable
        in_flight = self.config.leaves
        waiting: list[Leaf] = []
        done = 0
        while (done < iterations) if iterations is not None else not budget_spent(self.config, done, start):
            stop_point()
            if self.worlds == "uct":
                world = state.clone()
            elif self.worlds == "ismcts":
                world = self.config.determinizer(state, me, rng)
            else:
                world = fixed[done % self.num_worlds].clone()
            done += 1
            leaf = self._descend(tree, at, world, rng, step, uniforms, self._stamp + done)
            if leaf.asks or leaf.rollout is not None:
                waiting.append(leaf)
                if len(waiting) >= in_flight or not leaf.path:  # a new root is expanded before any other leaf
                    yield from self._settle(waiting)
            else:
                leaf.backup()
        if waiting:
            yield from self._settle(waiting)
        self._stamp += done
        result = self._result(root, state, rng, done, time.perf_counter() - start)
        if self.reuse:
            self._keep(root, state, result.action)
        return result

    def reset(self) -> None:
        """A new game: drop the kept subtree."""
        self._kept = None

    def take_kept(self, state: GameState) -> Node | None:
        """The kept subtree if ``state`` is where the last chosen action led (same turn, same observation),
        handed over once (None otherwise, and the kept subtree is dropped)."""
        if self._kept is None:
            return None
        node, turn, seen = self._kept
        self._kept = None
        me = state.current_player
        same = node.player == me and state.turn == turn and np.array_equal(state.observation(me), seen)
        return node if same else None

    def _keep(self, root: Node, state: GameState, action: int) -> None:
        after = state.clone()
        after.apply(action)
        if after.current_player != root.player or after.turn != state.turn:
            return  # a chance event or the opponent next: nothing worth keeping
        edge = root.edge(state.action_key(action))
        child = root.child_for(edge, root.player) if edge >= 0 else None
        if child is not None:
            self._kept = (child, after.turn, after.observation(root.player))

    def _result(self, root: Node, state: GameState, rng: np.random.Generator, done: int, seconds: float) -> SearchResult:
        return decide(root, state, self.config.final, rng, done, seconds)

    def _descend(self, tree: FlatTree, root: int, state: GameState, rng: np.random.Generator,
                 step: tuple[Callable, float, bool, Callable | None], uniforms: Uniforms, stamp: float) -> Leaf:
        """One iteration from node ``root`` up to what it waits for (``descend``, then the PUCT node's expansion or
        the rollout; ``stamp``: the iteration; ``step``: the selection's kernel, constant, whether it expands nodes
        and the resumable rollout, read once per search). The leaf's ``asks`` are the evaluations it still needs."""
        select, c, by_node, resumable = step
        path, node, ids, legal = descend(tree, root, state, rng, self.config, select, c, by_node, uniforms, stamp)
        if node >= 0:
            return self._expansion(Leaf(tree, path, node, ids, legal), state, rng, resumable)
        return self._rolled_out(Leaf(tree, path), state, rng, resumable)

    def _rolled_out(self, leaf: Leaf, state: GameState, rng: np.random.Generator,
                    resumable: Callable | None) -> Leaf:
        """``leaf`` after a rollout from ``state`` (none at depth 0): its values, or an ask for them. A resumable
        rollout (``resumable``: the rollout strategy's ``steps``, e.g. a network's rollout policy; read once per
        search) is started here and left in ``leaf.rollout`` when it waits for an evaluator: the leaves in flight
        advance it together (``_settle``)."""
        if resumable is None or state.is_terminal():
            play_out(state, rng, self.config)
            return leaf.rolled_out(state, self.config.evaluator)
        leaf.rollout, leaf.state = resumable(state, rng, self.config), state
        leaf.advance(None, self.config.evaluator)
        return leaf

    def _expansion(self, leaf: Leaf, state: GameState, rng: np.random.Generator, resumable: Callable | None) -> Leaf:
        """A PUCT ``leaf``: its node waits for its prior (from the evaluator at depth 0, from ``config.prior`` before
        a rollout, else uniform) and the iteration for its values (the evaluator's at depth 0, else a rollout's)."""
        if self.config.depth == 0:
            leaf.asks.append((self.config.evaluator, state, PRIOR_AND_VALUES))
            return leaf
        if self.config.prior is not None:
            leaf.asks.append((self.config.prior, state.clone(), PRIOR_ONLY))
        return self._rolled_out(leaf, state, rng, resumable)

    def _settle(self, waiting: list[Leaf]) -> Steps[None]:
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


class PIMC:
    """Perfect-information Monte Carlo: one UCT tree per determinization, root visits added up by action key.

    The budget is spent exactly: ``iterations`` split over the worlds as evenly as it goes (the first
    ``iterations % num_worlds`` worlds get one more), and no more worlds than iterations are drawn."""

    def __init__(self, config: SearchConfig, num_worlds: int = 10):
        if num_worlds < 1:
            raise InvalidParameterError(f"num_worlds must be >= 1, got {num_worlds}")
        if config.iterations is None:
            raise InvalidParameterError("PIMC splits an iteration budget over its worlds: give iterations")
        self.config = config
        self.num_worlds = num_worlds

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = state.current_player
        start = time.perf_counter()
        base, extra = divmod(self.config.iterations, self.num_worlds)
        votes: dict[Hashable, int] = {}
        done = 0
        for world in range(min(self.num_worlds, self.config.iterations)):
            sub = replace(self.config, iterations=base + (world < extra))
            result = TreeSearch(sub, "uct").search(self.config.determinizer(state, me, rng), rng)
            done += result.iterations
            for key, visits in result.visits.items():
                votes[key] = votes.get(key, 0) + visits
        actions = {state.action_key(int(a)): int(a) for a in state.legal_actions()}
        votes = {k: v for k, v in votes.items() if k in actions}
        keys = list(votes) or list(actions)
        counts = np.array([votes.get(k, 0) for k in keys])
        best = np.flatnonzero(counts == counts.max())
        key = keys[int(best[rng.integers(len(best))])]
        return SearchResult(actions[key], votes, done, time.perf_counter() - start)


class FlatMonteCarlo(WarmUp):
    """Flat Monte Carlo: root actions tried round-robin, each with a random rollout; the best mean wins.

    On a hidden-information game every rollout starts from a fresh determinization.
    """

    def __init__(self, config: SearchConfig):
        self.config = config

    def untimed(self, config: SearchConfig) -> FlatMonteCarlo:
        return FlatMonteCarlo(config)

    def search(self, state: GameState, rng: np.random.Generator) -> SearchResult:
        me = state.current_player
        self.warm_up(state)
        start = time.perf_counter()
        legal = [int(a) for a in state.legal_actions()]
        totals = np.zeros(len(legal))
        counts = np.zeros(len(legal))
        done = 0
        while not budget_spent(self.config, done, start):
            i = done % len(legal)
            world = self.config.determinizer(state, me, rng)
            world.apply(legal[i])
            totals[i] += rollout(world, rng, self.config)[me]
            counts[i] += 1
            done += 1
        means = np.divide(totals, counts, out=np.zeros_like(totals), where=counts > 0)
        best = np.flatnonzero(means == means.max())
        choice = int(best[rng.integers(len(best))])
        visits = {state.action_key(a): int(n) for a, n in zip(legal, counts)}
        return SearchResult(legal[choice], visits, done, time.perf_counter() - start)

"""Monte Carlo tree search over the forward-model protocol: UCT, SO-ISMCTS, DUCT and PIMC in one engine.

One tree policy serves them all; they differ only in where each iteration's world comes from (the ``worlds``
strategy: ``worlds.TrueState`` for ``uct``, ``worlds.Fresh`` for ``ismcts``, ``worlds.Fixed`` for ``duct``).

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
The iterations run in the loop ``plan`` chooses once per engine and game: the Python descent (``loop``) or, for a
game that offers ``compiled_model()`` and a configuration it reproduces, whole iterations compiled (``compiled``:
the same trees; ``SearchConfig(compiled=False)`` to opt out); ``SearchResult.driver`` says which, and why a slower
one.
"""
from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import replace

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState
from .batching import Steps, drive
from .compiled import call_refusal
from .config import (Determinizer, InferenceAccuracy, Run, SearchConfig, SearchResult,  # noqa: F401 (re-exported)
                     budget_spent, decide, heuristic_evaluator, uniform_determinizer)
from .final import max_child, robust_child  # noqa: F401 (re-exported)
from .loop import PythonLoop, rollout
from .plan import Plan, plan
from .tree import Node
from .warm_up import WarmUp
from .worlds import Worlds, worlds_of


class TreeSearch(WarmUp):
    """The MCTS engine: ``search(state, rng)`` from the point of view of ``state.current_player``.

    ``worlds``: where each iteration's world comes from (``worlds``: a ``Worlds`` object, or its spec name 'uct',
    'ismcts' or 'duct' with ``num_worlds``). The loop that runs the iterations is planned once per game
    (``plan``; ``explain``). With ``reuse``, the subtree below the chosen action is kept and the next search starts
    from it when it is the same player's next decision of the same turn and the player's observation is the one
    that action led to (001 §2.4: a turn is several decisions; the tree of the first serves the next).
    """

    def __init__(self, config: SearchConfig, worlds: str | Worlds = "ismcts", num_worlds: int = 1,
                 reuse: bool = False):
        check = getattr(config.selection, "check", None)  # a selection that refuses some settings (Gumbel's)
        if check is not None:
            check(config, reuse)
        self.worlds = worlds_of(worlds, num_worlds)
        self.reuse = reuse
        self.config = config
        self._kept: tuple[Node, int, np.ndarray] | None = None  # subtree, turn, observation it belongs to
        self._stamp = 0.0  # iterations run by this engine: availability stamps stay unique across kept trees

    @property
    def config(self) -> SearchConfig:
        return self._config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        """A new configuration: the loops are planned anew."""
        self._config = config
        self.python = PythonLoop(config, self.worlds)
        self._plans: dict[type, Plan] = {}

    def __repr__(self) -> str:
        plans = ", ".join(f"{kind.__name__}: {chosen.describe()}" for kind, chosen in self._plans.items())
        return f"{type(self).__name__}({self.worlds!r}, {self.config!r}{', ' + plans if plans else ''})"

    def untimed(self, config: SearchConfig) -> TreeSearch:
        return TreeSearch(config, self.worlds)

    def plan(self, state: GameState) -> Plan:
        """The loop this engine runs on ``state``'s game, planned at its first search of that game (``plan``)."""
        found = self._plans.get(type(state))
        if found is None:
            found = self._plans[type(state)] = plan(self.config, self.worlds, state, self.reuse, self.python)
        return found

    def explain(self, state: GameState) -> str:
        """The loop this engine runs on ``state``'s game, and why where it is the slower one."""
        return self.plan(state).describe()

    def search(self, state: GameState, rng: np.random.Generator, iterations: int | None = None,
               root: Node | None = None) -> SearchResult:
        """Search from ``state`` for its player. ``iterations`` replaces the configured budget for this call
        (0: decide from the tree as it is); ``root`` continues that tree instead of the kept one or a new one.
        The evaluator answers each batch of leaves at once (``batching.drive``)."""
        return drive(self.steps(state, rng, iterations, root))

    def steps(self, state: GameState, rng: np.random.Generator, iterations: int | None = None,
              root: Node | None = None) -> Steps[SearchResult]:
        """``search`` as a resumable computation: it yields a ``Request`` (or a compiled loop's ``ArrayRequest``)
        for the states whose evaluation it waits for, is sent the evaluator's answers for them in order, and
        returns the ``SearchResult``. A search that never needs the evaluator (rollouts to the end) runs through
        without yielding. Many searches driven together (``batching.run_together``) put their leaves in one
        network batch."""
        me = state.current_player
        if me < 0:
            raise InvalidParameterError(f"search needs a decision node, current_player is {me}")
        if iterations is None and self.warm_up_due():
            self.warm_up(state)
        why = call_refusal(rng, root)  # this search's reason for the Python loop, whatever the plan
        chosen = Plan(self.python, why) if why is not None else self.plan(state)
        result = yield from chosen.driver.steps(Run(state, rng, iterations, self._stamp,
                                                    root or self.take_kept(state)))
        self._stamp += result.iterations
        result.driver = chosen.describe()
        if self.reuse:
            self._keep(result.root, state, result.action)
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

    def explain(self, state: GameState) -> str:
        return f"one UCT tree a world, each: {TreeSearch(self.config, 'uct').explain(state)}"

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

    def explain(self, state: GameState) -> str:
        return "python (flat Monte Carlo: no tree)"

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

"""Gumbel policy improvement for tree search over the forward model (Danihelka, Guez, Schrittwieser and Silver, "Policy
improvement by planning with Gumbel", ICLR 2022; as mctx's ``gumbel_muzero_policy``).

At the root, ``m`` candidate actions are sampled without replacement by Gumbel-top-k and the ``iterations``
simulations are split among them by sequential halving (``considered_visits``): each simulation takes the candidate
of highest g(a) + logits(a) + σ(q̂(a)) among those visited exactly as often as the schedule says (``root_scores``).
At every other decision node the step is deterministic: argmax[π′(a) − N(a) / (1 + Σ_b N(b))]
(``interior_choice``). Both read the completed Q-values: an edge's mean reward where visited, else the node's mixed
value v_mix (``mixed_value``: the evaluator's value of the node averaged with the prior-weighted Q of the visited
edges), min-max rescaled over the node's legal actions and scaled, σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂
(``sigma``); π′ = softmax(logits + σ(q̂)) (``improved_policy``). The root's π′ over its legal actions is the
policy target a search hands back (``SearchResult.policy``). The action played is the candidate of highest
g + logits + σ(q̂) among the most visited (mctx's rule).

Hidden information (ISMCTS, DUCT): every simulation plays in its own world (ISMCTS: a fresh determinization; DUCT:
the fixed worlds in turn; UCT: the state itself), and one tree keyed by soft keys pools them: an edge's Q is its
mean reward over every world it was played in, a node's raw value is the one its first evaluation gave, and a
step's legal actions (its π′, N and ΣN) are those of the simulation's world. Leaves are evaluated as PUCT's are
(``mcts``): the evaluator's values and prior at ``depth=0`` (a network), else a rollout, with ``config.prior``'s
prior; ``leaves=K`` keeps K simulations in flight per evaluator call (their visits counted on the way down).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState
from .batching import Steps
from .config import Run, SearchConfig, SearchResult
from .core import (GUMBEL_STEP, NO_ROOT_PRIOR, PRIOR, TINY, TOTAL, UCB1_STEP, VISITS, FlatTree,  # noqa: F401
                   improved_policy, interior_choice, mixed_value, sigma)
from .loop import Leaf, PythonLoop
from .mcts import TreeSearch
from .tree import Node, legal_ids, moves, step_at
from .worlds import Worlds

C_VISIT = 50.0  # σ's visit offset c_visit (Danihelka et al. 2022, σ's definition; mctx's maxvisit_init)
C_SCALE = 1.0  # σ's scale c_scale (Danihelka et al. 2022, σ's definition; mctx's default value_scale is 0.1)
CANDIDATES = 16  # m, the root's sampled actions (Danihelka et al. 2022; mctx's max_num_considered_actions)
LOW_LOGIT = -1e9  # a floor under a root score (mctx's ``score_considered``)


@dataclass(frozen=True)
class Gumbel:
    """Gumbel search's selection (module docstring): ``m`` root candidates, σ's ``c_visit`` and ``c_scale``. As
    ``SearchConfig.selection`` it steps the Python loop's tree by its ``rule`` (``GumbelRule``; ``kernel`` None: no
    compiled loop takes it); nodes are expanded whole, as PUCT's. Not with tree reuse, hard pruning or chance-node
    bucketing (``check``)."""

    m: int = CANDIDATES
    c_visit: float = C_VISIT
    c_scale: float = C_SCALE

    kernel: ClassVar = None
    expands_nodes: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not (isinstance(self.m, int) and self.m >= 1):
            raise InvalidParameterError(f"m must be an int >= 1 (root candidates), got {self.m!r}")
        if not (self.c_visit >= 0 and self.c_scale > 0):
            raise InvalidParameterError(f"need c_visit >= 0 and c_scale > 0, got {self.c_visit}, {self.c_scale}")

    def check(self, config: SearchConfig, reuse: bool) -> None:
        """Refuse what Gumbel search does not take."""
        clash = [knob for knob, on in (("reuse", reuse), ("pruning", config.pruning is not None),
                                       ("bucketing", config.bucketing is not None)) if on]
        if clash:
            raise InvalidParameterError(f"Gumbel search does not take {clash[0]}")

    def rule(self, config: SearchConfig, run: Run) -> GumbelRule:
        """The rule of one search (``loop.Rule``)."""
        return GumbelRule(self, config, run)


def considered_visits(m: int, n: int) -> tuple[int, ...]:
    """Sequential halving's schedule (mctx's ``get_sequence_of_considered_visits``): for simulation ``i`` of ``n``,
    the visit count a root candidate must have to be taken, with ``m`` candidates halved each round (to two at
    least), each round giving its candidates max(1, ⌊n / (⌈log2 m⌉ · considered)⌋) visits apiece."""
    if m <= 1:
        return tuple(range(n))
    rounds = math.ceil(math.log2(m))
    sequence: list[int] = []
    visits = [0] * m
    considered = m
    while len(sequence) < n:
        for _ in range(max(1, n // (rounds * considered))):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:n])


def root_scores(considered: int, gumbel: np.ndarray, logits: np.ndarray, sig: np.ndarray,
                visits: np.ndarray) -> np.ndarray:
    """g + (logits − max logits) + σ, floored at ``LOW_LOGIT``, where an action has exactly ``considered`` visits;
    -inf elsewhere (mctx's ``score_considered``)."""
    score = np.maximum(LOW_LOGIT, gumbel + logits - logits.max() + sig)
    return np.where(visits == considered, score, -np.inf)


# ---- the interior tree step ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def select_gumbel(node, player, ids, c_visit, c_scale, raw_value, stamp, visits, num_keys, node_player, node_size,
                  edge_node, edge_key, stat, edge_child, hash_key, hash_edge, counters):
    """The interior step at the expanded ``node`` (where ``player`` moves) over the legal key ``ids``: the tree's step
    (``tree.step_at``) with ``core.pick_gumbel`` (``raw_value``: the node's evaluated value for ``player``); a key
    the node's expansion did not see gets the uniform prior ``1 / len(ids)``, as PUCT's. Returns ``(node, i, edge,
    fresh)`` as ``tree.select_edge``; node -1, and nothing changed, without room."""
    return step_at(GUMBEL_STEP, node, -1, player, ids, c_visit, stamp, 0.0, visits, NO_ROOT_PRIOR, raw_value, c_scale,
                   num_keys, node_player, node_size, edge_node, edge_key, stat, edge_child, hash_key, hash_edge,
                   counters)


# ---- the search ---------------------------------------------------------------------------------------------
class RootCandidates:
    """The root's distinct legal keys (ids in the tree's key table) and their logits from the root's expansion, the
    Gumbel noise and the halving schedule. A simulation takes only a key legal in its world (the root player's legal
    actions are the same in every world of a game whose ``determinize`` keeps the player's information; a key that
    is not is skipped there)."""

    def __init__(self, tree: FlatTree, state: GameState, gumbel: Gumbel, n: int | None, rng: np.random.Generator,
                 prune: bool = False):
        legal = moves(state, prune)
        ids = legal_ids(tree.table, state, legal, not prune)
        self.ids, first = np.unique(ids, return_index=True)
        order = np.argsort(first)  # the legal order
        self.ids, self.actions = self.ids[order], legal[first[order]]
        self.gumbel, self.tree = gumbel, tree
        self.edges = np.full(len(self.ids), -1, dtype=np.int64)
        prior = self.statistics()[2]
        self.logits = np.log(np.maximum(prior / max(prior.sum(), TINY), TINY))
        self.noise = rng.gumbel(size=len(self.ids))
        self.first = min(gumbel.m, len(self.ids))  # every schedule's first simulations visit each candidate once
        self.plan(n if n is not None else self.first)

    def plan(self, n: int) -> None:
        """Split ``n`` simulations by sequential halving (a time budget re-plans after the first ones)."""
        self.schedule = considered_visits(self.first, n)

    def statistics(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N, Q, prior) of each candidate at the root (0 where it has no edge yet; Q 0 where unvisited)."""
        tree, edges = self.tree, self.edges
        for i in np.flatnonzero(edges < 0).tolist():  # an edge, once made, keeps its number
            edges[i] = tree.edge(0, int(self.ids[i]))
        seen = edges >= 0
        visits, total, prior = (np.where(seen, tree.stat[row, edges], 0.0) for row in (VISITS, TOTAL, PRIOR))
        return visits, np.divide(total, visits, out=np.zeros(len(visits)), where=visits > 0), prior

    def sigma(self, raw_value: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N, Q, σ(q̂)) of the candidates now."""
        visits, q, _ = self.statistics()
        sig = np.empty(len(q))
        sigma(q, visits, mixed_value(raw_value, q, visits, np.exp(self.logits)), self.gumbel.c_visit,
              self.gumbel.c_scale, sig)
        return visits, q, sig

    def next(self, raw_value: float, simulation: int, allowed: np.ndarray) -> int:
        """The candidate simulation ``simulation`` takes among the ``allowed`` (legal in its world): the schedule's,
        else (none of those is legal there) the best allowed one."""
        visits, _, sig = self.sigma(raw_value)
        considered = self.schedule[min(simulation, len(self.schedule) - 1)]
        score = np.where(allowed, root_scores(considered, self.noise, self.logits, sig, visits), -np.inf)
        if not np.isfinite(score).any():
            score = np.where(allowed, self.noise + self.logits + sig, -np.inf)
        return int(np.argmax(score))

    def decision(self, raw_value: float) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """The candidate played (highest score among the most visited), π′ over the candidates, and their N and Q."""
        visits, q, sig = self.sigma(raw_value)
        pi = np.empty(len(sig))
        improved_policy(self.logits, sig, pi)
        return int(np.argmax(root_scores(visits.max(), self.noise, self.logits, sig, visits))), pi, visits, q


class GumbelRule:
    """Gumbel search over the Python loop (``loop.Rule``, module docstring): ``begin`` evaluates the root (not
    counted as a simulation) and draws the candidates; the root's step takes the candidate the halving schedule
    says (``RootCandidates.next``), every other step is ``select_gumbel``; each node's raw value is its first
    evaluation's. The budget: ``iterations`` simulations split by sequential halving; with ``seconds``, the
    simulations that fit, planned from the time the first ones took (one per candidate: every schedule starts so),
    ``iterations`` then a cap. The result carries π′ (``SearchResult.policy``)."""

    expands_nodes = True
    offset = 1  # simulation i plays world i + 1: the root's evaluation played world 0
    holds_backups = True  # the leaves of a batch are backed up together, when it is settled

    def __init__(self, gumbel: Gumbel, config: SearchConfig, run: Run):
        if run.root is not None:
            raise InvalidParameterError("Gumbel search starts a new tree every decision (no root=)")
        self.gumbel, self.config = gumbel, config
        self.n = run.iterations if run.iterations is not None else config.iterations
        self.seconds = None if run.iterations is not None else config.seconds
        self.raw: dict[int, float] = {}
        self.planned = self.seconds is None
        self.first_stamp, self.start = run.stamp + 1, run.start
        self.candidates: RootCandidates | None = None

    def begin(self, loop: PythonLoop, tree: FlatTree, run: Run, fixed: list[GameState]) -> Steps[None]:
        state, rng, cfg = run.state, run.rng, self.config
        world = loop.worlds.world(state, run.me, rng, cfg.determinizer, fixed, 0)
        yield from loop.finish([loop.iteration(tree, 0, world, rng, self, run.stamp, run.me)], self, 0)  # the root, expanded
        self.candidates = RootCandidates(tree, state, self.gumbel, self.n, rng, cfg.prune)
        self.began = time.perf_counter()

    @staticmethod
    def draw() -> float:
        return 0.0  # Gumbel's steps draw nothing

    def step(self, tree: FlatTree, node: int, link: int, player: int, ids: np.ndarray, stamp: float, visits: float,
             at_root: bool, u: float) -> tuple[int, int, int, bool]:
        if not at_root:
            return tree.step(select_gumbel, len(ids), node, player, ids, self.gumbel.c_visit, self.gumbel.c_scale,
                             self.raw[node], stamp, visits)
        candidates = self.candidates
        j = candidates.next(self.raw[0], int(stamp - self.first_stamp), np.isin(candidates.ids, ids))
        only = candidates.ids[j:j + 1]  # the one key the step offers: the tree's step, its pick forced
        _, _, edge, fresh = tree.step(step_at, 1, UCB1_STEP, node, -1, player, only, 0.0, stamp, 0.0, visits,
                                      NO_ROOT_PRIOR, 0.0, 0.0)
        return node, int(np.flatnonzero(ids == candidates.ids[j])[0]), edge, fresh

    def more(self, done: int, start: float) -> bool:
        return (done < len(self.candidates.schedule) or not self.planned) and not (
                self.seconds is not None and time.perf_counter() - start >= self.seconds)

    def flush(self, waiting: list[Leaf], leaf: Leaf, done: int) -> bool:
        return len(waiting) >= self.config.leaves or (not self.planned and done == self.candidates.first)

    def settled(self, leaves: list[Leaf], done: int) -> None:
        """Keep each expanded node's raw value for its player (its first evaluation counts); after the first round
        under a clock, plan the simulations that fit from the time it took."""
        for leaf in leaves:
            if leaf.node >= 0 and leaf.node not in self.raw:
                self.raw[leaf.node] = float(leaf.values[leaf.tree.node_player[leaf.node]])
        if not self.planned and self.candidates is not None and done == self.candidates.first:
            now = time.perf_counter()
            fits = done + int((self.seconds - (now - self.start)) * done / max(now - self.began, 1e-9))
            self.candidates.plan(max(done, fits if self.n is None else min(self.n, fits)))
            self.planned = True

    def result(self, root: Node, run: Run, done: int) -> SearchResult:
        candidates, tree = self.candidates, root.tree
        pick, pi, visits, q = candidates.decision(self.raw[0])
        keys = [tree.table.key(int(k)) for k in candidates.ids]
        total = visits.sum()
        return SearchResult(int(candidates.actions[pick]), {k: int(v) for k, v in zip(keys, visits) if v > 0}, done,
                            time.perf_counter() - run.start, root, policy=dict(zip(keys, pi.tolist())),
                            value=float((visits * q).sum() / total) if total else self.raw[0])


class GumbelSearch(TreeSearch):
    """A ``TreeSearch`` whose selection is a ``Gumbel`` (module docstring; ``GumbelRule``), ``worlds`` 'uct', 'ismcts'
    or 'duct'. ``prune`` searches the game's ``sensible_actions`` instead of all legal ones. Not with tree reuse, hard
    pruning or chance-node bucketing (refused)."""

    def __init__(self, config: SearchConfig, worlds: str | Worlds = "ismcts", num_worlds: int = 1):
        if not isinstance(config.selection, Gumbel):
            raise InvalidParameterError(f"GumbelSearch needs selection=Gumbel(...), got {config.selection!r}")
        super().__init__(config, worlds, num_worlds)

    def untimed(self, config: SearchConfig) -> GumbelSearch:
        return GumbelSearch(config, self.worlds)

"""Rolling Horizon Evolutionary Algorithm: a (1+1) EA over turn-level plans (paper 003, Sfikas & Liapis 2020, §4.3).

A genome is one gene per player turn over the horizon of ``horizon`` turns, the root's own turn first; a gene
holds the game's action ids decided during that turn (by whoever decides in it: reactions of
``info.reactions`` games belong to the turn they happen in). A genome is *replayed* in a world (a fresh
``determinize`` of the root for the acting player): chance is sampled, each decision takes the gene's next
action when it is legal there, else the repair policy's, which is written into the genome ("repair"); a turn
that ends before its gene is used up drops the gene's rest. The replay stops when the ``horizon``-th turn has
ended, after its end-of-turn chance (at the next decision, so ``state.turn == root.turn + horizon``), or at
the end of the game, and the fitness scores that state for the acting player.

The parent is the repair policy's own plan (or a ``seed`` policy's: a network's, say), built in one world and scored
once by the mean fitness over ``evaluations`` fresh worlds (the score is cached, as in the paper's code). Each
generation a ``Mutator`` picks, in each gene with a probability annealed linearly from ``rate_start`` to
``rate_end`` (at least one gene), one position, and the child is rebuilt in one world (not counted as an
evaluation): there the mutator's policy decides that position and the repair policy the rest of its turn. The child
replaces the parent when its mean over ``evaluations`` fresh worlds is strictly greater. The agent plays the first
action of the first gene and plans from scratch at every decision.

Strategies are objects: policies are ``Agent``s (``act(state, rng)``), fitnesses are callables ``(state, player) ->
float`` (higher is better). The agent spec names them: a policy is ``random`` or any registered agent (a game
registers its scripted policies: Pandemic's ``pandemic_default`` and ``pandemic_mutator``) or an agent spec of one
parameter (``net:model=pandemic-v2``, built by the ``Extensions.build_agent`` the registry hands it: search imports
nothing above it);
a fitness is ``returns`` or ``heuristic`` on every game, or one of the game's own evaluations (the optional state
hook ``evaluation(name)``: Pandemic's f_{o,d} ... f_b as ``od`` ... ``b``, pairs and the w() / p() variants, e.g.
``p_oa_cm``). Chance inside the horizon is sampled by ``sample_chance``, or resolved in one call by the game's
``settle_chance`` hook when it offers one.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, Agent, Game, GameState, determinize, hook, sample_chance
from ..envs.registration import NO_EXTENSIONS, Extensions
from ..envs.stop import stop_point
from .mcts import SearchResult

Genome = list[list[int]]
Fitness = Callable[[GameState, int], float]


def _unit(value: float, low: float, high: float) -> float:
    return (value - low) / (high - low) if high > low else 0.5


def returns_fitness(state: GameState, player: int) -> float:
    """``player``'s returns mapped to [0, 1] with ``info.min_return`` / ``max_return`` at a terminal, else its
    ``heuristic`` mapped from [-1, 1] to [0, 1]."""
    if state.is_terminal():
        return _unit(float(state.returns()[player]), state.info.min_return, state.info.max_return)
    return heuristic_fitness(state, player)


def heuristic_fitness(state: GameState, player: int) -> float:
    """The game's ``heuristic(player)`` mapped from [-1, 1] to [0, 1], terminals included."""
    return _unit(float(state.heuristic(player)), -1.0, 1.0)


class RandomPolicy:
    """A uniformly random legal action (the default repair and mutation policy)."""

    name = "random"

    def reset(self) -> None:
        """Nothing to forget."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


class Mutator:
    """Which genes to mutate and where; ``policy`` proposes the new action at each point."""

    def __init__(self, policy: Agent, rate_start: float = 1.0, rate_end: float = 1.0):
        for value in (rate_start, rate_end):
            if not 0.0 <= value <= 1.0:
                raise InvalidParameterError(f"mutation rates lie in [0, 1], got {value}")
        self.policy, self.rate_start, self.rate_end = policy, rate_start, rate_end

    def rate(self, generation: int, generations: int) -> float:
        """The per-gene mutation probability at ``generation`` (0-based) of ``generations``, linear in between."""
        return self.rate_start + (self.rate_end - self.rate_start) * generation / max(generations - 1, 1)

    def points(self, genome: Genome, rate: float, rng: np.random.Generator) -> dict[int, int]:
        """{gene index: position} for each non-empty gene drawn with probability ``rate`` (one drawn uniformly
        when none is), the position uniform in that gene."""
        genes = [g for g, gene in enumerate(genome) if gene]
        chosen = [g for g in genes if rng.random() < rate] or [genes[int(rng.integers(len(genes)))]]
        return {g: int(rng.integers(len(genome[g]))) for g in chosen}


@dataclass
class RHEAResult:
    """One decision's search: the best genome found, its mean fitness and how the search went."""

    genome: Genome
    score: float
    generations_run: int
    evaluations_run: int  # fitness calls, the parent's included (build worlds are not evaluations)
    improvements: int  # children that replaced the parent

    @property
    def action(self) -> int:
        return self.genome[0][0]


class RHEA:
    """The (1+1) rolling horizon EA of the module docstring, built from strategy objects; an ``Agent``."""

    name = "rhea"

    def __init__(self, horizon: int = 5, generations: int = 100, evaluations: int = 5,
                 fitness: Fitness = returns_fitness, repair: Agent | None = None, mutator: Mutator | None = None,
                 seconds: float = 0.0, seed: Agent | None = None):
        """``seed``: the policy whose plan is the first parent (None: the repair policy's, the paper's)."""
        if horizon < 1 or generations < 0 or evaluations < 1 or seconds < 0:
            raise InvalidParameterError(f"rhea needs horizon >= 1, generations >= 0, evaluations >= 1 and "
                                        f"seconds >= 0, got {horizon}, {generations}, {evaluations}, {seconds}")
        self.horizon, self.generations, self.evaluations, self.seconds = horizon, generations, evaluations, seconds
        self.fitness = fitness
        self.repair = repair if repair is not None else RandomPolicy()
        self.mutator = mutator if mutator is not None else Mutator(RandomPolicy())
        self.seed = seed if seed is not None else self.repair
        self._warm = False  # whether a time-budgeted plan has run (``plan``)

    def reset(self) -> None:
        """Nothing to forget: every decision is planned from scratch."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[0]) if len(legal) == 1 else self.plan(state, rng).action

    def replay(self, genome: Genome, world: GameState, root_turn: int, rng: np.random.Generator,
               points: dict[int, int] | None = None, repair: Agent | None = None) -> GameState:
        """Play ``genome`` in ``world`` (in place) up to the horizon, repairing the genome in place (by ``repair``,
        default the repair policy); at the positions of ``points`` the mutator's policy decides and the rest of
        that gene is dropped (then refilled by repair). Both policies are ``reset()`` first: what they remember
        belongs to one world. Returns ``world``."""
        repair = self.repair if repair is None else repair
        position = [0] * self.horizon
        current = None
        settle = hook(world, "settle_chance")
        repair.reset()  # a policy's memory (a plan in progress) belongs to one world
        self.mutator.policy.reset()
        while not world.is_terminal():
            if world.current_player == CHANCE:
                if settle is not None:
                    settle(rng)
                else:
                    world.apply(sample_chance(world, rng))
                continue
            g = world.turn - root_turn
            if g >= self.horizon:
                break
            if current is not None and g != current:
                del genome[current][position[current]:]  # that turn ended: drop the unused rest of its gene
            current, gene, i = g, genome[g], position[g]
            if points is not None and points.get(g) == i:
                action = int(self.mutator.policy.act(world, rng))
                del gene[i + 1:]
            elif i < len(gene) and gene[i] in world.legal_actions():
                action = gene[i]
            else:
                action = int(repair.act(world, rng))
            if i < len(gene):
                gene[i] = action
            else:
                gene.append(action)
            position[g] = i + 1
            world.apply(action)
        if current is not None:
            del genome[current][position[current]:]
        return world

    def evaluate(self, genome: Genome, state: GameState, rng: np.random.Generator) -> float:
        """The mean fitness of ``genome`` (repaired in place) over ``evaluations`` fresh worlds of ``state``."""
        player = state.current_player
        return sum(self.fitness(self.replay(genome, determinize(state, player, rng), state.turn, rng), player)
                   for _ in range(self.evaluations)) / self.evaluations

    def plan(self, state: GameState, rng: np.random.Generator) -> RHEAResult:
        """Evolve a plan for ``state.current_player`` from the seed policy's own plan. The first plan with a
        time budget is preceded by an untimed throw-away plan of one generation on its own generator: what a plan
        calls (the game's compiled kernels, a seed's network) loads at its first call in a process, outside the
        budget (issue 32)."""
        if self.seconds and not self._warm:
            self._warm = True
            RHEA(self.horizon, 1, 1, self.fitness, self.repair, self.mutator, seed=self.seed).plan(
                state, np.random.default_rng(0))
        start = time.perf_counter()
        player = state.current_player
        parent: Genome = [[] for _ in range(self.horizon)]
        self.replay(parent, determinize(state, player, rng), state.turn, rng, repair=self.seed)
        score = self.evaluate(parent, state, rng)
        result = RHEAResult(parent, score, 0, self.evaluations, 0)
        for generation in range(self.generations):
            stop_point()
            if self.seconds and time.perf_counter() - start >= self.seconds:
                break
            child = [list(gene) for gene in result.genome]
            points = self.mutator.points(child, self.mutator.rate(generation, self.generations), rng)
            self.replay(child, determinize(state, player, rng), state.turn, rng, points)
            child_score = self.evaluate(child, state, rng)
            result.generations_run += 1
            result.evaluations_run += self.evaluations
            if child_score > result.score:
                result.genome, result.score, result.improvements = child, child_score, result.improvements + 1
        return result


# ---- the names an agent spec may use ----------------------------------------------------------------------
GENERIC_FITNESS = {"returns": returns_fitness, "heuristic": heuristic_fitness}


def named_fitness(name: str, probe: GameState) -> Fitness:
    """``returns`` / ``heuristic``, or the game's own evaluation ``name`` (its states' ``evaluation`` hook)."""
    if name in GENERIC_FITNESS:
        return GENERIC_FITNESS[name]
    own = hook(probe, "evaluation")
    if own is None:
        raise InvalidParameterError(f"rhea: fitness {name!r} is not available for game {probe.info.name!r}; "
                                    f"available: {', '.join(GENERIC_FITNESS)} (the game offers no evaluation hook)")
    return own(name)


def named_policy(name: str, game: Game | None, extensions: Extensions = NO_EXTENSIONS) -> Agent:
    """``random`` (``RandomPolicy``), else the agent of spec ``name`` built for ``game`` by ``extensions.build_agent``
    (the registry's): a registered agent (a game's scripted policy, e.g. ``pandemic_default``) or a spec with one
    parameter (``net:model=NAME``); a fresh instance each call."""
    if name == "random":
        return RandomPolicy()
    if extensions.build_agent is None:
        raise InvalidParameterError(f"rhea: policy {name!r} is an agent spec, and no agent builder was handed in: "
                                    "build the agent through cardboard.make_agent")
    return extensions.build_agent(name, game)


class RHEAAgent:
    """The ``rhea`` agent: an ``RHEA`` per game, its strategies looked up by name for the state's game."""

    name = "rhea"
    information_set = True  # its plans are scored in determinizations of the decider's view (``SearchAgent``)

    def __init__(self, template: RHEA, game: Game | None, fitness: str, repair: str, mutator: str, seed: str = "",
                 extensions: Extensions = NO_EXTENSIONS):
        """``template``: the numbers (its strategies are replaced by the named ones); ``seed`` '': the repair policy;
        ``extensions``: what builds the policies named by spec."""
        self.template, self.game, self.extensions = template, game, extensions
        self.names = {"fitness": fitness, "repair": repair, "mutator": mutator, "seed": seed}
        self.planners: dict[str, RHEA] = {}
        self.last: SearchResult | None = None
        if game is not None:
            self._build(game.new_state(0), game)

    def _build(self, probe: GameState, game: Game | None) -> RHEA:
        t = self.template
        planner = RHEA(t.horizon, t.generations, t.evaluations, named_fitness(self.names["fitness"], probe),
                       named_policy(self.names["repair"], game, self.extensions),
                       Mutator(named_policy(self.names["mutator"], game, self.extensions), t.mutator.rate_start,
                               t.mutator.rate_end),
                       t.seconds, named_policy(self.names["seed"], game, self.extensions) if self.names["seed"] else None)
        self.planners[probe.info.name] = planner
        return planner

    def planner(self, state: GameState) -> RHEA:
        """The ``RHEA`` for ``state``'s game, built on first use."""
        planner = self.planners.get(state.info.name)
        if planner is None:
            game = getattr(state, "game", None) if self.game is None else self.game
            planner = self._build(state, game)
        return planner

    def reset(self) -> None:
        """Policies with memory (a plan in progress) start clean."""
        self.last = None
        for planner in self.planners.values():
            for policy in (planner.repair, planner.mutator.policy, planner.seed):
                policy.reset()

    def plan(self, state: GameState, rng: np.random.Generator) -> RHEAResult:
        return self.planner(state).plan(state, rng)

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        """The first action of the best plan; ``last`` records the decision as a ``SearchResult`` (the action as the
        one visited key and the policy, the evaluations run), None after a forced move: self-play records RHEA's
        decisions as it records a tree search's."""
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = None
            return int(legal[0])
        start = time.perf_counter()
        found = self.plan(state, rng)
        key = state.action_key(found.action)
        self.last = SearchResult(found.action, {key: 1}, found.evaluations_run, time.perf_counter() - start,
                                 policy={key: 1.0})
        return found.action


def rhea_agent(game: Game | None = None, horizon: int = 5, generations: int = 100, evaluations: int = 5,
               rate_start: float = 1.0, rate_end: float = 1.0, fitness: str = "returns", repair: str = "random",
               mutator: str = "random", seconds: float = 0.0, seed: str = "",
               extensions: Extensions = NO_EXTENSIONS) -> RHEAAgent:
    """Rolling horizon EA, (1+1) over turn-level plans (paper 003 4.3).

    horizon: player turns planned, the acting one first
    generations: children tried per decision
    evaluations: fresh determinizations averaged per genome
    rate_start: per-gene mutation probability at the first generation (paper 003's code: 1.0)
    rate_end: per-gene mutation probability at the last generation, linear in between (paper 003's code: 0.5)
    fitness: evaluation at the horizon: returns, heuristic, or the game's own (its evaluation hook; pandemic: p_oa_cm ...)
    repair: policy that fills and repairs plans: random, an agent or a one-parameter spec (pandemic: pandemic_default)
    mutator: policy proposing a mutated action: random, an agent or a one-parameter spec (pandemic: pandemic_mutator)
    seconds: time limit per decision (0: none)
    seed: policy planning the first parent: '' (the repair policy, the paper's), an agent or a spec (net:model=NAME)
    """
    template = RHEA(horizon, generations, evaluations, mutator=Mutator(RandomPolicy(), rate_start, rate_end),
                    seconds=seconds)
    return RHEAAgent(template, game, fitness, repair, mutator, seed, extensions)

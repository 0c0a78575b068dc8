"""Search agents: each wraps one algorithm of ``mcts`` behind the ``Agent`` interface.

Agent specs (``cardboard.make_agent``), every parameter optional:

- ``mc:iterations=1000,depth=0`` flat Monte Carlo
- ``uct:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0,prune=0,hpl=15,extrapolate=0,heuristic=0`` UCT on the true state
  (perfect information / open mode)
- ``ismcts:iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0,prune=0,hpl=15,extrapolate=0,accuracy=-1,heuristic=0``
  single-observer ISMCTS
- ``duct:worlds=10,iterations=1000,c=0.7,depth=0,seconds=0,reuse=0,cnb=0,prune=0,accuracy=-1,turn=0,policy=one,``
  ``heuristic=0`` determinized UCT (paper 001 Algorithm 3)
- ``pimc:worlds=10,iterations=1000,c=0.7,depth=0,deckmodel=`` one UCT tree per determinization, votes added up
- ``rhea:horizon=5,generations=100,evaluations=5,rate_start=1.0,rate_end=1.0,fitness=returns,repair=random,``
  ``mutator=random,seconds=0`` paper 003's (1+1) rolling horizon EA over turn-level plans (``rhea``; fitness and
  policies by name from per-game registries)

``iterations=0`` means no iteration limit (then ``seconds`` must be set); ``seconds=0`` no time limit;
``depth=0`` rollouts to the end of the game, otherwise for that many player turns and then the game's
heuristic (in a spec ``depth=0`` keeps this meaning); ``heuristic=1`` values a new leaf by the game's heuristic with
no rollout at all (``SearchConfig(depth=0)``; fifth_aeon: DefaultAI's evaluation of the position). ``compiled=0``
(uct, ismcts) keeps every iteration in Python instead of ``cardboard.search.compiled``'s loop (same trees). ``c`` is the UCB1 exploration constant on rewards in [0, 1]. ``reuse=1``
(uct, ismcts, duct) keeps the subtree of the chosen action for the next decision of the same turn. ``cnb=1`` turns on
chance-node bucketing with pre-sampling at tree chance nodes (001 §2.6, ``chance``) with the game's own
buckets and pre-sample counts: its states' ``chance_bucket(outcome)`` and ``chance_samples()`` (hearth:
draws by mana cost, 001 Table 3.2). ``prune=1`` steps the tree over the game's ``sensible_actions()``
(heuristic pruning; hearth: Silverfish's rules of 001 §2.5); ``prune=h4`` (or ``h1+h4``) prunes hard instead, by the
game's own evaluations (its ``evaluation(name)`` hook; lords_of_war: paper 002's h1 .. h11): at every decision node of
the tree only the top ``hpl`` moves by each heuristic of the state after the move are searched, their union,
``extrapolate=1`` scoring each after a random finish of the mover's turn (``pruning``). A game without the hooks an option needs is
refused with ``InvalidParameterError`` when the agent is built for it (``make_agent``). ``accuracy=a`` (a in [0, 1]; -1 = off) draws
the worlds with 001 §3.6.1's inference-accuracy knob from the true state (a research tool: it reads the
truth), for games whose ``determinize`` takes ``accuracy``. ``deckmodel=uniform|oracle|predict[:VARIANT]`` (ismcts, duct,
pimc; '' = off) deals the opponent's unseen cards of each world from a deck model, for games whose ``determinize``
takes ``deck_model`` and whose decklists are hidden (``deck_models``; fifth_aeon ``--option decklists=hidden``):
the game's uniform model, the true list (the ceiling) or a deck predictor's list (paper 000's, handed in by the registry).
``turn=T`` (duct; 0 = off) gives each of the agent's
turns T iterations, spent with 001 §3.3's ``policy``: ``one`` (one-search) or ``multiple`` (multiple-search)
(``turn_budget``); ``iterations`` and ``seconds`` are then unused.

Final-move selection (uct, ismcts, duct; paper 000 §2.6, ``final``): ``final=robust`` (the default, RobustChild),
``max``, ``robust_rand`` / ``max_rand`` (uniform over the top ``n``), ``robust_roulette`` / ``max_roulette``
(P ∝ visits^k or (w/v)^k over the top ``n``, ``n=0``: all children), ``k=1`` the roulette exponent, ``tune=1`` 000
ch. 5.3.7's online tuner of ``n`` (in [1, 10], starting at ``n``). Each decision searched is logged in
``SearchAgent.decisions`` (``final.Decision``: BestMove, n, the chosen move's w/v, the complexity Cx0..Cx4).

Parallel search (uct, ismcts, duct; paper 000 ch. 4, ``parallel``): ``parallel=root`` searches ``workers`` trees in
worker processes and sums their root statistics, ``parallel=tree`` runs ``workers`` threads on one tree with a virtual
loss of ``vl`` visits (``vl=0``: none), ``parallel=leaf`` hands each simulation to the next idle of ``workers``
rollout threads; ``iterations`` is split statically among the workers. ``seconds`` is every root worker's own time
limit, the tree threads' shared deadline, and for leaf the time after which no simulation starts. Not with
``reuse``, ``turn``, ``net`` or ``hlr``; ``close()`` stops root's worker processes (garbage collection does too).

Paper 001's network-guided rollouts (ismcts, duct): ``hlr=PATH,chi=0.5`` (a card-play network checkpoint,
``cardboard.evaluation.papers.p001_hearthstone.card_play``; rollouts by Algorithm 5, its ``hlr``; games with the hooks
``card_play_features`` / ``settle_chance`` / ``hlr_turn``; use ``leaves=K`` so K rollouts share each network call).

Network knobs (ismcts, duct): ``net=PATH,prior=1,value=1,netrollout=0,cpuct=1.25,leaves=1`` (a
``PolicyValueNet`` checkpoint; ``prior``, ``value``, ``netrollout`` and ``cpuct`` are used only with ``net``;
``root=1``: the network's prior at the root only, one forward pass a decision, the rest of the search plain and
compiled where it can be (``search.root_prior``; ``prior`` and ``value`` unused);
``leaves=K`` keeps K leaves in flight per evaluator call, with virtual loss, with or without a network);
``device=cuda`` (or ``cuda:N``) runs the ``net`` / ``hlr`` network there (default ``cpu``; refused without one).
Learned leaf values (uct, ismcts, duct; issue 49): ``vnet=PATH,mix=1`` (a leaf value net, ``policies.value_net``;
``zoo:NAME`` for a shipped one) values each leaf a rollout would value, in the compiled loop
(``search.leaf_value``): ``mix * network + (1 - mix) * rollout`` (``mix=1``: no rollout; ``mix=0``: the rollout's
alone). A net with a policy head also gives ``vprior=T`` (PUCT at every node over its softmax at temperature T,
``cpuct`` its constant; ``LeafPolicy``) and ``vroll=T`` (rollout moves drawn from it, paper 001's HLR idea;
``LearnedRollout``), both compiled. With ``net``, only ``root=1`` (the network's prior at the root, the leaf values
below) and no ``vprior``.
This module stays torch-free and imports nothing above search: the builders of ``net=``, ``hlr=`` and
``deckmodel=predict`` come in as the factories' ``extensions`` (``envs.registration.Extensions``, handed by the
registry: ``cardboard.make_agent``); a factory called without them refuses those knobs. What the knobs mean is documented in ``cardboard.policies.net_agent``.

Other agents built on the forward model live in ``cardboard.policies`` (``lookahead``, ``net``, and the
hearth-only ``greedy_h``).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable
from dataclasses import replace

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import Game, GameState, require_hooks
from ..envs.registration import NO_EXTENSIONS, Extensions
from .batching import Steps
from .chance import ChanceBucketing
from .deck_models import HOOKS_OF as DECK_MODEL_HOOKS
from .deck_models import check_deck_worlds, deck_worlds
from .gumbel import C_SCALE, C_VISIT, CANDIDATES, Gumbel, GumbelSearch
from .knobs import GROUPS, KNOBS, PRUNE_SENSIBLE, check, hard_pruning
from .final import Decision, FinalSelection, OnlineTuner, decision, make_final, robust_child
from .pruning import HardPruning
from .mcts import PIMC, FlatMonteCarlo, InferenceAccuracy, SearchConfig, SearchResult, TreeSearch, uniform_determinizer
from .parallel import LeafParallel, RootParallel, TreeParallel, check_parallel, parallel_search
from .turn_budget import TurnBudget, check_policy

def handed(build: Callable[..., SearchConfig] | None, knob: str) -> Callable[..., SearchConfig]:
    """The builder of ``knob`` the agent was handed (``Extensions``), or ``InvalidParameterError`` saying how to get
    it."""
    if build is None:
        raise InvalidParameterError(f"{knob}: no builder of this knob was handed to the factory: build the agent "
                                    "through cardboard.make_agent, which hands it the networks' and papers' builders")
    return build


def _game_bucket(state: GameState, outcome: int) -> Hashable:
    return state.chance_bucket(outcome)


def _game_samples(state: GameState) -> int:
    return state.chance_samples()


GAME_CNB = ChanceBucketing(bucket=_game_bucket, samples=_game_samples)  # the game's own CNB hooks


def search_config(iterations: int, seconds: float, c: float, depth: int, cnb: bool = False, prune: bool = False,
                  accuracy: float = -1.0, leaves: int = 1, heuristic: bool = False,
                  pruning: HardPruning | None = None, deckmodel: str = "",
                  extensions: Extensions = NO_EXTENSIONS) -> SearchConfig:
    """A ``SearchConfig`` from spec values, where 0 means 'no limit' for iterations, seconds and depth;
    ``cnb`` buckets tree chance nodes with the game's ``chance_bucket`` / ``chance_samples``; ``prune`` steps
    over the game's ``sensible_actions``; ``accuracy`` in [0, 1] draws worlds with 001's inference-accuracy
    knob (-1: uniformly from the information set); ``leaves``: leaves in flight per evaluator call; ``heuristic``
    values a new leaf by the game's ``heuristic`` with no rollout (``depth`` unused); ``pruning``: hard pruning
    by the game's heuristics (``pruning.HardPruning``); ``deckmodel``: worlds dealt by a deck model
    (``deck_models``; '': the game's own determinize)."""
    determinizer = (deck_worlds(deckmodel, extensions.deck_predictor) if deckmodel
                    else uniform_determinizer if accuracy < 0 else InferenceAccuracy(accuracy))
    return SearchConfig(iterations=iterations or None, seconds=seconds or None, c=c,
                        depth=0 if heuristic else depth or None,
                        bucketing=GAME_CNB if cnb else None, prune=prune, pruning=pruning, leaves=leaves,
                        determinizer=determinizer)


KNOB_HOOKS = {"cnb": ("chance_bucket", "chance_samples"), "prune": ("sensible_actions",), "accuracy": ("accuracy",),
              "hlr": ("card_play_features", "settle_chance", "hlr_turn"), "prune_by": ("evaluation",)}


def from_information_set(worlds: str, accuracy: float = -1.0, deckmodel: str = "") -> bool:
    """Whether a search's worlds come from the decider's information set: not ``uct`` (the true state), not worlds
    drawn by ``accuracy`` (001's knob reads the truth) or by the ``oracle`` deck model (the true decklist)."""
    return worlds != "uct" and accuracy < 0 and deckmodel.partition(":")[0] != "oracle"


def knob_hooks(cnb: bool = False, prune: bool = False, accuracy: float = -1.0, hlr: str = "",
               pruning: HardPruning | None = None, deckmodel: str = "") -> dict[str, tuple[str, ...]]:
    """The declared hooks (``protocol.HOOKS``) each knob that is on needs, keyed as the user writes the knob."""
    on = {"cnb=1": cnb, "prune=1": prune, f"accuracy={accuracy:g}": accuracy >= 0, f"hlr={hlr}": bool(hlr)}
    needs = {knob: KNOB_HOOKS[knob.split("=")[0]] for knob, used in on.items() if used}
    if pruning is not None:
        needs[f"prune={'+'.join(pruning.names)}"] = KNOB_HOOKS["prune_by"]
    if deckmodel:
        needs[f"deckmodel={deckmodel}"] = DECK_MODEL_HOOKS[deckmodel.partition(":")[0]]
    return needs


def _check_deckmodel(config: SearchConfig, game: Game | None, deckmodel: str) -> None:
    """Refuse ``deckmodel`` for a game without its hooks or with open decklists (``deck_models.check_deck_worlds``)."""
    if deckmodel and game is not None:
        check_deck_worlds(config.determinizer, game, f"deckmodel={deckmodel}")


def prune_knobs(prune: str | bool, hpl: int = 15, extrapolate: bool = False) -> tuple[bool, HardPruning | None]:
    """A spec's ``prune``: '0' none, '1' the game's ``sensible_actions``, else heuristic names joined by '+' (hard
    pruning to the top ``hpl`` moves of each, ``extrapolate``: scored after a random finish of the turn)."""
    text = str(prune).strip()
    if not hard_pruning(text):
        return text in PRUNE_SENSIBLE, None
    return False, HardPruning.parse(text, hpl, extrapolate)


class SearchAgent:
    """An agent that runs a search for every decision with a choice; ``last`` keeps the latest
    ``SearchResult`` (None after a forced move, which is played without searching). ``needs``: the knobs that
    are on and the hooks they need (``knob_hooks``), checked against the game when the agent is built with
    one (the registry always does) and at every decision (an agent may be handed states of another game).
    ``decisions``: a ``final.Decision`` per decision searched with a tree since ``reset()``; ``final``: the tree
    search's final selection, whose n they record and which, an ``OnlineTuner``, is stepped after each one.
    ``information_set``: whether the search reads only what the decider knows (``from_information_set``), so that
    its statistics may be shown to whoever sees the decider's options (``cardboard serve``). Built for a game, a tree
    search plans its loop for it then (``search.plan``; ``explain``, the repr)."""

    def __init__(self, searcher: TreeSearch | TurnBudget | PIMC | FlatMonteCarlo | RootParallel | TreeParallel
                 | LeafParallel, name: str,
                 needs: dict[str, tuple[str, ...]] | None = None, game: Game | None = None,
                 final: FinalSelection | None = None, information_set: bool = True):
        self.searcher = searcher
        self.name = name
        self.information_set = information_set
        self.needs = needs or {}
        self.final = final
        self.last: SearchResult | None = None
        self.decisions: list[Decision] = []
        self.game = game
        if game is not None:
            require_hooks(game, self.needs)
            self.explain()

    def __repr__(self) -> str:
        return f"SearchAgent({self.name!r}, loop: {self.explain()})" if self.game is not None else \
            f"SearchAgent({self.name!r}, {self.searcher!r})"

    def explain(self) -> str:
        """The loop the search runs on the game the agent was built for (planned once: ``search.plan``), and why
        where it is the slower one."""
        explain = getattr(self.searcher, "explain", None)
        return explain(self.game.new_state(0)) if explain is not None else "no tree loop"

    def reset(self) -> None:
        """Drop what the last game left: the kept subtree of tree reuse, the last result, the decision log; the
        tuner's n goes back to its start."""
        self.last = None
        self.decisions = []
        if isinstance(self.final, OnlineTuner):
            self.final.reset()
        reset = getattr(self.searcher, "reset", None)
        if reset is not None:
            reset()

    def close(self) -> None:
        """Release what the searcher holds (root parallelisation's worker processes); a later decision restarts it."""
        close = getattr(self.searcher, "close", None)
        if close is not None:
            close()

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        require_hooks(state, self.needs)
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = None
            return int(legal[0])
        self.last = self.searcher.search(state, rng)
        self._log(state)
        return self.last.action

    def act_steps(self, state: GameState, rng: np.random.Generator) -> Steps[int]:
        """``act`` as a resumable computation (``batching``): the search's evaluation requests are yielded to
        the caller, which may answer many games' at once; a searcher without ``steps`` (PIMC, flat Monte
        Carlo, a turn budget) runs synchronously."""
        require_hooks(state, self.needs)
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = None
            return int(legal[0])
        steps = getattr(self.searcher, "steps", None)
        self.last = (yield from steps(state, rng)) if steps is not None else self.searcher.search(state, rng)
        self._log(state)
        return self.last.action

    def _log(self, state: GameState) -> None:
        """Log the decision just searched (tree searches only) and step the tuner by its w/v."""
        if self.last.root is None:
            return
        entry = decision(state, self.last.root, self.last.action, getattr(self.final, "n", None))
        self.decisions.append(entry)
        if isinstance(self.final, OnlineTuner):
            self.final.update(entry.mean)


GUMBEL_KNOBS = ("gumbel", "m", "cvisit", "cscale")
PARALLEL_KNOBS = ("parallel", "workers", "vl")
NET_KNOBS = ("net", "prior", "value", "netrollout", "cpuct", "root", "leaves", "hlr", "chi", "device")
VALUE_KNOBS = ("vnet", "mix", "vprior", "vroll")


def _documented(summary: str, *names: str):
    """Make a factory of knobs ``names`` (``knobs.KNOBS``): its docstring ``summary`` plus a ``name: meaning`` line per
    knob, its ``knob_groups`` (``cardboard agents -v`` prints them by group), and a check of every spec against the
    knobs' declarations (``knobs.check``) before it builds anything."""
    def document(factory):
        defaults = {k: p.default for k, p in inspect.signature(factory).parameters.items()}

        @functools.wraps(factory)
        def checked(*args, **values):
            check(inspect.signature(factory).bind(*args, **values).arguments, defaults)
            return factory(*args, **values)

        checked.__doc__ = "\n".join([summary, ""] + [f"{n}: {KNOBS[n].meaning}" for n in names])
        checked.knob_groups = {group: [n for n in names if KNOBS[n].group == group] for group in GROUPS
                               if any(KNOBS[n].group == group for n in names)}
        return checked
    return document


def _tree_agent(game: Game | None, worlds: str, num_worlds: int, iterations: int, c: float, depth: int,
                seconds: float, reuse: bool, cnb: bool, prune: str | bool, accuracy: float, turn: int = 0,
                policy: str = "one", net: str = "", prior: bool = True, value: bool = True,
                netrollout: bool = False, cpuct: float = 1.25, leaves: int = 1, hlr: str = "",
                chi: float = 0.5, heuristic: bool = False, hpl: int = 15, extrapolate: bool = False,
                final: FinalSelection = robust_child, parallel: str = "none", workers: int = 2,
                vl: int = 1, compiled: bool = True, device: str = "cpu", gumbel: bool = False, m: int = CANDIDATES,
                cvisit: float = C_VISIT, cscale: float = C_SCALE, deckmodel: str = "",
                root: bool = False, vnet: str = "", mix: float = 1.0, vprior: float = 0.0, vroll: float = 0.0,
                extensions: Extensions = NO_EXTENSIONS) -> SearchAgent:
    if vnet and net and not root:
        raise InvalidParameterError(f"vnet={vnet} with net={net} takes the network's prior at the root only (root=1): "
                                    "the leaf value replaces PUCT's network values")
    sensible, pruning = prune_knobs(prune, hpl, extrapolate)
    if pruning is not None and game is not None:
        require_hooks(game, knob_hooks(pruning=pruning))
        pruning.check(game.new_state(0))
    config = search_config(iterations, seconds, c, depth, cnb, sensible, accuracy, leaves, heuristic, pruning,
                           deckmodel, extensions)
    _check_deckmodel(config, game, deckmodel)
    if hlr:
        if game is not None:
            require_hooks(game, knob_hooks(hlr=hlr))
        config = handed(extensions.hlr, f"hlr={hlr}")(config, game=game, path=hlr, chi=chi, device=device)
    if net:
        config = handed(extensions.network, f"net={net}")(config, game=game, path=net, prior=prior, value=value,
                                                          netrollout=netrollout, c_puct=cpuct, depth=depth,
                                                          device=device, root=root)
    if vnet:
        config = handed(extensions.value_net, f"vnet={vnet}")(config, game=game, path=vnet, mix=mix, prior=vprior,
                                                              rollout=vroll, c_puct=cpuct)
    check_policy(policy)  # also when turn=0: a misspelt option is refused, not ignored
    check_parallel(parallel, workers, vl)  # also when parallel=none
    if gumbel:
        config = replace(config, selection=Gumbel(m, cvisit, cscale))
        return SearchAgent(GumbelSearch(config, worlds, num_worlds), worlds,
                           knob_hooks(prune=sensible, accuracy=accuracy, deckmodel=deckmodel), game,
                           information_set=from_information_set(worlds, accuracy, deckmodel))
    engine = TreeSearch(replace(config, final=final, compiled=compiled), worlds, num_worlds, reuse)
    searcher = TurnBudget(engine, turn, policy) if turn else engine
    if parallel != "none":
        searcher = parallel_search(parallel, engine.config, worlds, num_worlds, workers, vl)
    return SearchAgent(searcher, worlds, knob_hooks(cnb, sensible, accuracy, hlr, pruning, deckmodel), game, final,
                       from_information_set(worlds, accuracy, deckmodel))


@_documented("Flat Monte Carlo over determinizations.", "iterations", "depth")
def flat_mc(iterations: int = 1000, depth: int = 0, game: Game | None = None) -> SearchAgent:
    return SearchAgent(FlatMonteCarlo(search_config(iterations, 0.0, 0.0, depth)), "mc", game=game)


@_documented("UCT on the true state (perfect information / open mode).", "iterations", "c", "depth", "seconds",
             "reuse", "cnb", "prune", "hpl", "extrapolate", "heuristic", "final", "n", "k", "tune", *VALUE_KNOBS,
             "cpuct", *PARALLEL_KNOBS, "compiled", *GUMBEL_KNOBS)
def uct(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0, reuse: bool = False,
        cnb: bool = False, prune: str = "0", hpl: int = 15, extrapolate: bool = False, heuristic: bool = False,
        final: str = "robust", n: int = 0, k: float = 1.0, tune: bool = False, parallel: str = "none", workers: int = 2,
        vl: int = 1, compiled: bool = True, gumbel: bool = False, m: int = CANDIDATES, cvisit: float = C_VISIT,
        cscale: float = C_SCALE, vnet: str = "", mix: float = 1.0, vprior: float = 0.0, vroll: float = 0.0,
        cpuct: float = 1.25, game: Game | None = None, extensions: Extensions = NO_EXTENSIONS) -> SearchAgent:
    return _tree_agent(game, "uct", 1, iterations, c, depth, seconds, reuse, cnb, prune, -1.0, heuristic=heuristic,
                       hpl=hpl, extrapolate=extrapolate, final=make_final(final, n, k, tune), parallel=parallel,
                       workers=workers, vl=vl, compiled=compiled, gumbel=gumbel, m=m, cvisit=cvisit, cscale=cscale,
                       cpuct=cpuct, vnet=vnet, mix=mix, vprior=vprior, vroll=vroll, extensions=extensions)


@_documented("Single-observer ISMCTS with availability counts.", "iterations", "c", "depth", "seconds", "reuse",
             "cnb", "prune", "hpl", "extrapolate", "accuracy", "deckmodel", "heuristic", "final", "n", "k", "tune",
             *NET_KNOBS, *VALUE_KNOBS, *PARALLEL_KNOBS, "compiled", *GUMBEL_KNOBS)
def ismcts(iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0, reuse: bool = False,
           cnb: bool = False, prune: str = "0", hpl: int = 15, extrapolate: bool = False, accuracy: float = -1.0,
           heuristic: bool = False, net: str = "", prior: bool = True, value: bool = True, netrollout: bool = False,
           cpuct: float = 1.25, leaves: int = 1, hlr: str = "", chi: float = 0.5, final: str = "robust", n: int = 0,
           k: float = 1.0, tune: bool = False, parallel: str = "none", workers: int = 2, vl: int = 1,
           compiled: bool = True, device: str = "cpu", gumbel: bool = False, m: int = CANDIDATES,
           cvisit: float = C_VISIT, cscale: float = C_SCALE, deckmodel: str = "", root: bool = False,
           vnet: str = "", mix: float = 1.0, vprior: float = 0.0, vroll: float = 0.0, game: Game | None = None,
           extensions: Extensions = NO_EXTENSIONS) -> SearchAgent:
    return _tree_agent(game, "ismcts", 1, iterations, c, depth, seconds, reuse, cnb, prune, accuracy, net=net,
                       prior=prior, value=value, netrollout=netrollout, cpuct=cpuct, leaves=leaves, hlr=hlr, chi=chi,
                       heuristic=heuristic, hpl=hpl, extrapolate=extrapolate, final=make_final(final, n, k, tune),
                       parallel=parallel, workers=workers, vl=vl, compiled=compiled, device=device, gumbel=gumbel, m=m,
                       cvisit=cvisit, cscale=cscale, deckmodel=deckmodel, root=root, vnet=vnet, mix=mix,
                       vprior=vprior, vroll=vroll, extensions=extensions)


@_documented("Determinized UCT (paper 001 Algorithm 3): fixed worlds, pooled soft-key statistics.", "worlds",
             "iterations", "c", "depth", "seconds", "reuse", "cnb", "prune", "hpl", "extrapolate", "accuracy", "deckmodel",
             "turn",
             "policy", "heuristic", "final", "n", "k", "tune", *NET_KNOBS, *VALUE_KNOBS, *PARALLEL_KNOBS,
             *GUMBEL_KNOBS)
def duct(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0, seconds: float = 0.0,
         reuse: bool = False, cnb: bool = False, prune: str = "0", hpl: int = 15, extrapolate: bool = False,
         accuracy: float = -1.0, turn: int = 0, policy: str = "one", heuristic: bool = False, net: str = "",
         prior: bool = True, value: bool = True, netrollout: bool = False, cpuct: float = 1.25, leaves: int = 1,
         hlr: str = "", chi: float = 0.5, final: str = "robust", n: int = 0, k: float = 1.0, tune: bool = False,
         parallel: str = "none", workers: int = 2, vl: int = 1, device: str = "cpu", gumbel: bool = False,
         m: int = CANDIDATES, cvisit: float = C_VISIT, cscale: float = C_SCALE, deckmodel: str = "",
         root: bool = False, vnet: str = "", mix: float = 1.0, vprior: float = 0.0, vroll: float = 0.0,
         game: Game | None = None, extensions: Extensions = NO_EXTENSIONS) -> SearchAgent:
    return _tree_agent(game, "duct", worlds, iterations, c, depth, seconds, reuse, cnb, prune, accuracy, turn, policy,
                       net, prior, value, netrollout, cpuct, leaves, hlr, chi, heuristic, hpl, extrapolate,
                       make_final(final, n, k, tune), parallel, workers, vl, device=device, gumbel=gumbel, m=m,
                       cvisit=cvisit, cscale=cscale, deckmodel=deckmodel, root=root, vnet=vnet, mix=mix,
                       vprior=vprior, vroll=vroll, extensions=extensions)


@_documented("One UCT tree per determinization, root votes added up.", "worlds", "iterations", "c", "depth",
             "deckmodel")
def pimc(worlds: int = 10, iterations: int = 1000, c: float = 0.7, depth: int = 0, deckmodel: str = "",
         game: Game | None = None, extensions: Extensions = NO_EXTENSIONS) -> SearchAgent:
    config = search_config(iterations, 0.0, c, depth, deckmodel=deckmodel, extensions=extensions)
    _check_deckmodel(config, game, deckmodel)
    return SearchAgent(PIMC(config, worlds), "pimc", knob_hooks(deckmodel=deckmodel), game=game,
                       information_set=from_information_set("pimc", deckmodel=deckmodel))

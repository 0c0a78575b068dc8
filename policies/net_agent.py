"""Network agents from a ``PolicyValueNet`` checkpoint (issue 17): the raw policy, and search guided by it.

Specs::

    net:path=PATH[,mode=greedy|sample][,device=cpu]
    net:model=NAME[,mode=greedy|sample][,device=cpu]
    ismcts:net=PATH[,prior=1][,value=1][,netrollout=0][,cpuct=1.25][,root=0][,leaves=1][,device=cpu][,iterations=...]
    duct:net=PATH[,prior=1][,value=1][,netrollout=0][,cpuct=1.25][,root=0][,leaves=1][,device=cpu][,worlds=...,...]

``PATH`` is a ``PolicyValueNet`` checkpoint, one safetensors file (``cardboard train --out DIR`` writes
``DIR/model.safetensors``). ``net`` without ``path`` plays an untrained network of the game (weights seeded 0: a
baseline, and self-play's first generation): the network ``cardboard train`` trains by default, its trunk shaped
by the game's observation structure where it declares one (``envs.structure.structure_of``), the MLP otherwise.
``net:model=NAME`` is the shipped model ``NAME`` of ``cardboard.policies.zoo`` (``<game>-v<N>``, or ``<game>`` for
its latest version), the same as ``path=zoo:NAME``; a ``zoo:NAME`` path works wherever a checkpoint path does
(``ismcts:net=zoo:NAME``), and a model of another game than the one played raises ``InvalidParameterError``
naming the models shipped. ``net`` plays the network's masked policy for the player to move: ``greedy`` the
legal action of highest prior, ``sample`` a draw from the priors with the match's ``rng`` (one seed replays the
same games).

``ismcts`` / ``duct`` with ``net=PATH`` (the search agents of ``cardboard.search.agents``; their other
parameters keep their meaning) replace strategies of the ``SearchConfig``:

- ``prior=1``: ``PUCT(cpuct)`` selection, each new node's prior filled from the network's policy. ``cpuct``
  defaults to AlphaZero's 1.25; rewards here are in [0, 1], and over rollouts (``value=0``) a smaller one
  paid on Lords of War: 0.25 scored 90% against plain ISMCTS at equal iterations where 1.25 scored 52%
  (training/RESULTS.md, issue 17);
- ``value=1``: the leaf is evaluated by the network (``SearchConfig.depth=0``: no rollout), its per-player values
  mapped to [0, 1] from [``min_return``, ``max_return``];
- ``prior=1,value=0``: PUCT over rollouts (``SearchConfig.prior``): the network gives each new node's prior, the
  rollout its values (to the end of the game, or ``depth`` turns and then the game's heuristic);
- ``netrollout=1`` (with ``value=0``): rollouts (``PolicyRollout``) sample the network's policy;
- ``root=1``: the network's prior at the root only (``search.root_prior``; ``prior`` and ``value`` unused): one
  forward pass a decision, of the searched state's observation for the player to move; the root's step is
  ``PUCT(cpuct)`` over it, every other step UCB1 over rollouts, so a search its game compiles stays compiled and
  keeps nearly all its iterations at equal time;
- ``leaves=K``: K leaves in flight per network call (virtual loss, ``SearchConfig.leaves``);
- ``device=cuda`` (``cuda:N``): the torch device the network runs on (default ``cpu``); one that is unknown or
  unavailable raises ``InvalidParameterError`` naming it when the agent is built. ``device=server``: this
  machine's inference server runs it (``policies.inference_server``: a Ray actor batching every worker's leaves;
  ``InferenceServerError`` outside a Ray cluster).

Defaults with ``net``: ``prior=1,value=1,netrollout=0``. Refused with ``InvalidParameterError``: ``value=1`` with
``depth`` > 0 or ``netrollout=1``, and all three off. A missing, foreign or truncated checkpoint, or one of
another game (another name, or other shapes), raises ``CheckpointError`` when the agent is built.

Hidden information. The network only ever sees ``state.observation(player)`` of the player to act: in search
``state`` is the determinized world the iteration plays in, so the value and prior are those of the world's
observation for its acting player (by construction the same information the real player would have in that
world, never a perfect-information view); the values of every player come from that one view. At a chance
node (only reached with ``value=1`` under UCB1, ``prior=0``) each player's value is read from that player's own
observation. The raw ``net`` agent evaluates the real state's ``observation(current_player)``.

Batching. ``NetworkEvaluator`` is a ``BatchingEvaluator``: a search with ``leaves=K`` sends K leaves per forward
pass, and the lock-step runner (``search.batching.run_together``: ``cardboard selfplay --concurrent G``) puts the
leaves of G games' searches in one pass. Network rollouts (``netrollout=1``) still call the network once per
move. Agents built in one process from the same checkpoint file and device share one loaded network
(``load_evaluator`` caches by path, content and device), hence one queue. A queued state's observation and mask
are copied once, by ``flush`` into the evaluator's staging memory: games hand out new arrays from
``observation`` and ``action_mask``, which nothing changes before the flush.

search stays torch-free: the registry hands ``network_strategies`` to the search factories (their ``extensions``,
``envs.registration.Extensions``); torch is imported only when an agent with a network is built (``import cardboard; cardboard.agents()`` imports none of it). Match workers rebuild agents
from their specs, so each worker process loads the checkpoint itself.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..envs.errors import CheckpointError, InvalidParameterError
from ..envs.files import CHECKPOINT_LIMIT, errors_as, sha256
from ..envs.protocol import CHANCE, TERMINAL, Game, GameInfo, GameState
from ..envs.structure import ObservationStructure, structure_of
from ..search.core import unit_values
from ..search.mcts import SearchConfig
from ..search.strategies import PUCT, Evaluation, PolicyRollout
from . import zoo

if TYPE_CHECKING:
    from .evaluator import BatchedEvaluator
    from .inference_server import RemoteEvaluator

MODES = ("greedy", "sample")


_LOADED: dict[tuple, tuple[str, BatchedEvaluator | RemoteEvaluator]] = {}  # (file, device, game) -> (hash, evaluator)


def load_evaluator(path: str, info: GameInfo | None = None,
                   device: str = "cpu") -> BatchedEvaluator | RemoteEvaluator:
    """A ``BatchedEvaluator`` over the ``PolicyValueNet`` saved at ``path`` (``zoo:NAME``: a shipped model),
    checked against ``info`` when given (``CheckpointError`` otherwise); with ``device="server"`` a
    ``RemoteEvaluator`` of this machine's inference server instead (``policies.inference_server``: Ray). One per
    file, device and game in a process: agents built from the same checkpoint share it (and its batching queue)
    while the file's bytes stay the same; a rewritten file is loaded again and replaces the old network. Imports
    torch."""
    from .evaluator import BatchedEvaluator
    from .inference_server import SERVER, connect
    from .network import PolicyValueNet

    if not path:
        raise InvalidParameterError("it needs path=PATH to a PolicyValueNet checkpoint")
    path = zoo.resolve(path, None if info is None else info.name)
    with errors_as(CheckpointError):
        digest = sha256(path, CHECKPOINT_LIMIT, "checkpoint")
    key = (os.path.realpath(path), device, None if info is None else info.name)
    found = _LOADED.get(key)
    if found is None or found[0] != digest:
        loaded = connect(path, info) if device == SERVER else BatchedEvaluator(PolicyValueNet.load(path, info),
                                                                               device=device)
        found = _LOADED[key] = (digest, loaded)
    return found[1]


def untrained_evaluator(info: GameInfo, device: str = "cpu",
                        structure: ObservationStructure | None = None) -> BatchedEvaluator:
    """A ``BatchedEvaluator`` over a fresh ``PolicyValueNet(info, structure=structure)`` whose weights are drawn
    with seed 0 (torch's global generator is left as it was): the same untrained network in every process.
    ``structure``: the game's observation structure (``envs.structure.structure_of(game)``: the network
    ``cardboard train`` trains by default); None builds the MLP. Imports torch."""
    import torch

    from .evaluator import BatchedEvaluator
    from .network import PolicyValueNet

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        net = PolicyValueNet(info, structure=structure)
    return BatchedEvaluator(net, device=device)


class NetworkEvaluator:
    """A search evaluator from a network, batching (``search.strategies.BatchingEvaluator``): each state is
    answered from the acting player's ``state.observation(player)``, values mapped to [0, 1], with the prior
    (when ``prior``) over the legal actions. ``queue`` is the ``BatchedEvaluator``: every ``NetworkEvaluator``
    over the same network shares it, so one ``flush`` runs all their pending states in one forward pass. It also
    answers raw arrays (``search.strategies.ArrayEvaluator``: ``queue.evaluate``), so search on a game with a
    compiled model builds its leaves' rows in compiled code (``search.compiled_network``)."""

    arrays = True

    def __init__(self, evaluator: BatchedEvaluator | RemoteEvaluator, prior: bool = True):
        self.queue, self.prior = evaluator, prior
        info = evaluator.info
        self.low, self.high = float(info.min_return), float(info.max_return)
        self.chance_mask = np.ones(info.num_actions, dtype=bool)  # priors unused at a chance node

    def unit(self, values: np.ndarray) -> np.ndarray:
        """Values in [min_return, max_return] mapped to [0, 1]."""
        out = np.empty(len(values))
        unit_values(np.asarray(values, dtype=np.float64), self.low, self.high, out)
        return out

    def submit(self, states: list[GameState]) -> list[tuple[int, Any]]:
        """Queue every state's observations; the token says per state how to read its answer: a terminal
        state (search never asks; answered with its returns), a decision (one row), a chance node (a row per
        player, each player's value from their own view: no one acts there)."""
        token: list[tuple[int, Any]] = []
        for state in states:
            player = state.current_player
            if state.is_terminal():
                token.append((TERMINAL, self.unit(state.returns())))
            elif player >= 0:
                token.append((player, self.queue.enqueue(state.observation(player), state.action_mask())))
            else:
                token.append((CHANCE, [self.queue.enqueue(state.observation(p), self.chance_mask)
                                       for p in range(state.num_players)]))
        return token

    def collect(self, token: list[tuple[int, Any]]) -> list[Evaluation]:
        """The answers of a flushed ``submit``, in its order."""
        answers = []
        for kind, held in token:
            if kind == TERMINAL:
                answers.append(Evaluation(held))
            elif kind == CHANCE:
                answers.append(Evaluation(self.unit([self.queue.result(t)[1][p] for p, t in enumerate(held)])))
            else:
                priors, values = self.queue.result(held)
                answers.append(Evaluation(self.unit(values), priors if self.prior else None))
        return answers

    def __call__(self, state: GameState) -> Evaluation:
        token = self.submit([state])
        self.queue.flush()
        return self.collect(token)[0]


class NetworkPolicy:
    """``policy(state, rng) -> action``: the network's masked policy on ``state.observation(current_player)``,
    the most likely legal action (``sample=False``) or a draw with ``rng``."""

    def __init__(self, evaluator: BatchedEvaluator | RemoteEvaluator, sample: bool = True):
        self.evaluator, self.sample = evaluator, sample

    def __call__(self, state: GameState, rng: np.random.Generator) -> int:
        mask = state.action_mask()
        priors, _ = self.evaluator.evaluate(state.observation(state.current_player)[None], mask[None])
        legal = np.flatnonzero(mask)
        p = priors[0][legal].astype(np.float64)
        if not self.sample:
            return int(legal[np.argmax(p)])
        total = p.sum()
        p = p / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        return int(legal[rng.choice(len(legal), p=p)])


def network_strategies(config: SearchConfig, *, game: Game | None, path: str, prior: bool, value: bool,
                       netrollout: bool, c_puct: float, depth: int, device: str = "cpu",
                       root: bool = False) -> SearchConfig:
    """``config`` with the network's strategies for the ``net=`` knobs of ``ismcts`` / ``duct`` (see the module);
    installed in ``cardboard.search.agents`` by ``cardboard.policies``. ``root``: the network's prior at the root
    only (``search.root_prior``), UCB1 and rollouts below; ``prior`` and ``value`` are then unused."""
    if not root:
        if value and depth:
            raise InvalidParameterError(f"value=1 evaluates the leaf without a rollout: depth must be 0, got {depth}")
        if value and netrollout:
            raise InvalidParameterError("netrollout=1 needs value=0 (value=1 evaluates the leaf without a rollout)")
        if not (prior or value or netrollout):
            raise InvalidParameterError("net=PATH with prior=0,value=0,netrollout=0: nothing would use the network")
    puct = PUCT(c_puct) if prior or root else None  # refuses a bad c_puct before loading
    evaluator = load_evaluator(path, None if game is None else game.info, device)
    changes: dict[str, Any] = {}
    if root:  # UCB1 below a PUCT root over the network's prior (``search.root_prior``)
        changes.update(root_prior=NetworkEvaluator(evaluator, prior=True), root_cpuct=c_puct)
    elif value:
        changes.update(selection=puct or config.selection, depth=0, evaluator=NetworkEvaluator(evaluator, prior))
    elif prior:  # PUCT over rollouts: the network gives each new node's prior; the rollout (and, after ``depth``
        # turns, the configured evaluator: the game's heuristic) the values
        changes.update(selection=puct, prior=NetworkEvaluator(evaluator, prior=True))
    if netrollout:
        changes["rollout"] = PolicyRollout(NetworkPolicy(evaluator, sample=True))
    return replace(config, **changes)


class NetAgent:
    """The raw policy of a PolicyValueNet checkpoint on the player's own observation, legal actions only.

    path: the PolicyValueNet checkpoint ('': an untrained network of the game, weights seeded 0)
    model: a shipped model instead of path: GAME-vN, or GAME for its latest (cardboard.policies.zoo)
    mode: greedy (the legal action of highest prior) or sample (a draw with the match's generator)
    device: torch device of the network
    """

    name = "net"

    def __init__(self, path: str = "", model: str = "", mode: str = "greedy", device: str = "cpu",
                 game: Game | None = None):
        if mode not in MODES:
            raise InvalidParameterError(f"mode={mode!r}: expected one of {', '.join(MODES)}")
        if path and model:
            raise InvalidParameterError(f"path={path} and model={model}: give one network")
        self.mode, self.path, self.device = mode, path or (model and zoo.PREFIX + model), device
        self.evaluator: BatchedEvaluator | RemoteEvaluator | None = None
        if self.path or game is not None:
            self._build(game)

    def _build(self, game: Game | GameState | None) -> None:
        """The network: the checkpoint (checked against ``game``'s info where known), or without a path the
        untrained network of ``game`` (a game or one of its states), shaped by its observation structure."""
        if self.path:
            self.evaluator = load_evaluator(self.path, None if game is None else game.info, self.device)
        else:
            self.evaluator = untrained_evaluator(game.info, self.device, structure_of(game))
        self.policy = NetworkPolicy(self.evaluator, sample=self.mode == "sample")

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        if self.evaluator is None:  # built without a game and without a path: the network of this state's game
            self._build(state)
        return self.policy(state, rng)

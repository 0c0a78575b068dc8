"""Network agents from a ``PolicyValueNet`` checkpoint (issue 17): the raw policy, and search guided by it.

Specs::

    net:path=PATH[,mode=greedy|sample][,device=cpu]
    ismcts:net=PATH[,prior=1][,value=1][,netrollout=0][,cpuct=1.25][,iterations=...,...]
    duct:net=PATH[,prior=1][,value=1][,netrollout=0][,cpuct=1.25][,worlds=...,...]

``net`` without ``path`` plays an untrained network of the game (weights seeded 0: a baseline, and self-play's
first generation). ``net`` plays the network's masked policy for the player to move: ``greedy`` the legal action
of highest prior, ``sample`` a draw from the priors with the match's ``rng`` (one seed replays the same games).

``ismcts`` / ``duct`` with ``net=PATH`` (the search agents of ``cardboard.search.agents``; their other
parameters keep their meaning) replace strategies of the ``SearchConfig``:

- ``prior=1``: ``PUCT(cpuct)`` selection, each new node's prior filled from the network's policy;
- ``value=1``: the leaf is evaluated by the network (``SearchConfig.depth=0``: no rollout), its per-player values
  mapped to [0, 1] from [``min_return``, ``max_return``];
- ``netrollout=1`` (with ``value=0``): rollouts (``PolicyRollout``) sample the network's policy.

Defaults with ``net``: ``prior=1,value=1,netrollout=0``. Refused with ``InvalidParameterError``: ``prior=1`` with
``value=0`` (the engine fills a PUCT node's prior only at a depth-0 leaf evaluation; PUCT over rollouts is not
built), ``value=1`` with ``depth`` > 0 or ``netrollout=1``, and all three off. A missing, foreign or truncated
checkpoint, or one of another game's shapes, raises ``CheckpointError`` when the agent is built.

Hidden information. The network only ever sees ``state.observation(player)`` of the player to act: in search
``state`` is the determinized world the iteration plays in, so the value and prior are those of the world's
observation for its acting player (by construction the same information the real player would have in that
world, never a perfect-information view); the values of every player come from that one view. At a chance
node (only reached with ``value=1`` under UCB1, ``prior=0``) each player's value is read from that player's own
observation. The raw ``net`` agent evaluates the real state's ``observation(current_player)``.

Evaluation is one ``BatchedEvaluator.evaluate`` call per leaf (a batch of one) for now: batching across leaves
and games is a later part of issue 17.

search stays torch-free: ``cardboard.search.agents`` holds only a hook (``set_network_strategies``) that
importing ``cardboard.policies`` fills with ``network_strategies``; torch is imported only when an agent with a
network is built (``import cardboard; cardboard.agents()`` imports none of it). Match workers rebuild agents
from their specs, so each worker process loads the checkpoint itself.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import Game, GameInfo, GameState
from ..search.mcts import SearchConfig
from ..search.strategies import PUCT, Evaluation, PolicyRollout

if TYPE_CHECKING:
    from .evaluator import BatchedEvaluator

MODES = ("greedy", "sample")


def load_evaluator(path: str, info: GameInfo | None = None, device: str = "cpu") -> BatchedEvaluator:
    """A ``BatchedEvaluator`` over the ``PolicyValueNet`` saved at ``path``, checked against ``info`` when given
    (``CheckpointError`` otherwise). Imports torch."""
    from .evaluator import BatchedEvaluator
    from .network import PolicyValueNet

    if not path:
        raise InvalidParameterError("it needs path=PATH to a PolicyValueNet checkpoint")
    return BatchedEvaluator(PolicyValueNet.load(path, info), device=device)


def untrained_evaluator(info: GameInfo, device: str = "cpu") -> BatchedEvaluator:
    """A ``BatchedEvaluator`` over a fresh ``PolicyValueNet(info)`` whose weights are drawn with seed 0 (torch's
    global generator is left as it was): the same untrained network in every process. Imports torch."""
    import torch

    from .evaluator import BatchedEvaluator
    from .network import PolicyValueNet

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        net = PolicyValueNet(info)
    return BatchedEvaluator(net, device=device)


class NetworkEvaluator:
    """A search evaluator (``state -> Evaluation``) from a network: one ``evaluate`` call on the acting player's
    ``state.observation(player)``; values mapped to [0, 1]; the prior (``prior``) over the legal actions."""

    def __init__(self, evaluator: BatchedEvaluator, prior: bool = True):
        self.evaluator, self.prior = evaluator, prior
        info = evaluator.net.info
        self.low, self.span = float(info.min_return), float(info.max_return - info.min_return)
        self.num_actions = info.num_actions

    def unit(self, values: np.ndarray) -> np.ndarray:
        """Values in [min_return, max_return] mapped to [0, 1]."""
        return np.clip((np.asarray(values, dtype=float) - self.low) / self.span, 0.0, 1.0)

    def __call__(self, state: GameState) -> Evaluation:
        player = state.current_player
        if state.is_terminal():  # search never asks; answered with the returns all the same
            return Evaluation(self.unit(state.returns()))
        if player >= 0:
            priors, values = self.evaluator.evaluate(state.observation(player)[None], state.action_mask()[None])
            return Evaluation(self.unit(values[0]), priors[0] if self.prior else None)
        # a chance node: no one acts; each player's value from their own view
        players = range(state.num_players)
        observations = np.stack([state.observation(p) for p in players])
        masks = np.ones((len(observations), self.num_actions), dtype=bool)  # priors unused
        _, values = self.evaluator.evaluate(observations, masks)
        return Evaluation(self.unit(values[list(players), list(players)]))


class NetworkPolicy:
    """``policy(state, rng) -> action``: the network's masked policy on ``state.observation(current_player)``,
    the most likely legal action (``sample=False``) or a draw with ``rng``."""

    def __init__(self, evaluator: BatchedEvaluator, sample: bool = True):
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
                       netrollout: bool, c_puct: float, depth: int) -> SearchConfig:
    """``config`` with the network's strategies for the ``net=`` knobs of ``ismcts`` / ``duct`` (see the module);
    installed in ``cardboard.search.agents`` by ``cardboard.policies``."""
    if prior and not value:
        raise InvalidParameterError("prior=1 needs value=1: PUCT's node prior is filled at the depth-0 leaf "
                                    "evaluation (PUCT over rollouts is not built)")
    if value and depth:
        raise InvalidParameterError(f"value=1 evaluates the leaf without a rollout: depth must be 0, got {depth}")
    if value and netrollout:
        raise InvalidParameterError("netrollout=1 needs value=0 (value=1 evaluates the leaf without a rollout)")
    if not (prior or value or netrollout):
        raise InvalidParameterError("net=PATH with prior=0,value=0,netrollout=0: nothing would use the network")
    selection = PUCT(c_puct) if prior else config.selection  # refuses a bad c_puct before loading
    evaluator = load_evaluator(path, None if game is None else game.info)
    changes: dict[str, Any] = {"selection": selection}
    if value:
        changes.update(depth=0, evaluator=NetworkEvaluator(evaluator, prior))
    if netrollout:
        changes["rollout"] = PolicyRollout(NetworkPolicy(evaluator, sample=True))
    return replace(config, **changes)


class NetAgent:
    """The raw policy of a PolicyValueNet checkpoint on the player's own observation, legal actions only.

    path: the PolicyValueNet checkpoint ('': an untrained network of the game, weights seeded 0)
    mode: greedy (the legal action of highest prior) or sample (a draw with the match's generator)
    device: torch device of the network
    """

    name = "net"

    def __init__(self, path: str = "", mode: str = "greedy", device: str = "cpu", game: Game | None = None):
        if mode not in MODES:
            raise InvalidParameterError(f"mode={mode!r}: expected one of {', '.join(MODES)}")
        self.mode, self.path, self.device = mode, path, device
        self.evaluator: BatchedEvaluator | None = None
        if path or game is not None:
            self._build(None if game is None else game.info)

    def _build(self, info: GameInfo | None) -> None:
        if self.path:
            self.evaluator = load_evaluator(self.path, info, self.device)
        else:
            self.evaluator = untrained_evaluator(info, self.device)
        self.policy = NetworkPolicy(self.evaluator, sample=self.mode == "sample")

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        if self.evaluator is None:  # built without a game and without a path: the network of this state's game
            self._build(state.info)
        return self.policy(state, rng)

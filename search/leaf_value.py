"""A learned leaf value, prior and rollout at the cost of a search step: a small network evaluated in compiled code
(issue 49).

Stockfish's NNUE made a learned evaluation pay at equal time by making it cost about what a search step costs: a
wide sparse first layer, then a few tiny dense layers. ``LeafNet`` is that shape over a game's observation: the
first layer's accumulator sums the weight rows of the observation's nonzero entries only (most of a card or board
game's observation is zeros: Lords of War's has about 90 of 1,066 set), then two clipped-ReLU layers and a sigmoid
give each player's value in [0, 1], seats counted from the observer. One call costs a few microseconds, below a
compiled random rollout (``benchmarks/leaf_value_cost.py``).

``LeafValue`` is the search strategy (``SearchConfig.leaf_value``; agent knobs ``vnet=PATH,mix=λ``): a leaf that
a search would roll out is valued by the network from the view of the player to move there (at a chance node, of
the searching player), mixed with the rollout's values as AlphaGo mixed its value network and rollouts:
``λ · network + (1 - λ) · rollout`` (``mix=1``: no rollout at all, and none of its random draws). Both loops call
the same compiled function (``leaf_values``) on the game's ``observation`` kernel (``envs.compiled_model``), so the
Python loop and the compiled one build the same trees. The observation is the game's, which shows a player only what
they may know, so neither does the network (``tests/test_compiled_observation.py``).

A net may carry a policy head (``wp``, ``bp``: a logit per action id over the same hidden layers), read two ways,
both in the compiled loop and the same in Python:

- ``LeafPolicy`` (``SearchConfig.prior`` under ``PUCT``; ``vprior=T``): PUCT at every node, a new node's prior the
  softmax ``exp(z / T)`` over its legal moves, one network call a new node;
- ``LearnedRollout`` (``SearchConfig.rollout``; ``vroll=T``): paper 001's HLR idea, rollout moves drawn from that
  softmax, the hidden layers once a player's turn (§4.8.1).

Measured (training/RESULTS.md): on Lords of War PUCT over the learned prior with ``mix=0.5`` is the strongest use;
learned rollouts cost many random ones and lose at equal time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from ..envs.errors import InvalidParameterError
from ..envs.kernels import rand_unit, seed_stream
from ..envs.protocol import CHANCE, GameInfo, GameState
from .strategies import Evaluation

FORMAT = "cardboard.leaf_value_net/1"  # a checkpoint's metadata format (``policies.value_net``)
LAYERS = ("w1", "b1", "w2", "b2", "w3", "b3")  # the tensors, in ``LeafNet``'s order
POLICY_LAYERS = ("wp", "bp")  # the optional policy head's


EMPTY_LAYER = (np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.float32))  # a net without a policy head


class LeafNet(NamedTuple):
    """The weights: ``w1`` [observation, H1] (a row per observation entry), ``w2`` [H1, H2], ``w3`` [H2, players]
    and their biases; float32, C-ordered. Optionally a policy head over the same hidden layers, ``wp`` [H2, actions]
    and ``bp`` [actions]: a logit per action id (empty: none; ``LeafPolicy``, ``LearnedRollout``)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    wp: np.ndarray = EMPTY_LAYER[0]
    bp: np.ndarray = EMPTY_LAYER[1]

    @property
    def value_layers(self) -> tuple[np.ndarray, ...]:
        """``w1, b1, w2, b2, w3, b3``: ``leaf_values``' arguments."""
        return tuple(self[:6])

    @property
    def has_policy(self) -> bool:
        return self.wp.size > 0

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray], info: GameInfo, where: str = "the network") -> LeafNet:
        """The network of ``arrays`` (``LAYERS`` by name, ``POLICY_LAYERS`` both or neither) for ``info``'s game;
        ``InvalidParameterError`` naming ``where`` and what does not fit."""
        missing = [name for name in LAYERS if name not in arrays]
        if missing:
            raise InvalidParameterError(f"{where}: no tensor {', '.join(missing)} (a leaf value net has {LAYERS})")
        head = [name for name in POLICY_LAYERS if name in arrays]
        if head and len(head) < len(POLICY_LAYERS):
            raise InvalidParameterError(f"{where}: a policy head needs both {POLICY_LAYERS}, not {head[0]} alone")
        names = LAYERS + (POLICY_LAYERS if head else ())
        net = cls(*(np.ascontiguousarray(arrays[name], dtype=np.float32) for name in names))
        size, players, actions = int(np.prod(info.observation_shape)), info.num_players, info.num_actions
        h1, h2 = net.w1.shape[-1], net.w2.shape[-1]
        expected = {"w1": (size, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2, players), "b3": (players,)}
        if head:
            expected |= {"wp": (h2, actions), "bp": (actions,)}
        for name, shape in expected.items():
            if getattr(net, name).shape != shape:
                raise InvalidParameterError(f"{where}: {name} has shape {getattr(net, name).shape}, not {shape} "
                                            f"({info.name}: observation {size}, {players} players, {actions} actions)")
        if not all(np.isfinite(a).all() for a in net):
            raise InvalidParameterError(f"{where}: weights that are not finite")
        return net


@njit(cache=True, nogil=True)
def hidden_layers(w1, b1, w2, b2, observation, hidden1, hidden2):
    """``hidden2``: the second hidden layer's clipped activations from ``observation``: the accumulator over its
    nonzero entries, clipped ReLU, a dense layer, clipped ReLU (the value and policy heads read it)."""
    hidden1[:] = b1
    for i in range(observation.shape[0]):
        x = observation[i]
        if x != 0.0:
            for j in range(hidden1.shape[0]):
                hidden1[j] += x * w1[i, j]
    hidden2[:] = b2
    for i in range(hidden1.shape[0]):
        h = min(max(hidden1[i], np.float32(0.0)), np.float32(1.0))
        if h != 0.0:
            for j in range(hidden2.shape[0]):
                hidden2[j] += h * w2[i, j]
    for j in range(hidden2.shape[0]):
        hidden2[j] = min(max(hidden2[j], np.float32(0.0)), np.float32(1.0))


@njit(cache=True, nogil=True)
def leaf_values(w1, b1, w2, b2, w3, b3, observation, hidden1, hidden2, out):
    """``out[k]`` = the value in [0, 1] of the player ``k`` seats after the observer, from their ``observation``:
    ``hidden_layers``, then a sigmoid per seat."""
    hidden_layers(w1, b1, w2, b2, observation, hidden1, hidden2)
    for k in range(out.shape[0]):
        z = b3[k]
        for i in range(hidden2.shape[0]):
            z += hidden2[i] * w3[i, k]
        out[k] = 1.0 / (1.0 + np.exp(-np.float64(z)))


@njit(cache=True, nogil=True)
def policy_weights(hidden2, wp, bp, actions, n, temperature, out):
    """``out[i] = exp(z / temperature)`` for the policy head's logit ``z`` of action ``actions[i]``, ``i < n`` (the
    exponent clipped to +-700: no shift by the maximum, so a weight does not depend on which other actions are
    legal); returns their sum, in order."""
    total = 0.0
    for i in range(n):
        a = actions[i]
        z = np.float64(bp[a])
        for j in range(hidden2.shape[0]):
            z += np.float64(hidden2[j] * wp[j, a])
        out[i] = np.exp(min(max(z / temperature, -700.0), 700.0))
        total += out[i]
    return total


@njit(cache=True, nogil=True)
def pick_weighted(weights, n, total, u):
    """The index ``i < n`` drawn with probability ``weights[i] / total`` by the uniform ``u``: the first whose
    cumulative weight exceeds ``u * total`` (the last when rounding leaves none)."""
    bound = u * total
    acc = 0.0
    for i in range(n):
        acc += weights[i]
        if acc > bound:
            return i
    return n - 1


@njit(cache=True, nogil=True)
def seat_values(relative, observer, values):
    """``values`` by seat from ``relative`` (counted from ``observer``)."""
    players = values.shape[0]
    for k in range(players):
        values[(observer + k) % players] = relative[k]


def observed(state: GameState, observer: int, size: int) -> np.ndarray:
    """``observer``'s observation of ``state`` through the game's compiled ``observation`` kernel (float32, flat)."""
    make = getattr(state, "compiled_model", None)
    model = make() if make is not None else None
    if model is None or model.observation is None:
        raise InvalidParameterError(f"{state.info.name} offers no compiled observation kernel "
                                    "(compiled_model().observation), which a leaf value net reads")
    observation = np.empty(size, dtype=np.float32)
    model.observation(model.state, model.table, np.int64(observer), observation)
    return observation


@dataclass(frozen=True)
class LeafValue:
    """The leaf value strategy (module docstring): ``net`` mixed with rollouts by ``mix`` in [0, 1]."""

    net: LeafNet
    mix: float = 1.0
    name: str = field(default="", compare=False)  # where the weights came from, for ``explain``

    def __post_init__(self) -> None:
        if not 0.0 <= self.mix <= 1.0:
            raise InvalidParameterError(f"mix must be in [0, 1], got {self.mix}")

    def __call__(self, state: GameState, me: int) -> np.ndarray:
        """The network's values in [0, 1] by seat of the non-terminal ``state`` (observed by its player to move, at
        a chance node by ``me``), through the game's compiled ``observation`` kernel."""
        player = state.current_player
        observer = me if player == CHANCE else player
        relative, values = np.empty(state.num_players), np.empty(state.num_players)
        leaf_values(*self.net.value_layers, observed(state, observer, self.net.w1.shape[0]),
                    np.empty_like(self.net.b1), np.empty_like(self.net.b2), relative)
        seat_values(relative, observer, values)
        return values


def _policy_net(net: LeafNet, temperature: float, what: str) -> None:
    if not net.has_policy:
        raise InvalidParameterError(f"{what} reads a leaf net's policy head (wp, bp), which this net lacks "
                                    "(train it with cardboard train-value --policy-weight W > 0)")
    if not temperature > 0.0:
        raise InvalidParameterError(f"{what}: the softmax temperature must be > 0, got {temperature}")


def turn_features(net: LeafNet, state: GameState, player: int, hidden1: np.ndarray, hidden2: np.ndarray) -> None:
    """``hidden2``: ``net``'s hidden layers from ``player``'s observation of ``state``."""
    hidden_layers(*net.value_layers[:4], observed(state, player, net.w1.shape[0]), hidden1, hidden2)


@dataclass(frozen=True)
class LeafPolicy:
    """Learned priors at every node (agent knob ``vprior=τ``): an evaluator (``SearchConfig.prior``, PUCT with
    rollouts) whose prior of a state's legal action ``a`` is ``exp(z_a / τ)`` for the policy head's logit ``z_a`` of
    its player's observation (``policy_weights``; search renormalises over the legal moves), and whose values are
    the value head's. One network call a new node, like the leaf value's; the compiled loop makes it inline."""

    net: LeafNet
    temperature: float = 1.0
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        _policy_net(self.net, self.temperature, "a learned prior (vprior=)")

    def __call__(self, state: GameState) -> Evaluation:
        player = state.current_player
        hidden1, hidden2 = np.empty_like(self.net.b1), np.empty_like(self.net.b2)
        relative, values = np.empty(state.num_players), np.empty(state.num_players)
        leaf_values(*self.net.value_layers, observed(state, player, self.net.w1.shape[0]), hidden1, hidden2, relative)
        seat_values(relative, player, values)
        legal = np.asarray(state.legal_actions(), dtype=np.int64)
        weights, prior = np.empty(len(legal)), np.zeros(state.info.num_actions)
        policy_weights(hidden2, self.net.wp, self.net.bp, legal, len(legal), self.temperature, weights)
        prior[legal] = weights
        return Evaluation(values, prior)


class StreamDraws:
    """A rollout's stream (``kernels.xorshift64star``) where a chance sampler expects a generator: ``random()`` is the
    stream's next unit, as the compiled loop hands its ``sample_chance`` kernel; ``choice`` (the protocol's default
    sampler) inverts the cumulative probabilities at one unit."""

    def __init__(self, stream: np.ndarray):
        self.stream = stream

    def random(self) -> float:
        return float(rand_unit(self.stream))

    def choice(self, n: int, p: np.ndarray) -> int:
        return min(int(np.searchsorted(np.cumsum(p), self.random(), side="right")), n - 1)


@dataclass(frozen=True)
class LearnedRollout:
    """Paper 001's HLR idea at compiled speed (agent knob ``vroll=τ``): rollout moves drawn from the policy head's
    softmax at temperature ``τ`` over the legal moves (``policy_weights``, ``pick_weighted``), the network's hidden
    layers evaluated once per turn of a player (001 §4.8.1: "only has to be evaluated once when the turn begins"),
    chance by the search's chance sampler; every draw from one stream seeded by one word of ``rng``, as the game's
    ``playout`` kernel draws. For ``SearchConfig.depth`` turns (None: to the end). The compiled loop runs the same
    rollout inline (``compiled``), so both loops build the same trees."""

    net: LeafNet
    temperature: float = 1.0
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        _policy_net(self.net, self.temperature, "a learned rollout (vroll=)")

    def __call__(self, state: GameState, rng: np.random.Generator, config) -> None:
        stream = seed_stream(rng)
        draws = StreamDraws(stream)
        limit = state.info.max_turns + 1 if config.depth is None else state.turn + config.depth
        hidden1, hidden2 = np.empty_like(self.net.b1), np.empty_like(self.net.b2)
        weights = np.empty(state.info.num_actions)
        evaluated_for = (-1, -1)  # the (player, turn) the hidden layers are of
        while not state.is_terminal() and state.turn < limit:
            player = state.current_player
            if player == CHANCE:
                state.apply(config.chance_sampler(state, draws))
                continue
            if (player, state.turn) != evaluated_for:
                evaluated_for = (player, state.turn)
                turn_features(self.net, state, player, hidden1, hidden2)
            legal = np.asarray(state.legal_actions(), dtype=np.int64)
            total = policy_weights(hidden2, self.net.wp, self.net.bp, legal, len(legal), self.temperature, weights)
            state.apply(int(legal[pick_weighted(weights, len(legal), total, draws.random())]))


LEARNED = (LeafValue, LeafPolicy, LearnedRollout)  # the strategies that read a LeafNet
NO_LEARNING = (*(np.zeros((0,) * ndim, dtype=np.float32) for ndim in (2, 1, 2, 1, 2, 1, 2, 1)), 0.0, 0.0, 0.0)


def shared_net(parts: tuple[object, ...]) -> LeafNet | None | bool:
    """The one network of the learned strategies among ``parts`` (None: there are none; False: they read different
    networks, which the compiled loop cannot)."""
    nets = [part.net for part in parts if isinstance(part, LEARNED)]
    if not nets:
        return None
    return nets[0] if all(net is nets[0] for net in nets) else False


def learned_record(value: object, prior: object, rollout: object) -> tuple:
    """The compiled loop's ``learned`` record: the shared network's layers (``LeafNet``, the policy head empty when
    it has none), then the value's ``mix`` (0: no learned value), the prior's and the rollout's temperatures (0: not
    learned); ``NO_LEARNING`` without any. The strategies must share one network (``shared_net``)."""
    net = shared_net((value, prior, rollout))
    if net is None or net is False:
        return NO_LEARNING
    return (*net, float(value.mix) if isinstance(value, LeafValue) else 0.0,
            float(prior.temperature) if isinstance(prior, LeafPolicy) else 0.0,
            float(rollout.temperature) if isinstance(rollout, LearnedRollout) else 0.0)

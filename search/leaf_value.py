"""A learned leaf value at the cost of a search step: a small network evaluated in compiled code (issue 49).

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
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, GameInfo, GameState

FORMAT = "cardboard.leaf_value_net/1"  # a checkpoint's metadata format (``policies.value_net``)
LAYERS = ("w1", "b1", "w2", "b2", "w3", "b3")  # the tensors, in ``LeafNet``'s order


class LeafNet(NamedTuple):
    """The weights: ``w1`` [observation, H1] (a row per observation entry), ``w2`` [H1, H2], ``w3`` [H2, players]
    and their biases; float32, C-ordered."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray], info: GameInfo, where: str = "the network") -> LeafNet:
        """The network of ``arrays`` (``LAYERS`` by name) for ``info``'s game; ``InvalidParameterError`` naming
        ``where`` and what does not fit."""
        missing = [name for name in LAYERS if name not in arrays]
        if missing:
            raise InvalidParameterError(f"{where}: no tensor {', '.join(missing)} (a leaf value net has {LAYERS})")
        net = cls(*(np.ascontiguousarray(arrays[name], dtype=np.float32) for name in LAYERS))
        size, players = int(np.prod(info.observation_shape)), info.num_players
        h1, h2 = net.w1.shape[-1], net.w2.shape[-1]
        expected = {"w1": (size, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2, players), "b3": (players,)}
        for name, shape in expected.items():
            if getattr(net, name).shape != shape:
                raise InvalidParameterError(f"{where}: {name} has shape {getattr(net, name).shape}, not {shape} "
                                            f"({info.name}: observation {size}, {players} players)")
        if not all(np.isfinite(a).all() for a in net):
            raise InvalidParameterError(f"{where}: weights that are not finite")
        return net


@njit(cache=True, nogil=True)
def leaf_values(w1, b1, w2, b2, w3, b3, observation, hidden1, hidden2, out):
    """``out[k]`` = the value in [0, 1] of the player ``k`` seats after the observer, from their ``observation``:
    the accumulator over the nonzero entries, clipped ReLU, a dense layer, clipped ReLU, a sigmoid."""
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
    for k in range(out.shape[0]):
        z = b3[k]
        for i in range(hidden2.shape[0]):
            z += min(max(hidden2[i], np.float32(0.0)), np.float32(1.0)) * w3[i, k]
        out[k] = 1.0 / (1.0 + np.exp(-np.float64(z)))


@njit(cache=True, nogil=True)
def seat_values(relative, observer, values):
    """``values`` by seat from ``relative`` (counted from ``observer``)."""
    players = values.shape[0]
    for k in range(players):
        values[(observer + k) % players] = relative[k]


@dataclass(frozen=True)
class LeafValue:
    """The leaf value strategy (module docstring): ``net`` mixed with rollouts by ``mix`` in [0, 1]."""

    net: LeafNet
    mix: float = 1.0
    name: str = field(default="", compare=False)  # where the weights came from, for ``explain``

    def __post_init__(self) -> None:
        if not 0.0 <= self.mix <= 1.0:
            raise InvalidParameterError(f"mix must be in [0, 1], got {self.mix}")

    def record(self) -> tuple:
        """The compiled loop's arguments: the weights and ``mix``."""
        return (*self.net, float(self.mix))

    def __call__(self, state: GameState, me: int) -> np.ndarray:
        """The network's values in [0, 1] by seat of the non-terminal ``state`` (observed by its player to move, at
        a chance node by ``me``), through the game's compiled ``observation`` kernel."""
        make = getattr(state, "compiled_model", None)
        model = make() if make is not None else None
        if model is None or model.observation is None:
            raise InvalidParameterError(f"{state.info.name} offers no compiled observation kernel "
                                        "(compiled_model().observation), which a leaf value net reads")
        player = state.current_player
        observer = me if player == CHANCE else player
        observation = np.empty(self.net.w1.shape[0], dtype=np.float32)
        model.observation(model.state, model.table, np.int64(observer), observation)
        relative, values = np.empty(state.num_players), np.empty(state.num_players)
        leaf_values(*self.net, observation, np.empty_like(self.net.b1), np.empty_like(self.net.b2), relative)
        seat_values(relative, observer, values)
        return values


NO_LEAF_VALUE = (*(np.zeros((0,) * ndim, dtype=np.float32) for ndim in (2, 1, 2, 1, 2, 1)), 1.0)  # the loop's: none

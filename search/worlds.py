"""Where each iteration's world comes from: a strategy object, as the selection and the rollout are.

==================  ===========  ===========================================================================
object              spec name    the world of iteration ``i``
==================  ===========  ===========================================================================
``TrueState()``     ``uct``      the true state (perfect information; on a hidden-information game the
                                 "cheating" UCT of paper 000 §2.1, for open mode)
``Fresh()``         ``ismcts``   a fresh determinization every iteration: single-observer ISMCTS (000 §2.3)
``Fixed(n)``        ``duct``     ``n`` determinizations drawn once per decision, taken round-robin (paper 001
                                 Algorithm 3)
==================  ===========  ===========================================================================

A determinization is the ``SearchConfig.determinizer``'s: the game's own ``determinize`` (uniform over the
information set), 001's inference-accuracy knob, or a deck model (``deck_models``: predicted decks). A search
draws the decision's fixed worlds first (``draw``), then one world per iteration (``world``); the compiled loop
draws exactly as this object does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import GameState
from .config import Determinizer


class Worlds(Protocol):
    """A worlds strategy: its spec ``name``, the decision's fixed worlds and each iteration's world."""

    name: ClassVar[str]
    count: int  # the fixed worlds of a decision (1 where there are none: the state itself)

    def draw(self, state: GameState, me: int, rng: np.random.Generator,
             determinizer: Determinizer) -> list[GameState]:
        """The decision's fixed worlds, drawn before any iteration (none but ``Fixed``'s)."""
        ...

    def world(self, state: GameState, me: int, rng: np.random.Generator, determinizer: Determinizer,
              fixed: list[GameState], i: int) -> GameState:
        """Iteration ``i``'s world, a state the iteration may play along (``fixed``: ``draw``'s)."""
        ...


class PerIteration:
    """Worlds made for each iteration, none fixed for the decision."""

    count: ClassVar[int] = 1

    def draw(self, state: GameState, me: int, rng: np.random.Generator,
             determinizer: Determinizer) -> list[GameState]:
        return []


@dataclass(frozen=True)
class TrueState(PerIteration):
    """Every iteration plays the true state."""

    name: ClassVar[str] = "uct"

    def world(self, state: GameState, me: int, rng: np.random.Generator, determinizer: Determinizer,
              fixed: list[GameState], i: int) -> GameState:
        return state.clone()


@dataclass(frozen=True)
class Fresh(PerIteration):
    """Every iteration plays a fresh determinization for the decider."""

    name: ClassVar[str] = "ismcts"

    def world(self, state: GameState, me: int, rng: np.random.Generator, determinizer: Determinizer,
              fixed: list[GameState], i: int) -> GameState:
        return determinizer(state, me, rng)


@dataclass(frozen=True)
class Fixed:
    """``count`` determinizations drawn once per decision; iteration ``i`` plays a copy of the ``i % count``-th."""

    count: int = 10
    name: ClassVar[str] = "duct"

    def __post_init__(self) -> None:
        if not (isinstance(self.count, int) and self.count >= 1):
            raise InvalidParameterError(f"num_worlds must be >= 1, got {self.count!r}")

    def draw(self, state: GameState, me: int, rng: np.random.Generator,
             determinizer: Determinizer) -> list[GameState]:
        return [determinizer(state, me, rng) for _ in range(self.count)]

    def world(self, state: GameState, me: int, rng: np.random.Generator, determinizer: Determinizer,
              fixed: list[GameState], i: int) -> GameState:
        return fixed[i % self.count].clone()


NAMES = {"uct": TrueState, "ismcts": Fresh, "duct": Fixed}


def worlds_of(worlds: str | Worlds, num_worlds: int = 1) -> Worlds:
    """The worlds strategy of a spec name (``num_worlds``: ``duct``'s count), or ``worlds`` itself."""
    if not isinstance(worlds, str):
        return worlds
    if worlds not in NAMES:
        raise InvalidParameterError(f"worlds must be 'uct', 'ismcts' or 'duct', got {worlds!r}")
    fixed = Fixed(num_worlds)  # validates num_worlds for every kind, as TreeSearch always has
    return fixed if worlds == "duct" else NAMES[worlds]()

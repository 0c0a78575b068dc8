"""Shared plumbing of the small test games: legality checks, turns, clones, errors.

A subclass stores its whole state as plain attributes (ints, tuples, flat lists) and
implements ``_current()``, ``_legal()``, ``_do(action)``, ``_returns()``,
``observation``, ``action_to_string`` and ``action_key``; imperfect-information and
chance games override ``determinize`` / ``chance_outcomes``.
"""
from __future__ import annotations

import copy
from typing import Hashable

import numpy as np

from cardboard.envs.errors import IllegalActionError, ProtocolError
from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo, sample_chance


def as_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


class SmallState:
    """Base of the small games' states (``info.num_players`` players; the bundled ones are two-player, zero-sum)."""

    def __init__(self, game: "SmallGame"):
        self.game = game
        self._turn = 0
        self._decider: int | None = None

    def _start(self) -> None:
        """Call at the end of a subclass ``__init__``: fixes who owns turn 0."""
        cur = self._current()
        self._decider = cur if cur >= 0 else None

    # -- subclass hooks ------------------------------------------------------------------------------
    def _current(self) -> int:
        raise NotImplementedError

    def _legal(self) -> list[int]:
        raise NotImplementedError

    def _do(self, action: int) -> None:
        raise NotImplementedError

    def _returns(self) -> tuple[float, ...]:
        raise NotImplementedError

    # -- protocol ------------------------------------------------------------------------------------
    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def num_players(self) -> int:
        return self.game.info.num_players

    @property
    def num_actions(self) -> int:
        return self.game.info.num_actions

    @property
    def current_player(self) -> int:
        return self._current()

    @property
    def turn(self) -> int:
        return self._turn

    def is_terminal(self) -> bool:
        return self._current() == TERMINAL

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.num_players, dtype=np.float64)
        return np.asarray(self._returns(), dtype=np.float64)

    def legal_actions(self) -> np.ndarray:
        arr = np.asarray(sorted(self._legal()), dtype=np.int64)
        arr.flags.writeable = False
        return arr

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an int, got {action!r}")
        action = int(action)
        legal = self._legal()
        if action not in legal:
            raise IllegalActionError(
                f"action {action} is not legal here (player {self._current()}); legal: {sorted(legal)}")
        self._do(action)
        cur = self._current()
        if cur >= 0:
            if self._decider is not None and cur != self._decider:
                self._turn += 1
            self._decider = cur

    def clone(self):
        new = copy.copy(self)
        for k, v in self.__dict__.items():
            if isinstance(v, (list, dict, set)):
                new.__dict__[k] = copy.copy(v)
        return new

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ProtocolError(f"chance_outcomes() called at a non-chance node (current_player={self._current()})")

    def _check_player(self, player: int) -> int:
        if isinstance(player, (bool, np.bool_)) or player not in range(self.num_players):
            raise ValueError(f"player must be in range({self.num_players}), got {player!r}")
        return int(player)

    def determinize(self, player: int, rng: np.random.Generator):
        """Perfect information: the state itself (a copy)."""
        self._check_player(player)
        return self.clone()

    def heuristic(self, player: int) -> float:
        """Default: the true result at terminals, 0 elsewhere."""
        player = self._check_player(player)
        if self.is_terminal():
            return float(np.clip(self._returns()[player], -1.0, 1.0))
        return 0.0

    def action_key(self, action: int) -> Hashable:
        return (self.action_to_string(action),)

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """Uniformly random moves (chance sampled by its probabilities) in place; returns decisions made."""
        limit = None if max_turns is None else self._turn + max_turns
        n = 0
        while not self.is_terminal() and (limit is None or self._turn < limit):
            if self._current() == CHANCE:
                self.apply(sample_chance(self, rng))
            else:
                legal = self._legal()
                self.apply(legal[int(rng.integers(len(legal)))])
                n += 1
        return n

    # -- identity ------------------------------------------------------------------------------------
    def state_key(self) -> tuple:
        """Everything that identifies the full state, hidden parts included."""
        return tuple((k, tuple(v) if isinstance(v, list) else v)
                     for k, v in sorted(self.__dict__.items()) if k != "game")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.game is self.game and other.state_key() == self.state_key()

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.state_key())})"


class SmallGame:
    """Base of the small games' factories."""

    info: GameInfo

    def new_state(self, seed: int | np.random.Generator | None = None):
        raise NotImplementedError

    def render_ansi(self, state: SmallState, perspective: int | None = None) -> str:
        return state.render(perspective)

    def render_rgb(self, state: SmallState) -> np.ndarray:
        raise NotImplementedError(f"{self.info.name} has no RGB rendering")

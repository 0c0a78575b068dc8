"""Stand or roll: a tiny N-player dice game with explicit chance nodes, competitive or cooperative.

``StandOrRollGame(num_players=3, target=0)``. Each seat decides once, in seat order:
``STAND`` (0) scores 1; ``ROLL`` (1) is followed by a chance node whose outcome
``FACE_BASE + f`` scores face ``f`` of a fair die with faces 0..3.

* ``target=0`` (competitive, general-sum): a seat's return is its score / 3, so
  the highest score wins and equal scores tie.
* ``target=T > 0`` (cooperative): every seat gets 1 when the scores add up to at
  least ``T`` and 0 otherwise (``max_return`` 1: the team won).

Perfect information; each seat's decision is its own turn.
"""
from __future__ import annotations

from typing import Hashable

import numpy as np

from cardboard.envs.errors import ProtocolError
from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo

from .base import SmallGame, SmallState

STAND, ROLL = 0, 1
FACES = 4
FACE_BASE = 2  # outcome id of face 0


class StandOrRollGame(SmallGame):
    """Stand (1 point) or roll a die (0..3 points), once per seat; competitive or, with a target, cooperative."""

    def __init__(self, num_players: int = 3, target: int = 0):
        self.players, self.target = int(num_players), int(target)  # int(): the CLI's --option gives strings
        if self.players < 1 or self.target < 0:
            raise ValueError(f"num_players must be >= 1 and target >= 0, got {num_players}, {target}")
        cooperative = self.target > 0
        self.info = GameInfo(
            name=f"stand_or_roll{self.players}" + (f"t{self.target}" if cooperative else ""),
            num_players=self.players, num_actions=FACE_BASE + FACES, observation_shape=(self.players + 1,),
            chance="explicit", information="perfect", utility="cooperative" if cooperative else "general_sum",
            min_return=0.0, max_return=1.0, max_turns=self.players - 1)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "StandOrRollState":
        return StandOrRollState(self)


class StandOrRollState(SmallState):
    def __init__(self, game: StandOrRollGame):
        super().__init__(game)
        self.scores: list[int] = []
        self.pending = False  # a roll awaits its chance outcome
        self._start()

    def _current(self) -> int:
        if self.pending:
            return CHANCE
        return TERMINAL if len(self.scores) == self.game.players else len(self.scores)

    def _legal(self) -> list[int]:
        cur = self._current()
        if cur == TERMINAL:
            return []
        return [FACE_BASE + f for f in range(FACES)] if cur == CHANCE else [STAND, ROLL]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.pending:
            raise ProtocolError(f"chance_outcomes() called at a non-chance node (current_player={self._current()})")
        return [(FACE_BASE + f, 1.0 / FACES) for f in range(FACES)]

    def _do(self, action: int) -> None:
        if self.pending:
            self.pending = False
            self.scores.append(action - FACE_BASE)
        elif action == ROLL:
            self.pending = True
        else:
            self.scores.append(1)

    def _returns(self) -> tuple[float, ...]:
        if self.game.target:
            return (float(sum(self.scores) >= self.game.target),) * self.game.players
        return tuple(s / (FACES - 1) for s in self.scores)

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Every seat's score / 3 (0 before it decided), then 1.0 if ``player`` is to move."""
        player = self._check_player(player)
        scores = self.scores + [0] * (self.game.players - len(self.scores))
        return np.asarray([s / (FACES - 1) for s in scores] + [float(self._current() == player)], dtype=np.float32)

    def action_to_string(self, action: int) -> str:
        a = int(action)
        return f"face {a - FACE_BASE}" if a >= FACE_BASE else ("stand", "roll")[a]

    def action_key(self, action: int) -> Hashable:
        return (self.action_to_string(action),)

    def render(self, perspective: int | None = None) -> str:
        cur = self._current()
        who = {TERMINAL: "over", CHANCE: "rolling"}.get(cur, f"player {cur} to move")
        return f"scores {self.scores}; {who}"

"""Loaded die: a one-roll betting game whose right move depends on the die's bias.

``LoadedDieGame(weights=(1, 1, 2, 2, 4, 30))``: a die of ``len(weights)`` faces, face ``f`` (1-based)
coming up with probability ``weights[f - 1] / sum(weights)`` (the default: the top face 3/4, the
other five 1/4 together, unevenly). Player 0 moves first (turn 0):

* ``PASS`` (1): the game ends drawn, (0, 0).
* ``BET`` (0): a chance node follows; ``chance_outcomes()`` is ``[(FACE_BASE + f - 1, p_f)]``.
  The face is public. Player 1 then answers (turn 1):

  * ``FOLD`` (2): player 0 wins 1, (+1, -1);
  * ``CALL`` (3): the top face wins 2 for player 0, (+2, -2); any other face loses 1, (-1, +1).

Returns lie in [-2, 2]. Perfect information. ``num_actions = 4 + faces``.

Right moves (``right_move(state)``; None where no move is right), all optimal under expectimax:

* Player 1 folds the top face (-1 instead of -2) and calls any other (+1 instead of -1).
* Player 0, with ``p`` the top face's probability, then earns ``p - (1 - p) = 2p - 1`` by betting
  and 0 by passing: BET iff ``p > 1/2``, PASS iff ``p < 1/2``. The default die bets (+1/2); a
  fair die passes (-2/3): a search that samples chance uniformly instead of by the probabilities
  takes the loaded die for a fair one.

``heuristic(p)``: 0 before the end, the result (clipped to [-1, 1]) at the end.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Hashable

import numpy as np

from cardboard.envs.errors import ProtocolError
from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo

from .base import SmallGame, SmallState

BET, PASS, FOLD, CALL = 0, 1, 2, 3
FACE_BASE = 4  # outcome id of face 1
NAMES = ("bet", "pass", "fold", "call")


class LoadedDieGame(SmallGame):
    def __init__(self, weights: Sequence[float] = (1, 1, 2, 2, 4, 30)):
        w = np.asarray(weights, dtype=float)
        if w.ndim != 1 or len(w) < 2 or not np.all(w > 0):
            raise ValueError(f"weights must be at least two positive numbers, got {weights!r}")
        self.faces = len(w)
        self.probs = tuple(float(p) for p in w / w.sum())
        self.info = GameInfo(
            name=f"loaded_die{self.faces}", num_players=2, num_actions=FACE_BASE + self.faces,
            observation_shape=(self.faces + 4,), chance="explicit", information="perfect",
            utility="zero_sum", min_return=-2.0, max_return=2.0, max_turns=2)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "LoadedDieState":
        return LoadedDieState(self)


class LoadedDieState(SmallState):
    def __init__(self, game: LoadedDieGame):
        super().__init__(game)
        self.history: list[int] = []  # BET / PASS, then the face outcome, then FOLD / CALL
        self._start()

    @property
    def face(self) -> int | None:
        """The face rolled (1-based), or None before the roll."""
        return self.history[1] - FACE_BASE + 1 if len(self.history) > 1 else None

    def _current(self) -> int:
        h = self.history
        if not h:
            return 0
        if h[0] == PASS or len(h) == 3:
            return TERMINAL
        return CHANCE if len(h) == 1 else 1

    def _legal(self) -> list[int]:
        cur = self._current()
        if cur == 0:
            return [BET, PASS]
        if cur == CHANCE:
            return [FACE_BASE + f for f in range(self.game.faces)]
        return [FOLD, CALL] if cur == 1 else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._current() != CHANCE:
            raise ProtocolError(f"chance_outcomes() called at a non-chance node (current_player={self._current()})")
        return [(FACE_BASE + f, p) for f, p in enumerate(self.game.probs)]

    def _do(self, action: int) -> None:
        self.history.append(action)

    def _returns(self) -> tuple[float, float]:
        h = self.history
        if h[0] == PASS:
            return (0.0, 0.0)
        if h[2] == FOLD:
            return (1.0, -1.0)
        return (2.0, -2.0) if self.face == self.game.faces else (-1.0, 1.0)

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Face one-hot (zeros before the roll), then flags: bet, folded, called, ``player`` to move."""
        player = self._check_player(player)
        obs = np.zeros(self.game.faces + 4, dtype=np.float32)
        if self.face is not None:
            obs[self.face - 1] = 1.0
        n = self.game.faces
        obs[n] = float(self.history[:1] == [BET])
        obs[n + 1] = float(FOLD in self.history[2:])
        obs[n + 2] = float(CALL in self.history[2:])
        obs[n + 3] = float(self._current() == player)
        return obs

    def action_to_string(self, action: int) -> str:
        a = int(action)
        return f"face {a - FACE_BASE + 1}" if a >= FACE_BASE else NAMES[a]

    def action_key(self, action: int) -> Hashable:
        a = int(action)
        return ("face", a - FACE_BASE + 1) if a >= FACE_BASE else (NAMES[a],)

    def render(self, perspective: int | None = None) -> str:
        cur = self._current()
        who = {TERMINAL: "over", CHANCE: "rolling"}.get(cur, f"player {cur} to move")
        hist = " ".join(self.action_to_string(a) for a in self.history) or "-"
        return f"history: {hist}; {who}"


def right_move(state: LoadedDieState) -> int | None:
    """The documented right move at a decision node (see the module docstring), else None."""
    cur = state.current_player
    if cur == 1:
        return FOLD if state.face == state.game.faces else CALL
    if cur == 0:
        p = state.game.probs[-1]
        return BET if p > 0.5 else PASS if p < 0.5 else None
    return None

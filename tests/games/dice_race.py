"""Dice race: a tiny push-your-luck game with explicit chance nodes.

``DiceRaceGame(target=10, faces=3)``. Both totals start at 0. Player 0 takes its turn, then
player 1 (two turns in all). On its turn a player repeatedly chooses

* ``ROLL`` (0): a chance node follows (``current_player == CHANCE``); ``chance_outcomes()`` is
  ``[(ROLL_OUTCOME_BASE + f - 1, 1/faces) for f in 1..faces]``, i.e. outcome id ``f + 1`` adds
  face ``f`` to the roller's total. Going over ``target`` busts: the roller loses at once.
  The roller then decides again (same turn).
* ``STOP`` (1): ends the turn (player 0's stop hands over to player 1; player 1's ends the game).

After both stop, the higher total wins, equal totals draw. Returns +1 / -1 / 0.
Perfect information. ``num_actions = faces + 2`` (decisions 0, 1; chance outcomes 2..faces+1).

Right moves (``right_move(state)``; None where not documented), all optimal under expectimax:

* Player 1 behind player 0's stopped total must ROLL (stopping loses for sure, rolling keeps
  a chance of a tie or win). E.g. target 10, d3: player 0 stopped at 8, player 1 at 6 -> ROLL.
* Player 1 ahead must STOP (it has won; rolling can only risk a bust).
* A player at exactly ``target`` must STOP (every face busts).
* Player 0 with ``total + faces <= target`` should ROLL (it cannot bust, and a higher stopping
  total is never worse).

``heuristic(p)``: (own total - opponent total) / target clipped to [-1, 1] before the end; the
result at terminals.
"""
from __future__ import annotations

from typing import Hashable

import numpy as np

from cardboard.envs.errors import ProtocolError
from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo

from .base import SmallGame, SmallState

ROLL, STOP = 0, 1
ROLL_OUTCOME_BASE = 2  # outcome id of face 1


class DiceRaceGame(SmallGame):
    def __init__(self, target: int = 10, faces: int = 3):
        if target < 1 or faces < 2:
            raise ValueError("target must be >= 1 and faces >= 2")
        self.target, self.faces = int(target), int(faces)
        self.info = GameInfo(
            name=f"dice_race{target}d{faces}", num_players=2, num_actions=faces + 2,
            observation_shape=(6,), chance="explicit", information="perfect", utility="zero_sum",
            min_return=-1.0, max_return=1.0, max_turns=2)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "DiceRaceState":
        return DiceRaceState(self)

    def state_with(self, totals: tuple[int, int], player: int) -> "DiceRaceState":
        """A decision node: ``player`` to move with these totals (player 0 already stopped if player == 1)."""
        st = DiceRaceState(self)
        st.totals = [int(totals[0]), int(totals[1])]
        if player == 1:
            st.player, st.stopped[0], st._turn, st._decider = 1, True, 1, 1
        return st


class DiceRaceState(SmallState):
    def __init__(self, game: DiceRaceGame):
        super().__init__(game)
        self.totals = [0, 0]
        self.stopped = [False, False]
        self.player = 0
        self.pending = False  # a roll awaits its chance outcome
        self.bust = -1
        self._start()

    def _current(self) -> int:
        if self.bust >= 0 or self.stopped[1]:
            return TERMINAL
        return CHANCE if self.pending else self.player

    def _legal(self) -> list[int]:
        cur = self._current()
        if cur == TERMINAL:
            return []
        if cur == CHANCE:
            return [ROLL_OUTCOME_BASE + f for f in range(self.game.faces)]
        return [ROLL, STOP]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._current() != CHANCE:
            raise ProtocolError(f"chance_outcomes() called at a non-chance node (current_player={self._current()})")
        p = 1.0 / self.game.faces
        return [(ROLL_OUTCOME_BASE + f, p) for f in range(self.game.faces)]

    def _do(self, action: int) -> None:
        p = self.player
        if self.pending:
            self.pending = False
            self.totals[p] += action - ROLL_OUTCOME_BASE + 1
            if self.totals[p] > self.game.target:
                self.bust = p
        elif action == ROLL:
            self.pending = True
        else:
            self.stopped[p] = True
            if p == 0:
                self.player = 1

    def _returns(self) -> tuple[float, float]:
        if self.bust >= 0:
            return (-1.0, 1.0) if self.bust == 0 else (1.0, -1.0)
        d = np.sign(self.totals[0] - self.totals[1])
        return (float(d), float(-d))

    def heuristic(self, player: int) -> float:
        player = self._check_player(player)
        if self.is_terminal():
            return float(self._returns()[player])
        d = (self.totals[player] - self.totals[1 - player]) / self.game.target
        return float(np.clip(d, -1.0, 1.0))

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Own total, opponent total (both / (target + faces)), own stopped, opponent stopped,
        ``player`` to move, chance node pending."""
        player = self._check_player(player)
        scale = self.game.target + self.game.faces
        return np.asarray([self.totals[player] / scale, self.totals[1 - player] / scale,
                           self.stopped[player], self.stopped[1 - player],
                           self._current() == player, self._current() == CHANCE], dtype=np.float32)

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if a >= ROLL_OUTCOME_BASE:
            return f"face {a - ROLL_OUTCOME_BASE + 1}"
        return ("roll", "stop")[a]

    def action_key(self, action: int) -> Hashable:
        a = int(action)
        return ("face", a - ROLL_OUTCOME_BASE + 1) if a >= ROLL_OUTCOME_BASE else (("roll", "stop")[a],)

    def render(self, perspective: int | None = None) -> str:
        cur = self._current()
        who = {TERMINAL: "over", CHANCE: "rolling"}.get(cur, f"player {cur} to move")
        return f"totals {self.totals[0]} : {self.totals[1]} (target {self.game.target}, d{self.game.faces}); {who}"


def right_move(state: DiceRaceState) -> int | None:
    """The documented right move at a decision node (see the module docstring), else None."""
    cur = state.current_player
    if cur not in (0, 1):
        return None
    g, t = state.game, state.totals
    if t[cur] == g.target:
        return STOP
    if cur == 1:
        return ROLL if t[1] < t[0] else STOP if t[1] > t[0] else None
    return ROLL if t[0] + g.faces <= g.target else None

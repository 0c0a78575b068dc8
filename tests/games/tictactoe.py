"""Tic-tac-toe. ``TicTacToeGame()``; action id = cell ``3 * row + col`` (0..8).

Player 0 plays X and moves first. Returns +1 / -1, or 0 / 0 for a draw; the game's value
under perfect play is a draw. ``heuristic(p)``: (open lines for p - open lines for the
opponent) / 8, where an open line holds no opposing mark; the result at terminals.
"""
from __future__ import annotations

from typing import Hashable

import numpy as np

from cardboard.envs.protocol import TERMINAL, GameInfo

from .base import SmallGame, SmallState

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class TicTacToeGame(SmallGame):
    def __init__(self):
        self.info = GameInfo(
            name="tictactoe", num_players=2, num_actions=9, observation_shape=(27,),
            chance="none", information="perfect", utility="zero_sum",
            min_return=-1.0, max_return=1.0, max_turns=9)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "TicTacToeState":
        return TicTacToeState(self)


class TicTacToeState(SmallState):
    def __init__(self, game: TicTacToeGame, board: str | None = None):
        """``board``: optional 9 characters of 'X', 'O', '.' (player to move inferred from counts)."""
        super().__init__(game)
        self.board = [-1] * 9  # -1 empty, else the owning player
        if board is not None:
            if len(board) != 9:
                raise ValueError("board must have 9 cells")
            self.board = [{"X": 0, "O": 1, ".": -1}[c] for c in board.upper()]
        self.player = 0 if self.board.count(0) == self.board.count(1) else 1
        self.winner = self._find_winner()
        self._start()

    def _find_winner(self) -> int:
        for a, b, c in LINES:
            if self.board[a] >= 0 and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return -1

    def _current(self) -> int:
        if self.winner >= 0 or -1 not in self.board:
            return TERMINAL
        return self.player

    def _legal(self) -> list[int]:
        if self._current() == TERMINAL:
            return []
        return [i for i, v in enumerate(self.board) if v < 0]

    def _do(self, action: int) -> None:
        self.board[action] = self.player
        self.winner = self._find_winner()
        self.player = 1 - self.player

    def _returns(self) -> tuple[float, float]:
        if self.winner < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def heuristic(self, player: int) -> float:
        player = self._check_player(player)
        if self.is_terminal():
            return float(self._returns()[player])
        mine = sum(all(self.board[i] != 1 - player for i in line) for line in LINES)
        theirs = sum(all(self.board[i] != player for i in line) for line in LINES)
        return (mine - theirs) / 8.0

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Three 9-cell planes in ``player``'s frame: own marks, opponent marks, empty cells."""
        player = self._check_player(player)
        b = np.asarray(self.board)
        return np.concatenate([b == player, b == 1 - player, b < 0]).astype(np.float32)

    def action_to_string(self, action: int) -> str:
        r, c = divmod(int(action), 3)
        return f"{'XO'[self.player]} at r{r}c{c}"

    def action_key(self, action: int) -> Hashable:
        return ("mark", int(action))

    def render(self, perspective: int | None = None) -> str:
        sym = {-1: ".", 0: "X", 1: "O"}
        rows = ["".join(sym[v] for v in self.board[r * 3:r * 3 + 3]) for r in range(3)]
        return "\n".join(rows)

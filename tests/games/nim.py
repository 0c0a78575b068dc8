"""Nim: take 1..``max_take`` objects from one heap; whoever takes the last object wins.

``NimGame(heaps=(1, 3, 5), max_take=None)``; ``max_take=None`` means the largest heap
(ordinary Nim). Action id ``heap * max_take + (take - 1)``: take ``take`` objects from heap
``heap``. Perfect information, no chance. Returns +1 / -1 (no draws).

Theory (Sprague-Grundy): a heap of ``h`` objects has Grundy value ``h % (max_take + 1)``
(just ``h`` in ordinary Nim). The player to move wins iff the XOR of the Grundy values is
nonzero, and the winning moves are exactly those that make it zero: ``winning_moves(state)``.

``heuristic`` is deliberately uninformative: 0 at non-terminal states, the result at
terminals (so search must find the XOR rule itself).
"""
from __future__ import annotations

from functools import reduce
from typing import Hashable, Sequence

import numpy as np

from cardboard.envs.protocol import TERMINAL, GameInfo

from .base import SmallGame, SmallState


class NimGame(SmallGame):
    def __init__(self, heaps: Sequence[int] = (1, 3, 5), max_take: int | None = None):
        heaps = tuple(int(h) for h in heaps)
        if not heaps or min(heaps) < 0 or sum(heaps) == 0:
            raise ValueError(f"heaps must be non-negative with a positive total, got {heaps}")
        self.heaps = heaps
        self.max_take = int(max_take) if max_take is not None else max(heaps)
        if self.max_take < 1:
            raise ValueError("max_take must be >= 1")
        self.info = GameInfo(
            name=f"nim{list(heaps)}k{self.max_take}", num_players=2,
            num_actions=len(heaps) * self.max_take, observation_shape=(len(heaps) + 1,),
            chance="none", information="perfect", utility="zero_sum",
            min_return=-1.0, max_return=1.0, max_turns=sum(heaps))

    def new_state(self, seed: int | np.random.Generator | None = None) -> "NimState":
        return NimState(self)


class NimState(SmallState):
    def __init__(self, game: NimGame, heaps: Sequence[int] | None = None, player: int = 0):
        super().__init__(game)
        self.heaps = list(game.heaps if heaps is None else heaps)
        self.player = player
        self.last_mover = -1
        self._start()

    def _current(self) -> int:
        return TERMINAL if sum(self.heaps) == 0 else self.player

    def _legal(self) -> list[int]:
        if sum(self.heaps) == 0:
            return []
        k = self.game.max_take
        return [i * k + t - 1 for i, h in enumerate(self.heaps) for t in range(1, min(h, k) + 1)]

    def _do(self, action: int) -> None:
        heap, take = divmod(action, self.game.max_take)
        self.heaps[heap] -= take + 1
        self.last_mover = self.player
        self.player = 1 - self.player

    def _returns(self) -> tuple[float, float]:
        return (1.0, -1.0) if self.last_mover == 0 else (-1.0, 1.0)

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Heap sizes / largest initial heap, then 1.0 if ``player`` is to move."""
        player = self._check_player(player)
        top = max(self.game.heaps)
        obs = [h / top for h in self.heaps] + [1.0 if self._current() == player else 0.0]
        return np.asarray(obs, dtype=np.float32)

    def decode(self, action: int) -> tuple[int, int]:
        """(heap, take) of an action id."""
        heap, take = divmod(int(action), self.game.max_take)
        return heap, take + 1

    def action_to_string(self, action: int) -> str:
        heap, take = self.decode(action)
        return f"take {take} from heap {heap}"

    def action_key(self, action: int) -> Hashable:
        return ("take",) + self.decode(action)

    def render(self, perspective: int | None = None) -> str:
        rows = [f"heap {i}: {'|' * h} ({h})" for i, h in enumerate(self.heaps)]
        who = "over" if self.is_terminal() else f"player {self.player} to move"
        return "\n".join(rows + [who])


def grundy(state: NimState) -> int:
    k = state.game.max_take
    return reduce(lambda a, b: a ^ b, (h % (k + 1) for h in state.heaps), 0)


def winning_moves(state: NimState) -> list[int]:
    """The actions after which the Grundy XOR is zero (empty iff the player to move loses)."""
    out = []
    for a in state._legal():
        child = state.clone()
        child.apply(a)
        if grundy(child) == 0:
            out.append(a)
    return sorted(out)

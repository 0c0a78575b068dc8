"""Hidden cards: a one-round, Kuhn-poker-like game of imperfect information.

``HiddenCardsGame(num_cards=5)``. Cards are 1..N. ``new_state(seed)`` deals each player one
hidden card (chance at set-up only); ``state_with(c0, c1)`` builds a chosen deal. Both ante 1.

* Player 0 acts: ``FOLD`` (0) -> returns (-1, +1); or ``BET`` (1), raising the stakes to 2.
* Facing the bet, player 1 acts: ``FOLD`` (0) -> (+1, -1); or ``CALL`` (2) -> showdown, the
  higher card wins 2: (+2, -2) or (-2, +2).

Returns lie in [-2, 2]. ``action_key`` is ("fold",) / ("bet",) / ("call",).
Player ``p`` sees its own card and the history; the opponent's card only after a showdown
(or with ``perfect=True``). ``determinize(p, rng)`` resamples the opponent's card uniformly
from the N-1 cards other than ``p``'s own (unless a showdown revealed it).

Right moves (``right_move(state)``; None where no move is right against every opponent):

* Player 0 holding card ``c`` with ``3c > N + 2`` (N=5: c >= 3) must BET. Against *any*
  strategy of player 1, betting earns at least ``(-2 (N-c) + (c-1)) / (N-1)`` (player 1
  calls exactly when it wins), which then exceeds folding's -1. With N=5 and c=3 that worst case
  is -0.5. A *cheating* (perfect-information) search that sees player 1 holding 4 or 5 FOLDS
  instead (it expects the call, -2 < -1); a determinizing search (PIMC) averages
  (+1 + 1 - 2 - 2) / 4 = -0.5 > -1 and bets. The highest card N bets in every determinization.
* Player 1 facing a bet with the lowest card 1 must FOLD (calling loses 2 for sure);
  with the highest card N must CALL (calling wins 2 for sure).

``heuristic(p)``: before the end, 2 * P(own card is higher) - 1 = 2 (c-1)/(N-1) - 1, using
only what ``p`` sees; at the end, the sign of p's return.
"""
from __future__ import annotations

from typing import Hashable

import numpy as np

from cardboard.envs.protocol import TERMINAL, GameInfo

from .base import SmallGame, SmallState, as_rng

FOLD, BET, CALL = 0, 1, 2
NAMES = ("fold", "bet", "call")


class HiddenCardsGame(SmallGame):
    def __init__(self, num_cards: int = 5):
        if num_cards < 3:
            raise ValueError("num_cards must be >= 3")
        self.num_cards = int(num_cards)
        self.info = GameInfo(
            name=f"hidden_cards{num_cards}", num_players=2, num_actions=3,
            observation_shape=(2 * self.num_cards + 4,), chance="setup", information="imperfect",
            utility="zero_sum", min_return=-2.0, max_return=2.0, max_turns=2)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "HiddenCardsState":
        rng = as_rng(seed)
        c0, c1 = rng.choice(np.arange(1, self.num_cards + 1), size=2, replace=False)
        return HiddenCardsState(self, int(c0), int(c1))

    def state_with(self, c0: int, c1: int) -> "HiddenCardsState":
        return HiddenCardsState(self, c0, c1)


class HiddenCardsState(SmallState):
    def __init__(self, game: HiddenCardsGame, c0: int, c1: int):
        super().__init__(game)
        n = game.num_cards
        if not (1 <= c0 <= n and 1 <= c1 <= n and c0 != c1):
            raise ValueError(f"cards must be distinct in 1..{n}, got {c0}, {c1}")
        self.cards = [int(c0), int(c1)]
        self.history: list[int] = []
        self._start()

    def _current(self) -> int:
        h = self.history
        if not h:
            return 0
        if h == [BET]:
            return 1
        return TERMINAL

    def _legal(self) -> list[int]:
        cur = self._current()
        return [FOLD, BET] if cur == 0 else [FOLD, CALL] if cur == 1 else []

    def _do(self, action: int) -> None:
        self.history.append(action)

    @property
    def showdown(self) -> bool:
        return self.history == [BET, CALL]

    def _returns(self) -> tuple[float, float]:
        if self.history == [FOLD]:
            return (-1.0, 1.0)
        if self.history == [BET, FOLD]:
            return (1.0, -1.0)
        return (2.0, -2.0) if self.cards[0] > self.cards[1] else (-2.0, 2.0)

    def heuristic(self, player: int) -> float:
        player = self._check_player(player)
        if self.is_terminal():
            return float(np.sign(self._returns()[player]))
        return 2.0 * (self.cards[player] - 1) / (self.game.num_cards - 1) - 1.0

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """Own card one-hot (N), opponent card one-hot (N; zeros while hidden), then flags:
        player 0 bet, player 1 called, somebody folded, ``player`` to move."""
        player = self._check_player(player)
        n = self.game.num_cards
        obs = np.zeros(2 * n + 4, dtype=np.float32)
        obs[self.cards[player] - 1] = 1.0
        if perfect or self.showdown:
            obs[n + self.cards[1 - player] - 1] = 1.0
        obs[2 * n] = float(bool(self.history) and self.history[0] == BET)
        obs[2 * n + 1] = float(self.showdown)
        obs[2 * n + 2] = float(FOLD in self.history)
        obs[2 * n + 3] = float(self._current() == player)
        return obs

    def determinize(self, player: int, rng: np.random.Generator) -> "HiddenCardsState":
        player = self._check_player(player)
        det = self.clone()
        if not self.showdown:
            unseen = [c for c in range(1, self.game.num_cards + 1) if c != self.cards[player]]
            det.cards[1 - player] = unseen[int(rng.integers(len(unseen)))]
        return det

    def action_to_string(self, action: int) -> str:
        return NAMES[int(action)]

    def action_key(self, action: int) -> Hashable:
        return (NAMES[int(action)],)

    def render(self, perspective: int | None = None) -> str:
        def card(p: int) -> str:
            seen = perspective is None or perspective == p or self.showdown
            return str(self.cards[p]) if seen else "?"
        hist = " ".join(NAMES[a] for a in self.history) or "-"
        return f"P0 [{card(0)}]  P1 [{card(1)}]  history: {hist}"


def right_move(state: HiddenCardsState) -> int | None:
    """The move that is right against every opponent strategy (see the module docstring), else None."""
    n = state.game.num_cards
    cur = state.current_player
    if cur == 0:
        return BET if 3 * state.cards[0] > n + 2 else None
    if cur == 1:
        c = state.cards[1]
        return FOLD if c == 1 else CALL if c == n else None
    return None

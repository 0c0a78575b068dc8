"""Three-player Pig: push-your-luck dice with explicit chance nodes.

Players 0, 1, 2 take turns. On their turn a player chooses ROLL (0; a chance node follows, outcome id = the
face 1-6) or HOLD (1; bank the turn's points, allowed once they rolled this turn). A 1 loses the turn's
points and ends the turn; any other face adds to them and the player decides again (same turn). Banking
``TARGET`` points wins at once; otherwise, after ``MAX_TURNS`` turns, the highest bank wins. Returns
(zero-sum over three): a sole winner +1 and the others -1/2; ``k`` tied leaders (3 - k) / (2k) each.

Perfect information; the start does not depend on the seed (all chance is in play).
"""
from __future__ import annotations

import operator

import numpy as np

from cardboard.api import CHANCE, TERMINAL, GameInfo, IllegalActionError, InvalidParameterError, ProtocolError

ROLL, HOLD = 0, 1
FACES = 6
TARGET = 20
MAX_TURNS = 18  # six rounds
PLAYERS = 3


class PigGame:
    """Three-player Pig: roll or hold, a 1 loses the turn's points, first to 20 wins."""

    def __init__(self):
        self.info = GameInfo(
            name="demo_pig3", num_players=PLAYERS, num_actions=2, observation_shape=(9,), chance="explicit",
            information="perfect", utility="zero_sum", min_return=-0.5, max_return=1.0, max_turns=MAX_TURNS,
            num_action_keys=2)

    def new_state(self, seed: int | np.random.Generator | None = None) -> PigState:
        return PigState(self)

    def render_ansi(self, state: PigState, perspective: int | None = None) -> str:
        cur = state.current_player
        who = {TERMINAL: "over", CHANCE: f"player {state.player} rolling"}.get(cur, f"player {cur} to move")
        return f"banks {state.banks}, turn points {state.pot}, turn {state.turn}: {who}"

    def render_rgb(self, state: PigState) -> np.ndarray:
        """One bar per bank, one for the turn's points (4 pixels a point) and one for the turns played."""
        image = np.full((50, 4 * TARGET + 8, 3), 255, dtype=np.uint8)
        for row, length in enumerate([*state.banks, state.pot, state.turn]):
            colour = (40, 140, 40) if row < 3 else (200, 120, 0) if row == 3 else (90, 90, 90)
            image[row * 10 + 2:row * 10 + 8, :4 * min(length, TARGET + 2)] = colour
        return image


class PigState:
    """A game of three-player Pig in play (the cardboard forward-model protocol)."""

    def __init__(self, game: PigGame):
        self.game = game
        self.banks = [0, 0, 0]
        self.pot = 0  # points of the turn in progress
        self.player = 0
        self.rolling = False  # a roll awaits its chance outcome
        self.over = False
        self._turn = 0

    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def num_players(self) -> int:
        return PLAYERS

    @property
    def num_actions(self) -> int:
        return 2

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def current_player(self) -> int:
        return TERMINAL if self.over else CHANCE if self.rolling else self.player

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> np.ndarray:
        if not self.over:
            return np.zeros(PLAYERS)
        leaders = [p for p in range(PLAYERS) if self.banks[p] == max(self.banks)]
        share = (PLAYERS - len(leaders)) / (2 * len(leaders))
        return np.array([share if p in leaders else -0.5 for p in range(PLAYERS)])

    def _legal(self) -> list[int]:
        if self.current_player < 0:
            return []
        return [ROLL, HOLD] if self.pot > 0 else [ROLL]

    def legal_actions(self) -> np.ndarray:
        legal = np.array(self._legal(), dtype=np.int64)
        legal.flags.writeable = False
        return legal

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(2, dtype=bool)
        mask[self._legal()] = True
        return mask

    def apply(self, action: int) -> None:
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action is an integer id, got {action!r}") from None
        if self.rolling:
            if not 1 <= a <= FACES:
                raise IllegalActionError(f"a die roll's outcome is a face 1-{FACES}, got {a}")
            self.rolling = False
            if a == 1:
                self.pot = 0
                self._end_turn()
            else:
                self.pot += a
            return
        if a not in self._legal():
            raise IllegalActionError(f"action {a} is not legal here; legal: {self._legal()}")
        if a == ROLL:
            self.rolling = True
            return
        self.banks[self.player] += self.pot
        self.pot = 0
        if self.banks[self.player] >= TARGET:
            self.over = True
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self._turn + 1 == MAX_TURNS:
            self.over = True
        else:
            self._turn += 1
            self.player = (self.player + 1) % PLAYERS

    def clone(self) -> PigState:
        new = PigState(self.game)
        new.banks = list(self.banks)
        new.pot, new.player, new.rolling = self.pot, self.player, self.rolling
        new.over, new._turn = self.over, self._turn
        return new

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.rolling:
            raise ProtocolError(f"chance_outcomes() at a non-chance node (current_player={self.current_player})")
        return [(face, 1.0 / FACES) for face in range(1, FACES + 1)]

    def _check_player(self, player: int) -> int:
        if isinstance(player, bool) or player not in range(PLAYERS):
            raise InvalidParameterError(f"player must be 0, 1 or 2, got {player!r}")
        return int(player)

    def determinize(self, player: int, rng: np.random.Generator) -> PigState:
        """Perfect information: a copy."""
        self._check_player(player)
        return self.clone()

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """From ``player``'s seat on: the three banks / 20, who is to move (one-hot), then the turn's points
        / 20, 1 while a roll is pending, and turns played / 18 (values capped at 1)."""
        p = self._check_player(player)
        seats = [(p + k) % PLAYERS for k in range(PLAYERS)]
        to_move = [float(not self.over and self.player == q) for q in seats]
        values = [self.banks[q] / TARGET for q in seats] + to_move + [self.pot / TARGET, self.rolling,
                                                                     self._turn / MAX_TURNS]
        return np.minimum(np.asarray(values, dtype=np.float32), 1.0)

    def action_key(self, action: int) -> int:
        return int(action)

    def action_to_string(self, action: int) -> str:
        return f"face {int(action)}" if self.rolling else ("roll", "hold")[int(action)]

    def heuristic(self, player: int) -> float:
        """(own bank, with the turn's points when it is ``player``'s turn, minus the best other bank) / 20;
        at the end +1 for a sole winner, -1 for a sole last, else 0."""
        p = self._check_player(player)
        if self.over:
            r = self.returns()
            others = np.delete(r, p)
            return 1.0 if r[p] > others.max() else -1.0 if r[p] < others.min() else 0.0
        mine = self.banks[p] + (self.pot if self.player == p else 0)
        best = max(b for q, b in enumerate(self.banks) if q != p)
        return float(np.clip((mine - best) / TARGET, -1.0, 1.0))

    # optional hooks (cardboard.api.HOOKS)
    def sample_chance(self, rng: np.random.Generator) -> int:
        if not self.rolling:
            raise ProtocolError(f"sample_chance() at a non-chance node (current_player={self.current_player})")
        return int(rng.integers(1, FACES + 1))

    def state_key(self) -> tuple:
        return (tuple(self.banks), self.pot, self.player, self.rolling, self.over, self._turn)

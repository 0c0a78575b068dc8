"""An OpenSpiel game state behind the cardboard forward-model protocol (perfect-information, two-player zero-sum).

It lets our search play OpenSpiel's own games, so differential tests and benchmarks
compare search against ``pyspiel`` bots on exactly the same rules. ``open_spiel``
is optional (the ``bench`` and ``dev`` extras); this module never imports it: it
wraps the objects ``pyspiel.load_game(...)`` returns.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .protocol import TERMINAL, GameInfo


class OpenSpielState:
    """``OpenSpielState(pyspiel_game[, pyspiel_state])``: the protocol over a pyspiel state (``.state``)."""

    def __init__(self, game: Any, state: Any | None = None):
        self.game = game
        self.state = game.new_initial_state() if state is None else state
        self.info = GameInfo(name=game.get_type().short_name, num_players=game.num_players(),
                             num_actions=game.num_distinct_actions(), observation_shape=(0,), chance="none",
                             information="perfect", utility="zero_sum", min_return=game.min_utility(),
                             max_return=game.max_utility(), max_turns=game.max_game_length(),
                             num_action_keys=game.num_distinct_actions())
        self.num_players = self.info.num_players
        self.num_actions = self.info.num_actions

    @property
    def current_player(self) -> int:
        return TERMINAL if self.state.is_terminal() else self.state.current_player()

    @property
    def turn(self) -> int:
        return self.state.move_number()

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def returns(self) -> np.ndarray:
        return np.asarray(self.state.returns(), dtype=float)

    def legal_actions(self) -> np.ndarray:
        return np.asarray(self.state.legal_actions(), dtype=np.int64)

    def apply(self, action: int) -> None:
        self.state.apply_action(int(action))

    def clone(self) -> "OpenSpielState":
        return OpenSpielState(self.game, self.state.clone())

    def determinize(self, player: int, rng: np.random.Generator) -> "OpenSpielState":
        return self.clone()  # perfect information: the only world is the true one

    def action_key(self, action: int) -> int:
        return int(action)

    def heuristic(self, player: int) -> float:
        return 0.0  # no game knowledge: rollouts decide

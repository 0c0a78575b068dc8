"""``StateBase``: the forward-model plumbing every game state shares (``protocol``'s ``State``).

It gives the game's ``info``, ``num_players`` and ``num_actions`` (read from ``game.info``), ``action_mask``
over ``legal_actions()``, a checked ``apply`` (a non-integer or illegal action raises ``IllegalActionError``
and leaves the state unchanged), the seat check of ``observation`` / ``heuristic`` / ``determinize`` and
``__hash__ = None`` (states are mutable). ``FlatState`` extends it for states over one flat array; a state
with other needs extends it directly (Fifth Aeon: a flat array that can also be read as the object engine's
``Match``).

A subclass sets ``game`` (its ``info`` is a ``GameInfo``) and defines ``legal_actions()``,
``_try_apply(a) -> bool`` (play the integer ``a`` if legal and say so; return False with the state unchanged
otherwise) and ``_illegal_message(a)``.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .errors import IllegalActionError, InvalidParameterError
from .protocol import GameInfo


class StateBase:
    """The shared plumbing of a game state (see the module docstring)."""

    __slots__ = ("game",)

    game: Any

    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def num_players(self) -> int:
        return self.game.info.num_players

    @property
    def num_actions(self) -> int:
        return self.game.info.num_actions

    def legal_actions(self) -> np.ndarray:
        raise NotImplementedError

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.info.num_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        """Play ``action`` in place; an illegal one raises ``IllegalActionError`` and changes nothing."""
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action is an integer id, got {action!r}") from None
        if not self._try_apply(a):
            raise IllegalActionError(self._illegal_message(a))

    def _try_apply(self, a: int) -> bool:
        raise NotImplementedError

    def _illegal_message(self, a: int) -> str:
        raise NotImplementedError

    def _check_player(self, player: int) -> int:
        """``player`` itself; ``InvalidParameterError`` unless it is a seat of the game."""
        if player not in range(self.game.info.num_players):
            raise InvalidParameterError(f"player must be in range({self.game.info.num_players}), got {player!r}")
        return player

    __hash__ = None  # mutable

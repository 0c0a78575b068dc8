"""``FlatState``: the plumbing shared by game states that wrap one flat numpy array.

A game whose whole state is one array ``s`` worked on in place by compiled rules
kernels (Lords of War, Hearth) subclasses ``FlatState`` and supplies the kernels
and the game's specifics (who acts, returns, naming, determinization). The base
class gives the protocol's plumbing once: the cached read-only legal-actions
view over a scratch buffer, ``action_mask``, a checked ``apply`` that raises
``IllegalActionError`` and leaves the state unchanged, ``clone``, the
observation call, pickling, equality, ``state_key`` and ``info``.

A subclass sets:

``_BUFFER_LEN``     length of the int32 scratch buffer; the legal ids go to its front.
``_PLAYER``         index in ``s`` of the player to act (for ``repr``).
``_legal_kernel``   ``staticmethod(legal_actions(s, cards, buf) -> n)``.
``_observe_kernel`` ``staticmethod(observe(s, cards, player, perfect, out))``.

and defines ``_apply_checked(a) -> n`` (play ``a`` if legal, return the number
of legal ids then in the buffer, or -1 with the state unchanged),
``_illegal_message(a)`` and ``_summary()`` (the game's part of ``repr``), and
the ``turn`` and ``phase`` properties.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np

from .state_base import StateBase

S = TypeVar("S", bound="FlatState")


class FlatState(StateBase):
    """A forward-model state over one flat array ``s`` (see the module docstring)."""

    __slots__ = ("cards", "s", "_buf", "_n", "_view")

    _BUFFER_LEN: ClassVar[int]
    _PLAYER: ClassVar[int]
    _legal_kernel: ClassVar[Callable[..., int]]
    _observe_kernel: ClassVar[Callable[..., None]]

    def __init__(self, game: Any, s: np.ndarray):
        self.game = game
        self.cards = game.cards
        self.s = s
        self._buf = np.empty(self._BUFFER_LEN, dtype=np.int32)
        self._n = -1  # legal actions not computed yet
        self._view: np.ndarray | None = None

    # -- moves ---------------------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        """Legal ids, increasing: a view valid until the next apply (copy it to keep it)."""
        if self._view is None:
            if self._n < 0:
                self._n = self._legal_kernel(self.s, self.cards, self._buf)
            self._view = self._buf[:self._n]
            self._view.flags.writeable = False
        return self._view

    def _try_apply(self, a: int) -> bool:
        n = self._apply_checked(a)
        self._view = None
        if n < 0:
            return False
        self._n = n
        return True

    def _forget_legal(self) -> None:
        """Drop the cached legal actions after a kernel changed ``s`` without listing them."""
        self._n = -1
        self._view = None

    def clone(self: S) -> S:
        return type(self)(self.game, self.s.copy())

    # -- information ---------------------------------------------------------------------------------
    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """What ``player`` sees (the game's ``observation`` module), float32 of ``info.observation_shape``."""
        out = np.zeros(self.game.info.observation_shape, dtype=np.float32)
        self._observe_kernel(self.s, self.cards, self._check_player(player), bool(perfect), out)
        return out

    def state_key(self) -> bytes:
        """The bytes of ``s``: everything that changes in play is there (the buffers are scratch, the game static)."""
        return self.s.tobytes()

    # -- identity ------------------------------------------------------------------------------------
    def __reduce__(self) -> tuple:
        return type(self), (self.game, self.s)  # the scratch buffers are rebuilt, not pickled

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and np.array_equal(self.s, other.s)
                and (other.game is self.game or np.array_equal(other.cards, self.cards)))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(turn={self.turn}, player={int(self.s[self._PLAYER])}, "
                f"phase={self.phase!r}, {self._summary()})")

"""DefaultAI, the game's own rule-based bot (004 §2.4; Fifth-Aeon-Model ``ai/defaultAi.ts``), and the bundled
BerserkerAI (004 §2.5), as agents; their decisions are ``default_policy``'s.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from .board import Match
from .compiled_model import MODEL_BUFFER
from .default_policy import DefaultPolicy
from .flat_default_ai import act, new_plan
from .state import FifthAeonState


class DefaultAI:
    """DefaultAI as an ``Agent``: deterministic; plans one action at a time from the state it is given (it reads
    only what its player may see: its hand, the board, both crypts, its own deck list), compiled
    (``flat_default_ai``; ``default_policy.DefaultPolicy`` is the same policy over a ``Match``)."""

    name = "default_ai"
    berserker = False

    def __init__(self, game: Any = None) -> None:
        if game is not None and game.info.name != "fifth_aeon":
            raise InvalidParameterError(f"agent {self.name!r} plays fifth_aeon only, not {game.info.name!r}")
        self.plan = new_plan()
        self._buf = np.zeros(MODEL_BUFFER, np.int32)

    def reset(self) -> None:
        self.plan[:] = 0

    def act(self, state: FifthAeonState, rng: np.random.Generator) -> int:
        if not isinstance(state, FifthAeonState):
            raise InvalidParameterError(f"agent {self.name!r} plays fifth_aeon states only")
        table = state.game.table
        return int(act(state.s, table.cards, table.mechs, state.deck_lists(), self.plan, self._buf, self.berserker))


class BerserkerPolicy(DefaultPolicy):
    """DefaultAI's decisions, except that it attacks with every unit able to and never blocks (over a ``Match``:
    the reference of the compiled ``flat_default_ai.act(..., berserker=True)``)."""

    def attackers(self, m: Match, me: int) -> list[int]:
        return [s for s, u in enumerate(m.board[me]) if u.can_attack()]

    def block(self, m: Match, me: int) -> list[int]:
        return []


class Berserker(DefaultAI):
    """BerserkerAI (004 §2.5): DefaultAI that attacks with every unit able to and never blocks."""

    name = "berserker"
    berserker = True

"""The paper's scripted policies as agents: ``pandemic_default`` (003 §2.2) and ``pandemic_mutator``
(003 §2.3's mutation policy), on macro-action states and, macro by macro, on primitive ones.

On a primitive state the agent picks a macro and plays its primitive steps (``macro.macro_steps``) on
its following decisions of the same turn, one a decision, while the next one is legal; then it picks
again. The default policy's "walk away" (tier 7) keeps walking for the rest
of the turn.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError
from ..kernels import seed_stream
from . import default_policy as D
from . import layout as L
from . import macro as M


def _check_game(game, name: str) -> None:
    if game is not None and game.info.name != "pandemic":
        raise InvalidParameterError(f"agent {name!r} plays pandemic only, not {game.info.name!r}")


class _MacroPolicy:
    """A compiled macro policy behind the ``Agent`` interface (``choose(s, board, buf, stream) -> macro``)."""

    name = "macro_policy"

    def __init__(self, game=None):
        _check_game(game, self.name)
        self._buf = np.empty(M.NUM_MACROS, dtype=np.int32)
        self._steps = np.empty(8, dtype=np.int32)
        self._routes = M.new_routes()
        self.reset()

    def reset(self) -> None:
        self._walking = None  # (turn, seat) of a walk-away in progress
        self._plan: list[int] = []  # the primitive steps left of the macro being played on a primitive state
        self._plan_key = None  # (turn, seat) the plan belongs to

    def _choose(self, state, stream) -> int:
        raise NotImplementedError

    def macro(self, state, rng: np.random.Generator) -> int:
        """The macro this policy plays at ``state`` (macro or primitive)."""
        return int(self._choose(state, seed_stream(rng)))

    def act(self, state, rng: np.random.Generator) -> int:
        if getattr(state, "game", None) is None or state.game.info.name != "pandemic":
            raise InvalidParameterError(f"agent {self.name!r} plays pandemic states only")
        if state.game.actions == "macro":
            return self.macro(state, rng)
        key = (state.turn, state.current_player)
        if self._plan and self._plan_key == key and self._plan[0] in state.legal_actions():
            return self._plan.pop(0)
        m = self.macro(state, rng)
        n = M.macro_steps(state.s, state.cards, m, self._steps)
        self._plan, self._plan_key = [int(a) for a in self._steps[1:n]], key
        return int(self._steps[0])


class DefaultPolicy(_MacroPolicy):
    """003 §2.2's hierarchical default policy (tiers: cure, treat 3 cubes, share, build, treat 2, treat 1, walk)."""

    name = "pandemic_default"

    def _choose(self, state, stream) -> int:
        key = (state.turn, int(state.s[L.PLAYER]))
        if self._walking == key and state.s[L.PHASE] == L.PH_ACTIONS:
            return D.walk_away(state.s, state.cards, stream)
        m = D.default_macro(state.s, state.cards, self._buf, stream, self._routes)
        if M.M_WALK <= m < M.M_PASS:
            self._walking = key
        return m


class MutationPolicy(_MacroPolicy):
    """003 §2.3's mutation policy: cure / treat / share / build in a shuffled order, then any macro."""

    name = "pandemic_mutator"

    def _choose(self, state, stream) -> int:
        return D.mutation_macro(state.s, state.cards, self._buf, stream, self._routes)

"""Lords of War as a PettingZoo AEC environment.

=====================  ===========================================================
agents                 ``player_0`` (Orcs by default, moves first), ``player_1``
action space           ``Discrete(338)``: deploy hand slot k on square e
                       (``k * 42 + e``, 252 ids), shoot at e (``252 + e``), hold
                       fire (294), draw (295), recall from e (``296 + e``). Squares
                       are in the acting player's own frame (row 0 = own edge), so
                       one policy serves both seats.
observation            ``{"observation": Box(0, 1, (1066,), float32),
                       "action_mask": Box(0, 1, (338,), int8)}``, in the observing
                       player's frame: 42 squares x 17 channels, own hand 6 x 24,
                       opponent's known hand cards 6 x 24, next deck cards 2 x 24
                       (open mode only), 16 global features (``observation``).
hidden information     the opponent's hand (except cards seen entering it) and the
                       order of both decks; ``open=True`` shows everything.
turns                  one player turn is several decisions by the same agent:
                       deploy, then a ranged target when there is one, then draw or
                       recall; ``agent_selection`` stays on that agent meanwhile.
rewards                +1 / -1 at the end (0 each for a draw), 0 before.
illegal move           ends the game: -1 for the offender, 0 for the other, and
                       ``info["illegal_move"]`` says which (``env(illegal="raise")``:
                       ``IllegalActionError``).
render modes           ``"ansi"`` (board with card tags, arrows and defence) and
                       ``"rgb_array"``.
=====================  ===========================================================

Version history: v0 (cardboard 0.1.0), first release.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pettingzoo import AECEnv

from ..aec import CardboardAECEnv, wrap
from .state import LordsOfWarGame


def raw_env(open: bool = False, render_mode: str | None = None,
            armies: Sequence[str | Path] = ("orcs", "dwarves")) -> CardboardAECEnv:
    """The unwrapped AEC env."""
    return CardboardAECEnv(LordsOfWarGame(armies), open=open, render_mode=render_mode)


def env(illegal: str = "lose", **kwargs) -> AECEnv:
    """The AEC env in PettingZoo's classic wrapper stack, as ``cardboard.make_env`` returns it: an illegal move
    ends the game (the offender scores -1) or, with ``illegal="raise"``, raises ``IllegalActionError``
    (``cardboard.envs.aec``)."""
    return wrap(raw_env(**kwargs), illegal)

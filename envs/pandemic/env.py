"""Pandemic as a PettingZoo AEC environment.

=====================  ===========================================================
agents                 ``player_0`` .. ``player_{n-1}`` (2-4 seats, roles by option)
action space           ``Discrete(3946)``: drive / direct / charter / shuttle to a city,
                       the Operations Expert's station move (city x card), treat a
                       colour, build (or build moving a station), give / take a card
                       (seat x card), cure a colour, end the actions, discard a card,
                       the Dispatcher's moves (seat x mode x city); ``layout`` lists them.
observation            ``{"observation": Box(0, 1, (1576,), float32),
                       "action_mask": Box(0, 1, (3946,), int8)}``: the public board,
                       hands and deck structure (``observation``).
hidden information     the order of both decks, from every seat; ``open=True`` shows
                       the next player and infection cards.
turns                  a seat's turn is up to 4 action decisions (and discards); the
                       draws and infections are chance steps the env plays itself. A
                       seat handed an 8th card discards inside another's turn.
rewards                cooperative: +1 for every seat at the win (four cures), -1 at a
                       loss (8 outbreaks, no cubes left, an empty player deck).
illegal move           the team loses: -1 for every seat, ``info["illegal_move"]``
                       says which (``env(illegal="raise")``: ``IllegalActionError``).
render modes           ``"ansi"`` and ``"rgb_array"`` (the map).
=====================  ===========================================================

Version history: v0 (cardboard 0.1.0), first release.
"""
from __future__ import annotations

from pettingzoo import AECEnv

from ..aec import CardboardAECEnv, wrap
from .state import PandemicGame


def raw_env(open: bool = False, render_mode: str | None = None, **options) -> CardboardAECEnv:
    """The unwrapped AEC env; ``options`` are ``PandemicGame``'s (players, epidemics, roles, setup, ...)."""
    return CardboardAECEnv(PandemicGame(**options), open=open, render_mode=render_mode)


def env(illegal: str = "lose", **kwargs) -> AECEnv:
    """The AEC env in PettingZoo's classic wrapper stack, as ``cardboard.make_env`` returns it: an illegal move
    ends the game as a loss for the team (every seat scores -1) or, with ``illegal="raise"``, raises
    ``IllegalActionError`` (``cardboard.envs.aec``)."""
    return wrap(raw_env(**kwargs), illegal)

"""Hearth as a PettingZoo AEC environment.

=====================  ===========================================================
agents                 ``player_0`` (goes first, 3 opening cards), ``player_1`` (4
                       cards and The Coin)
action space           ``Discrete(116)``, characters in the acting player's frame
                       (``layout``): play hand slot k (``k``, 0..9), target t
                       (``10 + t``; 0 own hero, 1..7 own minions, 8 enemy hero,
                       9..15 enemy minions), position p (``26 + p``), attacker a on
                       defender d (``34 + 8a + d``), hero power (98), end turn (99),
                       mulligan with the replaced cards' bit mask m (``100 + m``).
observation            ``{"observation": Box(0, 1, (3198,), float32),
                       "action_mask": Box(0, 1, (116,), int8)}``, own side first:
                       phase and turn, the card waiting for a target or position,
                       both heroes, both hands, both boards, deck contents
                       (``observation`` documents every block).
mask                   1 = legal for the acting agent; all zeros for the other
                       agent and at the end.
hidden information     the opponent's hand (except cards whose identity is public:
                       The Coin, Antonidas's Fireballs, a minion returned by Time
                       Rewinder; a Spare Part shows as one, not which one) and the
                       order of both decks (a draw is a chance node, sampled by the
                       env with its seeded generator); both deck lists are public.
                       ``open=True`` shows everything.
turns                  with the mulligan (option ``mulligan``, on by default)
                       ``player_0`` then ``player_1`` picks the cards to replace;
                       then a turn is a chain of decisions by the same agent (play,
                       target, position, attack, hero power) ending with END_TURN;
                       ``agent_selection`` stays on that agent meanwhile.
rewards                +1 / -1 at the end (0 each for a draw: both heroes dying at
                       once, or 200 player turns), 0 before.
illegal move           ends the game: -1 for the offender, 0 for the other, and
                       ``info["illegal_move"]`` says which (``env(illegal="raise")``:
                       ``IllegalActionError``).
render modes           ``"ansi"`` and ``"rgb_array"``.
=====================  ===========================================================

Options are those of ``HearthGame``: ``decks`` (one name for a mirror, two for a
cross-deck match, or deck JSON files), ``mulligan`` and ``rollout`` (the search
rollout policy; it does not change the game).

Version history: v0 (cardboard 0.2.0), first release.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pettingzoo import AECEnv

from ..aec import CardboardAECEnv, wrap
from .cards import Deck
from .state import HearthGame


def raw_env(open: bool = False, render_mode: str | None = None,
            decks: Sequence[str | Path | Deck] | str = ("mech_mage", "mech_mage"),
            mulligan: bool | str = True, rollout: str = "sensible") -> CardboardAECEnv:
    """The unwrapped AEC env."""
    return CardboardAECEnv(HearthGame(decks, mulligan=mulligan, rollout=rollout), open=open,
                           render_mode=render_mode)


def env(illegal: str = "lose", **kwargs) -> AECEnv:
    """The AEC env in PettingZoo's classic wrapper stack, as ``cardboard.make_env`` returns it: an illegal move
    ends the game (the offender scores -1) or, with ``illegal="raise"``, raises ``IllegalActionError``
    (``cardboard.envs.aec``)."""
    return wrap(raw_env(**kwargs), illegal)

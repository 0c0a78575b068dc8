"""Fifth Aeon as a PettingZoo AEC environment.

=====================  ===========================================================
agents                 ``player_0`` (goes first, 3 opening cards + the turn's draw),
                       ``player_1`` (4 opening cards)
action space           ``Discrete(170)`` in the acting player's frame (``layout``):
                       pick a choice option (0..59) / choice done (60), play a resource
                       (61..64), play hand slot h (65..76), a host or target at board
                       position b (77..90: own 0..6, enemy 7..13), no target (91),
                       empower / diminish an enchantment (92..105), declare an
                       attacker (106..112), block attacker a with unit b
                       (113 + 7b + a), the next blocker to take damage (162..168),
                       pass (169).
observation            ``{"observation": Box(0, 1, (N,), float32), "action_mask":
                       Box(0, 1, (170,), int8)}``: both players' numbers, the own hand,
                       both boards, seen opponent cards, the own deck list, crypts,
                       the pending choice (``observation`` documents every block).
hidden information     the order of both decks, the opponent's hand (except cards it
                       revealed) and deck list. ``open=True`` shows everything.
turns                  the mulligans (each player picks the cards to replace), then a
                       turn is a chain of decisions by the turn player; the defender
                       blocks inside the attacker's turn, and a player makes a choice
                       (a discard) when an effect asks, in either turn.
rewards                +1 / -1 at the end (0 each for a draw: both players at 0 life at
                       once, or 200 turns), 0 before.
illegal move           ends the game: -1 for the offender, 0 for the other, and
                       ``info["illegal_move"]`` says which (``env(illegal="raise")``:
                       ``IllegalActionError``).
render modes           ``"ansi"`` and ``"rgb_array"``.
=====================  ===========================================================

Options are ``FifthAeonGame``'s: ``decks`` (one built-in name for a mirror, two for a
match-up, or deck JSON files), ``cards`` (a JSON file of extra cards) and ``mulligan``.

Version history: v0 (cardboard 0.3.0), first release.
"""
from __future__ import annotations

from pettingzoo import AECEnv

from ..aec import CardboardAECEnv, wrap
from .state import FifthAeonGame


def raw_env(open: bool = False, render_mode: str | None = None, **options) -> CardboardAECEnv:
    """The unwrapped AEC env; ``options`` are ``FifthAeonGame``'s (decks, cards, mulligan)."""
    return CardboardAECEnv(FifthAeonGame(**options), open=open, render_mode=render_mode)


def env(illegal: str = "lose", **kwargs) -> AECEnv:
    """The AEC env in PettingZoo's classic wrapper stack, as ``cardboard.make_env`` returns it: an illegal move
    ends the game (the offender scores -1) or, with ``illegal="raise"``, raises ``IllegalActionError``
    (``cardboard.envs.aec``)."""
    return wrap(raw_env(**kwargs), illegal)

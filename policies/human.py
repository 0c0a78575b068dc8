"""A person at the terminal as an agent (``human``): ``cardboard play GAME --agents human,ismcts --games 1``.

At each decision it prints the board from the acting seat's view only (the
opponent's hand stays hidden), the legal moves numbered from 1, and reads a
number; anything else re-asks. There is no undo. End of input raises
``InputClosedError``, which the command line reports as an error (exit 2).
"""
from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from ..envs.errors import CardboardError
from ..envs.protocol import Game, GameState


class InputClosedError(CardboardError, EOFError):
    """The person's input ended (end of file, Ctrl-D) before they chose a move."""


class HumanAgent:
    """Asks a person for each move on ``input`` / ``output`` (default: the terminal)."""

    name = "human"

    def __init__(self, game: Game, input: TextIO | None = None, output: TextIO | None = None):
        self.game = game
        self.input = sys.stdin if input is None else input
        self.output = sys.stdout if output is None else output

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        seat = state.current_player
        legal = [int(a) for a in state.legal_actions()]
        moves = "\n".join(f"{i:>4}. {state.action_to_string(a)}" for i, a in enumerate(legal, start=1))
        self._say(f"\n{self.game.render_ansi(state, perspective=seat)}\n\nplayer {seat}, your moves:\n{moves}\n")
        while True:
            self._say(f"player {seat}, your move (1-{len(legal)}): ")
            line = self.input.readline()
            if not line:
                self._say("\n")
                raise InputClosedError(f"input closed while player {seat} was choosing a move; game abandoned")
            text = line.strip()
            if text.isdecimal() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            self._say(f"{text!r} is not a move: type a number from 1 to {len(legal)} and press Enter\n"
                      if text else f"no move given: type a number from 1 to {len(legal)} and press Enter\n")

    def _say(self, text: str) -> None:
        self.output.write(text)
        self.output.flush()


def human_agent(game: Game | None) -> HumanAgent:
    """A person at the terminal: the board from their seat's view, numbered moves, a number typed per move."""
    if game is None:
        raise ValueError("it draws the board, so it needs the game: make_agent('human', game)")
    return HumanAgent(game)

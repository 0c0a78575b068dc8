"""A person at the terminal as an agent (``human``): ``cardboard play GAME --agents human,ismcts --games 1``.

At each decision it prints what happened since the person's last move (the other players' moves and chance
events, as their seat sees them), the board from their seat's view only (the opponent's hand stays hidden), their
own cards with cost and text, and the legal moves numbered from 1. A game whose moves fall into groups
(``action_path``: Pandemic's move / treat / build / share / cure) gets a menu of groups first, then the moves of
the chosen group (``b`` goes back). A single legal move is played with a note, without asking. At the end it
prints the final board and who won. Anything but a listed number re-asks; there is no undo. End of input raises
``InputClosedError``, which the command line reports as an error (exit 2).
"""
from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

from ..envs.errors import CardboardError
from ..envs.protocol import Game, GameState
from ..envs.view import View, describe, menu, result_line, seen

BACK = "b"  # typed in a group of moves: back to the groups


class InputClosedError(CardboardError, EOFError):
    """The person's input ended (end of file, Ctrl-D) before they chose a move."""


class HumanAgent:
    """Asks a person for each move on ``input`` / ``output`` (default: the terminal)."""

    name = "human"

    def __init__(self, game: Game, input: TextIO | None = None, output: TextIO | None = None):
        self.game = game
        self.input = sys.stdin if input is None else input
        self.output = sys.stdout if output is None else output
        self.news: list[str] = []  # what this seat saw happen since its last decision

    def reset(self) -> None:
        """A new game: nothing seen yet."""
        self.news = []

    def observe(self, state: GameState, action: int, seat: int) -> None:
        """Keep how ``seat`` sees ``action`` (the other players' moves and chance: its own it chose)."""
        if state.current_player != seat:
            line = seen(state, action, seat)
            if line:
                self.news.append(line)

    def game_over(self, state: GameState, seat: int) -> None:
        """The last moves, the final board from ``seat``'s view and the result."""
        self._say(f"{self._since()}\n{describe(state, self.game, seat).text}\n\n{result_line(state)}\n")

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        seat = state.current_player
        legal = [int(a) for a in state.legal_actions()]
        if len(legal) == 1:
            self._say(f"{self._since()}player {seat}: one legal move, played for you: "
                      f"{' '.join(_only_path(menu(state, legal)))}\n")
            return legal[0]
        view = describe(state, self.game, seat)
        self._say(f"{self._since()}\n{view.text}\n{_cards(view, seat)}")
        tree, through = menu(state, legal), []
        while len(tree) == 1:  # one group only (every move deploys): straight into it
            (label, tree), = tree.items()
            through.append(label)
        return self._choose(seat, tree, [], through)

    def _choose(self, seat: int, tree: dict[str, Any], trail: list[str], through: list[str]) -> int:
        """Walk the menu from ``tree`` (reached through ``trail``, which ``b`` walks back, after the single groups
        ``through``) until a move is chosen."""
        entries = list(tree.items())
        where = f" > {' > '.join(through + trail)}" if through or trail else ""
        lines = "\n".join(f"{i:>4}. {label}" + (f" ... ({_count(child)} moves)" if isinstance(child, dict) else "")
                          for i, (label, child) in enumerate(entries, start=1))
        self._say(f"\nplayer {seat}, your moves{where}:\n{lines}\n")
        back = f", {BACK}: back" if trail else ""
        while True:
            self._say(f"player {seat}, your move (1-{len(entries)}{back}): ")
            line = self.input.readline()
            if not line:
                self._say("\n")
                raise InputClosedError(f"input closed while player {seat} was choosing a move; game abandoned")
            text = line.strip()
            if trail and text.lower() == BACK:
                return -1
            if text.isdecimal() and 1 <= int(text) <= len(entries):
                label, child = entries[int(text) - 1]
                if not isinstance(child, dict):
                    return child
                chosen = self._choose(seat, child, [*trail, label], through)
                if chosen >= 0:
                    return chosen
                self._say(f"\nplayer {seat}, your moves{where}:\n{lines}\n")
                continue
            self._say(f"{text!r} is not a move: type a number from 1 to {len(entries)}{back} and press Enter\n"
                      if text else f"no move given: type a number from 1 to {len(entries)} and press Enter\n")

    def _since(self) -> str:
        """What happened since the last decision, once (then forgotten)."""
        if not self.news:
            return ""
        text = "since your last move:\n" + "".join(f"  {line}\n" for line in self.news)
        self.news = []
        return text

    def _say(self, text: str) -> None:
        self.output.write(text)
        self.output.flush()


def _count(tree: dict[str, Any]) -> int:
    return sum(_count(child) if isinstance(child, dict) else 1 for child in tree.values())


def _only_path(tree: dict[str, Any]) -> list[str]:
    (label, child), = tree.items()
    return [label, *(_only_path(child) if isinstance(child, dict) else [])]


def _cards(view: View, seat: int) -> str:
    """``seat``'s own cards with cost, stats and text (the board text names them only)."""
    out = []
    for zone in view.zones:
        faces = [c for c in zone.cards if not c.hidden and (c.text or c.cost is not None)]
        if zone.owner == seat and faces:
            out.append(f"{zone.name}:")
            for card in faces:
                cost = "" if card.cost is None else f" (cost {card.cost})"
                stats = " ".join(f"{k} {v}" for k, v in card.stats.items())
                text = f": {card.text}" if card.text else ""
                out.append(f"  {card.name}{cost}{f' [{stats}]' if stats else ''}{text}")
    return "\n".join(out) + "\n" if out else ""


def human_agent(game: Game | None) -> HumanAgent:
    """A person at the terminal: the board from their seat's view, numbered moves, a number typed per move."""
    if game is None:
        raise ValueError("it draws the board, so it needs the game: make_agent('human', game)")
    return HumanAgent(game)

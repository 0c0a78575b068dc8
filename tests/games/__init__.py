"""Small, exact, pure-Python games implementing the full forward-model protocol.

They exist to test search algorithms (UCT, ISMCTS, DUCT, PIMC) against known answers:

* ``nim.NimGame``                  perfect information, no chance; ``winning_moves(state)``.
* ``tictactoe.TicTacToeGame``      perfect information, draws; game value 0.
* ``hidden_cards.HiddenCardsGame`` imperfect information, chance at set-up; ``right_move(state)``.
* ``dice_race.DiceRaceGame``       explicit chance nodes; ``right_move(state)``.
* ``loaded_die.LoadedDieGame``     explicit chance with unequal probabilities; ``right_move(state)``.
"""
from .dice_race import DiceRaceGame, DiceRaceState
from .hidden_cards import HiddenCardsGame, HiddenCardsState
from .loaded_die import LoadedDieGame, LoadedDieState
from .nim import NimGame, NimState
from .tictactoe import TicTacToeGame, TicTacToeState

__all__ = ["DiceRaceGame", "DiceRaceState", "HiddenCardsGame", "HiddenCardsState",
           "LoadedDieGame", "LoadedDieState", "NimGame", "NimState", "TicTacToeGame", "TicTacToeState"]

"""The Hearthstone-style card game of paper 001 (Zhang 2017): the 2015 Blackrock-era decks.

Mech Mage, Handlock and Face Hunter with every card, token and hero power
(``cards``, ``brm_cards.json``), rules compiled over one flat state array
(``rules``, ``layout``), the forward model with determinization (``state``),
the observation (``observation``), the end-of-turn evaluation (``evaluation``),
text and RGB pictures (``render``), hand-built positions for tests
(``positions``), the PettingZoo AEC env (``env``), the Greedy H(a) baseline
(``greedy``) and the Table 4.1 feature encoder (``features``). The rules and
every decision taken where the sources are silent are in this folder's README.

Importing this package registers the game ``hearth`` and the agent ``greedy_h``.
"""
from ..registration import register_agent, register_game
from .env import env, raw_env
from .greedy import GreedyHAgent, greedy_h
from .state import HearthGame, HearthState

register_game("hearth", HearthGame, "Hearthstone-style CCG: the 2015 Mech Mage, Handlock and Face Hunter decks")
register_agent("greedy_h", greedy_h, "hearth only: paper 001's Greedy player on the cost-effect heuristic H(a)")

__all__ = ["GreedyHAgent", "HearthGame", "HearthState", "env", "greedy_h", "raw_env"]

"""Fifth Aeon (Ritson's open-source CCG, paper 004): the whole card pool, its DefaultAI and BerserkerAI.

Modules, each importing only those before it: the numbers (``constants``), the action ids (``layout``), the 137
cards, the Statue token and the 12 decks as data (``cards``, ``cards.json``, ``decks.json``), the board and its
permanents (``board``), whom each targeter picks (``targeters``), what each mechanic does (``effects``), the turn
and combat (``rules``), the legal actions (``moves``), DefaultAI's card evaluation (``evaluation``) and decisions
(``default_policy``), the observation (``observation``), text and RGB pictures (``render``). The same rules compiled
over one flat array, which the forward model runs on (README "Speed: the compiled rules"): the layout and card
tables (``flat_layout``, ``flat_table``), what resolves at once and what sets triggers off (``flat_rules``,
``flat_machine``), the moves (``flat_moves``), playouts, keys and determinization (``flat_model``), the observation
(``flat_observation``), DefaultAI (``flat_evaluation``, ``flat_default_ai``), the conversions to and from a
``Match`` (``flat_convert``) and search's model (``compiled_model``). Then the forward model (``state``), the bots
as agents (``default_ai``), the PettingZoo AEC env (``env``) and hand-built positions (``positions``). The rules as
implemented, and every decision taken where the sources are silent, are in this folder's README.

Importing this package registers the game ``fifth_aeon`` and the agents ``default_ai`` and ``berserker``.
"""
from ..registration import register_agent, register_game
from .cards import CardPool, Deck, bundled_pool, load_deck, load_pool
from .default_ai import Berserker, DefaultAI
from .env import env, raw_env
from .state import FifthAeonGame, FifthAeonState

register_game("fifth_aeon", FifthAeonGame, "Fifth Aeon: the 137-card pool and 12 decks of Ritson's CCG (004)")
register_agent("default_ai", DefaultAI, "fifth_aeon only: the game's own rule-based bot (004 §2.4)")
register_agent("berserker", Berserker, "fifth_aeon only: BerserkerAI, DefaultAI that always attacks, never blocks")

__all__ = ["Berserker", "CardPool", "Deck", "DefaultAI", "FifthAeonGame", "FifthAeonState", "bundled_pool", "env",
           "load_deck", "load_pool", "raw_env"]

"""Lords of War (Black Box Games), after Sephton's thesis and the CIG 2014 pruning paper.

Modules: the numbers of the game and the flat state array (``layout``), army
loading (``cards``, ``armies.json``), the rules compiled over the array
(``rules``), the forward model (``state``), the observation encoder
(``observation``), sampling what a player cannot see (``determinization``),
text and RGB pictures (``render``), hand-built positions (``positions``), paper
002's pruning heuristics and heat maps (``heuristics``, ``heat_maps.json``) and
the PettingZoo AEC env (``env``). See README.md beside this file for the rules
as implemented and every decision taken where the sources are ambiguous.

Importing this package registers the game ``lords_of_war``.
"""
from ..registration import register_game
from .env import env, raw_env
from .positions import build_position
from .state import LordsOfWarGame, LordsOfWarState

register_game("lords_of_war", LordsOfWarGame, "Lords of War: 7x6 card-placement battles, Orcs vs Dwarves")

__all__ = ["LordsOfWarGame", "LordsOfWarState", "build_position", "env", "raw_env"]

"""Lords of War (Black Box Games), after Sephton's thesis and the CIG 2014 pruning paper.

See README.md beside this file for the rules as implemented and every decision
taken where the sources are ambiguous.
"""
from .env import env, raw_env
from .positions import build_position
from .state import LordsOfWarGame, LordsOfWarState

__all__ = ["LordsOfWarGame", "LordsOfWarState", "build_position", "env", "raw_env"]

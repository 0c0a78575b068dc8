"""Lords of War, version 0, PettingZoo style: ``cardboard.envs.lords_of_war_v0.env()`` / ``raw_env()``.

The constructors and their documentation are in ``cardboard.envs.lords_of_war.env``.
"""
from .lords_of_war.env import env, raw_env

__all__ = ["env", "raw_env"]

"""Fifth Aeon, version 0, PettingZoo style: ``cardboard.envs.fifth_aeon_v0.env()`` / ``raw_env()``.

The constructors and their documentation are in ``cardboard.envs.fifth_aeon.env``.
"""
from .fifth_aeon.env import env, raw_env

__all__ = ["env", "raw_env"]

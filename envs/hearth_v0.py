"""Hearth, version 0, PettingZoo style: ``cardboard.envs.hearth_v0.env()`` / ``raw_env()``.

The constructors and their documentation are in ``cardboard.envs.hearth.env``.
"""
from .hearth.env import env, raw_env

__all__ = ["env", "raw_env"]

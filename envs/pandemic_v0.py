"""Pandemic, version 0, PettingZoo style: ``cardboard.envs.pandemic_v0.env()`` / ``raw_env()``.

The constructors and their documentation are in ``cardboard.envs.pandemic.env``.
"""
from .pandemic.env import env, raw_env

__all__ = ["env", "raw_env"]

"""Pandemic (Z-Man Games), cooperative, 2-4 players, after Sfikas & Liapis, FDG 2020 (paper 003).

Modules: the numbers of the game and the flat state array (``layout``), the 48-city map (``board``,
``map.json``), the rules compiled over the array (``rules``), the forward model (``state``), the
observation encoder (``observation``), set-up files (``setup_file``), text and RGB pictures
(``render``), the PettingZoo AEC env (``env``), the macro-action layer (``macro``), the paper's
default and mutation policies (``default_policy``, ``agents``) and its state evaluations (``fitness``). See README.md beside this file for the rules as
implemented and every decision taken where the sources are ambiguous.

Importing this package registers the game ``pandemic``.
"""
from ..registration import register_agent, register_game
from .agents import DefaultPolicy, MutationPolicy
from .env import env, raw_env
from .setup_file import SetupError, load_setup, setup_of, write_setup
from .state import PandemicGame, PandemicState

register_game("pandemic", PandemicGame, "Pandemic: cooperative, 2-4 players, the paper's four roles (003)")
register_agent("pandemic_default", DefaultPolicy, "Pandemic: the paper's hierarchical default policy over macro-actions")
register_agent("pandemic_mutator", MutationPolicy, "Pandemic: RHEA's mutation policy (cure/treat/share/build, shuffled)")

__all__ = ["PandemicGame", "PandemicState", "SetupError", "env", "load_setup", "raw_env", "setup_of", "write_setup"]

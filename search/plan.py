"""Which loop runs a tree search, chosen once per engine and game (``plan``), with the reason whenever it is a slower
one.

Two loops exist: the Python descent (``loop.PythonLoop``), which takes every configuration and every game, and the
compiled loop (``compiled.CompiledLoop``), which reproduces its trees exactly for a game with ``compiled_model()``
and the configurations it knows: rollouts below UCB1, or below PUCT over a learned prior at every node (the rollout
mode, ``compiled.refusal``), or a network's values and priors below PUCT (the leaf mode,
``compiled_network.refusal``). ``plan`` asks the mode that matches the
selection and keeps its refusal as ``Plan.why``; a search that continues a given tree, or whose generator the
compiled loop cannot replay, runs in Python that once (``compiled.call_refusal``), and its result says why
(``SearchResult.driver``). ``cardboard agents --explain SPEC`` prints the plan of an agent for a game.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..envs.protocol import GameState
from . import compiled, compiled_network
from .config import Driver, SearchConfig
from .loop import PythonLoop
from .strategies import PUCT
from .worlds import Worlds


@dataclass(frozen=True)
class Plan:
    """The loop chosen for a game (``driver``) and, when it is the Python loop, why (``why``)."""

    driver: Driver
    why: str | None = None

    def describe(self) -> str:
        """The driver's name, and why it is the Python loop."""
        return self.driver.name if self.why is None else f"{self.driver.name} ({self.why})"


def plan(config: SearchConfig, worlds: Worlds, state: GameState, reuse: bool = False,
         python: PythonLoop | None = None) -> Plan:
    """The plan of an engine with ``config``, ``worlds`` and tree ``reuse`` for ``state``'s game: its compiled loop
    where it reproduces the configuration, else the Python loop (``python``, or a new one) and why."""
    python = python or PythonLoop(config, worlds)
    leaf_mode = type(config.selection) is PUCT and not compiled.learned_prior(config)
    refusal = compiled_network.refusal if leaf_mode else compiled.refusal
    why = "reuse=1 (a kept subtree continues in Python)" if reuse and config.compiled else refusal(config, worlds, state)
    if why is not None:
        return Plan(python, why)
    leaf = compiled_network.NetworkLeaves(config) if leaf_mode else None
    return Plan(compiled.CompiledLoop(config, worlds, leaf))

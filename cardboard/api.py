"""Everything a game or agent author needs, in one module.

    from cardboard.api import (CHANCE, TERMINAL, GameInfo, GameState, Game, Agent, register_game,
                               register_agent, IllegalActionError, ProtocolError, ...)

The protocol page (``cardboard.envs.protocol``, and the README's summary)
states what a state must offer, the rules search relies on and the optional
hooks (``HOOKS``). A game registers itself with ``register_game(name, factory,
summary=...)`` when its module is imported, or through an entry point of the
group ``cardboard.games`` (an agent: ``register_agent`` / ``cardboard.agents``; a command of the
``cardboard`` CLI: ``register_command`` / ``cardboard.commands``)
so that ``cardboard`` finds it in every process, the CLI's and match workers'
included. A game that reads a data file a user names reads it with ``read_json`` / ``read_text`` /
``read_bytes``: a regular file under a size limit, checked before reading (``InputFileError`` otherwise). The conformance suite (``tests/test_conformance.py``) runs over every
registered game.
"""
from cardboard.envs.compiled_model import CompiledModel
from cardboard.envs.errors import (CardboardError, CardDataError, IllegalActionError, InputFileError,
                                   InvalidParameterError, ProtocolError, ResultsFileError, UnknownNameError)
from cardboard.envs.files import read_bytes, read_json, read_text
from cardboard.envs.protocol import (CHANCE, HOOKS, TERMINAL, Agent, Game, GameInfo, GameState, Hook, determinize,
                                     hook, require_hooks, sample_chance)
from cardboard.envs.registration import Extensions, register_agent, register_command, register_game
from cardboard.envs.structure import Attached, Globals, Graph, ObservationStructure, Planes, Tokens, structure_of

__all__ = ["CHANCE", "HOOKS", "TERMINAL", "Agent", "Attached", "CardDataError", "CardboardError", "CompiledModel",
           "Extensions", "Game", "GameInfo", "GameState", "Globals", "Graph", "Hook", "IllegalActionError", "InputFileError",
           "InvalidParameterError", "ObservationStructure", "Planes", "ProtocolError", "ResultsFileError", "Tokens",
           "UnknownNameError", "determinize", "hook", "read_bytes", "read_json", "read_text", "register_agent",
           "register_command", "register_game", "require_hooks", "sample_chance", "structure_of"]

"""Game-agnostic policies: scripted agents over the forward-model protocol (and, later, torch networks).

``agents``     ``RandomAgent`` (``random``) and ``GreedyAgent`` (``greedy``);
``lookahead``  ``LookaheadAgent`` (``lookahead``), a Silverfish-style turn-level search on the heuristic;
``human``      ``HumanAgent`` (``human``), a person typing move numbers at the terminal;
``net_agent``  ``NetAgent`` (``net``), a ``PolicyValueNet``'s raw policy, and the builder of the ``net=`` knobs of
               ``ismcts`` / ``duct`` (``network_strategies``: the registry hands it to them; torch only when built).
``checkpoints``  the networks' checkpoint files: safetensors with JSON metadata, nothing unpickled (torch-free);
``zoo``        the shipped models by name: listing, loading, ``model_card`` / ``ship`` (``net:model=NAME``,
               ``net=zoo:NAME``; the ``zoo`` agent is registered by ``cardboard.registry``, which builds its spec).

Importing this package registers those agents. A game's own scripted baselines
and feature encoders live in its folder (``cardboard.envs.hearth.greedy``); paper 001's card-play networks and
HLR rollouts live in that paper's home (``cardboard.evaluation.papers.p001_hearthstone``).
"""
from ..envs.registration import register_agent
from .agents import GreedyAgent, RandomAgent
from .human import human_agent
from .lookahead import LookaheadAgent
from .net_agent import NetAgent
from .sb3_agent import SB3Agent

register_agent("random", RandomAgent, "uniformly random legal action")
register_agent("greedy", GreedyAgent, "one-turn greedy on the game's heuristic (state extrapolation)")
register_agent("lookahead", LookaheadAgent, "turn-level look-ahead (1 or 3 turns) with a beam over moves, on the "
                                            "game's heuristic (Silverfish-style search)")
register_agent("human", human_agent, "a person at the terminal: their seat's view, moves typed by number")
register_agent("sb3", SB3Agent, "a PPO / MaskablePPO checkpoint (model.zip of train-ppo), legal moves only: "
                                "sb3:path=PATH")
register_agent("net", NetAgent, "a PolicyValueNet checkpoint's raw policy on the player's own observation: "
                               "net:path=PATH,mode=greedy|sample (a shipped model: net:model=NAME)")


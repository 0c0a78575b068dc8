"""The one public entry point to every game and agent: names, options, factories.

``games()`` / ``make_game`` / ``new_state`` / ``make_env`` for games and
``agents()`` / ``make_agent`` for agents, each with clear errors that list
what exists. Agent specs are ``name`` or ``name:key=value,key=value``.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardboard.envs.aec import CardboardAECEnv
from cardboard.envs.errors import InvalidParameterError, UnknownNameError
from cardboard.envs.hearth.state import HearthGame
from cardboard.envs.lords_of_war.state import LordsOfWarGame
from cardboard.envs.protocol import Game, GameState
from cardboard.policies import hearth_greedy
from cardboard.policies.agents import Agent, GreedyAgent, RandomAgent
from cardboard.policies.lookahead import LookaheadAgent
from cardboard.search import agents as search_agents


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Any]
    summary: str
    defaults: dict[str, Any] = field(default_factory=dict)


def _defaults(factory: Callable[..., Any]) -> dict[str, Any]:
    params = inspect.signature(factory).parameters
    return {k: p.default for k, p in params.items() if p.default is not inspect.Parameter.empty}


_GAMES: dict[str, _Entry] = {
    "lords_of_war": _Entry(LordsOfWarGame, "Lords of War: 7x6 card-placement battles, Orcs vs Dwarves",
                           _defaults(LordsOfWarGame)),
    "hearth": _Entry(HearthGame, "Hearthstone-style CCG: the 2015 Mech Mage, Handlock and Face Hunter decks",
                     _defaults(HearthGame)),
}
def _agent(factory: Callable[..., Agent], summary: str) -> _Entry:
    """An agent entry whose parameters (and their types) are the factory's keyword defaults."""
    return _Entry(lambda game, **params: factory(**params), summary, _defaults(factory))


_AGENTS: dict[str, _Entry] = {
    "random": _agent(RandomAgent, "uniformly random legal action"),
    "greedy": _agent(GreedyAgent, "one-turn greedy on the game's heuristic (state extrapolation)"),
    "mc": _agent(search_agents.flat_mc, "flat Monte Carlo over determinizations"),
    "uct": _agent(search_agents.uct, "UCT on the true state (perfect information / open mode)"),
    "ismcts": _agent(search_agents.ismcts, "single-observer ISMCTS with availability counts"),
    "duct": _agent(search_agents.duct, "determinized UCT: fixed worlds, pooled soft-key statistics"),
    "pimc": _agent(search_agents.pimc, "one UCT tree per determinization, root votes added up"),
    "lookahead": _agent(LookaheadAgent, "turn-level look-ahead (1 or 3 turns) with a beam over moves, on the "
                                        "game's heuristic (Silverfish-style search)"),
    "greedy_h": _Entry(hearth_greedy.greedy_h, "hearth only: paper 001's Greedy player on the cost-effect "
                                               "heuristic H(a)", _defaults(hearth_greedy.GreedyHAgent)),
}
_GAME_CACHE: dict[tuple, Game] = {}


def games() -> list[str]:
    """Names of the registered games."""
    return sorted(_GAMES)


def agents() -> list[str]:
    """Names of the registered agents."""
    return sorted(_AGENTS)


def describe_games() -> dict[str, str]:
    return {name: entry.summary for name, entry in sorted(_GAMES.items())}


def describe_agents() -> dict[str, str]:
    return {name: entry.summary for name, entry in sorted(_AGENTS.items())}


def _check_options(kind: str, name: str, entry: _Entry, options: dict[str, Any]) -> None:
    for key in options:
        if key not in entry.defaults:
            raise UnknownNameError(f"option of {kind} {name!r}", key, entry.defaults)


def make_game(name: str, **options: Any) -> Game:
    """The static game object (cards, board) for ``name``; shared between calls with equal options."""
    if name not in _GAMES:
        raise UnknownNameError("game", name, _GAMES)
    entry = _GAMES[name]
    _check_options("game", name, entry, options)
    key = (name, tuple(sorted((k, _freeze(v)) for k, v in options.items())))
    try:
        hash(key)
    except TypeError:
        return entry.factory(**options)
    if key not in _GAME_CACHE:
        _GAME_CACHE[key] = entry.factory(**options)
    return _GAME_CACHE[key]


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def new_state(name: str, seed: int | None = None, **options: Any) -> GameState:
    """A forward-model initial state of game ``name``, dealt with ``seed``."""
    return make_game(name, **options).new_state(seed)


def make_env(name: str, *, open: bool = False, render_mode: str | None = None, **options: Any) -> AECEnv:
    """The PettingZoo AEC env of game ``name`` (``open=True``: perfect information)."""
    env = CardboardAECEnv(make_game(name, **options), open=open, render_mode=render_mode)
    return wrappers.OrderEnforcingWrapper(env)


def split_agent_specs(text: str) -> list[str]:
    """Split 'ismcts:iterations=100,c=0.7,random' into agent specs.

    Agents are separated by commas; a comma-separated ``key=value`` belongs to the
    agent before it (parameters always have '=', agent names never do).
    """
    specs: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if "=" in token and ":" not in token.split("=", 1)[0]:
            if not specs:
                raise InvalidParameterError(f"parameter {token!r} comes before any agent name")
            specs[-1] += ("," if ":" in specs[-1] else ":") + token
        else:
            specs.append(token)
    return specs


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'name:key=value,key=value' -> (name, {key: value})."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InvalidParameterError(f"agent spec {spec!r}: parameter {item!r} is not key=value")
        params[key.strip()] = value.strip()
    return name.strip(), params


def _convert(value: str, default: Any, where: str) -> Any:
    kind = type(default)
    try:
        if kind is bool:
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(value)
            return value.lower() in ("true", "1")
        return kind(value) if default is not None else value
    except ValueError:
        raise InvalidParameterError(f"{where}: {value!r} is not a valid {kind.__name__}") from None


def make_agent(spec: str, game: Game | None = None) -> Agent:
    """Build an agent from its spec string, e.g. 'random' or 'greedy:samples=4'."""
    name, raw = parse_agent_spec(spec)
    if name not in _AGENTS:
        raise UnknownNameError("agent", name, _AGENTS)
    entry = _AGENTS[name]
    _check_options("agent", name, entry, raw)
    params = {k: _convert(v, entry.defaults[k], f"agent {name!r} parameter {k!r}") for k, v in raw.items()}
    try:
        agent = entry.factory(game, **params)
    except ValueError as exc:
        raise InvalidParameterError(f"agent {spec!r}: {exc}") from None
    agent.name = spec
    return agent

"""The face of the suite: every game and agent by name, with options, factories and clear errors.

``games()`` / ``make_game`` / ``new_state`` / ``make_env`` for games and
``agents()`` / ``make_agent`` for agents, each with errors that list what
exists. Agent specs are ``name`` or ``name:key=value,key=value``; an agent
with one parameter also takes its value alone, first (``zoo:lords_of_war`` is
``zoo:model=lords_of_war``). The ``zoo`` agent (``zoo_agent``: a shipped
model's agent, ``cardboard.policies.zoo``; ``zoo:NAME,seconds=0.05`` overrides
a knob of it) is registered here, as it builds agents from specs.

Games and agents register themselves (``cardboard.register_game`` /
``cardboard.register_agent``, tables in ``cardboard.envs.registration``). On
first use this module imports the bundled packages listed in ``BUNDLED`` (each
registers what it holds when imported) and loads every entry point of the
groups ``cardboard.games`` and ``cardboard.agents`` that installed packages
declare: an entry point names a game (or agent) factory and registers it under
the entry point's name::

    [project.entry-points."cardboard.games"]
    my_game = "my_package.game:MyGame"

A command of the ``cardboard`` command line is registered the same way, through the
group ``cardboard.commands`` (``commands``; see ``register_command``)::

    [project.entry-points."cardboard.commands"]
    my-command = "my_package.command"   # an object with add_arguments(parser) and run(args, console)

This module imports no game: adding a bundled game is its folder plus one line
of ``BUNDLED``.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import pickle
import re
import warnings
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from cardboard.envs.aec import CardboardAECEnv, wrap
from cardboard.envs.errors import CardboardError, InvalidParameterError, UnknownNameError
from cardboard.envs.gym_wrappers import Opponent, SeatEnv, SelfPlayEnv
from cardboard.envs.protocol import Agent, Game, GameState
from cardboard.envs.vector import GreedyOpponent, RandomOpponent, VectorGame, vector_model
from cardboard.envs.vector_env import CardboardVectorEnv
from cardboard.envs.registration import (AGENTS, COMMANDS, GAMES, CommandEntry, Entry, Extensions, register_agent,
                                         register_command, register_game)

BUNDLED = (  # packages whose import registers bundled games and agents
    "cardboard.policies",
    "cardboard.search",
    "cardboard.envs.lords_of_war",
    "cardboard.envs.hearth",
    "cardboard.envs.pandemic",
    "cardboard.envs.fifth_aeon",
    "cardboard.evaluation.papers.p001_hearthstone",  # paper 001's agent (cardplay)
)
ENTRY_POINT_GROUPS = {"cardboard.games": register_game, "cardboard.agents": register_agent}
_GAME_CACHE: dict[tuple, Game] = {}
_loaded = False
_commands_loaded = False


def load() -> None:
    """Import the bundled packages and the installed entry points once (they register themselves).

    A plugin whose entry point fails to load is skipped with a warning naming it and the error."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUNDLED:
        importlib.import_module(module)
    register_agent("zoo", zoo_agent, "a shipped model (cardboard.policies.zoo) playing its configured agent: "
                                     "zoo:GAME (its latest) or zoo:GAME-vN; zoo alone: the game played; "
                                     "zoo:NAME,KNOB=V overrides the agent's knobs (zoo:lords_of_war,seconds=0.05)")
    for group, register in ENTRY_POINT_GROUPS.items():
        for point in metadata.entry_points(group=group):
            try:
                register(point.name, point.load())
            except Exception as exc:  # a broken plugin must not take the whole suite down
                warnings.warn(f"entry point {point.name!r} = {point.value!r} of group {group!r} could not be "
                              f"registered: {type(exc).__name__}: {exc}", stacklevel=2)


def commands() -> dict[str, CommandEntry]:
    """The registered commands of the ``cardboard`` command line by name: every entry point of the group
    ``cardboard.commands`` (loaded on the first call, not by ``load``: only the command line needs them) and
    those registered with ``register_command``. An entry point that fails to load is skipped with a warning."""
    global _commands_loaded
    load()
    if not _commands_loaded:
        _commands_loaded = True
        for point in metadata.entry_points(group="cardboard.commands"):
            try:
                register_command(point.name, point.load())
            except Exception as exc:  # a broken plugin must not take the whole command line down
                warnings.warn(f"entry point {point.name!r} = {point.value!r} of group 'cardboard.commands' could "
                              f"not be registered: {type(exc).__name__}: {exc}", stacklevel=2)
    return dict(sorted(COMMANDS.items()))


def games() -> list[str]:
    """Names of the registered games."""
    load()
    return sorted(GAMES)


def agents() -> list[str]:
    """Names of the registered agents."""
    load()
    return sorted(AGENTS)


def describe_games() -> dict[str, str]:
    load()
    return {name: entry.summary for name, entry in sorted(GAMES.items())}


def describe_agents() -> dict[str, str]:
    load()
    return {name: entry.summary for name, entry in sorted(AGENTS.items())}


def game_entry(name: str) -> Entry:
    load()
    if name not in GAMES:
        raise UnknownNameError("game", name, GAMES)
    return GAMES[name]


def agent_entry(name: str) -> Entry:
    load()
    if name not in AGENTS:
        raise UnknownNameError("agent", name, AGENTS)
    return AGENTS[name]


def files_named(specs: Sequence[str], options: dict[str, Any] | None = None) -> list[str]:
    """The existing files that agent specs and game options name as values (checkpoints, deck lists, set-ups):
    what a worker on another machine needs shipped (``cardboard.jobs.ray_backend``)."""
    values = [v for spec in specs for v in _spec_values(spec)]
    values += [v for value in (options or {}).values()
               for v in (value if isinstance(value, (list, tuple)) else [value])]
    paths = [str(v) for v in values if isinstance(v, (str, Path)) and str(v)]
    return [p for p in dict.fromkeys(paths) if _is_file(p)]


def _spec_values(spec: str) -> list[str]:
    """A spec's parameter values, and those of the agent specs among them (``rhea:seed=net:path=F`` names F)."""
    values = list(parse_agent_spec(spec)[1].values())
    return values + [v for value in values if ":" in value and "=" in value for v in _spec_values(value)]


def _is_file(text: str) -> bool:
    """Whether ``text`` names an existing file (False for text no path can be: too long, a NUL)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def pickled_entries(game_name: str, specs: Sequence[str]) -> bytes:
    """The registry entries of the game and the agents of ``specs``, pickled for worker processes (factories by
    reference; ``restore`` takes them back there). A factory that cannot be pickled is a typed error."""
    names = dict.fromkeys(parse_agent_spec(spec)[0] for spec in specs)
    entries = [("game", game_entry(game_name))] + [("agent", agent_entry(n)) for n in names]
    for kind, entry in entries:
        try:
            pickle.dumps(entry)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise InvalidParameterError(f"{kind} {entry.name!r}: its factory {entry.factory!r} cannot be sent to "
                                        f"worker processes ({exc}); register a module-level function or class, "
                                        "or play with workers=1") from None
    return pickle.dumps(entries)


def restore(entries: Sequence[tuple[str, Entry]]) -> None:
    """Register ``(kind, entry)`` pairs taken from another process (``"game"`` or ``"agent"``): a worker
    process gets the games and agents its parent registered at run time, not only the bundled ones."""
    load()
    for kind, entry in entries:
        (register_game if kind == "game" else register_agent)(entry.name, entry.factory, entry.summary)


def _check_options(kind: str, entry: Entry, options: dict[str, Any]) -> None:
    for key in options:
        if key not in entry.defaults:
            raise UnknownNameError(f"option of {kind} {entry.name!r}", key, entry.defaults)


def make_game(name: str, **options: Any) -> Game:
    """The static game object (cards, board) for ``name``; shared between calls with equal options. An on/off
    option given as text (``--option mulligan=0``) is read as agent parameters are: true / false / 1 / 0."""
    entry = game_entry(name)
    _check_options("game", entry, options)
    options = {k: _convert(v, entry.defaults[k], f"game {name!r} option {k!r}")
               if isinstance(v, str) and isinstance(entry.defaults[k], bool) else v for k, v in options.items()}
    key = (name, entry.factory, tuple(sorted((k, _freeze(v)) for k, v in options.items())))
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


def make_env(name: str, *, open: bool = False, render_mode: str | None = None, illegal: str = "lose",
             legal_actions_info: bool = False, **options: Any) -> AECEnv:
    """The PettingZoo AEC env of game ``name`` (``open=True``: perfect information) in PettingZoo's classic
    wrapper stack: an illegal move ends the game with the offender's penalty (``illegal="raise"``: raises
    ``IllegalActionError``); ``legal_actions_info=True`` puts the acting agent's legal actions in its info (see
    ``cardboard.envs.aec``)."""
    raw = CardboardAECEnv(make_game(name, **options), open=open, render_mode=render_mode,
                          legal_actions_info=legal_actions_info)
    return wrap(raw, illegal)


def parse_game_options(pairs: Sequence[str]) -> dict[str, object]:
    """Game options from ``KEY=VALUE`` strings (the CLI's ``--option``; a comma makes the value a list)."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq:
            raise CardboardError(f"--option {pair!r}: expected key=value")
        options[key] = value.split(",") if "," in value else value
    return options


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
    """'name:key=value,key=value' -> (name, {key: value}); a bare first value for a registered agent with one
    parameter is that parameter's ('zoo:NAME,seconds=1' is 'zoo:model=NAME,seconds=1'; naming it again is refused)."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    items = [p.strip() for p in rest.split(",") if p.strip()]
    bare = None  # the parameter a bare first value gave
    for k, item in enumerate(items):
        key, eq, value = item.partition("=")
        if not eq and k == 0 and len(lone := _agent_defaults(name.strip())) == 1:
            key, eq, value = next(iter(lone)), "=", item
            bare = key
        if not eq or not key.strip():
            raise InvalidParameterError(f"agent spec {spec!r}: parameter {item!r} is not key=value")
        if k and key.strip() == bare:
            raise InvalidParameterError(f"agent spec {spec!r}: {bare}= given twice ({items[0]!r} and {item!r})")
        params[key.strip()] = value.strip()
    return name.strip(), params


def _agent_defaults(name: str) -> dict[str, Any]:
    load()
    return AGENTS[name].defaults if name in AGENTS else {}


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
    """Build an agent from its spec string, e.g. 'random' or 'greedy:samples=4', for ``game``.

    Knobs the game cannot serve (``prune=1`` on a game without ``sensible_actions``) are refused here, with
    an ``InvalidParameterError`` naming the game and the knob."""
    name, raw = parse_agent_spec(spec)
    entry = agent_entry(name)
    if not entry.takes_more:
        _check_options("agent", entry, raw)
    params = {k: _convert(v, entry.defaults[k], f"agent {name!r} parameter {k!r}") if k in entry.defaults else v
              for k, v in raw.items()}
    if entry.takes_game:
        params["game"] = game
    if entry.takes_extensions:
        params["extensions"] = extensions()
    try:
        agent = entry.factory(**params)
    except ValueError as exc:
        raise InvalidParameterError(f"agent {spec!r}: {exc}") from None
    if not isinstance(agent, Agent):
        missing = [m for m in ("name", "act", "reset") if not hasattr(agent, m)]
        raise InvalidParameterError(f"agent {name!r}: its factory returned {type(agent).__name__}, which lacks "
                                    f"{', '.join(missing)} of the Agent protocol")
    agent.name = spec
    return agent


EXTENSIONS = {  # Extensions' builders: the modules above search that hold them, imported on the first agent that asks
    "network": ("cardboard.policies.net_agent", "network_strategies"),
    "value_net": ("cardboard.policies.value_net", "leaf_value_strategy"),
    "hlr": ("cardboard.evaluation.papers.p001_hearthstone", "hlr_strategies"),
    "deck_predictor": ("cardboard.evaluation.papers.p000_play_style.deck_model", "predictor"),
}


@functools.cache
def extensions() -> Extensions:
    """What the registry hands an agent factory's ``extensions`` parameter: the knob builders of ``EXTENSIONS`` and
    ``make_agent`` itself (agents built by spec below the registry: rhea's ``seed=net:model=NAME``)."""
    found = {field: getattr(importlib.import_module(module), name) for field, (module, name) in EXTENSIONS.items()}
    return Extensions(**found, build_agent=make_agent)


def zoo_agent(model: str = "", game: Game | None = None, **overrides: str) -> Agent:
    """A shipped model playing its configured agent (``ZooModel.spec``: its search guided by it, or its raw policy).

    model: a shipped model, GAME-vN, or GAME for its latest version ('': the latest of the game played)

    Any other parameter overrides the agent's knob of that name (``zoo.agent_spec``; not its network's), checked
    by that agent's factory: ``zoo:lords_of_war,seconds=0.05``.
    """
    from cardboard.policies import zoo

    if not model and game is None:
        raise InvalidParameterError("zoo needs a model (zoo:GAME or zoo:GAME-vN) or the game it plays")
    found = zoo.find(model or game.info.name, None if game is None else game.info.name)
    return make_agent(zoo.agent_spec(found.name, found.agent, overrides, found.knob), game)


def _opponent(opponent: str | Opponent, game: Game) -> Opponent:
    return make_agent(opponent, game) if isinstance(opponent, str) else opponent


def make_seat_env(name: str, *, seat: int | None = 0, opponent: str | Opponent = "random", perfect: bool = False,
                  illegal: str = "lose", seed: int | None = None, render_mode: str | None = None,
                  **options: Any) -> SeatEnv:
    """The Gymnasium env of game ``name`` (with its ``options``) in which the learner plays ``seat`` (None: a
    random seat each episode) against ``opponent``: an agent spec (``"greedy:samples=2"``, built for the game)
    or any opponent ``SeatEnv`` takes (see ``cardboard.envs.gym_wrappers``, also for ``illegal``)."""
    game = make_game(name, **options)
    return SeatEnv(game, seat=seat, opponent=_opponent(opponent, game), perfect=perfect, illegal=illegal, seed=seed,
                   render_mode=render_mode)


def vec_opponent(opponent: Any, game: Game, compiled: bool) -> Any:
    """What ``VectorGame`` takes for ``opponent``: ``"random"`` and ``"greedy[:samples=k]"`` as the compiled
    strategies where the game runs compiled (greedy also needs its compiled ``determinize``), any other spec as its
    agent; an SB3 model or policy as a batch policy (``predict`` with masks, deterministic); objects as they are."""
    if isinstance(opponent, str):
        name, params = parse_agent_spec(opponent)
        if name == "random" and not params:
            return RandomOpponent()
        if name == "greedy" and set(params) <= {"samples"} and compiled:
            return GreedyOpponent(int(params.get("samples", 1)))
        return make_agent(opponent, game)
    if hasattr(opponent, "predict") and not hasattr(opponent, "act"):
        model = opponent

        def policy(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            return model.predict(observations, deterministic=True, action_masks=action_masks)[0]

        return policy
    return opponent


def make_vec_env(name: str, num_envs: int, *, opponent: Any = "random", self_play: bool = False,
                 seat: int | None = None, perfect: bool = False, seed: int | None = None,
                 compiled: bool | None = None, **options: Any) -> VectorGame:
    """``num_envs`` games of ``name`` (with its ``options``) stepped by one call (``cardboard.envs.vector``): the
    caller plays ``seat`` (None: drawn each game) against ``opponent`` (an agent spec, ``"random"`` and
    ``"greedy"`` compiled where the game is; a batch policy; an SB3 model), or every seat with
    ``self_play=True``. ``reset(seed)`` is called once here; the Gymnasium and SB3 faces wrap the result."""
    game = make_game(name, **options)
    model = vector_model(game, perfect, compiled)
    opponent = None if self_play else vec_opponent(opponent, game, model is not None and model.determinize is not None)
    vec = VectorGame(game, num_envs, opponent=opponent, self_play=self_play, seat=seat, perfect=perfect,
                     compiled=compiled)
    vec.reset(seed)
    return vec


def make_gym_vec_env(name: str, num_envs: int, **kwargs: Any) -> CardboardVectorEnv:
    """``make_vec_env(name, num_envs, **kwargs)`` as Gymnasium's ``VectorEnv`` (``cardboard.envs.vector_env``):
    the vector entry point of ``gym_id(name)``."""
    return CardboardVectorEnv(make_vec_env(name, num_envs, **kwargs))


def make_self_play_env(name: str, *, opponent: str | Opponent = "random", pool_size: int = 5, perfect: bool = False,
                       illegal: str = "lose", seed: int | None = None, render_mode: str | None = None,
                       **options: Any) -> SelfPlayEnv:
    """The self-play Gymnasium env of game ``name``: a random seat against a pool of the last ``pool_size``
    opponents, starting with ``opponent`` (an agent spec or an object, as for ``make_seat_env``)."""
    game = make_game(name, **options)
    return SelfPlayEnv(game, opponent=_opponent(opponent, game), pool_size=pool_size, perfect=perfect,
                       illegal=illegal, seed=seed, render_mode=render_mode)


# -- Gymnasium ids -----------------------------------------------------------------------------------------
def gym_id(name: str) -> str:
    """The Gymnasium id of game ``name``'s seat env: ``cardboard/<name>-v0``."""
    return f"cardboard/{name}-v0"


def register_gym_envs() -> list[str]:
    """Register ``cardboard/<game>-v0`` with Gymnasium for every registered game that has no id yet.

    ``gymnasium.make(gym_id(name), **kwargs)`` is ``make_seat_env(name, **kwargs)`` (game options, ``seat``,
    ``opponent``, ``perfect``, ``illegal``, ``render_mode``); ``gymnasium.make_vec(gym_id(name), num_envs,
    vectorization_mode="vector_entry_point", **kwargs)`` is ``make_gym_vec_env(name, num_envs, **kwargs)``.
    ``import cardboard`` calls this once the bundled games and the entry-point plugins are loaded; a game
    registered later at run time gets its id at the next call. Returns the ids registered by this call."""
    new = [name for name in games() if gym_id(name) not in gymnasium.registry]
    for name in new:
        gymnasium.register(gym_id(name), entry_point="cardboard.registry:make_seat_env", kwargs={"name": name},
                           vector_entry_point="cardboard.registry:make_gym_vec_env")
    return [gym_id(name) for name in new]


_PARAMETER_LINE = re.compile(r"\s*`{0,2}(\w+)`{0,2}(?:\s*\([^)]*\))?(\s*)(:|--)\s*(.*)")
_RULE = re.compile(r"\s*[-=]{3,}\s*")  # numpydoc's line under a heading


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parameter_help(entry: Entry) -> dict[str, str]:
    """One-line meanings of ``entry``'s options from its factory's docstring (a class's and its ``__init__``'s),
    each followed by the values the option takes where the factory declares them (``Entry.values``).

    An option's entry starts a paragraph, or follows a heading (``Args:``) or another entry: a line ``name: meaning``
    (also ``name (type): meaning`` or ``name -- meaning``), or numpydoc's ``name : type`` with the meaning on the
    more indented lines below; more indented lines continue the meaning. A ``name:`` inside running prose is not
    an entry. Options neither described nor declared are left out."""
    factory = entry.factory
    docs = [inspect.getdoc(factory)] + ([inspect.getdoc(factory.__init__)] if inspect.isclass(factory) else [])
    lines = "\n\n".join(filter(None, docs)).splitlines()
    found: dict[str, str] = {}
    opens, k = True, 0  # opens: the line may start an entry (after a blank line, a heading or another entry)
    while k < len(lines):
        line, k = lines[k], k + 1
        match = _PARAMETER_LINE.fullmatch(line) if opens else None
        if match is None or match[1] not in entry.defaults:  # prose, or a heading such as ``Args:``
            opens = match is not None or not line.strip() or line.endswith(":") or _RULE.fullmatch(line) is not None
            continue
        more = []
        while k < len(lines) and lines[k].strip() and _indent(lines[k]) > _indent(line):
            more.append(lines[k].strip())
            k += 1
        numpydoc = bool(match[2]) and match[3] == ":" and bool(more)
        found.setdefault(match[1], " ".join(more if numpydoc else [match[4].strip()] + more).strip())
    meanings = {}
    for name in entry.defaults:
        values = f"values: {', '.join(entry.values[name])}" if name in entry.values else ""
        meaning = "; ".join(filter(None, (found.get(name, "").replace("``", ""), values)))
        if meaning:
            meanings[name] = meaning
    return meanings

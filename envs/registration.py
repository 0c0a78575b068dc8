"""Where games, agents and commands register themselves: ``register_game``, ``register_agent``,
``register_command``.

A game's folder calls ``register_game`` when it is imported (and registers its
own scripted baselines with ``register_agent``); ``cardboard.registry`` imports
the bundled game folders and every ``cardboard.games`` / ``cardboard.agents``
entry point on first use, then builds games and agents from these tables. This
module holds only the tables, so a game depends on the core, never on the
registry. Both calls are re-exported as ``cardboard.register_game`` /
``cardboard.register_agent`` and from ``cardboard.api``. Commands of the ``cardboard`` command line register the
same way (``register_command``, or an entry point of the group ``cardboard.commands``), so the CLI core names
no game, trainer or paper.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidParameterError

NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")


@dataclass(frozen=True)
class Entry:
    """A registered game or agent: its factory, a one-line summary, and the factory's options with defaults.

    ``values``: the values an option takes, where the factory declares them in a mapping ``OPTION_VALUES``
    (option name to values; ``cardboard games -v`` lists them)."""

    name: str
    factory: Callable[..., Any]
    summary: str
    defaults: dict[str, Any] = field(default_factory=dict)
    takes_game: bool = False  # an agent factory with a ``game`` parameter is handed the Game
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    takes_extensions: bool = False  # one with an ``extensions`` parameter is handed the registry's ``Extensions``
    takes_more: bool = False  # an agent factory with ``**knobs`` takes parameters beyond its defaults, as text

    @classmethod
    def of(cls, name: str, factory: Callable[..., Any], summary: str | None) -> "Entry":
        _check_name(name)
        if not callable(factory):
            raise InvalidParameterError(f"{name!r}: the factory must be callable, got {factory!r}")
        params = inspect.signature(factory).parameters
        defaults = {k: p.default for k, p in params.items()
                    if p.default is not inspect.Parameter.empty and k not in ("game", "extensions")}
        declared = getattr(factory, "OPTION_VALUES", {})
        if set(declared) - set(defaults):
            raise InvalidParameterError(f"{name!r}: OPTION_VALUES names {sorted(set(declared) - set(defaults))}, "
                                        f"which are not options of the factory ({', '.join(defaults)})")
        values = {k: tuple(str(v) for v in declared[k]) for k in defaults if k in declared}
        doc = (inspect.getdoc(factory) or "").strip().splitlines()
        return cls(name, factory, summary or (doc[0] if doc else ""), defaults, "game" in params, values,
                   "extensions" in params, any(p.kind is p.VAR_KEYWORD for p in params.values()))


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name or not set(name) <= NAME_CHARACTERS:
        raise InvalidParameterError(f"a registered name is lower-case letters, digits, '_', '-' or '.', got {name!r}")


GAMES: dict[str, Entry] = {}
AGENTS: dict[str, Entry] = {}


def _register(table: dict[str, Entry], kind: str, entry: Entry) -> None:
    old = table.get(entry.name)
    if old is not None and old.factory is not entry.factory:
        raise InvalidParameterError(f"{kind} {entry.name!r} is already registered by {_where(old.factory)}; "
                                    f"{_where(entry.factory)} cannot take the name")
    table[entry.name] = entry


def _where(factory: Callable[..., Any]) -> str:
    return f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', factory)!s}"


def register_game(name: str, factory: Callable[..., Any], summary: str | None = None) -> None:
    """Register game ``name``: ``factory(**options)`` returns a ``Game``; its keyword defaults are the options
    (and its ``OPTION_VALUES``, if any, the values they take: ``Entry``).

    ``summary`` defaults to the first line of the factory's docstring. Registering the same factory again is
    a no-op; another factory under a taken name raises ``InvalidParameterError``.
    """
    _register(GAMES, "game", Entry.of(name, factory, summary))


def register_agent(name: str, factory: Callable[..., Any], summary: str | None = None) -> None:
    """Register agent ``name``: ``factory(**params)`` returns an ``Agent``; its keyword defaults are the spec's
    parameters (``name:key=value,...``, converted to the defaults' types; a factory with ``**knobs`` also takes
    any other, as text, and checks them itself). A factory parameter named ``game``
    is handed the ``Game`` the agent will play (its ``info``, and the hooks its knobs need); one named
    ``extensions`` the builders the layers above search supply (``Extensions``: networks, deck predictors, agents
    by spec)."""
    _register(AGENTS, "agent", Entry.of(name, factory, summary))


@dataclass(frozen=True)
class Extensions:
    """What the layers above search supply to the agents built below them: the builders of the knobs ``net=``
    (``network``: ``cardboard.policies``), ``vnet=`` (``value_net``: ``cardboard.policies.value_net``), ``hlr=`` (``hlr``: paper 001's home) and ``deckmodel=predict``
    (``deck_predictor``: paper 000's home), and of agents by spec (``build_agent``: ``rhea``'s ``seed=net:...``).
    The registry hands them to every agent factory with an ``extensions`` parameter, as it hands ``game``; nothing is
    installed globally, so what an agent uses does not depend on what its process happened to import."""

    network: Callable[..., Any] | None = None
    value_net: Callable[..., Any] | None = None
    hlr: Callable[..., Any] | None = None
    deck_predictor: Callable[..., Any] | None = None
    build_agent: Callable[[str, Any], Any] | None = None


NO_EXTENSIONS = Extensions()  # a factory called directly: the knobs above search are refused


@dataclass(frozen=True)
class CommandEntry:
    """A registered command: an object (a module will do) with ``add_arguments(parser)``, which declares its
    arguments on an ``argparse`` sub-parser, and ``run(args, console) -> int``, which runs it (``console``: a
    ``rich`` console; the return value is the exit code). ``summary`` is its line in ``cardboard --help``."""

    name: str
    command: Any
    summary: str

    @classmethod
    def of(cls, name: str, command: Any, summary: str | None) -> "CommandEntry":
        _check_name(name)
        for method in ("add_arguments", "run"):
            if not callable(getattr(command, method, None)):
                raise InvalidParameterError(f"command {name!r}: {command!r} has no {method}() (a command needs "
                                            "add_arguments(parser) and run(args, console))")
        doc = (inspect.getdoc(command) or "").strip().splitlines()
        return cls(name, command, summary or getattr(command, "SUMMARY", None) or (doc[0] if doc else ""))


COMMANDS: dict[str, CommandEntry] = {}


def register_command(name: str, command: Any, summary: str | None = None) -> None:
    """Register command ``name`` of the ``cardboard`` command line (see ``CommandEntry``; ``summary`` defaults to
    the command's ``SUMMARY``, else its docstring's first line). The same command again is a no-op; another under
    a taken name raises ``InvalidParameterError``."""
    entry = CommandEntry.of(name, command, summary)
    old = COMMANDS.get(name)
    if old is not None and old.command is not command:
        raise InvalidParameterError(f"command {name!r} is already registered by {old.command!r}; {command!r} "
                                    "cannot take the name")
    COMMANDS[name] = entry

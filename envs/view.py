"""What a person sees of a state: the per-game view description the browser page and the terminal seat draw.

A game offers three optional state hooks (declared in ``protocol.HOOKS``); a game without them still gets a page
and a terminal seat, from ``render_ansi`` and ``action_to_string``:

- ``view(perspective) -> View``: the board, each seat's panel, the card zones, as ``perspective`` may see them
  (``None``: a spectator, who sees only what every player sees). Cards the perspective may not see are
  ``Card.unseen()``: their count shows, never their identity. Everything is plain data (``to_json``), so a page
  built from it can hold nothing the seat may not know.
- ``action_path(action) -> tuple[str, ...]``: the menu path of a legal action, grouped the way a player thinks
  (Pandemic: ``("move", "station", "Atlanta", "discard Paris")``); the last part names the move within its
  group. Default: ``(action_to_string(action),)``.
- ``action_seen(action, perspective) -> str | None``: how ``perspective`` sees ``action`` applied at this state,
  for the log of what happened (a chance outcome included: "player 1 draws a card" for the opponent, "you draw
  Fireball" for the drawer); ``None`` when it sees nothing of it. Default: ``action_to_string`` of a player's
  action; at a chance node of a game with private information, "chance" only.

``describe(state, game, perspective)``, ``menu_path(state, action)`` and ``seen(state, action, perspective)`` take
the hook when there is one and the default otherwise; ``menu(state, actions)`` groups legal actions into a tree;
``numbered(names)`` tells copies of a name apart in a menu.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .protocol import CHANCE, Game, GameState


NO_SPECTATOR_TEXT = ("this game draws no spectator's view (its states offer no view hook, and its render shows every "
                     "hand): watch it from a seat")


@dataclass(frozen=True)
class Card:
    """A card as a person sees it: ``name`` "?" and ``hidden`` True for one they may not see."""

    name: str
    cost: int | None = None
    text: str = ""
    stats: dict[str, int | str] = field(default_factory=dict)  # e.g. {"attack": 3, "health": 2}
    tags: tuple[str, ...] = ()  # keywords and states: "taunt", "exhausted", "epidemic"
    hidden: bool = False

    @classmethod
    def unseen(cls) -> Card:
        """A card whose face this perspective may not see."""
        return cls("?", hidden=True)


@dataclass(frozen=True)
class Zone:
    """A named row of cards: a hand, a battlefield, a discard pile (``owner``: the seat, None for shared)."""

    name: str
    cards: tuple[Card, ...]
    owner: int | None = None


@dataclass(frozen=True)
class Seat:
    """One player's panel: a name and counters ("life": 20, "deck": 31)."""

    name: str
    counters: dict[str, int | str] = field(default_factory=dict)


@dataclass(frozen=True)
class Cell:
    """One square of a grid board (``card`` on it, or ``text``; ``owner`` colours it)."""

    row: int
    col: int
    card: Card | None = None
    text: str = ""
    owner: int | None = None


@dataclass(frozen=True)
class Node:
    """One place of a graph board (Pandemic's cities): ``links`` name its neighbours, ``x``/``y`` in [0, 1]."""

    name: str
    x: float
    y: float
    links: tuple[str, ...] = ()
    counters: dict[str, int | str] = field(default_factory=dict)
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class View:
    """What ``perspective`` sees: a title, a status line, seats, card zones, an optional grid or graph board, and
    ``text``, the game's ``render_ansi`` from that perspective (the generic page shows only it)."""

    title: str
    status: str
    perspective: int | None
    text: str
    seats: tuple[Seat, ...] = ()
    zones: tuple[Zone, ...] = ()
    grid: tuple[int, int] | None = None  # (rows, cols) of ``cells``
    cells: tuple[Cell, ...] = ()
    nodes: tuple[Node, ...] = ()
    counters: dict[str, int | str] = field(default_factory=dict)  # shared: outbreaks, infection rate

    def to_json(self) -> dict[str, Any]:
        """The view as JSON-ready data (what the browser page receives)."""
        return asdict(self)


def status_line(state: GameState) -> str:
    """Who is to move, or how the game ended (every game: the terminal seat's and the page's last line)."""
    if state.is_terminal():
        return result_line(state)
    player = state.current_player
    return "chance to act" if player == CHANCE else f"player {player} to move"


def result_line(state: GameState) -> str:
    """The end of a game in words: who won, a draw, or (cooperative) whether the team won."""
    returns = [float(r) for r in state.returns()]
    info = state.info
    if info.utility == "cooperative":
        return "game over: the players win" if returns[0] >= info.max_return else "game over: the players lose"
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    if len(winners) == len(returns):
        return "game over: a draw"
    return f"game over: player {winners[0]} wins" if len(winners) == 1 else \
        f"game over: players {', '.join(map(str, winners))} share the win"


def describe(state: GameState, game: Game, perspective: int | None) -> View:
    """``state.view(perspective)`` when the game offers it, else the generic view (its ``render_ansi`` text)."""
    view = getattr(state, "view", None)
    if callable(view):
        return view(perspective)
    if perspective is None and state.info.private_information:  # render_ansi(state, None) shows every hand
        return View(game.info.name, status_line(state), None, NO_SPECTATOR_TEXT)
    return View(game.info.name, status_line(state), perspective, game.render_ansi(state, perspective))


def menu_path(state: GameState, action: int) -> tuple[str, ...]:
    """The menu path of a legal ``action`` (the ``action_path`` hook, or its ``action_to_string`` alone)."""
    path = getattr(state, "action_path", None)
    return tuple(path(action)) if callable(path) else (state.action_to_string(action),)


def seen(state: GameState, action: int, perspective: int | None) -> str | None:
    """How ``perspective`` sees ``action`` applied at ``state`` (the ``action_seen`` hook, or the default of the
    module docstring)."""
    hook = getattr(state, "action_seen", None)
    if callable(hook):
        return hook(action, perspective)
    if state.current_player == CHANCE:
        return "chance" if state.info.private_information else f"chance: {state.action_to_string(action)}"
    return f"player {state.current_player}: {state.action_to_string(action)}"


def doer(perspective: int | None, player: int) -> Callable[[str], str]:
    """``player`` doing a verb as ``perspective`` reads it in a log: ``doer(0, 0)("play")`` is "you play",
    ``doer(1, 0)("play")`` "player 0 plays"."""
    if perspective == player:
        return lambda verb: f"you {verb}"
    return lambda verb: f"player {player} {verb}s"


def numbered(names: Sequence[str]) -> list[str]:
    """``names`` made distinct for menus and logs: a name that repeats gets " #k", k counting its copies from 1 in
    order ("Wisp #1", "Wisp #2"), so two copies of a card name two distinct moves."""
    total, so_far, out = Counter(names), Counter(), []
    for name in names:
        so_far[name] += 1
        out.append(f"{name} #{so_far[name]}" if total[name] > 1 else name)
    return out


def menu(state: GameState, actions) -> dict[str, Any]:
    """The legal ``actions`` as a tree of menu labels: ``{label: subtree or action id}``, in the actions' order.
    A group holding one action collapses into it (its label joins the parts: "treat blue"), so no level offers a
    single choice that leads to another single choice."""
    actions = [int(a) for a in actions]
    if callable(getattr(state, "action_path", None)):
        paths = [menu_path(state, a) for a in actions]
    else:  # a game without the hook: its action strings, copies told apart ("play Wisp #1", "play Wisp #2")
        paths = [(label,) for label in numbered([state.action_to_string(a) for a in actions])]
    tree: dict[str, Any] = {}
    for action, path in zip(actions, paths):
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"game {state.info.name!r}: menu path {path} runs through a move")
        if path[-1] in node:
            raise ValueError(f"game {state.info.name!r}: two legal actions share the menu path {path}")
        node[path[-1]] = action
    return _collapse(tree)


def _collapse(tree: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, child in tree.items():
        while isinstance(child, dict) and len(child) == 1:
            (sub, child), = child.items()
            label = f"{label} {sub}"
        out[label] = _collapse(child) if isinstance(child, dict) else child
    return out

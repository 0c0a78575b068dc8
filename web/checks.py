"""What the page may ask for: game options among the values a game bundles, agent specs within the page's budget
caps, and never a file. Paths (a deck list, a set-up, a checkpoint) stay a command-line feature: a page is a
client of this machine, and anyone who reaches it may not make the server open, read or wait on a file.

Game options: an option whose game declares its values (``OPTION_VALUES``, ``cardboard games -v``) takes those
only (each item of a comma list); an on/off or number option takes its kind; any other (a file or free text, e.g.
Fifth Aeon's ``cards``) is refused. Agent specs: no ``human`` (it reads this machine's terminal), no knob that
names a file (``FILE_KNOBS``: a shipped model's ``zoo:NAME`` only), no value that is a path, numbers within
``CAPS`` (no 0 = "no limit" where 0 means that), the network on the CPU, no worker processes; specs given as
values (``rhea:seed=net:model=NAME``) are checked the same way.
"""
from __future__ import annotations

import math
import re
from typing import Any

from cardboard import registry
from cardboard.envs.errors import CardboardError

CAPS: dict[str, float] = {  # the page's largest value of each size knob (an agent's budget)
    "iterations": 20_000, "turn": 20_000, "seconds": 5.0, "workers": 4, "worlds": 64, "generations": 2_000,
    "evaluations": 20, "horizon": 10, "samples": 16, "width": 16, "branch": 10, "leaves": 64, "m": 64}
UNLIMITED_AT_ZERO = ("iterations",)  # knobs whose 0 means "no limit" (then the clock alone would bound memory)
FILE_KNOBS = ("path", "net", "hlr")  # knobs whose value the agent opens as a file
SHIPPED = re.compile(r"zoo:[a-z0-9_]+(-v[0-9]+)?")  # a shipped model (cardboard.policies.zoo), the page's only file
LOCAL_ONLY = {"device": ("cpu",), "parallel": ("none", "tree", "leaf")}  # values the page allows (root: processes)
MAX_TEXT = 500  # characters of the page's options or agents field


class PageRequestError(CardboardError):
    """A request of the page that only the command line may make (a file, a budget over the page's caps)."""


def _is_path(value: str) -> bool:
    return any(c in value for c in "/\\\0") or value.startswith("~") or value in (".", "..")


def check_options(game: str, options: dict[str, Any]) -> None:
    """Refuse (``PageRequestError``) an option of ``game`` that is not among its bundled values or of its kind."""
    entry = registry.game_entry(game)
    for key, value in options.items():
        if key not in entry.defaults:
            continue  # make_game names the unknown option and lists the game's
        items = value if isinstance(value, list) else [value]
        default = entry.defaults[key]
        if key in entry.values:
            given = {str(v) for v in (default if isinstance(default, (list, tuple)) else [default])}
            wrong = [v for v in items if v not in entry.values[key] and v not in given]
            if wrong:
                raise PageRequestError(f"option {key}: {wrong[0][:60]!r} is not one of the bundled values "
                                       f"({', '.join(entry.values[key])}); files are named on the command line")
        elif isinstance(default, (bool, int, float)) and not isinstance(value, list):
            continue  # make_game converts it, or names the wrong value
        else:
            raise PageRequestError(f"option {key} takes a file or free text: the page takes only bundled values "
                                   "(give it on the command line: cardboard play --option)")


def check_spec(spec: str) -> None:
    """Refuse (``PageRequestError``) an agent spec the page may not run; an unknown agent or knob is left to
    ``make_agent``, which names it."""
    name, params = registry.parse_agent_spec(spec)
    if name == "human":
        raise PageRequestError("the human agent plays at the server's terminal: on the page, you are a seat")
    for key, value in params.items():
        if key in FILE_KNOBS:
            if value and not SHIPPED.fullmatch(value):
                raise PageRequestError(f"{name}:{key}= names a file: the page plays shipped models only "
                                       f"({key}=zoo:NAME, or zoo:GAME); checkpoints are named on the command line")
        elif _is_path(value) or registry.files_named([], {key: value}):
            raise PageRequestError(f"{name}:{key}= names a file: files are named on the command line")
        elif key in LOCAL_ONLY and value not in LOCAL_ONLY[key]:
            raise PageRequestError(f"{name}:{key}={value[:20]}: the page runs {key}={' or '.join(LOCAL_ONLY[key])} "
                                   "only (other settings on the command line)")
        elif key in CAPS:
            _check_cap(name, key, value)
        elif value.partition(":")[0].strip() in registry.agents():
            check_spec(value)  # an agent spec given as a value (rhea's seed, repair, mutator)


def _check_cap(name: str, key: str, value: str) -> None:
    try:
        number = float(value)
    except ValueError:
        return  # make_agent names the malformed value
    cap = CAPS[key]
    if not (math.isfinite(number) and number <= cap) or (number == 0 and key in UNLIMITED_AT_ZERO):
        raise PageRequestError(f"{name}:{key}={value[:20]}: the page allows {key} up to {cap:g}"
                               f"{' (0, no limit, is not allowed)' if key in UNLIMITED_AT_ZERO else ''}; "
                               "larger budgets are for the command line")

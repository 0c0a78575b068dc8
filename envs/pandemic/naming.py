"""Pandemic's actions and chance outcomes in words: ids decoded into ``(kind, *arguments)`` once, for the action
strings (``describe_action``, ``describe_macro``, ``describe_chance``) and the menus (``view``)."""
from __future__ import annotations

import numpy as np

from . import layout as L
from . import macro as M
from .board import CITY_COLOURS, CITY_NAMES


def role_name(s: np.ndarray, seat: int) -> str:
    """The role of ``seat`` as printed: "Operations Expert"."""
    return L.ROLE_NAMES[s[L.ROLE + seat]].replace("_", " ").title()


def seat_name(s: np.ndarray, seat: int) -> str:
    """"seat 1 (Medic)"."""
    return f"seat {seat} ({role_name(s, seat)})"


_PRIMITIVE_KINDS = (("drive", L.A_DRIVE), ("direct", L.A_DIRECT), ("charter", L.A_CHARTER),
                    ("shuttle", L.A_SHUTTLE), ("ops_move", L.A_OPS_MOVE), ("treat", L.A_TREAT), ("build", L.A_BUILD),
                    ("build_move", L.A_BUILD_MOVE), ("give", L.A_GIVE), ("take", L.A_TAKE), ("cure", L.A_CURE),
                    ("pass", L.A_PASS), ("discard", L.A_DISCARD), ("dispatch", L.A_DISPATCH))


def decode_action(a: int) -> tuple:
    """A primitive action id (in range) as ``(kind, *arguments)``: ``("drive", city)``, ``("ops_move", city,
    card)``, ``("give", seat, card)``, ``("dispatch", seat, mode, city)``, ``("build", 0)``... (``layout``)."""
    kind, start = next((k, at) for k, at in reversed(_PRIMITIVE_KINDS) if a >= at)
    rest = a - start
    if kind in ("ops_move", "give", "take"):
        return (kind, *divmod(rest, L.NUM_CITIES))
    if kind == "dispatch":
        modes = len(L.DISPATCH_MODES)
        return kind, rest // (modes * L.NUM_CITIES), (rest // L.NUM_CITIES) % modes, rest % L.NUM_CITIES
    return kind, rest


def describe_action(a: int, s: np.ndarray | None = None) -> str:
    """A primitive action in words."""
    if not 0 <= a < L.NUM_ACTIONS:
        return f"outside 0..{L.NUM_ACTIONS - 1}"
    name, colour = CITY_NAMES, L.COLOUR_NAMES
    kind, *x = decode_action(a)
    return {
        "drive": lambda: f"drive to {name[x[0]]}",
        "direct": lambda: f"direct flight to {name[x[0]]}",
        "charter": lambda: f"charter flight to {name[x[0]]}",
        "shuttle": lambda: f"shuttle flight to {name[x[0]]}",
        "ops_move": lambda: f"station move to {name[x[0]]}, discarding {name[x[1]]}",
        "treat": lambda: f"treat {colour[x[0]]}",
        "build": lambda: "build a research station",
        "build_move": lambda: f"build a research station, moving the one in {name[x[0]]}",
        "give": lambda: f"give {name[x[1]]} to seat {x[0]}",
        "take": lambda: f"take {name[x[1]]} from seat {x[0]}",
        "cure": lambda: f"discover a cure for {colour[x[0]]}",
        "pass": lambda: "end the actions",
        "discard": lambda: f"discard {name[x[0]]}",
        "dispatch": lambda: f"dispatch seat {x[0]} to {name[x[2]]} ({L.DISPATCH_MODES[x[1]]})",
    }[kind]()


def describe_chance(outcome: int, s: np.ndarray) -> str:
    """A chance outcome at ``s`` in words: the player card drawn, the epidemic's city, the city infected."""
    phase = int(s[L.PHASE])
    limit = L.EPIDEMIC if phase == L.PH_DRAW else L.NUM_CITIES - 1
    if not 0 <= outcome <= limit:
        return f"outside 0..{limit}"
    if phase == L.PH_DRAW:
        card = "an epidemic" if outcome == L.EPIDEMIC else CITY_NAMES[outcome]
        return f"seat {int(s[L.PLAYER])} draws {card}"
    city = f"{CITY_NAMES[outcome]} ({L.COLOUR_NAMES[CITY_COLOURS[outcome]]})"
    return f"epidemic in {city}" if phase == L.PH_EPIDEMIC else f"infect {city}"


def decode_macro(m: int) -> tuple:
    """A macro id (in range) as ``(kind, *arguments)``: ``("treat", city, colour)``, ``("give", seat, card)``,
    ``("walk", city)``, ``("pass", 0)``... (``macro``)."""
    kind = M.macro_kind(m)
    rest = m - int(M.MACRO_STARTS[M.MACRO_KINDS.index(kind)])
    if kind in ("treat", "cure"):
        return (kind, *divmod(rest, L.NUM_COLOURS))
    if kind in ("give", "take"):
        return (kind, *divmod(rest, L.NUM_CITIES))
    return kind, rest


def describe_macro(m: int, s: np.ndarray | None = None) -> str:
    """A macro-action in words."""
    if not 0 <= m < M.NUM_MACROS:
        return f"outside 0..{M.NUM_MACROS - 1}"
    name = CITY_NAMES
    kind, *x = decode_macro(m)
    if kind in ("treat", "cure"):
        return f"{kind} {L.COLOUR_NAMES[x[1]]} in {name[x[0]]}"
    if kind == "build":
        return f"build in {name[x[0]]}"
    if kind in ("give", "take"):
        return f"{kind} {name[x[1]]} {'to' if kind == 'give' else 'from'} seat {x[0]}"
    if kind == "walk":
        return f"walk to {name[x[0]]}"
    if kind == "pass":
        return "end the actions"
    return f"discard {name[x[0]]}"

"""What a person sees of a Pandemic state (``envs.view``): the map as a graph, the seats, the hands and both
discard piles, and the shared counters; the menu paths of both action layers; the log line of an action.

Everything here is public (hands are open; the decks' order is hidden from everyone and shows only as the decks'
sizes), so every perspective, a spectator's included, gets the same view.

**Menus.** A seat's first decision offers about 200 primitive actions, most of them the Operations Expert's
station moves (47 destinations times each card it may discard). A player decides first what to do (move, treat,
build, share, cure), then, for a move, how to travel, since each way costs something different (nothing, the
destination's card, the card of the city you are in, a station), then where to, and last what to pay with:
``("move", "drive", "Chicago")``, ``("move", "station move", "Lima", "discarding Paris")``,
``("share", "give Paris to seat 1 (Medic)")``. Macro-actions (``actions=macro``) group by what is done, then
where: ``("treat", "Bogota", "yellow")``.
"""
from __future__ import annotations

import numpy as np

from ..view import Card, Node, Seat, View, Zone, status_line
from . import layout as L
from .board import BOARD_XY, CITY_COLOURS, CITY_NAMES, neighbours
from .naming import decode_action, decode_macro, seat_name
from .render import render_ansi
from .rules import infection_rate


def _unit_square(xy: np.ndarray) -> np.ndarray:
    """The map's board positions (``map.json``, y grows north) in [0, 1], y = 0 at the top as a screen draws;
    each axis spans the unit interval."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    out = (xy - lo) / (hi - lo)
    out[:, 1] = 1.0 - out[:, 1]
    return out


_XY = _unit_square(BOARD_XY)
# the map without the game: each city's name, place and drive / ferry links (the Pacific ones cross the map's edge)
_PLACES = tuple((CITY_NAMES[c], round(float(_XY[c, 0]), 4), round(float(_XY[c, 1]), 4),
                 tuple(CITY_NAMES[b] for b in neighbours(c))) for c in range(L.NUM_CITIES))
EPIDEMIC_TEXT = ("Increase the infection rate; infect the bottom card of the infection deck with 3 cubes; shuffle "
                 "the infection discard pile onto the infection deck.")


def _city_card(c: int) -> Card:
    return Card(CITY_NAMES[c], tags=(L.COLOUR_NAMES[CITY_COLOURS[c]],))


def _cities(flags: np.ndarray) -> tuple[Card, ...]:
    return tuple(_city_card(int(c)) for c in np.flatnonzero(flags))


def pandemic_view(state, perspective: int | None) -> View:
    """The state as every seat sees it (``perspective`` changes nothing but the field): nodes carry the cubes
    (counters by colour), the city's colour, "research station" and the seats whose pawns are there (tags)."""
    s = state.s
    seats = range(state.num_players)
    nodes = []
    for c, (name, x, y, links) in enumerate(_PLACES):
        cubes = s[L.CUBES + c * L.NUM_COLOURS:L.CUBES + (c + 1) * L.NUM_COLOURS]
        tags = (L.COLOUR_NAMES[CITY_COLOURS[c]],) + (("research station",) if s[L.STATION + c] else ()) \
            + tuple(seat_name(s, q) for q in seats if s[L.PAWN + q] == c)
        nodes.append(Node(name, x, y, links, {L.COLOUR_NAMES[k]: int(n) for k, n in enumerate(cubes) if n}, tags))
    hands = tuple(Zone(f"hand of {seat_name(s, q)}",
                       _cities(s[L.HAND + q * L.NUM_CITIES:L.HAND + (q + 1) * L.NUM_CITIES]), q) for q in seats)
    epidemics = (Card("Epidemic", text=EPIDEMIC_TEXT, tags=("epidemic",)),) * int(s[L.EPIDEMICS_DRAWN])
    piles = (Zone("player discard pile", _cities(s[L.PDISCARD:L.PDISCARD + L.NUM_CITIES]) + epidemics),
             Zone("infection discard pile", _cities(s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES])))
    deck = s[L.PDECK + s[L.PTOP]:L.PDECK + s[L.PEND]]
    counters: dict[str, int | str] = {
        "turn": state.turn, "phase": state.phase, "actions left": int(s[L.ACTIONS_LEFT]),
        "outbreaks": int(s[L.OUTBREAKS]), "infection rate": int(infection_rate(s)),
        "cures": int(s[L.CURED:L.CURED + L.NUM_COLOURS].sum()),
        "epidemics": f"{int(s[L.EPIDEMICS_DRAWN])} of {int(s[L.EPIDEMICS_DRAWN] + (deck == L.EPIDEMIC).sum())}",
        "player deck": len(deck), "infection deck": int(s[L.IBOT] - s[L.ITOP]),
        "research stations": int(s[L.STATION:L.STATION + L.NUM_CITIES].sum())}
    for k, colour in enumerate(L.COLOUR_NAMES):
        cured = s[L.CURED + k]
        counters[colour] = ("eradicated" if cured and s[L.SUPPLY + k] == L.CUBES_PER_COLOUR
                            else "cured" if cured else "not cured")
        counters[f"{colour} cubes left"] = int(s[L.SUPPLY + k])
    panels = tuple(Seat(seat_name(s, q), {"city": CITY_NAMES[s[L.PAWN + q]], "cards": int(s[L.NHAND + q])})
                   for q in seats)
    return View("Pandemic", status_line(state), perspective, render_ansi(state, perspective), panels,
                hands + piles, nodes=tuple(nodes), counters=counters)


_FLIGHTS = {"drive": "drive", "direct": "direct flight", "charter": "charter flight", "shuttle": "shuttle flight"}
_DISPATCH = ("drive", "direct flight", "charter flight", "shuttle flight", "join a pawn")


def _share(s: np.ndarray, kind: str, seat: int, card: int) -> str:
    return f"{kind} {CITY_NAMES[card]} {'to' if kind == 'give' else 'from'} {seat_name(s, seat)}"


def primitive_path(s: np.ndarray, a: int) -> tuple[str, ...]:
    """The menu path of a primitive action (module docstring)."""
    name, colour = CITY_NAMES, L.COLOUR_NAMES
    kind, *x = decode_action(a)
    if kind in _FLIGHTS:
        return "move", _FLIGHTS[kind], name[x[0]]
    if kind == "ops_move":
        return "move", "station move", name[x[0]], f"discarding {name[x[1]]}"
    if kind == "dispatch":
        return "dispatch", seat_name(s, x[0]), _DISPATCH[x[1]], name[x[2]]
    if kind in ("give", "take"):
        return "share", _share(s, kind, x[0], x[1])
    if kind in ("treat", "cure"):
        return kind, colour[x[0]]
    if kind == "build":
        return "build", "a research station"
    if kind == "build_move":
        return "build", f"moving the station in {name[x[0]]}"
    if kind == "discard":
        return "discard", name[x[0]]
    return ("end the actions",)  # pass


def macro_path(s: np.ndarray, m: int) -> tuple[str, ...]:
    """The menu path of a macro-action: what is done, then where (and with whom, or which colour)."""
    name, colour = CITY_NAMES, L.COLOUR_NAMES
    kind, *x = decode_macro(m)
    if kind == "treat":
        return "treat", name[x[0]], colour[x[1]]
    if kind == "cure":
        return "cure", colour[x[1]], f"at {name[x[0]]}"
    if kind in ("give", "take"):
        return "share", _share(s, kind, x[0], x[1])
    if kind in ("build", "walk", "discard"):
        return kind, name[x[0]]
    return ("end the actions",)  # pass


def action_seen(state, action: int, perspective: int | None) -> str:
    """The log line of ``action``, the same for every perspective (all of Pandemic's play is public, a card
    drawn included): "seat 0 (Medic): drive to Chicago", "seat 0 draws an epidemic", "epidemic in Bogota (yellow)"."""
    text = state.action_to_string(action)
    if state.s[L.PHASE] in L.CHANCE_PHASES:
        return text
    return f"{seat_name(state.s, state.current_player)}: {text}"

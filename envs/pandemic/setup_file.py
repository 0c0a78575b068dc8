"""Set-up files: a Pandemic position as JSON, read with every check a hand-written file needs, and written.

Schema (``"version": 1``; cities by name as in ``map.json``, case-insensitive; colours blue / yellow /
black / red)::

    {
      "version": 1,
      "seats": [{"role": "operations_expert", "city": "Atlanta", "hand": ["Paris", "Lima"]}, ...],
      "current_player": 0,                       # the seat whose turn starts
      "actions_left": 4,                         # optional, 1-4 (default 4)
      "turn": 0,                                 # optional
      "player_deck": [["Tokyo", "epidemic", ...], ...],  # piles, top pile first, each top card first
      "player_discard": ["Essen"],               # optional
      "epidemics_drawn": 0,                      # epidemic cards already drawn (they are in the discard)
      "infection_deck": [["Lagos", ...], ...],   # groups, top group first (an epidemic's stack, then the
                                                 # older cards), each top card first; a group whose order
                                                 # is not fixed (drawn at random): {"unordered": [...]}
      "infection_discard": ["Cairo", ...],
      "cubes": {"Cairo": {"black": 3}, ...},
      "research_stations": ["Atlanta"],
      "cured": ["blue"],                         # optional
      "outbreaks": 0,
      "infection_rate_track": "official"         # optional: official or paper
    }

Every city card must be in exactly one hand, pile or the discard, and every infection card in the
infection deck or its discard; a malformed or inconsistent file raises ``SetupError`` naming the file,
the field and what is wrong (a value from the file shown only as ``files.quoted``'s glimpse), before any
state exists.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..files import errors_as, quoted, read_json, unknown_fields
from . import layout as L
from .arrays import add_cubes, blank_state, set_infection_deck, set_player_deck
from .board import CITY_INDEX, CITY_NAMES

VERSION = 1
TESTBED_DIR = Path(__file__).with_name("testbeds")
BUNDLED_SETUPS = tuple(sorted(p.stem for p in TESTBED_DIR.glob("S*.json")))  # the testbed's set-ups by name
_KEYS = {"version", "seats", "current_player", "actions_left", "turn", "player_deck", "player_discard",
         "epidemics_drawn", "infection_deck", "infection_discard", "cubes", "research_stations", "cured",
         "outbreaks", "infection_rate_track"}
_REQUIRED = {"seats", "player_deck", "infection_deck", "infection_discard", "cubes", "research_stations"}


class SetupError(InvalidParameterError):
    """A set-up file that is not valid JSON, does not follow the schema, or describes an impossible position."""


@dataclass(frozen=True)
class Setup:
    """A checked set-up: the state array it describes (``array``) and its seats' roles."""

    source: str
    roles: tuple[int, ...]
    state: np.ndarray

    def array(self) -> np.ndarray:
        return self.state.copy()


def _fail(source: str, message: str) -> SetupError:
    return SetupError(f"set-up {source}: {message}")


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, message: str) -> SetupError:
        return _fail(self.source, message)

    def city(self, where: str, name: Any) -> int:
        if not isinstance(name, str) or name.lower() not in CITY_INDEX:
            raise self.fail(f"{where}: {quoted(name)} is not a city of the map")
        return CITY_INDEX[name.lower()]

    def cities(self, where: str, names: Any) -> list[int]:
        if not isinstance(names, list):
            raise self.fail(f"{where} must be a list of city names, got {quoted(names)}")
        return [self.city(f"{where}[{i}]", n) for i, n in enumerate(names)]

    def colour(self, where: str, name: Any) -> int:
        if name not in L.COLOUR_NAMES:
            raise self.fail(f"{where}: {quoted(name)} is not a colour ({', '.join(L.COLOUR_NAMES)})")
        return L.COLOUR_NAMES.index(name)

    def integer(self, where: str, value: Any, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(f"{where} must be an integer in [{low}, {high}], got {quoted(value)}")
        return value


def load_setup(path: str | Path) -> Setup:
    """Read and check the set-up file ``path`` (see the module docstring); a bare name such as ``S01`` is a
    set-up of the bundled testbed (``testbeds/``, 003 §3.1)."""
    source = str(path)
    bare = "/" not in source and not source.endswith(".json")
    if bare and source in BUNDLED_SETUPS:
        path = TESTBED_DIR / f"{source}.json"
    elif bare and not Path(path).exists():
        raise _fail(source, f"no such file, nor a bundled set-up ({', '.join(BUNDLED_SETUPS)})")
    with errors_as(lambda message: SetupError(f"set-up {message}")):
        data = read_json(path, what="set-up file")
    return parse_setup(data, source)


def parse_setup(data: Any, source: str = "<dict>") -> Setup:
    """Check a set-up given as parsed JSON and build its state array."""
    r = _Reader(source)
    if not isinstance(data, dict):
        raise r.fail("the top level must be a JSON object")
    unknown, missing = unknown_fields(data, _KEYS), _REQUIRED - set(data)
    if unknown:
        raise r.fail(unknown)
    if missing:
        raise r.fail(f"missing field(s) {sorted(missing)}")
    if data.get("version", VERSION) != VERSION:
        raise r.fail(f"version {quoted(data.get('version'))} is not supported (this reader knows version {VERSION})")
    seats = data["seats"]
    if not isinstance(seats, list) or not L.MIN_PLAYERS <= len(seats) <= L.MAX_PLAYERS:
        raise r.fail(f"seats must be a list of {L.MIN_PLAYERS}-{L.MAX_PLAYERS} seats")
    roles = []
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict) or set(seat) != {"role", "city", "hand"}:
            raise r.fail(f"seats[{i}] must be an object with exactly role, city and hand")
        if seat["role"] not in L.ROLE_NAMES:
            raise r.fail(f"seats[{i}].role: {quoted(seat['role'])} is not a role ({', '.join(L.ROLE_NAMES)})")
        roles.append(L.ROLE_NAMES.index(seat["role"]))
    if len(set(roles)) != len(roles):
        raise r.fail("seats: a role is taken twice")
    rate = data.get("infection_rate_track", "official")
    if rate not in ("official", "paper"):
        raise r.fail(f"infection_rate_track must be 'official' or 'paper', got {quoted(rate)}")
    s = blank_state(len(seats), roles, rate == "paper")
    s[L.STATION + L.START_CITY] = 0

    # player cards: hands, piles, discard: every city card exactly once
    where: dict[int, str] = {}

    def place(card: int, zone: str) -> None:
        if card in where:
            raise r.fail(f"the city card {CITY_NAMES[card]} is in {where[card]} and in {zone}")
        where[card] = zone

    for i, seat in enumerate(seats):
        hand = r.cities(f"seats[{i}].hand", seat["hand"])
        if len(hand) > L.HAND_LIMIT:
            raise r.fail(f"seats[{i}].hand holds {len(hand)} cards; the hand limit is {L.HAND_LIMIT}")
        for c in hand:
            place(c, f"seats[{i}].hand")
            s[L.HAND + i * L.NUM_CITIES + c] = 1
        s[L.NHAND + i] = len(hand)
        s[L.PAWN + i] = r.city(f"seats[{i}].city", seat["city"])
    epidemics_drawn = r.integer("epidemics_drawn", data.get("epidemics_drawn", 0), 0, L.MAX_EPIDEMICS)
    s[L.EPIDEMICS_DRAWN] = epidemics_drawn
    piles = data["player_deck"]
    if not isinstance(piles, list) or len(piles) > L.MAX_PILES or not all(isinstance(p, list) for p in piles):
        raise r.fail(f"player_deck must be a list of at most {L.MAX_PILES} piles (lists), top pile first")
    pile_cards = []
    for i, pile in enumerate(piles):
        cards = []
        for j, name in enumerate(pile):
            if name == "epidemic":
                cards.append(L.EPIDEMIC)
            else:
                c = r.city(f"player_deck[{i}][{j}]", name)
                place(c, f"player_deck[{i}]")
                cards.append(c)
        if not cards:
            raise r.fail(f"player_deck[{i}] is an empty pile")
        pile_cards.append(cards)
    total_epidemics = epidemics_drawn + sum(p.count(L.EPIDEMIC) for p in pile_cards)
    if total_epidemics > L.MAX_EPIDEMICS:
        raise r.fail(f"{total_epidemics} epidemic cards in all; at most {L.MAX_EPIDEMICS}")
    for c in r.cities("player_discard", data.get("player_discard", [])):
        place(c, "player_discard")
        s[L.PDISCARD + c] = 1
    lost = [CITY_NAMES[c] for c in range(L.NUM_CITIES) if c not in where]
    if lost:
        raise r.fail(f"city card(s) in no hand, pile or discard: {', '.join(lost)}")
    set_player_deck(s, pile_cards)

    # infection cards: deck groups and discard, every city exactly once
    groups = data["infection_deck"]
    if not isinstance(groups, list) or len(groups) > L.MAX_GROUPS:
        raise r.fail(f"infection_deck must be a list of at most {L.MAX_GROUPS} groups, top group first")
    ordered = [not isinstance(g, dict) for g in groups]
    for i, g in enumerate(groups):
        if not isinstance(g, list) and not (isinstance(g, dict) and set(g) == {"unordered"}):
            raise r.fail(f"infection_deck[{i}] must be a list of cities (top first) or {{\"unordered\": [cities]}}")
    group_cards = [r.cities(f"infection_deck[{i}]", g if o else g["unordered"])
                   for i, (g, o) in enumerate(zip(groups, ordered))]
    discard = r.cities("infection_discard", data["infection_discard"])
    seen = Counter(c for g in group_cards for c in g) + Counter(discard)
    twice = [CITY_NAMES[c] for c, n in seen.items() if n > 1]
    if twice:
        raise r.fail(f"infection card(s) listed twice: {', '.join(sorted(twice))}")
    absent = [CITY_NAMES[c] for c in range(L.NUM_CITIES) if c not in seen]
    if absent:
        raise r.fail(f"infection card(s) in neither the infection deck nor its discard: {', '.join(absent)}")
    set_infection_deck(s, group_cards, ordered=ordered)
    for c in discard:
        s[L.IDISCARD + c] = 1

    # the board
    cubes = data["cubes"]
    if not isinstance(cubes, dict):
        raise r.fail("cubes must be an object {city: {colour: count}}")
    for i, (name, counts) in enumerate(cubes.items()):
        c = r.city(f"cubes entry {i}", name)
        where = f"cubes[{CITY_NAMES[c]!r}]"
        if not isinstance(counts, dict):
            raise r.fail(f"{where} must be an object {{colour: count}}")
        for colour, n in counts.items():
            k = r.colour(where, colour)
            add_cubes(s, c, k, r.integer(f"{where}[{L.COLOUR_NAMES[k]!r}]", n, 0, L.MAX_CUBES_PER_CITY))
    for k, colour in enumerate(L.COLOUR_NAMES):
        if s[L.SUPPLY + k] < 0:
            raise r.fail(f"{L.CUBES_PER_COLOUR - s[L.SUPPLY + k]} {colour} cubes on the board; there are only "
                         f"{L.CUBES_PER_COLOUR}")
    stations = r.cities("research_stations", data["research_stations"])
    if len(set(stations)) != len(stations) or len(stations) > L.MAX_STATIONS:
        raise r.fail(f"research_stations must name distinct cities, at most {L.MAX_STATIONS}")
    s[L.STATION + np.array(stations, dtype=int)] = 1
    for colour in data.get("cured", []):
        s[L.CURED + r.colour("cured", colour)] = 1
    if s[L.CURED:L.CURED + L.NUM_COLOURS].all():
        raise r.fail("all four diseases are cured: the game is already won")
    s[L.OUTBREAKS] = r.integer("outbreaks", data.get("outbreaks", 0), 0, L.MAX_OUTBREAKS - 1)
    s[L.PLAYER] = s[L.DECIDER] = r.integer("current_player", data.get("current_player", 0), 0, len(seats) - 1)
    s[L.ACTIONS_LEFT] = r.integer("actions_left", data.get("actions_left", L.ACTIONS_PER_TURN), 1,
                                  L.ACTIONS_PER_TURN)
    s[L.TURN] = r.integer("turn", data.get("turn", 0), 0, L.MAX_TURNS - 1)
    if s[L.TURN] + s[L.PEND] // L.CARDS_DRAWN + 1 > L.MAX_TURNS:
        raise r.fail(f"turn {int(s[L.TURN])} with {int(s[L.PEND])} player cards left could run past the game's "
                     f"turn bound {L.MAX_TURNS}")
    return Setup(source, tuple(roles), s)


def setup_of(state: Any) -> dict:
    """The set-up file (as a dict) of ``state``, at the start of or during a seat's actions; reading it back
    gives the same position (an infection-deck group with no order yet is written as ``{"unordered": ...}``)."""
    s = state.s
    if s[L.PHASE] != L.PH_ACTIONS:
        raise InvalidParameterError(f"a set-up is written during a seat's actions, not in phase {state.phase!r}")
    if s[L.OPS_MOVED]:
        raise InvalidParameterError("a set-up cannot record that the Operations Expert's move was used")
    name = CITY_NAMES
    piles, start = [], int(s[L.PTOP])
    for k in range(int(s[L.NPILES])):
        end = int(s[L.PILE_END + k])
        if end > start:
            piles.append([("epidemic" if c == L.EPIDEMIC else name[c]) for c in s[L.PDECK + start:L.PDECK + end]])
            start = end
    groups = []
    for g in range(int(s[L.NGROUPS])):
        a = int(s[L.GROUP_START + g])
        b = int(s[L.GROUP_START + g + 1]) if g + 1 < s[L.NGROUPS] else int(s[L.IBOT])
        cards = [name[c] for c in s[L.IDECK + a:L.IDECK + b]]
        groups.append(cards if s[L.GROUP_ORDERED + g] else {"unordered": cards})
    cubes = {}
    for c in range(L.NUM_CITIES):
        counts = {L.COLOUR_NAMES[k]: int(s[L.CUBES + c * L.NUM_COLOURS + k]) for k in range(L.NUM_COLOURS)
                  if s[L.CUBES + c * L.NUM_COLOURS + k]}
        if counts:
            cubes[name[c]] = counts
    return {
        "version": VERSION,
        "seats": [{"role": L.ROLE_NAMES[s[L.ROLE + q]], "city": name[s[L.PAWN + q]],
                   "hand": [name[c] for c in np.flatnonzero(s[L.HAND + q * L.NUM_CITIES:L.HAND + (q + 1) * L.NUM_CITIES])]}
                  for q in range(int(s[L.NUM_SEATS]))],
        "current_player": int(s[L.PLAYER]),
        "actions_left": int(s[L.ACTIONS_LEFT]),
        "turn": int(s[L.TURN]),
        "player_deck": piles,
        "player_discard": [name[c] for c in np.flatnonzero(s[L.PDISCARD:L.PDISCARD + L.NUM_CITIES])],
        "epidemics_drawn": int(s[L.EPIDEMICS_DRAWN]),
        "infection_deck": groups,
        "infection_discard": [name[c] for c in np.flatnonzero(s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES])],
        "cubes": cubes,
        "research_stations": [name[c] for c in np.flatnonzero(s[L.STATION:L.STATION + L.NUM_CITIES])],
        "cured": [L.COLOUR_NAMES[k] for k in range(L.NUM_COLOURS) if s[L.CURED + k]],
        "outbreaks": int(s[L.OUTBREAKS]),
        "infection_rate_track": "paper" if s[L.RATE_TRACK] else "official",
    }


def format_setup(setup: dict) -> str:
    """JSON with one field a line, and one seat, pile or group a line."""
    lines = []
    for key, value in setup.items():
        if key in ("seats", "player_deck", "infection_deck") and value:
            inner = ",\n".join(f"  {json.dumps(v)}" for v in value)
            lines.append(f' "{key}": [\n{inner}\n ]')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_setup(state: Any, path: str | Path) -> None:
    """Write ``setup_of(state)`` to ``path`` (JSON, atomically: a temporary file renamed into place)."""
    path = Path(path)
    text = format_setup(setup_of(state))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


__all__ = ["Setup", "SetupError", "load_setup", "parse_setup", "setup_of", "write_setup"]

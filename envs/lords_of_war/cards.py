"""Lords of War army data: load and validate an army file, build the static card table.

An army is 36 cards with the rulebook's rank split (000 §1.1(B)), exactly one
General among the Command cards. Card types are listed with ``copies``; the
card ids of a game are ``player * 36 + i`` in file order, so every physical
card has its own id (duplicates share a type and a name).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import CardDataError
from ..files import errors_as, quoted, read_json, unknown_fields
from .layout import (
    ARMY_SIZE,
    CLASSES,
    COLS,
    DIRECTION_NAMES,
    F_AMASK,
    F_ATK,
    F_CLASS,
    F_CMD,
    F_DEF,
    F_GEN,
    F_RANK,
    F_RATK,
    F_RDMG,
    F_RG,
    F_RN,
    F_SUPPORT,
    F_TYPE,
    MAX_RANGED_OFFSETS,
    NUM_CARD_FIELDS,
    RANKS,
    RANK_SPLIT,
    ROWS,
    SUPPORT_CLASSES,
)

MAX_STAT = 9  # attack and defence values are single digits on the cards


@dataclass(frozen=True)
class CardType:
    """One card of an army file (owner's frame)."""

    name: str
    rank: str
    cls: str
    copies: int
    defence: int
    attack: tuple[int, ...]  # per direction N..NW
    general: bool = False
    missile: int = 0
    grid: tuple[tuple[int, int], ...] = ()  # (right, forward) offsets

    @property
    def command(self) -> bool:
        return self.rank == "command"

    @property
    def support(self) -> bool:
        return self.cls in SUPPORT_CLASSES


@dataclass(frozen=True)
class Army:
    name: str
    types: tuple[CardType, ...]

    def card_types(self) -> list[CardType]:
        """The 36 physical cards in file order (copies expanded)."""
        return [t for t in self.types for _ in range(t.copies)]


def builtin_armies() -> dict[str, Army]:
    """The armies shipped in ``armies.json`` (orcs, dwarves)."""
    text = resources.files(__package__).joinpath("armies.json").read_text()
    data = json.loads(text)
    return {key: parse_army(value, f"armies.json:{key}") for key, value in data.items() if not key.startswith("_")}


def load_army(spec: str | Path) -> Army:
    """An army by built-in name ('orcs', 'dwarves') or from a JSON file holding one army."""
    armies = builtin_armies()
    if isinstance(spec, str) and spec in armies:
        return armies[spec]
    path = Path(spec)
    if not path.exists():
        raise CardDataError(f"army {str(spec)!r} is neither a built-in army ({', '.join(sorted(armies))}) nor a file")
    with errors_as(CardDataError):
        data = read_json(path, what="army file")
    return parse_army(data, str(path))


def _require(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise CardDataError(f"{where}: {message}")


def _int_field(entry: dict, key: str, where: str, lo: int, hi: int, default: int | None = None) -> int:
    value = entry.get(key, default)
    _require(isinstance(value, int) and not isinstance(value, bool), where,
             f"{key!r} must be an integer, got {quoted(value)}")
    _require(lo <= value <= hi, where, f"{key!r} must be in {lo}..{hi}, got {quoted(value)}")
    return value


def _parse_card(entry: object, where: str) -> CardType:
    _require(isinstance(entry, dict), where, "a card must be a JSON object")
    name = entry.get("name")
    _require(isinstance(name, str) and name.strip() != "", where, "missing card 'name'")
    where = f"{where} ({quoted(name)})"
    extra = unknown_fields(entry, ("name", "rank", "class", "copies", "defence", "attack", "general", "ranged"))
    _require(not extra, where, extra)
    rank = entry.get("rank")
    _require(rank in RANKS, where, f"rank {quoted(rank)} is not one of {list(RANKS)}")
    cls = entry.get("class")
    _require(cls in CLASSES, where, f"class {quoted(cls)} is not one of {list(CLASSES)}")
    copies = _int_field(entry, "copies", where, 1, ARMY_SIZE, default=1)
    defence = _int_field(entry, "defence", where, 0, MAX_STAT)
    attack = entry.get("attack", {})
    _require(isinstance(attack, dict), where, "'attack' must map directions to strengths")
    bad = sum(d not in DIRECTION_NAMES for d in attack)
    _require(not bad, where, f"{bad} unknown attack direction(s); use {list(DIRECTION_NAMES)}")
    arrows = tuple(_int_field(attack, d, where, 0, MAX_STAT, default=0) for d in DIRECTION_NAMES)
    general = entry.get("general", False)
    _require(isinstance(general, bool), where, "'general' must be true or false")
    _require(not general or rank == "command", where, "the General must have rank 'command'")
    missile, grid = 0, ()
    ranged = entry.get("ranged")
    _require((ranged is not None) == (cls == "ranged"), where, "a card has a 'ranged' block exactly when its class is 'ranged'")
    if ranged is not None:
        _require(isinstance(ranged, dict) and set(ranged) == {"damage", "grid"}, where, "'ranged' needs 'damage' and 'grid'")
        missile = _int_field(ranged, "damage", where, 1, MAX_STAT)
        cells = ranged["grid"]
        _require(isinstance(cells, list) and 1 <= len(cells) <= MAX_RANGED_OFFSETS, where,
                 f"'grid' must list 1..{MAX_RANGED_OFFSETS} [right, forward] offsets")
        for k, cell in enumerate(cells):
            ok = (isinstance(cell, list) and len(cell) == 2 and all(isinstance(v, int) for v in cell)
                  and abs(cell[0]) < COLS and abs(cell[1]) < ROWS and cell != [0, 0])
            _require(ok, where, f"bad grid offset 'grid'[{k}] (need [right, forward], not [0, 0], inside the board)")
        _require(len({tuple(c) for c in cells}) == len(cells), where, "duplicate grid offsets")
        grid = tuple((c[0], c[1]) for c in cells)
    return CardType(name.strip(), rank, cls, copies, defence, arrows, general, missile, grid)


def parse_army(data: object, where: str) -> Army:
    """Validate one army (a dict with 'name' and 'cards'); raise CardDataError naming the problem."""
    _require(isinstance(data, dict), where, "an army must be a JSON object with 'name' and 'cards'")
    name = data.get("name")
    _require(isinstance(name, str) and name != "", where, "missing army 'name'")
    cards = data.get("cards")
    _require(isinstance(cards, list) and cards, where, "missing 'cards' list")
    types = tuple(_parse_card(entry, f"{where} card {i}") for i, entry in enumerate(cards))
    dup = sorted(n for n, k in Counter(t.name for t in types).items() if k > 1)
    if dup:
        raise CardDataError(f"{where}: duplicate card name {quoted(dup[0])}"
                            + (f" and {len(dup) - 1} more" if len(dup) > 1 else ""))
    total = sum(t.copies for t in types)
    _require(total == ARMY_SIZE, where, f"an army has {ARMY_SIZE} cards, this one {total}")
    for rank, want in RANK_SPLIT.items():
        got = sum(t.copies for t in types if t.rank == rank)
        _require(got == want, where, f"an army has {want} {rank} cards (000 §1.1(B)), this one {got}")
    generals = [t for t in types for _ in range(t.copies) if t.general]
    _require(len(generals) == 1, where, f"an army has exactly one General, this one {len(generals)}")
    return Army(name, types)


def build_card_table(armies: tuple[Army, Army]) -> tuple[np.ndarray, list[str]]:
    """The static int16 table of all 72 cards (absolute arrows) and the list of card-type names.

    Player 1 sits opposite, so its arrows and grids are turned by 180 degrees.
    """
    type_names: list[str] = []
    type_index: dict[tuple[int, str], int] = {}
    table = np.zeros((2 * ARMY_SIZE, NUM_CARD_FIELDS), dtype=np.int16)
    for p, army in enumerate(armies):
        for i, t in enumerate(army.card_types()):
            c = p * ARMY_SIZE + i
            key = (p, t.name)
            if key not in type_index:
                type_index[key] = len(type_names)
                type_names.append(t.name)
            row = table[c]
            mask = 0
            for d, a in enumerate(t.attack):
                absolute = d if p == 0 else (d + 4) % 8
                row[F_ATK + absolute] = a
                row[F_RATK + d] = a
                if a > 0:
                    mask |= 1 << absolute
            row[F_DEF] = t.defence
            row[F_RANK] = RANKS.index(t.rank)
            row[F_CLASS] = CLASSES.index(t.cls)
            row[F_CMD] = t.command
            row[F_GEN] = t.general
            row[F_SUPPORT] = t.support
            row[F_RDMG] = t.missile
            row[F_AMASK] = mask
            row[F_TYPE] = type_index[key]
            row[F_RN] = len(t.grid)
            sign = 1 if p == 0 else -1
            for k, (right, forward) in enumerate(t.grid):
                row[F_RG + 2 * k] = sign * forward
                row[F_RG + 2 * k + 1] = sign * right
    return table, type_names

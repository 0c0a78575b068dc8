"""A ``CardPool`` as the int tables the compiled rules read (``flat_layout``'s ``C_*`` and ``X_*`` fields).

A card's row is its index in ``pool.cards``; its mechanics are rows of one mechanic table, in card order, each
with the object engine's parameter defaults (``effects``), so a user's own cards (``cards=FILE``) compile without
code. Unit types and the ability names beyond ``cards.STATIC`` are numbered per pool.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..errors import CardDataError
from .cards import Card, CardPool, Mechanic, Targeter
from .constants import RESOURCES
from . import flat_layout as F

# the object engine's default of each effect's one number (``effects``: mech.param(name, default))
_AMOUNT = {
    "DealDamage": ("amount", 1), "DamageSpawnOnKill": ("amount", 2), "BuffTarget": ("damage", 0),
    "DrawCard": ("count", 1), "Discard": ("count", 1), "GainLife": ("amount", 1), "SleepTarget": ("turns", 1),
    "SummonUnits": ("count", 1), "EnchantmentSummon": ("count", 1), "SummonUnitForGrave": ("factor", 2),
    "DrainPowerIntoStats": ("amount", 1), "DrawCardsFromUnit": ("factor", 3), "WinIfHighLife": ("threshold", 60),
    "Deathless": ("charges", 1), "Discharge": ("amountPerTurn", 1), "DamageOnBlock": ("damage", 0),
    "FriendlyLordship": ("attack", 0), "UnitTypeLordshipInclusive": ("attack", 0),
    "UnitTypeLordshipExclusive": ("attack", 0), "UnitTypeLordshipAll": ("attack", 0),
    "NotUnitTypeLordship": ("attack", 0),
}
_CARD_PARAM = {"DamageSpawnOnKill": "unit", "SummonUnits": "unit", "EnchantmentSummon": "unit",
               "SummonUnitForGrave": "unit", "SummonUnitOnDamage": "unit", "TransformDamaged": "transformation"}
_LORDSHIPS = ("FriendlyLordship", "UnitTypeLordshipInclusive", "UnitTypeLordshipExclusive", "UnitTypeLordshipAll",
              "NotUnitTypeLordship")


class CardTable(NamedTuple):
    """The compiled rules' view of a pool: ``cards`` [n, CF], ``mechs`` [rows, XF] (int64), the pool's unit-type
    names (index 0: none) and ability names (bit i of a mask)."""

    cards: np.ndarray
    mechs: np.ndarray
    unit_types: tuple[str, ...]
    abilities: tuple[str, ...]


class _Names:
    """Interning of a pool's unit types and ability names."""

    def __init__(self) -> None:
        self.unit_types: list[str] = [""]
        self.abilities: list[str] = list(F.ABILITY_NAMES)

    def unit_type(self, name: str) -> int:
        if name not in self.unit_types:
            self.unit_types.append(name)
        return self.unit_types.index(name)

    def ability(self, name: str, card: Card) -> int:
        if name not in self.abilities:
            if len(self.abilities) >= F.MAX_ABILITIES:
                raise CardDataError(f"card {card.id!r}: the pool names more than {F.MAX_ABILITIES} abilities, "
                                    "more than the compiled rules hold")
            self.abilities.append(name)
        return self.abilities.index(name)


@lru_cache(maxsize=32)
def card_table(pool: CardPool) -> CardTable:
    """The tables of ``pool`` (``CardDataError`` when a card names a card the pool lacks); kept for the last pools
    (the balancer makes a game per deck pair over one pool)."""
    names = _Names()
    index = {c.id: i for i, c in enumerate(pool.cards)}
    rank = {cid: r for r, cid in enumerate(sorted(index))}
    cards = np.zeros((len(pool.cards), F.CF), np.int64)
    rows: list[np.ndarray] = []
    for i, card in enumerate(pool.cards):
        row = cards[i]
        row[F.C_TYPE] = F.CARD_TYPES.index(card.card_type)
        row[F.C_ENERGY] = card.energy
        row[F.C_REQ:F.C_REQ + 4] = card.requirements
        row[F.C_DAMAGE], row[F.C_LIFE] = card.damage, card.life
        row[F.C_UNIT_TYPE] = names.unit_type(card.unit_type) if card.unit_type else 0
        row[F.C_MECHANICAL] = card.mechanical
        row[F.C_VEHICLE_OR_STRUCTURE] = card.unit_type in ("Vehicle", "Structure")  # targeters.HOSTS
        row[F.C_ID_RANK] = rank[card.id]
        row[F.C_POWER], row[F.C_EMPOWER_COST] = card.power, card.empower_cost
        _targeter(row, (F.C_TARGETER, F.C_TG_OPTIONAL, F.C_TG_LIFE, F.C_TG_UNIT_TYPE, F.C_TG_ABILITY),
                  card.targeter, names, card)
        row[F.C_HOST] = F.TARGETER_NAMES.index(card.host_targeter.id) if card.host_targeter is not None else -1
        row[F.C_MECH_START], row[F.C_MECH_COUNT] = len(rows), len(card.mechanics)
        mask = 0
        for mech in card.mechanics:
            x = _mechanic(mech, card, names, index)
            rows.append(x)
            if mech.trigger is not None:
                row[F.C_TRIGGERS] |= 1 << int(x[F.X_TRIGGER])
            else:
                mask |= 1 << int(x[F.X_ID])
                if mech.id == "Shielded":
                    row[F.C_SHIELDED] = 1
                elif mech.id == "Deathless" and not row[F.C_DEATHLESS_CHARGES]:
                    row[F.C_DEATHLESS_CHARGES] = int(x[F.X_AMOUNT])
                elif mech.id == "Rush":
                    row[F.C_RUSH] = 1
        row[F.C_ABILITIES] = mask
    mechs = np.array(rows, np.int64).reshape(len(rows), F.XF)
    return CardTable(cards, mechs, tuple(names.unit_types), tuple(names.abilities))


def _targeter(row: np.ndarray, fields: tuple[int, ...], t: Targeter, names: _Names, card: Card) -> None:
    row[fields[0]] = F.TARGETER_NAMES.index(t.id)
    row[fields[1]] = t.optional
    row[fields[2]] = t.life
    row[fields[3]] = names.unit_type(t.unit_type) if t.unit_type else 0
    # UnitWithAbility asks for an ability by name (one no unit can have, Great Whale's "aquatic", is a bit never set)
    row[fields[4]] = names.ability(t.ability, card) if t.ability else F.NO_ABILITY


def _mechanic(mech: Mechanic, card: Card, names: _Names, index: dict[str, int]) -> np.ndarray:
    x = np.zeros(F.XF, np.int64)
    x[F.X_CARD] = -1
    if mech.trigger is None:
        x[F.X_ID] = names.ability(mech.id, card)
        x[F.X_TRIGGER] = F.STATIC_TRIGGER
    else:
        x[F.X_ID] = F.EFFECT_NAMES.index(mech.id)
        x[F.X_TRIGGER] = F.TRIGGER_NAMES.index(mech.trigger)
    if mech.targeter is not None:
        x[F.X_HAS_TARGETER] = 1
        _targeter(x, (F.X_TARGETER, F.X_TG_OPTIONAL, F.X_TG_LIFE, F.X_TG_UNIT_TYPE, F.X_TG_ABILITY), mech.targeter,
                  names, card)
    if mech.id in _AMOUNT:
        name, default = _AMOUNT[mech.id]
        x[F.X_AMOUNT] = int(mech.param(name, default))
    if mech.id == "BuffTarget" or mech.id in _LORDSHIPS:
        x[F.X_LIFE] = int(mech.param("life", 0))
    if mech.id in _LORDSHIPS:
        kind = str(mech.param("unitType", ""))
        x[F.X_KIND] = names.unit_type(kind) if kind else 0
    if mech.id in _CARD_PARAM:
        named = str(mech.param(_CARD_PARAM[mech.id]))
        if named not in index:
            raise CardDataError(f"card {card.id!r}: {mech.id} names the card {named!r}, which is not in the pool")
        x[F.X_CARD] = index[named]
    if mech.id == "DealResourceDamage":
        x[F.X_KIND] = RESOURCES.index(str(mech.param("resource", "Synthesis")).lower())
    elif mech.id == "ReturnFromCrypt":
        x[F.X_KIND] = F.CARD_TYPES.index(str(mech.param("card_type", "Unit")).lower())
    elif mech.id == "GrantAbility":
        x[F.X_KIND] = names.ability(str(mech.param("ability")), card)
    elif mech.id == "GainResource":
        res = dict(mech.param("resource", ()))
        x[F.X_ENERGY] = int(res.get("energy", 0))
        x[F.X_RES:F.X_RES + 4] = [int(res.get(r, 0)) for r in RESOURCES]
    return x

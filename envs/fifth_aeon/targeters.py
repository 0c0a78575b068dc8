"""Targeters: who a card or a mechanic affects, by id (the model's ``cards/targeters``).

A targeter is either *chosen* (``SINGLE``: the player picks one unit among ``candidates``; optional ones may pick
none) or *automatic* (``AUTOMATIC``: a function of the board, the source and the trigger). A target is a ``Perm``
or a player number (``int``). ``source`` is the permanent the mechanic belongs to (an item's mechanics belong to
its host), None for a spell; ``owner`` is whose card it is; ``trigger_unit`` the unit that set a trigger off.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Union

from .board import Match, Perm
from .cards import Targeter

Target = Union[Perm, int]


def _all(m: Match) -> list[Perm]:
    return m.all_units()


def _poisonable(u: Perm) -> bool:
    return "PoisonImmune" not in u.kw and "robotic" not in u.kw


# -- chosen targets: candidates(m, owner, source, targeter) ------------------------------------------------------------
SINGLE: dict[str, Callable[..., list[Perm]]] = {
    "SingleUnit": lambda m, o, s, t: _all(m),
    "EnemyUnit": lambda m, o, s, t: m.units(1 - o),
    "FriendlyUnit": lambda m, o, s, t: m.units(o),
    "BiologicalUnit": lambda m, o, s, t: [u for u in _all(m) if not u.mechanical],
    "MechanicalUnit": lambda m, o, s, t: [u for u in _all(m) if u.mechanical],
    "SleepableUnit": lambda m, o, s, t: [u for u in _all(m) if "robotic" not in u.kw],
    "DamagedUnit": lambda m, o, s, t: [u for u in _all(m) if u.hurt > 0],
    "PoisonableUnit": lambda m, o, s, t: [u for u in _all(m) if _poisonable(u)],
    "UnitWithAbility": lambda m, o, s, t: [u for u in _all(m) if t.ability in u.kw],
    "UnitsOfTypeAsTarget": lambda m, o, s, t: _all(m),
    # Call of Justice: an enemy unit whose energy cost is at most half your renewal (a real division)
    "RenewalMindControl": lambda m, o, s, t: [u for u in m.units(1 - o) if 2 * u.card.energy <= m.sides[o].res[3]],
    "CurePoisonTargeter": lambda m, o, s, t: [u for u in m.units(o) if u.st.get("poison", 0) > 0],
}


def candidates(m: Match, owner: int, source: Perm | None, targeter: Targeter) -> list[Perm]:
    """The units ``owner`` may pick for a chosen targeter (a unit's own Play target is picked before it is on
    the board, so never itself)."""
    return SINGLE[targeter.id](m, owner, source, targeter)


# -- automatic targets: targets(m, owner, source, targeter, trigger_unit, chosen) -------------------------------
def _of_type(m: Match, unit_type: str) -> list[Perm]:
    return [u for u in _all(m) if u.unit_type == unit_type]


AUTOMATIC: dict[str, Callable[..., list[Target]]] = {
    "Untargeted": lambda m, o, s, t, tu, c: [],
    "SelfTarget": lambda m, o, s, t, tu, c: [s] if s is not None and s.is_unit else [],
    "TriggeringUnit": lambda m, o, s, t, tu, c: [tu] if tu is not None else [],
    "OwningPlayer": lambda m, o, s, t, tu, c: [o],
    "EnemyPlayer": lambda m, o, s, t, tu, c: [1 - o],
    "AllUnits": lambda m, o, s, t, tu, c: _all(m),
    "AllOtherUnits": lambda m, o, s, t, tu, c: [u for u in _all(m) if u is not s],
    "FriendlyUnits": lambda m, o, s, t, tu, c: m.units(o),
    "EnemyUnits": lambda m, o, s, t, tu, c: m.units(1 - o),
    "Enemies": lambda m, o, s, t, tu, c: [*m.units(1 - o), 1 - o],
    "FriendlyBiologicalUnits": lambda m, o, s, t, tu, c: [u for u in m.units(o) if not u.mechanical],
    "AllPermanents": lambda m, o, s, t, tu, c: m.all_perms(),
    "AllEnchantments": lambda m, o, s, t, tu, c: [u for u in m.all_perms() if not u.is_unit],
    "UnitsOfType": lambda m, o, s, t, tu, c: _of_type(m, t.unit_type),
    "FriendlyUnitsOfType": lambda m, o, s, t, tu, c: [u for u in m.units(o) if u.unit_type == t.unit_type],
    "UnitsNotOfType": lambda m, o, s, t, tu, c: [u for u in _all(m) if u.unit_type != t.unit_type],
    "LifeLessUnits": lambda m, o, s, t, tu, c: [u for u in _all(m) if u.life <= t.life],
    # a chosen unit widened to every unit of its type (Evolutionary Leap)
    "UnitsOfTypeAsTarget": lambda m, o, s, t, tu, c: (_of_type(m, c.unit_type) if c is not None else []),
}


def resolve(m: Match, owner: int, source: Perm | None, targeter: Targeter, trigger_unit: Perm | None,
            chosen: Perm | None) -> list[Target]:
    """The targets of one firing: the chosen unit (if still on the board) for a chosen targeter, else the
    automatic ones."""
    if targeter.id in AUTOMATIC:
        return AUTOMATIC[targeter.id](m, owner, source, targeter, trigger_unit, chosen)
    if chosen is None:
        return []
    return [chosen] if m.find(chosen.uid) is chosen else []


def needs_choice(targeter: Targeter) -> bool:
    return targeter.id in SINGLE


# -- an item's possible hosts, by the card's host targeter ---------------------------------------------------------
HOSTS: dict[str, Callable[[Perm], bool]] = {
    "FriendlyUnit": lambda u: True,
    "FriendlyVehicleOrStructure": lambda u: u.unit_type in ("Vehicle", "Structure"),
}

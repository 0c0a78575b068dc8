"""DefaultAI's card evaluation (Fifth-Aeon-Model ``ai/defaultAi.ts`` and the mechanics' ``evaluate`` methods; 004
§3.3.1): one evaluation point is one stat point of a unit.

A card's value is ``stats + product(multipliers) * sum(addends)`` over its mechanics: keywords are multipliers
(Flying 1.3) or addends (Lethal 3); a triggered mechanic's addend is its effect's value and its multiplier the
trigger's expected firings (Dusk 2), which as in the model scales the whole addend sum. A mechanic acting on a
chosen target is valued by ``target_value`` (the card is scored with its best target). Contexts: ``PLAY`` (a card
in hand), ``LETHAL`` (a unit about to be killed: trades, kill spells), ``NONLETHAL`` (a unit removed otherwise).
The numbers are the model's; quirks of its code are kept (README "DefaultAI").
"""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Callable

from . import targeters as T
from .board import Match, Perm
from .cards import Card, Mechanic
from .constants import BOARD_SLOTS, RESOURCES
from .effects import AURAS

PLAY, LETHAL, NONLETHAL = "play", "lethal", "nonlethal"
PLAYER_VALUE = 1_000_000.0  # a player as a damage target (model Player.evaluate)

MULTIPLIERS: dict[str, Callable[[str], float]] = {  # keyword -> multiplier by context
    "Flying": lambda c: 1.3, "Unblockable": lambda c: 1.75, "Aquatic": lambda c: 1.1, "Ranged": lambda c: 1.1,
    "Lifesteal": lambda c: 1.3, "Relentless": lambda c: 1.25,
    "Deathless": lambda c: 0.5 if c == LETHAL else 1.5, "Immortal": lambda c: 0.1 if c == LETHAL else 3.0,
}
ADDENDS: dict[str, float] = {"Lethal": 3, "Venomous": 3, "PoisonImmune": 0.5, "TransformDamaged": 6,
                             "CannotAttack": -5, "CannotBlock": -3, "robotic": 1, "SpyPower": 3,
                             "DiscardOnDamage": 3, "CannotBeEmpowered": -5}
TRIGGER_FACTORS: dict[str, Callable[[str], float]] = {
    "Play": lambda c: 1.0 if c == PLAY else 0.0, "Dawn": lambda c: 1.5, "Dusk": lambda c: 2.0,
    "Cycle": lambda c: 3.0, "Serenity": lambda c: 1.25, "Death": lambda c: 0.25 if c == LETHAL else 0.9,
    "SoulReap": lambda c: 2.0, "LethalStrike": lambda c: 1.5, "OwnerDrawsUnit": lambda c: 2.0,
    "FriendlyUnitEntersPlay": lambda c: 2.0, "FriendlyBioUnitEntersPlay": lambda c: 2.0,
    "FriendlyMechUnitEntersPlay": lambda c: 2.0,
}
LORDSHIPS = ("FriendlyLordship", "UnitTypeLordshipInclusive", "UnitTypeLordshipExclusive", "UnitTypeLordshipAll",
             "NotUnitTypeLordship")


class Evaluator:
    """Values of cards and units in one match, for one player's point of view (``me``)."""

    def __init__(self, m: "Match", me: int):
        self.m = m
        self.me = me

    # -- cards and units ------------------------------------------------------------------------------------
    def unit(self, u: "Perm", ctx: str) -> float:
        """A unit on the board: its current life and attack plus its mechanics (statuses too)."""
        extra = 0.0
        if u.st.get("sleep"):
            extra += -3.0 * u.st["sleep"]
        if u.st.get("poison"):
            extra += -0.75 * (u.full_life + u.attack)
        return u.full_life + u.attack + self.mechanics(u.mechs, ctx, u.owner, u, extra)

    def card(self, card: Card, ctx: str, owner: int, bonus: tuple[int, int] = (0, 0)) -> float:
        """A card not on the board (in hand): a unit's printed stats (plus a hand bonus), an item's bonuses."""
        base = card.damage + card.life + bonus[0] + bonus[1] if card.card_type in ("unit", "item") else 0.0
        return base + self.mechanics(card.mechanics, PLAY if card.card_type in ("item", "enchantment") else ctx,
                                     owner, None, 0.0, card)

    def perm(self, u: "Perm", ctx: str) -> float:
        return self.unit(u, ctx) if u.is_unit else self.mechanics(u.mechs, PLAY, u.owner, u, 0.0)

    def mechanics(self, mechs: tuple[Mechanic, ...], ctx: str, owner: int, source: "Perm | None",
                  extra: float, card: Card | None = None) -> float:
        """``product(multipliers) * sum(addends)`` (model ``sumValues``)."""
        mult, total = 1.0, extra
        for mech in mechs:
            a, mul = self.mechanic(mech, ctx, owner, source, card)
            total += a
            mult *= mul
        return mult * total

    def mechanic(self, mech: Mechanic, ctx: str, owner: int, source: "Perm | None",
                 card: Card | None) -> tuple[float, float]:
        """(addend, multiplier) of one mechanic."""
        kind = mech.id
        if mech.trigger is None:
            if kind in MULTIPLIERS:
                return 0.0, MULTIPLIERS[kind](ctx)
            if kind == "Rush":
                return (0.0, 1.2) if ctx == PLAY else (0.0, 1.0)
            if kind == "Shielded":
                live = source is None or source.st.get("shield", 0)
                return (0.0, 1.25) if live else (0.0, 1.0)
            if kind in ADDENDS:
                return ADDENDS[kind], 1.0
            if kind == "DamageOnBlock":
                return 2.0 * int(mech.param("damage", 0)), 1.0
            if kind == "Discharge":
                return -float(mech.param("amountPerTurn", 1)), 1.0
            power = source.power if source is not None else (card.power if card is not None else 0)
            if kind == "PreventAllDamage":
                return 7.0 * power, 1.0
            if kind == "ForceField":
                return float(power), 1.0
            if kind == "DeathCounter":
                return 6.0 * power, 1.0
            if kind == "SummonUnitOnDamage":
                return self.token(str(mech.param("unit"))), 1.0
            if kind in LORDSHIPS:
                return self.lordship(mech, owner, source), 1.0
            return 0.0, 1.0
        if kind == "EnchantmentSummon":  # its own evaluate: no trigger factor
            return self.token(str(mech.param("unit"))) * min(int(mech.param("count", 1)), self.space(owner)), 1.0
        if mech.trigger == "Affinity":
            factor = 0.0 if source is not None and source.st.get("affinity") else 0.75
        else:
            factor = TRIGGER_FACTORS.get(mech.trigger, lambda c: 1.0)(ctx)
        if factor == 0:
            return 0.0, 1.0
        return self.effect(mech, owner, source, card), factor

    def effect(self, mech: Mechanic, owner: int, source: "Perm | None", card: Card | None) -> float:
        """The value of a triggered mechanic's effect (before its trigger factor)."""
        kind = mech.id
        m = self.m
        if kind == "DrawCard":
            return 3.0 * int(mech.param("count", 1))
        if kind == "Discard":
            return 2.5 * int(mech.param("count", 1))
        if kind == "AugarCard":
            return 2.0
        if kind == "GainLife":
            return 0.75 * int(mech.param("amount", 1))
        if kind == "GainResource":
            return 2.0 * int(dict(mech.param("resource", ())).get("energy", 0))
        if kind == "SummonUnits":
            return self.token(str(mech.param("unit"))) * min(int(mech.param("count", 1)), self.space(owner))
        if kind == "SummonUnitForGrave":
            n = sum(1 for s in m.sides for c in s.crypt if m.card(c).card_type == "unit")
            return self.token(str(mech.param("unit"))) * min(n // int(mech.param("factor", 2)), self.space(owner))
        if kind == "ReturnFromCrypt":
            wanted = str(mech.param("card_type", "Unit")).lower()
            return 3.0 if sum(m.card(c).card_type == wanted for c in m.sides[owner].crypt) > 1 else 0.0
        if kind == "AbominationConsume":
            if source is not None:
                return 0.0
            stats = sorted((m.card(c).damage + m.card(c).life for c in m.sides[owner].crypt
                            if m.card(c).card_type == "unit"), reverse=True)
            return float(sum(stats[:2]))
        if kind == "WinIfHighLife":
            return math.inf if m.sides[owner].life >= int(mech.param("threshold", 60)) else 0.0
        if kind in TARGET_VALUES:
            return sum(self.target_value(mech, owner, t) for t in self.area_targets(mech, owner, source, card))
        return 0.0

    def area_targets(self, mech: Mechanic, owner: int, source: "Perm | None", card: Card | None) -> list:
        """The current targets of an automatic targeter (a chosen one has none before the card is played)."""
        targeter = mech.targeter or (card.targeter if card is not None else source.card.targeter)
        if targeter.id not in T.AUTOMATIC or targeter.id in ("TriggeringUnit", "UnitsOfTypeAsTarget"):
            return []
        if targeter.id == "SelfTarget" and source is None and card is not None and card.card_type == "unit":
            return [Perm(-1, card, owner)]  # a unit in hand targets itself as it will enter
        return T.AUTOMATIC[targeter.id](self.m, owner, source, targeter, None, None)

    def target_value(self, mech: Mechanic, owner: int, t: "Perm | int") -> float:
        """The model's ``evaluateTarget`` of one mechanic on one target."""
        return TARGET_VALUES[mech.id](self, mech, owner, t)

    def token(self, card_id: str) -> float:
        return self.card(self.m.card(card_id), PLAY, self.me)

    def space(self, owner: int) -> int:
        return BOARD_SLOTS - len(self.m.board[owner])

    def lordship(self, mech: Mechanic, owner: int, lord: "Perm | None") -> float:
        rule = AURAS[mech.id]
        utype = str(mech.param("unitType", ""))
        probe = lord if lord is not None else SimpleNamespace(owner=owner)  # in hand: every friendly unit counts
        n = sum(1 for u in self.m.all_units() if rule(probe, u, utype))
        return n * (int(mech.param("attack", 0)) + int(mech.param("life", 0)))

    # -- scoring a play --------------------------------------------------------------------------------------
    def card_target_value(self, card: Card, owner: int, t: "Perm") -> float:
        """Every targeted mechanic of ``card`` on ``t`` (the model's ``card.evaluateTarget``, area ones included)."""
        return sum(self.target_value(mech, owner, t) for mech in card.mechanics if mech.id in TARGET_VALUES)


def _sign(owner: int, t: "Perm | int") -> float:
    """+1 for an enemy target, -1 for a friendly one (model s(t))."""
    t_owner = t if isinstance(t, int) else t.owner
    return 1.0 if t_owner != owner else -1.0


def _own(owner: int, t: "Perm | int") -> float:
    return -_sign(owner, t)


def _damage_value(amount: Callable[["Evaluator", Mechanic, int], float]):
    def value(ev: Evaluator, mech: Mechanic, owner: int, t: "Perm | int") -> float:
        a = amount(ev, mech, owner)
        if isinstance(t, int):
            return PLAYER_VALUE * _sign(owner, t) if ev.m.sides[t].life < a else 0.0
        return ev.unit(t, LETHAL) * _sign(owner, t) if t.life < a else 0.0
    return value


def _unit_only(f: Callable[[Evaluator, Mechanic, int, "Perm"], float]):
    def value(ev: Evaluator, mech: Mechanic, owner: int, t: "Perm | int") -> float:
        return f(ev, mech, owner, t) if not isinstance(t, int) and t.is_unit else 0.0
    return value


def _removal(factor: float, ctx: str):
    def value(ev: Evaluator, mech: Mechanic, owner: int, t: "Perm | int") -> float:
        if isinstance(t, int):
            return 0.0
        if not t.is_unit:
            return 2.0 * t.card.energy
        return factor * ev.unit(t, ctx) * _sign(owner, t)
    return value


def _poisoned_cure(ev, mech, owner, t):  # the model's formula, inverted as written (README)
    return _own(owner, t) * (0.0 if t.st.get("poison") else 0.7) * ev.unit(t, NONLETHAL)


def _poison_value(ev, mech, owner, t):
    immune = "PoisonImmune" in t.kw or "robotic" in t.kw
    return 0.0 if immune else 0.5 * ev.unit(t, NONLETHAL) * _sign(owner, t)


def _drain(ev, mech, owner, t):
    if isinstance(t, int) or t.is_unit or t.power <= 0:
        return 0.0
    return _sign(owner, t) * min(int(mech.param("amount", 1)) / t.power, 1.0) * t.card.energy * 2


TARGET_VALUES: dict[str, Callable[..., float]] = {
    "DealDamage": _damage_value(lambda ev, mech, owner: int(mech.param("amount", 1))),
    "DamageSpawnOnKill": _damage_value(lambda ev, mech, owner: int(mech.param("amount", 2))),
    "BiteDamage": _damage_value(lambda ev, mech, owner: max([u.attack for u in ev.m.units(owner)] + [0])),
    "DealResourceDamage": _damage_value(lambda ev, mech, owner: ev.m.sides[owner].res[
        RESOURCES.index(str(mech.param("resource", "Synthesis")).lower())]),
    "KillTarget": _removal(1.0, LETHAL),
    "Annihilate": _removal(1.25, NONLETHAL),
    "BuffTarget": _unit_only(lambda ev, mech, owner, t: (int(mech.param("damage", 0)) + int(mech.param("life", 0)))
                             * 1.1 * _own(owner, t)),
    "GrantAbility": _unit_only(lambda ev, mech, owner, t: 2.0 * _own(owner, t)),
    "PoisonTarget": _unit_only(_poison_value),
    "CurePoison": _unit_only(_poisoned_cure),
    "RefreshTarget": _unit_only(lambda ev, mech, owner, t: 0.1 * t.exhausted * _own(owner, t)),
    "SleepTarget": _unit_only(lambda ev, mech, owner, t: 0.5 * ev.unit(t, NONLETHAL) * _sign(owner, t)),
    "WebTarget": _unit_only(lambda ev, mech, owner, t: _sign(owner, t) * (0.05 if "Flying" in t.kw else 0.6)
                            * ev.unit(t, NONLETHAL)),
    "ImprisonTemporarily": _unit_only(lambda ev, mech, owner, t: 0.9 * ev.unit(t, NONLETHAL) * _sign(owner, t)),
    "MindControl": _unit_only(lambda ev, mech, owner, t: 2.0 * ev.unit(t, NONLETHAL) * _sign(owner, t)),
    "ShuffleIntoDeck": _unit_only(lambda ev, mech, owner, t: ev.unit(t, NONLETHAL) * _sign(owner, t)),
    "DrawCardsFromUnit": _unit_only(lambda ev, mech, owner, t: 3.0 * ((t.full_life + t.attack)
                                                                      // int(mech.param("factor", 3)))),
    "DrainPowerIntoStats": _drain,
}


def position_value(m: "Match", player: int, scale: float = 20.0) -> float:
    """The position for ``player`` in [-1, 1] in DefaultAI's points: each side's permanents (units valued as on
    the board), 0.75 a life point (GainLife's rate) and 3 a card in hand (DrawCard's), as tanh of the
    difference / ``scale``. The search agents' leaf evaluation (``heuristic``)."""
    ev = Evaluator(m, player)
    score = [0.0, 0.0]
    for p in range(2):
        side = m.sides[p]
        score[p] = (sum(ev.perm(u, NONLETHAL) for u in m.board[p]) + 0.75 * max(side.life, 0)
                    + 3.0 * len(side.hand))
    diff = score[player] - score[1 - player]
    if math.isnan(diff):
        return 0.0
    return math.tanh(diff / scale)

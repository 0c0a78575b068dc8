"""A card's rules text in words, written from its data (``cards.json`` has none: the model's client builds each
card's text from its mechanics, and so do we, in our own words, after ``shared/data/fifthaeon_rules.md``).

``card_text(card, pool)`` is one sentence per ability: the keywords first ("Flying, Lifesteal."), then each
triggered mechanic as "<when>: <effect> <targets>." (a unit summoned by name is named as printed). Every mechanic,
trigger and targeter ``cards`` accepts has a wording here (tests/test_view.py checks the whole pool), so a user's
own card gets text too.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from .cards import Card, CardPool, Mechanic, Targeter
from .constants import RESOURCES

WHEN = {
    "Play": "When played", "Death": "When it dies", "SoulReap": "Whenever another unit dies",
    "Dawn": "At the start of your turn", "Dusk": "At the end of your turn", "Cycle": "At the start of every turn",
    "Serenity": "At the end of your turn, if you did not attack",
    "Affinity": "The first time another friendly unit of its type enters play",
    "LethalStrike": "Whenever it kills a unit", "FriendlyUnitEntersPlay": "Whenever a friendly unit enters play",
    "FriendlyMechUnitEntersPlay": "Whenever a friendly mechanical unit enters play",
    "FriendlyBioUnitEntersPlay": "Whenever a friendly biological unit enters play",
    "OwnerDrawsUnit": "Whenever you draw a unit",
}

_TARGETS: dict[str, Callable[[Targeter], str]] = {
    "SingleUnit": lambda t: "target unit", "EnemyUnit": lambda t: "target enemy unit",
    "FriendlyUnit": lambda t: "target friendly unit", "BiologicalUnit": lambda t: "target biological unit",
    "MechanicalUnit": lambda t: "target mechanical unit", "SleepableUnit": lambda t: "target non-robotic unit",
    "DamagedUnit": lambda t: "target damaged unit", "PoisonableUnit": lambda t: "target poisonable unit",
    "UnitWithAbility": lambda t: f"target unit with {t.ability.capitalize()}",
    "UnitsOfTypeAsTarget": lambda t: "target unit and every unit of its type",
    "RenewalMindControl": lambda t: "target enemy unit costing at most half your renewal",
    "CurePoisonTargeter": lambda t: "target poisoned friendly unit",
    "Untargeted": lambda t: "", "SelfTarget": lambda t: "it", "TriggeringUnit": lambda t: "that unit",
    "OwningPlayer": lambda t: "you", "EnemyPlayer": lambda t: "your opponent", "AllUnits": lambda t: "every unit",
    "AllOtherUnits": lambda t: "every other unit", "FriendlyUnits": lambda t: "your units",
    "EnemyUnits": lambda t: "enemy units", "Enemies": lambda t: "your opponent and enemy units",
    "FriendlyBiologicalUnits": lambda t: "your biological units",
    "AllPermanents": lambda t: "every unit and enchantment", "AllEnchantments": lambda t: "every enchantment",
    "UnitsOfType": lambda t: f"every {t.unit_type}", "FriendlyUnitsOfType": lambda t: f"your {t.unit_type} units",
    "UnitsNotOfType": lambda t: f"every non-{t.unit_type} unit",
    "LifeLessUnits": lambda t: f"every unit with {t.life} or less life",
}


def _targets(t: Targeter) -> str:
    words = _TARGETS[t.id](t)
    return f"up to one {words}" if t.optional and words.startswith("target") else words


def _stats(d: int, l: int) -> str:
    return f"{d:+d}/{l:+d}"


def _cards(n: int) -> str:
    return "a card" if n == 1 else f"{n} cards"


def _a(name: str) -> str:
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def _units(n: int, name: str) -> str:
    return _a(name) if n == 1 else f"{n} {name} units"


def _resources(res: object) -> str:
    gains = dict(res) if res else {}
    return " and ".join(f"{n} {r}" for r in ("energy",) + RESOURCES if (n := int(gains.get(r, 0))))


# what a triggered mechanic does: (mechanic, its targets in words, the unit namer) -> phrase
_EFFECTS: dict[str, Callable[[Mechanic, str, Callable[[str], str]], str]] = {
    "DealDamage": lambda m, t, u: f"deal {m.param('amount', 1)} damage to {t}",
    "DealResourceDamage": lambda m, t, u: f"deal damage equal to your {str(m.param('resource')).lower()} to {t}",
    "BiteDamage": lambda m, t, u: f"deal damage equal to your strongest unit's attack to {t}",
    "DamageSpawnOnKill": lambda m, t, u: (f"deal {m.param('amount', 2)} damage to {t}; if it dies, summon "
                                          f"{_a(u(m.param('unit')))}"),
    "BuffTarget": lambda m, t, u: f"give {t} {_stats(m.param('damage', 0), m.param('life', 0))}",
    "GrantAbility": lambda m, t, u: f"give {t} {m.param('ability')}",
    "KillTarget": lambda m, t, u: f"kill {t}",
    "Annihilate": lambda m, t, u: f"remove {t} from the game",
    "DrawCard": lambda m, t, u: f"draw {_cards(m.param('count', 1))}",
    "Peek": lambda m, t, u: "see your opponent's hand",
    "Discard": lambda m, t, u: f"your opponent discards {_cards(m.param('count', 1))}",
    "AugarCard": lambda m, t, u: ("with less than 4 synthesis replace a card in your hand, with less than 8 draw "
                                  "a card, else take a card of your choice from your deck"),
    "GainLife": lambda m, t, u: f"gain {m.param('amount', 1)} life",
    "GainResource": lambda m, t, u: f"gain {_resources(m.param('resource'))}",
    "RefreshTarget": lambda m, t, u: f"refresh {t}",
    "CurePoison": lambda m, t, u: f"cure {t} of poison",
    "PoisonTarget": lambda m, t, u: f"poison {t}",
    "SleepTarget": lambda m, t, u: (f"put {t} to sleep for {m.param('turns', 1)} "
                                    f"turn{'s' if m.param('turns', 1) != 1 else ''}"),
    "SummonUnits": lambda m, t, u: f"summon {_units(m.param('count', 1), u(m.param('unit')))}",
    "EnchantmentSummon": lambda m, t, u: (f"summon {_units(m.param('count', 1), u(m.param('unit')))} with attack and "
                                          f"life equal to this enchantment's power"),
    "SummonUnitForGrave": lambda m, t, u: (f"summon {_a(u(m.param('unit')))} for every {m.param('factor', 2)} units "
                                           f"in both crypts"),
    "DrainPowerIntoStats": lambda m, t, u: (f"take {m.param('amount', 1)} power from {t}; it gains +1/+1 for each "
                                            f"power taken"),
    "DrawCardsFromUnit": lambda m, t, u: (f"draw a card for every {m.param('factor', 3)} attack and life of {t}"),
    "WebTarget": lambda m, t, u: f"exhaust {t}; it loses Flying",
    "AbominationConsume": lambda m, t, u: "eat up to 2 units from your crypt, gaining their attack and life",
    "ReturnFromCrypt": lambda m, t, u: (f"return a {str(m.param('card_type', 'Unit')).lower()} from your crypt "
                                        f"to your hand"),
    "ImprisonTemporarily": lambda m, t, u: f"{t} cannot attack or block while this is in play",
    "ShuffleIntoDeck": lambda m, t, u: f"put {t} at the bottom of their owners' decks",
    "MindControl": lambda m, t, u: f"take control of {t}",
    "WinIfHighLife": lambda m, t, u: f"if you have {m.param('threshold', 60)} or more life, you win",
}

_LORDS = {"FriendlyLordship": "your other units get", "UnitTypeLordshipInclusive": "your {} units get",
          "UnitTypeLordshipExclusive": "your other {} units get", "UnitTypeLordshipAll": "every {} unit gets",
          "NotUnitTypeLordship": "every non-{} unit gets"}
_HOSTS = {"FriendlyUnit": "a friendly unit", "FriendlyVehicleOrStructure": "a friendly Vehicle or Structure"}
_KEYWORDS = {"PoisonImmune": "Poison immune", "robotic": "Robotic", "CannotAttack": "Cannot attack",
             "CannotBlock": "Cannot block", "CannotBeEmpowered": "Cannot be empowered"}
# static abilities that are a sentence rather than a keyword
_STATIC: dict[str, Callable[[Mechanic, Callable[[str], str]], str]] = {
    "SpyPower": lambda m, u: "Whenever it damages a player, draw a card",
    "DamageOnBlock": lambda m, u: f"When it blocks, it deals {m.param('damage', 0)} damage to the attacker first",
    "SummonUnitOnDamage": lambda m, u: f"Whenever it damages a player, summon {_a(u(m.param('unit')))}",
    "DiscardOnDamage": lambda m, u: "Whenever it damages a player, that player discards a card",
    "TransformDamaged": lambda m, u: f"A unit it damages and does not kill becomes {_a(u(m.param('transformation')))}",
    "ForceField": lambda m, u: "Damage to you is reduced by this enchantment's power, and it loses that much power",
    "PreventAllDamage": lambda m, u: "Prevent all damage to you",
    "DeathCounter": lambda m, u: "A unit that damages you dies, and this enchantment loses 1 power",
    "Discharge": lambda m, u: f"Loses {m.param('amountPerTurn', 1)} power at the start of your turn",
}


def keyword_name(ability: str) -> str:
    """A static ability as printed: "Flying", "Cannot attack"."""
    return _KEYWORDS.get(ability, ability)


def keywords(abilities: Iterable[str]) -> tuple[str, ...]:
    """The keywords among ``abilities`` (a permanent's ``kw``), as printed and sorted; the abilities that are
    sentences of the card's text (lordships, Discharge, ...) are left out."""
    return tuple(sorted(keyword_name(k) for k in abilities if k not in _LORDS and k not in _STATIC))


def card_text(card: Card, pool: CardPool) -> str:
    """The rules text of ``card`` (empty for a vanilla unit); units it summons are named as printed."""
    def unit(cid: object) -> str:
        return pool.by_id[str(cid)].name if str(cid) in pool.by_id else str(cid)

    keywords: list[str] = []
    sentences = [f"Attaches to {_HOSTS[card.host_targeter.id]}."] if card.host_targeter is not None else []
    for m in card.mechanics:
        if m.trigger is not None:
            targets = _targets(m.targeter or card.targeter)
            sentences.append(f"{WHEN[m.trigger]}: {_EFFECTS[m.id](m, targets, unit)}.")
        elif m.id in _LORDS:
            who = _LORDS[m.id].format(m.param("unitType", ""))
            sentences.append(f"{who[0].upper()}{who[1:]} {_stats(m.param('attack', 0), m.param('life', 0))}.")
        elif m.id in _STATIC:
            sentences.append(f"{_STATIC[m.id](m, unit)}.")
        elif m.id == "Deathless":
            keywords.append(f"Deathless ({m.param('charges', 1)})")
        else:
            keywords.append(keyword_name(m.id))
    return " ".join(([", ".join(keywords) + "."] if keywords else []) + sentences)

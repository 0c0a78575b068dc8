"""What each mechanic does: one small function per mechanic id, and the events that set them off.

A card's mechanics are data (``cards.Mechanic``: an id, a trigger, parameters, a targeter). A *triggered*
mechanic (``trigger`` set) runs its ``EFFECTS[id](m, ctx, targets, mech)`` when its trigger fires; a *static* one
(``trigger`` None) is a keyword the rules and the damage step read (Flying, Lethal, Shielded, ...), or an aura
(the lordships, recomputed by ``update_auras`` whenever the board changes), or a hook on damage (``deal_damage``).
Unit death is collected by ``process_deaths`` after every step, so death and SoulReap triggers see a settled
board. ``CHOICES`` says what happens to the options a player picks in a deferred choice.

Semantics follow the model (``shared/data/fifthaeon_rules.md`` and the model's ``cards/mechanics``); every
decision taken where it is silent is listed in this folder's README.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import targeters as T
from .board import OWNER_KNOWS, PUBLIC, Choice, Match, Perm, refresh
from .cards import Card, Mechanic
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT, RESOURCES, SOFT_HAND_LIMIT


@dataclass
class Ctx:
    """One firing: whose card, the permanent it belongs to (None for a spell), the card, the chosen target and
    the unit that set the trigger off."""

    owner: int
    source: Perm | None
    card: Card
    chosen: Perm | None = None
    trigger_unit: Perm | None = None


# ---- primitives -------------------------------------------------------------------------------------------------
def summon(m: Match, owner: int, card_id: str, count: int = 1) -> None:
    """Play ``count`` fresh ``card_id`` units for ``owner``, free (their Play mechanics fire; a full board: they
    die on entering)."""
    for _ in range(count):
        if m.winner < 0:
            enter(m, new_perm(m, m.card(card_id), owner), None)


def new_perm(m: Match, card: Card, owner: int, bonus: tuple[int, int] = (0, 0)) -> Perm:
    u = Perm(m.next_uid, card, owner, bonus)
    m.next_uid += 1
    init_status(u)
    return u


def init_status(u: Perm) -> None:
    """Counters that come with abilities: a fresh shield, Deathless charges (kept when the unit returns)."""
    for mech in u.mechs:
        if mech.id == "Shielded":
            u.st["shield"] = 1
        elif mech.id == "Deathless":
            u.st.setdefault("deathless", int(mech.param("charges", 1)))


def enter(m: Match, u: Perm, chosen: Perm | None, play_effects: bool = True) -> None:
    """A permanent is played (model ``playPermanent``): its Play mechanics resolve before it is on the board;
    then it takes a slot (a full board: it dies on entering, to the crypt, with SoulReap but no Death trigger),
    Rush refreshes it, the lordships apply, and the enters-play triggers fire (FriendlyUnitEntersPlay and the
    mechanical / biological ones include the unit itself; Affinity fires once on another unit of its type)."""
    if play_effects:
        fire_own(m, u, "Play", chosen=chosen)
        if m.winner >= 0:
            return
    side = m.board[u.owner]
    if len(side) >= BOARD_SLOTS:
        m.sides[u.owner].crypt.append(u.card.id)
        if u.is_unit:
            soul_reap(m, u)
        process_deaths(m)
        return
    side.append(u)
    init_status(u)
    if "Rush" in u.kw:
        refresh(u)
    update_auras(m)
    if u.is_unit:
        trig = "FriendlyMechUnitEntersPlay" if u.mechanical else "FriendlyBioUnitEntersPlay"
        for other in list(m.board[u.owner]):
            if m.find(other.uid) is not other or m.winner >= 0:
                continue
            fire_own(m, other, "FriendlyUnitEntersPlay", trigger_unit=u)
            fire_own(m, other, trig, trigger_unit=u)
            if (other is not u and other.is_unit and u.unit_type and other.unit_type == u.unit_type
                    and not other.st.get("affinity") and any(x.trigger == "Affinity" for x in other.mechs)):
                other.st["affinity"] = 1
                fire_own(m, other, "Affinity", trigger_unit=u)
    process_deaths(m)


def fire_own(m: Match, u: Perm, trigger: str, chosen: Perm | None = None,
             trigger_unit: Perm | None = None) -> None:
    """Run every mechanic of ``u`` with ``trigger``, in card order (an item's own Play mechanics are run by
    ``moves.finish_play`` when it is attached, not when its host is played)."""
    for mech in u.mechs:
        if mech.trigger == trigger and m.winner < 0:
            if trigger == "Play" and mech not in u.card.mechanics and mech not in u.granted:
                continue
            run(m, mech, Ctx(u.owner, u, u.card, chosen, trigger_unit))


def run(m: Match, mech: Mechanic, ctx: Ctx) -> None:
    """Resolve one triggered mechanic: its targets (its own targeter, else the card's), then its effect. A chosen
    target that is gone (or none chosen, when optional) leaves an effect on units with nothing to act on; an effect
    that does not act on its targets (gain life, draw) happens anyway, as in the model (Great Whale)."""
    targeter = mech.targeter or ctx.card.targeter
    EFFECTS[mech.id](m, ctx, T.resolve(m, ctx.owner, ctx.source, targeter, ctx.trigger_unit, ctx.chosen), mech)


# ---- zones and choices -----------------------------------------------------------------------------------------
def draw(m: Match, player: int, count: int = 1) -> None:
    """Draw from the top; an empty deck deals 1, 2, 4, ... damage (fatigue); a 13th card goes to the crypt."""
    side = m.sides[player]
    for _ in range(count):
        if not side.deck:
            side.fatigue += 1
            deal_damage(m, None, player, 1 << (side.fatigue - 1), owner=player, direct=True)
            continue
        cid = side.deck.pop(0)
        vis = side.deck_vis.pop(0)
        add_to_hand(m, player, cid, vis == PUBLIC)


def add_to_hand(m: Match, player: int, cid: str, known: bool) -> None:
    """A card joins the hand (``known``: the opponent knows it); at 12 cards it goes to the crypt instead."""
    side = m.sides[player]
    if len(side.hand) >= HARD_HAND_LIMIT:
        side.crypt.append(cid)
        return
    side.hand.append((cid, 0, 0))
    side.known.append(known)
    on_draw(m, player, len(side.hand) - 1)


def ask(m: Match, player: int, kind: str, source: str, min_n: int, max_n: int) -> None:
    """Queue a choice of ``min_n``..``max_n`` cards from ``source`` (``hand``, ``deck`` or ``crypt:TYPE``;
    ``trim`` is the end-of-turn discard down to 8). A finished game asks nothing: ``end`` clears the queue, and
    an effect still resolving after the deciding blow (Spectre's DiscardOnDamage on the player it kills) must
    not leave a choice behind (its options would never be read)."""
    if m.winner >= 0:
        return
    m.choices.append(Choice(player, kind, source, min_n, max_n))
    activate(m)


def activate(m: Match) -> None:
    """Fill in the options of the choice at the front of the queue; one with nothing to pick is dropped and
    one whose every option is forced resolves at once (then the next is looked at)."""
    while m.choices and m.choices[0].options is None and m.winner < 0:
        c = m.choices[0]
        side = m.sides[c.player]
        if c.source in ("hand", "trim"):
            c.options, c.slots = [h[0] for h in side.hand], list(range(len(side.hand)))
            if c.source == "trim":
                c.min_n = c.max_n = max(len(side.hand) - SOFT_HAND_LIMIT, 0)
        elif c.source == "deck":
            c.options = sorted(set(side.deck))
        else:
            wanted = c.source.split(":")[1]
            c.options = [x for x in side.crypt if m.card(x).card_type == wanted]
        c.picked = []
        c.max_n = min(c.max_n, len(c.options))
        c.min_n = min(c.min_n, c.max_n)
        if c.max_n == 0:
            m.choices.pop(0)
        elif c.min_n == len(c.options):
            m.choices.pop(0)
            CHOICES[c.kind](m, c.player, list(range(len(c.options))), c.options, c.slots)


# ---- damage, death, auras -------------------------------------------------------------------------------------
def deal_damage(m: Match, src: Perm | None, target: Perm | int, amount: int, owner: int | None = None,
                direct: bool = False) -> int:
    """``src`` (a unit, or None for a spell or enchantment of ``owner``) deals ``amount`` to a unit or a player;
    returns the damage dealt. The target's shields act first (a unit's Shielded; a player's Supreme Aegis, Force
    Field and Abyssal Shield); if damage remains, the source's on-damage abilities follow (Lifesteal, Lethal,
    Venomous, Spy Power, Summon / Discard on damage, Gorgon's transformation). ``direct`` damage (Damage on
    Block, fatigue) has no on-damage abilities."""
    if m.winner >= 0 or (amount <= 0 and (src is None or not isinstance(target, int))):
        return 0
    attempted = amount
    if isinstance(target, int):
        amount = _player_shields(m, target, max(amount, 0), src)  # Abyssal Shield acts on 0 damage too
        if amount <= 0:
            return 0
        m.damage_player(target, amount)
        if src is not None and not direct:
            if "Lifesteal" in src.kw:
                m.heal_player(src.owner, attempted)
            if "SpyPower" in src.kw:
                draw(m, src.owner)
            if "DiscardOnDamage" in src.kw:
                ask(m, target, "discard", "hand", 1, 1)
            for mech in src.mechs:
                if mech.id == "SummonUnitOnDamage":
                    summon(m, src.owner, str(mech.param("unit")))
        return amount
    if target.st.get("shield"):
        target.st["shield"] = 0
        return 0
    target.hurt += amount
    if src is not None and not direct:
        if "Lifesteal" in src.kw:
            m.heal_player(src.owner, attempted)
        if "Lethal" in src.kw:
            target.st["dead"] = 1
        if "Venomous" in src.kw:
            poison(target)
        if "TransformDamaged" in src.kw and target.life > 0 and not target.st.get("dead"):
            for mech in src.mechs:
                if mech.id == "TransformDamaged":
                    transform(m, target, str(mech.param("transformation")))
                    break
    return amount


def _player_shields(m: Match, player: int, amount: int, src: Perm | None) -> int:
    """The player's enchantments act on damage coming to them, in board order (each sees what is left)."""
    for e in list(m.board[player]):
        if e.is_unit:
            continue
        if "PreventAllDamage" in e.kw:
            amount = 0
        if "ForceField" in e.kw and amount > 0:
            reduced = max(0, amount - e.power)
            e.power -= amount
            amount = reduced
        if "DeathCounter" in e.kw and src is not None and src.is_unit:
            src.st["dead"] = 1
            e.power -= 1
    return amount


def poison(u: Perm) -> None:
    """Poison a unit (a second dose raises the level); robotic and PoisonImmune units are immune."""
    if "PoisonImmune" in u.kw or "robotic" in u.kw:
        return
    u.st["poison"] = u.st.get("poison", 0) + 1


def transform(m: Match, u: Perm, card_id: str) -> None:
    """Gorgon: the damaged unit becomes a fresh ``card_id`` (the Statue) in its slot, with only the Statue's
    abilities (the model keeps the old ones, a bug we do not copy); its items go to the crypt. It stays the same
    unit for the rules, as in the model (``unit.ts`` ``transform`` changes the unit in place): it keeps its uid,
    its readiness and its part in combat (attacking, blocking), so an attacker turned to stone part-way through
    a multi-block fights its later blockers as the Statue (``rules.resolve_combat`` follows it by uid)."""
    side = m.board[u.owner]
    if u not in side:
        return
    fresh = Perm(u.uid, m.card(card_id), u.owner)
    init_status(fresh)
    fresh.ready, fresh.exhausted, fresh.attacking, fresh.blocking = u.ready, u.exhausted, u.attacking, u.blocking
    side[side.index(u)] = fresh
    m.sides[u.owner].crypt.extend(it.id for it in u.items)
    on_leave(m, u)
    for holder in m.all_perms():  # an Imprison of the old unit ended with it (its CannotAttack / CannotBlock went)
        if holder.st.get("prisoner") == u.uid:
            del holder.st["prisoner"]
    update_auras(m)


def buff(u: Perm, d: int, l: int) -> None:
    """A permanent change of attack and (maximum and current) life."""
    u.dmg += d
    u.max_life += l


def update_auras(m: Match) -> None:
    """Recompute every unit's lordship bonus from the permanents on the board now (the model applies and undoes
    them as buffs when units come and go; the result is the same, including a damaged unit dying when a life
    bonus goes)."""
    units = m.all_units()
    for u in units:
        u.aura_d = u.aura_l = 0
    for lord in m.all_perms():
        for mech in lord.mechs:
            rule = AURAS.get(mech.id)
            if rule is None:
                continue
            a, l = int(mech.param("attack", 0)), int(mech.param("life", 0))
            utype = str(mech.param("unitType", ""))
            for u in units:
                if rule(lord, u, utype):
                    u.aura_d += a
                    u.aura_l += l


AURAS: dict[str, Callable[[Perm, Perm, str], bool]] = {
    "FriendlyLordship": lambda lord, u, t: u.owner == lord.owner and u is not lord,
    "UnitTypeLordshipInclusive": lambda lord, u, t: u.owner == lord.owner and u.unit_type == t,
    "UnitTypeLordshipExclusive": lambda lord, u, t: u.owner == lord.owner and u.unit_type == t and u is not lord,
    "UnitTypeLordshipAll": lambda lord, u, t: u.unit_type == t,
    "NotUnitTypeLordship": lambda lord, u, t: u.unit_type != t,
}


def remove_perm(m: Match, u: Perm) -> None:
    m.board[u.owner].remove(u)
    update_auras(m)


def process_deaths(m: Match) -> None:
    """Until the board is settled: units at 0 life or marked dead die, enchantments at 0 power are dispelled."""
    while m.winner < 0:
        dying = [u for u in m.all_perms() if not u.st.get("dying") and (
            (u.is_unit and (u.life <= 0 or u.st.get("dead"))) or (not u.is_unit and u.power <= 0))]
        if not dying:
            return
        for u in dying:
            if m.find(u.uid) is u and m.winner < 0:
                die(m, u)


def die(m: Match, u: Perm) -> None:
    """A unit dies (model ``die``): its Death mechanics fire while it is still on the board; it leaves, goes to its
    owner's crypt with its items (which take their stats and abilities with them), and SoulReap fires for every
    other permanent. A Deathless unit with a charge left, or an Immortal one, returns from the crypt at the end of
    the turn. An enchantment at 0 power is dispelled to the crypt."""
    side = m.sides[u.owner]
    if u.is_unit:
        u.st["dying"] = 1  # its Death mechanics run while it is still on the board
        fire_own(m, u, "Death")
        u.st.pop("dying", None)
        if m.find(u.uid) is not u:
            return
    remove_perm(m, u)
    on_leave(m, u)
    side.crypt.append(u.card.id)
    if u.items:
        for it in u.items:
            side.crypt.append(it.id)
            buff(u, -it.damage, -it.life)
        u.items = ()
        u.rebuild()
    if not u.is_unit:
        return
    u.st.pop("dead", None)
    if "Immortal" in u.kw or u.st.get("deathless", 0) > 0:
        if "Immortal" not in u.kw:
            u.st["deathless"] -= 1
            if u.st["deathless"] == 0:  # the last charge is spent: the ability is gone after this return
                u.st["lost:Deathless"] = 1
        m.returns_eot.append(u)
    soul_reap(m, u)


def soul_reap(m: Match, dead: Perm) -> None:
    for other in m.all_perms():
        if m.winner < 0:
            fire_own(m, other, "SoulReap", trigger_unit=dead)


def on_leave(m: Match, u: Perm) -> None:
    """A permanent leaving play frees Imprison's prisoner (only the abilities Imprison added)."""
    held = u.st.pop("prisoner", 0)
    prisoner = m.find(held) if held else None
    if prisoner is not None:
        granted = list(prisoner.granted)
        for lost in IMPRISONED:
            if lost in granted:
                granted.remove(lost)
        prisoner.granted = tuple(granted)
        prisoner.rebuild()


def annihilate(m: Match, u: Perm) -> None:
    """Removed from the game: no Death trigger, no crypt, no return; its items vanish with it."""
    remove_perm(m, u)
    on_leave(m, u)


def return_units(m: Match) -> None:
    """End of turn: Deathless / Immortal units still in their owner's crypt are played again, free (Play
    mechanics fire; buffs and poison stay; the unit is not ready)."""
    back, m.returns_eot = m.returns_eot, []
    for u in back:
        crypt = m.sides[u.owner].crypt
        if m.winner >= 0 or u.card.id not in crypt:
            continue
        crypt.remove(u.card.id)
        u.hurt = 0
        u.attacking, u.blocking, u.ready, u.exhausted = False, -1, False, False
        u.rebuild()
        enter(m, u, None)


# ---- turn events ------------------------------------------------------------------------------------------------
def start_of_turn(m: Match, p: int) -> None:
    """After the refresh and the draw: Dawn (the owner's), Cycle (every turn), then ``p``'s Discharge, poison
    (-level/-level) and sleep (exhausted again, one turn less)."""
    for u in list(m.all_perms()):
        if m.find(u.uid) is not u:
            continue
        if u.owner == p:
            fire_own(m, u, "Dawn")
        fire_own(m, u, "Cycle")
    for u in list(m.board[p]):
        for mech in u.mechs:
            if mech.id == "Discharge":
                u.power -= int(mech.param("amountPerTurn", 1))
        level = u.st.get("poison", 0)
        if level and u.is_unit:
            buff(u, -level, -level)
        if u.st.get("sleep", 0) > 0:
            u.exhausted = True
            u.st["sleep"] -= 1
    process_deaths(m)


def end_of_turn(m: Match, p: int) -> None:
    """Dusk and Serenity (the owner's; Serenity only if no attack was declared), Relentless refreshes (every
    unit, every turn), then the returns of Deathless / Immortal units."""
    for u in list(m.board[p]):
        if m.find(u.uid) is not u:
            continue
        fire_own(m, u, "Dusk")
        if not m.attacked:
            fire_own(m, u, "Serenity")
    for u in m.all_units():
        if "Relentless" in u.kw:
            refresh(u)
    process_deaths(m)
    return_units(m)


def on_draw(m: Match, player: int, slot: int) -> None:
    """OwnerDrawsUnit (Research AI): a unit card joining its owner's hand gets the buff there."""
    cid, d, l = m.sides[player].hand[slot]
    if m.card(cid).card_type != "unit":
        return
    for e in m.board[player]:
        for mech in e.mechs:
            if mech.trigger == "OwnerDrawsUnit" and mech.id == "BuffTarget":
                d += int(mech.param("damage", 0))
                l += int(mech.param("life", 0))
    m.sides[player].hand[slot] = (cid, d, l)


IMPRISONED = (Mechanic("CannotAttack"), Mechanic("CannotBlock"))


# ---- the mechanics ----------------------------------------------------------------------------------------------
# Each is ``effect(m, ctx, targets, mech)``; the semantics are the model's (README "Mechanics").
def _units(m: Match, targets: list) -> list[Perm]:
    """The targets that are units still on the board (earlier targets' deaths may have removed some)."""
    return [t for t in targets if not isinstance(t, int) and t.is_unit and m.find(t.uid) is t]


def _source(ctx: Ctx) -> Perm | None:
    """The damage source of a mechanic: the unit it belongs to (an item's host), None for spells and
    enchantments."""
    return ctx.source if ctx.source is not None and ctx.source.is_unit else None


def _deal(m, ctx, targets, mech):
    amount = int(mech.param("amount", 1))
    for t in targets:
        if isinstance(t, int) or (t.is_unit and m.find(t.uid) is t):
            deal_damage(m, _source(ctx), t, amount, owner=ctx.owner)
            process_deaths(m)


def _deal_resource(m, ctx, targets, mech):
    r = RESOURCES.index(str(mech.param("resource", "Synthesis")).lower())
    for t in _units(m, targets):
        deal_damage(m, None, t, m.sides[ctx.owner].res[r], owner=ctx.owner)
    process_deaths(m)


def _bite(m, ctx, targets, mech):
    amount = max([u.attack for u in m.units(ctx.owner)] + [0])
    for t in _units(m, targets):
        deal_damage(m, None, t, amount, owner=ctx.owner)
    process_deaths(m)


def _damage_spawn_on_kill(m, ctx, targets, mech):
    for t in _units(m, targets):
        deal_damage(m, None, t, int(mech.param("amount", 2)), owner=ctx.owner, direct=True)
        process_deaths(m)
        if m.find(t.uid) is not t:
            summon(m, ctx.owner, str(mech.param("unit")))


def _buff(m, ctx, targets, mech):
    for t in _units(m, targets):
        buff(t, int(mech.param("damage", 0)), int(mech.param("life", 0)))
    process_deaths(m)


def _grant(m, ctx, targets, mech):
    ability = str(mech.param("ability"))
    for t in _units(m, targets):
        if ability == "Shielded":
            t.st["shield"] = 1  # granted again: the shield is re-armed
        if ability in t.kw:
            continue
        if t.st.pop(f"lost:{ability}", None) is None:  # a lost native ability comes back; else it is added
            t.granted = t.granted + (Mechanic(ability),)
        t.rebuild()
        if ability == "Deathless":
            t.st["deathless"] = max(t.st.get("deathless", 0), 1)
    update_auras(m)
    process_deaths(m)


def _kill(m, ctx, targets, mech):
    for t in _units(m, targets):
        t.st["dead"] = 1
    process_deaths(m)


def _annihilate(m, ctx, targets, mech):
    for t in targets:
        if not isinstance(t, int) and m.find(t.uid) is t:
            annihilate(m, t)
    process_deaths(m)


def _draw(m, ctx, targets, mech):
    draw(m, ctx.owner, int(mech.param("count", 1)))


def _peek(m, ctx, targets, mech):
    side = m.sides[1 - ctx.owner]
    side.known[:] = [True] * len(side.hand)


def _discard(m, ctx, targets, mech):
    discard(m, 1 - ctx.owner, int(mech.param("count", 1)))


def discard(m: Match, player: int, count: int) -> None:
    """``player`` discards ``count`` cards of their choice (all of them when they hold no more)."""
    ask(m, player, "discard", "hand", count, count)


def _augur(m, ctx, targets, mech):
    synth = m.sides[ctx.owner].res[0]
    if synth < 4:
        ask(m, ctx.owner, "replace", "hand", 0, 1)
    elif synth < 8:
        draw(m, ctx.owner)
    else:
        ask(m, ctx.owner, "search", "deck", 0, 1)


def _gain_life(m, ctx, targets, mech):
    m.heal_player(ctx.owner, int(mech.param("amount", 1)))


def _gain_resource(m, ctx, targets, mech):
    res = dict(mech.param("resource", ()))
    side = m.sides[ctx.owner]
    gained = int(res.get("energy", 0))
    side.energy += gained
    side.max_energy += gained
    for i, r in enumerate(RESOURCES):
        side.res[i] += int(res.get(r, 0))


def _refresh(m, ctx, targets, mech):
    for t in _units(m, targets):
        refresh(t)


def _cure(m, ctx, targets, mech):
    for t in _units(m, targets):
        t.st.pop("poison", None)


def _poison(m, ctx, targets, mech):
    for t in _units(m, targets):
        poison(t)


def _sleep(m, ctx, targets, mech):
    for t in _units(m, targets):
        if "robotic" in t.kw:
            continue
        t.exhausted = True
        t.st["sleep"] = t.st["sleep"] + 1 if t.st.get("sleep") else int(mech.param("turns", 1))


def _summon(m, ctx, targets, mech):
    summon(m, ctx.owner, str(mech.param("unit")), int(mech.param("count", 1)))


def _enchantment_summon(m, ctx, targets, mech):
    """Assembly Line: a unit whose stats are then set to the enchantment's power (lordships still apply)."""
    power = ctx.source.power if ctx.source is not None else 1
    for _ in range(int(mech.param("count", 1))):
        u = new_perm(m, m.card(str(mech.param("unit"))), ctx.owner)
        enter(m, u, None)
        if m.find(u.uid) is u:  # set after it entered, as the model's setStats (entry buffs are overwritten)
            u.dmg = u.max_life = power
            process_deaths(m)


def _summon_for_grave(m, ctx, targets, mech):
    units = sum(1 for side in m.sides for c in side.crypt if m.card(c).card_type == "unit")
    summon(m, ctx.owner, str(mech.param("unit")), units // int(mech.param("factor", 2)))


def _drain_power(m, ctx, targets, mech):
    amount = int(mech.param("amount", 1))
    drained = 0
    for e in targets:
        if not isinstance(e, int) and not e.is_unit:
            drained += max(0, e.power) - max(0, e.power - amount)
            e.power -= amount
    if ctx.source is not None and ctx.source.is_unit:
        buff(ctx.source, drained, drained)
    process_deaths(m)


def _draw_from_unit(m, ctx, targets, mech):
    for t in _units(m, targets):
        draw(m, ctx.owner, (t.attack + t.full_life) // int(mech.param("factor", 3)))


def _web(m, ctx, targets, mech):
    for t in _units(m, targets):
        t.exhausted = True
        if "Flying" in t.kw:
            t.st["lost:Flying"] = 1
            t.rebuild()


def _abomination(m, ctx, targets, mech):
    if ctx.source is not None:
        ask(m, ctx.owner, f"consume:{ctx.source.uid}", "crypt:unit", 0, 2)


def _return_from_crypt(m, ctx, targets, mech):
    ask(m, ctx.owner, "unbury", f"crypt:{str(mech.param('card_type', 'Unit')).lower()}", 0, 1)


def _imprison(m, ctx, targets, mech):
    for t in _units(m, targets):
        t.granted = t.granted + IMPRISONED
        t.rebuild()
        if ctx.source is not None:
            ctx.source.st["prisoner"] = t.uid


def _shuffle_into_deck(m, ctx, targets, mech):
    """Armistice: every target leaves play (no death) to the bottom of its owner's deck, seen by both players;
    its items vanish."""
    for t in _units(m, targets):
        remove_perm(m, t)
        on_leave(m, t)
        m.to_bottom(t.owner, t.card.id, PUBLIC)
    process_deaths(m)


def _mind_control(m, ctx, targets, mech):
    """Call of Justice: the target changes sides without its Play mechanics; on a full board it dies into its new
    owner's crypt. It is not ready; its items stay attached."""
    for t in _units(m, targets):
        remove_perm(m, t)
        on_leave(m, t)
        t.owner = ctx.owner
        t.attacking, t.blocking, t.ready, t.exhausted = False, -1, False, False
        enter(m, t, None, play_effects=False)
    process_deaths(m)


def _win_if_high_life(m, ctx, targets, mech):
    if m.sides[ctx.owner].life >= int(mech.param("threshold", 60)):
        m.end(ctx.owner)


EFFECTS: dict[str, Callable[..., None]] = {
    "DealDamage": _deal, "DealResourceDamage": _deal_resource, "BiteDamage": _bite,
    "DamageSpawnOnKill": _damage_spawn_on_kill, "BuffTarget": _buff, "GrantAbility": _grant, "KillTarget": _kill,
    "Annihilate": _annihilate, "DrawCard": _draw, "Peek": _peek, "Discard": _discard, "AugarCard": _augur,
    "GainLife": _gain_life, "GainResource": _gain_resource, "RefreshTarget": _refresh, "CurePoison": _cure,
    "PoisonTarget": _poison, "SleepTarget": _sleep, "SummonUnits": _summon, "EnchantmentSummon": _enchantment_summon,
    "SummonUnitForGrave": _summon_for_grave, "DrainPowerIntoStats": _drain_power,
    "DrawCardsFromUnit": _draw_from_unit, "WebTarget": _web, "AbominationConsume": _abomination,
    "ReturnFromCrypt": _return_from_crypt, "ImprisonTemporarily": _imprison, "ShuffleIntoDeck": _shuffle_into_deck,
    "MindControl": _mind_control, "WinIfHighLife": _win_if_high_life,
}


# ---- choices: what happens to the picked options ---------------------------------------------------------------
def _choose_replace(m: Match, player: int, picked: list[int], options: list[str], slots: list[int] | None) -> None:
    """Each picked hand card goes to the bottom of the deck (its owner knows it is there), then as many are
    drawn."""
    for slot in sorted((slots[i] for i in picked), reverse=True):
        m.to_bottom(player, m.remove_from_hand(player, slot)[0], OWNER_KNOWS)
    draw(m, player, len(picked))


def _choose_discard(m, player, picked, options, slots):
    for slot in sorted((slots[i] for i in picked), reverse=True):
        m.sides[player].crypt.append(m.remove_from_hand(player, slot)[0])


def _choose_search(m, player, picked, options, slots):
    side = m.sides[player]
    for i in picked:
        if options[i] in side.deck:
            k = side.deck.index(options[i])
            side.deck.pop(k)
            side.deck_vis.pop(k)
            add_to_hand(m, player, options[i], known=False)


def _choose_unbury(m, player, picked, options, slots):
    crypt = m.sides[player].crypt
    for i in picked:
        if options[i] in crypt:
            crypt.remove(options[i])
            add_to_hand(m, player, options[i], known=True)


def _choose_consume(uid: int) -> Callable[..., None]:
    def consume(m, player, picked, options, slots):
        u = m.find(uid)
        crypt = m.sides[player].crypt
        for i in picked:
            if options[i] in crypt:
                crypt.remove(options[i])
                if u is not None:
                    c = m.card(options[i])
                    buff(u, c.damage, c.life)
    return consume


class _Choices(dict):
    """``kind`` -> resolver; the ``consume:UID`` kinds (Abomination) are built on demand."""

    def __missing__(self, kind: str) -> Callable[..., None]:
        if kind.startswith("consume:"):
            return _choose_consume(int(kind.split(":")[1]))
        raise KeyError(kind)


CHOICES: dict[str, Callable[..., None]] = _Choices(replace=_choose_replace, discard=_choose_discard,
                                                   search=_choose_search, unbury=_choose_unbury)

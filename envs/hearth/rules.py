"""Hearth rules: pure state and transitions over one flat ``int32`` array, compiled with numba.

The layout (offsets, ids, flags, ops) is in ``layout``; the rules and every
decision taken where the sources are silent are in this folder's README.

Resolution model: a decision (``apply_action``) changes the state at once and
pushes what it sets in motion as *ops* on a stack inside the array
(``push``). ``settle`` then runs the stack to empty, resolves deaths (their
deathrattles are ops too), recomputes auras and checks for the end of the
game; an attack's combat damage is an op too, run after a death step (so
minions Explosive Trap kills are gone before it). An op that needs a random
choice with more than one outcome stops ``settle``: the state is then a
chance node whose outcomes ``chance_outcomes`` lists, and ``apply_outcome``
resolves it and settles again. Every card's
effect is one branch of ``play_spell``, ``battlecry``, ``deathrattle`` or a
trigger, so each card is read in one place.
"""
from __future__ import annotations

from numba import njit

from ..kernels import rand_below
from .layout import (
    ABUSIVE_SERGEANT, ADJACENCY_MINIONS, ANCIENT_WATCHER, ANIMAL_COMPANION, ANTIQUE_HEALBOT, ARCANE_GOLEM, ARCANE_INTELLECT,
    ARCHMAGE_ANTONIDAS, ARMOR_PLATING, ATTACK, BIG_GAME_HUNTER, BLOOD_FURY, BOARD_LIMIT, BOOM_BOT, CLOCKWORK_GNOME,
    COGMASTER, DAMAGED_GOLEM, DARKBOMB, DEFENDER_OF_ARGUS, DR_BOOM, EAGLEHORN_BOW, EMERGENCY_COOLANT,
    EMPEROR_THAURISSAN, END_TURN, EXPLOSIVE_TRAP, F_ATK, F_COST, F_HP, F_KEYWORDS, F_RACE, F_TARGET, F_TYPE,
    FINICKY_CLOAKFIELD, FIREBALL, FIREBLAST, FL_CHARGE, FL_DESTROYED, FL_DIVINE_SHIELD, FL_EXHAUSTED, FL_FROZEN,
    FL_SILENCED, FL_STEALTH, FL_STEALTH_TEMP, FL_TAUNT, FLAMESTRIKE, FROSTBOLT, G_NEXT_UID,
    G_PENDING_CARD, G_PENDING_KIND, LAST_RANDOM_OP, G_PENDING_POS, G_PHASE, G_PLAYER, G_SP, G_TURN, G_WINNER, GLAIVEZOOKA,
    GLOBAL_LEN, GOBLIN_BLASTMAGE, HAND_LIMIT, HARVEST_GOLEM, HAUNTED_CREEPER, HELLFIRE, HERO_JARAXXUS,
    HERO_POWER, HERO_POWER_COST, HOUND, INFERNAL, INFERNO, IRONBEAK_OWL, JARAXXUS_HEALTH, KILL_COMMAND,
    KNIFE_JUGGLER, LEEROY_JENKINS, LEOKK, LEPER_GNOME, LIFE_TAP, LOATHEB, LORD_JARAXXUS, M_ATK, M_ATK_AURA,
    M_ATK_TEMP, M_ATTACKS, M_CARD, M_FLAGS, M_HP, M_HP_AURA, M_MAXHP, M_UID, MAD_SCIENTIST, MAL_GANIS, MANA_WYRM,
    MAX_MANA, MAX_TURNS, MECHANICAL_YETI, MECHWARPER, MF, MOLTEN_GIANT, MORTAL_COIL, MOUNTAIN_GIANT, MULLIGAN,
    NUM_CARDS, OP_BOOM_BOT, OP_COMBAT, OP_COMPANION, OP_DEATHRATTLE, OP_DRAW, OP_END_MULLIGAN, OP_FIELDS,
    OP_GLAIVEZOOKA, OP_RANDOM_DAMAGE, OP_RETURN_ASIDE, OP_SPARE_PART, OP_START_TURN, OP_SYLVANAS, OP_VOIDCALLER,
    ORIGIN_DECK, ORIGIN_KNOWN, ORIGIN_SPARE_PART, P_ASIDE, P_CONSUMED, P_DECK, P_FATIGUE, P_FROZEN, P_HAND,
    P_HAND_COST, P_HAND_ORIGIN, P_HERO, P_HERO_ATTACKS, P_HP, P_MANA, P_MAX_MANA, P_MAXHP, P_MINIONS, P_NASIDE,
    P_NDECK, P_NHAND, P_NMIN, P_POWER, P_POWER_USED, P_SPELL_TAX, P_SPELL_TAX_NEXT, P_TRAP, P_WEAPON,
    P_WEAPON_ATK, P_WEAPON_DUR, PH_MAIN, PH_MULLIGAN, PH_OVER, PH_POSITION, PH_TARGET, PK_BATTLECRY, PK_MINION,
    PK_POWER, PK_SPELL, PLAY, PLAYER_LEN, POSITION, QUICK_SHOT, RACE_BEAST, RACE_DEMON, RACE_MECH,
    REVERSING_SWITCH, RUSTY_HORN, SHADOWFLAME, SIPHON_SOUL, SLIME, SLUDGE_BELCHER, SNOWCHUGGER, SOUTHSEA_DECKHAND,
    SPARE_PARTS, SPECTRAL_SPIDER, STACK, STACK_LEN, STEADY_SHOT, SYLVANAS_WINDRUNNER, TARGET,
    TGT_ATTACK7, TGT_CHARACTER, TGT_FRIENDLY_MINION, TGT_MINION, TGT_NONE, THE_COIN, TIME_REWINDER,
    TINKERTOWN_TECHNICIAN, TWILIGHT_DRAKE, TYPE_MINION, TYPE_SPELL, TYPE_WEAPON, UNLEASH_THE_HOUNDS, VOIDCALLER,
    WHELP, WHIRLING_BLADES, HUFFER, MISHA,
)

# No rule makes an array, so every one is compiled without the runtime's reference counting (numba's ``_nrt``
# option, as Lords of War's hottest kernels): counting references to s, cards and the buffers at every call of
# every helper cost a third of a random playout (5 turns from the benchmark positions: 45 -> 29 µs).
_LEAN = dict(cache=True, nogil=True, _nrt=False)
NUM_SPARE_PARTS = len(SPARE_PARTS)
FIRST_SPARE_PART = SPARE_PARTS[0]


# ---- addressing ---------------------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def pb(p):
    """Offset of player p's block."""
    return GLOBAL_LEN + p * PLAYER_LEN


@njit(cache=True, nogil=True, inline="always")
def mb(p, pos):
    """Offset of player p's minion at position pos."""
    return GLOBAL_LEN + p * PLAYER_LEN + P_MINIONS + pos * MF


@njit(**_LEAN)
def minion_attack(s, m):
    return max(s[m + M_ATK] + s[m + M_ATK_TEMP] + s[m + M_ATK_AURA], 0)


@njit(**_LEAN)
def minion_max_health(s, m):
    return s[m + M_MAXHP] + s[m + M_HP_AURA]


@njit(**_LEAN)
def alive(s, m):
    return s[m + M_HP] > 0 and (s[m + M_FLAGS] & FL_DESTROYED) == 0


@njit(**_LEAN)
def active_card(s, m, card):
    """The minion at m is ``card`` and not silenced (its text works)."""
    return s[m + M_CARD] == card and (s[m + M_FLAGS] & FL_SILENCED) == 0


@njit(**_LEAN)
def count_active(s, p, card):
    n = 0
    for i in range(s[pb(p) + P_NMIN]):
        if active_card(s, mb(p, i), card):
            n += 1
    return n


@njit(**_LEAN)
def has_race(s, cards, p, race, skip_uid):
    """Player p has a minion of ``race`` other than the one with uid ``skip_uid``."""
    for i in range(s[pb(p) + P_NMIN]):
        m = mb(p, i)
        if cards[s[m + M_CARD], F_RACE] == race and s[m + M_UID] != skip_uid:
            return True
    return False


@njit(**_LEAN)
def find_uid(s, p, uid):
    for i in range(s[pb(p) + P_NMIN]):
        if s[mb(p, i) + M_UID] == uid:
            return i
    return -1


@njit(**_LEAN)
def hero_immune(s, p):
    return count_active(s, p, MAL_GANIS) > 0


# ---- the op stack -------------------------------------------------------------------------------------
@njit(**_LEAN)
def push(s, op, p, a, b):
    sp = s[G_SP]
    if sp >= STACK_LEN:
        raise RuntimeError("hearth: op stack overflow")
    o = STACK + sp * OP_FIELDS
    s[o] = op
    s[o + 1] = p
    s[o + 2] = a
    s[o + 3] = b
    s[G_SP] = sp + 1


# ---- characters: absolute id = side * 8 + (0 hero | 1 + position) -----------------------------------
@njit(**_LEAN)
def damage(s, c, amount):
    """Deal ``amount`` to character c; returns the damage taken (0 if absorbed or immune)."""
    if amount <= 0:
        return 0
    side, k = c // 8, c % 8
    if k == 0:
        if hero_immune(s, side):
            return 0
        s[pb(side) + P_HP] -= amount
        return amount
    m = mb(side, k - 1)
    if s[m + M_FLAGS] & FL_DIVINE_SHIELD:
        s[m + M_FLAGS] &= ~FL_DIVINE_SHIELD
        return 0
    s[m + M_HP] -= amount
    return amount


@njit(**_LEAN)
def heal(s, c, amount):
    side, k = c // 8, c % 8
    if k == 0:
        b = pb(side)
        s[b + P_HP] = min(s[b + P_HP] + amount, s[b + P_MAXHP])
    else:
        m = mb(side, k - 1)
        s[m + M_HP] = min(s[m + M_HP] + amount, minion_max_health(s, m))


@njit(**_LEAN)
def freeze(s, c):
    side, k = c // 8, c % 8
    if k == 0:
        s[pb(side) + P_FROZEN] = 1
    else:
        s[mb(side, k - 1) + M_FLAGS] |= FL_FROZEN


@njit(**_LEAN)
def damage_all_enemies(s, p, amount):
    """``amount`` to player p's enemies: their hero and every minion."""
    e = 1 - p
    damage(s, e * 8, amount)
    for i in range(s[pb(e) + P_NMIN]):
        damage(s, e * 8 + 1 + i, amount)


# ---- hand and deck ------------------------------------------------------------------------------------
@njit(**_LEAN)
def add_to_hand(s, p, card, origin):
    """A card into p's hand; a full hand loses it. Returns True if it was added."""
    b = pb(p)
    n = s[b + P_NHAND]
    if n >= HAND_LIMIT:
        return False
    s[b + P_HAND + n] = card
    s[b + P_HAND_COST + n] = 0
    s[b + P_HAND_ORIGIN + n] = origin
    s[b + P_NHAND] = n + 1
    return True


@njit(**_LEAN)
def take_from_hand(s, p, slot):
    """Remove hand slot ``slot`` (the rest shift left); returns the card id."""
    b = pb(p)
    n = s[b + P_NHAND]
    card = s[b + P_HAND + slot]
    if s[b + P_HAND_ORIGIN + slot] == ORIGIN_DECK:
        s[b + P_CONSUMED] += 1
    for i in range(slot, n - 1):
        s[b + P_HAND + i] = s[b + P_HAND + i + 1]
        s[b + P_HAND_COST + i] = s[b + P_HAND_COST + i + 1]
        s[b + P_HAND_ORIGIN + i] = s[b + P_HAND_ORIGIN + i + 1]
    s[b + P_HAND + n - 1] = -1
    s[b + P_HAND_COST + n - 1] = 0
    s[b + P_HAND_ORIGIN + n - 1] = 0
    s[b + P_NHAND] = n - 1
    return card


@njit(**_LEAN)
def card_cost(s, cards, p, slot):
    """The mana card in hand slot ``slot`` costs now, every modifier applied."""
    b = pb(p)
    card = s[b + P_HAND + slot]
    c = cards[card, F_COST] + s[b + P_HAND_COST + slot]
    kind = cards[card, F_TYPE]
    if kind == TYPE_MINION and cards[card, F_RACE] == RACE_MECH:
        c -= count_active(s, p, MECHWARPER)
    elif kind == TYPE_SPELL:
        c += s[b + P_SPELL_TAX]
    if card == MOUNTAIN_GIANT:
        c -= s[b + P_NHAND] - 1
    elif card == MOLTEN_GIANT:
        c -= s[b + P_MAXHP] - s[b + P_HP]
    return max(c, 0)


@njit(**_LEAN)
def draw_card(s, p, card):
    """Card ``card`` leaves p's deck for the hand (burned if the hand is full)."""
    b = pb(p)
    s[b + P_DECK + card] -= 1
    s[b + P_NDECK] -= 1
    if not add_to_hand(s, p, card, ORIGIN_DECK):
        s[b + P_CONSUMED] += 1


# ---- minions ------------------------------------------------------------------------------------------
@njit(**_LEAN)
def summon(s, cards, p, card, pos):
    """Put a fresh ``card`` minion at ``pos`` (clamped) on p's side; returns its uid, or -1 if the board is full.

    Knife Juggler triggers are the caller's: ``after_summon``."""
    b = pb(p)
    n = s[b + P_NMIN]
    if n >= BOARD_LIMIT:
        return -1
    pos = min(max(pos, 0), n)
    for i in range(n, pos, -1):
        src, dst = mb(p, i - 1), mb(p, i)
        for f in range(MF):
            s[dst + f] = s[src + f]
    m = mb(p, pos)
    s[m + M_CARD] = card
    s[m + M_ATK] = cards[card, F_ATK]
    s[m + M_HP] = cards[card, F_HP]
    s[m + M_MAXHP] = cards[card, F_HP]
    s[m + M_ATK_TEMP] = 0
    s[m + M_ATK_AURA] = 0
    s[m + M_HP_AURA] = 0
    s[m + M_FLAGS] = cards[card, F_KEYWORDS] | FL_EXHAUSTED
    s[m + M_ATTACKS] = 0
    uid = s[G_NEXT_UID]
    s[m + M_UID] = uid
    s[G_NEXT_UID] = uid + 1
    s[b + P_NMIN] = n + 1
    return uid


@njit(**_LEAN)
def after_summon(s, p, uid):
    """"After you summon a minion": each other Knife Juggler of p throws a knife (a random op)."""
    for i in range(s[pb(p) + P_NMIN]):
        m = mb(p, i)
        if active_card(s, m, KNIFE_JUGGLER) and s[m + M_UID] != uid:
            push(s, OP_RANDOM_DAMAGE, p, 1, 0)


@njit(**_LEAN)
def summon_token(s, cards, p, card, pos):
    uid = summon(s, cards, p, card, pos)
    if uid >= 0:
        after_summon(s, p, uid)
    return uid


@njit(**_LEAN)
def remove_minion(s, p, pos):
    b = pb(p)
    n = s[b + P_NMIN]
    for i in range(pos, n - 1):
        src, dst = mb(p, i + 1), mb(p, i)
        for f in range(MF):
            s[dst + f] = s[src + f]
    last = mb(p, n - 1)
    for f in range(MF):
        s[last + f] = 0
    s[last + M_CARD] = -1
    s[b + P_NMIN] = n - 1


@njit(**_LEAN)
def silence(s, cards, m):
    """Remove every printed and granted effect of the minion at m, keeping its damage."""
    card = s[m + M_CARD]
    keep = s[m + M_FLAGS] & (FL_EXHAUSTED | FL_DESTROYED)
    s[m + M_FLAGS] = keep | FL_SILENCED
    s[m + M_ATK] = cards[card, F_ATK]
    s[m + M_ATK_TEMP] = 0
    s[m + M_MAXHP] = cards[card, F_HP]
    s[m + M_HP] = min(s[m + M_HP], minion_max_health(s, m))


@njit(**_LEAN)
def buff(s, m, attack, health):
    s[m + M_ATK] += attack
    s[m + M_MAXHP] += health
    s[m + M_HP] += health


@njit(**_LEAN)
def equip(s, cards, p, card):
    b = pb(p)
    s[b + P_WEAPON] = card
    s[b + P_WEAPON_ATK] = cards[card, F_ATK]
    s[b + P_WEAPON_DUR] = cards[card, F_HP]


@njit(**_LEAN)
def update_auras(s, cards):
    """Recompute aura Attack/Health (Cogmaster, Leokk, Mal'Ganis); a lost Health aura caps Health at the new max."""
    for p in range(2):
        n = s[pb(p) + P_NMIN]
        leokks = count_active(s, p, LEOKK)
        malganis = count_active(s, p, MAL_GANIS)
        mechs = 0
        for i in range(n):
            if cards[s[mb(p, i) + M_CARD], F_RACE] == RACE_MECH:
                mechs += 1
        for i in range(n):
            m = mb(p, i)
            card = s[m + M_CARD]
            atk = leokks - (1 if active_card(s, m, LEOKK) else 0)
            hp = 0
            if cards[card, F_RACE] == RACE_DEMON:
                others = malganis - (1 if active_card(s, m, MAL_GANIS) else 0)
                atk += 2 * others
                hp = 2 * others
            if active_card(s, m, COGMASTER) and mechs > 0:
                atk += 2
            s[m + M_ATK_AURA] = atk
            delta = hp - s[m + M_HP_AURA]
            s[m + M_HP_AURA] = hp
            if delta > 0:
                s[m + M_HP] += delta
            elif delta < 0:
                s[m + M_HP] = min(s[m + M_HP], minion_max_health(s, m))


# ---- targets ------------------------------------------------------------------------------------------
@njit(**_LEAN)
def ego_char(p, t):
    """Absolute character id of target index t (0..15) in player p's frame."""
    return p * 8 + t if t < 8 else (1 - p) * 8 + t - 8


@njit(**_LEAN)
def valid_target(s, cards, p, req, t, skip_uid):
    """Can player p aim an effect with requirement ``req`` at target index t (p's frame)?"""
    side = p if t < 8 else 1 - p
    k = t % 8
    if k == 0:
        return req == TGT_CHARACTER
    if k > s[pb(side) + P_NMIN]:
        return False
    m = mb(side, k - 1)
    if s[m + M_UID] == skip_uid or not alive(s, m):
        return False
    if side != p and s[m + M_FLAGS] & FL_STEALTH:
        return False
    if req == TGT_FRIENDLY_MINION:
        return side == p
    if req == TGT_ATTACK7:
        return minion_attack(s, m) >= 7
    return req == TGT_CHARACTER or req == TGT_MINION


@njit(**_LEAN)
def any_target(s, cards, p, req, skip_uid):
    for t in range(16):
        if valid_target(s, cards, p, req, t, skip_uid):
            return True
    return False


# ---- attacks ------------------------------------------------------------------------------------------
@njit(**_LEAN)
def summoning_sick(s, p, m):
    """p's minion at m came into play this turn and has no Charge (Southsea Deckhand's counts): it could not
    attack this turn."""
    f = s[m + M_FLAGS]
    if not f & FL_EXHAUSTED:
        return False
    return not (f & FL_CHARGE or (active_card(s, m, SOUTHSEA_DECKHAND) and s[pb(p) + P_WEAPON] >= 0))


@njit(**_LEAN)
def can_attack(s, p, a):
    """Can p's character a (0 hero, 1..7 minion a-1) attack now?"""
    b = pb(p)
    if a == 0:
        return (s[b + P_WEAPON] >= 0 and s[b + P_WEAPON_ATK] > 0 and s[b + P_FROZEN] == 0
                and s[b + P_HERO_ATTACKS] == 0)
    if a > s[b + P_NMIN]:
        return False
    m = mb(p, a - 1)
    f = s[m + M_FLAGS]
    if f & FL_FROZEN or s[m + M_ATTACKS] > 0 or minion_attack(s, m) <= 0 or not alive(s, m):
        return False
    if active_card(s, m, ANCIENT_WATCHER):
        return False
    return not summoning_sick(s, p, m)


@njit(**_LEAN)
def can_be_attacked(s, p, d):
    """Can p attack the enemy's character d (0 hero, 1..7 minion d-1)? Taunt and Stealth apply."""
    e = 1 - p
    n = s[pb(e) + P_NMIN]
    if d > n:
        return False
    taunt = False
    for i in range(n):
        f = s[mb(e, i) + M_FLAGS]
        if f & FL_TAUNT and not f & FL_STEALTH:
            taunt = True
    if d == 0:
        return not taunt
    f = s[mb(e, d - 1) + M_FLAGS]
    if f & FL_STEALTH:
        return False
    return (f & FL_TAUNT) != 0 or not taunt


@njit(**_LEAN)
def attack(s, p, a, d):
    """p's character a declares an attack on the enemy's d: Explosive Trap fires now; the combat damage is an
    op (``combat``) that ``settle`` runs after a death step."""
    e = 1 - p
    b, be = pb(p), pb(e)
    a_uid = -1
    if a > 0:
        m = mb(p, a - 1)
        s[m + M_ATTACKS] += 1
        s[m + M_FLAGS] &= ~(FL_STEALTH | FL_STEALTH_TEMP)
        a_uid = s[m + M_UID]
    else:
        s[b + P_HERO_ATTACKS] += 1
    push(s, OP_COMBAT, p, a_uid, s[mb(e, d - 1) + M_UID] if d > 0 else -1)
    if d == 0 and s[be + P_TRAP]:  # Explosive Trap: "when your hero is attacked"
        s[be + P_TRAP] = 0
        damage_all_enemies(s, e, 2)
        if s[be + P_WEAPON] == EAGLEHORN_BOW:
            s[be + P_WEAPON_DUR] += 1


@njit(**_LEAN)
def combat(s, p, a_uid, d_uid):
    """The combat damage of p's attack (uids; -1: the hero): both deal their Attack, auras as they are now.
    An attacker that died since the attack was declared (Explosive Trap) does not hit."""
    e = 1 - p
    b = pb(p)
    if a_uid < 0:
        if s[b + P_HP] <= 0:
            return
        a = 0
    else:
        a = find_uid(s, p, a_uid) + 1
        if a == 0:
            return
    d = 0 if d_uid < 0 else find_uid(s, e, d_uid) + 1
    strike = s[b + P_WEAPON_ATK] if a == 0 else minion_attack(s, mb(p, a - 1))
    back = minion_attack(s, mb(e, d - 1)) if d > 0 else 0
    attacker, defender = p * 8 + a, e * 8 + d
    dealt = damage(s, defender, strike)
    taken = damage(s, attacker, back) if d > 0 else 0
    if a > 0 and dealt > 0 and active_card(s, mb(p, a - 1), SNOWCHUGGER):
        freeze(s, defender)
    if d > 0 and taken > 0 and active_card(s, mb(e, d - 1), SNOWCHUGGER):
        freeze(s, attacker)
    if a == 0:
        s[b + P_WEAPON_DUR] -= 1
        if s[b + P_WEAPON_DUR] <= 0:
            s[b + P_WEAPON] = -1
            s[b + P_WEAPON_ATK] = 0
            s[b + P_WEAPON_DUR] = 0


# ---- card effects -------------------------------------------------------------------------------------
@njit(**_LEAN)
def cast_triggers(s, p):
    """"Whenever you cast a spell": Mana Wyrm +1 Attack, Archmage Antonidas a Fireball to hand."""
    for i in range(s[pb(p) + P_NMIN]):
        m = mb(p, i)
        if active_card(s, m, MANA_WYRM):
            s[m + M_ATK] += 1
        elif active_card(s, m, ARCHMAGE_ANTONIDAS):
            add_to_hand(s, p, FIREBALL, ORIGIN_KNOWN)


@njit(**_LEAN)
def play_spell(s, cards, p, card, t):
    """Cast spell ``card`` for player p at target index t (p's frame; -1 for none)."""
    cast_triggers(s, p)
    b = pb(p)
    c = ego_char(p, t) if t >= 0 else -1
    m = mb(c // 8, c % 8 - 1) if c >= 0 and c % 8 > 0 else -1
    if card == FROSTBOLT:
        damage(s, c, 3)
        freeze(s, c)
    elif card == FIREBALL:
        damage(s, c, 6)
    elif card == DARKBOMB:
        damage(s, c, 3)
    elif card == QUICK_SHOT:
        damage(s, c, 3)
        if s[b + P_NHAND] == 0:
            push(s, OP_DRAW, p, 0, 0)
    elif card == KILL_COMMAND:
        damage(s, c, 5 if has_race(s, cards, p, RACE_BEAST, -1) else 3)
    elif card == ARCANE_INTELLECT:
        push(s, OP_DRAW, p, 0, 0)
        push(s, OP_DRAW, p, 0, 0)
    elif card == FLAMESTRIKE:
        for i in range(s[pb(1 - p) + P_NMIN]):
            damage(s, (1 - p) * 8 + 1 + i, 4)
    elif card == HELLFIRE:
        damage(s, p * 8, 3)
        damage(s, (1 - p) * 8, 3)
        for side in range(2):
            for i in range(s[pb(side) + P_NMIN]):
                damage(s, side * 8 + 1 + i, 3)
    elif card == MORTAL_COIL:
        if damage(s, c, 1) > 0 and s[m + M_HP] <= 0:
            push(s, OP_DRAW, p, 0, 0)
    elif card == SHADOWFLAME:
        power = minion_attack(s, m)
        s[m + M_FLAGS] |= FL_DESTROYED
        for i in range(s[pb(1 - p) + P_NMIN]):
            damage(s, (1 - p) * 8 + 1 + i, power)
    elif card == SIPHON_SOUL:
        s[m + M_FLAGS] |= FL_DESTROYED
        heal(s, p * 8, 3)
    elif card == EXPLOSIVE_TRAP:
        s[b + P_TRAP] = 1
    elif card == ANIMAL_COMPANION:
        push(s, OP_COMPANION, p, 0, 0)
    elif card == UNLEASH_THE_HOUNDS:
        for _ in range(s[pb(1 - p) + P_NMIN]):
            summon_token(s, cards, p, HOUND, BOARD_LIMIT)
    elif card == THE_COIN:
        s[b + P_MANA] = min(s[b + P_MANA] + 1, MAX_MANA)
    elif card == ARMOR_PLATING:
        buff(s, m, 0, 1)
    elif card == TIME_REWINDER:
        returned = s[m + M_CARD]
        remove_minion(s, p, c % 8 - 1)
        add_to_hand(s, p, returned, ORIGIN_KNOWN)
    elif card == RUSTY_HORN:
        s[m + M_FLAGS] |= FL_TAUNT
    elif card == FINICKY_CLOAKFIELD:
        s[m + M_FLAGS] |= FL_STEALTH | FL_STEALTH_TEMP
    elif card == EMERGENCY_COOLANT:
        freeze(s, c)
    elif card == REVERSING_SWITCH:
        attack_now, health_now = minion_attack(s, m), s[m + M_HP]
        s[m + M_ATK] = health_now - s[m + M_ATK_AURA]
        s[m + M_ATK_TEMP] = 0
        s[m + M_MAXHP] = attack_now - s[m + M_HP_AURA]
        s[m + M_HP] = attack_now
    elif card == WHIRLING_BLADES:
        s[m + M_ATK] += 1


@njit(**_LEAN)
def battlecry(s, cards, p, uid, t):
    """The battlecry of p's minion ``uid`` (t: its target index in p's frame, -1 for none)."""
    pos = find_uid(s, p, uid)
    m = mb(p, pos)
    card = s[m + M_CARD]
    e = 1 - p
    if card == TINKERTOWN_TECHNICIAN:
        if has_race(s, cards, p, RACE_MECH, uid):
            buff(s, m, 1, 1)
            push(s, OP_SPARE_PART, p, 0, 0)
    elif card == GOBLIN_BLASTMAGE:
        if has_race(s, cards, p, RACE_MECH, uid):
            for _ in range(4):
                push(s, OP_RANDOM_DAMAGE, p, 1, 0)
    elif card == LOATHEB:
        s[pb(e) + P_SPELL_TAX_NEXT] += 5
    elif card == DR_BOOM:
        summon_token(s, cards, p, BOOM_BOT, pos)
        pos = find_uid(s, p, uid)
        summon_token(s, cards, p, BOOM_BOT, pos + 1)
    elif card == TWILIGHT_DRAKE:
        buff(s, m, 0, s[pb(p) + P_NHAND])
    elif card == ANTIQUE_HEALBOT:
        heal(s, p * 8, 8)
    elif card == ARCANE_GOLEM:
        be = pb(e)
        s[be + P_MAX_MANA] = min(s[be + P_MAX_MANA] + 1, MAX_MANA)
        s[be + P_MANA] = min(s[be + P_MANA] + 1, MAX_MANA)
    elif card == LEEROY_JENKINS:
        summon_token(s, cards, e, WHELP, BOARD_LIMIT)
        summon_token(s, cards, e, WHELP, BOARD_LIMIT)
    elif card in ADJACENCY_MINIONS:
        for q in (pos - 1, pos + 1):
            if 0 <= q < s[pb(p) + P_NMIN]:
                n = mb(p, q)
                s[n + M_FLAGS] |= FL_TAUNT
                if card == DEFENDER_OF_ARGUS:
                    buff(s, n, 1, 1)
    elif t >= 0:
        c = ego_char(p, t)
        target = mb(c // 8, c % 8 - 1)
        if card == ABUSIVE_SERGEANT:
            s[target + M_ATK_TEMP] += 2
        elif card == IRONBEAK_OWL:
            silence(s, cards, target)
        elif card == BIG_GAME_HUNTER:
            s[target + M_FLAGS] |= FL_DESTROYED


@njit(**_LEAN)
def deathrattle(s, cards, p, card, pos):
    """The deathrattle of p's dead ``card`` minion; tokens go to ``pos``."""
    if card == CLOCKWORK_GNOME:
        push(s, OP_SPARE_PART, p, 0, 0)
    elif card == HARVEST_GOLEM:
        summon_token(s, cards, p, DAMAGED_GOLEM, pos)
    elif card == MECHANICAL_YETI:
        push(s, OP_SPARE_PART, 1 - p, 0, 0)
        push(s, OP_SPARE_PART, p, 0, 0)
    elif card == BOOM_BOT:
        push(s, OP_BOOM_BOT, p, 0, 0)
    elif card == SLUDGE_BELCHER:
        summon_token(s, cards, p, SLIME, pos)
    elif card == SYLVANAS_WINDRUNNER:
        push(s, OP_SYLVANAS, p, 0, 0)
    elif card == VOIDCALLER:
        push(s, OP_VOIDCALLER, p, pos, 0)
    elif card == LEPER_GNOME:
        damage(s, (1 - p) * 8, 2)
    elif card == HAUNTED_CREEPER:
        summon_token(s, cards, p, SPECTRAL_SPIDER, pos)
        summon_token(s, cards, p, SPECTRAL_SPIDER, pos + 1)
    elif card == MAD_SCIENTIST:
        b = pb(p)
        if s[b + P_DECK + EXPLOSIVE_TRAP] > 0 and s[b + P_TRAP] == 0:
            s[b + P_DECK + EXPLOSIVE_TRAP] -= 1
            s[b + P_NDECK] -= 1
            s[b + P_CONSUMED] += 1
            s[b + P_TRAP] = 1


@njit(**_LEAN)
def resolve_deaths(s, cards):
    """Remove every dead minion at once; queue their deathrattles in summon order. Returns True if any died."""
    died = False
    while True:  # the dead minion summoned last is pushed first, so deathrattles run in summon order
        best_side, best_pos, best_uid = -1, -1, -1
        for side in range(2):
            for i in range(s[pb(side) + P_NMIN]):
                m = mb(side, i)
                if not alive(s, m) and s[m + M_UID] > best_uid:
                    best_side, best_pos, best_uid = side, i, s[m + M_UID]
        if best_side < 0:
            break
        died = True
        m = mb(best_side, best_pos)
        card = s[m + M_CARD]
        silenced = s[m + M_FLAGS] & FL_SILENCED
        left_uid = -1  # the nearest surviving left neighbour: the tokens go right of it
        for i in range(best_pos):
            if alive(s, mb(best_side, i)):
                left_uid = s[mb(best_side, i) + M_UID]
        remove_minion(s, best_side, best_pos)
        if not silenced:
            push(s, OP_DEATHRATTLE, best_side, card, left_uid)
    return died


# ---- random ops ---------------------------------------------------------------------------------------
@njit(**_LEAN)
def living_enemies(s, p, out):
    """Absolute ids of p's living enemy characters into ``out``; returns how many."""
    e = 1 - p
    n = 0
    if s[pb(e) + P_HP] > 0:
        out[n] = e * 8
        n += 1
    for i in range(s[pb(e) + P_NMIN]):
        if alive(s, mb(e, i)):
            out[n] = e * 8 + 1 + i
            n += 1
    return n


@njit(**_LEAN)
def outcomes(s, cards, ids, weights):
    """Outcomes of the op on top of the stack into ``ids`` with integer ``weights``; returns how many."""
    o = STACK + (s[G_SP] - 1) * OP_FIELDS
    op, p = s[o], s[o + 1]
    b = pb(p)
    n = 0
    room = s[b + P_NMIN] < BOARD_LIMIT
    if op == OP_DRAW:
        for c in range(NUM_CARDS):
            if s[b + P_DECK + c] > 0:
                ids[n] = c
                weights[n] = s[b + P_DECK + c]
                n += 1
    elif op == OP_RANDOM_DAMAGE:
        n = living_enemies(s, p, ids)
        for i in range(n):
            weights[i] = 1
    elif op == OP_BOOM_BOT:
        k = living_enemies(s, p, ids)
        for i in range(k - 1, -1, -1):
            for d in range(3, -1, -1):
                ids[i * 4 + d] = ids[i] * 4 + d
                weights[i * 4 + d] = 1
        n = 4 * k
    elif op == OP_SPARE_PART:
        for i in range(NUM_SPARE_PARTS):
            ids[i] = FIRST_SPARE_PART + i
            weights[i] = 1
        n = NUM_SPARE_PARTS
    elif op == OP_COMPANION:
        if room:
            ids[0], ids[1], ids[2] = HUFFER, LEOKK, MISHA
            weights[0] = weights[1] = weights[2] = 1
            n = 3
    elif op == OP_VOIDCALLER:
        if room:
            for i in range(s[b + P_NHAND]):
                c = s[b + P_HAND + i]
                if cards[c, F_TYPE] == TYPE_MINION and cards[c, F_RACE] == RACE_DEMON:
                    ids[n] = i
                    weights[n] = 1
                    n += 1
    elif op == OP_SYLVANAS:
        if room:
            for i in range(s[pb(1 - p) + P_NMIN]):
                if alive(s, mb(1 - p, i)):
                    ids[n] = i
                    weights[n] = 1
                    n += 1
    elif op == OP_GLAIVEZOOKA:
        for i in range(s[b + P_NMIN]):
            if alive(s, mb(p, i)):
                ids[n] = i
                weights[n] = 1
                n += 1
    return n


@njit(**_LEAN)
def resolve_random(s, cards, op, p, a, b_arg, x):
    """Resolve random op ``op`` of player p with outcome x."""
    if op == OP_DRAW:
        draw_card(s, p, x)
    elif op == OP_RANDOM_DAMAGE:
        damage(s, x, a)
    elif op == OP_BOOM_BOT:
        damage(s, x // 4, x % 4 + 1)
    elif op == OP_SPARE_PART:
        add_to_hand(s, p, x, ORIGIN_SPARE_PART)
    elif op == OP_COMPANION:
        summon_token(s, cards, p, x, BOARD_LIMIT)
    elif op == OP_VOIDCALLER:
        card = take_from_hand(s, p, x)
        summon_token(s, cards, p, card, a)
    elif op == OP_SYLVANAS:
        e = 1 - p
        src = mb(e, x)
        n = s[pb(p) + P_NMIN]
        dst = mb(p, n)
        for f in range(MF):
            s[dst + f] = s[src + f]
        s[dst + M_FLAGS] |= FL_EXHAUSTED
        s[pb(p) + P_NMIN] = n + 1
        remove_minion(s, e, x)
    elif op == OP_GLAIVEZOOKA:
        s[mb(p, x) + M_ATK] += 1


@njit(**_LEAN)
def start_turn(s, p):
    b = pb(p)
    s[G_PLAYER] = p
    s[G_PHASE] = PH_MAIN
    s[b + P_MAX_MANA] = min(s[b + P_MAX_MANA] + 1, MAX_MANA)
    s[b + P_MANA] = s[b + P_MAX_MANA]
    s[b + P_POWER_USED] = 0
    s[b + P_HERO_ATTACKS] = 0
    s[b + P_SPELL_TAX] = s[b + P_SPELL_TAX_NEXT]
    s[b + P_SPELL_TAX_NEXT] = 0
    for i in range(s[b + P_NMIN]):
        m = mb(p, i)
        s[m + M_ATTACKS] = 0
        if s[m + M_FLAGS] & FL_STEALTH_TEMP:
            s[m + M_FLAGS] &= ~(FL_STEALTH | FL_STEALTH_TEMP)
        s[m + M_FLAGS] &= ~FL_EXHAUSTED
    push(s, OP_DRAW, p, 0, 0)


@njit(**_LEAN)
def end_mulligan(s, p):
    s[G_TURN] += 1
    if p == 0:
        s[G_PLAYER] = 1
        return
    add_to_hand(s, 1, THE_COIN, ORIGIN_KNOWN)
    push(s, OP_START_TURN, 0, 0, 0)


@njit(**_LEAN)
def run_op(s, cards, op, p, a, b):
    """Resolve a deterministic op."""
    if op == OP_START_TURN:
        start_turn(s, p)
    elif op == OP_DEATHRATTLE:
        pos = 0 if b < 0 else max(find_uid(s, p, b) + 1, 0)  # right of the left neighbour (gone: left end)
        deathrattle(s, cards, p, a, pos)
    elif op == OP_COMBAT:
        combat(s, p, a, b)
    elif op == OP_RETURN_ASIDE:
        base = pb(p)
        for i in range(s[base + P_NASIDE]):
            c = s[base + P_ASIDE + i]
            s[base + P_DECK + c] += 1
            s[base + P_NDECK] += 1
            s[base + P_ASIDE + i] = -1
        s[base + P_NASIDE] = 0
    elif op == OP_END_MULLIGAN:
        end_mulligan(s, p)


@njit(**_LEAN)
def settle(s, cards, ids, weights):
    """Run pending ops and deaths until done or a chance node; then auras and the end of the game."""
    while True:
        while s[G_SP] > 0:
            o = STACK + (s[G_SP] - 1) * OP_FIELDS
            op, p, a, b = s[o], s[o + 1], s[o + 2], s[o + 3]
            if op == OP_DRAW and s[pb(p) + P_NDECK] == 0:  # fatigue
                s[G_SP] -= 1
                s[pb(p) + P_FATIGUE] += 1
                damage(s, p * 8, s[pb(p) + P_FATIGUE])
            elif op <= LAST_RANDOM_OP:
                n = outcomes(s, cards, ids, weights)
                if n > 1:
                    update_auras(s, cards)
                    return
                s[G_SP] -= 1
                if n == 1:
                    resolve_random(s, cards, op, p, a, b, ids[0])
            elif op == OP_COMBAT and resolve_deaths(s, cards):
                pass  # a death step before the combat damage: the deathrattles just queued run first
            else:
                s[G_SP] -= 1
                run_op(s, cards, op, p, a, b)
            update_auras(s, cards)
        if not resolve_deaths(s, cards):
            break
        update_auras(s, cards)
    update_auras(s, cards)
    dead0, dead1 = s[pb(0) + P_HP] <= 0, s[pb(1) + P_HP] <= 0
    if dead0 or dead1:
        s[G_WINNER] = 2 if dead0 and dead1 else (1 if dead0 else 0)
        s[G_PHASE] = PH_OVER
        s[G_SP] = 0


# ---- decisions ----------------------------------------------------------------------------------------
@njit(**_LEAN)
def playable(s, cards, p, slot):
    """Can p play hand slot ``slot`` now (mana, board room, a valid target where one is required)?"""
    b = pb(p)
    card = s[b + P_HAND + slot]
    if card_cost(s, cards, p, slot) > s[b + P_MANA]:
        return False
    kind = cards[card, F_TYPE]
    room = s[b + P_NMIN] < BOARD_LIMIT
    if kind == TYPE_MINION:  # Lord Jaraxxus too: he is a minion card, though he replaces the hero
        return room
    if kind == TYPE_WEAPON:
        return True
    req = cards[card, F_TARGET]
    if req != TGT_NONE:
        return any_target(s, cards, p, req, -1)
    if card == UNLEASH_THE_HOUNDS:
        return room and s[pb(1 - p) + P_NMIN] > 0
    if card == ANIMAL_COMPANION:
        return room
    if card == EXPLOSIVE_TRAP:
        return s[b + P_TRAP] == 0
    return True


@njit(**_LEAN)
def power_usable(s, cards, p):
    b = pb(p)
    if s[b + P_POWER_USED] or s[b + P_MANA] < HERO_POWER_COST:
        return False
    power = s[b + P_POWER]
    if power == INFERNO:
        return s[b + P_NMIN] < BOARD_LIMIT
    return True


@njit(**_LEAN)
def legal_actions(s, cards, out):
    """Legal action ids, increasing, into ``out``; returns how many (0 at terminal and chance nodes)."""
    phase = s[G_PHASE]
    if phase == PH_OVER or s[G_SP] > 0:
        return 0
    p = s[G_PLAYER]
    b = pb(p)
    n = 0
    if phase == PH_MULLIGAN:
        for mask in range(1 << s[b + P_NHAND]):
            out[n] = MULLIGAN + mask
            n += 1
    elif phase == PH_TARGET:
        skip = s[G_PENDING_POS] if s[G_PENDING_KIND] == PK_BATTLECRY else -1
        req = cards[s[G_PENDING_CARD], F_TARGET]  # of the card, battlecry or hero power waiting
        for t in range(16):
            if valid_target(s, cards, p, req, t, skip):
                out[n] = TARGET + t
                n += 1
    elif phase == PH_POSITION:
        for q in range(s[b + P_NMIN] + 1):
            out[n] = POSITION + q
            n += 1
    else:
        for slot in range(s[b + P_NHAND]):
            if playable(s, cards, p, slot):
                out[n] = PLAY + slot
                n += 1
        enemies = s[pb(1 - p) + P_NMIN]
        for a in range(s[b + P_NMIN] + 1):
            if can_attack(s, p, a):
                for d in range(enemies + 1):
                    if can_be_attacked(s, p, d):
                        out[n] = ATTACK + 8 * a + d
                        n += 1
        if power_usable(s, cards, p):
            out[n] = HERO_POWER
            n += 1
        out[n] = END_TURN
        n += 1
    return n


@njit(**_LEAN)
def place_minion(s, cards, p, card, pos):
    """Summon a played minion at ``pos``; its battlecry now, or a target decision first."""
    uid = summon(s, cards, p, card, pos)
    req = cards[card, F_TARGET]
    if req != TGT_NONE and any_target(s, cards, p, req, uid):
        s[G_PHASE] = PH_TARGET
        s[G_PENDING_CARD] = card
        s[G_PENDING_KIND] = PK_BATTLECRY
        s[G_PENDING_POS] = uid
        return
    battlecry(s, cards, p, uid, -1)
    after_summon(s, p, uid)


@njit(**_LEAN)
def play_card(s, cards, p, slot):
    b = pb(p)
    s[b + P_MANA] -= card_cost(s, cards, p, slot)
    card = take_from_hand(s, p, slot)
    kind = cards[card, F_TYPE]
    if kind == TYPE_MINION:
        if card == LORD_JARAXXUS:
            s[b + P_HERO] = HERO_JARAXXUS
            s[b + P_HP] = JARAXXUS_HEALTH
            s[b + P_MAXHP] = JARAXXUS_HEALTH
            s[b + P_POWER] = INFERNO
            s[b + P_POWER_USED] = 0
            equip(s, cards, p, BLOOD_FURY)
        elif card in ADJACENCY_MINIONS and s[b + P_NMIN] > 0:
            s[G_PHASE] = PH_POSITION
            s[G_PENDING_CARD] = card
            s[G_PENDING_KIND] = PK_MINION
        else:
            place_minion(s, cards, p, card, BOARD_LIMIT)
    elif kind == TYPE_WEAPON:
        equip(s, cards, p, card)
        if card == GLAIVEZOOKA:
            push(s, OP_GLAIVEZOOKA, p, 0, 0)
    elif cards[card, F_TARGET] != TGT_NONE:
        s[G_PHASE] = PH_TARGET
        s[G_PENDING_CARD] = card
        s[G_PENDING_KIND] = PK_SPELL
    else:
        play_spell(s, cards, p, card, -1)


@njit(**_LEAN)
def use_power(s, cards, p):
    b = pb(p)
    s[b + P_MANA] -= HERO_POWER_COST
    s[b + P_POWER_USED] = 1
    power = s[b + P_POWER]
    if power == FIREBLAST:
        s[G_PHASE] = PH_TARGET
        s[G_PENDING_CARD] = FIREBLAST
        s[G_PENDING_KIND] = PK_POWER
    elif power == LIFE_TAP:
        damage(s, p * 8, 2)
        push(s, OP_DRAW, p, 0, 0)
    elif power == STEADY_SHOT:
        damage(s, (1 - p) * 8, 2)
    elif power == INFERNO:
        summon_token(s, cards, p, INFERNAL, BOARD_LIMIT)


@njit(**_LEAN)
def end_turn(s, cards, p):
    b = pb(p)
    reduce = count_active(s, p, EMPEROR_THAURISSAN)
    for i in range(s[b + P_NHAND]):
        s[b + P_HAND_COST + i] -= reduce
    for side in range(2):
        for i in range(s[pb(side) + P_NMIN]):
            s[mb(side, i) + M_ATK_TEMP] = 0
    for i in range(s[b + P_NMIN]):  # Freeze: a character that could attack this turn and did not thaws
        m = mb(p, i)
        if s[m + M_ATTACKS] == 0 and not summoning_sick(s, p, m):
            s[m + M_FLAGS] &= ~FL_FROZEN
    if s[b + P_HERO_ATTACKS] == 0:
        s[b + P_FROZEN] = 0
    s[b + P_SPELL_TAX] = 0
    s[G_TURN] += 1
    if s[G_TURN] >= MAX_TURNS:
        s[G_WINNER] = 2
        s[G_PHASE] = PH_OVER
        return
    push(s, OP_START_TURN, 1 - p, 0, 0)


@njit(**_LEAN)
def mulligan(s, p, mask):
    b = pb(p)
    k = 0
    for slot in range(s[b + P_NHAND] - 1, -1, -1):
        if mask >> slot & 1:
            s[b + P_ASIDE + k] = s[b + P_HAND + slot]
            k += 1
            take_from_hand(s, p, slot)
            s[b + P_CONSUMED] -= 1  # set aside until the replacements are drawn, not consumed
    s[b + P_NASIDE] = k
    push(s, OP_END_MULLIGAN, p, 0, 0)
    push(s, OP_RETURN_ASIDE, p, 0, 0)
    for _ in range(k):
        push(s, OP_DRAW, p, 0, 0)


@njit(**_LEAN)
def apply_action(s, cards, a, ids, weights):
    """Apply the legal decision ``a`` of the player to move, then settle."""
    p = s[G_PLAYER]
    phase = s[G_PHASE]
    if phase == PH_MULLIGAN:
        mulligan(s, p, a - MULLIGAN)
    elif phase == PH_TARGET:
        s[G_PHASE] = PH_MAIN
        kind = s[G_PENDING_KIND]
        t = a - TARGET
        if kind == PK_BATTLECRY:
            uid = s[G_PENDING_POS]
            battlecry(s, cards, p, uid, t)
            after_summon(s, p, uid)
        elif kind == PK_POWER:
            damage(s, ego_char(p, t), 1)
        else:
            play_spell(s, cards, p, s[G_PENDING_CARD], t)
        s[G_PENDING_CARD] = -1
        s[G_PENDING_POS] = -1
    elif phase == PH_POSITION:
        s[G_PHASE] = PH_MAIN
        place_minion(s, cards, p, s[G_PENDING_CARD], a - POSITION)
        s[G_PENDING_CARD] = -1
    elif a < TARGET:
        play_card(s, cards, p, a - PLAY)
    elif a < HERO_POWER:
        k = a - ATTACK
        attack(s, p, k // 8, k % 8)
    elif a == HERO_POWER:
        use_power(s, cards, p)
    else:
        end_turn(s, cards, p)
    settle(s, cards, ids, weights)


@njit(**_LEAN)
def apply_outcome(s, cards, x, ids, weights):
    """Resolve the pending chance node with outcome x (must be one of its outcomes), then settle."""
    o = STACK + (s[G_SP] - 1) * OP_FIELDS
    op, p, a, b = s[o], s[o + 1], s[o + 2], s[o + 3]
    s[G_SP] -= 1
    resolve_random(s, cards, op, p, a, b, x)
    update_auras(s, cards)
    settle(s, cards, ids, weights)


@njit(**_LEAN)
def contains(values, n, a):
    for i in range(n):
        if values[i] == a:
            return True
    return False


@njit(**_LEAN)
def apply_checked(s, cards, a, buf, n, ids, weights):
    """Apply decision or chance outcome ``a`` if it is legal (``n``: legal ids already in ``buf``, or -1);
    returns the number of legal ids after it (left in ``buf``), or -1 with the state untouched if illegal."""
    if s[G_SP] > 0:
        if not contains(ids, outcomes(s, cards, ids, weights), a):
            return -1
        apply_outcome(s, cards, a, ids, weights)
    else:
        if not contains(buf, n if n >= 0 else legal_actions(s, cards, buf), a):
            return -1
        apply_action(s, cards, a, ids, weights)
    return legal_actions(s, cards, buf)


@njit(**_LEAN)
def sample_outcome(s, cards, u, ids, weights):
    """The chance outcome that the uniform ``u`` in [0, 1) picks, by the outcomes' probabilities."""
    n = outcomes(s, cards, ids, weights)
    total = 0
    for i in range(n):
        total += weights[i]
    r = u * total
    for i in range(n):
        r -= weights[i]
        if r < 0:
            return ids[i]
    return ids[n - 1]


# ---- heuristic pruning (001 §2.5: Silverfish's move generator) -------------------------------------
@njit(**_LEAN)
def harmful(card):
    """Damage, destroy or freeze: never aimed at one's own characters by the pruned move generator."""
    return (card == FROSTBOLT or card == FIREBALL or card == DARKBOMB or card == QUICK_SHOT
            or card == KILL_COMMAND or card == FIREBLAST or card == MORTAL_COIL or card == SIPHON_SOUL
            or card == BIG_GAME_HUNTER or card == EMERGENCY_COOLANT)


@njit(**_LEAN)
def helpful(card):
    """Buffs: never aimed at enemy minions by the pruned move generator."""
    return card == ABUSIVE_SERGEANT or card == ARMOR_PLATING or card == RUSTY_HORN or card == WHIRLING_BLADES


@njit(**_LEAN)
def sensible_target(card, t):
    """Target index t (the actor's frame: < 8 own side) suits ``card``'s effect."""
    if harmful(card):
        return t >= 8
    if helpful(card):
        return t < 8
    return True


@njit(**_LEAN)
def sensible_play(s, cards, p, slot):
    """A targeted card is worth playing only if a target suits it (e.g. no Siphon Soul with only own
    minions, no Big Game Hunter that would have to destroy one's own minion)."""
    card = s[pb(p) + P_HAND + slot]
    req = cards[card, F_TARGET]
    if req == TGT_NONE or not (harmful(card) or helpful(card)):
        return True
    kind = cards[card, F_TYPE]
    any_valid = False
    for t in range(16):
        if valid_target(s, cards, p, req, t, -1):
            any_valid = True
            if sensible_target(card, t):
                return True
    return kind == TYPE_MINION and not any_valid  # a battlecry without any target is just a minion


@njit(**_LEAN)
def sensible_actions(s, cards, legal, n, out):
    """The legal ids (``legal[:n]``) a pruned move generator keeps, into ``out``; returns how many.
    Never empty: with nothing sensible, every legal id is kept."""
    p = s[G_PLAYER]
    m = 0
    for i in range(n):
        a = legal[i]
        keep = True
        if s[G_PHASE] == PH_TARGET and a >= TARGET and a < POSITION:
            keep = sensible_target(s[G_PENDING_CARD], a - TARGET)
        elif s[G_PHASE] == PH_MAIN and a < TARGET:
            keep = sensible_play(s, cards, p, a - PLAY)
        if keep:
            out[m] = a
            m += 1
    if m == 0:
        for i in range(n):
            out[i] = legal[i]
        m = n
    return m


# ---- fast random play ---------------------------------------------------------------------------------
@njit(**_LEAN)
def sample_index(stream, weights, n):
    """An index in [0, n) drawn with the random ``stream`` (``kernels``) by the integer ``weights``."""
    total = 0
    for i in range(n):
        total += weights[i]
    r = rand_below(stream, total)
    for i in range(n):
        r -= weights[i]
        if r < 0:
            return i
    return n - 1


@njit(**_LEAN)
def random_playout(s, cards, buf, ids, weights, seed, limit_turn, no_pass, prune):
    """Random decisions and chance outcomes by their probabilities, in place, until the end or turn
    ``limit_turn``; returns the number of decisions. Decisions are uniform over the legal ids, with
    ``prune`` over the sensible ones (``sensible_actions``), and with ``no_pass`` over those other than
    END_TURN while there are any (001 Algorithm 5: a rollout ends its turn only when nothing else is
    available)."""
    decisions = 0
    while s[G_PHASE] != PH_OVER and s[G_TURN] < limit_turn:
        if s[G_SP] > 0:
            n = outcomes(s, cards, ids, weights)
            apply_outcome(s, cards, ids[sample_index(seed, weights, n)], ids, weights)
        else:
            n = legal_actions(s, cards, buf)
            if prune:
                n = sensible_actions(s, cards, buf, n, buf)
            k = n - 1 if no_pass and n > 1 and buf[n - 1] == END_TURN else n
            a = buf[rand_below(seed, k)]
            apply_action(s, cards, a, ids, weights)
            decisions += 1
    return decisions


# ---- soft keys ----------------------------------------------------------------------------------------
@njit(**_LEAN)
def action_keys(s, legal, out):
    """Soft key of every legal id: the card id for PLAY ids, NUM_CARDS + (id - TARGET) otherwise."""
    b = pb(s[G_PLAYER])
    for i in range(len(legal)):
        a = legal[i]
        out[i] = s[b + P_HAND + a - PLAY] if a < TARGET else NUM_CARDS + a - TARGET

"""Compiled Fifth Aeon, the rules that resolve at once: queries, zones, damage, auras, choices and targeters.

numba kernels over the flat state ``s`` (``flat_layout``) and the card tables ``cards`` / ``mechs``
(``flat_table``). Each is the object engine's function of the same name (``board``, ``effects``, ``targeters``,
``moves``) over a permanent named by its perm-pool index ``m`` (``-1``: none). What sets triggers off (entering
play, deaths, combat, the turn) is resolved by ``flat_machine``'s explicit stack, since compiled code may not
recurse. A target list holds pool indices, and a player ``p`` as ``-1 - p``.
"""
from __future__ import annotations

from numba import njit

from . import flat_layout as F
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT, SOFT_HAND_LIMIT
from .layout import MAX_OPTIONS

_LEAN = dict(cache=True, nogil=True, _nrt=False)


# ---- addressing and plain queries ------------------------------------------------------------------------------
@njit(**_LEAN)
def pb(p):
    """Offset of player p's block."""
    return F.GLOBAL_LEN + p * F.PLAYER_LEN


@njit(**_LEAN)
def at(m):
    """Offset of perm-pool record m."""
    return F.PERMS + m * F.PF


@njit(**_LEAN)
def board_len(s, p):
    return s[pb(p) + F.P_NBOARD]


@njit(**_LEAN)
def board_at(s, p, i):
    return s[pb(p) + F.P_BOARD + i]


@njit(**_LEAN)
def field(s, m, f):
    return s[at(m) + f]


@njit(**_LEAN)
def is_unit(s, cards, m):
    return cards[s[at(m) + F.M_CARD], F.C_TYPE] == F.UNIT


@njit(**_LEAN)
def attack(s, m):
    b = at(m)
    return max(0, s[b + F.M_DMG] + s[b + F.M_AURA_D])


@njit(**_LEAN)
def life(s, m):
    b = at(m)
    return s[b + F.M_MAX_LIFE] + s[b + F.M_AURA_L] - s[b + F.M_HURT]


@njit(**_LEAN)
def full_life(s, m):
    b = at(m)
    return s[b + F.M_MAX_LIFE] + s[b + F.M_AURA_L]


@njit(**_LEAN)
def unit_type(s, cards, m):
    return cards[s[at(m) + F.M_CARD], F.C_UNIT_TYPE]


@njit(**_LEAN)
def mechanical(s, cards, m):
    return cards[s[at(m) + F.M_CARD], F.C_MECHANICAL] == 1


@njit(**_LEAN)
def abilities(s, cards, m):
    """``Perm.kw`` as a mask: the card's, the granted and the items' static abilities, less the lost ones."""
    b = at(m)
    mask = cards[s[b + F.M_CARD], F.C_ABILITIES] | s[b + F.M_GRANTED]
    if s[b + F.M_IMPRISONED] > 0:
        mask |= (1 << F.AB_CANNOT_ATTACK) | (1 << F.AB_CANNOT_BLOCK)
    for k in range(s[b + F.M_NITEMS]):
        mask |= cards[s[b + F.M_ITEMS + k], F.C_ABILITIES]
    return mask & ~s[b + F.M_LOST]


@njit(**_LEAN)
def has(s, cards, m, ability):
    return (abilities(s, cards, m) >> ability) & 1 == 1


@njit(**_LEAN)
def st_has(s, m, flag):
    return (s[at(m) + F.M_HAS] >> flag) & 1 == 1


@njit(**_LEAN)
def st_set(s, m, flag, value):
    """``Perm.st[key] = value`` for the key of presence bit ``flag`` (slot ``M_SHIELD + flag``)."""
    b = at(m)
    s[b + F.M_SHIELD + flag] = value
    s[b + F.M_HAS] |= 1 << flag


@njit(**_LEAN)
def st_get(s, m, flag):
    return s[at(m) + F.M_SHIELD + flag]


@njit(**_LEAN)
def st_pop(s, m, flag):
    b = at(m)
    s[b + F.M_SHIELD + flag] = 0
    s[b + F.M_HAS] &= ~(1 << flag)


@njit(**_LEAN)
def find(s, u):
    """The pool index of the permanent with uid ``u`` on either board, -1 (``Match.find``)."""
    for p in range(2):
        for i in range(board_len(s, p)):
            m = board_at(s, p, i)
            if s[at(m) + F.M_UID] == u:
                return m
    return -1


@njit(**_LEAN)
def on_board(s, m):
    """``m.find(u.uid) is u``: the record is on a board (``M_USED``: no two permanents on the boards share a
    uid)."""
    return m >= 0 and s[at(m) + F.M_USED] == F.ON_BOARD


@njit(**_LEAN)
def board_index(s, p, m):
    for i in range(board_len(s, p)):
        if board_at(s, p, i) == m:
            return i
    return -1


@njit(**_LEAN)
def position(s, p, m):
    """Board position of m in p's frame: own 0..6, the opponent's 7..13 (``moves.position``)."""
    if s[at(m) + F.M_OWNER] == p:
        return board_index(s, p, m)
    return BOARD_SLOTS + board_index(s, 1 - p, m)


@njit(**_LEAN)
def at_position(s, p, pos):
    side = p if pos < BOARD_SLOTS else 1 - p
    i = pos if pos < BOARD_SLOTS else pos - BOARD_SLOTS
    return board_at(s, side, i) if i < board_len(s, side) else -1


@njit(**_LEAN)
def all_perms(s, out, start):
    """Every permanent, the turn player's first (``Match.all_perms``), written to ``out[start:]``; returns the end."""
    t = s[F.G_TURN_PLAYER]
    n = start
    for p in (t, 1 - t):
        for i in range(board_len(s, p)):
            out[n] = board_at(s, p, i)
            n += 1
    return n


@njit(**_LEAN)
def strongest_attack(s, cards, p):
    """The largest attack among p's units, 0 without any (BiteDamage's amount)."""
    best = 0
    for i in range(board_len(s, p)):
        u = board_at(s, p, i)
        if is_unit(s, cards, u):
            best = max(best, attack(s, u))
    return best


@njit(**_LEAN)
def can_attack(s, cards, m):
    b = at(m)
    return (is_unit(s, cards, m) and s[b + F.M_READY] == 1 and s[b + F.M_EXHAUSTED] == 0
            and not has(s, cards, m, F.AB_CANNOT_ATTACK))


@njit(**_LEAN)
def can_block(s, cards, blocker, attacker):
    """``Perm.can_block``: not exhausted, not CannotBlock; Flying, Aquatic and Unblockable restrict."""
    if not is_unit(s, cards, blocker) or s[at(blocker) + F.M_EXHAUSTED] == 1:
        return False
    bk = abilities(s, cards, blocker)
    if (bk >> F.AB_CANNOT_BLOCK) & 1:
        return False
    ak = abilities(s, cards, attacker)
    if (ak >> F.AB_UNBLOCKABLE) & 1:
        return False
    if (ak >> F.AB_FLYING) & 1 and not ((bk >> F.AB_FLYING) & 1 or (bk >> F.AB_RANGED) & 1):
        return False
    if (ak >> F.AB_AQUATIC) & 1 and not ((bk >> F.AB_AQUATIC) & 1 or (bk >> F.AB_FLYING) & 1):
        return False
    if (bk >> F.AB_AQUATIC) & 1 and not (ak >> F.AB_AQUATIC) & 1:
        return False
    return True


@njit(**_LEAN)
def meets(s, cards, p, card):
    """The energy and resource thresholds of ``card`` are met by p (``Match.meets``)."""
    b = pb(p)
    if s[b + F.P_ENERGY] < cards[card, F.C_ENERGY]:
        return False
    for r in range(4):
        if s[b + F.P_RES + r] < cards[card, F.C_REQ + r]:
            return False
    return True


@njit(**_LEAN)
def has_trigger(s, cards, m, trigger):
    """m's card or one of its items has a mechanic with ``trigger``."""
    b = at(m)
    mask = cards[s[b + F.M_CARD], F.C_TRIGGERS]
    for k in range(s[b + F.M_NITEMS]):
        mask |= cards[s[b + F.M_ITEMS + k], F.C_TRIGGERS]
    return (mask >> trigger) & 1 == 1


@njit(**_LEAN)
def mech_rows(s, cards, mechs, m, trigger, ability, out, start):
    """The rows of ``Perm.mechs`` (the card's, then each item's; granted abilities have none) with ``trigger``
    (and, for static ones, ``ability``; -1: any), written to ``out[start:]``; returns the end. Only static
    abilities are ever lost (Flying, Deathless), and callers of statics read ``abilities`` first."""
    b = at(m)
    n = start
    for k in range(-1, s[b + F.M_NITEMS]):
        c = s[b + F.M_CARD] if k < 0 else s[b + F.M_ITEMS + k]
        for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
            if mechs[r, F.X_TRIGGER] == trigger and (ability < 0 or mechs[r, F.X_ID] == ability):
                out[n] = r
                n += 1
    return n


# ---- the perm pool -----------------------------------------------------------------------------------------------
@njit(**_LEAN)
def alloc(s):
    for m in range(F.PERM_SLOTS):
        b = at(m)
        if s[b + F.M_USED] == 0:
            for f in range(F.PF):
                s[b + f] = 0
            s[b + F.M_USED] = F.OFF_BOARD
            return m
    s[F.G_OVERFLOW] = F.OV_PERMS
    return F.PERM_SLOTS - 1


@njit(**_LEAN)
def collect(s):
    """Free every record neither on a board nor waiting to return (once a decision has resolved, nothing else
    refers to them)."""
    for m in range(F.PERM_SLOTS):
        if s[at(m) + F.M_USED] == F.OFF_BOARD:
            s[at(m) + F.M_USED] = 0
    for k in range(s[F.G_NRETURNS]):
        s[at(s[F.G_RETURNS + k]) + F.M_USED] = F.OFF_BOARD


@njit(**_LEAN)
def init_status(s, cards, m):
    """Counters that come with abilities: a fresh shield; Deathless charges unless already counted."""
    kw = abilities(s, cards, m)
    if (kw >> F.AB_SHIELDED) & 1:
        st_set(s, m, F.ST_SHIELD, 1)
    if (kw >> F.AB_DEATHLESS) & 1 and not st_has(s, m, F.ST_DEATHLESS):
        st_set(s, m, F.ST_DEATHLESS, _first_charges(s, cards, m))


@njit(**_LEAN)
def _first_charges(s, cards, m):
    """The charges of the first Deathless in ``Perm.mechs`` order: the card's, a grant's (1), an item's."""
    b = at(m)
    c = s[b + F.M_CARD]
    if (cards[c, F.C_ABILITIES] >> F.AB_DEATHLESS) & 1:
        return cards[c, F.C_DEATHLESS_CHARGES]
    if (s[b + F.M_GRANTED] >> F.AB_DEATHLESS) & 1:
        return 1
    for k in range(s[b + F.M_NITEMS]):
        it = s[b + F.M_ITEMS + k]
        if (cards[it, F.C_ABILITIES] >> F.AB_DEATHLESS) & 1:
            return cards[it, F.C_DEATHLESS_CHARGES]
    return 1


@njit(**_LEAN)
def new_perm(s, cards, card, p, bonus_d, bonus_l):
    """A fresh permanent of ``card`` for p, off the board (``effects.new_perm``)."""
    m = alloc(s)
    b = at(m)
    s[b + F.M_UID] = s[F.G_NEXT_UID]
    s[F.G_NEXT_UID] += 1
    s[b + F.M_CARD] = card
    s[b + F.M_OWNER] = p
    s[b + F.M_DMG] = cards[card, F.C_DAMAGE] + bonus_d
    s[b + F.M_MAX_LIFE] = cards[card, F.C_LIFE] + bonus_l
    s[b + F.M_POWER] = cards[card, F.C_POWER]
    s[b + F.M_BLOCKING] = -1
    init_status(s, cards, m)
    return m


@njit(**_LEAN)
def refresh(s, m):
    """Ready, not exhausted, healed (``board.refresh``)."""
    b = at(m)
    s[b + F.M_READY] = 1
    s[b + F.M_EXHAUSTED] = 0
    s[b + F.M_HURT] = 0
    s[b + F.M_BLOCKING] = -1


@njit(**_LEAN)
def buff(s, m, d, l):
    s[at(m) + F.M_DMG] += d
    s[at(m) + F.M_MAX_LIFE] += l


# ---- zones -------------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def list_remove(s, start, count_at, i):
    """Remove entry i of the list at ``s[start:]`` whose length is ``s[count_at]``."""
    n = s[count_at]
    for k in range(i, n - 1):
        s[start + k] = s[start + k + 1]
    s[count_at] = n - 1


@njit(**_LEAN)
def board_append(s, p, m):
    b = pb(p)
    s[b + F.P_BOARD + s[b + F.P_NBOARD]] = m
    s[b + F.P_NBOARD] += 1
    s[at(m) + F.M_USED] = F.ON_BOARD


@njit(**_LEAN)
def board_remove(s, m):
    p = s[at(m) + F.M_OWNER]
    b = pb(p)
    i = board_index(s, p, m)
    if i >= 0:
        list_remove(s, b + F.P_BOARD, b + F.P_NBOARD, i)
        s[at(m) + F.M_USED] = F.OFF_BOARD


@njit(**_LEAN)
def list_append(s, start, count_at, cap, overflow, value):
    """Append ``value`` to the list at ``s[start:]`` whose length is ``s[count_at]``; returns its index, or -1 (and
    the state marked ``overflow``) when the list already holds ``cap``."""
    n = s[count_at]
    if n >= cap:
        s[F.G_OVERFLOW] = overflow
        return -1
    s[start + n] = value
    s[count_at] = n + 1
    return n


@njit(**_LEAN)
def crypt_append(s, p, card):
    list_append(s, pb(p) + F.P_CRYPT, pb(p) + F.P_NCRYPT, F.MAX_CRYPT, F.OV_CRYPT, card)


@njit(**_LEAN)
def crypt_take(s, p, card):
    """Remove the first copy of ``card`` from p's crypt; False when there is none."""
    b = pb(p)
    for i in range(s[b + F.P_NCRYPT]):
        if s[b + F.P_CRYPT + i] == card:
            list_remove(s, b + F.P_CRYPT, b + F.P_NCRYPT, i)
            return True
    return False


@njit(**_LEAN)
def to_bottom(s, p, card, vis):
    b = pb(p)
    i = list_append(s, b + F.P_DECK, b + F.P_NDECK, F.MAX_DECK, F.OV_DECK, card)
    if i >= 0:
        s[b + F.P_DECK_VIS + i] = vis


@njit(**_LEAN)
def deck_take(s, p, i):
    """Remove deck position i (its card and who knows it); returns the card."""
    b = pb(p)
    card = s[b + F.P_DECK + i]
    n = s[b + F.P_NDECK]
    for k in range(i, n - 1):
        s[b + F.P_DECK + k] = s[b + F.P_DECK + k + 1]
        s[b + F.P_DECK_VIS + k] = s[b + F.P_DECK_VIS + k + 1]
    s[b + F.P_NDECK] = n - 1
    return card


@njit(**_LEAN)
def hand_remove(s, p, slot):
    """Remove hand slot ``slot``; returns its card (its bonuses are read before by the caller)."""
    b = pb(p)
    card = s[b + F.P_HAND + slot * F.HF + F.H_CARD]
    n = s[b + F.P_NHAND]
    for k in range(slot * F.HF, (n - 1) * F.HF):
        s[b + F.P_HAND + k] = s[b + F.P_HAND + k + F.HF]
    s[b + F.P_NHAND] = n - 1
    return card


@njit(**_LEAN)
def hand_card(s, p, slot):
    return s[pb(p) + F.P_HAND + slot * F.HF + F.H_CARD]


@njit(**_LEAN)
def add_to_hand(s, cards, mechs, p, card, known):
    """A card joins the hand (``known``: the opponent knows it); at 12 cards it goes to the crypt instead. A unit
    card gets the owner's OwnerDrawsUnit buffs (Research AI)."""
    b = pb(p)
    n = s[b + F.P_NHAND]
    if n >= HARD_HAND_LIMIT:
        crypt_append(s, p, card)
        return
    h = b + F.P_HAND + n * F.HF
    s[h + F.H_CARD] = card
    s[h + F.H_ATTACK] = 0
    s[h + F.H_LIFE] = 0
    s[h + F.H_KNOWN] = 1 if known else 0
    s[b + F.P_NHAND] = n + 1
    if cards[card, F.C_TYPE] != F.UNIT:
        return
    for i in range(board_len(s, p)):
        e = board_at(s, p, i)
        for k in range(-1, s[at(e) + F.M_NITEMS]):
            c = s[at(e) + F.M_CARD] if k < 0 else s[at(e) + F.M_ITEMS + k]
            for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
                if mechs[r, F.X_TRIGGER] == F.TR_OWNER_DRAWS_UNIT and mechs[r, F.X_ID] == F.EF_BUFF:
                    s[h + F.H_ATTACK] += mechs[r, F.X_AMOUNT]
                    s[h + F.H_LIFE] += mechs[r, F.X_LIFE]


@njit(**_LEAN)
def draw(s, cards, mechs, p, count):
    """Draw from the top; an empty deck deals 1, 2, 4, ... damage (fatigue); a 13th card goes to the crypt."""
    b = pb(p)
    for _ in range(count):
        if s[b + F.P_NDECK] == 0:
            s[b + F.P_FATIGUE] += 1
            if s[F.G_WINNER] < 0:
                hurt_player(s, cards, p, 1 << (s[b + F.P_FATIGUE] - 1), -1)
            continue
        vis = s[b + F.P_DECK_VIS]
        card = deck_take(s, p, 0)
        add_to_hand(s, cards, mechs, p, card, vis == F.PUBLIC)


# ---- the end of the game ---------------------------------------------------------------------------------------------
@njit(**_LEAN)
def end(s, winner):
    """``Match.end``: the winner (2: a draw); the pending decisions are gone."""
    if s[F.G_WINNER] < 0:
        s[F.G_WINNER] = winner
        s[F.G_PHASE] = F.OVER
        s[F.G_NCHOICES] = 0
        s[F.G_NOPTIONS] = -1
        s[F.G_NPICKED] = 0
        s[F.G_SLOTTED] = 0
        s[F.G_PEND] = 0


@njit(**_LEAN)
def check_players(s):
    if s[F.G_WINNER] >= 0:
        return
    dead0 = s[pb(0) + F.P_LIFE] <= 0
    dead1 = s[pb(1) + F.P_LIFE] <= 0
    if dead0 and dead1:
        end(s, 2)
    elif dead0:
        end(s, 1)
    elif dead1:
        end(s, 0)


# ---- damage, poison, auras ---------------------------------------------------------------------------------------
@njit(**_LEAN)
def _player_shields(s, cards, p, amount, src):
    """The player's enchantments act on damage coming to them, in board order (each sees what is left)."""
    for i in range(board_len(s, p)):
        e = board_at(s, p, i)
        if is_unit(s, cards, e):
            continue
        kw = abilities(s, cards, e)
        if (kw >> F.AB_PREVENT_ALL_DAMAGE) & 1:
            amount = 0
        if (kw >> F.AB_FORCE_FIELD) & 1 and amount > 0:
            reduced = max(0, amount - s[at(e) + F.M_POWER])
            s[at(e) + F.M_POWER] -= amount
            amount = reduced
        if (kw >> F.AB_DEATH_COUNTER) & 1 and src >= 0 and is_unit(s, cards, src):
            st_set(s, src, F.ST_DEAD, 1)
            s[at(e) + F.M_POWER] -= 1
    return amount


@njit(**_LEAN)
def hurt_player(s, cards, p, amount, src):
    """Damage to player p after their shields (``amount`` >= 0); returns the damage dealt."""
    amount = _player_shields(s, cards, p, amount, src)
    if amount <= 0:
        return 0
    s[pb(p) + F.P_LIFE] -= amount
    check_players(s)
    return amount


@njit(**_LEAN)
def deal_damage(s, cards, mechs, src, target, amount, direct):
    """``effects.deal_damage`` but for the source's SummonUnitOnDamage, which ``flat_machine`` runs (a summon may
    set anything off); returns the damage dealt. ``src``: a unit's pool index or -1 (a spell, an enchantment);
    ``target``: a pool index or ``-1 - player``; ``direct`` damage has no on-damage abilities."""
    if s[F.G_WINNER] >= 0 or (amount <= 0 and (src < 0 or target >= 0)):
        return 0
    attempted = amount
    if target < 0:
        p = -1 - target
        amount = hurt_player(s, cards, p, max(amount, 0), src)
        if amount > 0 and src >= 0 and not direct:
            kw = abilities(s, cards, src)
            if (kw >> F.AB_LIFESTEAL) & 1:
                s[pb(s[at(src) + F.M_OWNER]) + F.P_LIFE] += attempted
            if (kw >> F.AB_SPY_POWER) & 1:
                draw(s, cards, mechs, s[at(src) + F.M_OWNER], 1)
            if (kw >> F.AB_DISCARD_ON_DAMAGE) & 1:
                ask(s, cards, mechs, p, F.CK_DISCARD, F.CS_HAND, 1, 1, 0)
        return amount
    if st_get(s, target, F.ST_SHIELD) != 0:
        st_set(s, target, F.ST_SHIELD, 0)
        return 0
    s[at(target) + F.M_HURT] += amount
    if src >= 0 and not direct:
        kw = abilities(s, cards, src)
        if (kw >> F.AB_LIFESTEAL) & 1:
            s[pb(s[at(src) + F.M_OWNER]) + F.P_LIFE] += attempted
        if (kw >> F.AB_LETHAL) & 1:
            st_set(s, target, F.ST_DEAD, 1)
        if (kw >> F.AB_VENOMOUS) & 1:
            poison(s, cards, target)
        if (kw >> F.AB_TRANSFORM_DAMAGED) & 1 and life(s, target) > 0 and st_get(s, target, F.ST_DEAD) == 0:
            into = _transformation(s, cards, mechs, src)
            if into >= 0:
                transform(s, cards, mechs, target, into)
    return amount


@njit(**_LEAN)
def _transformation(s, cards, mechs, m):
    """The card the first TransformDamaged of m's mechanics names (-1: only a granted one, which names none)."""
    b = at(m)
    for k in range(-1, s[b + F.M_NITEMS]):
        c = s[b + F.M_CARD] if k < 0 else s[b + F.M_ITEMS + k]
        for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
            if mechs[r, F.X_TRIGGER] == F.STATIC_TRIGGER and mechs[r, F.X_ID] == F.AB_TRANSFORM_DAMAGED:
                return mechs[r, F.X_CARD]
    return -1


@njit(**_LEAN)
def transform(s, cards, mechs, m, card):
    """Gorgon: the damaged unit becomes a fresh ``card`` unit (the Statue) in its slot, with only its abilities,
    but the same unit for the rules (its uid, readiness and part in combat); its items go to the crypt and an
    Imprison of it ends (``effects.transform``)."""
    p = s[at(m) + F.M_OWNER]
    i = board_index(s, p, m)
    if i < 0:
        return
    fresh = alloc(s)
    b, old = at(fresh), at(m)
    s[b + F.M_UID] = s[old + F.M_UID]
    s[b + F.M_CARD] = card
    s[b + F.M_OWNER] = p
    s[b + F.M_DMG] = cards[card, F.C_DAMAGE]
    s[b + F.M_MAX_LIFE] = cards[card, F.C_LIFE]
    s[b + F.M_POWER] = cards[card, F.C_POWER]
    init_status(s, cards, fresh)
    for f in (F.M_READY, F.M_EXHAUSTED, F.M_ATTACKING, F.M_BLOCKING):
        s[b + f] = s[old + f]
    s[pb(p) + F.P_BOARD + i] = fresh
    s[b + F.M_USED] = F.ON_BOARD
    s[old + F.M_USED] = F.OFF_BOARD
    for k in range(s[old + F.M_NITEMS]):
        crypt_append(s, p, s[old + F.M_ITEMS + k])
    on_leave(s, m)
    for q in range(2):
        for k in range(board_len(s, q)):
            holder = board_at(s, q, k)
            if st_has(s, holder, F.ST_PRISONER) and st_get(s, holder, F.ST_PRISONER) == s[b + F.M_UID]:
                st_pop(s, holder, F.ST_PRISONER)
    update_auras(s, cards, mechs)


@njit(**_LEAN)
def on_leave(s, m):
    """A permanent leaving play frees Imprison's prisoner (only the CannotAttack and CannotBlock it added)."""
    held = st_get(s, m, F.ST_PRISONER)
    st_pop(s, m, F.ST_PRISONER)
    if held == 0:
        return
    prisoner = find(s, held)
    if prisoner < 0:
        return
    b = at(prisoner)
    if s[b + F.M_IMPRISONED] > 0:
        s[b + F.M_IMPRISONED] -= 1
    else:
        s[b + F.M_GRANTED] &= ~((1 << F.AB_CANNOT_ATTACK) | (1 << F.AB_CANNOT_BLOCK))


@njit(**_LEAN)
def remove_perm(s, cards, mechs, m):
    board_remove(s, m)
    update_auras(s, cards, mechs)


@njit(**_LEAN)
def poison(s, cards, m):
    """Poison a unit (a second dose raises the level); robotic and PoisonImmune units are immune."""
    kw = abilities(s, cards, m)
    if (kw >> F.AB_POISON_IMMUNE) & 1 or (kw >> F.AB_ROBOTIC) & 1:
        return
    st_set(s, m, F.ST_POISON, st_get(s, m, F.ST_POISON) + 1)


@njit(**_LEAN)
def update_auras(s, cards, mechs):
    """Recompute every unit's lordship bonus from the permanents on the board now (``effects.update_auras``)."""
    t = s[F.G_TURN_PLAYER]
    for p in range(2):
        for i in range(board_len(s, p)):
            b = at(board_at(s, p, i))
            if cards[s[b + F.M_CARD], F.C_TYPE] == F.UNIT:
                s[b + F.M_AURA_D] = 0
                s[b + F.M_AURA_L] = 0
    for lp in (t, 1 - t):
        for li in range(board_len(s, lp)):
            lord = board_at(s, lp, li)
            for k in range(-1, s[at(lord) + F.M_NITEMS]):
                c = s[at(lord) + F.M_CARD] if k < 0 else s[at(lord) + F.M_ITEMS + k]
                for r in range(cards[c, F.C_MECH_START], cards[c, F.C_MECH_START] + cards[c, F.C_MECH_COUNT]):
                    _aura(s, cards, mechs, lord, r)


@njit(**_LEAN)
def _aura(s, cards, mechs, lord, r):
    """Lordship row r of ``lord`` adds its bonus to the units it rules (``effects.AURAS``)."""
    rule = mechs[r, F.X_ID]
    if mechs[r, F.X_TRIGGER] != F.STATIC_TRIGGER or not _is_lordship(rule):
        return
    for up in range(2):
        for ui in range(board_len(s, up)):
            u = board_at(s, up, ui)
            if rules_unit(s, cards, rule, mechs[r, F.X_KIND], s[at(lord) + F.M_OWNER], lord, up, u):
                s[at(u) + F.M_AURA_D] += mechs[r, F.X_AMOUNT]
                s[at(u) + F.M_AURA_L] += mechs[r, F.X_LIFE]


@njit(**_LEAN)
def rules_unit(s, cards, rule, kind, lord_owner, lord, p, u):
    """Lordship ``rule`` (of unit type ``kind``) of ``lord`` (of ``lord_owner``) rules the permanent u of player p
    (``effects.AURAS``; a lord -1 is none: every unit counts as another)."""
    if not is_unit(s, cards, u):
        return False
    ut = unit_type(s, cards, u)
    if rule == F.AB_FRIENDLY_LORDSHIP:
        return p == lord_owner and u != lord
    if rule == F.AB_UNIT_TYPE_LORDSHIP_INCLUSIVE:
        return p == lord_owner and ut == kind
    if rule == F.AB_UNIT_TYPE_LORDSHIP_EXCLUSIVE:
        return p == lord_owner and ut == kind and u != lord
    if rule == F.AB_UNIT_TYPE_LORDSHIP_ALL:
        return ut == kind
    return ut != kind


@njit(**_LEAN)
def _is_lordship(ability):
    return (ability == F.AB_FRIENDLY_LORDSHIP or ability == F.AB_UNIT_TYPE_LORDSHIP_INCLUSIVE
            or ability == F.AB_UNIT_TYPE_LORDSHIP_EXCLUSIVE or ability == F.AB_UNIT_TYPE_LORDSHIP_ALL
            or ability == F.AB_NOT_UNIT_TYPE_LORDSHIP)


# ---- choices (``effects.ask``, ``activate``, ``CHOICES``) ------------------------------------------------------------
@njit(**_LEAN)
def ask(s, cards, mechs, p, kind, source, min_n, max_n, consumer):
    """Queue a choice of ``min_n``..``max_n`` cards from ``source`` (``CS_*``; ``consumer``: Abomination's uid); a
    finished game asks nothing."""
    if s[F.G_WINNER] >= 0:
        return
    n = s[F.G_NCHOICES]
    if n >= F.MAX_CHOICES:
        s[F.G_OVERFLOW] = F.OV_CHOICES
        return
    q = F.G_CHOICES + n * F.QF
    s[q + F.Q_PLAYER] = p
    s[q + F.Q_KIND] = kind
    s[q + F.Q_SOURCE] = source
    s[q + F.Q_MIN] = min_n
    s[q + F.Q_MAX] = max_n
    s[q + F.Q_UID] = consumer
    s[F.G_NCHOICES] = n + 1
    if n == 0:
        s[F.G_NOPTIONS] = -1
    activate(s, cards, mechs)


@njit(**_LEAN)
def pop_choice(s):
    """Drop the front choice; the next one's options are not read yet."""
    n = s[F.G_NCHOICES]
    for k in range(F.QF, n * F.QF):
        s[F.G_CHOICES + k - F.QF] = s[F.G_CHOICES + k]
    s[F.G_NCHOICES] = n - 1
    s[F.G_NOPTIONS] = -1
    s[F.G_NPICKED] = 0
    s[F.G_SLOTTED] = 0


@njit(**_LEAN)
def activate(s, cards, mechs):
    """Read the options of the front choice; one with nothing to pick is dropped and one whose every option is
    forced resolves at once (then the next is looked at)."""
    while s[F.G_NCHOICES] > 0 and s[F.G_NOPTIONS] < 0 and s[F.G_WINNER] < 0:
        p = s[F.G_CHOICES + F.Q_PLAYER]
        source = s[F.G_CHOICES + F.Q_SOURCE]
        b = pb(p)
        n = 0
        s[F.G_SLOTTED] = 0
        if source == F.CS_HAND or source == F.CS_TRIM:
            for i in range(s[b + F.P_NHAND]):
                s[F.G_OPTIONS + n] = hand_card(s, p, i)
                n += 1
            s[F.G_SLOTTED] = 1
            if source == F.CS_TRIM:
                s[F.G_CHOICES + F.Q_MIN] = s[F.G_CHOICES + F.Q_MAX] = max(s[b + F.P_NHAND] - SOFT_HAND_LIMIT, 0)
        elif source == F.CS_DECK:
            n = distinct_sorted(s, cards, b + F.P_DECK, s[b + F.P_NDECK])
        else:
            wanted = source - F.CS_CRYPT
            for i in range(s[b + F.P_NCRYPT]):
                c = s[b + F.P_CRYPT + i]
                if cards[c, F.C_TYPE] == wanted and n < MAX_OPTIONS:
                    s[F.G_OPTIONS + n] = c
                    n += 1
        s[F.G_NOPTIONS] = n
        s[F.G_NPICKED] = 0
        hi = min(s[F.G_CHOICES + F.Q_MAX], n)
        s[F.G_CHOICES + F.Q_MAX] = hi
        s[F.G_CHOICES + F.Q_MIN] = min(s[F.G_CHOICES + F.Q_MIN], hi)
        if hi == 0:
            pop_choice(s)
        elif s[F.G_CHOICES + F.Q_MIN] == n:
            for i in range(n):
                s[F.G_PICKED + i] = i
            s[F.G_NPICKED] = n
            resolve_choice(s, cards, mechs)


@njit(**_LEAN)
def distinct_sorted(s, cards, start, count):
    """``sorted(set(deck))`` (card ids sort as strings: ``C_ID_RANK``) into the options; returns n."""
    n = 0
    for i in range(count):
        c = s[start + i]
        seen = False
        for k in range(n):
            if s[F.G_OPTIONS + k] == c:
                seen = True
                break
        if seen:
            continue
        k = n
        while k > 0 and cards[s[F.G_OPTIONS + k - 1], F.C_ID_RANK] > cards[c, F.C_ID_RANK]:
            s[F.G_OPTIONS + k] = s[F.G_OPTIONS + k - 1]
            k -= 1
        s[F.G_OPTIONS + k] = c
        n += 1
    return n


@njit(**_LEAN)
def resolve_choice(s, cards, mechs):
    """The front choice is made (its picks in ``G_PICKED``): drop it, then do what its kind does with the picked
    options (``effects.CHOICES``). The options stay readable until the next choice is activated."""
    p = s[F.G_CHOICES + F.Q_PLAYER]
    kind = s[F.G_CHOICES + F.Q_KIND]
    consumer = s[F.G_CHOICES + F.Q_UID]
    npicked = s[F.G_NPICKED]
    n = s[F.G_NCHOICES]
    for k in range(F.QF, n * F.QF):
        s[F.G_CHOICES + k - F.QF] = s[F.G_CHOICES + k]
    s[F.G_NCHOICES] = n - 1
    b = pb(p)
    if kind == F.CK_REPLACE or kind == F.CK_DISCARD:
        for slot in range(s[b + F.P_NHAND] - 1, -1, -1):  # the picked slots, highest first
            if picked(s, slot):
                card = hand_remove(s, p, slot)
                if kind == F.CK_REPLACE:
                    to_bottom(s, p, card, F.OWNER_KNOWS)
                else:
                    crypt_append(s, p, card)
        if kind == F.CK_REPLACE:
            draw(s, cards, mechs, p, npicked)
    else:
        for k in range(npicked):
            card = s[F.G_OPTIONS + s[F.G_PICKED + k]]
            if kind == F.CK_SEARCH:
                for i in range(s[b + F.P_NDECK]):
                    if s[b + F.P_DECK + i] == card:
                        deck_take(s, p, i)
                        add_to_hand(s, cards, mechs, p, card, False)
                        break
            elif crypt_take(s, p, card):
                if kind == F.CK_UNBURY:
                    add_to_hand(s, cards, mechs, p, card, True)
                else:
                    u = find(s, consumer)
                    if u >= 0:
                        buff(s, u, cards[card, F.C_DAMAGE], cards[card, F.C_LIFE])
    s[F.G_NOPTIONS] = -1
    s[F.G_NPICKED] = 0
    s[F.G_SLOTTED] = 0


@njit(**_LEAN)
def picked(s, i):
    """Option i of the front choice has been picked."""
    for k in range(s[F.G_NPICKED]):
        if s[F.G_PICKED + k] == i:
            return True
    return False


# ---- targeters -----------------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _chosen_ok(s, cards, tg, ability, o, m):
    """Unit m is a candidate of chosen targeter ``tg`` for owner o (``targeters.SINGLE``)."""
    if tg == F.TG_SINGLE_UNIT or tg == F.TG_UNITS_OF_TYPE_AS_TARGET:
        return True
    if tg == F.TG_ENEMY_UNIT:
        return s[at(m) + F.M_OWNER] != o
    if tg == F.TG_FRIENDLY_UNIT:
        return s[at(m) + F.M_OWNER] == o
    if tg == F.TG_BIOLOGICAL_UNIT:
        return not mechanical(s, cards, m)
    if tg == F.TG_MECHANICAL_UNIT:
        return mechanical(s, cards, m)
    kw = abilities(s, cards, m)
    if tg == F.TG_SLEEPABLE_UNIT:
        return (kw >> F.AB_ROBOTIC) & 1 == 0
    if tg == F.TG_DAMAGED_UNIT:
        return s[at(m) + F.M_HURT] > 0
    if tg == F.TG_POISONABLE_UNIT:
        return (kw >> F.AB_POISON_IMMUNE) & 1 == 0 and (kw >> F.AB_ROBOTIC) & 1 == 0
    if tg == F.TG_UNIT_WITH_ABILITY:
        return ability >= 0 and (kw >> ability) & 1 == 1
    if tg == F.TG_RENEWAL_MIND_CONTROL:
        return (s[at(m) + F.M_OWNER] != o
                and 2 * cards[s[at(m) + F.M_CARD], F.C_ENERGY] <= s[pb(o) + F.P_RES + 3])
    if tg == F.TG_CURE_POISON:
        return s[at(m) + F.M_OWNER] == o and st_get(s, m, F.ST_POISON) > 0
    return False


@njit(**_LEAN)
def candidates(s, cards, o, tg, ability, out, start):
    """The units o may pick for chosen targeter ``tg`` (``targeters.candidates``), in the object engine's order:
    every unit, the turn player's first, or one side's in board order. Written to ``out[start:]``; returns the
    end."""
    n = start
    one_side = (tg == F.TG_ENEMY_UNIT or tg == F.TG_FRIENDLY_UNIT or tg == F.TG_RENEWAL_MIND_CONTROL
                or tg == F.TG_CURE_POISON)
    t = s[F.G_TURN_PLAYER]
    for p in (t, 1 - t):
        if one_side and (p == o) != (tg == F.TG_FRIENDLY_UNIT or tg == F.TG_CURE_POISON):
            continue
        for i in range(board_len(s, p)):
            m = board_at(s, p, i)
            if is_unit(s, cards, m) and _chosen_ok(s, cards, tg, ability, o, m):
                out[n] = m
                n += 1
    return n


@njit(**_LEAN)
def automatic(s, cards, o, source, tg, tg_life, tg_type, trigger_unit, chosen, out, start):
    """The targets of automatic targeter ``tg`` (``targeters.AUTOMATIC``): pool indices and ``-1 - player``,
    written to ``out[start:]``; returns the end. ``chosen`` is the pool index of the unit picked (UnitsOfTypeAsTarget
    reads its type even if it has gone)."""
    n = start
    if tg == F.TG_UNTARGETED:
        return n
    if tg == F.TG_SELF_TARGET:
        if source >= 0 and is_unit(s, cards, source):
            out[n] = source
            n += 1
        return n
    if tg == F.TG_TRIGGERING_UNIT:
        if trigger_unit >= 0:
            out[n] = trigger_unit
            n += 1
        return n
    if tg == F.TG_OWNING_PLAYER or tg == F.TG_ENEMY_PLAYER:
        out[n] = -1 - (o if tg == F.TG_OWNING_PLAYER else 1 - o)
        return n + 1
    if tg == F.TG_UNITS_OF_TYPE_AS_TARGET:
        if chosen < 0:
            return n
        tg_type = unit_type(s, cards, chosen)
    t = s[F.G_TURN_PLAYER]
    side_only = -1
    if tg == F.TG_FRIENDLY_UNITS or tg == F.TG_FRIENDLY_BIOLOGICAL_UNITS or tg == F.TG_FRIENDLY_UNITS_OF_TYPE:
        side_only = o
    elif tg == F.TG_ENEMY_UNITS or tg == F.TG_ENEMIES:
        side_only = 1 - o
    for p in (t, 1 - t):
        if side_only >= 0 and p != side_only:
            continue
        for i in range(board_len(s, p)):
            m = board_at(s, p, i)
            unit = is_unit(s, cards, m)
            if tg == F.TG_ALL_PERMANENTS:
                ok = True
            elif tg == F.TG_ALL_ENCHANTMENTS:
                ok = not unit
            elif not unit:
                ok = False
            elif tg == F.TG_ALL_OTHER_UNITS:
                ok = m != source
            elif tg == F.TG_FRIENDLY_BIOLOGICAL_UNITS:
                ok = not mechanical(s, cards, m)
            elif tg == F.TG_UNITS_OF_TYPE or tg == F.TG_FRIENDLY_UNITS_OF_TYPE or tg == F.TG_UNITS_OF_TYPE_AS_TARGET:
                ok = unit_type(s, cards, m) == tg_type
            elif tg == F.TG_UNITS_NOT_OF_TYPE:
                ok = unit_type(s, cards, m) != tg_type
            elif tg == F.TG_LIFE_LESS_UNITS:
                ok = life(s, m) <= tg_life
            else:  # AllUnits, FriendlyUnits, EnemyUnits, Enemies
                ok = True
            if ok:
                out[n] = m
                n += 1
    if tg == F.TG_ENEMIES:
        out[n] = -1 - (1 - o)
        n += 1
    return n


@njit(**_LEAN)
def hosts(s, cards, p, card, out, start):
    """The units of p that may host item ``card`` (``moves.hosts``), in board order; returns the end."""
    n = start
    only_vehicles = cards[card, F.C_HOST] == F.TG_FRIENDLY_VEHICLE_OR_STRUCTURE
    for i in range(board_len(s, p)):
        m = board_at(s, p, i)
        if is_unit(s, cards, m) and (not only_vehicles or cards[s[at(m) + F.M_CARD], F.C_VEHICLE_OR_STRUCTURE] == 1):
            out[n] = m
            n += 1
    return n


@njit(**_LEAN)
def playable(s, cards, p, card, scratch, start):
    """``moves.playable``: cost met, a free board slot for a permanent, a host for an item, and a target for a
    mandatory chosen targeter."""
    if not meets(s, cards, p, card):
        return False
    ctype = cards[card, F.C_TYPE]
    if (ctype == F.UNIT or ctype == F.ENCHANTMENT) and board_len(s, p) >= BOARD_SLOTS:
        return False
    if ctype == F.ITEM and hosts(s, cards, p, card, scratch, start) == start:
        return False
    tg = cards[card, F.C_TARGETER]
    if (F.TARGETER_CHOSEN[tg] and cards[card, F.C_TG_OPTIONAL] == 0
            and candidates(s, cards, p, tg, cards[card, F.C_TG_ABILITY], scratch, start) == start):
        return False
    return True

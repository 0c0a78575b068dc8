"""The flat state of compiled Fifth Aeon: one ``int64`` array, and the ids of the card table, as plain ints.

The compiled rules (``flat_rules``, ``flat_machine``, ``flat_moves``) and the conversions (``flat_convert``) agree
on everything here. The object engine (``board.Match``) is the reference; each field below names the attribute of
``Match`` / ``Side`` / ``Perm`` / ``Choice`` it holds, so a flat state and a match can be compared field by field.

**Cards** are rows of the card table (``flat_table``): a card's index in ``CardPool.cards``. **Abilities** (the
static mechanic ids a unit may have, ``cards.STATIC``, then the other names a pool grants or asks for) are bits of
an ``int64`` mask; **triggers**, **effects** (the triggered mechanic ids) and **targeters** are indices into the
tuples below.

**State** (``G_*`` from 0): the match's globals, the choice queue (only the front choice has its options, as in
``effects.activate``), the damage orders, the Deathless returns; then one block per player (``P_*`` at
``player_base(p)``): numbers, hand, deck (front = top), crypt and board (perm-pool indices in entering order);
then the perm pool (``PERM_SLOTS`` records of ``PF`` fields, ``perm_base(i)``): every permanent on a board, being
played, dying or waiting to return. A record's index is bookkeeping, never game state: permanents are named by
``M_UID`` as in the object engine.
"""
from __future__ import annotations

from .cards import AUTOMATIC_TARGETERS, CHOSEN_TARGETERS, HOST_TARGETERS, MECHANICS, STATIC, TRIGGERS
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT
from .layout import MAX_OPTIONS

# ---- ids of the card table ---------------------------------------------------------------------------------
CARD_TYPES = ("unit", "item", "spell", "enchantment")
UNIT, ITEM, SPELL, ENCHANTMENT = range(4)
ABILITY_NAMES = tuple(sorted(STATIC))  # bit i of an ability mask; a pool's extra names follow (``flat_table``)
(AB_AQUATIC, AB_CANNOT_ATTACK, AB_CANNOT_BE_EMPOWERED, AB_CANNOT_BLOCK, AB_DAMAGE_ON_BLOCK, AB_DEATH_COUNTER,
 AB_DEATHLESS, AB_DISCARD_ON_DAMAGE, AB_DISCHARGE, AB_FLYING, AB_FORCE_FIELD, AB_FRIENDLY_LORDSHIP, AB_IMMORTAL,
 AB_LETHAL, AB_LIFESTEAL, AB_NOT_UNIT_TYPE_LORDSHIP, AB_POISON_IMMUNE, AB_PREVENT_ALL_DAMAGE, AB_RANGED,
 AB_RELENTLESS, AB_RUSH, AB_SHIELDED, AB_SPY_POWER, AB_SUMMON_UNIT_ON_DAMAGE, AB_TRANSFORM_DAMAGED, AB_UNBLOCKABLE,
 AB_UNIT_TYPE_LORDSHIP_ALL, AB_UNIT_TYPE_LORDSHIP_EXCLUSIVE, AB_UNIT_TYPE_LORDSHIP_INCLUSIVE, AB_VENOMOUS,
 AB_ROBOTIC) = range(len(ABILITY_NAMES))
MAX_ABILITIES = 63  # bits of an int64 mask (a pool naming more abilities is refused by ``flat_table``)
NO_ABILITY = -1  # an ability name no unit can have (Great Whale's "aquatic")

TRIGGER_NAMES = ("Play", "Death", "SoulReap", "Dawn", "Dusk", "Cycle", "Serenity", "Affinity", "LethalStrike",
                 "FriendlyUnitEntersPlay", "FriendlyMechUnitEntersPlay", "FriendlyBioUnitEntersPlay",
                 "OwnerDrawsUnit")
(TR_PLAY, TR_DEATH, TR_SOUL_REAP, TR_DAWN, TR_DUSK, TR_CYCLE, TR_SERENITY, TR_AFFINITY, TR_LETHAL_STRIKE,
 TR_FRIENDLY_ENTERS, TR_FRIENDLY_MECH_ENTERS, TR_FRIENDLY_BIO_ENTERS, TR_OWNER_DRAWS_UNIT) = range(len(TRIGGER_NAMES))
STATIC_TRIGGER = -1  # a static ability's trigger

EFFECT_NAMES = tuple(sorted(MECHANICS))
(EF_ABOMINATION, EF_ANNIHILATE, EF_AUGUR, EF_BITE, EF_BUFF, EF_CURE, EF_DAMAGE_SPAWN, EF_DEAL, EF_DEAL_RESOURCE,
 EF_DISCARD, EF_DRAIN_POWER, EF_DRAW, EF_DRAW_FROM_UNIT, EF_ENCHANTMENT_SUMMON, EF_GAIN_LIFE, EF_GAIN_RESOURCE,
 EF_GRANT, EF_IMPRISON, EF_KILL, EF_MIND_CONTROL, EF_PEEK, EF_POISON, EF_REFRESH, EF_RETURN_FROM_CRYPT,
 EF_SHUFFLE_INTO_DECK, EF_SLEEP, EF_SUMMON_FOR_GRAVE, EF_SUMMON, EF_WEB, EF_WIN_IF_HIGH_LIFE) = range(len(EFFECT_NAMES))

TARGETER_NAMES = tuple(sorted(CHOSEN_TARGETERS | AUTOMATIC_TARGETERS | HOST_TARGETERS))
(TG_ALL_ENCHANTMENTS, TG_ALL_OTHER_UNITS, TG_ALL_PERMANENTS, TG_ALL_UNITS, TG_BIOLOGICAL_UNIT, TG_CURE_POISON,
 TG_DAMAGED_UNIT, TG_ENEMIES, TG_ENEMY_PLAYER, TG_ENEMY_UNIT, TG_ENEMY_UNITS, TG_FRIENDLY_BIOLOGICAL_UNITS,
 TG_FRIENDLY_UNIT, TG_FRIENDLY_UNITS, TG_FRIENDLY_UNITS_OF_TYPE, TG_FRIENDLY_VEHICLE_OR_STRUCTURE,
 TG_LIFE_LESS_UNITS, TG_MECHANICAL_UNIT, TG_OWNING_PLAYER, TG_POISONABLE_UNIT, TG_RENEWAL_MIND_CONTROL,
 TG_SELF_TARGET, TG_SINGLE_UNIT, TG_SLEEPABLE_UNIT, TG_TRIGGERING_UNIT, TG_UNIT_WITH_ABILITY, TG_UNITS_NOT_OF_TYPE,
 TG_UNITS_OF_TYPE, TG_UNITS_OF_TYPE_AS_TARGET, TG_UNTARGETED) = range(len(TARGETER_NAMES))
TARGETER_AUTOMATIC = tuple(name in AUTOMATIC_TARGETERS for name in TARGETER_NAMES)  # targeters.AUTOMATIC
TARGETER_CHOSEN = tuple(name in CHOSEN_TARGETERS for name in TARGETER_NAMES)  # targeters.SINGLE (needs_choice)
LORDSHIPS = (AB_FRIENDLY_LORDSHIP, AB_UNIT_TYPE_LORDSHIP_INCLUSIVE, AB_UNIT_TYPE_LORDSHIP_EXCLUSIVE,
             AB_UNIT_TYPE_LORDSHIP_ALL, AB_NOT_UNIT_TYPE_LORDSHIP)  # effects.AURAS

# ---- the card table: ``cards[card, C_*]`` ------------------------------------------------------------------
(C_TYPE, C_ENERGY, C_REQ, _R1, _R2, _R3, C_DAMAGE, C_LIFE, C_UNIT_TYPE, C_MECHANICAL, C_POWER, C_EMPOWER_COST,
 C_TARGETER, C_TG_OPTIONAL, C_TG_LIFE, C_TG_UNIT_TYPE, C_TG_ABILITY, C_HOST, C_MECH_START, C_MECH_COUNT,
 C_ABILITIES, C_SHIELDED, C_DEATHLESS_CHARGES, C_RUSH, C_ID_RANK, C_VEHICLE_OR_STRUCTURE, C_TRIGGERS) = range(27)
CF = 27
# C_REQ..C_REQ+3: the thresholds of synthesis, growth, decay, renewal; C_UNIT_TYPE: 0 none, else an index into
# the pool's unit-type names (``flat_table``); C_HOST: the host targeter (-1: not an item); C_ABILITIES: the mask
# of the card's static mechanics; C_SHIELDED, C_DEATHLESS_CHARGES (0 none), C_RUSH: what ``effects.init_status``
# and ``moves.attach`` read from an item or card; C_ID_RANK: the card id's rank in sorted order (a deck search's
# options are sorted by id); C_VEHICLE_OR_STRUCTURE: a host of FriendlyVehicleOrStructure; C_TRIGGERS: bit t set
# when one of the card's mechanics has trigger t.

# ---- the mechanic table: ``mechs[row, X_*]`` (a card's rows are C_MECH_START.. in card order) ---------------
(X_ID, X_TRIGGER, X_HAS_TARGETER, X_TARGETER, X_TG_OPTIONAL, X_TG_LIFE, X_TG_UNIT_TYPE, X_TG_ABILITY, X_AMOUNT,
 X_LIFE, X_CARD, X_KIND, X_ENERGY, X_RES) = range(14)
XF = X_RES + 4
# X_ID: an ability bit (static) or an effect id (triggered); X_AMOUNT: the mechanic's one number (amount, count,
# damage, charges, amountPerTurn, turns, factor, threshold, a lordship's attack) with the object engine's
# default; X_LIFE: a buff's or lordship's life; X_CARD: the card a mechanic names (unit, transformation), -1 none;
# X_KIND: a unit type (lordships), a resource (DealResourceDamage), a card type (ReturnFromCrypt) or an ability
# bit (GrantAbility); X_ENERGY, X_RES..X_RES+3: GainResource's energy and resources.

# ---- the state ---------------------------------------------------------------------------------------------
PLAY1, BLOCK, ORDER, PLAY2, OVER = range(5)  # board.PLAY1 ...
HIDDEN, OWNER_KNOWS, PUBLIC = range(3)  # board.HIDDEN ...
MAX_CHOICES = 8  # queued choices
OVERFLOWS = ("", "the perm pool (PERM_SLOTS)", "a crypt (MAX_CRYPT)", "a deck (MAX_DECK)", "the choice queue (MAX_CHOICES)",
             "the Deathless returns (MAX_RETURNS)", "a unit's items (MAX_ITEMS)", "the rules' stack (MAX_FRAMES)")
OV_PERMS, OV_CRYPT, OV_DECK, OV_CHOICES, OV_RETURNS, OV_ITEMS, OV_STACK = range(1, 8)
MAX_ATTACKERS = BOARD_SLOTS
MAX_RETURNS = 16  # Deathless / Immortal units waiting for the end of the turn
MAX_DECK = 96
MAX_CRYPT = 160
MAX_ITEMS = 16  # items on one host (the balancer's free items pile up)
PERM_SLOTS = 48

# choice kinds (effects.CHOICES) and sources (Choice.source)
CK_REPLACE, CK_DISCARD, CK_SEARCH, CK_UNBURY, CK_CONSUME = range(5)
CS_HAND, CS_TRIM, CS_DECK, CS_CRYPT = range(4)  # CS_CRYPT + card type: crypt:unit, crypt:item, ...
# a queued choice: player, kind, source, min_n, max_n, the consuming unit's uid (CK_CONSUME)
Q_PLAYER, Q_KIND, Q_SOURCE, Q_MIN, Q_MAX, Q_UID = range(6)
QF = 6

G_TURN_PLAYER = 0
G_TURN = 1
G_PHASE = 2
G_NEXT_UID = 3
G_WINNER = 4  # -1 running, 0/1, 2 a draw
G_ATTACKED = 5
G_THEN = 6  # 1: the next turn waits for the choices (Match.then == "next_turn")
G_PEND = 7  # 1: a card is being played (Match.pend)
G_PEND_SLOT = 8
G_PEND_HOST = 9  # host uid or -1
G_PEND_STAGE = 10  # 0 host, 1 target
G_OVERFLOW = 11  # the bound of this layout that was exceeded (OVERFLOWS; the state is then invalid: flat_convert raises)
G_NCHOICES = 12
G_CHOICES = 13  # MAX_CHOICES records of QF
G_NOPTIONS = G_CHOICES + MAX_CHOICES * QF  # the front choice's options (-1: not yet read, Choice.options None)
G_OPTIONS = G_NOPTIONS + 1  # card ids
G_SLOTTED = G_OPTIONS + MAX_OPTIONS  # 1: the options are hand slots 0..n-1 (Choice.slots)
G_NPICKED = G_SLOTTED + 1
G_PICKED = G_NPICKED + 1  # option indices in the order picked
G_NQUEUE = G_PICKED + MAX_OPTIONS  # Match.order_queue
G_QUEUE = G_NQUEUE + 1
G_NORDERS = G_QUEUE + MAX_ATTACKERS  # Match.order: attacker uid, count, blocker uids
G_ORDERS = G_NORDERS + 1
OF = 2 + BOARD_SLOTS
G_NRETURNS = G_ORDERS + MAX_ATTACKERS * OF
G_RETURNS = G_NRETURNS + 1  # perm-pool indices
GLOBAL_LEN = G_RETURNS + MAX_RETURNS

P_LIFE = 0
P_ENERGY = 1
P_MAX_ENERGY = 2
P_RES = 3  # ..P_RES + 3
P_PLAYED_RESOURCE = 7
P_FATIGUE = 8
P_NHAND = 9
P_HAND = 10  # HARD_HAND_LIMIT entries of HF: card, attack bonus, life bonus, known
HF = 4
H_CARD, H_ATTACK, H_LIFE, H_KNOWN = range(HF)
P_NDECK = P_HAND + HARD_HAND_LIMIT * HF
P_DECK = P_NDECK + 1
P_DECK_VIS = P_DECK + MAX_DECK
P_NCRYPT = P_DECK_VIS + MAX_DECK
P_CRYPT = P_NCRYPT + 1
P_NBOARD = P_CRYPT + MAX_CRYPT
P_BOARD = P_NBOARD + 1
PLAYER_LEN = P_BOARD + BOARD_SLOTS

M_USED = 0  # the record holds a permanent: OFF_BOARD (being played, dying, gone, to return) or ON_BOARD; 0: free
OFF_BOARD, ON_BOARD = 1, 2
M_UID = 1
M_CARD = 2
M_OWNER = 3
M_DMG = 4
M_MAX_LIFE = 5
M_AURA_D = 6
M_AURA_L = 7
M_HURT = 8
M_POWER = 9
M_READY = 10
M_EXHAUSTED = 11
M_ATTACKING = 12
M_BLOCKING = 13  # the attacker's uid, -1
M_GRANTED = 14  # abilities given by GrantAbility (a mask)
M_IMPRISONED = 15  # Imprison grants outstanding (each: CannotAttack and CannotBlock)
M_LOST = 16  # abilities lost (Webspit's Flying, a spent Deathless): st["lost:X"]
M_SHIELD = 17  # Perm.st, 8 slots from here (ST_FIELDS, read as M_SHIELD + ST_*): shield, deathless charges,
# poison, sleep, dead, dying, affinity, prisoner uid
M_HAS = M_SHIELD + 8  # bit i: the st key of M_SHIELD + i is present (Perm.st keeps keys set to 0)
M_NITEMS = 26
M_ITEMS = 27
PF = M_ITEMS + MAX_ITEMS
ST_FIELDS = ("shield", "deathless", "poison", "sleep", "dead", "dying", "affinity", "prisoner")  # M_SHIELD + i
ST_SHIELD, ST_DEATHLESS, ST_POISON, ST_SLEEP, ST_DEAD, ST_DYING, ST_AFFINITY, ST_PRISONER = range(8)  # M_HAS bits

PERMS = GLOBAL_LEN + 2 * PLAYER_LEN
STATE_LEN = PERMS + PERM_SLOTS * PF


def player_base(p: int) -> int:
    """Offset of player p's block."""
    return GLOBAL_LEN + p * PLAYER_LEN


def perm_base(i: int) -> int:
    """Offset of perm-pool record i."""
    return PERMS + i * PF

"""Layout of the Hearthstone-style game: card ids, the flat state array, the action space, chance ops.

Everything the compiled rules (``rules``), the forward model (``state``), the
position builder and the encoders agree on lives here, as plain ints.

**Cards.** A card's id is its index in ``brm_cards.json`` (``CARD_IDS`` below
names each one); ``cards.build_card_table`` turns the data file into an int
table ``[NUM_CARDS, NUM_FIELDS]`` (fields ``F_*``).

**State.** One flat ``int32`` array (a clone is one copy): a global block
(``G_*`` offsets from 0), then one block per player at ``player_base(p)``
(``P_*`` offsets), each holding the hero, weapon, mana, hand (10 slots), deck
(a multiset: copies left of each card id, the order is chance), and 7 minion
slots of ``MF`` fields each (``M_*``), left to right, compact. Then the op
stack that carries pending effects (``OP_*``); a random op with more than one
outcome stops the resolution and the state is a chance node until its outcome
is applied.

**Actions** (flat, ``NUM_ACTIONS``; characters in the ACTING player's frame):
``PLAY + slot`` (hand slot 0..9), ``TARGET + t`` (t: 0 own hero, 1..7 own
minions, 8 enemy hero, 9..15 enemy minions), ``POSITION + p`` (0..7: where a
minion whose battlecry touches its neighbours goes), ``ATTACK + 8 * a + d``
(a: 0 own hero, 1..7 own minions; d: 0 enemy hero, 1..7 enemy minions),
``HERO_POWER``, ``END_TURN``, ``MULLIGAN + mask`` (bit i set = replace card i).

**Chance outcomes** (``chance_outcomes``) depend on the pending op: a card id
(draws, Spare Parts, Animal Companion), an absolute character id
``side * 8 + (0 hero | 1 + minion position)`` (random targets), ``char * 4 +
damage - 1`` (Boom Bot), or a position / hand slot (Sylvanas, Glaivezooka,
Voidcaller).
"""
from __future__ import annotations

# ---- rule constants (paper 001 §2.1 and the real game where the paper is silent) -------------------
HERO_HEALTH = 30  # 001 §2.1: "a special type of minion that has 30 health points"
JARAXXUS_HEALTH = 15  # Lord Jaraxxus, notes Appendix X
MAX_MANA = 10  # 001 Table 4.1 "Max Mana 1-10"
HAND_LIMIT = 10  # real game (001 §1.1: not stated); overdrawn cards burn
BOARD_LIMIT = 7  # real game; 001: "the number of valid targets on the board is below 17"
DECK_SIZE = 30  # 001 §2.1
FIRST_HAND, SECOND_HAND = 3, 4  # 001 §2.1 pre-game: 3 cards for the first player, 4 + The Coin for the second
HERO_POWER_COST = 2  # every hero power of these decks
MAX_TURNS = 200  # stall guard: a game still running after 200 player turns is a draw

# chance-node bucketing (001 §2.6, Table 3.2): a drawn card's bucket by mana cost, per deck (costs above 10,
# the Giants, fall in the top bucket: decision 12 of the README)
CNB_BUCKETS = {
    "mech_mage": ((1,), (2,), (3,), (4, 5), (6, 7, 8, 9, 10)),
    "handlock": ((0, 1, 2, 3), (4,), (5,), (6,), (7, 8, 9, 10)),
    "face_hunter": ((0, 1), (2,), (3, 4, 5, 6, 7, 8, 9, 10)),
}
CNB_SAMPLES_ONE_DRAW, CNB_SAMPLES_SEVERAL = 2, 1  # 001 Table 3.1: N = 2 for one card drawn, 1 for two or more

# ---- cards: id = index in brm_cards.json ------------------------------------------------------------
CARD_IDS = (
    "GVG_082", "GVG_013", "NEW1_012", "GVG_085", "CS2_024", "GVG_006", "GVG_002", "CS2_023", "EX1_556", "GVG_044",
    "GVG_102", "CS2_029", "GVG_004", "GVG_078", "FP1_030", "EX1_559", "GVG_110", "CS2_032", "EX1_302", "EX1_045",
    "GVG_015", "EX1_058", "CS2_203", "EX1_093", "CS2_062", "EX1_303", "EX1_043", "FP1_022", "GVG_069", "EX1_005",
    "FP1_012", "BRM_028", "EX1_309", "EX1_016", "EX1_323", "GVG_021", "EX1_105", "EX1_620", "CS2_188", "EX1_029",
    "CS2_146", "EX1_010", "EX1_610", "GVG_043", "FP1_002", "NEW1_019", "FP1_004", "BRM_013", "NEW1_031", "EX1_089",
    "EX1_536", "EX1_539", "EX1_538", "CS2_124", "EX1_116", "PART_001", "PART_002", "PART_003", "PART_004", "PART_005",
    "PART_006", "PART_007", "GVG_110t", "skele21", "FP1_002t", "NEW1_034", "NEW1_033", "NEW1_032", "EX1_538t",
    "EX1_116t", "FP1_012t", "EX1_tk34", "EX1_323w", "EX1_323h", "GAME_005", "CS2_034", "CS2_056", "DS1h_292",
    "EX1_tk33",
)
NUM_CARDS = len(CARD_IDS)
(CLOCKWORK_GNOME, COGMASTER, MANA_WYRM, ANNOY_O_TRON, FROSTBOLT, MECHWARPER, SNOWCHUGGER, ARCANE_INTELLECT,
 HARVEST_GOLEM, SPIDER_TANK, TINKERTOWN_TECHNICIAN, FIREBALL, GOBLIN_BLASTMAGE, MECHANICAL_YETI, LOATHEB,
 ARCHMAGE_ANTONIDAS, DR_BOOM, FLAMESTRIKE, MORTAL_COIL, ANCIENT_WATCHER, DARKBOMB, SUNFURY_PROTECTOR, IRONBEAK_OWL,
 DEFENDER_OF_ARGUS, HELLFIRE, SHADOWFLAME, TWILIGHT_DRAKE, VOIDCALLER, ANTIQUE_HEALBOT, BIG_GAME_HUNTER,
 SLUDGE_BELCHER, EMPEROR_THAURISSAN, SIPHON_SOUL, SYLVANAS_WINDRUNNER, LORD_JARAXXUS, MAL_GANIS, MOUNTAIN_GIANT,
 MOLTEN_GIANT, ABUSIVE_SERGEANT, LEPER_GNOME, SOUTHSEA_DECKHAND, WORGEN_INFILTRATOR, EXPLOSIVE_TRAP, GLAIVEZOOKA,
 HAUNTED_CREEPER, KNIFE_JUGGLER, MAD_SCIENTIST, QUICK_SHOT, ANIMAL_COMPANION, ARCANE_GOLEM, EAGLEHORN_BOW,
 KILL_COMMAND, UNLEASH_THE_HOUNDS, WOLFRIDER, LEEROY_JENKINS, ARMOR_PLATING, TIME_REWINDER, RUSTY_HORN,
 FINICKY_CLOAKFIELD, EMERGENCY_COOLANT, REVERSING_SWITCH, WHIRLING_BLADES, BOOM_BOT, DAMAGED_GOLEM,
 SPECTRAL_SPIDER, HUFFER, LEOKK, MISHA, HOUND, WHELP, SLIME, INFERNAL, BLOOD_FURY, JARAXXUS_HERO, THE_COIN,
 FIREBLAST, LIFE_TAP, STEADY_SHOT, INFERNO) = range(NUM_CARDS)
SPARE_PARTS = tuple(range(ARMOR_PLATING, WHIRLING_BLADES + 1))  # the 7 one-mana Spare Part spells
COMPANIONS = (HUFFER, LEOKK, MISHA)  # Animal Companion's three beasts

# card table fields
F_COST, F_ATK, F_HP, F_TYPE, F_RACE, F_KEYWORDS, F_TARGET, F_LEVEL = range(8)
NUM_FIELDS = 8
TYPE_MINION, TYPE_SPELL, TYPE_WEAPON, TYPE_HERO, TYPE_POWER = range(5)
RACE_NONE, RACE_MECH, RACE_BEAST, RACE_DEMON, RACE_DRAGON, RACE_PIRATE = range(6)
RACES = {None: RACE_NONE, "Mech": RACE_MECH, "Beast": RACE_BEAST, "Demon": RACE_DEMON, "Dragon": RACE_DRAGON,
         "Pirate": RACE_PIRATE}
# keyword bits of F_KEYWORDS (printed keywords; the same bits are minion flags M_FLAGS)
KW_TAUNT, KW_CHARGE, KW_DIVINE_SHIELD, KW_STEALTH = 1, 2, 4, 8
KEYWORD_BITS = {"Taunt": KW_TAUNT, "Charge": KW_CHARGE, "Divine Shield": KW_DIVINE_SHIELD, "Stealth": KW_STEALTH}
# F_TARGET: what a card (or hero power) must target when played
TGT_NONE = 0  # no target
TGT_CHARACTER = 1  # any character (heroes and minions)
TGT_MINION = 2  # any minion
TGT_FRIENDLY_MINION = 3  # one of your minions
TGT_ATTACK7 = 4  # a minion with 7 or more Attack (Big Game Hunter)
# battlecry targets are optional (no valid target: the minion is played without one) and exclude the minion itself
BATTLECRY_TARGETS = {ABUSIVE_SERGEANT: TGT_MINION, IRONBEAK_OWL: TGT_MINION, BIG_GAME_HUNTER: TGT_ATTACK7}
SPELL_TARGETS = {FROSTBOLT: TGT_CHARACTER, FIREBALL: TGT_CHARACTER, MORTAL_COIL: TGT_MINION, DARKBOMB: TGT_CHARACTER,
                 SHADOWFLAME: TGT_FRIENDLY_MINION, SIPHON_SOUL: TGT_MINION, QUICK_SHOT: TGT_CHARACTER,
                 KILL_COMMAND: TGT_CHARACTER, ARMOR_PLATING: TGT_MINION, TIME_REWINDER: TGT_FRIENDLY_MINION,
                 RUSTY_HORN: TGT_MINION, FINICKY_CLOAKFIELD: TGT_FRIENDLY_MINION, EMERGENCY_COOLANT: TGT_MINION,
                 REVERSING_SWITCH: TGT_MINION, WHIRLING_BLADES: TGT_MINION, FIREBLAST: TGT_CHARACTER}
ADJACENCY_MINIONS = (SUNFURY_PROTECTOR, DEFENDER_OF_ARGUS)  # the only cards whose effect depends on position
# specialty level of 001 Table 4.1 (board planes 9-17): 2 legendary, 1 aura or battlecry minion, 0 other
LEVEL_LEGENDARY, LEVEL_AURA_BATTLECRY, LEVEL_OTHER = 2, 1, 0

# ---- state layout --------------------------------------------------------------------------------
# global block
G_PLAYER, G_PHASE, G_TURN, G_WINNER, G_PENDING_CARD, G_PENDING_KIND, G_PENDING_POS, G_NEXT_UID, G_SP = range(9)
GLOBAL_LEN = 9
PH_MULLIGAN, PH_MAIN, PH_TARGET, PH_POSITION, PH_OVER = range(5)
PHASE_NAMES = ("mulligan", "main", "target", "position", "over")
# G_PENDING_KIND in PH_TARGET / PH_POSITION; G_PENDING_POS holds the uid of the minion whose battlecry waits
PK_SPELL, PK_BATTLECRY, PK_POWER, PK_MINION = range(4)

# minion fields (MF ints per minion slot)
M_CARD, M_ATK, M_HP, M_MAXHP, M_ATK_TEMP, M_ATK_AURA, M_HP_AURA, M_FLAGS, M_ATTACKS, M_UID = range(10)
MF = 10
# minion flags (bits 1..8 are the printed keywords KW_*)
FL_TAUNT, FL_CHARGE, FL_DIVINE_SHIELD, FL_STEALTH = KW_TAUNT, KW_CHARGE, KW_DIVINE_SHIELD, KW_STEALTH
FL_FROZEN, FL_SILENCED, FL_EXHAUSTED, FL_STEALTH_TEMP, FL_DESTROYED = 16, 32, 64, 128, 256

# per-player block (offsets from player_base(p))
(P_HP, P_MAXHP, P_HERO, P_FROZEN, P_HERO_ATTACKS, P_POWER, P_POWER_USED, P_WEAPON, P_WEAPON_ATK, P_WEAPON_DUR,
 P_MANA, P_MAX_MANA, P_FATIGUE, P_SPELL_TAX_NEXT, P_SPELL_TAX, P_TRAP, P_NHAND, P_NDECK, P_CONSUMED,
 P_NMIN, P_NASIDE) = range(21)
P_HAND = 21  # HAND_LIMIT card ids (-1 empty), compact from slot 0
P_HAND_COST = P_HAND + HAND_LIMIT  # per slot: permanent cost change (Thaurissan: -1 per end of turn)
P_HAND_ORIGIN = P_HAND_COST + HAND_LIMIT  # per slot: ORIGIN_*
P_DECK = P_HAND_ORIGIN + HAND_LIMIT  # NUM_CARDS counts: copies left in the deck (the order is chance)
P_ASIDE = P_DECK + NUM_CARDS  # 4 card ids set aside by the mulligan until the replacements are drawn
P_MINIONS = P_ASIDE + 4  # BOARD_LIMIT x MF
PLAYER_LEN = P_MINIONS + BOARD_LIMIT * MF
HERO_JARAXXUS = 1  # P_HERO: 0 the deck's class hero, 1 Lord Jaraxxus
# where a hand card came from, which decides what the opponent knows of it
ORIGIN_DECK = 0  # drawn from the deck: hidden, resampled by determinize
ORIGIN_KNOWN = 1  # known to both players (The Coin, Antonidas's Fireball, a minion returned to hand)
ORIGIN_SPARE_PART = 2  # a random Spare Part: the opponent knows only that it is one of the 7

STACK_LEN = 64  # pending ops
OP_FIELDS = 4  # op, player, a, b
STACK = GLOBAL_LEN + 2 * PLAYER_LEN
STATE_LEN = STACK + STACK_LEN * OP_FIELDS

# ops: effects waiting on the stack (LIFO); those marked random become chance nodes when they have
# more than one outcome
OP_DRAW = 1  # random: player draws a card (outcome: card id); empty deck = fatigue
OP_RANDOM_DAMAGE = 2  # random: a = damage to a random living enemy character of player (outcome: char id)
OP_BOOM_BOT = 3  # random: 1-4 damage to a random living enemy character (outcome: char * 4 + damage - 1)
OP_SPARE_PART = 4  # random: a random Spare Part to player's hand (outcome: card id)
OP_COMPANION = 5  # random: Animal Companion summons one of three beasts (outcome: card id)
OP_VOIDCALLER = 6  # random: put a random Demon from player's hand into the battlefield (outcome: hand slot)
OP_SYLVANAS = 7  # random: take control of a random enemy minion (outcome: its position)
OP_GLAIVEZOOKA = 8  # random: +1 Attack to a random friendly minion (outcome: its position)
OP_RETURN_ASIDE = 9  # mulligan: shuffle the set-aside cards back into player's deck
OP_END_MULLIGAN = 10  # mulligan done for player: next player's mulligan, or the game starts
OP_START_TURN = 11  # player's turn begins (mana, refresh), then its draw
OP_DEATHRATTLE = 12  # a = the dead minion's card id, b = uid of its surviving left neighbour (-1: none)
OP_COMBAT = 13  # the combat damage of player's attack, after a death step: a, b = attacker, defender uid (-1: hero)
LAST_RANDOM_OP = OP_GLAIVEZOOKA  # ops 1..LAST_RANDOM_OP are random, the rest deterministic

# ---- actions ---------------------------------------------------------------------------------------
PLAY = 0
TARGET = PLAY + HAND_LIMIT
NUM_TARGETS = 16
POSITION = TARGET + NUM_TARGETS
ATTACK = POSITION + BOARD_LIMIT + 1
HERO_POWER = ATTACK + 64
END_TURN = HERO_POWER + 1
MULLIGAN = END_TURN + 1
NUM_ACTIONS = MULLIGAN + 16
# soft keys (001 §2.3): "play a card of id c" for PLAY ids, the action id itself (shifted) for the rest,
# since the board is public and equal in every determinization
NUM_ACTION_KEYS = NUM_CARDS + NUM_ACTIONS - TARGET
MAX_OUTCOMES = 64  # the most outcomes any chance node has (Boom Bot: 16 characters x 4 damages)


def player_base(p: int) -> int:
    """Offset of player ``p``'s block in the state array."""
    return GLOBAL_LEN + p * PLAYER_LEN


def minion_base(p: int, pos: int) -> int:
    """Offset of player ``p``'s minion at board position ``pos``."""
    return GLOBAL_LEN + p * PLAYER_LEN + P_MINIONS + pos * MF

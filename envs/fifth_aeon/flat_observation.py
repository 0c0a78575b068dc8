"""Compiled Fifth Aeon's observation: ``observation.observe`` as a numba kernel over the flat state.

``observe(s, cards, player, perfect, out)`` writes into ``out`` (float32, ``observation_length(len(cards))``
entries) exactly what ``observation.observe(flat_convert.to_match(s, table, pool), player, perfect)`` returns, bit
for bit; every entry is written (zeros included), so a buffer can be reused. ``cards`` is the card table
(``flat_table``): a card's one-hot index is its row, its index in ``pool.cards``. The blocks, their order and every
scale are ``observation``'s (imported here, never retyped); a value is divided by its scale in float64, clipped to
[0, 1] and stored as float32, as ``observation.observe`` does (its ``np.clip`` comes after the float32 store, which
gives the same bits: rounding to float32 is monotone and 0 and 1 are float32 values).

What the flat state holds differently from the ``Match`` the Python observation reads:

* a status counter (poison, sleep, shield, Deathless charges) counts only while its key is present (``M_HAS``),
  as ``Perm.st.get(key, 0)`` does;
* imprisoned is ``any(g.id == "CannotBlock" for g in u.granted)``: a CannotBlock granted alone (``M_GRANTED``) or
  by an Imprison (``M_IMPRISONED`` > 0, which ``to_match`` decodes as CannotAttack + CannotBlock); an item's or a
  card's own CannotBlock does not count, and a lost ability does not hide a granted one;
* lost Flying is the Flying bit of ``M_LOST`` (``to_match`` writes ``st["lost:Flying"] = 1``);
* a front choice whose options are not read yet (``G_NOPTIONS`` < 0; the object engine reads them when the choice
  reaches the front, so only hand-built positions have one) shows no options, only its kind: the Python
  observation raises ``TypeError`` there (it iterates ``options`` = None).
"""
from __future__ import annotations

from numba import njit

from . import flat_layout as F
from .board import PHASE_NAMES
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT
from .flat_convert import CHOICE_KINDS, PEND_STAGES
from .flat_moves import acting
from .flat_rules import at, attack, board_at, board_len, full_life, life, pb, picked, st_get, st_has
from .observation import (
    BONUS_SCALE, COUNT_STEP, DEATHLESS_SCALE, DECK_SCALE, ENERGY_SCALE, FEATURES, GLOBALS, ITEMS_SCALE, KINDS,
    LIFE_SCALE, PHASES, POISON_SCALE, RESOURCE_SCALE, SIDE_GLOBALS, SLEEP_SCALE, SLOT_SCALE, STAT_SCALE, TURN_SCALE,
    observation_length,
)

__all__ = ["observe", "observation_length"]

_LEAN = dict(cache=True, nogil=True, _nrt=False)
_INLINE = dict(cache=True, nogil=True, _nrt=False, inline="always")

# the globals block: the phase one-hot, then who acts, whose turn, the turn, then SIDE_GLOBALS per side
_CHOICE = PHASES.index("choice")
_TARGET = PHASES.index("target")
_PHASE_SLOT = tuple(PHASES.index(name) if name in PHASES else -1 for name in PHASE_NAMES)  # G_PHASE -> slot
_ACTS = len(PHASES)
_TURN_PLAYER = _ACTS + 1
_TURN = _ACTS + 2
_SIDES = _ACTS + 3
assert _SIDES + 2 * SIDE_GLOBALS == GLOBALS, "observation's globals block changed: update flat_observation"
assert (F.PLAY1, F.BLOCK, F.ORDER, F.PLAY2, F.OVER) == tuple(range(len(PHASE_NAMES)))
# a side's globals, in observation.observe's order
_LIFE, _ENERGY, _MAX_ENERGY, _RES, _PLAYED, _HAND, _DECK = 0, 1, 2, 3, 7, 8, 9
_KIND_SLOT = tuple(KINDS.index(kind) for kind in (*CHOICE_KINDS, "consume"))  # Q_KIND (CK_*) -> its one-hot slot
assert len(_KIND_SLOT) == F.CK_CONSUME + 1
_TARGET_STAGE = PEND_STAGES.index("target")
_FLYING_LOST = 1 << F.AB_FLYING
_CANNOT_BLOCK = 1 << F.AB_CANNOT_BLOCK
_VIEW = 2 * BOARD_SLOTS


@njit(**_INLINE)
def _put(out, i, x):
    """``out[i] = x`` clipped to [0, 1] (``x`` a float64)."""
    if x < 0.0:
        x = 0.0
    elif x > 1.0:
        x = 1.0
    out[i] = x


@njit(**_INLINE)
def _flag(out, i, x):
    out[i] = 1.0 if x else 0.0


@njit(**_INLINE)
def _count(out, i):
    """One more card in a count block (``+= COUNT_STEP``, clipped at 1)."""
    out[i] = min(out[i] + COUNT_STEP, 1.0)


@njit(**_INLINE)
def _st(s, m, flag):
    """``Perm.st.get(key, 0)`` of the status key of presence bit ``flag``."""
    return st_get(s, m, flag) if st_has(s, m, flag) else 0


@njit(**_LEAN)
def _view_slot(s, player, uid):
    """The observer's view slot (own 0..6, the enemy's 7..13) of the permanent with ``uid``, -1 when none (the last
    one if two had it, as ``observe``'s dict does)."""
    found = -1
    for j in range(2):
        p = player if j == 0 else 1 - player
        for i in range(board_len(s, p)):
            if s[at(board_at(s, p, i)) + F.M_UID] == uid:
                found = j * BOARD_SLOTS + i
    return found


@njit(**_LEAN)
def observe(s, cards, player, perfect, out):
    """``observation.observe(to_match(s), player, perfect)`` written into ``out`` (every entry)."""
    n = cards.shape[0]
    for i in range(out.shape[0]):
        out[i] = 0.0
    foe = 1 - player
    over = s[F.G_WINNER] >= 0
    # ---- globals
    if not over:
        if s[F.G_NCHOICES] > 0:
            out[_CHOICE] = 1.0
        elif s[F.G_PEND] != 0:
            out[_TARGET] = 1.0
        elif _PHASE_SLOT[s[F.G_PHASE]] >= 0:
            out[_PHASE_SLOT[s[F.G_PHASE]]] = 1.0
    _flag(out, _ACTS, not over and acting(s) == player)
    _flag(out, _TURN_PLAYER, s[F.G_TURN_PLAYER] == player)
    _put(out, _TURN, s[F.G_TURN] / TURN_SCALE)
    for j in range(2):
        b = pb(player if j == 0 else foe)
        g = _SIDES + SIDE_GLOBALS * j
        _put(out, g + _LIFE, s[b + F.P_LIFE] / LIFE_SCALE)
        _put(out, g + _ENERGY, s[b + F.P_ENERGY] / ENERGY_SCALE)
        _put(out, g + _MAX_ENERGY, s[b + F.P_MAX_ENERGY] / ENERGY_SCALE)
        for r in range(4):
            _put(out, g + _RES + r, s[b + F.P_RES + r] / RESOURCE_SCALE)
        _flag(out, g + _PLAYED, s[b + F.P_PLAYED_RESOURCE] != 0)
        _put(out, g + _HAND, s[b + F.P_NHAND] / HARD_HAND_LIMIT)
        _put(out, g + _DECK, s[b + F.P_NDECK] / DECK_SCALE)
    # ---- the observer's hand and its bonuses
    me, them = pb(player), pb(foe)
    k = GLOBALS
    bonus = k + HARD_HAND_LIMIT * n
    nhand = s[me + F.P_NHAND]
    for slot in range(nhand):
        h = me + F.P_HAND + slot * F.HF
        out[k + slot * n + s[h + F.H_CARD]] = 1.0
        _put(out, bonus + 2 * slot, s[h + F.H_ATTACK] / BONUS_SCALE)
        _put(out, bonus + 2 * slot + 1, s[h + F.H_LIFE] / BONUS_SCALE)
    k += HARD_HAND_LIMIT * (n + 2)
    # ---- both boards: own slots 0..6, the enemy's 7..13
    row = n + FEATURES
    for j in range(2):
        p = player if j == 0 else foe
        for i in range(board_len(s, p)):
            m = board_at(s, p, i)
            b = at(m)
            base = k + (j * BOARD_SLOTS + i) * row
            out[base + s[b + F.M_CARD]] = 1.0
            f = base + n
            _put(out, f, attack(s, m) / STAT_SCALE)
            _put(out, f + 1, life(s, m) / STAT_SCALE)
            _put(out, f + 2, full_life(s, m) / STAT_SCALE)
            _put(out, f + 3, s[b + F.M_POWER] / STAT_SCALE)
            _flag(out, f + 4, s[b + F.M_READY] != 0)
            _flag(out, f + 5, s[b + F.M_EXHAUSTED] != 0)
            _flag(out, f + 6, s[b + F.M_ATTACKING] != 0)
            _flag(out, f + 7, s[b + F.M_BLOCKING] >= 0)
            _put(out, f + 8, (_view_slot(s, player, s[b + F.M_BLOCKING]) + 1) / SLOT_SCALE)
            _put(out, f + 9, _st(s, m, F.ST_POISON) / POISON_SCALE)
            _put(out, f + 10, _st(s, m, F.ST_SLEEP) / SLEEP_SCALE)
            _put(out, f + 11, float(_st(s, m, F.ST_SHIELD)))
            _put(out, f + 12, _st(s, m, F.ST_DEATHLESS) / DEATHLESS_SCALE)
            _put(out, f + 13, s[b + F.M_NITEMS] / ITEMS_SCALE)
            _flag(out, f + 14, s[b + F.M_IMPRISONED] > 0 or (s[b + F.M_GRANTED] & _CANNOT_BLOCK) != 0)
            _flag(out, f + 15, (s[b + F.M_LOST] & _FLYING_LOST) != 0)
    k += _VIEW * row
    # ---- the opponent's hand: the seen cards (all with perfect), the unseen count
    hidden = 0
    for slot in range(s[them + F.P_NHAND]):
        h = them + F.P_HAND + slot * F.HF
        if s[h + F.H_KNOWN] != 0 or perfect:
            _count(out, k + s[h + F.H_CARD])
        else:
            hidden += 1
    _put(out, k + n, hidden / HARD_HAND_LIMIT)
    k += n + 1
    # ---- the observer's deck, both crypts
    for i in range(s[me + F.P_NDECK]):
        _count(out, k + s[me + F.P_DECK + i])
    k += n
    for j in range(2):
        b = me if j == 0 else them
        for i in range(s[b + F.P_NCRYPT]):
            _count(out, k + j * n + s[b + F.P_CRYPT + i])
    k += 2 * n
    # ---- the front choice when the observer makes it: options, picks, kind
    if s[F.G_NCHOICES] > 0 and s[F.G_CHOICES + F.Q_PLAYER] == player:
        for i in range(s[F.G_NOPTIONS]):  # none when not read yet (G_NOPTIONS = -1)
            c = s[F.G_OPTIONS + i]
            _count(out, k + c)
            if picked(s, i):
                _count(out, k + n + c)
        out[k + 2 * n + _KIND_SLOT[s[F.G_CHOICES + F.Q_KIND]]] = 1.0
    k += 2 * n + len(KINDS)
    # ---- the card being played (a slot of the observer's hand), its host chosen
    if s[F.G_PEND] != 0 and acting(s) == player:
        slot = s[F.G_PEND_SLOT]
        if 0 <= slot < nhand:
            out[k + s[me + F.P_HAND + slot * F.HF + F.H_CARD]] = 1.0
        _flag(out, k + n, s[F.G_PEND_STAGE] == _TARGET_STAGE)
    k += n + 1
    # ---- the deck tops (perfect)
    if perfect:
        for j in range(2):
            b = me if j == 0 else them
            if s[b + F.P_NDECK] > 0:
                out[k + j * n + s[b + F.P_DECK]] = 1.0

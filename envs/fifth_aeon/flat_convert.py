"""Conversions between the object engine's ``board.Match`` and the flat state of ``flat_layout``.

``to_flat`` writes a match into one ``int64`` array (the perm pool holds player 0's board, then player 1's, then
the Deathless returns; every unused field is 0); ``to_match`` builds the match back. ``canonical`` is a hashable
description of a match for comparing the two engines (``state._key``, with each permanent's granted abilities
sorted: the flat state keeps them as a mask and a count), and ``describe_difference`` names the first field where
two matches differ. A match the layout cannot hold (a bound exceeded, an unknown status key) raises ``ValueError``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import flat_layout as F
from .board import Choice, Match, Perm, Side
from .cards import CardPool, Mechanic
from .constants import BOARD_SLOTS, HARD_HAND_LIMIT, STARTING_LIFE
from .flat_table import CardTable
from .layout import MAX_OPTIONS

CHOICE_KINDS = ("replace", "discard", "search", "unbury")  # CK_REPLACE.. (CK_CONSUME: "consume:UID")
CHOICE_SOURCES = ("hand", "trim", "deck")  # CS_HAND.. (CS_CRYPT + t: "crypt:" + CARD_TYPES[t])
PEND_STAGES = ("host", "target")
IMPRISONED = (Mechanic("CannotAttack"), Mechanic("CannotBlock"))  # what Imprison grants (effects.IMPRISONED)
assert 2 * BOARD_SLOTS + F.MAX_RETURNS <= F.PERM_SLOTS  # the perm pool holds both boards and the returns


def _check(n: int, bound: int, what: str, name: str) -> None:
    if n > bound:
        raise ValueError(f"{what}: {n} entries, more than the flat layout's {name} = {bound}")


# ---- Match -> flat ---------------------------------------------------------------------------------------------
def to_flat(m: Match, table: CardTable, pool: CardPool) -> np.ndarray:
    """The flat state of ``m`` (``table`` and ``pool`` the same card pool)."""
    if len(table.cards) != len(pool.cards):
        raise ValueError(f"the card table has {len(table.cards)} cards, the pool {len(pool.cards)}")
    s = np.zeros(F.STATE_LEN, np.int64)
    index = pool.index
    for p in range(2):
        _check(len(m.board[p]), BOARD_SLOTS, f"board[{p}]", "BOARD_SLOTS")
    _check(len(m.returns_eot), F.MAX_RETURNS, "returns_eot", "MAX_RETURNS")
    on_board = len(m.board[0]) + len(m.board[1])
    for i, u in enumerate([*m.board[0], *m.board[1], *m.returns_eot]):
        _put_perm(s, F.perm_base(i), u, table, index)
        s[F.perm_base(i) + F.M_USED] = F.ON_BOARD if i < on_board else F.OFF_BOARD
    first = 0
    for p in range(2):
        _put_side(s, F.player_base(p), m.sides[p], p, index)
        board = m.board[p]
        b = F.player_base(p)
        s[b + F.P_NBOARD] = len(board)
        s[b + F.P_BOARD:b + F.P_BOARD + len(board)] = range(first, first + len(board))
        first += len(board)
    s[F.G_NRETURNS] = len(m.returns_eot)
    s[F.G_RETURNS:F.G_RETURNS + len(m.returns_eot)] = range(first, first + len(m.returns_eot))
    _put_globals(s, m, index)
    return s


def _put_perm(s: np.ndarray, b: int, u: Perm, table: CardTable, index: dict[str, int]) -> None:
    s[b + F.M_UID], s[b + F.M_CARD], s[b + F.M_OWNER] = u.uid, index[u.card.id], u.owner
    s[b + F.M_DMG], s[b + F.M_MAX_LIFE], s[b + F.M_AURA_D], s[b + F.M_AURA_L] = u.dmg, u.max_life, u.aura_d, u.aura_l
    s[b + F.M_HURT], s[b + F.M_POWER], s[b + F.M_READY] = u.hurt, u.power, u.ready
    s[b + F.M_EXHAUSTED], s[b + F.M_ATTACKING], s[b + F.M_BLOCKING] = u.exhausted, u.attacking, u.blocking
    _check(len(u.items), F.MAX_ITEMS, f"the items of permanent {u.uid}", "MAX_ITEMS")
    s[b + F.M_NITEMS] = len(u.items)
    s[b + F.M_ITEMS:b + F.M_ITEMS + len(u.items)] = [index[it.id] for it in u.items]
    for g in u.granted:
        if g != Mechanic(g.id):
            raise ValueError(f"permanent {u.uid}: granted {g!r} has a trigger or parameters")
    ids = [g.id for g in u.granted]
    imprisoned = min(ids.count("CannotAttack"), ids.count("CannotBlock"))
    for _ in range(imprisoned):
        ids.remove("CannotAttack")
        ids.remove("CannotBlock")
    if len(set(ids)) != len(ids):
        raise ValueError(f"permanent {u.uid}: an ability granted twice ({sorted(ids)}), more than a mask holds")
    s[b + F.M_GRANTED] = _mask(ids, table, u)
    s[b + F.M_IMPRISONED] = imprisoned
    has, lost = 0, []
    for key, value in u.st.items():
        if key in F.ST_FIELDS:
            i = F.ST_FIELDS.index(key)
            s[b + F.M_SHIELD + i] = value
            has |= 1 << i
        elif key.startswith("lost:") and value == 1:
            lost.append(key[5:])
        else:
            raise ValueError(f"permanent {u.uid}: status {key!r} = {value!r} has no field in the flat layout")
    s[b + F.M_HAS], s[b + F.M_LOST] = has, _mask(lost, table, u)


def _mask(names: list[str], table: CardTable, u: Perm) -> int:
    mask = 0
    for name in names:
        if name not in table.abilities:
            raise ValueError(f"permanent {u.uid}: ability {name!r} is not in the card table's abilities")
        mask |= 1 << table.abilities.index(name)
    return mask


def _put_side(s: np.ndarray, b: int, side: Side, p: int, index: dict[str, int]) -> None:
    s[b + F.P_LIFE], s[b + F.P_ENERGY], s[b + F.P_MAX_ENERGY] = side.life, side.energy, side.max_energy
    s[b + F.P_RES:b + F.P_RES + 4] = side.res
    s[b + F.P_PLAYED_RESOURCE], s[b + F.P_FATIGUE] = side.played_resource, side.fatigue
    _check(len(side.hand), HARD_HAND_LIMIT, f"sides[{p}].hand", "HARD_HAND_LIMIT")
    if len(side.known) != len(side.hand):
        raise ValueError(f"sides[{p}]: {len(side.hand)} hand cards but {len(side.known)} known flags")
    s[b + F.P_NHAND] = len(side.hand)
    for k, ((cid, d, life), known) in enumerate(zip(side.hand, side.known)):
        h = b + F.P_HAND + k * F.HF
        s[h + F.H_CARD], s[h + F.H_ATTACK], s[h + F.H_LIFE], s[h + F.H_KNOWN] = index[cid], d, life, known
    _check(len(side.deck), F.MAX_DECK, f"sides[{p}].deck", "MAX_DECK")
    if len(side.deck_vis) != len(side.deck):
        raise ValueError(f"sides[{p}]: {len(side.deck)} deck cards but {len(side.deck_vis)} visibilities")
    s[b + F.P_NDECK] = len(side.deck)
    s[b + F.P_DECK:b + F.P_DECK + len(side.deck)] = [index[c] for c in side.deck]
    s[b + F.P_DECK_VIS:b + F.P_DECK_VIS + len(side.deck)] = side.deck_vis
    _check(len(side.crypt), F.MAX_CRYPT, f"sides[{p}].crypt", "MAX_CRYPT")
    s[b + F.P_NCRYPT] = len(side.crypt)
    s[b + F.P_CRYPT:b + F.P_CRYPT + len(side.crypt)] = [index[c] for c in side.crypt]


def _put_globals(s: np.ndarray, m: Match, index: dict[str, int]) -> None:
    s[F.G_TURN_PLAYER], s[F.G_TURN], s[F.G_PHASE], s[F.G_NEXT_UID] = m.turn_player, m.turn, m.phase, m.next_uid
    s[F.G_WINNER], s[F.G_ATTACKED] = m.winner, m.attacked
    if m.then not in (None, "next_turn"):
        raise ValueError(f"Match.then = {m.then!r} has no field in the flat layout")
    s[F.G_THEN] = m.then == "next_turn"
    if m.pend is not None:
        slot, host, stage = m.pend
        s[F.G_PEND], s[F.G_PEND_SLOT], s[F.G_PEND_HOST] = 1, slot, host
        s[F.G_PEND_STAGE] = PEND_STAGES.index(stage)
    _check(len(m.order_queue), F.MAX_ATTACKERS, "order_queue", "MAX_ATTACKERS")
    s[F.G_NQUEUE] = len(m.order_queue)
    s[F.G_QUEUE:F.G_QUEUE + len(m.order_queue)] = m.order_queue
    _check(len(m.order), F.MAX_ATTACKERS, "order", "MAX_ATTACKERS")
    s[F.G_NORDERS] = len(m.order)
    for k, (attacker, blockers) in enumerate(m.order.items()):
        _check(len(blockers), BOARD_SLOTS, f"order[{attacker}]", "BOARD_SLOTS")
        o = F.G_ORDERS + k * F.OF
        s[o], s[o + 1] = attacker, len(blockers)
        s[o + 2:o + 2 + len(blockers)] = blockers
    _put_choices(s, m.choices, index)


def _put_choices(s: np.ndarray, choices: list[Choice], index: dict[str, int]) -> None:
    _check(len(choices), F.MAX_CHOICES, "choices", "MAX_CHOICES")
    s[F.G_NCHOICES] = len(choices)
    for k, c in enumerate(choices):
        q = F.G_CHOICES + k * F.QF
        s[q + F.Q_PLAYER], s[q + F.Q_MIN], s[q + F.Q_MAX] = c.player, c.min_n, c.max_n
        if c.kind.startswith("consume:"):
            s[q + F.Q_KIND], s[q + F.Q_UID] = F.CK_CONSUME, int(c.kind[8:])
        else:
            s[q + F.Q_KIND] = CHOICE_KINDS.index(c.kind)
        if c.source.startswith("crypt:"):
            s[q + F.Q_SOURCE] = F.CS_CRYPT + F.CARD_TYPES.index(c.source[6:])
        else:
            s[q + F.Q_SOURCE] = CHOICE_SOURCES.index(c.source)
        if k > 0 and (c.options is not None or c.slots is not None):
            raise ValueError(f"choices[{k}] has its options: only the front choice may (flat layout)")
    front = choices[0] if choices else None
    if front is None or front.options is None:
        s[F.G_NOPTIONS] = -1
        return
    _check(len(front.options), MAX_OPTIONS, "choices[0].options", "MAX_OPTIONS")
    s[F.G_NOPTIONS] = len(front.options)
    s[F.G_OPTIONS:F.G_OPTIONS + len(front.options)] = [index[c] for c in front.options]
    if front.slots is not None:
        if list(front.slots) != list(range(len(front.options))):
            raise ValueError(f"choices[0].slots = {front.slots}: the flat layout holds only slots 0..n-1")
        s[F.G_SLOTTED] = 1
    picked = front.picked or []
    s[F.G_NPICKED] = len(picked)
    s[F.G_PICKED:F.G_PICKED + len(picked)] = picked


# ---- flat -> Match ---------------------------------------------------------------------------------------------
def fresh(decks: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The flat state of a match before its start (``Match(pool, decks)``): full life, the decks (card indices,
    top first) unknown to both, nothing else."""
    s = np.zeros(F.STATE_LEN, np.int64)
    s[F.G_NEXT_UID] = 1
    s[F.G_WINNER] = -1
    s[F.G_NOPTIONS] = -1
    for p, deck in enumerate(decks):
        _check(len(deck), F.MAX_DECK, "a deck", "MAX_DECK")
        b = F.player_base(p)
        s[b + F.P_LIFE] = STARTING_LIFE
        s[b + F.P_NDECK] = len(deck)
        s[b + F.P_DECK:b + F.P_DECK + len(deck)] = deck
    return s


def to_match(s: np.ndarray, table: CardTable, pool: CardPool) -> Match:
    """The match of the flat state ``s`` (``ValueError`` when a bound overflowed or a record is inconsistent)."""
    v: list[int] = s.tolist()
    if v[F.G_OVERFLOW]:
        raise ValueError(f"the flat state overflowed {F.OVERFLOWS[v[F.G_OVERFLOW]]}, a bound of its layout")
    cards = pool.cards
    perms: dict[int, Perm] = {}

    def perm(i: int) -> Perm:
        if i not in perms:
            perms[i] = _get_perm(v, i, table, cards)
        return perms[i]

    m = Match.__new__(Match)
    m.pool = pool
    m.sides = (_get_side(v, F.player_base(0), cards), _get_side(v, F.player_base(1), cards))
    m.board = tuple([perm(i) for i in _run(v, F.player_base(p) + F.P_NBOARD)] for p in range(2))
    m.returns_eot = [perm(i) for i in _run(v, F.G_NRETURNS)]
    m.turn_player, m.turn, m.phase, m.next_uid = v[F.G_TURN_PLAYER], v[F.G_TURN], v[F.G_PHASE], v[F.G_NEXT_UID]
    m.winner, m.attacked = v[F.G_WINNER], bool(v[F.G_ATTACKED])
    m.then = "next_turn" if v[F.G_THEN] else None
    m.pend = [v[F.G_PEND_SLOT], v[F.G_PEND_HOST], PEND_STAGES[v[F.G_PEND_STAGE]]] if v[F.G_PEND] else None
    m.order_queue = _run(v, F.G_NQUEUE)
    m.order = {v[o]: _run(v, o + 1) for o in range(F.G_ORDERS, F.G_ORDERS + v[F.G_NORDERS] * F.OF, F.OF)}
    m.choices = [_get_choice(v, k, cards) for k in range(v[F.G_NCHOICES])]
    return m


def update_match(m: Match, s: np.ndarray, table: CardTable, pool: CardPool) -> None:
    """Make the match ``m`` the flat state ``s``, in place and keeping its objects: each side stays the same
    ``Side`` and a permanent still in play (or waiting to return) the same ``Perm`` (by uid), so references to them
    held across a move see it."""
    fresh = to_match(s, table, pool)
    kept = {u.uid: u for u in (*m.board[0], *m.board[1], *m.returns_eot)}

    def keep(u: Perm) -> Perm:
        old = kept.get(u.uid)
        if old is None:
            return u
        for slot in Perm.__slots__:
            setattr(old, slot, getattr(u, slot))
        return old

    fresh.board = tuple([keep(u) for u in side] for side in fresh.board)
    fresh.returns_eot = [keep(u) for u in fresh.returns_eot]
    for old, new in zip(m.sides, fresh.sides):
        for slot in Side.__slots__:
            setattr(old, slot, getattr(new, slot))
    fresh.sides = m.sides
    for slot in Match.__slots__:
        setattr(m, slot, getattr(fresh, slot))


def _run(v: list[int], at: int) -> list[int]:
    """The entries after the count at ``at``."""
    return v[at + 1:at + 1 + v[at]]


def _get_perm(v: list[int], i: int, table: CardTable, cards: tuple) -> Perm:
    b = F.perm_base(i)
    if v[b + F.M_USED] == 0:
        raise ValueError(f"perm record {i} is named on a board or in the returns but is not in use")
    u = Perm.__new__(Perm)
    u.uid, u.card, u.owner = v[b + F.M_UID], cards[v[b + F.M_CARD]], v[b + F.M_OWNER]
    u.dmg, u.max_life, u.aura_d, u.aura_l = v[b + F.M_DMG], v[b + F.M_MAX_LIFE], v[b + F.M_AURA_D], v[b + F.M_AURA_L]
    u.hurt, u.power, u.blocking = v[b + F.M_HURT], v[b + F.M_POWER], v[b + F.M_BLOCKING]
    u.ready, u.exhausted, u.attacking = bool(v[b + F.M_READY]), bool(v[b + F.M_EXHAUSTED]), bool(v[b + F.M_ATTACKING])
    u.items = tuple(cards[c] for c in _run(v, b + F.M_NITEMS))
    u.granted = tuple(Mechanic(name) for name in _names(v[b + F.M_GRANTED], table, u.uid)) + IMPRISONED * v[
        b + F.M_IMPRISONED]
    has = v[b + F.M_HAS]
    u.st = {key: v[b + F.M_SHIELD + k] for k, key in enumerate(F.ST_FIELDS) if has >> k & 1}
    u.st.update((f"lost:{name}", 1) for name in _names(v[b + F.M_LOST], table, u.uid))
    u.rebuild()
    return u


def _names(mask: int, table: CardTable, uid: int) -> list[str]:
    if not mask:
        return []
    if mask >> len(table.abilities):
        raise ValueError(f"permanent {uid}: ability mask {mask:#x} has bits beyond the table's abilities")
    return [name for k, name in enumerate(table.abilities) if mask >> k & 1]


def _get_side(v: list[int], b: int, cards: tuple) -> Side:
    side = Side.__new__(Side)
    side.life, side.energy, side.max_energy = v[b + F.P_LIFE], v[b + F.P_ENERGY], v[b + F.P_MAX_ENERGY]
    side.res = v[b + F.P_RES:b + F.P_RES + 4]
    side.played_resource, side.fatigue = bool(v[b + F.P_PLAYED_RESOURCE]), v[b + F.P_FATIGUE]
    hand = range(b + F.P_HAND, b + F.P_HAND + v[b + F.P_NHAND] * F.HF, F.HF)
    side.hand = [(cards[v[h + F.H_CARD]].id, v[h + F.H_ATTACK], v[h + F.H_LIFE]) for h in hand]
    side.known = [bool(v[h + F.H_KNOWN]) for h in hand]
    n = v[b + F.P_NDECK]
    side.deck = [cards[c].id for c in v[b + F.P_DECK:b + F.P_DECK + n]]
    side.deck_vis = v[b + F.P_DECK_VIS:b + F.P_DECK_VIS + n]
    side.crypt = [cards[c].id for c in _run(v, b + F.P_NCRYPT)]
    return side


def _get_choice(v: list[int], k: int, cards: tuple) -> Choice:
    q = F.G_CHOICES + k * F.QF
    kind = f"consume:{v[q + F.Q_UID]}" if v[q + F.Q_KIND] == F.CK_CONSUME else CHOICE_KINDS[v[q + F.Q_KIND]]
    src = v[q + F.Q_SOURCE]
    source = CHOICE_SOURCES[src] if src < F.CS_CRYPT else f"crypt:{F.CARD_TYPES[src - F.CS_CRYPT]}"
    c = Choice(v[q + F.Q_PLAYER], kind, source, v[q + F.Q_MIN], v[q + F.Q_MAX])
    if k == 0 and v[F.G_NOPTIONS] >= 0:
        c.options = [cards[x].id for x in _run(v, F.G_NOPTIONS)]
        c.slots = list(range(len(c.options))) if v[F.G_SLOTTED] else None
        c.picked = _run(v, F.G_NPICKED)
    return c


# ---- comparison ------------------------------------------------------------------------------------------------
# The names of ``canonical``'s tuples, for ``describe_difference``: a record's fields (a leaf: None), and [x]: a
# sequence of x.
_PERM = dict.fromkeys(("uid", "card", "owner", "dmg", "max_life", "aura_d", "aura_l", "hurt", "power", "granted",
                       "items", "ready", "exhausted", "attacking", "blocking", "st"))
_SIDE = {**dict.fromkeys(("life", "energy", "max_energy", "res", "played_resource")), "hand": [None],
         "known": [None], "deck": [None], "deck_vis": [None], "crypt": [None], "fatigue": None}
_CHOICE = dict.fromkeys(("player", "kind", "source", "min_n", "max_n", "options", "slots", "picked"))
_MATCH = {"sides": [_SIDE], "board": [[_PERM]], **dict.fromkeys(("turn_player", "turn", "phase", "next_uid")),
          "choices": [_CHOICE], **dict.fromkeys(("pend", "order_queue", "order")), "returns_eot": [_PERM],
          **dict.fromkeys(("winner", "attacked", "then"))}


def canonical(m: Match) -> tuple:
    """A hashable description of ``m``: ``state._key`` with each permanent's granted abilities sorted (fields
    named by ``_MATCH``)."""

    def perm(u: Perm) -> tuple:
        return (u.uid, u.card.id, u.owner, u.dmg, u.max_life, u.aura_d, u.aura_l, u.hurt, u.power,
                tuple(sorted(g.id for g in u.granted)), tuple(i.id for i in u.items), u.ready, u.exhausted,
                u.attacking, u.blocking, tuple(sorted(u.st.items())))

    sides = tuple((s.life, s.energy, s.max_energy, tuple(s.res), s.played_resource, tuple(s.hand), tuple(s.known),
                   tuple(s.deck), tuple(s.deck_vis), tuple(s.crypt), s.fatigue) for s in m.sides)
    return (sides, tuple(tuple(perm(u) for u in side) for side in m.board), m.turn_player, m.turn, m.phase,
            m.next_uid, tuple((c.player, c.kind, c.source, c.min_n, c.max_n, tuple(c.options or ()),
                               tuple(c.slots or ()), tuple(c.picked or ())) for c in m.choices),
            None if m.pend is None else tuple(m.pend), tuple(m.order_queue),
            tuple(sorted((k, tuple(v)) for k, v in m.order.items())), tuple(perm(u) for u in m.returns_eot),
            m.winner, m.attacked, m.then)


def describe_difference(a: Match, b: Match) -> str:
    """The first field where ``a`` and ``b`` differ (``"board[0][3].hurt: 2 != 0"``), or ``"no difference"``."""
    return _diff(canonical(a), canonical(b), _MATCH, "") or "no difference"


def _diff(x: Any, y: Any, names: Any, path: str) -> str | None:
    if isinstance(names, dict):
        for (key, sub), xi, yi in zip(names.items(), x, y):
            found = _diff(xi, yi, sub, f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(names, list):
        for i in range(max(len(x), len(y))):
            if i >= len(x) or i >= len(y):
                return (f"{path}[{i}]: {x[i] if i < len(x) else '(absent)'!r} != "
                        f"{y[i] if i < len(y) else '(absent)'!r} (lengths {len(x)} and {len(y)})")
            found = _diff(x[i], y[i], names[0], f"{path}[{i}]")
            if found:
                return found
        return None
    return None if x == y else f"{path}: {x!r} != {y!r}"

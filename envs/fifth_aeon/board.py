"""Fifth Aeon's board: the permanents, the players' zones, the pending choices and the ``Match`` that holds them.

``Match`` is the game's mutable data and its plain queries and bookkeeping; what changes the game through the
cards (drawing, choices, damage, triggers) is in ``effects``, the turn and combat in ``rules``. Deck order is
hidden state: ``Side.deck_vis`` records who knows a deck position (a card its owner put back is known to its
owner, a unit shuffled back from the board to both players).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card, CardPool, Mechanic
from .constants import STARTING_LIFE

PLAY1, BLOCK, ORDER, PLAY2, OVER = range(5)
PHASE_NAMES = ("play1", "block", "order", "play2", "over")
HIDDEN, OWNER_KNOWS, PUBLIC = 0, 1, 2  # who knows a deck position (``Side.deck_vis``)




class Perm:
    """A permanent on the board: a unit or an enchantment. ``dmg`` / ``max_life`` include buffs and items,
    ``aura_d`` / ``aura_l`` the lordships of the board now; life is ``max_life + aura_l - hurt``."""

    __slots__ = ("uid", "card", "owner", "dmg", "max_life", "aura_d", "aura_l", "hurt", "power", "granted", "items",
                 "mechs", "kw", "ready", "exhausted", "attacking", "blocking", "st")

    def __init__(self, uid: int, card: Card, owner: int, bonus: tuple[int, int] = (0, 0)):
        self.uid = uid
        self.card = card
        self.owner = owner
        self.dmg = card.damage + bonus[0]
        self.max_life = card.life + bonus[1]
        self.aura_d = self.aura_l = self.hurt = 0
        self.power = card.power
        self.granted: tuple[Mechanic, ...] = ()  # abilities given by effects
        self.items: tuple[Card, ...] = ()
        self.ready = False
        self.exhausted = False
        self.attacking = False
        self.blocking = -1  # uid of the attacker this unit blocks
        self.st: dict[str, int] = {}  # per-instance counters: deathless charges, shield, poison, sleep, ...
        self.rebuild()

    def rebuild(self) -> None:
        """Recompute the ability list and keyword set from the card, the granted abilities and the items."""
        mechs = self.card.mechanics + self.granted
        for item in self.items:
            mechs = mechs + item.mechanics
        lost = [k[5:] for k in self.st if k.startswith("lost:")]  # Webspit's Flying, a spent Deathless
        if lost:
            mechs = tuple(x for x in mechs if x.id not in lost)
        self.mechs = mechs
        self.kw = frozenset(m.id for m in mechs if m.trigger is None)

    def copy(self) -> "Perm":
        p = Perm.__new__(Perm)
        p.uid, p.card, p.owner, p.dmg, p.max_life = self.uid, self.card, self.owner, self.dmg, self.max_life
        p.aura_d, p.aura_l, p.hurt, p.power = self.aura_d, self.aura_l, self.hurt, self.power
        p.granted, p.items, p.mechs, p.kw = self.granted, self.items, self.mechs, self.kw
        p.ready, p.exhausted, p.attacking, p.blocking = self.ready, self.exhausted, self.attacking, self.blocking
        p.st = dict(self.st) if self.st else {}
        return p

    # -- derived -------------------------------------------------------------------------------------------------
    @property
    def is_unit(self) -> bool:
        return self.card.card_type == "unit"

    @property
    def attack(self) -> int:
        return max(0, self.dmg + self.aura_d)

    @property
    def life(self) -> int:
        return self.max_life + self.aura_l - self.hurt

    @property
    def full_life(self) -> int:
        return self.max_life + self.aura_l

    @property
    def unit_type(self) -> str:
        return self.card.unit_type

    @property
    def mechanical(self) -> bool:
        return self.card.mechanical

    def can_attack(self) -> bool:
        return self.is_unit and self.ready and not self.exhausted and "CannotAttack" not in self.kw

    def can_block(self, attacker: "Perm") -> bool:
        """Blocking rules of the model: not exhausted, not CannotBlock; Flying, Aquatic and Unblockable restrict."""
        if not self.is_unit or self.exhausted or "CannotBlock" in self.kw:
            return False
        akw, bkw = attacker.kw, self.kw
        if "Unblockable" in akw:
            return False
        if "Flying" in akw and not ("Flying" in bkw or "Ranged" in bkw):
            return False
        if "Aquatic" in akw and not ("Aquatic" in bkw or "Flying" in bkw):
            return False
        if "Aquatic" in bkw and "Aquatic" not in akw:
            return False
        return True

    def __repr__(self) -> str:
        if self.is_unit:
            return f"{self.card.name}({self.attack}/{self.life}#{self.uid})"
        return f"{self.card.name}(power {self.power}#{self.uid})"


class Side:
    """One player's zones and numbers. A hand entry is ``(card id, attack bonus, life bonus)`` (Research AI buffs
    units in hand); ``known`` marks hand entries the opponent has seen (Peek, cards returned to hand)."""

    __slots__ = ("life", "energy", "max_energy", "res", "played_resource", "hand", "known", "deck", "deck_vis",
                 "crypt", "fatigue")

    def __init__(self) -> None:
        self.life = STARTING_LIFE
        self.energy = self.max_energy = 0
        self.res = [0, 0, 0, 0]
        self.played_resource = False
        self.hand: list[tuple[str, int, int]] = []
        self.known: list[bool] = []
        self.deck: list[str] = []
        self.deck_vis: list[int] = []
        self.crypt: list[str] = []
        self.fatigue = 0

    def copy(self) -> "Side":
        s = Side.__new__(Side)
        s.life, s.energy, s.max_energy, s.res = self.life, self.energy, self.max_energy, list(self.res)
        s.played_resource, s.hand, s.known = self.played_resource, list(self.hand), list(self.known)
        s.deck, s.deck_vis, s.crypt, s.fatigue = list(self.deck), list(self.deck_vis), list(self.crypt), self.fatigue
        return s


@dataclass
class Choice:
    """A deferred choice: ``player`` picks ``min_n``..``max_n`` of ``options`` (card ids; ``slots`` the hand slots
    when the options are hand cards); ``kind`` says what happens to the picked ones (``effects.CHOICES``). The
    options are read from ``source`` (``hand``, ``deck``, ``crypt:TYPE``) when the choice reaches the front of the
    queue, so a choice made after another sees the zones as they are then."""

    player: int
    kind: str
    source: str
    min_n: int
    max_n: int
    options: list[str] | None = None
    slots: list[int] | None = None
    picked: list[int] | None = None

    def copy(self) -> "Choice":
        return Choice(self.player, self.kind, self.source, self.min_n, self.max_n,
                      None if self.options is None else list(self.options),
                      None if self.slots is None else list(self.slots), list(self.picked or []))


class Match:
    """The mutable game: two ``Side``s, the board, the phase and the pending decisions."""

    __slots__ = ("pool", "sides", "board", "turn_player", "turn", "phase", "next_uid", "choices", "pend",
                 "order_queue", "order", "returns_eot", "winner", "attacked", "then")

    def __init__(self, pool: CardPool, decks: tuple[list[str], list[str]]):
        self.pool = pool
        self.sides = (Side(), Side())
        for p in range(2):
            self.sides[p].deck = list(decks[p])
            self.sides[p].deck_vis = [HIDDEN] * len(decks[p])
        self.board: tuple[list[Perm], list[Perm]] = ([], [])
        self.turn_player = 0
        self.turn = 0
        self.phase = PLAY1
        self.next_uid = 1
        self.choices: list[Choice] = []
        self.pend: list[Any] | None = None  # a card being played: [hand slot, host uid or -1, stage 'host'/'target']
        self.order_queue: list[int] = []  # multi-blocked attackers (uid) whose damage order is still to be chosen
        self.order: dict[int, list[int]] = {}  # attacker uid -> blocker uids in damage order (chosen so far)
        self.returns_eot: list[Perm] = []  # Deathless / Immortal units (in the crypt) to return at the end of the turn
        self.winner = -1  # -1 running, 0/1 the winner, 2 a draw
        self.attacked = False
        self.then: str | None = None  # what follows once the pending choices are made ("next_turn")

    def copy(self) -> "Match":
        m = Match.__new__(Match)
        m.pool = self.pool
        m.sides = (self.sides[0].copy(), self.sides[1].copy())
        m.board = ([u.copy() for u in self.board[0]], [u.copy() for u in self.board[1]])
        m.turn_player, m.turn, m.phase, m.next_uid = self.turn_player, self.turn, self.phase, self.next_uid
        m.choices = [c.copy() for c in self.choices]
        m.pend = None if self.pend is None else list(self.pend)
        m.order_queue = list(self.order_queue)
        m.order = {k: list(v) for k, v in self.order.items()}
        m.returns_eot = [u.copy() for u in self.returns_eot]
        m.winner, m.attacked, m.then = self.winner, self.attacked, self.then
        return m

    # -- queries -------------------------------------------------------------------------------------------------
    @property
    def acting(self) -> int:
        """The player to decide now (-2 when the game is over)."""
        if self.winner >= 0:
            return -2
        if self.choices:
            return self.choices[0].player
        if self.phase == BLOCK:
            return 1 - self.turn_player
        return self.turn_player

    def card(self, card_id: str) -> Card:
        return self.pool.by_id[card_id]

    def units(self, player: int) -> list[Perm]:
        return [u for u in self.board[player] if u.card.card_type == "unit"]

    def all_units(self) -> list[Perm]:
        """Every unit, the turn player's first (trigger order)."""
        t = self.turn_player
        return [u for u in self.board[t] + self.board[1 - t] if u.card.card_type == "unit"]

    def all_perms(self) -> list[Perm]:
        t = self.turn_player
        return self.board[t] + self.board[1 - t]

    def find(self, uid: int) -> Perm | None:
        for side in self.board:
            for u in side:
                if u.uid == uid:
                    return u
        return None

    def meets(self, player: int, card: Card) -> bool:
        """The energy and resource thresholds of ``card`` are met by ``player``."""
        side = self.sides[player]
        if side.energy < card.energy:
            return False
        r = side.res
        q = card.requirements
        return r[0] >= q[0] and r[1] >= q[1] and r[2] >= q[2] and r[3] >= q[3]

    # -- zones ---------------------------------------------------------------------------------------------------
    def to_bottom(self, player: int, cid: str, vis: int) -> None:
        self.sides[player].deck.append(cid)
        self.sides[player].deck_vis.append(vis)

    def remove_from_hand(self, player: int, slot: int) -> tuple[str, int, int]:
        side = self.sides[player]
        side.known.pop(slot)
        return side.hand.pop(slot)

    # -- life and damage -----------------------------------------------------------------------------------------
    def damage_player(self, player: int, amount: int) -> int:
        if amount <= 0:
            return 0
        self.sides[player].life -= amount
        self.check_players()
        return amount

    def heal_player(self, player: int, amount: int) -> None:
        self.sides[player].life += amount

    def check_players(self) -> None:
        if self.winner >= 0:
            return
        dead = [p for p in range(2) if self.sides[p].life <= 0]
        if len(dead) == 2:
            self.end(2)
        elif dead:
            self.end(1 - dead[0])

    def end(self, winner: int) -> None:
        if self.winner < 0:
            self.winner = winner
            self.phase = OVER
            self.choices.clear()
            self.pend = None

    def play_resource(self, player: int, r: int) -> None:
        side = self.sides[player]
        side.played_resource = True
        side.res[r] += 1
        side.max_energy += 1
        side.energy += 1


def refresh(u: Perm) -> None:
    """A unit's refresh (start of its owner's turn, Relentless, Rush, RefreshTarget): ready, not exhausted, healed."""
    u.ready = True
    u.exhausted = False
    u.hurt = 0
    u.blocking = -1



def phase_name(m: Match) -> str:
    """The decision the match waits for: ``over``, ``choice``, ``target`` or the phase's name."""
    if m.winner >= 0:
        return "over"
    if m.choices:
        return "choice"
    if m.pend is not None:
        return "target"
    return PHASE_NAMES[m.phase]

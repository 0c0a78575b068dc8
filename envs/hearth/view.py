"""What a person sees of a Hearth state (``envs.view``): the heroes, hands and boards, the menu of moves and the log.

Hidden from a seat (and from a spectator, who sees no hand): the opponent's hand cards drawn from their deck
(``Card.unseen()``), which Spare Part a Spare Part is (its name shows, not its kind), the cards a mulligan set
aside, and the contents and order of every deck but the seat's own contents. Known to both players: the boards,
the heroes, The Coin, Antonidas's Fireballs and minions returned to hand (``layout.ORIGIN_KNOWN``), and a card
burned by a full hand. Hand cards, minions and mulligan choices are named by card, copies told apart by
``envs.view.numbered`` ("Wisp #2"), positions counted from 1.
"""
from __future__ import annotations

from ..flat_state import FlatState
from ..view import Card, Seat, View, Zone, doer, numbered, status_line
from . import layout as L
from .cards import CARD_TEXT, SPARE_PART_TEXT
from .render import render_text

_TYPES = ("minion", "spell", "weapon", "hero", "hero power")
_RACES = {code: race.lower() for race, code in L.RACES.items() if race is not None}
_KEYWORDS = {L.KW_TAUNT: "taunt", L.KW_CHARGE: "charge", L.KW_DIVINE_SHIELD: "divine shield",
             L.KW_STEALTH: "stealth"}
_MINION_TAGS = (("taunt", "taunt"), ("divine_shield", "divine shield"), ("stealth", "stealth"), ("frozen", "frozen"),
                ("silenced", "silenced"), ("exhausted", "exhausted"), ("can_attack", "can attack"))  # minions() keys


# ---- the view --------------------------------------------------------------------------------------------
def view(state: FlatState, perspective: int | None) -> View:
    """What ``perspective`` (a seat, or None: a spectator) sees: a panel per hero, each side's hand and board
    (and the cards a mulligan set aside, while it waits for the replacements), the game's text board."""
    if perspective is not None:
        state._check_player(perspective)
    decks = state.game.decks
    zones = []
    for p in range(2):
        zones.append(Zone(f"hand of player {p}", _hand(state, p, perspective), p))
        aside = _aside(state, p, perspective)
        if aside:
            zones.append(Zone(f"set aside by player {p}", aside, p))
        zones.append(Zone(f"board of player {p}", tuple(_minion(state, m) for m in state.minions(p)), p))
    return View(f"Hearth: {decks[0].name} vs {decks[1].name}", status_line(state), perspective,
                render_text(state, () if perspective is None else (perspective,)),
                seats=tuple(_seat(state, p) for p in range(2)), zones=tuple(zones),
                counters={"turn": state.turn, "phase": state.phase})


def _seat(state: FlatState, p: int) -> Seat:
    hero, names = state.hero(p), state.game.names
    counters: dict[str, int | str] = {
        "hero": "Lord Jaraxxus" if hero["jaraxxus"] else state.game.decks[p].player_class,
        "health": f"{hero['health']}/{hero['max_health']}", "mana": f"{hero['mana']}/{hero['max_mana']}",
        "hand": hero["hand_size"], "deck": hero["deck_size"], "fatigue": hero["fatigue"],
        "hero power": names[hero["power"]] + (" (used)" if hero["power_used"] else ""),
    }
    if hero["weapon"] >= 0:
        counters["weapon"] = f"{names[hero['weapon']]} {hero['attack']}/{hero['durability']}"
    if hero["trap"]:
        counters["secret"] = names[L.EXPLOSIVE_TRAP]
    if hero["spell_tax"]:
        counters["spells cost more"] = hero["spell_tax"]
    flags = [flag for flag in ("frozen", "immune") if hero[flag]]
    if flags:
        counters["status"] = ", ".join(flags)
    return Seat(f"player {p} ({state.game.decks[p].name})", counters)


def _face(state: FlatState, card: int, cost: int | None = None, tags: tuple[str, ...] = ()) -> Card:
    """Card id ``card`` as printed (``cost``: what it costs now, in a hand), with its type, race and keywords."""
    row = state.game.cards[card]
    kind = int(row[L.F_TYPE])
    stats = {"attack": int(row[L.F_ATK]), ("health" if kind == L.TYPE_MINION else "durability"): int(row[L.F_HP])} \
        if kind in (L.TYPE_MINION, L.TYPE_WEAPON) else {}
    race = (_RACES[int(row[L.F_RACE])],) if row[L.F_RACE] != L.RACE_NONE else ()
    keywords = tuple(word for bit, word in _KEYWORDS.items() if row[L.F_KEYWORDS] & bit)
    return Card(state.game.names[card], int(row[L.F_COST]) if cost is None else cost, CARD_TEXT[L.CARD_IDS[card]],
                stats, (_TYPES[kind], *race, *keywords, *tags))


def _hand(state: FlatState, p: int, perspective: int | None) -> tuple[Card, ...]:
    """p's hand, slot by slot: every card for p, else the public ones (a Spare Part by its kind only)."""
    costs = state.hand_costs(p)
    out = []
    for card, origin, cost in zip(state.hand(p), state.hand_origin(p), costs):
        if perspective == p or origin == L.ORIGIN_KNOWN:
            out.append(_face(state, int(card), int(cost)))
        elif origin == L.ORIGIN_SPARE_PART:
            out.append(Card("Spare Part", int(cost), SPARE_PART_TEXT, tags=("spell",), hidden=True))
        else:
            out.append(Card.unseen())
    return tuple(out)


def _aside(state: FlatState, p: int, perspective: int | None) -> tuple[Card, ...]:
    b = L.player_base(p)
    cards = state.s[b + L.P_ASIDE:b + L.P_ASIDE + int(state.s[b + L.P_NASIDE])]
    return tuple(_face(state, int(c)) if perspective == p else Card.unseen() for c in cards)


def _minion(state: FlatState, m: dict) -> Card:
    """A minion on the board (``HearthState.minions``): its current stats and states."""
    card = _face(state, m["card"])
    return Card(card.name, card.cost, card.text,
                {"attack": m["attack"], "health": m["health"], "max health": m["max_health"]},
                tuple(word for key, word in _MINION_TAGS if m[key]))


# ---- naming characters, cards and positions ------------------------------------------------------------------
def _minion_labels(state: FlatState, side: int) -> list[str]:
    return numbered([m["name"] for m in state.minions(side)])


def _hand_label(state: FlatState, p: int, slot: int) -> str:
    labels = numbered([state.game.names[c] for c in state.hand(p)])
    return labels[slot] if slot < len(labels) else f"empty hand position {slot + 1}"


def _name(state: FlatState, side: int, k: int) -> str:
    """Character ``k`` of ``side``: 0 its hero, 1..7 its minions from the left."""
    if k == 0:
        return "hero"
    labels = _minion_labels(state, side)
    return labels[k - 1] if k <= len(labels) else f"empty position {k}"


def _character(state: FlatState, side: int, k: int, whose: str) -> str:
    return f"{whose} {_name(state, side, k)}"


def _whose(side: int, viewer: int | None) -> str:
    return "your" if side == viewer else f"player {side}'s"


def _pending(state: FlatState) -> str:
    card = int(state.s[L.G_PENDING_CARD])
    return state.game.names[card] if card >= 0 else "the card"


def _position(state: FlatState, p: int, q: int) -> str:
    """Where position ``q`` (0 .. p's minion count) puts a minion on p's board."""
    labels = _minion_labels(state, p)
    if not labels:
        return "on the empty board"
    if q == 0:
        return f"left of {labels[0]}"
    if q >= len(labels):
        return f"right of {labels[-1]}"
    return f"between {labels[q - 1]} and {labels[q]}"


def _mulligan(state: FlatState, p: int, mask: int) -> str:
    replaced = [_hand_label(state, p, i) for i in range(L.HAND_LIMIT) if mask >> i & 1]
    return "replace " + ", ".join(replaced) if replaced else "keep every card"


# ---- the menu and the log ------------------------------------------------------------------------------------
def action_path(state: FlatState, a: int) -> tuple[str, ...]:
    """The menu path of decision ``a`` of the player to move (``action_to_string`` joins it with ": "):
    ("play", card), ("target for Fireball", "enemy hero"), ("place Defender of Argus", "left of Wisp"),
    ("attack", "Chillwind Yeti", "enemy Boulderfist Ogre"), ("hero power", "Fireblast"), ("end turn",),
    ("mulligan", "replace Fireball, Frostbolt")."""
    p = int(state.s[L.G_PLAYER])
    if a < L.TARGET:
        return "play", _hand_label(state, p, a - L.PLAY)
    if a < L.POSITION:
        t = a - L.TARGET
        return f"target for {_pending(state)}", _character(state, p if t < 8 else 1 - p, t % 8,
                                                            "your" if t < 8 else "enemy")
    if a < L.ATTACK:
        return f"place {_pending(state)}", _position(state, p, a - L.POSITION)
    if a < L.HERO_POWER:
        k = a - L.ATTACK
        attacker = "your hero" if k // 8 == 0 else _name(state, p, k // 8)
        return "attack", attacker, _character(state, 1 - p, k % 8, "enemy")
    if a == L.HERO_POWER:
        return "hero power", state.game.names[state.s[L.player_base(p) + L.P_POWER]]
    if a == L.END_TURN:
        return ("end turn",)
    return "mulligan", _mulligan(state, p, a - L.MULLIGAN)


def action_seen(state: FlatState, a: int, perspective: int | None) -> str:
    """How ``perspective`` sees ``a`` applied here: a decision in words, a chance outcome as far as it is public
    (the opponent's draw: "player 1 draws a card"; one's own: "you draw Fireball")."""
    op = state.pending_op()
    if op is not None:
        return outcome_seen(state, op, a, perspective)
    p = int(state.s[L.G_PLAYER])
    you, does = perspective == p, doer(perspective, p)
    if a < L.TARGET:
        return f"{does('play')} {state.game.names[state.hand(p)[a - L.PLAY]]}"
    if a < L.POSITION:
        t = a - L.TARGET
        side = p if t < 8 else 1 - p
        return f"{does('aim')} {_pending(state)} at {_character(state, side, t % 8, _whose(side, perspective))}"
    if a < L.ATTACK:
        return f"{does('place')} {_pending(state)} {_position(state, p, a - L.POSITION)}"
    if a < L.HERO_POWER:
        k = a - L.ATTACK
        return (f"{_character(state, p, k // 8, _whose(p, perspective))} attacks "
                f"{_character(state, 1 - p, k % 8, _whose(1 - p, perspective))}")
    if a == L.HERO_POWER:
        return f"{does('use')} {state.game.names[state.s[L.player_base(p) + L.P_POWER]]}"
    if a == L.END_TURN:
        return f"{does('end')} the turn"
    mask = a - L.MULLIGAN
    if you:
        return f"you {_mulligan(state, p, mask)}"
    return f"{does('replace')} {bin(mask).count('1')} cards" if mask else f"{does('keep')} every card"


def outcome_seen(state: FlatState, op: tuple[int, int, int, int], x: int, perspective: int | None,
                  everything: bool = False) -> str:
    """Chance outcome ``x`` of the pending ``op`` (kind, player, a, b) as ``perspective`` sees it (``everything``:
    as one who sees every card, ``action_to_string``'s)."""
    kind, q = op[0], op[1]
    names = state.game.names
    sees, does = perspective == q or everything, doer(perspective, q)
    if kind == L.OP_DRAW:
        if state.s[L.player_base(q) + L.P_NHAND] >= L.HAND_LIMIT:
            return f"{does('draw')} {names[x]}, which burns: the hand is full"
        return f"{does('draw')} {names[x] if sees else 'a card'}"
    if kind == L.OP_SPARE_PART:
        return f"{does('get')} {f'{names[x]} (a Spare Part)' if sees else 'a Spare Part'}"
    if kind == L.OP_COMPANION:
        return f"Animal Companion summons {names[x]}"
    if kind == L.OP_RANDOM_DAMAGE:
        return f"{op[2]} damage to {_character(state, x // 8, x % 8, _whose(x // 8, perspective))}"
    if kind == L.OP_BOOM_BOT:
        c = x // 4
        return f"Boom Bot deals {x % 4 + 1} damage to {_character(state, c // 8, c % 8, _whose(c // 8, perspective))}"
    if kind == L.OP_VOIDCALLER:
        return f"Voidcaller puts {names[state.hand(q)[x]]} from {_whose(q, perspective)} hand into the battlefield"
    if kind == L.OP_GLAIVEZOOKA:
        return f"Glaivezooka gives {_character(state, q, 1 + x, _whose(q, perspective))} +1 Attack"
    return f"Sylvanas takes control of {_character(state, 1 - q, 1 + x, _whose(1 - q, perspective))}"

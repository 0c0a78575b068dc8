"""What a person sees of a Lords of War state (``envs.view``): the mat, hands, eliminated piles, menu and log.

Hidden from a seat (and from a spectator, who sees no hand): the opponent's hand cards it has not seen enter the
hand (``Card.unseen()``; the General at the start, recalled units and a hand shown after a forced placement are
seen: ``layout.KNOWN``) and the order of both decks. The grid is drawn from the seat's side: its own edge is the
bottom row (a spectator: player 0's), so a card's arrows on the grid point as drawn (N = up), while a card's text
and a hand card's arrows are printed in the card's own frame (N = toward its enemy).
"""
from __future__ import annotations

from ..flat_state import FlatState
from ..view import Card, Cell, Seat, View, Zone, doer, numbered, status_line
from . import layout as L
from . import rules as R
from .cards import CardType
from .layout import ARMY_SIZE, COLS, DIRECTION_NAMES, HAND_SIZE, ROWS, WIN_COMMAND, WIN_ELIMINATED, square_name
from .render import render_text


# ---- cards -----------------------------------------------------------------------------------------------
def _arrows(attack: tuple[int, ...], turn: int) -> str:
    """Arrow strengths per direction, turned by ``turn`` eighths ("N5 NE4 W3"; "none")."""
    drawn = {(d + turn) % 8: a for d, a in enumerate(attack) if a}
    return " ".join(f"{DIRECTION_NAMES[d]}{drawn[d]}" for d in sorted(drawn)) or "none"


def _offsets(grid: tuple[tuple[int, int], ...]) -> str:
    """A ranged grid of (right, forward) offsets in words, one row at a time: "2 ahead: 1 left, centre, 1 right"."""
    rows = []
    for forward in sorted({f for _, f in grid}, key=lambda f: (f < 0, abs(f))):
        where = f"{forward} ahead" if forward > 0 else f"{-forward} behind" if forward < 0 else "level"
        cols = [f"{-r} left" if r < 0 else f"{r} right" if r > 0 else "centre" for r in sorted(r for r, f in grid
                                                                                                if f == forward)]
        rows.append(f"{where}: {', '.join(cols)}")
    return "; ".join(rows)


def card_text(t: CardType) -> str:
    """A card's printed stats in words (the armies' data has no rules text), in the card's own frame."""
    kind = f"{t.rank} {t.cls}" + (", the General" if t.general else "") + (", support" if t.support else "")
    text = f"{kind[0].upper()}{kind[1:]}. Defence {t.defence}. Arrows {_arrows(t.attack, 0)}."
    if t.missile:
        text += f" Shoots {t.missile} damage at one enemy on: {_offsets(t.grid)}."
    return text


def _card(t: CardType, turn: int = 0, tags: tuple[str, ...] = ()) -> Card:
    """A card of type ``t``, its arrows turned by ``turn`` eighths (0: as printed)."""
    stats: dict[str, int | str] = {"defence": t.defence, "arrows": _arrows(t.attack, turn)}
    if t.missile:
        stats["missile"] = t.missile
    kinds = (t.rank, t.cls) + (("general",) if t.general else ()) + (("support",) if t.support else ())
    return Card(t.name, None, card_text(t), stats, kinds + tags)


# ---- the view --------------------------------------------------------------------------------------------
def view(state: FlatState, perspective: int | None) -> View:
    """What ``perspective`` (a seat, or None: a spectator) sees: a panel per player, each hand and eliminated
    pile, the 7x6 mat as a grid (``Cell.text``: the square's name), the game's text board."""
    if perspective is not None:
        state._check_player(perspective)
    s, armies = state.s, state.game.armies
    types = [t for army in armies for t in army.card_types()]  # by card id
    seats, zones = [], []
    for p in range(2):
        seats.append(Seat(f"player {p} ({armies[p].name})", {
            "cards lost": f"{s[L.NDEAD + p]}/{WIN_ELIMINATED}", "command lost": f"{s[L.NCMD + p]}/{WIN_COMMAND}",
            "hand": int(s[L.NHAND + p]), "deck": int(s[L.NDECK + p])}))
        hand = [int(c) for c in s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + s[L.NHAND + p]]]
        seen = hand if perspective == p else [c for c in hand if s[L.KNOWN + c]]  # known ones first, in id order
        faces = tuple(_card(types[c]) for c in seen) + (Card.unseen(),) * (len(hand) - len(seen))
        zones.append(Zone(f"hand of player {p}", faces, p))
        dead = s[L.DEAD + p * ARMY_SIZE:L.DEAD + p * ARMY_SIZE + s[L.NDEAD + p]]
        zones.append(Zone(f"eliminated cards of player {p}", tuple(_card(types[c]) for c in dead), p))
    bottom = perspective or 0
    cells = []
    for row in range(ROWS):  # from the top as drawn
        for col in range(COLS):
            sq = (ROWS - 1 - row) * COLS + col if bottom == 0 else row * COLS + COLS - 1 - col
            c = int(s[L.BOARD + sq])
            owner = c // ARMY_SIZE if c >= 0 else None
            tags = (("fought",) if s[L.FOUGHT + sq] else ()) + (("placed this turn",) if s[L.PLACED] == sq else ())
            card = _card(types[c], 0 if owner == bottom else 4, tags) if c >= 0 else None
            cells.append(Cell(row, col, card, square_name(sq), owner))
    return View(f"Lords of War: {armies[0].name} vs {armies[1].name}", status_line(state), perspective,
                render_text(state, () if perspective is None else (perspective,)), seats=tuple(seats),
                zones=tuple(zones), grid=(ROWS, COLS), cells=tuple(cells),
                counters={"turn": state.turn, "phase": state.phase})


# ---- the menu and the log ------------------------------------------------------------------------------------
def _on(state: FlatState, e: int) -> tuple[str, str]:
    """The card name and absolute square name of square ``e`` in the mover's frame."""
    sq = R.ego(e, int(state.s[L.PLAYER]))
    c = int(state.s[L.BOARD + sq])
    return (state.game.card_names[c] if c >= 0 else "nothing"), square_name(sq)


def action_path(state: FlatState, a: int) -> tuple[str, ...]:
    """The menu path of legal action ``a``: ("deploy", card, square) (copies told apart: "Orc Grunts #2"),
    ("shoot", "Dwarf Warriors on d5"), ("hold fire",), ("draw",), ("recall", "Orc Grunts on c3")."""
    p = int(state.s[L.PLAYER])
    if a < L.A_TARGET:
        slot, e = divmod(a - L.A_DEPLOY, L.NUM_SQUARES)
        hand = state.s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + state.s[L.NHAND + p]]
        return "deploy", numbered([state.game.card_names[c] for c in hand])[slot], square_name(R.ego(e, p))
    if a < L.A_HOLD_FIRE:
        return "shoot", "{} on {}".format(*_on(state, a - L.A_TARGET))
    if a == L.A_HOLD_FIRE:
        return ("hold fire",)
    if a == L.A_DRAW:
        return ("draw",)
    return "recall", "{} on {}".format(*_on(state, a - L.A_RECALL))


def action_seen(state: FlatState, a: int, perspective: int | None) -> str:
    """How ``perspective`` sees legal action ``a`` applied here: every move is public but a draw's card."""
    p = int(state.s[L.PLAYER])
    you, does = perspective == p, doer(perspective, p)
    if a < L.A_TARGET:
        slot, e = divmod(a - L.A_DEPLOY, L.NUM_SQUARES)
        card = state.game.card_names[state.s[L.HAND + p * HAND_SIZE + slot]]
        then = f" and {'draw' if you else 'draws'} a card" if state.s[L.PHASE] == L.PH_OPENING else ""
        return f"{does('deploy')} {card} to {square_name(R.ego(e, p))}{then}"
    if a < L.A_HOLD_FIRE:
        shooter = _on(state, R.ego(int(state.s[L.PLACED]), p))[0]
        return f"{does('shoot')} {'{} on {}'.format(*_on(state, a - L.A_TARGET))} with {shooter}"
    if a == L.A_HOLD_FIRE:
        return f"{does('hold')} fire"
    if a == L.A_DRAW:
        return f"{does('draw')} a card"
    return f"{does('recall')} {'{} from {}'.format(*_on(state, a - L.A_RECALL))}"

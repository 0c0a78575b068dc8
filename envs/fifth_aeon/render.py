"""Text and image renderings of a Fifth Aeon state (the env's ``ansi`` and ``rgb_array`` modes)."""
from __future__ import annotations

import numpy as np

from .board import Match, Perm, phase_name
from .constants import RESOURCES


def _perm(u: Perm) -> str:
    if not u.is_unit:
        return f"{u.card.name} [power {u.power}]"
    marks = "".join(ch for ch, on in (("A", u.attacking), ("B", u.blocking >= 0), ("z", u.exhausted),
                                      ("s", not u.ready), ("P", u.st.get("poison", 0)), ("Z", u.st.get("sleep", 0)),
                                      ("S", u.st.get("shield", 0))) if on)
    kw = ",".join(sorted(k for k in u.kw if k not in ("robotic",)))
    items = "+" + "+".join(i.name for i in u.items) if u.items else ""
    return f"{u.card.name}{items} {u.attack}/{u.life}{' ' + kw if kw else ''}{' ' + marks if marks else ''}"


def render_ansi(m: Match, perspective: int | None = None) -> str:
    """The board as text; with ``perspective`` the opponent's unseen hand cards are shown as '?'."""
    return render_text(m, (0, 1) if perspective is None else (perspective,))


def choice_public(m: Match, viewer: int | None) -> bool:
    """Whether ``viewer`` (None: a spectator) may see the options of the pending choice: its chooser's, or a choice
    from a crypt (public); a hand or deck choice of the other player is hidden."""
    c = m.choices[0]
    return viewer == c.player or c.source.startswith("crypt")


def render_text(m: Match, shown: tuple[int, ...]) -> str:
    """The board as text, with the hands of the players in ``shown`` (and the opponents' cards they have seen)
    named and the rest as '?': ``()`` is a spectator's view."""
    head = f"turn {m.turn}, {phase_name(m)}"
    if m.winner >= 0:
        head += f": {'draw' if m.winner == 2 else f'player {m.winner} wins'}"
    else:
        head += f", player {m.acting} to act (player {m.turn_player}'s turn)"
    lines = [head]
    for p in (1, 0):
        side = m.sides[p]
        res = " ".join(f"{r[:3]}{n}" for r, n in zip(RESOURCES, side.res))
        lines.append(f"P{p} life {side.life}, energy {side.energy}/{side.max_energy} ({res}), deck {len(side.deck)}, "
                     f"crypt {len(side.crypt)}")
        hand = [m.card(c).name if p in shown or seen else "?" for (c, _, _), seen in zip(side.hand, side.known)]
        lines.append("  hand: " + (", ".join(hand) or "-"))
        lines.append("  board: " + (" | ".join(_perm(u) for u in m.board[p]) or "-"))
    if m.choices:
        c = m.choices[0]
        options = (", ".join(m.card(o).name for o in c.options) if any(choice_public(m, v) for v in shown or (None,))
                   else "hidden")
        lines.append(f"choice for P{c.player}: {c.kind} {c.min_n} to {c.max_n} of {options}")
    return "\n".join(lines)


def render_rgb(m: Match) -> np.ndarray:
    """A small picture: each side's units as cells (attack red, life green), enchantments blue; life, energy and
    hand size as bars."""
    img = np.full((120, 280, 3), 30, dtype=np.uint8)
    for p in range(2):
        top = 70 if p == 0 else 10
        side = m.sides[p]
        img[top + 35:top + 40, 0:int(280 * min(max(side.life, 0), 50) / 50)] = (200, 200, 60)
        img[top + 41:top + 44, 0:int(280 * min(side.max_energy, 20) / 20)] = (60, 60, 200)
        img[top + 41:top + 44, 0:int(280 * min(side.energy, 20) / 20)] = (120, 120, 255)
        for h in range(len(side.hand)):  # a tick a card in hand
            img[top + 45:top + 48, 4 + 8 * h:10 + 8 * h] = (200, 200, 200)
        for i, u in enumerate(m.board[p]):
            x = 5 + i * 39
            img[top:top + 30, x:x + 34] = (80, 80, 110) if u.is_unit else (60, 60, 200)
            if u.is_unit:
                img[top + 2:top + 2 + min(u.attack, 14) * 2, x + 2:x + 8] = (220, 60, 60)
                img[top + 2:top + 2 + min(max(u.life, 0), 14) * 2, x + 26:x + 32] = (60, 200, 60)
    return img

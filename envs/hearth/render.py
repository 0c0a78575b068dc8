"""Text and image renderings of a Hearth state (the env's ``ansi`` and ``rgb_array`` modes)."""
from __future__ import annotations

from collections.abc import Collection

import numpy as np

from . import layout as L


def _side(state, p: int, show_hand: bool) -> list[str]:
    hero = state.hero(p)
    names = state.game.names
    weapon = f" {names[hero['weapon']]} {hero['attack']}/{hero['durability']}" if hero["weapon"] >= 0 else ""
    flags = "".join(f" [{w}]" for w, on in (("frozen", hero["frozen"]), ("trap", hero["trap"]),
                                            ("immune", hero["immune"])) if on)
    lines = [f"P{p} {'Jaraxxus' if hero['jaraxxus'] else state.game.decks[p].player_class} "
             f"{hero['health']}/{hero['max_health']} hp, mana {hero['mana']}/{hero['max_mana']}, "
             f"deck {hero['deck_size']}{weapon}{flags}"]
    if show_hand:
        lines.append("  hand: " + ", ".join(f"{names[c]}({k})" for c, k in zip(state.hand(p), state.hand_costs(p))))
    else:
        lines.append(f"  hand: {hero['hand_size']} cards")
    minions = []
    for m in state.minions(p):
        marks = "".join(ch for ch, on in (("T", m["taunt"]), ("D", m["divine_shield"]), ("S", m["stealth"]),
                                          ("F", m["frozen"]), ("z", m["exhausted"])) if on)
        minions.append(f"{m['name']} {m['attack']}/{m['health']}{' ' + marks if marks else ''}")
    lines.append("  board: " + (" | ".join(minions) or "-"))
    return lines


def render_ansi(state, perspective: int | None = None) -> str:
    """The board as text; with ``perspective`` the opponent's hand is shown only as a count."""
    return render_text(state, range(2) if perspective is None else (perspective,))


def render_text(state, shown: Collection[int]) -> str:
    """The board as text, with the hands of the players in ``shown`` (a spectator's view: none)."""
    head = f"turn {state.turn}, {state.phase}"
    if state.is_terminal():
        w = state.winner()
        head += f": {'draw' if w is None else f'player {w} wins'}"
    else:
        head += f", player {int(state.s[L.G_PLAYER])} to act"
    lines = [head]
    for p in (1, 0):
        lines += _side(state, p, p in shown)
    return "\n".join(lines)


def render_rgb(state) -> np.ndarray:
    """A small picture: each side's minions as coloured cells (attack red, health green), heroes as bars."""
    img = np.full((120, 280, 3), 30, dtype=np.uint8)
    for p in range(2):
        top = 70 if p == 0 else 10
        hp = max(state.hero(p)["health"], 0)
        img[top + 35:top + 40, 0:int(280 * min(hp, 30) / 30)] = (200, 200, 60)
        for i, m in enumerate(state.minions(p)):
            x = 5 + i * 39
            img[top:top + 30, x:x + 34] = (80, 80, 110)
            img[top + 2:top + 2 + min(m["attack"], 14) * 2, x + 2:x + 8] = (220, 60, 60)
            img[top + 2:top + 2 + min(max(m["health"], 0), 14) * 2, x + 26:x + 32] = (60, 200, 60)
    return img

"""Helpers of the Pandemic tests: positions from partial set-up dicts, action ids and chance by city name, and
the invariants every reachable state keeps.

``position(...)`` fills a set-up dict (``setup_file``'s schema) with sensible defaults and builds the state:
the paper's four roles, every pawn in Atlanta, empty hands, one station (Atlanta); a player or infection
zone left out holds every card the others do not.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from cardboard.envs.pandemic import layout as L
from cardboard.envs.pandemic import macro as M
from cardboard.envs.pandemic.board import CITY_COLOURS, CITY_INDEX, CITY_NAMES, neighbours
from cardboard.envs.pandemic.setup_file import parse_setup
from cardboard.envs.pandemic.state import PandemicGame, PandemicState
from cardboard.envs.protocol import CHANCE

PAPER_ROLES = ("operations_expert", "medic", "researcher", "scientist")
BLUE, YELLOW, BLACK, RED = range(4)
__all__ = ["BLACK", "BLUE", "CHANCE", "CITY_NAMES", "L", "RED", "YELLOW", "apply_all", "build_move", "charter",
           "check_invariants", "city", "colour_of", "cube", "cure", "deck_orders", "direct", "discard", "dispatch",
           "draw", "drive", "give", "groups", "hand", "infect", "legal", "names", "neighbours", "ops_move", "piles",
           "position", "random_states", "random_step", "setup_dict", "shuttle", "take", "to_draw", "treat",
           "macro_game", "macro_position", "as_macro"]


# ---- names --------------------------------------------------------------------------------------------
def city(name: str) -> int:
    return CITY_INDEX[name.lower()]


def names(ids: Iterable[int]) -> set[str]:
    return {CITY_NAMES[int(c)] for c in ids}


def colour_of(name: str) -> int:
    return int(CITY_COLOURS[city(name)])


# ---- action ids ---------------------------------------------------------------------------------------
def drive(c): return L.A_DRIVE + city(c)
def direct(c): return L.A_DIRECT + city(c)
def charter(c): return L.A_CHARTER + city(c)
def shuttle(c): return L.A_SHUTTLE + city(c)
def ops_move(dest, card): return L.A_OPS_MOVE + city(dest) * L.NUM_CITIES + city(card)
def treat(colour): return L.A_TREAT + colour
def build_move(c): return L.A_BUILD_MOVE + city(c)
def give(seat, card): return L.A_GIVE + seat * L.NUM_CITIES + city(card)
def take(seat, card): return L.A_TAKE + seat * L.NUM_CITIES + city(card)
def cure(colour): return L.A_CURE + colour
def discard(card): return L.A_DISCARD + city(card)


def dispatch(seat, mode, c):
    return L.A_DISPATCH + (seat * len(L.DISPATCH_MODES) + L.DISPATCH_MODES.index(mode)) * L.NUM_CITIES + city(c)


# ---- positions ------------------------------------------------------------------------------------------
def _cube_counts(spec: int | Mapping[str, int], name: str) -> dict[str, int]:
    return {L.COLOUR_NAMES[colour_of(name)]: spec} if isinstance(spec, int) else dict(spec)


def setup_dict(roles: Sequence[str] = PAPER_ROLES, at: Mapping[int, str] | None = None,
               hands: Mapping[int, Sequence[str]] | None = None, cubes: Mapping[str, object] | None = None,
               player_deck: Sequence[Sequence[str]] | None = None, player_discard: Sequence[str] | None = None,
               infection_deck: Sequence[Sequence[str]] | None = None,
               infection_discard: Sequence[str] | None = None, stations: Sequence[str] = ("Atlanta",),
               **fields) -> dict:
    """A complete set-up dict. ``at`` / ``hands``: {seat: city} / {seat: [cards]}; ``cubes``: {city: n of its own
    colour, or {colour: n}}. Of ``player_deck`` (piles) and ``player_discard`` the one left out takes every city
    card in no hand and not in the other (the deck as one pile by default); likewise the infection deck (groups)
    and its discard (all cards in one deck group by default). ``fields``: any other top-level field."""
    at, hands = dict(at or {}), {q: list(h) for q, h in (hands or {}).items()}
    in_hands = [c for h in hands.values() for c in h]
    if player_deck is None:
        used = set(in_hands) | set(player_discard or ())
        player_deck = [[c for c in CITY_NAMES if c not in used]]
    if player_discard is None:
        used = set(in_hands) | {c for pile in player_deck for c in pile}
        player_discard = [c for c in CITY_NAMES if c not in used]
    if infection_deck is None:
        used = set(infection_discard or ())
        infection_deck = [[c for c in CITY_NAMES if c not in used]]
    if infection_discard is None:
        used = {c for g in infection_deck for c in g}
        infection_discard = [c for c in CITY_NAMES if c not in used]
    return {
        "version": 1,
        "seats": [{"role": r, "city": at.get(q, "Atlanta"), "hand": hands.get(q, [])} for q, r in enumerate(roles)],
        "player_deck": [list(p) for p in player_deck],
        "player_discard": list(player_discard),
        "infection_deck": [list(g) for g in infection_deck],
        "infection_discard": list(infection_discard),
        "cubes": {c: _cube_counts(n, c) for c, n in (cubes or {}).items()},
        "research_stations": list(stations),
        **fields,
    }


@lru_cache(maxsize=None)
def game(players: int) -> PandemicGame:
    return PandemicGame(players=players)


def position(**kwargs) -> PandemicState:
    """The state of ``setup_dict(**kwargs)``."""
    data = setup_dict(**kwargs)
    return PandemicState(game(len(data["seats"])), parse_setup(data).array())


# ---- reading and playing ------------------------------------------------------------------------------------
def cube(state, name: str, colour: int | None = None) -> int:
    """Cubes of ``colour`` (default: the city's own) on city ``name``."""
    k = colour_of(name) if colour is None else colour
    return int(state.s[L.CUBES + city(name) * L.NUM_COLOURS + k])


def hand(state, seat: int) -> set[str]:
    return names(np.flatnonzero(state.s[L.HAND + seat * L.NUM_CITIES:L.HAND + (seat + 1) * L.NUM_CITIES]))


def legal(state) -> set[int]:
    return {int(a) for a in state.legal_actions()}


def apply_all(state, *actions: int):
    for a in actions:
        state.apply(a)
    return state


def _chance(state, cards: Sequence[str | int]) -> None:
    for c in cards:
        assert state.current_player == CHANCE, f"not a chance node ({state.phase}) before {c!r}"
        state.apply(L.EPIDEMIC if c == "epidemic" else c if isinstance(c, int) else city(c))


def draw(state, *cards: str):
    """Player-card draws (city names or "epidemic"); the bottom infection card of an epidemic is also a name."""
    _chance(state, cards)
    return state


def infect(state, *cities: str):
    """Infection draws, by city name."""
    _chance(state, cities)
    return state


def to_draw(state):
    """End the acting seat's actions (pass): the player-card draw comes next."""
    state.apply(L.A_PASS)
    return state


# ---- invariants ----------------------------------------------------------------------------------------------
def check_invariants(state) -> None:
    """Every rule-given invariant of a reachable state (003 §1.1, §1.5, §1.6); raises AssertionError naming it."""
    s, n = state.s, state.num_players
    cubes = s[L.CUBES:L.CUBES + L.NUM_CITIES * L.NUM_COLOURS].reshape(L.NUM_CITIES, L.NUM_COLOURS)
    supply = s[L.SUPPLY:L.SUPPLY + L.NUM_COLOURS]
    assert (cubes.sum(0) + supply == L.CUBES_PER_COLOUR).all(), f"cube conservation: {cubes.sum(0)} + {supply}"
    assert cubes.min() >= 0 and cubes.max() <= L.MAX_CUBES_PER_CITY, "0..3 cubes of a colour in a city"
    assert (supply >= 0).all(), "supply >= 0"
    hands = s[L.HAND:L.HAND + n * L.NUM_CITIES].reshape(n, L.NUM_CITIES)
    assert (hands.sum(1) == s[L.NHAND:L.NHAND + n]).all(), "hand counts"
    deck = s[L.PDECK + s[L.PTOP]:L.PDECK + s[L.PEND]]
    player_cards = Counter(np.flatnonzero(hands.sum(0)).tolist() + deck.tolist()
                           + np.flatnonzero(s[L.PDISCARD:L.PDISCARD + L.NUM_CITIES]).tolist())
    assert hands.sum(0).max() <= 1, "a city card in two hands"
    epidemics = player_cards.pop(L.EPIDEMIC, 0)
    assert player_cards == Counter(range(L.NUM_CITIES)), "every city card once in hands + deck + discard"
    assert epidemics + s[L.EPIDEMICS_DRAWN] <= L.MAX_EPIDEMICS, "epidemics: drawn + in the deck"
    start = int(s[L.PTOP])
    for k in range(int(s[L.NPILES])):
        end = int(s[L.PILE_END + k])
        if end > start:
            assert (s[L.PDECK + start:L.PDECK + end] == L.EPIDEMIC).sum() <= 1, f"pile {k}: two epidemics"
            start = end
    ideck = s[L.IDECK + s[L.ITOP]:L.IDECK + s[L.IBOT]].tolist()
    infection = Counter(ideck + np.flatnonzero(s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES]).tolist())
    assert infection == Counter(range(L.NUM_CITIES)), "every infection card once in deck + discard"
    if state.current_player >= 0:  # at a decision only the seat discarding to the limit may hold more than 7
        over = [q for q in range(n) if hands[q].sum() > L.HAND_LIMIT]
        assert over == [] or (state.phase == "limit_discard" and over == [state.current_player]), "hand limit"
        assert hands.sum(1).max() <= L.HAND_LIMIT + L.CARDS_DRAWN, "at most 9 cards"
        actions = state.legal_actions()
        assert len(actions) > 0 and (np.diff(actions) > 0).all(), "legal actions: some, increasing, once each"
    assert s[L.OUTBREAKS] < L.MAX_OUTBREAKS or state.loss_cause() == "outbreaks", "8 outbreaks without the loss"
    if state.is_terminal():
        r = state.returns()
        assert (r == r[0]).all() and r[0] in (-1.0, 1.0), f"returns {r}"
        assert (r[0] == 1.0) == (state.loss_cause() == "none"), "a win has no loss cause"
    else:
        assert (state.returns() == 0).all(), "returns 0 while the game runs"


# ---- random play ------------------------------------------------------------------------------------------------
def random_step(state, rng: np.random.Generator, mode: str = "sample") -> None:
    """One random step. Decisions: uniform over the legal actions. Chance: ``sample_chance`` ("sample"), or a
    uniformly drawn possible outcome ("uniform": it also exercises outcomes other than the stored order's).
    "benign" plays long games (to the end of the player deck, with hand limits and cures): infections hit a city
    with the fewest cubes among the possible ones, and a decision cures when it can and treats half the time."""
    if state.current_player == CHANCE:
        if mode == "sample":
            state.apply(state.sample_chance(rng))
            return
        ids = [o for o, _ in state.chance_outcomes()]
        if mode == "benign" and state.phase != "draw":
            cubes = [state.s[L.CUBES + o * L.NUM_COLOURS + CITY_COLOURS[o]] for o in ids]
            ids = [o for o, c in zip(ids, cubes) if c == min(cubes)]
        state.apply(ids[int(rng.integers(len(ids)))])
        return
    actions = state.legal_actions()
    if mode == "benign":
        cures = actions[(actions >= L.A_CURE) & (actions < L.A_PASS)]
        treats = actions[(actions >= L.A_TREAT) & (actions < L.A_BUILD)]
        if len(cures) or (len(treats) and rng.random() < 0.5):
            actions = cures if len(cures) else treats
    state.apply(int(actions[rng.integers(len(actions))]))


def random_states(seed: int, players: int = 4, mode: str = "sample", **options):
    """Every state of one random game (``cardboard.new_state("pandemic", ...)``), the initial one first."""
    import cardboard

    rng = np.random.default_rng(seed)
    state = cardboard.new_state("pandemic", seed=seed, players=players, **options)
    yield state
    while not state.is_terminal():
        random_step(state, rng, mode)
        yield state


def piles(state) -> list[tuple[int, int]]:
    """The player deck's remaining piles, top first: (cards, epidemics) of each."""
    s, out, start = state.s, [], int(state.s[L.PTOP])
    for k in range(int(s[L.NPILES])):
        end = int(s[L.PILE_END + k])
        if end > start:
            out.append((end - start, int((s[L.PDECK + start:L.PDECK + end] == L.EPIDEMIC).sum())))
            start = end
    return out


def groups(state) -> list[frozenset[int]]:
    """The infection deck's groups, top first, as sets of cities."""
    s, out = state.s, []
    for g in range(int(s[L.NGROUPS])):
        a = int(s[L.GROUP_START + g])
        b = int(s[L.GROUP_START + g + 1]) if g + 1 < s[L.NGROUPS] else int(s[L.IBOT])
        out.append(frozenset(s[L.IDECK + a:L.IDECK + b].tolist()))
    return out


def deck_orders(state) -> tuple[tuple[int, ...], tuple[int, ...]]:
    s = state.s
    return (tuple(s[L.PDECK + s[L.PTOP]:L.PDECK + s[L.PEND]].tolist()),
            tuple(s[L.IDECK + s[L.ITOP]:L.IDECK + s[L.IBOT]].tolist()))


# ---- the macro-action layer (003 §1.7) ----------------------------------------------------------------------
@lru_cache(maxsize=None)
def macro_game(players: int) -> PandemicGame:
    """A ``players``-seat game on macro-actions (``actions="macro"``)."""
    return PandemicGame(players=players, actions="macro")


def macro_position(**kwargs):
    """The state of ``setup_dict(**kwargs)`` on macro-actions (a ``PandemicMacroState``)."""
    from cardboard.envs.pandemic.state import PandemicMacroState

    data = setup_dict(**kwargs)
    return PandemicMacroState(macro_game(len(data["seats"])), parse_setup(data).array())


def as_macro(state):
    """A macro-action copy of the (primitive) position ``state``."""
    from cardboard.envs.pandemic.state import PandemicMacroState

    return PandemicMacroState(macro_game(state.num_players), state.s.copy())


# ---- macro ids by name (macro.py's layout) -------------------------------------------------------------------
def m_treat(c, colour=None):
    return M.M_TREAT + city(c) * L.NUM_COLOURS + (int(CITY_COLOURS[city(c)]) if colour is None else colour)


def m_cure(c, colour):
    return M.M_CURE + city(c) * L.NUM_COLOURS + colour


def m_build(c):
    return M.M_BUILD + city(c)


def m_give(seat, card):
    return M.M_GIVE + seat * L.NUM_CITIES + city(card)


def m_take(seat, card):
    return M.M_TAKE + seat * L.NUM_CITIES + city(card)


def m_walk(c):
    return M.M_WALK + city(c)


def m_discard(card):
    return M.M_DISCARD + city(card)

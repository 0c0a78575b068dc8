"""The flat state's conversions (``flat_convert``): ``to_match(to_flat(m))`` is ``m`` (``canonical``) and
``to_flat(to_match(s))`` is ``s`` for every position of random games over the 12 decks and for hand-built ones
(the situations random play never reaches: a search, Unbury, a lost Flying, a choice not yet read, ...); every
bound of the layout refuses a match that exceeds it; the differential harness (``flat_oracle``) passes a flat
engine that is the object engine and catches a broken one.
"""
from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pytest

from cardboard.envs.fifth_aeon import flat_layout as F
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon import moves
from cardboard.envs.fifth_aeon.board import BLOCK, ORDER, Choice, Match
from cardboard.envs.fifth_aeon.cards import DECK_LIST, Mechanic, bundled_pool
from cardboard.envs.fifth_aeon.constants import BOARD_SLOTS, HARD_HAND_LIMIT
from cardboard.envs.fifth_aeon.flat_convert import IMPRISONED, canonical, describe_difference, to_flat, to_match
from cardboard.envs.fifth_aeon.flat_table import CardTable, card_table
from cardboard.envs.fifth_aeon.positions import build_position, play, unit
from cardboard.envs.fifth_aeon.tests.flat_oracle import play_differential, random_positions

POOL = bundled_pool()
TABLE = card_table(POOL)
GAMES_PER_DECK = 20  # 240 random games, ~36,000 positions
# what the sample must contain: a read choice, an item's host and a card's target being chosen, blocks, a damage
# order, items, poison, sleep, a shield, Deathless returns, a lost ability and an imprisoned unit
REQUIRED = {"choice", "pend:host", "pend:target", "block", "order", "items", "st:poison", "st:sleep", "st:shield",
            "returns_eot", "lost", "imprisoned"}


def round_trip(m: Match) -> np.ndarray:
    """``m`` through the flat state and back: the same match, and the same flat state again."""
    s = to_flat(m, TABLE, POOL)
    back = to_match(s, TABLE, POOL)
    assert canonical(back) == canonical(m), describe_difference(back, m)
    again = to_flat(back, TABLE, POOL)
    assert np.array_equal(again, s), f"fields {np.flatnonzero(again != s).tolist()} differ"
    return s


def features(m: Match) -> set[str]:
    """The special situations of ``m`` (the names ``REQUIRED`` asks for, and more)."""
    f: set[str] = set()
    for k, c in enumerate(m.choices):
        f |= {f"kind:{c.kind.split(':')[0]}", f"source:{c.source}"}
        if k == 0:
            f.add("choice" if c.options is not None else "choice unread")
    if len(m.choices) > 1:
        f.add("choices queued")
    if m.pend is not None:
        f.add(f"pend:{m.pend[2]}")
    elif not m.choices and m.phase in (BLOCK, ORDER):
        f.add("block" if m.phase == BLOCK else "order")
    f |= {name for name, there in (("returns_eot", m.returns_eot), ("then", m.then), ("over", m.winner >= 0)) if there}
    for side in m.sides:
        f |= {name for name, there in (("hand bonus", any(h[1] or h[2] for h in side.hand)),
                                       ("deck_vis", any(side.deck_vis)), ("fatigue", side.fatigue)) if there}
    for u in [*m.board[0], *m.board[1], *m.returns_eot]:
        ids = [g.id for g in u.granted]
        f |= {f"st:{key}" for key in u.st if not key.startswith("lost:")}
        f |= {name for name, there in (
            ("items", u.items), ("lost", any(key.startswith("lost:") for key in u.st)),
            ("imprisoned", "CannotAttack" in ids and "CannotBlock" in ids),
            ("granted", set(ids) - {"CannotAttack", "CannotBlock"})) if there}
    return f


def test_round_trip_every_position_of_random_games():
    seen: Counter = Counter()
    positions = 0
    start = time.perf_counter()
    for m in random_positions(GAMES_PER_DECK):
        assert m.pool is POOL
        round_trip(m)
        seen.update(features(m))
        positions += 1
    print(f"\n{positions} positions in {time.perf_counter() - start:.1f} s:", dict(sorted(seen.items())))
    assert REQUIRED <= set(seen), f"never seen: {REQUIRED - set(seen)}"


# ---- hand-built positions --------------------------------------------------------------------------------------
def _webbed_flyer() -> Match:
    state = build_position(hands=(("Webspit",), ()), boards=((), ("Dragon",)))
    play(state, "Webspit", target=unit(state, "Dragon"))
    assert "lost:Flying" in unit(state, "Dragon").st
    return state.match


def _search() -> Match:
    state = build_position(hands=(("Insight",), ()), resources=((8, 0, 0, 0), (0, 0, 0, 0)),
                           decks=(("Minotaur", "Knight") * 10, ("Minotaur",) * 20))
    play(state, "Insight")
    return state.match


def _unbury() -> Match:
    state = build_position(hands=(("Unbury",), ()))
    state.match.sides[0].crypt += ["Knight", "Webspit", "Minotaur"]
    play(state, "Unbury")
    return state.match


def _imprisoned_twice() -> Match:
    """Imprison on a Castle, a second Imprison and a granted CannotAttack and Flying on a Knight."""
    state = build_position(hands=(("Imprison",), ()), boards=((), ("Castle", "Knight")))
    play(state, "Imprison", target=unit(state, "Castle"))
    knight = unit(state, "Knight")
    knight.granted = (Mechanic("CannotAttack"),) + IMPRISONED + (Mechanic("Flying"),) + IMPRISONED
    knight.rebuild()
    return state.match


def _statuses() -> Match:
    """Items, counters (some at 0: a present key is kept), a hand bonus, known cards and a choice not yet read."""
    state = build_position(boards=(({"card": "Knight", "items": ["Rifle", "GiantClub"], "poison": 2, "sleep": 1,
                                     "shield": 0},), ("Skeleton", "Archer")))
    m = state.match
    unit(state, "Skeleton").st.update(dead=1, dying=1, affinity=0, deathless=0)
    m.sides[1].hand = [("Minotaur", 1, 1), ("Knight", 0, 0)]
    m.sides[1].known = [True, False]
    m.sides[0].deck_vis[3] = 1
    m.choices = [Choice(1, "discard", "hand", 1, 1), Choice(0, "consume:2", "crypt:unit", 0, 2),
                 Choice(1, "unbury", "crypt:enchantment", 0, 1)]
    return m


BUILT = {"webbed flyer": (_webbed_flyer, {"lost"}), "search": (_search, {"choice", "kind:search", "source:deck"}),
         "unbury": (_unbury, {"choice", "kind:unbury", "source:crypt:unit"}),
         "imprisoned twice": (_imprisoned_twice, {"imprisoned", "granted", "st:prisoner"}),
         "statuses": (_statuses, {"items", "st:poison", "st:sleep", "st:shield", "st:dead", "st:dying",
                                  "st:affinity", "st:deathless", "hand bonus", "deck_vis", "choice unread",
                                  "choices queued", "kind:consume", "source:crypt:enchantment"})}


@pytest.mark.parametrize("name", BUILT)
def test_round_trip_built_positions(name):
    build, expected = BUILT[name]
    m = build()
    assert expected <= features(m)
    round_trip(m)


def test_imprisonment_is_decoded_as_pairs_after_the_mask():
    m = _imprisoned_twice()
    s = round_trip(m)
    knight = next(i for i in range(F.PERM_SLOTS) if s[F.perm_base(i) + F.M_CARD] == POOL.index["Knight"])
    b = F.perm_base(knight)
    assert s[b + F.M_IMPRISONED] == 2
    assert s[b + F.M_GRANTED] == 1 << F.AB_CANNOT_ATTACK | 1 << F.AB_FLYING
    granted = [g.id for g in to_match(s, TABLE, POOL).board[1][1].granted]
    assert granted == ["CannotAttack", "Flying"] + ["CannotAttack", "CannotBlock"] * 2


# ---- refusals --------------------------------------------------------------------------------------------------
def _exceed(bound: str) -> Match:
    m = build_position(boards=(("Knight",), ())).match
    side, knight = m.sides[0], m.board[0][0]
    if bound == "crypt":
        side.crypt = ["Knight"] * (F.MAX_CRYPT + 1)
    elif bound == "deck":
        side.deck, side.deck_vis = ["Knight"] * (F.MAX_DECK + 1), [0] * (F.MAX_DECK + 1)
    elif bound == "hand":
        side.hand, side.known = [("Knight", 0, 0)] * (HARD_HAND_LIMIT + 1), [False] * (HARD_HAND_LIMIT + 1)
    elif bound == "items":
        knight.items = (POOL["GiantClub"],) * (F.MAX_ITEMS + 1)
    elif bound == "board":
        m.board[0].extend(knight.copy() for _ in range(BOARD_SLOTS))
    elif bound == "returns_eot":
        m.returns_eot = [knight.copy() for _ in range(F.MAX_RETURNS + 1)]
    elif bound == "choices":
        m.choices = [Choice(0, "discard", "hand", 1, 1) for _ in range(F.MAX_CHOICES + 1)]
    elif bound == "options":
        m.choices = [Choice(0, "unbury", "crypt:unit", 0, 1, ["Knight"] * (L.MAX_OPTIONS + 1), None, [])]
    return m


@pytest.mark.parametrize("bound", ["crypt", "deck", "hand", "items", "board", "returns_eot", "choices", "options"])
def test_a_bound_exceeded_is_refused(bound):
    with pytest.raises(ValueError, match=bound):
        to_flat(_exceed(bound), TABLE, POOL)


def test_what_the_layout_cannot_hold_is_refused():
    m = build_position(boards=(("Knight",), ())).match
    m.board[0][0].st["frozen"] = 1
    with pytest.raises(ValueError, match="'frozen'"):
        to_flat(m, TABLE, POOL)
    m = build_position().match
    m.choices = [Choice(0, "discard", "hand", 1, 1), Choice(1, "discard", "hand", 1, 1, ["Knight"], [0], [])]
    with pytest.raises(ValueError, match=r"choices\[1\]"):
        to_flat(m, TABLE, POOL)
    s = to_flat(build_position().match, TABLE, POOL)
    s[F.G_OVERFLOW] = F.OV_ITEMS
    with pytest.raises(ValueError, match=r"overflowed a unit's items \(MAX_ITEMS\)"):
        to_match(s, TABLE, POOL)


def test_describe_difference_names_the_field():
    a = build_position(hands=((), ("Knight", "Minotaur", "Archer")), boards=(("Knight", "Archer"), ())).match
    assert describe_difference(a, a.copy()) == "no difference"
    b = a.copy()
    b.board[0][1].hurt = 1
    assert describe_difference(a, b) == "board[0][1].hurt: 0 != 1"
    b = a.copy()
    b.sides[1].hand[2] = ("Castle", 0, 0)
    assert describe_difference(a, b).startswith("sides[1].hand[2]: ('Archer', 0, 0) != ('Castle', 0, 0)")
    b = a.copy()
    b.sides[1].hand.pop()
    assert describe_difference(a, b).startswith("sides[1].hand[2]")
    b = a.copy()
    a.choices, b.choices = [Choice(0, "search", "deck", 0, 1, ["Knight"], None, [])], [Choice(0, "search", "deck",
                                                                                              0, 1, ["Archer"])]
    assert describe_difference(a, b) == "choices[0].options: ('Knight',) != ('Archer',)"


# ---- the differential harness ----------------------------------------------------------------------------------
def object_legal(s: np.ndarray, table: CardTable) -> list[int]:
    """A flat engine that is the object engine: the legal actions of the decoded match."""
    return moves.legal(to_match(s, table, POOL))


def object_apply(s: np.ndarray, table: CardTable, action: int) -> None:
    m = to_match(s, table, POOL)
    moves.apply(m, action)
    s[:] = to_flat(m, table, POOL)


@pytest.mark.parametrize("policy", ["random", "default_ai"])
def test_the_harness_passes_the_object_engine(policy):
    """A game of every deck against the next one (the flat copy is decoded and encoded again at every move)."""
    for k, deck in enumerate(DECK_LIST):
        decks = (deck, DECK_LIST[(k + 1) % len(DECK_LIST)])
        n = play_differential({"decks": decks}, k, object_legal, object_apply, max_decisions=1000, policy=policy)
        assert n > 20


def test_the_harness_catches_a_wrong_state():
    def broken_apply(s: np.ndarray, table: CardTable, action: int) -> None:
        object_apply(s, table, action)
        s[F.player_base(0) + F.P_LIFE] += 1

    with pytest.raises(AssertionError, match=r"sides\[0\]\.life: 26 != 25\nafter 1 moves") as caught:
        play_differential({"decks": "Dominion"}, 4, object_legal, broken_apply, max_decisions=100)
    assert "  0: " in str(caught.value)


def test_the_harness_catches_wrong_legal_actions():
    def broken_legal(s: np.ndarray, table: CardTable) -> list[int]:
        legal = object_legal(s, table)
        return legal[:-1] if len(legal) > 3 else legal

    with pytest.raises(AssertionError, match="legal actions differ"):
        play_differential({"decks": "Dominion"}, 5, broken_legal, object_apply, max_decisions=300,
                          policy="default_ai")

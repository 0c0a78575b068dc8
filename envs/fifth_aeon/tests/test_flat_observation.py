"""The compiled observation (``flat_observation.observe``) is ``observation.observe`` of the decoded match, bit for
bit (float32), for both players, with and without ``perfect``: at every position of random games over the 12
decks and at hand-built positions (a choice of each kind with picks, a card being played before and after its host
is chosen, items, counters, imprisonment, a lost Flying); every entry of a reused buffer is written.
"""
from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pytest

import cardboard
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon import moves, observation
from cardboard.envs.fifth_aeon.board import Match, phase_name
from cardboard.envs.fifth_aeon.cards import Mechanic, bundled_pool
from cardboard.envs.fifth_aeon.effects import activate
from cardboard.envs.fifth_aeon.flat_convert import to_flat, to_match
from cardboard.envs.fifth_aeon.flat_observation import observation_length, observe
from cardboard.envs.fifth_aeon.flat_table import card_table
from cardboard.envs.fifth_aeon.positions import build_position, play, unit
from cardboard.envs.fifth_aeon.tests.flat_oracle import random_positions
from cardboard.envs.fifth_aeon.tests.test_flat_convert import (
    _imprisoned_twice, _search, _statuses, _unbury, _webbed_flyer,
)

POOL = bundled_pool()
TABLE = card_table(POOL)
N = len(POOL.cards)
LENGTH = observation_length(N)
GAMES_PER_DECK = 8  # 96 random games, ~14,000 positions
# what the random games must show an observer: every phase, the mulligan and a discard with picks, an item's host
# and a card's target being chosen, a blocker, items, counters, Deathless charges, an imprisoned unit and a hand
# card the opponent has seen (the rest, hand bonuses among them, are in the built positions)
REQUIRED = {*(f"phase:{p}" for p in observation.PHASES), "kind:replace", "kind:discard", "picked", "pend:host",
            "pend:target", "blocked by", "items", "poison", "sleep", "shield", "deathless", "imprisoned",
            "seen hand card"}


def check(s: np.ndarray, out: np.ndarray | None = None) -> None:
    """The kernel's observation of ``s`` is the Python one of ``to_match(s)``, for both players and both modes."""
    m = to_match(s, TABLE, POOL)
    out = np.full(LENGTH, np.nan, np.float32) if out is None else out
    for player in (0, 1):
        for perfect in (False, True):
            expected = observation.observe(m, player, perfect)
            observe(s, TABLE.cards, player, perfect, out)
            if not np.array_equal(out.view(np.uint32), expected.view(np.uint32)):
                wrong = np.flatnonzero(out.view(np.uint32) != expected.view(np.uint32))
                raise AssertionError(f"player {player}, perfect {perfect}: entries {wrong[:12].tolist()} differ "
                                     f"(kernel {out[wrong[:12]].tolist()}, Python {expected[wrong[:12]].tolist()})")


def features(m: Match) -> set[str]:
    """The situations of ``m`` the observation has a feature for (the names ``REQUIRED`` asks for)."""
    f = {f"phase:{phase_name(m)}"}
    if m.choices and m.choices[0].options is not None:
        f.add(f"kind:{m.choices[0].kind.split(':')[0]}")
        if m.choices[0].picked:
            f.add("picked")
    if m.pend is not None:
        f.add(f"pend:{m.pend[2]}")
    uids = {u.uid for side in m.board for u in side}
    for side in m.board:
        for u in side:
            f |= {key for key in ("poison", "sleep", "shield", "deathless") if u.st.get(key, 0)}
            f |= {name for name, there in (
                ("items", u.items), ("blocked by", u.blocking in uids), ("lost Flying", u.st.get("lost:Flying")),
                ("imprisoned", any(g.id == "CannotBlock" for g in u.granted))) if there}
    for side in m.sides:
        f |= {name for name, there in (("seen hand card", any(side.known)),
                                       ("hand bonus", any(d or life for _, d, life in side.hand))) if there}
    return f


def test_every_position_of_random_games():
    seen: Counter = Counter()
    positions = 0
    out = np.full(LENGTH, np.nan, np.float32)  # one buffer for all: each call overwrites the last observation
    start = time.perf_counter()
    for m in random_positions(GAMES_PER_DECK):
        check(to_flat(m, TABLE, POOL), out)
        seen.update(features(m))
        positions += 1
    print(f"\n{positions} positions in {time.perf_counter() - start:.1f} s:", dict(sorted(seen.items())))
    assert REQUIRED <= set(seen), f"never seen: {REQUIRED - set(seen)}"


# ---- hand-built positions --------------------------------------------------------------------------------------
def _choice(hand: tuple[str, ...], card: str, crypt: tuple[str, ...] = (), picks: tuple[int, ...] = (),
            resources: tuple[int, ...] = (6, 6, 6, 6), opponent_hand: tuple[str, ...] = ()) -> Match:
    """Player 0 plays ``card``, then picks ``picks`` of the choice it asks."""
    state = build_position(hands=(hand, opponent_hand), resources=(resources, (6, 6, 6, 6)))
    state.match.sides[0].crypt += list(crypt)
    play(state, card)
    for i in picks:
        state.apply(L.OPTION + i)
    return state.match


def _replace() -> Match:
    """Player 0's mulligan (replace 0..3 hand cards), two picked."""
    m = cardboard.new_state("fifth_aeon", seed=5).match
    assert m.choices[0].kind == "replace" and m.choices[0].player == 0
    for i in (2, 0):
        moves.apply(m, L.OPTION + i)
    return m


def _discard() -> Match:
    """Hemorrhage: the opponent discards one of three (two of them the same card)."""
    return _choice(("Hemorrhage",), "Hemorrhage", opponent_hand=("Knight", "Archer", "Knight"))


def _consume() -> Match:
    """Abomination consumes up to two units of the crypt (one picked)."""
    m = _choice(("Abomination",), "Abomination", crypt=("Knight", "Castle", "Knight", "Webspit"), picks=(2,),
                resources=(0, 0, 10, 0))
    assert m.choices[0].kind.startswith("consume:")
    return m


def _item(stage: str) -> Match:
    """Rifle (host: a friendly unit, target: an enemy unit) being played, its host not chosen yet or chosen."""
    state = build_position(hands=(("Knight", "Rifle"), ()), boards=(("Archer", "Knight"), ("Minotaur",)))
    state.apply(L.PLAY + 1)
    if stage == "target":
        state.apply(L.TARGET + 1)
    assert state.match.pend[2] == stage
    return state.match


def _statuses_read() -> Match:
    """``_statuses`` (items, counters at 0 and above, hand bonuses, known cards) with its front choice read."""
    m = _statuses()
    activate(m)
    assert m.choices[0].options is not None
    return m


def _granted_cannot_block() -> Match:
    """A CannotBlock granted alone (the flat state's mask, not an Imprison) on one Knight, a granted CannotAttack
    on the other, and a Dragon (Flying of its own) that lost its Flying."""
    state = build_position(boards=(("Knight", "Dragon"), ("Knight",)))
    for u, granted in ((state.match.board[0][0], "CannotBlock"), (state.match.board[1][0], "CannotAttack")):
        u.granted = (Mechanic(granted),)
        u.rebuild()
    dragon = unit(state, "Dragon")
    dragon.st["lost:Flying"] = 1
    dragon.rebuild()
    return state.match


BUILT = {"replace": _replace, "discard": _discard, "search": _search, "unbury": _unbury,
         "consume": _consume, "host": lambda: _item("host"), "target with host": lambda: _item("target"),
         "statuses": _statuses_read, "imprisoned twice": _imprisoned_twice, "webbed flyer": _webbed_flyer,
         "granted CannotBlock": _granted_cannot_block}


@pytest.mark.parametrize("name", BUILT)
def test_built_positions(name):
    m = BUILT[name]()
    if name in observation.KINDS:
        assert m.choices and m.choices[0].kind.split(":")[0] == name and m.choices[0].options
    check(to_flat(m, TABLE, POOL))


def test_the_built_positions_show_their_features():
    """The built positions reach the features they are for (in the Python observation)."""
    n, row = N, N + observation.FEATURES
    board = observation.GLOBALS + 12 * (n + 2)
    tail = board + 14 * row
    choice = tail + n + 1 + n + 2 * n
    pending = choice + 2 * n + len(observation.KINDS)

    def obs(m: Match, player: int) -> np.ndarray:
        return observation.observe(m, player, False)

    for kind in observation.KINDS:
        m = BUILT[kind]()
        o = obs(m, m.choices[0].player)
        assert o[choice + 2 * n + observation.KINDS.index(kind)] == 1
        assert o[choice:choice + n].sum() > 0
        assert (o[choice + n:choice + 2 * n].sum() > 0) == bool(m.choices[0].picked)
    for stage, flag in (("host", 0), ("target", 1)):
        m = _item(stage)
        o = obs(m, 0)
        assert o[pending + POOL.index["Rifle"]] == 1 and o[pending + n] == flag
    o = obs(_imprisoned_twice(), 0)
    assert o[board + (7 + 0) * row + n + 14] == 1 and o[board + (7 + 1) * row + n + 14] == 1  # Castle, Knight
    o = obs(_webbed_flyer(), 0)
    assert o[board + 7 * row + n + 15] == 1
    o = obs(_granted_cannot_block(), 0)  # own Knight, own Dragon, the enemy Knight
    assert [o[board + slot * row + n + 14] for slot in (0, 1, 7)] == [1, 0, 0]
    assert [o[board + slot * row + n + 15] for slot in (0, 1, 7)] == [0, 1, 0]
    o = obs(_statuses_read(), 0)
    f = board + n  # the Knight: two items, poison 2, sleep 1, shield 0
    assert o[f + 13] == np.float32(2 / 3) and o[f + 9] == np.float32(2 / 5) and o[f + 10] == np.float32(1 / 5)


def test_an_unread_choice_shows_its_kind_only():
    """A front choice whose options are not read yet (only hand-built: the object engine reads them when the choice
    reaches the front) shows its kind and no options; ``observation.observe`` cannot read that match."""
    m = _statuses()
    assert m.choices[0].options is None
    s = to_flat(m, TABLE, POOL)
    out = np.empty(LENGTH, np.float32)
    observe(s, TABLE.cards, 1, False, out)
    read = to_match(s, TABLE, POOL)
    read.choices[0].options = []
    assert np.array_equal(out.view(np.uint32), observation.observe(read, 1, False).view(np.uint32))


@pytest.mark.parametrize("garbage", [np.nan, np.inf, -1.0, 7.0, "random"])
def test_a_buffer_of_garbage_is_overwritten(garbage):
    rng = np.random.default_rng(0)
    for m in (_statuses_read(), _item("target"), cardboard.new_state("fifth_aeon", seed=3).match):
        s = to_flat(m, TABLE, POOL)
        for player in (0, 1):
            out = (rng.normal(size=LENGTH) * 1e6).astype(np.float32) if garbage == "random" else np.full(
                LENGTH, garbage, np.float32)
            observe(s, TABLE.cards, player, True, out)
            expected = observation.observe(to_match(s, TABLE, POOL), player, True)
            assert np.array_equal(out.view(np.uint32), expected.view(np.uint32))

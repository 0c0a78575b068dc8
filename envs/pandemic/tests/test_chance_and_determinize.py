"""Chance nodes and the structured determinization of 003 §1.7: what the players know of both decks (the
player deck's piles, each with its epidemic; the infection deck's groups, one per epidemic) is kept by every
possible outcome and by every determinization, and only the hidden order changes."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from pandemic_helpers import (
    CHANCE, L, city, deck_orders, draw, groups, infect, piles, position, random_states, to_draw,
)

import cardboard


def mid_game_states(seeds=range(12)):
    """Clones of the states of random games (chance: uniformly random or "benign" outcomes, see ``random_step``),
    2-4 players, all six roles."""
    out = []
    for seed in seeds:
        for state in random_states(seed, players=2 + seed % 3, mode=("uniform", "benign")[seed % 2],
                                   roles="random_all"):
            if not state.is_terminal():
                out.append(state.clone())
    return out


ALL = mid_game_states()
STATES = ALL[::9]
CHANCE_NODES = [s for s in ALL if s.current_player == CHANCE]


def probs(state):
    return dict(state.chance_outcomes())


# ---- the player draw ----------------------------------------------------------------------------------------
def test_draw_outcomes_epidemic_e_over_n_and_unseen_cities_alike():  # 003 §1.7: piles, one epidemic each
    state = to_draw(position(player_deck=[["Lima", "epidemic", "Tokyo", "Osaka"], ["Cairo", "Paris", "epidemic"]]))
    p = probs(state)
    assert p.pop(L.EPIDEMIC) == pytest.approx(1 / 4)
    assert p == pytest.approx({city(c): 3 / 4 / 5 for c in ("Lima", "Tokyo", "Osaka", "Cairo", "Paris")})
    draw(state, "Cairo")  # any unseen card may come (the stored order is hidden), here one of the second pile's
    assert piles(state) == [(3, 1), (3, 1)] and probs(state)[L.EPIDEMIC] == pytest.approx(1 / 3)


def test_draw_of_a_pile_holding_only_its_epidemic():  # 003 §1.7
    state = draw(to_draw(position(player_deck=[["Lima", "epidemic"], ["Cairo", "epidemic"]])), "Lima")
    assert probs(state) == {L.EPIDEMIC: 1.0}


def test_draw_after_the_pile_epidemic_has_no_epidemic():  # 003 §1.7: an epidemic drawn leaves its pile
    state = draw(to_draw(position(player_deck=[["epidemic", "Lima", "Tokyo"], ["Cairo", "epidemic"]])),
                 "epidemic", "Madrid")
    assert probs(state) == pytest.approx({city(c): 1 / 3 for c in ("Lima", "Tokyo", "Cairo")})


@pytest.mark.parametrize("state", CHANCE_NODES[::10], ids=str)
def test_every_chance_node_sums_to_one(state):  # protocol: a distribution
    assert sum(probs(state).values()) == pytest.approx(1.0)


def expected_after(state, outcome):
    """The public deck structure after ``outcome`` at this chance node."""
    p, g = piles(state), groups(state)
    if state.phase == "draw":
        size, e = p[0]
        p[0] = (size - 1, e - (outcome == L.EPIDEMIC))
        return [x for x in p if x[0]], g
    if state.phase == "epidemic":  # the bottom card, then the discard (and it) on top
        g[-1] = g[-1] - {outcome}
        restacked = frozenset(np.flatnonzero(state.s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES]).tolist()) | {outcome}
        return p, [restacked] + [x for x in g if x]
    g[0] = g[0] - {outcome}
    return p, [x for x in g if x]


def test_any_possible_outcome_keeps_the_public_structure_and_the_cards():  # 003 §1.7
    checked = 0
    for state in CHANCE_NODES:
        for outcome, _ in state.chance_outcomes():
            after = state.clone()
            after.apply(outcome)
            assert after.card_multiset() == state.card_multiset()
            if after.is_terminal():
                continue
            p, g = expected_after(state, outcome)
            assert piles(after) == p, (state, outcome)
            if g:  # (an emptied infection deck takes its discard back: not compared)
                assert groups(after) == g, (state, outcome)
            checked += 1
    assert checked > 5000


# ---- sample_chance ----------------------------------------------------------------------------------------------
def test_sample_chance_returns_the_stored_next_card():  # the real game draws the stored order
    rng = np.random.default_rng(0)
    seen = set()
    for state in CHANCE_NODES:
        s, got = state.s, state.sample_chance(rng)
        start, end = int(s[L.GROUP_START]), int(s[L.GROUP_START + 1]) if s[L.NGROUPS] > 1 else int(s[L.IBOT])
        if state.phase == "draw":
            assert got == s[L.PDECK + s[L.PTOP]]
        elif state.phase == "epidemic":
            assert got == s[L.IDECK + s[L.IBOT] - 1] or not s[L.GROUP_ORDERED + s[L.NGROUPS] - 1]
        elif s[L.GROUP_ORDERED]:
            assert got == s[L.IDECK + start]
        else:  # a restacked group no order was drawn for yet: a uniform card of it
            assert got in s[L.IDECK + start:L.IDECK + end]
        seen.add(state.phase)
    assert seen == {"draw", "infect", "epidemic"}


def test_sample_chance_at_the_first_draw():  # set-up order: the top card of the top pile
    state = to_draw(cardboard.new_state("pandemic", seed=11))
    top = int(state.s[L.PDECK])
    assert state.sample_chance(np.random.default_rng(1)) == top


# ---- determinize ----------------------------------------------------------------------------------------------------
DECK_SLICES = [(L.PDECK, L.PDECK + L.PLAYER_DECK_MAX), (L.IDECK, L.IDECK + L.NUM_CITIES),
               (L.GROUP_ORDERED, L.GROUP_ORDERED + L.MAX_GROUPS)]


def outside_decks(state):
    keep = np.ones(L.STATE_LEN, dtype=bool)
    for a, b in DECK_SLICES:
        keep[a:b] = False
    return state.s[keep]


@pytest.mark.parametrize("state", STATES[::4], ids=str)
def test_determinize_keeps_everything_public(state):  # 003 §1.7
    rng = np.random.default_rng(5)
    for seat in range(state.num_players):
        det = state.determinize(seat, rng)
        assert all((det.observation(q) == state.observation(q)).all() for q in range(state.num_players))
        assert (outside_decks(det) == outside_decks(state)).all()
        assert piles(det) == piles(state) and groups(det) == groups(state)
        assert det.card_multiset() == state.card_multiset()
        assert (det.legal_actions() == state.legal_actions()).all()
        if state.current_player == CHANCE:
            assert probs(det) == pytest.approx(probs(state))


def test_determinize_changes_the_order_in_most_samples():  # 003 §1.7: the hidden order is re-randomised
    rng = np.random.default_rng(2)
    for state in STATES[::5]:
        if min(len(o) for o in deck_orders(state)) < 8:
            continue
        samples = [deck_orders(state.determinize(0, rng)) for _ in range(20)]
        assert sum(d[0] != deck_orders(state)[0] for d in samples) >= 18
        assert sum(d[1] != deck_orders(state)[1] for d in samples) >= 18


def test_determinize_deals_the_unseen_cards_into_any_pile_and_moves_the_epidemics():  # 003 §1.7
    state, rng = cardboard.new_state("pandemic", seed=4), np.random.default_rng(9)
    card = next(c for c in deck_orders(state)[0] if c != L.EPIDEMIC)
    ends = np.cumsum([size for size, _ in piles(state)])
    card_piles, epidemic_spots = set(), set()
    for _ in range(300):
        order = deck_orders(state.determinize(0, rng))[0]
        card_piles.add(int(np.searchsorted(ends, order.index(card), side="right")))
        epidemic_spots.add(order.index(L.EPIDEMIC))  # the top pile's epidemic
    assert card_piles == set(range(len(ends)))
    assert epidemic_spots == set(range(ends[0]))


def test_determinized_restacked_group_is_drawn_in_its_new_order():  # 003 §1.7: each stack on its own
    state = position(player_deck=[["epidemic", "Lima", "Tokyo"]], infection_discard=["Paris", "Cairo", "Essen"])
    draw(to_draw(state), "epidemic", "Lagos", "Lima")
    restacked = {city(c) for c in ("Paris", "Cairo", "Essen", "Lagos")}
    assert set(probs(state)) == restacked
    det = state.determinize(1, np.random.default_rng(3))
    first = det.sample_chance(np.random.default_rng(0))
    assert first in restacked and first == det.sample_chance(np.random.default_rng(1))  # now a stored order
    infect(det, first)
    assert set(probs(det)) == restacked - {first}


# ---- seeds -----------------------------------------------------------------------------------------------------------
def play(seed, rng_seed, steps=400):
    rng, state = np.random.default_rng(rng_seed), cardboard.new_state("pandemic", seed=seed, players=3)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.current_player == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(int(rng.choice(state.legal_actions())))
    return state


def test_same_seed_same_game():  # reproducibility
    assert cardboard.new_state("pandemic", seed=8) == cardboard.new_state("pandemic", seed=8)
    assert play(8, 1).state_key() == play(8, 1).state_key()
    assert cardboard.new_state("pandemic", seed=8) != cardboard.new_state("pandemic", seed=9)


def test_new_games_deal_differently():  # 003 §1.4: shuffled decks
    decks = {deck_orders(cardboard.new_state("pandemic", seed=s)) for s in range(10)}
    assert len(decks) == 10
    assert len({frozenset(itertools.chain(*groups(cardboard.new_state("pandemic", seed=s)))) for s in range(10)}) > 1

"""Random play at volume: 10^5 random steps per deck pair, every invariant checked after every step.

Steps are decisions and chance outcomes, played through the protocol
(``legal_actions`` / ``apply`` / ``sample_chance``) over as many seeded games as
it takes. The invariants (compiled, so the check is not the bottleneck):
heroes' health at most their maximum and positive while the game runs; mana and
crystals in 0..10; at most 7 minions a side, each a minion card, alive at every
decision, Health at most its maximum, Attack >= 0; at most 10 cards in hand with
valid ids and empty slots cleared; deck counts >= 0 adding up to the deck size;
card conservation (deck + hand cards from the deck + mulligan set-aside + cards
consumed = 30); weapons with durability > 0; no pending op at a decision.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

import cardboard
from cardboard.envs.hearth import layout as L
from cardboard.envs.protocol import CHANCE

STEPS = 100_000
PAIRS = list(itertools.combinations_with_replacement(("mech_mage", "handlock", "face_hunter"), 2))


@njit(cache=True)
def broken_invariant(s, cards):
    """0 if every invariant holds, else a code naming the first broken one."""
    running = s[L.G_PHASE] != L.PH_OVER
    decision = running and s[L.G_SP] == 0
    for p in range(2):
        b = L.GLOBAL_LEN + p * L.PLAYER_LEN
        if s[b + L.P_HP] > s[b + L.P_MAXHP] or (decision and s[b + L.P_HP] <= 0):
            return 1
        if not (0 <= s[b + L.P_MANA] <= L.MAX_MANA and 0 <= s[b + L.P_MAX_MANA] <= L.MAX_MANA):
            return 2
        n = s[b + L.P_NMIN]
        if not 0 <= n <= L.BOARD_LIMIT:
            return 3
        for i in range(n):
            m = b + L.P_MINIONS + i * L.MF
            card = s[m + L.M_CARD]
            if card < 0 or cards[card, L.F_TYPE] != L.TYPE_MINION:
                return 4
            if s[m + L.M_HP] > s[m + L.M_MAXHP] + s[m + L.M_HP_AURA]:
                return 5
            if decision and (s[m + L.M_HP] <= 0 or s[m + L.M_FLAGS] & L.FL_DESTROYED):
                return 6
        for i in range(n, L.BOARD_LIMIT):
            if s[b + L.P_MINIONS + i * L.MF + L.M_CARD] != -1:
                return 7
        h = s[b + L.P_NHAND]
        if not 0 <= h <= L.HAND_LIMIT:
            return 8
        from_deck = 0
        for i in range(L.HAND_LIMIT):
            card = s[b + L.P_HAND + i]
            if (i < h) != (card >= 0) or card >= L.NUM_CARDS:
                return 9
            if i < h and s[b + L.P_HAND_ORIGIN + i] == L.ORIGIN_DECK:
                from_deck += 1
        total = 0
        for c in range(L.NUM_CARDS):
            if s[b + L.P_DECK + c] < 0:
                return 10
            total += s[b + L.P_DECK + c]
        if total != s[b + L.P_NDECK]:
            return 11
        if total + from_deck + s[b + L.P_NASIDE] + s[b + L.P_CONSUMED] != L.DECK_SIZE:
            return 12
        if s[b + L.P_WEAPON] >= 0 and s[b + L.P_WEAPON_DUR] <= 0:
            return 13
    if s[L.G_TURN] > L.MAX_TURNS:
        return 14
    return 0


@pytest.mark.slow
@pytest.mark.parametrize("decks", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_random_steps_keep_every_invariant(decks):
    game = cardboard.make_game("hearth", decks=decks)
    rng = np.random.default_rng(PAIRS.index(decks))
    steps = games = 0
    while steps < STEPS:
        state = game.new_state(rng)
        games += 1
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                assert len(legal) > 0 and (state.phase != "main" or legal[-1] == L.END_TURN)
                state.apply(int(legal[rng.integers(len(legal))]))
            steps += 1
            code = broken_invariant(state.s, game.cards)
            assert code == 0, f"invariant {code} broken in game {games}, step {steps}:\n{game.render_ansi(state)}"
        assert sorted(state.returns().tolist()) in ([-1.0, 1.0], [0.0, 0.0])
    assert games > 100

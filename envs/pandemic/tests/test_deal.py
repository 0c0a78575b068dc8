"""The set-up of a new game (003 §1.4, official hand sizes; the roles of 003 §1.3)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pandemic_helpers import L, check_invariants, groups, piles

import cardboard


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("epidemics", [4, 5, 6])
@pytest.mark.parametrize("hand_size", ["official", "paper"])
def test_deal(players, epidemics, hand_size):  # 003 §1.4
    state = cardboard.new_state("pandemic", seed=players * 10 + epidemics, players=players, epidemics=epidemics,
                                hand_size=hand_size)
    s = state.s
    check_invariants(state)
    per_hand = {2: 4, 3: 3, 4: 2}[players] if hand_size == "official" else 2
    assert s[L.NHAND:L.NHAND + players].tolist() == [per_hand] * players
    sizes = [size for size, _ in piles(state)]
    assert [e for _, e in piles(state)] == [1] * epidemics  # one epidemic in each pile
    assert sum(sizes) == 48 - players * per_hand + epidemics
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)  # equal piles, larger on top
    cubes = s[L.CUBES:L.CUBES + 48 * 4].reshape(48, 4)
    assert sorted(cubes.sum(1)[cubes.sum(1) > 0].tolist()) == [1, 1, 1, 2, 2, 2, 3, 3, 3]  # 9 cities, 3/3/3 ...
    infected = set(np.flatnonzero(cubes.sum(1)).tolist())
    assert infected == set(np.flatnonzero(s[L.IDISCARD:L.IDISCARD + 48]).tolist())  # ... and their cards discarded
    assert len(groups(state)) == 1 and len(groups(state)[0]) == 39
    assert s[L.PAWN:L.PAWN + players].tolist() == [L.START_CITY] * players
    assert np.flatnonzero(s[L.STATION:L.STATION + 48]).tolist() == [L.START_CITY]
    assert state.current_player == 0 and state.phase == "actions" and s[L.OUTBREAKS] == 0


def roles(state):
    return [L.ROLE_NAMES[r] for r in state.s[L.ROLE:L.ROLE + state.num_players]]


def test_paper_roles_in_the_order_of_the_authors_files_and_paper_text_in_the_texts():  # 003 §1.3, [code]
    files = ["operations_expert", "medic", "scientist", "researcher"]  # their testbeds' role__per__player
    text = ["operations_expert", "medic", "researcher", "scientist"]
    assert roles(cardboard.new_state("pandemic", players=4)) == files
    assert roles(cardboard.new_state("pandemic", players=3, roles="paper")) == files[:3]
    assert roles(cardboard.new_state("pandemic", players=4, roles="paper_text")) == text
    assert roles(cardboard.new_state("pandemic", players=3, roles="paper_text")) == text[:3]


@pytest.mark.parametrize("mode, pool", [("random", L.PAPER_ROLES), ("random_all", L.ROLE_NAMES)])
def test_random_roles_are_distinct_and_from_the_pool(mode, pool):  # 003 §5.4 (P_rand) / official roles
    seen = Counter()
    for seed in range(60):
        r = roles(cardboard.new_state("pandemic", seed=seed, players=3, roles=mode))
        assert len(set(r)) == 3 and set(r) <= set(pool)
        seen.update(r)
    assert set(seen) == set(pool)


def test_bad_options_are_refused():  # registry: InvalidParameterError names the option
    from cardboard.envs.errors import InvalidParameterError

    for options in ({"players": 5}, {"epidemics": 7}, {"infection_rate": "fast"},
                    {"players": 2, "roles": "medic,medic"}, {"players": 2, "roles": "medic,doctor"}):
        with pytest.raises(InvalidParameterError):
            cardboard.new_state("pandemic", **options)


def test_the_deal_is_numpys_shuffles_in_order():  # a seeded game stays the game it was (the deal is compiled)
    s, rng = cardboard.new_state("pandemic", seed=7, players=2, epidemics=4).s, np.random.default_rng(7)
    cities = rng.permutation(48)  # the paper roles draw nothing: the city cards come first
    for p in range(2):
        assert set(np.flatnonzero(s[L.HAND + p * 48:L.HAND + (p + 1) * 48])) == set(cities[p * 4:(p + 1) * 4])
    piles = [rng.permutation(np.append(cities[8 + 10 * k:18 + 10 * k], L.EPIDEMIC)) for k in range(4)]
    assert s[L.PDECK:L.PDECK + 44].tolist() == np.concatenate(piles).tolist()
    infection = rng.permutation(48)  # top first: the first 9 infected and discarded
    assert s[L.IDECK + 9:L.IDECK + 48].tolist() == infection[9:].tolist()
    assert set(np.flatnonzero(s[L.IDISCARD:L.IDISCARD + 48])) == set(infection[:9])

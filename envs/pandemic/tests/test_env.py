"""The AEC env and the protocol's rules for every player count and both action layers (the conformance suite
in tests/ runs the default game only): PettingZoo's api_test and seed_test as shipped, turns and chance."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardboard
from cardboard.envs.protocol import CHANCE

VARIANTS = [{"players": 2}, {"players": 3}, {"players": 4}, {"players": 2, "actions": "macro"},
            {"players": 4, "actions": "macro"}, {"players": 3, "roles": "random_all", "epidemics": 6}]


@pytest.mark.parametrize("options", VARIANTS, ids=str)
@pytest.mark.parametrize("open_", [False, True], ids=["hidden", "open"])
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_pettingzoo_api_and_seed(options, open_):
    api_test(cardboard.make_env("pandemic", open=open_, **options), num_cycles=300)
    seed_test(lambda: cardboard.make_env("pandemic", open=open_, **options), num_cycles=100)


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_turns_chance_and_returns_follow_the_protocol(options):
    """Rules 2, 3 and 5 of the protocol page on whole random games of each variant."""
    game = cardboard.make_game("pandemic", **options)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        last = (None, 0)
        while not state.is_terminal():
            assert state.turn <= game.info.max_turns
            if state.current_player == CHANCE:
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and min(p for _, p in outcomes) > 0
                assert len({o for o, _ in outcomes}) == len(outcomes)
                state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            player, turn = state.current_player, state.turn
            assert turn >= last[1]
            legal = state.legal_actions()
            assert len(legal) > 0 and np.all(np.diff(legal) > 0) and legal[-1] < game.info.num_actions
            last = (player, turn)
            state.apply(int(legal[rng.integers(len(legal))]))
        returns = state.returns()
        assert len(set(returns.tolist())) == 1 and returns[0] in (-1.0, 1.0)

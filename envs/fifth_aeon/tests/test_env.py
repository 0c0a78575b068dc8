"""The AEC env over several match-ups (the conformance suite in tests/ runs the default one): PettingZoo's
api_test and seed_test as shipped, and the defender's block decision handed to the defending agent."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.fifth_aeon import layout as L

VARIANTS = [{"decks": "Dominion"}, {"decks": ("Robotic Plague", "Skies and Seas")},
            {"decks": ("The Meek", "The Mighty"), "mulligan": False}]


@pytest.mark.parametrize("options", VARIANTS, ids=str)
@pytest.mark.parametrize("open_", [False, True], ids=["hidden", "open"])
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_pettingzoo_api_and_seed(options, open_):
    api_test(cardboard.make_env("fifth_aeon", open=open_, **options), num_cycles=300)
    seed_test(lambda: cardboard.make_env("fifth_aeon", open=open_, **options), num_cycles=100)


def test_the_defender_blocks_inside_the_attackers_turn():
    """Once the attacker passes with attackers and a legal blocker exists, the env selects the defending agent, the
    mask holds block actions, the turn is unchanged; after its pass the attacker is selected again."""
    env = cardboard.make_env("fifth_aeon", decks="The King's Legions")
    rng = np.random.default_rng(0)
    for seed in range(40):
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.observe(agent)["action_mask"]
            state = env.unwrapped.game_state
            if state.phase == "block":
                attacker = state.match.turn_player
                assert agent == f"player_{1 - attacker}"
                assert mask[L.BLOCK:L.ORDER].any() and mask[L.PASS]
                turn = state.turn
                env.step(L.PASS)
                assert env.unwrapped.game_state.turn == turn
                assert env.agent_selection == f"player_{attacker}" or not env.agents or \
                    env.unwrapped.game_state.phase in ("choice", "order")
                return
            legal = np.flatnonzero(mask)
            attacks = [a for a in legal if L.ATTACK <= a < L.BLOCK]
            env.step(int(attacks[0]) if attacks and state.phase == "play1" else int(rng.choice(legal)))
    pytest.fail("no block decision reached in 40 games")


def test_mulligan_from_the_command_line_means_what_it_says():  # --option mulligan=0 once turned mulligans on
    """The registry reads on/off options given as text (cardboard.registry.make_game), for every game."""
    assert [cardboard.make_game("fifth_aeon", mulligan=v).mulligan for v in ("0", "1", "false", "True", 0, True)] == [
        False, True, False, True, False, True]
    with pytest.raises(InvalidParameterError, match="option 'mulligan': 'maybe' is not a valid bool"):
        cardboard.make_game("fifth_aeon", mulligan="maybe")

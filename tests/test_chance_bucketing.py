"""Chance-node bucketing with pre-sampling (CNB, paper 001 §2.6) on the dice race's explicit chance nodes."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import CHANCE
from cardboard.search.chance import ChanceBucketing
from cardboard.search.mcts import SearchConfig, TreeSearch

from .games import dice_race

GAME = dice_race.DiceRaceGame(target=20, faces=6)


def face(outcome: int) -> int:
    return outcome - dice_race.ROLL_OUTCOME_BASE + 1


def low_high(state, outcome: int) -> str:
    """Two buckets of unequal probability: face 1 (1/6) and faces 2-6 (5/6)."""
    return "low" if face(outcome) == 1 else "high"


def rolling_state():
    state = GAME.state_with((4, 0), 0)
    state.apply(dice_race.ROLL)  # a chance node: six faces
    return state


def test_buckets_are_chosen_by_probability_and_keep_n_presamples():
    cnb = ChanceBucketing(low_high, samples=2)
    state, rng, presampled = rolling_state(), np.random.default_rng(0), {}
    draws = [cnb.successor(presampled, state, rng) for _ in range(6000)]
    low = sum(face(o) == 1 for o in draws) / len(draws)
    assert abs(low - 1 / 6) < 0.02  # bucket frequency = bucket probability
    assert set(draws) == set(presampled["low"]) | set(presampled["high"])  # only pre-samples are followed
    assert len(presampled["low"]) == 1 and len(presampled["high"]) == 2  # N, or all a bucket has
    assert len(set(presampled["high"])) == 2  # drawn without replacement
    high = [o for o in draws if face(o) != 1]
    assert all(abs(high.count(o) / len(high) - 0.5) < 0.04 for o in presampled["high"])  # uniform among them


def test_a_presample_this_world_does_not_offer_is_replaced_from_its_bucket():
    cnb = ChanceBucketing(low_high, samples=2)
    state, rng = rolling_state(), np.random.default_rng(1)
    not_offered = dice_race.ROLL_OUTCOME_BASE + 50
    presampled = {"high": [not_offered], "low": [dice_race.ROLL_OUTCOME_BASE]}
    draws = {cnb.successor(presampled, state, rng) for _ in range(300)}
    offered = {o for o, _ in state.chance_outcomes()}
    assert not_offered not in draws and draws <= offered and len(draws) > 2


def test_search_with_cnb_follows_only_presampled_successors_and_still_plays_right():
    cnb = ChanceBucketing(low_high, samples=1)
    for totals, player in [((8, 6), 1), ((6, 8), 1), ((4, 0), 0), ((10, 0), 0)]:
        state = dice_race.DiceRaceGame(target=10, faces=3).state_with(totals, player)
        result = TreeSearch(SearchConfig(iterations=2000, bucketing=cnb), "uct").search(
            state, np.random.default_rng(2))
        assert result.action == dice_race.right_move(state)
    state = GAME.state_with((4, 0), 0)
    root = TreeSearch(SearchConfig(iterations=500, bucketing=cnb), "uct").search(
        state, np.random.default_rng(3)).root
    roll = root.child_for(root.edge(state.action_key(dice_race.ROLL)), CHANCE)
    assert roll.player < 0 and len(roll.edges) == 2  # M buckets x N = 2 successors instead of 6
    assert set(roll.stats()) == {o for kept in roll.presampled.values() for o in kept}


def test_cnb_needs_at_least_one_presample():
    with pytest.raises(InvalidParameterError):
        ChanceBucketing(low_high, samples=0)
    cnb = ChanceBucketing(low_high, samples=lambda state: 0)
    with pytest.raises(InvalidParameterError):
        cnb.successor({}, rolling_state(), np.random.default_rng(0))


class BucketedDiceRace(dice_race.DiceRaceState):
    """The dice race with the game-side CNB hooks that ``cnb=1`` agents call."""

    def chance_bucket(self, outcome: int) -> str:
        return low_high(self, outcome)

    def chance_samples(self) -> int:
        return 1


@pytest.mark.parametrize("spec", ["uct:iterations=300,cnb=1", "ismcts:iterations=300,cnb=1",
                                  "duct:worlds=2,iterations=300,cnb=1"])
def test_cnb_option_uses_the_games_hooks_and_refuses_a_game_without_them(spec):
    agent = cardboard.make_agent(spec)
    state = BucketedDiceRace(GAME)
    agent.act(state, np.random.default_rng(0))
    roll = agent.last.root.child_for(agent.last.root.edge(state.action_key(dice_race.ROLL)), CHANCE)
    assert len(roll.edges) == 2 and set(roll.presampled) == {"low", "high"}  # M = 2 buckets x N = 1
    with pytest.raises(InvalidParameterError, match="lords_of_war"):
        agent.act(cardboard.new_state("lords_of_war", seed=0), np.random.default_rng(0))

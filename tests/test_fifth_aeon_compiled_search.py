"""Search on Fifth Aeon's compiled model grows the Python path's tree: at fixed seeds, for UCT, ISMCTS and DUCT,
random and DefaultAI rollouts, cut-off depths with DefaultAI's evaluation at the leaf, ``prune=1`` (DefaultAI's
resource), the compiled loop and the Python path give the same action, visits, whole tree and generator state
(``tests/compiled_paths.assert_same``). Hidden deck lists take the Python path for ISMCTS (no compiled deck model)."""
import numpy as np
import pytest

import cardboard
from cardboard.search.mcts import SearchConfig, TreeSearch
from tests.compiled_paths import assert_same, runs_compiled


def position(moves, **options):
    state = cardboard.make_game("fifth_aeon", **options).new_state(4)
    rng = np.random.default_rng(4)
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


@pytest.mark.parametrize("moves", [0, 12, 40])
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
@pytest.mark.parametrize("config", [{}, {"depth": 4, "prune": True}, {"depth": 2, "c": 0.2}])
def test_random_rollouts(worlds, moves, config, compiled_runs):
    assert_same(position(moves), worlds, 120, 7, compiled_runs, **config)


@pytest.mark.parametrize("moves", [0, 30])
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
def test_default_ai_rollouts_and_evaluation(worlds, moves, compiled_runs):
    state = position(moves, rollout="default_ai")
    assert_same(state, worlds, 80, 3, compiled_runs, depth=4, c=0.2, prune=True)
    assert_same(state, worlds, 40, 5, compiled_runs, depth=0)


def test_duct_fixed_worlds(compiled_runs):
    assert_same(position(20, rollout="default_ai"), "duct", 60, 2, compiled_runs, num_worlds=3, depth=4,
                prune=True)


def test_hidden_lists_take_python_for_ismcts_only():
    state = position(10, decklists="hidden")
    rng = np.random.default_rng(0)
    assert not runs_compiled(TreeSearch(SearchConfig(iterations=5), "ismcts"), state, rng)
    assert runs_compiled(TreeSearch(SearchConfig(iterations=5), "uct"), state, rng)

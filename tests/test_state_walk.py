"""The searched state's walk through ``search/`` (``benchmarks/state_walk.py``): how often one search hands it from
file to file and back, pinned for the default agent's first search and for a later one."""
import sys
from pathlib import Path

import numpy as np
import pytest

import cardboard

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from state_walk import counts, importers, stays, walk  # noqa: E402

BARS = {"stays": 18, "files": 6, "returns": 8, "climbs": 4}  # issue 48's bars for one search


@pytest.mark.parametrize("spec", ["ismcts:iterations=16", "ismcts:iterations=16,compiled=0", "duct:iterations=16"])
def test_one_search_walks_the_state_through_few_files(spec):
    game = cardboard.make_game("lords_of_war")
    agent = cardboard.make_agent(spec, game)
    state = game.new_state(1)
    agent.searcher.search(state, np.random.default_rng(0))  # the plan is made once, at the engine's first search
    found = counts(stays(walk(state, lambda: agent.searcher.search(state, np.random.default_rng(0)))), importers())
    assert found["stays"] >= 4 and all(found[k] <= bar for k, bar in BARS.items()), found


def test_the_walk_counts_returns_and_climbs():
    up = {"core": {"tree", "loop"}, "tree": {"loop"}}
    merged = stays([("loop", "a"), ("loop", "b"), ("tree", "c"), ("loop", "d"), ("core", "e"), ("tree", "f")])
    assert [s for s, _ in merged] == ["loop", "tree", "loop", "core", "tree"]
    assert counts(merged, up) == {"stays": 5, "files": 3, "returns": 2, "climbs": 2}

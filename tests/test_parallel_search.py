"""Parallel search (``cardboard.search.parallel``): root parallelisation merges its trees' root statistics
reproducibly in a persistent process pool; tree and leaf parallelisation spend the whole budget on one tree and
settle every virtual loss; the agent knobs refuse what cannot work."""
import gc
import json
import shlex
import sys
from dataclasses import replace

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.parallel import (LeafParallel, RootParallel, TreeParallel, merge, root_statistics,
                                       static_split, tree_seeds)
from cardboard.search.strategies import PUCT
from cardboard.search.tree import TOTAL, VISITS

from .trees import nodes_of

GAME = cardboard.make_game("lords_of_war")


@pytest.fixture(scope="module")
def position():
    """Lords of War after the two opening placements (the thesis's S1 is such a state)."""
    state = GAME.new_state(1)
    rng = np.random.default_rng(1)
    for _ in range(2):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def test_static_split_spreads_the_remainder_over_the_first_workers():
    assert static_split(10, 3) == [4, 3, 3]
    assert static_split(2, 4) == [1, 1, 0, 0]
    assert static_split(None, 2) == [None, None]


def test_root_sums_each_trees_root_statistics_and_is_reproducible(position):
    """Two workers: tree i is the in-process search with seed i and share i; the merged visits are the per-tree
    sums and add up to the budget; the same seed gives the same decision again; close() stops the workers."""
    agent = cardboard.make_agent("ismcts:iterations=301,parallel=root,workers=2", GAME)
    searcher = agent.searcher
    assert isinstance(searcher, RootParallel)
    try:
        result = searcher.search(position, np.random.default_rng(5))
        pids = [p.pid for p in searcher.processes]
        seeds = tree_seeds(np.random.default_rng(5), 2)
        for share, seed, stats in zip((151, 150), seeds, searcher.trees):
            alone = TreeSearch(replace(searcher.config, iterations=share), "ismcts").search(
                position, np.random.default_rng(seed))
            assert root_statistics(alone.root) == stats
            assert sum(n for n, _, _ in stats.values()) == share
        merged = merge(searcher.trees)
        for key, visits in result.visits.items():
            assert visits == sum(t[key][0] for t in searcher.trees if key in t) == merged[key][0]
        assert result.iterations == 301 == sum(result.visits.values())
        assert {k: s[0] for k, s in result.root.stats().items()} == {k: s[0] for k, s in merged.items()}
        assert position.action_key(result.action) in result.visits
        again = searcher.search(position, np.random.default_rng(5))
        assert (again.action, again.visits) == (result.action, result.visits)
        assert [p.pid for p in searcher.processes] == pids  # the pool is reused
        processes = searcher.processes
    finally:
        agent.close()
    assert searcher.processes == [] and not any(p.is_alive() for p in processes)


def test_merge_sums_visits_totals_and_availability_over_every_tree():
    trees = [{"a": (3, 1.5, 4), "b": (1, 0.0, 4)}, {"a": (2, 2.0, 5)}, {"c": (7, 3.5, 9), "b": (4, 1.0, 6)}]
    assert merge(trees) == {"a": (5, 3.5, 9), "b": (5, 1.0, 10), "c": (7, 3.5, 9)}


def test_root_with_one_worker_is_reproducible_and_its_pool_goes_with_the_searcher(position):
    searcher = RootParallel(SearchConfig(iterations=200), "uct", workers=1)
    first = searcher.search(position, np.random.default_rng(9))
    assert searcher.search(position, np.random.default_rng(9)).visits == first.visits
    assert first.iterations == 200 == sum(first.visits.values())
    processes = searcher.processes
    del searcher
    gc.collect()
    for process in processes:
        process.join(timeout=10)
        assert not process.is_alive()


@pytest.mark.parametrize("kind", [TreeParallel, LeafParallel])
@pytest.mark.parametrize("worlds", ["uct", "ismcts", "duct"])
def test_tree_and_leaf_spend_the_whole_budget_on_one_tree(kind, worlds, position):
    searcher = kind(SearchConfig(iterations=400), worlds, num_worlds=3, workers=2)
    result = searcher.search(position, np.random.default_rng(3))
    assert result.action in position.legal_actions()
    assert result.iterations == 400 == sum(result.visits.values())
    assert sum(s[0] for s in result.root.stats().values()) == 400


@pytest.mark.parametrize("kind", [TreeParallel, LeafParallel])
def test_a_time_budget_stops_tree_and_leaf(kind, position):
    result = kind(SearchConfig(iterations=None, seconds=0.05), "ismcts", workers=2).search(
        position, np.random.default_rng(4))
    assert result.iterations > 0 and sum(result.visits.values()) == result.iterations
    assert result.seconds < 1.0


def test_leaf_backs_up_the_paths_that_end_the_game_in_the_tree():
    """A few moves from the end most paths reach a terminal state, which the caller backs up itself: without a
    virtual loss every iteration's visit is counted at backup, so none may be missing."""
    state, rng = GAME.new_state(5), np.random.default_rng(5)
    states = []
    while not state.is_terminal():
        states.append(state.clone())
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    near = next(s for s in states[-4::-1] if len(s.legal_actions()) > 1)
    result = LeafParallel(SearchConfig(iterations=200), "uct", workers=2, vl=0).search(near, np.random.default_rng(0))
    assert result.iterations == 200 == sum(result.visits.values())


def test_tree_and_leaf_duct_iterate_on_their_worlds_round_robin(position):
    for kind in (TreeParallel, LeafParallel):
        searcher = kind(SearchConfig(iterations=10), "duct", num_worlds=3)
        me, rng = position.current_player, np.random.default_rng(0)
        fixed = searcher.worlds.draw(position, me, rng, searcher.config.determinizer)
        assert len(fixed) == 3 and len({w.s.tobytes() for w in fixed}) == 3
        for i in range(6):
            world = searcher.worlds.world(position, me, rng, searcher.config.determinizer, fixed, i)
            assert np.array_equal(world.s, fixed[i % 3].s)


@pytest.mark.parametrize("kind", [TreeParallel, LeafParallel])
def test_tree_and_leaf_duct_searches_play_every_fixed_world_in_turn(kind, position, monkeypatch):
    """Iteration i (stamp i + 1) of a threaded DUCT search plays fixed world i mod 3: every world, in turn."""
    from cardboard.search.worlds import Fixed

    asked, world = [], Fixed.world
    monkeypatch.setattr(Fixed, "world", lambda self, *args: asked.append(args[-1]) or world(self, *args))
    kind(SearchConfig(iterations=12), "duct", num_worlds=3).search(position, np.random.default_rng(0))
    assert sorted(asked) == list(range(12))


@pytest.mark.parametrize("kind", [TreeParallel, LeafParallel])
@pytest.mark.parametrize("vl", [0, 1, 2])
def test_every_virtual_loss_is_settled(kind, vl, position):
    """Every simulation is worth 1 to every player, so an edge's total reward equals its visits exactly when no
    virtual loss is left pending and no update was lost; threads are switched as often as possible."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        config = SearchConfig(iterations=300, depth=0, evaluator=lambda state: np.ones(2))
        result = kind(config, "ismcts", workers=2, vl=vl).search(position, np.random.default_rng(vl))
    finally:
        sys.setswitchinterval(interval)
    assert sum(result.visits.values()) == 300
    for node in nodes_of(result.root):
        assert np.array_equal(node.stat[TOTAL, node.edges], node.stat[VISITS, node.edges])


@pytest.mark.parametrize("spec, named", [
    ("ismcts:parallel=threads", "'threads'"),
    ("uct:parallel=tree,workers=0", "0"),
    ("ismcts:parallel=leaf,vl=-1", "-1"),
    ("ismcts:parallel=root,reuse=1", "reuse=1"),
    ("duct:parallel=tree,turn=300", "turn=300"),
])
def test_agent_knobs_refuse_what_cannot_work(spec, named):
    with pytest.raises(InvalidParameterError, match=named):
        cardboard.make_agent(spec, GAME)


def test_threaded_search_refuses_puct_and_root_refuses_a_config_that_does_not_pickle():
    with pytest.raises(InvalidParameterError, match="PUCT"):
        TreeParallel(SearchConfig(selection=PUCT()))
    with pytest.raises(InvalidParameterError, match="leaves must be 1, got 4"):
        LeafParallel(SearchConfig(leaves=4))
    with pytest.raises(InvalidParameterError, match="pickle"):
        RootParallel(SearchConfig(evaluator=lambda state: np.ones(2)))


def test_tree_parallel_agents_play_and_log_their_decisions(position):
    agent = cardboard.make_agent("uct:iterations=200,parallel=leaf,workers=2,vl=0", GAME)
    assert agent.act(position, np.random.default_rng(0)) in position.legal_actions()
    assert agent.last.iterations == 200 and len(agent.decisions) == 1


# ---- the experiment (evaluation/papers/p000_play_style/low_parallel.py) ------------------------------------------------
def test_the_parallel_experiment_times_plays_and_a_run_of_one_part_keeps_the_other(tmp_path):
    from cardboard.evaluation.papers.p000_play_style.low_parallel import main

    base = ["--out", str(tmp_path), "--algorithms", "uct", "--iterations", "20", "--seconds", "0.002"]
    main(base + ["--parts", "timing", "--modes", "none,tree", "--workers", "1,2", "--repeats", "2"])
    main(base + ["--parts", "strength", "--modes", "tree", "--games", "2"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary["timing"]) == {"uct/none/1", "uct/tree/1", "uct/tree/2", "machine/spin/1", "machine/spin/2"}
    assert all(cell["repeats"] == 2 for cell in summary["timing"].values())
    assert summary["timing"]["uct/tree/2"]["paper_speedup"] == pytest.approx(514.09 / 299.13)
    strength = summary["strength"]["uct/tree"]
    assert strength["games"] == 2 and strength["specs"] == [
        "uct:iterations=0,seconds=0.002,parallel=tree,vl=0,workers=2", "uct:iterations=0,seconds=0.002"]
    assert all((tmp_path / name).stat().st_size for name in ("decision_time.png", "speedup.png", "win_rate.png"))


def test_the_parallel_experiment_on_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch,
                                                                                         capsys):
    from cardboard.evaluation.papers.p000_play_style import low_parallel

    play_match_specs = low_parallel.play_match_specs

    def interrupted_after_one_game(*args, on_game, **kwargs):
        def once(record):
            on_game(record)
            raise KeyboardInterrupt

        return play_match_specs(*args, on_game=once, **kwargs)

    monkeypatch.setattr(low_parallel, "play_match_specs", interrupted_after_one_game)
    argv = ["--out", str(tmp_path), "--parts", "strength", "--algorithms", "uct", "--modes", "tree", "--games", "2",
            "--seconds", "0.002"]
    assert low_parallel.main(argv) == 130
    printed = capsys.readouterr()
    assert (f"interrupted: 1 game saved in {tmp_path}; resume with: python -m "
            f"cardboard.evaluation.papers.p000_play_style.low_parallel {shlex.join(argv)}") in printed.out
    assert "Traceback" not in printed.out + printed.err
    assert len((tmp_path / "strength" / "uct-tree.jsonl").read_text().splitlines()) == 2  # the header and one game

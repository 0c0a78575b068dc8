"""Hard pruning by the game's heuristics (paper 002; ``search.pruning``): the kept moves, ties, unions, the
per-node memory over worlds, extrapolation, the agents' knobs."""
import json
import shlex

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import TERMINAL
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.pruning import HardPruning, finish_turn
from cardboard.search.tree import VISITS

from .games import nim


class ScoredNim(nim.NimState):
    """Nim with two evaluations: 'removed' (the more objects gone the better) and 'first' (heap 0 emptied)."""

    calls = 0

    def evaluation(self, name):
        total = sum(self.game.heaps)

        def removed(state, player):
            ScoredNim.calls += 1
            return 1.0 - sum(state.heaps) / total

        def first(state, player):
            return 1.0 - state.heaps[0] / self.game.heaps[0]

        if name not in ("removed", "first"):
            raise InvalidParameterError(f"no evaluation {name!r}; known: removed, first")
        return {"removed": removed, "first": first}[name]


def scored_nim(heaps=(3, 3, 3)):
    game = nim.NimGame(heaps)
    return ScoredNim(game)


def kept_moves(state, pruning, seed):
    legal = state.legal_actions()
    return {state.decode(int(legal[i])) for i in pruning.keep(state, legal, np.random.default_rng(seed))}


def test_keeps_the_top_hpl_and_breaks_ties_at_random():
    state = scored_nim()  # nine moves: take 3 from any heap is best, then 2, then 1
    seen = set()
    for seed in range(30):
        kept = kept_moves(state, HardPruning(("removed",), 2), seed)
        assert len(kept) == 2 and all(take == 3 for _, take in kept)
        seen |= kept
    assert seen == {(h, 3) for h in range(3)}  # every tied move is kept by some draw
    kept = kept_moves(state, HardPruning(("removed",), 4), 0)
    assert sorted(take for _, take in kept) == [2, 3, 3, 3]


def test_several_heuristics_keep_the_union_of_their_tops():
    state = scored_nim((3, 2, 2))
    kept = kept_moves(state, HardPruning(("removed", "first"), 1), 0)
    assert kept == {(0, 3)}  # both heuristics' best: the union has one move
    kept = kept_moves(scored_nim((2, 3, 3)), HardPruning(("removed", "first"), 1), 0)
    assert (0, 2) in kept and len(kept) == 2 and any(take == 3 for _, take in kept)


def test_a_node_with_at_most_hpl_moves_keeps_them_all_unscored():
    state = scored_nim((1, 1, 1))
    ScoredNim.calls = 0
    assert len(kept_moves(state, HardPruning(("removed",), 3), 0)) == 3
    assert ScoredNim.calls == 0


def deploy_of_seventeen():
    """Lords of War (seed 0, 35 random moves seeded 0): a deploy with 17 moves of distinct keys, one of them alone
    the worst by h4."""
    state, rng = cardboard.new_state("lords_of_war", seed=0), np.random.default_rng(0)
    for _ in range(35):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_a_node_with_hpl_moves_keeps_all_and_one_with_hpl_plus_one_loses_its_worst(compiled, compiled_runs):
    """The limit's boundary (002 §2.4: a node with at most HPL moves prunes nothing), on both paths: of 17 moves,
    HPL 17 (and 18) keep and search all 17, HPL 16 keeps and searches all but the one h4 scores lowest."""
    state = deploy_of_seventeen()
    legal, mover, h4 = state.legal_actions().copy(), state.current_player, state.evaluation("h4")
    scores = []
    for action in legal:
        after = state.clone()
        after.apply(int(action))
        scores.append(h4(after, mover))
    keys = [state.action_key(int(a)) for a in legal]
    lowest = sorted(scores)
    assert len(legal) == len(set(keys)) == 17 and lowest[0] < lowest[1]  # the position is the one described
    worst = keys[int(np.argmin(scores))]
    for hpl, kept in ((18, set(keys)), (17, set(keys)), (16, set(keys) - {worst})):
        config = SearchConfig(iterations=60, pruning=HardPruning(("h4",), hpl), compiled=compiled)
        result = TreeSearch(config, "uct").search(state, np.random.default_rng(hpl))
        assert set(result.visits) == kept, hpl
        memory, table = result.root.pruned, result.root.table
        assert {k for k in keys if memory.kept[table.id(k)]} == kept, hpl
    assert bool(compiled_runs) == compiled  # the path named is the one that ran


def visited_widths(node):
    """The number of visited edges of every decision node of the tree."""
    out = [int(np.count_nonzero(node.stat[VISITS, node.edges]))] if node.player >= 0 else []
    for child in node.children():
        out += visited_widths(child)
    return out


def test_uct_searches_only_the_kept_moves_at_every_node():
    state = scored_nim((4, 4, 4))
    config = SearchConfig(iterations=300, pruning=HardPruning(("removed",), 2))
    result = TreeSearch(config, "uct").search(state, np.random.default_rng(1))
    action_of = {state.action_key(int(a)): int(a) for a in state.legal_actions()}
    assert {state.decode(action_of[k])[1] for k in result.visits} == {4}  # only "take all four" moves
    assert max(visited_widths(result.root)) <= 2 and sum(result.visits.values()) == 300
    plain = TreeSearch(SearchConfig(iterations=300), "uct").search(state, np.random.default_rng(1))
    assert max(visited_widths(plain.root)) > 2


def test_hpl_one_is_greedy_search_of_the_heuristic_line():
    state = scored_nim((2, 3, 1))
    result = TreeSearch(SearchConfig(iterations=50, pruning=HardPruning(("removed",), 1)), "uct").search(
        state, np.random.default_rng(0))
    assert state.decode(result.action) == (1, 3) and list(result.visits.values()) == [50]


def test_the_same_seed_gives_the_same_pruned_search():
    game = cardboard.make_game("lords_of_war")
    state = game.new_state(4)
    for _ in range(3):
        state.apply(int(state.legal_actions()[0]))
    config = SearchConfig(iterations=80, pruning=HardPruning(("h1", "h10"), 3, extrapolate=True))
    a = TreeSearch(config, "uct").search(state, np.random.default_rng(7))
    b = TreeSearch(config, "uct").search(state, np.random.default_rng(7))
    assert a.visits == b.visits and a.action == b.action


class Hidden:
    """A state without the compiled ``evaluations_after``: pruning takes its clone / apply / evaluate loop."""

    def __init__(self, state):
        self._state = state

    def __getattr__(self, name):
        if name == "evaluations_after":
            raise AttributeError(name)
        return getattr(self._state, name)

    def clone(self):
        return self._state.clone()


@pytest.mark.parametrize("moves", [2, 25, 60])
def test_the_compiled_fast_path_keeps_what_the_generic_loop_keeps(moves):
    state = cardboard.new_state("lords_of_war", seed=moves)
    rng = np.random.default_rng(moves)
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    pruning = HardPruning(("h4", "h3", "h7"), 3)
    legal = state.legal_actions().copy()
    fast = pruning.keep(state, legal, np.random.default_rng(0))
    slow = pruning.keep(Hidden(state), legal, np.random.default_rng(0))
    assert np.array_equal(fast, slow)


class Recording(Hidden):
    """``Hidden`` whose evaluations record (player to move, turn) of every state they score."""

    def __init__(self, state):
        super().__init__(state)
        self.seen = []

    def evaluation(self, name):
        evaluate = self._state.evaluation(name)

        def recorded(after, player):
            self.seen.append((after.current_player, after.turn))
            return evaluate(after, player)

        return recorded


def test_the_generic_loop_scores_after_the_rest_of_the_movers_turn():
    """A Lords of War deploy is followed by the mover's reinforce: with ``extrapolate`` the generic loop scores
    the state after it (the opponent to move), without it the state right after the deploy."""
    state = cardboard.new_state("lords_of_war", seed=0)
    for _ in range(2):
        state.apply(int(state.legal_actions()[0]))
    mover, turn, legal = state.current_player, state.turn, state.legal_actions().copy()
    assert state.phase == "deploy" and len(legal) > 3
    for extrapolate in (False, True):
        recording = Recording(state)
        HardPruning(("h4",), 3, extrapolate).keep(recording, legal, np.random.default_rng(0))
        assert len(recording.seen) == len(legal)
        assert all((player == mover and t == turn) != extrapolate for player, t in recording.seen), recording.seen


def test_finish_turn_stops_before_the_opponents_decision():
    for seed in range(20):
        state = cardboard.new_state("lords_of_war", seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(2, 60))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
        if state.is_terminal():
            continue
        mover, turn = state.current_player, state.turn
        finish_turn(state, mover, turn, rng)
        assert state.is_terminal() or state.current_player != mover or state.turn != turn


class Turns:
    """A toy state: player 0 decides twice a turn, turn after turn (no opponent), until 6 decisions are made."""

    def __init__(self):
        self.moves = 0

    @property
    def current_player(self):
        return 0 if self.moves < 6 else TERMINAL

    @property
    def turn(self):
        return self.moves // 2

    def legal_actions(self):
        return np.arange(2)

    def apply(self, action):
        self.moves += 1


def test_finish_turn_stops_when_a_new_turn_begins_even_for_the_same_player():
    state = Turns()
    finish_turn(state, 0, 0, np.random.default_rng(0))
    assert state.moves == 2 and state.turn == 1
    state.apply(0)
    finish_turn(state, 0, 1, np.random.default_rng(0))
    assert state.moves == 4


def test_ismcts_prunes_its_own_moves_to_hpl_and_keeps_each_worlds_top_elsewhere():
    game = cardboard.make_game("lords_of_war")
    state = game.new_state(2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    if state.phase != "deploy":
        state.apply(int(state.legal_actions()[0]))
    config = SearchConfig(iterations=200, pruning=HardPruning(("h4",), 3))
    result = TreeSearch(config, "ismcts").search(state, np.random.default_rng(3))
    assert len(result.visits) <= 3  # the searcher's own moves are the same in every world
    assert result.root.pruned.kept.sum() <= 3


def test_agent_knobs_and_their_errors():
    game = cardboard.make_game("lords_of_war")
    agent = cardboard.make_agent("uct:iterations=20,prune=h1+h4,hpl=5,extrapolate=1", game)
    pruning = agent.searcher.config.pruning
    assert pruning == HardPruning(("h1", "h4"), 5, True) and not agent.searcher.config.prune
    assert cardboard.make_agent("ismcts:prune=1", cardboard.make_game("hearth")).searcher.config.prune
    assert cardboard.make_agent("duct:prune=0", game).searcher.config.pruning is None
    for spec, words in (("uct:prune=h99", "no evaluation 'h99'"), ("uct:prune=h4,hpl=0", "hpl"),
                        ("ismcts:prune=h4+", "at least one")):
        with pytest.raises(InvalidParameterError, match=words):
            cardboard.make_agent(spec, game)
    with pytest.raises(InvalidParameterError, match="hearth"):
        cardboard.make_agent("uct:prune=h4", cardboard.make_game("hearth"))
    state = game.new_state(0)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()


# ---- the experiment (evaluation/papers/p002_pruning/low_pruning.py) -------------------------------------------------
def test_the_pruning_experiment_plays_each_cell_its_games_and_a_run_of_one_part_keeps_the_other(tmp_path):
    from cardboard.evaluation.papers.p002_pruning.low_pruning import main

    base = ["--out", str(tmp_path), "--heuristics", "h4", "--hpl", "1", "--iterations", "8", "--workers", "1"]
    main(base + ["--parts", "extrapolation", "--games", "2", "--vs-games", "3", "--rounds", "2"])
    cut = (tmp_path / "cells" / "h4R-vs-h4.jsonl").read_text()
    main(base + ["--parts", "sweep", "--games", "2"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {name: cell["games"] for name, cell in summary.items()} == {"h4R-vs-h4": 3, "h4R-15": 2, "h4-1": 2}
    assert summary["h4R-vs-h4"]["specs"] == ["uct:iterations=8,prune=h4,hpl=15,extrapolate=1",
                                             "uct:iterations=8,prune=h4,hpl=15"]
    assert summary["h4-1"]["specs"] == ["uct:iterations=8,prune=h4,hpl=1", "uct:iterations=8"]
    for cell in summary.values():
        assert cell["wins"] + cell["draws"] + cell["losses"] == cell["games"]
        assert cell["low"] <= cell["win_rate"] <= cell["high"]
    assert (tmp_path / "sweep.png").stat().st_size and (tmp_path / "extrapolation.png").stat().st_size
    for rounds in ("1", "2", "3"):  # done: nothing played again, whatever the rounds (a round asks for fewer)
        main(base + ["--parts", "extrapolation", "--games", "2", "--vs-games", "3", "--rounds", rounds])
        assert (tmp_path / "cells" / "h4R-vs-h4.jsonl").read_text() == cut
    main(base + ["--parts", "extrapolation", "--games", "2", "--vs-games", "5", "--rounds", "3"])  # extended
    lines = (tmp_path / "cells" / "h4R-vs-h4.jsonl").read_text().splitlines()
    assert lines[1:4] == cut.splitlines()[1:] and len(lines) == 6


@pytest.mark.parametrize("bad", [["--rounds", "0"], ["--games", "0"], ["--vs-games", "-1"], ["--workers", "0"]])
def test_the_pruning_experiment_refuses_a_count_below_one_and_writes_nothing(tmp_path, bad, capsys):
    from cardboard.evaluation.papers.p002_pruning.low_pruning import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "run"), "--heuristics", "h4", "--hpl", "1", "--iterations", "8"] + bad)
    assert f"{bad[0]} {bad[1]}" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_pruning_experiment_on_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch,
                                                                                        capsys):
    from cardboard.evaluation.papers.p002_pruning import low_pruning

    play_match_specs = low_pruning.play_match_specs

    def interrupted_after_one_game(*args, on_game, **kwargs):
        def once(record):
            on_game(record)
            raise KeyboardInterrupt

        return play_match_specs(*args, on_game=once, **kwargs)

    monkeypatch.setattr(low_pruning, "play_match_specs", interrupted_after_one_game)
    argv = ["--out", str(tmp_path), "--parts", "sweep", "--heuristics", "h4", "--hpl", "1", "--iterations", "4",
            "--games", "2", "--workers", "1"]
    assert low_pruning.main(argv) == 130
    printed = capsys.readouterr()
    assert (f"interrupted: 1 game saved in {tmp_path}; resume with: python -m "
            f"cardboard.evaluation.papers.p002_pruning.low_pruning {shlex.join(argv)}") in printed.out
    assert "Traceback" not in printed.out + printed.err
    assert len((tmp_path / "cells" / "h4-1.jsonl").read_text().splitlines()) == 2  # the header and one game


def test_the_extrapolation_diagnostic_counts_changed_scores_and_kept_set_overlap(tmp_path):
    from cardboard.evaluation.papers.p002_pruning.low_extrapolation import kept, main

    assert kept(np.array([0.1, 0.5, 0.5, 0.3]), 2) == {1, 2} and kept(np.array([0.9, 0.5, 0.5, 0.3]), 2) == {0, 1, 2}
    result = main(["--out", str(tmp_path), "--games", "1", "--hpl", "15"])
    assert result["decisions"] > 0 and result["mean_moves"] > 15
    assert 0 < result["moves_changed"] < 1 and 0 < result["kept_overlap"] < 1
    assert json.loads((tmp_path / "result.json").read_text()) == result
    nothing = main(["--out", str(tmp_path), "--games", "1", "--hpl", "1000"])
    assert nothing["decisions"] == 0 and nothing["moves_changed"] is None

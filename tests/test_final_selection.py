"""Final-move selection for play style (paper 000 §2.6, ch. 5): each rule on hand-made root statistics, the
online tuner of n, the per-decision log (BestMove, n, w/v, Cx0..Cx4), the agents' spec knobs, and the Lords of
War complexity hook (000 §2.7) on a hand-built position."""
import json
import shlex
from collections import Counter

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.lords_of_war.positions import build_position
from cardboard.search import agents, mcts
from cardboard.search.final import (TUNE_MAX, TUNE_MIN, MaxRand, MaxRoulette, OnlineTuner, RobustRand,
                                    RobustRoulette, decision, make_final, max_child, robust_child)

from .games import tictactoe

# key -> (visits, mean w/v, availability)
EDGES = {"a": (40, 0.30, 99), "b": (30, 0.70, 99), "c": (20, 0.90, 99), "d": (10, 0.50, 99)}


def frequencies(final, edges, draws=6000, seed=0):
    """The share of ``draws`` seeded calls in which ``final`` picks each key."""
    rng = np.random.default_rng(seed)
    counts = Counter(final(edges, rng) for _ in range(draws))
    return {k: counts[k] / draws for k in edges}


def test_the_engine_uses_the_rules_of_final_and_defaults_to_robust_child():
    assert mcts.robust_child is robust_child and mcts.max_child is max_child
    assert mcts.SearchConfig().final is robust_child
    assert make_final() is robust_child and make_final("max") is max_child


def test_max_child_picks_the_best_mean_whatever_the_visits():
    assert set(frequencies(max_child, EDGES, 200)) == set(EDGES)
    assert frequencies(max_child, EDGES, 200)["c"] == 1.0


@pytest.mark.parametrize("n", [1, 2, 3])
def test_robust_rand_picks_only_among_the_n_most_visited_each_about_one_in_n(n):
    share = frequencies(RobustRand(n), EDGES)
    top = ["a", "b", "c", "d"][:n]
    assert all(share[k] == 0 for k in EDGES if k not in top)
    assert all(abs(share[k] - 1 / n) < 0.03 for k in top), share


def test_max_rand_picks_only_among_the_n_best_means():
    share = frequencies(MaxRand(2), EDGES)
    assert share["a"] == share["d"] == 0 and abs(share["c"] - 0.5) < 0.03


def test_one_of_the_top_is_the_single_child_rule_ties_included():
    """RobustRand_1 = RobustChild, MaxRand_1 = MaxChild (000 §2.6): the order behind the cut is the single rule's."""
    tied = {"a": (10, 0.2, 12), "b": (10, 0.6, 12), "c": (10, 0.6, 12), "d": (4, 0.9, 12)}
    assert {k for k, p in frequencies(RobustRand(1), tied, 400).items() if p} == {"b", "c"}
    assert frequencies(RobustRand(1), EDGES, 100)["a"] == 1.0
    assert {k for k, p in frequencies(MaxRand(1), {**tied, "e": (1, 0.9, 12)}, 400).items() if p} == {"d", "e"}


def test_ties_at_the_top_n_cut_go_to_the_higher_mean_then_at_random():
    """Exactly n children make the cut: a visit tie across it is broken by the mean, a full tie at random."""
    by_mean = {"a": (10, 0.5, 20), "b": (8, 0.4, 20), "c": (8, 0.6, 20)}
    share = frequencies(RobustRand(2), by_mean)
    assert share["b"] == 0 and abs(share["a"] - 0.5) < 0.03
    level = {"a": (10, 0.5, 20), "b": (8, 0.5, 20), "c": (8, 0.5, 20)}
    share = frequencies(RobustRand(2), level)
    assert abs(share["a"] - 0.5) < 0.03 and abs(share["b"] - 0.25) < 0.03 and abs(share["c"] - 0.25) < 0.03


@pytest.mark.parametrize("final", [RobustRand(5), MaxRand(10), RobustRoulette(7, 0.0), MaxRoulette(9, 0.0)])
def test_with_fewer_children_than_n_all_of_them_are_used(final):
    share = frequencies(final, EDGES)
    assert all(abs(p - 0.25) < 0.03 for p in share.values()), share


@pytest.mark.parametrize("k", [1.0, 2.0, 0.5])
def test_robust_roulette_over_all_children_follows_visits_to_the_k(k):
    share = frequencies(RobustRoulette(0, k), EDGES, draws=20000)
    weight = {key: v ** k for key, (v, _, _) in EDGES.items()}
    total = sum(weight.values())
    assert all(abs(share[key] - weight[key] / total) < 0.015 for key in EDGES), share


def test_robust_roulette_n_spins_over_the_n_most_visited_only():
    share = frequencies(RobustRoulette(2, 2.0), EDGES, draws=20000)
    assert share["c"] == share["d"] == 0
    assert abs(share["a"] - 1600 / 2500) < 0.015


def test_max_roulette_follows_the_mean_to_the_k_and_is_uniform_when_every_mean_is_zero():
    share = frequencies(MaxRoulette(0, 2.0), EDGES, draws=20000)
    total = sum(m * m for _, m, _ in EDGES.values())
    assert all(abs(share[key] - m * m / total) < 0.015 for key, (_, m, _) in EDGES.items()), share
    zeros = {key: (v, 0.0, a) for key, (v, _, a) in EDGES.items()}
    assert all(abs(p - 0.25) < 0.03 for p in frequencies(MaxRoulette(), zeros).values())


def test_the_rules_are_seeded():
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    final = RobustRoulette(3, 2.0)
    assert [final(EDGES, rng1) for _ in range(50)] == [final(EDGES, rng2) for _ in range(50)]


@pytest.mark.parametrize("bad, value", [(lambda: RobustRand(0), "0"), (lambda: MaxRand(-1), "-1"),
                                        (lambda: RobustRoulette(-2), "-2"), (lambda: MaxRoulette(0, -1.0), "-1.0"),
                                        (lambda: RobustRoulette(2, float("inf")), "inf")])
def test_bad_rule_parameters_are_refused_by_value(bad, value):
    with pytest.raises(InvalidParameterError, match=value):
        bad()


# ---- the online tuner (000 ch. 5.3.7) ---------------------------------------------------------------------
def test_the_tuner_widens_after_a_winning_move_narrows_otherwise_within_1_and_10():
    tuner = OnlineTuner(RobustRoulette(3, 2.0))
    tuner.update(0.51)
    assert tuner.n == 4 and tuner.current == RobustRoulette(4, 2.0)
    tuner.update(0.5)  # not above the threshold: down
    tuner.update(0.2)
    assert tuner.n == 2
    for _ in range(5):
        tuner.update(0.0)
    assert tuner.n == TUNE_MIN == 1
    for _ in range(15):
        tuner.update(1.0)
    assert tuner.n == TUNE_MAX == 10
    tuner.reset()
    assert tuner.n == 3


def test_the_tuner_chooses_with_the_n_in_force():
    tuner = OnlineTuner(RobustRand(1))
    assert frequencies(tuner, EDGES, 200)["a"] == 1.0
    tuner.update(0.9)
    share = frequencies(tuner, EDGES, 2000)
    assert share["c"] == 0 and abs(share["b"] - 0.5) < 0.05


@pytest.mark.parametrize("selection", [RobustRoulette(0), RobustRand(11), robust_child])
def test_the_tuner_needs_a_top_n_rule_starting_in_range(selection):
    with pytest.raises(InvalidParameterError):
        OnlineTuner(selection)


# ---- the per-decision log -----------------------------------------------------------------------------------
class Root:
    """A search tree's root as ``decision`` reads it: the statistics of its edges."""

    def __init__(self, stats):
        self._stats = stats

    def stats(self):
        return self._stats


def test_best_move_is_having_the_most_visits_of_the_legal_edges():
    state = tictactoe.TicTacToeGame().new_state()
    stats = {("mark", 0): (5, 0.2, 9), ("mark", 4): (5, 0.9, 9), ("mark", 8): (3, 1.0, 9), ("mark", 2): (0, 0.0, 9)}
    root = Root(stats)
    assert decision(state, root, 0, None).best_move  # a visit tie: RobustChild could have played it
    assert decision(state, root, 4, 3).best_move
    low = decision(state, root, 8, 2)
    assert not low.best_move and low.n == 2 and low.mean == 1.0
    assert low.complexity == (9.0,)  # Cx0 only: tic-tac-toe offers no complexity hook


def test_best_move_ignores_root_edges_illegal_in_the_state_decided():
    """An ISMCTS root may hold edges of moves that other worlds offered: BestMove is among this state's moves."""
    state = tictactoe.TicTacToeGame().new_state()
    state.apply(4)
    root = Root({("mark", 4): (50, 0.5, 60), ("mark", 0): (6, 0.4, 20), ("mark", 8): (3, 0.9, 20)})
    assert decision(state, root, 0, None).best_move
    assert not decision(state, root, 8, None).best_move


def low_agent(spec):
    return cardboard.make_agent(spec, cardboard.make_game("lords_of_war"))


def play(agent, decisions=10, seed=3):
    state = cardboard.new_state("lords_of_war", seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while len(agent.decisions) < decisions and not state.is_terminal():
        actions.append(agent.act(state, rng))
        state.apply(actions[-1])
    return actions


def test_the_agent_logs_each_decision_searched_and_reset_clears_the_log():
    agent = low_agent("uct:iterations=40")
    play(agent)
    assert len(agent.decisions) == 10
    assert all(d.best_move and d.n is None and 0 <= d.mean <= 1 and len(d.complexity) == 5 for d in agent.decisions)
    assert all(d.complexity[0] >= 2 for d in agent.decisions)  # a forced move is not searched, nor logged
    agent.reset()
    assert agent.decisions == []


def test_final_robust_is_todays_default_move_for_move():
    assert play(low_agent("ismcts:iterations=30,final=robust")) == play(low_agent("ismcts:iterations=30"))


def test_the_tuned_agent_logs_the_n_in_force_and_steps_it_by_the_chosen_w_v():
    agent = low_agent("uct:iterations=40,final=robust_roulette,n=3,k=2,tune=1")
    play(agent, decisions=12)
    log = agent.decisions
    assert log[0].n == 3
    for before, after in zip(log, log[1:]):
        assert after.n == min(10, max(1, before.n + (1 if before.mean > 0.5 else -1)))
    agent.reset()
    assert agent.final.n == 3


def test_a_roulette_agent_sometimes_plays_other_than_the_best_move():
    agent = low_agent("uct:iterations=40,final=robust_roulette,k=1")
    play(agent, decisions=30)
    assert not all(d.best_move for d in agent.decisions)


# ---- spec knobs ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, rule", [
    ("uct:final=max", max_child), ("ismcts:final=robust_rand,n=3", RobustRand(3)),
    ("duct:final=max_rand,n=6", MaxRand(6)), ("uct:final=robust_roulette,n=2,k=2", RobustRoulette(2, 2.0)),
    ("ismcts:final=max_roulette,k=3", MaxRoulette(0, 3.0))])
def test_the_spec_knobs_pick_the_rule(spec, rule):
    agent = cardboard.make_agent(spec)
    assert agent.final == rule and agent.searcher.config.final == rule


def test_tune_wraps_the_rule_in_the_tuner():
    agent = cardboard.make_agent("duct:final=robust_roulette,n=2,k=2,tune=1")
    assert isinstance(agent.final, OnlineTuner) and agent.final.current == RobustRoulette(2, 2.0)
    assert agent.searcher.config.final is agent.final


@pytest.mark.parametrize("spec, named", [
    ("uct:final=best", "'best'"), ("ismcts:final=robust,n=3", "n=3"), ("duct:final=max,tune=1", "tune=1"),
    ("uct:final=robust_rand", "got 0"), ("uct:final=max_rand,n=-1", "got -1"), ("uct:final=robust,k=2", "k=2"),
    ("ismcts:final=robust_roulette,k=-1", "-1"), ("uct:final=robust_roulette,tune=1", "got 0"),
    ("uct:final=robust_rand,n=11,tune=1", "got 11"), ("uct:final=max_rand,n=x", "'x'")])
def test_bad_knobs_are_refused_naming_the_value(spec, named):
    with pytest.raises(InvalidParameterError, match=named):
        cardboard.make_agent(spec)


@pytest.mark.parametrize("name", ["uct", "ismcts", "duct"])
def test_the_knobs_are_documented(name):
    doc = getattr(agents, name).__doc__
    assert all(f"\n{knob}: " in doc for knob in ("final", "n", "k", "tune")), doc


# ---- the Lords of War complexity hook (000 §2.7) ---------------------------------------------------------------
def test_low_complexity_counts_the_threatened_squares_their_attack_and_the_cards_for_the_player_to_move():
    """Orcs (player 0, arrows toward row 7): Grunts c3 (N 2 -> c4, the Dwarf; NE 1 -> d4), Spearmen b2 (N 3 -> b3;
    NE -> c3, a friend: not counted), Raiders a3 (N 3 -> a4; E 3 -> b3, counted once, its attack added).
    Dwarves (player 1, toward row 1): Marauder c4 (S 3 -> c3, an Orc; SE 1 -> d3; SW 2 -> b3), Warriors c5
    (S -> c4, a friend; SW 1 -> b4)."""
    game = cardboard.make_game("lords_of_war")
    board = {"c3": (0, "Orc Grunts"), "b2": (0, "Orc Spearmen"), "a3": (0, "Orc Raiders"),
             "c4": (1, "Dwarf Marauder"), "c5": (1, "Dwarf Warriors")}
    seen = {}
    for player in (0, 1):
        state = build_position(game, board=board, hands=(["Orc General"], ["Dwarf General"]), player=player)
        assert state.current_player == player
        seen[player] = state.complexity()
    assert seen[0] == (4.0, 2 + 1 + 6 + 3, 2.0, 5.0)  # c4, d4, b3 (3 + 3), a4
    assert seen[1] == (4.0, 3 + 1 + 2 + 1, 3.0, 5.0)  # c3, d3, b3, b4


def test_the_low_agent_logs_the_hook_after_cx0():
    agent = low_agent("uct:iterations=20")
    state = cardboard.new_state("lords_of_war", seed=4)
    rng = np.random.default_rng(0)
    while not agent.decisions:
        before = state.clone()
        state.apply(agent.act(state, rng))
    assert agent.decisions[0].complexity == (float(len(before.legal_actions())), *before.complexity())


# ---- the experiment (evaluation/papers/p000_play_style/low_play_style.py) ----------------------------------------------
def test_the_play_style_experiment_summarizes_and_replays_a_cut_game_identically(tmp_path):
    from cardboard.evaluation.papers.p000_play_style.low_play_style import main

    args = ["--out", str(tmp_path), "--iterations", "5", "--games", "2", "--variant",
            "rr=final=robust_roulette,n=2,k=2,tune=1", "--quiet"]
    assert main(args) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())["variants"]["rr"]
    assert summary["games"] == 2 and 0 <= summary["best_move"] <= 1 and 1 <= summary["mean_n"] <= 10
    assert all(0 <= v <= 1 for v in summary["cx_normalised"].values())
    path = tmp_path / "rr.jsonl"
    lines = {json.loads(line)["game"]: line for line in path.read_text().splitlines()}
    path.write_text(lines[0] + "\n" + lines[1][:30])  # a kill cut game 1's line short
    assert main(args + ["--workers", "2"]) == 0
    again = {json.loads(line)["game"]: line for line in path.read_text().splitlines()}
    assert again == lines
    with pytest.raises(InvalidParameterError, match="holds another play-style run"):
        main(["--out", str(tmp_path), "--iterations", "6", "--games", "1", "--quiet"])


def test_the_play_style_experiment_on_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch,
                                                                                           capsys):
    from cardboard.evaluation.papers.p000_play_style import low_play_style

    play_one, calls = low_play_style.play_one, []

    def interrupted_second(context, item):
        calls.append(item)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return play_one(context, item)

    monkeypatch.setattr(low_play_style, "play_one", interrupted_second)
    argv = ["--out", str(tmp_path), "--iterations", "5", "--games", "2", "--variant", "robust=final=robust", "--quiet"]
    assert low_play_style.main(argv) == 130
    printed = capsys.readouterr()
    assert (f"interrupted: 1 game saved in {tmp_path}; resume with: python -m "
            f"cardboard.evaluation.papers.p000_play_style.low_play_style {shlex.join(argv)}") in printed.out
    assert "Traceback" not in printed.out + printed.err
    assert len((tmp_path / "robust.jsonl").read_text().splitlines()) == 1

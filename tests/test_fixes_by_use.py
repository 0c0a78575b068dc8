"""Issue 33's fixes found by use: Wilson intervals exact at 0 and n, every plot of intervals drawn at 0% and
100% (and from an interval saved before the fix), ``train-ppo``'s team win rate on a cooperative game, and paper
003's agents experiment on Ctrl-C (issue 35: the games saved and the command that resumes)."""
from __future__ import annotations

import math
import shlex
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from cardboard import registry  # noqa: E402
from cardboard.evaluation.papers.p000_play_style import low_parallel, low_play_style  # noqa: E402
from cardboard.evaluation.papers.p002_pruning import low_pruning  # noqa: E402
from cardboard.evaluation.papers.p003_pandemic import pandemic_agents  # noqa: E402
from cardboard.evaluation.papers.p004_fifth_aeon import fifth_aeon_balancer, fifth_aeon_formats  # noqa: E402
from cardboard.evaluation.match import GameRecord
from cardboard.jobs.intervals import error_bars, wilson_interval  # noqa: E402
from cardboard.training import expert_iteration, ppo  # noqa: E402

STALE_LOW = 2.7755575615628914e-17  # the lower bound an older run saved above a score of 0
STALE_HIGH = 1 - 1.1102230246251565e-16  # and the upper bound at n of n


# ---- wilson_interval ----------------------------------------------------------------------------------------
def test_wilson_seven_of_ten_by_hand():
    """p = 0.7, n = 10, z = 1.96: centre (0.7 + 0.19208) / 1.38416 = 0.644492, half 1.96 sqrt(0.030604) /
    1.38416 = 0.247719: 0.396773 to 0.892211."""
    low, high = wilson_interval(7, 10, 1.96)
    assert low == pytest.approx(0.396773, abs=1e-6)
    assert high == pytest.approx(0.892211, abs=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 40, 99, 100, 400, 1000])
def test_wilson_is_exact_at_zero_and_n(n):
    assert wilson_interval(0, n)[0] == 0.0
    assert wilson_interval(n, n)[1] == 1.0
    for successes in np.arange(0, n + 0.5, 0.5):  # draws count half
        low, high = wilson_interval(successes, n)
        assert 0.0 <= low <= successes / n <= high <= 1.0
        below, above = error_bars([successes / n], [low], [high])
        assert below[0] >= 0.0 and above[0] >= 0.0


def test_wilson_without_games_is_the_whole_range():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_error_bars_clip_a_stale_interval_and_scale():
    assert error_bars([0.0, 1.0], [STALE_LOW, 0.7], [0.3, STALE_HIGH]) == [[0.0, pytest.approx(0.3)],
                                                                            [pytest.approx(0.3), 0.0]]
    assert error_bars([0.5], [0.25], [1.0], 100) == [[25.0], [50.0]]


# ---- every plot of intervals, at 0% and 100% ----------------------------------------------------------------
def written(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def record(agent0_return: float, index: int) -> GameRecord:
    return GameRecord(index, (0, 1), (agent0_return, -agent0_return), 10, (5, 5), (0.1, 0.1))


def test_expert_iteration_plots_a_generation_that_scored_zero(tmp_path):
    """``cardboard expert-iteration``'s final plot with a 0% generation, a 100% one, and (the resume case) a
    generation saved by an older run with the stale bounds."""
    lost = expert_iteration.match_score([record(-1.0, i) for i in range(8)])
    won = expert_iteration.match_score([record(1.0, i) for i in range(8)])
    assert (lost["score"], lost["low"]) == (0.0, 0.0) and (won["score"], won["high"]) == (1.0, 1.0)
    stale = dict(lost, low=STALE_LOW)
    gens = [{"generation": k, "eval": e, "random": r}
            for k, (e, r) in enumerate([(lost, won), (won, lost), (stale, dict(won, high=STALE_HIGH))])]
    state = {"config": {"game": "lords_of_war"}, "generations": gens, "completed_generations": 3}
    expert_iteration.plot(state, tmp_path / "scores.png")
    assert written(tmp_path / "scores.png")


def pandemic_record(setup: str, won: bool) -> dict:
    return {"setup": setup, "won": won, "loss": None if won else "outbreaks", "macros": {"treat": 3, "walk": 2},
            "turns": 12, "stations": 2, "three_cube_cities": 1}


def test_pandemic_agents_plots_a_setup_without_a_win(tmp_path):
    """Paper 003's experiment plot with a set-up of no win (and one of every win)."""
    setups = ["S01", "S02"]
    records = [pandemic_record("S01", False) for _ in range(5)] + [pandemic_record("S02", True) for _ in range(5)]
    summary = pandemic_agents.summarize(records, setups)
    assert summary["setups"]["S01"]["interval"][0] == 0.0 and summary["setups"]["S02"]["interval"][1] == 1.0
    pandemic_agents.plots({"agents": {"a": summary, "b": summary}}, setups, tmp_path)
    assert written(tmp_path / "win_rates.png") and written(tmp_path / "loss_causes.png")


def test_low_play_style_plots_variants_at_zero_and_one(tmp_path):
    def games(score: float) -> list[dict]:
        return [{"score": score, "cx": [[0.1 * i, 0.2, 0.3, 0.4, 0.5]], "best": [True], "n": [3], "mean": [0.5],
                 "turns": 9} for i in range(4)]

    summary = low_play_style.summarize({"lost": games(0.0), "won": games(1.0)})
    assert summary["variants"]["lost"]["interval"][0] == 0.0 and summary["variants"]["won"]["interval"][1] == 1.0
    low_play_style.plots(summary, tmp_path)
    assert written(tmp_path / "play_style.png")


def cell(win_rate: float, low: float, high: float, **extra) -> dict:
    return {"games": 10, "win_rate": win_rate, "low": low, "high": high} | extra


def test_low_pruning_plots_cells_at_zero_and_one(tmp_path):
    zero, one = wilson_interval(0, 10), wilson_interval(10, 10)
    summary = {"h-1": cell(0.0, *zero), "h-2": cell(1.0, *one), "h-5": cell(0.0, STALE_LOW, 0.3)}
    low_pruning.plot_sweep(summary, ["h"], [1, 2, 5], tmp_path / "sweep.png")
    low_pruning.plot_bars(summary, list(summary), tmp_path / "bars.png", "bars")
    assert written(tmp_path / "sweep.png") and written(tmp_path / "bars.png")


def test_low_parallel_plots_strength_at_zero_and_one(tmp_path):
    summary = {"uct/root": cell(0.0, *wilson_interval(0, 10), algorithm="uct", mode="root", paper_win_rate=None),
               "uct/tree": cell(1.0, *wilson_interval(10, 10), algorithm="uct", mode="tree", paper_win_rate=0.6)}
    low_parallel.plot_strength(summary, tmp_path)
    assert written(tmp_path / "win_rate.png")


def test_fifth_aeon_formats_plots_an_agent_that_never_won(tmp_path):
    names, formats = ["a", "b"], ["constructed", "limited"]
    records = [{"fmt": f, "first": k % 2, "second": 1 - k % 2, "winner": 1} for f in formats for k in range(6)]
    table = fifth_aeon_formats.summarize(names, formats, records)
    assert table["formats"]["limited"]["a"]["ci"][0] == 0.0 and table["formats"]["limited"]["b"]["ci"][1] == 1.0
    fifth_aeon_formats.plot(table, tmp_path / "formats.png")
    assert written(tmp_path / "formats.png")


def test_fifth_aeon_balancer_plots_values_at_zero_and_one(tmp_path):
    rows = [{"value": v, "games": 8, "win_rate": w / 8, "ci": list(wilson_interval(w, 8))} for v, w in
            [(1, 0), (2, 8), (3, 4)]]
    assert rows[0]["ci"][0] == 0.0 and rows[1]["ci"][1] == 1.0
    summary = {"rows": rows, "best": 3, "games": 24, "config": {"parameter": "attack", "card": "Some Card"}}
    fifth_aeon_balancer.plot(summary, tmp_path / "balance.png")
    assert written(tmp_path / "balance.png")


def test_ppo_plots_evaluations_at_zero_and_one(tmp_path):
    history = [{"step": 256 * k, "win_rate": w, "ci95": list(wilson_interval(w * 10, 10))}
               for k, w in enumerate([0.0, 1.0], 1)]
    ppo.plot(history, tmp_path / "eval.png", ppo.Args(game="pandemic"))
    assert written(tmp_path / "eval.png")


# ---- train-ppo on a cooperative game ------------------------------------------------------------------------
def test_ppo_outcome_is_the_teams_on_a_cooperative_game():
    info = registry.make_game("pandemic").info
    assert info.utility == "cooperative"
    assert ppo.outcome([1.0, 1.0, 1.0, 1.0], 2, info) == 1  # every seat equal, at max_return: the team won
    assert ppo.outcome([-1.0, -1.0, -1.0, -1.0], 0, info) == -1  # equal, below it: lost, not a draw


def test_ppo_outcome_on_a_competitive_game_compares_seats():
    info = registry.make_game("lords_of_war").info
    assert info.utility != "cooperative"
    assert ppo.outcome([1.0, -1.0], 0, info) == 1
    assert ppo.outcome([1.0, -1.0], 1, info) == -1
    assert ppo.outcome([0.0, 0.0], 1, info) == 0


def test_ppo_evaluation_on_pandemic_counts_no_draw():
    """The learner's seats with ``random`` team-mates: every game is the team's win or loss."""
    class FirstLegal:
        def predict(self, obs, deterministic, action_masks):
            return int(np.flatnonzero(action_masks)[0]), None

    result = ppo.evaluate(FirstLegal(), ppo.Args(game="pandemic", opponent="random"), 4, 0)
    assert result["draws"] == 0 and result["wins"] + result["losses"] == 4
    assert result["win_rate"] == result["wins"] / 4 and not math.isnan(result["ci95"][0])


def test_pandemic_agents_on_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch, capsys):
    play_one, calls = pandemic_agents.play_one, []

    def interrupted_second(context, item):
        calls.append(item)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return play_one(context, item)

    monkeypatch.setattr(pandemic_agents, "play_one", interrupted_second)
    argv = ["--agent", "dp=pandemic_default", "--out", str(tmp_path), "--setups", "S01", "--games", "2", "--quiet"]
    assert pandemic_agents.main(argv) == 130
    printed = capsys.readouterr()
    assert (f"interrupted: 1 game saved in {tmp_path}; resume with: python -m "
            f"cardboard.evaluation.papers.p003_pandemic.pandemic_agents {shlex.join(argv)}") in printed.out
    assert "Traceback" not in printed.out + printed.err
    assert len((tmp_path / "dp.jsonl").read_text().splitlines()) == 1

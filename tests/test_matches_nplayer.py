"""Matches for any number of seats and for cooperative games: seat rotations, common random numbers,
summaries by kind of game, N-player and cooperative tournaments, runtime-registered games in workers.

The games are tests/games/stand_or_roll.py (three seats, general-sum; with a
target, cooperative), registered at run time like a user's own game.
"""
from __future__ import annotations

import itertools
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # --import-mode=importlib does not put the repo root on sys.path
    sys.path.insert(0, _ROOT)

import cardboard  # noqa: E402
from cardboard.cli import main  # noqa: E402
from cardboard.envs.errors import InvalidParameterError, ResultsFileError  # noqa: E402
from cardboard.envs.protocol import GameInfo  # noqa: E402
from cardboard.envs.registration import AGENTS, GAMES  # noqa: E402
from cardboard.evaluation.match import GameRecord, agent_score, play_match, play_match_specs, summarize  # noqa: E402
from cardboard.jobs.seats import seat_order  # noqa: E402
from cardboard.jobs.seeds import game_streams  # noqa: E402
from cardboard.evaluation.paired import compare_results  # noqa: E402
from cardboard.evaluation.tournament import round_robin  # noqa: E402
from tests.games.stand_or_roll import ROLL, StandOrRollGame  # noqa: E402
from tests.games.nim import NimGame  # noqa: E402

GAME = "test_stand_or_roll"
COOP = {"target": 4}  # the cooperative variant


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The test game registered at run time (as a user's own game is), unregistered afterwards."""
    monkeypatch.setenv("COLUMNS", "80")
    cardboard.register_game(GAME, StandOrRollGame)
    cardboard.register_game("test_nim", NimGame)
    yield
    for name in (GAME, "test_nim", "test_lambda_game"):
        GAMES.pop(name, None)
    AGENTS.pop("test_lambda_agent", None)


def strip(records):
    return [(r.index, r.seats, r.returns, r.turns, r.decisions) for r in records]


class Roller:
    """Always rolls; draws ``draws`` numbers from its rng first (a stand-in for an agent that thinks)."""

    def __init__(self, draws: int = 0):
        self.name, self.draws, self.resets, self.acts_since_reset = f"roller{draws}", draws, 0, 0

    def reset(self) -> None:
        self.resets += 1
        self.acts_since_reset = 0

    def act(self, state, rng) -> int:
        rng.random(self.draws)
        self.acts_since_reset += 1
        return ROLL


# ---- seats ------------------------------------------------------------------------------------
def test_cyclic_rotation_puts_agent_k_in_seat_k_plus_i():
    for i in range(7):
        seats = seat_order(i, 3, "cyclic")
        assert all(seats[(k + i) % 3] == k for k in range(3))
    assert [seat_order(i, 2) for i in range(4)] == [(0, 1), (1, 0), (0, 1), (1, 0)]  # two players as before


def test_permutation_rotation_is_lexicographic_and_cycles_every_n_factorial():
    assert [seat_order(i, 3, "permutations") for i in range(6)] == list(itertools.permutations(range(3)))
    assert seat_order(6, 3, "permutations") == (0, 1, 2) and seat_order(29, 4, "permutations") == list(itertools.permutations(range(4)))[5]
    assert [seat_order(i, 2, "permutations") for i in range(4)] == [seat_order(i, 2) for i in range(4)]


@pytest.mark.parametrize("rotation", ["cyclic", "permutations"])
def test_three_seat_match_records_follow_the_rotation(rotation):
    records = play_match_specs(GAME, ["random", "greedy", "random"], 7, seed=1, rotation=rotation)
    assert [r.seats for r in records] == [seat_order(i, 3, rotation) for i in range(7)]
    assert all(len(r.returns) == len(r.decisions) == 3 and r.decisions == (1, 1, 1) for r in records)


def test_wrong_number_of_agents_names_game_and_count(tmp_path):
    path = tmp_path / "m.jsonl"
    with pytest.raises(InvalidParameterError, match=r"'stand_or_roll3' has 3 seats, but the match got 2 agents"):
        play_match_specs(GAME, ["random", "random"], 2, seed=0, results_path=path)
    game = cardboard.make_game(GAME)
    with pytest.raises(InvalidParameterError, match="3 seats, but the match got 4 agents"):
        play_match(game, [Roller()] * 4, 2, seed=0)
    with pytest.raises(InvalidParameterError, match="unknown seat rotation 'random'; known: cyclic, permutations"):
        play_match_specs(GAME, ["random"] * 3, 2, seed=0, rotation="random", results_path=path)
    assert not path.exists()


def test_three_seat_results_file_resumes_and_is_not_paired(tmp_path):
    path = tmp_path / "m.jsonl"
    full = play_match_specs(GAME, ["random", "greedy", "random"], 6, seed=8, rotation="permutations")
    play_match_specs(GAME, ["random", "greedy", "random"], 4, seed=8, rotation="permutations", results_path=path)
    extended = play_match_specs(GAME, ["random", "greedy", "random"], 6, seed=8, rotation="permutations",
                                results_path=path, workers=2)
    assert strip(extended) == strip(full)
    assert json.loads(path.read_text().splitlines()[0])["config"]["rotation"] == "permutations"
    with pytest.raises(ResultsFileError, match="3-player match; a paired comparison needs two-player matches"):
        compare_results(path, path)


# ---- common random numbers --------------------------------------------------------------------
def test_game_streams_are_the_documented_spawn():
    streams = game_streams(11, 5, 3)
    children = np.random.SeedSequence(11).spawn(8)[5].spawn(4)
    assert [s.random() for s in streams] == [np.random.default_rng(c).random() for c in children]


def test_chance_does_not_depend_on_what_the_agents_draw():
    """Every seat rolls: the faces (the returns) are the same whatever the agents draw from their streams."""
    game = cardboard.make_game(GAME)
    quiet = play_match(game, [Roller(0), Roller(0), Roller(0)], 12, seed=3)
    busy = play_match(game, [Roller(7), Roller(1), Roller(30)], 12, seed=3)
    assert [r.returns for r in quiet] == [r.returns for r in busy]
    assert len({r.returns for r in quiet}) > 3  # the dice did roll differently from game to game


def test_each_seat_gets_its_own_stream():
    seen = []

    class Recorder(Roller):
        def act(self, state, rng):
            seen.append((state.current_player, rng.random()))
            return ROLL

    play_match(cardboard.make_game(GAME), [Recorder(), Recorder(), Recorder()], 1, seed=9)
    _, *seats = game_streams(9, 0, 3)
    assert seen == [(k, seats[k].random()) for k in range(3)]


def test_play_game_resets_every_agent_before_each_game():
    agents = [Roller(), Roller(), Roller()]
    play_match(cardboard.make_game(GAME), agents, 4, seed=0)
    assert [a.resets for a in agents] == [4, 4, 4]
    assert [a.acts_since_reset for a in agents] == [1, 1, 1]


# ---- workers get runtime-registered games and agents -------------------------------------------
@pytest.mark.parametrize("rotation", ["cyclic", "permutations"])
def test_runtime_registered_game_plays_in_workers_with_the_same_records(rotation):
    one = play_match_specs(GAME, ["random", "greedy", "random"], 8, seed=4, rotation=rotation)
    two = play_match_specs(GAME, ["random", "greedy", "random"], 8, seed=4, rotation=rotation, workers=2)
    assert strip(one) == strip(two)


def test_runtime_registered_nim_plays_in_workers():
    one = play_match_specs("test_nim", ["random", "greedy"], 6, seed=2, game_options={"heaps": [2, 3]})
    two = play_match_specs("test_nim", ["random", "greedy"], 6, seed=2, game_options={"heaps": [2, 3]}, workers=2)
    assert strip(one) == strip(two) and {r.seats for r in two} == {(0, 1), (1, 0)}


def test_an_unpicklable_factory_is_refused_for_workers_before_anything_is_written(tmp_path):
    cardboard.register_game("test_lambda_game", lambda: StandOrRollGame())
    path = tmp_path / "m.jsonl"
    with pytest.raises(InvalidParameterError, match="game 'test_lambda_game': its factory .* workers=1"):
        play_match_specs("test_lambda_game", ["random"] * 3, 4, seed=0, workers=2, results_path=path)
    assert not path.exists()
    assert len(play_match_specs("test_lambda_game", ["random"] * 3, 4, seed=0)) == 4  # in process it plays


# ---- summaries --------------------------------------------------------------------------------
def info(players: int, utility: str) -> GameInfo:
    return GameInfo("t", players, 2, (1,), "none", "perfect", utility, 0.0 if utility != "zero_sum" else -1.0,
                    1.0, 10)


def record(index, seats, returns):
    n = len(seats)
    return GameRecord(index, tuple(seats), tuple(returns), 5, (2,) * n, (0.1,) * n)


def test_rank_score_shares_ties():
    r = record(0, (2, 0, 1), (0.5, 1.0, 0.5))  # agent 2: 0.5, agent 0: 1.0, agent 1: 0.5
    assert [agent_score(r, k) for k in range(3)] == [1.0, 0.25, 0.25]
    assert agent_score(record(0, (1, 0), (-1.0, 1.0)), 0) == 1.0


def test_summary_of_a_three_player_general_sum_match():
    records = [record(0, (0, 1, 2), (1.0, 0.0, 0.5)), record(1, (2, 0, 1), (1.0, 0.5, 0.5)),
               record(2, (1, 2, 0), (0.0, 0.0, 0.0))]
    summary = summarize(["a", "b", "c"], records, info(3, "general_sum"))
    assert summary.wins is None and summary.team_wins is None and summary.seat_wins is None
    # agent a: returns 1.0, 0.5, 0.0; rank scores 1, 0.25, 0.5
    mean, low, high = summary.mean_returns[0]
    assert mean == pytest.approx(0.5) and high - mean == pytest.approx(1.959964 * 0.5 / math.sqrt(3), abs=1e-6)
    assert [s.value for s in summary.rank_scores] == pytest.approx([1.75 / 3, 0.75 / 3, 2 / 3])


def test_summary_of_a_cooperative_match_counts_team_wins():
    records = [record(i, seat_order(i, 3), (x,) * 3) for i, x in enumerate((1.0, 0.0, 1.0, 1.0))]
    summary = summarize(["a", "b", "c"], records, info(3, "cooperative"))
    assert summary.team_wins == 3 and summary.rank_scores is None and summary.wins is None
    assert {s.value for s in summary.mean_returns} == {0.75}


def test_summary_of_a_two_player_zero_sum_match_keeps_win_draw_loss_and_seats():
    records = [record(0, (0, 1), (1.0, -1.0)), record(1, (1, 0), (1.0, -1.0)), record(2, (0, 1), (0.0, 0.0))]
    summary = summarize(["a", "b"], records, info(2, "zero_sum"))
    assert (summary.wins, summary.draws, summary.losses, summary.seat_wins) == (1, 1, 1, (2, 0))
    assert summary.rank_scores is None and summary.mean_returns[0].value == pytest.approx(0.0)


# ---- tournaments ------------------------------------------------------------------------------
def test_three_seat_round_robin_rates_every_triple(tmp_path):
    specs = ["random", "greedy", "random", "greedy:samples=2"]
    result = round_robin(GAME, specs, 3, seed=2, out_dir=tmp_path)
    assert sorted(result.records) == list(itertools.combinations(range(4), 3))
    assert result.played.tolist() == [[0, 6, 6, 6], [6, 0, 6, 6], [6, 6, 0, 6], [6, 6, 6, 0]]  # 2 triples x 3
    assert np.allclose(result.points + result.points.T, result.played)
    assert result.agent_games.tolist() == [9, 9, 9, 9] and result.elo.mean() == pytest.approx(0.0, abs=1e-9)
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["group_0_1_2.jsonl", "group_0_1_3.jsonl",
                                                               "group_0_2_3.jsonl", "group_1_2_3.jsonl"]
    assert (tmp_path / "matrix.png").read_bytes().startswith(b"\x89PNG")
    again = round_robin(GAME, specs, 3, seed=2, workers=2)
    assert np.array_equal(again.points, result.points)


def test_cooperative_round_robin_has_no_ratings(tmp_path):
    result = round_robin(GAME, ["random", "greedy", "random", "greedy"], 4, seed=1, game_options=COOP,
                         out_dir=tmp_path)
    assert result.elo is None and result.cooperative
    games = [r for records in result.records.values() for r in records]
    team = [r.returns[0] for r in games]
    assert all(len(set(r.returns)) == 1 for r in games)
    assert result.mean_returns.mean() == pytest.approx(np.mean(team))  # every agent in 3 of the 4 triples
    saved = json.loads((tmp_path / "tournament.json").read_text())
    assert saved["elo"] is None and saved["cooperative"] is True


def test_a_tournament_needs_as_many_agents_as_seats():
    with pytest.raises(InvalidParameterError, match=r"'stand_or_roll3' \(3 seats\) needs at least 3 agents, got 2"):
        round_robin(GAME, ["random", "greedy"], 2, seed=0)


# ---- command line -----------------------------------------------------------------------------
def test_cli_play_three_seats_prints_rank_scores_within_80_columns(capsys):
    assert main(["play", GAME, "--agents", "random,greedy,random", "--games", "6", "--seed", "1", "--quiet",
                 "--rotation", "permutations"]) == 0
    out = capsys.readouterr().out
    assert "6 games, seed 1, permutations seat rotation" in out and "rank score" in out and "W/D/L" not in out
    rows = [line for line in out.splitlines() if re.match(r"\W+(random|greedy) ", line)]
    assert len(rows) == 3 and all(len(re.findall(r"\d\.\d\d ± \d\.\d\d", row)) == 2 for row in rows)
    assert "means ± normal (sample standard deviation)" in out and "ties counting half" in out
    assert max(map(len, out.splitlines())) <= 80


def test_cli_play_cooperative_prints_the_team_win_rate(capsys):
    records = play_match_specs(GAME, ["random"] * 3, 8, seed=5, game_options=COOP)
    wins = sum(r.returns[0] == 1.0 for r in records)
    assert main(["play", GAME, "--agents", "random,random,random", "--games", "8", "--seed", "5", "--quiet",
                 "--option", "target=4"]) == 0
    out = capsys.readouterr().out
    assert f"team wins: {wins} of 8 games, {wins / 8:.1%}" in out and "rank score" not in out


def test_cli_two_player_table_fits_80_columns(capsys):
    assert main(["play", "lords_of_war", "--agents", "greedy:samples=2,random", "--games", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "W/D/L" in out and "win rate (95%)" in out and "wins by seat" in out
    assert max(map(len, out.splitlines())) <= 80


def test_cli_tournament_cooperative_says_ratings_are_not_defined(tmp_path, capsys):
    assert main(["tournament", GAME, "--agents", "random", "greedy", "random", "--games", "2", "--quiet",
                 "--option", "target=4", "--out", str(tmp_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "ratings are not defined for cooperative games" in out and "Elo" not in out
    assert "mean return" in out and (tmp_path / "group_0_1_2.jsonl").exists()


def test_cli_tournament_three_seats(tmp_path, capsys):
    assert main(["tournament", GAME, "--agents", "random", "greedy", "random", "greedy", "--games", "2",
                 "--quiet", "--out", str(tmp_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Elo (BT)" in out and "returns compared pair by pair inside each game" in out
    assert len(list(tmp_path.glob("group_*.jsonl"))) == 4


def test_cli_show_plays_game_0_of_play(capsys):
    argv = ["--agents", "random,greedy,random", "--seed", "7"]
    assert main(["show", GAME, *argv]) == 0
    shown = re.search(r"returns: \[(.*)\]", capsys.readouterr().out)[1]
    first = play_match_specs(GAME, ["random", "greedy", "random"], 1, seed=7)[0]
    assert [float(x) for x in shown.split(",")] == list(first.returns)

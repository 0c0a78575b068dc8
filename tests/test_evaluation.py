"""Match runner (workers, resumable JSONL results), round-robin tournaments and their CLI.

Records must not depend on the number of worker processes nor on a resume;
``seconds`` (measured thinking time) is the one field allowed to differ.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import cardboard
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError, ResultsFileError, UnknownNameError
from cardboard.evaluation import match as match_module
from cardboard.evaluation.match import GameRecord, play_match, play_match_specs, read_results
from cardboard.evaluation.tournament import ELO_SCALE, bradley_terry, round_robin, unique_names

GAME = "lords_of_war"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")


def strip(records):
    return [(r.index, r.seats, r.returns, r.turns, r.decisions) for r in records]


# ---- match runner -----------------------------------------------------------------------------
def test_specs_match_equals_in_process_match():
    game = cardboard.make_game(GAME)
    agents = (cardboard.make_agent("random"), cardboard.make_agent("greedy"))
    assert strip(play_match_specs(GAME, ["random", "greedy"], 4, seed=3)) == strip(play_match(game, agents, 4, seed=3))


def test_workers_do_not_change_the_records():
    one = play_match_specs(GAME, ["random", "greedy"], 5, seed=7, workers=1)
    two = play_match_specs(GAME, ["random", "greedy"], 5, seed=7, workers=2)
    assert strip(one) == strip(two)
    assert [r.index for r in two] == list(range(5))


def test_results_file_and_resume(tmp_path, monkeypatch):
    full = play_match_specs(GAME, ["greedy", "random"], 6, seed=2)
    path = tmp_path / "m.jsonl"
    play_match_specs(GAME, ["greedy", "random"], 6, seed=2, results_path=path)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"config": {"version": 2, "game": GAME, "options": {},
                                               "specs": ["greedy", "random"], "games": 6, "seed": 2,
                                               "rotation": "cyclic"}}
    assert len(lines) == 7
    assert set(json.loads(lines[1])) == {"index", "seats", "returns", "turns", "decisions", "seconds", "moves"}
    # a killed run: keep the header and games 0, 2 and 5, then resume
    partial = [lines[0]] + [line for line in lines[1:] if json.loads(line)["index"] in (0, 2, 5)]
    path.write_text("\n".join(partial) + "\n")
    played = []
    original = match_module._play_indexed
    monkeypatch.setattr(match_module, "_play_indexed",
                        lambda game, agents, i, *seeding: played.append(i) or original(game, agents, i, *seeding))
    seen = []
    resumed = play_match_specs(GAME, ["greedy", "random"], 6, seed=2, results_path=path,
                               on_game=lambda r: seen.append(r.index))
    assert played == [1, 3, 4]
    assert sorted(seen) == list(range(6))
    assert strip(resumed) == strip(full)
    assert strip(read_results(path).values()) != [] and sorted(read_results(path)) == list(range(6))
    # a complete file: nothing more to play
    played.clear()
    assert strip(play_match_specs(GAME, ["greedy", "random"], 6, seed=2, results_path=path)) == strip(full)
    assert played == []


def test_resume_with_workers(tmp_path):
    path = tmp_path / "m.jsonl"
    play_match_specs(GAME, ["random", "random"], 3, seed=4, results_path=path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")
    resumed = play_match_specs(GAME, ["random", "random"], 3, seed=4, workers=2, results_path=path)
    assert strip(resumed) == strip(play_match_specs(GAME, ["random", "random"], 3, seed=4))
    assert sorted(json.loads(line)["index"] for line in path.read_text().splitlines()[1:]) == [0, 1, 2]


@pytest.mark.parametrize("change", [{"seed": 3}, {"games": 1}, {"specs": ["random", "greedy"]},
                                    {"rotation": "permutations"}])
def test_resume_refuses_another_config(tmp_path, change):
    path = tmp_path / "m.jsonl"
    base = {"specs": ["greedy", "random"], "games": 2, "seed": 2, "rotation": "cyclic"}
    play_match_specs(GAME, base["specs"], base["games"], base["seed"], results_path=path)
    kw = base | change
    with pytest.raises(ResultsFileError, match="another match config"):
        play_match_specs(GAME, kw["specs"], kw["games"], kw["seed"], rotation=kw["rotation"], results_path=path)


def test_more_games_extend_a_results_file(tmp_path, monkeypatch):
    path = tmp_path / "m.jsonl"
    play_match_specs(GAME, ["greedy", "random"], 3, seed=5, results_path=path)
    played = []
    original = match_module._play_indexed
    monkeypatch.setattr(match_module, "_play_indexed",
                        lambda game, agents, i, *seeding: played.append(i) or original(game, agents, i, *seeding))
    extended = play_match_specs(GAME, ["greedy", "random"], 5, seed=5, results_path=path)
    assert played == [3, 4]
    assert strip(extended) == strip(play_match_specs(GAME, ["greedy", "random"], 5, seed=5))
    assert json.loads(path.read_text().splitlines()[0])["config"]["games"] == 5
    assert sorted(read_results(path)) == list(range(5))
    assert not list(tmp_path.glob("*.extending"))


def test_more_games_do_not_extend_another_match(tmp_path):
    path = tmp_path / "m.jsonl"
    play_match_specs(GAME, ["greedy", "random"], 2, seed=5, results_path=path)
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match="another match config"):
        play_match_specs(GAME, ["greedy", "random"], 4, seed=6, results_path=path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("damage", ["truncate", "garbage", "duplicate", "no-header", "bad-index", "header-keys"])
def test_resume_refuses_a_corrupted_file(tmp_path, damage):
    path = tmp_path / "m.jsonl"
    play_match_specs(GAME, ["random", "random"], 3, seed=1, results_path=path)
    lines = path.read_text().splitlines()
    if damage == "truncate":
        text = "\n".join(lines)[:-7]
    elif damage == "garbage":
        text = "\n".join(lines[:2] + ["{not json"] + lines[2:]) + "\n"
    elif damage == "duplicate":
        text = "\n".join(lines + [lines[1]]) + "\n"
    elif damage == "no-header":
        text = "\n".join(lines[1:]) + "\n"
    elif damage == "header-keys":
        text = "\n".join([json.dumps({"config": {"game": GAME, "games": 3}})] + lines[1:]) + "\n"
    else:
        record = json.loads(lines[1]) | {"index": 9}
        text = "\n".join([lines[0], json.dumps(record)]) + "\n"
    path.write_text(text)
    with pytest.raises(ResultsFileError, match=str(path)):
        play_match_specs(GAME, ["random", "random"], 3, seed=1, results_path=path)


def test_record_json_round_trip():
    record = GameRecord(3, (1, 0), (1.0, -1.0), 40, (20, 21), (0.5, 0.25))
    assert GameRecord.from_json(json.loads(json.dumps(record.to_json()))) == record


@pytest.mark.parametrize("kwargs, error", [
    ({"games": 0}, InvalidParameterError), ({"workers": 0}, InvalidParameterError),
    ({"specs": ["random"]}, InvalidParameterError), ({"specs": ["random", "nope"]}, UnknownNameError),
])
def test_match_specs_errors(kwargs, error):
    args = {"specs": ["random", "random"], "games": 2, "seed": 0} | kwargs
    with pytest.raises(error):
        play_match_specs(GAME, args["specs"], args["games"], args["seed"], workers=kwargs.get("workers", 1))


# ---- Bradley–Terry and tournaments ------------------------------------------------------------
def test_bradley_terry_recovers_known_strengths():
    rng = np.random.default_rng(0)
    true = np.array([0.0, 0.7, -0.5, 1.5, -1.2])
    n = len(true)
    points = np.zeros((n, n))
    games = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            p = 1.0 / (1.0 + np.exp(true[j] - true[i]))
            wins = rng.binomial(4000, p)
            points[i, j], points[j, i] = wins, 4000 - wins
            games[i, j] = games[j, i] = 4000
    fitted = bradley_terry(points, games, prior=0.0)
    assert list(np.argsort(fitted)) == list(np.argsort(true))
    assert fitted == pytest.approx(true - true.mean(), abs=0.1)
    assert abs(fitted.mean()) < 1e-9


def test_bradley_terry_draws_are_half_wins_and_prior_keeps_it_finite():
    points = np.array([[0, 5.0], [0, 0]])  # agent 0 won all 5 games
    games = np.array([[0, 5.0], [5.0, 0]])
    fitted = bradley_terry(points, games, prior=1.0)
    assert np.all(np.isfinite(fitted)) and fitted[0] > fitted[1]
    assert fitted[0] - fitted[1] == pytest.approx(np.log(5.5 / 0.5))
    draws = bradley_terry(np.array([[0, 2.0], [2.0, 0]]), np.array([[0, 4.0], [4.0, 0]]), prior=0.0)
    assert draws == pytest.approx([0.0, 0.0])


def test_unique_names():
    assert unique_names(["random", "greedy", "random"]) == ("random", "greedy", "random#2")


def test_tiny_tournament_writes_png_and_jsonl(tmp_path):
    result = round_robin(GAME, ["random", "greedy", "random"], 2, seed=1, out_dir=tmp_path)
    assert result.played.tolist() == [[0, 2, 2], [2, 0, 2], [2, 2, 0]]
    assert np.allclose(result.points + result.points.T, result.played)
    assert result.elo.mean() == pytest.approx(0.0, abs=1e-9)
    png = (tmp_path / "matrix.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 1000
    assert sorted(p.name for p in tmp_path.glob("pair_*.jsonl")) == ["pair_0_1.jsonl", "pair_0_2.jsonl",
                                                                     "pair_1_2.jsonl"]
    summary = json.loads((tmp_path / "tournament.json").read_text())
    assert summary["names"] == ["random", "greedy", "random#2"] and summary["config"]["seed"] == 1
    # resuming a finished tournament replays nothing and gives the same result
    again = round_robin(GAME, ["random", "greedy", "random"], 2, seed=1, out_dir=tmp_path)
    assert np.array_equal(again.points, result.points)
    assert ELO_SCALE == pytest.approx(400 / np.log(10))


def test_tournament_is_deterministic_and_independent_of_workers():
    one = round_robin(GAME, ["random", "greedy"], 3, seed=5)
    two = round_robin(GAME, ["random", "greedy"], 3, seed=5, workers=2)
    assert np.array_equal(one.points, two.points)
    assert strip(one.records[(0, 1)]) == strip(two.records[(0, 1)])


def test_tournament_errors():
    with pytest.raises(InvalidParameterError, match="'lords_of_war' \\(2 seats\\) needs at least 2 agents, got 1"):
        round_robin(GAME, ["random"], 2, seed=0)
    with pytest.raises(InvalidParameterError, match="games"):
        round_robin(GAME, ["random", "greedy"], 0, seed=0)


# ---- command line -----------------------------------------------------------------------------
def test_cli_play_results_resume(tmp_path, capsys):
    path = tmp_path / "play.jsonl"
    argv = ["play", GAME, "--agents", "greedy,random", "--games", "4", "--seed", "3", "--quiet", "--results", str(path)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert len(path.read_text().splitlines()) == 5
    path.write_text("\n".join(path.read_text().splitlines()[:3]) + "\n")
    assert main([*argv, "--workers", "2"]) == 0
    again = capsys.readouterr().out
    table = lambda out: [line for line in out.splitlines() if re.search(r"greedy|random", line)]
    strip_ms = lambda lines: [re.sub(r"\d+\.\d+\s*\W*$", "", line) for line in lines]
    assert strip_ms(table(first)) == strip_ms(table(again))
    assert main([*argv[:5], "3", *argv[6:]]) == 2  # fewer games than the file holds
    assert capsys.readouterr().out.startswith("error:")


@pytest.mark.parametrize("agents", [["random", "greedy", "random"], ["random,greedy:samples=1", "random"],
                                    ["random,greedy:samples=1,random"]])
def test_cli_tournament(tmp_path, capsys, agents):
    assert main(["tournament", GAME, "--agents", *agents, "--games", "2", "--seed", "1", "--quiet",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Elo (BT)" in out and "score of row agent" in out and "random#2" in out
    assert (tmp_path / "matrix.png").exists()
    assert len(list(tmp_path.glob("pair_*.jsonl"))) == 3


@pytest.mark.parametrize("argv, message", [
    (["--agents", "random", "nope"], "unknown agent 'nope'"),
    (["--agents", "random"], "needs at least 2 agents, got 1"),
    (["--agents", "samples=2", "random"], "before any agent"),
    (["--agents", "random", "greedy", "--games", "0"], "games"),
])
def test_cli_tournament_errors(tmp_path, capsys, argv, message):
    assert main(["tournament", GAME, *argv, "--out", str(tmp_path), "--quiet"]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("error:") and message in out, out

"""Paired comparison of two results files against the same opponent (``cardboard compare``)."""
from __future__ import annotations

import json

import pytest

import cardboard
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError, ResultsFileError
from cardboard.evaluation.match import load_results, play_match_specs, summarize
from cardboard.evaluation.paired import compare_results, pool

GAME = "lords_of_war"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def write_match(path, agent0, scores, *, opponent="random", seed=4, options=None, version=1):
    """A results file whose agent 0 scored ``scores[i]`` (1, ½ or 0) in game i, written by hand: version 1 is
    cardboard 0.1's format (no version in the header), version 2 today's."""
    header = {"config": {"game": GAME, "options": options or {}, "specs": [agent0, opponent],
                         "games": len(scores), "seed": seed}}
    if version == 2:
        header["config"] |= {"version": 2, "rotation": "cyclic"}
    lines = [json.dumps(header)]
    for i, score in enumerate(scores):
        seats = [0, 1] if i % 2 == 0 else [1, 0]
        mine = {1.0: 1.0, 0.5: 0.0, 0.0: -1.0}[score]
        returns = [mine, -mine] if seats[0] == 0 else [-mine, mine]
        lines.append(json.dumps({"index": i, "seats": seats, "returns": returns, "turns": 10,
                                 "decisions": [5, 5], "seconds": [0.1, 0.1]}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_known_differences(tmp_path):
    a = write_match(tmp_path / "a.jsonl", "greedy", [1, 0, 1, 0])
    b = write_match(tmp_path / "b.jsonl", "greedy:samples=2", [1, 1, 1, 0.5])
    result = compare_results(a, b)
    # differences 0, 1, 0, ½: mean 0.375, sample sd 0.478714, standard error 0.239357
    assert (result.games, result.scores, result.same_outcome) == (4, (0.5, 0.875), 2)
    assert result.difference == pytest.approx(0.375)
    assert result.interval == pytest.approx((0.375 - 1.959964 * 0.239357, 0.375 + 1.959964 * 0.239357), abs=1e-5)
    assert result.names == ("greedy", "greedy:samples=2") and result.opponent == "random"
    wider = compare_results(a, b, confidence=0.99)
    assert wider.interval[0] < result.interval[0] and wider.interval[1] > result.interval[1]


def test_range_and_missing_games_pair_only_common_indices(tmp_path):
    a = write_match(tmp_path / "a.jsonl", "greedy", [1, 0, 1, 0, 1])
    b = write_match(tmp_path / "b.jsonl", "random", [0, 1, 1, 1, 0])
    assert compare_results(a, b, first=1, stop=3).difference == pytest.approx(0.5)  # games 1, 2
    lines = b.read_text().splitlines()
    b.write_text("\n".join(lines[:3]) + "\n")  # B holds games 0 and 1 only (an unfinished match)
    result = compare_results(a, b)
    assert result.games == 2 and result.scores == (0.5, 0.5)


def test_a_file_against_itself_differs_by_nothing_and_scores_agree_with_the_summary(tmp_path):
    path = tmp_path / "m.jsonl"
    records = play_match_specs(GAME, ["greedy", "random"], 6, seed=2, results_path=path)
    result = compare_results(path, path)
    summary = summarize(("greedy", "random"), records, cardboard.make_game(GAME).info)
    assert result.difference == 0 and result.interval == (0, 0) and result.same_outcome == 6
    assert result.scores[0] == pytest.approx((summary.wins + summary.draws / 2) / 6)


def test_matches_with_the_same_seed_share_their_deals(tmp_path):
    # the premise of pairing: the same agent against the same opponent with one seed replays every game
    a, again, b = tmp_path / "a.jsonl", tmp_path / "again.jsonl", tmp_path / "b.jsonl"
    play_match_specs(GAME, ["greedy", "random"], 4, seed=9, results_path=a)
    play_match_specs(GAME, ["greedy", "random"], 4, seed=9, workers=2, results_path=again)
    same = compare_results(a, again)
    assert same.same_outcome == 4 and same.interval == (0, 0)
    play_match_specs(GAME, ["random", "random"], 4, seed=9, results_path=b)
    other = compare_results(a, b)
    assert other.names == ("greedy", "random") and other.games == 4
    assert other.difference == pytest.approx(other.scores[1] - other.scores[0])
    assert other.difference < 0  # random is worse than greedy
    assert other.interval[0] < other.difference < other.interval[1]


@pytest.mark.parametrize("change, message", [
    ({"seed": 5}, "differ in seed"),
    ({"options": {"armies": "x"}}, "differ in options"),
    ({"opponent": "greedy"}, "different opponents"),
])
def test_files_of_different_matches_are_refused(tmp_path, change, message):
    a = write_match(tmp_path / "a.jsonl", "greedy", [1, 0, 1])
    b = write_match(tmp_path / "b.jsonl", "random", [1, 0, 1], **change)
    with pytest.raises(ResultsFileError, match=message):
        compare_results(a, b)


def test_a_version_1_file_loads_compares_and_is_not_resumed(tmp_path, capsys):
    a = tmp_path / "a.jsonl"
    a.write_text(  # literally as cardboard 0.1 wrote it: no version, two seats alternating, one stream per game
        '{"config": {"game": "lords_of_war", "options": {}, "specs": ["greedy", "random"], "games": 3, "seed": 4}}\n'
        '{"index": 0, "seats": [0, 1], "returns": [1.0, -1.0], "turns": 30, "decisions": [40, 41], '
        '"seconds": [0.5, 0.01]}\n'
        '{"index": 2, "seats": [0, 1], "returns": [-1.0, 1.0], "turns": 31, "decisions": [42, 40], '
        '"seconds": [0.5, 0.01]}\n'
        '{"index": 1, "seats": [1, 0], "returns": [0.0, 0.0], "turns": 60, "decisions": [80, 80], '
        '"seconds": [0.01, 0.9]}\n')
    header, records = load_results(a)
    assert header == {"version": 1, "rotation": "cyclic", "game": GAME, "options": {}, "specs": ["greedy", "random"],
                      "games": 3, "seed": 4}
    assert sorted(records) == [0, 1, 2] and records[1].seats == (1, 0)
    b = write_match(tmp_path / "b.jsonl", "mc", [1, 1, 1])
    result = compare_results(a, b)
    assert result.a == (1.0, 0.5, 0.0) and result.difference == pytest.approx(0.5)
    assert main(["compare", str(a), str(b)]) == 0 and "+50.0 (" in capsys.readouterr().out
    before = a.read_bytes()
    for games in (3, 5):  # resuming, or extending
        with pytest.raises(ResultsFileError, match=r"written by cardboard 0.1 \(results version 1, one random "
                                                   r"stream per game\): it can be read and compared but not resumed"):
            play_match_specs(GAME, ["greedy", "random"], games, seed=4, results_path=a)
    assert main(["play", GAME, "--agents", "greedy,random", "--games", "3", "--seed", "4", "--quiet",
                 "--results", str(a)]) == 2
    assert "start a new file" in capsys.readouterr().out
    assert a.read_bytes() == before


def test_version_2_files_compare_and_a_version_1_file_does_not_pair_with_them(tmp_path):
    v1 = write_match(tmp_path / "v1.jsonl", "greedy", [1, 0, 1])
    v2 = write_match(tmp_path / "v2.jsonl", "mc", [1, 1, 0], version=2)
    v2b = write_match(tmp_path / "v2b.jsonl", "greedy", [0, 1, 0], version=2)
    assert compare_results(v2, v2b).difference == pytest.approx(-1 / 3)
    for a, b in ((v1, v2), (v2, v1)):
        with pytest.raises(ResultsFileError, match="version 1 .* version 2|version 2 .* version 1") as err:
            compare_results(a, b)
        assert "different random streams" in str(err.value)


def test_a_file_of_an_unknown_version_is_refused(tmp_path):
    path = write_match(tmp_path / "v3.jsonl", "greedy", [1, 0], version=2)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace('"version": 2', '"version": 3')] + lines[1:]) + "\n")
    with pytest.raises(ResultsFileError, match="results version 3; this cardboard reads versions 1 and 2"):
        load_results(path)


@pytest.mark.parametrize("kwargs, message", [
    ({"confidence": 1.0}, "confidence"), ({"confidence": 0.0}, "confidence"),
    ({"first": 2, "stop": 2}, "empty"), ({"first": -1}, "negative"), ({"first": 2}, "at least 2 games"),
])
def test_bad_parameters(tmp_path, kwargs, message):
    a = write_match(tmp_path / "a.jsonl", "greedy", [1, 0, 1])
    with pytest.raises(InvalidParameterError, match=message):
        compare_results(a, a, **kwargs)


def test_pooling_weighs_every_game_alike(tmp_path):
    one = compare_results(write_match(tmp_path / "a1.jsonl", "greedy", [1, 0, 1, 0]),
                          write_match(tmp_path / "b1.jsonl", "mc", [1, 1, 1, 0.5]))
    two = compare_results(write_match(tmp_path / "a2.jsonl", "greedy", [0, 0], seed=7),
                          write_match(tmp_path / "b2.jsonl", "mc", [0, 1], seed=7))
    pooled = pool([one, two])
    assert pooled.games == 6 and pooled.difference == pytest.approx((0 + 1 + 0 + 0.5 + 0 + 1) / 6)
    assert pooled.names == ("greedy", "mc") and pooled.same_outcome == 3
    with pytest.raises(InvalidParameterError, match="at least one"):
        pool([])


def test_cli_compare(tmp_path, capsys):
    a = write_match(tmp_path / "a.jsonl", "greedy", [1, 0, 1, 0])
    b = write_match(tmp_path / "b.jsonl", "greedy:samples=2", [1, 1, 1, 0.5])
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "a.jsonl" in line)
    assert " 4 " in row and "50.0%" in row and "87.5%" in row and "+37.5 (-9.4 to +84.4)" in row, row
    assert "pooled" not in out and "B: greedy:samples=2" in out and "opponent: random" in out
    assert main(["compare", str(a), str(b), "--range", "1:3", "--confidence", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "(90%)" in out and "+50.0 (" in out
    assert main(["compare", str(a), str(b), str(b), str(a)]) == 0
    pooled = next(line for line in capsys.readouterr().out.splitlines() if "pooled" in line)
    assert "+0.0 (" in pooled and "68.8%" in pooled


@pytest.mark.parametrize("argv, message", [
    (["A", "A", "--range", "3"], "expected FIRST:STOP"), (["A", "A", "--range", "a:b"], "expected FIRST:STOP"),
    (["A", "A", "--confidence", "2"], "confidence"), (["A", "missing.jsonl"], "missing.jsonl: no such file"),
    (["A", "A", "A"], "pairs of results files"),
])
def test_cli_compare_errors(tmp_path, capsys, monkeypatch, argv, message):
    write_match(tmp_path / "A", "greedy", [1, 0, 1, 0])
    monkeypatch.chdir(tmp_path)
    assert main(["compare", *argv]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("error:") and message in out, out

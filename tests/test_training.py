"""The game-agnostic MaskablePPO trainer (``cardboard.training.ppo``), on tic-tac-toe (tests/games) in seconds.

Tic-tac-toe is registered for the test only (the registry's table is restored after it), so the trainer is
shown to need nothing of Lords of War; it has draws, which the evaluation must count.
"""
from __future__ import annotations

import argparse
import io
import json

import pytest

pytest.importorskip("sb3_contrib")

from rich.console import Console  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from cardboard import registry  # noqa: E402
from cardboard.envs.errors import InvalidParameterError, UnknownNameError  # noqa: E402
from cardboard.envs.registration import GAMES, Entry  # noqa: E402
from cardboard.training import ppo  # noqa: E402
from tests.games.tictactoe import TicTacToeGame  # noqa: E402

GAME = "tictactoe"


@pytest.fixture
def tictactoe(monkeypatch):
    registry.load()
    monkeypatch.setitem(GAMES, GAME, Entry.of(GAME, TicTacToeGame, "tic-tac-toe (test game)"))


def without_wall_time(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.startswith(("wall_s", "train_wall_s"))} for r in records]


def test_smoke_run_writes_every_output(tictactoe, tmp_path, capsys):
    assert ppo.main([GAME, "--opponent", "greedy", "--smoke", "--out-dir", str(tmp_path)]) == 0
    final = json.loads((tmp_path / "final.json").read_text())
    assert final["game"] == GAME and final["opponent"] == "greedy" and final["step"] == 256
    assert final["games"] == 4 == final["wins"] + final["draws"] + final["losses"]
    assert 0.0 <= final["ci95"][0] <= final["win_rate"] <= final["ci95"][1] <= 1.0
    assert -1.0 <= final["mean_return_ci95"][0] <= final["mean_return"] <= final["mean_return_ci95"][1] <= 1.0
    assert sum(final["wins_by_seat"]) == final["wins"] and len(final["wins_by_seat"]) == 2
    lines = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [128, 256] and all(r["games"] == 2 for r in lines)
    assert json.loads((tmp_path / "args.json").read_text())["game"] == GAME
    assert (tmp_path / "eval.png").exists()
    out = capsys.readouterr().out
    assert "win rate vs greedy" in out and "losses" in out  # the periodic lines and the final table
    MaskablePPO.load(tmp_path / "model.zip")


def test_cli_entry_points_replay_the_same_run(tictactoe, tmp_path):
    """``add_arguments`` + ``run`` (the ``cardboard train-ppo`` wiring): the same seed, the same results."""
    parser = argparse.ArgumentParser()
    ppo.add_arguments(parser)
    runs = []
    for name in ("a", "b"):
        args = parser.parse_args([GAME, "--smoke", "--quiet", "--seed", "3", "--out-dir", str(tmp_path / name)])
        assert ppo.run(args, Console(file=io.StringIO())) == 0
        runs.append(without_wall_time([json.loads(line) for line in (tmp_path / name / "eval.jsonl").open()]
                                      + [json.loads((tmp_path / name / "final.json").read_text())]))
    assert runs[0] == runs[1]


def test_default_out_dir_names_game_opponent_and_seed():
    parser = argparse.ArgumentParser()
    ppo.add_arguments(parser)
    args = ppo.to_args(parser.parse_args(["some_game", "--opponent", "greedy:samples=2", "--seed", "4"]))
    assert args.out_dir == "runs/ppo/some_game-vs-greedy_samples=2-seed4"
    assert args.timesteps == 5_000_000 and args.net_arch == (64, 64)


@pytest.mark.parametrize("argv, error, words", [
    (["no_such_game", "--smoke"], UnknownNameError, "unknown game 'no_such_game'"),
    ([GAME, "--opponent", "no_such_agent", "--smoke"], UnknownNameError, "unknown agent 'no_such_agent'"),
    ([GAME, "--option", "size=3", "--smoke"], UnknownNameError, "unknown option of game 'tictactoe' 'size'"),
    ([GAME, "--timesteps", "0"], InvalidParameterError, "--timesteps must be >= 1"),
])
def test_bad_arguments_fail_before_any_output(tictactoe, tmp_path, capsys, argv, error, words):
    out_dir = tmp_path / "run"
    assert ppo.main([*argv, "--out-dir", str(out_dir)]) == 2
    assert words in capsys.readouterr().out
    assert not out_dir.exists()
    parser = argparse.ArgumentParser()
    ppo.add_arguments(parser)
    with pytest.raises(error):
        ppo.run(parser.parse_args([*argv, "--out-dir", str(out_dir)]), Console(file=io.StringIO()))

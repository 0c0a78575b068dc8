"""Games written outside the repository, reached through entry points as a pip-installed plugin's would be.

``tests/external`` holds ``cardboard_plugins_demo`` and its ``.dist-info`` (``cardboard.games`` entry
points); ``tests/conftest.py`` puts it on ``sys.path`` and ``PYTHONPATH``. The plugin's two games also run
the whole conformance suite (it is parametrised over ``cardboard.games()``); here: the CLI lists them, the
two-player game plays every agent that accepts it, in worker processes too, and the three-player game
plays matches and a tournament of three or more agents.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardboard
from cardboard import registry
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError

TWO, THREE = "demo_tricks", "demo_pig3"
PLUGIN_GAMES = (TWO, THREE)
CLI = str(Path(sys.executable).with_name("cardboard"))
BUDGET = {"iterations": 30, "worlds": 2}  # small search budgets, where an agent has the knob
NOT_AUTOMATIC = {"human": "reads a person's moves from the terminal", "sb3": "plays a trained checkpoint (path=...)",
                 "cardplay": "plays a trained card-play checkpoint (path=...)",
                 "zoo": "plays a model shipped for its game (none is shipped for a plugin game)"}
GAME_SPECIFIC = {"greedy_h", "pandemic_default", "pandemic_mutator", "default_ai", "berserker"}  # built for one game each


def small(name: str) -> str:
    """Agent ``name``'s spec with a small budget."""
    params = [f"{k}={v}" for k, v in BUDGET.items() if k in registry.agent_entry(name).defaults]
    return f"{name}:{','.join(params)}" if params else name


def play(game: str, specs: list[str], tmp_path: Path, games: int = 2, seed: int = 1, workers: int = 1) -> list[dict]:
    """``cardboard play`` in this process; the records of its results file, by game index."""
    results = tmp_path / f"{game}-{len(list(tmp_path.iterdir()))}.jsonl"
    argv = ["play", game, "--agents", ",".join(specs), "--games", str(games), "--seed", str(seed),
            "--workers", str(workers), "--results", str(results), "--quiet"]
    assert main(argv) == 0
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    records = sorted((r for r in lines if "index" in r), key=lambda r: r["index"])
    info = cardboard.make_game(game).info
    assert [r["index"] for r in records] == list(range(games))
    for r in records:
        returns = np.array(r["returns"])
        assert sorted(r["seats"]) == list(range(info.num_players)) and len(returns) == info.num_players
        assert np.all((info.min_return <= returns) & (returns <= info.max_return)) and abs(returns.sum()) < 1e-9
        assert 0 < r["turns"] <= info.max_turns and sum(r["decisions"]) > 0  # Pig can end in one turn
    return records


def tournament(game: str, specs: list[str], tmp_path: Path, games: int = 2) -> dict:
    """``cardboard tournament`` in this process; its ``tournament.json``."""
    out = tmp_path / "tournament"
    assert main(["tournament", game, "--agents", *specs, "--games", str(games), "--seed", "2", "--out", str(out),
                 "--quiet"]) == 0
    assert (out / "matrix.png").stat().st_size > 0
    return json.loads((out / "tournament.json").read_text())


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # rich wraps at the terminal width: keep table rows on one line


def test_the_cli_lists_the_plugin_games_only_with_the_plugin_on_the_path():
    listed = subprocess.run([CLI, "games"], capture_output=True, text=True, check=True).stdout
    assert all(f"{name}  " in listed for name in PLUGIN_GAMES), listed
    assert set(PLUGIN_GAMES) <= set(cardboard.games())  # the conformance suite's parametrisation
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run([CLI, "games"], capture_output=True, text=True, check=True, env=bare).stdout
    assert "lords_of_war" in listed and not any(name in listed for name in PLUGIN_GAMES)


@pytest.mark.parametrize("open_", [False, True], ids=["hidden", "open"])
@pytest.mark.parametrize("name", PLUGIN_GAMES)
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api_and_seed_tests_pass(name, open_):
    api_test(cardboard.make_env(name, open=open_), num_cycles=200)
    seed_test(lambda: cardboard.make_env(name, open=open_), num_cycles=200)


def accepts(agent: str, game: str) -> bool:
    """Whether ``agent`` (with a small budget) can be built for ``game``; only the game-specific agents refuse
    (hearth's greedy_h, pandemic's policies). The agents of ``NOT_AUTOMATIC`` are left out."""
    if agent in NOT_AUTOMATIC:
        return False
    try:
        cardboard.make_agent(small(agent), cardboard.make_game(game))
    except InvalidParameterError as exc:
        assert agent in GAME_SPECIFIC, f"{agent} refuses a plugin game: {exc}"
        return False
    return True


def every_generic_agent(game: str) -> list[str]:
    return [small(agent) for agent in cardboard.agents() if accepts(agent, game)]


@pytest.mark.parametrize("agent", cardboard.agents())
def test_the_two_player_game_plays_every_agent_that_accepts_it(agent, tmp_path):
    if accepts(agent, TWO):
        records = play(TWO, [small(agent), "random"], tmp_path)
        assert [r["seats"] for r in records] == [[0, 1], [1, 0]]


@pytest.mark.parametrize("agent", cardboard.agents())
def test_the_three_player_game_plays_every_agent_that_accepts_it(agent, tmp_path):
    if accepts(agent, THREE):
        records = play(THREE, [small(agent), "random", "greedy"], tmp_path, games=3)
        assert len({tuple(r["seats"]) for r in records}) == 3  # the seats rotate


def test_the_two_player_game_plays_the_same_match_in_worker_processes(tmp_path):
    specs = [small("ismcts"), "greedy"]
    parallel = play(TWO, specs, tmp_path, games=4, workers=2)
    serial = play(TWO, specs, tmp_path, games=4)
    assert [{**r, "seconds": None} for r in parallel] == [{**r, "seconds": None} for r in serial]


def test_the_two_player_game_runs_a_tournament_of_every_generic_agent(tmp_path):
    specs = every_generic_agent(TWO)
    result = tournament(TWO, specs, tmp_path)
    k = len(specs)
    assert k >= 8 and result["specs"] == specs and result["agent_games"] == [2 * (k - 1)] * k  # 2 games a pair


def test_the_three_player_game_runs_a_tournament_of_every_generic_agent(tmp_path):
    specs = every_generic_agent(THREE)
    result = tournament(THREE, specs, tmp_path, games=1)
    k = len(specs)
    assert k >= 8 and result["specs"] == specs and result["agent_games"] == [(k - 1) * (k - 2) // 2] * k


def test_a_plugin_adds_a_command_to_the_cli():
    listed = subprocess.run([CLI, "--help"], capture_output=True, text=True, check=True).stdout
    assert "pig-odds" in listed and "a plugin's command" in listed
    ran = subprocess.run([CLI, "pig-odds", "--rolls", "2"], capture_output=True, text=True, check=True).stdout
    assert "2 rolls without a 1: 0.6944" in ran  # (5/6)^2 = 25/36
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run([CLI, "--help"], capture_output=True, text=True, check=True, env=bare).stdout
    assert "pig-odds" not in listed and "selfplay" in listed  # training's own command, from its entry point

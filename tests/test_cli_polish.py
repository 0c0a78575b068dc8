"""The command line's edges: Ctrl-C, the first-compile note, parameter listings, 80 columns, compare's checks,
argument errors before any progress display."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardboard import cli, registry
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.registration import Entry

ROOT = Path(__file__).resolve().parents[1]
CARDBOARD = Path(sys.executable).with_name("cardboard")
LONG_SPEC = "duct:iterations=1000,depth=5,prune=1,cnb=1"


def test_ctrl_c_stops_at_once_keeps_whole_games_and_resumes(tmp_path):
    results = tmp_path / "m.jsonl"
    argv = ["play", "lords_of_war", "--agents", "ismcts:iterations=300,random", "--games", "12", "--workers", "2",
            "--results", str(results)]
    # SIGINT as in a terminal: a job started with '&' (CI scripts, nohup) inherits it ignored, and so would the CLI
    proc = subprocess.Popen([str(CARDBOARD), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 180  # cold numba caches on a busy machine: compiling takes a while
    while not (results.exists() and len(results.read_text().splitlines()) >= 3) and time.monotonic() < deadline:
        time.sleep(0.05)  # the header and two games
    assert proc.poll() is None, f"the match ended before Ctrl-C: {proc.communicate()}"
    assert len(results.read_text().splitlines()) >= 3, "no two games within 180 s: Ctrl-C would test nothing"
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the parent and its workers
    sent = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - sent < 5
    assert "Traceback" not in out + err, out + err
    lines = results.read_text().split("\n")
    assert lines[-1] == "" and all(json.loads(line) for line in lines[:-1])  # whole lines only
    saved = len(lines) - 2
    assert f"interrupted: {saved} games saved in {results}; resume with: cardboard {' '.join(argv)}" in out
    resumed = subprocess.run([str(CARDBOARD), *argv, "--quiet"], capture_output=True, text=True, cwd=ROOT,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    indices = [json.loads(line)["index"] for line in results.read_text().splitlines()[1:]]
    assert sorted(indices) == list(range(12))


def test_ctrl_c_without_a_results_file_says_nothing_was_saved(monkeypatch, capsys):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "play_match_specs", interrupt)
    assert main(["play", "lords_of_war", "--games", "2", "--quiet"]) == 130
    assert capsys.readouterr().out.strip() == "interrupted: nothing was saved (no --results file)"


def test_compile_note_on_a_cold_cache_only(tmp_path, monkeypatch, capsys):
    code = "from cardboard.cli import _kernels_cold; print(_kernels_cold('hearth'), _kernels_cold('lords_of_war'))"
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache; the check compiles nothing
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert cold.stdout.split() == ["True", "True"]
    assert main(["play", "lords_of_war", "--games", "1", "--quiet"]) == 0
    assert not cli._kernels_cold("lords_of_war")  # this process has played: its kernels are cached
    monkeypatch.setattr(cli, "_kernels_cold", lambda game: True)
    capsys.readouterr()
    assert main(["play", "lords_of_war", "--games", "1"]) == 0
    assert "compiling the lords_of_war kernels (first use only" in capsys.readouterr().err
    assert main(["play", "lords_of_war", "--games", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_verbose_listings_show_parameters_with_defaults(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["agents"]) == 0
    assert "iterations=" not in capsys.readouterr().out
    assert main(["agents", "-v"]) == 0
    out = capsys.readouterr().out
    assert "\n    worlds=10  determinizations sampled once per decision\n" in out
    assert "\n    samples=1  random roll-forwards of the rest of the turn per legal action\n" in out
    assert "\n    prior=True  with net: PUCT selection over the network's prior (with value=0: PUCT over rollouts)\n" \
        in out  # prior=1,value=0 runs: tests/test_net_agents.py
    assert main(["games", "--verbose"]) == 0
    assert "\n    armies=orcs,dwarves  two armies, player 0's first, each a built-in army's name or an army JSON " \
        "file; values: orcs, dwarves\n" in capsys.readouterr().out


def test_games_verbose_lists_each_options_values(monkeypatch, capsys):
    from cardboard.envs.fifth_aeon.cards import DECK_LIST

    monkeypatch.setenv("COLUMNS", "1000")
    assert main(["games", "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    decks = next(line for line in lines if line.startswith("    decks=March of Undeath"))
    assert len(DECK_LIST) == 12 and decks.endswith("values: " + ", ".join(DECK_LIST))
    pandemic = lines[next(i for i, line in enumerate(lines) if line.startswith("pandemic ")):]
    assert "    infection_rate=official  official (the track 2,2,2,3,3,4,4) or paper (2 / 3 / 4 for 0-3 / 4-5 / 6-7 " \
           "epidemics drawn, 003 §4.2); values: official, paper" in pandemic
    assert "    rollout=default_policy  the policy of the random_playout hook that search rollouts use: " \
           "default_policy (the paper's hierarchical policy, 003 §2.2) or uniform (uniformly random legal actions " \
           "of the layer); values: default_policy, uniform" in pandemic


@pytest.mark.parametrize("kind", ["game", "agent"])
def test_every_parameter_help_is_whole_and_its_own(kind):
    """No help is empty, cut inside a parenthesis, another option's help, or runs on into another option's entry."""
    names, entry = ((registry.games(), registry.game_entry) if kind == "game"
                    else (registry.agents(), registry.agent_entry))
    for name in names:
        helps = registry.parameter_help(entry(name))
        for option, text in helps.items():
            where = f"{kind} {name} option {option}: {text!r}"
            assert text.strip() and text.count("(") == text.count(")"), where
            assert not [other for other, same in helps.items() if other != option and same == text], where
            assert not [other for other in helps if other != option and re.search(rf"(^|[;.] ){other}:", text)], where


def test_parameter_meanings_come_from_the_docstring():
    def factory(depth: int = 2, width: float = 0.5, mode: str = "a", quiet: bool = False):
        """A test agent.

        Args:
            depth: plies searched
            width (float): share of the beam kept

        mode : str
            how it plays
        """

    entry = Entry.of("test", factory, None)
    assert registry.parameter_help(entry) == {"depth": "plies searched", "width": "share of the beam kept",
                                              "mode": "how it plays"}


def test_parameter_meanings_span_their_lines_and_carry_the_declared_values():
    def factory(depth: int = 2, mode: str = "a", quiet: bool = False):
        """A test game. Its options in running prose are not entries: ``quiet``: no, and
        ``depth``: neither.

        Options:
            depth: plies searched, a meaning that goes on
                over two lines (the second more indented)
            mode: how it plays
        """

    factory.OPTION_VALUES = {"mode": ("a", "b")}
    assert registry.parameter_help(Entry.of("test", factory, None)) == {
        "depth": "plies searched, a meaning that goes on over two lines (the second more indented)",
        "mode": "how it plays; values: a, b"}
    factory.OPTION_VALUES = {"modes": ("a", "b")}
    with pytest.raises(InvalidParameterError, match="OPTION_VALUES names \\['modes'\\]"):
        Entry.of("test", factory, None)


def _first_cells(out: str) -> str:
    """The first column of every table in ``out``, its lines joined."""
    return "".join(line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│"))


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_tables_fit_80_columns_without_cutting_names(command, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("COLUMNS", "80")
    agents = [f"{LONG_SPEC},random"] if command == "play" else [LONG_SPEC, "random"]
    extra = ["--out", str(tmp_path)] if command == "tournament" else []
    assert main([command, "hearth", "--agents", *agents, "--games", "1", "--quiet", *extra]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80
    cells = _first_cells(out) if command == "play" else _first_cells(out.split("score of row")[1])
    assert LONG_SPEC in cells and "…" not in out


def _results(path: Path, games: int) -> Path:
    header = {"config": {"version": 2, "game": "lords_of_war", "options": {}, "specs": ["greedy", "random"],
                         "games": games, "seed": 1, "rotation": "cyclic"}}
    records = [{"index": i, "seats": [i % 2, 1 - i % 2], "returns": [1.0, -1.0], "turns": 9, "decisions": [4, 4],
                "seconds": [0.1, 0.1]} for i in range(games)]
    path.write_text("\n".join(map(json.dumps, [header, *records])) + "\n")
    return path


def test_compare_warns_about_unpaired_games_and_refuses_a_file_against_itself(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")
    a, b = _results(tmp_path / "a.jsonl", 6), _results(tmp_path / "b.jsonl", 4)
    assert main(["compare", str(a), str(b)]) == 0
    assert f"warning: {a} holds 6 games and {b} 4: compared on the 4 games both hold" in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--range", "0:4"]) == 0
    assert "warning" not in capsys.readouterr().out
    assert main(["compare", str(a), str(tmp_path / "." / "a.jsonl")]) == 2
    assert "compared with itself" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["play", "lords_of_war", "--games", "-3"],
                                  ["play", "lords_of_war", "--workers", "0"],
                                  ["play", "lords_of_war", "--seed", "-1"],
                                  ["tournament", "lords_of_war", "--agents", "random", "--games", "2"],
                                  ["tournament", "lords_of_war", "--agents", "random", "greedy", "--games", "0"]])
def test_argument_errors_come_before_any_progress_display(argv, capsys):
    assert main(argv) == 2
    out = capsys.readouterr().out
    assert out.startswith("error:") and len(out.strip().splitlines()) <= 2, out  # the message, maybe wrapped

"""Each paper's headline command at its smallest size, through public names only: ``cardboard.cli.main`` (the
commands the papers register) and each experiment module's ``main`` (what ``python -m ...`` runs). A paper's home
(``cardboard.evaluation.papers``) whose command no longer runs, or writes nothing, fails here.

The per-rule and per-formula checks of each paper live beside its code's tests; this only proves the commands a
reader of a paper's README types still work end to end.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from cardboard.cli import main as cli

PAPERS = "cardboard.evaluation.papers"


def experiment(module: str, *argv: str) -> int | None:
    """``python -m cardboard.evaluation.papers.MODULE ARGV`` in this process."""
    return importlib.import_module(f"{PAPERS}.{module}").main(list(argv))


def test_000_play_style_writes_win_rates_and_the_plot(tmp_path: Path):
    out = tmp_path / "play-style"
    assert experiment("p000_play_style.low_play_style", "--out", str(out), "--iterations", "10", "--games", "2",
                      "--variant", "robust=final=robust", "--variant", "roulette=final=robust_roulette,n=2,k=2",
                      "--quiet") == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["variants"]) == {"robust", "roulette"}
    assert all(0.0 <= v["win_rate"] <= 1.0 for v in summary["variants"].values())
    assert (out / "play_style.png").stat().st_size > 0


def test_001_card_play_pipeline_plays_trains_and_writes_table_4_2(tmp_path: Path):
    out = tmp_path / "tcs"
    assert experiment("p001_hearthstone.card_play_pipeline", "--games", "2", "--out", str(out), "--workers", "1",
                      "--generator", "uct:iterations=8,depth=2,prune=1", "--presets", "dnn_140k") == 0
    table = json.loads((out / "table_4_2.json").read_text())
    assert set(table["folders"]) == {"mech_mage", "handlock", "face_hunter"}
    assert all((out / deck / "dnn_140k" / "model.safetensors").exists() for deck in table["folders"])


def test_002_pruning_sweep_writes_its_table(tmp_path: Path):
    out = tmp_path / "pruning"
    experiment("p002_pruning.low_pruning", "--out", str(out), "--parts", "sweep", "--heuristics", "h4", "--hpl", "5",
               "--iterations", "10", "--games", "2", "--workers", "1")
    written = {p.name for p in out.iterdir()}
    assert any(name.endswith(".json") for name in written) and any(name.endswith(".png") for name in written)


def test_003_testbed_and_rhea_experiment(tmp_path: Path):
    testbed = tmp_path / "testbed"
    assert cli(["pandemic-testbed", "--out", str(testbed), "--setups", "4", "--games", "2", "--keep", "3", "--k", "2",
                "--quiet"]) == 0
    assert any(testbed.iterdir())
    agents = tmp_path / "agents"
    assert experiment("p003_pandemic.pandemic_agents", "--agent", "dp=pandemic_default", "--out", str(agents),
                      "--setups", "S01", "S02", "--games", "2", "--quiet") == 0
    assert any(p.suffix == ".json" for p in agents.iterdir())


@pytest.mark.parametrize("command", [
    ["fifth-aeon-tournament", "--agents", "default_ai,random", "--formats", "all", "--constructed-games", "1",
     "--limited-games", "1", "--preconstructed-games", "1", "--quiet"],
    ["fifth-aeon-balance", "--card", "ten_ten", "--parameter", "energy", "--values", "0:1", "--rounds", "1",
     "--quiet"],
], ids=["formats", "balancer"])
def test_004_fifth_aeon_commands(command: list[str], tmp_path: Path):
    out = tmp_path / command[0]
    assert cli([*command, "--out", str(out)]) == 0
    assert any(out.iterdir())


def test_003_every_setup_file_gets_its_own_streams():
    """Bundled set-ups keep the index earlier runs seeded them with; any other file gets its own word (the
    experiment once gave every such file index 0, so their games shared deals and luck)."""
    agents = importlib.import_module(f"{PAPERS}.p003_pandemic.pandemic_agents")
    assert [agents.setup_key(f"S{i:02d}") for i in (1, 2, 10)] == [0, 1, 9]
    keys = {agents.setup_key(name) for name in ("mine/a.json", "mine/b.json", "S11", "other/a.json")}
    assert len(keys) == 4 and min(keys) >= 2**32
    assert agents.setup_key("mine/a.json") == agents.setup_key("mine/a.json")  # a rerun resumes the same games

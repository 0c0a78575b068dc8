"""Self-play and expert iteration on the backends (``cardboard.jobs.backends``, issue 35): the same shards locally
and on a two-node Ray cluster (``ray_cluster`` in conftest), a worker killed mid-run (SIGKILL)
losing and duplicating nothing, and Ctrl-C's one line (what is saved where, the resume command, exit code 130).

Played on the external plugin's ``demo_tricks`` (tests/external: conftest puts it on ``PYTHONPATH`` before the
cluster starts, so the Ray workers import it too).
"""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardboard.cli import main
from cardboard.jobs.backends import Backend
from cardboard.training import learn, selfplay

from .test_backends import _kill_one, record_placements

GAME = "demo_tricks"
AGENTS, FAST = ["ismcts:iterations=20", "ismcts:iterations=10"], ["ismcts:iterations=4"]
SLOW = ["ismcts:iterations=300"]  # about 0.3 s a game: a worker is still playing when another is killed
CARDBOARD = Path(sys.executable).with_name("cardboard")


def shards(folder: Path) -> dict[str, dict[str, np.ndarray]]:
    """Every shard's arrays by file name."""
    return {p.name: selfplay.read_shard(p, selfplay.read_header(folder)) for p in selfplay.shard_paths(folder)}


def assert_same(got: dict, expected: dict) -> None:
    assert sorted(got) == sorted(expected)
    for name, arrays in expected.items():
        for key, value in arrays.items():
            np.testing.assert_array_equal(got[name][key], value, err_msg=f"{name} {key}")


@pytest.fixture
def placements(monkeypatch) -> list[Counter]:
    """Where each ``run_tasks`` call of self-play ran its tasks."""
    return record_placements(monkeypatch, selfplay)


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("slow")
    selfplay.generate(GAME, SLOW, 6, 3, out)
    return shards(out)


def test_the_same_shards_in_one_process_in_a_pool_and_on_ray(ray_cluster, placements, tmp_path):
    settings = dict(fast=FAST, full_fraction=0.5)
    selfplay.generate(GAME, AGENTS, 8, 7, tmp_path / "one", **settings)
    expected = shards(tmp_path / "one")
    assert len(expected) == 8 and not placements  # one shard a game, played in this process
    for name, backend in (("pool", Backend("local", 2)), ("ray", Backend("ray", 2))):
        selfplay.generate(GAME, AGENTS, 8, 7, tmp_path / name, concurrent=2, backend=backend, **settings)
        assert_same(shards(tmp_path / name), expected)
    assert placements[0] == Counter(local=4)  # 8 games in tasks of 2 (--concurrent 2)
    assert sum(placements[1].values()) == 4, placements  # the nodes' shares: test_backends' spreading test


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(backend, slow_reference, tmp_path, request):
    cluster = request.getfixturevalue("ray_cluster") if backend == "ray" else None
    played = []

    def on_game(index: int, _) -> None:
        if not played:
            _kill_one(cluster)
        played.append(index)

    selfplay.generate(GAME, SLOW, 6, 3, tmp_path, backend=Backend(backend, 2), on_game=on_game)
    assert sorted(played) == list(range(6))  # each game written once
    assert_same(shards(tmp_path), slow_reference)


def test_ctrl_c_on_selfplay_workers_prints_what_is_saved_and_how_to_resume(tmp_path):
    out = tmp_path / "sp"
    argv = ["selfplay", GAME, "--agents", *SLOW, "--games", "10", "--seed", "3", "--workers", "2", "--out", str(out)]
    proc = subprocess.Popen([str(CARDBOARD), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while len(selfplay.shard_paths(out)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"self-play ended before Ctrl-C: {proc.communicate()}"
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the parent and its workers
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in stdout + stderr, stdout + stderr
    saved = selfplay.done_games(out, selfplay.read_header(out))  # whole shards only (read_shard checks them)
    assert 2 <= len(saved) < 10 and not list(out.glob(".*.tmp"))
    line = f"interrupted: {len(saved)} games saved in {out}; resume with: cardboard {shlex.join(argv)}"
    assert line in stdout.replace("\n", ""), stdout  # the same command resumes (tests/test_selfplay_training.py)


def test_ctrl_c_in_expert_iteration_counts_the_saved_games(tmp_path, monkeypatch, capsys):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(learn, "train", interrupt)  # Ctrl-C after generation 0's self-play
    out = tmp_path / "exit"
    argv = ["expert-iteration", GAME, "--out", str(out), "--generations", "1", "--games-per-generation", "3",
            "--iterations", "4", "--quiet"]
    assert main(argv) == 130
    assert len(selfplay.shard_paths(out / "gen-0" / "data")) == 3
    assert capsys.readouterr().out.replace("\n", "") == (f"interrupted: 3 games saved in {out}; resume with: "
                                                         f"cardboard {shlex.join(argv)}")


@pytest.mark.parametrize("command", ["selfplay", "expert-iteration"])
def test_an_address_without_ray_is_refused_before_anything_is_written(command, tmp_path):
    argv = [command, GAME, "--out", str(tmp_path / "out"), "--address", "auto", "--quiet"]
    assert main(argv + (["--generations", "1"] if command == "expert-iteration" else [])) == 2
    assert not (tmp_path / "out").exists()

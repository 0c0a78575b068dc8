"""Where long jobs run (``cardboard.jobs.backends``): the same records on every backend, the tasks spread over a
two-node Ray cluster, a worker killed mid-run (SIGKILL) costing nothing, and clear errors.

The Ray tests share one cluster per session (``ray_cluster`` in conftest: a head and a worker node with one CPU
each, on this machine).
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import operator
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cardboard import registry
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError
from cardboard.evaluation import match
from cardboard.evaluation.match import play_match_specs
from cardboard.evaluation.tournament import round_robin
from cardboard.jobs.backends import Backend, WorkerSetupError, run_tasks

GAME = "lords_of_war"
SPECS = ["ismcts:iterations=40", "greedy", "random"]


def lines(path: Path) -> list[dict]:
    """A results file's game lines, without their timings."""
    out = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [{k: v for k, v in r.items() if k != "seconds"} for r in out]


def by_index(records) -> list[dict]:
    return sorted((r for r in records), key=lambda r: r["index"])


def record_placements(monkeypatch, module) -> list[Counter]:
    """Where each ``run_tasks`` call of ``module`` ran its tasks (its returns, in call order)."""
    seen: list[Counter] = []

    def recording(*args, **kwargs):
        seen.append(run_tasks(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(module, "run_tasks", recording)
    return seen


@pytest.fixture
def placements(monkeypatch) -> list[Counter]:
    """Where each ``run_tasks`` call of a match ran its games."""
    return record_placements(monkeypatch, match)


def test_a_tournament_gives_the_same_records_on_ray_as_locally_and_uses_both_nodes(ray_cluster, placements,
                                                                                   tmp_path):
    runs = {}
    for name, backend in (("local", Backend("local", 2)), ("ray", Backend("ray", 2))):
        out = tmp_path / name
        result = round_robin(GAME, SPECS, 4, 11, workers=2, out_dir=out, backend=backend)
        runs[name] = ({p.name: by_index(lines(p)) for p in sorted(out.glob("pair_*.jsonl"))}, list(result.elo))
    assert runs["ray"] == runs["local"] and len(runs["local"][0]) == 3
    nodes = Counter()
    for counter in placements[3:]:  # the Ray matches
        nodes.update(counter)
    assert len(nodes) == 2 and sum(nodes.values()) == 12, nodes  # both nodes of the cluster played


def test_a_failing_worker_setup_is_a_clear_error_not_a_hang(ray_cluster):
    entries = b"\x80\x04]\x94."  # pickle of []: no extra registry entries
    with pytest.raises(WorkerSetupError, match="could not set up.*no_such_game"):
        run_tasks(Backend("ray", 2), [0, 1, 2], match._play, lambda result: None, setup=match._setup,
                  setup_args=(entries, "no_such_game", {}, ("random", "random"), 0, "cyclic"))


def _kill_one(pattern: str | None = None) -> None:
    """SIGKILL one worker: a Ray actor process (``pattern`` in its command line) or a child of this process."""
    if pattern is None:
        victim = multiprocessing.active_children()[0].pid
    else:
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        victim = int(found[0])
    os.kill(victim, signal.SIGKILL)


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(backend, tmp_path, request):
    if backend == "ray":
        request.getfixturevalue("ray_cluster")
    specs, games = ["ismcts:iterations=300", "greedy"], 8
    expected = by_index(r.to_json() for r in play_match_specs(GAME, specs, games, 5))
    killed = []

    def on_game(record) -> None:
        if not killed:
            _kill_one("ray::Worker" if backend == "ray" else None)
            killed.append(record.index)

    path = tmp_path / "match.jsonl"
    play_match_specs(GAME, specs, games, 5, results_path=path, on_game=on_game, backend=Backend(backend, 2))
    written = lines(path)
    assert killed and sorted(r["index"] for r in written) == list(range(games))  # each game once
    assert by_index(written) == [{k: v for k, v in r.items() if k != "seconds"} for r in expected]


def test_backend_settings_are_checked():
    with pytest.raises(InvalidParameterError, match="unknown backend 'spark'"):
        Backend("spark")
    with pytest.raises(InvalidParameterError, match="needs --backend ray"):
        Backend("local", 2, address="auto")
    with pytest.raises(InvalidParameterError, match="workers must be >= 1"):
        Backend("ray", 0)
    assert main(["play", GAME, "--agents", "random,random", "--games", "1", "--address", "auto", "--quiet"]) == 2


def test_importing_cardboard_never_imports_ray():
    code = ("import sys, cardboard, cardboard.cli, cardboard.jobs.backends, cardboard.evaluation.match; "
            "cardboard.cli.build_parser(); assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_files_go_to_ray_workers_through_the_object_store(ray_cluster, tmp_path):
    """A checkpoint named in the setup's arguments reaches each worker as a node-local copy of the same bytes."""
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"weights of generation 1")
    seen = []
    run_tasks(Backend("ray", 2), ["", ""], operator.add, seen.append, setup=os.path.realpath,
              setup_args=(str(path),), files=[str(path)])
    copies = {Path(p) for p in seen}
    assert all(p != path and p.name == path.name and p.read_bytes() == path.read_bytes() for p in copies)
    assert all(p.parent.name == hashlib.sha256(path.read_bytes()).hexdigest() for p in copies)
    assert registry.files_named([f"ismcts:net={path},leaves=4", "random"]) == [str(path)]


def test_files_named_takes_paths_and_tuples_and_skips_what_is_no_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("{}")
    b.write_text("{}")
    options = {"decks": (str(a), b), "name": "x" * 5000, "setup": str(tmp_path), "weights": {"k": 1}, "n": 3}
    assert registry.files_named(["random"], options) == [str(a), str(b)]


def test_files_named_reads_agent_specs_given_as_values(tmp_path):
    """``rhea:seed=net:path=F`` names F (a policy's checkpoint inside the spec), whatever the order of knobs."""
    path = tmp_path / "m.safetensors"
    path.write_bytes(b"weights")
    assert registry.files_named([f"rhea:horizon=2,seed=net:path={path},generations=3"]) == [str(path)]
    assert registry.files_named(["rhea:seed=net:model=pandemic-v1", "zoo:lords_of_war"]) == []

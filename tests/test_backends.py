"""Where long jobs run (``cardboard.jobs.backends``): the same records on every backend, the tasks spread over a
two-node Ray cluster, a worker killed mid-run (SIGKILL) or a node lost costing nothing, more workers than CPUs
finishing (and a wait without progress saying so), ``device=server`` from every command on Ray with its servers
stopped after the job, Ctrl-C's line last, and clear errors (a bad address in seconds).

The Ray tests share one cluster per session (``ray_cluster`` in conftest: a head and a worker node with one CPU
each, on this machine); the node-loss test adds a third and removes it. Only processes of that cluster are killed.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import operator
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from cardboard import registry
from cardboard.cli import main
from cardboard.envs.errors import InvalidParameterError
from cardboard.evaluation import match
from cardboard.evaluation.match import play_match_specs
from cardboard.evaluation.tournament import round_robin
from cardboard.jobs import ray_backend
from cardboard.jobs.backends import Backend, WorkerSetupError, run_tasks
from cardboard.policies.inference_server import server_names, stop_servers

GAME = "lords_of_war"
SPECS = ["ismcts:iterations=40", "greedy", "random"]
SLOW = ["ismcts:iterations=300", "greedy"]  # about 0.3 s a game: a worker is still playing when another is killed


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


def test_a_tournament_gives_the_same_records_on_ray_as_locally(ray_cluster, placements, tmp_path):
    runs = {}
    for name, backend in (("local", Backend("local", 2)), ("ray", Backend("ray", 2))):
        out = tmp_path / name
        result = round_robin(GAME, SPECS, 4, 11, workers=2, out_dir=out, backend=backend)
        runs[name] = ({p.name: by_index(lines(p)) for p in sorted(out.glob("pair_*.jsonl"))}, list(result.elo))
    assert runs["ray"] == runs["local"] and len(runs["local"][0]) == 3
    nodes = Counter()
    for counter in placements[3:]:  # the Ray matches
        nodes.update(counter)
    assert sum(nodes.values()) == 12, nodes  # which node plays how many depends on when each worker is up


def _meet(folder: str, item: int) -> int:
    """A task that signs ``folder`` with its process and waits (60 s at most) until two processes have signed."""
    Path(folder, f"{os.getpid()}-{item}").touch()
    deadline = time.monotonic() + 60
    while len({name.split("-")[0] for name in os.listdir(folder)}) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    return item


def test_ray_spreads_the_tasks_over_both_nodes(ray_cluster, tmp_path):
    """Each task waits for a task of another worker, so the job ends only if both workers (one CPU each: one a
    node) take tasks, however long either takes to start."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # ``_meet`` travels by value to the workers
    seen = []
    nodes = run_tasks(Backend("ray", 2), [0, 1, 2, 3], _meet, seen.append, setup=os.path.realpath,
                      setup_args=(str(tmp_path),))
    assert sorted(seen) == [0, 1, 2, 3] and len(nodes) == 2 and sum(nodes.values()) == 4, nodes
    assert len({name.split("-")[0] for name in os.listdir(tmp_path)}) == 2


def test_a_failing_worker_setup_is_a_clear_error_not_a_hang(ray_cluster):
    entries = b"\x80\x04]\x94."  # pickle of []: no extra registry entries
    with pytest.raises(WorkerSetupError, match="could not set up.*no_such_game"):
        run_tasks(Backend("ray", 2), [0, 1, 2], match._play, lambda result: None, setup=match._setup,
                  setup_args=(entries, "no_such_game", {}, ("random", "random"), 0, "cyclic"))


def _kill_one(cluster=None) -> None:
    """SIGKILL one worker: a Ray actor process of ``cluster`` (a child of one of its raylets: never another
    cluster's) or, without one, a child of this process."""
    if cluster is None:
        victim = multiprocessing.active_children()[0].pid
    else:
        victim = int(_workers(cluster.list_all_nodes())[0])
    os.kill(victim, signal.SIGKILL)


def _workers(nodes, title: str = "ray::Worker") -> list[str]:
    """The pids of the Ray actor processes of ``nodes`` (children of their raylets) whose title starts with
    ``title`` (``ray::Worker.run`` while it plays)."""
    raylets = ",".join(str(p.process.pid) for node in nodes for p in node.all_processes["raylet"])
    return subprocess.run(["pgrep", "-P", raylets, "-f", "^" + title], capture_output=True, text=True).stdout.split()


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(backend, tmp_path, request):
    cluster = request.getfixturevalue("ray_cluster") if backend == "ray" else None
    specs, games = SLOW, 8
    expected = by_index(r.to_json() for r in play_match_specs(GAME, specs, games, 5))
    killed = []

    def on_game(record) -> None:
        if not killed:
            _kill_one(cluster)
            killed.append(record.index)

    path = tmp_path / "match.jsonl"
    play_match_specs(GAME, specs, games, 5, results_path=path, on_game=on_game, backend=Backend(backend, 2))
    written = lines(path)
    assert killed and sorted(r["index"] for r in written) == list(range(games))  # each game once
    assert by_index(written) == [{k: v for k, v in r.items() if k != "seconds"} for r in expected]


@pytest.fixture(scope="module")
def slow_reference() -> list[dict]:
    """The records of 12 games of ``SLOW`` with seed 5, played in this process."""
    return by_index({k: v for k, v in r.to_json().items() if k != "seconds"}
                    for r in play_match_specs(GAME, SLOW, 12, 5))


def test_a_node_lost_mid_job_costs_no_game_and_stalls_nothing(ray_cluster, slow_reference, tmp_path):
    """A third node joins, its worker is playing when the node is removed: the survivors play its game."""
    node = ray_cluster.add_node(num_cpus=1)
    ray_cluster.wait_for_nodes()
    removed, ended = threading.Event(), threading.Event()

    def remove_while_it_plays() -> None:
        while not ended.is_set():
            if _workers([node], "ray::Worker.run"):
                ray_cluster.remove_node(node)
                removed.set()
                return
            time.sleep(0.01)

    remover = threading.Thread(target=remove_while_it_plays)
    remover.start()
    path = tmp_path / "match.jsonl"
    try:
        play_match_specs(GAME, SLOW, 12, 5, results_path=path, backend=Backend("ray", 3))
    finally:
        ended.set()
        remover.join()
        if not removed.is_set():
            ray_cluster.remove_node(node)
    assert removed.is_set(), "the third node's worker never played: nothing was lost"
    written = lines(path)
    assert sorted(r["index"] for r in written) == list(range(12))  # each game once
    assert by_index(written) == slow_reference


def test_more_workers_than_cpus_finish_and_a_wait_without_progress_says_so(ray_cluster, slow_reference, placements,
                                                                             monkeypatch, capsys):
    monkeypatch.setattr(ray_backend, "STALL_S", 0.2)
    records = play_match_specs(GAME, SLOW, 6, 5, backend=Backend("ray", 5))  # 5 workers, 2 CPUs
    assert [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in records] == slow_reference[:6]
    assert sum(placements[0].values()) == 6
    assert re.search(r"Ray: no task finished in 0\.2 s; \d of 6 done, [0-2] running, [3-5] workers waiting to "
                     r"start; cluster CPUs free: [0-2] of 2\n", capsys.readouterr().err)


def test_one_game_left_runs_on_ray_too(ray_cluster, placements):
    play_match_specs(GAME, ["random", "random"], 1, 0, backend=Backend("ray", 2))
    assert len(placements) == 1 and sum(placements[0].values()) == 1 and "local" not in placements[0]


def test_a_bad_address_is_a_one_line_error_within_seconds(ray_cluster, monkeypatch, capsys):
    import ray

    argv = ["play", GAME, "--agents", "random,random", "--games", "2", "--backend", "ray", "--quiet"]
    assert main(argv + ["--address", "nowhere"]) == 2
    assert capsys.readouterr().out == "error: --address 'nowhere': expected 'auto', HOST:PORT or ray://HOST:PORT\n"
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as a new process: it has joined no cluster
    monkeypatch.setenv("COLUMNS", "300")  # the message on one line
    for flag, address, why in (("--address", "127.0.0.1:1", "no Ray cluster answers there (Connection refused)"),
                               ("RAY_ADDRESS", "nowhere", "expected 'auto', HOST:PORT or ray://HOST:PORT")):
        if flag == "RAY_ADDRESS":
            monkeypatch.setenv("RAY_ADDRESS", address)
        started = time.monotonic()
        assert main(argv + (["--address", address] if flag == "--address" else [])) == 2
        assert time.monotonic() - started < 5
        assert capsys.readouterr().out == f"error: {flag} {address!r}: {why}\n"


@pytest.fixture
def new_driver(ray_cluster):
    """This process as a new command's: no inference server running and Ray not joined; joined again afterwards,
    as conftest's ``ray_cluster`` left it."""
    import ray

    stop_servers()
    ray.shutdown()
    yield ray_cluster
    ray.shutdown()
    ray.init(address=ray_cluster.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")


@pytest.mark.parametrize("command", ["play", "tournament", "selfplay"])
def test_device_server_agents_play_from_every_command_on_ray_and_their_servers_stop(command, new_driver, tmp_path,
                                                                                   monkeypatch):
    spec = "ismcts:iterations=4,leaves=2,net=zoo:lords_of_war,device=server"
    argv = {"play": ["play", GAME, "--agents", f"{spec},random", "--address", new_driver.address],
            "tournament": ["tournament", GAME, "--agents", spec, "random", "--out", str(tmp_path),
                           "--address", new_driver.address],
            "selfplay": ["selfplay", GAME, "--agents", spec, "--out", str(tmp_path)]}[command]
    if command == "selfplay":  # RAY_ADDRESS, as ``ray job submit`` sets it, stands for --address
        monkeypatch.setenv("RAY_ADDRESS", new_driver.address)
    assert main(argv + ["--games", "1", "--backend", "ray", "--workers", "1", "--quiet"]) == 0
    assert not server_names()


def test_ctrl_c_on_ray_prints_the_interruption_last(ray_cluster, tmp_path):
    """Ctrl-C mid-match (400 games: on a loaded machine 40 could all finish before the signal arrives)."""
    path = tmp_path / "match.jsonl"
    argv = ["play", GAME, "--agents", ",".join(SLOW), "--games", "400", "--backend", "ray", "--workers", "2",
            "--address", ray_cluster.address, "--results", str(path), "--quiet"]
    proc = subprocess.Popen([str(Path(sys.executable).with_name("cardboard")), *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            env=os.environ | {"COLUMNS": "500"})
    deadline = time.monotonic() + 120
    while (not path.exists() or len(path.read_text().splitlines()) < 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal
    output = proc.communicate(timeout=60)[0]
    assert proc.returncode == 130 and "Traceback" not in output, output
    assert output.rstrip("\n").splitlines()[-1].startswith("interrupted: "), output


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

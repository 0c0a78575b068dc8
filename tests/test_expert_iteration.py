"""The expert-iteration loop (training.expert_iteration, ``cardboard expert-iteration``), issue 17.

Played on the external plugin's ``demo_tricks`` (tests/external, put on the path by conftest) with tiny budgets:
4 self-play games, 10 ISMCTS iterations, 2 epochs of a 16-wide network, 4-game matches.
"""
from __future__ import annotations

import json
import shutil

import pytest

from cardboard.cli import main
from cardboard.envs.errors import CheckpointError
from cardboard.training import expert_iteration

ARGS = ["expert-iteration", "demo_tricks", "--generations", "2", "--games-per-generation", "4", "--iterations", "10",
        "--eval-games", "4", "--random-games", "4", "--epochs", "2", "--hidden", "16", "--seed", "3", "--quiet"]


def _state(out):
    return json.loads((out / "state.json").read_text())


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A finished run in ``<folder>/run``, made with ``--out run`` from ``<folder>`` (specs name ``run/...``)."""
    folder = tmp_path_factory.mktemp("exit")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        assert main([*ARGS, "--out", "run"]) == 0
    return folder / "run"


def _copy(reference, folder, monkeypatch):
    """A copy of the reference run in ``folder/run``, the working folder moved to ``folder``."""
    shutil.copytree(reference, folder / "run")
    monkeypatch.chdir(folder)
    return folder / "run"


def test_two_generations_write_files_state_and_table(reference, capsys, tmp_path, monkeypatch):
    state = _state(reference)
    assert state["format"] == expert_iteration.FORMAT and state["completed_generations"] == 2
    assert (reference / "scores.png").stat().st_size > 0
    for k, entry in enumerate(state["generations"]):
        gen = reference / f"gen-{k}"
        assert (gen / "net" / "model.safetensors").exists() and (gen / "eval.jsonl").exists()
        assert entry["net"]["path"] == f"run/gen-{k}/net/model.safetensors" and not (gen / "net" / "model.pt").exists()
        assert (gen / "random.jsonl").exists() and len(list((gen / "data").glob("shard-*.npz"))) == 4
        assert entry["data"]["games"] == 4 and entry["data"]["records"] > 0
        assert entry["net"]["window"] == list(range(max(0, k - 1), k + 1))
        assert entry["eval"]["games"] == 4 and entry["random"]["games"] == 4
        assert entry["eval"]["low"] <= entry["eval"]["score"] <= entry["eval"]["high"]
        assert entry["kept"] == (entry["eval"]["score"] > 0.5)
    assert state["generations"][0]["expert"] == "ismcts:iterations=10" and state["config"]["trunk"] == "structured"
    best0 = state["generations"][0]["best_after"]
    assert state["generations"][1]["expert"] == expert_iteration.expert(10, best0)
    assert state["best"] == state["generations"][1]["best_after"]
    # the table, printed again by a rerun that has nothing left to do
    _copy(reference, tmp_path, monkeypatch)
    capsys.readouterr()
    assert main([*ARGS, "--out", "run"]) == 0
    printed = capsys.readouterr().out
    assert "new vs best" in printed and "raw net vs" in printed and "kept?" in printed


def test_resume_redoes_only_the_deleted_step(reference, tmp_path, monkeypatch):
    out = _copy(reference, tmp_path, monkeypatch)
    before = _state(out)
    model = out / "gen-1" / "net" / "model.safetensors"
    shard = out / "gen-1" / "data" / "shard-000002.npz"
    stamps = {p: p.stat().st_mtime_ns for p in (model, shard, out / "gen-0" / "eval.jsonl")}
    (out / "gen-1" / "eval.jsonl").unlink()  # the later step of a later generation
    (out / "gen-0" / "random.jsonl").unlink()
    assert main([*ARGS, "--out", "run"]) == 0
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps  # nothing else was redone
    assert (out / "gen-1" / "eval.jsonl").exists() and (out / "gen-0" / "random.jsonl").exists()
    assert _state(out) == before
    # a network deleted: retrained (deterministic: the same weights), its matches and the rest kept
    shutil.rmtree(out / "gen-0" / "net")
    eval0 = (out / "gen-0" / "eval.jsonl").read_text()
    assert main([*ARGS, "--out", "run"]) == 0
    assert _state(out) == before and (out / "gen-0" / "eval.jsonl").read_text() == eval0


def test_other_arguments_are_refused(reference, tmp_path, capsys, monkeypatch):
    out = _copy(reference, tmp_path, monkeypatch)
    before = (out / "state.json").read_text()
    args = [a if a != "10" else "11" for a in ARGS]  # --iterations 11
    assert main([*args, "--out", "run"]) == 2
    assert "other arguments" in capsys.readouterr().out
    from argparse import Namespace

    namespace = Namespace(**{**vars(_parsed(out)), "iterations": 11})
    with pytest.raises(expert_iteration.StateMismatchError, match="iterations"):
        expert_iteration.run_loop(namespace, None)
    assert (out / "state.json").read_text() == before  # nothing touched


def _parsed(out, *more):
    from cardboard.cli import build_parser

    return build_parser().parse_args([*ARGS, "--out", "run", *more])


def test_expert_specs_carry_the_search_and_network_knobs():
    assert expert_iteration.expert(400, None, "prior=1,value=0", "depth=1") == "ismcts:iterations=400,depth=1"
    assert (expert_iteration.expert(400, "g/net.pt", "prior=1,value=0,cpuct=0.25", "depth=1")
            == "ismcts:iterations=400,depth=1,net=g/net.pt,prior=1,value=0,cpuct=0.25")
    assert expert_iteration.expert(10, "n.pt") == "ismcts:iterations=10,net=n.pt,prior=1,value=1"


def test_a_state_from_before_newer_flags_resumes_with_their_defaults_only(reference, tmp_path, monkeypatch):
    out = _copy(reference, tmp_path, monkeypatch)
    state = _state(out)
    for flag in expert_iteration.ADDED:  # as written before these flags existed
        del state["config"][flag]
    (out / "state.json").write_text(json.dumps(state))
    config = expert_iteration.config_of(_parsed(out))
    assert expert_iteration.load_state(out, config)["config"] == state["config"]
    with pytest.raises(expert_iteration.StateMismatchError, match="target_temperature"):
        expert_iteration.load_state(out, {**config, "target_temperature": 0.0})


class _Trained(Exception):
    """Stops a run at its first training step."""


def test_trunk_is_passed_to_the_learner_recorded_and_must_match_on_resume(tmp_path, monkeypatch):
    from argparse import Namespace

    from cardboard.training import learn

    seen = []

    def train(args, console):
        seen.append(args)
        raise _Trained

    monkeypatch.setattr(learn, "train", train)
    monkeypatch.chdir(tmp_path)
    parsed = _parsed(tmp_path / "run")
    with pytest.raises(_Trained):
        expert_iteration.run_loop(Namespace(**{**vars(parsed), "trunk": "mlp"}), None)
    assert [a.trunk for a in seen] == ["mlp"] and _state(tmp_path / "run")["config"]["trunk"] == "mlp"
    with pytest.raises(expert_iteration.StateMismatchError, match="trunk: 'mlp' there, 'structured' now"):
        expert_iteration.run_loop(parsed, None)  # the default, structured
    with pytest.raises(_Trained):  # the same trunk resumes (its self-play kept)
        expert_iteration.run_loop(Namespace(**{**vars(parsed), "trunk": "mlp"}), None)
    assert [a.trunk for a in seen] == ["mlp", "mlp"]
    with pytest.raises(SystemExit):
        _parsed(tmp_path / "run", "--trunk", "cnn")


def test_a_run_with_model_pt_networks_is_refused_before_anything_is_written(reference, tmp_path, capsys, monkeypatch):
    import torch

    out = _copy(reference, tmp_path, monkeypatch)
    state = _state(out)
    del state["config"]["trunk"]  # as an expert-iteration run before model.safetensors wrote it
    for k, entry in enumerate(state["generations"]):
        old = out / f"gen-{k}" / "net" / "model.pt"
        torch.save({"state_dict": {}}, old)
        (out / f"gen-{k}" / "net" / "model.safetensors").unlink()
        entry["net"]["path"] = f"run/gen-{k}/net/model.pt"
    (out / "state.json").write_text(json.dumps(state))
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main([*ARGS, "--out", "run"]) == 2
    printed = " ".join(capsys.readouterr().out.split())
    assert "before networks were safetensors files" in printed and "start it again with another --out" in printed
    assert "gen-0/net/model.pt" in printed and "torch.save" in printed
    with pytest.raises(CheckpointError, match="cannot be resumed"):
        expert_iteration.load_state(out, expert_iteration.config_of(_parsed(out)))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files  # nothing written, nothing trained
    # a model.pt left on disk but not yet recorded (killed after training) is found too
    state = _state(reference)
    (out / "state.json").write_text(json.dumps(state | {"generations": state["generations"][:1]}))
    for k in (0, 1):
        (out / f"gen-{k}" / "net" / "model.pt").unlink()
    old = out / "gen-1" / "net" / "model.pt"
    shutil.copy(reference / "gen-1" / "net" / "model.safetensors", old)  # a safetensors model.pt: still loads
    assert expert_iteration.legacy_networks(out, _state(out)) == [old]
    with pytest.raises(CheckpointError, match="still loads as a network"):
        expert_iteration.load_state(out, expert_iteration.config_of(_parsed(out)))

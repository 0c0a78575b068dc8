"""Every loader reads a file a user named as a regular file under a size limit, checked before a byte is read
(``cardboard.envs.files``), and its errors name the file and the line or entry, never the file's contents
(issue 47): ``/dev/zero``, a FIFO, a folder and an oversized file are typed errors at once, never a read until
memory runs out or a writer appears."""
from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cardboard
from cardboard.envs import files
from cardboard.envs.errors import (CardboardError, CardDataError, CheckpointError, DataError, InvalidParameterError,
                                   ResultsFileError)
from cardboard.envs.files import CHECKPOINT_LIMIT, RESULTS_LIMIT, SHARD_LIMIT, TEXT_LIMIT, InputFileError

SECRET = "hunter2"
HUNG = 30  # seconds a load may take before the test calls it hung


def _hearth_pool(path: Path) -> Any:
    from cardboard.envs.hearth.cards import load_pool
    return load_pool(path)


def _hearth_deck(path: Path) -> Any:
    from cardboard.envs.hearth.cards import load_deck
    return load_deck(path)


def _fifth_aeon_pool(path: Path) -> Any:
    from cardboard.envs.fifth_aeon.cards import load_pool
    return load_pool(path)


def _fifth_aeon_decks(path: Path) -> Any:
    return cardboard.make_game("fifth_aeon", decks=str(path))  # the option the page passed on (issue 47)


def _army(path: Path) -> Any:
    from cardboard.envs.lords_of_war.cards import load_army
    return load_army(path)


def _setup(path: Path) -> Any:
    return cardboard.make_game("pandemic", setup=str(path))


def _checkpoint(path: Path) -> Any:
    from cardboard.policies import checkpoints
    return checkpoints.read(path, None, "policy-value")


def _net_agent(path: Path) -> Any:
    from cardboard.policies.net_agent import load_evaluator
    return load_evaluator(str(path))


def _inference_server(path: Path) -> Any:
    from cardboard.policies import inference_server
    server, inference_server.node_server = inference_server.node_server, lambda **options: None  # no Ray needed
    try:
        return inference_server.connect(str(path))
    finally:
        inference_server.node_server = server


def _hlr(path: Path) -> Any:
    from cardboard.evaluation.papers.p001_hearthstone.hlr import load_scorer_for
    return load_scorer_for(str(path), cardboard.make_game("hearth").new_state(0))


def _sb3(path: Path) -> Any:
    from cardboard.policies.sb3_agent import read_checkpoint
    return read_checkpoint(str(path))


def _model_card(path: Path) -> Any:
    from cardboard.policies.zoo import ZooModel
    return ZooModel("hearth-v1", "hearth", 1, path.with_suffix(".safetensors"), None, {}).card


def _shard(path: Path) -> Any:
    from cardboard.training import selfplay
    return selfplay.read_shard(path, {"format": selfplay.FORMAT})


def _selfplay_header(path: Path) -> Any:
    from cardboard.training import selfplay
    return selfplay.read_header(path.parent)


def _expert_state(path: Path) -> Any:
    from cardboard.training.expert_iteration import load_state
    return load_state(path.parent, {})


def _results(path: Path) -> Any:
    from cardboard.evaluation.match import load_results
    return load_results(path)


def _json_lines(path: Path) -> Any:
    from cardboard.jobs.resumable import read_lines
    return read_lines(path, lambda record: record["game"])


def _run_config(path: Path) -> Any:
    from cardboard.jobs.resumable import claim_folder
    return claim_folder(path.parent, {"game": "hearth"}, "run")


def _shipped(path: Path) -> Any:
    pytest.importorskip("ray")
    from cardboard.jobs.ray_backend import shipped
    return shipped([str(path)])


def _balancer_card(path: Path) -> Any:
    from cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_balancer import target_card
    return target_card(path, "energy", 3)


def _deck_lists(path: Path) -> Any:
    from cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_formats import read_deck_lists
    return read_deck_lists(str(path))


def _summary(path: Path) -> Any:
    from cardboard.evaluation.papers.p000_play_style.low_parallel import previous_parts
    return previous_parts(path)


# loader: (the file's name, its size limit, the error its callers catch, the load)
LOADERS: dict[str, tuple[str, int, type[Exception], Callable[[Path], Any]]] = {
    "hearth card pool": ("cards.json", TEXT_LIMIT, CardDataError, _hearth_pool),
    "hearth deck": ("deck.json", TEXT_LIMIT, CardDataError, _hearth_deck),
    "fifth_aeon card pool": ("cards.json", TEXT_LIMIT, CardDataError, _fifth_aeon_pool),
    "fifth_aeon decks": ("deck.json", TEXT_LIMIT, CardDataError, _fifth_aeon_decks),
    "lords_of_war army": ("army.json", TEXT_LIMIT, CardDataError, _army),
    "pandemic set-up": ("setup.json", TEXT_LIMIT, InvalidParameterError, _setup),
    "checkpoint": ("net.safetensors", CHECKPOINT_LIMIT, CheckpointError, _checkpoint),
    "net agent": ("net.safetensors", CHECKPOINT_LIMIT, CheckpointError, _net_agent),
    "inference server": ("net.safetensors", CHECKPOINT_LIMIT, CheckpointError, _inference_server),
    "hlr": ("net.safetensors", CHECKPOINT_LIMIT, CheckpointError, _hlr),
    "sb3": ("model.zip", CHECKPOINT_LIMIT, CheckpointError, _sb3),
    "zoo model card": ("hearth-v1.md", TEXT_LIMIT, InputFileError, _model_card),
    "self-play shard": ("shard-000000.npz", SHARD_LIMIT, DataError, _shard),
    "self-play header": ("header.json", TEXT_LIMIT, DataError, _selfplay_header),
    "expert-iteration state": ("state.json", TEXT_LIMIT, DataError, _expert_state),
    "results": ("results.jsonl", RESULTS_LIMIT, ResultsFileError, _results),
    "JSON lines": ("games.jsonl", RESULTS_LIMIT, InputFileError, _json_lines),
    "run config": ("config.json", TEXT_LIMIT, InvalidParameterError, _run_config),
    "shipped to Ray": ("net.safetensors", CHECKPOINT_LIMIT, InputFileError, _shipped),
    "balancer card": ("card.json", TEXT_LIMIT, CardDataError, _balancer_card),
    "fifth_aeon deck lists": ("lists.json", TEXT_LIMIT, InputFileError, _deck_lists),
    "play-style summary": ("summary.json", TEXT_LIMIT, InputFileError, _summary),
}


def _refusal(load: Callable[[Path], Any], path: Path) -> Exception:
    """The error ``load(path)`` raises, run in a thread so that a load blocked on a FIFO fails the test instead of
    hanging it (the FIFO is then opened for writing and closed, which ends the blocked read)."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(load(path))
        except BaseException as exc:  # noqa: BLE001 - the test inspects whatever the load raised
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HUNG)
    if thread.is_alive():
        if path.is_fifo():
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"loading {path} still blocks after {HUNG} s")
    if isinstance(outcome[0], pytest.skip.Exception):
        raise outcome[0]
    assert isinstance(outcome[0], BaseException), f"{path} loaded: {outcome[0]!r}"
    return outcome[0]


def _make(kind: str, path: Path, limit: int) -> str:
    """Put a file of ``kind`` at ``path``; the words its refusal must say."""
    if kind == "dev_zero":
        path.symlink_to("/dev/zero")
        return "not a regular file"
    if kind == "fifo":
        os.mkfifo(path)
        return "not a regular file"
    if kind == "folder":
        path.mkdir()
        return "a folder"
    with path.open("wb") as handle:  # sparse: nothing written, nothing read by a loader that checks first
        handle.truncate(limit + 1)
    return "limit"


@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "folder", "oversized"])
@pytest.mark.parametrize("loader", LOADERS)
def test_a_loader_refuses_what_is_not_a_regular_file_within_its_limit(tmp_path, loader, kind):
    name, limit, error, load = LOADERS[loader]
    path = tmp_path / name
    words = _make(kind, path, limit)
    refusal = _refusal(load, path)
    assert isinstance(refusal, error) and isinstance(refusal, CardboardError), repr(refusal)
    assert str(path) in str(refusal) and words in str(refusal), str(refusal)


@pytest.mark.parametrize("spec", ["fifth_aeon:decks=/dev/zero", "pandemic:setup=/dev/zero",
                                  "pandemic:setup=/dev/stdin"])
def test_the_game_options_the_page_passed_on_refuse_devices(spec):
    if spec.endswith("stdin") and stat.S_ISREG(os.fstat(0).st_mode):
        pytest.skip("this run's standard input is a regular file")
    game, _, option = spec.partition(":")
    key, _, value = option.partition("=")
    refusal = _refusal(lambda path: cardboard.make_game(game, **{key: str(path)}), Path(value))
    assert isinstance(refusal, CardboardError) and "not a regular file" in str(refusal), str(refusal)


def test_a_net_agent_checks_its_checkpoint_before_reading_it():
    """``net:path=/dev/zero`` read the device until MemoryError (the hash came before the check)."""
    game = cardboard.make_game("hearth")
    refusal = _refusal(lambda path: cardboard.make_agent(f"net:path={path}", game), Path("/dev/zero"))
    assert isinstance(refusal, CheckpointError) and "/dev/zero: not a regular file" in str(refusal), str(refusal)


JSON_LOADERS = ["hearth card pool", "hearth deck", "fifth_aeon card pool", "fifth_aeon decks", "lords_of_war army",
                "pandemic set-up", "self-play header", "expert-iteration state", "run config", "balancer card",
                "fifth_aeon deck lists", "play-style summary"]
BROKEN = '{\n  "database_password": "%s",\n  "cards": ,\n  "name": "x"\n}\n' % SECRET  # line 3: no value


@pytest.mark.parametrize("loader", JSON_LOADERS)
def test_a_json_syntax_error_names_the_file_and_line_not_the_text(tmp_path, loader):
    name, _, error, load = LOADERS[loader]
    path = tmp_path / name
    path.write_text(BROKEN)
    with pytest.raises(error) as refusal:
        load(path)
    assert f"{path}:3: not valid JSON" in str(refusal.value) and SECRET not in str(refusal.value), str(refusal.value)


def _hearth_deck_file(path: Path) -> None:
    path.write_text(json.dumps({"class": "Mage", "cards": {"Fireball": 2, "x" * 60 + SECRET: 2}}))


def _fifth_aeon_deck_file(path: Path) -> None:
    path.write_text(json.dumps({"name": "d", "cards": {"Minotaur": 4, "x" * 60 + SECRET: 4}}))


def _hearth_pool_file(path: Path) -> None:
    path.write_text(json.dumps({"cards": [{"id": "A", "name": "A", "type": "spell", "player_class": "Mage",
                                           "collectible": True, "legendary": False, "mechanics": [],
                                           "cost": {"database_password": SECRET}}]}))


def _fifth_aeon_pool_file(path: Path) -> None:
    path.write_text(json.dumps({"cards": [{"id": "A", "card_type": "unit", "cost": {"energy": SECRET}}]}))


def _army_file(path: Path) -> None:
    from importlib import resources
    armies = json.loads(resources.files("cardboard.envs.lords_of_war").joinpath("armies.json").read_text())
    armies["orcs"]["cards"][2]["database_password"] = SECRET
    path.write_text(json.dumps(armies["orcs"]))


def _setup_file(path: Path) -> None:
    path.write_text(json.dumps({"database_password": SECRET, "seats": []}))


def _results_file(path: Path) -> None:
    header = {"config": {"version": 2, "game": "demo_pig", "options": {}, "specs": ["random", "random"],
                         "games": 2, "seed": 0, "rotation": "cyclic"}}
    path.write_text(json.dumps(header) + '\n{"index": 0, "password": "%s"}\n' % SECRET)


def _run_config_file(path: Path) -> None:
    path.write_text(json.dumps({"game": "pandemic", "database_password": SECRET}))


# loader: (what the file holds, where the error must point)
SECRETS = {
    "hearth deck": (_hearth_deck_file, "deck.json: cards[1]: unknown card name 'xxxx"),
    "fifth_aeon decks": (_fifth_aeon_deck_file, "deck.json: cards[1]: unknown card 'xxxx"),
    "hearth card pool": (_hearth_pool_file, "cards.json: cards[0]: field 'cost' must be int, got an object"),
    "fifth_aeon card pool": (_fifth_aeon_pool_file, "cards.json: cards[0]: malformed card data"),
    "lords_of_war army": (_army_file, "army.json card 2 ("),
    "pandemic set-up": (_setup_file, "setup.json: 1 unknown field(s); the fields are actions_left, cubes"),
    "results": (_results_file, "results.jsonl:2: corrupted or truncated record"),
    "run config": (_run_config_file, "holds another run (it differs in game)"),
}


@pytest.mark.parametrize("loader", SECRETS)
def test_an_error_names_the_entry_never_the_files_values(tmp_path, loader):
    """The issue found values, unknown card names and unknown field names echoed whole in errors."""
    name, _, error, load = LOADERS[loader]
    write, where = SECRETS[loader]
    path = tmp_path / name
    write(path)
    with pytest.raises(error) as refusal:
        load(path)
    message = str(refusal.value)
    assert where in message and SECRET not in message and "database_password" not in message, message


def test_an_sb3_checkpoint_that_unpacks_past_the_limit_is_refused_before_a_member_is_read(tmp_path, monkeypatch):
    from cardboard.policies import sb3_agent
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data", "{}")
        archive.writestr("policy.pth", bytes(files.MiB))  # a few hundred bytes packed
    monkeypatch.setattr(sb3_agent, "CHECKPOINT_LIMIT", 64 * 1024)
    with pytest.raises(CheckpointError, match="model.zip: unpacks past the"):
        sb3_agent.read_checkpoint(str(path))


def test_quoted_shows_a_glimpse_of_a_value_never_a_container():
    assert files.quoted("Firebal") == "'Firebal'"
    assert files.quoted("x" * 100) == "'" + "x" * 36 + "..." and len(files.quoted("x" * 100)) == files.QUOTE_LIMIT
    assert files.quoted({"database_password": SECRET}) == "an object" and files.quoted([SECRET]) == "an array"
    assert files.quoted(3) == "3" and files.quoted(None) == "None"


def test_sha256_and_read_bytes_read_a_regular_file_whole(tmp_path):
    path = tmp_path / "data.bin"
    data = os.urandom(3 * files.MiB + 5)  # more than one chunk
    path.write_bytes(data)
    assert files.sha256(path) == hashlib.sha256(data).hexdigest()
    assert files.read_bytes(path, len(data)) == data
    with pytest.raises(InputFileError, match="over the"):
        files.read_bytes(path, len(data) - 1)


def test_text_that_is_not_utf8_names_its_line(tmp_path):
    path = tmp_path / "deck.json"
    path.write_bytes(b'{\n"a": 1,\n"b": "\xff"\n}')
    with pytest.raises(InputFileError, match=r"deck\.json:3: not UTF-8"):
        files.read_json(path)

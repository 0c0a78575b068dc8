"""Self-play records (training.selfplay) and the learner on them (training.learn), issue 17.

Played on the external plugin's ``demo_tricks`` (tests/external, put on the path by conftest): 2 seats, 16
actions, six tricks, a few milliseconds a game with a small ISMCTS budget.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from cardboard import registry
from cardboard.envs.errors import DataError
from cardboard.evaluation.match import play_game
from cardboard.jobs.seeds import game_streams
from cardboard.training import selfplay

GAME, SPEC = "demo_tricks", "ismcts:iterations=20"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted run of 6 games, one shard per game."""
    out = tmp_path_factory.mktemp("reference")
    selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, out)
    return out


def test_records_shapes_and_contents(reference):
    header, data = selfplay.load_data(reference)
    game = registry.make_game(GAME)
    info = game.info
    assert header["format"] == selfplay.FORMAT and header["games"] == 6 and header["game"] == GAME
    n = len(data["game"])
    assert n > 0 and data["obs"].shape == (n, *info.observation_shape) and data["obs"].dtype == np.float32
    assert data["mask"].shape == data["policy"].shape == (n, info.num_actions) and data["mask"].dtype == bool
    assert data["returns"].shape == (n, info.num_players)
    np.testing.assert_allclose(data["policy"].sum(axis=1), 1.0, atol=1e-5)
    assert (data["policy"][~data["mask"]] == 0).all() and (data["policy"] >= 0).all()
    assert data["mask"][np.arange(n), data["action"]].all()
    assert data["searched"].any()
    np.testing.assert_array_equal(data["games"], np.arange(6))
    np.testing.assert_array_equal(data["value"], data["returns"][np.arange(n), data["seat"]])
    agents = [registry.make_agent(SPEC, game), registry.make_agent("ismcts:iterations=10", game)]
    for index in range(6):  # the same games replayed by the match runner: the same returns, seats and turns
        streams = game_streams(7, index, info.num_players)
        returns, turns, decisions, _ = play_game(game, selfplay.seated(agents, index), streams[0], streams[1:])
        rows = data["game"] == index
        np.testing.assert_array_equal(data["returns"][rows], np.tile(np.float32(returns), (rows.sum(), 1)))
        np.testing.assert_array_equal(data["game_returns"][index], np.float32(returns))
        assert rows.sum() == sum(decisions)  # every decision of a search agent, forced moves included
        assert np.all(np.diff(data["turn"][rows]) > 0) and data["turn"][rows].max() < turns
        first = game.new_state(game_streams(7, index, info.num_players)[0])
        np.testing.assert_array_equal(data["obs"][rows][0], first.observation(first.current_player))
        assert data["seat"][rows][0] == first.current_player


def test_shared_keys_split_their_visits():
    # actions 1 and 3 mean the same thing (key "x"), action 2 is "y"
    policy = selfplay.key_policy(["x", "y", "x"], np.array([1, 2, 3]), {"x": 6, "y": 4, "gone": 5}, 5)
    np.testing.assert_allclose(policy, [0, 0.3, 0.4, 0.3, 0])


def test_kill_and_resume_replays_only_missing_games(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    (out / "shard-000002.npz").unlink()  # killed before game 2 was written
    truncated = out / "shard-000004.npz"
    truncated.write_bytes(truncated.read_bytes()[:100])  # a torn write (cannot happen with os.replace, but a disk can)
    (out / ".shard-000005.npz.tmp").write_bytes(b"partial")  # a write cut short: never read as a shard
    with pytest.raises(DataError, match="shard-000004.npz"):
        selfplay.load_data(out)
    with pytest.raises(DataError, match="shard-000004.npz"):
        selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, out)
    truncated.unlink()
    played = []
    selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, out, on_game=lambda i, _: played.append(i))
    assert sorted(played) == [2, 4] and not list(out.glob(".*.tmp"))
    _, resumed = selfplay.load_data(out)
    _, whole = selfplay.load_data(reference)
    for key in whole:
        np.testing.assert_array_equal(resumed[key], whole[key], err_msg=key)
    played.clear()
    selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, out, on_game=lambda i, _: played.append(i))
    assert played == []  # nothing missing: nothing played, nothing written twice
    shutil.copy(out / "shard-000001.npz", out / "shard-000009.npz")
    with pytest.raises(DataError, match="game 1 is also in"):
        selfplay.load_data(out)


def test_workers_and_shards_give_the_same_data(reference, tmp_path):
    selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, tmp_path, workers=2, shard_games=4)
    assert len(selfplay.shard_paths(tmp_path)) == 2
    _, other = selfplay.load_data(tmp_path)
    _, whole = selfplay.load_data(reference)
    for key in whole:
        np.testing.assert_array_equal(other[key], whole[key], err_msg=key)


@pytest.mark.parametrize("concurrent,workers", [(4, 1), (3, 2)])
def test_games_in_lock_step_give_the_same_data(reference, tmp_path, concurrent, workers):
    """Games played together (``--concurrent``, also inside workers) are the games played one at a time: each
    keeps its own agents and streams."""
    selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 7, tmp_path, concurrent=concurrent, workers=workers)
    _, other = selfplay.load_data(tmp_path)
    _, whole = selfplay.load_data(reference)
    for key in whole:
        np.testing.assert_array_equal(other[key], whole[key], err_msg=key)


def test_a_worker_keeps_its_games_in_flight_refilling_from_its_task(tmp_path, monkeypatch):
    """A self-play worker's task (``--workers`` > 1) plays its games ``concurrent`` network-guided games at a time,
    taking the task's next game only when one of them ends, and returns every game's records."""
    torch = pytest.importorskip("torch")
    from cardboard.policies.network import PolicyValueNet

    torch.manual_seed(0)
    PolicyValueNet(registry.make_game(GAME).info, hidden=(16,)).save(tmp_path / "net.pt")
    entries = registry.pickled_entries(GAME, [f"ismcts:iterations=6,net={tmp_path / 'net.pt'}"])
    context = selfplay._setup(entries, GAME, {}, [f"ismcts:iterations=6,net={tmp_path / 'net.pt'}"], None, 2, 7,
                              None, 1.0)
    ended, finished_when_taken = [], []
    steps = selfplay.recorded_steps

    def counted(*args):
        result = yield from steps(*args)
        ended.append(result["games"][0])
        return result

    def task():
        for index in range(6):
            finished_when_taken.append(len(ended))
            yield index

    monkeypatch.setattr(selfplay, "recorded_steps", counted)
    played = dict(selfplay._play(context, task()))
    assert finished_when_taken[:2] == [0, 0]  # two games in flight before any ended
    assert all(done >= k - 1 for k, done in enumerate(finished_when_taken))  # then one more as each ends
    assert sorted(played) == list(range(6)) and all(np.all(d["game"] == i) for i, d in played.items())


def test_tasks_hold_whole_lock_step_sets_of_games():
    missing = list(range(3, 40))
    assert selfplay.chunks(missing, 1, 4) == [(i,) for i in missing]  # one game a task without batching
    assert [len(c) for c in selfplay.chunks(missing, 2, 2)] == [8, 8, 8, 8, 5]  # CHUNK_SETS sets a task
    assert [len(c) for c in selfplay.chunks(missing, 3, 4)] == [4] * 9 + [1]  # every worker gets two tasks
    assert [len(c) for c in selfplay.chunks(missing, 8, 4)] == [8] * 4 + [5]  # at least one set
    assert sum(selfplay.chunks(missing, 3, 4), ()) == tuple(missing)


def test_network_games_in_lock_step_share_forward_passes(tmp_path):
    """Four Lords of War games with a network-guided ISMCTS in lock-step: one network (loaded once) answers
    all their leaves, several per forward pass, and the records are complete."""
    torch = pytest.importorskip("torch")
    from cardboard.policies.network import PolicyValueNet

    game = registry.make_game("lords_of_war")
    torch.manual_seed(0)
    path = tmp_path / "net.pt"
    PolicyValueNet(game.info, hidden=(32,)).save(path)
    spec = f"ismcts:iterations=4,net={path}"
    sets = [[registry.make_agent(spec, game) for _ in range(2)] for _ in range(4)]
    queue = sets[0][0].searcher.config.evaluator.queue
    assert all(a.searcher.config.evaluator.queue is queue for agents in sets for a in agents)
    passes, states = queue.passes, queue.states
    done = dict(selfplay.play_many(game, sets, range(4), 3))
    passes, states = queue.passes - passes, queue.states - states
    assert sorted(done) == [0, 1, 2, 3]
    for index, data in done.items():
        assert len(data["game"]) > 20 and np.all(data["game"] == index)
        np.testing.assert_allclose(data["policy"].sum(axis=1), 1.0, rtol=1e-5)
    searched = sum(int(d["searched"].sum()) for d in done.values())
    assert states / passes > 2.5  # the four games' leaves share passes
    assert states >= searched  # at least the root of every search was asked


def test_header_mismatch_is_a_data_error(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    with pytest.raises(DataError, match="seed"):
        selfplay.generate(GAME, [SPEC, "ismcts:iterations=10"], 6, 8, out)
    from cardboard.training import learn

    header = selfplay.read_header(reference)
    learn.check_header(header, GAME, {}, str(reference))
    with pytest.raises(DataError, match="header.json"):
        learn.check_header(header, "demo_pig3", {}, str(reference))
    with pytest.raises(DataError, match="options"):
        learn.check_header(header, GAME, {"decks": "handlock"}, str(reference))


def test_mixed_options_take_other_options_of_the_same_shapes_only():
    from cardboard import registry
    from cardboard.training import learn

    hearth = registry.make_game("hearth").info
    learn.check_header({"game": "hearth", "options": {"decks": "handlock"}}, "hearth", {}, "H", hearth)
    with pytest.raises(DataError, match="options"):  # without mixed options: refused
        learn.check_header({"game": "hearth", "options": {"decks": "handlock"}}, "hearth", {}, "H")
    pandemic = registry.make_game("pandemic").info
    with pytest.raises(DataError, match="same shapes"):  # another number of players: other shapes
        learn.check_header({"game": "pandemic", "options": {"players": 2}}, "pandemic", {}, "P", pandemic)


def test_sharpened_targets_power_the_visits_or_take_the_move_played():
    from cardboard.envs.errors import InvalidParameterError
    from cardboard.training.learn import sharpened

    policy = np.array([[0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25]], dtype=np.float32)
    action = np.array([1, 3])
    assert sharpened(policy, action, 1.0) is policy
    np.testing.assert_array_equal(sharpened(policy, action, 0.0), [[0, 1, 0, 0], [0, 0, 0, 1]])
    squared = sharpened(policy, action, 0.5)
    np.testing.assert_allclose(squared[0], np.array([25, 9, 4, 0]) / 38, rtol=1e-6)
    np.testing.assert_allclose(squared[1], 0.25)  # a flat row stays flat
    with pytest.raises(InvalidParameterError, match="target_temperature"):
        sharpened(policy, action, -1.0)


def test_learner_reduces_training_loss_and_writes_its_outputs(tmp_path):
    pytest.importorskip("torch")
    from cardboard.policies.network import PolicyValueNet
    from cardboard.training import learn

    data = tmp_path / "data"
    selfplay.generate(GAME, [SPEC], 24, 3, data, shard_games=8)
    args = learn.to_args(_namespace(learn, game=GAME, data=str(data), out=str(tmp_path / "net"), epochs=25,
                                    batch_size=32, lr=3e-3, hidden=[64], val_fraction=0.25, patience=25,
                                    quiet=True))
    from rich.console import Console

    log = learn.train(args, Console(quiet=True))
    assert log["epochs"][-1]["train_loss"] < log["initial_train_loss"]["loss"] - 0.1
    assert set(log["games"]["train"]).isdisjoint(log["games"]["val"]) and len(log["games"]["val"]) == 6
    assert (tmp_path / "net" / "curve.png").stat().st_size > 1000
    net = PolicyValueNet.load(tmp_path / "net" / "model.safetensors", registry.make_game(GAME).info)
    assert net.hidden == (64,)
    saved = json.loads((tmp_path / "net" / "log.json").read_text())
    assert saved["best_epoch"] == log["best_epoch"] >= 1


def test_the_learner_builds_the_trunk_it_is_told(reference, tmp_path, monkeypatch):
    from rich.console import Console

    from cardboard.envs.structure import Globals, ObservationStructure
    from cardboard.policies.network import PolicyValueNet
    from cardboard.training import learn

    info = registry.make_game(GAME).info
    size = int(np.prod(info.observation_shape))
    structure = ObservationStructure((Globals("all", 0, size),), info.observation_shape)  # as if the game declared it
    monkeypatch.setattr(learn, "structure_of", lambda game: structure)
    monkeypatch.setattr(learn, "plot", lambda *args: None)
    for trunk, expected in (("structured", structure), ("mlp", None)):
        learn.train(learn.Args(game=GAME, data=str(reference), out=str(tmp_path / trunk), epochs=1, hidden=(8,),
                               trunk=trunk, quiet=True), Console(quiet=True))
        assert PolicyValueNet.load(tmp_path / trunk / "model.safetensors", info).structure == expected


def _namespace(module, **values):
    import argparse

    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    defaults = vars(parser.parse_args([values["game"], "--data", values["data"]]))
    return argparse.Namespace(**(defaults | values))


def test_cli_selfplay_then_train(tmp_path, capsys):
    pytest.importorskip("torch")
    from cardboard.cli import main

    data, net = str(tmp_path / "data"), str(tmp_path / "net")
    assert main(["selfplay", GAME, "--agents", f"{SPEC},random", "--games", "4", "--seed", "2", "--out", data,
                 "--quiet"]) == 0
    _, records = selfplay.load_data(data)
    assert set(records["game"].tolist()) == {0, 1, 2, 3}  # only the search seat's decisions: the seats rotate
    assert main(["selfplay", GAME, "--agents", SPEC, "--games", "4", "--seed", "2", "--out", data, "--quiet"]) == 2
    assert "another run" in capsys.readouterr().out
    assert main(["train", GAME, "--data", data, "--out", net, "--epochs", "2", "--hidden", "16", "--quiet"]) == 0
    assert {p.name for p in (tmp_path / "net").iterdir()} == {"model.safetensors", "log.json", "curve.png"}
    assert main(["train", "demo_pig3", "--data", data, "--out", net, "--quiet"]) == 2
    assert "demo_tricks" in capsys.readouterr().out

"""KataGo's training recipe (issue 33): improved-policy and root-value records, playout-cap randomisation, mixed
value targets, policy loss on full records only, a replay window of generations, the first generation's expert.

Played on the external plugin's ``demo_tricks`` (tests/external, put on the path by conftest): 2 seats, zero-sum,
returns in [-1, 1], a few milliseconds a game with a small ISMCTS budget.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from cardboard import registry
from cardboard.envs.errors import DataError
from cardboard.search.mcts import SearchResult
from cardboard.search.tree import legal_keys
from cardboard.training import expert_iteration, learn, selfplay

GAME, FULL, FAST = "demo_tricks", "ismcts:iterations=20", "ismcts:iterations=3"


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    """Six games, every decision full with probability 0.25, else the 3-iteration search's."""
    out = tmp_path_factory.mktemp("capped")
    selfplay.generate(GAME, [FULL], 6, 5, out, fast=[FAST], full_fraction=0.25)
    return out


def _same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


# -- records -------------------------------------------------------------------------------------------------
class ImprovedPolicyAgent:
    """Searches nothing but reports a ``SearchResult`` whose improved policy (weights 1, 2, 3... over the legal
    soft keys, normalised) differs from its flat visits, value 0.75; plays the last legal action. ``expected``:
    the dense target of each searched decision, by hand (a key's weight split among the actions sharing it)."""

    searcher = None

    def __init__(self):
        self.last, self.expected = None, []

    def reset(self):
        self.last = None

    def act(self, state, rng):
        legal = [int(a) for a in state.legal_actions()]
        if len(legal) == 1:
            self.last = None
            return legal[0]
        keys = legal_keys(state)
        unique = list(dict.fromkeys(keys))
        policy = {k: (i + 1) / (len(unique) * (len(unique) + 1) / 2) for i, k in enumerate(unique)}
        dense = np.zeros(state.num_actions)
        for a, k in zip(legal, keys):
            dense[a] = policy[k] / keys.count(k)
        self.expected.append(dense)
        self.last = SearchResult(legal[-1], {k: 1 for k in unique}, 1, 0.0, policy=policy, value=0.75)
        return legal[-1]


def test_the_improved_policy_is_the_target_and_the_root_value_is_stored_in_the_return_range():
    game = registry.make_game(GAME)
    agents = [ImprovedPolicyAgent(), ImprovedPolicyAgent()]
    data = selfplay.play_recorded(game, agents, 0, 3)
    searched = data["searched"]
    expected = {seat: iter(agent.expected) for seat, agent in enumerate(agents)}
    rows = [next(expected[seat]) for seat in data["seat"][searched]]
    np.testing.assert_allclose(data["policy"][searched], rows, rtol=1e-6)
    np.testing.assert_allclose(data["root_value"][searched], -1 + 0.75 * 2)  # 0.75 of the way from -1 to 1
    assert np.isnan(data["root_value"][~searched]).all() and data["full"].all()


def test_shared_keys_split_an_improved_policy():
    policy = selfplay.key_policy(["x", "y", "x"], np.array([1, 2, 3]), {"x": 0.6, "y": 0.4}, 5)
    np.testing.assert_allclose(policy, [0, 0.3, 0.4, 0.3, 0])


def test_a_search_records_its_root_value_in_the_return_range(capped):
    _, data = selfplay.load_data(capped)
    searched = data["searched"]
    assert np.isnan(data["root_value"][~searched]).all()
    assert np.isfinite(data["root_value"][searched]).all()
    assert (np.abs(data["root_value"][searched]) <= 1).all()


def test_format_1_runs_are_read_and_other_formats_named(capped, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    header = json.loads((capped / "header.json").read_text())
    for key in ("fast", "full_fraction"):
        del header[key]
    (old / "header.json").write_text(json.dumps(header | {"format": "cardboard.selfplay/1"}))
    for path in selfplay.shard_paths(capped):
        with np.load(path) as npz:
            np.savez(old / path.name, **{k: npz[k] for k in npz.files if k not in ("root_value", "full")})
    read, data = selfplay.load_data(old)
    assert read["fast"] is None and read["full_fraction"] == 1.0
    assert np.isnan(data["root_value"]).all() and data["full"].all() and data["full"].dtype == bool
    (old / "header.json").write_text(json.dumps(header | {"format": "cardboard.selfplay/3"}))
    with pytest.raises(DataError, match="cardboard.selfplay/3"):
        selfplay.load_data(old)


# -- playout-cap randomisation --------------------------------------------------------------------------------
def test_playout_cap_draws_depend_only_on_the_game(capped, tmp_path):
    _, whole = selfplay.load_data(capped)
    header = selfplay.read_header(capped)
    assert header["fast"] == [FAST] and header["full_fraction"] == 0.25
    for index in range(6):  # one draw of the game's own stream per decision (both seats search: all recorded)
        full = whole["full"][whole["game"] == index]
        np.testing.assert_array_equal(full, selfplay.cap_stream(5, index, 2).random(len(full)) < 0.25)
    assert whole["full"].any() and not whole["full"].all()
    selfplay.generate(GAME, [FULL], 6, 5, tmp_path / "w2", fast=[FAST], full_fraction=0.25, workers=2, concurrent=2)
    _same(selfplay.load_data(tmp_path / "w2")[1], whole)
    shutil.copytree(capped, tmp_path / "resumed")
    (tmp_path / "resumed" / "shard-000003.npz").unlink()
    played = []
    selfplay.generate(GAME, [FULL], 6, 5, tmp_path / "resumed", fast=[FAST], full_fraction=0.25,
                      on_game=lambda i, _: played.append(i))
    assert played == [3]
    _same(selfplay.load_data(tmp_path / "resumed")[1], whole)
    with pytest.raises(DataError, match="full_fraction"):
        selfplay.generate(GAME, [FULL], 6, 5, tmp_path / "resumed", fast=[FAST], full_fraction=0.5)


def test_about_the_full_fraction_of_decisions_are_the_full_agents(tmp_path):
    selfplay.generate(GAME, ["ismcts:iterations=4"], 30, 1, tmp_path, fast=["random"], full_fraction=0.3)
    _, data = selfplay.load_data(tmp_path)
    n = len(data["full"])
    assert n > 300 and abs(data["full"].mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / n)
    assert not data["searched"][~data["full"]].any()  # the fast agent (random) played those: no search
    full = data["full"] & (data["mask"].sum(axis=1) > 1)
    assert data["searched"][full].all()  # the full agent searched every full decision with a choice
    one_hot = data["policy"][~data["full"]]
    np.testing.assert_array_equal(one_hot[np.arange(len(one_hot)), data["action"][~data["full"]]], 1.0)


def test_cli_full_fraction_needs_fast(tmp_path, capsys):
    from cardboard.cli import main

    out = str(tmp_path / "d")
    assert main(["selfplay", GAME, "--games", "2", "--full-fraction", "0.5", "--out", out, "--quiet"]) == 2
    assert "--fast" in capsys.readouterr().out
    assert main(["selfplay", GAME, "--agents", FULL, "--fast", "random", "--full-fraction", "0.5", "--games", "2",
                 "--out", out, "--quiet"]) == 0
    assert selfplay.read_header(out)["full_fraction"] == 0.5


# -- the learner -------------------------------------------------------------------------------------------------
def test_value_targets_mix_the_outcome_and_the_root_value():
    returns = np.array([[1, -1], [1, -1], [-1, 1]], dtype=np.float32)
    seat = np.array([0, 1, 0])
    root = np.array([0.5, np.nan, -0.2], dtype=np.float32)
    # row 0: 0.8 * 1 + 0.2 * 0.5 = 0.9 for seat 0, the other seat -0.9; row 1 has no root value: the outcome;
    # row 2: 0.8 * -1 + 0.2 * -0.2 = -0.84 for seat 0, 0.84 for seat 1
    np.testing.assert_allclose(learn.value_targets(returns, seat, root, 0.2, "zero_sum"),
                               [[0.9, -0.9], [1, -1], [-0.84, 0.84]], rtol=1e-6)
    np.testing.assert_array_equal(learn.value_targets(returns, seat, root, 0.0, "zero_sum"), returns)
    coop = np.array([[0.0, 0.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(learn.value_targets(coop, np.array([2]), np.array([1.0]), 0.25, "cooperative"),
                               [[0.25, 0.25, 0.25]])  # one team: every seat's target moves
    general = np.array([[2.0, 5.0, 1.0]], dtype=np.float32)
    np.testing.assert_allclose(learn.value_targets(general, np.array([1]), np.array([3.0]), 0.5, "general_sum"),
                               [[2.0, 4.0, 1.0]])  # 0.5 * 5 + 0.5 * 3; the others keep their outcome


def test_the_policy_loss_counts_full_records_only():
    torch = pytest.importorskip("torch")
    from cardboard.policies.network import PolicyValueNet

    info = registry.make_game(GAME).info
    torch.manual_seed(0)
    net = PolicyValueNet(info, hidden=(16,))
    n, a = 6, info.num_actions
    gen = torch.Generator().manual_seed(1)
    mask = torch.rand(n, a, generator=gen) < 0.6
    mask[:, 0] = True
    policy = torch.rand(n, a, generator=gen) * mask
    batch = {"obs": torch.rand(n, *info.observation_shape, generator=gen), "mask": mask,
             "policy": policy / policy.sum(dim=1, keepdim=True), "returns": torch.rand(n, info.num_players) * 2 - 1,
             "full": torch.tensor([True, False, True, True, False, True])}
    wrong = dict(batch, policy=torch.where(batch["full"][:, None], batch["policy"], mask * 0.0))
    wrong["policy"][~batch["full"], 0] = 1.0  # the fast records' targets: all on action 0
    full_only = {k: v[batch["full"]] for k, v in batch.items()}
    results = [learn.losses(net, one, 1.0) for one in (batch, wrong, full_only)]
    torch.testing.assert_close(results[0][1], results[2][1])  # the mean over the 4 full records
    torch.testing.assert_close(results[1][1], results[2][1])
    assert results[0][2] != results[2][2]  # the value loss counts every record
    grads = []
    for one in (batch, wrong):
        net.zero_grad()
        learn.losses(net, one, 1.0)[1].backward()
        grads.append([p.grad.clone() for p in net.parameters() if p.grad is not None])
    for g0, g1 in zip(*grads):
        torch.testing.assert_close(g0, g1, rtol=0, atol=0)


def test_fast_records_wrong_policies_do_not_change_training(capped, tmp_path):
    """The same records trained twice, the second time with the fast records' policy targets replaced by a wrong
    one: every epoch's policy loss, and the network, are the same."""
    torch = pytest.importorskip("torch")
    from rich.console import Console

    from cardboard.policies.network import PolicyValueNet

    wrong = tmp_path / "wrong"
    wrong.mkdir()
    shutil.copy(capped / "header.json", wrong / "header.json")
    header = selfplay.read_header(capped)
    for path, data in selfplay.iter_shards(capped, header):
        policy = data["policy"].copy()
        fast = ~data["full"]
        policy[fast] = 0
        policy[fast, np.argmax(data["mask"][fast], axis=1)] = 1  # the first legal action, whatever was played
        selfplay.write_shard(wrong, data | {"policy": policy})
    logs = [learn.train(learn.Args(game=GAME, data=str(folder), out=str(tmp_path / f"net{i}"), epochs=3,
                                   hidden=(16,), batch_size=16, val_fraction=0.34, value_mix=0.3, quiet=True),
                        Console(quiet=True)) for i, folder in enumerate((capped, wrong))]
    assert logs[0]["records"]["train_full"] < logs[0]["records"]["train"]
    for name in ("train_loss", "train_policy", "train_value", "val_loss", "val_policy"):
        assert [e[name] for e in logs[0]["epochs"]] == [e[name] for e in logs[1]["epochs"]], name
    info = registry.make_game(GAME).info
    weights = [PolicyValueNet.load(tmp_path / f"net{i}" / "model.safetensors", info).state_dict() for i in (0, 1)]
    for key, tensor in weights[0].items():
        assert torch.equal(tensor, weights[1][key]), key


def test_the_learner_reads_several_folders_as_one_record_set(capped, tmp_path):
    selfplay.generate(GAME, [FULL], 2, 9, tmp_path / "b")
    headers, data = selfplay.load_runs([capped, tmp_path / "b"])
    _, first = selfplay.load_data(capped)
    _, second = selfplay.load_data(tmp_path / "b")
    assert [h["games"] for h in headers] == [6, 2]
    np.testing.assert_array_equal(data["games"], np.arange(8))
    np.testing.assert_array_equal(data["game"], np.concatenate([first["game"], second["game"] + 6]))
    np.testing.assert_array_equal(data["policy"], np.concatenate([first["policy"], second["policy"]]))
    np.testing.assert_array_equal(data["full"], np.concatenate([first["full"], second["full"]]))


# -- expert iteration ------------------------------------------------------------------------------------------
def test_window_generations_are_the_last_w():
    assert expert_iteration.window_generations(0, 2) == [0]
    assert expert_iteration.window_generations(1, 5) == [0, 1]
    assert expert_iteration.window_generations(5, 3) == [3, 4, 5]
    assert expert_iteration.window_generations(4, 1) == [4]


def test_expert_iteration_with_the_recipe(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from cardboard.cli import main

    monkeypatch.chdir(tmp_path)
    args = ["expert-iteration", GAME, "--generations", "3", "--games-per-generation", "3", "--iterations", "10",
            "--first", "ismcts:iterations=12", "--fast-iterations", "3", "--full-fraction", "0.5", "--value-mix",
            "0.2", "--window", "2", "--eval-games", "2", "--random-games", "2", "--epochs", "2", "--hidden", "16",
            "--seed", "3", "--quiet", "--out", "run"]
    assert main(args) == 0
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    gens = state["generations"]
    assert gens[0]["expert"] == "ismcts:iterations=12" and gens[0]["fast"] == "ismcts:iterations=3"
    for k, entry in enumerate(gens):
        best = gens[k - 1]["best_after"] if k else None
        assert entry["expert"] == expert_iteration.expert(10, best, first="ismcts:iterations=12")
        assert entry["fast"] == expert_iteration.expert(3, best)
        header = selfplay.read_header(tmp_path / "run" / f"gen-{k}" / "data")
        assert header["agents"] == [entry["expert"]] and header["fast"] == [entry["fast"]]
        assert header["full_fraction"] == 0.5
        log = json.loads((tmp_path / "run" / f"gen-{k}" / "net" / "log.json").read_text())
        window = expert_iteration.window_generations(k, 2)
        assert entry["net"]["window"] == window
        assert log["data"] == [f"run/gen-{g}/data" for g in window] and log["args"]["value_mix"] == 0.2
    assert state["config"]["first"] == "ismcts:iterations=12" and state["config"]["fast_iterations"] == 3
    assert main([*args[:-2], "--value-mix", "0.3", "--out", "run"]) == 2  # another recipe: refused

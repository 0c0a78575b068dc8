"""The no-search learners over the vector env (``training/vec_ppo.py``, ``training/dmc.py``): a smoke run of each
on Lords of War writes its outputs, and their masked policies never pick an illegal action."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

import cardboard  # noqa: E402
from cardboard import registry  # noqa: E402
from cardboard.training import dmc, vec_ppo  # noqa: E402

GAME = "lords_of_war"


def outputs(out) -> list[dict]:
    """The run's eval.jsonl lines, after checking every output file is there."""
    for name in ("args.json", "eval.jsonl", "eval.png", "final.json", "model.safetensors"):
        assert (out / name).exists(), name
    lines = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert lines[-1] == json.loads((out / "final.json").read_text()) and lines[-1]["final"]
    for line in lines:
        for opponent in ("random", "greedy"):
            r = line[opponent]
            assert r["wins"] + r["draws"] + r["losses"] == r["games"] and sum(r["wins_by_seat"]) == r["wins"]
            assert 0.0 <= r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] <= 1.0
    return lines


def plays_legal_moves(policy, steps: int = 150) -> None:
    """``policy`` acts in 8 self-play games of Lords of War for ``steps`` steps, every move legal."""
    vec = cardboard.make_vec_env(GAME, 8, self_play=True, seed=3)
    for _ in range(steps):
        actions = policy(vec.observations, vec.action_masks)
        assert vec.action_masks[np.arange(8), actions].all()
        vec.step(actions)


@pytest.mark.parametrize("extra", [[], ["--self-play", "--snapshot-every", "1", "--snapshot-sample"]])
def test_vec_ppo_smoke_writes_every_output(tmp_path, extra):
    assert vec_ppo.main([GAME, "--smoke", "--quiet", "--out-dir", str(tmp_path), *extra]) == 0
    lines = outputs(tmp_path)
    assert [line["step"] for line in lines] == [0, 256, 512] and lines[-1]["random"]["games"] == 4
    assert json.loads((tmp_path / "args.json").read_text())["self_play"] == bool(extra)
    plays_legal_moves(vec_ppo.load_policy(tmp_path))


def test_vec_ppo_init_starts_from_a_saved_run(tmp_path):
    """A run started from another's weights (--init) evaluates at step 0 as that run's final evaluation did (the
    same deals: the final one uses eval_seed + 1)."""
    assert vec_ppo.main([GAME, "--smoke", "--quiet", "--out-dir", str(tmp_path / "a")]) == 0
    assert vec_ppo.main([GAME, "--smoke", "--quiet", "--out-dir", str(tmp_path / "b"), "--init", str(tmp_path / "a"),
                         "--opponent", "greedy", "--eval-seed", "10001"]) == 0
    first = outputs(tmp_path / "b")[0]
    final = json.loads((tmp_path / "a" / "final.json").read_text())
    assert first["step"] == 0 and all(first[o] == final[o] for o in ("random", "greedy"))


def test_dmc_smoke_writes_every_output(tmp_path):
    assert dmc.main([GAME, "--smoke", "--quiet", "--out-dir", str(tmp_path)]) == 0
    lines = outputs(tmp_path)
    assert [line["step"] for line in lines] == [0, 1024, 2048] and lines[-1]["updates"] > 0
    assert lines[-1]["training_games"] > 0 and np.isfinite(lines[-1]["loss"])
    plays_legal_moves(dmc.load_policy(tmp_path))


def test_masks_beat_networks_that_prefer_illegal_actions():
    """Both policies stay legal when the network's favourite actions are exactly the illegal ones."""
    info = registry.make_game(GAME).info
    obs_dim, vec = info.observation_shape[0], cardboard.make_vec_env(GAME, 8, self_play=True, seed=5)
    illegal = torch.as_tensor(~vec.action_masks.any(0), dtype=torch.float32)  # illegal in every row
    assert illegal.sum() > 0
    net = vec_ppo.actor_critic(obs_dim, info.num_actions, (16,))
    with torch.no_grad():
        net.actor[-1].bias.copy_(1e4 * illegal)
    q = dmc.q_network(obs_dim, info.num_actions, (16,))  # Q = sum of relu(E[a]): 16 if a is illegal, else 0
    with torch.no_grad():
        for layer in (q.obs_in, q.head[-1]):
            layer.weight.fill_(float(layer is q.head[-1]))
            layer.bias.zero_()
        q.action_in.weight.copy_(illegal[:, None].expand(-1, 16))
    scores = q.scores(torch.as_tensor(vec.observations), torch.as_tensor(vec.action_masks))
    assert torch.isinf(scores[~torch.as_tensor(vec.action_masks)]).all()
    for policy in (vec_ppo.batch_policy(net.actor, "cpu"), vec_ppo.batch_policy(net.actor, "cpu", sample=True),
                   dmc.greedy_policy(q, "cpu")):
        plays_legal_moves(policy, steps=50)


def test_pending_moves_survive_games_longer_than_the_ring():
    pending = dmc.Pending(num_envs=2, obs_dim=1, length=2)
    for t in range(7):
        pending.push(np.array([[t], [10 + t]], dtype=np.float32), np.array([t, 10 + t]), np.array([t % 2, 0]))
        if t == 1:
            obs, actions, movers = pending.take(1)
            assert actions.tolist() == [10, 11]
    obs, actions, movers = pending.take(0)
    assert obs[:, 0].tolist() == actions.tolist() == list(range(7)) and movers.tolist() == [0, 1, 0, 1, 0, 1, 0]
    assert pending.take(1)[1].tolist() == [12, 13, 14, 15, 16]


def test_replay_keeps_the_most_recent_transitions():
    replay = dmc.Replay(capacity=4, obs_dim=1)
    for k in range(3):
        replay.add(np.full((2, 1), k, dtype=np.float32), np.full(2, k), np.full(2, float(k)))
    assert replay.size == 4 and sorted(replay.actions.tolist()) == [1, 1, 2, 2]
    obs, actions, targets = replay.sample(np.random.default_rng(0), 50)
    assert set(actions.tolist()) == {1, 2} and (obs[:, 0] == actions).all() and (targets == actions).all()


def test_commands_are_registered():
    commands = registry.commands()
    assert {"train-vec-ppo", "train-dmc"} <= set(commands)


@pytest.mark.parametrize("module", [vec_ppo, dmc])
@pytest.mark.parametrize("argv, words", [
    (["--num-envs", "0"], "--num-envs must be >= 1"),
    (["--minutes", "0"], "give a budget"),
    (["--eval-opponents", "no_such_agent", "--smoke"], "unknown agent 'no_such_agent'"),
])
def test_bad_arguments_fail_before_any_output(tmp_path, capsys, module, argv, words):
    assert module.main([GAME, *argv, "--out-dir", str(tmp_path / "run")]) == 2
    assert words in capsys.readouterr().out and not (tmp_path / "run").exists()

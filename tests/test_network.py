"""Policy-value networks and the batched evaluator (issue 17, first part): every registered game through the
protocol alone, masked priors, value ranges, batching equal to one-by-one, checkpoints, typed refusals."""
from __future__ import annotations

import copy
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.errors import CheckpointError, InvalidParameterError, ProtocolError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.network import PolicyValueNet, masked_policy

torch.set_num_threads(1)


def decisions(game: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations (by the player to move) and legal-action masks of ``count`` decision states of random games."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while len(obs) < count:
        state = cardboard.new_state(game, seed=int(rng.integers(1 << 30)))
        while not state.is_terminal() and len(obs) < count:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            obs.append(state.observation(state.current_player))
            masks.append(state.action_mask())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs), np.stack(masks)


def network(game: str, seed: int = 0, **kwargs) -> PolicyValueNet:
    torch.manual_seed(seed)
    return PolicyValueNet(cardboard.make_game(game).info, **kwargs)


@pytest.fixture(scope="module")
def low():
    """A small Lords of War network, an evaluator on it, and 40 real decision states."""
    net = network("lords_of_war", hidden=(64, 32))
    return net, BatchedEvaluator(net, max_batch=16), *decisions("lords_of_war", 40)


@pytest.mark.parametrize("game", cardboard.games())
def test_shapes_priors_and_values_on_every_game(game):
    info = cardboard.make_game(game).info
    obs, masks = decisions(game, 12)
    priors, values = BatchedEvaluator(network(game), max_batch=5).evaluate(obs, masks)
    assert priors.shape == (12, info.num_actions) and priors.dtype == np.float32
    assert values.shape == (12, info.num_players) and values.dtype == np.float32
    assert np.all(priors[~masks] == 0) and np.all(priors[masks] > 0)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(values >= info.min_return) and np.all(values <= info.max_return)


def test_default_sizes_and_parameter_counts():
    net = network("lords_of_war")
    assert net.hidden == (176, 176)
    assert net.num_parameters() == (1066 * 176 + 176) + (176 * 176 + 176) + (176 * 338 + 338) + (176 * 2 + 2) == 279_124


def test_values_reach_the_games_range_scaled():
    info = replace(cardboard.make_game("lords_of_war").info, min_return=-0.5, max_return=2.0)
    net = PolicyValueNet(info, hidden=(8,))
    with torch.no_grad():
        net.value_head.bias.fill_(100.0)
        high = net(torch.zeros(1, 1066))[1]
        net.value_head.bias.fill_(-100.0)
        low_ = net(torch.zeros(1, 1066))[1]
    assert torch.allclose(high, torch.tensor(2.0)) and torch.allclose(low_, torch.tensor(-0.5))


def test_masked_policy_zeroes_illegal_actions():
    logits = torch.tensor([[5.0, 1.0, 3.0], [0.0, 0.0, 9.0]])
    mask = torch.tensor([[False, True, True], [True, True, False]])
    probs = masked_policy(logits, mask)
    assert probs[0, 0] == 0 and probs[1, 2] == 0
    assert torch.allclose(probs.sum(dim=1), torch.ones(2))
    assert torch.allclose(probs[1, :2], torch.tensor([0.5, 0.5]))


def test_batched_results_equal_one_by_one(low):
    _, evaluator, obs, masks = low
    priors, values = evaluator.evaluate(obs, masks)  # 40 states: chunks of 16, 16, 8
    for i in range(len(obs)):
        p, v = evaluator.evaluate(obs[i:i + 1], masks[i:i + 1])
        np.testing.assert_allclose(p[0], priors[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v[0], values[i], rtol=1e-5, atol=1e-6)


def test_submit_flush_result(low):
    _, evaluator, obs, masks = low
    priors, values = evaluator.evaluate(obs, masks)
    tickets = [evaluator.submit(o, m) for o, m in zip(obs, masks)]
    assert evaluator.pending == len(obs) and len(set(tickets)) == len(obs)
    with pytest.raises(ProtocolError, match="pending"):
        evaluator.result(tickets[0])
    evaluator.flush()
    assert evaluator.pending == 0
    for i in reversed(range(len(obs))):
        p, v = evaluator.result(tickets[i])
        np.testing.assert_allclose(p, priors[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v, values[i], rtol=1e-5, atol=1e-6)
    with pytest.raises(InvalidParameterError, match="unknown ticket"):
        evaluator.result(tickets[0])
    evaluator.flush()  # nothing pending: a no-op


def test_save_load_round_trip(low, tmp_path):
    net, evaluator, obs, masks = low
    net.options = {"army": "test"}
    net.save(tmp_path / "net.pt")
    loaded = PolicyValueNet.load(tmp_path / "net.pt", cardboard.make_game("lords_of_war").info)
    assert loaded.hidden == (64, 32) and loaded.options == {"army": "test"}
    assert loaded.metadata()["info"] == net.metadata()["info"]
    expected = evaluator.evaluate(obs, masks)
    got = BatchedEvaluator(loaded, max_batch=evaluator.max_batch).evaluate(obs, masks)  # same chunks: same rounding
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert PolicyValueNet.load(tmp_path / "net.pt").info == net.info  # the checkpoint's own GameInfo


def test_bad_checkpoints_are_typed(low, tmp_path):
    net = low[0]
    with pytest.raises(CheckpointError, match="no such file"):
        PolicyValueNet.load(tmp_path / "missing.pt")
    net.save(tmp_path / "net.pt")
    data = (tmp_path / "net.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="cut.pt"):
        PolicyValueNet.load(tmp_path / "cut.pt")
    (tmp_path / "junk.pt").write_text("not a checkpoint")
    with pytest.raises(CheckpointError, match="junk.pt"):
        PolicyValueNet.load(tmp_path / "junk.pt")
    torch.save({"state_dict": net.state_dict()}, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="foreign.pt"):
        PolicyValueNet.load(tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="'lords_of_war'.*does not match game 'hearth'"):
        PolicyValueNet.load(tmp_path / "net.pt", cardboard.make_game("hearth").info)


def test_a_network_of_another_game_is_refused_even_with_the_same_shapes(low, tmp_path):
    net = low[0]
    net.save(tmp_path / "net.safetensors")
    twin = replace(net.info, name="low_twin")  # every shape field the same, another game
    with pytest.raises(CheckpointError, match="net.safetensors.*'lords_of_war' does not match game 'low_twin'"):
        PolicyValueNet.load(tmp_path / "net.safetensors", twin)
    assert PolicyValueNet.load(tmp_path / "net.safetensors", net.info).info == net.info


def test_bad_inputs_are_typed(low):
    net, evaluator, obs, masks = low
    with pytest.raises(InvalidParameterError, match="observations of shape"):
        evaluator.evaluate(obs[:, :100], masks)
    with pytest.raises(InvalidParameterError, match="observations of shape"):
        evaluator.evaluate(obs[0], masks[:1])
    with pytest.raises(InvalidParameterError, match="masks of shape"):
        evaluator.evaluate(obs, masks[:5])
    with pytest.raises(InvalidParameterError, match="no legal action"):
        evaluator.evaluate(obs[:2], np.zeros_like(masks[:2]))
    with pytest.raises(InvalidParameterError, match="observation of shape"):
        evaluator.submit(obs[:2], masks[0])
    with pytest.raises(InvalidParameterError, match="mask of shape"):
        evaluator.submit(obs[0], masks[0, :10])
    with pytest.raises(InvalidParameterError, match="no legal action"):
        evaluator.submit(obs[0], np.zeros_like(masks[0]))
    assert evaluator.pending == 0
    with pytest.raises(InvalidParameterError, match="'tpu'"):
        BatchedEvaluator(net, device="tpu")
    with pytest.raises(InvalidParameterError, match="max_batch"):
        BatchedEvaluator(net, max_batch=0)
    with pytest.raises(InvalidParameterError, match="threads"):
        BatchedEvaluator(net, threads=0)
    with pytest.raises(InvalidParameterError, match="hidden"):
        PolicyValueNet(net.info, hidden=())


def test_threads_argument():
    before = torch.get_num_threads()
    try:
        BatchedEvaluator(network("demo_tricks", hidden=(8,)), threads=1)
        assert torch.get_num_threads() == 1
        BatchedEvaluator(network("demo_tricks", hidden=(8,)))  # None: left as it is
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available: the refusal cannot happen")
def test_cuda_unavailable_is_refused_naming_the_device(low):
    with pytest.raises(InvalidParameterError, match="'cuda'.*not available"):
        BatchedEvaluator(low[0], device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="torch.cuda is not available (CPU-only torch build or "
                                                          "no GPU): the CUDA evaluator is not exercised")
def test_cuda_matches_cpu(low):
    net, evaluator, obs, masks = low
    expected = evaluator.evaluate(obs, masks)
    got = BatchedEvaluator(copy.deepcopy(net), device="cuda").evaluate(obs, masks)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-4, atol=1e-5)


def test_listing_agents_imports_no_torch():
    code = ("import sys, cardboard\ncardboard.agents(); cardboard.games()\n"
            "assert 'torch' not in sys.modules, 'torch imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

"""One inference server per machine (policies.inference_server) on the two-node Ray cluster of ``ray_cluster``."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.policies import inference_server as server_module
from cardboard.policies.inference_server import (BATCH, WINDOW, InferenceServerError, connect, node_server,
                                                 server_names, stop_servers)

MODEL = "zoo:lords_of_war"  # the latest shipped version
GAME = "lords_of_war"


@pytest.fixture(scope="module")
def rows() -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of 24 Lords of War states from random play."""
    game = registry.make_game(GAME)
    rng = np.random.default_rng(0)
    observations, masks = [], []
    state = game.new_state(0)
    while len(observations) < 24:
        if state.is_terminal():
            state = game.new_state(len(observations))
            continue
        if state.current_player >= 0:
            observations.append(state.observation(state.current_player).copy())
            masks.append(state.action_mask().copy())
        state.apply(int(rng.choice(state.legal_actions())))
    return np.stack(observations).astype(np.float32), np.stack(masks)


@pytest.fixture(scope="module")
def servers(ray_cluster):
    """The cluster, with no inference server before or after these tests (those started here are shared)."""
    stop_servers()
    yield ray_cluster
    stop_servers()


def local(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from cardboard.policies.net_agent import load_evaluator

    return load_evaluator(MODEL, registry.make_game(GAME).info).evaluate(observations, masks)


def test_outputs_identical_to_local_evaluation(servers, rows):
    remote = connect(MODEL, registry.make_game(GAME).info, device="cpu")
    for n in (1, 5, 24):
        priors, values = remote.evaluate(rows[0][:n], rows[1][:n])
        expected = local(rows[0][:n], rows[1][:n])
        assert priors.dtype == values.dtype == np.float32
        np.testing.assert_array_equal(priors, expected[0])
        np.testing.assert_array_equal(values, expected[1])
    tickets = [remote.enqueue(o, m) for o, m in zip(*rows)]
    remote.flush()
    np.testing.assert_array_equal(np.stack([remote.result(t)[0] for t in tickets]), local(*rows)[0])
    with pytest.raises(InvalidParameterError, match="masks"):
        remote.evaluate(rows[0][:2], rows[1][:2, :5])
    assert remote.stats()["device"] == "cpu"


def _worker(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A worker: its own client of its node's server."""
    return connect(MODEL, registry.make_game(GAME).info).evaluate(observations, masks)


def test_two_workers_are_batched_together(servers, rows):
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = ray.get_runtime_context().get_node_id()
    server = node_server(device="cpu")  # this node's, started by the first test
    ray.get([server.configure.remote(24, 20.0), server.reset_stats.remote()])  # a pass once both requests are in
    worker = ray.remote(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False))(_worker)
    first, second = ray.get([worker.remote(rows[0][:10], rows[1][:10]), worker.remote(rows[0][10:], rows[1][10:])])
    stats = ray.get(server.stats.remote())
    ray.get(server.configure.remote(BATCH, WINDOW))
    assert stats["node"] == here and stats["sizes"] == {24: 1} and stats["requests"] == 2
    together = np.concatenate([first[0], second[0]])
    other_order = local(np.concatenate([rows[0][10:], rows[0][:10]]), np.concatenate([rows[1][10:], rows[1][:10]]))
    assert (np.array_equal(together, local(*rows)[0])
            or np.array_equal(together, np.concatenate([other_order[0][14:], other_order[0][:14]])))
    np.testing.assert_allclose(first[0], local(rows[0][:10], rows[1][:10])[0], rtol=0, atol=1e-6)


def test_search_agent_on_the_server_plays_as_locally(servers):
    game = registry.make_game(GAME)
    spec = "ismcts:iterations=24,leaves=4,net=" + MODEL
    state = game.new_state(3)
    moves = [registry.make_agent(spec + device, game).act(state, np.random.default_rng(7))
             for device in ("", ",device=server")]
    assert moves[0] == moves[1]


def test_a_client_outlives_its_stopped_server(servers, rows):
    """A job's end stops the servers it started (``evaluation.cluster``); an evaluator built before still works,
    on this node's server started again."""
    remote = connect(MODEL, registry.make_game(GAME).info, device="cpu")
    before = remote.evaluate(*rows)
    assert stop_servers() >= 1 and not server_names()
    after = remote.evaluate(*rows)
    assert server_names() == {server_module.server_name(remote.stats()["node"])}
    np.testing.assert_allclose(after[0], before[0], rtol=0, atol=1e-5)


def test_clear_errors_without_ray(monkeypatch, ray_cluster):
    import ray

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    with pytest.raises(InferenceServerError, match="has not joined a Ray cluster"):
        connect(MODEL)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InferenceServerError, match="pip install"):
        server_module.node_server()


def test_importing_cardboard_imports_no_ray():
    code = ("import sys, cardboard, cardboard.policies.inference_server, cardboard.policies.net_agent; "
            "assert 'ray' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="no CUDA device: the GPU server is untested")
def test_server_runs_on_the_gpu(servers, rows):
    stop_servers()
    remote = connect(MODEL, registry.make_game(GAME).info)  # the default device: cuda on this machine
    priors, values = remote.evaluate(*rows)
    assert remote.stats()["device"] == "cuda"
    expected = local(*rows)
    np.testing.assert_allclose(priors, expected[0], atol=1e-4)
    np.testing.assert_allclose(values, expected[1], atol=1e-4)

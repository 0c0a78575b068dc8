"""Networks on a device (issue 32): ``BatchedEvaluator``'s staging API (``staging``, ``launch``, ``Pending.wait``),
``device=`` on network agents, the learners and expert iteration, and torch's threads per worker process.

Every behaviour runs on the CPU; the same tests run on CUDA where ``torch.cuda.is_available()`` and skip with the
reason otherwise (the ``device`` fixture). CUDA answers are compared with the CPU's within a tolerance.
"""
from __future__ import annotations

import copy
import signal
import threading

import numpy as np
import pytest
import torch

import cardboard
from cardboard import registry
from cardboard.envs.errors import InvalidParameterError, ProtocolError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.jobs.worker_pool import limit_torch_threads
from cardboard.policies.evaluator import BatchedEvaluator, resolve_device
from cardboard.policies.network import PolicyValueNet

NO_CUDA = "torch.cuda.is_available() is False (CPU-only torch build or no GPU): the CUDA path is not exercised"
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA))]
GAME = "demo_tricks"  # the test plugin (tests/external): pure Python, so no kernel compiles on a fresh machine


@pytest.fixture(params=DEVICES)
def device(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def low():
    """A small network of the game and 40 real decision states (observation of the player to move, mask)."""
    torch.manual_seed(0)
    net = PolicyValueNet(cardboard.make_game(GAME).info, hidden=(64, 32))
    rng = np.random.default_rng(0)
    obs, masks = [], []
    while len(obs) < 40:
        state = cardboard.new_state(GAME, seed=int(rng.integers(1 << 30)))
        while not state.is_terminal() and len(obs) < 40:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            obs.append(state.observation(state.current_player))
            masks.append(state.action_mask())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return net, np.stack(obs), np.stack(masks)


def _on(net: PolicyValueNet, device: str, max_batch: int = 16) -> BatchedEvaluator:
    return BatchedEvaluator(copy.deepcopy(net), device=device, max_batch=max_batch)


def _assert_close(got: tuple, expected: tuple) -> None:
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-4, atol=1e-5)


# -- staging, launch, wait -----------------------------------------------------------------------------------
def test_staging_is_allocated_once_per_slot_writable_and_pinned_on_cuda(low, device):
    evaluator = _on(low[0], device)
    obs, masks = evaluator.staging(0)
    assert obs.shape == (16, *evaluator.observation_shape) and obs.dtype == np.float32 and obs.flags.writeable
    assert masks.shape == (16, evaluator.num_actions) and masks.dtype == bool and masks.flags.writeable
    again = evaluator.staging(0)
    assert again[0] is obs and again[1] is masks  # the same memory every time
    other = evaluator.staging(1)
    assert not np.shares_memory(other[0], obs) and not np.shares_memory(other[1], masks)
    assert torch.from_numpy(obs).is_pinned() == (device == "cuda")
    assert torch.from_numpy(masks).is_pinned() == (device == "cuda")


def test_launch_and_wait_answer_the_staged_rows_as_the_cpu_does(low, device):
    net, obs, masks = low
    expected = _on(net, "cpu").evaluate(obs[:10], masks[:10])
    evaluator = _on(net, device)
    staged_obs, staged_masks = evaluator.staging(1)
    staged_obs[:10], staged_masks[:10] = obs[:10], masks[:10]
    priors, values = evaluator.launch(10, slot=1).wait()
    assert priors.shape == (10, evaluator.num_actions) and values.shape == (10, evaluator.num_players)
    assert priors.dtype == values.dtype == np.float32
    _assert_close((priors, values), expected)
    assert np.all(priors[~masks[:10]] == 0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
def test_on_cuda_a_captured_pass_per_batch_size_answers_any_number_of_rows(low):
    """Batches of 1 to 40 states, in an order that leaves larger batches' rows behind in the captured inputs: each
    answer is the CPU's, and passes of 5 to 8 states share one capture (the power of two above)."""
    net, obs, masks = low
    cpu, cuda = _on(net, "cpu", max_batch=64), _on(net, "cuda", max_batch=64)
    for n in (40, 1, 7, 33, 5, 8, 2, 40, 3):
        _assert_close(cuda.evaluate(obs[:n][::-1], masks[:n][::-1]), cpu.evaluate(obs[:n][::-1], masks[:n][::-1]))
    assert sorted(cuda._graphs) == [1, 2, 4, 8, 64]
    with torch.no_grad():  # the capture reads the parameters in place: a change shows in the next pass
        for p in cuda.net.parameters():
            p.mul_(0.5)
        for p in cpu.net.parameters():
            p.mul_(0.5)
    _assert_close(cuda.evaluate(obs[:3], masks[:3]), cpu.evaluate(obs[:3], masks[:3]))


def test_double_buffering_fills_one_slot_while_the_other_runs(low, device):
    net, obs, masks = low
    expected = _on(net, "cpu").evaluate(obs[:32], masks[:32])
    evaluator = _on(net, device)
    for slot, rows in ((0, slice(0, 16)), (1, slice(16, 32))):
        staged_obs, staged_masks = evaluator.staging(slot)
        staged_obs[:16], staged_masks[:16] = obs[rows], masks[rows]
        if slot == 0:
            first = evaluator.launch(16, 0)  # in flight while slot 1 is filled
    second = evaluator.launch(16, 1)
    with pytest.raises(ProtocolError, match="slot 0 has a batch in flight"):
        evaluator.launch(16, 0)
    _assert_close(second.wait(), (expected[0][16:], expected[1][16:]))
    _assert_close(first.wait(), (expected[0][:16], expected[1][:16]))
    evaluator.launch(16, 0).wait()  # waited for: the slot may run again
    assert (evaluator.passes, evaluator.states) == (3, 48)


def test_cpu_forward_pass_runs_on_a_background_thread(low):
    evaluator = _on(low[0], "cpu")
    threads = []
    forward = evaluator.net.forward
    evaluator.net.forward = lambda x: (threads.append(threading.current_thread()), forward(x))[1]
    staged_obs, staged_masks = evaluator.staging(0)
    staged_obs[:4], staged_masks[:4] = low[1][:4], low[2][:4]
    evaluator.launch(4).wait()
    assert threads and threads[0] is not threading.current_thread()


def test_bad_launches_are_typed(low, device):
    evaluator = _on(low[0], device)
    staged_obs, staged_masks = evaluator.staging(0)
    staged_masks[:] = True
    for n in (0, 17, 2.0, -1):
        with pytest.raises(InvalidParameterError, match=f"n={n!r}"):
            evaluator.launch(n)
    for slot in (2, -1, "1"):
        with pytest.raises(InvalidParameterError, match="slot="):
            evaluator.launch(1, slot)
        with pytest.raises(InvalidParameterError, match="slot="):
            evaluator.staging(slot)
    staged_masks[3] = False
    with pytest.raises(InvalidParameterError, match=r"rows \[3\] have no legal action"):
        evaluator.launch(5)
    evaluator.launch(3).wait()  # the refused launches left nothing in flight


def test_evaluate_and_flush_match_across_devices_and_count_passes(low, device):
    net, obs, masks = low
    expected = _on(net, "cpu").evaluate(obs, masks)
    evaluator = _on(net, device)
    _assert_close(evaluator.evaluate(obs, masks), expected)
    assert (evaluator.passes, evaluator.states) == (3, 40)  # chunks of 16, 16, 8
    tickets = [evaluator.submit(o, m) for o, m in zip(obs, masks)]
    evaluator.flush()
    for i, ticket in enumerate(tickets):
        _assert_close(evaluator.result(ticket), (expected[0][i], expected[1][i]))
    assert (evaluator.passes, evaluator.states) == (6, 80)


def test_enqueue_does_not_copy_flush_reads_the_arrays_once(low):
    """``enqueue`` keeps the caller's arrays (callers hand over arrays nobody changes before the flush); the one
    copy is flush's, into the staging slot: a change made before the flush is what the network sees."""
    net, obs, masks = low
    evaluator = _on(net, "cpu")
    observation = obs[0].copy()
    ticket = evaluator.enqueue(observation, masks[0])
    observation[:] = obs[1]
    evaluator.flush()
    _assert_close(evaluator.result(ticket), tuple(a[0] for a in evaluator.evaluate(obs[1:2], masks[:1])))
    evaluator.enqueue(obs[0][:5], masks[0])
    with pytest.raises(InvalidParameterError, match="do not fit observations"):
        evaluator.flush()


# -- device= -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("net") / "net.pt"
    PolicyValueNet(cardboard.make_game(GAME).info, hidden=(32,)).save(path)
    return path


@pytest.mark.parametrize("name", ["ismcts", "duct"])
def test_search_agents_run_their_network_on_the_device(checkpoint, device, name):
    game = registry.make_game(GAME)
    agent = registry.make_agent(f"{name}:iterations=8,net={checkpoint},device={device}", game)
    assert agent.searcher.config.evaluator.queue.device.type == device
    state = game.new_state(0)
    while state.current_player == CHANCE:
        state.apply(sample_chance(state, np.random.default_rng(0)))
    assert state.action_mask()[agent.act(state, np.random.default_rng(0))]


def test_a_bad_device_is_refused_naming_it(checkpoint):
    game = registry.make_game(GAME)
    with pytest.raises(InvalidParameterError, match="'tpu'"):
        registry.make_agent(f"ismcts:net={checkpoint},device=tpu", game)
    with pytest.raises(InvalidParameterError, match="device=cuda needs a network"):
        registry.make_agent("ismcts:device=cuda", game)
    with pytest.raises(InvalidParameterError, match="'cuda:99'"):
        resolve_device("cuda:99")


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available: the refusal cannot happen")
def test_cuda_unavailable_is_refused_by_agents_and_learners(checkpoint, tmp_path):
    from cardboard.evaluation.papers.p001_hearthstone import card_play_learn
    from cardboard.training import learn

    with pytest.raises(InvalidParameterError, match="'cuda'.*not available"):
        registry.make_agent(f"duct:net={checkpoint},device=cuda", registry.make_game(GAME))
    with pytest.raises(InvalidParameterError, match="'cuda'.*not available"):
        learn.train(learn.Args(game=GAME, data=str(tmp_path / "none"), out=str(tmp_path / "out"), device="cuda"),
                    None)
    with pytest.raises(InvalidParameterError, match="'cuda'.*not available"):
        card_play_learn.train(str(tmp_path / "none"), "dnn_140k", str(tmp_path / "out"), device="cuda")
    assert not (tmp_path / "out").exists()


def test_learner_trains_on_the_device_and_saves_a_checkpoint_that_loads_on_the_cpu(tmp_path, device, monkeypatch):
    from rich.console import Console

    from cardboard.training import learn, selfplay

    monkeypatch.setattr(learn, "plot", lambda *args: None)  # the curve needs matplotlib, not a device
    selfplay.generate(GAME, ["ismcts:iterations=5"], 3, 0, tmp_path / "data")
    learn.train(learn.Args(game=GAME, data=str(tmp_path / "data"), out=str(tmp_path / "net"), epochs=2,
                           hidden=(16,), device=device, quiet=True), Console(quiet=True))
    assert {p.name for p in (tmp_path / "net").iterdir()} == {"model.safetensors", "log.json"}
    net = PolicyValueNet.load(tmp_path / "net" / "model.safetensors", registry.make_game(GAME).info)
    assert all(p.device.type == "cpu" for p in net.parameters())  # trained on the device, loaded on the CPU
    assert all(b.device.type == "cpu" for b in net.buffers())


def test_expert_iteration_refuses_a_bad_device_before_writing(tmp_path):
    from rich.console import Console

    from cardboard.cli import build_parser
    from cardboard.training import expert_iteration

    args = build_parser().parse_args(["expert-iteration", GAME, "--generations", "1", "--out",
                                      str(tmp_path / "run"), "--device", "gpu", "--quiet"])
    with pytest.raises(InvalidParameterError, match="'gpu'"):
        expert_iteration.run_loop(args, Console(quiet=True))
    assert not (tmp_path / "run").exists()
    assert (expert_iteration.expert(5, "n.pt", device="cuda")
            == "ismcts:iterations=5,net=n.pt,prior=1,value=1,device=cuda")


# -- torch threads per worker ----------------------------------------------------------------------------------
def test_limit_torch_threads_sets_a_loaded_torch_and_imports_nothing():
    import subprocess
    import sys

    code = ("import sys; from cardboard.jobs.worker_pool import limit_torch_threads; limit_torch_threads(1); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        limit_torch_threads(1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("module", ["match", "selfplay"])
def test_worker_initializers_set_torch_threads(checkpoint, module):
    """Match and self-play workers whose agents run a network set torch to ``torch_threads``."""
    from cardboard.evaluation import match
    from cardboard.jobs import backends
    from cardboard.training import selfplay

    specs = [f"ismcts:iterations=2,net={checkpoint}"] * 2
    entries = registry.pickled_entries(GAME, specs)
    before, handler = torch.get_num_threads(), signal.getsignal(signal.SIGINT)
    try:
        torch.set_num_threads(2)
        if module == "match":
            job = backends.Job("m", match._setup, (entries, GAME, {}, tuple(specs), 0, "cyclic"), match._play, 1)
        else:
            job = backends.Job("s", selfplay._setup, (entries, GAME, {}, specs, None, 1, 0, None, 1.0),
                               selfplay._play, 1)
        backends._start_local()
        backends._context(job)
        assert torch.get_num_threads() == 1
    finally:
        backends._CONTEXT.clear()
        torch.set_num_threads(before)
        signal.signal(signal.SIGINT, handler)

"""Learned priors at every node and learned rollouts (``search.leaf_value``'s ``LeafPolicy`` and ``LearnedRollout``,
issue 49): the policy head by hand and against torch, the compiled loop building the Python loop's trees (priors
included), the rollout's moves and its one network call a turn, the files, the knobs and the learner."""
from types import SimpleNamespace

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies import value_net
from cardboard.search import leaf_value
from cardboard.search.core import PRIOR
from cardboard.search.leaf_value import (LeafNet, LeafPolicy, LeafValue, LearnedRollout, hidden_layers,
                                         pick_weighted, policy_weights)
from cardboard.search.strategies import PUCT
from tests.compiled_paths import assert_same, summary
from tests.test_compiled_hearth import POSITIONS as HEARTH
from tests.test_compiled_search import POSITIONS, random_moves
from tests.test_leaf_value import tiny_net


def headed(info, seed=0, hidden=(24, 8), scale=0.4):
    """A random net with a policy head for ``info``'s game."""
    rng = np.random.default_rng(seed)
    size, h1, h2 = int(np.prod(info.observation_shape)), *hidden
    shapes = ((size, h1), (h1,), (h1, h2), (h2,), (h2, info.num_players), (info.num_players,), (h2, info.num_actions),
              (info.num_actions,))
    return LeafNet(*(rng.normal(0, scale, shape).astype(np.float32) for shape in shapes))


def test_the_policy_head_by_hand():
    # x = (0.4, 0.2, 0): hidden2 = (0.5, 0.5) (test_leaf_value's tiny net); z = bp + 0.5 wp[0] + 0.5 wp[1]
    # = (0, 0.5, 1) + (2, 0.5, -1) = (2, 1, 0)
    net = tiny_net()._replace(wp=np.array([[1.0, 0.0, -2.0], [3.0, 1.0, 0.0]], np.float32),
                              bp=np.array([0.0, 0.5, 1.0], np.float32))
    hidden2 = np.empty(2, np.float32)
    hidden_layers(net.w1, net.b1, net.w2, net.b2, np.array([0.4, 0.2, 0.0], np.float32), np.empty(2, np.float32),
                  hidden2)
    assert hidden2.tolist() == [0.5, 0.5]
    out = np.empty(3)
    total = policy_weights(hidden2, net.wp, net.bp, np.array([2, 0], np.int64), 2, 0.5, out)
    assert out[:2] == pytest.approx([1.0, np.exp(4.0)]) and total == pytest.approx(1.0 + np.exp(4.0))
    # the draw: the first whose cumulative weight passes u * total
    assert pick_weighted(out, 2, total, 0.999 / total) == 0 and pick_weighted(out, 2, total, 1.001 / total) == 1
    assert pick_weighted(out, 2, total, 1.0) == 1  # rounding past the end: the last
    # a tiny temperature saturates, never overflows: exp(700)
    total = policy_weights(hidden2, net.wp, net.bp, np.array([0, 1], np.int64), 2, 1e-6, out)
    assert np.isfinite(total) and out[0] == pytest.approx(np.exp(700.0))


def test_the_policy_head_is_torch_s():
    torch = pytest.importorskip("torch")
    from cardboard.training.value_net import network

    state, rng = cardboard.new_state("lords_of_war", seed=3), np.random.default_rng(3)
    info = state.info
    module = network(int(np.prod(info.observation_shape)), (32, 8), info.num_players, info.num_actions)
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0, 0.3)
    net = module.leaf_net()
    assert net.has_policy and net.wp.shape == (8, info.num_actions)
    for _ in range(8):
        random_moves(state, rng, 3)
        if state.is_terminal():
            break
        observation = np.asarray(state.observation(state.current_player), np.float32).ravel()
        legal = np.asarray(state.legal_actions(), np.int64)
        hidden2, out = np.empty(8, np.float32), np.empty(len(legal))
        hidden_layers(net.w1, net.b1, net.w2, net.b2, observation, np.empty(32, np.float32), hidden2)
        policy_weights(hidden2, net.wp, net.bp, legal, len(legal), 1.0, out)
        with torch.no_grad():
            logits = module.logits(torch.as_tensor(observation)[None])[0].numpy()
        assert np.log(out) == pytest.approx(logits[legal], abs=1e-4)


def test_priors_at_every_node_by_hand():
    """Each node's PRIOR row is the policy head's softmax over the legal moves of its player's observation there:
    checked at the root (UCT: one world) by hand."""
    state = POSITIONS["mid"]()
    net = headed(state.info, 4)
    tree = summary(state, "uct", 60, 0, True, rows=PRIOR + 1, selection=PUCT(1.0), prior=LeafPolicy(net, 0.5))["tree"]
    root_edges = [e for e, node in enumerate(tree["edge nodes"]) if node == 0]
    prior = LeafPolicy(net, 0.5)(state.clone()).prior
    legal = np.asarray(state.legal_actions())
    expected = prior[legal] / prior[legal].sum()
    keys = [state.action_key(int(a)) for a in legal]
    got = {tree["keys"][e]: tree["stat"][PRIOR][e] for e in root_edges}
    assert [got[k] for k in keys] == pytest.approx(expected.tolist(), rel=1e-12)
    assert np.ptp(expected) > 0.01  # not uniform: the test can fail
    assert len({n for n in tree["edge nodes"]}) > 3  # nodes below the root were expanded with priors too


@pytest.mark.parametrize("worlds", ["ismcts", "uct", "duct"])
@pytest.mark.parametrize("position", ["start", "mid"])
@pytest.mark.parametrize("parts", ["prior", "rollout", "rollout-depth-2", "all"])
def test_the_compiled_loop_builds_python_s_trees(position, worlds, parts, compiled_runs):
    state = POSITIONS[position]()
    net = headed(state.info, 1)
    config = {"prior": dict(selection=PUCT(1.0), prior=LeafPolicy(net, 1.0)),
              "rollout": dict(rollout=LearnedRollout(net, 0.7)),
              "rollout-depth-2": dict(rollout=LearnedRollout(net, 0.7), depth=2),
              "all": dict(selection=PUCT(1.5), prior=LeafPolicy(net, 2.0), leaf_value=LeafValue(net, 0.5),
                          rollout=LearnedRollout(net, 0.5))}[parts]
    for seed in (0, 7):
        assert_same(state, worlds, 200, seed, compiled_runs, num_worlds=3, rows=PRIOR + 1, **config)


@pytest.mark.parametrize("name", ["voidcaller", "face_hunter"])
def test_hearth_chance_nodes_in_the_tree_and_in_rollouts(name, compiled_runs):
    state = HEARTH[name]()
    net = headed(state.info, 2)
    assert_same(state, "duct", 200, 3, compiled_runs, num_worlds=4, rows=PRIOR + 1, selection=PUCT(1.0),
                prior=LeafPolicy(net, 1.0), rollout=LearnedRollout(net, 0.5), leaf_value=LeafValue(net, 0.3))
    assert_same(state, "duct", 200, 4, compiled_runs, num_worlds=4, depth=3, rollout=LearnedRollout(net, 1.0))


def test_pandemic(compiled_runs):
    state = cardboard.new_state("pandemic", seed=5, players=2)
    net = headed(state.info, 5)
    assert_same(state, "duct", 100, 1, compiled_runs, num_worlds=2, depth=2, rows=PRIOR + 1, selection=PUCT(1.0),
                prior=LeafPolicy(net, 1.0), rollout=LearnedRollout(net, 1.0))


def replayed(state, net, temperature, seed):
    """The learned rollout by hand, in numpy: the stream seeded by one raw word of the generator, the hidden layers
    from the observation at the start of each player's turn, each move the first legal one whose cumulative
    ``exp(z / T)`` passes the stream's next unit times their sum; returns the moves and the turns evaluated."""
    stream = np.array([np.random.default_rng(seed).bit_generator.random_raw() | 1], dtype=np.uint64)

    def unit():
        x = stream[0]
        x ^= x >> np.uint64(12)
        x ^= x << np.uint64(25)
        x ^= x >> np.uint64(27)
        stream[0] = x
        return float((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) / 2.0 ** 53

    moves, turns, hidden, now = [], [], None, None
    with np.errstate(over="ignore"):
        while not state.is_terminal():
            if (state.current_player, state.turn) != now:
                now = (state.current_player, state.turn)
                turns.append(now)
                x = np.asarray(state.observation(state.current_player), np.float64).ravel()
                h1 = np.clip(net.b1 + x @ net.w1, 0, 1)
                hidden = np.clip(net.b2 + h1 @ net.w2, 0, 1)
            legal = np.asarray(state.legal_actions())
            weights = np.exp((net.bp[legal] + hidden @ net.wp[:, legal]) / temperature)
            pick = int(np.searchsorted(np.cumsum(weights), unit() * weights.sum(), side="right"))
            moves.append(int(legal[min(pick, len(legal) - 1)]))
            state.apply(moves[-1])
    return moves, turns


def test_a_rollout_draws_from_the_head_and_calls_the_network_once_a_turn(monkeypatch):
    state = POSITIONS["start"]()
    net = headed(state.info, 6, scale=1.0)
    by_hand = state.clone()
    moves, turns = replayed(by_hand, net, 0.3, seed=11)
    assert len(turns) > 2 and len(moves) > len(turns)  # turns of several moves: once a turn is not once a move
    calls = []
    features = leaf_value.turn_features
    monkeypatch.setattr(leaf_value, "turn_features", lambda *a: calls.append(a[2]) or features(*a))
    config = SimpleNamespace(depth=None, chance_sampler=sample_chance)
    LearnedRollout(net, 0.3)(state, np.random.default_rng(11), config)
    assert len(calls) == len(turns)
    assert state.is_terminal() and list(state.returns()) == list(by_hand.returns()) and state.turn == by_hand.turn
    for p in range(state.num_players):
        assert np.array_equal(state.observation(p), by_hand.observation(p))


def test_a_rollout_stops_where_its_depth_ends():
    state = POSITIONS["start"]()
    turn = state.turn
    LearnedRollout(headed(state.info), 1.0)(state, np.random.default_rng(0),
                                            SimpleNamespace(depth=2, chance_sampler=sample_chance))
    assert state.turn == turn + 2 and not state.is_terminal()


def test_the_learned_parts_change_the_search(compiled_runs):
    state = POSITIONS["mid"]()
    net = headed(state.info, 1)
    plain = summary(state, "ismcts", 200, 0, True, rows=PRIOR + 1)
    for config in (dict(selection=PUCT(1.0), prior=LeafPolicy(net, 1.0)), dict(rollout=LearnedRollout(net, 1.0))):
        learned = summary(state, "ismcts", 200, 0, True, rows=PRIOR + 1, **config)
        assert learned["tree"]["stat"] != plain["tree"]["stat"]


def test_different_networks_run_in_python():
    from cardboard.search.compiled import refusal
    from cardboard.search.mcts import SearchConfig
    from cardboard.search.worlds import Fresh

    state = POSITIONS["mid"]()
    one, other = headed(state.info, 1), headed(state.info, 2)
    config = SearchConfig(leaf_value=LeafValue(one, 0.5), rollout=LearnedRollout(other, 1.0))
    assert refusal(config, Fresh(), state) == "learned value, prior and rollout from different networks"
    assert refusal(SearchConfig(leaf_value=LeafValue(one, 0.5), rollout=LearnedRollout(one, 1.0)), Fresh(),
                   state) is None


def test_a_net_without_a_head_is_refused():
    with pytest.raises(InvalidParameterError, match="policy head"):
        LeafPolicy(tiny_net(), 1.0)
    with pytest.raises(InvalidParameterError, match="temperature must be > 0"):
        LearnedRollout(headed(cardboard.make_game("lords_of_war").info), 0.0)


def test_the_file_keeps_the_head_and_names_a_half_one(tmp_path):
    info = cardboard.make_game("lords_of_war").info
    net = headed(info)
    path = value_net.save(net, info, tmp_path / "p.safetensors")
    loaded = value_net.load(path, info)
    assert loaded.has_policy and all(np.array_equal(a, b) for a, b in zip(loaded, net))
    from cardboard.policies import checkpoints

    metadata, tensors = checkpoints.read(path, leaf_value.FORMAT, "leaf value net", "numpy")
    del tensors["bp"]
    checkpoints.write_numpy(tensors, metadata, tmp_path / "half.safetensors")
    with pytest.raises(CheckpointError, match="half.safetensors: a policy head needs both"):
        value_net.load(tmp_path / "half.safetensors", info)
    with pytest.raises(InvalidParameterError, match=r"wp has shape \(8, 5\), not \(8, 338\)"):
        value_net.save(net._replace(wp=net.wp[:, :5]), info, tmp_path / "bad.safetensors")


@pytest.mark.parametrize("spec,message", [
    ("ismcts:vprior=1", r"vprior=1(\.0)? needs vnet=PATH"),
    ("ismcts:vroll=0.5", r"vroll=0.5 needs vnet=PATH"),
    ("ismcts:vnet=P,vprior=1,prune=h4", "cannot be combined with prune=h4"),
    ("ismcts:vnet=P,vprior=1,net=N,root=1", "cannot be combined with net=N"),
    ("ismcts:cpuct=2", "needs net=PATH or vprior=T"),
    ("ismcts:vnet=P,vroll=-1", "a softmax temperature > 0"),
    ("ismcts:vnet=V,vprior=1", "policy head"),
])
def test_knobs_refused(spec, message, tmp_path):
    game = cardboard.make_game("lords_of_war")
    value_net.save(headed(game.info), game.info, tmp_path / "P")
    value_net.save(LeafNet(*headed(game.info).value_layers), game.info, tmp_path / "V")
    with pytest.raises(InvalidParameterError, match=message):
        cardboard.make_agent(spec.replace("=P", f"={tmp_path / 'P'}").replace("=V", f"={tmp_path / 'V'}"), game)


@pytest.mark.parametrize("spec", ["ismcts:iterations=60,mix=0,vprior=1,cpuct=2", "uct:iterations=60,vroll=0.5",
                                  "duct:worlds=3,iterations=60,vprior=0.5,vroll=1,mix=0.5"])
def test_agents_run_compiled_with_them(spec, tmp_path):
    game = cardboard.make_game("lords_of_war")
    value_net.save(headed(game.info), game.info, tmp_path / "p.safetensors")
    agent = cardboard.make_agent(f"{spec},vnet={tmp_path / 'p.safetensors'}", game)
    state = game.new_state(1)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    assert agent.last.driver == "compiled"
    config = agent.searcher.config if hasattr(agent, "searcher") else None
    if config is not None and "vprior" in spec:
        assert type(config.selection) is PUCT and config.selection.c_puct == (2.0 if "cpuct" in spec else 1.25)


def test_train_value_fits_a_policy_head_search_reads(tmp_path, capsys):
    from cardboard.cli import main
    from cardboard.training.selfplay import generate

    generate("lords_of_war", ["ismcts:iterations=8"], 3, 1, tmp_path / "data")
    out = tmp_path / "net"
    assert main(["train-value", "lords_of_war", "--data", str(tmp_path / "data"), "--out", str(out), "--epochs", "2",
                 "--hidden", "16", "4", "--policy-weight", "1", "--quiet"]) == 0
    game = cardboard.make_game("lords_of_war")
    net = value_net.load(out / "value_net.safetensors", game.info)
    assert net.wp.shape == (4, game.info.num_actions)
    import json

    epochs = json.loads((out / "log.json").read_text())["epochs"]
    assert all(e["train_policy_loss"] > 0 for e in epochs)
    agent = cardboard.make_agent(f"ismcts:iterations=20,vnet={out / 'value_net.safetensors'},vprior=1,vroll=1", game)
    assert agent.act(game.new_state(0), np.random.default_rng(0)) in game.new_state(0).legal_actions()
    assert main(["train-value", "lords_of_war", "--data", str(tmp_path / "data"), "--policy-weight", "-1",
                 "--out", str(tmp_path / "no"), "--quiet"]) != 0
    assert "--policy-weight must be >= 0, got -1.0" in capsys.readouterr().out
    assert not (tmp_path / "no").exists()

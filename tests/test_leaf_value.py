"""The learned leaf value (``search.leaf_value``, issue 49): the compiled network against hand-computed numbers and
torch, the Python and compiled loops building the same trees with it, its targets, its files and its knobs."""
import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.policies import value_net
from cardboard.search.config import SearchConfig
from cardboard.search.leaf_value import LeafNet, LeafValue, leaf_values, seat_values
from cardboard.search.strategies import PUCT
from cardboard.training.value_net import network, td_targets, mc_targets
from tests.compiled_paths import assert_same
from tests.test_compiled_hearth import POSITIONS as HEARTH
from tests.test_compiled_search import POSITIONS, random_moves


def tiny_net():
    """Observation 3, hidden 2 x 2, two players."""
    return LeafNet(np.array([[1.0, -1.0], [0.5, 2.0], [9.0, 9.0]], np.float32), np.array([0.1, 0.2], np.float32),
                   np.array([[1.0, 0.0], [-0.5, 3.0]], np.float32), np.array([0.0, -0.1], np.float32),
                   np.array([[2.0, -1.0], [1.0, 1.0]], np.float32), np.array([0.0, 0.5], np.float32))


def test_the_network_by_hand():
    # x = (0.4, 0.2, 0): hidden1 = b1 + 0.4 (1, -1) + 0.2 (0.5, 2) = (0.6, 0.2), the zero entry adding nothing;
    # hidden2 = b2 + 0.6 (1, 0) + 0.2 (-0.5, 3) = (0.5, 0.5); logits = b3 + 0.5 (2, -1) + 0.5 (1, 1) = (1.5, 0.5)
    out = np.empty(2)
    leaf_values(*tiny_net().value_layers, np.array([0.4, 0.2, 0.0], np.float32), np.empty(2, np.float32),
                np.empty(2, np.float32), out)
    assert out == pytest.approx([1 / (1 + np.exp(-1.5)), 1 / (1 + np.exp(-0.5))], abs=1e-6)
    # x = (2, 0, 0): hidden1 = (2.1, -1.8) -> (1, 0): the clip at 1; hidden2 = (1, -0.1) -> (1, 0); logits (2, -0.5)
    leaf_values(*tiny_net().value_layers, np.array([2.0, 0.0, 0.0], np.float32), np.empty(2, np.float32),
                np.empty(2, np.float32), out)
    assert out == pytest.approx([1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(0.5))], abs=1e-6)


def test_values_by_seat_from_the_observer():
    values = np.empty(3)
    seat_values(np.array([0.9, 0.2, 0.4]), 2, values)
    assert values.tolist() == [0.2, 0.4, 0.9]


def random_net(info, seed=0, hidden=(24, 8)):
    rng = np.random.default_rng(seed)
    size = int(np.prod(info.observation_shape))
    shapes = ((size, hidden[0]), (hidden[0],), hidden, (hidden[1],), (hidden[1], info.num_players), (info.num_players,))
    return LeafNet(*(rng.normal(0, 0.4, shape).astype(np.float32) for shape in shapes))


@pytest.mark.parametrize("config", [{"mix": 1.0}, {"mix": 0.5}, {"mix": 0.25, "depth": 2}, {"mix": 0.0}],
                         ids=["network", "half", "half-depth-2", "rollouts"])
@pytest.mark.parametrize("worlds", ["ismcts", "uct"])
@pytest.mark.parametrize("position", ["start", "mid", "end"])
def test_the_compiled_loop_values_leaves_as_python_does(position, worlds, config, compiled_runs):
    state = POSITIONS[position]()
    config = dict(config)
    learned = LeafValue(random_net(state.info), config.pop("mix"))
    for seed in (0, 5):
        assert_same(state, worlds, 300, seed, compiled_runs, leaf_value=learned, **config)


def test_duct_and_hearth_chance_nodes(compiled_runs):
    """DUCT's fixed worlds; Hearth's chance nodes in the tree (a leaf there is observed by the searching player)."""
    assert_same(POSITIONS["mid"](), "duct", 200, 1, compiled_runs, num_worlds=4, leaf_value=LeafValue(
        random_net(POSITIONS["mid"]().info), 0.5))
    for name in ("voidcaller", "face_hunter"):
        state = HEARTH[name]()
        learned = LeafValue(random_net(state.info, 3), 0.7)
        assert_same(state, "duct", 300, 2, compiled_runs, num_worlds=5, depth=5, leaf_value=learned)


def test_a_network_changes_the_search():
    """Not a no-op: the tree's totals differ from a plain search's at the same seed, and at mix 1 no rollout
    draws anything (the generator moves less)."""
    from tests.compiled_paths import summary

    state = POSITIONS["mid"]()
    plain = summary(state, "uct", 300, 0, True)
    learned = summary(state, "uct", 300, 0, True, leaf_value=LeafValue(random_net(state.info), 1.0))
    assert learned["tree"]["stat"] != plain["tree"]["stat"]
    assert learned["rng"] != plain["rng"]


@pytest.mark.parametrize("game,options", [("lords_of_war", {}), ("hearth", {"decks": "handlock"}),
                                          ("pandemic", {"players": 3})])
def test_the_compiled_network_is_torch_s(game, options):
    torch = pytest.importorskip("torch")
    state, rng = cardboard.new_state(game, seed=2, **options), np.random.default_rng(2)
    module = network(int(np.prod(state.info.observation_shape)), (32, 8), state.info.num_players)
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0, 0.3)
    net = module.leaf_net()
    for _ in range(12):
        for _ in range(5):
            if state.is_terminal():
                break
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
            else:
                random_moves(state, rng, 1)
        if state.is_terminal() or state.current_player == CHANCE:
            continue
        observation = np.asarray(state.observation(state.current_player), np.float32).ravel()
        out = np.empty(state.info.num_players)
        leaf_values(*net.value_layers, observation, np.empty_like(net.b1), np.empty_like(net.b2), out)
        with torch.no_grad():
            expected = module(torch.as_tensor(observation)[None])[0].numpy()
        assert out == pytest.approx(expected, abs=1e-5)


def test_targets_by_hand():
    info = cardboard.make_game("lords_of_war").info  # returns in [-1, 1]
    returns = np.array([[1.0, -1.0]] * 3 + [[-1.0, 1.0]] * 2)
    seat = np.array([0, 1, 0, 1, 0])
    game = np.array([4, 4, 4, 9, 9])
    root = np.array([0.0, np.nan, 0.5, -1.0, 1.0])
    mc = mc_targets(returns, seat, root, 0.5, info)
    # game 4 seat 0 won: unit 1; root 0.0 -> 0.5: 0.75; seat 1's row has no root value: its own 0 stays
    assert mc.tolist() == [[0.75, 0.0], [0.0, 1.0], [0.875, 0.0], [0.5, 0.0], [0.5, 1.0]]
    predicted = np.array([[0.5, 0.5], [0.2, 0.9], [0.6, 0.3], [0.1, 0.8], [0.7, 0.4]])  # from each observer
    td = td_targets(predicted, returns, seat, game, 0.5, info)
    # by seat: row 2 (last of game 4) gets the outcome (1, 0); row 1's next is row 2, V = (0.6, 0.3) by seat:
    # 0.5 (0.6, 0.3) + 0.5 (1, 0) = (0.8, 0.15); row 0: row 1's V by seat is (0.9, 0.2): 0.5 (0.9, 0.2) +
    # 0.5 (0.8, 0.15) = (0.85, 0.175); rows as seen by their observers (row 1: seat 1 first)
    assert td[:3] == pytest.approx(np.array([[0.85, 0.175], [0.15, 0.8], [1.0, 0.0]]))
    # game 9: row 4 the outcome (0, 1) from seat 0; row 3 (seat 1): 0.5 V(row 4) by seat (0.7, 0.4) + 0.5 (0, 1)
    assert td[3:] == pytest.approx(np.array([[0.7, 0.35], [0.0, 1.0]]))


def test_the_file_round_trips_and_bad_files_are_named(tmp_path):
    info = cardboard.make_game("lords_of_war").info
    net = random_net(info)
    path = value_net.save(net, info, tmp_path / "v.safetensors")
    loaded = value_net.load(path, info)
    assert all(np.array_equal(a, b) for a, b in zip(loaded, net))
    with pytest.raises(CheckpointError, match="not of 'hearth'"):
        value_net.load(path, cardboard.make_game("hearth").info)
    (tmp_path / "junk.safetensors").write_bytes(np.random.default_rng(0).bytes(300))
    with pytest.raises(CheckpointError, match="junk.safetensors"):
        value_net.load(tmp_path / "junk.safetensors", info)
    (tmp_path / "cut.safetensors").write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CheckpointError, match="cut.safetensors"):
        value_net.load(tmp_path / "cut.safetensors", info)
    with pytest.raises(InvalidParameterError, match=r"b2 has shape \(8,\), not \(3,\)"):
        value_net.save(net._replace(w2=net.w2[:, :3]), info, tmp_path / "bad.safetensors")
    assert not (tmp_path / "bad.safetensors").exists()


@pytest.mark.parametrize("spec,message", [
    ("ismcts:mix=0.5", "mix=0.5 needs vnet=PATH"),
    ("ismcts:vnet=V,net=N", "takes the network's prior at the root only"),
    ("ismcts:vnet=V,gumbel=1", "cannot be combined with gumbel=1"),
    ("uct:vnet=V,parallel=tree", "cannot be combined with parallel=tree"),
    ("ismcts:vnet=V,mix=1.5", "mix must be in"),
])
def test_knobs_refused(spec, message, tmp_path):
    game = cardboard.make_game("lords_of_war")
    value_net.save(random_net(game.info), game.info, tmp_path / "V")
    with pytest.raises(InvalidParameterError, match=message):
        cardboard.make_agent(spec.replace("=V", f"={tmp_path / 'V'}"), game)


def test_the_agent_runs_compiled_with_it(tmp_path):
    game = cardboard.make_game("lords_of_war")
    value_net.save(random_net(game.info), game.info, tmp_path / "v.safetensors")
    agent = cardboard.make_agent(f"ismcts:iterations=50,vnet={tmp_path / 'v.safetensors'},mix=0.5", game)
    assert "compiled" in agent.explain()
    state = game.new_state(1)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    assert agent.last.driver.startswith("compiled")


def test_not_with_puct_at_depth_0():
    """PUCT at depth 0 values its leaves by the evaluator: a leaf value there would be ignored, so it is refused;
    with rollouts (learned priors, ``vprior``) it values the leaves it rolls out."""
    with pytest.raises(InvalidParameterError, match="PUCT search with rollouts"):
        SearchConfig(selection=PUCT(), depth=0, leaf_value=LeafValue(tiny_net()))
    assert SearchConfig(selection=PUCT(), leaf_value=LeafValue(tiny_net())).leaf_value is not None


def test_train_value_writes_a_net_search_reads(tmp_path):
    from cardboard.cli import main
    from cardboard.envs.errors import DataError
    from cardboard.training import value_net as learner
    from cardboard.training.selfplay import generate

    generate("lords_of_war", ["ismcts:iterations=4"], 3, 1, tmp_path / "data")
    out = tmp_path / "net"
    assert main(["train-value", "lords_of_war", "--data", str(tmp_path / "data"), "--out", str(out), "--epochs", "2",
                 "--hidden", "16", "4", "--target", "td", "--quiet"]) == 0
    assert {p.name for p in out.iterdir()} == {"value_net.safetensors", "log.json", "curve.png"}
    game = cardboard.make_game("lords_of_war")
    net = value_net.load(out / "value_net.safetensors", game.info)
    assert net.w1.shape == (1066, 16) and net.w3.shape == (4, 2)
    agent = cardboard.make_agent(f"uct:iterations=20,vnet={out / 'value_net.safetensors'}", game)
    assert agent.act(game.new_state(0), np.random.default_rng(0)) in game.new_state(0).legal_actions()
    args = learner.Args("hearth", [str(tmp_path / "data")], out=str(tmp_path / "wrong"), quiet=True)
    with pytest.raises(DataError, match="not 'hearth'"):
        learner.train(args, None)
    assert not (tmp_path / "wrong").exists()

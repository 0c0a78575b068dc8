"""Issue 33: checkpoints as safetensors (bad files are typed errors at every agent that loads one, nothing written
on failure, round trips) and the model zoo (listing, loading by name, its agents, typed errors naming what exists),
the zoo tested on tiny models written into a temporary models folder."""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import cardboard
from cardboard.cli import _agents, main
from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.protocol import sample_chance
from cardboard.envs.hearth import features as hf
from cardboard.policies import checkpoints, zoo
from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayCNNMerge, CardPlayDNNMerge, CardPlayNet, make_card_play_net
from cardboard.policies.network import PolicyValueNet, save_checkpoint

LOW = "lords_of_war"
PV_SPECS = ("net:path={}", "ismcts:iterations=4,net={}", "duct:iterations=4,net={}")  # on Lords of War
CARD_SPEC = "cardplay:path={}"  # on Hearth


@pytest.fixture(scope="module")
def low():
    return cardboard.make_game(LOW)


@pytest.fixture(scope="module")
def hearth():
    return cardboard.make_game("hearth", decks="handlock")


@pytest.fixture
def bad_files(tmp_path, low, hearth):
    """name -> path of every kind of file that is not a loadable checkpoint for the agent at hand: missing,
    empty, random, truncated, an old torch.save one, safetensors without cardboard's metadata, and cardboard's
    checkpoint of the other kind (``foreign_pv`` for the card-play agent, ``foreign_card`` for the others)."""
    pv, card = tmp_path / "pv.safetensors", tmp_path / "card.safetensors"
    PolicyValueNet(low.info, hidden=(8,)).save(pv)
    make_card_play_net("dnn_140k", hf.features_for(hearth).K).save(card)
    files = {name: tmp_path / f"{name}.safetensors" for name in
             ("missing", "empty", "random", "cut_pv", "cut_card", "torch_save", "plain", "bad_json")}
    files["empty"].write_bytes(b"")
    files["random"].write_bytes(np.random.default_rng(0).bytes(4096))
    files["cut_pv"].write_bytes(pv.read_bytes()[: pv.stat().st_size // 2])
    files["cut_card"].write_bytes(card.read_bytes()[: card.stat().st_size // 2])
    torch.save({"metadata": "{}", "state_dict": {"w": torch.zeros(3)}}, files["torch_save"])
    save_file({"w": torch.zeros(3)}, files["plain"])
    save_file({"w": torch.zeros(3)}, files["bad_json"], metadata={checkpoints.METADATA_KEY: "{not json"})
    return files | {"foreign_pv": pv, "foreign_card": card}


WHY = {"missing": "no such file", "empty": "an empty file", "random": "not a safetensors file",
       "torch_save": "torch.save", "plain": "without cardboard's metadata", "bad_json": "not JSON"}


def _refused(spec: str, path, game, why: str) -> None:
    before = sorted(path.parent.iterdir())
    with pytest.raises(CheckpointError, match=path.name) as err:
        cardboard.make_agent(spec.format(path), game)
    assert why in str(err.value)
    assert sorted(path.parent.iterdir()) == before  # nothing written


@pytest.mark.parametrize("spec", PV_SPECS)
def test_bad_files_given_to_a_policy_value_agent_are_checkpoint_errors(spec, bad_files, low):
    for name, path in bad_files.items():
        if name != "foreign_pv":
            _refused(spec, path, low, WHY.get(name, "cardboard.card_play_net/1" if name == "foreign_card" else ""))


def test_bad_files_given_to_the_card_play_agent_are_checkpoint_errors(bad_files, hearth):
    for name, path in bad_files.items():
        if name != "foreign_card":
            _refused(CARD_SPEC, path, hearth, WHY.get(name, "cardboard.policy_value_net/1" if name == "foreign_pv"
                                                       else ""))


def test_an_old_torch_save_checkpoint_is_named(bad_files):
    with pytest.raises(CheckpointError, match="torch.save .* no longer read"):
        PolicyValueNet.load(bad_files["torch_save"])
    with pytest.raises(CheckpointError, match="empty file"):
        CardPlayNet.load(bad_files["empty"])


def test_a_failed_save_leaves_the_old_file_whole_and_nothing_else(tmp_path, low, monkeypatch):
    path = tmp_path / "net.safetensors"
    net = PolicyValueNet(low.info, hidden=(8,))
    net.save(path)
    data = path.read_bytes()
    with pytest.raises(TypeError):
        save_checkpoint(net, {"format": "x", "bad": object()}, path)

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(checkpoints.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        PolicyValueNet(low.info, hidden=(4,)).save(path)
    assert path.read_bytes() == data and [p.name for p in tmp_path.iterdir()] == [path.name]


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> None:
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_policy_value_net_round_trip_is_safetensors(tmp_path, low):
    torch.manual_seed(1)
    net = PolicyValueNet(low.info, hidden=(16, 8), options={"armies": ["orcs", "dwarves"]})
    net.save(tmp_path / "net.safetensors")
    metadata, tensors = checkpoints.read(tmp_path / "net.safetensors", None, "any", framework="numpy")
    assert metadata["game"] == LOW and set(tensors) == set(net.state_dict())
    loaded = PolicyValueNet.load(tmp_path / "net.safetensors", low.info)
    _same_weights(net, loaded)
    assert loaded.hidden == (16, 8) and loaded.options == {"armies": ["orcs", "dwarves"]} and not loaded.training


@pytest.mark.parametrize("kind", [CardPlayCNNMerge, CardPlayDNNMerge])
def test_card_play_net_round_trip(kind, tmp_path, hearth):
    torch.manual_seed(2)
    k = hf.features_for(hearth).K
    net = kind(k)
    net.save(tmp_path / "card.safetensors", training={"games": 3})
    loaded = kind.load(tmp_path / "card.safetensors", num_cards=k)
    _same_weights(net, loaded)
    assert CardPlayNet.metadata(tmp_path / "card.safetensors")["training"] == {"games": 3}


# -- the zoo ----------------------------------------------------------------------------------------------------
@pytest.fixture
def models(tmp_path, monkeypatch):
    """An empty models folder standing in for the package's."""
    folder = tmp_path / "models"
    monkeypatch.setattr(zoo, "MODELS_DIR", folder)
    return folder


def _ship(game, name: str, tmp_path, agent: str | None = None, seed: int = 0) -> zoo.ZooModel:
    torch.manual_seed(seed)
    source = tmp_path / f"source-{name}.safetensors"
    PolicyValueNet(game.info, hidden=(8,)).save(source)
    card = zoo.model_card(name, command=f"cardboard expert-iteration {game.info.name} --smoke", data="4 games",
                          cpu_hours=0.01, strength=[zoo.Strength("random", 0.625, 0.3, 0.9, 8, "equal time")],
                          agent=agent)
    return zoo.ship(source, name, card, agent=agent)


def test_an_empty_zoo_lists_nothing_and_says_so(models, low, capsys):
    assert zoo.models() == []
    with pytest.raises(InvalidParameterError, match="no zoo model of game 'lords_of_war'; shipped: none yet"):
        zoo.find(LOW)
    with pytest.raises(InvalidParameterError, match="none yet"):
        cardboard.make_agent("zoo", low)
    assert main(["agents"]) == 0
    assert "zoo: no models shipped yet" in capsys.readouterr().out


def test_shipped_models_are_listed_found_and_loaded(models, low, hearth, tmp_path, capsys):
    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8")
    _ship(low, "lords_of_war-v2", tmp_path, seed=1)
    _ship(hearth, "hearth-v1", tmp_path, agent="net:mode=sample")
    listed = zoo.models()
    assert [(m.name, m.game, m.version) for m in listed] == [
        ("hearth-v1", "hearth", 1), ("lords_of_war-v1", LOW, 1), ("lords_of_war-v2", LOW, 2)]
    assert {m.name: m.spec for m in listed} == {
        "hearth-v1": "net:mode=sample,model=hearth-v1",
        "lords_of_war-v1": "ismcts:iterations=8,net=zoo:lords_of_war-v1",
        "lords_of_war-v2": "net:model=lords_of_war-v2"}  # no agent: the raw policy
    card = listed[1].card
    assert card.startswith("# lords_of_war-v1") and "`cardboard expert-iteration lords_of_war --smoke`" in card
    assert "| random | equal time | 8 | 62.5% | 30.0–90.0% |" in card and "0.01 CPU-hours" in card
    assert zoo.find(LOW).name == "lords_of_war-v2" and zoo.find("lords_of_war-v1", LOW).version == 1
    net = zoo.load("lords_of_war-v1", low.info)
    _same_weights(net, PolicyValueNet.load(listed[1].path))
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "zoo models" in out and "lords_of_war-v1  game lords_of_war\n" in out and "iterations=" not in out
    assert main(["agents", "-v"]) == 0
    assert "lords_of_war-v1  game lords_of_war  plays ismcts:iterations=8,net=zoo:lords_of_war-v1  card " \
        f"{listed[1].card_path}\n" in capsys.readouterr().out


def test_zoo_agents_play_legal_moves(models, low, tmp_path):
    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8")
    state = low.new_state(3)
    for spec in ("zoo", "zoo:lords_of_war", "zoo:lords_of_war-v1", "net:model=lords_of_war-v1",
                 "net:path=zoo:lords_of_war", "ismcts:iterations=8,net=zoo:lords_of_war-v1",
                 "duct:iterations=8,net=zoo:lords_of_war"):
        agent = cardboard.make_agent(spec, low)
        assert agent.name == spec and agent.act(state, np.random.default_rng(0)) in state.legal_actions(), spec
    assert main(["play", LOW, "--agents", "zoo:lords_of_war,random", "--games", "2", "--quiet"]) == 0


def test_agent_spec_overrides_the_configured_knobs():
    configured = "ismcts:root=1,cpuct=2,prune=h4,hpl=20,iterations=0,seconds=0.01"  # lords_of_war-v2's
    assert zoo.agent_spec("lords_of_war-v2", configured, {"seconds": "0.05"}) == (
        "ismcts:root=1,cpuct=2,prune=h4,hpl=20,iterations=0,seconds=0.05,net=zoo:lords_of_war-v2")  # replaced
    assert zoo.agent_spec("lords_of_war-v2", configured, {"depth": "3", "cpuct": "1"}) == (
        "ismcts:root=1,cpuct=1,prune=h4,hpl=20,iterations=0,seconds=0.01,depth=3,net=zoo:lords_of_war-v2")  # appended
    assert zoo.agent_spec("pandemic-v1", None, {"mode": "sample"}) == "net:mode=sample,model=pandemic-v1"  # raw policy
    assert zoo.agent_spec("hearth-v1", "duct", {}) == "duct:net=zoo:hearth-v1"
    for knob in zoo.NETWORK_KNOBS:
        with pytest.raises(InvalidParameterError, match=f"zoo:lords_of_war-v2: {knob}= cannot be overridden"):
            zoo.agent_spec("lords_of_war-v2", configured, {"seconds": "0.05", knob: "x.safetensors"})


def test_a_zoo_agent_takes_overrides_of_its_knobs(models, low, tmp_path, capsys):
    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8,c=0.5")
    state = low.new_state(3)
    for spec, iterations, seconds, c in (("zoo:lords_of_war", 8, None, 0.5),
                                         ("zoo:lords_of_war,seconds=0.05", 8, 0.05, 0.5),  # appended
                                         ("zoo:model=lords_of_war-v1,iterations=4,c=0.9", 4, None, 0.9),  # replaced
                                         ("zoo:iterations=2", 2, None, 0.5)):  # the model of the game played
        agent = cardboard.make_agent(spec, low)
        config = agent.searcher.config
        assert (agent.name, config.iterations, config.seconds, config.c) == (spec, iterations, seconds, c)
        assert type(config.evaluator).__name__ == "NetworkEvaluator"  # still guided by the model
        assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    assert main(["play", LOW, "--agents", "zoo:lords_of_war,iterations=4,random", "--games", "2"]) == 0
    assert "zoo:lords_of_war,iterations=4 vs random" in capsys.readouterr().out


def test_the_shipped_agent_at_another_time_control(low):
    """The package's lords_of_war model (``ismcts:iterations=0,seconds=0.01,mix=0.5,vprior=0.5,cpuct=0.7``) at 50 ms
    a move, as ``cardboard play --agents`` builds it: its other knobs kept."""
    shipped, opponent = _agents("zoo:lords_of_war,seconds=0.05,random", low)
    config = shipped.searcher.config
    assert (shipped.name, opponent.name) == ("zoo:lords_of_war,seconds=0.05", "random")
    assert (config.seconds, config.iterations, config.leaf_value.mix, config.selection.c_puct,
            config.prior.temperature, config.pruning) == (0.05, None, 0.5, 0.7, 0.5, None)


def test_zoo_overrides_of_the_network_or_unknown_knobs_are_refused(models, low, tmp_path):
    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8")
    _ship(low, "lords_of_war-v2", tmp_path, seed=1)  # no agent: the raw policy, net:model=lords_of_war-v2
    for spec, message in (("zoo:lords_of_war-v1,net=x.safetensors", "net= cannot be overridden"),
                          ("zoo:lords_of_war-v1,path=x.safetensors", "path= cannot be overridden"),
                          ("zoo:lords_of_war-v1,model=lords_of_war-v2", "model= given twice"),
                          ("zoo:lords_of_war-v1,iterations=many", "parameter 'iterations': 'many' is not a valid int"),
                          ("zoo:lords_of_war-v2,iterations=4", "unknown option of agent 'net' 'iterations'")):
        with pytest.raises(InvalidParameterError, match=re.escape(message)):
            cardboard.make_agent(spec, low)
    with pytest.raises(ValueError) as direct:  # what the agent's own factory says of the unknown knob ...
        cardboard.make_agent("ismcts:iterations=8,iterattions=4", low)
    with pytest.raises(InvalidParameterError) as through_zoo:  # ... is what the zoo agent says
        cardboard.make_agent("zoo:lords_of_war-v1,iterattions=4", low)
    assert "unknown option of agent 'ismcts' 'iterattions'" in str(direct.value)
    assert str(direct.value) in str(through_zoo.value) and "did you mean 'iterations'?" in str(through_zoo.value)
    assert cardboard.make_agent("zoo:lords_of_war-v2,mode=sample", low).mode == "sample"  # a net knob: taken


def test_unknown_and_wrong_game_models_name_what_exists(models, low, hearth, tmp_path):
    _ship(low, "lords_of_war-v1", tmp_path)
    _ship(hearth, "hearth-v1", tmp_path)
    cases = {"zoo:lords_of_war-v3": "no zoo model 'lords_of_war-v3'; shipped: hearth-v1, lords_of_war-v1",
             "zoo:chess": "zoo model 'chess' is for game 'chess', not 'lords_of_war'; lords_of_war's shipped "
                          "models: lords_of_war-v1",
             "zoo:hearth-v1": "is for game 'hearth', not 'lords_of_war'; lords_of_war's shipped models: "
                              "lords_of_war-v1",
             "net:model=hearth": "is for game 'hearth', not 'lords_of_war'",
             "ismcts:net=zoo:hearth-v1": "is for game 'hearth', not 'lords_of_war'",
             "net:model=lords_of_war-v1,path=x.safetensors": "give one network"}
    for spec, message in cases.items():
        with pytest.raises(InvalidParameterError, match=message):
            cardboard.make_agent(spec, low)
    with pytest.raises(InvalidParameterError, match="no zoo model of game 'pandemic'; shipped: hearth-v1, "):
        zoo.find("pandemic")
    with pytest.raises(InvalidParameterError, match="'lords_of_war' is for game 'lords_of_war', not 'hearth'"):
        cardboard.make_agent("zoo:lords_of_war", hearth)
    with pytest.raises(InvalidParameterError, match="zoo needs a model"):
        cardboard.make_agent("zoo")


def test_a_model_of_another_game_or_a_bad_file_in_the_zoo_is_a_checkpoint_error(models, low, hearth, tmp_path):
    _ship(hearth, "hearth-v1", tmp_path)
    (models / "hearth-v1.safetensors").rename(models / "lords_of_war-v1.safetensors")
    with pytest.raises(CheckpointError, match="lords_of_war-v1.safetensors: the network of game 'hearth' under a "
                                              "name of game 'lords_of_war'"):
        zoo.models()
    (models / "lords_of_war-v1.safetensors").rename(models / "lords_of_war.safetensors")
    with pytest.raises(CheckpointError, match="<game>-v<N>"):
        zoo.models()
    (models / "lords_of_war.safetensors").write_bytes(b"junk")
    (models / "lords_of_war.safetensors").rename(models / "lords_of_war-v1.safetensors")
    with pytest.raises(CheckpointError, match="lords_of_war-v1.safetensors"):
        cardboard.make_agent("zoo:lords_of_war", low)


def test_ship_refuses_a_wrong_name_game_or_agent(models, low, tmp_path):
    source = tmp_path / "net.safetensors"
    PolicyValueNet(low.info, hidden=(8,)).save(source)
    for name, agent, message in (("lords_of_war", None, "expected <game>-v<N>"),
                                 ("lords_of_war-v0", None, "expected <game>-v<N>"),
                                 ("hearth-v1", None, "a network of game 'lords_of_war', not of 'hearth'"),
                                 ("lords_of_war-v1", "ismcts:net=x", "names its network itself")):
        with pytest.raises(InvalidParameterError, match=message):
            zoo.ship(source, name, "# card\n", agent=agent)
    assert not models.exists() or not any(models.iterdir())
    shipped = zoo.ship(source, "lords_of_war-v1", "# card\n")
    assert shipped.agent is None and "agent" not in shipped.metadata and shipped.card == "# card\n"


def test_every_shipped_model_has_a_card_and_plays_its_game():
    """The package's own models: each has a card, and its agent plays a legal move."""
    for model in zoo.models():
        game = cardboard.make_game(model.game)
        assert model.card.startswith(f"# {model.name}"), f"{model.name}: no model card"
        state = game.new_state(0)
        agent = cardboard.make_agent(f"zoo:{model.name}", game)
        assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()


@pytest.mark.parametrize("game_name", ["lords_of_war", "hearth", "fifth_aeon", "pandemic"])
def test_every_game_ships_an_agent_that_plays_by_its_public_name(game_name):
    """The package's own model of each game (README: ``zoo:<game>``) plays a legal move through ``zoo:<game>``,
    with the agent its metadata name (Lords of War: a leaf net's prior and values; Hearth and Fifth Aeon:
    the network's prior at the root only; Pandemic: the raw network)."""
    game = cardboard.make_game(game_name)
    agent = cardboard.make_agent(f"zoo:{game_name}", game)
    state = game.new_state(5)
    rng = np.random.default_rng(0)
    while state.current_player < 0 or len(state.legal_actions()) < 2:  # a real decision
        state.apply(int(state.legal_actions()[0]) if state.current_player >= 0
                    else int(sample_chance(state, rng)))
    assert agent.act(state, rng) in state.legal_actions()
    if game_name == "pandemic":  # the raw network: no search
        assert not hasattr(agent, "searcher")
    elif game_name == "lords_of_war":  # a leaf net's value mixed with rollouts, its policy head PUCT's prior
        assert agent.searcher.config.leaf_value.mix == 0.5 and agent.searcher.config.prior.net.has_policy
    else:
        assert agent.searcher.config.root_prior is not None


def test_a_leaf_value_net_ships_and_plays_through_vnet(models, low, tmp_path):
    """A leaf value net (``policies.value_net``) in the zoo: its agent reads it as ``vnet=zoo:NAME`` and may name
    another shipped network (the root prior of ``net=zoo:OTHER``), never one by path or itself."""
    from cardboard.policies import value_net
    from tests.test_leaf_value import random_net

    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8")
    source = value_net.save(random_net(low.info), low.info, tmp_path / "v.safetensors")
    with pytest.raises(InvalidParameterError, match="only inside a search"):
        zoo.ship(source, "lords_of_war-v2", "# card\n")
    with pytest.raises(InvalidParameterError, match="by path"):
        zoo.ship(source, "lords_of_war-v2", "# card\n", agent="ismcts:net=N.safetensors,root=1")
    with pytest.raises(InvalidParameterError, match="leave out vnet"):
        zoo.ship(source, "lords_of_war-v2", "# card\n", agent="ismcts:vnet=zoo:lords_of_war-v1")
    card = zoo.model_card("lords_of_war-v2", command="cardboard train-value ...", data="2 games", cpu_hours=0.1,
                          strength=[], agent="ismcts:iterations=8,root=1,net=zoo:lords_of_war-v1", knob="vnet")
    assert "leaf value net" in card and "raw network" not in card
    shipped = zoo.ship(source, "lords_of_war-v2", card, agent="ismcts:iterations=8,root=1,net=zoo:lords_of_war-v1")
    assert shipped.knob == "vnet"
    assert shipped.spec == "ismcts:iterations=8,root=1,net=zoo:lords_of_war-v1,vnet=zoo:lords_of_war-v2"
    agent = cardboard.make_agent("zoo:lords_of_war,iterations=20", low)
    assert agent.searcher.config.leaf_value is not None and agent.searcher.config.root_prior is not None
    assert agent.searcher.config.iterations == 20
    state = low.new_state(2)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    with pytest.raises(InvalidParameterError, match="vnet= cannot be overridden"):
        cardboard.make_agent("zoo:lords_of_war,vnet=x", low)


def test_a_bare_game_name_picks_the_latest_model_of_the_knob_asking(models, low, tmp_path):
    """``net=zoo:GAME`` is the latest policy-value network even where a later leaf value net is shipped, and
    ``vnet=zoo:GAME`` the latest leaf value net; ``zoo:GAME`` plays the latest of either."""
    from cardboard.policies import value_net
    from tests.test_leaf_value import random_net

    _ship(low, "lords_of_war-v1", tmp_path, agent="ismcts:iterations=8")
    source = value_net.save(random_net(low.info), low.info, tmp_path / "v.safetensors")
    zoo.ship(source, "lords_of_war-v2", "# card\n", agent="uct:iterations=8")
    assert zoo.resolve("zoo:lords_of_war", LOW).endswith("lords_of_war-v1.safetensors")
    assert zoo.resolve("zoo:lords_of_war", LOW, knob="vnet").endswith("lords_of_war-v2.safetensors")
    assert cardboard.make_agent("zoo:lords_of_war", low).name == "zoo:lords_of_war"
    assert cardboard.make_agent("zoo:lords_of_war", low).searcher.config.leaf_value is not None
    assert cardboard.make_agent("ismcts:iterations=8,net=zoo:lords_of_war", low).searcher.config.leaf_value is None
    with pytest.raises(InvalidParameterError, match="read as vnet="):
        zoo.find("hearth", None, None, "vnet")

"""Network agents (issue 17, agents part): ``net:path=...`` and ``ismcts`` / ``duct`` with ``net=PATH``.

Tiny networks (hidden=(16,)) on Lords of War: legal games to the end, identical records for 1 and 2 workers, the
network fed only the acting player's observation, PUCT priors from the network, one network call per iteration
and no rollout with value=1, typed refusals, and no torch behind ``import cardboard; cardboard.agents()``."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.structure import structure_of
from cardboard.evaluation.match import play_match_specs
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.net_agent import NetworkEvaluator, untrained_evaluator
from cardboard.policies.network import PolicyValueNet
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.strategies import PUCT

from .trees import nodes_of

torch.set_num_threads(1)
GAME = "lords_of_war"


@pytest.fixture(scope="module")
def game():
    return cardboard.make_game(GAME)


@pytest.fixture(scope="module")
def untrained(game, tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("net") / "untrained.pt"
    PolicyValueNet(game.info, hidden=(16,)).save(path)
    return str(path)


@pytest.fixture(scope="module")
def fitted(game, tmp_path_factory):
    """A net fitted for a few steps to random play: the moves taken and the final returns."""
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    obs, masks, actions, values = [], [], [], []
    for g in range(3):
        state, seen = game.new_state(seed=g), []
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            a = int(legal[rng.integers(len(legal))])
            obs.append(state.observation(state.current_player))
            masks.append(state.action_mask())
            actions.append(a)
            seen.append(state.current_player)
            state.apply(a)
        values += [state.returns()] * len(seen)
    net = PolicyValueNet(game.info, hidden=(16,))
    x, a, v = (torch.tensor(np.stack(obs), dtype=torch.float32), torch.tensor(actions),
               torch.tensor(np.stack(values), dtype=torch.float32))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(30):
        logits, value = net(x)
        loss = torch.nn.functional.cross_entropy(logits, a) + ((value - v) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    path = tmp_path_factory.mktemp("net") / "fitted.pt"
    net.save(path)
    return str(path)


def decision_state(game, seed: int = 3, moves: int = 6):
    rng = np.random.default_rng(seed)
    state = game.new_state(seed=seed)
    while moves > 0 or state.current_player == CHANCE or len(state.legal_actions()) <= 2:
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
        moves -= 1
    assert state.current_player >= 0 and len(state.legal_actions()) > 2
    return state


def test_net_agents_play_legal_games_to_the_end_alike_for_one_and_two_workers(untrained, fitted):
    specs = [f"net:path={fitted},mode=sample", f"ismcts:net={untrained},iterations=6",
             f"duct:net={fitted},iterations=6,worlds=2,prior=0",
             f"ismcts:net={fitted},iterations=4,prior=0,value=0,netrollout=1,depth=2"]
    for pair in ([specs[0], specs[1]], [specs[2], f"net:path={untrained}"], [specs[3], "random"]):
        one = play_match_specs(GAME, pair, 2, 5, workers=1)
        two = play_match_specs(GAME, pair, 2, 5, workers=2)
        assert [replace(r, seconds=()) for r in one] == [replace(r, seconds=()) for r in two]
        assert all(r.turns > 0 and sum(r.decisions) > 0 and sum(r.returns) == 0 for r in one)


def test_the_agents_move_legally(game, fitted):
    agents = [cardboard.make_agent(f"net:path={fitted},mode=greedy", game),
              cardboard.make_agent(f"ismcts:net={fitted},iterations=5", game)]
    rng = np.random.default_rng(0)
    state = game.new_state(seed=11)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        action = agents[state.current_player].act(state, rng)
        assert state.action_mask()[action]
        state.apply(action)


class SpyNet(PolicyValueNet):
    """Records every observation batch it is given."""

    def __init__(self, info):
        super().__init__(info, hidden=(16,))
        self.inputs: list[np.ndarray] = []

    def forward(self, observations):
        self.inputs.extend(observations.cpu().numpy().copy())
        return super().forward(observations)


@pytest.mark.parametrize("worlds,num_worlds", [("ismcts", 1), ("duct", 3)])
def test_the_network_sees_only_the_acting_players_observation(game, worlds, num_worlds):
    net = SpyNet(game.info)
    inner = NetworkEvaluator(BatchedEvaluator(net))
    expected, perfect = [], []

    def evaluator(state):
        player = state.current_player
        expected.append(state.observation(player))
        perfect.append(state.observation(player, True))
        return inner(state)

    state = decision_state(game)
    config = SearchConfig(iterations=30, depth=0, evaluator=evaluator, selection=PUCT())
    TreeSearch(config, worlds, num_worlds).search(state, np.random.default_rng(0))
    assert len(net.inputs) == len(expected) > 0
    for seen, own in zip(net.inputs, expected):
        np.testing.assert_array_equal(seen, own.astype(np.float32))
    # the root's expansion sees the real player's own view, never the hidden cards of the world it was dealt
    np.testing.assert_array_equal(net.inputs[0], state.observation(state.current_player).astype(np.float32))
    assert any(not np.array_equal(s, p) for s, p in zip(net.inputs, perfect))


def test_the_raw_agent_sees_the_players_observation(game, untrained, monkeypatch):
    agent = cardboard.make_agent(f"net:path={untrained}", game)
    seen = []
    evaluate = agent.evaluator.evaluate
    monkeypatch.setattr(agent.evaluator, "evaluate", lambda o, m: (seen.append(o.copy()), evaluate(o, m))[1])
    state = decision_state(game)
    agent.act(state, np.random.default_rng(0))
    np.testing.assert_array_equal(seen[0][0], state.observation(state.current_player))


def test_prior_fills_puct_priors_from_the_network(game, tmp_path):
    state = decision_state(game)
    legal = state.legal_actions()
    favourite = int(legal[len(legal) // 2])
    net = PolicyValueNet(game.info, hidden=(16,))
    with torch.no_grad():
        net.policy_head.weight.zero_()
        net.policy_head.bias.fill_(-30.0)
        net.policy_head.bias[favourite] = 30.0
    path = tmp_path / "rigged.pt"
    net.save(path)
    agent = cardboard.make_agent(f"ismcts:net={path},iterations={len(legal) // 2},cpuct=2", game)
    assert isinstance(agent.searcher.config.selection, PUCT) and agent.searcher.config.selection.c_puct == 2
    result = agent.searcher.search(state, np.random.default_rng(0))
    visits = {state.action_key(int(a)): 0 for a in legal} | result.visits
    assert result.action == favourite
    assert visits[state.action_key(favourite)] == max(visits.values()) > 1


@pytest.mark.parametrize("prior", [1, 0])
def test_value_calls_the_network_once_per_iteration_and_never_rolls_out(game, untrained, prior):
    agent = cardboard.make_agent(f"ismcts:net={untrained},iterations=25,prior={prior}", game)
    config = agent.searcher.config
    assert config.depth == 0 and isinstance(config.evaluator, NetworkEvaluator)
    calls = []

    def counted(state):
        calls.append(1)
        return config.evaluator(state)

    def no_rollout(*args):
        raise AssertionError("value=1 must not roll out")

    agent.searcher.config = replace(config, evaluator=counted, rollout=no_rollout)
    result = agent.searcher.search(decision_state(game), np.random.default_rng(0))
    assert result.iterations == 25 and len(calls) == 25


@pytest.mark.parametrize("depth", [0, 2])
def test_prior_without_value_asks_the_network_for_priors_and_values_the_rollouts(game, untrained, depth):
    """prior=1,value=0: each new node's prior from the network; the values from the rollout, to the end (depth
    0) or for ``depth`` turns and then the game's heuristic, never from the network."""
    agent = cardboard.make_agent(f"ismcts:net={untrained},iterations=30,prior=1,value=0,depth={depth}", game)
    config = agent.searcher.config
    assert isinstance(config.selection, PUCT) and isinstance(config.prior, NetworkEvaluator)
    assert config.depth == (depth or None) and not isinstance(config.evaluator, NetworkEvaluator)
    asked, valued = [], []

    def prior(state):
        asked.append(state.current_player)
        return config.prior(state)

    def values(state):
        valued.append(state.turn)
        return config.evaluator(state)

    agent.searcher.config = replace(config, prior=prior, evaluator=values)
    state = decision_state(game)
    result = agent.searcher.search(state, np.random.default_rng(0))
    expanded = sum(1 for _ in nodes_of(result.root) if len(_.edges))
    assert result.iterations == 30 and len(asked) == expanded > 1 and all(p >= 0 for p in asked)
    if depth:
        assert len(valued) == 30 and all(t >= state.turn + depth for t in valued)  # the heuristic after the rollout
    else:
        assert valued == []  # rollouts to the end: no evaluator




def test_network_values_are_mapped_to_unit_interval(game, untrained):
    evaluator = cardboard.make_agent(f"duct:net={untrained},iterations=5,worlds=2", game).searcher.config.evaluator
    answer = evaluator(decision_state(game))
    assert answer.values.shape == (2,) and np.all((answer.values >= 0) & (answer.values <= 1))
    assert answer.prior is not None and np.isclose(answer.prior.sum(), 1.0)


def test_missing_and_mismatched_checkpoints_are_refused(game, tmp_path):
    for spec in (f"net:path={tmp_path / 'none.pt'}", f"ismcts:net={tmp_path / 'none.pt'}"):
        with pytest.raises(CheckpointError, match="no such file"):
            cardboard.make_agent(spec, game)
    other = replace(game.info, name="other", num_actions=7)
    PolicyValueNet(other, hidden=(16,)).save(tmp_path / "other.pt")
    for spec in (f"net:path={tmp_path / 'other.pt'}", f"duct:net={tmp_path / 'other.pt'}"):
        with pytest.raises(CheckpointError, match="does not match"):
            cardboard.make_agent(spec, game)
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError):
        cardboard.make_agent(f"net:path={tmp_path / 'junk.pt'}", game)


def test_bad_knob_combinations_are_refused(game, untrained):
    for spec in (f"net:path={untrained},mode=best", f"ismcts:net={untrained},leaves=0",
                 f"ismcts:net={untrained},depth=3", f"ismcts:net={untrained},netrollout=1",
                 f"duct:net={untrained},prior=0,value=0", "ismcts:netrollout=1", f"ismcts:net={untrained},cpuct=-1"):
        with pytest.raises(InvalidParameterError):
            cardboard.make_agent(spec, game)


def test_net_without_a_path_is_a_seeded_untrained_network(game):
    state = decision_state(game)
    agents = [cardboard.make_agent(spec, g) for spec, g in (("net", game), ("net", None), ("net:mode=greedy", game))]
    actions = {agent.act(state, np.random.default_rng(0)) for agent in agents}
    assert len(actions) == 1 and state.action_mask()[actions.pop()]
    # the network `cardboard train` trains by default: the trunk shaped by the game's declared structure
    structure = structure_of(game)
    assert structure is not None
    for agent in agents:
        net = agent.evaluator.net
        assert net.structure == structure and net.hidden == PolicyValueNet(game.info).hidden
    assert untrained_evaluator(game.info).net.structure is None  # without a structure: the MLP
    weights = [untrained_evaluator(game.info, structure=structure).net.state_dict() for _ in range(2)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])  # seeded: the same in every process


def test_search_agents_without_net_are_unchanged(game):
    config = cardboard.make_agent("ismcts:iterations=10", game).searcher.config
    assert config == SearchConfig(iterations=10, c=0.7, depth=None)


def test_import_cardboard_and_listing_agents_imports_no_torch():
    code = ("import sys, cardboard; names = cardboard.agents(); cardboard.registry.describe_agents(); "
            "cardboard.make_agent('ismcts:iterations=5', cardboard.make_game('lords_of_war')); "
            "assert 'net' in names and 'ismcts' in names; assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)

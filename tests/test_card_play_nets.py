"""Paper 001's card-play networks (issue 18): sizes, shapes, learning and checkpoints."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.hearth import features as hf
from cardboard.envs.hearth.state import HearthGame
from cardboard.evaluation.papers.p001_hearthstone.card_play import (PRESETS, CardPlayCNNMerge, CardPlayDNNMerge, CardPlayNet,
                                          make_card_play_net)

MIRRORS = ("mech_mage", "handlock", "face_hunter")


def _features(deck: str, n: int = 6, seed: int = 0):
    """The Table 4.1 features of the first ``n`` decision states of a random game of the ``deck`` mirror."""
    game = HearthGame(decks=(deck, deck))
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    states, players = [], []
    while len(states) < n and not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        states.append(state.clone())
        players.append(state.current_player)
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    encoder = hf.features_for(game)
    return encoder.K, [torch.from_numpy(a) for a in encoder.encode_batch(states, players)]


@pytest.mark.parametrize("deck", MIRRORS)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_match_the_thesis_parameter_counts_within_ten_percent(preset, deck):
    k = hf.features_for(HearthGame(decks=(deck, deck))).K
    net = make_card_play_net(preset, k)
    assert abs(net.num_parameters() / PRESETS[preset][2] - 1) <= 0.10, (preset, k, net.num_parameters())


@pytest.mark.parametrize("deck", MIRRORS)  # odd and even K: the board's max-pool floors
@pytest.mark.parametrize("kind", [CardPlayCNNMerge, CardPlayDNNMerge])
def test_forward_gives_one_logit_per_card_column_and_learns_a_turn_card_set(kind, deck):
    k, (g, h, b) = _features(deck)
    torch.manual_seed(0)
    net = kind(k)
    assert net(g, h, b).shape == (len(g), k)
    target = torch.zeros(len(g), k)
    target[:, [0, 3]] = 1.0  # "the turn plays cards 0 and 3"
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    first = loss_fn(net(g, h, b), target).item()
    for _ in range(30):
        optimizer.zero_grad()
        loss = loss_fn(net(g, h, b), target)
        loss.backward()
        optimizer.step()
    assert loss.item() < first / 2
    fresh = kind(k)  # Xavier-uniform weights, zero biases
    assert all(not m.bias.detach().any() for m in fresh.modules() if isinstance(m, torch.nn.Linear))


def test_features_of_another_card_pool_are_refused_by_name():
    k, (g, h, b) = _features("face_hunter")
    net = CardPlayDNNMerge(k + 1)
    with pytest.raises(InvalidParameterError, match="hand features of shape"):
        net(g, h, b)


def test_checkpoints_round_trip_and_refuse_the_other_architecture_a_wrong_k_and_truncation(tmp_path):
    k, (g, h, b) = _features("handlock")
    cnn, dnn = make_card_play_net("cnn_290k", k).eval(), make_card_play_net("dnn_140k", k).eval()
    cnn.save(tmp_path / "cnn.pt")
    dnn.save(tmp_path / "dnn.pt")
    loaded = CardPlayNet.load(tmp_path / "cnn.pt", num_cards=k)
    assert isinstance(loaded, CardPlayCNNMerge) and torch.equal(loaded(g, h, b), cnn(g, h, b))
    assert isinstance(CardPlayDNNMerge.load(tmp_path / "dnn.pt"), CardPlayDNNMerge)
    with pytest.raises(CheckpointError, match="a dnn_merge checkpoint, not cnn_merge"):
        CardPlayCNNMerge.load(tmp_path / "dnn.pt")
    with pytest.raises(CheckpointError, match=f"K = {k} cards; this game's card pool has K = {k + 2}"):
        CardPlayNet.load(tmp_path / "cnn.pt", num_cards=k + 2)
    data = (tmp_path / "cnn.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated"):
        CardPlayNet.load(tmp_path / "cut.pt")
    with pytest.raises(CheckpointError, match="no such file"):
        CardPlayNet.load(tmp_path / "missing.pt")


def test_bad_sizes_and_unknown_presets_are_refused():
    with pytest.raises(InvalidParameterError, match="unknown card-play preset"):
        make_card_play_net("cnn_big", 25)
    with pytest.raises(InvalidParameterError, match="K"):
        CardPlayCNNMerge(1)

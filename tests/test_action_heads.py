"""Policy heads shaped by the game's action ranges (issue 33): the declared ranges and their checks, Lords of War's
squares and slots (the actions' frame is the observation's), the pair head's equivariance in the hand's slots,
the locality of the cell and pair logits, node ranges over Pandemic's map, and checkpoints."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.lords_of_war.layout import (A_DEPLOY, A_DRAW, A_HOLD_FIRE, A_RECALL, A_TARGET, COLS, HAND_SIZE,
                                                NUM_SQUARES, ROWS)
from cardboard.envs.pandemic.board import CITY_INDEX, DRIVE_DISTANCE
from cardboard.envs.pandemic.layout import A_DIRECT, A_DRIVE
from cardboard.envs.structure import (ActionCells, ActionNodes, ActionPairs, Globals, ObservationStructure, Planes,
                                      Tokens, structure_of)
from cardboard.policies import trunks
from cardboard.policies.heads import StructuredPolicyHead
from cardboard.policies.network import PolicyValueNet
from cardboard.training import learn
from tests.test_network_structure import observations

torch.set_num_threads(1)
LOW = cardboard.make_game("lords_of_war")
STRUCTURE = structure_of(LOW)
DEPLOYS = slice(A_DEPLOY, A_TARGET)
CELLS = np.r_[A_TARGET:A_HOLD_FIRE, A_RECALL:A_RECALL + NUM_SQUARES]


def low_net(seed: int = 0, structure: ObservationStructure = STRUCTURE) -> PolicyValueNet:
    torch.manual_seed(seed)
    return PolicyValueNet(LOW.info, hidden=(32,), structure=structure).eval()


def logits(net: PolicyValueNet, obs: np.ndarray | torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return net(torch.as_tensor(obs).reshape(-1, *LOW.info.observation_shape))[0]


# ---- the declaration ---------------------------------------------------------------------------------------
def test_lords_of_war_declares_its_deployments_and_per_square_actions():
    assert STRUCTURE.num_actions == LOW.info.num_actions
    assert STRUCTURE.action_ids() == (range(A_DEPLOY, A_TARGET), range(A_TARGET, A_HOLD_FIRE),
                                      range(A_RECALL, A_RECALL + NUM_SQUARES))
    assert STRUCTURE.flat_actions().tolist() == [A_HOLD_FIRE, A_DRAW]
    assert ObservationStructure.from_dict(STRUCTURE.to_dict()) == STRUCTURE
    old = {k: v for k, v in STRUCTURE.to_dict().items() if k in ("parts", "observation_shape")}  # before ranges
    assert ObservationStructure.from_dict(old) == STRUCTURE.without_actions()
    assert not STRUCTURE.without_actions().actions


PARTS = (Planes("board", 0, 2, 3, 4), Tokens("hand", 24, 5, 2, presence=(0, 1)), Globals("rest", 34, 6))


@pytest.mark.parametrize("actions, num_actions, message", [
    ((ActionCells(60, planes="board"),), 70, "covers ids 60..71, outside the 70 actions"),
    ((ActionPairs(0, tokens="hand", planes="board"),), 59, "outside the 59 actions"),
    ((ActionPairs(0, tokens="hand", planes="board"), ActionCells(59, planes="board")), 100, "overlaps ActionPairs"),
    ((ActionCells(20, planes="board"), ActionCells(10, planes="board")), 100, "overlaps ActionCells at offset 10"),
    ((ActionCells(0, planes="hand"),), 100, "names 'hand', which is no Planes part"),
    ((ActionPairs(0, tokens="board", planes="board"),), 100, "names 'board', which is no Tokens part"),
    ((ActionNodes(0, graph="board"),), 100, "no Graph part"),
    ((ActionCells(0, planes="nope"),), 100, "names 'nope'"),
    ((ActionCells(0, planes="board"),), None, "need num_actions"),
    ((ActionCells(0, planes="board"),), 0, "num_actions=0"),
])
def test_bad_action_ranges_are_refused(actions, num_actions, message):
    with pytest.raises(InvalidParameterError, match=message):
        ObservationStructure(PARTS, (40,), actions, num_actions)


def test_a_negative_offset_is_refused_and_good_ranges_pass():
    with pytest.raises(InvalidParameterError, match="offset=-1"):
        ActionCells(-1, planes="board")
    ok = ObservationStructure(PARTS, (40,), (ActionCells(60, planes="board"), ActionPairs(0, "hand", "board")), 72)
    assert ok.action_ids() == (range(60, 72), range(0, 60)) and ok.flat_actions().size == 0
    with pytest.raises(InvalidParameterError, match="action ranges over 72 actions"):
        PolicyValueNet(dataclasses.replace(LOW.info, observation_shape=(40,)), structure=ok)


def test_the_learner_takes_the_policy_head_it_is_told():
    import argparse

    parser = argparse.ArgumentParser()
    learn.add_arguments(parser)
    assert learn.to_args(parser.parse_args(["lords_of_war", "--data", "x"])).policy_head == "structured"
    flat = learn.to_args(parser.parse_args(["lords_of_war", "--data", "x", "--policy-head", "flat"]))
    assert flat.policy_head == "flat"
    with pytest.raises(InvalidParameterError, match="--policy-head"):
        learn.to_args(parser.parse_args(["lords_of_war", "--data", "x", "--policy-head", "wide"]))


# ---- Lords of War: the actions' squares are the planes' squares ------------------------------------------------
def test_the_action_squares_are_the_board_squares_of_the_player_to_move():
    """Over random games, both seats: a legal deployment names a held slot and an empty square of the mover's
    board planes, a shot an enemy unit's square, a recall an own unit's; and the trunk's square features read
    square ``row * COLS + column`` there (a wrong frame would misplace them for one of the seats)."""
    rng = np.random.default_rng(4)
    encoder = next(e for e in low_net().trunk.encoders if isinstance(e, trunks.PlaneEncoder))
    seen = {kind: set() for kind in ("deploy", "target", "recall")}
    for seed in range(6):
        state = LOW.new_state(seed)
        while not state.is_terminal():
            p = state.current_player
            obs = state.observation(p)
            pieces = STRUCTURE.split(obs)
            own, enemy = pieces["board"][0], pieces["board"][1]
            for a in state.legal_actions().tolist():
                if a < A_TARGET:
                    k, e = divmod(a - A_DEPLOY, NUM_SQUARES)
                    assert pieces["hand"][k, 0] == 1 and own.flat[e] == 0 and enemy.flat[e] == 0, (a, p)
                    seen["deploy"].add(p)
                elif a < A_HOLD_FIRE:
                    assert enemy.flat[a - A_TARGET] == 1, (a, p)
                    seen["target"].add(p)
                elif a >= A_RECALL:
                    assert own.flat[a - A_RECALL] == 1, (a, p)
                    seen["recall"].add(p)
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    assert all(players == {0, 1} for players in seen.values()), seen
    with torch.no_grad():
        squares = encoder.encode(torch.from_numpy(obs)[None])[1][0, :len(pieces["board"])].flatten(1)
    np.testing.assert_array_equal(squares.numpy(), pieces["board"].reshape(len(pieces["board"]), ROWS * COLS))


def test_the_pair_logits_follow_the_hands_slots():
    """Swapping two of the hand's slots swaps their deployments' logits and leaves every other deployment and
    every per-square logit as it was."""
    net, state = low_net(), LOW.new_state(3)
    obs = state.observation(0)
    hand = STRUCTURE.part("hand")
    assert STRUCTURE.split(obs)["hand"][:, 0].tolist() == [1] * HAND_SIZE
    order = np.arange(HAND_SIZE)
    order[[1, 4]] = [4, 1]
    swapped = obs.copy()
    swapped[hand.index()] = obs[hand.index()[order]]
    before, after = logits(net, obs)[0], logits(net, swapped)[0]
    deploys, moved = before[DEPLOYS].view(HAND_SIZE, NUM_SQUARES), after[DEPLOYS].view(HAND_SIZE, NUM_SQUARES)
    torch.testing.assert_close(moved, deploys[order], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(after[CELLS], before[CELLS], rtol=0, atol=1e-6)
    assert (deploys[1] - deploys[4]).abs().max() > 1e-3  # two different cards: the swap is seen


def radius() -> int:
    """How far (king moves) a square's cell and pair logits see: each 3x3 convolution of the trunk one square
    further, the head's 1x1 convolution and its per-square bias none."""
    return trunks.PLANE_LAYERS


@pytest.mark.parametrize("row, column", [(0, 0), (3, 2), (6, 5), (2, 4)])
def test_a_square_moves_only_the_logits_of_the_squares_near_it(row, column):
    net = low_net(1)
    obs, _ = observations("lords_of_war", 8, seed=2)
    obs = torch.from_numpy(obs)
    board = STRUCTURE.part("board")
    changed = obs.clone()
    changed[:, board.index()[:, row, column]] = torch.rand(len(obs), board.channels) + 0.5
    diff = (logits(net, changed) - logits(net, obs)).abs()
    rows, columns = np.divmod(np.arange(NUM_SQUARES), COLS)
    near = torch.from_numpy(np.maximum(abs(rows - row), abs(columns - column)) <= radius())
    cells = diff[:, CELLS].view(len(obs), 2, NUM_SQUARES)
    deploys = diff[:, DEPLOYS].view(len(obs), HAND_SIZE, NUM_SQUARES)
    for per_square in (cells, deploys):
        assert per_square[..., ~near].max() < 1e-5, "a logit moved outside the receptive field"
        assert per_square[..., row * COLS + column].min() > 1e-4, "the changed square's own logits did not move"
    assert radius() == 2 and near.sum() < NUM_SQUARES  # 5x5 squares around it: the test can fail


# ---- node ranges over a map ------------------------------------------------------------------------------------
def test_node_logits_hear_the_cities_within_the_rounds_of_message_passing():
    game = cardboard.make_game("pandemic")
    structure = dataclasses.replace(structure_of(game), actions=(ActionNodes(A_DIRECT, graph="cities"),
                                                                 ActionNodes(A_DRIVE, graph="cities")),
                                    num_actions=game.info.num_actions)
    torch.manual_seed(0)
    net = PolicyValueNet(game.info, hidden=(32,), structure=structure).eval()
    assert isinstance(net.policy_head, StructuredPolicyHead)
    assert len(structure.flat_actions()) == game.info.num_actions - 2 * len(CITY_INDEX)
    obs, _ = observations("pandemic", 2)
    obs = torch.from_numpy(obs)
    city = CITY_INDEX["atlanta"]
    changed = obs.clone()
    changed[:, structure.elements("cities")[city]] += 1.0
    with torch.no_grad():
        diff = (net(changed)[0] - net(obs)[0]).abs()
    near = torch.from_numpy(DRIVE_DISTANCE[city] <= trunks.GRAPH_ROUNDS)
    for offset in (A_DRIVE, A_DIRECT):
        nodes = diff[:, offset:offset + len(near)]
        assert nodes[:, ~near].max() < 1e-5 and nodes[:, city].min() > 1e-5, offset


# ---- the network and its checkpoints ---------------------------------------------------------------------------
def test_the_structured_heads_replace_the_flat_layer(tmp_path):
    net, flat = low_net(), low_net(structure=STRUCTURE.without_actions())
    assert isinstance(net.policy_head, StructuredPolicyHead) and isinstance(flat.policy_head, torch.nn.Linear)
    assert net.policy_head.flat.out_features == 2
    head, flat_head = (sum(p.numel() for p in n.policy_head.parameters()) for n in (net, flat))
    assert flat_head == 33 * LOW.info.num_actions and head < flat_head / 2
    assert net.num_parameters() - head == flat.num_parameters() - flat_head  # the same trunk and value head
    obs = observations("lords_of_war", 5)[0]
    out, values = net(torch.from_numpy(obs))
    assert out.shape == (5, LOW.info.num_actions) and values.shape == (5, 2) and torch.isfinite(out).all()


def test_a_structured_checkpoint_round_trips(tmp_path):
    net = low_net(2)
    net.save(tmp_path / "model.safetensors")
    loaded = PolicyValueNet.load(tmp_path / "model.safetensors", LOW.info)
    assert loaded.structure == STRUCTURE and isinstance(loaded.policy_head, StructuredPolicyHead)
    obs = observations("lords_of_war", 6, seed=3)[0]
    for a, b in zip(loaded(torch.from_numpy(obs)), net(torch.from_numpy(obs))):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    low_net(structure=STRUCTURE.without_actions()).save(tmp_path / "flat.safetensors")
    flat = PolicyValueNet.load(tmp_path / "flat.safetensors", LOW.info)  # as a checkpoint from before the ranges
    assert not flat.structure.actions and isinstance(flat.policy_head, torch.nn.Linear)

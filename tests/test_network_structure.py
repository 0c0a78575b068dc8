"""Networks shaped by the game (issue 33): each game's declared observation structure, the trunk built from it
(permutation-invariant sets, message passing along the map), checkpoints that rebuild it without the game, and
the MLP for a game that declares nothing."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.pandemic.board import CITY_INDEX, DRIVE_DISTANCE
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.structure import (Attached, Globals, Graph, ObservationStructure, Planes, Tokens,
                                      structure_of)
from cardboard.policies.evaluator import BatchedEvaluator
from cardboard.policies.network import PolicyValueNet
from cardboard.policies.trunks import GRAPH_ROUNDS, GraphEncoder, SetEncoder, StructuredTrunk
from tests.games import TicTacToeGame

torch.set_num_threads(1)
GAMES = ("fifth_aeon", "hearth", "lords_of_war", "pandemic")


def observations(game: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations (by the player to move) and legal-action masks of ``count`` decision states of random games."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    state = cardboard.new_state(game, seed=seed)
    while len(obs) < count:
        if state.is_terminal():
            state = cardboard.new_state(game, seed=int(rng.integers(1 << 30)))
        elif state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        else:
            obs.append(state.observation(state.current_player))
            masks.append(state.action_mask())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs), np.stack(masks)


# ---- the declared structures ----------------------------------------------------------------------------
def test_every_bundled_game_declares_one():
    assert set(GAMES) <= set(cardboard.games())
    assert all(structure_of(cardboard.make_game(g)) is not None for g in GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_the_structure_tiles_the_observation_and_split_gives_it_back(game):
    info = cardboard.make_game(game).info
    structure = structure_of(cardboard.make_game(game))
    assert structure.observation_shape == info.observation_shape
    assert sum(int(np.prod(p.shape)) for p in structure.parts) == int(np.prod(info.observation_shape))
    covered = np.concatenate([p.index().ravel() for p in structure.parts])
    assert np.array_equal(np.sort(covered), np.arange(int(np.prod(info.observation_shape))))
    obs, _ = observations(game, 6)
    pieces = structure.split(obs)
    rebuilt = np.zeros_like(obs)
    for part in structure.parts:
        assert pieces[part.name].shape == (len(obs), *part.shape)
        rebuilt[:, part.index()] = pieces[part.name]
    assert np.array_equal(rebuilt, obs)
    assert ObservationStructure.from_dict(structure.to_dict()) == structure


def test_lords_of_war_pieces_by_hand():
    """The Orc General (armies.json: N 5, NE 4, E 3, W 3, NW 4, defence 6, command, infantry, General) in hand
    slot 0, then on c4 (row 3, column 2) seen by both players."""
    game = cardboard.make_game("lords_of_war")
    structure, state = structure_of(game), game.new_state(3)
    general = [1, 5 / 8, 4 / 8, 3 / 8, 0, 0, 0, 3 / 8, 4 / 8, 6 / 8, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    pieces = structure.split(state.observation(0))
    np.testing.assert_allclose(pieces["hand"][0], general)
    assert pieces["hand"][:, 0].tolist() == [1] * 6
    assert pieces["opponent_hand"][:, 0].tolist() == [1, 0, 0, 0, 0, 0]  # only their General is known
    state.apply(20)  # deploy Orc General to c4
    mine, theirs = structure.split(state.observation(0))["board"], structure.split(state.observation(1))["board"]
    assert mine.shape == (17, 7, 6) and mine[:, 3, 2].tolist()[:3] == [1, 0, 5 / 8]
    assert mine[10, 3, 2] == 0.75 and mine[11, 3, 2] == 1 and mine[:2].sum() == 1  # defence / 8, a Command card
    assert theirs[1, 3, 3] == 1 and theirs[2 + 4, 3, 3] == 5 / 8 and theirs[:2].sum() == 1  # N is their S
    assert structure.split(state.observation(1))["opponent_hand"][0, 0] == 0  # the General left the hand


def test_hearth_pieces_by_hand():
    """Seat 0's view at the mulligan: its Fireball (4 mana) in slot 0; the opponent's 4 cards are held (their
    origin shows) but unknown (no card feature)."""
    game = cardboard.make_game("hearth")
    structure, state = structure_of(game), game.new_state(1)
    pieces = structure.split(state.observation(0))
    hand, theirs, nc = pieces["hand"], pieces["opponent_hand"], len(game.names)
    assert game.names[int(np.argmax(hand[0, :nc]))] == "Fireball" and hand[0, :nc].sum() == 1
    np.testing.assert_allclose(hand[0, nc:], [0.4, 1, 0, 0])  # cost / 10, origin: deck
    assert hand[3:].sum() == 0 and not theirs[:, :nc].any() and theirs[:4, nc + 1].tolist() == [1] * 4
    assert not pieces["minions"].any() and not pieces["enemy_minions"].any()


def test_pandemic_pieces_by_hand():
    """At the start: every pawn and the one research station in Atlanta, 9 cities infected with 3, 3, 3, 2, 2, 2,
    1, 1, 1 cubes, two cards in each of the 4 hands."""
    game = cardboard.make_game("pandemic")
    structure, state = structure_of(game), game.new_state(0)
    pieces, atlanta = structure.split(state.observation(0)), CITY_INDEX["atlanta"]
    assert pieces["pawns"][atlanta].tolist() == [1] * 4 and pieces["pawns"].sum() == 4
    assert pieces["stations"][atlanta, 0] == 1 and pieces["stations"].sum() == 1
    np.testing.assert_allclose(np.sort(pieces["cities"].sum(1))[-9:], [1 / 3] * 3 + [2 / 3] * 3 + [1] * 3)
    assert pieces["hands"].shape == (48, 4) and pieces["hands"].sum(0).tolist() == [2] * 4
    assert len(structure.part("cities").edges) == (DRIVE_DISTANCE == 1).sum() // 2


def test_fifth_aeon_pieces_by_hand():
    game = cardboard.make_game("fifth_aeon")
    structure, state = structure_of(game), game.new_state(0)
    pieces, index = structure.split(state.observation(0)), game.pool.index
    held = [index[cid] for cid, _, _ in state.match.sides[0].hand]
    assert [int(np.argmax(row)) for row in pieces["hand"][:len(held)]] == held
    assert pieces["hand"].sum() == len(held) and pieces["globals"][0] == 1  # one card a slot; a choice first


@pytest.mark.parametrize("parts, message", [
    (lambda: (Globals("a", 0, 5), Globals("b", 6, 4)), "starts at 6, expected 5"),
    (lambda: (Globals("a", 0, 5), Globals("b", 4, 6)), "starts at 4, expected 5"),
    (lambda: (Globals("a", 0, 5), Globals("b", 5, 4)), "cover 9 values"),
    (lambda: (Globals("a", 0, 5), Globals("a", 5, 5)), "names repeat"),
    (lambda: (Globals("a", 0, 4), Attached("b", 4, "a", 3, 2)), "no Tokens or Graph part"),
    (lambda: (Tokens("a", 0, 2, 3, presence=(0, 4)), Globals("b", 6, 4)), "presence=\\(0, 4\\)"),
    (lambda: (Graph("a", 0, 5, 1, edges=((0, 5),)), Globals("b", 5, 5)), "not pairs of distinct nodes"),
    (lambda: (Globals("a", 0, 0), Globals("b", 0, 10)), "size=0"),
])
def test_a_structure_that_does_not_tile_is_refused(parts, message):
    with pytest.raises(InvalidParameterError, match=message):
        ObservationStructure(parts(), (10,))


def test_planes_read_channels_last_storage():
    planes = Planes("p", 0, channels=2, height=1, width=3, channels_last=True)
    values = np.array([0, 10, 1, 11, 2, 12])  # square by square: (channel 0, channel 1) of each square
    assert values[planes.index()].tolist() == [[[0, 1, 2]], [[10, 11, 12]]]


# ---- the trunk's encoders ----------------------------------------------------------------------------
def test_the_set_encoder_is_permutation_invariant_and_ignores_empty_slots():
    torch.manual_seed(0)
    slots, features = 6, 5
    encoder = SetEncoder(np.arange(slots * features).reshape(1, slots, features), presence=(0, 1))
    x = torch.rand(3, slots, features) + 0.1
    x[:, 4:, 0] = 0.0  # slots 4 and 5 are empty: their other features must not count
    pooled, per_slot = encoder(x.flatten(1))
    order = torch.tensor([3, 0, 5, 1, 4, 2])
    pooled2, per_slot2 = encoder(x[:, order].flatten(1))
    torch.testing.assert_close(pooled2, pooled)
    torch.testing.assert_close(per_slot2.view(3, slots, -1), per_slot.view(3, slots, -1)[:, order])
    noise = x.clone()
    noise[:, 4:, 1:] = torch.rand(3, 2, features - 1)
    for a, b in zip(encoder(noise.flatten(1)), (pooled, per_slot)):
        torch.testing.assert_close(a, b)
    assert not per_slot.view(3, slots, -1)[:, 4:].any()
    x[:, 4, 0] = 1.0  # slot 4 now holds a card: the pooled set changes
    assert not torch.allclose(encoder(x.flatten(1))[0], pooled)


def test_a_lords_of_war_trunk_pools_the_hand_whatever_the_order_of_its_slots():
    game = cardboard.make_game("lords_of_war")
    structure = structure_of(game)
    encoder = next(e for e in StructuredTrunk(structure, (32,)).encoders if isinstance(e, SetEncoder))
    obs = torch.from_numpy(observations("lords_of_war", 40, seed=5)[0])
    part = structure.part("hand")
    swapped = obs.clone()
    hand = swapped[:, part.offset:part.offset + part.count * part.features].view(-1, part.count, part.features)
    hand[:] = hand.flip(1).clone()  # the hand's slots in reverse order
    torch.testing.assert_close(encoder(swapped)[0], encoder(obs)[0])


def test_message_passing_reaches_k_edges_in_k_rounds_and_no_further():
    game = cardboard.make_game("pandemic")
    structure = structure_of(game)
    part = structure.part("cities")
    torch.manual_seed(0)
    encoder = GraphEncoder(structure.elements("cities"), part.edges, rounds=GRAPH_ROUNDS)
    obs = torch.rand(2, int(np.prod(structure.observation_shape)))
    before = encoder.nodes(obs)
    city = CITY_INDEX["atlanta"]
    for other in range(part.nodes):
        changed = obs.clone()
        changed[:, structure.elements("cities")[other]] += 1.0
        moved = not torch.allclose(encoder.nodes(changed)[:, city], before[:, city])
        assert moved == (DRIVE_DISTANCE[city, other] <= GRAPH_ROUNDS), (other, DRIVE_DISTANCE[city, other])


# ---- the network --------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_structured_networks_on_every_game(game):
    info = cardboard.make_game(game).info
    torch.manual_seed(0)
    net = PolicyValueNet(info, structure=structure_of(cardboard.make_game(game)))
    mlp = PolicyValueNet(info)
    assert isinstance(net.trunk, StructuredTrunk) and 100_000 <= net.num_parameters() <= mlp.num_parameters()
    if game != "pandemic":  # its 3,946 actions make the policy head alone 700k, in the MLP too
        assert net.num_parameters() <= 400_000
    obs, masks = observations(game, 10)
    priors, values = BatchedEvaluator(net, max_batch=4).evaluate(obs, masks)
    assert np.all(priors[~masks] == 0) and np.allclose(priors.sum(1), 1, atol=1e-5)
    assert np.all((values >= info.min_return) & (values <= info.max_return))


def test_a_structured_checkpoint_loads_without_the_game(tmp_path):
    game = cardboard.make_game("hearth")
    torch.manual_seed(1)
    net = PolicyValueNet(game.info, hidden=(64,), options={"decks": "mech_mage"}, structure=structure_of(game))
    net.save(tmp_path / "net.pt")
    loaded = PolicyValueNet.load(tmp_path / "net.pt")
    assert loaded.structure == net.structure and loaded.hidden == (64,) and isinstance(loaded.trunk, StructuredTrunk)
    x = torch.from_numpy(observations("hearth", 8)[0])
    with torch.no_grad():
        for a, b in zip(loaded(x), net.eval()(x)):
            torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert PolicyValueNet.load(tmp_path / "net.pt", game.info).structure == net.structure


def test_a_game_without_a_structure_gets_the_mlp(tmp_path):
    game = TicTacToeGame()
    assert structure_of(game) is None and structure_of(game.new_state(0)) is None
    net = PolicyValueNet(game.info, hidden=(8,), structure=structure_of(game))
    assert isinstance(net.trunk, torch.nn.Sequential) and net.metadata()["structure"] is None
    net.save(tmp_path / "net.pt")
    assert PolicyValueNet.load(tmp_path / "net.pt").structure is None


def test_a_structure_of_another_shape_is_refused():
    low, hearth = cardboard.make_game("lords_of_war"), cardboard.make_game("hearth")
    with pytest.raises(InvalidParameterError, match="shape"):
        PolicyValueNet(low.info, structure=structure_of(hearth))

"""Hearth's chance-node buckets (001 Table 3.2), the inference-accuracy knob (001 §3.6.1) in search, and
determinization against what an observer saw."""
from __future__ import annotations

import numpy as np
import pytest

import cardboard
from cardboard.envs.hearth import layout as L
from cardboard.envs.hearth.positions import build_position
from cardboard.envs.protocol import CHANCE
from cardboard.search.mcts import InferenceAccuracy, SearchConfig, TreeSearch


def _draw_node(deck: str, cards: list[str]):
    """Player 0 ends the turn with ``cards`` left in player 1's deck: player 1's turn-start draw."""
    state = build_position((deck, deck), deck_cards=([], cards))
    state.apply(L.END_TURN)
    assert state.current_player == CHANCE
    return state


@pytest.mark.parametrize("deck, together, apart", [
    ("mech_mage", ("Fireball", "Loatheb"), ("Spider Tank", "Fireball")),  # [4,5] vs [3]
    ("handlock", ("Dr. Boom", "Mountain Giant"), ("Siphon Soul", "Dr. Boom")),  # [7..10] holds the Giants; [6]
    ("face_hunter", ("Animal Companion", "Leeroy Jenkins"), ("Quick Shot", "Wolfrider")),  # [3..10] vs [2]
])
def test_draws_are_bucketed_by_mana_cost_as_in_table_3_2(deck, together, apart):
    state = _draw_node(deck, [*together, *apart])
    names = state.game.names
    bucket = {names[o]: state.chance_bucket(o) for o, _ in state.chance_outcomes()}
    assert bucket[together[0]] == bucket[together[1]]
    assert bucket[apart[0]] != bucket[apart[1]]
    assert state.chance_samples() == L.CNB_SAMPLES_ONE_DRAW


def test_several_draws_take_one_presample_per_bucket():
    state = build_position(hands=(["Arcane Intellect"], []), deck_cards=(["Fireball", "Frostbolt", "Loatheb"], []))
    state.apply(L.PLAY + 0)
    assert state.current_player == CHANCE and state.pending_draws() == 2
    assert state.chance_samples() == L.CNB_SAMPLES_SEVERAL


def test_random_targets_are_not_bucketed():
    state = build_position(boards=(["Knife Juggler"], ["Spider Tank", "Spider Tank"]), hands=(["Wolfrider"], []))
    state.apply(L.PLAY + 0)
    outcomes = [o for o, _ in state.chance_outcomes()]
    assert len(outcomes) == 3 and len({state.chance_bucket(o) for o in outcomes}) == 3


def test_cnb_keeps_at_most_buckets_times_n_successors_after_end_turn():
    deck = ["Clockwork Gnome", "Cogmaster", "Frostbolt", "Mechwarper", "Spider Tank", "Harvest Golem", "Fireball",
            "Loatheb", "Dr. Boom", "Flamestrike"]  # 10 distinct cards in the 5 Mech Mage buckets
    state = build_position(hands=(["Spider Tank"], []), deck_cards=([], deck), heroes=({"mana": 0}, {}))
    config = SearchConfig(iterations=600, depth=2, bucketing=cardboard.search.agents.GAME_CNB)
    root = TreeSearch(config, "duct", num_worlds=3).search(state, np.random.default_rng(0)).root
    chance = root.child_for(root.edge(state.action_key(L.END_TURN)), CHANCE)
    assert chance.player == CHANCE
    assert 5 < len(deck) and len(chance.edges) <= 5 * L.CNB_SAMPLES_ONE_DRAW


def test_accuracy_one_is_the_truth_and_zero_replaces_every_hidden_card():
    state = cardboard.new_state("hearth", seed=4, decks="handlock", mulligan=False)
    rng = np.random.default_rng(0)
    assert np.array_equal(InferenceAccuracy(1.0)(state, 0, rng).s, state.s)
    wrong = InferenceAccuracy(0.0)(state, 0, rng)
    hidden = state.hand_origin(1) == L.ORIGIN_DECK
    assert np.all(wrong.hand(1)[hidden] != state.hand(1)[hidden])
    assert np.array_equal(wrong.hand(0), state.hand(0)) and np.array_equal(wrong.observation(0), state.observation(0))
    with pytest.raises(cardboard.envs.errors.InvalidParameterError):
        InferenceAccuracy(1.5)


def test_duct_with_perfect_inference_searches_the_true_state():
    seen = []

    def spy(state, player, rng):
        world = InferenceAccuracy(1.0)(state, player, rng)
        seen.append(world.s.copy())
        return world

    state = build_position(hands=(["Fireball", "Frostbolt"], ["Flamestrike"]), boards=([], ["Spider Tank"]))
    TreeSearch(SearchConfig(iterations=50, depth=1, determinizer=spy), "duct", num_worlds=4).search(
        state, np.random.default_rng(1))
    assert len(seen) == 4 and all(np.array_equal(s, state.s) for s in seen)


def test_determinize_never_changes_what_the_observer_saw_over_whole_games():
    rng = np.random.default_rng(5)
    for seed in range(6):
        state = cardboard.new_state("hearth", seed=seed, decks=("mech_mage", "face_hunter"))
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            me = state.current_player
            world = state.determinize(me, rng)
            assert np.array_equal(world.observation(me), state.observation(me))
            assert np.array_equal(world.legal_actions(), state.legal_actions())
            assert [world.action_key(a) for a in world.legal_actions()] == \
                [state.action_key(a) for a in state.legal_actions()]
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))


def _shared_edges(root) -> int:
    """Edges of the tree below ``root`` that lead to more than one kind of node (another player to move, or a chance
    node, in another world)."""
    count, todo = 0, [root]
    while todo:
        node = todo.pop()
        count += int(((node.tree.edge_child[node.edges] >= 0).sum(axis=1) > 1).sum())
        todo.extend(node.children())
    return count


@pytest.mark.parametrize("cnb", [False, True])
def test_an_edge_leading_to_a_chance_node_in_one_world_and_a_decision_in_another(cnb):
    # The opponent's dying Voidcaller puts a random Demon from their HIDDEN hand into play: with two Demons
    # in hand it is a chance node, with one it resolves at once. Worlds differ, the tree is shared.
    #  enemy: Voidcaller 3/1, hand: 3 hidden cards (deck: Demons and others)
    #  own:   hand: Fireball
    state = build_position(decks=("handlock", "handlock"), hands=(["Fireball"], ["Mal'Ganis", "Voidcaller",
                           "Lord Jaraxxus"]), boards=([], [{"card": "Voidcaller", "health": 1}]),
                           deck_cards=(["Hellfire"] * 3, ["Mountain Giant", "Hellfire", "Darkbomb", "Twilight Drake"]))
    config = SearchConfig(iterations=400, depth=1, bucketing=cardboard.search.agents.GAME_CNB if cnb else None,
                          compiled=False)  # the Python driver (tests/test_compiled_hearth.py: the compiled one)
    result = TreeSearch(config, "duct", num_worlds=10).search(state, np.random.default_rng(3))
    assert _shared_edges(result.root), "no world met the other kind of node: the position tests nothing"

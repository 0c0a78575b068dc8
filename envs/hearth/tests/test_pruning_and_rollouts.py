"""Heuristic pruning (001 §2.5, Silverfish's move generator) and the compiled rollout policies (README 13)."""
from __future__ import annotations

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import UnknownNameError
from cardboard.envs.hearth import layout as L
from cardboard.envs.hearth.positions import build_position
from cardboard.search.mcts import SearchConfig, TreeSearch


def _targets(actions) -> set[int]:
    return {int(a) - L.TARGET for a in actions if L.TARGET <= a < L.POSITION}


def test_damage_is_never_aimed_at_own_characters():
    #  enemy:  hero   Spider Tank
    #  own:    hero   Spider Tank      hand: Fireball
    state = build_position(hands=(["Fireball"], []), boards=(["Spider Tank"], ["Spider Tank"]))
    state.apply(L.PLAY + 0)
    assert _targets(state.legal_actions()) == {0, 1, 8, 9}
    assert _targets(state.sensible_actions()) == {8, 9}


def test_buffs_are_never_aimed_at_enemy_minions():
    state = build_position(hands=(["Abusive Sergeant"], []), boards=(["Spider Tank"], ["Spider Tank"]))
    state.apply(L.PLAY + 0)
    assert _targets(state.legal_actions()) == {1, 9}
    assert _targets(state.sensible_actions()) == {1}


def test_a_targeted_card_without_a_suitable_target_is_not_played():
    # Siphon Soul with only an own minion; Big Game Hunter whose only 7-attack target is one's own Dr. Boom
    state = build_position(decks=("handlock", "handlock"), hands=(["Siphon Soul", "Big Game Hunter"], []),
                           boards=(["Dr. Boom"], []))
    assert {L.PLAY + 0, L.PLAY + 1} <= set(state.legal_actions().tolist())
    assert not {L.PLAY + 0, L.PLAY + 1} & set(state.sensible_actions().tolist())
    assert L.END_TURN in state.sensible_actions()


def test_silence_and_the_minion_part_of_a_battlecry_stay_sensible():
    # Ironbeak Owl may silence one's own Ancient Watcher (the Handlock combo); a Big Game Hunter with no
    # 7-attack minion anywhere is just a 4/2
    state = build_position(decks=("handlock", "handlock"), hands=(["Ironbeak Owl", "Big Game Hunter"], []),
                           boards=(["Ancient Watcher"], []))
    assert {L.PLAY + 0, L.PLAY + 1} <= set(state.sensible_actions().tolist())
    state.apply(L.PLAY + 0)
    assert _targets(state.sensible_actions()) == {1}


def test_pruned_search_explores_only_sensible_edges():
    state = build_position(hands=(["Fireball"], []), boards=(["Spider Tank"], ["Spider Tank"]))
    state.apply(L.PLAY + 0)
    result = TreeSearch(SearchConfig(iterations=200, depth=1, prune=True), "uct").search(
        state, np.random.default_rng(0))
    assert {k - L.NUM_CARDS for k in result.visits} == {8, 9}
    assert result.action - L.TARGET in (8, 9)


def _wolfrider_played(rollout: str, seed: int) -> bool:
    state = build_position(hands=(["Wolfrider"], []), heroes=({"mana": 3}, {}), deck_cards=([], []),
                           decks=("face_hunter", "face_hunter"))
    state = cardboard.envs.hearth.state.HearthState(cardboard.make_game("hearth", decks="face_hunter",
                                                                        rollout=rollout), state.s)
    state.random_playout(np.random.default_rng(seed), max_turns=1)
    return state.hero(1)["health"] < 30 - 1  # fatigue costs 1; the Wolfrider's charge hit costs 3 more


def test_rollouts_end_a_turn_only_when_nothing_else_is_available():
    assert all(_wolfrider_played("sensible", seed) for seed in range(20))
    assert all(_wolfrider_played("no_pass", seed) for seed in range(20))
    assert not all(_wolfrider_played("uniform", seed) for seed in range(20))


def test_unknown_rollout_policy_is_refused():
    with pytest.raises(UnknownNameError, match="rollout policy"):
        cardboard.make_game("hearth", rollout="greedy")

"""Forward-model paths search relies on: the compiled playout and the determinizer's distribution."""
import numpy as np

from cardboard.envs.lords_of_war import LordsOfWarGame, build_position
from cardboard.envs.lords_of_war import layout as L
from cardboard.envs.lords_of_war.layout import ARMY_SIZE, HAND_SIZE

GAME = LordsOfWarGame()


def test_random_playout_stops_after_max_turns_player_turns():
    rng = np.random.default_rng(5)
    for seed in range(20):
        state = GAME.new_state(seed)
        start = state.turn
        state.random_playout(rng, max_turns=3)
        assert state.is_terminal() or state.turn == start + 3
        assert state.is_terminal() or len(state.legal_actions()) > 0


def test_random_playout_is_seeded():
    a, b = GAME.new_state(1), GAME.new_state(1)
    assert a.random_playout(np.random.default_rng(9)) == b.random_playout(np.random.default_rng(9))
    assert a == b and a.is_terminal()


def test_determinize_deals_the_opponents_unknown_cards_uniformly():
    """Each unseen card of the opponent lands in its hand with probability (unknown hand size) / (unseen cards).

    Player 1 holds 5 cards, one of them (the General) known to player 0; 34 cards are unseen by
    player 0 (4 unknown hand cards + 30 in the deck), so each is in hand with probability 4/34.
    """
    state = build_position(GAME, board={"c4": (0, "Orc Ravager"), "d4": (1, "Dwarf Marauder")},
                           hands=(["Orc General"], ["Dwarf General", "Dwarf Miners", "Dwarf Clansmen",
                                                    "Dwarf Warriors", "Dwarf Slugger"]),
                           known=["1:Dwarf General"])
    rng = np.random.default_rng(0)
    draws = 6000
    counts = np.zeros(2 * ARMY_SIZE)
    for _ in range(draws):
        det = state.determinize(0, rng)
        hand = det.s[L.HAND + HAND_SIZE:L.HAND + HAND_SIZE + det.s[L.NHAND + 1]]
        assert GAME.general_ids[1] in hand
        counts[hand] += 1
    unseen = [c for c in range(ARMY_SIZE, 2 * ARMY_SIZE) if c != GAME.general_ids[1] and c not in state.s[L.BOARD:L.BOARD + 42]]
    assert len(unseen) == 34
    freq = counts[unseen] / draws
    expected = 4 / 34
    sd = np.sqrt(expected * (1 - expected) / draws)
    assert np.all(np.abs(freq - expected) < 5 * sd), freq
    assert counts[[c for c in range(ARMY_SIZE) if c not in unseen]].sum() == 0  # nothing of player 0 moved in


def test_determinize_shuffles_the_observers_own_deck_uniformly():
    state = GAME.new_state(3)
    rng = np.random.default_rng(1)
    top = L.DECK + ARMY_SIZE - HAND_SIZE - 1  # player 0's top card position
    tops = [int(state.determinize(0, rng).s[top]) for _ in range(3000)]
    values, counts = np.unique(tops, return_counts=True)
    assert len(values) == ARMY_SIZE - HAND_SIZE  # every deck card can come out on top
    assert counts.max() < 3 * 3000 / len(values)


def test_observations_stay_in_the_unit_box_at_the_end_of_games():
    """A last multi-kill can take a pile past 20 cards: the scaled counters must still be <= 1."""
    rng = np.random.default_rng(2)
    past_twenty = 0
    for seed in range(300):
        state = GAME.new_state(seed)
        state.random_playout(rng)
        past_twenty += max(state.s[L.NDEAD], state.s[L.NDEAD + 1]) > 20
        for player in (0, 1):
            for perfect in (False, True):
                obs = state.observation(player, perfect)
                assert obs.min() >= 0.0 and obs.max() <= 1.0
    assert past_twenty > 0  # the case this guards actually occurs


def test_legal_action_keys_match_action_key_one_by_one():
    rng = np.random.default_rng(4)
    for seed in range(10):
        state = GAME.new_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            keys = state.legal_action_keys()
            assert keys.tolist() == [state.action_key(int(a)) for a in legal]
            assert ((0 <= keys) & (keys < state.info.num_action_keys)).all()
            state.apply(int(legal[rng.integers(len(legal))]))

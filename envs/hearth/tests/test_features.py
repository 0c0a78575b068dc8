"""The state features of paper 001 Table 4.1 (``cardboard.envs.hearth.features``)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cardboard.envs.hearth.layout import F_LEVEL, ORIGIN_KNOWN
from cardboard.envs.hearth.positions import build_position
from cardboard.envs.hearth.state import HearthGame
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.hearth import features as hf

# the paper's 9-state order of (P_a, P_o) (001 §4.4), written out independently of the module
PAPER_ORDER = [(0, 2), (0, 1), (1, 2), (0, 0), (1, 1), (2, 2), (2, 1), (1, 0), (2, 0)]
# rows 9..12: (playable for P_a, playable for P_o)
PLAY_ORDER = [(False, True), (True, True), (True, False), (False, False)]


def col(features: hf.HearthFeatures, name: str) -> int:
    return features.names.index(name)


def hot_row(block: np.ndarray) -> np.ndarray:
    """Per column (or cell) of a one-hot row group: the hot row, after checking there is exactly one."""
    assert np.all(block.sum(axis=0) == 1)
    return block.argmax(axis=0)


def midgame_states(decks, seeds, decisions=40):
    """Decision states reached by random play (chance sampled) from new games."""
    game = HearthGame(decks=decks)
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        for _ in range(decisions):
            if state.is_terminal():
                break
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
            else:
                legal = state.legal_actions()
                state.apply(int(legal[rng.integers(len(legal))]))
        while state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        if not state.is_terminal():
            out.append(state)
    return out


# ---- columns ---------------------------------------------------------------------------------------
def test_columns_follow_algorithm_4_on_face_hunter():
    features = hf.features_for(HearthGame(decks=("face_hunter", "face_hunter")))
    minions = ["Abusive Sergeant", "Hound", "Leper Gnome", "Southsea Deckhand", "Spectral Spider", "Whelp",
               "Worgen Infiltrator",  # cost 1
               "Haunted Creeper", "Ironbeak Owl", "Knife Juggler", "Mad Scientist",  # cost 2
               "Arcane Golem", "Huffer", "Leokk", "Misha", "Wolfrider",  # cost 3
               "Leeroy Jenkins"]  # cost 5
    others = ["The Coin",  # cost 0
              "Explosive Trap", "Quick Shot", "Glaivezooka",  # cost 2: spells, then the weapon
              "Animal Companion", "Kill Command", "Unleash the Hounds", "Eaglehorn Bow"]  # cost 3
    assert list(features.names) == minions + others
    assert features.K == 25 and features.hand_shape == (16, 25) and features.board_shape == (18, 25, 5)


def test_columns_mech_mage_include_tokens_and_generated_cards():
    features = hf.features_for(HearthGame(decks=("mech_mage", "mech_mage")))
    assert features.K == 28
    assert features.names[:5] == ("Boom Bot", "Clockwork Gnome", "Cogmaster", "Damaged Golem", "Mana Wyrm")
    spare_parts = ["Armor Plating", "Emergency Coolant", "Finicky Cloakfield", "Reversing Switch", "Rusty Horn",
                   "Time Rewinder", "Whirling Blades"]
    assert list(features.names[16:]) == ["The Coin", *spare_parts, "Frostbolt", "Arcane Intellect", "Fireball",
                                         "Flamestrike"]


def test_columns_of_a_cross_match_up_are_the_union_without_hero_powers():
    features = hf.features_for(HearthGame(decks=("handlock", "face_hunter")))
    assert features.K == 27 + 25 - 2  # The Coin and Ironbeak Owl are in both
    names = set(features.names)
    assert {"Slime", "Infernal", "Blood Fury", "Boom Bot", "Whelp", "Hound", "Misha"} <= names
    assert not names & {"Life Tap", "Steady Shot", "INFERNO!", "Fireblast", "Armor Plating"}
    assert features.names.count("Lord Jaraxxus") == 1  # the minion card, not the hero


# ---- global vector ---------------------------------------------------------------------------------
def test_global_mana_one_hots_for_both_views():
    state = build_position(heroes=({"mana": 3, "max_mana": 5}, {"mana": 0, "max_mana": 9}))
    g0, _, _ = hf.encode(state, 0)
    assert g0[hf.GV_OWN_MANA:hf.GV_OWN_MANA + 10].tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]  # 3 left this turn
    assert g0[hf.GV_OPP_MANA:hf.GV_OPP_MANA + 10].argmax() == 9 and g0[10:20].sum() == 1  # min(9 + 1, 10)
    g1, _, _ = hf.encode(state, 1)  # not to move: mana of its next turn
    assert g1[hf.GV_OWN_MANA:hf.GV_OWN_MANA + 10].argmax() == 9 and g1[0:10].sum() == 1
    assert g1[hf.GV_OPP_MANA:hf.GV_OPP_MANA + 10].argmax() == 5 and g1[10:20].sum() == 1  # 5 + 1


def test_global_no_mana_left_is_an_all_zero_block():
    g, _, _ = hf.encode(build_position(heroes=({"mana": 0, "max_mana": 4}, {})), 0)
    assert g[hf.GV_OWN_MANA:hf.GV_OWN_MANA + 10].sum() == 0
    assert g.sum() == 4  # opponent mana, health, first player, attack bit (two empty boards: 0 >= 0)


@pytest.mark.parametrize("health,level", [(1, 0), (6, 0), (7, 1), (12, 1), (13, 2), (18, 2), (19, 3), (24, 3),
                                          (25, 4), (30, 4)])
def test_global_hero_health_levels(health, level):
    state = build_position(heroes=({"health": health}, {"health": 30}))
    g0, _, _ = hf.encode(state, 0)
    g1, _, _ = hf.encode(state, 1)
    assert np.flatnonzero(g0[hf.GV_HP:hf.GV_HP + 25]).tolist() == [5 * level + 4]
    assert np.flatnonzero(g1[hf.GV_HP:hf.GV_HP + 25]).tolist() == [5 * 4 + level]


def test_global_first_player_and_attack_versus_health():
    state = build_position(boards=(["Spider Tank"], [{"card": "Spider Tank", "health": 3}]))  # 3/4 vs 3/3
    g0, _, _ = hf.encode(state, 0)
    g1, _, _ = hf.encode(state, 1)
    assert g0[hf.GV_FIRST] == 1 and g1[hf.GV_FIRST] == 0
    assert g0[hf.GV_ATK] == 1  # 3 >= 3 (Table 4.1's >=)
    assert g1[hf.GV_ATK] == 0  # 3 < 4
    assert g0.sum() == 5 and g1.sum() == 3


# ---- hand array ------------------------------------------------------------------------------------
HANDS = (["Fireball", "Fireball", "Frostbolt", "The Coin", "Flamestrike", "Snowchugger", "Snowchugger",
          "Spider Tank", "Spider Tank"],
         ["Fireball", "Frostbolt", "Frostbolt", "Arcane Intellect", "Flamestrike", "Cogmaster", "Cogmaster",
          "Spider Tank", "Spider Tank"])
# P_a: 6 mana left; P_o: max 2, so 3 next turn
HAND_HEROES = ({"mana": 6, "max_mana": 6}, {"mana": 2, "max_mana": 2})
EXPECTED_HAND = {  # name: (own count, opp count), (playable own, opp), follow-up row
    "Fireball": ((2, 1), (True, False), 14),  # 4 of 6: 2 left, Frostbolt or Snowchugger (2) -> low
    "Frostbolt": ((1, 2), (True, True), 15),  # 4 left: Fireball -> high
    "The Coin": ((1, 0), (True, False), 15),
    "Flamestrike": ((1, 1), (False, False), 13),  # 7 > 6
    "Snowchugger": ((2, 0), (True, False), 15),
    "Spider Tank": ((2, 2), (True, True), 15),  # 3 left: the other Spider Tank (3) -> high
    "Arcane Intellect": ((0, 1), (False, True), 13),
    "Cogmaster": ((0, 2), (False, True), 13),
}


def test_hand_rows_for_a_hand_built_position():
    state = build_position(hands=HANDS, heroes=HAND_HEROES)
    features = hf.features_for(state.game)
    _, hand, _ = hf.encode(state, 0)
    count, play, follow = hot_row(hand[0:9]), hot_row(hand[9:13]), hot_row(hand[13:16])
    for j, name in enumerate(features.names):
        counts, playable, follow_row = EXPECTED_HAND.get(name, ((0, 0), (False, False), 13))
        assert (PAPER_ORDER[count[j]], PLAY_ORDER[play[j]], 13 + follow[j]) == (counts, playable, follow_row), name


def test_hand_counts_are_clipped_at_two():
    state = build_position(hands=(["Fireball"] * 3, ["Frostbolt"] * 3), deck_cards=([], []))
    features = hf.features_for(state.game)
    _, hand, _ = hf.encode(state, 0)
    count = hot_row(hand[0:9])
    assert PAPER_ORDER[count[col(features, "Fireball")]] == (2, 0)
    assert PAPER_ORDER[count[col(features, "Frostbolt")]] == (0, 2)


@pytest.mark.parametrize("mana,cards,name,row", [
    (3, ["Frostbolt", "The Coin"], "Frostbolt", 14),  # 1 left: The Coin (0)
    (3, ["Frostbolt", "The Coin"], "The Coin", 14),  # 3 left: Frostbolt (2)
    (8, ["Fireball", "Fireball"], "Fireball", 15),  # the second copy is a follow-up
    (8, ["Fireball"], "Fireball", 13),  # nothing else in hand
    (3, ["Fireball", "The Coin"], "Fireball", 13),  # not playable
    (5, ["Fireball", "Frostbolt"], "Fireball", 13),  # 1 left, Frostbolt costs 2
])
def test_hand_follow_up_rows(mana, cards, name, row):
    state = build_position(hands=(cards, []), heroes=({"mana": mana, "max_mana": 10}, {}))
    _, hand, _ = hf.encode(state, 0)
    follow = hot_row(hand[13:16])
    assert 13 + follow[col(hf.features_for(state.game), name)] == row


# ---- board array -----------------------------------------------------------------------------------
def test_board_planes_with_health_buckets_and_levels():
    tank = lambda health: {"card": "Spider Tank", "health": health, "max_health": 8}  # noqa: E731
    state = build_position(boards=(
        [tank(1), tank(2), tank(3), tank(4), "Dr. Boom", {"card": "Goblin Blastmage", "health": 4}],
        [tank(5), tank(6), tank(7), "Loatheb", {"card": "Goblin Blastmage", "health": 3}, "Cogmaster"]))
    features = hf.features_for(state.game)
    _, _, board = hf.encode(state, 0)
    count = hot_row(board[0:9].reshape(9, -1)).reshape(features.K, 5)
    level = hot_row(board[9:18].reshape(9, -1)).reshape(features.K, 5)
    expected = {  # (name, bucket): ((own count, opp count), (own level, opp level))
        ("Spider Tank", 0): ((1, 0), (0, 0)),  # health 1
        ("Spider Tank", 1): ((1, 0), (0, 0)),  # 2
        ("Spider Tank", 2): ((2, 0), (0, 0)),  # 3 and 4
        ("Spider Tank", 3): ((0, 2), (0, 0)),  # 5 and 6
        ("Spider Tank", 4): ((0, 1), (0, 0)),  # 7
        ("Dr. Boom", 4): ((1, 0), (2, 0)),  # legendary 7/7
        ("Goblin Blastmage", 2): ((1, 1), (1, 1)),  # battlecry, health 4 and 3
        ("Loatheb", 3): ((0, 1), (0, 2)),  # legendary 5/5
        ("Cogmaster", 1): ((0, 1), (0, 1)),  # aura 1/2
    }
    for j, name in enumerate(features.names):
        for bucket in range(5):
            want = expected.get((name, bucket), ((0, 0), (0, 0)))
            assert (PAPER_ORDER[count[j, bucket]], PAPER_ORDER[level[j, bucket]]) == want, (name, bucket)


def test_board_counts_are_clipped_at_two():
    state = build_position(boards=(["Boom Bot"] * 3, []))
    features = hf.features_for(state.game)
    for player, joint in ((0, (2, 0)), (1, (0, 2))):
        _, _, board = hf.encode(state, player)
        assert PAPER_ORDER[board[0:9, col(features, "Boom Bot"), 0].argmax()] == joint  # 3 Boom Bots (1/1)


# ---- against a plain reference of the documented definitions, on played states ------------------------
def reference(state, player, perfect):
    """The three arrays computed from the public state API, one entry at a time."""
    features = hf.features_for(state.game)
    me, op = player, 1 - player
    mana_me = state.hero(me)["mana"] if state.current_player == me else min(state.hero(me)["max_mana"] + 1, 10)
    mana_op = min(state.hero(op)["max_mana"] + 1, 10)
    own = list(zip(state.hand(me).tolist(), state.hand_costs(me).tolist()))
    opp = [(c, k) for c, k, o in zip(state.hand(op), state.hand_costs(op), state.hand_origin(op))
           if perfect or o == ORIGIN_KNOWN]
    hand = np.zeros((16, features.K), np.float32)
    board = np.zeros((18, features.K, 5), np.float32)
    bucket = lambda h: 0 if h <= 1 else 1 if h == 2 else 2 if h <= 4 else 3 if h <= 6 else 4  # noqa: E731
    for j, card in enumerate(features.columns):
        mine, theirs = [k for c, k in own if c == card], [k for c, k in opp if c == card]
        hand[PAPER_ORDER.index((min(len(mine), 2), min(len(theirs), 2))), j] = 1
        hand[9 + PLAY_ORDER.index((any(k <= mana_me for k in mine), any(k <= mana_op for k in theirs))), j] = 1
        follow = 0
        for i, (c, k) in enumerate(own):
            rest = [k2 for i2, (_, k2) in enumerate(own) if i2 != i and k2 <= mana_me - k]
            if c == card and k <= mana_me and rest:
                follow = max(follow, 2 if max(rest) > 2 else 1)
        hand[13 + follow, j] = 1
        level = state.game.cards[card, F_LEVEL]
        for b in range(5):
            n_me = min(sum(m["card"] == card and bucket(m["health"]) == b for m in state.minions(me)), 2)
            n_op = min(sum(m["card"] == card and bucket(m["health"]) == b for m in state.minions(op)), 2)
            board[PAPER_ORDER.index((n_me, n_op)), j, b] = 1
            board[9 + PAPER_ORDER.index((level if n_me else 0, level if n_op else 0)), j, b] = 1
    g = np.zeros(47, np.float32)
    if mana_me:
        g[mana_me - 1] = 1
    g[10 + mana_op - 1] = 1
    hp = lambda h: 0 if h <= 6 else 1 if h <= 12 else 2 if h <= 18 else 3 if h <= 24 else 4  # noqa: E731
    g[20 + 5 * hp(state.hero(me)["health"]) + hp(state.hero(op)["health"])] = 1
    g[45] = me == 0
    g[46] = sum(m["attack"] for m in state.minions(me)) >= sum(max(m["health"], 0) for m in state.minions(op))
    return g, hand, board


@pytest.mark.parametrize("decks", [("mech_mage", "handlock"), ("face_hunter", "mech_mage"),
                                   ("handlock", "handlock")])
def test_encoding_matches_the_reference_on_played_states(decks):
    states = [s for n in (30, 90, 160) for s in midgame_states(decks, seeds=range(4), decisions=n)]
    assert any(s.minions(0) and s.minions(1) for s in states)
    for state in states:
        for player in (0, 1):
            for perfect in (True, False):
                for got, want in zip(hf.encode(state, player, perfect), reference(state, player, perfect)):
                    np.testing.assert_array_equal(got, want)


# ---- views -----------------------------------------------------------------------------------------
def test_hidden_view_counts_only_public_opponent_cards():
    opponent = [{"card": "Fireball", "origin": "known"}, "Fireball", "Flamestrike",
                {"card": "Rusty Horn", "origin": "spare_part"}]
    state = build_position(hands=(["Frostbolt"], opponent), heroes=({}, {"max_mana": 9}))
    features = hf.features_for(state.game)
    _, perfect, _ = hf.encode(state, 0, perfect=True)
    _, hidden, _ = hf.encode(state, 0, perfect=False)
    fireball, flamestrike = col(features, "Fireball"), col(features, "Flamestrike")
    assert PAPER_ORDER[hot_row(perfect[0:9])[col(features, "Rusty Horn")]] == (0, 1)
    assert PAPER_ORDER[hot_row(hidden[0:9])[col(features, "Rusty Horn")]] == (0, 0)  # only "a Spare Part" is known
    assert PAPER_ORDER[hot_row(perfect[0:9])[fireball]] == (0, 2)
    assert PAPER_ORDER[hot_row(hidden[0:9])[fireball]] == (0, 1)
    assert PAPER_ORDER[hot_row(perfect[0:9])[flamestrike]] == (0, 1)
    assert PAPER_ORDER[hot_row(hidden[0:9])[flamestrike]] == (0, 0)
    assert PLAY_ORDER[hot_row(perfect[9:13])[flamestrike]] == (False, True)
    assert PLAY_ORDER[hot_row(hidden[9:13])[flamestrike]] == (False, False)


@pytest.mark.parametrize("decks", [("mech_mage", "mech_mage"), ("handlock", "face_hunter")])
def test_views_differ_only_in_the_opponent_hand_and_hidden_is_determinization_invariant(decks):
    rng = np.random.default_rng(7)
    differed = 0
    for state in midgame_states(decks, seeds=range(6)):
        for player in (0, 1):
            g_p, h_p, b_p = hf.encode(state, player, perfect=True)
            g_h, h_h, b_h = hf.encode(state, player, perfect=False)
            np.testing.assert_array_equal(g_p, g_h)
            np.testing.assert_array_equal(b_p, b_h)
            np.testing.assert_array_equal(h_p[13:], h_h[13:])
            differed += not np.array_equal(h_p, h_h)
            for _ in range(4):
                sample = state.determinize(player, rng)
                for got, want in zip(hf.encode(sample, player, perfect=False), (g_h, h_h, b_h)):
                    np.testing.assert_array_equal(got, want)
    assert differed > 0  # the opponent's hidden cards do show in the perfect view


# ---- batches and both players ----------------------------------------------------------------------
@pytest.mark.parametrize("perfect", [True, False])
def test_batch_equals_stacked_singles_and_sparse_indices(perfect):
    states = midgame_states(("mech_mage", "handlock"), seeds=range(5), decisions=60)
    states = states + states
    players = [i % 2 for i in range(len(states))]
    batch = hf.encode_batch(states, players, perfect)
    singles = [hf.encode(s, p, perfect) for s, p in zip(states, players)]
    for part, stacked in zip(batch, zip(*singles)):
        assert part.dtype == np.float32
        np.testing.assert_array_equal(part, np.stack(stacked))
    for part, hot in zip(batch, hf.sparse_indices(states, players, perfect)):
        np.testing.assert_array_equal(np.sort(hot), np.flatnonzero(part))


def test_the_two_players_views_of_one_state_mirror_each_other():
    swap = [PAPER_ORDER.index((b, a)) for a, b in PAPER_ORDER]  # row of (P_a, P_o) -> row of (P_o, P_a)
    for state in midgame_states(("face_hunter", "handlock"), seeds=range(4), decisions=80):
        (g0, h0, b0), (g1, h1, b1) = hf.encode(state, 0), hf.encode(state, 1)
        np.testing.assert_array_equal(h1[0:9], h0[0:9][swap])
        np.testing.assert_array_equal(b1[0:9], b0[0:9][swap])
        np.testing.assert_array_equal(b1[9:18], b0[9:18][swap])
        hp0 = divmod(int(g0[hf.GV_HP:hf.GV_HP + 25].argmax()), 5)
        hp1 = divmod(int(g1[hf.GV_HP:hf.GV_HP + 25].argmax()), 5)
        assert hp1 == hp0[::-1]
        assert (g0[hf.GV_FIRST], g1[hf.GV_FIRST]) == (1, 0)


def test_the_module_does_not_import_torch():
    code = "import sys, cardboard.envs.hearth.features; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_state_of_another_match_up_is_refused():
    features = hf.features_for(HearthGame(decks=("face_hunter", "face_hunter")))
    with pytest.raises(ValueError, match="match-up"):
        features.encode(build_position(), 0)

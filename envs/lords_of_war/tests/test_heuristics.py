"""Paper 002's heuristics h1..h11 on hand-built positions, the heat maps' file, and the state after each move."""
import numpy as np
import pytest

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.lords_of_war import LordsOfWarGame, build_position
from cardboard.envs.lords_of_war import heuristics as H
from cardboard.envs.lords_of_war import layout as L

GAME = LordsOfWarGame()


def position(**changes):
    """Orc Grunts on c2 and Goblin Big Boss (Command) on e2 against Dwarf Warriors on c6; Orcs lost a Warlord
    (Command) and a Goblin Rabble, Dwarves a Miners."""
    spec = dict(board={"c2": (0, "Orc Grunts"), "e2": (0, "Goblin Big Boss"), "c6": (1, "Dwarf Warriors")},
                hands=(["Orc General"], ["Dwarf General"]),
                dead=(["Orc Warlord", "Goblin Rabble"], ["Dwarf Miners"]), player=0)
    return build_position(GAME, **(spec | changes))


def raw(state, name, player):
    return H.raw_heuristic(state.s, state.cards, H.HEAT_MAPS, H.heuristic_index(name), player)


# By hand: Orcs f1 = 2, f2 = 2, f5 = 1, f3 = 3 + 4; Dwarves f1 = 1, f2 = 1, f5 = 0, f3 = 4.
# f4: the Grunts' arrows N 2, NE 1 hit c3, d3; the Big Boss's N, NE, SE, SW, NW hit e3, f3, f1, d1, d3: 6
# squares (d3 once). The Warriors (turned for player 1) hit c5 and b5: 2.
# Heat maps, own frame: both Orcs on row 1 (c, e columns); the Warriors on Dwarf row 1, column d.
EXPECTED = {
    "h1": (0.0, 0.0), "h2": (3.5 - 4.0, 4.0 - 3.5), "h3": (4.0, -4.0), "h4": (-1.0, 1.0), "h5": (3.5, 4.0),
    "h6": (2 + 2, 2), "h7": (6 + 6, 6), "h8": (2 + 2, 2), "h9": (1 + 2, 1), "h10": (2 + 2, 2), "h11": (2 + 2, 2),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_heuristic_by_hand(name):
    state = position()
    assert (raw(state, name, 0), raw(state, name, 1)) == pytest.approx(EXPECTED[name])


def test_a_side_without_cards_counts_zero_in_the_average_defences():
    state = position(board={"c2": (0, "Orc Grunts")})
    assert raw(state, "h2", 0) == pytest.approx(3.0) and raw(state, "h5", 1) == 0.0
    assert raw(state, "h2", 1) == pytest.approx(-3.0)


def test_a_dead_command_card_counts_twice_in_h4_not_in_h1():
    state = position(dead=(["Orc Warlord"], ["Dwarf Miners"]))
    other = position(dead=(["Goblin Rabble"], ["Dwarf Miners"]))
    assert raw(state, "h1", 0) == raw(other, "h1", 0)
    assert raw(state, "h4", 0) == raw(other, "h4", 0) - 1


def test_heat_maps_are_read_in_the_owners_frame():
    """A card on its owner's back row scores the front map's 1 and the back map's 7, for either player."""
    orcs = build_position(GAME, board={"a1": (0, "Orc Grunts")}, hands=(["Orc General"], ["Dwarf General"]))
    dwarves = build_position(GAME, board={"f7": (1, "Dwarf Warriors")}, hands=(["Orc General"], ["Dwarf General"]))
    for state, p in ((orcs, 0), (dwarves, 1)):
        assert (raw(state, "h6", p), raw(state, "h7", p), raw(state, "h10", p), raw(state, "h11", p)) == (1, 7, 1, 3)


def test_heat_map_file_shapes_and_symmetries():
    maps = H.load_heat_maps()
    assert maps.shape == (6, L.ROWS, L.COLS)
    front, back, midfield, flanks, centre, edges = maps
    assert np.array_equal(front[::-1], back)
    for symmetric in (midfield, flanks, centre, edges):  # 002 §2.3: only m_a and m_b are not
        assert np.array_equal(symmetric, symmetric[::-1])
    assert not np.array_equal(front, front[::-1])
    assert len(np.unique(centre + edges)) == 1  # exact opposites


def test_evaluation_is_increasing_in_the_raw_value_and_exact_at_the_end():
    state = position()
    values = [(raw(state, n, p), state.evaluation(n)(state, p)) for n in H.NAMES for p in (0, 1)]
    for r, v in values:
        assert 0.0 < v < 1.0 and (v > 0.5) == (r > 0) and (v == 0.5) == (r == 0)
    over = state.clone()
    over.s[L.WINNER], over.s[L.PHASE] = 1, L.PH_OVER
    assert over.evaluation("h6")(over, 1) == 1.0 and over.evaluation("h6")(over, 0) == 0.0


def test_unknown_names_are_refused_with_the_list():
    with pytest.raises(InvalidParameterError, match="h1, h2"):
        position().evaluation("h12")
    with pytest.raises(InvalidParameterError):
        position().evaluations_after(position().legal_actions(), ["h4", "x"], False, np.random.default_rng(0))


def midgame(seed, moves):
    state = GAME.new_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


@pytest.mark.parametrize("seed, moves", [(1, 0), (1, 1), (2, 17), (3, 40), (4, 41), (5, 80)])
def test_evaluations_after_equals_clone_apply_evaluate(seed, moves):
    state = midgame(seed, moves)
    if state.is_terminal():
        pytest.skip("the game ended")
    legal = state.legal_actions().copy()
    before = state.clone()
    fast = state.evaluations_after(legal, H.NAMES, False, np.random.default_rng(0))
    for i, action in enumerate(legal):
        after = state.clone()
        after.apply(int(action))
        slow = [after.evaluation(n)(after, state.current_player) for n in H.NAMES]
        assert fast[:, i] == pytest.approx(slow, abs=1e-12)
    assert state == before


def test_extrapolation_plays_to_the_end_of_the_turn():
    """Ravager on c3 kills the lone Clansmen on c4 (5 > 3); the draw is the only reinforcement (nothing may be
    recalled: the Ravager fought): the extrapolated value is the finished turn's, equal for every seed."""
    state = build_position(GAME, board={"c4": (1, "Dwarf Clansmen")},
                           hands=(["Orc General", "Orc Ravager"], ["Dwarf General"]))
    legal = state.legal_actions().copy()
    ravager = [a for a in legal if "Ravager to c3" in state.action_to_string(int(a))]
    runs = [state.evaluations_after(np.array(ravager), ["h1"], True, np.random.default_rng(s)) for s in range(3)]
    after = state.clone()
    after.apply(int(ravager[0]))
    assert after.phase == "reinforce" and after.current_player == 0
    after.apply(int(after.legal_actions()[0]))
    assert after.current_player == 1
    assert all(r[0, 0] == after.evaluation("h1")(after, 0) for r in runs)
    assert state.evaluations_after(np.array(ravager), ["h1"], False, np.random.default_rng(0))[0, 0] == \
        pytest.approx(runs[0][0, 0])  # the kill is already seen before the reinforcement


def test_evaluations_after_refuses_an_illegal_action():
    state = position()
    with pytest.raises(InvalidParameterError, match="legal"):
        state.evaluations_after(np.array([L.NUM_ACTIONS - 1]), ["h1"], False, np.random.default_rng(0))


def test_extrapolation_sees_the_shot_and_the_reinforcement_a_plain_score_cannot():
    """A Catapult placed on c3 may shoot the Clansmen on c5 (missile 4 > 3) or hold fire, then draw or recall the
    Grunts: the plain score stops before the target decision; extrapolated scores are the turn's possible ends."""
    state = build_position(GAME, board={"c2": (0, "Orc Grunts"), "c5": (1, "Dwarf Clansmen")},
                           hands=(["Orc General", "Orc Catapult"], ["Dwarf General"]))
    deploy = [int(a) for a in state.legal_actions() if state.action_to_string(int(a)) == "deploy Orc Catapult to c3"]
    ends = set()
    for shot in ("shoot at c5", "hold fire"):
        for refill in ("draw", "recall from c2"):
            end = state.clone()
            end.apply(deploy[0])
            for step in (shot, refill):
                end.apply(next(int(a) for a in end.legal_actions() if end.action_to_string(int(a)) == step))
            assert end.current_player == 1
            ends.add(round(end.evaluation("h1")(end, 0), 12))
    plain = state.evaluations_after(np.array(deploy), ["h1"], False, np.random.default_rng(0))[0, 0]
    seen = {round(float(state.evaluations_after(np.array(deploy), ["h1"], True, np.random.default_rng(k))[0, 0]), 12)
            for k in range(40)}
    assert seen == ends and len(ends) == 4
    assert round(plain, 12) == round(0.5 + 0.5 * np.tanh(1 / H.SCALES[0]), 12)  # Grunts + Catapult vs Clansmen

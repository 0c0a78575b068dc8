"""Lords of War rules: one named test per rule, each from a hand-built position.

Every test builds its position with ``build_position`` (or plays from
``game.new_state(seed)`` where the rule is about the set-up or the opening)
and draws the relevant part of the mat in its docstring:

* row 7 (player 1's edge) at the top, row 1 (player 0's edge) at the bottom;
* ``o:Xxx`` is an Orc unit of player 0, ``d:Xxx`` a Dwarf unit of player 1;
* ``[o:Xxx]`` is the card the test places, ``*`` a square the test checks;
* arrows are quoted in the owner's frame (N = toward the enemy's edge) and, for
  player 1, also as the absolute direction they point on the mat (player 1's
  cards are turned 180 degrees, so its N points down the picture).

Arithmetic comes from ``armies.json``; each docstring lists the numbers used.
The tests assert behaviour only: legal action sets, the dead piles, phases,
turns, current player, observations and determinizations.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardboard.envs.errors import IllegalActionError
from cardboard.envs.lords_of_war import layout as L
from cardboard.envs.lords_of_war import observation as O
from cardboard.envs.lords_of_war import rules as R
from cardboard.envs.lords_of_war.layout import (
    A_DRAW,
    A_HOLD_FIRE,
    A_RECALL,
    A_TARGET,
    ARMY_SIZE,
    HAND_SIZE,
    MAX_TURNS,
    NUM_ACTIONS,
    NUM_SQUARES,
)
from cardboard.envs.lords_of_war.positions import build_position, square_index
from cardboard.envs.lords_of_war.state import LordsOfWarGame, square_name
from cardboard.envs.protocol import TERMINAL

GAME = LordsOfWarGame(("orcs", "dwarves"))
HOLD, DRAW = A_HOLD_FIRE, A_DRAW
ALL_SQUARES = {square_name(sq) for sq in range(NUM_SQUARES)}


# ---- helpers: name things the way the rules do -------------------------------------------------
def ego(player: int, square: str) -> int:
    """The square's index in ``player``'s own frame (the square part of an action id)."""
    sq = square_index(square)
    return sq if player == 0 else NUM_SQUARES - 1 - sq


def hand_ids(state, p: int) -> list[int]:
    s = state.s
    return [int(c) for c in s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + s[L.NHAND + p]]]


def hand(state, p: int) -> list[str]:
    return [GAME.card_names[c] for c in hand_ids(state, p)]


def deploy(state, card: str, square: str) -> int:
    """Action id: the acting player places (the first copy in hand of) ``card`` on ``square``."""
    p = int(state.s[L.PLAYER])
    slot = hand(state, p).index(card)
    return slot * NUM_SQUARES + ego(p, square)


def target(state, square: str) -> int:
    return A_TARGET + ego(int(state.s[L.PLAYER]), square)


def recall(state, square: str) -> int:
    return A_RECALL + ego(int(state.s[L.PLAYER]), square)


def at(state, square: str) -> tuple[int, str] | None:
    c = int(state.s[L.BOARD + square_index(square)])
    return None if c < 0 else (c // ARMY_SIZE, GAME.card_names[c])


def dead(state, p: int) -> list[str]:
    s = state.s
    return [GAME.card_names[c] for c in s[L.DEAD + p * ARMY_SIZE:L.DEAD + p * ARMY_SIZE + s[L.NDEAD + p]]]


def placements(state) -> set[tuple[str, str]]:
    """The legal deployments as {(card name, absolute square name)}."""
    p = int(state.s[L.PLAYER])
    names = hand(state, p)
    out = set()
    for a in state.legal_actions():
        assert a < A_TARGET, f"not a deployment: {state.action_to_string(a)}"
        slot, e = divmod(int(a), NUM_SQUARES)
        out.add((names[slot], square_name(e if p == 0 else NUM_SQUARES - 1 - e)))
    return out


def squares_for(state, card: str) -> set[str]:
    return {sq for name, sq in placements(state) if name == card}


def neighbours(square: str) -> set[str]:
    sq = square_index(square)
    return {square_name(t) for t in R.NEIGH[sq] if t >= 0}


def play(state, *actions: int):
    for a in actions:
        state.apply(a)
    return state


def known_to_opponent(state, p: int) -> int:
    """How many of p's hand cards the opponent's observation shows."""
    obs = state.observation(1 - p)
    return int(sum(obs[O.OBS_OPP_HAND + k * O.CARD_FEATURES] for k in range(HAND_SIZE)))


def opp_hand_block(state, observer: int, perfect: bool = False) -> np.ndarray:
    obs = state.observation(observer, perfect=perfect)
    return obs[O.OBS_OPP_HAND:O.OBS_NEXT]


def board_channel(state, observer: int, square: str, channel: int) -> float:
    obs = state.observation(observer)
    return float(obs[O.OBS_BOARD + ego(observer, square) * O.BOARD_CHANNELS + channel])


FOUGHT_CH = 16


def fought_squares(state, observer: int = 0) -> set[str]:
    return {sq for sq in ALL_SQUARES if board_channel(state, observer, sq, FOUGHT_CH) == 1.0}


def army_cards(p: int, command: bool | None = None) -> list[str]:
    """Player p's 36 card names in file order (optionally only / no Command cards)."""
    ids = range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE)
    return [GAME.card_names[c] for c in ids if command is None or bool(GAME.cards[c, L.F_CMD]) == command]


def spare(p: int, n: int, used: list[str], command: bool = False) -> list[str]:
    """n card names of player p not among ``used`` (copy-aware), Command or not: filler for dead piles."""
    left = Counter(army_cards(p, command))
    left.subtract(Counter(used))
    names = []
    for name in army_cards(p, command):
        if left[name] > 0:
            left[name] -= 1
            names.append(name)
    assert len(names) >= n
    return names[:n]


# ---- 1. set-up ------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_setup_hand_is_the_general_and_five_cards_with_thirty_left_in_the_deck(seed):
    """Set-up (rulebook): General + 5 cards from the shuffled deck; 30 stay in the deck; nothing on the mat.

        a     b     c     d     e     f
    7   .     .     .     .     .     .
    ...                                     (empty mat, player 0 to open)
    1   .     .     .     .     .     .
    """
    state = GAME.new_state(seed)
    s = state.s
    for p in range(2):
        ids = hand_ids(state, p)
        assert len(ids) == HAND_SIZE == 6
        assert ids == sorted(ids), "hand slots are the hand cards sorted by id"
        assert GAME.general_ids[p] in ids
        assert all(p * ARMY_SIZE <= c < (p + 1) * ARMY_SIZE for c in ids)
        assert int(s[L.NDECK + p]) == 30
        deck = [int(c) for c in s[L.DECK + p * ARMY_SIZE:L.DECK + p * ARMY_SIZE + 30]]
        assert sorted(deck + ids) == list(range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE))
        assert dead(state, p) == []
    assert all(at(state, sq) is None for sq in ALL_SQUARES)
    assert (state.turn, state.current_player, state.phase) == (0, 0, "opening")
    assert not np.array_equal(GAME.new_state(seed).s, GAME.new_state(seed + 100).s), "the deal depends on the seed"
    assert np.array_equal(GAME.new_state(seed).s, s), "the deal is reproducible"


def test_setup_general_is_known_to_the_opponent_while_in_hand():
    """Set-up: each General is public knowledge (taken out before the shuffle), the other 5 cards are hidden.

    The opponent's observation shows exactly one known hand card, with the General flag set; a
    determinization by the opponent keeps the General in hand and resamples the rest. Once the
    General is played it is no longer a known hand card.
    """
    state = GAME.new_state(7)
    for p in range(2):
        block = opp_hand_block(state, 1 - p)
        assert known_to_opponent(state, p) == 1
        assert block[11] == 1.0, "the single known card is the General (general flag)"
    rng = np.random.default_rng(0)
    other_hands = set()
    for _ in range(20):
        det = state.determinize(1, rng)
        assert GAME.general_ids[0] in hand_ids(det, 0)
        assert hand_ids(det, 1) == hand_ids(state, 1), "a player's own hand is never resampled"
        other_hands.add(tuple(hand_ids(det, 0)))
    assert len(other_hands) > 1, "the 5 hidden cards are resampled"
    play(state, deploy(state, "Orc General", "c4"))
    assert known_to_opponent(state, 0) == 0


# ---- 2. opening -----------------------------------------------------------------------------------
def test_opening_player0_places_any_hand_card_only_on_c4():
    """Issuing the challenge, turn 0: player 0 places any of its 6 hand cards, on c4 only.

        a     b     c     d     e     f
    5   .     .     .     .     .     .
    4   .     .     *     .     .     .      * = c4, player 0's opening square
    3   .     .     .     .     .     .
    """
    state = GAME.new_state(3)
    assert (state.turn, state.current_player, state.phase) == (0, 0, "opening")
    assert placements(state) == {(name, "c4") for name in hand(state, 0)}
    assert len(state.legal_actions()) == 6, "one action per hand slot (copies are separate slots)"


def test_opening_player1_places_only_on_d4_then_turn_2_is_player0s_first_normal_turn():
    """Issuing the challenge, turn 1: player 1 places on d4; each opener draws back to 6 at once.

        a     b     c     d     e     f
    5   .     .     .     .     .     .
    4   .     .    o:??   *     .     .      * = d4, player 1's opening square
    3   .     .     .     .     .     .
    """
    state = GAME.new_state(11)
    first = hand_ids(state, 0)[0]
    play(state, state.legal_actions()[0])
    assert int(state.s[L.BOARD + square_index("c4")]) == first
    assert len(hand(state, 0)) == 6 and int(state.s[L.NDECK]) == 29, "player 0 drew automatically"
    assert (state.turn, state.current_player, state.phase) == (1, 1, "opening")
    assert placements(state) == {(name, "d4") for name in hand(state, 1)}
    assert {a % NUM_SQUARES for a in state.legal_actions()} == {ego(1, "d4")} == {20}
    play(state, state.legal_actions()[-1])
    assert at(state, "d4")[0] == 1
    assert len(hand(state, 1)) == 6 and int(state.s[L.NDECK + 1]) == 29, "player 1 drew automatically"
    assert (state.turn, state.current_player, state.phase) == (2, 0, "deploy")


def _opening_standoff():
    """Both openers placed: the Orc General on c4 threatens the Dwarf Quarrellers on d4 (E3 > def 2)."""
    state = build_position(
        GAME,
        hands=(["Orc General", "Orc Spearmen", "Orc Grunts", "Orc Raiders", "Orc Ravager", "Goblin Rabble"],
               ["Dwarf Quarrellers", "Dwarf General", "Dwarf Miners", "Dwarf Warriors", "Dwarf Pikemen",
                "Dwarf Slugger"]),
        phase="opening", turn=0, player=0,
    )
    play(state, deploy(state, "Orc General", "c4"))
    play(state, deploy(state, "Dwarf Quarrellers", "d4"))
    return state


def test_opening_placements_eliminate_nothing():
    """Decision 2: no elimination in the opening turns, even when an opening card overpowers the other.

        a     b     c     d     e     f
    4   .     .    o:Gen d:Qua  .     .      Orc General E3 -> d4; Dwarf Quarrellers defence 2
    """
    state = _opening_standoff()
    assert at(state, "c4") == (0, "Orc General") and at(state, "d4") == (1, "Dwarf Quarrellers")
    assert dead(state, 0) == dead(state, 1) == []
    assert (state.turn, state.current_player, state.phase) == (2, 0, "deploy")


def test_elimination_is_global_the_opening_pair_fights_on_turn_2_wherever_player0_places():
    """Elimination is global: every unit attacks, not only the card just placed.

        a     b     c     d     e     f
    4   .     .    o:Gen d:Qua  .     .      Orc General E3 > Quarrellers defence 2
    3   .  [o:Spe]  .     .     .     .      Orc Spearmen placed on b3 (support, next to c4), far from d4
    """
    state = _opening_standoff()
    assert ("Orc Spearmen", "b3") in placements(state)
    play(state, deploy(state, "Orc Spearmen", "b3"))
    assert at(state, "d4") is None and dead(state, 1) == ["Dwarf Quarrellers"]
    assert at(state, "c4") == (0, "Orc General") and at(state, "b3") == (0, "Orc Spearmen")


# ---- 3-6. deployment -------------------------------------------------------------------------------
def test_engagement_rule_needs_an_arrow_pointing_at_an_adjacent_enemy():
    """Engagement rule: the placed card must point an arrow at an adjacent enemy; a friend nearby is not enough.

        a     b     c     d     e     f
    6   .     *     .     .     .     .
    5   .     *    d:Irb  .     .     .      Dwarf Ironbreakers (defence 6)
    4   .     *     *     .     .     .
    2   .     .     .     .    o:Gru  .      a friendly unit far away (no effect)

    Orc Deathbringer (N5 NE1): c4 (N) and b4 (NE). Orc Raiders (N3 E3): c4 (N) and b5 (E).
    No other square: e.g. d4 (Deathbringer's N/NE point at d5/e5), b6, or next to e2.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers"), "e2": (0, "Orc Grunts")},
                           hands=(["Orc Deathbringer", "Orc Raiders"], ["Dwarf General"]))
    assert placements(state) == {("Orc Deathbringer", "c4"), ("Orc Deathbringer", "b4"),
                                 ("Orc Raiders", "c4"), ("Orc Raiders", "b5")}


def test_engagement_rule_for_player1_uses_its_arrows_turned_180_degrees():
    """Player 1's cards face player 1: its N arrow points down the mat (toward row 1).

        a     b     c     d     e     f
    5   .     .     *     *     .     .
    4   .     *    o:Ber  *     .     .      Orc Berserkers (player 0)
    3   .     .     .     .     .     .

    Dwarf Warriors (N4 NE1 = absolute S, SW): c5 (S -> c4) and d5 (SW -> c4).
    Dwarf Slugger (N4 E2 W2 = absolute S, W, E): c5 (S), d4 (W -> c4) and b4 (E -> c4).
    Player 1's action ids name squares in its own frame: Warriors (slot 1) on c5 is 1*42 + (41-26) = 57.
    """
    state = build_position(GAME, board={"c4": (0, "Orc Berserkers")},
                           hands=(["Orc General"], ["Dwarf Warriors", "Dwarf Slugger"]), player=1)
    assert state.current_player == 1
    assert squares_for(state, "Dwarf Warriors") == {"c5", "d5"}
    assert squares_for(state, "Dwarf Slugger") == {"c5", "d4", "b4"}
    assert hand(state, 1) == ["Dwarf Slugger", "Dwarf Warriors"], "slots in card-id (file) order"
    assert 57 in state.legal_actions() and deploy(state, "Dwarf Warriors", "c5") == 57
    assert state.action_to_string(57) == "deploy Dwarf Warriors to c5"


def test_exception_a_support_unit_may_be_placed_next_to_a_friendly_unit():
    """Exception a: spear and ranged (support) units may go next to any friendly unit instead.

        a     b     c     d     e     f
    6   .     .     .     .    d:Irb  .      Dwarf Ironbreakers (defence 6)
    5   .     .     .     *     *     .      engagement squares: d5 (NE), e5 (N)
    3   +     +     +     .     .     .
    2   +    o:Gru  +     .     .     .      + = next to the friendly Orc Grunts
    1   +     +     +     .     .     .

    Orc Deathbringer (infantry, N5 NE1): engagement squares only. Orc Spearmen (spear, N3 NE2) and
    Goblin Bow Peets (ranged, N1): their engagement squares plus every square next to b2.
    """
    state = build_position(GAME, board={"e6": (1, "Dwarf Ironbreakers"), "b2": (0, "Orc Grunts")},
                           hands=(["Orc Deathbringer", "Orc Spearmen", "Goblin Bow Peets"], ["Dwarf General"]))
    beside_friend = neighbours("b2")
    assert squares_for(state, "Orc Deathbringer") == {"d5", "e5"}
    assert squares_for(state, "Orc Spearmen") == {"d5", "e5"} | beside_friend
    assert squares_for(state, "Goblin Bow Peets") == {"e5"} | beside_friend


def test_exception_b_with_no_enemy_on_the_mat_any_unit_may_go_next_to_a_friendly_unit():
    """Exception b: no enemy unit on the mat, so an infantry card may go next to a friend.

        a     b     c     d     e     f
    5   .     +     +     +     .     .
    4   .     +    o:Gru  +     .     .      + = legal for Orc Deathbringer (infantry)
    3   .     +     +     +     .     .
    """
    state = build_position(GAME, board={"c4": (0, "Orc Grunts")},
                           hands=(["Orc Deathbringer"], ["Dwarf General"]))
    assert placements(state) == {("Orc Deathbringer", sq) for sq in neighbours("c4")}


def test_exception_b_on_an_empty_mat_any_unit_may_go_anywhere():
    """Exception b (decision 3): no enemy and no friendly unit on the mat: any card on any of the 42 squares."""
    state = build_position(GAME, hands=(["Orc Deathbringer", "Orc General"], ["Dwarf General"]))
    assert placements(state) == {(card, sq) for card in ("Orc Deathbringer", "Orc General") for sq in ALL_SQUARES}
    assert len(state.legal_actions()) == 84
    play(state, deploy(state, "Orc Deathbringer", "f7"))
    assert known_to_opponent(state, 0) == 0, "a legal placement: the hand is not shown"


def test_no_legal_placement_any_card_may_go_next_to_an_enemy_and_the_hand_is_shown():
    """No legal placement: any hand card on any empty square next to an enemy, then the hand is shown.

        a     b     c     d     e     f
    2   .     +     +     +     .     .
    1   .     +    d:Irb  +     .     .      + = squares next to the enemy

    All of player 0's cards point only N / NE / NW and it has no unit on the mat, so nothing can
    engage the Ironbreakers on the back row: every card may go on any of the 5 '+' squares. After
    the placement the 2 cards left in hand are known to player 1: its observation shows them (the
    same block as a perfect-information observation), its determinizations keep them, and they
    stay known after player 0 draws a third, unseen card.
    """
    state = build_position(GAME, board={"c1": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Deathbringer", "Orc Ravager", "Orc Grunts"], ["Dwarf General"]))
    next_to_enemy = {"b1", "d1", "b2", "c2", "d2"}
    assert placements(state) == {(card, sq) for card in hand(state, 0) for sq in next_to_enemy}
    assert known_to_opponent(state, 0) == 0
    rng = np.random.default_rng(1)
    assert len({tuple(hand_ids(state.determinize(1, rng), 0)) for _ in range(10)}) > 1

    play(state, deploy(state, "Orc Ravager", "c2"))
    assert state.phase == "reinforce" and state.current_player == 0
    shown = sorted(hand_ids(state, 0))
    assert hand(state, 0) == ["Orc Deathbringer", "Orc Grunts"]
    assert known_to_opponent(state, 0) == 2
    np.testing.assert_array_equal(opp_hand_block(state, 1), opp_hand_block(state, 1, perfect=True))
    for _ in range(20):
        assert hand_ids(state.determinize(1, rng), 0) == shown

    play(state, DRAW)
    assert len(hand(state, 0)) == 3 and known_to_opponent(state, 0) == 2
    for _ in range(20):
        assert set(shown) <= set(hand_ids(state.determinize(1, rng), 0))


def test_no_legal_placement_and_no_free_square_next_to_an_enemy_allows_any_empty_square():
    """Decision 8: if no empty square touches an enemy either, any empty square will do (hand shown).

        a     b     c     d     e     f
    3   .     .     .     .     .     .
    2  o:Gru o:Rav  .     .     .     .
    1  d:Irb o:Gru  .     .     .     .      the only enemy is boxed in by player 0's units

    Player 0 holds only infantry (no exception a), there is an enemy (no exception b), and no arrow
    can reach a1: the card may go on any of the 38 empty squares.
    """
    state = build_position(GAME, board={"a1": (1, "Dwarf Ironbreakers"), "a2": (0, "Orc Grunts"),
                                        "b1": (0, "Orc Grunts"), "b2": (0, "Orc Ravager")},
                           hands=(["Orc Deathbringer", "Troll Smasher"], ["Dwarf General"]))
    empty = ALL_SQUARES - {"a1", "a2", "b1", "b2"}
    assert placements(state) == {(card, sq) for card in ("Orc Deathbringer", "Troll Smasher") for sq in empty}
    play(state, deploy(state, "Orc Deathbringer", "f7"))
    assert known_to_opponent(state, 0) == 1


def test_a_normal_placement_keeps_the_hand_hidden():
    """Contrast with the no-legal-placement rule: a normal placement shows nothing.

        a     b     c     d     e     f
    5   .     .    d:Irb  .     .     .
    4   .     .  [o:Dea]  .     .     .
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Deathbringer", "Orc Ravager", "Orc Grunts"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Deathbringer", "c4"))
    assert known_to_opponent(state, 0) == 0


# ---- 7. elimination --------------------------------------------------------------------------------
@pytest.mark.parametrize("card, attack, survives", [
    ("Orc Spearmen", 3, True),  # 3 = 3: survives
    ("Goblin Marauder", 4, False),  # 4 = 3 + 1: eliminated
    ("Orc Ravager", 5, False),
])
def test_elimination_needs_total_attack_strictly_greater_than_defence(card, attack, survives):
    """Elimination: total attack > defence eliminates; equal to the defence survives.

        a     b     c     d     e     f
    5   .     .    d:Cla  .     .     .      Dwarf Clansmen defence 3 (its N3 points at c4)
    4   .     .   [o:???] .     .     .      Orc Spearmen N3 (3 = 3 survives) / Goblin Marauder N4 (4 > 3)
                                             / Orc Ravager N5 (5 > 3)

    The placed card (defence 3) takes 3 from the Clansmen (3 <= 3) and survives in every case; the
    Clansmen's NW1 (absolute SE) and the placed cards' other arrows point at empty squares.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Clansmen")}, hands=([card, "Orc General"], ["Dwarf General"]))
    assert int(GAME.cards[hand_ids(state, 0)[hand(state, 0).index(card)], L.F_ATK + 0]) == attack
    play(state, deploy(state, card, "c4"))
    assert (at(state, "c5") == (1, "Dwarf Clansmen")) == survives
    assert dead(state, 1) == ([] if survives else ["Dwarf Clansmen"])
    assert at(state, "c4") == (0, card) and dead(state, 0) == []


@pytest.mark.parametrize("with_grunts", [True, False])
def test_attacks_of_several_units_add_up(with_grunts):
    """Elimination: the attacks of all adjacent enemies pointing at a unit add up.

        a     b     c     d     e     f
    5   .     .    d:Irb  .     .     .      Dwarf Ironbreakers defence 6
    4   .   o:Gru [o:Tro] .     .     .      Orc Grunts NE1 + Troll Smasher N6 = 7 > 6

    Without the Grunts, the Troll Smasher's 6 alone do not break defence 6 (6 = 6).
    The Ironbreakers' N4 / NE2 (absolute S / SW) hit the Troll Smasher (4 <= 5) and the Grunts
    (2 <= 3): no Orc dies.
    """
    board = {"c5": (1, "Dwarf Ironbreakers")}
    if with_grunts:
        board["b4"] = (0, "Orc Grunts")
    state = build_position(GAME, board=board, hands=(["Troll Smasher"], ["Dwarf General"]))
    play(state, deploy(state, "Troll Smasher", "c4"))
    assert dead(state, 1) == (["Dwarf Ironbreakers"] if with_grunts else [])
    assert dead(state, 0) == []


def test_friendly_units_never_damage_each_other():
    """Elimination: arrows pointing at a friendly unit do nothing.

        a     b     c     d     e     f
    3   .   d:Irb o:Sta   .     .     .      Goblin Stabbers defence 2
    2   .     .   [o:Rav] .     .     .      Orc Ravager N5 -> c3 (friend), NW2 -> b3 (enemy, 2 <= 6)

    The Ironbreakers' arrows (absolute S, SW, SE) put 2 on c2 (defence 3): nobody dies.
    """
    state = build_position(GAME, board={"b3": (1, "Dwarf Ironbreakers"), "c3": (0, "Goblin Stabbers")},
                           hands=(["Orc Ravager"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Ravager", "c2"))
    assert at(state, "c3") == (0, "Goblin Stabbers") and at(state, "c2") == (0, "Orc Ravager")
    assert dead(state, 0) == dead(state, 1) == []


def test_one_placement_can_eliminate_several_enemies():
    """Elimination: multi-kills. The Orc General (N5 NE4 E3 W3 NW4, defence 6) breaks three units at once.

        a     b     c     d     e     f
    5   .     .    d:Cla d:Min  .     .      Clansmen def 3 (<- N5), Miners def 3 (<- NE4)
    4   .   d:Qua [o:Gen] .     .     .      Quarrellers def 2 (<- W3)

    The General takes only the Clansmen's N3 (absolute S): 3 <= 6. The dead go to player 1's pile,
    which both observations count.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Clansmen"), "b4": (1, "Dwarf Quarrellers"),
                                        "d5": (1, "Dwarf Miners")},
                           hands=(["Orc General"], ["Dwarf General"]))
    play(state, deploy(state, "Orc General", "c4"))
    assert sorted(dead(state, 1)) == ["Dwarf Clansmen", "Dwarf Miners", "Dwarf Quarrellers"]
    assert all(at(state, sq) is None for sq in ("c5", "b4", "d5"))
    assert at(state, "c4") == (0, "Orc General") and dead(state, 0) == []
    g = O.OBS_GLOBAL + L.NUM_PHASES
    assert state.observation(0)[g + 1] == pytest.approx(3 / 20)  # enemy eliminated, as player 0 sees it
    assert state.observation(1)[g] == pytest.approx(3 / 20)  # own eliminated, as player 1 sees it
    assert int(state.s[L.NCMD + 1]) == 0


def test_suicide_move_the_placed_unit_dies_together_with_its_victim():
    """Elimination is simultaneous: a unit eliminated in this combat still deals its attack.

        a     b     c     d     e     f
    5   .     .    d:Ham  .     .     .      Dwarf Hammerers N4 (-> c4), defence 4
    4   .     .   [o:Ber] .     .     .      Orc Berserkers N5 (-> c5), defence 3

    5 > 4 and 4 > 3: both die; each goes to its owner's pile.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Hammerers")}, hands=(["Orc Berserkers"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Berserkers", "c4"))
    assert dead(state, 0) == ["Orc Berserkers"] and dead(state, 1) == ["Dwarf Hammerers"]
    assert at(state, "c4") is None and at(state, "c5") is None


def test_the_placed_unit_may_die_alone():
    """Elimination: placing a unit where it is overpowered is legal; it dies and the enemy survives.

        a     b     c     d     e     f
    5   .     .    d:Irb  .     .     .      Dwarf Ironbreakers N4 (-> c4), defence 6
    4   .     .   [o:Sta] .     .     .      Goblin Stabbers N2, defence 2: 2 <= 6, 4 > 2
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers")},
                           hands=(["Goblin Stabbers"], ["Dwarf General"]))
    play(state, deploy(state, "Goblin Stabbers", "c4"))
    assert dead(state, 0) == ["Goblin Stabbers"] and dead(state, 1) == []
    assert at(state, "c5") == (1, "Dwarf Ironbreakers")


def test_eliminated_command_cards_are_counted_separately():
    """Elimination: a dead Command card counts toward both the 20-card and the 4-Command totals.

        a     b     c     d     e     f
    5   .     .    d:Sla  .     .     .      Dwarf Slayer King (Command) N6, defence 4
    4   .     .   [o:Rav] .     .     .      Orc Ravager (Veteran) N5, defence 3: both die
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Slayer King")}, hands=(["Orc Ravager"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Ravager", "c4"))
    assert dead(state, 1) == ["Dwarf Slayer King"] and dead(state, 0) == ["Orc Ravager"]
    assert [int(state.s[L.NCMD]), int(state.s[L.NCMD + 1])] == [0, 1]
    assert [int(state.s[L.NDEAD]), int(state.s[L.NDEAD + 1])] == [1, 1]


# ---- 8. ranged attacks -----------------------------------------------------------------------------
def _catapult_position(d6_card: str = "Dwarf Quarrellers"):
    """Orc Catapult (N1, defence 2, missile 4, grid: the 9 squares in front) about to go on c3.

        a     b     c     d     e     f
    6   .     #     #    d:Qua  .     .      # = the Catapult's grid from c3 (columns b-d, rows 4-6)
    5   .     #     #     #     .     .
    4   .   o:Rai d:Gyr   #     .     .      Orc Raiders E3 -> Gyrocopter (defence 3): 3 = 3, stable
    3   .     .   [o:Cat] .     .     .      Catapult N1 -> c4

    The Gyrocopter's arrows are diagonal (b3, d3, b5, d5): they hit nobody.
    """
    return build_position(GAME, board={"b4": (0, "Orc Raiders"), "c4": (1, "Dwarf Gyrocopter"), "d6": (1, d6_card)},
                          hands=(["Orc Catapult", "Orc General"], ["Dwarf General"]))


def test_ranged_placement_with_an_enemy_in_its_grid_asks_the_same_player_for_a_target():
    """Ranged: the next decision (same player) is TARGET: one enemy in the grid, or hold fire.

    (Position: ``_catapult_position``.) Enemies in the grid: c4 and d6; b4 is in the grid but friendly.
    """
    state = _catapult_position()
    play(state, deploy(state, "Orc Catapult", "c3"))
    assert (state.phase, state.current_player) == ("target", 0)
    assert state.legal_actions().tolist() == [target(state, "c4"), target(state, "d6"), HOLD]
    assert dead(state, 0) == dead(state, 1) == [], "nothing is eliminated before the target choice"
    assert state.action_to_string(target(state, "d6")) == "shoot at d6"


@pytest.mark.parametrize("choice, p1_dead, fought, recallable", [
    # hold fire: the Catapult melees: Gyrocopter 3 (Raiders) + 1 (Catapult N1) = 4 > 3
    ("hold", ["Dwarf Gyrocopter"], {"b4", "c3"}, []),
    # shoot d6: 4 > 2 kills the Quarrellers; the shooter does not melee, so the Gyrocopter takes 3 = 3
    ("d6", ["Dwarf Quarrellers"], {"c3"}, ["b4"]),
    # shoot c4: the missile adds to the melee total on the target: 3 + 4 = 7 > 3
    ("c4", ["Dwarf Gyrocopter"], {"b4", "c3"}, []),
])
def test_a_shot_adds_to_the_targets_melee_total_and_replaces_the_shooters_melee(choice, p1_dead, fought, recallable):
    """Ranged: missile damage adds to the target's melee total; a unit that shoots does not melee;
    holding fire, its arrows count. The shooter has fought (recall condition 3) when its target died.

    (Position: ``_catapult_position``.) The Raiders on b4 fought when the Gyrocopter died, so only
    when it survives may they be recalled.
    """
    state = _catapult_position()
    play(state, deploy(state, "Orc Catapult", "c3"))
    play(state, HOLD if choice == "hold" else target(state, choice))
    assert dead(state, 1) == p1_dead and dead(state, 0) == []
    assert state.phase == "reinforce"
    assert fought_squares(state) == fought
    assert state.legal_actions().tolist() == [DRAW] + [recall(state, sq) for sq in recallable]


def test_a_shot_whose_target_survives_is_not_a_combat_that_eliminated():
    """Ranged + reinforcement: missile 4 on the Dwarf Shieldbearers (defence 4) eliminates nothing.

    (Position: ``_catapult_position`` with Shieldbearers on d6.) Nobody fought, nobody died.
    """
    state = _catapult_position("Dwarf Shieldbearers")
    play(state, deploy(state, "Orc Catapult", "c3"), target(state, "d6"))
    assert dead(state, 0) == dead(state, 1) == []
    assert fought_squares(state) == set()
    assert state.legal_actions().tolist() == [DRAW, recall(state, "b4")]


def test_a_unit_that_shot_melees_in_the_next_elimination_even_when_the_next_player_cannot_deploy():
    """Ranged + rule 12: after the shot, the Catapult's N1 counts again from the next elimination on.
    Player 1, with an empty hand, skips deployment, but its elimination phase still runs, and the
    Gyrocopter (3 from the Raiders + 1 from the Catapult = 4 > 3) falls in player 1's own turn.

    (Position: ``_catapult_position``; player 1's hand is empty.)
    """
    state = build_position(GAME, board={"b4": (0, "Orc Raiders"), "c4": (1, "Dwarf Gyrocopter"),
                                        "d6": (1, "Dwarf Quarrellers")},
                           hands=(["Orc Catapult", "Orc General"], []))
    play(state, deploy(state, "Orc Catapult", "c3"), target(state, "d6"))
    assert dead(state, 1) == ["Dwarf Quarrellers"] and at(state, "c4") == (1, "Dwarf Gyrocopter")
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (11, 1, "reinforce")
    assert dead(state, 1) == ["Dwarf Quarrellers", "Dwarf Gyrocopter"]
    assert hand(state, 1) == [] and state.legal_actions().tolist() == [DRAW]
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (12, 0, "deploy")


def test_a_ranged_unit_with_no_enemy_in_its_grid_gets_no_target_decision():
    """Ranged: no enemy in the grid, no TARGET decision (an adjacent enemy outside the grid does not count).

        a     b     c     d     e     f
    4   .     .     #     #     #     .      # = the grid of a Catapult on d1 (columns c-e, rows 2-4)
    3   .     .     #     #     #     .
    2   .     .     #     #    o:Gru  .
    1   .     .   d:Qua [o:Cat] .     .      the Quarrellers beside it are not in the grid
    6  d:Irb                                  (and an enemy far away, on a6)
    """
    state = build_position(GAME, board={"e2": (0, "Orc Grunts"), "c1": (1, "Dwarf Quarrellers"),
                                        "a6": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Catapult", "Orc General"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Catapult", "d1"))
    assert state.phase == "reinforce" and state.current_player == 0
    assert dead(state, 1) == []


def test_ranged_units_already_on_the_mat_do_not_shoot_again():
    """Ranged: only the card just placed may shoot.

        a     b     c     d     e     f
    6   .     .     .     .     .   d:Irb    Dwarf Ironbreakers defence 6
    5   .     .     .     .   [o:Dea] .      Orc Deathbringer NE1 -> f6 (placed, not ranged)
    4   .     .   d:Qua   .     .     .      in the old Catapult's grid; missile 4 would kill it (def 2)
    2   .     .   o:Cat   .     .     .      an Orc Catapult placed on an earlier turn
    """
    state = build_position(GAME, board={"c2": (0, "Orc Catapult"), "c4": (1, "Dwarf Quarrellers"),
                                        "f6": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Deathbringer"], ["Dwarf General"]))
    play(state, deploy(state, "Orc Deathbringer", "e5"))
    assert state.phase == "reinforce"
    assert at(state, "c4") == (1, "Dwarf Quarrellers") and dead(state, 1) == []


def test_player1_ranged_grid_is_turned_180_degrees():
    """Ranged, player 1: the Dwarf Axe Thrower's grid is the 6 squares behind it in its own frame,
    i.e. rows 5-6 above it on the mat (not rows 2-3 below).

        a     b     c     d     e     f
    6   .     #     #   o:Sta   .     .      Goblin Stabbers defence 2, in the grid
    5   .     #     #     #     .     .
    4   .     .   [d:Axe] .     .     .      Axe Thrower N3 (absolute S) -> c3; missile 3
    3   .     .   o:Gru   .     .     .      Orc Grunts (engaged by the N3, 3 <= 3; not in the grid)
    2   .     .   o:Gru   .     .     .      would be in the grid if it were not turned
    """
    state = build_position(GAME, board={"d6": (0, "Goblin Stabbers"), "c3": (0, "Orc Grunts"), "c2": (0, "Orc Grunts")},
                           hands=(["Orc General"], ["Dwarf Axe Thrower", "Dwarf General"]), player=1)
    play(state, deploy(state, "Dwarf Axe Thrower", "c4"))
    assert (state.phase, state.current_player) == ("target", 1)
    assert state.legal_actions().tolist() == [target(state, "d6"), HOLD] == [A_TARGET + 8, HOLD]
    play(state, target(state, "d6"))
    assert dead(state, 0) == ["Goblin Stabbers"] and at(state, "c3") == (0, "Orc Grunts")


# ---- 9. the General's extra turn ---------------------------------------------------------------
def test_eliminating_the_enemy_general_gives_an_extra_turn():
    """Extra turn: after reinforcement the same player moves again; the turn counter still counts it.

        a     b     c     d     e     f
    5   .     .    d:Gen  .     .     .      Dwarf General defence 7; its N4 (-> c4) 4 <= 5, NE3 (-> b4) 3 <= 3
    4   .   o:Spe [o:Tro] .     .     .      Orc Spearmen NE2 + Troll Smasher N6 = 8 > 7

    Then player 0's extra turn (turn 11): no enemy left, so it places next to a friend; turn 12 is
    player 1's.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf General"), "b4": (0, "Orc Spearmen")},
                           hands=(["Troll Smasher", "Orc Grunts"], ["Dwarf Thane"]))
    play(state, deploy(state, "Troll Smasher", "c4"))
    assert dead(state, 1) == ["Dwarf General"] and dead(state, 0) == []
    assert (state.phase, state.current_player) == ("reinforce", 0)
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (11, 0, "deploy")
    play(state, deploy(state, "Orc Grunts", "b3"), DRAW)
    assert (state.turn, state.current_player, state.phase) == (12, 1, "deploy")


def test_player1_also_earns_the_extra_turn_even_when_its_killer_dies_too():
    """Extra turn for player 1: its Slayer King kills the Orc General (and dies to it).

        a     b     c     d     e     f
    5   .     .   [d:Sla] .     .     .      Slayer King N6 (absolute S -> c4), defence 4
    4   .     .    o:Gen d:Slu  .     .      Slugger E2 (absolute W -> c4); Orc General def 6
    Orc General: 6 + 2 = 8 > 6. Slayer King: Orc General N5 > 4. Slugger: Orc General E3 = 3 (survives).
    """
    state = build_position(GAME, board={"c4": (0, "Orc General"), "d4": (1, "Dwarf Slugger")},
                           hands=(["Orc Warlord"], ["Dwarf Slayer King", "Dwarf Miners"]), player=1)
    play(state, deploy(state, "Dwarf Slayer King", "c5"))
    assert dead(state, 0) == ["Orc General"] and dead(state, 1) == ["Dwarf Slayer King"]
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (11, 1, "deploy")


def test_both_generals_falling_together_gives_no_extra_turn():
    """Extra turn: none when both Generals die in the same elimination.

        a     b     c     d     e     f
    5   .   o:Rai  d:Gen d:War  .     .      Raiders E3 -> c5; Warriors NE1 (absolute SW) -> c4
    4   .     .   [o:Gen] d:Slu .     .      Slugger E2 (absolute W) -> c4

    Dwarf General (def 7): 3 (Raiders) + 5 (Orc General N5) = 8. Orc General (def 6): 4 (Dwarf
    General's N) + 2 + 1 = 7. Everyone else survives at exactly their defence.
    """
    state = build_position(GAME, board={"b5": (0, "Orc Raiders"), "c5": (1, "Dwarf General"),
                                        "d5": (1, "Dwarf Warriors"), "d4": (1, "Dwarf Slugger")},
                           hands=(["Orc General", "Orc Grunts"], ["Dwarf Thane"]))
    play(state, deploy(state, "Orc General", "c4"))
    assert dead(state, 0) == ["Orc General"] and dead(state, 1) == ["Dwarf General"]
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (11, 1, "deploy")


def test_losing_your_own_general_gives_the_opponent_no_extra_turn():
    """Extra turn (decision 6): the active player's General dying in its own turn gives player 1 one turn only.

        a     b     c     d     e     f
    5   .     .    d:Tha d:War  .     .      Thane N4 (abs S -> c4); Warriors NE1 (abs SW -> c4)
    4   .     .   [o:Gen] d:Slu .     .      Slugger E2 (abs W -> c4): 4 + 1 + 2 = 7 > 6

    The Orc General's N5 (Thane def 6), E3 (Slugger def 3) and NE4 (Warriors def 4) kill nobody.
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Thane"), "d5": (1, "Dwarf Warriors"),
                                        "d4": (1, "Dwarf Slugger")},
                           hands=(["Orc General", "Orc Grunts"], ["Dwarf Miners", "Dwarf Clansmen"]))
    play(state, deploy(state, "Orc General", "c4"))
    assert dead(state, 0) == ["Orc General"] and dead(state, 1) == []
    play(state, DRAW)
    assert (state.turn, state.current_player) == (11, 1)
    while state.turn == 11:  # player 1's ordinary turn
        a = DRAW if state.phase == "reinforce" else HOLD if state.phase == "target" else state.legal_actions()[0]
        play(state, a)
    assert (state.turn, state.current_player, state.phase) == (12, 0, "deploy")


# ---- 10. reinforcement ------------------------------------------------------------------------------
def _reinforce_position(deck_tops=((), ())):
    """Player 0 places an Orc Ravager on c4 and kills the Dwarf Clansmen (5 + Spearmen's NE2 = 7 > 3).

        a     b     c     d     e     f
    6   .     .     .     .   d:Mar o:Rab    Rabble (W1 -> e6) is next to the Marauder, not engaged
    5   .     .    d:Cla  .   o:Gru   .      Grunts engaged by the Marauder's N3 (3 <= 3)
    4   .   o:Spe [o:Rav] .     .     .      Spearmen NE2 -> c5: took part in the kill
    1   .     .     .     .     .   o:Sta    far away: free

    The Dwarf Marauder (defence 4) takes Grunts N2 + Rabble W1 = 3 <= 4; its NE2 / NW1 (absolute
    SW / SE) point at the empty d5 / f5. The Clansmen's N3 (absolute S) hits the Ravager: 3 <= 3.
    """
    return build_position(
        GAME,
        board={"c5": (1, "Dwarf Clansmen"), "b4": (0, "Orc Spearmen"), "e6": (1, "Dwarf Marauder"),
               "e5": (0, "Orc Grunts"), "f6": (0, "Goblin Rabble"), "f1": (0, "Goblin Stabbers")},
        hands=(["Orc Ravager", "Orc General"], ["Dwarf General"]), deck_tops=deck_tops)


def test_reinforcement_offers_draw_and_recall_of_unengaged_units_not_placed_and_not_just_fought():
    """Reinforcement: draw, or recall a unit that is not engaged, not placed this turn and did not just fight.

    (Position: ``_reinforce_position``.) Recallable: f1 (free) and f6 (adjacent to an enemy whose
    arrows do not point at it). Not: c4 (placed), b4 (fought), e5 (engaged).
    """
    state = _reinforce_position()
    play(state, deploy(state, "Orc Ravager", "c4"))
    assert dead(state, 1) == ["Dwarf Clansmen"]
    assert (state.phase, state.current_player) == ("reinforce", 0)
    assert state.legal_actions().tolist() == [DRAW, recall(state, "f1"), recall(state, "f6")]
    assert fought_squares(state) == {"b4", "c4"}
    assert board_channel(state, 0, "e5", 15) == 1.0  # engaged
    assert board_channel(state, 0, "f6", 15) == 0.0
    play(state, DRAW)
    assert fought_squares(state) == set(), "the fought marks last one turn"


def test_draw_takes_the_top_card_unseen_by_the_opponent():
    """Reinforcement: the draw takes the top card of the deck; the opponent does not learn it.

    (Position: ``_reinforce_position`` with an Orc Warlord on top of player 0's deck.)
    """
    state = _reinforce_position(deck_tops=(["Orc Warlord"], []))
    deck_before = int(state.s[L.NDECK])
    play(state, deploy(state, "Orc Ravager", "c4"), DRAW)
    assert hand(state, 0) == ["Orc General", "Orc Warlord"]
    assert int(state.s[L.NDECK]) == deck_before - 1
    assert known_to_opponent(state, 0) == 0
    assert (state.turn, state.current_player) == (11, 1)


def test_a_recalled_unit_returns_to_hand_and_is_known_to_the_opponent():
    """Reinforcement: recall moves the unit back to hand; the opponent saw it leave the mat.

    (Position: ``_reinforce_position``.) Player 0 recalls the Goblin Rabble from f6.
    """
    state = _reinforce_position()
    deck_before = int(state.s[L.NDECK])
    play(state, deploy(state, "Orc Ravager", "c4"), recall(state, "f6"))
    assert at(state, "f6") is None
    assert hand(state, 0) == ["Orc General", "Goblin Rabble"]
    assert int(state.s[L.NDECK]) == deck_before, "a recall draws nothing"
    assert (state.turn, state.current_player) == (11, 1)
    assert known_to_opponent(state, 0) == 1
    rabble = hand_ids(state, 0)[1]
    rng = np.random.default_rng(5)
    for _ in range(20):
        assert rabble in hand_ids(state.determinize(1, rng), 0)


def _empty_deck_position(layout: str):
    """Player 0's deck is empty: 11 units on the mat, its 6 Command cards in hand, 19 in the dead pile.

    layout "engaged": every player-0 unit is engaged; player 0 places an Orc Shaman on b3 (support,
    next to friends; its grid, rows 5-6, is empty):

        a     b     c     d     e     f
    5   .     .     .     .     .     .
    4  d:Shi d:Min d:Min d:Axe d:Axe d:Cla   every P1 card here points N (absolute S) at row 3
    3  o:Sta [o:Sha] o:Ran o:Ran o:Gru o:Gru
    2  d:Qua d:Qua d:Cro d:Cro d:Fla d:Fla   every P1 card here points N (absolute S) at row 1
    1  o:Cat o:Cat o:Bal o:Bal o:Bow o:Bow

    Row 3 takes: a3 the Shieldbearers' N2 (Stabbers def 2); b3 Miners N3 + the Shieldbearers' NW1
    (absolute SE) = 4 (Shaman def 4); c3-f3 the N3 of the Miners, Axe Throwers and Clansmen (def 3
    each; the Clansmen's NW1, absolute SE, points off the mat). Row 4 takes: a4 Stabbers N2 = 2
    (Shieldbearers def 4); b4 Shaman N2 + Rangers NW1, c4 Rangers N2 + NW1, d4 Rangers NE1 + N2,
    e4 Rangers NE1 + Grunts N2, f4 Grunts NE1 + N2: 3 each (def 3). Row 1 takes the Quarrellers' N2,
    the Crossbowmen's N2 and the Flame Cannons' N1 (def 2, 2, 3, 3, 2, 2); row 2 takes the row-1
    N1s (def 2, 2, 3, 3, 4, 4).

    layout "free": the same without the Flame Cannon on f2, so the Bow Peets on f1 are not engaged.

    layout "fought": f2 empty, b3 empty, Goblin Stabbers (N2 NW1) on f1 instead; player 0 places its
    Orc General on f2, whose W3 kills the Flame Cannon on e2 (1 + 1 + 3 = 5 > 4):

    2  ...   d:Cro d:Fla [o:Gen]             e1 (N1) and f1 (NW1) took part: free, but they just fought
    1  ...   o:Bal o:Bow o:Sta

    All other totals stay at or below the defences.
    """
    rows = [  # column: (row 1 player 0, row 2 player 1, row 3 player 0, row 4 player 1)
        ("Orc Catapult", "Dwarf Quarrellers", "Goblin Stabbers", "Dwarf Shieldbearers"),
        ("Orc Catapult", "Dwarf Quarrellers", None, "Dwarf Miners"),
        ("Orc Siege Ballista", "Dwarf Crossbowmen", "Orc Rangers", "Dwarf Miners"),
        ("Orc Siege Ballista", "Dwarf Crossbowmen", "Orc Rangers", "Dwarf Axe Thrower"),
        ("Goblin Bow Peets", "Dwarf Flame Cannon", "Orc Grunts", "Dwarf Axe Thrower"),
        ("Goblin Bow Peets", "Dwarf Flame Cannon", "Orc Grunts", "Dwarf Clansmen"),
    ]
    if layout != "engaged":
        rows[5] = (rows[5][0], None, *rows[5][2:])
    if layout == "fought":
        rows[5] = ("Goblin Stabbers", *rows[5][1:])
    board = {}
    for col, column in zip("abcdef", rows):
        for row, p, name in zip("1234", (0, 1, 0, 1), column):
            if name is not None:
                board[col + row] = (p, name)
    commands = army_cards(0, command=True)
    on_mat = [name for p, name in board.values() if p == 0]
    state = build_position(GAME, board=board, hands=(commands, ["Dwarf General"]),
                           dead=(spare(0, 19, on_mat), []))
    assert int(state.s[L.NDECK]) == 0 and int(state.s[L.NDEAD]) == 19 and int(state.s[L.NCMD]) == 0
    return state


def test_with_an_empty_deck_and_nothing_to_recall_the_turn_passes_without_a_decision():
    """Reinforcement: no card to draw and no unit that may be recalled: the turn passes at once.

    (Position: ``_empty_deck_position("engaged")``.)
    """
    state = _empty_deck_position("engaged")
    assert ("Orc Shaman", "b3") in placements(state)
    play(state, deploy(state, "Orc Shaman", "b3"))
    assert dead(state, 1) == [] and int(state.s[L.NDEAD]) == 19
    assert len(hand(state, 0)) == 5
    assert (state.turn, state.current_player, state.phase) == (11, 1, "deploy")


def test_with_an_empty_deck_only_recall_is_offered():
    """Reinforcement: with an empty deck the only options are recalls.

    (Position: ``_empty_deck_position("free")``: the Bow Peets on f1 are not engaged.)
    """
    state = _empty_deck_position("free")
    play(state, deploy(state, "Orc Shaman", "b3"))
    assert (state.phase, state.current_player) == ("reinforce", 0)
    assert state.legal_actions().tolist() == [recall(state, "f1")]
    play(state, recall(state, "f1"))
    assert "Goblin Bow Peets" in hand(state, 0) and (state.turn, state.current_player) == (11, 1)


def test_with_an_empty_deck_units_that_just_fought_cannot_be_recalled_and_the_turn_passes():
    """Reinforcement: recall condition 3 decides whether there is a decision at all.

    (Position: ``_empty_deck_position("fought")``.) After the Flame Cannon dies, e1 and f1 are
    no longer engaged, but both took part in its elimination; the General was just placed.
    """
    state = _empty_deck_position("fought")
    assert ("Orc General", "f2") in placements(state)
    play(state, deploy(state, "Orc General", "f2"))
    assert dead(state, 1) == ["Dwarf Flame Cannon"] and int(state.s[L.NDEAD]) == 19
    assert (state.turn, state.current_player, state.phase) == (11, 1, "deploy")


# ---- 11. winning -------------------------------------------------------------------------------------
def _finish(state):
    """Assert the state is a finished game that refuses every further action."""
    assert state.is_terminal() and state.phase == "over" and state.current_player == TERMINAL
    assert state.legal_actions().tolist() == []
    before = state.s.copy()
    for a in (0, DRAW, HOLD, A_RECALL):
        with pytest.raises(IllegalActionError):
            state.apply(a)
    np.testing.assert_array_equal(state.s, before)


def test_the_twentieth_eliminated_card_wins_the_game():
    """Win: eliminating a 20th enemy card wins at once (no reinforcement decision).

        a     b     c     d     e     f
    5   .     .    d:Cla  .     .     .      player 1 has lost 19 cards already; Clansmen def 3
    4   .     .   [o:Rav] .     .     .      Ravager N5 > 3
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Clansmen")}, hands=(["Orc Ravager"], ["Dwarf General"]),
                           dead=([], spare(1, 19, ["Dwarf Clansmen"])))
    play(state, deploy(state, "Orc Ravager", "c4"))
    assert int(state.s[L.NDEAD + 1]) == 20 and int(state.s[L.WINNER]) == 0
    assert state.winner() == 0
    np.testing.assert_array_equal(state.returns(), [1.0, -1.0])
    assert state.heuristic(0) == 1.0 and state.heuristic(1) == -1.0
    _finish(state)


def test_the_fourth_eliminated_command_card_wins_the_game():
    """Win: eliminating the 4th enemy Command card wins, even though the attacker dies too.

        a     b     c     d     e     f
    5   .     .    d:Sla  .     .     .      player 1 has lost 3 Command cards; Slayer King (Command) def 4
    4   .     .   [o:Rav] .     .     .      Ravager N5 > 4; Slayer King N6 > 3 kills the Ravager
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Slayer King")}, hands=(["Orc Ravager"], ["Dwarf General"]),
                           dead=([], ["Dwarf Thane", "Dwarf Runelord", "Dwarf Ironbreaker Captain"]))
    play(state, deploy(state, "Orc Ravager", "c4"))
    assert int(state.s[L.NCMD + 1]) == 4 and int(state.s[L.NDEAD + 1]) == 4
    assert state.winner() == 0
    np.testing.assert_array_equal(state.returns(), [1.0, -1.0])
    _finish(state)


@pytest.mark.parametrize("placed, enemy, own_pile", [
    ("Goblin Stabbers", "Dwarf Ironbreakers", "19 cards"),
    ("Goblin Big Boss", "Dwarf Slayer King", "3 Command"),
])
def test_losing_your_own_twentieth_card_or_fourth_command_card_loses(placed, enemy, own_pile):
    """Win: the active player's own 20th loss (or 4th Command loss) ends the game in the opponent's favour.

        a     b     c     d     e     f
    5   .     .    d:???  .     .     .      Ironbreakers (N4, def 6) / Slayer King (N6, def 4)
    4   .     .   [o:???] .     .     .      Goblin Stabbers (N2, def 2) / Goblin Big Boss (Command, N4, def 4)

    Player 0 has lost 19 cards / 3 Command cards; its placed card dies alone (4 > 2 / 6 > 4), the
    enemy survives (2 <= 6 / 4 <= 4).
    """
    pile = spare(0, 19, [placed]) if own_pile == "19 cards" else ["Orc Warlord", "Orc Shaman", "Orc Doom Drummer"]
    state = build_position(GAME, board={"c5": (1, enemy)}, hands=([placed], ["Dwarf General"]), dead=(pile, []))
    play(state, deploy(state, placed, "c4"))
    assert at(state, "c5") == (1, enemy) and dead(state, 0)[-1] == placed
    assert state.winner() == 1
    np.testing.assert_array_equal(state.returns(), [-1.0, 1.0])
    assert state.heuristic(0) == -1.0 and state.heuristic(1) == 1.0
    _finish(state)


@pytest.mark.parametrize("p1_victim, p1_dead", [
    ("Dwarf Hammerers", "19 cards"),  # both reach 20 cards
    ("Dwarf Slayer King", "3 Command"),  # player 0 reaches 20 cards, player 1 loses its 4th Command card
])
def test_both_players_losing_in_the_same_elimination_is_a_draw(p1_victim, p1_dead):
    """Win (decision 7): both sides reach a loss condition at once: a draw, returns [0, 0].

        a     b     c     d     e     f
    5   .     .    d:???  .     .     .      Hammerers (N4, def 4) / Slayer King (N6, def 4)
    4   .     .   [o:Ber] .     .     .      Orc Berserkers N5, def 3: a suicide move

    Player 0 has lost 19 cards; player 1 has lost 19 cards or 3 Command cards.
    """
    p1_pile = (spare(1, 19, [p1_victim]) if p1_dead == "19 cards"
               else ["Dwarf Thane", "Dwarf Runelord", "Dwarf Ironbreaker Captain"])
    state = build_position(GAME, board={"c5": (1, p1_victim)}, hands=(["Orc Berserkers"], ["Dwarf General"]),
                           dead=(spare(0, 19, ["Orc Berserkers"]), p1_pile))
    play(state, deploy(state, "Orc Berserkers", "c4"))
    assert int(state.s[L.WINNER]) == 2 and state.winner() is None
    np.testing.assert_array_equal(state.returns(), [0.0, 0.0])
    _finish(state)


# ---- 12. empty hand, turn cap -------------------------------------------------------------------------
def test_an_empty_hand_skips_deployment_but_the_elimination_phase_still_runs():
    """Rule 12: player 0's turn starts with an empty hand: no deployment; elimination runs; then it draws.

    (The natural case is the Catapult one: test_a_unit_that_shot_melees_in_the_next_elimination_...;
    here ``build_position`` settles a deploy position with nothing in hand the same way.)

        a     b     c     d     e     f
    5   .     .    d:Cla  .     .     .      Dwarf Clansmen def 3 (its N3 points at c4: 3 <= 3)
    4   .   o:Spe o:Rav   .     .     .      Spearmen NE2 + Ravager N5 = 7 > 3: unresolved yet
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Clansmen"), "b4": (0, "Orc Spearmen"),
                                        "c4": (0, "Orc Ravager")},
                           hands=([], ["Dwarf General"]))
    assert dead(state, 1) == ["Dwarf Clansmen"]
    assert (state.turn, state.current_player, state.phase) == (10, 0, "reinforce")
    assert state.legal_actions().tolist() == [DRAW], "both units fought, so neither may be recalled"
    play(state, DRAW)
    assert (state.turn, state.current_player, state.phase) == (11, 1, "deploy")


@pytest.mark.parametrize("start, over", [(MAX_TURNS - 1, True), (MAX_TURNS - 2, False)])
def test_the_game_is_a_draw_when_it_reaches_400_turns(start, over):
    """Decision 11: the turn that brings the counter to 400 ends the game in a draw.

        a     b     c     d     e     f
    1  [o:Gru]  .     .     .     .     .    an empty mat: the Grunts may go anywhere
    """
    state = build_position(GAME, hands=(["Orc Grunts"], ["Dwarf General"]), turn=start)
    play(state, deploy(state, "Orc Grunts", "a1"), DRAW)
    assert state.turn == start + 1
    if over:
        assert state.winner() is None and int(state.s[L.WINNER]) == 2
        np.testing.assert_array_equal(state.returns(), [0.0, 0.0])
        _finish(state)
    else:
        assert not state.is_terminal() and state.current_player == 1


# ---- 13. illegal actions --------------------------------------------------------------------------------
def _engagement_position():
    return build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers"), "e2": (0, "Orc Grunts")},
                          hands=(["Orc Deathbringer", "Orc Raiders"], ["Dwarf General"]))


@pytest.mark.parametrize("bad", [
    pytest.param(lambda st: deploy(st, "Orc Deathbringer", "d4"), id="deploy-without-engaging"),
    pytest.param(lambda st: deploy(st, "Orc Raiders", "c5"), id="deploy-on-an-occupied-square"),
    pytest.param(lambda st: 5 * NUM_SQUARES + ego(0, "c4"), id="empty-hand-slot"),
    pytest.param(lambda st: DRAW, id="draw-in-deploy-phase"),
    pytest.param(lambda st: HOLD, id="hold-fire-in-deploy-phase"),
    pytest.param(lambda st: target(st, "c5"), id="target-in-deploy-phase"),
    pytest.param(lambda st: recall(st, "e2"), id="recall-in-deploy-phase"),
    pytest.param(lambda st: -1, id="negative"),
    pytest.param(lambda st: NUM_ACTIONS, id="num-actions"),
    pytest.param(lambda st: 10**12, id="huge"),
    pytest.param(lambda st: 1.0 * deploy(st, "Orc Deathbringer", "c4"), id="float"),
    pytest.param(lambda st: str(deploy(st, "Orc Deathbringer", "c4")), id="string"),
    pytest.param(lambda st: None, id="none"),
    pytest.param(lambda st: [deploy(st, "Orc Deathbringer", "c4")], id="list"),
])
def test_illegal_actions_raise_and_leave_the_state_unchanged(bad):
    """Rule 13: IllegalActionError, and the state (and its legal actions) unchanged.

    (Position: the engagement-rule position: Ironbreakers on c5, Grunts on e2.) Afterwards a legal
    deployment given as a numpy integer is played: Orc Raiders on b5 (E3 -> c5: 3 <= 6), a square
    none of the Ironbreakers' arrows (absolute S, SW, SE) reaches, so the Raiders stay on the mat.
    """
    state = _engagement_position()
    legal = state.legal_actions().copy()
    before = state.s.copy()
    action = bad(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    np.testing.assert_array_equal(state.s, before)
    np.testing.assert_array_equal(state.legal_actions(), legal)
    state.apply(np.int64(deploy(state, "Orc Raiders", "b5")))  # numpy integers are fine
    assert at(state, "b5") == (0, "Orc Raiders") and dead(state, 0) == dead(state, 1) == []


def test_illegal_actions_in_the_target_and_reinforce_phases_raise():
    """Rule 13 in the later phases: a target outside the grid / on a friend, a deployment while targeting,
    a recall of a placed unit. (Position: ``_catapult_position``.)"""
    state = _catapult_position()
    play(state, deploy(state, "Orc Catapult", "c3"))
    for a in (target(state, "b4"), target(state, "f7"), deploy(state, "Orc General", "e5"), DRAW):
        before = state.s.copy()
        with pytest.raises(IllegalActionError):
            state.apply(a)
        np.testing.assert_array_equal(state.s, before)
    play(state, target(state, "d6"))
    for a in (recall(state, "c3"), HOLD, target(state, "c4")):
        before = state.s.copy()
        with pytest.raises(IllegalActionError):
            state.apply(a)
        np.testing.assert_array_equal(state.s, before)


# ---- 14. player 1's cards are turned ---------------------------------------------------------------------
def test_player1_arrows_are_the_data_files_arrows_turned_180_degrees():
    """Rule 14: the card table holds player 1's arrows turned by 180 degrees, and the picture shows them.

        a     b     c     d     e     f
    5   .     .    d:Mar  .     .     .      Dwarf Marauder N3 NE2 NW1 = absolute S3, SW2, SE1
    4   .     .    o:Rav  .     .     .      Orc Ravager N5 NE2 NW2 as in the file
    """
    for p in range(2):
        for i, t in enumerate(GAME.armies[p].card_types()):
            c = p * ARMY_SIZE + i
            turned = [int(GAME.cards[c, L.F_ATK + (d if p == 0 else (d + 4) % 8)]) for d in range(8)]
            assert turned == list(t.attack)
    state = build_position(GAME, board={"c5": (1, "Dwarf Marauder"), "c4": (0, "Orc Ravager")},
                           hands=(["Orc General"], ["Dwarf General"]))
    lines = GAME.render_ansi(state).splitlines()
    row5 = next(i for i, line in enumerate(lines) if line.startswith(" 5 "))
    row4 = next(i for i, line in enumerate(lines) if line.startswith(" 4 "))
    cell = slice(3 + 2 * 10 + 1, 3 + 3 * 10)  # column c
    assert lines[row5 - 1][cell] == ".   .   ."  # nothing points up (N) from the Dwarf
    assert lines[row5 + 1][cell] == "2   3   1"  # SW2, S3, SE1
    assert lines[row4 - 1][cell] == "2   5   2"  # NW2, N5, NE2
    assert lines[row4 + 1][cell] == ".   .   ."


# ---- 15. heuristic ----------------------------------------------------------------------------------------
def test_heuristic_is_h4_card_balance_scaled_by_24_and_clipped():
    """Rule 15: h4 = (own mat cards - own dead - own dead Command) - the same for the opponent, / 24.

        a     b     c     d     e     f
    7   .     .     .     .     .   d:Min    player 1: 1 on the mat, lost 4 (2 Command): 1 - 4 - 2 = -5
    ...
    1  o:Gru o:Gru o:Rav  .     .     .      player 0: 3 on the mat, lost 2 (1 Command): 3 - 2 - 1 = 0

    h4(0) = (0 - (-5)) / 24. Second position: player 1 has nothing on the mat and has lost 19 cards
    (3 Command): 3 - (-22) = 25 > 24, clipped to 1 although nobody has won yet.
    """
    state = build_position(GAME, board={"a1": (0, "Orc Grunts"), "b1": (0, "Orc Grunts"), "c1": (0, "Orc Ravager"),
                                        "f7": (1, "Dwarf Miners")},
                           hands=(["Orc General"], ["Dwarf General"]),
                           dead=(["Orc Warlord", "Goblin Rabble"],
                                 ["Dwarf Thane", "Dwarf Runelord", "Dwarf Clansmen", "Dwarf Clansmen"]))
    assert state.heuristic(0) == pytest.approx(5 / 24)
    assert state.heuristic(1) == pytest.approx(-5 / 24)
    big = build_position(GAME, board={"a1": (0, "Orc Grunts"), "b1": (0, "Orc Grunts"), "c1": (0, "Orc Ravager")},
                         hands=(["Orc General"], ["Dwarf General"]),
                         dead=([], ["Dwarf Thane", "Dwarf Runelord", "Dwarf Slayer King"] + spare(1, 16, [])))
    # player 0: 3; player 1: 0 - 19 - 3 = -22; difference 25 > 24: clipped, though the game is not over
    assert not big.is_terminal()
    assert big.heuristic(0) == 1.0 and big.heuristic(1) == -1.0


# ---- naming -------------------------------------------------------------------------------------------------
def test_actions_are_named_in_absolute_squares_and_copies_share_a_soft_key():
    """Names and soft keys: two copies of the same card on the same square are the same move.

        a     b     c     d     e     f
    5   .     .    d:Irb  .     .     .
    4   .     .     *     .     .     .      either Orc Grunts on c4
    """
    state = build_position(GAME, board={"c5": (1, "Dwarf Ironbreakers")},
                           hands=(["Orc Grunts", "Orc Grunts"], ["Dwarf General"]))
    a0, a1 = 0 * NUM_SQUARES + ego(0, "c4"), 1 * NUM_SQUARES + ego(0, "c4")
    assert {a0, a1} <= set(state.legal_actions().tolist())
    assert state.action_key(a0) == state.action_key(a1)
    assert state.action_to_string(a0) == state.action_to_string(a1) == "deploy Orc Grunts to c4"
    assert state.action_to_string(DRAW) == "draw" and state.action_to_string(HOLD) == "hold fire"

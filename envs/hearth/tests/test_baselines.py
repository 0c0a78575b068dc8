"""Baselines on the Hearth game: the end-of-turn evaluation, the Greedy H(a) player, look-ahead and CNB wiring."""
import numpy as np
import pytest

import cardboard
from cardboard.evaluation.match import play_game
from cardboard.envs.hearth import layout as L
from cardboard.envs.hearth.evaluation import evaluate
from cardboard.envs.hearth.positions import build_position
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.hearth.greedy import GreedyHAgent, characters, h_value
from cardboard.policies.lookahead import LookaheadAgent


def score(state, player=0):
    return evaluate(state.s, state.cards, player)


def states_of_random_games(seeds=range(3), decks=("mech_mage", "mech_mage")):
    """Every decision state of a few random games."""
    game = cardboard.make_game("hearth", decks=decks)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            yield state
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
        yield state


# ---- evaluation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("decks", [("mech_mage", "mech_mage"), ("handlock", "face_hunter")])
def test_evaluation_is_antisymmetric_and_the_heuristic_bounded(decks):
    for state in states_of_random_games(decks=decks):
        assert evaluate(state.s, state.cards, 0) == -evaluate(state.s, state.cards, 1)
        h0, h1 = state.heuristic(0), state.heuristic(1)
        assert -1.0 <= h0 <= 1.0 and h0 == pytest.approx(-h1)


def test_terminal_values():
    """Fireball for the last 6 health wins (+1 / -1); Hellfire killing both heroes is a draw (0)."""
    won = build_position(hands=(["Fireball"], []), heroes=({}, {"health": 6}))
    won.apply(L.PLAY + 0)
    won.apply(L.TARGET + 8)
    assert won.winner() == 0 and won.heuristic(0) == 1.0 and won.heuristic(1) == -1.0
    draw = build_position(("handlock", "mech_mage"), hands=(["Hellfire"], []),
                          heroes=({"health": 3}, {"health": 3}))
    draw.apply(L.PLAY + 0)
    assert draw.is_terminal() and draw.winner() is None
    assert draw.heuristic(0) == 0.0 == draw.heuristic(1)


def test_monotonic_in_own_hero_health():
    values = [score(build_position(heroes=({"health": h}, {}))) for h in (1, 3, 6, 10, 15, 22, 30)]
    assert values == sorted(values) and len(set(values)) == len(values)
    gaps = np.diff([score(build_position(heroes=({"health": h}, {}))) for h in (1, 2, 29, 30)])
    assert gaps[0] > gaps[2]  # a point of health near death is worth more than at full health


def test_monotonic_in_own_board():
    boards = [[], ["Mechwarper"], ["Mechwarper", "Spider Tank"], ["Mechwarper", "Spider Tank", "Dr. Boom"]]
    values = [score(build_position(boards=(b, ["Spider Tank"]))) for b in boards]
    assert values == sorted(values) and len(set(values)) == len(values)
    base = {"card": "Spider Tank"}
    plain = score(build_position(boards=([base], [])))
    assert score(build_position(boards=([{**base, "health": 2}], []))) < plain
    assert score(build_position(boards=([{**base, "attack": 4}], []))) > plain
    assert score(build_position(boards=([{**base, "taunt": True}], []))) > plain
    assert score(build_position(boards=([{**base, "divine_shield": True}], []))) > plain
    assert score(build_position(boards=([{**base, "frozen": True}], []))) < plain
    assert score(build_position(boards=([], [base]))) < score(build_position())  # an enemy minion hurts


def test_weapon_trap_hand_and_jaraxxus_count():
    empty = score(build_position(("face_hunter", "mech_mage")))
    assert score(build_position(("face_hunter", "mech_mage"), heroes=({"weapon": "Eaglehorn Bow"}, {}))) > empty
    assert score(build_position(("face_hunter", "mech_mage"), heroes=({"trap": True}, {}))) > empty
    hands = [score(build_position(hands=(["Frostbolt"] * n, []))) for n in range(8)]
    steps = np.diff(hands)
    assert (steps > 0).all() and steps[-1] < steps[0]  # more cards help, with diminishing returns
    assert score(build_position(("handlock", "mech_mage"), heroes=({"jaraxxus": True}, {}))) > \
        score(build_position(("handlock", "mech_mage"), heroes=({"health": 15}, {})))


# ---- Greedy H(a) ----------------------------------------------------------------------------------
def fireball_position():
    """Own board: an exhausted Spider Tank 3/4. Enemy: a Mechanical Yeti 4/5. Player 0 holds Fireball (6)."""
    return build_position(hands=(["Fireball"], []),
                          boards=([{"card": "Spider Tank", "exhausted": True}], ["Mechanical Yeti"]))


def test_h_values_follow_equations_4_1_to_4_5():
    state = fireball_position()
    before = characters(state)
    on_yeti = state.clone()
    on_yeti.apply(L.PLAY + 0)
    on_yeti.apply(L.TARGET + 9)
    assert h_value(before, characters(on_yeti), 0, 4) == pytest.approx(5 * (4 + 1) / 5 / (4 + 1))  # Yeti dies
    on_own = state.clone()
    on_own.apply(L.PLAY + 0)
    on_own.apply(L.TARGET + 1)
    assert h_value(before, characters(on_own), 0, 4) == 0.0  # only an own loss: value 0
    face = state.clone()
    face.apply(L.PLAY + 0)
    face.apply(L.TARGET + 8)
    assert h_value(before, characters(face), 0, 4) == pytest.approx(6 * 11 / 30 / 5)  # a hero: ManaCost 10


def test_greedy_fireballs_the_enemy_minion_it_kills():
    state = fireball_position()
    agent, rng = GreedyHAgent(), np.random.default_rng(0)
    play = agent.act(state, rng)
    assert play == L.PLAY + 0
    state.apply(play)
    assert agent.act(state, rng) == L.TARGET + 9
    state.apply(L.TARGET + 9)
    assert state.minions(1) == []


def test_greedy_ends_the_turn_when_nothing_has_positive_h():
    state = build_position(boards=([{"card": "Spider Tank", "exhausted": True}], []),
                           heroes=({"power_used": True}, {}))
    assert GreedyHAgent().act(state, np.random.default_rng(0)) == L.END_TURN


def test_greedy_mulligan_keeps_cheap_cards():
    state = cardboard.new_state("hearth", seed=3)
    rng = np.random.default_rng(0)
    while state.phase == "mulligan" and not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        me = state.current_player
        costs = state.hand_costs(me)
        action = GreedyHAgent().act(state, rng)
        assert action == L.MULLIGAN + sum(1 << i for i, c in enumerate(costs) if c > 3)
        state.apply(action)


def test_greedy_and_lookahead_play_legal_games():
    game = cardboard.make_game("hearth")
    for agents in ([GreedyHAgent(), cardboard.make_agent("random")],
                   [LookaheadAgent(width=2), GreedyHAgent(samples=2)]):
        returns, turns, decisions, _ = play_game(game, agents, np.random.default_rng(1))  # apply refuses illegal
        assert sorted(returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0]) and min(decisions) > 0


# ---- look-ahead -----------------------------------------------------------------------------------
@pytest.mark.parametrize("turns", [1, 3])
def test_lookahead_finds_lethal(turns):
    """Enemy hero at 4 behind a 2/2: Spider Tank to the face (3) plus Fireblast (1) wins this turn."""
    state = build_position(boards=(["Spider Tank"], [{"card": "Spider Tank", "attack": 2, "health": 2}]),
                           heroes=({"mana": 2}, {"health": 4}))
    agent, rng = LookaheadAgent(turns=turns), np.random.default_rng(0)
    for _ in range(4):
        if state.is_terminal():
            break
        state.apply(agent.act(state, rng))
    assert state.winner() == 0


# ---- CNB ------------------------------------------------------------------------------------------
def test_cnb_option_buckets_the_draw_after_end_turn():
    """duct:cnb=1 keeps at most 5 buckets x 2 pre-samples below the opponent's draw (Mech Mage, Table 3.2)."""
    state = build_position(boards=([{"card": "Spider Tank", "exhausted": True}], []), heroes=({"mana": 2}, {}))
    agent = cardboard.make_agent("duct:worlds=2,iterations=400,depth=2,cnb=1", state.game)
    action = agent.act(state, np.random.default_rng(0))
    assert action in state.legal_actions()
    root = agent.last.root
    draw = root.child_for(root.edge(state.action_key(L.END_TURN)), CHANCE)
    assert draw.player == CHANCE and 1 <= len(draw.edges) <= 5 * 2
    assert set(draw.stats()) == {o for kept in draw.presampled.values() for o in kept}
    assert all(len(kept) <= 2 for kept in draw.presampled.values())

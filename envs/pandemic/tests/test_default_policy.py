"""The paper's scripted policies (``default_policy.py``, ``agents.py``): the hierarchical default policy of 003 §2.2
(tiers cure > treat where 3 cubes > share now > go and wait to share > build while fewer than 5 stations > treat
where 2 > treat where 1 > walk away, uniformly random within the first non-empty tier; discards by A(t)), RHEA's
mutation policy of 003 §2.3 (cure / treat 3-2-1 / share / build in a shuffled order, else any legal macro), the
agents on macro and primitive games, and the compiled ``play_default``.

Each tier test builds a position whose first non-empty tier is the one under test (with lower tiers non-empty
too) and plays the policy with many rng seeds: every pick lies in the tier and every candidate of the tier
appears (uniform choice).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pandemic_helpers import (
    BLUE, CHANCE, CITY_NAMES, L, check_invariants, city, draw, drive, game, legal, macro_game, macro_position,
    m_build, m_cure, m_discard, m_give, m_take, m_treat, m_walk, position, treat,
)

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.pandemic import macro as M
from cardboard.envs.pandemic.board import DRIVE_DISTANCE
from cardboard.envs.pandemic.default_policy import play_default
from cardboard.envs.kernels import seed_stream

SEEDS = range(120)
MEDIC_FIRST = ("medic", "operations_expert", "researcher", "scientist")




def picks(state, name="pandemic_default", seeds=SEEDS) -> Counter:
    """The agent's choice at ``state`` for each rng seed (a fresh memory each time)."""
    agent = cardboard.make_agent(name, state.game)
    out = Counter()
    for seed in seeds:
        agent.reset()
        a = agent.act(state, np.random.default_rng(seed))
        assert a in legal(state)
        out[a] += 1
    return out


def treats_with(state, cubes) -> set[int]:
    """The legal treat macros of cities holding ``cubes`` cubes of the colour."""
    out = set()
    for m in state.legal_actions().tolist():
        if M.macro_kind(m) == "treat":
            c, k = divmod(m - M.M_TREAT, L.NUM_COLOURS)
            if state.s[L.CUBES + c * L.NUM_COLOURS + k] == cubes:
                out.add(m)
    return out


def kinds(state) -> set[str]:
    return {M.macro_kind(m) for m in state.legal_actions().tolist()}


# ---- positions whose first non-empty tier is known ---------------------------------------------------------
def treat3_position():
    return macro_position(roles=MEDIC_FIRST, cubes={"Chicago": 3, "Washington": 3, "Miami": 2, "New York": 1})


def share_now_position():
    """The Medic (2 blue) in Atlanta with the Operations Expert (2 blue) and the Scientist (1 blue): giving
    Atlanta raises A(blue) now (to 3/5 or 2/4); giving Chicago means going there and waiting."""
    return macro_position(roles=MEDIC_FIRST, hands={0: ["Atlanta", "Chicago"], 1: ["London", "Madrid"], 3: ["Essen"]},
                          cubes={"Chicago": 2, "Miami": 1})


def share_wait_position():
    """The Medic in Paris (Paris, Essen: a build is possible there) and its partners in Tokyo: every share waits."""
    return macro_position(roles=MEDIC_FIRST, at={0: "Paris", 1: "Tokyo", 3: "Tokyo"},
                          hands={0: ["Paris", "Essen"], 1: ["London", "Madrid"], 3: ["Milan"]},
                          cubes={"Essen": 2, "London": 1})


def build_position(stations=("Atlanta",)):
    """The Medic in Paris holding Paris and Milan (both at least 4 drives from every station), 2 cubes in Essen."""
    return macro_position(roles=MEDIC_FIRST, at={0: "Paris"}, hands={0: ["Paris", "Milan"]},
                          cubes={"Essen": 2, "London": 1}, stations=list(stations))


def walk_position(cubes=None, **kw):
    return macro_position(roles=MEDIC_FIRST, cubes={"Karachi": 3, **(cubes or {})}, **kw)  # Karachi: 7 drives


# ---- the tiers (003 §2.2) --------------------------------------------------------------------------------------
def test_tier_1_cure_first():  # 003 §2.2 (1)
    state = macro_position(roles=("scientist", "medic", "researcher", "operations_expert"),
                           hands={0: ["Washington", "New York", "Montreal", "London", "Lima", "Bogota", "Santiago"]},
                           stations=["Atlanta", "Chicago"], cubes={"Miami": 3, "Chicago": 1})
    assert treats_with(state, 3)  # a lower tier is there too
    cures = {m for m in state.legal_actions().tolist() if M.macro_kind(m) == "cure"}
    assert cures == {m_cure("Atlanta", BLUE), m_cure("Chicago", BLUE)}
    assert set(picks(state)) == cures


def test_tier_2_treat_where_three_cubes():  # 003 §2.2 (2)
    state = treat3_position()
    assert treats_with(state, 3) == {m_treat("Chicago"), m_treat("Washington")} and treats_with(state, 2)
    assert set(picks(state)) == {m_treat("Chicago"), m_treat("Washington")}


def test_tier_3_share_with_immediate_effect():  # 003 §2.2 (3)
    state = share_now_position()
    now = {m_give(1, "Atlanta"), m_give(3, "Atlanta")}
    wait = {m_give(1, "Chicago"), m_give(3, "Chicago")}
    shares = {m for m in state.legal_actions().tolist() if M.macro_kind(m) in ("give", "take")}
    assert shares == now | wait and treats_with(state, 2)
    assert set(picks(state)) == now


def test_tier_3_otherwise_go_and_wait_to_share_before_building():  # 003 §2.2 (3) before (4)
    state = share_wait_position()
    shares = {m for m in state.legal_actions().tolist() if M.macro_kind(m) in ("give", "take")}
    assert shares == {m_give(1, "Paris"), m_give(1, "Essen"), m_give(3, "Paris"), m_give(3, "Essen")}
    assert {m_build("Paris"), m_build("Essen")} <= set(state.legal_actions().tolist())
    assert set(picks(state)) == shares


def test_tier_4_build_while_fewer_than_five_stations():  # 003 §2.2 (4)
    state = build_position()
    assert treats_with(state, 2) and "give" not in kinds(state) and "take" not in kinds(state)
    assert set(picks(state)) == {m_build("Paris"), m_build("Milan")}
    far = ["Atlanta", "Tokyo", "Lima", "Sydney", "Johannesburg"]
    assert all(DRIVE_DISTANCE[city(c), city(x)] >= 4 for c in far for x in ("Paris", "Milan"))
    four = build_position(far[:4])
    assert set(picks(four)) == {m_build("Paris"), m_build("Milan")}
    five = build_position(far)  # the macros are legal (fewer than 6) but the policy does not build
    assert {m_build("Paris"), m_build("Milan")} <= set(five.legal_actions().tolist())
    assert set(picks(five)) == {m_treat("Essen")}


def test_tiers_5_and_6_treat_where_two_then_one():  # 003 §2.2 (5), (6)
    two = macro_position(roles=MEDIC_FIRST, cubes={"Miami": 2, "Washington": 2, "New York": 1, "Karachi": 3})
    assert set(picks(two)) == {m_treat("Miami"), m_treat("Washington")}
    one = macro_position(roles=MEDIC_FIRST, cubes={"New York": 1, "Chicago": 1, "Karachi": 3})
    assert set(picks(one)) == {m_treat("New York"), m_treat("Chicago")}


def test_tier_7_walks_away_never_ends_early():  # 003 §2.2 (7): "move randomly, using all remaining actions"
    state = walk_position()
    assert set(picks(state)) == {m_walk("Chicago"), m_walk("Washington"), m_walk("Miami")}


def test_walk_away_keeps_walking_for_the_rest_of_the_turn():  # 003 §2.2 (7)
    for seed in range(10):
        rng = np.random.default_rng(seed)
        agent = cardboard.make_agent("pandemic_default", macro_game(4))
        state = walk_position()
        first = agent.act(state, rng)
        assert M.M_WALK <= first < M.M_PASS
        here = CITY_NAMES[first - M.M_WALK]
        # the next decision, where 3 cubes now wait: the walker walks on, a fresh policy would treat
        there = walk_position(at={0: here}, actions_left=3, cubes={here: 3})
        assert M.M_WALK <= agent.act(there, rng) < M.M_PASS
        assert cardboard.make_agent("pandemic_default", macro_game(4)).act(there, rng) == m_treat(here)
        # another turn: no walking
        later = macro_position(roles=MEDIC_FIRST, current_player=1, turn=1, cubes={"Atlanta": 3})
        assert agent.act(later, rng) == m_treat("Atlanta")
        # played out: four walks, then the draw
        agent.reset()
        state = walk_position()
        walks = 0
        while state.current_player == 0:
            m = agent.act(state, rng)
            assert M.M_WALK <= m < M.M_PASS
            state.apply(m)
            walks += 1
        assert walks == 4 and state.current_player == CHANCE


def limit_position():
    """The Medic draws Tokyo and Osaka to 9 cards: its red and black cards cost nothing (the Operations Expert holds
    3 of each), each blue or yellow one 1/5 of A(t)."""
    state = macro_position(roles=MEDIC_FIRST, hands={
        0: ["Atlanta", "Chicago", "Essen", "Lima", "Bogota", "Cairo", "Delhi"],
        1: ["Seoul", "Shanghai", "Beijing", "Moscow", "Tehran", "Karachi"]})
    state.apply(M.M_PASS)
    draw(state, "Tokyo", "Osaka")
    assert state.phase == "limit_discard" and state.current_player == 0
    return state


@pytest.mark.parametrize("name", ["pandemic_default", "pandemic_mutator"])
def test_hand_limit_discards_the_card_whose_loss_lowers_a_least(name):  # 003 §1.7: the discard metric
    state = limit_position()
    losses = np.empty(L.NUM_CITIES)
    M.discard_losses(state.s, state.cards, 0, losses)
    cheapest = {M.M_DISCARD + c for c in range(L.NUM_CITIES) if losses[c] == losses.min()}
    assert cheapest == {m_discard(c) for c in ("Tokyo", "Osaka", "Cairo", "Delhi")}
    assert losses[city("Atlanta")] == pytest.approx(1 / 5) and losses[city("Lima")] == pytest.approx(1 / 5)
    assert set(picks(state, name)) == cheapest  # ties at random
    state.apply(m_discard("Tokyo"))
    assert state.phase == "limit_discard"
    assert set(picks(state, name)) == {m_discard(c) for c in ("Osaka", "Cairo", "Delhi")}


# ---- the mutation policy (003 §2.3) ------------------------------------------------------------------------------
def all_sets_position():
    """The Operations Expert at the Atlanta station with 5 blue cards (a cure), Lagos (spendable: the Medic holds
    Kinshasa), the Medic in Kinshasa (taking Kinshasa raises A(yellow)), 3 cubes in Washington, 1 in Chicago, and
    builds anywhere far (the station move)."""
    return macro_position(roles=("operations_expert", "medic", "researcher", "scientist"), at={1: "Kinshasa"},
                          hands={0: ["Chicago", "Washington", "New York", "Montreal", "London", "Lagos"],
                                 1: ["Kinshasa"]},
                          cubes={"Washington": 3, "Chicago": 1})


def test_mutation_policy_draws_from_each_set_first_in_a_shuffled_order():  # 003 §2.3 mutation
    state = all_sets_position()
    legal_now = set(state.legal_actions().tolist())
    assert m_cure("Atlanta", BLUE) in legal_now and m_take(1, "Kinshasa") in legal_now
    assert m_treat("Washington") in legal_now and m_treat("Chicago") in legal_now
    assert any(M.macro_kind(m) == "build" for m in legal_now)
    got = picks(state, "pandemic_mutator", range(200))
    by_kind = Counter()
    for m, n in got.items():
        by_kind[M.macro_kind(m)] += n
    assert set(by_kind) == {"cure", "treat", "take", "build"}  # each set drawn first sometimes, never a walk/pass
    assert all(25 <= n <= 100 for n in by_kind.values())  # about a quarter each (50 of 200)
    treats = {m for m in got if M.macro_kind(m) == "treat"}
    assert treats == {m_treat("Washington")}  # 3 cubes, else 2, else 1
    dp = picks(state)  # the default policy, by contrast, always cures first
    assert set(dp) == {m_cure("Atlanta", BLUE)}


def test_mutation_policy_treats_two_before_one():  # 003 §2.3: "3-cube cities if any exist, else 2-cube, else 1-cube"
    state = macro_position(roles=MEDIC_FIRST, cubes={"Miami": 2, "New York": 1})
    assert set(picks(state, "pandemic_mutator")) == {m_treat("Miami")}


def test_mutation_policy_falls_back_to_any_legal_macro():  # the authors' code's fallback (003 notes §2.3)
    state = walk_position()
    got = picks(state, "pandemic_mutator")
    assert set(got) == {m_walk("Chicago"), m_walk("Washington"), m_walk("Miami"), M.M_PASS}


# ---- primitive games ----------------------------------------------------------------------------------------
def test_on_a_primitive_game_the_policy_plays_a_macro_step_by_step():  # agents.py: a route is not abandoned
    state = position(roles=MEDIC_FIRST, cubes={"Chicago": 3, "Washington": 3})
    first_moves, fresh_second = Counter(), Counter()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        agent = cardboard.make_agent("pandemic_default", game(4))
        s = state.clone()
        a = agent.act(s, rng)
        assert a in (drive("Chicago"), drive("Washington"))
        first_moves[a] += 1
        s.apply(a)
        assert agent.act(s, rng) == treat(BLUE)  # it follows its macro: treat where it went
        fresh = cardboard.make_agent("pandemic_default", game(4))
        fresh_second[fresh.act(s, rng) == treat(BLUE)] += 1
    assert len(first_moves) == 2
    assert set(fresh_second) == {True, False}  # a policy re-choosing each step sometimes heads for the other city


def test_on_a_primitive_game_the_first_step_is_the_macros():  # agents.py
    state = position(roles=MEDIC_FIRST, cubes={"Lima": 3})  # the one candidate: treat Lima (3 drives + treat)
    agent = cardboard.make_agent("pandemic_default", game(4))
    rng = np.random.default_rng(0)
    route = np.empty(8, dtype=np.int32)
    n = M.macro_steps(state.s, state.cards, m_treat("Lima"), route)
    assert n == 4
    played = []
    while state.current_player == 0:
        a = agent.act(state, rng)
        assert a in legal(state)
        played.append(a)
        state.apply(a)
    assert played == route[:n].tolist()  # the macro's own steps, one a decision
    assert played[-1] == treat(L.COLOUR_NAMES.index("yellow")) and state.s[L.PAWN] == city("Lima")


# ---- agents and games ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pandemic_default", "pandemic_mutator"])
def test_agents_refuse_other_games(name):  # agents.py
    with pytest.raises(InvalidParameterError, match="pandemic"):
        cardboard.make_agent(name, cardboard.make_game("lords_of_war"))
    agent = cardboard.make_agent(name)
    with pytest.raises(InvalidParameterError, match="pandemic"):
        agent.act(cardboard.new_state("lords_of_war", seed=0), np.random.default_rng(0))


def play_agent(g, seed, name="pandemic_default"):
    """One whole game of ``g`` with the agent in every seat, each decision checked legal; the actions played."""
    agent = cardboard.make_agent(name, g)
    rng = np.random.default_rng(seed)
    state = g.new_state(seed)
    actions = []
    while not state.is_terminal():
        if state.current_player == CHANCE:
            a = state.sample_chance(rng)
        else:
            a = agent.act(state, rng)
            assert a in legal(state)
        actions.append(a)
        state.apply(a)
    check_invariants(state)
    return actions, state


@pytest.mark.parametrize("actions", ["macro", "primitive"])
def test_the_agent_plays_legal_games_to_the_end_and_a_seed_repeats_the_game(actions):
    g = cardboard.make_game("pandemic", setup="S01", actions=actions)
    for seed in (0, 1):
        first, end = play_agent(g, seed)
        again, end2 = play_agent(g, seed)
        assert first == again and np.array_equal(end.s, end2.s)
    assert play_agent(g, 0)[0] != play_agent(g, 1)[0]


def test_mutation_agent_plays_legal_games_to_the_end():
    play_agent(cardboard.make_game("pandemic", actions="macro"), 3, "pandemic_mutator")


def test_compiled_play_default_plays_to_the_end_and_repeats_with_the_seed():  # 003 §2.3, §3.1
    buf = np.empty(M.NUM_MACROS, dtype=np.int32)
    for seed in range(10):
        g = cardboard.make_game("pandemic", actions=("macro", "primitive")[seed % 2])
        ends = []
        for _ in range(2):
            state = g.new_state(seed)
            stream = seed_stream(np.random.default_rng(seed))
            while not state.is_terminal():  # a turn at a time, the rules' invariants between turns
                turn = state.turn
                play_default(state.s, state.cards, buf, stream, turn + 1)
                state._forget_legal()
                check_invariants(state)
                assert state.is_terminal() or state.turn == turn + 1
            ends.append(state.s.copy())
        assert np.array_equal(ends[0], ends[1])
        whole = g.new_state(seed)
        play_default(whole.s, whole.cards, buf, seed_stream(np.random.default_rng(seed)), L.MAX_TURNS + 1)
        assert np.array_equal(whole.s, ends[0])


def test_on_a_primitive_game_a_finished_macro_is_chosen_afresh():  # 003 §2.2: a macro per choice, by the tiers
    state = position(roles=("scientist", "medic"), cubes={"Atlanta": 3, "Chicago": 3})
    macro_state = macro_position(roles=("scientist", "medic"), cubes={"Atlanta": 3, "Chicago": 3})
    macro_state.apply(m_treat("Atlanta"))
    assert set(picks(macro_state)) == {m_treat("Chicago")}  # the macro layer's next choice: the other 3-cube city
    treated_here = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        agent = cardboard.make_agent("pandemic_default", game(2))
        s = state.clone()
        first = agent.act(s, rng)
        if first != treat(BLUE):
            continue
        treated_here += 1
        s.apply(first)  # the macro 'treat Atlanta' is done; Atlanta keeps 2 cubes, Chicago 3
        assert agent.act(s, rng) == drive("Chicago")
    assert treated_here > 0

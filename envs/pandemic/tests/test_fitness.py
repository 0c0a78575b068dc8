"""The paper's state evaluations (003 §4.1.3, eq. 3-10; ``fitness.py``): the six single functions on a hand-built
state with known numbers, the pair averages (003 §5.2.2), the terminal-aware w() and p() variants (eq. 9-10,
C_p = 0.1), the name grammar, the 42 names of the paper's experiments, and the state hooks ``evaluation`` and
``heuristic``.
"""
from __future__ import annotations

import numpy as np
import pytest
from pandemic_helpers import L, cure, draw, infect, position, to_draw

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.pandemic import fitness as F

SINGLES = ("od", "oa", "ca", "cm", "cp", "b")


def known_state():
    """2 cures (blue, yellow); 4 yellow, 12 black, 18 red cubes on the board (supplies 24 / 20 / 12 / 6); 3
    outbreaks; the Operations Expert holds 2 black cards (A = 2/5), the Scientist 3 red (A = 3/4)."""
    return position(
        cured=["blue", "yellow"], outbreaks=3,
        hands={0: ["Chennai", "Mumbai"], 3: ["Tokyo", "Osaka", "Seoul"]},
        cubes={"Lima": 2, "Bogota": 2,
               "Cairo": 3, "Baghdad": 3, "Delhi": 3, "Tehran": 3,
               "Tokyo": 3, "Osaka": 3, "Seoul": 3, "Beijing": 3, "Shanghai": 3, "Manila": 3})


EXPECTED = {
    "od": 2 / 4,  # eq. 3
    "oa": (1 + 1 + 2 / 5 + 3 / 4 + 0.3 * 2) / (4 * 1.3),  # eq. 4, normalised as the authors' code
    "ca": (24 + 20 + 12 + 6) / 4 / 24,  # eq. 5
    "cm": 6 / 24,  # eq. 6
    "cp": (24 / 24) * (20 / 24) * (12 / 24) * (6 / 24),  # eq. 7
    "b": 1 - 3 / 8,  # eq. 8
}


def test_the_known_state_has_the_numbers_it_says():
    state = known_state()
    assert state.s[L.SUPPLY:L.SUPPLY + 4].tolist() == [24, 20, 12, 6]
    assert state.s[L.OUTBREAKS] == 3 and state.s[L.CURED:L.CURED + 4].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize("name", SINGLES)
def test_single_evaluations_on_a_known_state(name):  # 003 eq. 3-8
    state = known_state()
    assert F.evaluation(name)(state, 0) == pytest.approx(EXPECTED[name])
    assert 0.0 <= F.evaluation(name)(state) <= 1.0


@pytest.mark.parametrize("opt", F.OPTIMISTIC)
@pytest.mark.parametrize("pess", F.PESSIMISTIC)
def test_pairs_average_their_two_functions(opt, pess):  # 003 §5.2.2: (f_opt + f_pess) / 2
    state = known_state()
    assert F.evaluation(f"{opt}_{pess}")(state) == pytest.approx((EXPECTED[opt] + EXPECTED[pess]) / 2)
    assert F.evaluation(f"{pess}_{opt}")(state) == pytest.approx((EXPECTED[opt] + EXPECTED[pess]) / 2)


def test_the_paper_best_on_the_known_state():  # 003 §5.2.2: p((f_oa + f_cm) / 2)
    assert F.evaluation("p_oa_cm")(known_state()) == pytest.approx((EXPECTED["oa"] + 0.25) / 2)  # ongoing: f


def test_evaluations_ignore_the_seat():  # cooperative: one value for the team
    state = known_state()
    for name in F.all_names():
        values = {F.evaluation(name)(state, p) for p in range(4)}
        assert len(values) == 1


def won_state():
    """The Scientist cures red, the fourth disease: won."""
    state = position(roles=("scientist", "medic"), cured=["blue", "yellow", "black"], outbreaks=2,
                     hands={0: ["Tokyo", "Osaka", "Seoul", "Beijing"]}, cubes={"Lima": 3, "Cairo": 1})
    state.apply(cure(L.COLOUR_NAMES.index("red")))
    assert state.is_terminal() and state.won()
    return state


def lost_state():
    """The 8th outbreak: 7 on the marker, then Tokyo (3 cubes) is infected."""
    state = position(roles=("scientist", "medic"), outbreaks=7, cured=["blue"], hands={1: ["Lima", "Bogota"]},
                     cubes={"Tokyo": 3, "Cairo": 2, "Lima": 1})
    to_draw(state)
    draw(state, "Atlanta", "Chicago")
    infect(state, "Tokyo")
    assert state.is_terminal() and not state.won() and state.loss_cause() == "outbreaks"
    return state


@pytest.mark.parametrize("base", SINGLES + ("oa_cm", "od_b", "oa_cp"))
def test_w_and_p_at_a_win(base):  # 003 eq. 9-10: 1 at a win
    state = won_state()
    assert F.evaluation("w_" + base)(state) == 1.0
    assert F.evaluation("p_" + base)(state) == 1.0
    if base == "od":
        assert F.evaluation("od")(state) == 1.0  # the plain function is its own value: 4 cures


@pytest.mark.parametrize("base", SINGLES + ("oa_cm", "od_b", "oa_cp"))
def test_w_and_p_at_a_loss(base):  # 003 eq. 9-10: w 0 at a loss, p C_p = 0.1 times the value
    state = lost_state()
    plain = F.evaluation(base)(state)
    assert F.evaluation("w_" + base)(state) == 0.0
    assert F.evaluation("p_" + base)(state) == pytest.approx(0.1 * plain)
    assert F.C_P == 0.1


def test_the_loss_state_numbers():  # eq. 8 at 8 outbreaks, eq. 10 on the paper's best
    state = lost_state()
    assert F.evaluation("b")(state) == pytest.approx(0.0)
    supply = state.s[L.SUPPLY:L.SUPPLY + 4] / 24
    a = np.array([1.0, 2 / 5, 0.0, 0.0])  # blue cured; the Medic's 2 yellow
    oa = (a.sum() + 0.3) / 5.2
    assert F.evaluation("p_oa_cm")(state) == pytest.approx(0.1 * (oa + supply.min()) / 2)


def default_policy_states(seed):
    """Every state of a default-policy game on the bundled set-up S01 (games with cures, often won)."""
    import cardboard

    g = cardboard.make_game("pandemic", setup="S01", actions="macro")
    agent, rng, state = cardboard.make_agent("pandemic_default", g), np.random.default_rng(seed), g.new_state(seed)
    yield state
    while not state.is_terminal():
        state.apply(state.sample_chance(rng) if state.current_player < 0 else agent.act(state, rng))
        yield state


def test_all_evaluations_lie_in_0_1_in_play():  # 003 §4.1.3: "all functions are meant to lie in [0, 1]"
    names = F.all_names()
    cures = set()
    for seed in range(4):
        for state in default_policy_states(seed):
            for name in names:
                assert 0.0 <= F.evaluation(name)(state) <= 1.0, (name, seed, state)
            cures.add(int(state.s[L.CURED:L.CURED + 4].sum()))
    assert len(cures) >= 3  # the games went through several numbers of cures
    for state in (won_state(), lost_state(), known_state()):
        for name in names:
            assert 0.0 <= F.evaluation(name)(state) <= 1.0


@pytest.mark.parametrize("name", ["zz", "oa_oa", "p_", "w", "x_oa", "oa_cm_b", "", "p_w_oa", "OA", "p_oa_zz"])
def test_unknown_names_are_refused_with_the_grammar(name):  # fitness.py
    with pytest.raises(InvalidParameterError) as info:
        F.evaluation(name)
    message = str(info.value)
    assert "[w_|p_]f[_g]" in message and all(f in message for f in SINGLES)


def test_all_names_are_the_papers_18_singles_and_24_pairs():  # 003 §5.2.1 (6 x 3), §5.2.2 (2 x 4 x 3)
    names = F.all_names()
    assert len(names) == len(set(names)) == 42
    singles = {p + f for f in SINGLES for p in ("", "w_", "p_")}
    pairs = {p + o + "_" + q for o in ("od", "oa") for q in ("ca", "cm", "cp", "b") for p in ("", "w_", "p_")}
    assert len(singles) == 18 and len(pairs) == 24
    assert set(names) == singles | pairs
    for name in names:
        assert F.evaluation(name).name == name


def test_state_evaluation_hook_is_the_same_object():  # state.py: evaluation(name)
    state = known_state()
    for name in ("p_oa_cm", "od", "w_oa_b"):
        assert state.evaluation(name) is F.evaluation(name)
    with pytest.raises(InvalidParameterError):
        state.evaluation("zz")


def test_heuristic_is_the_papers_best_mapped_to_minus_one_one():  # state.py: 2 * oa_cm - 1, +-1 at the end
    state = known_state()
    for p in range(4):
        assert state.heuristic(p) == pytest.approx(2 * ((EXPECTED["oa"] + EXPECTED["cm"]) / 2) - 1)
    for s in default_policy_states(7):
        if not s.is_terminal():
            assert s.heuristic(0) == pytest.approx(2 * F.evaluation("oa_cm")(s) - 1)
    assert won_state().heuristic(0) == 1.0
    assert lost_state().heuristic(1) == -1.0

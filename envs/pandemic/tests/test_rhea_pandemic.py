"""RHEA on Pandemic (003 §2.3 of the notes, §4.3 of the paper; ``search/rhea.py`` with Pandemic's fitness,
repair and mutation policies): with tiny budgets it plays legal macros, is deterministic for a seed, scores each
plan after the horizon's last turn (turn == root turn + horizon), starts from the default policy's plan, and
refuses an unknown fitness naming the grammar. Also the CLI's cooperative ``play``: one spec in every seat.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pandemic_helpers import CHANCE, L, city, legal, macro_game, macro_position

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.pandemic import fitness as F
from cardboard.envs.pandemic import macro as M
from cardboard.envs.pandemic.agents import DefaultPolicy, MutationPolicy
from cardboard.search.rhea import RHEA, Mutator

SPEC = "rhea:fitness=p_oa_cm,repair=pandemic_default,mutator=pandemic_mutator,horizon=2,generations=3,evaluations=2"


def s01():
    return cardboard.make_game("pandemic", actions="macro", setup="S01")


def play(agent, g, seed, decisions):
    """``decisions`` decisions of ``agent`` from ``g``'s start (chance by the stored order), each checked legal;
    the actions played."""
    rng = np.random.default_rng(seed)
    state = g.new_state(seed)
    out = []
    while len([a for a in out if a[0] == "d"]) < decisions and not state.is_terminal():
        if state.current_player == CHANCE:
            a = state.sample_chance(rng)
            out.append(("c", a))
        else:
            a = agent.act(state, rng)
            assert a in legal(state)
            out.append(("d", a))
        state.apply(a)
    return out


def test_rhea_plays_legal_macros_and_repeats_with_the_seed():  # 003 §2.3, search/rhea.py
    g = s01()
    first = play(cardboard.make_agent(SPEC, g), g, 0, 6)
    assert len(first) >= 6 and all(0 <= a < M.NUM_MACROS for kind, a in first if kind == "d")
    assert play(cardboard.make_agent(SPEC, g), g, 0, 6) == first


class Recorder:
    """A fitness that records the turn and phase of every state it scores."""

    def __init__(self):
        self.seen = []
        self.inner = F.evaluation("p_oa_cm")

    def __call__(self, state, player):
        self.seen.append((state.turn, state.is_terminal(), state.current_player, player))
        return self.inner(state, player)


def planner(g, fitness, horizon=2, generations=3, evaluations=2):
    return RHEA(horizon=horizon, generations=generations, evaluations=evaluations, fitness=fitness,
                repair=DefaultPolicy(g), mutator=Mutator(MutationPolicy(g)))


@pytest.mark.parametrize("horizon", [1, 2])
def test_rhea_scores_each_plan_after_the_horizons_last_turn(horizon):  # 003 §2.3: after the 5th turn's infections
    g = s01()
    rng = np.random.default_rng(1)
    state = g.new_state(0)
    for _ in range(3):  # three decisions, the later ones mid-turn or in later turns
        while state.current_player == CHANCE:
            state.apply(state.sample_chance(rng))
        fitness = Recorder()
        result = planner(g, fitness, horizon=horizon).plan(state, rng)
        assert len(fitness.seen) == result.evaluations_run == 2 * (1 + 3)
        for turn, terminal, current, player in fitness.seen:
            assert terminal or (turn == state.turn + horizon and current != CHANCE)
            assert player == state.current_player
        assert result.action in legal(state) and len(result.genome) == horizon
        state.apply(result.action)


def test_rhea_without_generations_plays_the_default_policys_first_macro():  # 003 §2.3: the DP seeds the plan
    g = macro_game(4)
    only_cure = macro_position(roles=("scientist", "medic", "researcher", "operations_expert"),
                               hands={0: ["Washington", "New York", "Montreal", "London"]},
                               cubes={"Chicago": 3, "Miami": 2})
    rhea = planner(g, F.evaluation("p_oa_cm"), generations=0)
    for seed in range(3):
        assert rhea.act(only_cure, np.random.default_rng(seed)) == M.M_CURE + city("Atlanta") * 4 + 0
    start = s01().new_state(0)  # from S01's start: one of the default policy's own first choices
    dp = cardboard.make_agent("pandemic_default", s01())
    dp_choices = {dp.act(start, np.random.default_rng(seed)) for seed in range(60)}
    rhea = planner(s01(), F.evaluation("p_oa_cm"), generations=0, evaluations=1)
    for seed in range(4):
        assert rhea.act(start, np.random.default_rng(seed)) in dp_choices


def test_rhea_refuses_an_unknown_fitness_naming_the_grammar():  # fitness.py grammar
    with pytest.raises(InvalidParameterError, match=re.escape("[w_|p_]f[_g]")):
        cardboard.make_agent("rhea:fitness=zz,repair=pandemic_default,mutator=pandemic_mutator", s01())


def test_rhea_accepts_every_evaluation_name():  # the paper's 42 agents (003 §5.2)
    g = s01()
    for name in F.all_names():
        agent = cardboard.make_agent(f"rhea:fitness={name},repair=pandemic_default,mutator=pandemic_mutator,"
                                     "horizon=1,generations=0,evaluations=1", g)
        assert agent.act(g.new_state(0), np.random.default_rng(0)) in legal(g.new_state(0))


def test_cli_plays_a_cooperative_game_with_one_spec_in_every_seat():  # README: one spec fills every seat
    exe = Path(sys.executable).with_name("cardboard")
    done = subprocess.run([str(exe), "play", "pandemic", "--option", "setup=S01", "--option", "actions=macro",
                           "--agents", "pandemic_default", "--games", "2", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(r"team wins: \d+ of 2 games", done.stdout), done.stdout


FAR = ["Atlanta", "Karachi", "Tehran", "Riyadh", "Baghdad", "Delhi", "Mumbai", "Chennai", "Kolkata", "Moscow"]


def leak_root():
    """Seat 0 (the Scientist) treats Chicago's 3 cubes all turn; seat 1 (the Medic, in Atlanta) then has nothing in
    reach unless the end-of-turn infections (2 cards of the top group FAR) hit Atlanta."""
    from pandemic_helpers import CITY_NAMES

    return macro_position(roles=("scientist", "medic", "researcher", "operations_expert"), cubes={"Chicago": 3},
                          infection_deck=[FAR, [c for c in CITY_NAMES if c not in FAR]], infection_discard=[])


def test_repair_memory_does_not_leak_from_replays_into_real_decisions():  # 003 §2.3: the DP seeds the plan
    g = macro_game(4)
    spec = ("rhea:fitness=p_oa_cm,repair=pandemic_default,mutator=pandemic_mutator,horizon=2,generations=0,"
            "evaluations=1")
    for seed in range(3):
        rng = np.random.default_rng(seed)
        rhea = cardboard.make_agent(spec, g)
        state = leak_root()
        rhea.act(state, rng)  # plans seat 0's turn 0 and, in sampled worlds, seat 1's turn 1
        dp = cardboard.make_agent("pandemic_default", g)
        while state.current_player == 0:
            state.apply(dp.act(state, rng))
        while state.current_player == CHANCE:  # the real infections hit Atlanta (then Karachi)
            outcomes = [o for o, _ in state.chance_outcomes()]
            if state.phase == "infect":
                state.apply(city("Atlanta") if city("Atlanta") in outcomes else city("Karachi"))
            else:
                state.apply(state.sample_chance(rng))
        assert state.current_player == 1 and state.turn == 1
        treat_atlanta = M.M_TREAT + city("Atlanta") * L.NUM_COLOURS + 0
        assert cardboard.make_agent("pandemic_default", g).act(state, rng) == treat_atlanta  # the only candidate
        assert rhea.act(state, rng) == treat_atlanta

"""The registry (names, options, agent specs) and the ``cardboard`` command line.

Every wrong name or value raises a typed error of ``cardboard.envs.errors``
whose message lists what exists; the CLI turns those into exit code 2 and a
one-line message, and the same seed always gives the same match.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import cardboard
from cardboard import registry
from cardboard.cli import main
from cardboard.envs.errors import CardboardError, InvalidParameterError, UnknownNameError
from cardboard.evaluation.match import play_match

GAME_SPECIFIC_AGENTS = {"greedy_h": "hearth", "pandemic_default": "pandemic", "pandemic_mutator": "pandemic",
                        "default_ai": "fifth_aeon", "berserker": "fifth_aeon"}  # refuse other games
NOT_AUTOMATIC = {"human", "sb3", "cardplay", "zoo"}  # a person at the terminal; trained checkpoints (path=...)


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # rich wraps at the terminal width: keep table rows on one line


# ---- names and errors --------------------------------------------------------------------------
def test_listing():
    assert "lords_of_war" in cardboard.games() and cardboard.games() == sorted(cardboard.games())
    assert {"random", "greedy"} <= set(cardboard.agents()) and cardboard.agents() == sorted(cardboard.agents())


@pytest.mark.parametrize("call", [
    lambda: cardboard.make_game("chess"),
    lambda: cardboard.new_state("chess", seed=0),
    lambda: cardboard.make_env("chess"),
])
def test_unknown_game_lists_the_games(call):
    with pytest.raises(UnknownNameError, match="unknown game 'chess'") as err:
        call()
    assert err.value.known == cardboard.games()
    for name in cardboard.games():
        assert name in str(err.value)


@pytest.mark.parametrize("call", [
    lambda: cardboard.make_game("lords_of_war", colour="red"),
    lambda: cardboard.new_state("lords_of_war", seed=0, colour="red"),
    lambda: cardboard.make_env("lords_of_war", colour="red"),
])
def test_unknown_game_option_lists_the_options(call):
    with pytest.raises(UnknownNameError, match="'colour'") as err:
        call()
    assert "armies" in err.value.known and "armies" in str(err.value)


@pytest.mark.parametrize("game, option, close", [("fifth_aeon", "deck", "decks"), ("hearth", "mulligans", "mulligan"),
                                                  ("pandemic", "infection", "infection_rate")])
def test_an_unknown_option_suggests_the_closest(game, option, close):
    with pytest.raises(UnknownNameError, match=f"; did you mean {close!r}\\?$") as err:
        cardboard.make_game(game, **{option: "x"})
    assert err.value.close == [close]
    with pytest.raises(UnknownNameError) as err:
        cardboard.make_game("lords_of_war", colour="red")
    assert err.value.close == [] and "did you mean" not in str(err.value)


def test_bad_game_option_value_is_a_typed_error():
    with pytest.raises(CardboardError, match="elves") as err:
        cardboard.make_game("lords_of_war", armies=("orcs", "elves"))
    assert "orcs" in str(err.value) and "dwarves" in str(err.value)


@pytest.mark.parametrize("armies", ["orcs", ("orcs", "dwarves", "orcs")], ids=["one-string", "three"])
def test_wrong_number_of_armies_is_a_typed_error(armies):
    with pytest.raises(CardboardError, match="two armies"):
        cardboard.make_game("lords_of_war", armies=armies)


def test_unknown_render_mode_lists_the_modes():
    with pytest.raises(UnknownNameError, match="video") as err:
        cardboard.make_env("lords_of_war", render_mode="video")
    assert "ansi" in str(err.value) and "rgb_array" in str(err.value) and "human" in str(err.value)


def test_games_are_shared_between_calls_with_equal_options():
    assert cardboard.make_game("lords_of_war") is cardboard.make_game("lords_of_war")
    assert (cardboard.make_game("lords_of_war", armies=["orcs", "dwarves"])
            is cardboard.make_game("lords_of_war", armies=("orcs", "dwarves")))
    assert cardboard.make_game("lords_of_war", armies=("dwarves", "orcs")) is not cardboard.make_game("lords_of_war")


def test_unknown_agent_lists_the_agents():
    with pytest.raises(UnknownNameError, match="unknown agent 'minimax'") as err:
        cardboard.make_agent("minimax")
    for name in cardboard.agents():
        assert name in str(err.value)


def test_unknown_agent_parameter_lists_the_parameters():
    with pytest.raises(UnknownNameError, match="'depth'") as err:
        cardboard.make_agent("greedy:depth=3")
    assert "samples" in str(err.value)
    with pytest.raises(UnknownNameError, match="'samples'"):
        cardboard.make_agent("random:samples=3")


@pytest.mark.parametrize("spec", ["greedy:samples=abc", "greedy:samples=1.5", "greedy:samples=0", "greedy:samples=-2",
                                  "greedy:samples", "greedy:=3"])
def test_bad_agent_parameter_value(spec):
    with pytest.raises(InvalidParameterError, match="samples|not key=value"):
        cardboard.make_agent(spec)


def test_agents_are_built_with_their_parameters():
    agent = cardboard.make_agent("greedy:samples=3")
    assert agent.samples == 3 and agent.name == "greedy:samples=3"
    state = cardboard.new_state("lords_of_war", seed=0)
    for spec in set(cardboard.agents()) - set(GAME_SPECIFIC_AGENTS) - NOT_AUTOMATIC:
        action = cardboard.make_agent(spec).act(state, np.random.default_rng(0))
        assert action in state.legal_actions()


@pytest.mark.parametrize("agent", sorted(GAME_SPECIFIC_AGENTS))
def test_a_game_specific_agent_refuses_another_game(agent):
    game = cardboard.make_game("lords_of_war")
    with pytest.raises(InvalidParameterError, match=GAME_SPECIFIC_AGENTS[agent]):
        cardboard.make_agent(agent, game)
    with pytest.raises(InvalidParameterError, match=GAME_SPECIFIC_AGENTS[agent]):
        cardboard.make_agent(agent).act(game.new_state(0), np.random.default_rng(0))


@pytest.mark.parametrize("text, specs", [
    ("greedy:samples=2,random", ["greedy:samples=2", "random"]),
    ("random,greedy:samples=2", ["random", "greedy:samples=2"]),
    ("random,random", ["random", "random"]),
    ("ismcts:iterations=100,c=0.7,random", ["ismcts:iterations=100,c=0.7", "random"]),
    ("a:x=1,b:y=2,z=3", ["a:x=1", "b:y=2,z=3"]),
    ("zoo:lords_of_war,seconds=0.05,random", ["zoo:lords_of_war,seconds=0.05", "random"]),  # a knob overridden
    ("zoo:model=lords_of_war,seconds=0.05,random", ["zoo:model=lords_of_war,seconds=0.05", "random"]),
    ("zoo,seconds=0.05,random", ["zoo:seconds=0.05", "random"]),
    (" greedy , random ", ["greedy", "random"]),
    ("greedy,,random,", ["greedy", "random"]),
    ("greedy", ["greedy"]),
    ("", []),
])
def test_split_agent_specs(text, specs):
    assert registry.split_agent_specs(text) == specs


def test_split_agent_specs_rejects_a_parameter_before_any_agent():
    with pytest.raises(InvalidParameterError, match="samples=2"):
        registry.split_agent_specs("samples=2,random")


def test_parse_agent_spec():
    assert registry.parse_agent_spec("greedy:samples=2") == ("greedy", {"samples": "2"})
    assert registry.parse_agent_spec(" random ") == ("random", {})
    assert registry.parse_agent_spec("x:a=1, b = 2") == ("x", {"a": "1", "b": "2"})
    assert registry.parse_agent_spec("zoo:lords_of_war") == ("zoo", {"model": "lords_of_war"})  # its one parameter
    with pytest.raises(InvalidParameterError, match="'lords_of_war' is not key=value"):
        registry.parse_agent_spec("ismcts:lords_of_war")  # many parameters: which one is not guessed
    assert registry.parse_agent_spec("zoo:lords_of_war,seconds=0.05") == (  # a bare value first, knobs after it
        "zoo", {"model": "lords_of_war", "seconds": "0.05"})
    with pytest.raises(InvalidParameterError, match="'zoo:lords_of_war,model=hearth': model= given twice"):
        registry.parse_agent_spec("zoo:lords_of_war,model=hearth")
    with pytest.raises(InvalidParameterError, match="'hearth' is not key=value"):
        registry.parse_agent_spec("zoo:seconds=1,hearth")  # only the first value may be bare


# ---- the command line --------------------------------------------------------------------------
ROW = re.compile(r"^\W*(\S+)\W+(\d+)\W+(\d+)\W+(\d+)\W+([\d.]+)%")


def _play(capsys, *extra: str, games: int = 4, seed: int = 1) -> tuple[list[tuple], str]:
    code = main(["play", "lords_of_war", "--agents", "random,random", "--games", str(games), "--seed", str(seed),
                 "--quiet", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [(m[1], int(m[2]), int(m[3]), int(m[4]), float(m[5])) for m in map(ROW.match, out.splitlines()) if m]
    length = re.search(r"mean game length: ([\d.]+) turns", out)
    assert length, out
    return rows + [("mean turns", float(length[1]))], out


def test_cli_play(capsys):
    rows, out = _play(capsys)
    assert "lords_of_war: 4 games, seed 1" in out
    (name0, w0, d0, l0, rate0), (name1, w1, d1, l1, rate1), (_, turns) = rows
    assert name0 == name1 == "random"
    assert w0 + d0 + l0 == 4 and (w1, d1, l1) == (l0, d0, w0)
    assert rate0 == pytest.approx(100 * w0 / 4, abs=0.05) and rate1 == pytest.approx(100 * w1 / 4, abs=0.05)
    assert 0 < turns <= cardboard.make_game("lords_of_war").info.max_turns


def test_cli_play_is_deterministic(capsys):
    first, _ = _play(capsys, seed=5)
    again, _ = _play(capsys, seed=5)
    assert first == again


def test_match_records_are_reproducible_game_by_game():
    game = cardboard.make_game("lords_of_war")
    agents = (cardboard.make_agent("random"), cardboard.make_agent("greedy"))

    def strip(records):
        return [(r.index, r.seats, r.returns, r.turns, r.decisions) for r in records]

    four = strip(play_match(game, agents, 4, seed=3))
    assert strip(play_match(game, agents, 4, seed=3)) == four
    assert strip(play_match(game, agents, 2, seed=3)) == four[:2]  # game i depends on (seed, i) only
    assert [r[1] for r in four] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert strip(play_match(game, agents, 4, seed=4)) != four


def test_cli_show(capsys):
    assert main(["show", "lords_of_war", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines[0].startswith("turn 0: player 0 (random)")
    boards = sum(1 for line in lines if re.fullmatch(r"\s+a\s+b\s+c\s+d\s+e\s+f\s*", line))
    turns = sum(1 for line in lines if re.match(r"turn \d+: player [01] ", line))
    assert boards >= turns > 10  # a board after every turn
    final = re.fullmatch(r"returns: \[(-?[\d.]+), (-?[\d.]+)\]", lines[-1])
    assert final, lines[-1]
    assert sorted(float(x) for x in final.groups()) in ([-1.0, 1.0], [0.0, 0.0])
    assert main(["show", "lords_of_war", "--seed", "1"]) == 0
    assert capsys.readouterr().out == out, "show is not deterministic"
    assert main(["show", "lords_of_war", "--seed", "2"]) == 0
    assert capsys.readouterr().out != out, "show ignores its seed"


def test_cli_show_open_shows_both_hands(capsys):
    assert main(["show", "lords_of_war", "--seed", "1", "--open", "--agents", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert "hidden" not in out and "(greedy)" in out


@pytest.mark.parametrize("argv, message", [
    (["play", "lords_of_war", "--agents", "nope,random"], "unknown agent 'nope'; known: "),  # the full list: test_unknown_agent_lists_the_agents
    (["show", "lords_of_war", "--agents", "random,nope"], "unknown agent 'nope'; known: "),  # the full list: test_unknown_agent_lists_the_agents
    (["play", "chess"], "unknown game 'chess'; known: "),  # the full list: test_unknown_game_lists_the_games
    (["play", "lords_of_war", "--agents", "random"], "game 'lords_of_war' has 2 seats, so it needs 2 agents; got 1"),
    (["play", "lords_of_war", "--agents", "random,random,random"], "has 2 seats, so it needs 2 agents; got 3"),
    (["show", "lords_of_war", "--agents", "random"], "has 2 seats, so it needs 2 agents; got 1"),
    (["play", "lords_of_war", "--agents", "greedy:depth=2,random"], "known: samples"),
    (["play", "lords_of_war", "--agents", "greedy:samples=x,random"], "'x' is not a valid int"),
    (["play", "lords_of_war", "--option", "colour=red"], "known: armies"),
    (["play", "fifth_aeon", "--option", "deck=The Meek", "--agents", "random,random"], "did you mean 'decks'?"),
    (["play", "lords_of_war", "--option", "armies"], "expected key=value"),
    (["play", "lords_of_war", "--option", "armies=orcs,elves"], "'elves'"),
])
def test_cli_errors_exit_2_with_a_clear_message(capsys, argv, message):
    assert main([*argv, "--games", "1"] if argv[0] == "play" else argv) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("error:") and message in out, out


@pytest.mark.parametrize("games", ["0", "-3"])
def test_cli_bad_game_count_exits_2(capsys, games):
    assert main(["play", "lords_of_war", "--games", games, "--quiet"]) == 2
    assert "games" in capsys.readouterr().out


@pytest.mark.parametrize("armies", ["orcs", "orcs,dwarves,orcs"])
def test_cli_wrong_number_of_armies_exits_2(capsys, armies):
    assert main(["play", "lords_of_war", "--option", f"armies={armies}", "--games", "1", "--quiet"]) == 2
    assert "two armies" in capsys.readouterr().out


def test_cli_lists_games_and_agents(capsys):
    assert main(["games"]) == 0
    assert "lords_of_war" in capsys.readouterr().out
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in cardboard.agents())


@pytest.mark.parametrize("argv, loop", [
    (["--explain", "ismcts:iterations=10"], "loop: compiled"),
    (["--explain", "ismcts:iterations=10,compiled=0"], "loop: python (compiled=0)"),
    (["--explain", "duct:cnb=1", "--game", "hearth"], "loop: python (chance-node bucketing (cnb=1))"),
    (["--explain", "uct:parallel=root,workers=2"], "2 worker processes, each: compiled"),
    (["--explain", "random"], "no search loop")])
def test_cli_explains_which_loop_an_agent_runs(capsys, argv, loop):
    assert main(["agents", *argv]) == 0
    assert loop in " ".join(capsys.readouterr().out.split())


def test_cli_explain_refuses_an_unknown_agent(capsys):
    assert main(["agents", "--explain", "ismcts:nope=1"]) == 2
    assert "nope" in capsys.readouterr().out


def test_cli_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["dance"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["play", "lords_of_war", "--games", "many"])
    assert exc.value.code == 2


FRESH = """
import sys
import numpy as np
import cardboard

predictor = "cardboard.evaluation.papers.p000_play_style.deck_model"
assert predictor not in sys.modules  # nothing installed at import: the registry hands it to the agents that ask
low = cardboard.make_game("lords_of_war")
agent = cardboard.make_agent("ismcts:net=zoo:lords_of_war,iterations=64", low)
state = low.new_state(3)
assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
fifth = cardboard.make_game("fifth_aeon", decklists="hidden")
agent = cardboard.make_agent("ismcts:deckmodel=predict,iterations=8,heuristic=1", fifth)
state = fifth.new_state(1)
while len(state.legal_actions()) < 2:
    state.apply(int(state.legal_actions()[0]))
assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
assert predictor in sys.modules
print("played")
"""


def test_a_process_that_imports_only_cardboard_builds_the_knobs_above_search():
    """``net=`` and ``deckmodel=predict`` are built by layers above search, which the registry hands to the search
    factories (``Extensions``): no global installer, so a fresh process needs nothing but ``import cardboard``."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "played" in done.stdout, done.stderr[-2000:]

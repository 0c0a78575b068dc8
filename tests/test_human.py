"""A person can play: the ``human`` agent, the AEC env's ``human`` render mode, ``show --seat`` and a full game
of Lords of War typed into a pseudo-terminal."""
from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import render_test

import cardboard
from cardboard import registry
from cardboard.cli import main
from cardboard.envs.errors import CardboardError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.view import menu
from cardboard.evaluation.match import play_game
from cardboard.policies.human import HumanAgent, InputClosedError
from tests.pty_session import play_in_pty


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # rich wraps at the terminal width: keep each hand on one line


def _ask(typed: str, game_name: str = "lords_of_war") -> tuple[int, str, list[int]]:
    """The move a human agent picks at the first decision of seed 0 with ``typed`` as input; its output."""
    game = cardboard.make_game(game_name)
    state = game.new_state(0)
    out = io.StringIO()
    action = HumanAgent(game, io.StringIO(typed), out).act(state, np.random.default_rng(0))
    return action, out.getvalue(), [int(a) for a in state.legal_actions()]


# ---- the agent, with injected streams ----------------------------------------------------------
def test_human_picks_the_numbered_move_and_sees_only_its_own_hand():
    action, shown, legal = _ask("2\n")
    assert action == legal[1]
    state = cardboard.new_state("lords_of_war", seed=0)
    (group, moves), = menu(state, legal).items()  # every opening move deploys: the menu goes straight in
    assert group == "deploy" and list(moves.values()) == legal
    first, second = list(moves)[:2]
    assert f"your moves > deploy:\n   1. {first}\n   2. {second}\n" in shown
    assert re.search(r"^player 0 \(Orcs\): .*hand: Orc ", shown, re.M)
    assert re.search(r"^player 1 \(Dwarves\): .*hand: 6 hidden$", shown, re.M)
    assert shown.endswith(f"player 0, your move (1-{len(legal)}): ")


def test_bad_input_reasks_until_a_number_in_range():
    n = len(cardboard.new_state("lords_of_war", seed=0).legal_actions())
    action, shown, legal = _ask(f"abc\n\n0\n{n + 1}\n-1\n\u00b2\n 3 \n")
    assert action == legal[2]
    assert shown.count(f"your move (1-{n}): ") == 7 and "'\u00b2' is not a move" in shown
    assert f"'abc' is not a move: type a number from 1 to {n} and press Enter" in shown
    assert f"no move given: type a number from 1 to {n}" in shown
    assert "'0' is not a move" in shown and f"'{n + 1}' is not a move" in shown and "'-1' is not a move" in shown


@pytest.mark.parametrize("typed", ["", "x\n"])
def test_end_of_input_is_a_typed_error(typed):
    with pytest.raises(InputClosedError, match="input closed while player 0 was choosing") as err:
        _ask(typed)
    assert isinstance(err.value, CardboardError) and isinstance(err.value, EOFError)


def test_registered_human_reads_the_terminal():
    agent = registry.make_agent("human", cardboard.make_game("hearth"))
    assert isinstance(agent, HumanAgent) and agent.input is sys.stdin and agent.output is sys.stdout
    assert agent.name == "human"
    with pytest.raises(InvalidParameterError, match="agent 'human': it draws the board, so it needs the game"):
        registry.make_agent("human")


def test_cli_play_with_a_human_seat_reports_end_of_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", "lords_of_war", "--agents", "human,random", "--games", "1", "--workers", "2"]) == 2
    out = capsys.readouterr().out
    assert "a human plays: one process, not --workers 2" in out
    assert out.count("your move (1-") == 2 and "error: input closed while player 0 was choosing" in out


# ---- the AEC env's human render mode -----------------------------------------------------------
def test_aec_human_render_mode_prints_the_board(capsys):
    env = cardboard.make_env("hearth", render_mode="human")
    env.reset(seed=0)
    assert "human" in env.metadata["render_modes"]
    assert env.render() is None
    assert capsys.readouterr().out == env.unwrapped.game.render_ansi(env.unwrapped.game_state) + "\n"
    render_test(lambda render_mode=None: cardboard.make_env("lords_of_war", render_mode=render_mode))


# ---- show: whose view ---------------------------------------------------------------------------
def _views(argv: list[str], capsys) -> list[tuple[int | None, str]]:
    """(the view each board of ``cardboard show`` names, the board's text) for every board drawn."""
    assert main(argv) == 0
    blocks = re.split(r"^(?=turn \d+: player \d .* to act: |game over after turn )", capsys.readouterr().out,
                      flags=re.M)[1:]
    views = [(None if "open view" in b.splitlines()[0] else int(re.search(r"player (\d)'s view", b).group(1)), b)
             for b in blocks]
    assert views and blocks[-1].startswith("game over")
    return views


def _hearth_hands(board: str) -> dict[int, str]:
    return {int(p): hand for p, hand in re.findall(r"^P(\d) .*\n  hand: (.*)$", board, re.M)}


def test_show_draws_each_turn_from_the_view_of_the_player_to_act(capsys):
    views = _views(["show", "hearth", "--seed", "1", "--agents", "random,random"], capsys)
    for view, board in views[:-1]:
        header = board.splitlines()[0]
        assert header.startswith("turn ") and f": player {view} (random) to act: player {view}'s view" in header
        hands = _hearth_hands(board)
        assert not re.fullmatch(r"\d+ cards", hands[view]) and re.search(r"\(\d+\)", hands[view])
        assert re.fullmatch(r"\d+ cards", hands[1 - view])
    assert {view for view, _ in views[:-1]} == {0, 1} and views[-1][0] is None


@pytest.mark.parametrize("seat", [0, 1])
def test_show_seat_draws_every_board_from_that_seat(capsys, seat):
    views = _views(["show", "hearth", "--seed", "1", "--agents", "random,random", "--seat", str(seat)], capsys)
    for view, board in views:
        assert view == seat
        hands = _hearth_hands(board)
        assert re.search(r"\(\d+\)", hands[seat]) and re.fullmatch(r"\d+ cards", hands[1 - seat])


def test_show_open_and_lords_of_war_hands(capsys):
    for view, board in _views(["show", "hearth", "--seed", "1", "--open"], capsys):
        assert view is None and all(not re.fullmatch(r"\d+ cards", h) for h in _hearth_hands(board).values())
    for view, board in _views(["show", "lords_of_war", "--seed", "1", "--seat", "1"], capsys):
        assert view == 1 and re.search(r"^player 0 \(Orcs\): .*hand: \d+ hidden$", board, re.M)
        assert re.search(r"^player 1 \(Dwarves\): .*hand: Dwarf ", board, re.M)


def test_show_refuses_a_seat_the_game_lacks(capsys):
    assert main(["show", "hearth", "--seat", "2"]) == 2
    assert "--seat 2: game 'hearth' has seats 0 to 1" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["show", "hearth", "--seat", "0", "--open"])


# ---- a full game typed into a pseudo-terminal ---------------------------------------------------
def test_full_lords_of_war_game_in_a_terminal():
    """``cardboard play lords_of_war --agents human,random`` in a pty, answering every prompt with its first
    listed move, plays to the end: a result line for the human and exit code 0."""
    command = [str(Path(sys.executable).with_name("cardboard")), "play", "lords_of_war", "--agents", "human,random",
               "--games", "1", "--seed", "3"]
    rc, out, answers = play_in_pty(command, lambda text, moves, back: "1")
    assert rc == 0, out[-2000:]
    assert re.search(r"game 1 over: the human in seat 0 scores (1\.0|0\.5|0\.0) \(1 win, 0\.5 draw, 0 loss\), "
                     r"returns by seat \[", out)
    assert "lords_of_war: 1 games, seed 3" in out and answers >= 10
    assert re.search(r"^player 1 \(Dwarves\): .*hand: \d+ hidden", out, re.M)
    assert not re.search(r"^player 1 \(Dwarves\): .*hand: Dwarf", out, re.M)  # the opponent's hand never shown


# ---- issue 36: menus in groups, what happened since, forced moves, the end ------------------------------------
def _decision(game_name: str, seed: int = 1, **options):
    """The first decision state of ``game_name`` (chance settled with default_rng(0))."""
    game = cardboard.make_game(game_name, **options)
    state, rng = game.new_state(seed), np.random.default_rng(0)
    while state.current_player == CHANCE:
        state.apply(sample_chance(state, rng))
    return game, state


def test_pandemic_moves_come_in_groups_and_b_goes_back():
    game, state = _decision("pandemic", players=2)
    legal = [int(a) for a in state.legal_actions()]
    tree = menu(state, legal)
    out = io.StringIO()
    action = HumanAgent(game, io.StringIO("1\nb\n1\n1\n2\n"), out).act(state, np.random.default_rng(0))
    shown = out.getvalue()
    top = shown.split("player 0, your moves:\n")[1].split("player 0, your move")[0]
    assert len(top.splitlines()) == len(tree) <= 5 < len(legal)  # a handful of groups, not every move
    assert re.search(r"^   1\. move \.\.\. \((\d+) moves\)$", top, re.M)
    assert "player 0, your move (1-{}, b: back): ".format(len(tree["move"])) in shown
    assert shown.count("player 0, your moves:\n") == 2  # 'b' showed the groups again
    drive = tree["move"][list(tree["move"])[0]]
    assert action == list(drive.values())[1] and state.action_to_string(action).startswith("drive")


def test_a_single_legal_move_is_played_with_a_note_without_asking():
    game, state = _decision("hearth")
    while len(state.legal_actions()) != 1:
        state.apply(int(state.legal_actions()[-1]))
        while state.current_player == CHANCE:
            state.apply(sample_chance(state, np.random.default_rng(0)))
    out = io.StringIO()
    action = HumanAgent(game, io.StringIO(""), out).act(state, np.random.default_rng(0))
    assert action == int(state.legal_actions()[0])
    assert out.getvalue().startswith(f"player {state.current_player}: one legal move, played for you: ")
    assert "your move (" not in out.getvalue()


def test_the_opponents_moves_since_the_last_decision_are_shown_without_their_hidden_cards():
    """Hearth, seat 0 human: at its second decision it reads what seat 1 did, its draw as 'a card'."""
    game = cardboard.make_game("hearth")
    human = HumanAgent(game, io.StringIO("1\n" * 400), io.StringIO())
    returns, *_ = play_game(game, [human, registry.make_agent("random", game)],
                          np.random.default_rng(3))
    shown = human.output.getvalue()
    news = re.findall(r"^since your last move:\n((?:  .*\n)+)", shown, re.M)
    assert news and any("player 1" in block for block in news)
    assert all("player 1 draws a card" in block for block in news if "player 1 draws" in block)
    assert re.search(r"game over: (player [01] wins|a draw)\n$", shown)


def test_the_end_shows_the_final_board_and_the_winner(capsys):
    game, state = _decision("pandemic", players=2)
    rng = np.random.default_rng(5)
    state.random_playout(rng)
    human = HumanAgent(game, io.StringIO(""), io.StringIO())
    human.news = ["seat 1: end the actions"]
    human.game_over(state, 0)
    shown = human.output.getvalue()
    assert shown.startswith("since your last move:\n  seat 1: end the actions\n")
    assert game.render_ansi(state, 0).splitlines()[0] in shown
    assert shown.endswith(("game over: the players win\n", "game over: the players lose\n"))


@pytest.mark.parametrize("game_name", ["hearth", "pandemic", "fifth_aeon"])
def test_show_says_who_won_in_every_game(capsys, game_name):
    options = ["--option", "players=2"] if game_name == "pandemic" else []
    agents = ",".join(["random"] * 2)
    assert main(["show", game_name, "--seed", "1", "--agents", agents, *options]) == 0
    assert re.search(r"^game over: (player [01] wins|a draw|the players (win|lose))\nreturns: \[",
                     capsys.readouterr().out, re.M)

"""envs.view's generic parts on hand-made states: menus (groups, collapsing, copies told apart), the result line, the
log's default and the generic view of a game without the hooks (issue 36)."""
from __future__ import annotations

import numpy as np
import pytest

from cardboard.envs.protocol import CHANCE, GameInfo
from cardboard.envs.view import NO_SPECTATOR_TEXT, describe, doer, menu, numbered, result_line, seen, status_line


def _info(utility: str = "zero_sum", information: str = "imperfect", players: int = 2) -> GameInfo:
    return GameInfo("toy", players, 8, (1,), "explicit", information, utility, -1.0, 1.0, 10)


class Toy:
    """A state with fixed action strings and, optionally, menu paths."""

    def __init__(self, strings: dict[int, str], paths: dict[int, tuple[str, ...]] | None = None, player: int = 0,
                 returns=(0.0, 0.0), terminal: bool = False, info: GameInfo | None = None):
        self.info, self.strings, self.player, self._returns, self.terminal = info or _info(), strings, player, \
            returns, terminal
        if paths is not None:
            self.action_path = lambda a: paths[a]

    current_player = property(lambda self: self.player)

    def action_to_string(self, a: int) -> str:
        return self.strings[a]

    def is_terminal(self) -> bool:
        return self.terminal

    def returns(self) -> np.ndarray:
        return np.array(self._returns)


class ToyGame:
    info = _info()

    def render_ansi(self, state, perspective=None) -> str:
        return f"board seen by {perspective}"


def test_menu_groups_by_path_and_collapses_single_choices():
    paths = {0: ("move", "drive", "Chicago"), 1: ("move", "drive", "Miami"), 2: ("move", "fly", "Paris"),
             3: ("treat", "blue"), 4: ("end the actions",)}
    tree = menu(Toy({}, paths), [0, 1, 2, 3, 4])
    assert tree == {"move": {"drive": {"Chicago": 0, "Miami": 1}, "fly Paris": 2}, "treat blue": 3,
                    "end the actions": 4}
    assert list(tree) == ["move", "treat blue", "end the actions"]  # the actions' order


def test_menu_refuses_colliding_hook_paths_but_numbers_copies_of_plain_strings():
    with pytest.raises(ValueError, match="two legal actions share the menu path"):
        menu(Toy({}, {0: ("play", "Wisp"), 1: ("play", "Wisp")}), [0, 1])
    with pytest.raises(ValueError, match="runs through a move"):
        menu(Toy({}, {0: ("play",), 1: ("play", "Wisp")}), [0, 1])
    assert menu(Toy({0: "play Wisp", 1: "play Wisp", 2: "pass"}), [0, 1, 2]) == \
        {"play Wisp #1": 0, "play Wisp #2": 1, "pass": 2}
    assert numbered(["a", "b", "a", "a"]) == ["a #1", "b", "a #2", "a #3"]


@pytest.mark.parametrize("utility, returns, line", [
    ("zero_sum", (1.0, -1.0), "game over: player 0 wins"),
    ("zero_sum", (-1.0, 1.0), "game over: player 1 wins"),
    ("zero_sum", (0.0, 0.0), "game over: a draw"),
    ("general_sum", (1.0, 1.0, 0.0), "game over: players 0, 1 share the win"),
    ("cooperative", (1.0, 1.0), "game over: the players win"),
    ("cooperative", (-1.0, -1.0), "game over: the players lose"),
])
def test_result_line(utility, returns, line):
    state = Toy({}, returns=returns, terminal=True, info=_info(utility, players=len(returns)))
    assert result_line(state) == line == status_line(state)


def test_status_line_names_who_acts():
    assert status_line(Toy({}, player=1)) == "player 1 to move"
    assert status_line(Toy({}, player=CHANCE)) == "chance to act"


def test_the_default_log_hides_chance_in_a_game_with_hands():
    assert seen(Toy({3: "play Wisp"}, player=1), 3, 0) == "player 1: play Wisp"
    assert seen(Toy({3: "draw Fireball"}, player=CHANCE), 3, 0) == "chance"
    public = Toy({3: "infect Paris"}, player=CHANCE, info=_info("cooperative", "perfect"))
    assert seen(public, 3, None) == "chance: infect Paris"


def test_the_generic_view_is_the_render_from_a_seat_and_nothing_for_a_spectator():
    game, state = ToyGame(), Toy({})
    assert describe(state, game, 1).text == "board seen by 1"
    spectator = describe(state, game, None)
    assert spectator.text == NO_SPECTATOR_TEXT and spectator.seats == () and spectator.zones == ()
    public = Toy({}, info=_info("zero_sum", "perfect"))
    assert describe(public, game, None).text == "board seen by None"


def test_a_log_line_says_you_to_the_doer_and_names_the_player_to_others():
    assert doer(0, 0)("play") == "you play"
    assert doer(1, 0)("play") == "player 0 plays" == doer(None, 0)("play")

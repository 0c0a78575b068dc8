"""The public extension API (``cardboard.api``): registration, declared hooks, knob checks and the guard on
``determinize``. Everything here is imported from ``cardboard.api`` or ``cardboard``, as a game author would."""
from __future__ import annotations

import numpy as np
import pytest

import cardboard
from cardboard import registry
from cardboard.envs import registration
from cardboard.api import (HOOKS, InvalidParameterError, ProtocolError, determinize, hook, register_agent,
                           register_game, require_hooks)

from .games import nim


@pytest.fixture(autouse=True)
def registrations_are_undone():
    """What a test registers is gone after it: other tests list every registered game and agent."""
    cardboard.games()  # load the bundled games and entry points first, so they are in the snapshot
    games, agents = dict(registration.GAMES), dict(registration.AGENTS)
    yield
    for table, saved in ((registration.GAMES, games), (registration.AGENTS, agents)):
        table.clear()
        table.update(saved)


class SelfDeterminizingNim(nim.NimState):
    """A perfect-information game that breaks protocol rule 1: ``determinize`` hands back the live state."""

    def determinize(self, player, rng):
        return self


class SelfDeterminizingNimGame(nim.NimGame):
    """Nim whose states return themselves from determinize (a broken game for the guard's test)."""

    def new_state(self, seed=None):
        return SelfDeterminizingNim(self)


@pytest.mark.parametrize("spec", ["ismcts:iterations=20", "duct:iterations=20,worlds=2", "pimc:iterations=20",
                                  "mc:iterations=20", "greedy", "lookahead"])
def test_every_determinizing_agent_refuses_a_determinize_that_returns_the_live_state(spec):
    game = SelfDeterminizingNimGame()
    state = game.new_state()
    before = list(state.heaps)
    with pytest.raises(ProtocolError, match=r"nim.*determinize returned the live state"):
        cardboard.make_agent(spec, game).act(state, np.random.default_rng(0))
    assert state.heaps == before  # the live game was not played on


def test_the_guard_passes_a_real_copy():
    state = nim.NimGame().new_state()
    world = determinize(state, 0, np.random.default_rng(0))
    assert world is not state and world.heaps == state.heaps


@pytest.mark.parametrize("spec, knob", [("ismcts:prune=1", "prune=1"), ("duct:cnb=1", "cnb=1"),
                                        ("ismcts:accuracy=0.5", "accuracy=0.5"), ("uct:prune=1,cnb=1", "cnb=1")])
def test_a_knob_the_game_cannot_serve_is_refused_when_the_agent_is_built(spec, knob):
    with pytest.raises(InvalidParameterError, match=rf"{knob}: game 'lords_of_war' does not support it"):
        cardboard.make_agent(spec, cardboard.make_game("lords_of_war"))


def test_the_knobs_hearth_serves_are_accepted():
    agent = cardboard.make_agent("duct:prune=1,cnb=1,accuracy=0.5", cardboard.make_game("hearth"))
    assert agent.name == "duct:prune=1,cnb=1,accuracy=0.5"


def test_hook_accepts_only_declared_names_and_finds_what_a_state_offers():
    lords = cardboard.new_state("lords_of_war", seed=0)
    hearth = cardboard.new_state("hearth", seed=0)
    assert hook(lords, "random_playout") is not None and hook(lords, "sensible_actions") is None
    assert hook(hearth, "accuracy") is not None and hook(lords, "accuracy") is None
    with pytest.raises(ProtocolError, match="'random_playouts' is not a declared optional hook"):
        hook(lords, "random_playouts")
    assert {"sample_chance", "random_playout", "legal_action_keys", "sensible_actions", "chance_bucket",
            "chance_samples", "accuracy", "state_key", "card_multiset", "played_card", "card_play_features",
            "greedy_action", "settle_chance", "hlr_turn", "evaluation", "evaluations_after", "complexity",
            "observation_structure", "compiled_model", "view", "action_path", "action_seen", "deck_model", "seen_cards",
            "hidden_cards"} == set(HOOKS)


def test_require_hooks_names_the_game_the_knob_and_the_signature():
    with pytest.raises(InvalidParameterError, match=r"cnb=1: game 'lords_of_war' .* chance_bucket\(outcome\)"):
        require_hooks(cardboard.make_game("lords_of_war"), {"cnb=1": ("chance_bucket",)})
    require_hooks(cardboard.make_game("hearth"), {"cnb=1": ("chance_bucket", "chance_samples")})


class Counter:
    """An agent written outside the package: first legal move, counts its resets."""

    def __init__(self, game=None, step: int = 0):
        self.name, self.game, self.step, self.resets = "counter", game, step, 0

    def act(self, state, rng):
        return int(state.legal_actions()[self.step % len(state.legal_actions())])

    def reset(self):
        self.resets += 1


def test_register_a_game_and_an_agent_at_run_time():
    register_game("api_test_nim", nim.NimGame, "Nim, registered by a test")
    register_agent("api_test_counter", Counter)
    assert "api_test_nim" in cardboard.games() and "api_test_counter" in cardboard.agents()
    assert registry.describe_games()["api_test_nim"] == "Nim, registered by a test"
    assert registry.describe_agents()["api_test_counter"].startswith("An agent written outside the package")
    game = cardboard.make_game("api_test_nim", heaps=(2, 2))
    agent = cardboard.make_agent("api_test_counter:step=1", game)
    assert agent.game is game and agent.step == 1  # a factory parameter named game gets the Game
    register_game("api_test_nim", nim.NimGame)  # the same factory again: a no-op


def test_registration_errors_are_typed_and_name_the_problem():
    register_game("api_test_taken", nim.NimGame)
    with pytest.raises(InvalidParameterError, match="'api_test_taken' is already registered"):
        register_game("api_test_taken", SelfDeterminizingNimGame)
    with pytest.raises(InvalidParameterError, match="lower-case letters"):
        register_game("Bad Name", nim.NimGame)
    with pytest.raises(InvalidParameterError, match="must be callable"):
        register_agent("api_test_not_callable", 42)


def test_an_agent_factory_that_returns_no_agent_is_refused():
    register_agent("api_test_no_reset", lambda: type("NoReset", (), {"name": "x", "act": lambda s, st, r: 0})())
    with pytest.raises(InvalidParameterError, match="lacks reset of the Agent protocol"):
        cardboard.make_agent("api_test_no_reset")


def test_a_broken_entry_point_is_skipped_with_a_warning(monkeypatch):
    class BrokenPoint:
        name, value, group = "broken_game", "nowhere.module:Game", "cardboard.games"

        def load(self):
            raise ImportError("No module named 'nowhere'")

    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group: [BrokenPoint()] if group == "cardboard.games" else [])
    with pytest.warns(UserWarning, match=r"entry point 'broken_game' .* No module named 'nowhere'"):
        games = cardboard.games()
    assert "broken_game" not in games and "hearth" in games

"""SeatEnv / SelfPlayEnv on the forward-model protocol: spaces, masks, reward credit, seeding, opponents,
errors, and the layer rule (the wrappers import no registry, policy or search; names are resolved by
``cardboard.make_seat_env`` / ``make_self_play_env``).

No torch here: the SB3 checks are in ``test_sb3.py``.
"""
from __future__ import annotations

import ast
import copy
import inspect
import pickle

import gymnasium as gym
import numpy as np
import pytest

import cardboard
import cardboard.envs.gym_wrappers as gym_wrappers
from cardboard import make_seat_env, make_self_play_env
from cardboard.envs.errors import IllegalActionError, InvalidParameterError, UnknownNameError
from cardboard.envs.gym_wrappers import MaskedDict, SeatEnv, SelfPlayEnv
from cardboard.envs.protocol import CHANCE, TERMINAL, GameInfo
from cardboard.policies.agents import RandomAgent
from cardboard.registry import make_game
from tests.games.tictactoe import TicTacToeGame

GAME = "lords_of_war"


def play(env: gym.Env, rng: np.random.Generator, seed: int | None = None) -> tuple[list, list, dict]:
    """One episode with uniformly random legal actions: (observations, rewards, last info)."""
    obs, info = env.reset(seed=seed)
    observations, rewards, done = [obs], [], False
    while not done:
        action = rng.choice(np.flatnonzero(env.action_masks()))
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
    return observations, rewards, info


# -- a tiny 3-player game with chance nodes, to cover what Lords of War does not ----------------------
class DiceNimState:
    """Chance deals a pile of 3-5 stones; players 0, 1, 2 take 1 or 2 in turn; who takes the last loses."""

    def __init__(self, info: GameInfo):
        self.info, self.num_actions, self.pile, self.player, self.turn = info, 2, -1, CHANCE, 0

    @property
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.player == TERMINAL

    def legal_actions(self) -> np.ndarray:
        return np.arange(min(2, self.pile)) if self.player >= 0 else np.arange(0)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(2, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(3, 0.25), (4, 0.25), (5, 0.5)]

    def apply(self, action: int) -> None:
        if self.player == CHANCE:
            self.pile, self.player = action, 0
        elif action not in self.legal_actions():
            raise IllegalActionError(f"take {action + 1} from {self.pile}")
        else:
            self.pile -= action + 1
            self.loser, self.player = self.player, TERMINAL if self.pile == 0 else (self.player + 1) % 3
            self.turn += self.player != TERMINAL

    def returns(self) -> np.ndarray:
        out = np.full(3, 0.5)
        out[self.loser] = -1.0
        return out

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        out = np.zeros(6, dtype=np.float32)
        out[max(self.pile, 0)] = 1.0
        return out


class DiceNim:
    info = GameInfo("dice_nim", 3, 2, (6,), "explicit", "perfect", "general_sum", -1.0, 0.5, 5)

    def new_state(self, seed=None) -> DiceNimState:
        return DiceNimState(self.info)


# -- spaces and masks ----------------------------------------------------------------------------------
def test_spaces_follow_game_info():
    env = make_seat_env(GAME)
    info = make_game(GAME).info
    assert env.observation_space == gym.spaces.Box(0.0, 1.0, info.observation_shape, np.float32)
    assert env.action_space == gym.spaces.Discrete(info.num_actions)


@pytest.mark.parametrize("seat", [0, 1])
def test_masks_are_the_legal_actions_at_every_step(seat):
    env, rng = make_seat_env(GAME, seat=seat, seed=3), np.random.default_rng(0)
    obs, info = env.reset()
    done = False
    while not done:
        state, mask = env.game_state, env.action_masks()
        assert state.current_player == seat == info["seat"]
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        np.testing.assert_array_equal(np.flatnonzero(mask), state.legal_actions())
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs, state.observation(seat))
        obs, _, done, _, info = env.step(rng.choice(np.flatnonzero(mask)))
    assert not env.action_masks().any()
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


# -- reward credit -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", [make_game(GAME), DiceNim()], ids=["lords_of_war", "dice_nim"])
@pytest.mark.parametrize("seat", [0, 1])
def test_reward_is_the_learners_return_on_the_last_step_only(game, seat):
    env, rng = SeatEnv(game, seat=seat, opponent=RandomAgent(), seed=seat), np.random.default_rng(1)
    outcomes = set()
    for _ in range(6):
        _, rewards, info = play(env, rng)
        returns = env.game_state.returns()
        assert env.game_state.is_terminal() and info["seat"] == seat
        assert all(r == 0.0 for r in rewards[:-1])
        assert sum(rewards) == rewards[-1] == returns[seat] == info["returns"][seat]
        outcomes.add(rewards[-1])
    assert len(outcomes) > 1  # both wins and losses were credited


def test_game_ending_opponent_move_is_credited_to_the_learners_last_step():
    """The loss the opponent inflicts lands on the learner's last transition (PettingZoo #1147)."""
    env, rng = make_seat_env(GAME, seat=0, seed=0), np.random.default_rng(2)
    for _ in range(20):
        _, rewards, _ = play(env, rng)
        if rewards[-1] < 0:
            assert env.game_state.returns()[0] == -1.0
            return
    pytest.fail("no loss in 20 random games")


# -- seeding -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [make_seat_env, make_self_play_env])
def test_same_seed_same_episode(make):
    runs = [play(make(GAME), np.random.default_rng(7), seed=11) for _ in range(2)]
    (obs_a, rew_a, info_a), (obs_b, rew_b, info_b) = runs
    assert rew_a == rew_b and info_a["seat"] == info_b["seat"]
    assert all(np.array_equal(a, b) for a, b in zip(obs_a, obs_b, strict=True))


def test_constructor_seed_equals_reset_seed():
    a, b = make_seat_env(GAME, seat=None, seed=5), make_seat_env(GAME, seat=None)
    resets_a = [a.reset() for _ in range(3)]
    resets_b = [b.reset(seed=5), b.reset(), b.reset()]
    for (obs_a, info_a), (obs_b, info_b) in zip(resets_a, resets_b):
        assert info_a.keys() == info_b.keys() and np.array_equal(obs_a, obs_b)
        assert all(np.array_equal(info_a[key], info_b[key]) for key in info_a)


def test_random_seat_uses_both_seats():
    env = make_seat_env(GAME, seat=None, seed=0)
    assert {env.reset()[1]["seat"] for _ in range(20)} == {0, 1}


# -- opponents -----------------------------------------------------------------------------------------
def test_callable_opponent_sees_its_own_view_and_mask():
    calls = []

    def last_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
        state = env.game_state
        np.testing.assert_array_equal(observation, state.observation(state.current_player))
        np.testing.assert_array_equal(action_mask, state.action_mask())
        calls.append(state.current_player)
        return int(np.flatnonzero(action_mask)[-1])

    env = SeatEnv(make_game(GAME), seat=1, opponent=last_legal, seed=0)
    play(env, np.random.default_rng(0))
    assert calls and set(calls) == {0}


def test_agent_spec_opponent_is_built_by_the_face():
    """``make_seat_env(name, opponent=spec)`` is ``SeatEnv(make_game(name), opponent=make_agent(spec, game))``."""
    game = make_game(GAME)
    runs = [play(env, np.random.default_rng(0), seed=4) for env in
            (make_seat_env(GAME, seat=0, opponent="greedy:samples=2"),
             SeatEnv(game, seat=0, opponent=cardboard.make_agent("greedy:samples=2", game)))]
    assert runs[0][1] == runs[1][1] and runs[0][1][-1] in (-1.0, 0.0, 1.0)
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0], strict=True))


def test_random_spec_and_the_default_opponent_play_the_same_episodes():
    """``None`` draws like the ``random`` agent from the env's generator: the same seed, the same game."""
    runs = [play(env, np.random.default_rng(3), seed=8) for env in
            (make_seat_env(GAME, seat=1, opponent="random"), SeatEnv(make_game(GAME), seat=1))]
    assert runs[0][1] == runs[1][1]
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0], strict=True))


class CountingAgent(RandomAgent):
    """A random agent that counts its moves per game: ``reset()`` starts a new count."""

    def __init__(self):
        self.moves_per_game: list[int] = []

    def reset(self) -> None:
        self.moves_per_game.append(0)

    def act(self, state, rng):
        self.moves_per_game[-1] += 1
        return super().act(state, rng)


@pytest.mark.parametrize("make", [lambda game, agent: SeatEnv(game, seat=1, opponent=agent, seed=0),
                                  lambda game, agent: SelfPlayEnv(game, opponent=agent, seed=0)],
                         ids=["seat_env", "self_play_env"])
def test_opponent_agent_is_reset_at_every_reset(make):
    agent = CountingAgent()
    env = make(make_game(GAME), agent)
    for n in range(1, 7):
        env.reset()  # every episode ends in mid-game: a reset, not the game's end, must reset the agent
        assert len(agent.moves_per_game) == n
        assert (agent.moves_per_game[-1] > 0) == (env.seat == 1)  # reset before the opponent's first move
        env.step(np.flatnonzero(env.action_masks())[0])


def test_the_same_agent_object_replays_the_same_episode():
    env = SeatEnv(make_game(GAME), seat=0, opponent=CountingAgent())
    runs = [play(env, np.random.default_rng(5), seed=2) for _ in range(2)]
    assert runs[0][1] == runs[1][1]
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0], strict=True))


def test_self_play_pool_draws_each_episode_from_its_last_opponents():
    picked = []
    env = make_self_play_env(GAME, pool_size=2, seed=0)
    for tag in ("a", "b", "c"):
        env.add_opponent(lambda obs, mask, tag=tag: picked.append(tag) or int(np.flatnonzero(mask)[0]))
    assert len(env.pool) == 2
    for _ in range(8):
        env.reset()
        env.step(np.flatnonzero(env.action_masks())[0])
    assert set(picked) == {"b", "c"}
    env.set_opponent(RandomAgent())
    assert len(env.pool) == 1


# -- info ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", [make_game(GAME), DiceNim()], ids=["lords_of_war", "dice_nim"])
def test_info_describes_the_learners_decision_and_the_end(game):
    env, rng = SeatEnv(game, seat=1, seed=0), np.random.default_rng(0)
    obs, info = env.reset()
    done = False
    while not done:
        state = env.game_state
        assert (info["seat"], info["player"], info["turn"]) == (1, state.current_player, state.turn)
        assert "returns" not in info
        np.testing.assert_array_equal(info["legal_actions"], state.legal_actions())
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        assert info.get("phase") == getattr(state, "phase", None)  # Lords of War has phases, DiceNim none
        obs, reward, done, _, info = env.step(rng.choice(info["legal_actions"]))
    assert info["player"] == TERMINAL and info["legal_actions"].size == 0 and not info["action_mask"].any()
    assert info["returns"][1] == reward and "illegal_action" not in info


def test_info_arrays_are_new_at_every_call():
    """Gymnasium's checker demands it: a learner may keep (and change) what it was handed."""
    env = make_seat_env(GAME, seed=0)
    _, first = env.reset()
    first["action_mask"][:] = False
    _, _, _, _, second = env.step(first["legal_actions"][0])
    assert second["action_mask"].any() and env.action_masks().any()
    assert second["legal_actions"] is not first["legal_actions"]


# -- illegal actions and sampling ----------------------------------------------------------------------
def test_an_illegal_action_loses_by_default_and_changes_nothing():
    game = make_game(GAME)
    for action in (lambda env: int(np.flatnonzero(~env.action_masks())[0]), lambda env: -1,
                   lambda env: env.action_space.n, lambda env: np.int64(env.action_space.n + 5)):
        env = SeatEnv(game, seat=None, seed=4)
        env.reset()
        before, turn = env.game_state.clone(), env.game_state.turn
        obs, reward, terminated, truncated, info = env.step(action(env))
        assert (reward, terminated, truncated) == (game.info.min_return, True, False)
        assert info["illegal_action"] and info["turn"] == turn and "returns" not in info
        assert env.game_state == before and np.array_equal(obs, before.observation(env.seat))
        assert not env.action_masks().any() and not info["action_mask"].any()
        with pytest.raises(gym.error.ResetNeeded):
            env.step(0)
    env.reset()
    for action in (1.5, "3", np.array(4.0)):  # not an action at all: raised in both modes
        with pytest.raises(IllegalActionError):
            env.step(action)


def test_action_space_samples_the_pending_decisions_legal_actions():
    env = make_seat_env(GAME, seat=None, seed=1)
    space = env.action_space
    assert isinstance(space, gym.spaces.Discrete) and space.contains(space.sample())  # before reset: plain
    env.reset()
    for _ in range(40):
        mask = env.action_masks()
        samples = {int(space.sample()) for _ in range(20)}
        assert all(mask[a] for a in samples)
        if env.step(min(samples))[2]:
            env.reset()
    space.seed(3)
    first = [space.sample() for _ in range(5)]
    space.seed(3)
    assert [space.sample() for _ in range(5)] == first
    assert not env.action_masks()[int(space.sample(mask=(~env.action_masks()).astype(np.int8)))]  # a mask wins


def test_action_space_pickles_alone_and_follows_copies_of_its_env():
    env = make_seat_env(GAME, seat=0, seed=2)
    env.reset()
    alone = pickle.loads(pickle.dumps(env.action_space))  # what SubprocVecEnv sends to the main process
    assert alone == env.action_space
    assert not all(env.action_masks()[int(alone.sample())] for _ in range(50))  # no env: plain sampling
    twin = copy.deepcopy(env)
    twin.step(int(np.flatnonzero(twin.action_masks())[0]))
    assert not np.array_equal(twin.action_masks(), env.action_masks())
    assert all(twin.action_masks()[int(twin.action_space.sample())] for _ in range(50))
    assert all(env.action_masks()[int(env.action_space.sample())] for _ in range(50))


def test_illegal_action_raises_and_changes_nothing():
    env, twin = (make_seat_env(GAME, seat=None, seed=4, illegal="raise") for _ in range(2))
    env.reset(), twin.reset()
    before = env.game_state.clone()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for action in (illegal, -1, env.action_space.n, 1.5, "3"):
        with pytest.raises(IllegalActionError):
            env.step(action)
    assert env.game_state == before
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(30):  # the env's generator was not touched either
        a = rng_a.choice(np.flatnonzero(env.action_masks()))
        assert a == rng_b.choice(np.flatnonzero(twin.action_masks()))
        out_a, out_b = env.step(a), twin.step(a)
        assert np.array_equal(out_a[0], out_b[0]) and out_a[1:4] == out_b[1:4]
        if out_a[2]:
            break


def test_masked_dict_puts_the_mask_in_the_observation():
    """RLlib's action-masking layout; the episode itself is the wrapped env's (tests/test_rllib.py trains on it)."""
    env, rng = MaskedDict(make_seat_env(GAME, seat=None, seed=5, illegal="raise")), np.random.default_rng(0)
    assert set(env.observation_space) == {"observations", "action_mask"}
    obs, _ = env.reset()
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs["observations"], env.unwrapped.game_state.observation(env.unwrapped.seat))
        np.testing.assert_array_equal(obs["action_mask"], env.unwrapped.action_masks())
        obs, _, done, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
    assert env.observation_space.contains(obs) and not obs["action_mask"].any()
    assert set(MaskedDict(make_seat_env(GAME), "obs", "mask").observation_space) == {"obs", "mask"}
    with pytest.raises(InvalidParameterError, match="must differ"):
        MaskedDict(make_seat_env(GAME), "mask", "mask")


def test_integer_arrays_from_predict_are_actions():
    """SB3's ``predict`` returns a 0-d array; a game that accepts only ints must still get one."""
    env = SeatEnv(TicTacToeGame(), seat=0, illegal="raise", seed=0)
    env.reset()
    env.step(np.array(4))
    assert env.game_state.board[4] == 0
    with pytest.raises(IllegalActionError):
        env.step(np.array(4.0))


def test_bad_arguments_are_refused():
    game = make_game(GAME)
    with pytest.raises(InvalidParameterError, match="seat must be"):
        SeatEnv(game, seat=2)
    with pytest.raises(InvalidParameterError, match="an opponent is"):
        SeatEnv(game, opponent=42)
    with pytest.raises(InvalidParameterError, match="lacks reset"):
        SeatEnv(game, opponent=type("HalfAgent", (), {"name": "half", "act": lambda self, state, rng: 0})())
    with pytest.raises(InvalidParameterError, match="pool_size"):
        SelfPlayEnv(game, pool_size=0)
    with pytest.raises(InvalidParameterError, match="illegal must be one of"):
        SelfPlayEnv(game, illegal="ignore")
    with pytest.raises(InvalidParameterError, match="must be a Game"):
        SeatEnv(42)
    with pytest.raises(UnknownNameError, match="bogus"):
        make_seat_env(GAME, bogus=1)
    with pytest.raises(UnknownNameError, match="no_such_agent"):
        make_self_play_env(GAME, opponent="no_such_agent")


@pytest.mark.parametrize("cls", [SeatEnv, SelfPlayEnv])
def test_strings_are_refused_with_a_pointer_to_the_face(cls):
    with pytest.raises(InvalidParameterError, match=r"not the name 'lords_of_war'.*cardboard\.make_seat_env"):
        cls(GAME)
    with pytest.raises(InvalidParameterError, match=r"not the agent spec 'greedy'.*cardboard\.make_seat_env"):
        cls(make_game(GAME), opponent="greedy")


def test_wrappers_import_no_registry_policy_or_search():
    """The layer rule, read from the module's own import statements (importing it runs cardboard/__init__)."""
    tree = ast.parse(inspect.getsource(gym_wrappers))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ("." * node.level) + (node.module or "")
            imported |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    resolved = {name.replace("..", "cardboard.", 1) if name.startswith("..") else
                name.replace(".", "cardboard.envs.", 1) if name.startswith(".") else name for name in imported}
    assert "cardboard.envs.protocol" in resolved  # the walk sees the module's real imports
    forbidden = [name for name in resolved if name.startswith(("cardboard.registry", "cardboard.policies",
                                                               "cardboard.search")) or name == "cardboard"]
    assert not forbidden, forbidden


def test_render_ansi():
    env = make_seat_env(GAME, render_mode="ansi", seed=0)
    env.reset()
    assert isinstance(env.render(), str) and env.render()

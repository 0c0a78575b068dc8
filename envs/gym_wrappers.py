"""Gymnasium single-agent envs over any cardboard game, for Stable-Baselines3 / sb3-contrib.

``SeatEnv``: the learner plays one seat, a fixed opponent plays the others.
``SelfPlayEnv``: the learner plays against frozen snapshots of itself, which
``SelfPlayCallback`` takes during training.

Both run on the forward-model protocol only, so every game works. They take
objects, a ``Game`` and an opponent, never names: this module imports neither
the registry nor any policy or search. Names and agent specs are resolved at the
face, by ``cardboard.make_seat_env`` / ``cardboard.make_self_play_env``::

    import cardboard
    from sb3_contrib import MaskablePPO

    env = cardboard.make_seat_env("lords_of_war", seat=None, opponent="greedy:samples=2", seed=0)
    model = MaskablePPO("MlpPolicy", env).learn(100_000)
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())

    from cardboard.envs.gym_wrappers import SeatEnv          # the same env, from objects
    game = cardboard.make_game("lords_of_war")
    env = SeatEnv(game, seat=None, opponent=cardboard.make_agent("greedy:samples=2", game), seed=0)

``import cardboard`` also registers every game's seat env with Gymnasium:
``gymnasium.make("cardboard/lords_of_war-v0", seat=None, opponent="greedy")``.

Spaces
    observation ``Box(0, 1, (obs_len,), float32)``: ``state.observation(seat)``, the
    learner's own view (``perfect=True``: the perfect-information view).
    action ``LegalDiscrete(num_actions)``, a ``gymnasium.spaces.Discrete`` whose
    ``sample()`` (no mask given) draws a *legal* action while the learner is to act,
    and samples plainly before ``reset``, once the episode is over, or when the space
    was pickled on its own (as ``SubprocVecEnv`` ships spaces): the random steps of
    SB3's and Gymnasium's ``check_env`` are legal moves. ``action_masks()`` returns
    the legal actions as a bool array (True = legal), the method ``MaskablePPO``
    looks for; all False once the episode is over; before the first ``reset`` it
    raises ``gymnasium.error.ResetNeeded``. ``predict`` ignores masks unless it is
    given ``action_masks=`` (sb3-contrib #212).

Illegal actions
    ``step`` takes an int, a numpy integer or a 0-d integer array (what ``predict``
    returns for one observation). An integer that is not a legal action is handled
    by ``illegal``: ``"lose"`` (the default, as PettingZoo's classic envs and their
    ``TerminateIllegalWrapper``) ends the episode with reward ``info.min_return``
    and ``info["illegal_action"] = True``, the game state unchanged; ``"raise"``
    raises ``IllegalActionError`` and changes nothing. Anything that is not an
    integer raises ``IllegalActionError`` in both modes. ``"lose"`` is what lets
    Gymnasium's ``check_env`` pass: it samples an action, then resets with a seed
    and steps it, legal or not in the new game.

Steps and rewards
    One step = one decision of the learner. Between two of its decisions the env
    plays every opponent decision and chance node, so ``step`` returns the
    learner's *next* observation, taken when it is next to act. A turn of several
    decisions by the learner is several consecutive steps.

    The reward is 0 on every step except the last, where it is the learner's
    return ``state.returns()[seat]`` (+1 / -1 / 0 in zero-sum games), whoever made
    the final move: when the opponent's move ends the game, the learner's last
    step still carries the loss. This is the credit rule PettingZoo adopted for
    MaskablePPO in #1203 (the acting agent's reward, the next agent's observation)
    after #1147 showed a naive AEC-to-gym loop handing a game-ending reward to
    the wrong transition, so a learner never saw its losses. Here only the
    learner's transitions exist, so its return can't be misassigned and the sum of
    an episode's rewards is exactly its return. ``terminated`` is True at the end of
    the game; ``truncated`` is always False (games end by rule).

    ``info`` (``reset`` and every step) holds ``seat`` (the learner's), ``turn``,
    ``player`` (to act: the seat, or ``TERMINAL`` at the end), ``legal_actions``
    (int array) and ``action_mask`` (bool array, as ``action_masks()``), ``phase``
    where the state has one, and ``returns`` (all seats) once the game has ended.

Seats, opponents and seeds
    ``seat=None`` draws the learner's seat uniformly at every ``reset`` from the
    env's generator, so ``reset(seed=s)`` fixes the seat too and a learner plays
    every seat equally often. An opponent is an ``Agent`` (``name``,
    ``act(state, rng)``, ``reset()``: the env calls its ``reset()`` at every
    ``reset``), a callable ``(observation, action_mask) -> action`` fed the
    opponent seat's own observation, or anything with SB3's ``predict`` (a model
    or a policy, wrapped by ``policy_from_model``); ``None`` (the default) plays
    a uniformly random legal action drawn from the env's generator. A string (a
    game name or an agent spec) is refused with an ``InvalidParameterError``
    pointing to ``cardboard.make_seat_env``. One opponent plays every seat the
    learner doesn't.

    One seeded ``numpy.random.Generator`` (gymnasium's ``np_random``) deals the
    game, draws the seat, samples chance nodes and is handed to ``Agent``
    opponents: the same seed and the same learner actions replay the same episode.
    A stochastic model opponent (``deterministic=False``) draws from torch's
    generator instead. A deal whose game ends before the learner's first
    decision (possible in some games, never in Lords of War) is dealt again, as
    an episode needs at least one step.

Self-play
    ``SelfPlayEnv`` is a ``SeatEnv`` with a random seat and a pool of the last
    ``pool_size`` opponents; each episode's opponent is drawn from the pool. The
    credit rule is as above: the learner holds one seat per episode, and the
    other seat is part of the environment, so no transition of the learner is
    ever scored with the opponent's reward. ``SelfPlayCallback`` adds a frozen
    deep copy of the training policy to the pool of every env at the start of
    training and every ``every`` steps after that.

Masks in the observation
    ``MaskedDict(env)`` turns the Box observation into ``{"observations": obs, "action_mask": mask}``, the
    mask ``action_masks()`` as float32 0/1: the layout of RLlib's ``ActionMaskingTorchRLModule``::

        env = MaskedDict(cardboard.make_seat_env("lords_of_war", seat=None))

The live forward-model state is ``env.game_state``.
"""
from __future__ import annotations

import copy
import functools
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from .errors import InvalidParameterError
from .protocol import CHANCE, Agent, Game, GameState, sample_chance

Policy = Callable[[np.ndarray, np.ndarray], int]
"""An opponent seen from the outside: ``(observation, action_mask) -> action``."""


class Predictor(Protocol):
    """An SB3 model or policy: anything with ``predict(obs, deterministic=, action_masks=)``."""

    def predict(self, observation: np.ndarray, *args: Any, **kwargs: Any) -> tuple[np.ndarray, Any]: ...


Opponent = Union[Agent, Policy, Predictor, None]
"""What plays the seats the learner doesn't: see the module docstring."""

ILLEGAL = ("lose", "raise")
"""How ``step`` handles an illegal action: see the module docstring."""


def check_illegal(illegal: str) -> None:
    """``InvalidParameterError`` unless ``illegal`` is one of ``ILLEGAL``."""
    if illegal not in ILLEGAL:
        raise InvalidParameterError(f"illegal must be one of {ILLEGAL}, got {illegal!r}")


@dataclass(frozen=True)
class _Player:
    """An opponent as the env drives it: ``move(state, player, rng)``, and ``reset()`` before every game."""

    move: Callable[[GameState, int, np.random.Generator], int]
    reset: Callable[[], None] = lambda: None


def _random_move(state: GameState, player: int, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


def policy_from_model(model: Predictor, deterministic: bool = True) -> Policy:
    """A ``Policy`` from an SB3 model or policy: ``predict`` with ``action_masks=`` (sb3-contrib #212)."""

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        action, _ = model.predict(observation, deterministic=deterministic, action_masks=action_mask)
        return int(action)

    return policy


def _check_game(game: Game) -> Game:
    if isinstance(game, str):
        raise InvalidParameterError(
            f"SeatEnv / SelfPlayEnv take a Game object, not the name {game!r}: build the env by name with "
            f"cardboard.make_seat_env({game!r}, ...) / cardboard.make_self_play_env({game!r}, ...), or pass "
            f"cardboard.make_game({game!r})")
    if not (hasattr(game, "info") and callable(getattr(game, "new_state", None))):
        raise InvalidParameterError(f"game must be a Game (info, new_state), got {game!r}")
    return game


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a legal action of its env's pending decision.

    The env is held by a weak reference, dropped when the space is pickled or copied on its own (the env
    binds its copy again); without one, or with no decision pending, it samples like ``Discrete``."""

    def __init__(self, n: int, env: SeatEnv):
        super().__init__(n)
        self.bind(env)

    def bind(self, env: SeatEnv | None) -> None:
        """Sample the pending decisions of ``env`` (None: sample plainly)."""
        self._env = None if env is None else weakref.ref(env)

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        env = None if self._env is None else self._env()
        if mask is None and probability is None and env is not None:
            mask = env._pending_mask()
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_env": None}


class SeatEnv(gym.Env):
    """The learner plays ``seat`` of ``game``; ``opponent`` plays the other seats (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # fps: a video of 2 decisions a second

    def __init__(
        self,
        game: Game,
        *,
        seat: int | None = 0,
        opponent: Opponent = None,
        perfect: bool = False,
        illegal: str = "lose",
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        self.game = _check_game(game)
        info = self.game.info
        if seat is not None and seat not in range(info.num_players):
            raise InvalidParameterError(f"seat must be None or in 0..{info.num_players - 1}, got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        check_illegal(illegal)
        self.fixed_seat = seat
        self.perfect = bool(perfect)
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, shape=info.observation_shape, dtype=np.float32)
        self.action_space = LegalDiscrete(info.num_actions, self)
        self.seat = 0 if seat is None else seat
        self.game_state: GameState | None = None
        self._over = False  # the episode has ended (by the rules or by an illegal action)
        self.set_opponent(opponent)
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)

    # -- opponents ----------------------------------------------------------------------------------
    def _player(self, opponent: Opponent) -> _Player:
        if opponent is None:
            return _Player(_random_move)
        if isinstance(opponent, str):
            raise InvalidParameterError(
                f"SeatEnv / SelfPlayEnv take an opponent object, not the agent spec {opponent!r}: build the env with "
                f"cardboard.make_seat_env(name, opponent={opponent!r}) / cardboard.make_self_play_env(...), or pass "
                f"cardboard.make_agent({opponent!r}, game)")
        if hasattr(opponent, "act"):
            if not isinstance(opponent, Agent):
                missing = [m for m in ("name", "act", "reset") if not hasattr(opponent, m)]
                raise InvalidParameterError(f"opponent {opponent!r} lacks {', '.join(missing)} of the Agent protocol")
            return _Player(lambda state, player, rng: opponent.act(state, rng), opponent.reset)
        if hasattr(opponent, "predict"):
            opponent = policy_from_model(opponent)
        if not callable(opponent):
            raise InvalidParameterError(f"an opponent is an Agent, a callable (observation, action_mask) -> action, "
                                        f"an SB3 model or policy, or None (uniformly random), got {opponent!r}")
        perfect = self.perfect
        return _Player(lambda state, player, rng: opponent(state.observation(player, perfect), state.action_mask()))

    def set_opponent(self, opponent: Opponent) -> None:
        """Play the other seats with ``opponent`` from the next decision on."""
        self._opponent = self._player(opponent)

    def _draw_opponent(self) -> None:
        """Hook run at every reset, before the deal (``SelfPlayEnv`` picks from its pool here)."""

    # -- gymnasium API ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        self._draw_opponent()
        self._opponent.reset()
        self.seat = int(rng.integers(self.game.info.num_players)) if self.fixed_seat is None else self.fixed_seat
        self._over = False
        while True:  # a game that ends before the learner's first decision teaches nothing: deal again
            self.game_state = self.game.new_state(rng)
            self._play_others()
            if not self.game_state.is_terminal():
                return self._observe(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        state = self.game_state
        if state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._over:
            raise gym.error.ResetNeeded("the episode is over: call reset()")
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = int(action)  # what SB3's predict returns for one observation
        integer = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if self.illegal == "lose" and integer and not self._legal(action):
            self._over = True
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), float(self.game.info.min_return), True, False, info
        state.apply(action)  # raises IllegalActionError (non-integers too), leaving the state unchanged
        self._play_others()
        self._over = bool(state.is_terminal())
        info = self._info()
        reward = float(info["returns"][self.seat]) if self._over else 0.0
        return self._observe(), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as a new bool array (all False once the episode is over)."""
        if self.game_state is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        if self._over:
            return np.zeros(self.game.info.num_actions, dtype=bool)
        return np.array(self.game_state.action_mask(), dtype=bool)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None or self.game_state is None:
            return None
        if self.render_mode == "ansi":
            return self.game.render_ansi(self.game_state, self.seat)
        return self.game.render_rgb(self.game_state)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled or deep-copied: the action space samples this env's decisions, not the original's."""
        self.__dict__.update(state)
        self.action_space.bind(self)

    # -- internals ----------------------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        return self.game_state.observation(self.seat, perfect=self.perfect)

    def _info(self) -> dict[str, Any]:
        state, mask = self.game_state, self.action_masks()
        info: dict[str, Any] = {"seat": self.seat, "turn": int(state.turn), "player": int(state.current_player),
                                "legal_actions": np.flatnonzero(mask), "action_mask": mask}
        phase = getattr(state, "phase", None)
        if phase is not None:
            info["phase"] = phase
        if state.is_terminal():
            info["returns"] = np.array(state.returns(), dtype=float)
        return info

    def _legal(self, action: int | np.integer) -> bool:
        return 0 <= action < self.game.info.num_actions and bool(self.game_state.action_mask()[action])

    def _pending_mask(self) -> np.ndarray | None:
        """The learner's legal actions as ``Discrete.sample``'s int8 mask, or None when no decision is pending."""
        if self.game_state is None or self._over:
            return None
        return self.action_masks().astype(np.int8)

    def _play_others(self) -> None:
        """Play chance and opponent decisions until the learner is to act or the game is over."""
        state, rng = self.game_state, self.np_random
        while not state.is_terminal():
            player = state.current_player
            if player == self.seat:
                return
            if player == CHANCE:
                state.apply(sample_chance(state, rng))
            else:
                state.apply(self._opponent.move(state, player, rng))


class SelfPlayEnv(SeatEnv):
    """A random-seat ``SeatEnv`` whose opponent is drawn each episode from a pool of snapshots.

    The pool holds the last ``pool_size`` opponents added by ``add_opponent`` (or
    ``SelfPlayCallback``); it starts with ``opponent`` alone, a random player by default.
    """

    def __init__(
        self,
        game: Game,
        *,
        opponent: Opponent = None,
        pool_size: int = 5,
        perfect: bool = False,
        illegal: str = "lose",
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        if pool_size < 1:
            raise InvalidParameterError(f"pool_size must be >= 1, got {pool_size}")
        self.pool: deque[_Player] = deque(maxlen=pool_size)
        super().__init__(game, seat=None, opponent=opponent, perfect=perfect, illegal=illegal, seed=seed,
                         render_mode=render_mode)

    def set_opponent(self, opponent: Opponent) -> None:
        """Empty the pool and play ``opponent`` from the next decision on."""
        self.pool.clear()
        self.add_opponent(opponent)
        self._opponent = self.pool[-1]

    def add_opponent(self, opponent: Opponent) -> None:
        """Add ``opponent`` to the pool (dropping the oldest when full); it can be drawn from the next episode."""
        self.pool.append(self._player(opponent))

    def _draw_opponent(self) -> None:
        self._opponent = self.pool[int(self.np_random.integers(len(self.pool)))]


class MaskedDict(gym.ObservationWrapper):
    """Dict observations ``{observation_key: obs, mask_key: legal actions as float32 0/1}`` of an env with
    ``action_masks()`` (``SeatEnv``, ``SelfPlayEnv``), for libraries that read the mask from the observation
    (RLlib's ``ActionMaskingTorchRLModule``: the default keys). The mask is all 0 once the episode is over."""

    def __init__(self, env: gym.Env, observation_key: str = "observations", mask_key: str = "action_mask"):
        super().__init__(env)
        if observation_key == mask_key:
            raise InvalidParameterError(f"observation_key and mask_key must differ, both are {mask_key!r}")
        self.observation_key, self.mask_key = observation_key, mask_key
        mask_space = spaces.Box(0.0, 1.0, shape=(env.action_space.n,), dtype=np.float32)
        self.observation_space = spaces.Dict({observation_key: env.observation_space, mask_key: mask_space})

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        mask = self.env.get_wrapper_attr("action_masks")()
        return {self.observation_key: observation, self.mask_key: mask.astype(np.float32)}


@functools.cache
def _self_play_callback() -> type:
    """Build ``SelfPlayCallback`` on first use, so this module imports without SB3 and torch."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Add a frozen copy of the training policy to every ``SelfPlayEnv``'s pool at the start and every ``every`` steps.

        ``deterministic=False`` lets the snapshots sample their moves, which varies the games they play.
        """

        def __init__(self, every: int = 10_000, deterministic: bool = False, verbose: int = 0):
            super().__init__(verbose)
            if every < 1:
                raise InvalidParameterError(f"every must be >= 1, got {every}")
            self.every = every
            self.deterministic = deterministic
            self.snapshots = 0
            self._next = every

        def _on_training_start(self) -> None:
            self._snapshot()
            self._next = self.num_timesteps + self.every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                self._snapshot()
                self._next += self.every
            return True

        def _snapshot(self) -> None:
            frozen = copy.deepcopy(self.model.policy)
            frozen.set_training_mode(False)
            self.training_env.env_method("add_opponent", policy_from_model(frozen, self.deterministic))
            self.snapshots += 1
            if self.verbose:
                print(f"self-play: snapshot {self.snapshots} at step {self.num_timesteps}")

    SelfPlayCallback.__module__ = __name__
    return SelfPlayCallback


def __getattr__(name: str) -> Any:
    if name == "SelfPlayCallback":
        return _self_play_callback()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""A ``VectorGame`` as RL libraries take a batch: Gymnasium's ``VectorEnv`` and Stable-Baselines3's ``VecEnv``.

Both faces step one ``VectorGame`` (``cardboard.envs.vector``; build it with ``cardboard.make_vec_env``) and copy
what they hand out: the core overwrites its arrays in place at every step, and a caller keeps observations across
steps (a rollout buffer, a ``final_obs``). A copy costs little next to a network's forward pass.

    import cardboard, gymnasium
    envs = gymnasium.make_vec("cardboard/lords_of_war-v0", num_envs=64, opponent="greedy")
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(envs.unwrapped.vec.random_actions())

    from sb3_contrib import MaskablePPO
    from cardboard.envs.vector_env import sb3_vec_env
    env = sb3_vec_env(cardboard.make_vec_env("lords_of_war", 64, opponent="random", seed=0))
    MaskablePPO("MlpPolicy", env, n_steps=128).learn(100_000)

Spaces: observation ``Box(0, 1, observation_shape, float32)``, action ``Discrete(num_actions)`` per game. Both
faces have ``action_masks()``, the legal actions of every row as a new ``(num_envs, num_actions)`` bool array
(what ``MaskablePPO`` asks for). An illegal action raises ``IllegalActionError`` and plays nothing.

Gymnasium (``CardboardVectorEnv``): same-step auto-reset (``AutoresetMode.SAME_STEP``, the default): a row whose
game ended in a step already holds the next game's first observation. ``autoreset_mode=AutoresetMode.DISABLED``
(TorchRL's choice) hands an ended row its game's last observation, masks all its actions and refuses to step until
``reset(options={"reset_mask": m})`` starts the next game of the rows ``m`` (already dealt by the core). ``infos``
are batched: ``action_mask`` (N, A) and ``player`` (N,) (the seat to act) always; where some game ended,
``final_info`` (``returns``, every seat's, and ``seat``, the one whose last observation and reward those are),
``returns`` again at the top and, with SAME_STEP, ``final_obs`` (an object array: the ended rows' last
observations, None elsewhere), each with its ``_key`` mask of ended rows.
``reset(seed=s)`` deals every row from ``s`` (None: the batch's next streams, ``VectorGame.reset``).

SB3 (``sb3_vec_env``): ``reset()`` returns observations; ``step`` returns ``(obs, rewards, dones, infos)``,
``infos[i]`` holding ``terminal_observation``, ``TimeLimit.truncated`` (False: games end by rule) and ``returns``
where row ``i``'s game ended. ``seed(s)`` fixes the next ``reset()``'s deal (a reset without a pending seed goes on
from the last seeded streams). The rows have no env objects of their own: ``get_attr`` / ``set_attr`` /
``env_method`` reach the batch's attributes and methods, one answer per row asked, except
``env_method("action_masks")``: each row's.
This module imports SB3 only when ``sb3_vec_env`` is first called.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .errors import InvalidParameterError
from .protocol import GameInfo
from .vector import VectorGame

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv


AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)  # DISABLED: what TorchRL's GymWrapper prefers


def single_spaces(info: GameInfo) -> tuple[spaces.Box, spaces.Discrete]:
    """One game's observation and action spaces."""
    return (spaces.Box(0.0, 1.0, shape=info.observation_shape, dtype=np.float32),
            spaces.Discrete(info.num_actions))


class _Shared:
    """What both faces share: the ``VectorGame`` (``vec``) and ``action_masks()``, which ``MaskablePPO`` calls."""

    vec: VectorGame

    def action_masks(self) -> np.ndarray:
        """Every row's legal actions, a new bool array ``(num_envs, num_actions)``."""
        return self.vec.action_masks.copy()


class CardboardVectorEnv(_Shared, gymnasium.vector.VectorEnv):
    """Gymnasium's ``VectorEnv`` over a ``VectorGame`` (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, vec: VectorGame, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP):
        self.vec = vec
        self.num_envs = vec.num_envs
        self.single_observation_space, self.single_action_space = single_spaces(vec.info)
        self.observation_space = batch_space(self.single_observation_space, vec.num_envs)
        self.action_space = batch_space(self.single_action_space, vec.num_envs)
        self.autoreset_mode = AutoresetMode(autoreset_mode)  # an attribute too: TorchRL reads it there
        if self.autoreset_mode not in AUTORESET_MODES:
            raise InvalidParameterError(f"autoreset_mode must be SAME_STEP or DISABLED, got {autoreset_mode!r}")
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self._ended = np.zeros(vec.num_envs, dtype=bool)  # DISABLED: rows showing a finished game until reset

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal every row afresh from ``seed`` (None: the next deal of the batch's streams), or with
        ``options={"reset_mask": m}`` (DISABLED) start the next game of the ended rows ``m``, already dealt."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise InvalidParameterError(f"CardboardVectorEnv.reset takes only options['reset_mask'], got {options!r}")
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self.num_envs,):
                raise InvalidParameterError(f"reset_mask must be {self.num_envs} bools, got shape {mask.shape}")
            if seed is None and not (mask & ~self._ended).any():
                self._ended &= ~mask
                return self._observations(), self._infos()
            if not mask.all():
                raise InvalidParameterError("reset_mask may name only rows whose game ended, or every row")
        self._ended[:] = False
        self.vec.reset(seed)
        return self._observations(), self._infos()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        vec = self.vec
        if self._ended.any():
            raise InvalidParameterError("reset the rows whose game ended first: reset(options={'reset_mask': m})")
        movers = vec.players.copy()  # the seat rewarded in each row this step: the learner's, or self-play's mover
        vec.step(actions)
        if self.autoreset_mode is AutoresetMode.DISABLED:
            self._ended = vec.terminations | vec.truncations
        infos = self._infos()
        if vec.terminations.any():
            infos.update(self._final_infos(movers))
        return self._observations(), vec.rewards.copy(), vec.terminations.copy(), vec.truncations.copy(), infos

    def _observations(self) -> np.ndarray:
        """The batch's observations; a DISABLED row whose game ended shows that game's last one."""
        obs = self.vec.observations.copy()
        obs[self._ended] = self.vec.final_observations[self._ended]
        return obs

    def close_extras(self, **kwargs: Any) -> None:
        self.vec.close()

    def _infos(self) -> dict[str, Any]:
        masks = self.action_masks()
        masks[self._ended] = False
        return {"action_mask": masks, "player": self.vec.players.copy()}

    def _final_infos(self, movers: np.ndarray) -> dict[str, Any]:
        """The ended games' part of a step's infos (``movers``: the seat rewarded in each row)."""
        vec = self.vec
        ended = vec.terminations.copy()
        rows = np.flatnonzero(ended)
        final_obs = np.full(vec.num_envs, None, dtype=object)
        for i, obs in zip(rows, vec.final_observations[rows]):
            final_obs[i] = obs
        returns = np.where(ended[:, None], vec.final_returns, 0.0)
        final_info = {"returns": returns, "_returns": ended, "seat": np.where(ended, movers, -1), "_seat": ended}
        infos = dict(final_info=final_info, _final_info=ended, returns=returns, _returns=ended)
        if self.autoreset_mode is AutoresetMode.SAME_STEP:  # DISABLED: the observation itself is the last one
            infos.update(final_obs=final_obs, _final_obs=ended)
        return infos


def sb3_vec_env(vec: VectorGame) -> VecEnv:
    """SB3's ``VecEnv`` over ``vec`` (see the module docstring; needs stable-baselines3)."""
    return _sb3_class()(vec)


@functools.cache
def _sb3_class() -> type:
    """Build ``CardboardVecEnv`` on first use, so this module imports without SB3 and torch."""
    from stable_baselines3.common.vec_env import VecEnv

    class CardboardVecEnv(_Shared, VecEnv):
        """SB3's ``VecEnv`` over a ``VectorGame`` (see ``cardboard.envs.vector_env``)."""

        def __init__(self, vec: VectorGame):
            self.vec = vec
            self.render_mode = None
            self._actions: np.ndarray | None = None
            self._seed: int | None = None
            super().__init__(vec.num_envs, *single_spaces(vec.info))

        def reset(self) -> np.ndarray:
            self.vec.reset(self._seed)
            self._seed = None
            return self.vec.observations.copy()

        def seed(self, seed: int | None = None) -> list[int | None]:
            """Deal the next ``reset()`` from ``seed`` (every row: row ``i`` from ``(seed, i)``)."""
            self._seed = seed
            return [seed] * self.num_envs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = actions

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            vec = self.vec
            vec.step(self._actions)
            dones = vec.terminations | vec.truncations
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            rows = np.flatnonzero(dones)
            for i, obs in zip(rows, vec.final_observations[rows]):
                infos[i] = {"terminal_observation": obs, "TimeLimit.truncated": False,
                            "returns": vec.final_returns[i].copy()}
            return vec.observations.copy(), vec.rewards.copy(), dones, infos

        def close(self) -> None:
            self.vec.close()

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            return [getattr(self, attr_name)] * len(self._rows(indices))

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            """Set the batch's attribute: every row shares it."""
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                       **method_kwargs: Any) -> list[Any]:
            rows = self._rows(indices)
            if method_name == "action_masks":
                return list(self.vec.action_masks[rows])
            return [getattr(self, method_name)(*method_args, **method_kwargs)] * len(rows)

        def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
            return [False] * len(self._rows(indices))

        def _rows(self, indices: Any) -> list[int]:
            return list(self._get_indices(indices))

    CardboardVecEnv.__module__, CardboardVecEnv.__qualname__ = __name__, "CardboardVecEnv"
    return CardboardVecEnv


def __getattr__(name: str) -> Any:
    if name == "CardboardVecEnv":
        return _sb3_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""A PettingZoo AEC environment over any forward model.

Every cardboard game gets its AEC env from this one class: agents are
``player_0 .. player_{n-1}``, each observation is
``{"observation": float32 vector, "action_mask": int8 vector}`` (the mask is
all zeros for an agent that is not acting, PettingZoo's convention), the
acting agent stays selected for every decision of its turn, chance nodes are
sampled by the env with its seeded generator, and rewards are the game's
returns at the end. The acting agent's info holds ``legal_actions`` (int
array) and ``turn``; the other agents' infos are empty.

``render_mode``: ``"ansi"`` returns the text board, ``"rgb_array"`` an image,
``"human"`` prints the text board to stdout and returns None (PettingZoo's
convention), each at every ``render()`` call.

``open=True`` gives every agent the perfect-information view. The live
forward-model state is ``env.unwrapped.game_state`` (for search agents), and
the env survives ``copy.deepcopy`` and pickling with its game intact.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .errors import UnknownNameError
from .protocol import CHANCE, Game, GameState, sample_chance


class CardboardAECEnv(AECEnv):
    """PettingZoo AEC env for a cardboard ``Game`` (see the module docstring)."""

    def __init__(self, game: Game, open: bool = False, render_mode: str | None = None):
        super().__init__()
        info = game.info
        self.metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": info.name, "is_parallelizable": False}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise UnknownNameError("render_mode", render_mode, self.metadata["render_modes"])
        self.game = game
        self.open = bool(open)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(info.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=info.observation_shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(info.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, shape=info.observation_shape, dtype=np.float32)
        self.action_spaces = {a: spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game_state: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_state(self._rng)
        self._advance_chance()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.agent_selection = self.agents[self.game_state.current_player]
        self._set_infos()

    def _advance_chance(self) -> None:
        while self.game_state.current_player == CHANCE:
            self.game_state.apply(sample_chance(self.game_state, self._rng))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self._index[agent]
        state = self.game_state
        mask = np.zeros(state.num_actions, dtype=np.int8)
        if not state.is_terminal() and state.current_player == player:
            mask[state.legal_actions()] = 1
        return {"observation": state.observation(player, perfect=self.open), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        state.apply(action)  # raises IllegalActionError, leaving the state unchanged
        self._advance_chance()
        self._cumulative_rewards[agent] = 0.0
        if state.is_terminal():
            returns = state.returns()
            for a in self.agents:
                self.rewards[a] = float(returns[self._index[a]])
                self.terminations[a] = True
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.agent_selection = self.agents[state.current_player]
        self._set_infos()
        self._accumulate_rewards()

    def _set_infos(self) -> None:
        """Empty infos, but the acting agent's: its legal actions and the turn."""
        state = self.game_state
        self.infos = {a: {} for a in self.agents}
        if not state.is_terminal():
            self.infos[self.agent_selection] = {"legal_actions": np.array(state.legal_actions()),
                                                "turn": int(state.turn)}

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None or self.game_state is None:
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.game_state)
        text = self.game.render_ansi(self.game_state)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def state(self) -> np.ndarray:
        """The perfect-information view (player 0's frame)."""
        return self.game_state.observation(0, perfect=True)

    def close(self) -> None:
        pass

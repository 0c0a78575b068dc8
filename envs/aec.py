"""A PettingZoo AEC environment over any forward model.

Every cardboard game gets its AEC env from this one class: agents are
``player_0 .. player_{n-1}``, each observation is
``{"observation": float32 vector, "action_mask": int8 vector}`` (the mask is
all zeros for an agent that is not acting, PettingZoo's convention), the
acting agent stays selected for every decision of its turn, chance nodes are
sampled by the env with its seeded generator, and rewards are the game's
returns at the end. The acting agent's info holds ``turn``; the other agents'
infos are empty. ``legal_actions_info=True`` adds ``legal_actions`` (int array)
to the acting agent's info; it is off by default because its length changes
from step to step, which replay buffers that stack infos (Tianshou's) cannot
hold, and the mask says the same.

``render_mode``: ``"ansi"`` returns the text board, ``"rgb_array"`` an image,
``"human"`` prints the text board to stdout and returns None (PettingZoo's
convention), each at every ``render()`` call.

``open=True`` gives every agent the perfect-information view. ``state()`` is
the full-information state vector (``state_space``, the observation's shape):
player 0's ``open=True`` observation, every hand and what open mode shows of
the decks. The live forward-model state is ``env.unwrapped.game_state`` (for
search agents), and the env survives ``copy.deepcopy`` and pickling with its
game intact.

Illegal moves: ``wrap`` (what ``cardboard.make_env`` and every
``cardboard.envs.<game>_v0.env()`` return) is the wrapper stack of
``pettingzoo.classic``: ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
TerminateIllegalWrapper(raw, illegal_reward)))``. A masked-out action ends the
game: the offender's reward is the game's ``min_return`` (-1 in every bundled
game), the others' 0; in a cooperative game (Pandemic) the team loses, every
seat gets ``min_return``, as at a loss by the rules (the others' 0 would make
an illegal move better for the team than losing). Every agent's info then holds
``illegal_action: True`` (the Gymnasium envs' key; PettingZoo's wrapper itself
only logs a warning) and ``illegal_move``, a sentence naming the offender and
the action; the game state is left as it was before the move. An id
outside the action space (or a non-integer) fails the out-of-bounds assertion.
``illegal="raise"`` (for debugging) keeps only the order-enforcing wrapper:
``step`` raises ``IllegalActionError`` and changes nothing.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .errors import UnknownNameError
from .gym_wrappers import check_illegal
from .protocol import CHANCE, Game, GameState, sample_chance


class CardboardAECEnv(AECEnv):
    """PettingZoo AEC env for a cardboard ``Game`` (see the module docstring)."""

    def __init__(self, game: Game, open: bool = False, render_mode: str | None = None,
                 legal_actions_info: bool = False):
        super().__init__()
        info = game.info
        self.metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": info.name, "is_parallelizable": False}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise UnknownNameError("render_mode", render_mode, self.metadata["render_modes"])
        self.game = game
        self.open = bool(open)
        self.legal_actions_info = bool(legal_actions_info)
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
        if not state.is_terminal() and state.current_player == player and not self.terminations.get(agent, True):
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
        """Empty infos, but the acting agent's: the turn (and its legal actions with ``legal_actions_info``)."""
        state = self.game_state
        self.infos = {a: {} for a in self.agents}
        if not state.is_terminal():
            info = self.infos[self.agent_selection] = {"turn": int(state.turn)}
            if self.legal_actions_info:
                info["legal_actions"] = np.array(state.legal_actions())

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
        """The full-information state: player 0's perfect-information observation."""
        return self.game_state.observation(0, perfect=True)

    def close(self) -> None:
        pass


class TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` that says what happened in every agent's info and, in a
    cooperative game, gives every seat the penalty (see the module docstring)."""

    def step(self, action: int | None) -> None:
        agent, ended = self.agent_selection, self._terminated
        super().step(action)
        if ended or not self._terminated:
            return
        raw = self.env.unwrapped
        penalty = float(self._illegal_value)
        outcome = f"{agent} scores {penalty:g}"
        if raw.game.info.utility == "cooperative":
            for a in raw.agents:
                raw._cumulative_rewards[a] += penalty - raw.rewards[a]
                raw.rewards[a] = penalty
            outcome = f"the team loses, every seat scores {penalty:g}"
        try:
            name = f" ({raw.game_state.action_to_string(int(action))})"
        except Exception:  # a game may not describe an action that is illegal here
            name = ""
        message = f"{agent} played action {action}{name}, which is not legal here: the game ends and {outcome}"
        raw.infos = {a: {"illegal_action": True, "illegal_move": message} for a in raw.agents}


def wrap(raw: CardboardAECEnv, illegal: str = "lose") -> AECEnv:
    """``raw`` in PettingZoo's classic wrapper stack: ``illegal="lose"`` ends the game on an illegal move,
    ``"raise"`` raises ``IllegalActionError`` (see the module docstring)."""
    check_illegal(illegal)
    env: AECEnv = raw
    if illegal == "lose":
        env = wrappers.AssertOutOfBoundsWrapper(TerminateIllegal(raw, illegal_reward=raw.game.info.min_return))
    return wrappers.OrderEnforcingWrapper(env)

"""The forward-model protocol: the one interface every cardboard game state offers.

Search, networks, trainers and tournaments talk to games only through this
protocol, so that each of them runs unchanged on every game of the suite.

A state is mutable and cheap to copy. Its public names:

=====================  ==========================================================
``current_player``     int: the player to decide now, or ``CHANCE`` when chance
                       acts, or ``TERMINAL`` once the game is over.
``is_terminal()``      True once the game is over.
``returns()``          one float per player (zero-sum games: +1 / -1 / 0).
``legal_actions()``    the legal action ids (ints in ``range(num_actions)``), in
                       increasing order. High-performance engines return a
                       read-only view that is valid until the next ``apply``:
                       copy it if you keep it.
``action_mask()``      bool array of length ``num_actions``, True = legal.
``apply(action)``      play an action in place. An illegal id raises
                       ``IllegalActionError`` and leaves the state unchanged.
                       At a chance node, ``action`` is a chance outcome.
``clone()``            an independent copy (a few flat array copies).
``chance_outcomes()``  at a chance node: ``[(outcome, probability), ...]``.
                       Elsewhere raises ``ProtocolError``.
``determinize(p, rng)`` a full state sampled uniformly from what player ``p``
                       cannot see, consistent with all ``p`` has seen (hands,
                       deck contents but not order, revealed cards).
``observation(p, perfect=False)`` a float32 vector of the game's
                       ``observation_shape``: what ``p`` may see, or with
                       ``perfect=True`` the perfect-information view.
``action_key(a)``      a hashable soft key: actions that mean the same thing in
                       different determinizations compare equal ("play the
                       card named X on square s", not "play hand slot 3").
                       A game whose keys are small ints declares
                       ``info.num_action_keys`` (every legal action's key is
                       in ``range(num_action_keys)``): search then indexes
                       its statistics by the key directly.
``legal_action_keys()`` optional: ``action_key`` of every legal action, in
                       order, in one call (search uses it when present); an
                       int64 array when ``info.num_action_keys`` is set.
``sensible_actions()``  optional: the non-empty subset of the legal actions
                       an expert move generator keeps (heuristic pruning);
                       search steps over it with ``SearchConfig(prune=True)``.
``action_to_string(a)`` human-readable action.
``heuristic(p)``       a cheap game-specific evaluation for player ``p`` in
                       [-1, 1] (+1/-1 at decided terminals): scripted
                       baselines, pruning and leaf evaluation use it.
``turn``               index of the current player turn. A turn is a run of
                       consecutive decisions by one player; rollout depths are
                       counted in turns.
``num_players``, ``num_actions``  as in ``info``.
``sample_chance(rng)`` optional fast path: one chance outcome drawn by the
                       probabilities with ``rng`` (``protocol.sample_chance``
                       uses it when a state offers it).
``random_playout(rng, max_turns=None)``  optional fast path: random moves
                       in place to the end (or for ``max_turns`` player turns)
                       by the game's rollout policy (uniform unless the game
                       documents another), returning the number of decisions;
                       search uses it for rollouts when a state offers it.
``info``               the game's ``GameInfo``: its properties as data.
=====================  ==========================================================

Non-active players may have to decide inside another's turn (Fifth Aeon's
blocking): ``current_player`` simply names them; ``turn`` does not change.

Rewards are ``returns()`` at terminal states; search maps them to [0, 1]
with ``GameInfo.min_return`` / ``max_return``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Protocol, runtime_checkable

import numpy as np

CHANCE = -1
TERMINAL = -2


@dataclass(frozen=True)
class GameInfo:
    """A game's properties as data, so search can check them before it starts."""

    name: str
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    chance: str  # "none" | "setup" (only the initial shuffle) | "explicit" (chance nodes in play)
    information: str  # "perfect" | "imperfect"
    utility: str  # "zero_sum" | "general_sum" | "cooperative"
    min_return: float
    max_return: float
    max_turns: int
    num_action_keys: int | None = None  # when set, every legal action's key is an int in range(num_action_keys)


@runtime_checkable
class GameState(Protocol):
    """Structural type of a forward-model state (see the module docstring)."""

    info: GameInfo

    @property
    def current_player(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> np.ndarray: ...

    def legal_actions(self) -> np.ndarray: ...

    def action_mask(self) -> np.ndarray: ...

    def apply(self, action: int) -> None: ...

    def clone(self) -> "GameState": ...

    def chance_outcomes(self) -> list[tuple[int, float]]: ...

    def determinize(self, player: int, rng: np.random.Generator) -> "GameState": ...

    def observation(self, player: int, perfect: bool = False) -> np.ndarray: ...

    def action_key(self, action: int) -> Hashable: ...

    def action_to_string(self, action: int) -> str: ...

    def heuristic(self, player: int) -> float: ...


@runtime_checkable
class Game(Protocol):
    """A game's static data (cards, board) and its factory of initial states."""

    info: GameInfo

    def new_state(self, seed: int | np.random.Generator | None = None) -> GameState: ...

    def render_ansi(self, state: GameState, perspective: int | None = None) -> str: ...

    def render_rgb(self, state: GameState) -> np.ndarray: ...


def sample_chance(state: GameState, rng: np.random.Generator) -> int:
    """Draw one chance outcome of ``state`` with the seeded ``rng`` (the state's own fast path if it has one)."""
    fast = getattr(state, "sample_chance", None)
    if fast is not None:
        return fast(rng)
    outcomes = state.chance_outcomes()
    probs = np.fromiter((p for _, p in outcomes), dtype=float, count=len(outcomes))
    return outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]

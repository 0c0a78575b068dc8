"""Hearth's compiled model (``HearthState.compiled_model``): the rules kernels with ``CompiledModel``'s signatures.

``table`` is ``(cards, ids, weights, no_pass, prune)``: the card table, the chance outcomes' scratch arrays (fresh
for each model, so two searches never share them) and the game's rollout policy (``HearthGame.no_pass`` /
``prune``). A world's determinization is not compiled (``determinize`` draws a permutation, not uniforms): DUCT's
fixed worlds come from the Python determinizer, and ISMCTS on Hearth takes the Python path.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..compiled_model import CompiledModel
from ..protocol import CHANCE, TERMINAL
from . import layout as L
from . import rules as R
from .evaluation import heuristic
from .observation import observe

MAX_OUTCOME = 4 * 16  # Boom Bot's outcomes: character id * 4 + damage - 1, the largest id that is not a card id
NUM_OUTCOMES = max(L.NUM_CARDS, MAX_OUTCOME)  # every chance outcome id is below it
SCRATCH = 128  # chance outcomes a node may have (``state._BUFFER``)


def compiled_model(s: np.ndarray, cards: np.ndarray, no_pass: bool, prune: bool) -> CompiledModel:
    """The model of the state array ``s`` of a game with card table ``cards`` and rollout policy (``no_pass``,
    ``prune``)."""
    table = (cards, np.empty(SCRATCH, dtype=np.int32), np.empty(SCRATCH, dtype=np.int64), no_pass, prune)
    return CompiledModel(s, table, SCRATCH, 0, None, _legal_actions, _action_keys, _apply, _playout, _player, _turn,
                         _returns, _heuristic, observation=_observation, sample_chance=_sample_chance,
                         sensible_actions=_sensible_actions, num_outcomes=NUM_OUTCOMES)


@njit(cache=True, nogil=True)
def _legal_actions(s, table, buf):
    return R.legal_actions(s, table[0], buf)


@njit(cache=True, nogil=True)
def _action_keys(s, table, buf, n, out):
    R.action_keys(s, buf[:n], out)


@njit(cache=True, nogil=True)
def _sensible_actions(s, table, buf, n):
    return R.sensible_actions(s, table[0], buf, n, buf)  # in place: the i-th kept id goes at or before i


@njit(cache=True, nogil=True)
def _apply(s, table, action, buf):
    if s[L.G_SP] > 0:
        R.apply_outcome(s, table[0], action, table[1], table[2])
    else:
        R.apply_action(s, table[0], action, table[1], table[2])


@njit(cache=True, nogil=True)
def _observation(s, table, player, out):
    out[:] = 0.0
    observe(s, table[0], player, False, out)


@njit(cache=True, nogil=True)
def _sample_chance(s, table, u):
    return np.int64(R.sample_outcome(s, table[0], u, table[1], table[2]))


@njit(cache=True, nogil=True)
def _playout(s, table, buf, stream, turn_limit):
    return np.int64(R.random_playout(s, table[0], buf, table[1], table[2], stream, turn_limit, table[3], table[4]))


@njit(cache=True, nogil=True)
def _player(s):
    if s[L.G_PHASE] == L.PH_OVER:
        return np.int64(TERMINAL)
    return np.int64(CHANCE) if s[L.G_SP] > 0 else np.int64(s[L.G_PLAYER])


@njit(cache=True, nogil=True)
def _turn(s):
    return np.int64(s[L.G_TURN])


@njit(cache=True, nogil=True)
def _returns(s, out):
    w = s[L.G_WINNER]
    out[0] = 1.0 if w == 0 else -1.0 if w == 1 else 0.0
    out[1] = -out[0]


@njit(cache=True, nogil=True)
def _heuristic(s, table, player):
    return heuristic(s, table[0], player)

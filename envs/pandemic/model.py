"""Pandemic's compiled model (``PandemicState.compiled_model``): the rules kernels with ``CompiledModel``'s signatures.

``table`` is ``(board, macros, default_policy, routes, scratch)``: the map table, the action layer
(``actions="macro"``: 003 §1.7's macro-actions, ``macro``; else the rules' own actions), the rollout policy
(``rollout="default_policy"``: 003 §2.2's default policy, ``play_default``; else uniformly random decisions of the
layer) and the macro layer's scratch (fresh for each model, so two searches never share it). So UCT, ISMCTS (003 §1.7's
structured determinization from ``rng.random(RESAMPLE_DRAWS)``, as ``determinize`` draws it) and DUCT run whole
iterations compiled, on either layer, with the draws, epidemics and infections as chance nodes in the tree
(``sample_chance``: the stored card without a draw, else one uniform).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..compiled_model import CompiledModel
from ..protocol import CHANCE, TERMINAL
from . import layout as L
from . import macro as M
from . import rules as R
from .default_policy import play_default
from .fitness import GRADIENT_BONUS
from .observation import observe

NUM_OUTCOMES = L.EPIDEMIC + 1  # chance outcomes: a city card (its id) or an epidemic
_OA_SCALE = L.NUM_COLOURS * (1 + GRADIENT_BONUS)  # fitness._cure_ability's divisor, the same float


def compiled_model(s: np.ndarray, board: np.ndarray, macros: bool, default_policy: bool) -> CompiledModel:
    """The model of the state array ``s`` on the map ``board``, on the macro layer or not (``macros``), with the
    default policy or uniform rollouts (``default_policy``)."""
    buffer_len = max(L.BUFFER_LEN, M.NUM_MACROS) if macros else L.BUFFER_LEN  # the states' ``_BUFFER_LEN``
    table = (board, bool(macros), bool(default_policy), M.new_routes(), M.new_scratch())
    return CompiledModel(s, table, buffer_len, R.RESAMPLE_DRAWS, _determinize,
                         _legal_actions, _action_keys, _apply, _playout, _player, _turn, _returns, _heuristic,
                         observation=_observation, sample_chance=_sample_chance, num_outcomes=NUM_OUTCOMES)


@njit(cache=True, nogil=True)
def _observation(s, table, player, out):
    out[:] = 0.0
    observe(s, table[0], player, False, out)


@njit(cache=True, nogil=True)
def _determinize(s, table, player, u):
    R.resample(s, u)


@njit(cache=True, nogil=True)
def _legal_actions(s, table, buf):
    if table[1]:
        return np.int64(M._legal(s, table[0], buf, table[3], table[4]))
    return np.int64(R.legal_actions(s, table[0], buf))


@njit(cache=True, nogil=True)
def _action_keys(s, table, buf, n, out):
    for i in range(n):
        out[i] = buf[i]


@njit(cache=True, nogil=True)
def _apply(s, table, action, buf):
    ph = s[L.PHASE]
    if ph == L.PH_DRAW or ph == L.PH_EPIDEMIC or ph == L.PH_INFECT:
        R.apply_chance(s, table[0], action)
    elif table[1]:
        M._apply(s, table[0], action, table[3], table[4])
    else:
        R.apply_action(s, table[0], action)


@njit(cache=True, nogil=True)
def _sample_chance(s, table, u):
    """``PandemicState.sample_chance``: the stored card (no draw: ``-1 - id``), else ``int(u * n)`` of the
    node's outcomes."""
    o = R.next_outcome(s)
    if o >= 0:
        return np.int64(-1 - o)
    ids = np.empty(NUM_OUTCOMES, dtype=np.int32)
    probs = np.empty(NUM_OUTCOMES, dtype=np.float64)
    n = R.chance_outcomes(s, table[0], ids, probs)
    return np.int64(ids[int(u * n)])


@njit(cache=True, nogil=True)
def _playout(s, table, buf, stream, turn_limit):
    if table[2]:
        return np.int64(play_default(s, table[0], buf, stream, turn_limit))
    return np.int64(M.random_playout(s, table[0], buf, stream, turn_limit, table[1]))


@njit(cache=True, nogil=True)
def _player(s):
    ph = s[L.PHASE]
    if ph == L.PH_OVER:
        return np.int64(TERMINAL)
    if ph == L.PH_DRAW or ph == L.PH_EPIDEMIC or ph == L.PH_INFECT:
        return np.int64(CHANCE)
    return np.int64(s[L.DECIDER])


@njit(cache=True, nogil=True)
def _turn(s):
    return np.int64(s[L.TURN])


@njit(cache=True, nogil=True)
def _returns(s, out):
    out[:] = np.float64(s[L.RESULT])


@njit(cache=True, nogil=True)
def _heuristic(s, table, player):
    """``PandemicState.heuristic``: (f_oa + f_cm) / 2 mapped to [-1, 1], computed as ``fitness`` computes it."""
    if s[L.RESULT] != 0:
        return np.float64(s[L.RESULT])
    ability = np.empty(L.NUM_COLOURS)
    M.cure_ability(s, table[0], ability)
    total = 0.0
    cured = 0
    for k in range(L.NUM_COLOURS):
        total += ability[k]
        cured += s[L.CURED + k]
    oa = (total + GRADIENT_BONUS * np.int64(cured)) / _OA_SCALE
    cm = np.inf
    for k in range(L.NUM_COLOURS):
        cm = min(cm, s[L.SUPPLY + k] / L.CUBES_PER_COLOUR)
    return 2.0 * ((oa + cm) / 2) - 1.0

"""Fifth Aeon's compiled model (``FifthAeonState.compiled_model``): the compiled rules with ``CompiledModel``'s
signatures, so UCT, ISMCTS and DUCT run whole iterations compiled.

``table`` is ``(cards, mechs, decks, default_ai, plan, scratch, buf)``: the card tables, the players' deck lists
as DefaultAI reads them (``flat_default_ai.deck_lists``), the rollout policy (``FifthAeonGame.rollout`` is
``default_ai``: DefaultAI on both sides, else uniformly random moves), and scratch arrays fresh for each model (two
searches never share them): DefaultAI's plans, determinization's, and the leaf evaluation's work area. With hidden deck lists the determinization
needs a deck model, so ISMCTS stays in Python (``determinize`` is None); UCT and DUCT run compiled.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..compiled_model import CompiledModel
from . import flat_default_ai as DAI
from . import flat_evaluation as EV
from . import flat_layout as F
from . import flat_model as M
from . import layout as L
from .flat_machine import BUFFER_LEN
from .flat_moves import acting, apply, legal_actions
from .flat_observation import observe

POSITION_SCALE = 20.0  # evaluation.position_value's default scale (the game's heuristic)
MODEL_BUFFER = max(BUFFER_LEN, EV.WORK_END)


def compiled_model(s: np.ndarray, cards: np.ndarray, mechs: np.ndarray, decks: np.ndarray, default_ai: bool,
                   hidden: bool) -> CompiledModel:
    """The model of the flat state ``s`` (``decks``: ``flat_default_ai.deck_lists`` of the state's deck lists)."""
    table = (cards, mechs, decks, default_ai, DAI.new_plan(), np.empty(M.DETERMINIZE_DRAWS, np.int64),
             np.zeros(MODEL_BUFFER, np.int32))
    return CompiledModel(s, table, MODEL_BUFFER, M.DETERMINIZE_DRAWS, None if hidden else _determinize,
                         _legal_actions, _action_keys, _apply, _playout, M.player, M.turn, M.returns, _heuristic,
                         observation=_observation, sensible_actions=_sensible_actions)


@njit(cache=True, nogil=True)
def _determinize(s, table, player, u):
    M.determinize(s, table[0], player, u, table[5])


@njit(cache=True, nogil=True)
def _legal_actions(s, table, buf):
    return legal_actions(s, table[0], table[1], buf)


@njit(cache=True, nogil=True)
def _action_keys(s, table, buf, n, out):
    M.action_keys(s, table[0], buf, n, out)


@njit(cache=True, nogil=True)
def _apply(s, table, action, buf):
    apply(s, table[0], table[1], action, buf)


@njit(cache=True, nogil=True)
def _playout(s, table, buf, stream, turn_limit):
    if table[3]:
        table[4][:] = 0  # fresh policies, as the Python rollout starts them
        return np.int64(DAI.playout(s, table[0], table[1], table[2], table[4], buf, turn_limit))
    return np.int64(M.random_playout(s, table[0], table[1], buf, stream, turn_limit))


@njit(cache=True, nogil=True)
def _heuristic(s, table, player):
    return heuristic(s, table[0], table[1], player, table[6])


@njit(cache=True, nogil=True)
def heuristic(s, cards, mechs, player, buf):
    """``FifthAeonState.heuristic``: +1 / -1 / 0 once decided, else DefaultAI's evaluation of the position."""
    w = s[F.G_WINNER]
    if w == 0 or w == 1:
        return 1.0 if w == player else -1.0
    if w == 2:
        return 0.0
    return EV.position_value(s, cards, mechs, player, POSITION_SCALE, buf)


@njit(cache=True, nogil=True)
def _observation(s, table, player, out):
    observe(s, table[0], player, False, out)


@njit(cache=True, nogil=True)
def _sensible_actions(s, table, buf, n):
    return sensible_actions(s, table[0], table[1], table[2], buf, n)


@njit(cache=True, nogil=True)
def sensible_actions(s, cards, mechs, decks, buf, n):
    """``FifthAeonState.sensible_actions`` in place over ``buf[:n] = legal_actions``: of the four resources only
    DefaultAI's choice; returns the count kept."""
    if s[F.G_NCHOICES] > 0:
        return n
    resources = False
    for i in range(n):
        if L.RESOURCE <= buf[i] < L.RESOURCE + 4:
            resources = True
    if not resources:
        return n
    keep = DAI.resource_choice(s, cards, mechs, decks, acting(s))
    m = 0
    for i in range(n):
        a = buf[i]
        if a < L.RESOURCE or a >= L.RESOURCE + 4 or a == keep:
            buf[m] = a
            m += 1
    return m

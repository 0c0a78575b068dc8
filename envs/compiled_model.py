"""``CompiledModel``: a game's compiled kernels, so that search can run whole iterations in compiled code.

A state offering the optional hook ``compiled_model()`` (``protocol.HOOKS``) returns one. ``cardboard.search.compiled``
then runs determinization, selection, expansion, rollout and backup without returning to Python, with exactly the
statistics of the Python path at the same seed, which holds only if every kernel does exactly what the matching
Python method does (the conformance of the two is the game's duty, checked by tests/test_compiled_search.py):

=================  ====================================================  ============================================
kernel             signature                                             the same as
=================  ====================================================  ============================================
``determinize``    ``(s, table, player, u) -> None``                     ``determinize(player, rng)`` when that draws
                                                                         ``u = rng.random(determinize_draws)`` (the
                                                                         state's one use of ``rng``), in place; None:
                                                                         ISMCTS stays in Python (UCT and DUCT, whose
                                                                         worlds are drawn in Python, do not need it)
``legal_actions``  ``(s, table, buf) -> n``                              ``legal_actions()``, written to ``buf[:n]``
``action_keys``    ``(s, table, buf, n, out) -> None``                   ``out[i] = action_key(buf[i])``, ``i < n``
``apply``          ``(s, table, action, buf) -> None``                   ``apply(action)`` of a legal action, when
                                                                         ``legal_actions`` (then perhaps
                                                                         ``sensible_actions``) was the last kernel to
                                                                         write ``buf``; at a chance node, of an
                                                                         outcome (``buf`` as any kernel left it)
``playout``        ``(s, table, buf, stream, turn_limit) -> decisions``  ``random_playout(rng, max_turns)`` with
                                                                         ``stream = kernels.seed_stream(rng)``, until
                                                                         the end or turn ``turn_limit`` begins (to
                                                                         the end: ``info.max_turns + 1``)
``player``         ``(s) -> int``                                        ``current_player`` (``TERMINAL`` at the end,
                                                                         ``CHANCE`` at a chance node)
``turn``           ``(s) -> int``                                        ``turn``
``returns``        ``(s, out) -> None``                                  ``out[:] = returns()``
``heuristic``      ``(s, table, player) -> float``                       ``heuristic(player)``
=================  ====================================================  ============================================

Optional, for hard pruning (``search.pruning``), both or neither (``None``: a search with pruning stays in Python):

=====================  ===============================================  =============================================
``evaluations_after``  ``(s, table, buf, n, which, extrapolate,         ``out[:, :n] = evaluations_after(buf[:n],
                       stream, out) -> None``                           names, extrapolate, rng)`` where ``which[h] =
                                                                        evaluation_index(names[h])`` and, with
                                                                        ``extrapolate``, ``stream =
                                                                        kernels.seed_stream(rng)`` (else unread);
                                                                        ``buf`` as ``legal_actions`` left it, and
                                                                        neither ``s`` nor ``buf`` written
``evaluation_index``   ``(name) -> int`` (a Python callable)            the index ``which`` gives ``evaluation(name)``;
                                                                        ``InvalidParameterError`` for an unknown name
=====================  ===============================================  =============================================

Optional, for games with chance nodes in play (``GameInfo.chance`` "explicit"; ``None``: their searches stay in
Python) and for heuristic pruning (``SearchConfig.prune``; ``None``: a search with ``prune`` stays in Python):

====================  ==================================  =============================================================
``sample_chance``     ``(s, table, u) -> int``            ``protocol.sample_chance(state, rng)`` when that draws ``u =
                                                          rng.random()`` (its one use of ``rng``), or ``-1 - id`` for
                                                          an outcome ``id`` it gives without using ``rng`` (``u``
                                                          unread, no uniform counted); every outcome id is below
                                                          ``num_outcomes``
``sensible_actions``  ``(s, table, buf, n) -> m``         ``buf[:m] = sensible_actions()`` when ``buf[:n] =
                                                          legal_actions()``, in place
====================  ==================================  =============================================================

Optional, for search guided by a network (``search.compiled_network``: observations built in compiled code, no
Python object per leaf):

===============  ===================================  =================================================================
``observation``  ``(s, table, player, out) -> None``  ``out[:] = observation(player).ravel()``: every entry written
                                                      (zeros included), ``out`` float32 of ``prod(observation_shape)``
===============  ===================================  =================================================================

The legal-action mask the network reads is made from ``legal_actions`` (``action_mask``'s protocol meaning).

A game whose model has the ``observation`` kernel is also stepped in batches by ``envs.vector``, which keeps each
game as a row of arrays and rebuilds a state from one as ``type(state)(state.game, array)``: that must give the
same state (tests/test_conformance.py checks it).

Argument types, fixed so that search compiles (and caches) one loop per game: ``s`` is ``state``'s array type,
``table`` the type of ``table`` (any value numba types: an array, a tuple of arrays and ints), ``buf`` a C-contiguous
int32 array of ``buffer_len``, ``u`` float64 (an array for ``determinize``), ``stream`` a one-word uint64 array
(``kernels.xorshift64star``),
``out`` int64 (keys), float64 (returns) or C-contiguous float64 ``[len(which), >= n]`` (evaluations) arrays, ``which``
int64, ``extrapolate`` bool, ``player``, ``action``, ``n`` and ``turn_limit`` int64. Kernels
are numba dispatchers (``@njit(cache=True, nogil=True)``); search calls them as first-class functions. A model
serves games whose soft keys are ints (``GameInfo.num_action_keys``); one with chance nodes in play, only with
``sample_chance``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


Kernel = Callable[..., Any]  # a numba dispatcher with the signature of the table above


class CompiledModel(NamedTuple):
    """A state's flat array, the game's static table and the kernels over them (see the module docstring)."""

    state: np.ndarray  # the live state array: search copies it, never writes it
    table: Any  # static data every kernel but player / turn / returns takes
    buffer_len: int  # length of the int32 scratch buffer the kernels share (legal ids at its front)
    determinize_draws: int  # uniforms one determinize takes
    determinize: Kernel | None  # None: no compiled ISMCTS
    legal_actions: Kernel
    action_keys: Kernel
    apply: Kernel
    playout: Kernel
    player: Kernel
    turn: Kernel
    returns: Kernel
    heuristic: Kernel
    evaluations_after: Kernel | None = None  # hard pruning's scores, compiled
    evaluation_index: Callable[[str], int] | None = None  # an evaluation's name -> its index in ``which``
    observation: Kernel | None = None  # the observation written in place, for network-guided search
    sample_chance: Kernel | None = None  # a chance node's outcome from one uniform
    sensible_actions: Kernel | None = None  # heuristic pruning's move filter (``prune``), in place
    num_outcomes: int = 0  # every chance outcome id is below it

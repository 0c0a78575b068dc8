"""Compiled Fifth Aeon's forward-model kernels over the flat state: who moves, the returns, random playouts, soft
action keys and determinization (open deck lists), as ``envs.compiled_model`` names them.

A soft key (``action_key``) is an int below ``num_action_keys(n_cards)``: the action id for a decision that names a
board position or a resource; ``NUM_ACTIONS + card`` for playing a card from hand (copies in different slots, and
the same card in every determinization, share it); ``NUM_ACTIONS + n_cards * (1 + kind) + card`` for picking an
option of a choice of kind ``kind`` (``flat_layout.CK_*``); ``-1 - action`` for a slot or option that holds nothing.
"""
from __future__ import annotations

from numba import njit

from ..kernels import rand_below
from ..protocol import TERMINAL
from . import flat_layout as F
from . import layout as L
from .constants import HARD_HAND_LIMIT
from .flat_moves import acting, apply, legal_actions
from .flat_rules import distinct_sorted, hand_card, pb

_LEAN = dict(cache=True, nogil=True, _nrt=False)
CHOICE_KINDS = 5  # flat_layout.CK_REPLACE .. CK_CONSUME
DETERMINIZE_DRAWS = 2 * F.MAX_DECK + HARD_HAND_LIMIT  # the uniforms one determinize takes


def num_action_keys(n_cards: int) -> int:
    return L.NUM_ACTIONS + n_cards * (1 + CHOICE_KINDS)


@njit(**_LEAN)
def player(s):
    """``current_player``: the acting player, ``TERMINAL`` once the game is over."""
    p = acting(s)
    return TERMINAL if p < 0 else p


@njit(**_LEAN)
def turn(s):
    return s[F.G_TURN]


@njit(**_LEAN)
def returns(s, out):
    """+1 / -1 for the winner and the loser, 0 each for a draw or a game still running."""
    w = s[F.G_WINNER]
    out[0] = out[1] = 0.0
    if w == 0 or w == 1:
        out[w] = 1.0
        out[1 - w] = -1.0


@njit(**_LEAN)
def action_keys(s, cards, buf, n, out):
    """``out[i]`` = the soft key of ``buf[i]`` (module docstring)."""
    n_cards = cards.shape[0]
    p = acting(s)
    for i in range(n):
        a = buf[i]
        if L.PLAY <= a < L.TARGET:
            slot = a - L.PLAY
            out[i] = L.NUM_ACTIONS + hand_card(s, p, slot) if p >= 0 and slot < s[pb(p) + F.P_NHAND] else -1 - a
        elif a < L.CHOICE_DONE and s[F.G_NCHOICES] > 0:
            k = a - L.OPTION
            if k < s[F.G_NOPTIONS]:
                kind = s[F.G_CHOICES + F.Q_KIND]
                out[i] = L.NUM_ACTIONS + n_cards * (1 + kind) + s[F.G_OPTIONS + k]
            else:
                out[i] = -1 - a
        else:
            out[i] = a


@njit(**_LEAN)
def random_playout(s, cards, mechs, buf, stream, turn_limit):
    """Uniformly random legal decisions until the end or until turn ``turn_limit`` begins; returns their number."""
    n = 0
    while s[F.G_WINNER] < 0 and s[F.G_TURN] < turn_limit:
        k = legal_actions(s, cards, mechs, buf)
        apply(s, cards, mechs, buf[rand_below(stream, k)], buf)
        n += 1
    return n


@njit(**_LEAN)
def _shuffle(s, at, idx, n, u, k):
    """Shuffle the values ``s[at + idx[i]]``, i < n, in place (Fisher-Yates from ``u[k:]``); returns the next k."""
    for i in range(n - 1, 0, -1):
        j = int(u[k] * (i + 1))
        k += 1
        a, b = at + idx[i], at + idx[j]
        s[a], s[b] = s[b], s[a]
    return k


@njit(**_LEAN)
def determinize(s, cards, player_, u, scratch):
    """With open deck lists: the order of the deck positions ``player_`` does not know (its own deck's, except
    those it put at the bottom), and which of the opponent's unseen cards (hand slots it has not seen, deck
    positions not known to both) are in hand rather than in the deck, shuffled from the uniforms ``u``
    (``DETERMINIZE_DRAWS``); a resampled hand card loses its Research AI bonus, and the opponent's pending choice
    lists the resampled cards. ``scratch``: int64, at least ``DETERMINIZE_DRAWS`` long."""
    own = pb(player_)
    n = 0
    for i in range(s[own + F.P_NDECK]):
        if s[own + F.P_DECK_VIS + i] == F.HIDDEN:
            scratch[n] = i
            n += 1
    k = _shuffle(s, own + F.P_DECK, scratch, n, u, 0)
    foe = pb(1 - player_)
    hand, m = 0, 0  # the pool: the unseen hand cards, then the unseen deck positions, copied to scratch
    for i in range(s[foe + F.P_NHAND]):
        if s[foe + F.P_HAND + i * F.HF + F.H_KNOWN] == 0:
            scratch[m] = s[foe + F.P_HAND + i * F.HF + F.H_CARD]
            m += 1
    hand = m
    for i in range(s[foe + F.P_NDECK]):
        if s[foe + F.P_DECK_VIS + i] != F.PUBLIC:
            scratch[m] = s[foe + F.P_DECK + i]
            m += 1
    for i in range(m - 1, 0, -1):
        j = int(u[k] * (i + 1))
        k += 1
        scratch[i], scratch[j] = scratch[j], scratch[i]
    c = 0
    for i in range(s[foe + F.P_NHAND]):
        h = foe + F.P_HAND + i * F.HF
        if s[h + F.H_KNOWN] == 0:
            s[h + F.H_CARD] = scratch[c]
            s[h + F.H_ATTACK] = 0
            s[h + F.H_LIFE] = 0
            c += 1
    for i in range(s[foe + F.P_NDECK]):
        if s[foe + F.P_DECK_VIS + i] != F.PUBLIC:
            s[foe + F.P_DECK + i] = scratch[c]
            s[foe + F.P_DECK_VIS + i] = F.HIDDEN
            c += 1
    if s[F.G_NCHOICES] > 0 and s[F.G_CHOICES + F.Q_PLAYER] != player_ and s[F.G_NOPTIONS] >= 0:
        if s[F.G_SLOTTED] == 1:
            for i in range(s[F.G_NOPTIONS]):
                s[F.G_OPTIONS + i] = hand_card(s, 1 - player_, i)
        elif s[F.G_CHOICES + F.Q_SOURCE] == F.CS_DECK:
            n = distinct_sorted(s, cards, foe + F.P_DECK, s[foe + F.P_NDECK])
            s[F.G_NOPTIONS] = n
            hi = min(s[F.G_CHOICES + F.Q_MAX], n)
            s[F.G_CHOICES + F.Q_MAX] = hi
            s[F.G_CHOICES + F.Q_MIN] = min(s[F.G_CHOICES + F.Q_MIN], hi)

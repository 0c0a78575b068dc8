"""The Lords of War forward model: ``LordsOfWarGame`` (static data) and ``LordsOfWarState``.

The state (a ``FlatState`` over the array of ``layout``) implements the protocol
of ``cardboard.envs.protocol`` over the numba kernels of ``rules``, with the
encoder of ``observation``. Hidden information: each player's hand is hidden
from the opponent (except cards the opponent has seen enter it: the General at
the start, recalled units, and a hand shown after a forced placement), and the
order of both decks is hidden from both players; ``LordsOfWarState.determinize``
samples them (with the compiled ``_resample``).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import partial
from pathlib import Path

import numpy as np
from numba import njit

from ..errors import InvalidParameterError, ProtocolError
from ..compiled_model import CompiledModel
from ..flat_state import FlatState
from ..kernels import seed_stream
from ..protocol import TERMINAL, GameInfo
from ..structure import ObservationStructure
from ..view import View
from . import heuristics as H
from . import layout as L
from . import rules as R
from .cards import Army, build_card_table, builtin_armies, load_army
from .layout import square_name  # noqa: F401 (re-exported)
from .layout import (
    A_DEPLOY,
    A_DRAW,
    A_HOLD_FIRE,
    A_RECALL,
    A_TARGET,
    ARMY_SIZE,
    COLS,
    DECK,
    HAND,
    HAND_SIZE,
    KNOWN,
    MAX_TURNS,
    NDECK,
    NHAND,
    NUM_ACTIONS,
    NUM_SQUARES,
)
from .observation import OBS_LEN, STRUCTURE, observe

H4_SCALE = 24.0  # h4 differences beyond +-24 cards are clipped
H4 = H.heuristic_index("h4")  # the heuristic ``heuristic`` scales
DETERMINIZE_DRAWS = 2 * ARMY_SIZE  # uniforms one determinize draws (``_resample``)


class LordsOfWarGame:
    """A Lords of War match-up: two armies, their card table and the game's properties.

    armies: two armies, player 0's first, each a built-in army's name or an army JSON file
    """

    OPTION_VALUES = {"armies": tuple(builtin_armies())}

    def __init__(self, armies: Sequence[str | Path | Army] = ("orcs", "dwarves")):
        if isinstance(armies, (str, Path)) or len(armies) != 2:
            raise InvalidParameterError(f"Lords of War needs two armies (a pair of names or files), got {armies!r}")
        self.armies = tuple(a if isinstance(a, Army) else load_army(a) for a in armies)
        self.cards, self.type_names = build_card_table(self.armies)
        self.card_names = [self.type_names[t] for t in self.cards[:, L.F_TYPE]]
        self.general_ids = [p * ARMY_SIZE + int(np.flatnonzero(self.cards[p * ARMY_SIZE:(p + 1) * ARMY_SIZE, L.F_GEN])[0])
                            for p in range(2)]
        self._others = np.array([[c for c in range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE) if c != self.general_ids[p]]
                                 for p in range(2)], dtype=np.int16)  # each army without its General
        self._template = self._initial_template()
        self.info = GameInfo(
            name="lords_of_war",
            num_players=2,
            num_actions=NUM_ACTIONS,
            observation_shape=(OBS_LEN,),
            chance="setup",
            information="imperfect",
            utility="zero_sum",
            min_return=-1.0,
            max_return=1.0,
            max_turns=MAX_TURNS,
            num_action_keys=len(self.type_names) * NUM_SQUARES + NUM_ACTIONS - A_TARGET,
        )
        self.non_deploy_key = len(self.type_names) * NUM_SQUARES - A_TARGET  # key of action a >= A_TARGET: this + a
        # the compiled model's static table, made once: (cards, non_deploy_key, heat maps, scales)
        self.model_table = (self.cards, np.int64(self.non_deploy_key), H.HEAT_MAPS, H.SCALES)

    def _initial_template(self) -> np.ndarray:
        """Everything of a fresh state but the dealt cards."""
        s = np.full(L.STATE_LEN, -1, dtype=np.int16)
        s[L.KNOWN:L.KNOWN + 2 * ARMY_SIZE] = 0
        s[L.FOUGHT:L.FOUGHT + NUM_SQUARES] = 0
        s[L.NHAND:L.NCMD + 2] = 0
        s[L.NHAND:L.NHAND + 2] = HAND_SIZE
        s[L.NDECK:L.NDECK + 2] = ARMY_SIZE - HAND_SIZE
        s[L.KNOWN + np.array(self.general_ids)] = 1  # everyone knows the General starts in hand
        s[L.PLAYER] = 0
        s[L.PHASE] = L.PH_OPENING
        s[L.TURN] = 0
        s[L.EXTRA] = 0
        R.rebuild_maps(s, self.cards)  # an empty mat
        return s

    def render_ansi(self, state: "LordsOfWarState", perspective: int | None = None) -> str:
        from .render import render_ansi

        return render_ansi(state, perspective)

    def render_rgb(self, state: "LordsOfWarState") -> np.ndarray:
        from .render import render_rgb

        return render_rgb(state)

    def new_state(self, seed: int | np.random.Generator | None = None) -> "LordsOfWarState":
        """Set up a game (000 §1.1(B) set-up): the General plus 5 cards from a shuffled deck in each hand."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        decks = rng.permuted(self._others, axis=1)  # one independent shuffle per player
        s = self._template.copy()
        deal = HAND_SIZE - 1
        for p in range(2):
            hand = np.sort(np.append(decks[p, -deal:], self.general_ids[p]))
            s[L.HAND + p * HAND_SIZE:L.HAND + (p + 1) * HAND_SIZE] = hand
            s[L.DECK + p * ARMY_SIZE:L.DECK + p * ARMY_SIZE + ARMY_SIZE - HAND_SIZE] = decks[p, :-deal]
        return LordsOfWarState(self, s)


class LordsOfWarState(FlatState):
    """A Lords of War game state (forward model). See ``cardboard.envs.protocol`` and ``FlatState``."""

    __slots__ = ()
    _BUFFER_LEN = L.BUFFER_LEN
    _PLAYER = L.PLAYER
    _legal_kernel = staticmethod(R.legal_actions)
    _observe_kernel = staticmethod(observe)

    # -- properties ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return TERMINAL if self.s[L.PHASE] == L.PH_OVER else int(self.s[L.PLAYER])

    @property
    def turn(self) -> int:
        return int(self.s[L.TURN])

    @property
    def phase(self) -> str:
        """'opening', 'deploy', 'target', 'reinforce' or 'over'."""
        return L.PHASE_NAMES[self.s[L.PHASE]]

    def is_terminal(self) -> bool:
        return self.s[L.PHASE] == L.PH_OVER

    def winner(self) -> int | None:
        """0 or 1 once decided, None while running or for a draw."""
        w = int(self.s[L.WINNER])
        return w if w in (0, 1) else None

    def returns(self) -> np.ndarray:
        w = self.s[L.WINNER]
        if w == 0:
            return np.array([1.0, -1.0])
        if w == 1:
            return np.array([-1.0, 1.0])
        return np.zeros(2)

    def heuristic(self, player: int) -> float:
        """h4 of paper 002 §2.3 (card count, a dead Command card counting twice), scaled to [-1, 1].

        +1 / -1 at a decided terminal state.
        """
        return float(_heuristic(self.s, self.game.model_table, player))

    def evaluation(self, name: str) -> Callable[["LordsOfWarState", int], float]:
        """Paper 002's heuristic ``name`` ('h1' .. 'h11', ``heuristics``) as a state evaluation in [0, 1]."""
        return partial(_evaluate, H.heuristic_index(name))

    def evaluations_after(self, actions: np.ndarray, names: Sequence[str], extrapolate: bool,
                          rng: np.random.Generator) -> np.ndarray:
        """``evaluation(name)`` of the state after each legal action, for the player to move, in one compiled call
        (after ``heuristics.finish_turn`` with ``extrapolate``; its stream is drawn from ``rng`` only then)."""
        which = np.array([H.heuristic_index(n) for n in names], dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int32)
        if not np.isin(actions, self.legal_actions()).all():
            raise InvalidParameterError(f"evaluations_after: not all of {actions.tolist()} are legal here")
        mode = int(self._buf[L.MODE])  # legal_actions() above left this state's deploy mode in the buffer
        out = np.empty((len(which), len(actions)))
        stream = seed_stream(rng) if extrapolate else np.ones(1, dtype=np.uint64)
        H.values_after(self.s, self.cards, H.HEAT_MAPS, H.SCALES, mode, actions, which, bool(extrapolate), stream, out)
        return out

    def observation_structure(self) -> ObservationStructure:
        """The named parts of ``observation(p)`` (``envs.structure``): the mat as planes, both hands as card
        tokens, the rest as globals."""
        return STRUCTURE

    # -- moves --------------------------------------------------------------------------------------
    def _apply_checked(self, a: int) -> int:
        return R.apply_checked(self.s, self.cards, a, self._buf, self._n) if 0 <= a < NUM_ACTIONS else -1

    def _illegal_message(self, a: int) -> str:
        return (f"action {a} ({self._describe(a)}) is not legal in phase {self.phase!r} for player "
                f"{self.current_player}; legal: {self.legal_actions().tolist()}")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ProtocolError("Lords of War has no chance nodes after set-up (decks are shuffled by new_state)")

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """Play uniformly random moves in place, compiled, to the end of the game or for ``max_turns``
        player turns; return the number of decisions made. The fast path for search rollouts."""
        limit = MAX_TURNS if max_turns is None else self.turn + max_turns
        self._forget_legal()
        return int(R.random_playout(self.s, self.cards, self._buf, seed_stream(rng), 1 << 30, limit))

    # -- information ---------------------------------------------------------------------------------
    def determinize(self, player: int, rng: np.random.Generator) -> "LordsOfWarState":
        """A state sampled uniformly from ``player``'s information set.

        Resampled: the order of both decks, and which of the opponent's cards not known to be in
        hand are in hand rather than in the deck. Kept: everything ``player`` has seen.
        """
        det = self.clone()
        _resample(det.s, self._check_player(player), rng.random(DETERMINIZE_DRAWS))
        return det

    def compiled_model(self) -> CompiledModel:
        """This state's array and the rules kernels as a ``CompiledModel``: search runs whole iterations compiled."""
        return CompiledModel(self.s, self.game.model_table, L.BUFFER_LEN, DETERMINIZE_DRAWS, _model_determinize,
                             _model_legal_actions, _model_action_keys, _model_apply, _model_playout, _model_player,
                             _model_turn, _model_returns, _heuristic, _model_evaluations_after, H.heuristic_index,
                             _model_observation)

    def card_multiset(self) -> tuple:
        """Every card id on the mat, in hands, decks and dead piles, sorted (determinize conserves it)."""
        s = self.s
        zones = [s[L.BOARD:L.BOARD + NUM_SQUARES]]
        for p in range(2):
            zones.append(s[L.HAND + p * HAND_SIZE:L.HAND + p * HAND_SIZE + int(s[L.NHAND + p])])
            zones.append(s[L.DECK + p * ARMY_SIZE:L.DECK + p * ARMY_SIZE + int(s[L.NDECK + p])])
            zones.append(s[L.DEAD + p * ARMY_SIZE:L.DEAD + p * ARMY_SIZE + int(s[L.NDEAD + p])])
        ids = np.concatenate(zones)
        return tuple(sorted(int(c) for c in ids if c >= 0))

    def complexity(self) -> tuple[float, float, float, float]:
        """Paper 000 §2.7's board complexity for the player to move, raw: Cx1 the empty or enemy squares its
        units' melee arrows reach (the text's "squares threatened by friendly cards", not a count of cards), Cx2
        the attack those arrows direct at them (``ATT``), Cx3 the opponent's cards on the mat, Cx4 both players'."""
        p = int(self.s[L.PLAYER])
        board = self.s[L.BOARD:L.BOARD + NUM_SQUARES]
        owner = np.where(board >= 0, board // ARMY_SIZE, -1)
        squares, attack = H.threatened(self.s, p)
        return float(squares), float(attack), float((owner == 1 - p).sum()), float((owner >= 0).sum())

    # -- naming --------------------------------------------------------------------------------------
    def _hand_card(self, player: int, slot: int) -> int:
        return int(self.s[L.HAND + player * HAND_SIZE + slot]) if slot < self.s[L.NHAND + player] else -1

    def action_key(self, action: int) -> Hashable:
        """Soft key, an int in ``range(info.num_action_keys)``: ``type * 42 + square`` for "deploy a card
        of this type on this square" (copies of a card share it); the other actions, whose ids already
        mean the same in every determinization (squares are in the player's own frame), follow the
        deploy keys in id order. A deploy id naming an empty hand slot gets ``-1 - action``."""
        a = int(action)
        if a < A_TARGET:
            card = self._hand_card(int(self.s[L.PLAYER]), a // NUM_SQUARES)
            return int(self.cards[card, L.F_TYPE]) * NUM_SQUARES + a % NUM_SQUARES if card >= 0 else -1 - a
        return self.game.non_deploy_key + a

    def legal_action_keys(self) -> np.ndarray:
        """``action_key`` of every legal action, in order, in one compiled pass (for search)."""
        legal = self.legal_actions()
        keys = np.empty(len(legal), dtype=np.int64)
        R.action_keys(self.s, self.cards, legal, self.game.non_deploy_key, keys)
        return keys

    def _describe(self, a: int) -> str:
        p = int(self.s[L.PLAYER])
        if not 0 <= a < NUM_ACTIONS:
            return f"outside 0..{NUM_ACTIONS - 1}"
        if a < A_TARGET:
            slot, e = divmod(a - A_DEPLOY, NUM_SQUARES)
            card = self._hand_card(p, slot)
            what = self.game.card_names[card] if card >= 0 else f"empty hand position {slot + 1}"
            return f"deploy {what} to {square_name(R.ego(e, p))}"
        if a < A_HOLD_FIRE:
            return f"shoot at {square_name(R.ego(a - A_TARGET, p))}"
        if a == A_HOLD_FIRE:
            return "hold fire"
        if a == A_DRAW:
            return "draw"
        return f"recall from {square_name(R.ego(a - A_RECALL, p))}"

    def action_to_string(self, action: int) -> str:
        return self._describe(int(action))

    def view(self, perspective: int | None) -> View:
        """What ``perspective`` sees (``envs.view``; ``lords_of_war.view``)."""
        from .view import view

        return view(self, perspective)

    def action_path(self, action: int) -> tuple[str, ...]:
        """The menu path of a legal action (``lords_of_war.view.action_path``)."""
        from .view import action_path

        return action_path(self, int(action))

    def action_seen(self, action: int, perspective: int | None) -> str:
        """How ``perspective`` sees ``action`` applied here (``lords_of_war.view.action_seen``)."""
        from .view import action_seen

        return action_seen(self, int(action), perspective)

    def _summary(self) -> str:
        s = self.s
        return (f"eliminated={int(s[L.NDEAD])}/{int(s[L.NDEAD + 1])}, "
                f"command_lost={int(s[L.NCMD])}/{int(s[L.NCMD + 1])}")


def _evaluate(which: int, state: LordsOfWarState, player: int) -> float:
    """Heuristic ``which`` of ``state`` for ``player``, in [0, 1] (``LordsOfWarState.evaluation``)."""
    return float(H.heuristic_value(state.s, state.cards, H.HEAT_MAPS, H.SCALES, which, state._check_player(player)))


@njit(cache=True, nogil=True)
def _resample(s, player, u):
    """Resample in place what ``player`` cannot see, uniformly, from the uniforms ``u`` (2 x ARMY_SIZE of them).

    Shuffles ``player``'s own deck, and deals the opponent's hand cards not known to ``player``
    afresh from those cards plus the opponent's deck, which is shuffled too.
    """
    k = 0
    base = DECK + player * ARMY_SIZE
    for i in range(s[NDECK + player] - 1, 0, -1):  # Fisher-Yates
        j = int(u[k] * (i + 1))
        k += 1
        s[base + i], s[base + j] = s[base + j], s[base + i]
    q = 1 - player
    hand = HAND + q * HAND_SIZE
    deck = DECK + q * ARMY_SIZE
    pool = np.empty(ARMY_SIZE, dtype=np.int16)
    n_pool = 0
    n_known = 0
    for i in range(s[NHAND + q]):
        c = s[hand + i]
        if s[KNOWN + c]:
            s[hand + n_known] = c  # keep the known cards, in order, at the front
            n_known += 1
        else:
            pool[n_pool] = c
            n_pool += 1
    n_unknown = n_pool
    for i in range(s[NDECK + q]):
        pool[n_pool] = s[deck + i]
        n_pool += 1
    for i in range(n_pool - 1, 0, -1):
        j = int(u[k] * (i + 1))
        k += 1
        pool[i], pool[j] = pool[j], pool[i]
    nh = n_known
    for i in range(n_unknown):  # insertion into the sorted hand
        c = pool[i]
        j = nh
        while j > 0 and s[hand + j - 1] > c:
            s[hand + j] = s[hand + j - 1]
            j -= 1
        s[hand + j] = c
        nh += 1
    for i in range(n_pool - n_unknown):
        s[deck + i] = pool[n_unknown + i]


# ---- the compiled model (``compiled_model``): the rules kernels with CompiledModel's signatures ---------------
# ``table`` is ``LordsOfWarGame.model_table``: (cards, non_deploy_key, heat maps, scales). Kernels that
# make no array skip reference counting, as the rules' hottest ones do (``rules._LEAN``).
@njit(cache=True, nogil=True)
def _model_determinize(s, table, player, u):
    _resample(s, player, u)


@njit(**R._LEAN)
def _model_legal_actions(s, table, buf):
    return R.legal_actions(s, table[0], buf)


@njit(**R._LEAN)
def _model_action_keys(s, table, buf, n, out):
    R.action_keys(s, table[0], buf[:n], table[1], out)


@njit(**R._LEAN)
def _model_apply(s, table, action, buf):
    R.apply_unchecked(s, table[0], action, buf)


@njit(**R._LEAN)
def _model_playout(s, table, buf, stream, turn_limit):
    return R.random_playout(s, table[0], buf, stream, 1 << 30, turn_limit)


@njit(cache=True, nogil=True)
def _model_evaluations_after(s, table, buf, n, which, extrapolate, stream, out):
    H.values_after(s, table[0], table[2], table[3], buf[L.MODE], buf[:n], which, extrapolate, stream, out)


@njit(cache=True, nogil=True)
def _model_observation(s, table, player, out):
    out[:] = 0.0
    observe(s, table[0], player, False, out)


@njit(**R._LEAN)
def _model_player(s):
    return TERMINAL if s[L.PHASE] == L.PH_OVER else np.int64(s[L.PLAYER])


@njit(**R._LEAN)
def _model_turn(s):
    return np.int64(s[L.TURN])


@njit(**R._LEAN)
def _model_returns(s, out):
    w = s[L.WINNER]
    out[0] = 1.0 if w == 0 else -1.0 if w == 1 else 0.0
    out[1] = -out[0]


@njit(cache=True, nogil=True)
def _heuristic(s, table, player):
    """h4 (``LordsOfWarState.heuristic``): ``heuristics.raw_heuristic``'s card count with dead Commanders twice, over
    ``H4_SCALE``, clipped to [-1, 1]; +1 / -1 once decided."""
    w = s[L.WINNER]
    if w == 0 or w == 1:
        return 1.0 if w == player else -1.0
    return min(max(H.raw_heuristic(s, table[0], table[2], H4, player) / H4_SCALE, -1.0), 1.0)

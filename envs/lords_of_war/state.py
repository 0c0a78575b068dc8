"""The Lords of War forward model: ``LordsOfWarGame`` (static data) and ``LordsOfWarState``.

The state implements the protocol of ``cardboard.envs.protocol`` over the
numba kernels of ``rules``. Hidden information: each player's hand is hidden
from the opponent (except cards the opponent has seen enter it: the General at
the start, recalled units, and a hand shown after a forced placement), and the
order of both decks is hidden from both players.
"""
from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from ..errors import IllegalActionError, InvalidParameterError, ProtocolError
from ..protocol import TERMINAL, GameInfo
from . import rules as R
from .cards import Army, build_card_table, load_army
from .constants import (
    A_DEPLOY,
    A_DRAW,
    A_HOLD_FIRE,
    A_RECALL,
    A_TARGET,
    ARMY_SIZE,
    COLS,
    HAND_SIZE,
    MAX_TURNS,
    NUM_ACTIONS,
    NUM_SQUARES,
)

H4_SCALE = 24.0  # h4 differences beyond +-24 cards are clipped
PHASE_NAMES = ("opening", "deploy", "target", "reinforce", "over")


def square_name(sq: int) -> str:
    """Absolute square as 'a1'..'f7': column letter from player 0's left, row number from player 0's edge."""
    row, col = divmod(int(sq), COLS)
    return f"{'abcdef'[col]}{row + 1}"


class LordsOfWarGame:
    """A Lords of War match-up: two armies, their card table and the game's properties."""

    def __init__(self, armies: Sequence[str | Path | Army] = ("orcs", "dwarves")):
        if isinstance(armies, (str, Path)) or len(armies) != 2:
            raise InvalidParameterError(f"Lords of War needs two armies (a pair of names or files), got {armies!r}")
        self.armies = tuple(a if isinstance(a, Army) else load_army(a) for a in armies)
        self.cards, self.type_names = build_card_table(self.armies)
        self.card_names = [self.type_names[t] for t in self.cards[:, R.F_TYPE]]
        self.general_ids = [p * ARMY_SIZE + int(np.flatnonzero(self.cards[p * ARMY_SIZE:(p + 1) * ARMY_SIZE, R.F_GEN])[0])
                            for p in range(2)]
        self._others = np.array([[c for c in range(p * ARMY_SIZE, (p + 1) * ARMY_SIZE) if c != self.general_ids[p]]
                                 for p in range(2)], dtype=np.int16)  # each army without its General
        self._template = self._initial_template()
        self.info = GameInfo(
            name="lords_of_war",
            num_players=2,
            num_actions=NUM_ACTIONS,
            observation_shape=(R.OBS_LEN,),
            chance="setup",
            information="imperfect",
            utility="zero_sum",
            min_return=-1.0,
            max_return=1.0,
            max_turns=MAX_TURNS,
            num_action_keys=len(self.type_names) * NUM_SQUARES + NUM_ACTIONS - A_TARGET,
        )
        self.non_deploy_key = len(self.type_names) * NUM_SQUARES - A_TARGET  # key of action a >= A_TARGET: this + a

    def _initial_template(self) -> np.ndarray:
        """Everything of a fresh state but the dealt cards."""
        s = np.full(R.STATE_LEN, -1, dtype=np.int16)
        s[R.KNOWN:R.KNOWN + 2 * ARMY_SIZE] = 0
        s[R.FOUGHT:R.FOUGHT + NUM_SQUARES] = 0
        s[R.NHAND:R.NCMD + 2] = 0
        s[R.NHAND:R.NHAND + 2] = HAND_SIZE
        s[R.NDECK:R.NDECK + 2] = ARMY_SIZE - HAND_SIZE
        s[R.KNOWN + np.array(self.general_ids)] = 1  # everyone knows the General starts in hand
        s[R.PLAYER] = 0
        s[R.PHASE] = R.PH_OPENING
        s[R.TURN] = 0
        s[R.EXTRA] = 0
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
            s[R.HAND + p * HAND_SIZE:R.HAND + (p + 1) * HAND_SIZE] = hand
            s[R.DECK + p * ARMY_SIZE:R.DECK + p * ARMY_SIZE + ARMY_SIZE - HAND_SIZE] = decks[p, :-deal]
        return LordsOfWarState(self, s)


class LordsOfWarState:
    """A Lords of War game state (forward model). See ``cardboard.envs.protocol``."""

    __slots__ = ("game", "cards", "s", "_buf", "_n", "_view")

    def __init__(self, game: LordsOfWarGame, s: np.ndarray):
        self.game = game
        self.cards = game.cards
        self.s = s
        self._buf = np.empty(R.BUFFER_LEN, dtype=np.int32)
        self._n = -1  # legal actions not computed yet
        self._view: np.ndarray | None = None

    # -- properties ---------------------------------------------------------------------------------
    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def current_player(self) -> int:
        return TERMINAL if self.s[R.PHASE] == R.PH_OVER else int(self.s[R.PLAYER])

    @property
    def turn(self) -> int:
        return int(self.s[R.TURN])

    @property
    def phase(self) -> str:
        """'opening', 'deploy', 'target', 'reinforce' or 'over'."""
        return PHASE_NAMES[self.s[R.PHASE]]

    def is_terminal(self) -> bool:
        return self.s[R.PHASE] == R.PH_OVER

    def winner(self) -> int | None:
        """0 or 1 once decided, None while running or for a draw."""
        w = int(self.s[R.WINNER])
        return w if w in (0, 1) else None

    def returns(self) -> np.ndarray:
        w = self.s[R.WINNER]
        if w == 0:
            return np.array([1.0, -1.0])
        if w == 1:
            return np.array([-1.0, 1.0])
        return np.zeros(2)

    def heuristic(self, player: int) -> float:
        """h4 of paper 002 §2.3 (card count, a dead Command card counting twice), scaled to [-1, 1].

        +1 / -1 at a decided terminal state.
        """
        w = int(self.s[R.WINNER])
        if w in (0, 1):
            return 1.0 if w == player else -1.0
        board = self.s[R.BOARD:R.BOARD + NUM_SQUARES]
        on_board = np.bincount(board[board >= 0] // ARMY_SIZE, minlength=2)
        score = [on_board[p] - self.s[R.NDEAD + p] - self.s[R.NCMD + p] for p in range(2)]
        return float(np.clip((score[player] - score[1 - player]) / H4_SCALE, -1.0, 1.0))

    # -- moves --------------------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        """Legal ids, increasing: a view valid until the next apply (copy it to keep it)."""
        if self._view is None:
            if self._n < 0:
                self._n = R.legal_actions(self.s, self.cards, self._buf)
            self._view = self._buf[:self._n]
            self._view.flags.writeable = False
        return self._view

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action is an integer id, got {action!r}") from None
        n = R.apply_checked(self.s, self.cards, a, self._buf, self._n) if 0 <= a < NUM_ACTIONS else -1
        self._view = None
        if n < 0:
            raise IllegalActionError(
                f"action {a} ({self._describe(a)}) is not legal in phase {self.phase!r} for player "
                f"{self.current_player}; legal: {self.legal_actions().tolist()}"
            )
        self._n = n

    def clone(self) -> "LordsOfWarState":
        return LordsOfWarState(self.game, self.s.copy())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ProtocolError("Lords of War has no chance nodes after set-up (decks are shuffled by new_state)")

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """Play uniformly random moves in place, compiled, to the end of the game or for ``max_turns``
        player turns; return the number of decisions made. The fast path for search rollouts."""
        seed = np.empty(1, dtype=np.uint64)
        seed[0] = rng.bit_generator.random_raw() | 1  # xorshift state: any odd 64-bit word
        limit = MAX_TURNS if max_turns is None else self.turn + max_turns
        self._n = -1
        self._view = None
        return int(R.random_playout(self.s, self.cards, self._buf, seed, 1 << 30, limit))

    # -- information ---------------------------------------------------------------------------------
    def determinize(self, player: int, rng: np.random.Generator) -> "LordsOfWarState":
        """A state sampled uniformly from ``player``'s information set.

        Resampled: the order of both decks, and which of the opponent's cards not known to be in
        hand are in hand rather than in the deck. Kept: everything ``player`` has seen.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        det = self.clone()
        R.determinize(det.s, player, rng.random(2 * ARMY_SIZE))
        return det

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """What ``player`` sees, as a float32 vector of length OBS_LEN in the player's own frame."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        out = np.zeros(R.OBS_LEN, dtype=np.float32)
        R.observe(self.s, self.game.cards, player, perfect, out)
        return out

    # -- naming --------------------------------------------------------------------------------------
    def _hand_card(self, player: int, slot: int) -> int:
        return int(self.s[R.HAND + player * HAND_SIZE + slot]) if slot < self.s[R.NHAND + player] else -1

    def action_key(self, action: int) -> Hashable:
        """Soft key, an int in ``range(info.num_action_keys)``: ``type * 42 + square`` for "deploy a card
        of this type on this square" (copies of a card share it); the other actions, whose ids already
        mean the same in every determinization (squares are in the player's own frame), follow the
        deploy keys in id order. A deploy id naming an empty hand slot gets ``-1 - action``."""
        a = int(action)
        if a < A_TARGET:
            card = self._hand_card(int(self.s[R.PLAYER]), a // NUM_SQUARES)
            return int(self.cards[card, R.F_TYPE]) * NUM_SQUARES + a % NUM_SQUARES if card >= 0 else -1 - a
        return self.game.non_deploy_key + a

    def legal_action_keys(self) -> np.ndarray:
        """``action_key`` of every legal action, in order, in one compiled pass (for search)."""
        legal = self.legal_actions()
        keys = np.empty(len(legal), dtype=np.int64)
        R.action_keys(self.s, self.cards, legal, self.game.non_deploy_key, keys)
        return keys

    def _describe(self, a: int) -> str:
        p = int(self.s[R.PLAYER])
        if not 0 <= a < NUM_ACTIONS:
            return f"outside 0..{NUM_ACTIONS - 1}"
        if a < A_TARGET:
            slot, e = divmod(a - A_DEPLOY, NUM_SQUARES)
            card = self._hand_card(p, slot)
            what = self.game.card_names[card] if card >= 0 else f"empty hand slot {slot}"
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

    def __repr__(self) -> str:
        s = self.s
        return (f"LordsOfWarState(turn={self.turn}, player={int(s[R.PLAYER])}, phase={self.phase!r}, "
                f"eliminated={int(s[R.NDEAD])}/{int(s[R.NDEAD + 1])}, command_lost={int(s[R.NCMD])}/{int(s[R.NCMD + 1])})")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LordsOfWarState) and np.array_equal(self.s, other.s)
                and (other.game is self.game or np.array_equal(other.game.cards, self.game.cards)))

    __hash__ = None  # mutable

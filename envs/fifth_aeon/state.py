"""The Fifth Aeon forward model: ``FifthAeonGame`` (the card pool and the two decks) and ``FifthAeonState``.

Hidden information (004 §3.1.2): the order of both decks, the opponent's hand (except cards revealed by Peek or
returned to hand from the crypt) and, with ``decklists="hidden"``, the opponent's deck list (``hidden_lists``;
with open lists it is public, as the game's ``decks`` option names it). Decks are drawn (``deckpool``) and
shuffled by ``new_state`` and nothing is random afterwards (the model's only randomness), so the game has chance
only at set-up (``info.chance == "setup"``). The defender's blocks and a player's choices
inside the other's turn are decisions that keep ``turn`` (``info.reactions``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..compiled_model import CompiledModel
from ..errors import InvalidParameterError, ProtocolError, UnknownNameError
from ..kernels import seed_stream
from ..protocol import TERMINAL, GameInfo
from ..state_base import StateBase
from ..structure import ObservationStructure
from ..view import View
from . import compiled_model as CM
from . import flat_default_ai as DAI
from . import flat_layout as F
from . import flat_model, flat_moves
from . import layout as L
from . import moves
from . import view as views
from .board import PHASE_NAMES, Match
from .cards import DECK_LIST, STANDARD_DECKS, STARTER_DECKS, CardPool, Deck, bundled_pool, load_deck, load_pool
from .constants import BOARD_SLOTS, MAX_TURNS
from .flat_convert import canonical, fresh, to_flat, to_match, update_match
from .flat_machine import BUFFER_LEN
from .flat_observation import observe as flat_observe
from .flat_table import card_table
from .hidden_lists import DECKLISTS, UniformDeck, hidden_cards, seen_cards, unseen_slots
from .observation import observation_length, observation_structure
from .render import render_ansi, render_rgb


class FifthAeonGame:
    """A Fifth Aeon match-up: the card pool (bundled, plus ``cards``: a JSON file of the user's own cards), the
    two decks (built-in names, ``Deck`` objects or JSON files; one name plays a mirror), ``mulligan`` (off: the
    opening hands are kept) and ``rollout``, the search rollouts' policy (``random_playout``): ``random``
    (uniform legal moves) or ``default_ai`` (DefaultAI on both sides); it does not change the game.
    ``decklists``: ``open`` (the opponent's list is public) or ``hidden`` (``hidden_lists``). ``deckpool``:
    ``none`` (play ``decks``), or ``starter`` / ``standard``: each player's deck drawn at set-up, independently and
    uniformly, from the four starter decks (the constructed format's) / the ten AI decks."""

    ROLLOUTS = ("random", "default_ai")
    DECK_POOLS = {"none": (), "starter": STARTER_DECKS, "standard": STANDARD_DECKS}
    OPTION_VALUES = {"decks": DECK_LIST, "rollout": ROLLOUTS, "decklists": DECKLISTS,
                     "deckpool": tuple(DECK_POOLS)}  # decks: also JSON files (cardboard games -v)

    def __init__(self, decks: Sequence[str | Path | Deck] | str = ("March of Undeath", "The King's Legions"),
                 cards: str | Path | CardPool | None = None, mulligan: bool = True, rollout: str = "random",
                 decklists: str = "open", deckpool: str = "none"):
        pool = bundled_pool()
        if isinstance(cards, CardPool):
            pool = cards
        elif cards is not None:
            pool = pool.with_cards(list(load_pool(cards).cards))
        self.pool = pool
        if isinstance(decks, (str, Path, Deck)):
            decks = (decks, decks)
        if len(decks) != 2:
            raise InvalidParameterError(f"Fifth Aeon needs two decks (or one for a mirror), got {len(decks)}")
        self.decks = tuple(load_deck(d, pool) for d in decks)
        self.mulligan = bool(mulligan)
        if rollout not in self.ROLLOUTS:
            raise UnknownNameError("rollout policy", rollout, self.ROLLOUTS)
        self.rollout = rollout
        if decklists not in DECKLISTS:
            raise UnknownNameError("decklists", decklists, DECKLISTS)
        if deckpool not in self.DECK_POOLS:
            raise UnknownNameError("deck pool", deckpool, tuple(self.DECK_POOLS))
        self.decklists, self.deckpool = decklists, deckpool
        self.pool_decks = tuple(load_deck(d, pool).cards for d in self.DECK_POOLS[deckpool])
        self.uniform = UniformDeck(pool)
        self.card_ids = [c.id for c in pool.cards]
        self.table = card_table(pool)
        self.table_index = {cid: i for i, cid in enumerate(self.card_ids)}
        self._deck_indices: dict[tuple[str, ...], np.ndarray] = {}
        self._deck_lists: dict[tuple[tuple[str, ...], ...], np.ndarray] = {}
        self.info = GameInfo(name="fifth_aeon", num_players=2, num_actions=L.NUM_ACTIONS,
                             observation_shape=(observation_length(len(pool)),), chance="setup",
                             information="imperfect", utility="zero_sum", min_return=-1.0, max_return=1.0,
                             max_turns=MAX_TURNS, reactions=True,
                             num_action_keys=flat_model.num_action_keys(len(pool.cards)))

    def new_state(self, seed: int | np.random.Generator | None = None) -> "FifthAeonState":
        """Draw both decks from the pool (``deckpool``) and shuffle them with ``seed``, draw the opening hands (3
        and 4), start player 0's turn and ask both players for their mulligans."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        lists = (tuple(self.pool_decks[i] for i in rng.integers(len(self.pool_decks), size=2)) if self.pool_decks
                 else tuple(d.cards for d in self.decks))
        s = fresh(tuple(self._indices(d)[rng.permutation(len(d))] for d in lists))
        flat_moves.start(s, self.table.cards, self.table.mechs, np.zeros(BUFFER_LEN, np.int32), self.mulligan)
        return FifthAeonState(self, s, lists)

    def deck_lists(self, decks: tuple[tuple[str, ...], ...]) -> np.ndarray:
        """Both deck lists as the compiled DefaultAI reads them (``flat_default_ai.deck_lists``), cached."""
        if decks not in self._deck_lists:
            self._deck_lists[decks] = DAI.deck_lists(decks, self.pool)
        return self._deck_lists[decks]

    def _indices(self, deck: tuple[str, ...]) -> np.ndarray:
        """A deck list as card indices (the flat state's), cached per list."""
        if deck not in self._deck_indices:
            self._deck_indices[deck] = np.array([self.table_index[c] for c in deck], np.int64)
        return self._deck_indices[deck]

    def render_ansi(self, state: "FifthAeonState", perspective: int | None = None) -> str:
        return render_ansi(state._decoded(), perspective)

    def render_rgb(self, state: "FifthAeonState") -> np.ndarray:
        return render_rgb(state._decoded())


class FifthAeonState(StateBase):
    """A Fifth Aeon game state (forward model); see ``cardboard.envs.protocol``. The state is one flat array run by
    the compiled rules (``flat_layout``, ``flat_moves``; ``s`` gives it). ``match`` is the same position as the
    object engine's ``board.Match``, for code that reads the game by its objects (views, renders, the Python bots,
    hand-built positions): it is decoded on demand and kept in step with every move; changes made to it are
    encoded back before the next move. ``decks``: the players' deck lists (card ids; in a world of hidden lists, the
    opponent's as the world deals it), which DefaultAI's resource choice reads."""

    __slots__ = ("_array", "_m", "_legal", "_legal_list", "_player", "_buf", "_deck_array", "decks")

    def __init__(self, game: FifthAeonGame, position: "np.ndarray | Match",
                 decks: tuple[tuple[str, ...], ...] | None = None):
        self.game = game
        if isinstance(position, Match):
            self._array, self._m = None, position
        else:
            self._array, self._m = position, None
        self.decks = tuple(d.cards for d in game.decks) if decks is None else decks
        self._legal: np.ndarray | None = None  # this position's legal ids, its player: computed once
        self._legal_list: list[int] = []
        self._player: int | None = None
        self._buf: np.ndarray | None = None
        self._deck_array: np.ndarray | None = None

    # -- the two views of the position -----------------------------------------------------------------------
    @property
    def s(self) -> np.ndarray:
        """The flat state (``flat_layout``), encoded again from ``match`` if that was handed out (it may have been
        changed); the compiled rules' input. Do not write it."""
        if self._m is not None:
            self._array = to_flat(self._m, self.game.table, self.game.pool)
        return self._array

    @property
    def match(self) -> Match:
        """The position as the object engine's ``Match`` (decoded once, then kept in step with every move)."""
        if self._m is None:
            self._m = to_match(self._array, self.game.table, self.game.pool)
        self._legal = None  # the caller may change it
        self._player = None
        return self._m

    def _decoded(self) -> Match:
        """The position as a ``Match`` to read (not to change): the handed-out one, else a fresh decoding."""
        return self._m if self._m is not None else to_match(self._array, self.game.table, self.game.pool)

    def _scratch(self) -> np.ndarray:
        if self._buf is None:
            self._buf = np.zeros(CM.MODEL_BUFFER, np.int32)  # the rules' stack and DefaultAI's work area
        return self._buf

    def _moved(self) -> None:
        """After the flat state changed: a bound of the layout that overflowed raises ``ProtocolError``; the legal
        actions are stale and a handed-out match is brought up to date in place (so references to it stay
        valid)."""
        if self._array[F.G_OVERFLOW]:
            raise ProtocolError(f"the compiled state overflowed {F.OVERFLOWS[int(self._array[F.G_OVERFLOW])]}, a "
                                "bound of flat_layout")
        self._legal = None
        self._player = None
        if self._m is not None:
            update_match(self._m, self._array, self.game.table, self.game.pool)

    # -- properties ----------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self._player is None:
            self._player = int(flat_model.player(self.s))
        return self._player

    @property
    def turn(self) -> int:
        return int(self.s[F.G_TURN])

    @property
    def phase(self) -> str:
        s = self.s
        if s[F.G_WINNER] >= 0:
            return "over"
        if s[F.G_NCHOICES] > 0:
            return "choice"
        if s[F.G_PEND] == 1:
            return "target"
        return PHASE_NAMES[int(s[F.G_PHASE])]

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def winner(self) -> int | None:
        """0 or 1 once decided; None while running or for a draw."""
        w = int(self.s[F.G_WINNER])
        return w if w in (0, 1) else None

    def returns(self) -> np.ndarray:
        out = np.zeros(2)
        flat_model.returns(self.s, out)
        return out

    def heuristic(self, player: int) -> float:
        """DefaultAI's evaluation of the position for ``player`` in [-1, 1] (``evaluation.position_value``,
        compiled)."""
        table = self.game.table
        return float(CM.heuristic(self.s, table.cards, table.mechs, self._check_player(player), self._scratch()))

    # -- moves -------------------------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        if self._legal is None:
            buf = self._scratch()
            n = flat_moves.legal_actions(self.s, self.game.table.cards, self.game.table.mechs, buf)
            self._legal = buf[:n].astype(np.int64)
            self._legal.flags.writeable = False
            self._legal_list = self._legal.tolist()
        return self._legal

    def sensible_actions(self) -> np.ndarray:
        """The legal actions an expert keeps (search's ``prune=1``): of the four resources only DefaultAI's choice
        (the card closest to castable decides), whose value no short look-ahead can see."""
        buf = self.legal_actions().astype(np.int32)
        table = self.game.table
        kept = CM.sensible_actions(self.s, table.cards, table.mechs, self.deck_lists(), buf, len(buf))
        return buf[:kept].astype(np.int64)

    def deck_lists(self) -> np.ndarray:
        """``decks`` as the compiled DefaultAI reads them (``flat_default_ai.deck_lists``)."""
        if self._deck_array is None:
            self._deck_array = self.game.deck_lists(self.decks)
        return self._deck_array

    def compiled_model(self) -> CompiledModel:
        """This state's array and the compiled rules as a ``CompiledModel`` (``compiled_model``): UCT, ISMCTS (open
        deck lists) and DUCT run whole iterations compiled, DefaultAI's rollouts and evaluation included."""
        table = self.game.table
        return CM.compiled_model(self.s, table.cards, table.mechs, self.deck_lists(),
                                 self.game.rollout == "default_ai", self.game.decklists == "hidden")

    def _try_apply(self, a: int) -> bool:
        self.legal_actions()
        if a not in self._legal_list:
            return False
        table = self.game.table
        flat_moves.apply(self.s, table.cards, table.mechs, a, self._scratch())
        self._moved()
        return True

    def _illegal_message(self, a: int) -> str:
        return (f"action {a} ({self._describe(a)}) is not legal in phase {self.phase!r} for player "
                f"{self.current_player}; legal: {self.legal_actions().tolist()}")

    def clone(self) -> "FifthAeonState":
        return type(self)(self.game, self.s.copy(), self.decks)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ProtocolError("Fifth Aeon has no chance nodes after set-up (decks are shuffled by new_state)")

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """The game's rollout policy (``FifthAeonGame.rollout``: uniform legal moves, or DefaultAI on both sides)
        in place to the end, or for ``max_turns`` player turns; returns the number of decisions made."""
        limit = MAX_TURNS if max_turns is None else self.turn + max_turns
        table = self.game.table
        stream = seed_stream(rng)  # drawn by both policies, as the compiled model's playout is given one
        if self.game.rollout == "default_ai":
            n = DAI.playout(self.s, table.cards, table.mechs, self.deck_lists(), DAI.new_plan(), self._scratch(),
                            limit)
            self._moved()
            return int(n)
        table = self.game.table
        n = flat_model.random_playout(self.s, table.cards, table.mechs, self._scratch(), stream, limit)
        self._moved()
        return int(n)

    # -- information -------------------------------------------------------------------------------------
    def determinize(self, player: int, rng: np.random.Generator, deck_model: Any = None) -> "FifthAeonState":
        """A state drawn from what ``player`` cannot see: the order of the deck positions ``player`` does not know
        (its own deck's, except the cards it put at the bottom), and the opponent's unseen cards (a resampled hand
        card loses a Research AI bonus): with open lists its unseen cards shuffled between hand and deck; with
        hidden lists dealt anew by ``deck_model`` (``protocol.DeckModel``; None: ``hidden_lists.UniformDeck``)
        given ``seen_cards(player)``. A deck model with open lists raises ``InvalidParameterError``."""
        self._check_player(player)
        hidden = self.game.decklists == "hidden"
        if deck_model is not None and not hidden:
            raise InvalidParameterError("deck_model: Fifth Aeon's decklists are open (the option decklists=hidden "
                                        "hides them)")
        s = self.s.copy()
        decks = self.decks
        if hidden:
            m = self._decoded()
            seen = seen_cards(m, player)
            hand_slots, deck_slots = unseen_slots(m, player)
            count = len(hand_slots) + len(deck_slots)
            pool = list((deck_model or self.game.uniform).sample(seen, count, rng))
            if len(pool) != count:
                raise ProtocolError(f"deck model {deck_model!r} dealt {len(pool)} cards, not {count}")
            index = self.game.table_index
            foe = F.player_base(1 - player)
            for k, i in enumerate(hand_slots):
                s[foe + F.P_HAND + i * F.HF + F.H_CARD] = index[pool[k]]
            for k, i in enumerate(deck_slots):
                s[foe + F.P_DECK + i] = index[pool[len(hand_slots) + k]]
            decks = list(decks)
            decks[1 - player] = tuple(seen.elements()) + tuple(pool)
            decks = tuple(decks)
        flat_model.determinize(s, self.game.table.cards, player, rng.random(flat_model.DETERMINIZE_DRAWS),
                               np.empty(flat_model.DETERMINIZE_DRAWS, np.int64))
        return type(self)(self.game, s, decks)

    def seen_cards(self, player: int) -> Counter:
        """The opponent's cards ``player`` sees now, by card id (``hidden_lists.seen_cards``): what a deck model is
        given."""
        return seen_cards(self._decoded(), self._check_player(player))

    def hidden_cards(self, player: int) -> list[str]:
        """The true identities of the opponent's cards ``determinize(player)`` deals (reads the truth: an oracle
        deck model's)."""
        return hidden_cards(self._decoded(), self._check_player(player))

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        out = np.empty(self.game.info.observation_shape, np.float32)
        flat_observe(self.s, self.game.table.cards, self._check_player(player), bool(perfect), out)
        return out

    def observation_structure(self) -> ObservationStructure:
        """The named parts of ``observation(p)`` (``envs.structure``): the hand and both boards as card
        tokens, the rest as globals."""
        return observation_structure(len(self.game.pool.index))

    def state_key(self) -> Hashable:
        """Everything of the match and the deck lists, hidden parts included."""
        return canonical(self._decoded()), self.decks

    def card_multiset(self) -> tuple:
        """Every card in hands, decks, crypts and on the board (items too), sorted; with hidden lists a player's
        cards the other has not seen count as ``?0`` / ``?1`` (the other's ``determinize`` deals them anew)."""
        m = self._decoded()
        out: list[str] = []
        for p in range(2):
            s = m.sides[p]
            out += [h[0] for h in s.hand] + s.deck + s.crypt
            for u in m.board[p]:
                out += [u.card.id] + [it.id for it in u.items]
        if self.game.decklists == "hidden":
            cards = Counter(out)
            for p in range(2):
                unseen = hidden_cards(m, p)
                cards -= Counter(unseen)
                cards[f"?{1 - p}"] = len(unseen)
            out = list(cards.elements())
        return tuple(sorted(out))

    # -- naming ------------------------------------------------------------------------------------------
    def action_key(self, action: int) -> int:
        """Soft key, an int below ``info.num_action_keys`` (``flat_model``): playing a card from hand or picking
        a choice's option names the card ("play Decapitate", whatever the slot or the determinization); board
        positions and resources stay ids (they are public and mean the same in every determinization)."""
        ids = np.array([int(action)], np.int32)
        out = np.zeros(1, np.int64)
        flat_model.action_keys(self.s, self.game.table.cards, ids, 1, out)
        return int(out[0])

    def action_to_string(self, action: int) -> str:
        """The action in words, cards named as printed ("play Regal Monarch")."""
        return self._describe(int(action))

    # -- views (``envs.view``, built on demand: ``view`` module) -------------------------------------------
    def view(self, perspective: int | None) -> View:
        return views.fifth_aeon_view(self, perspective)

    def action_path(self, action: int) -> tuple[str, ...]:
        return views.action_path(self, int(action))

    def action_seen(self, action: int, perspective: int | None) -> str | None:
        return views.action_seen(self, int(action), perspective)

    def _describe(self, a: int) -> str:
        m = self._decoded()
        if not 0 <= a < L.NUM_ACTIONS:
            return f"outside 0..{L.NUM_ACTIONS - 1}"
        p = m.acting if m.winner < 0 else 0

        def pos(b: int) -> str:
            u = moves.at_position(m, p, b)
            return f"{'own' if b < BOARD_SLOTS else 'enemy'} {u!r}" if u is not None else f"empty position {b}"

        if a < L.CHOICE_DONE:
            opts = m.choices[0].options if m.choices else []
            i = a - L.OPTION
            return f"choose {m.card(opts[i]).name}" if i < len(opts) else f"choose option {i}"
        if a == L.CHOICE_DONE:
            return "choice done"
        if a < L.PLAY:
            return f"play a {('synthesis', 'growth', 'decay', 'renewal')[a - L.RESOURCE]} resource"
        if a < L.TARGET:
            hand = m.sides[p].hand
            slot = a - L.PLAY
            return f"play {m.card(hand[slot][0]).name}" if slot < len(hand) else f"play empty hand slot {slot}"
        if a < L.NO_TARGET:
            return f"target {pos(a - L.TARGET)}"
        if a == L.NO_TARGET:
            return "no target"
        if a < L.DIMINISH:
            return f"empower {pos(a - L.EMPOWER)}"
        if a < L.ATTACK:
            return f"diminish {pos(BOARD_SLOTS + a - L.DIMINISH)}"
        if a < L.BLOCK:
            return f"attack with {pos(a - L.ATTACK)}"
        if a < L.ORDER:
            b, att = divmod(a - L.BLOCK, BOARD_SLOTS)
            return f"block {pos(BOARD_SLOTS + att)} with {pos(b)}"
        if a < L.PASS:
            return f"damage next to {pos(BOARD_SLOTS + a - L.ORDER)}"
        return "pass"

    # -- identity ----------------------------------------------------------------------------------------
    def __reduce__(self) -> tuple:
        return FifthAeonState, (self.game, self.s, self.decks)

    def __eq__(self, other: object) -> bool:
        return type(other) is FifthAeonState and canonical(self._decoded()) == canonical(other._decoded())

    def __repr__(self) -> str:
        m = self._decoded()
        return (f"FifthAeonState(turn={m.turn}, player={self.current_player}, phase={self.phase!r}, "
                f"life={m.sides[0].life}/{m.sides[1].life})")

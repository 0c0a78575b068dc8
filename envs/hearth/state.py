"""The Hearth forward model: ``HearthGame`` (decks, card table, properties) and ``HearthState``.

The state (a ``FlatState`` over the flat int32 array of ``layout``, so a clone
is one copy) implements ``cardboard.envs.protocol`` over the compiled rules of
``rules``, with the encoder of ``observation``. Hidden information (001 §1.5):
both deck lists are public; the opponent's hand and the order of both decks are
hidden, and ``HearthState.determinize`` samples them. The order of a deck is
never stored: each draw is a chance node over the cards left in it.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from ..errors import InvalidParameterError, ProtocolError, UnknownNameError
from ..compiled_model import CompiledModel
from ..flat_state import FlatState
from ..kernels import seed_stream
from ..protocol import CHANCE, TERMINAL, GameInfo
from ..structure import ObservationStructure
from ..view import View
from . import layout as L
from . import model as M
from . import rollout_policy as HLR
from . import rules as R
from .cards import DECK_NAMES, Deck, build_card_table, load_deck, load_pool
from .evaluation import heuristic
from .observation import OBS_LEN, STRUCTURE, observe

ROLLOUTS = ("sensible", "no_pass", "uniform")  # the compiled playout's decisions: HearthState.random_playout
_BUFFER = 128  # legal ids and chance outcomes per call (at most NUM_ACTIONS / MAX_OUTCOMES)


class HearthGame:
    """A match-up: two validated decks (player 0 goes first), the card table and the game's properties.

    decks: one deck (a mirror match) or two, player 0's first, each a packaged deck's name or a deck JSON file
    mulligan: whether each player may replace cards of the opening hand
    rollout: the compiled random playout that search rollouts use, uniform over ``sensible``: the sensible actions
        (001 §2.5), ending the turn only when nothing else is left; ``no_pass``: the legal actions, ending the turn
        only when nothing else is left; ``uniform``: the legal actions
    """

    OPTION_VALUES = {"decks": DECK_NAMES, "mulligan": (0, 1), "rollout": ROLLOUTS}

    def __init__(self, decks: Sequence[str | Path | Deck] | str = ("mech_mage", "mech_mage"),
                 mulligan: bool = True, rollout: str = "sensible"):
        if isinstance(decks, (str, Path)):
            decks = (decks, decks)  # one deck: the mirror match
        if len(decks) != 2:
            raise InvalidParameterError(f"hearth needs one deck (a mirror) or two, got {decks!r}")
        if rollout not in ROLLOUTS:
            raise UnknownNameError("rollout policy", rollout, ROLLOUTS)
        self.no_pass = rollout != "uniform"
        self.prune = rollout == "sensible"
        pool = load_pool()
        self.decks = tuple(d if isinstance(d, Deck) else load_deck(d, pool) for d in decks)
        self.deck_keys = tuple(d if isinstance(d, str) and d in L.CNB_BUCKETS else self.decks[i].name
                               for i, d in enumerate(decks))
        self.mulligan = bool(mulligan)
        self.cards = build_card_table(pool)
        by_id = {c.id: c for c in pool.cards}
        self.names = [by_id[cid].name for cid in L.CARD_IDS]
        index = {cid: i for i, cid in enumerate(L.CARD_IDS)}
        self.deck_ids = tuple(np.array([index[c.id] for c in d.cards], dtype=np.int32) for d in self.decks)
        powers = {"Mage": L.FIREBLAST, "Warlock": L.LIFE_TAP, "Hunter": L.STEADY_SHOT}
        self.powers = tuple(powers[d.player_class] for d in self.decks)
        self.buckets = tuple(self._bucket_table(k) for k in self.deck_keys)
        self.info = GameInfo(
            name="hearth",
            num_players=2,
            num_actions=L.NUM_ACTIONS,
            observation_shape=(OBS_LEN,),
            chance="explicit",
            information="imperfect",
            utility="zero_sum",
            min_return=-1.0,
            max_return=1.0,
            max_turns=L.MAX_TURNS,
            num_action_keys=L.NUM_ACTION_KEYS,
        )

    def _bucket_table(self, key: str) -> np.ndarray:
        """CNB bucket of each card id for a deck (001 Table 3.2; other decks: one bucket per cost)."""
        costs = np.minimum(self.cards[:, L.F_COST], 10)
        if key not in L.CNB_BUCKETS:
            return costs.copy()
        of_cost = {c: i for i, group in enumerate(L.CNB_BUCKETS[key]) for c in group}
        return np.array([of_cost.get(int(c), int(c)) for c in costs], dtype=np.int32)

    def empty_state(self) -> np.ndarray:
        """A state array with both heroes, empty hands and boards and full decks (no cards dealt)."""
        s = np.zeros(L.STATE_LEN, dtype=np.int32)
        s[L.G_PENDING_CARD] = -1
        s[L.G_PENDING_POS] = -1
        s[L.G_WINNER] = -1
        for p in range(2):
            b = L.player_base(p)
            s[b + L.P_HP] = s[b + L.P_MAXHP] = L.HERO_HEALTH
            s[b + L.P_POWER] = self.powers[p]
            s[b + L.P_WEAPON] = -1
            s[b + L.P_HAND:b + L.P_HAND + L.HAND_LIMIT] = -1
            s[b + L.P_ASIDE:b + L.P_ASIDE + 4] = -1
            s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS] = np.bincount(self.deck_ids[p], minlength=L.NUM_CARDS)
            s[b + L.P_NDECK] = L.DECK_SIZE
            for pos in range(L.BOARD_LIMIT):
                s[L.minion_base(p, pos) + L.M_CARD] = -1
        return s

    def new_state(self, seed: int | np.random.Generator | None = None) -> "HearthState":
        """Deal the opening hands (001 §2.1: 3 cards to player 0, 4 to player 1) with ``seed``; then the
        mulligan decisions, or (``mulligan=False``) The Coin and player 0's first turn draw, a chance node."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        s = self.empty_state()
        for p, count in ((0, L.FIRST_HAND), (1, L.SECOND_HAND)):
            for card in rng.permutation(self.deck_ids[p])[:count]:
                R.draw_card(s, p, int(card))
        state = HearthState(self, s)
        if self.mulligan:
            s[L.G_PHASE] = L.PH_MULLIGAN
        else:
            R.add_to_hand(s, 1, L.THE_COIN, L.ORIGIN_KNOWN)
            R.push(s, L.OP_START_TURN, 0, 0, 0)
            R.settle(s, self.cards, state._ids, state._weights)
        return state

    def render_ansi(self, state: "HearthState", perspective: int | None = None) -> str:
        from .render import render_ansi

        return render_ansi(state, perspective)

    def render_rgb(self, state: "HearthState") -> np.ndarray:
        from .render import render_rgb

        return render_rgb(state)


class HearthState(FlatState):
    """A Hearth game state (forward model). See ``cardboard.envs.protocol`` and ``FlatState``."""

    __slots__ = ("_ids", "_weights")  # chance outcomes and their weights, written by the kernels
    _BUFFER_LEN = _BUFFER
    _PLAYER = L.G_PLAYER
    _legal_kernel = staticmethod(R.legal_actions)
    _observe_kernel = staticmethod(observe)

    def __init__(self, game: HearthGame, s: np.ndarray):
        super().__init__(game, s)
        self._ids = np.empty(_BUFFER, dtype=np.int32)
        self._weights = np.empty(_BUFFER, dtype=np.int64)

    # -- properties ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.s[L.G_PHASE] == L.PH_OVER:
            return TERMINAL
        return CHANCE if self.s[L.G_SP] > 0 else int(self.s[L.G_PLAYER])

    @property
    def turn(self) -> int:
        return int(self.s[L.G_TURN])

    @property
    def phase(self) -> str:
        """'mulligan', 'main', 'target', 'position' or 'over'."""
        return L.PHASE_NAMES[self.s[L.G_PHASE]]

    def is_terminal(self) -> bool:
        return self.s[L.G_PHASE] == L.PH_OVER

    def winner(self) -> int | None:
        """0 or 1 once decided, None while running or for a draw."""
        w = int(self.s[L.G_WINNER])
        return w if w in (0, 1) else None

    def returns(self) -> np.ndarray:
        w = self.winner()
        return np.zeros(2) if w is None else np.array([1.0, -1.0] if w == 0 else [-1.0, 1.0])

    def heuristic(self, player: int) -> float:
        """The end-of-turn evaluation of ``evaluation`` (in the spirit of Silverfish's) in [-1, 1]."""
        return float(heuristic(self.s, self.cards, player))

    # -- views for tests, encoders and agents --------------------------------------------------------
    def _base(self, p: int) -> int:
        return L.player_base(self._check_player(p))

    def hand(self, p: int) -> np.ndarray:
        b = self._base(p)
        return self.s[b + L.P_HAND:b + L.P_HAND + self.s[b + L.P_NHAND]].copy()

    def hand_costs(self, p: int) -> np.ndarray:
        b = self._base(p)
        return np.array([R.card_cost(self.s, self.cards, p, i) for i in range(self.s[b + L.P_NHAND])], dtype=np.int32)

    def hand_origin(self, p: int) -> np.ndarray:
        b = self._base(p)
        return self.s[b + L.P_HAND_ORIGIN:b + L.P_HAND_ORIGIN + self.s[b + L.P_NHAND]].copy()

    def deck_counts(self, p: int) -> np.ndarray:
        b = self._base(p)
        return self.s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS].copy()

    def minions(self, p: int) -> list[dict]:
        """p's minions, left to right, with effective Attack and Health."""
        s = self.s
        out = []
        for pos in range(s[self._base(p) + L.P_NMIN]):
            m = L.minion_base(p, pos)
            f = int(s[m + L.M_FLAGS])
            out.append({
                "card": int(s[m + L.M_CARD]), "name": self.game.names[s[m + L.M_CARD]],
                "attack": int(R.minion_attack(s, m)), "health": int(s[m + L.M_HP]),
                "max_health": int(R.minion_max_health(s, m)), "taunt": bool(f & L.FL_TAUNT),
                "divine_shield": bool(f & L.FL_DIVINE_SHIELD), "stealth": bool(f & L.FL_STEALTH),
                "frozen": bool(f & L.FL_FROZEN), "silenced": bool(f & L.FL_SILENCED),
                "exhausted": bool(f & L.FL_EXHAUSTED), "can_attack": bool(R.can_attack(s, p, pos + 1)),
                "attacks": int(s[m + L.M_ATTACKS]), "uid": int(s[m + L.M_UID]),
            })
        return out

    def hero(self, p: int) -> dict:
        s, b = self.s, self._base(p)
        weapon = int(s[b + L.P_WEAPON])
        return {
            "health": int(s[b + L.P_HP]), "max_health": int(s[b + L.P_MAXHP]),
            "jaraxxus": bool(s[b + L.P_HERO] == L.HERO_JARAXXUS),
            "attack": int(s[b + L.P_WEAPON_ATK]) if weapon >= 0 else 0, "weapon": weapon,
            "durability": int(s[b + L.P_WEAPON_DUR]) if weapon >= 0 else 0, "frozen": bool(s[b + L.P_FROZEN]),
            "mana": int(s[b + L.P_MANA]), "max_mana": int(s[b + L.P_MAX_MANA]), "power": int(s[b + L.P_POWER]),
            "power_used": bool(s[b + L.P_POWER_USED]), "trap": bool(s[b + L.P_TRAP]),
            "immune": bool(R.hero_immune(s, p)), "fatigue": int(s[b + L.P_FATIGUE]),
            "hand_size": int(s[b + L.P_NHAND]), "deck_size": int(s[b + L.P_NDECK]),
            "spell_tax": int(s[b + L.P_SPELL_TAX]),
        }

    # -- chance -------------------------------------------------------------------------------------
    def pending_op(self) -> tuple[int, int, int, int] | None:
        """(op, player, a, b) of the op waiting for a chance outcome, or None at a decision or terminal."""
        if self.current_player != CHANCE:
            return None
        o = L.STACK + (int(self.s[L.G_SP]) - 1) * L.OP_FIELDS
        return tuple(int(x) for x in self.s[o:o + L.OP_FIELDS])

    def pending_draws(self) -> int:
        """How many card draws of one player wait at the top of the op stack (001 §2.6: N depends on it)."""
        s, n = self.s, 0
        sp = int(s[L.G_SP])
        player = None
        while sp > 0:
            o = L.STACK + (sp - 1) * L.OP_FIELDS
            if s[o] != L.OP_DRAW or (player is not None and s[o + 1] != player):
                break
            player = s[o + 1]
            n += 1
            sp -= 1
        return n

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player != CHANCE:
            raise ProtocolError(f"chance_outcomes() at a {'terminal' if self.is_terminal() else 'decision'} node")
        n = R.outcomes(self.s, self.cards, self._ids, self._weights)
        total = float(self._weights[:n].sum())
        return [(int(self._ids[i]), float(self._weights[i]) / total) for i in range(n)]

    def chance_bucket(self, outcome: int) -> Hashable:
        """CNB bucket of a chance outcome (001 §2.6): a draw's bucket by the card's mana cost in the drawing
        player's deck (Table 3.2); every other random event is its own bucket (enumerated fully)."""
        o = L.STACK + (int(self.s[L.G_SP]) - 1) * L.OP_FIELDS
        if o >= L.STACK and self.s[o] == L.OP_DRAW:
            return int(self.game.buckets[self.s[o + 1]][outcome])
        return int(outcome)

    def chance_samples(self) -> int:
        """CNB pre-samples per bucket at this node: 2 for a single draw, 1 for several (001 Table 3.1)."""
        return L.CNB_SAMPLES_ONE_DRAW if self.pending_draws() <= 1 else L.CNB_SAMPLES_SEVERAL

    # -- moves --------------------------------------------------------------------------------------
    def sensible_actions(self) -> np.ndarray:
        """The legal ids a pruned move generator keeps (001 §2.5, Silverfish's rules): damage, destroy and
        freeze never aimed at one's own characters, buffs never at enemy minions, and no targeted card
        played without a target that suits it. Never empty (nothing sensible: every legal id)."""
        legal = self.legal_actions()
        out = np.empty(len(legal), dtype=np.int32)
        return out[:R.sensible_actions(self.s, self.cards, legal, len(legal), out)]

    def _apply_checked(self, a: int) -> int:
        if self.s[L.G_PHASE] == L.PH_OVER:
            return -1
        return R.apply_checked(self.s, self.cards, a, self._buf, self._n, self._ids, self._weights)

    def _illegal_message(self, a: int) -> str:
        if self.is_terminal():
            return f"action {a}: the game is over"
        if self.current_player == CHANCE:
            outcomes = [o for o, _ in self.chance_outcomes()]
            return f"outcome {a} is not an outcome of this chance node; outcomes: {outcomes}"
        return (f"action {a} ({self._describe(a)}) is not legal in phase {self.phase!r} for player "
                f"{self.current_player}; legal: {self.legal_actions().tolist()}")

    def sample_chance(self, rng: np.random.Generator) -> int:
        """One outcome of this chance node drawn with ``rng`` by the outcomes' probabilities (compiled)."""
        if self.current_player != CHANCE:
            raise ProtocolError("sample_chance() at a decision or terminal node")
        return int(R.sample_outcome(self.s, self.cards, rng.random(), self._ids, self._weights))

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """Random decisions (chance by its probabilities), compiled, in place, to the end or for ``max_turns``
        player turns; returns the number of decisions. The fast path of search rollouts. With the game's
        default ``rollout="sensible"`` a decision is uniform over the ``sensible_actions`` other than END_TURN
        while there are any (001 §2.5: Silverfish's pruning; Algorithm 5: rollouts end a turn only when
        nothing else is available); ``"no_pass"`` keeps the second rule only, ``"uniform"`` neither."""
        limit = L.MAX_TURNS if max_turns is None else self.turn + max_turns
        self._forget_legal()
        return int(R.random_playout(self.s, self.cards, self._buf, self._ids, self._weights, seed_stream(rng), limit,
                                    self.game.no_pass, self.game.prune))

    def compiled_model(self) -> CompiledModel:
        """This state's array and the rules kernels as a ``CompiledModel`` (``model``): DUCT and UCT run whole
        iterations compiled, chance nodes and ``sensible_actions`` pruning included."""
        return M.compiled_model(self.s, self.cards, self.game.no_pass, self.game.prune)

    def observation_structure(self) -> ObservationStructure:
        """The named parts of ``observation(p)`` (``envs.structure``): hands and minions as card tokens,
        heroes, the pending card and the decks as globals."""
        return STRUCTURE

    def played_card(self, action: int) -> int:
        """The card id that decision ``action`` plays from the hand of the player to move (``PLAY + slot`` in the
        main phase), else -1. Paper 001's turn-card-set target (§3.1) collects these over a turn."""
        if self.s[L.G_PHASE] != L.PH_MAIN or self.current_player < 0 or not L.PLAY <= action < L.TARGET:
            return -1
        return int(self.s[self._base(self.current_player) + L.P_HAND + action - L.PLAY])

    def card_play_features(self):
        """The Table 4.1 encoder of this match-up (``features.HearthFeatures``: K card columns, ``column_of``,
        ``sparse_indices`` / ``encode_batch``), the input of paper 001's card-play networks."""
        from .features import features_for

        return features_for(self.game)

    def greedy_action(self, rng: np.random.Generator, cards: frozenset[int] | None = None) -> int:
        """Paper 001's Greedy player's decision here (H(a), §4.7; ``greedy.GreedyHAgent``, on a determinization
        for the player to move); with ``cards``, it plays only those card ids and does not end the turn while
        one of them can be played (§4.8's "CNN + greedy")."""
        from .greedy import GreedyHAgent

        return GreedyHAgent().act(self, rng, cards)

    def settle_chance(self, rng: np.random.Generator) -> None:
        """Sample chance outcomes by their probabilities (compiled), in place, until a decision node or the end."""
        self._forget_legal()
        HLR.settle_chance(self.s, self.cards, self._ids, self._weights, seed_stream(rng))

    def hlr_turn(self, scores: np.ndarray, rng: np.random.Generator, tau_high: float = 0.4, tau_low: float = 0.3,
                 chi: float = 0.5) -> int:
        """Play the rest of this turn by paper 001's multi-level rollout policy (Algorithm 5; compiled,
        ``rollout_policy``), in place; returns the number of decisions. ``scores``: per card id (length
        ``layout.NUM_CARDS``), the card-play network's probability that the player to move plays the card this
        turn; π_h is a softmax over them with ``tau_high``, π_l a softmax over H(a) with ``tau_low``, ``chi`` the
        chance of a low-level action when both kinds are available. The game's ``rollout`` option decides
        pruning (``sensible``: ``sensible_actions``). A mulligan decision is uniform and ends the call."""
        scores = np.asarray(scores, dtype=np.float64)
        if scores.shape != (L.NUM_CARDS,):
            raise InvalidParameterError(f"scores of shape {scores.shape}: expected ({L.NUM_CARDS},), one per card id")
        if not (tau_high > 0 and tau_low > 0 and 0.0 <= chi <= 1.0):
            raise InvalidParameterError(f"need tau_high > 0, tau_low > 0 and chi in [0, 1]; got {tau_high}, "
                                        f"{tau_low}, {chi}")
        if self.current_player < 0:
            raise ProtocolError("hlr_turn() needs a decision node")
        self._forget_legal()
        return int(HLR.hlr_turn(self.s, self.cards, self._buf, self._ids, self._weights, seed_stream(rng), scores,
                                tau_high, tau_low, chi, self.game.prune))

    # -- information ---------------------------------------------------------------------------------
    def determinize(self, player: int, rng: np.random.Generator, accuracy: float | None = None) -> "HearthState":
        """A state consistent with all ``player`` has seen, the opponent's hidden cards sampled.

        Default: uniformly from ``player``'s information set: the opponent's hidden hand cards (and mulligan
        cards set aside) are dealt from what remains unseen (their deck plus those cards), their Spare Parts
        uniformly from the 7. ``accuracy=a`` is the inference-accuracy knob of 001 §3.6.1: start from the true
        state and replace each hidden opponent card, with probability 1 - a, by a different card of their deck
        (Spare Parts: by another Spare Part); a = 1 is the true state.
        """
        self._check_player(player)
        if accuracy is not None and not 0.0 <= accuracy <= 1.0:
            raise InvalidParameterError(f"accuracy must be in [0, 1], got {accuracy!r}")
        det = self.clone()
        s, b = det.s, L.player_base(1 - player)
        n_hand = int(s[b + L.P_NHAND])
        origin = s[b + L.P_HAND_ORIGIN:b + L.P_HAND_ORIGIN + n_hand]
        hand = s[b + L.P_HAND:b + L.P_HAND + n_hand]
        deck = s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS]
        spares = np.flatnonzero(origin == L.ORIGIN_SPARE_PART)
        hidden = np.flatnonzero(origin == L.ORIGIN_DECK)
        if accuracy is None:
            aside = s[b + L.P_ASIDE:b + L.P_ASIDE + int(s[b + L.P_NASIDE])]
            pool = np.concatenate([np.repeat(np.arange(L.NUM_CARDS), deck), hand[hidden], aside])
            dealt = rng.permutation(pool)
            hand[hidden] = dealt[:len(hidden)]
            aside[:] = dealt[len(hidden):len(hidden) + len(aside)]
            deck[:] = np.bincount(dealt[len(hidden) + len(aside):], minlength=L.NUM_CARDS)
            hand[spares] = rng.choice(L.SPARE_PARTS, size=len(spares))
        else:
            for slot in hidden:
                if rng.random() > accuracy:
                    options = np.flatnonzero((deck > 0) & (np.arange(L.NUM_CARDS) != hand[slot]))
                    if len(options):
                        new = int(rng.choice(options, p=deck[options] / deck[options].sum()))
                        deck[hand[slot]] += 1
                        deck[new] -= 1
                        hand[slot] = new
            for slot in spares:
                if rng.random() > accuracy:
                    hand[slot] = rng.choice([c for c in L.SPARE_PARTS if c != hand[slot]])
        return det

    def card_multiset(self) -> tuple:
        """Every card a player owns in deck, hand, mulligan set-aside and board, tagged by owner and sorted
        (determinize conserves it). A hidden hand card counts as 'deck or hand', a Spare Part as 'a Spare
        Part': their identities are what determinize resamples."""
        s, out = self.s, []
        for p in range(2):
            b = L.player_base(p)
            deck = s[b + L.P_DECK:b + L.P_DECK + L.NUM_CARDS]
            out += [(p, "deck or hand", int(c)) for c in np.repeat(np.arange(L.NUM_CARDS), deck)]
            for slot in range(int(s[b + L.P_NHAND])):
                card, origin = int(s[b + L.P_HAND + slot]), int(s[b + L.P_HAND_ORIGIN + slot])
                out.append((p, "deck or hand", card) if origin == L.ORIGIN_DECK else
                           (p, "spare part", -1) if origin == L.ORIGIN_SPARE_PART else (p, "known", card))
            out += [(p, "deck or hand", int(c)) for c in s[b + L.P_ASIDE:b + L.P_ASIDE + int(s[b + L.P_NASIDE])]]
            out += [(p, "board", int(s[L.minion_base(p, i) + L.M_CARD])) for i in range(int(s[b + L.P_NMIN]))]
        return tuple(sorted(out))

    # -- naming --------------------------------------------------------------------------------------
    def action_key(self, action: int) -> Hashable:
        """Soft key (001 §2.3), an int in ``range(NUM_ACTION_KEYS)``: the card id for a PLAY id (copies in
        different slots share it), ``NUM_CARDS + (id - TARGET)`` for every other decision. A PLAY id naming
        an empty slot gets ``-1 - action``."""
        a = int(action)
        if a < L.TARGET:
            b = L.player_base(int(self.s[L.G_PLAYER]))
            return int(self.s[b + L.P_HAND + a]) if a < self.s[b + L.P_NHAND] else -1 - a
        return L.NUM_CARDS + a - L.TARGET

    def legal_action_keys(self) -> np.ndarray:
        legal = self.legal_actions()
        keys = np.empty(len(legal), dtype=np.int64)
        R.action_keys(self.s, legal, keys)
        return keys

    def _describe(self, a: int) -> str:
        if not 0 <= a < L.NUM_ACTIONS:
            return f"outside 0..{L.NUM_ACTIONS - 1}"
        from .view import action_path

        return ": ".join(action_path(self, a))

    def action_to_string(self, action: int) -> str:
        """A decision as its menu path joined by ": " ("play: Fireball"); a chance outcome as one who sees every
        card sees it ("player 1 draws Fireball")."""
        op = self.pending_op()
        if op is None:
            return self._describe(int(action))
        from .view import outcome_seen

        return outcome_seen(self, op, int(action), None, everything=True)

    def view(self, perspective: int | None) -> View:
        """What ``perspective`` sees (``envs.view``; ``hearth.view``)."""
        from .view import view

        return view(self, perspective)

    def action_path(self, action: int) -> tuple[str, ...]:
        """The menu path of a legal decision (``hearth.view.action_path``)."""
        from .view import action_path

        return action_path(self, int(action))

    def action_seen(self, action: int, perspective: int | None) -> str:
        """How ``perspective`` sees ``action`` applied here, chance outcomes included (``hearth.view``)."""
        from .view import action_seen

        return action_seen(self, int(action), perspective)

    def _summary(self) -> str:
        return f"health={int(self.s[L.player_base(0) + L.P_HP])}/{int(self.s[L.player_base(1) + L.P_HP])}"

"""The Pandemic forward model: ``PandemicGame`` (options and set-up) and ``PandemicState``.

A cooperative game: every seat gets the same return, +1 for the win (four cures), -1 for a loss.
Hands, cubes and discards are public; the order of both decks is hidden from everyone, and
``determinize`` re-randomises it keeping the decks' public structure (003 §1.7). Draws and
infections are explicit chance nodes (see ``rules``).
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from ..compiled_model import CompiledModel
from ..errors import InvalidParameterError, ProtocolError
from ..flat_state import FlatState
from ..kernels import seed_stream
from ..protocol import CHANCE, TERMINAL, GameInfo
from ..structure import ObservationStructure
from ..view import View
from . import layout as L
from . import macro as M
from . import rules as R
from .arrays import add_cubes, blank_state, deal_cards, set_infection_deck, set_player_deck  # noqa: F401 (re-exported)
from .default_policy import play_default
from .board import BOARD, CITY_COLOURS
from .fitness import evaluation
from .model import compiled_model
from .naming import describe_action, describe_chance, describe_macro
from .observation import OBS_LEN, STRUCTURE, observe
from .setup_file import BUNDLED_SETUPS, load_setup
from . import view as views


def _option_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [v for v in value.replace("+", ",").split(",") if v]
    return [str(v) for v in value]


def _as_int(name: str, value: object, allowed: Sequence[int]) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"pandemic option {name} must be one of {list(allowed)}, got {value!r}") from None
    if number not in allowed:
        raise InvalidParameterError(f"pandemic option {name} must be one of {list(allowed)}, got {value!r}")
    return number


class PandemicGame:
    """Pandemic (Z-Man Games) for 2-4 players, as in Sfikas & Liapis 2020 (paper 003) with the official rules.

    players: seats (a ``setup`` fixes them)
    epidemics: epidemic cards, 4 / 5 / 6 for easy / medium / hard (003 §1.4)
    roles: ``paper``: Operations Expert, Medic, Scientist, Researcher, the order of the authors' testbed files
        (what the paper played), the first ``players`` of them; ``paper_text``: the order of the paper's text
        (003 §1.3), Researcher before Scientist; ``random``: drawn each game from those four (the paper's
        P_rand); ``random_all``: from all six; or ``players`` distinct role names joined by ``+``
        (operations_expert, medic, researcher, scientist, dispatcher, quarantine_specialist)
    setup: a set-up JSON file (``setup_file``) or a bundled testbed set-up by name; it fixes the players,
        roles, hands and both decks
    shuffle_decks: with ``setup``, 1 re-randomises both decks' order with the game's seed (the paper's D_rand)
    infection_rate: ``official`` (the track 2,2,2,3,3,4,4) or ``paper`` (2 / 3 / 4 for 0-3 / 4-5 / 6-7
        epidemics drawn, 003 §4.2)
    hand_size: ``official`` (4 / 3 / 2 cards for 2 / 3 / 4 players) or ``paper`` (2 each, 003 §1.4)
    actions: ``primitive`` (the rules' own actions) or ``macro`` (003 §1.7's macro-actions, what RHEA and the
        default policy plan over)
    rollout: the policy of the ``random_playout`` hook that search rollouts use: ``default_policy`` (the
        paper's hierarchical policy, 003 §2.2) or ``uniform`` (uniformly random legal actions of the layer)
    """

    OPTION_VALUES = {"players": range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1),
                     "epidemics": range(1, L.MAX_EPIDEMICS + 1),
                     "roles": ("paper", "paper_text", "random", "random_all"), "setup": BUNDLED_SETUPS,
                     "shuffle_decks": (0, 1), "infection_rate": ("official", "paper"),
                     "hand_size": ("official", "paper"), "actions": ("primitive", "macro"),
                     "rollout": ("default_policy", "uniform")}
    _ROLE_ORDERS = {"paper": L.PAPER_ROLES, "paper_text": L.PAPER_TEXT_ROLES}

    def __init__(self, players: int = 4, epidemics: int = 4, roles: str | Sequence[str] = "paper",
                 setup: str = "", shuffle_decks: int = 0, infection_rate: str = "official",
                 hand_size: str = "official", actions: str = "primitive", rollout: str = "default_policy"):
        self.epidemics = _as_int("epidemics", epidemics, self.OPTION_VALUES["epidemics"])
        self.shuffle_decks = bool(_as_int("shuffle_decks", shuffle_decks, self.OPTION_VALUES["shuffle_decks"]))
        for name, value in (("infection_rate", infection_rate), ("hand_size", hand_size), ("actions", actions),
                            ("rollout", rollout)):
            if value not in self.OPTION_VALUES[name]:
                raise InvalidParameterError(f"pandemic option {name} must be "
                                            f"{' or '.join(map(repr, self.OPTION_VALUES[name]))}, got {value!r}")
        self.infection_rate, self.hand_size, self.actions = infection_rate, hand_size, actions
        self.rollout = rollout
        self.state_class = PandemicMacroState if actions == "macro" else PandemicState
        self.setup = load_setup(setup) if setup else None
        if self.setup is not None:
            players = len(self.setup.roles)
        self.players = _as_int("players", players, self.OPTION_VALUES["players"])
        self.role_mode, self.roles = self._roles(roles)
        self.cards = BOARD
        self.info = GameInfo(
            name="pandemic",
            num_players=self.players,
            num_actions=M.NUM_MACROS if actions == "macro" else L.NUM_ACTIONS,
            observation_shape=(OBS_LEN,),
            chance="explicit",
            information="imperfect",
            utility="cooperative",
            min_return=-1.0,
            max_return=1.0,
            max_turns=L.MAX_TURNS,
            num_action_keys=M.NUM_MACROS if actions == "macro" else L.NUM_ACTIONS,
            private_information=False,  # hands are public; only the decks' order is hidden, from everyone
            reactions=True,  # a seat given a card over the hand limit discards inside another's turn
        )

    def _roles(self, roles: str | Sequence[str]) -> tuple[str, tuple[int, ...]]:
        names = _option_list(roles)
        if self.setup is not None:
            return "fixed", self.setup.roles
        if len(names) == 1 and names[0] in self._ROLE_ORDERS:
            names = list(self._ROLE_ORDERS[names[0]][:self.players])
        elif names in (["random"], ["random_all"]):
            return names[0], tuple(range(self.players))
        unknown = [r for r in names if r not in L.ROLE_NAMES]
        if unknown or len(names) != self.players or len(set(names)) != len(names):
            raise InvalidParameterError(
                f"pandemic option roles must be paper, paper_text, random, random_all or {self.players} distinct "
                f"role names from {', '.join(L.ROLE_NAMES)}; got {roles!r}")
        return "fixed", tuple(L.ROLE_NAMES.index(r) for r in names)

    # -- set-up -----------------------------------------------------------------------------------------
    def new_state(self, seed: int | np.random.Generator | None = None) -> "PandemicState":
        """A new game: the set-up file's, or the official set-up (003 §1.4) dealt with ``seed``."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        if self.setup is not None:
            state = self.state_class(self, self.setup.array())
            if self.shuffle_decks:
                R.resample(state.s, rng.random(L.STATE_LEN))
            return state
        return self.state_class(self, self._deal(rng))

    def _seat_roles(self, rng: np.random.Generator) -> list[int]:
        if self.role_mode == "random":
            return [int(r) for r in rng.permutation(len(L.PAPER_ROLES))[:self.players]]  # ids 0-3: those four
        if self.role_mode == "random_all":
            return [int(r) for r in rng.permutation(len(L.ROLE_NAMES))[:self.players]]
        return list(self.roles)

    def _deal(self, rng: np.random.Generator) -> np.ndarray:
        """003 §1.4 with the official hand sizes: deal, split the rest into equal piles (larger on top) with one
        epidemic shuffled into each, shuffle the infection deck and infect 9 cities 3/3/3, 2/2/2, 1/1/1."""
        s = blank_state(self.players, self._seat_roles(rng), self.infection_rate == "paper")
        cities = rng.permutation(L.NUM_CITIES)
        per_hand = L.HAND_SIZE_OFFICIAL[self.players] if self.hand_size == "official" else L.HAND_SIZE_PAPER
        base, larger = divmod(L.NUM_CITIES - self.players * per_hand, self.epidemics)  # the larger piles on top
        sizes = np.array([base + 1] * larger + [base] * (self.epidemics - larger), dtype=np.int64)
        pile_orders = np.concatenate([rng.permutation(size + 1) for size in sizes])  # each pile with its epidemic
        deal_cards(s, cities, per_hand, self.players, sizes, pile_orders, rng.permutation(L.NUM_CITIES), CITY_COLOURS)
        return s

    # -- pictures ------------------------------------------------------------------------------------
    def render_ansi(self, state: "PandemicState", perspective: int | None = None) -> str:
        from .render import render_ansi

        return render_ansi(state, perspective)

    def render_rgb(self, state: "PandemicState") -> np.ndarray:
        from .render import render_rgb

        return render_rgb(state)


class PandemicState(FlatState):
    """A Pandemic game state (forward model). See ``cardboard.envs.protocol`` and ``FlatState``."""

    __slots__ = ()
    _BUFFER_LEN = L.BUFFER_LEN
    _PLAYER = L.DECIDER
    _legal_kernel = staticmethod(R.legal_actions)
    _observe_kernel = staticmethod(observe)
    _MACROS = False  # the layer of the uniform rollout

    # -- properties ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        ph = self.s[L.PHASE]
        if ph == L.PH_OVER:
            return TERMINAL
        if ph in L.CHANCE_PHASES:
            return CHANCE
        return int(self.s[L.DECIDER])

    @property
    def turn(self) -> int:
        return int(self.s[L.TURN])

    @property
    def phase(self) -> str:
        """'actions', 'cure_discard', 'limit_discard', 'draw', 'epidemic', 'infect' or 'over'."""
        return L.PHASE_NAMES[self.s[L.PHASE]]

    @property
    def turn_player(self) -> int:
        """The seat whose turn it is (the decider may be another seat, discarding to the hand limit)."""
        return int(self.s[L.PLAYER])

    def is_terminal(self) -> bool:
        return bool(self.s[L.PHASE] == L.PH_OVER)

    def won(self) -> bool:
        return bool(self.s[L.RESULT] == 1)

    def loss_cause(self) -> str:
        """'none' (won or running), 'outbreaks', 'cubes' or 'player_deck' (003 §1.6)."""
        return L.LOSS_NAMES[self.s[L.LOSS]]

    def returns(self) -> np.ndarray:
        return np.full(self.num_players, float(self.s[L.RESULT]))

    def heuristic(self, player: int) -> float:
        """The paper's best evaluation, (f_oa + f_cm) / 2 (003 §5.2.2: cure-ability and the scarcest colour's
        supply), mapped from [0, 1] to [-1, 1]; ±1 at the end."""
        result = int(self.s[L.RESULT])
        if result:
            return float(result)
        return 2.0 * evaluation("oa_cm")(self) - 1.0

    def evaluation(self, name: str):
        """003's state evaluation ``name`` (``fitness``: od, oa, ca, cm, cp, b, pairs, w_ / p_ variants)."""
        return evaluation(name)

    # -- moves --------------------------------------------------------------------------------------
    def _apply_checked(self, a: int) -> int:
        if self.s[L.PHASE] in L.CHANCE_PHASES:
            return self._chance_checked(a)
        return R.apply_checked(self.s, self.cards, a, self._buf, self._n) if 0 <= a < L.NUM_ACTIONS else -1

    def _chance_checked(self, outcome: int) -> int:
        ids, probs = np.empty(L.NUM_CITIES + 1, np.int32), np.empty(L.NUM_CITIES + 1)
        if not 0 <= outcome <= L.EPIDEMIC or not R.chance_checked(self.s, self.cards, outcome, ids, probs):
            return -1
        return self._legal_kernel(self.s, self.cards, self._buf)

    def _illegal_message(self, a: int) -> str:
        if self.s[L.PHASE] in L.CHANCE_PHASES:
            return (f"outcome {a} is not possible at this {self.phase} chance node; possible: "
                    f"{[o for o, _ in self.chance_outcomes()]}")
        return (f"action {a} ({self._describe(a)}) is not legal in phase {self.phase!r} for seat "
                f"{self.current_player}; legal: {self.legal_actions().tolist()}")

    @property
    def primitive(self) -> "PandemicState":
        """This position with the rules' own actions (a copy)."""
        return PandemicState(self.game, self.s.copy())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.s[L.PHASE] not in L.CHANCE_PHASES:
            raise ProtocolError(f"chance_outcomes() at a {self.phase} node, not a chance node")
        ids, probs = np.empty(L.NUM_CITIES + 1, np.int32), np.empty(L.NUM_CITIES + 1)
        n = R.chance_outcomes(self.s, self.cards, ids, probs)
        return [(int(ids[i]), float(probs[i])) for i in range(n)]

    def sample_chance(self, rng: np.random.Generator) -> int:
        """The next card of the stored (hidden) order (``rng`` unused), or a uniform one from a group no order has
        been drawn for yet (a stack put back by an epidemic), ``int(rng.random() * n)`` of the ``n`` outcomes: a
        draw by ``chance_outcomes``' probabilities (the compiled model's ``sample_chance`` replays it)."""
        if self.s[L.PHASE] not in L.CHANCE_PHASES:
            raise ProtocolError(f"sample_chance() at a {self.phase} node, not a chance node")
        outcome = int(R.next_outcome(self.s))
        if outcome >= 0:
            return outcome
        outcomes = self.chance_outcomes()
        return outcomes[int(rng.random() * len(outcomes))][0]

    def settle_chance(self, rng: np.random.Generator) -> None:
        """Resolve chance in place (``sample_chance`` at every node) until a decision or the end."""
        ids, probs = np.empty(L.NUM_CITIES + 1, np.int32), np.empty(L.NUM_CITIES + 1)
        R.settle(self.s, self.cards, ids, probs, seed_stream(rng))
        self._forget_legal()

    def random_playout(self, rng: np.random.Generator, max_turns: int | None = None) -> int:
        """Play, compiled, to the end or for ``max_turns`` player turns by the game's ``rollout`` policy: the
        default policy (003 §2.2, whole macros) or uniformly random legal actions of the state's layer; chance
        by ``sample_chance``. Returns the decisions made."""
        limit = L.MAX_TURNS + 1 if max_turns is None else self.turn + max_turns
        self._forget_legal()
        if self.game.rollout == "default_policy":
            return int(play_default(self.s, self.cards, self._buf, seed_stream(rng), limit))
        return int(M.random_playout(self.s, self.cards, self._buf, seed_stream(rng), limit, self._MACROS))

    def compiled_model(self) -> CompiledModel:
        """This state's array and the rules kernels as a ``CompiledModel`` (``model``): UCT, ISMCTS and DUCT run
        whole iterations compiled, on the state's action layer, with the game's rollout policy."""
        return compiled_model(self.s, self.cards, self._MACROS, self.game.rollout == "default_policy")

    def observation_structure(self) -> ObservationStructure:
        """The named parts of ``observation(p)`` (``envs.structure``): per-city features over the drive /
        ferry map, the rest as globals."""
        return STRUCTURE

    # -- information ---------------------------------------------------------------------------------
    def determinize(self, player: int, rng: np.random.Generator) -> "PandemicState":
        """003 §1.7's structured determinization: the unseen city cards dealt afresh into the player deck's
        piles (sizes and remaining epidemics kept), every infection-deck group (an epidemic's stack stays
        above the older cards) shuffled on its own, from ``rng.random(rules.RESAMPLE_DRAWS)``. Everything else is
        public and kept."""
        self._check_player(player)
        det = self.clone()
        R.resample(det.s, rng.random(R.RESAMPLE_DRAWS))
        return det

    def card_multiset(self) -> tuple:
        """Every player card (hands, deck, discard; epidemics as 48) and infection card (deck, discard, as
        100 + city), sorted: determinize conserves it."""
        s = self.s
        cards = [L.EPIDEMIC] * int(s[L.EPIDEMICS_DRAWN])
        cards += [int(c) for c in s[L.PDECK + s[L.PTOP]:L.PDECK + s[L.PEND]]]
        cards += np.flatnonzero(s[L.PDISCARD:L.PDISCARD + L.NUM_CITIES]).tolist()
        for p in range(self.num_players):
            cards += np.flatnonzero(s[L.HAND + p * L.NUM_CITIES:L.HAND + (p + 1) * L.NUM_CITIES]).tolist()
        cards += [100 + int(c) for c in s[L.IDECK + s[L.ITOP]:L.IDECK + s[L.IBOT]]]
        cards += (100 + np.flatnonzero(s[L.IDISCARD:L.IDISCARD + L.NUM_CITIES])).tolist()
        return tuple(sorted(cards))

    # -- naming --------------------------------------------------------------------------------------
    def action_key(self, action: int) -> Hashable:
        """The action id itself: no id depends on hidden information."""
        return int(action)

    def legal_action_keys(self) -> np.ndarray:
        return self.legal_actions().astype(np.int64)

    def _describe(self, a: int) -> str:
        return describe_action(a, self.s)

    def action_to_string(self, action: int) -> str:
        """The action in words; at a chance node the outcome (``naming.describe_chance``: "seat 0 draws an
        epidemic"), never an action id of the same number."""
        if self.s[L.PHASE] in L.CHANCE_PHASES:
            return describe_chance(int(action), self.s)
        return self._describe(int(action))

    # -- views (``envs.view``, built on demand: ``view`` module) -----------------------------------------
    _path = staticmethod(views.primitive_path)

    def view(self, perspective: int | None) -> View:
        return views.pandemic_view(self, perspective)

    def action_path(self, action: int) -> tuple[str, ...]:
        return self._path(self.s, int(action))

    def action_seen(self, action: int, perspective: int | None) -> str | None:
        return views.action_seen(self, int(action), perspective)

    def _summary(self) -> str:
        s = self.s
        return (f"cured={''.join('BYKR'[k] if s[L.CURED + k] else '-' for k in range(4))}, "
                f"outbreaks={int(s[L.OUTBREAKS])}, epidemics={int(s[L.EPIDEMICS_DRAWN])}, "
                f"player_deck={int(s[L.PEND] - s[L.PTOP])}")


class PandemicMacroState(PandemicState):
    """A Pandemic state whose actions are 003 §1.7's macro-actions (``macro``); chance, observation and
    determinization are the primitive state's."""

    __slots__ = ()
    _BUFFER_LEN = max(L.BUFFER_LEN, M.NUM_MACROS)
    _legal_kernel = staticmethod(M.macro_legal)
    _MACROS = True

    def _apply_checked(self, a: int) -> int:
        if self.s[L.PHASE] in L.CHANCE_PHASES:
            return self._chance_checked(a)
        return M.macro_apply_checked(self.s, self.cards, a, self._buf, self._n) if 0 <= a < M.NUM_MACROS else -1

    _path = staticmethod(views.macro_path)

    def _describe(self, a: int) -> str:
        return describe_macro(a, self.s)

"""Any registered cardboard game as an OpenSpiel Python game, so OpenSpiel's own algorithms run on it.

    import pyspiel
    from cardboard.openspiel_export import register
    game = pyspiel.load_game(register("hearth", decks="handlock"))   # "cardboard_hearth_decks-handlock"

``register(name, **options)`` registers the game under the short name ``cardboard_<name>``, the options folded
in as ``_<key>-<value>`` (sorted by key; a list's items joined by ``+``; characters other than letters, digits
and ``_.+-`` become ``-``). The options are fixed per short name; register again to get another variant.
``open_spiel`` is optional: it is imported inside the functions, and a missing one raises
``OpenSpielMissingError``.

How the protocol maps to OpenSpiel:

* Deal. ``new_state(seed)`` deals in one call, so a game with chance (``info.chance != "none"``) starts with
  a chance node over ``deal_seeds`` equally likely seeds (the OpenSpiel game parameter, ``DEAL_SEEDS`` by
  default: ``pyspiel.load_game("cardboard_demo_tricks", {"deal_seeds": 50})``); outcome ``k`` is
  ``new_state(k)``. A game whose start does not depend on the seed gets identical subtrees (use
  ``deal_seeds=1``). A game without chance starts at ``new_state(0)``.
* Chance outcomes. Our explicit chance nodes keep their outcome ids as OpenSpiel actions.
  ``max_chance_outcomes`` is ``max(deal_seeds, CHANCE_IDS)``; an id at or above it raises ``ProtocolError``.
* Length. ``max_game_length`` (decisions, chance excluded) is ``(info.max_turns + 1) * DECISIONS_PER_TURN``:
  an assumed bound on decisions per turn (measured at most 14 in Hearth, 3 in Lords of War), not enforced.
* Types. Sequential; explicit stochastic with chance, else deterministic; perfect or imperfect information
  as ``info.information``; zero-sum / general-sum / identical (``"cooperative"``); terminal rewards.
* Observations. The observation tensor is ``state.observation(player)`` (``private_info=ALL_PLAYERS``:
  ``perfect=True``); its string is a 128-bit BLAKE2b digest of the tensor's bytes. Our observation is
  Markov (what the player sees now), so the information state string is made perfect-recall: the player's
  own past decisions, each as (digest of what it saw then, action it took), then the digest of what it
  sees now. There is no information state tensor (its length would grow with the game).
* Action strings are ours with the id appended (``deploy Orc Rangers to b3 #17``): OpenSpiel wants them
  distinct, and two copies of a card in hand read alike.
* ``resample_from_infostate(player, sampler)`` is our ``determinize`` seeded from the sampler (OpenSpiel's
  ISMCTS uses it). The other players' recorded decisions are dropped in the sample (they were the true
  world's), and ``history()`` stays the true one.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

from cardboard import registry
from cardboard.envs.errors import CardboardError, InvalidParameterError, ProtocolError
from cardboard.envs.protocol import CHANCE, Game

DEAL_SEEDS = 1000
CHANCE_IDS = 1024
DECISIONS_PER_TURN = 50
PREFIX = "cardboard_"
_REGISTERED: dict[str, tuple[str, tuple]] = {}  # short name -> (cardboard name, sorted options)


class OpenSpielMissingError(CardboardError, ImportError):
    """``open_spiel`` is not installed (it comes with the ``dev`` and ``bench`` extras)."""


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError as exc:
        raise OpenSpielMissingError("the OpenSpiel export needs open_spiel: pip install 'cardboard[dev]' "
                                    f"(or open_spiel); import failed: {exc}") from None
    return pyspiel


def short_name(name: str, **options: Any) -> str:
    """The OpenSpiel short name ``register(name, **options)`` uses."""
    parts = [name]
    for key, value in sorted(options.items()):
        text = "+".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        parts.append(f"{key}-{text}")
    return PREFIX + re.sub(r"[^A-Za-z0-9_.+-]", "-", "_".join(parts))


def digest(observation: np.ndarray) -> str:
    """A 128-bit hex digest of an observation's bytes (the observation strings)."""
    return hashlib.blake2b(np.ascontiguousarray(observation).tobytes(), digest_size=16).hexdigest()


def register(name: str, **options: Any) -> str:
    """Register cardboard game ``name`` (with ``options``) with OpenSpiel; returns its short name.

    Registering the same game and options again returns the same name; another game or options that fold to
    a taken name raise ``InvalidParameterError``."""
    pyspiel = _pyspiel()
    short = short_name(name, **options)
    spec = (name, tuple(sorted((k, repr(v)) for k, v in options.items())))
    if short in _REGISTERED:
        if _REGISTERED[short] != spec:
            raise InvalidParameterError(f"OpenSpiel name {short!r} is taken by {_REGISTERED[short]}, not {spec}")
        return short
    if short in pyspiel.registered_names():
        raise InvalidParameterError(f"OpenSpiel already has a game named {short!r}")
    game = registry.make_game(name, **options)
    game_type = _game_type(pyspiel, game, short)
    pyspiel.register_game(game_type, _game_class(pyspiel, game, game_type))
    _REGISTERED[short] = spec
    return short


def _game_type(pyspiel: Any, game: Game, short: str) -> Any:
    info, t = game.info, pyspiel.GameType
    utility = {"zero_sum": t.Utility.ZERO_SUM, "general_sum": t.Utility.GENERAL_SUM,
               "cooperative": t.Utility.IDENTICAL}[info.utility]
    chance = info.chance != "none"
    return t(short_name=short, long_name=f"cardboard {info.name}", dynamics=t.Dynamics.SEQUENTIAL,
             chance_mode=t.ChanceMode.EXPLICIT_STOCHASTIC if chance else t.ChanceMode.DETERMINISTIC,
             information=(t.Information.IMPERFECT_INFORMATION if info.information == "imperfect"
                          else t.Information.PERFECT_INFORMATION),
             utility=utility, reward_model=t.RewardModel.TERMINAL, max_num_players=info.num_players,
             min_num_players=info.num_players, provides_information_state_string=True,
             provides_information_state_tensor=False, provides_observation_string=True,
             provides_observation_tensor=True, parameter_specification={"deal_seeds": DEAL_SEEDS} if chance else {})


class _Inner:
    """Our state (None before the deal) and every player's recorded decisions; OpenSpiel's Clone deep-copies it."""

    def __init__(self, state: Any, memory: tuple[tuple[str, ...], ...]):
        self.state, self.memory = state, memory

    def __deepcopy__(self, memo: dict) -> "_Inner":
        state = None if self.state is None else self.state.clone()
        return _Inner(state, self.memory)  # the memory's tuples are immutable: shared


def _game_class(pyspiel: Any, cardboard_game: Game, game_type: Any) -> type:
    """The ``pyspiel.Game`` subclass of one registered cardboard game (its state and observer classes too)."""
    info = cardboard_game.info

    class CardboardGame(pyspiel.Game):
        def __init__(self, params: dict | None = None):
            params = dict(params or {})
            self.deal_seeds = int(params.get("deal_seeds", 0))
            if game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC and self.deal_seeds < 1:
                raise InvalidParameterError(f"deal_seeds must be >= 1, got {self.deal_seeds}")
            game_info = pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=max(self.deal_seeds, CHANCE_IDS) if self.deal_seeds else 0,
                num_players=info.num_players, min_utility=info.min_return, max_utility=info.max_return,
                utility_sum=0.0 if info.utility == "zero_sum" else None,
                max_game_length=(info.max_turns + 1) * DECISIONS_PER_TURN)
            super().__init__(game_type, game_info, params)

        def new_initial_state(self) -> "CardboardState":
            return CardboardState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> "Observer":
            return Observer(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    class CardboardState(pyspiel.State):
        """Our forward-model state behind OpenSpiel's state API (``self.inner.state``; None before the deal)."""

        def __init__(self, game: CardboardGame):
            super().__init__(game)
            state = None if game.deal_seeds else cardboard_game.new_state(0)
            self.inner = _Inner(state, ((),) * info.num_players)
            self._deal_seeds = game.deal_seeds

        def current_player(self) -> int:
            state = self.inner.state
            if state is None or state.current_player == CHANCE:
                return pyspiel.PlayerId.CHANCE
            return pyspiel.PlayerId.TERMINAL if state.is_terminal() else int(state.current_player)

        def _legal_actions(self, player: int) -> list[int]:
            return [int(a) for a in self.inner.state.legal_actions()]

        def chance_outcomes(self) -> list[tuple[int, float]]:
            if self.inner.state is None:
                return [(k, 1.0 / self._deal_seeds) for k in range(self._deal_seeds)]
            outcomes = [(int(o), float(p)) for o, p in self.inner.state.chance_outcomes()]
            bound = self.get_game().max_chance_outcomes()
            if any(o >= bound for o, _ in outcomes):
                raise ProtocolError(f"game {info.name!r}: a chance outcome id >= {bound} (max_chance_outcomes) "
                                    f"in {[o for o, _ in outcomes]}")
            return outcomes

        def _apply_action(self, action: int) -> None:
            inner = self.inner
            if inner.state is None:
                inner.state = cardboard_game.new_state(int(action))
                return
            player = inner.state.current_player
            if player >= 0:
                seen = digest(inner.state.observation(player))
                inner.memory = tuple(m + (f"{seen}>{action}",) if p == player else m
                                     for p, m in enumerate(inner.memory))
            inner.state.apply(int(action))

        def _action_to_string(self, player: int, action: int) -> str:
            if player == pyspiel.PlayerId.CHANCE:
                return f"deal seed {action}" if self.inner.state is None else f"chance outcome {action}"
            return f"{self.inner.state.action_to_string(int(action))} #{action}"  # unique among the legal

        def is_terminal(self) -> bool:
            return self.inner.state is not None and bool(self.inner.state.is_terminal())

        def returns(self) -> list[float]:
            if self.inner.state is None:
                return [0.0] * info.num_players
            return [float(r) for r in self.inner.state.returns()]

        def resample_from_infostate(self, player: int, probability_sampler: Any) -> "CardboardState":
            """A world drawn by our ``determinize(player, ...)``, seeded from ``probability_sampler()``."""
            world = self.clone()
            rng = np.random.default_rng(int(probability_sampler() * 2**63))
            world.inner.state = self.inner.state.determinize(player, rng)
            world.inner.memory = tuple(m if p == player else () for p, m in enumerate(self.inner.memory))
            return world

        def __str__(self) -> str:
            if self.inner.state is None:
                return f"{info.name}: before the deal"
            return cardboard_game.render_ansi(self.inner.state)

    class Observer:
        """PyObserver: ``tensor`` / ``dict`` from ``observation(player[, perfect])``; strings as digests."""

        def __init__(self, iig_obs_type: Any, params: dict | None):
            if params:
                raise InvalidParameterError(f"observation parameters are not supported, got {params}")
            private = iig_obs_type.private_info
            self.perfect = private == pyspiel.PrivateInfoType.ALL_PLAYERS
            self.recall = iig_obs_type.perfect_recall
            if info.information == "imperfect" and (not iig_obs_type.public_info or (self.recall and self.perfect)
                                                    or private == pyspiel.PrivateInfoType.NONE):
                raise InvalidParameterError(
                    f"game {info.name!r}: observation type {iig_obs_type} is not supported (public info with the "
                    "player's private info, perfect recall or not; or all players' private info without recall)")
            self.tensor = None if self.recall else np.zeros(int(np.prod(info.observation_shape)), np.float32)
            self.dict = {} if self.recall else {"observation": self.tensor.reshape(info.observation_shape)}

        def _observation(self, state: CardboardState, player: int) -> np.ndarray | None:
            inner = state.inner.state
            return None if inner is None else inner.observation(player, perfect=self.perfect)

        def set_from(self, state: CardboardState, player: int) -> None:
            observation = self._observation(state, player)
            if observation is None:
                self.tensor.fill(0.0)
            else:
                self.tensor[:] = observation.ravel()

        def string_from(self, state: CardboardState, player: int) -> str:
            observation = self._observation(state, player)
            now = "deal" if observation is None else digest(observation)
            if not self.recall:
                return now
            return " ".join((f"p{player}", *state.inner.memory[player], now))

    return CardboardGame

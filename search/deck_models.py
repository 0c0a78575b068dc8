"""Deck models for hidden decklists (the ``deckmodel=`` knob of ismcts / duct / pimc; ``protocol``'s "Hidden
decklists"): what the worlds deal the opponent's unseen cards from.

- ``uniform``: the game's own model (uniform over the cards the opponent may legally play);
- ``oracle``: the opponent's true unseen cards, read from the true state (``hidden_cards``; the ceiling, a
  research tool as ``accuracy=`` is);
- ``predict`` / ``predict:VARIANT``: a deck predictor's decklist (``PredictedDeck``), from the predictor builder the
  agent is handed (``Extensions.deck_predictor``: paper 000's; search imports no paper).

A ``DeckWorlds`` is the ``SearchConfig.determinizer`` that calls ``determinize(..., deck_model=M)``;
``check_deck_worlds`` refuses a game without the hooks or with open decklists when the agent is built.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import DeckModel, GameState, determinize, require_hooks

MODELS = ("uniform", "oracle", "predict")


class DeckPredictor(Protocol):
    """A deck predictor: a full predicted decklist containing the cards observed, and a score per card."""

    def predict(self, observed: Mapping[Any, int], size: int) -> Counter: ...

    def scores(self, observed: Mapping[Any, int]) -> dict[Any, float]: ...


PredictorBuilder = Callable[..., DeckPredictor]  # ``build(game_name, variant)``, or ``build(game_name)``: its default


@dataclass
class PredictedDeck:
    """Deals the opponent's unseen cards from the predicted decklist less the cards seen, in random order; when
    the prediction runs short (it holds fewer unseen cards than needed), the rest is drawn with replacement by the
    predictor's scores. The prediction and scores are cached per distinct seen multiset: a decision's many
    worlds share one."""

    predictor: DeckPredictor
    _cache: dict[tuple, tuple[list, np.ndarray | None, list]] = field(default_factory=dict, repr=False)

    def sample(self, seen: Counter, count: int, rng: np.random.Generator) -> list:
        key = (tuple(sorted(seen.items())), count)
        if key not in self._cache:
            deck = Counter(self.predictor.predict(dict(seen), sum(seen.values()) + count))
            rest = list((deck - seen).elements())
            cards, p = [], None
            if len(rest) < count:
                scores = {c: s for c, s in self.predictor.scores(dict(seen)).items() if s > 0}
                cards = sorted(scores, key=str)
                p = np.array([scores[c] for c in cards], dtype=float)
                p /= p.sum()
            self._cache[key] = (rest, p, cards)
        rest, p, cards = self._cache[key]
        if len(rest) >= count:
            return [rest[i] for i in rng.choice(len(rest), size=count, replace=False)]
        return rest + [cards[i] for i in rng.choice(len(cards), size=count - len(rest), p=p)]


class TrueDeck:
    """The oracle: the opponent's true unseen cards (given them at construction), in random order."""

    def __init__(self, cards: list):
        self.cards = cards

    def sample(self, seen: Counter, count: int, rng: np.random.Generator) -> list:
        return [self.cards[i] for i in rng.permutation(len(self.cards))]


class _Probe:
    """A deck model that stops ``determinize`` when it is consulted (``check_deck_worlds``)."""

    class Reached(Exception):
        pass

    def sample(self, seen: Counter, count: int, rng: np.random.Generator) -> list:
        raise self.Reached


@dataclass
class DeckWorlds:
    """A determinizer: worlds dealt by the deck model ``kind`` (``MODELS``): ``uniform`` passes None (the game's
    own model), ``oracle`` a ``TrueDeck`` of the state's truth, ``predict`` a ``PredictedDeck`` of the predictor
    ``build`` makes (its ``variant``; '': its default), one per game, built on first use."""

    kind: str
    variant: str = ""
    build: PredictorBuilder | None = field(default=None, repr=False)
    _models: dict[str, PredictedDeck] = field(default_factory=dict, repr=False)

    def model_for(self, game_name: str) -> PredictedDeck:
        """``predict``'s deck model for the game ``game_name``."""
        if game_name not in self._models:
            if self.build is None:
                raise InvalidParameterError("deckmodel=predict needs a deck predictor: build the agent through "
                                            "cardboard.make_agent, which hands it paper 000's")
            args = (game_name, self.variant) if self.variant else (game_name,)
            self._models[game_name] = PredictedDeck(self.build(*args))
        return self._models[game_name]

    def __call__(self, state: GameState, player: int, rng: np.random.Generator) -> GameState:
        if self.kind == "oracle":
            model: DeckModel | None = TrueDeck(state.hidden_cards(player))
        else:
            model = self.model_for(state.info.name) if self.kind == "predict" else None
        return determinize(state, player, rng, deck_model=model)


HOOKS_OF = {"uniform": ("deck_model",), "oracle": ("deck_model", "hidden_cards"),
            "predict": ("deck_model", "seen_cards")}


def deck_worlds(spec: str, predictor: PredictorBuilder | None = None) -> DeckWorlds:
    """The determinizer of ``deckmodel=SPEC``: ``uniform``, ``oracle``, ``predict`` or ``predict:VARIANT``
    (``predictor``: what builds ``predict``'s predictor)."""
    kind, _, variant = spec.partition(":")
    if kind not in MODELS or (variant and kind != "predict"):
        raise InvalidParameterError(f"deckmodel={spec}: expected uniform, oracle, predict or predict:VARIANT")
    return DeckWorlds(kind, variant, predictor)


def check_deck_worlds(worlds: DeckWorlds, game: Any, knob: str) -> None:
    """Refuse (``InvalidParameterError`` naming ``knob``) a game whose states lack the hooks ``worlds`` needs, or
    whose determinize refuses a deck model (open decklists); build ``predict``'s model now."""
    require_hooks(game, {knob: HOOKS_OF[worlds.kind]})
    try:
        game.new_state(0).determinize(0, np.random.default_rng(0), deck_model=_Probe())
    except _Probe.Reached:
        pass
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{knob}: {error}") from None
    if worlds.kind == "predict":
        worlds.model_for(game.info.name)

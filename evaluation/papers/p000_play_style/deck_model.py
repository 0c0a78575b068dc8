"""``deckmodel=predict[:VARIANT]``'s predictor (search's ``deck_models``; the registry hands ``predictor`` to the
searches as ``Extensions.deck_predictor``): chapter 6's deck predictor
(``deck_prediction.predictor_for``) dealing the opponent's unseen cards of ISMCTS / DUCT / PIMC's worlds under hidden
decklists. The predictor speaks integer card ids (``deck_prediction.deck_rules``); ``GameIds`` translates a game
whose states name cards by text (Fifth Aeon). The registry imports this module, and the predictor is loaded, only
when an agent asks for it."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any


TEXT_IDS = ("fifth_aeon",)  # games whose states name cards by their id text


class GameIds:
    """A predictor over integer ids seen through the game's text ids ``ids`` (``DeckRules.ids``)."""

    def __init__(self, predictor: Any, ids: tuple[str, ...]):
        self.predictor = predictor
        self.ids = ids
        self.index = {c: i for i, c in enumerate(ids)}

    def _ints(self, observed: Mapping[str, int]) -> dict[int, int]:
        return {self.index[c]: n for c, n in observed.items()}

    def predict(self, observed: Mapping[str, int], size: int) -> Counter:
        deck = self.predictor.predict(self._ints(observed), size)
        return Counter({self.ids[c]: n for c, n in deck.items()})

    def scores(self, observed: Mapping[str, int]) -> dict[str, float]:
        return {self.ids[c]: s for c, s in self.predictor.scores(self._ints(observed)).items()}


def predictor(game: str, variant: str = "a7") -> Any:
    """The chapter 6 predictor ``variant`` for ``game``, speaking the card ids of the game's states."""
    from .deck_prediction.deck_rules import rules_for
    from .deck_prediction.predictor import predictor_for

    found = predictor_for(game, variant=variant)
    return GameIds(found, rules_for(game).ids) if game in TEXT_IDS else found


"""Paper 001's stand-alone "CNN + greedy" agent (§4.8; issue 18): a card-play network picks the cards, greedy orders.

At a decision where the player can play a card, the network (``CardScorer``, on a determinization of the
player's information set: the network was trained on open-hand states, and a world sampled from what the
player knows is one) scores each card's probability of being played this turn, and the playable card of
highest probability is the one to play: the game's greedy baseline (``greedy_action``: hearth's H(a), §4.7)
then decides between playing it and the other actions (attacks, the hero power: H orders them), picks its
targets, and does not end the turn while it can be played. The network runs again at the next such decision,
so the cards go down in the network's order "until no action is available" (§4.8). Anywhere else (targets,
mulligan, no card playable) the greedy baseline decides alone. 001 does not say whether the network is re-run,
how unplayable cards are masked, whether a threshold stops card play, or how attacks are chosen (notes §2.8):
re-run, playable cards only, no threshold, attacks by H are our choices.

Spec: ``cardplay:path=PATH``. Imports torch when built.
"""
from __future__ import annotations

import numpy as np

from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import Game, GameState, determinize, hook, require_hooks

NEEDED = ("card_play_features", "played_card", "greedy_action")


class CardPlayAgent:
    """001 §4.8's CNN + greedy (see the module).

    path: card-play network checkpoint (cardboard train-card-play)
    """

    name = "cardplay"

    def __init__(self, path: str = "", game: Game | None = None):
        if not path:
            raise InvalidParameterError("cardplay needs path=PATH to a card-play network checkpoint")
        self.path = path
        self.scorer, self.match_up = None, None
        if game is not None:
            self._build(game.new_state(0))

    def _build(self, probe: GameState) -> None:
        from .hlr import load_scorer_for

        require_hooks(probe, {"cardplay": NEEDED})
        self.scorer = load_scorer_for(self.path, probe)
        self.match_up = probe.card_play_features().deck_keys

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        if hook(state, "card_play_features") is None or self.match_up != state.card_play_features().deck_keys:
            self._build(state)  # not built yet, or for another match-up (another game: a clear error)
        playable = [card for card in (state.played_card(int(a)) for a in state.legal_actions()) if card >= 0]
        if not playable:
            return int(state.greedy_action(rng))
        scores = self.scorer(determinize(state, state.current_player, rng))
        top = max(playable, key=lambda card: scores[card])
        return int(state.greedy_action(rng, frozenset((top,))))

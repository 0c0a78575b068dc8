"""Paper 001's network-guided rollouts (HLR, Algorithm 5, §4.8.1) for search, with batched network calls (issue 18).

``CardScorer`` runs a card-play network (``card_play``) on states and answers, per state, the probability that
the player to move plays each card this turn, as a float64 vector indexed by card id (0 for cards without a
column). It is a ``BatchingEvaluator`` (``search.strategies``): states submitted by many rollouts are encoded
in one compiled pass (the game's ``card_play_features().sparse_indices``, the thesis's "send only the hot
indices") and go through the network as one batch at ``flush``.

``HLRRollout`` is a search rollout strategy: at the start of every simulated turn it asks the scorer for the
turn's card scores (one network evaluation per turn, as the thesis) and plays the turn with the game's compiled
``hlr_turn`` (π_h: softmax over the scores with ``tau_high``; π_l: softmax over H(a) with ``tau_low``;
``chi``: the chance of a low-level action when both kinds are available). It is resumable (``steps`` yields
each turn's request), so a search with ``leaves=K`` advances K rollouts together and the world-parallel
DUCT sends one network batch per simulated turn of all of them. Chance inside rollouts is sampled by the
game's own probabilities (``settle_chance``; ``SearchConfig.chance_sampler`` is not used).

Decisions where 001 is silent (notes §5.2 #12): π_h is a softmax over the sigmoid *probabilities* (as written;
τ = 0.4 is sized for values in [0, 1]), over the distinct playable cards (a card held twice is one choice);
scores are those of the turn's start, not renormalised after a card is played.

``duct:...,hlr=PATH`` (and ``ismcts``/``uct``) builds this rollout through ``hlr_strategies``, installed into
``cardboard.search.agents`` by ``cardboard.policies``. Imports torch.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.files import CHECKPOINT_LIMIT, errors_as, sha256
from cardboard.envs.protocol import Game, GameState, require_hooks
from cardboard.search.agents import KNOB_HOOKS
from cardboard.search.batching import Request, Steps, drive
from cardboard.search.mcts import SearchConfig
from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet
from cardboard.policies.evaluator import resolve_device

# 001 §4.8.1 ("based on small-scale experiments")
TAU_HIGH = 0.4  # π_h's softmax temperature over the card-play network's outputs
TAU_LOW = 0.3  # π_l's softmax temperature over H(a)
CHI = 0.5  # chance of a low-level action when both kinds are available


class CardScorer:
    """A card-play network as a batching evaluator: ``state -> float64 [num card ids]`` (see the module).

    ``features``: the game's encoder (``card_play_features()``); the network's K must be its number of columns.
    ``threads``: ``torch.set_num_threads`` (process-wide; None leaves it): search's batches are tens of states,
    too small for intra-op threads, which only contend with a match's other worker processes (measured: 70x
    slower decisions with torch's default threads beside two busy workers on two cores).
    """

    def __init__(self, net: CardPlayNet, features: Any, num_card_ids: int, device: str = "cpu",
                 max_batch: int = 1024, threads: int | None = 1):
        if threads is not None:
            torch.set_num_threads(threads)
        if net.num_cards != features.K:
            raise InvalidParameterError(f"a card-play network over K = {net.num_cards} cards; this match-up's "
                                        f"encoder has K = {features.K} columns")
        self.device = resolve_device(device)
        self.net = net.to(self.device).eval()
        self.features, self.num_card_ids, self.max_batch = features, num_card_ids, max_batch
        self.columns = np.asarray(features.columns, dtype=np.int64)
        self.queue = self
        self._pending: list[GameState] = []
        self._done: dict[int, np.ndarray] = {}
        self._next = 0

    def scores(self, states: list[GameState]) -> np.ndarray:
        """Per-card-id probabilities ``[B, num_card_ids]`` for the player to move of each state (open view:
        a determinized world is a full state)."""
        out = np.zeros((len(states), self.num_card_ids), dtype=np.float64)
        for start in range(0, len(states), self.max_batch):
            chunk = states[start:start + self.max_batch]
            tensors = [torch.from_numpy(a).to(self.device)
                       for a in self.features.encode_batch(chunk, [s.current_player for s in chunk], True)]
            with torch.inference_mode():
                probs = torch.sigmoid(self.net(*tensors)).double().cpu().numpy()
            out[start:start + len(chunk), self.columns] = probs
        return out

    def submit(self, states: list[GameState]) -> tuple[int, int]:
        """Queue states (kept by reference: the caller does not change them before ``collect``)."""
        first = self._next + len(self._pending)
        self._pending.extend(states)
        return first, len(states)

    def flush(self) -> None:
        """Score every queued state in one pass."""
        if not self._pending:
            return
        scored = self.scores(self._pending)
        self._done.update(zip(range(self._next, self._next + len(scored)), scored))
        self._next += len(self._pending)
        self._pending = []

    def collect(self, token: tuple[int, int]) -> list[np.ndarray]:
        first, n = token
        return [self._done.pop(i) for i in range(first, first + n)]

    def __call__(self, state: GameState) -> np.ndarray:
        return self.scores([state])[0]


@dataclass(frozen=True)
class HLRRollout:
    """001 Algorithm 5 as a search rollout (see the module): ``scorer`` gives each simulated turn's card scores."""

    scorer: Any
    tau_high: float = TAU_HIGH
    tau_low: float = TAU_LOW
    chi: float = CHI

    def __post_init__(self) -> None:
        if not (self.tau_high > 0 and self.tau_low > 0 and 0.0 <= self.chi <= 1.0):
            raise InvalidParameterError(f"HLR needs tau_high > 0, tau_low > 0 and chi in [0, 1]; got "
                                        f"{self.tau_high}, {self.tau_low}, {self.chi}")

    def steps(self, state: GameState, rng: np.random.Generator, config: SearchConfig) -> Steps[None]:
        """The rollout in place, for ``config.depth`` turns (None: to the end), yielding each turn's request."""
        limit = None if config.depth is None else state.turn + config.depth
        while True:
            state.settle_chance(rng)
            if state.is_terminal() or (limit is not None and state.turn >= limit):
                return
            (scores,) = yield Request.of(self.scorer, [state])
            state.hlr_turn(scores, rng, self.tau_high, self.tau_low, self.chi)

    def __call__(self, state: GameState, rng: np.random.Generator, config: SearchConfig) -> None:
        drive(self.steps(state, rng, config))


def load_scorer(path: str, game: Game, device: str = "cpu") -> CardScorer:
    """A ``CardScorer`` over the card-play checkpoint at ``path`` for ``game``'s match-up (its K checked); a game
    without the hooks HLR needs (``search.agents.KNOB_HOOKS["hlr"]``) is refused."""
    require_hooks(game, {"hlr=PATH": KNOB_HOOKS["hlr"]})
    return load_scorer_for(path, game.new_state(0), device)


_LOADED: dict[tuple, tuple[str, CardScorer]] = {}  # (file, device, match-up) -> (content hash, scorer)


def load_scorer_for(path: str, state: GameState, device: str = "cpu") -> CardScorer:
    """A ``CardScorer`` over the checkpoint at ``path`` for the match-up of ``state`` (``card_play_features``). One
    per file, device and match-up in a process while the file's bytes stay the same: agents built from the same
    checkpoint share it, so searches run together (``batching.run_together``: games in lock-step) put their
    rollouts' states in one network batch."""
    features = state.card_play_features()
    with errors_as(CheckpointError):
        digest = sha256(path, CHECKPOINT_LIMIT, "checkpoint")
    key = (os.path.realpath(path), device, features.deck_keys)
    found = _LOADED.get(key)
    if found is None or found[0] != digest:
        scorer = CardScorer(CardPlayNet.load(path, num_cards=features.K), features, num_card_ids(state), device)
        found = _LOADED[key] = (digest, scorer)
    return found[1]


def num_card_ids(state: GameState) -> int:
    """The length of the per-card-id score vectors: one past the largest card id the encoder knows."""
    return len(state.card_play_features().column_of)


def hlr_strategies(config: SearchConfig, *, game: Game | None, path: str, chi: float = CHI,
                   device: str = "cpu") -> SearchConfig:
    """``config`` with ``HLRRollout`` over the checkpoint at ``path`` on ``device`` (the ``hlr=`` knob; needs the
    game)."""
    if game is None:
        raise InvalidParameterError("hlr=PATH needs the game to check the network's card pool against")
    if config.depth == 0:
        raise InvalidParameterError("hlr=PATH is a rollout policy: depth must be > 0 (0 evaluates the leaf)")
    return replace(config, rollout=HLRRollout(load_scorer(path, game, device), chi=chi))

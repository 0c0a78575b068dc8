"""The Greedy player of paper 001 §4.7 for the Hearth game: the cost-effect heuristic H(a) (Eqs. 4.1-4.5).

Every legal action is simulated on a copy and the characters' health before and
after are compared::

    H(a)     = value(a) / cost(a)
    value(a) = sum over own characters G(m, a) + sum over enemy characters L(m, a)
    cost(a)  = sum over own characters L(m, a) + a.ManaCost + 1
    L(m, a)  = HpLoss(m, a) * (m.ManaCost + 1) / m.MaxHp
    G(m, a)  = HpGain(m, a) * (m.ManaCost + 1) / m.MaxHp

The player plays the action with the highest H(a), ties broken at random, and
ends its turn when no action has a positive H (``END_TURN`` has H = 0).

Decisions where 001 is silent:

- **Heroes count as characters** with ManaCost ``HERO_MANA_COST`` = 10 (a hero
  is worth the most expensive card) and MaxHp their maximum health (30, 15 as
  Jaraxxus). The thesis sums over minions only, so face damage is worth 0 and
  its Greedy could never close a game; with heroes, 6 damage to a full-health
  hero scores 6 * 11 / 30 = 2.2, less than killing a 5-health, 4-mana minion
  (5 * 5 / 5 = 5), so the player still trades first but goes face otherwise.
- **Deaths and arrivals**: a minion that leaves its side (dies, returns to the
  hand, changes sides) loses all its health; one that arrives on a side
  (summoned, taken over) gains its health (a vanilla minion played for c mana
  scores (c + 1) / (c + 1) = 1). Enemy gains are ignored, as in Eq. 4.2.
  HP loss uses MaxHp before the action, HP gain MaxHp after it (a buff counts).
- **ManaCost** is the mana the action spent (The Coin counts 0, not -1).
  ``PLAY`` of a card that needs a target or a position is scored by its best
  continuation (the diff runs to the state after the target); a target or
  position decision alone adds the pending card's printed cost.
- **Chance**: after the action, chance nodes are resolved with ``samples``
  outcomes drawn with the agent's rng and H is averaged over them.
- **Mulligan**: keep the cards costing at most ``MULLIGAN_KEEP_COST`` = 3,
  replace the others (a curve for the first turns).

The agent decides on ``state.determinize(player, rng)``: it uses only what the
acting player may know.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError
from .layout import (
    END_TURN,
    F_COST,
    G_PENDING_CARD,
    M_CARD,
    M_HP,
    M_HP_AURA,
    M_MAXHP,
    M_UID,
    MULLIGAN,
    P_MANA,
    P_MAXHP,
    P_HP,
    P_NMIN,
    minion_base,
    player_base,
)
from ..protocol import CHANCE, Game, GameState, determinize, sample_chance

HERO_MANA_COST = 10  # a hero counts as a character worth the most expensive card (our choice; 001 leaves heroes out)
MULLIGAN_KEEP_COST = 3  # keep opening cards costing at most this
HERO = -1  # key of a hero in a side's characters (minions are keyed by their uid)
GAME_NAME = "hearth"

Characters = dict[tuple[int, int], tuple[int, int, int]]  # (side, uid | HERO) -> (health, max health, mana cost)


def characters(state: GameState) -> Characters:
    """Every living character of both sides: (side, uid or HERO) -> (health, max health, mana cost)."""
    s, cards = state.s, state.cards
    out: Characters = {}
    for side in (0, 1):
        b = player_base(side)
        out[(side, HERO)] = (int(s[b + P_HP]), int(s[b + P_MAXHP]), HERO_MANA_COST)
        for pos in range(int(s[b + P_NMIN])):
            m = minion_base(side, pos)
            out[(side, int(s[m + M_UID]))] = (int(s[m + M_HP]), int(s[m + M_MAXHP] + s[m + M_HP_AURA]),
                                              int(cards[s[m + M_CARD], F_COST]))
    return out


def h_value(before: Characters, after: Characters, me: int, mana: int) -> float:
    """H(a) of 001 Eq. 4.1 from the characters before and after an action that spent ``mana``."""
    gain = own_loss = enemy_loss = 0.0
    for key, (hp, max_hp, cost) in before.items():
        now = after.get(key)
        delta = (now[0] if now is not None else 0) - hp
        if delta < 0:
            loss = -delta * (cost + 1) / max(max_hp, 1)
            if key[0] == me:
                own_loss += loss
            else:
                enemy_loss += loss
        elif delta > 0 and key[0] == me:
            gain += delta * (cost + 1) / max(now[1], 1)
    for key, (hp, max_hp, cost) in after.items():
        if key[0] == me and key not in before:
            gain += hp * (cost + 1) / max(max_hp, 1)
    return (gain + enemy_loss) / (own_loss + max(mana, 0) + 1)


def _resolve(state: GameState, rng: np.random.Generator) -> None:
    """Sample chance outcomes in place until a decision node or the end."""
    while state.current_player == CHANCE:
        state.apply(sample_chance(state, rng))


class GreedyHAgent:
    """Greedy player of 001 §4.7 on the cost-effect heuristic H(a); see the module docstring."""

    name = "greedy_h"

    def __init__(self, samples: int = 1):
        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples}")
        self.samples = samples

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator, cards: frozenset[int] | None = None) -> int:
        """The action of highest H (see the module). ``cards``: play only these card ids, and do not end the
        turn while one of them can be played (001 §4.8's "CNN + greedy": a network picks the cards, H orders
        them and picks targets and attacks); None: any card."""
        if state.info.name != GAME_NAME:
            raise InvalidParameterError(f"greedy_h plays only {GAME_NAME!r}, not {state.info.name!r}")
        me = state.current_player
        legal = state.legal_actions().copy()
        if state.phase == "mulligan":
            return self._mulligan(state, me, legal)
        if cards is not None and state.phase == "main":
            legal = self._restricted(state, legal, cards)
        if len(legal) == 1:
            return int(legal[0])
        world = determinize(state, me, rng)
        before = characters(world)
        mana = int(world.s[player_base(me) + P_MANA])
        if world.phase in ("target", "position"):
            mana += int(world.cards[world.s[G_PENDING_CARD], F_COST])
        scores = np.array([0.0 if a == END_TURN else self.score(world, int(a), before, mana, me, rng)
                           for a in legal])
        if END_TURN in legal and scores.max() <= 0.0:
            return END_TURN
        best = np.flatnonzero(scores == scores.max())
        return int(legal[best[rng.integers(len(best))]])

    def score(self, world: GameState, action: int, before: Characters, mana: int, me: int,
              rng: np.random.Generator) -> float:
        """H of ``action`` averaged over ``samples`` chance outcomes (best continuation for targets)."""
        total = 0.0
        for _ in range(self.samples):
            child = world.clone()
            child.apply(action)
            _resolve(child, rng)
            total += self._best_continuation(child, before, mana, me, rng)
        return total / self.samples

    def _best_continuation(self, state: GameState, before: Characters, mana: int, me: int,
                           rng: np.random.Generator) -> float:
        if state.current_player == me and state.phase in ("target", "position"):
            best = -np.inf
            for a in state.legal_actions().copy():
                child = state.clone()
                child.apply(int(a))
                _resolve(child, rng)
                best = max(best, self._best_continuation(child, before, mana, me, rng))
            return best
        spent = mana - int(state.s[player_base(me) + P_MANA])
        return h_value(before, characters(state), me, spent)

    @staticmethod
    def _restricted(state: GameState, legal: np.ndarray, cards: frozenset[int]) -> np.ndarray:
        """``legal`` without plays of other cards, and without END_TURN while a play of ``cards`` is left."""
        plays = np.array([state.played_card(int(a)) for a in legal])
        keep = (plays < 0) | np.isin(plays, list(cards))
        if ((plays >= 0) & keep).any():
            keep &= legal != END_TURN
        return legal[keep]

    @staticmethod
    def _mulligan(state: GameState, me: int, legal: np.ndarray) -> int:
        costs = state.hand_costs(me)
        mask = sum(1 << i for i, c in enumerate(costs) if c > MULLIGAN_KEEP_COST)
        return MULLIGAN + mask if MULLIGAN + mask in legal else int(legal[0])


def greedy_h(game: Game | None = None, samples: int = 1) -> GreedyHAgent:
    """hearth only: paper 001's Greedy player on the cost-effect heuristic H(a).

    samples: chance outcomes sampled after an action with a random effect (H is averaged over them)
    """
    if game is not None and game.info.name != GAME_NAME:
        raise InvalidParameterError(f"greedy_h plays only {GAME_NAME!r}, not {game.info.name!r}")
    return GreedyHAgent(samples)

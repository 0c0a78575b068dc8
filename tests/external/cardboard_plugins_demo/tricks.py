"""Trick duel: a two-player hidden-hand card game.

Sixteen cards, values 1-8 in two suits (card ``c``: suit ``c // 8``, value ``c % 8 + 1``, so within a suit
a higher id is a higher card). ``new_state`` shuffles the deck and deals three cards to each player.
Six tricks: the leader plays a card face up, the other player answers with any card in hand; the answer
takes the trick when it is of the led suit and higher, otherwise the leader takes it. After each of the
first three tricks the winner draws a card, then the loser; the winner leads the next trick. Four cards
stay in the deck unseen. More tricks win: returns +1 / -1, 0 / 0 on a 3-3 tie.

Hidden: the opponent's hand and the deck. Action id = the card id played; its key is the same id
(``num_action_keys=16``). Every card played starts a new turn (``turn`` = cards played so far).
"""
from __future__ import annotations

import operator

import numpy as np

from cardboard.api import TERMINAL, GameInfo, IllegalActionError, InvalidParameterError, ProtocolError

NUM_CARDS, VALUES, HAND_SIZE, TRICKS, DRAWING_TRICKS = 16, 8, 3, 6, 3
SUITS = ("red", "blue")
OBS_LEN = 5 * NUM_CARDS + 4


def card_name(card: int) -> str:
    return f"{card % VALUES + 1} {SUITS[card // VALUES]}"


class TrickDuelGame:
    """Trick duel: 2 players, hidden hands of 3 from a shuffled 16-card deck, six tricks."""

    def __init__(self):
        self.info = GameInfo(
            name="demo_tricks", num_players=2, num_actions=NUM_CARDS, observation_shape=(OBS_LEN,),
            chance="setup", information="imperfect", utility="zero_sum", min_return=-1.0, max_return=1.0,
            max_turns=2 * TRICKS, num_action_keys=NUM_CARDS)

    def new_state(self, seed: int | np.random.Generator | None = None) -> TrickDuelState:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        deck = [int(c) for c in rng.permutation(NUM_CARDS)]
        hands = [sorted(deck[:HAND_SIZE]), sorted(deck[HAND_SIZE:2 * HAND_SIZE])]
        return TrickDuelState(self, hands, deck[2 * HAND_SIZE:])

    def render_ansi(self, state: TrickDuelState, perspective: int | None = None) -> str:
        lines = []
        for p in range(2):
            shown = perspective is None or perspective == p
            hand = ", ".join(card_name(c) for c in state.hands[p]) if shown else f"{len(state.hands[p])} cards"
            lines.append(f"player {p}: {state.won[p]} tricks; hand: {hand or '-'}")
        led = card_name(state.led) if state.led >= 0 else "-"
        who = "over" if state.is_terminal() else f"player {state.player} to play"
        lines.append(f"deck: {len(state.deck)} cards; led: {led}; {who}")
        return "\n".join(lines)

    def render_rgb(self, state: TrickDuelState) -> np.ndarray:
        """Four bands of 16 card cells: player 0's hand, player 1's hand, cards played (shaded by who played
        them), the led card; red or blue by suit."""
        image = np.full((40, NUM_CARDS * 10, 3), 255, dtype=np.uint8)
        led = [state.led] if state.led >= 0 else []
        bands = [state.hands[0], state.hands[1], state.played[0] + state.played[1], led]
        for row, cards in enumerate(bands):
            for c in cards:
                colour = (200, 30, 30) if c < VALUES else (30, 30, 200)
                if row == 2 and c in state.played[1]:
                    colour = tuple(x // 2 for x in colour)
                image[row * 10 + 1:row * 10 + 9, c * 10 + 1:c * 10 + 9] = colour
        return image


class TrickDuelState:
    """A trick duel in play (the cardboard forward-model protocol)."""

    def __init__(self, game: TrickDuelGame, hands: list[list[int]], deck: list[int]):
        self.game = game
        self.hands = hands
        self.deck = deck  # the next card drawn is deck[-1]; deck[:4] is never drawn
        self.played: list[list[int]] = [[], []]
        self.won = [0, 0]
        self.led = -1  # the card led in the current trick, or -1
        self.leader = 0
        self.player = 0
        self._turn = 0

    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return NUM_CARDS

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def is_terminal(self) -> bool:
        return sum(self.won) == TRICKS

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(2)
        d = float(np.sign(self.won[0] - self.won[1]))
        return np.array([d, -d])

    def legal_actions(self) -> np.ndarray:
        legal = np.array([] if self.is_terminal() else self.hands[self.player], dtype=np.int64)
        legal.flags.writeable = False
        return legal

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_CARDS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply(self, action: int) -> None:
        try:
            card = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action is a card id, got {action!r}") from None
        if self.is_terminal() or card not in self.hands[self.player]:
            raise IllegalActionError(f"card {card} is not in the hand of the player to move; "
                                     f"legal: {self.legal_actions().tolist()}")
        p = self.player
        self.hands[p].remove(card)
        self.played[p].append(card)
        self._turn += 1
        if self.led < 0:
            self.led, self.leader, self.player = card, p, 1 - p
            return
        beats = card // VALUES == self.led // VALUES and card > self.led
        winner = p if beats else self.leader
        self.won[winner] += 1
        self.led = -1
        if sum(self.won) <= DRAWING_TRICKS:
            for q in (winner, 1 - winner):
                self.hands[q] = sorted(self.hands[q] + [self.deck.pop()])
        self.player = winner

    def clone(self) -> TrickDuelState:
        new = TrickDuelState(self.game, [list(h) for h in self.hands], list(self.deck))
        new.played = [list(x) for x in self.played]
        new.won = list(self.won)
        new.led, new.leader, new.player, new._turn = self.led, self.leader, self.player, self._turn
        return new

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ProtocolError("the trick duel has no chance nodes after the deal")

    def _check_player(self, player: int) -> int:
        if isinstance(player, bool) or player not in (0, 1):
            raise InvalidParameterError(f"player must be 0 or 1, got {player!r}")
        return int(player)

    def determinize(self, player: int, rng: np.random.Generator) -> TrickDuelState:
        """The opponent's hand and the deck order resampled from the cards ``player`` has not seen."""
        other = 1 - self._check_player(player)
        det = self.clone()
        unseen = [int(c) for c in rng.permutation(det.hands[other] + det.deck)]
        n = len(det.hands[other])
        det.hands[other], det.deck = sorted(unseen[:n]), unseen[n:]
        return det

    def observation(self, player: int, perfect: bool = False) -> np.ndarray:
        """One-hot card planes (own hand, own played, opponent played, led card, opponent hand when
        ``perfect``), then own and opponent tricks / 6, deck size / 16, and 1 when ``player`` is to move."""
        p = self._check_player(player)
        obs = np.zeros(OBS_LEN, dtype=np.float32)
        planes = [self.hands[p], self.played[p], self.played[1 - p], [self.led] if self.led >= 0 else [],
                  self.hands[1 - p] if perfect else []]
        for k, cards in enumerate(planes):
            obs[[k * NUM_CARDS + c for c in cards]] = 1.0
        obs[-4:] = (self.won[p] / TRICKS, self.won[1 - p] / TRICKS, len(self.deck) / NUM_CARDS,
                    float(self.current_player == p))
        return obs

    def action_key(self, action: int) -> int:
        return int(action)

    def action_to_string(self, action: int) -> str:
        return f"play {card_name(int(action))}"

    def heuristic(self, player: int) -> float:
        """Tricks ahead / 6 (the result at the end)."""
        p = self._check_player(player)
        if self.is_terminal():
            return float(self.returns()[p])
        return (self.won[p] - self.won[1 - p]) / TRICKS

    # optional hooks (cardboard.api.HOOKS)
    def state_key(self) -> tuple:
        return (tuple(map(tuple, self.hands)), tuple(self.deck), tuple(map(tuple, self.played)), tuple(self.won),
                self.led, self.leader, self.player, self._turn)

    def card_multiset(self) -> tuple:
        return tuple(sorted(self.hands[0] + self.hands[1] + self.deck + self.played[0] + self.played[1]))

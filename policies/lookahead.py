"""Turn-level look-ahead over the forward-model protocol: a stand-in for Silverfish's 1- and 3-turn search.

Silverfish (paper 001 §2.1) enumerates end-of-turn move sequences, scores the
end states with its evaluation and, with its 3-turn look-ahead, runs a
turn-level minimax over the opponent's replies. ``LookaheadAgent`` does the
same on any game of the suite with ``state.heuristic`` as the evaluation:

- **One turn** (``turn_beam``): a beam search over the acting player's atomic
  moves. Every state of the beam is expanded with all its legal actions; a
  child whose turn is over (the game ended, or the next decision belongs to
  another turn or player) completes a sequence; the other children are ranked
  by ``heuristic(me)`` and the best ``width`` distinct ones (equal perfect
  observations count once) form the next beam. Chance nodes met on the way are
  sampled with the agent's rng; with ``samples`` > 1 a child's value is the
  mean over that many sampled outcomes (the search goes on from the first).
  A turn stops growing after ``MAX_TURN_MOVES`` moves; the beam states left
  then count as sequences.
- **Three turns** (``turns=3``): the best ``branch`` own sequences (by their
  end state's heuristic) are each answered by the opponent's best ``branch``
  replies (the same beam, maximising the opponent's heuristic), each followed
  by the acting player's best next turn; an own sequence is worth the minimum
  over the replies of that best next-turn value (turn-level minimax), and the
  sequence with the highest worth is chosen. The own sequences are compared
  with common random numbers: each meets the same stream of chance outcomes
  from the end of its turn on (the opponent's draw, their replies' chance,
  our next draw), so they differ by their moves rather than by their luck
  (without it, 3 turns did no better than 1 on the Mech Mage mirror).

Everything is searched on one ``state.determinize(me, rng)`` per plan, so the
agent uses only what the acting player may know. The first action of the best
sequence is played and the rest of the sequence is kept as a plan: the next
decision follows it while the player's observation is the one the plan
predicted (the same turn, no chance outcome or hidden card that differs);
otherwise it plans again. Ties keep the earlier sequence (legal-action order),
so a decision is a function of the state and the rng.

Work per plan: at most ``MAX_TURN_MOVES * width`` expanded states per turn
search (each expands every legal action: ``samples`` clones, applies and
heuristic calls per child), and 1 turn search for ``turns=1``, ``1 + branch +
branch ** 2`` for ``turns=3``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..envs.errors import InvalidParameterError
from ..envs.protocol import CHANCE, GameState, determinize, sample_chance

MAX_TURN_MOVES = 40  # atomic moves in one turn before the beam is cut (a guard; real turns are shorter)


@dataclass
class Line:
    """A move sequence of one turn: its actions, the state right after the last action (``pending``: a
    chance node when chance follows), the state reached once that chance is sampled, and its value."""

    actions: tuple[int, ...]
    pending: GameState
    state: GameState
    value: float


def _resolve(state: GameState, rng: np.random.Generator) -> None:
    """Sample chance outcomes in place until a decision node or the end."""
    while state.current_player == CHANCE:
        state.apply(sample_chance(state, rng))


def _key(state: GameState, player: int) -> bytes:
    return state.observation(player, perfect=True).tobytes()


def turn_beam(state: GameState, rng: np.random.Generator, width: int, samples: int = 1) -> list[Line]:
    """The turn sequences of ``state.current_player`` found by a beam of ``width``, best first.

    Values are ``heuristic(player)`` of the end states (averaged over ``samples`` sampled chance
    outcomes); each line's state is the first sample. Sequences reaching the same state count once.
    """
    me, turn = state.current_player, state.turn
    beam = [Line((), state, state, 0.0)]
    done: dict[bytes, Line] = {}
    for _ in range(MAX_TURN_MOVES):
        grown: dict[bytes, Line] = {}
        for line in beam:
            for action in line.state.legal_actions().copy():
                line_after = _child(line, int(action), me, rng, samples)
                child = line_after.state
                if child.is_terminal() or child.turn != turn or child.current_player != me:
                    done.setdefault(_key(line_after.pending, me), line_after)
                else:
                    grown.setdefault(_key(child, me), line_after)
        beam = sorted(grown.values(), key=lambda ln: -ln.value)[:width]
        if not beam:
            break
    for line in beam:  # cut by MAX_TURN_MOVES: the states reached count as sequences
        done.setdefault(_key(line.state, me), line)
    return sorted(done.values(), key=lambda ln: -ln.value)


def _child(line: Line, action: int, me: int, rng: np.random.Generator, samples: int) -> Line:
    """``line`` extended by ``action``, its chance sampled ``samples`` times (the first sample is kept)."""
    pending = line.state.clone()
    pending.apply(action)
    first, total = None, 0.0
    for _ in range(samples):
        child = pending
        if pending.current_player == CHANCE:
            child = pending.clone()
            _resolve(child, rng)
        total += child.heuristic(me)
        if first is None:
            first = child
    return Line(line.actions + (action,), pending, first, total / samples)


class LookaheadAgent:
    """Turn-level look-ahead (1 or 3 turns) with a beam over atomic moves; see the module docstring."""

    name = "lookahead"

    def __init__(self, turns: int = 1, width: int = 4, samples: int = 1, branch: int = 5):
        """turns: 1 (own turn) or 3 (own, the opponent's replies, own next turn: turn-level minimax)
        width: beam width over the states of one turn
        samples: chance outcomes sampled per child (its value is their mean)
        branch: own lines and opponent replies kept at each level of the 3-turn search
        """
        if turns not in (1, 3):
            raise ValueError(f"turns must be 1 or 3, got {turns}")
        for what, value in (("width", width), ("samples", samples), ("branch", branch)):
            if value < 1:
                raise ValueError(f"{what} must be >= 1, got {value}")
        self.turns, self.width, self.samples, self.branch = turns, width, samples, branch
        self._plan: tuple[tuple[int, ...], GameState] | None = None  # actions left, the world they start from

    def reset(self) -> None:
        """Forget the plan of the last game."""
        self._plan = None

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        me = state.current_player
        if me < 0:
            raise InvalidParameterError(f"lookahead needs a decision node, current_player is {me}")
        legal = state.legal_actions()
        planned = self._follow(state, me)
        if planned is not None:
            if planned in legal:
                return planned
            self._plan = None
        if len(legal) == 1:
            return int(legal[0])
        world = determinize(state, me, rng)
        lines = turn_beam(world, rng, self.width, self.samples)
        if self.turns == 3:
            lines = self._minimax(lines[:self.branch], me, int(rng.integers(2 ** 63)))
        self._advance(world.clone(), lines[0].actions, me)
        return lines[0].actions[0]

    def _minimax(self, lines: list[Line], me: int, seed: int) -> list[Line]:
        """Own lines re-valued by the worst of the opponent's best replies, each met by our best next turn.

        Common random numbers: every own line meets the same chance stream (``seed``), and the k-th reply
        of every line the same stream for the rest, so the lines differ by their moves, not by their luck.
        """
        worth = []
        for line in lines:
            rng = np.random.default_rng(seed)
            after = line.pending.clone()
            _resolve(after, rng)
            if after.is_terminal() or after.current_player == me:
                worth.append(after.heuristic(me))
                continue
            outcomes = []
            for k, reply in enumerate(turn_beam(after, rng, self.width, self.samples)[:self.branch]):
                rng_k = np.random.default_rng([seed, k])
                mine = reply.pending.clone()
                _resolve(mine, rng_k)
                if mine.is_terminal() or mine.current_player != me:
                    outcomes.append(mine.heuristic(me))
                else:
                    outcomes.append(turn_beam(mine, rng_k, self.width, self.samples)[0].value)
            worth.append(min(outcomes))
        order = sorted(range(len(lines)), key=lambda i: -worth[i])
        return [lines[i] for i in order]

    def _advance(self, world: GameState, actions: tuple[int, ...], me: int) -> None:
        """Play ``actions[0]`` in the plan's ``world`` and keep the rest as the plan while ``me`` decides next."""
        world.apply(actions[0])
        if len(actions) > 1 and world.current_player == me:  # after a chance node the outcome is unknown
            self._plan = (actions[1:], world)

    def _follow(self, state: GameState, me: int) -> int | None:
        """The next planned action if ``state`` looks to ``me`` as the plan expected, else None (plan dropped)."""
        plan, self._plan = self._plan, None
        if plan is None:
            return None
        actions, world = plan
        if state.turn != world.turn or not np.array_equal(state.observation(me), world.observation(me)):
            return None
        self._advance(world, actions, me)
        return actions[0]

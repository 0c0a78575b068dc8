"""``VectorGame``: ``num_envs`` games of one ``Game`` stepped by one call, the batch API of RL libraries.

Every step takes one action per game and writes into preallocated arrays, overwritten in place: ``observations``
(float32, ``(num_envs, *observation_shape)``), ``action_masks`` (bool, ``(num_envs, num_actions)``), ``rewards``
(float32), ``terminations`` and ``truncations`` (bool; games end by rule, so truncations stay False), ``players``
(the seat whose decision each row is) and, where a game ended in the step, ``final_observations`` (its last
observation, for the seat that was rewarded) and ``final_returns`` (every seat's return). A game that ends is dealt
again in the same step (same-step auto-reset, as SB3's ``VecEnv``): its row then holds the new game's first
observation.

Who plays. ``self_play=True``: the caller acts for whichever seat is to move, and ``players`` says which; the
reward of a step that ends the game is the return of the seat that made the move (a learner that wants every
seat's credit reads ``final_returns``). Otherwise the caller plays ``seat`` (``None``: a seat drawn for each game)
and ``opponent`` plays the others inside the call, until the caller is next to act or the game ends: the reward is
then the caller's return, even when an opponent's move ended the game. Opponents are strategies:
``RandomOpponent`` and ``GreedyOpponent`` run in compiled code; an ``Agent`` (``act(state, rng)``; its ``reset()``
is called before each of its decisions, since one agent plays every row) or a ``BatchPolicy`` (a frozen network:
``(observations, masks) -> actions`` over the rows where it is to move, each row seen from its mover) is called
from the step once per round of rows waiting for it.

Compiled. A game whose states offer ``compiled_model()`` with an ``observation`` kernel is stepped by one compiled
loop over its flat arrays (``compiled=None`` chooses it, ``False`` refuses it); any other game, or
``perfect=True``, by the same loop written in Python over ``GameState`` objects. The two agree move for move (a
test plays both).

Seeds. Every draw comes from a numpy ``Generator``, and game ``i`` has its own, from ``SeedSequence(seed,
spawn_key=(i,))``, whatever ``num_envs`` is: row ``i`` of a batch of 8 plays what row ``i`` of a batch of 1,024
plays, given the same actions. Its streams: the deals (each game's seed ``episode_seeds[i]`` and, with
``seat=None``, the caller's seat), the opponent's, and ``random_actions``'. A game is dealt by
``game.new_state(default_rng(episode_seeds[i]))`` and its chance nodes sampled by ``protocol.sample_chance`` from
that same generator, exactly as the AEC env's ``reset(seed=episode_seeds[i])`` does: the game replays there, move
for move. Compiled code draws from those very generators (``kernel_binding.next_double``). The random opponent and
``random_actions`` pick ``legal[int(u * n)]`` of one uniform ``u``.
"""
from __future__ import annotations

import copy
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, Union

import numpy as np
from numba import njit, types

from .compiled_model import CompiledModel
from .errors import IllegalActionError, InvalidParameterError, ProtocolError
from .kernel_binding import bind, generator_addresses, kernel_arguments, next_double, shape_of, typed_kernels
from .protocol import CHANCE, HOOKS, TERMINAL, Agent, Game, GameState, hook, sample_chance

LEARNER, ENDED, WAITING = 0, 1, 2  # a row's status after a call: the caller to act, the game over, an outside opponent
KERNELS = ("legal_actions", "apply", "player", "turn", "returns", "heuristic", "determinize", "observation",
           "sample_chance")  # the CompiledModel kernels the loop binds, in its argument order
STREAMS = 3  # per game: deals, opponent, random_actions
MAX_REDEALS = 100  # new games in a row that may end before the caller's first decision
SPLIT = 128  # rows a thread takes at least: a smaller call runs on one thread


class BatchPolicy(Protocol):
    """A frozen policy over a batch: ``(observations, action_masks) -> actions``, one row per game waiting for it."""

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


class RandomOpponent:
    """A uniformly random legal move, ``legal[int(u * n)]`` from the opponent's stream (compiled)."""

    code = 0

    def __repr__(self) -> str:
        return "RandomOpponent()"


class GreedyOpponent:
    """One-turn greedy on the game's heuristic, as the ``greedy`` agent plays it (paper 002 §2.6's state
    extrapolation): the world determinized for the mover where the game hides anything, each legal move scored by
    ``heuristic(mover)`` after the rest of its turn played at random, summed over ``samples`` roll-forwards, ties
    broken at random; compiled, from the opponent's stream."""

    code = 1

    def __init__(self, samples: int = 1):
        if samples < 1:
            raise InvalidParameterError(f"samples must be >= 1, got {samples}")
        self.samples = int(samples)

    def __repr__(self) -> str:
        return f"GreedyOpponent(samples={self.samples})"


EXTERNAL = 2  # the loop's code for an opponent called from Python
Opponent = Union[RandomOpponent, GreedyOpponent, Agent, BatchPolicy, None]


def _opponent_code(opponent: Any) -> int:
    if opponent is None or isinstance(opponent, (RandomOpponent, GreedyOpponent)):
        return 0 if opponent is None else opponent.code
    if isinstance(opponent, str):
        raise InvalidParameterError(f"VectorGame takes an opponent object, not the spec {opponent!r}: build it by name "
                                    f"with cardboard.make_vec_env(game, n, opponent={opponent!r})")
    if isinstance(opponent, Agent) or callable(opponent):
        return EXTERNAL
    raise InvalidParameterError(f"an opponent is RandomOpponent(), GreedyOpponent(samples), an Agent (act(state, "
                                f"rng)), a batch policy (observations, action_masks) -> actions, or None, got "
                                f"{opponent!r}")


def vector_model(game: Game, perfect: bool = False, compiled: bool | None = None) -> CompiledModel | None:
    """The compiled model ``VectorGame`` steps ``game`` with, or None for the Python loop: ``compiled=None`` where
    the game's states offer ``compiled_model()`` with an ``observation`` kernel and ``perfect`` is False,
    ``False`` never, ``True`` or an ``InvalidParameterError`` saying why not."""
    model = hook(game.new_state(np.random.default_rng(0)), HOOKS["compiled_model"].name)
    model = model() if model is not None else None
    reason = ("perfect=True observes in Python" if perfect else
              "its states offer no compiled_model()" if model is None else
              "its compiled model has no observation kernel" if model.observation is None else None)
    if compiled and reason:
        raise InvalidParameterError(f"{game.info.name} cannot be stepped compiled: {reason}")
    return None if reason or compiled is False else model


class VectorGame:
    """``num_envs`` games of ``game`` stepped together (see the module docstring)."""

    def __init__(self, game: Game, num_envs: int, *, opponent: Opponent = None, self_play: bool = False,
                 seat: int | None = None, perfect: bool = False, compiled: bool | None = None,
                 threads: int | None = None):
        info = game.info
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidParameterError(f"num_envs must be a positive int, got {num_envs!r}")
        if seat is not None and seat not in range(info.num_players):
            raise InvalidParameterError(f"seat must be None or in 0..{info.num_players - 1}, got {seat!r}")
        if self_play and (opponent is not None or seat is not None):
            raise InvalidParameterError("self_play=True plays every seat: it takes no opponent and no seat")
        self.game, self.info, self.num_envs = game, info, int(num_envs)
        self.self_play, self.fixed_seat, self.perfect = bool(self_play), seat, bool(perfect)
        self.opponent = RandomOpponent() if opponent is None and not self_play else opponent
        self.opponent_code = 0 if self_play else _opponent_code(self.opponent)
        model = vector_model(game, perfect, compiled)
        self.compiled = model is not None
        n, shape = self.num_envs, info.observation_shape
        self.observations = np.zeros((n, *shape), dtype=np.float32)
        self.action_masks = np.zeros((n, info.num_actions), dtype=bool)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.terminations = np.zeros(n, dtype=bool)
        self.truncations = np.zeros(n, dtype=bool)
        self.players = np.zeros(n, dtype=np.int64)
        self.seats = np.full(n, -1, dtype=np.int64)  # the caller's seat per game (-1: every seat, self-play)
        self.final_observations = np.zeros_like(self.observations)
        self.final_returns = np.zeros((n, info.num_players), dtype=np.float64)
        self._returns = np.zeros_like(self.final_returns)  # where the engines write a game's returns at its end
        self.episode_seeds = np.zeros(n, dtype=np.int64)
        self.episodes = np.zeros(n, dtype=np.int64)  # games finished per row
        self._movers = np.zeros(n, dtype=np.int64)  # the seat that made each row's last move of the caller's
        self._streams: list[list[np.random.Generator]] = []
        self._deals: list[np.random.Generator | None] = [None] * n
        threads = max(1, len(os.sched_getaffinity(0)) - 1) if threads is None else threads  # one core deals
        if not isinstance(threads, (int, np.integer)) or threads < 1:
            raise InvalidParameterError(f"threads must be a positive int, got {threads!r}")
        self._engine = _Compiled(self, model, int(threads)) if model is not None else _Python(self)
        self._dealer = _Dealer(self._next_game, n, background=False)
        self._root: np.random.SeedSequence | None = None  # the last reset's: an unseeded reset spawns from it
        self._started = False

    # -- the batch API ---------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Deal every game afresh; ``seed`` fixes every stream of every row. ``None``: the batch's next streams after
        a seeded reset (Gymnasium's convention: an unseeded reset goes on from the seeded ones), else fresh entropy."""
        self._dealer.close()  # first: a deal still under way draws from the streams replaced here
        if seed is not None or self._root is None:
            self._root = np.random.SeedSequence(seed)
        else:
            self._root = self._root.spawn(1)[0]
        root = self._root
        self._streams = [[np.random.default_rng(s) for s in
                          np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i)).spawn(STREAMS)]
                         for i in range(self.num_envs)]
        self._engine.bind_streams()
        self._dealer = _Dealer(self._next_game, self.num_envs, background=self.compiled)
        self.episodes[:] = 0
        self.rewards[:] = 0
        self.terminations[:] = False
        rows = np.arange(self.num_envs)
        self._deal(rows)
        self._settle(rows, np.full(self.num_envs, -1, dtype=np.int64), played=False)
        self._started = True

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Play ``actions[i]`` in game ``i`` (a legal action of ``players[i]``), then every opponent and chance
        move up to the caller's next decision; deal again the games that ended. ``IllegalActionError`` (naming
        the rows) for an illegal or out-of-range action, with nothing changed."""
        if not self._started:
            raise InvalidParameterError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise InvalidParameterError(f"step takes {self.num_envs} integer actions, got an array of shape "
                                        f"{acts.shape} and dtype {acts.dtype}")
        acts = acts.astype(np.int64)
        bad = (acts < 0) | (acts >= self.info.num_actions)
        bad[~bad] = ~self.action_masks[np.flatnonzero(~bad), acts[~bad]]
        if bad.any():
            rows = np.flatnonzero(bad)
            raise IllegalActionError(f"{len(rows)} illegal action(s), nothing played: row {rows[0]} got "
                                     f"{acts[rows[0]]}, not legal for seat {self.players[rows[0]]}"
                                     + (f" (rows {rows[:8].tolist()}...)" if len(rows) > 1 else ""))
        self._movers = self.players.copy()
        self.rewards[:] = 0
        self.terminations[:] = False
        self._dealer.start()  # the games that ended last step are dealt again while the loop runs
        self._settle(np.arange(self.num_envs), acts)

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per row (``legal[int(u * n)]``, each row's own stream)."""
        return self._engine.random_actions()

    def state(self, i: int) -> GameState:
        """A copy of game ``i``'s state, as a ``GameState``."""
        return self._engine.state(int(i))

    def close(self) -> None:
        """Stop the worker threads (a later step starts them again)."""
        self._dealer.close()
        self._engine.close()

    # -- the round of a step ---------------------------------------------------------------------------------------
    def _deal(self, rows: np.ndarray) -> None:
        """Start the next game in each of ``rows``: its seed, the caller's seat, the game (dealt ahead)."""
        seeds, seats, deals, games = zip(*self._dealer.take(rows))
        self.episode_seeds[rows], self.seats[rows] = seeds, seats
        for i, rng in zip(rows, deals):
            self._deals[i] = rng
        self._engine.install(rows, games)

    def _next_game(self, i: int) -> tuple[int, int, np.random.Generator, Any]:
        """Row ``i``'s next game, from its deal stream: seed, seat, generator, and the game as the engine takes it."""
        source = self._streams[i][0].bit_generator
        seed = int(source.random_raw() >> 1)  # a non-negative int64 (the AEC env's reset takes it)
        seat = -1 if self.self_play else (
            int(source.random_raw() % self.info.num_players) if self.fixed_seat is None else self.fixed_seat)
        rng = np.random.default_rng(seed)
        return seed, seat, rng, self._engine.prepare(self.game.new_state(rng), rng)

    def _settle(self, rows: np.ndarray, actions: np.ndarray, played: bool = True) -> None:
        """Play ``actions`` (-1: none) in ``rows``, then advance each row to the caller's decision, calling outside
        opponents and dealing again where a game ended, until every row waits for the caller. Only a game the caller
        ``played`` in counts (reward, final observation, termination): a new game that ends before the caller's
        first decision is dealt again, as it teaches nothing (``MAX_REDEALS`` times in a row at most)."""
        status = self._engine.advance(rows, actions)
        redeals = 0
        while True:
            waiting = rows[status[rows] == WAITING]
            if len(waiting):
                actions[waiting] = self._outside_moves(waiting)
                status[waiting] = self._engine.advance(waiting, actions)[waiting]
                continue
            ended = rows[status[rows] == ENDED]
            if not len(ended):
                return
            if played:
                self.final_returns[ended] = self._returns[ended]
                self.rewards[ended] = self._returns[ended, self.players[ended]]
                self.final_observations[ended] = self.observations[ended]
                self.terminations[ended] = True
                self.episodes[ended] += 1
            elif redeals == MAX_REDEALS:
                raise ProtocolError(f"{self.info.name}: {MAX_REDEALS} deals in a row of row {ended[0]} ended before "
                                    "the caller's first decision")
            self._deal(ended)
            actions[ended] = -1
            status[ended] = self._engine.advance(ended, actions)[ended]
            rows, played = ended, False
            redeals += 1

    def _outside_moves(self, rows: np.ndarray) -> np.ndarray:
        """The moves of an Agent or batch-policy opponent in ``rows`` (observations and masks are the movers')."""
        if isinstance(self.opponent, Agent):
            moves = []
            for i in rows:
                self.opponent.reset()
                moves.append(int(self.opponent.act(self.state(i), self._streams[i][1])))
            moves = np.array(moves, dtype=np.int64)
        else:
            moves = np.asarray(self.opponent(self.observations[rows], self.action_masks[rows])).reshape(-1)
            moves = moves.astype(np.int64)
        legal = (moves >= 0) & (moves < self.info.num_actions)
        legal[legal] = self.action_masks[rows[legal], moves[legal]]
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"the opponent {self.opponent!r} played {moves[k]} in row {rows[k]}, not a legal "
                                     f"action of seat {self.players[rows[k]]}")
        return moves


class _Dealer:
    """Each row's next game, dealt ahead. With ``background``, the games to deal again are dealt on a thread while
    the compiled loop runs (it releases the GIL), so deals, which run in Python, take no time of their own. A row's
    games come from its own stream in order, so what is dealt does not depend on the timing."""

    def __init__(self, next_game: Callable[[int], Any], rows: int, background: bool):
        self.next_game = next_game
        self.ready: list[Any] = [None] * rows
        self.todo: list[int] = []
        self.background = background
        self.pool: ThreadPoolExecutor | None = None
        self.pending: Future | None = None

    def take(self, rows: np.ndarray) -> list[Any]:
        """Each row's next game (dealt now if it is not ready); its following game is dealt at the next ``start``."""
        self.wait()
        games = []
        for i in rows.tolist():
            games.append(self.ready[i] if self.ready[i] is not None else self.next_game(i))
            self.ready[i] = None
        if self.background:
            self.todo.extend(rows.tolist())
        return games

    def start(self) -> None:
        """Deal the rows taken since the last start on the thread (without ``background``: at the next take)."""
        if not self.todo:
            return
        self.wait()
        if self.pool is None:
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="cardboard-dealer")
        rows, self.todo = list(dict.fromkeys(self.todo)), []  # a row dealt twice in a step deals ahead once
        self.pending = self.pool.submit(self._fill, rows)

    def _fill(self, rows: list[int]) -> None:
        for i in rows:
            self.ready[i] = self.next_game(i)

    def wait(self) -> None:
        if self.pending is not None:
            self.pending.result()
            self.pending = None

    def close(self) -> None:
        self.wait()
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None


# ---- the engines: one in compiled code, one in Python, the same moves -----------------------------------------------
class _Python:
    """The loop in Python over ``GameState`` objects, for any game (and ``perfect=True``)."""

    def __init__(self, vec: VectorGame):
        self.vec = vec
        self.states: list[GameState | None] = [None] * vec.num_envs
        self.status = np.zeros(vec.num_envs, dtype=np.int64)
        if isinstance(vec.opponent, GreedyOpponent):
            raise InvalidParameterError(f"GreedyOpponent runs compiled; {vec.info.name} is stepped in Python here: "
                                        "use the greedy Agent (cardboard.make_agent('greedy', game))")

    def bind_streams(self) -> None:
        """Nothing to do: the loop reads the generators themselves."""

    def prepare(self, state: GameState, rng: np.random.Generator) -> GameState:
        return state

    def install(self, rows: np.ndarray, states: Sequence[GameState]) -> None:
        for i, state in zip(rows, states):
            self.states[i] = state

    def advance(self, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        vec = self.vec
        for i in rows:
            state = self.states[i]
            if actions[i] >= 0:
                state.apply(int(actions[i]))
            while True:
                p = state.current_player
                if p == TERMINAL:
                    self.status[i] = ENDED
                    break
                if p == CHANCE:
                    state.apply(sample_chance(state, vec._deals[i]))
                elif vec.seats[i] < 0 or p == vec.seats[i]:
                    self.status[i] = LEARNER
                    break
                elif vec.opponent_code == EXTERNAL:
                    self.status[i] = WAITING
                    break
                else:
                    legal = state.legal_actions()
                    state.apply(int(legal[int(vec._streams[i][1].random() * len(legal))]))
            self._observe(i)
        return self.status

    def _observe(self, i: int) -> None:
        vec, state = self.vec, self.states[i]
        vec.action_masks[i] = False
        if self.status[i] == ENDED:
            seat = vec.seats[i] if vec.seats[i] >= 0 else vec._movers[i]
            vec.observations[i] = state.observation(int(seat), vec.perfect)
            vec.players[i] = seat
            vec._returns[i] = state.returns()
            return
        p = state.current_player
        vec.players[i] = p
        vec.observations[i] = state.observation(p, vec.perfect)
        vec.action_masks[i, state.legal_actions()] = True

    def random_actions(self) -> np.ndarray:
        vec = self.vec
        out = np.empty(vec.num_envs, dtype=np.int64)
        for i, state in enumerate(self.states):
            legal = state.legal_actions()
            out[i] = legal[int(vec._streams[i][2].random() * len(legal))]
        return out

    def state(self, i: int) -> GameState:
        return self.states[i].clone()

    def close(self) -> None:
        """No threads to stop."""


class _Compiled:
    """The loop in compiled code over the rows of one array of flat states (``_advance``), the rows shared out
    among ``threads`` threads (the loop releases the GIL), each with its own copy of the model's table (a game's
    kernels may keep scratch there)."""

    def __init__(self, vec: VectorGame, model: CompiledModel, threads: int):
        n = vec.num_envs
        self.vec, self.model = vec, model
        self.threads = min(threads, max(1, n // SPLIT))
        self.tables = [model.table] + [copy.deepcopy(model.table) for _ in range(self.threads - 1)]
        self.pool: ThreadPoolExecutor | None = None
        self.state_type: type | None = None
        self.S = np.zeros((n, *model.state.shape), dtype=model.state.dtype)
        self.buffers = np.zeros((n, model.buffer_len), dtype=np.int32)
        self.status = np.zeros(n, dtype=np.int64)
        self.nlegal = np.zeros(n, dtype=np.int64)
        self.addresses = np.zeros((STREAMS, n), dtype=np.int64)  # per stream and row: its generator's state
        self.function = 0  # the bit generators' next_double (every row's is a PCG64)
        self.loop, self.kernels = _loop_for(model)
        opponent = vec.opponent
        self.samples = opponent.samples if isinstance(opponent, GreedyOpponent) else 0
        if self.samples and model.determinize is None:
            raise InvalidParameterError(f"GreedyOpponent determinizes the mover's world, and {vec.info.name}'s "
                                        "compiled model has no determinize kernel: use the greedy Agent "
                                        "(cardboard.make_agent('greedy', game))")

    def bind_streams(self) -> None:
        """Point the loop at every row's opponent and random_actions generators (drawn anew by each reset)."""
        for i, streams in enumerate(self.vec._streams):
            for k in (1, 2):
                self.function, self.addresses[k, i] = generator_addresses(streams[k])

    def prepare(self, state: GameState, rng: np.random.Generator) -> tuple[type, np.ndarray, int]:
        """What ``install`` needs of a new game: its state's type and array, and its generator's address."""
        return type(state), state.compiled_model().state, generator_addresses(rng)[1]

    def install(self, rows: np.ndarray, games: Sequence[tuple[type, np.ndarray, int]]) -> None:
        self.state_type = games[-1][0]
        self.S[rows] = [array for _, array, _ in games]
        self.addresses[0, rows] = [address for _, _, address in games]

    def advance(self, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        rows = rows.astype(np.int64)
        parts = self.threads if len(rows) >= 2 * SPLIT else 1
        if parts == 1:
            self._run(rows, actions, 0)
        else:
            if self.pool is None:
                self.pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="cardboard-rows")
            blocks = np.array_split(rows, parts)  # contiguous blocks: no two threads write one cache line
            done = [self.pool.submit(self._run, blocks[k], actions, k) for k in range(1, parts)]
            self._run(blocks[0], actions, 0)
            for future in done:
                future.result()
        return self.status

    def _run(self, rows: np.ndarray, actions: np.ndarray, part: int) -> None:
        vec = self.vec
        self.loop(*self.kernels.arguments(), self.S, self.tables[part], self.buffers, rows, actions, self.function,
                  self.addresses, vec.seats, vec._movers, vec.opponent_code, self.samples,
                  self.model.determinize_draws, self.status, self.nlegal, vec.players,
                  vec.observations.reshape(vec.num_envs, -1), vec.action_masks, vec._returns)

    def random_actions(self) -> np.ndarray:
        out = np.empty(self.vec.num_envs, dtype=np.int64)
        _random_actions(self.function, self.addresses[2], self.buffers, self.nlegal, out)
        return out

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def state(self, i: int) -> GameState:
        """Row ``i`` as its game's state: ``type(state)(game, array)`` rebuilds a flat state (``CompiledModel``)."""
        return self.state_type(self.vec.game, self.S[i].copy())


_LOOPS: dict[tuple, tuple] = {}


def _loop_for(model: CompiledModel) -> tuple[Callable[..., None], Any]:
    """``_advance`` compiled (and cached) for ``model``'s kernels and argument types, with the kernels bound."""
    key = (tuple(getattr(model, name) for name in KERNELS), shape_of(model.state), shape_of(model.table))
    found = _LOOPS.get(key)
    if found is None:
        kernels, s, table = typed_kernels(model, KERNELS)
        i64, i64s = types.int64, types.int64[::1]
        args = kernel_arguments(kernels) + (
            types.Array(s.dtype, 2, "C"), table, types.int32[:, ::1], i64s, i64s, i64, types.int64[:, ::1], i64s,
            i64s, i64, i64, i64, i64s, i64s, i64s, types.float32[:, ::1], types.boolean[:, ::1],
            types.float64[:, ::1])
        found = _LOOPS[key] = (_advance.compile(args), kernels)
    return found


@njit(cache=True, nogil=True)
def _random_actions(function, addresses, buffers, nlegal, out):
    """``out[i] = legal[int(u * n)]`` of row ``i``'s legal actions (``buffers[i, :nlegal[i]]``), ``u`` from its
    stream."""
    for i in range(len(out)):
        out[i] = buffers[i, int(next_double(function, addresses[i]) * nlegal[i])]


@njit(cache=True, nogil=True)
def _greedy(legal_actions, apply, player_of, turn_of, heuristic, determinize, s, table, p, function, address,
            samples, draws, buf):
    """``GreedyOpponent``'s move for ``p`` in ``s`` (``s`` and ``buf`` untouched)."""
    world = s.copy()
    if draws > 0:
        u = np.empty(draws)
        for k in range(draws):
            u[k] = next_double(function, address)
        determinize(world, table, p, u)
    scratch = np.empty_like(buf)
    n = legal_actions(world, table, scratch)
    moves = scratch[:n].copy()
    if n == 1:
        return np.int64(moves[0])
    turn = turn_of(world)
    scores = np.zeros(n)
    child = np.empty_like(world)
    for k in range(n):
        for _ in range(samples):
            child[:] = world
            legal_actions(child, table, scratch)
            apply(child, table, moves[k], scratch)
            while player_of(child) == p and turn_of(child) == turn:
                m = legal_actions(child, table, scratch)
                apply(child, table, scratch[int(next_double(function, address) * m)], scratch)
            scores[k] += heuristic(child, table, p)
    best = scores.max()
    ties = 0
    for k in range(n):
        ties += scores[k] == best
    pick = int(next_double(function, address) * ties)
    for k in range(n):
        if scores[k] == best:
            if pick == 0:
                return np.int64(moves[k])
            pick -= 1
    return np.int64(moves[0])


@njit(cache=True, nogil=True)
def _advance(kernels, legal_actions_t, apply_t, player_t, turn_t, returns_t, heuristic_t, determinize_t,
             observation_t, sample_chance_t, S, table, buffers, rows, actions, function, addresses, seats, movers,
             opponent, samples, draws, status, nlegal, players, observations, masks, ended_returns):
    """For each row ``i`` of ``rows``: play ``actions[i]`` (-1: none), then chance and compiled opponents' moves up to
    the caller's decision (status ``LEARNER``), an outside opponent's (``WAITING``) or the end (``ENDED``: the
    returns in ``ended_returns[i]``); the row's observation for ``players[i]`` (at the end: the seat rewarded) and
    its legal mask."""
    legal_actions, apply = bind(kernels[0], legal_actions_t), bind(kernels[1], apply_t)
    player_of, turn_of, returns = bind(kernels[2], player_t), bind(kernels[3], turn_t), bind(kernels[4], returns_t)
    heuristic, determinize = bind(kernels[5], heuristic_t), bind(kernels[6], determinize_t)
    observation, sample_chance = bind(kernels[7], observation_t), bind(kernels[8], sample_chance_t)
    for r in range(len(rows)):
        i = rows[r]
        s, buf = S[i], buffers[i]
        if actions[i] >= 0:
            apply(s, table, actions[i], buf)
        state = LEARNER
        while True:
            p = player_of(s)
            if p == TERMINAL:
                state = ENDED
                break
            if p == CHANCE:
                outcome = sample_chance(s, table, 0.0)  # -1 - id: an outcome the state fixes, no draw
                if outcome >= 0:
                    outcome = sample_chance(s, table, next_double(function, addresses[0, i]))
                else:
                    outcome = -1 - outcome
                apply(s, table, outcome, buf)
                continue
            if seats[i] < 0 or p == seats[i]:
                break
            if opponent == EXTERNAL:
                state = WAITING
                break
            n = legal_actions(s, table, buf)
            if opponent == 0:
                move = np.int64(buf[int(next_double(function, addresses[1, i]) * n)])
            else:
                move = _greedy(legal_actions, apply, player_of, turn_of, heuristic, determinize, s, table, p,
                               function, addresses[1, i], samples, draws, buf)
            apply(s, table, move, buf)
        status[i] = state
        masks[i, :] = False
        if state == ENDED:
            seat = seats[i] if seats[i] >= 0 else movers[i]
            players[i] = seat
            returns(s, ended_returns[i])
            observation(s, table, seat, observations[i])
            nlegal[i] = 0
        else:
            players[i] = p
            observation(s, table, p, observations[i])
            n = legal_actions(s, table, buf)
            nlegal[i] = n
            for k in range(n):
                masks[i, buf[k]] = True

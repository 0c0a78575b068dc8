"""The games the page shows, as data for one perspective: a ``Table`` (a live game: a person against agents, or
agents alone) and a ``Replay`` (a finished game's states, forward and back).

Everything a frame holds is built by ``cardboard.envs.view`` for the table's perspective (``describe``, ``menu``,
``seen``, ``status_line``): never the state, its observation or the text of a hidden thing, nor the seed before the
game is over (it deals every hidden card). An agent's search statistics are shown only when its search reads
nothing the decider does not know (its ``information_set``, or a game of perfect information) and the perspective
may see the decider's options (its own seat, or a game without private information): the labels of another seat's
moves could name the cards in its hand, and a search of the true state tells worlds apart the viewer cannot.
"""
from __future__ import annotations

import secrets
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from cardboard import registry
from cardboard.envs.errors import CardboardError
from cardboard.envs.protocol import CHANCE, Agent, Game, GameState, sample_chance
from cardboard.envs.stop import stoppable
from cardboard.envs.view import describe, menu, menu_path, seen, status_line
from cardboard.jobs.seeds import game_streams


class MoveError(CardboardError):
    """A move the table refuses (stale, illegal, malformed, not this seat's turn); the game is unchanged."""


def _stats(agent: Agent, state: GameState, perspective: int | None) -> list[dict[str, Any]] | None:
    """The search statistics of ``agent``'s decision at ``state`` (visits and mean value per legal move), when it
    keeps them (``agent.last``), its search reads only the decider's information set and ``perspective`` may see
    the decider's options."""
    last = getattr(agent, "last", None)
    fair = state.info.information == "perfect" or getattr(agent, "information_set", False)
    if last is None or not fair or (perspective != state.current_player and state.info.private_information):
        return None
    stats = last.root.stats() if getattr(last, "root", None) is not None else \
        {key: (visits, None, None) for key, visits in last.visits.items()}
    rows = []
    for action in state.legal_actions():
        visits, value, _ = stats.get(state.action_key(int(action)), (0, None, None))
        rows.append({"move": " / ".join(menu_path(state, int(action))), "visits": int(visits),
                     "value": None if value is None else round(float(value), 3), "chosen": int(action) == last.action})
    return sorted(rows, key=lambda row: -row["visits"])


class Table:
    """A live game: ``humans`` are the seats a person plays from the page (at most one: the perspective), every
    other seat an agent built from its spec. Chance draws from stream 0 of ``game_streams(seed, 0, N)`` and the
    agent in seat k from stream 1 + k, as game 0 of ``cardboard play`` with the same seed."""

    def __init__(self, game_name: str, options: dict[str, Any], specs: Sequence[str], human: int | None,
                 perspective: int | None, seed: int):
        self.game = registry.make_game(game_name, **options)
        players = self.game.info.num_players
        if len(specs) != players:
            raise CardboardError(f"game {game_name!r} has {players} seats: give {players} agent specs, got "
                                 f"{len(specs)}")
        for seat in (human, perspective):
            if seat is not None and not 0 <= seat < players:
                raise CardboardError(f"seat {seat} is not one of game {game_name!r}'s seats 0..{players - 1}")
        self.human, self.perspective, self.seed = human, perspective, seed
        self.agents: list[Agent | None] = [None if seat == human else registry.make_agent(spec, self.game)
                                           for seat, spec in enumerate(specs)]
        self.labels = ["you" if agent is None else spec for agent, spec in zip(self.agents, specs)]
        self.streams = game_streams(seed, 0, players)
        for agent in self.agents:
            if agent is not None:
                agent.reset()
        self.state = self.game.new_state(self.streams[0])
        self.actions: list[int] = []  # everything applied, chance included: the version is its length
        self.log: list[str] = []
        self.stats: dict[str, Any] | None = None
        self._chance()

    @property
    def version(self) -> int:
        return len(self.actions)

    def close(self) -> None:
        """Release what the agents hold (a root-parallel search's worker processes)."""
        for agent in self.agents:
            close = getattr(agent, "close", None)
            if close is not None:
                close()

    @property
    def waiting(self) -> bool:
        """Whether the game waits for the person (their turn, or the end)."""
        return self.state.is_terminal() or self.state.current_player == self.human

    def _apply(self, action: int) -> None:
        line = seen(self.state, action, self.perspective)
        if line is not None:
            self.log.append(line)
        for seat, agent in enumerate(self.agents):
            observe = getattr(agent, "observe", None)
            if callable(observe):
                observe(self.state, action, seat)
        self.state.apply(action)
        self.actions.append(action)
        if self.state.is_terminal():
            for seat, agent in enumerate(self.agents):
                over = getattr(agent, "game_over", None)
                if callable(over):
                    over(self.state, seat)

    def _chance(self) -> None:
        while self.state.current_player == CHANCE:
            self._apply(sample_chance(self.state, self.streams[0]))

    def step(self, stop: threading.Event | None = None) -> None:
        """One agent decision (and the chance nodes after it); slow for a search agent: run it off the event loop.
        Once ``stop`` is set the search raises ``envs.stop.Stopped`` and the game is as it was (the agent's
        stream too, so the decision is made again as it would have been)."""
        if self.waiting:
            raise MoveError("no agent is to move: " + status_line(self.state))
        player = self.state.current_player
        agent, stream = self.agents[player], self.streams[1 + player]
        saved = stream.bit_generator.state
        try:
            with stoppable(stop):
                action = int(agent.act(self.state, stream))
        except BaseException:
            stream.bit_generator.state = saved
            raise
        stats = _stats(agent, self.state, self.perspective)
        self.stats = None if stats is None else {"player": player, "agent": self.labels[player], "moves": stats}
        self._apply(action)
        self._chance()

    def move(self, version: Any, action: Any) -> None:
        """The person's move ``action`` at ``version``; a ``MoveError`` saying why when it is refused."""
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (version, action)):
            raise MoveError("a move needs an integer version and action")
        if self.human is None or self.state.current_player != self.human:
            raise MoveError("it is not your turn: " + status_line(self.state))
        if version != self.version:
            raise MoveError(f"stale move: the game is at version {self.version}, the move was made at {version}; "
                            "choose again")
        if not 0 <= action < self.state.num_actions or not self.state.action_mask()[action]:
            raise MoveError(f"move {action} is not legal here")
        self._apply(action)
        self._chance()

    def frame(self, log_from: int = 0) -> dict[str, Any]:
        """What the page draws, for the perspective: the view, the person's moves when it is their turn, the log
        from line ``log_from`` on, the last visible search statistics; the seed once the game is over (None
        before: it deals every hidden card)."""
        state = self.state
        over = bool(state.is_terminal())
        mine = not over and state.current_player == self.human
        return {"type": "frame", "version": self.version, "seed": self.seed if over else None,
                "seat": self.perspective, "agents": self.labels,
                "view": describe(state, self.game, self.perspective).to_json(), "status": status_line(state),
                "over": over, "menu": menu(state, state.legal_actions()) if mine else None, "log_from": log_from,
                "log": self.log[log_from:], "stats": self.stats}


class Replay:
    """A finished game's states, from a perspective (None: a spectator), to step through forward and back."""

    def __init__(self, game: Game, steps: Iterable[tuple[GameState, int]], perspective: int | None,
                 labels: Sequence[str]):
        self.game, self.perspective, self.labels = game, perspective, list(labels)
        if perspective is not None and not 0 <= perspective < game.info.num_players:
            raise CardboardError(f"seat {perspective} is not one of the game's seats 0..{game.info.num_players - 1}")
        self.states: list[GameState] = []
        self.lines: list[str | None] = []  # what the perspective saw of the action after each state
        last = None
        for state, action in steps:
            self.states.append(state.clone())
            self.lines.append(None if action < 0 else seen(state, action, perspective))
            last = state
        if last is not None and not self.states[-1].is_terminal():  # the source yields decisions only
            self.states.append(last.clone())
            self.lines.append(None)
        if not self.states:
            raise CardboardError("the replay holds no state")

    def close(self) -> None:
        """Nothing to release: a replay runs no agent."""

    def frame(self, step: int) -> dict[str, Any]:
        """The view after ``step`` actions (clamped to the game), with the log up to it."""
        step = min(max(int(step), 0), len(self.states) - 1)
        state = self.states[step]
        return {"type": "frame", "version": step, "step": step, "steps": len(self.states), "seat": self.perspective,
                "agents": self.labels, "view": describe(state, self.game, self.perspective).to_json(),
                "status": status_line(state), "over": bool(state.is_terminal()), "menu": None, "log_from": 0,
                "log": [line for line in self.lines[:step] if line is not None], "stats": None}


def new_seed() -> int:
    """A fresh seed for a game the page starts without one (shown on the page when the game is over, so the deal
    can be replayed)."""
    return secrets.randbelow(2 ** 31)


def replay_results(path: str, index: int, perspective: int | None) -> Replay:
    """Game ``index`` of a ``cardboard play --results`` file."""
    from cardboard.evaluation.match import load_results, replay_record

    header, records = load_results(path)
    if index not in records:
        raise CardboardError(f"{path}: no game {index} (it holds {len(records)} games)")
    game = registry.make_game(header["game"], **header["options"])
    record = records[index]
    labels = [header["specs"][agent] for agent in record.seats]
    return Replay(game, replay_record(game, header["seed"], record), perspective, labels)


def replay_selfplay(folder: str, index: int, perspective: int | None) -> Replay:
    """Game ``index`` of a ``cardboard selfplay`` folder (decisions only: its chance outcomes are not logged)."""
    from cardboard.jobs.seats import seat_order
    from cardboard.training.selfplay import load_data, replay_game

    header, records = load_data(folder)
    if not np.any(records["game"] == index):
        raise CardboardError(f"{folder}: no game {index}")
    game = registry.make_game(header["game"], **header["options"])
    players = game.info.num_players
    specs = header["agents"] if len(header["agents"]) == players else header["agents"] * players
    labels = [specs[agent] for agent in seat_order(index, players)]
    return Replay(game, replay_game(game, header["seed"], records, index), perspective, labels)

"""The web app of ``cardboard serve``: one page (``static/``), a JSON API to start games and a WebSocket per game.

``GET /`` gives the page and a session cookie (unguessable, HttpOnly, SameSite=Strict). ``POST /api/games``
starts a game of the caller's session: ``{"mode": "play" | "watch" | "replay", ...}`` (``start``), answered with
its id or ``{"error": message}``. ``/ws/GAME`` carries the game: the server sends frames (``tables``), the page
sends ``{"type": "move", "version", "action"}`` (play), ``{"type": "step"}`` (watch) or ``{"type": "goto",
"step"}`` (replay). A game is found only among its session's games, so another session's id is "no such game";
a refused message is answered ``{"type": "error", "message"}`` and changes nothing. Agents think in a worker
thread, so the page stays live.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from cardboard import registry
from cardboard.envs.errors import CardboardError
from cardboard.web.tables import MoveError, Replay, Table, new_seed, replay_results, replay_selfplay

STATIC = Path(__file__).parent / "static"
COOKIE = "cardboard_session"
LOG = logging.getLogger(__name__)
GAMES_PER_SESSION = 8  # a session's oldest game is dropped beyond this


class Games:
    """Every session's games by id, and the replay sources named on the command line (the page may replay only
    these: it never names a file)."""

    def __init__(self, replays: Sequence[str] = ()):
        self.sessions: dict[str, dict[str, Table | Replay]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.replays = [str(path) for path in replays]

    def add(self, session: str, game: Table | Replay) -> str:
        games = self.sessions.setdefault(session, {})
        while len(games) >= GAMES_PER_SESSION:
            oldest = next(iter(games))
            games.pop(oldest).close()
            del self.locks[oldest]
        gid = secrets.token_urlsafe(16)
        games[gid] = game
        self.locks[gid] = asyncio.Lock()
        return gid

    def find(self, session: str | None, gid: str) -> Table | Replay | None:
        return self.sessions.get(session or "", {}).get(gid)

    def close(self) -> None:
        """Release every game's agents (root-parallel searchers hold worker processes): the server stops."""
        for games in self.sessions.values():
            for game in games.values():
                game.close()


def _seat(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CardboardError(f"{name}: {value!r} is not a seat number") from None


def _specs(text: str, players: int, human: int | None) -> list[str]:
    """One spec per seat from the page's agents field: one spec for every agent seat, or one per agent seat."""
    specs = registry.split_agent_specs(text or "")
    agent_seats = players - (human is not None)
    if len(specs) == 1:
        specs = specs * agent_seats
    if len(specs) != agent_seats:
        raise CardboardError(f"give one agent spec, or one for each of the {agent_seats} agent seats; got "
                             f"{len(specs)}: {specs}")
    if human is not None:
        specs.insert(human, "you")
    return specs


def start(body: dict[str, Any], replays: Sequence[str]) -> Table | Replay:
    """A new game from the page's form (a ``CardboardError`` saying what is wrong otherwise)."""
    mode = body.get("mode")
    view = _seat(body.get("view"), "view as seat")
    if mode == "replay":
        source = body.get("source")
        if not isinstance(source, int) or not 0 <= source < len(replays):
            raise CardboardError("choose a replay source (they are named on the command line: --replay PATH)")
        index = body.get("index", 0)
        if not isinstance(index, int):
            raise CardboardError(f"game index {index!r} is not a number")
        path = replays[source]
        return (replay_selfplay if Path(path).is_dir() else replay_results)(path, index, view)
    if mode not in ("play", "watch"):
        raise CardboardError(f"mode {mode!r}: expected play, watch or replay")
    name, options = body.get("game"), body.get("options") or ""
    if not isinstance(name, str) or not isinstance(options, str) or not isinstance(body.get("agents", ""), str):
        raise CardboardError("game, options and agents are text")
    seed = body.get("seed")
    if seed in (None, ""):
        seed = new_seed()
    if not isinstance(seed, int) or seed < 0:
        raise CardboardError(f"seed {seed!r} is not a non-negative integer")
    options = registry.parse_game_options(options.split())
    players = registry.make_game(name, **options).info.num_players
    human = _seat(body.get("seat"), "your seat") if mode == "play" else None
    if mode == "play":
        if human is None:
            raise CardboardError("choose your seat")
        view = human
    specs = _specs(body.get("agents", "random"), players, human)
    return Table(name, options, specs, human, view, seed)


def session_of(request: Request | WebSocket) -> str | None:
    return request.cookies.get(COOKIE)


async def page(request: Request) -> FileResponse:
    response = FileResponse(STATIC / "index.html")
    if not session_of(request):
        response.set_cookie(COOKIE, secrets.token_urlsafe(24), httponly=True, samesite="strict")
    return response


async def catalog(request: Request) -> JSONResponse:
    games = []
    for name in registry.games():
        entry = registry.game_entry(name)
        game = await run_in_threadpool(registry.make_game, name)
        games.append({"name": name, "players": game.info.num_players, "summary": entry.summary,
                      "options": {k: str(v) for k, v in entry.defaults.items()}})
    return JSONResponse({"games": games, "agents": [a for a in registry.agents() if a != "human"],
                         "replays": request.app.state.games.replays})


async def create(request: Request) -> JSONResponse:
    session = session_of(request)
    if not session:
        return JSONResponse({"error": "no session: reload the page"}, status_code=403)
    try:
        body = json.loads(await request.body())
        if not isinstance(body, dict):
            raise ValueError(body)
    except ValueError:
        return JSONResponse({"error": "malformed request: expected a JSON object"}, status_code=400)
    games: Games = request.app.state.games
    try:
        game = await run_in_threadpool(start, body, games.replays)
    except (CardboardError, ValueError, TypeError) as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return JSONResponse({"id": games.add(session, game)})


def _plain(value: Any) -> Any:
    """A numpy scalar a game's view may hold, as plain JSON."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON data")


async def send(socket: WebSocket, message: dict[str, Any]) -> None:
    """Every message the server sends on a game's socket goes through here."""
    await socket.send_text(json.dumps(message, default=_plain, separators=(",", ":")))


def _same_origin(socket: WebSocket) -> bool:
    """A page of another site may open a WebSocket here; only this server's own page may talk to a game."""
    origin = socket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == socket.headers.get("host")


async def _answer(socket: WebSocket, game: Table | Replay, text: str, sent: int) -> int:
    """Act on one message of the page and send the frames it causes; returns how many log lines the page has."""
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise MoveError("malformed message: expected a JSON object")
    kind = message.get("type")
    if isinstance(game, Replay):
        if kind != "goto" or not isinstance(message.get("step"), int):
            raise MoveError("a replay takes {type: goto, step: N}")
        await send(socket, game.frame(message["step"]))
        return 0
    if kind == "move":
        game.move(message.get("version"), message.get("action"))
    elif kind == "step" and game.human is None:
        await run_in_threadpool(game.step)
    else:
        raise MoveError(f"message type {kind!r} is not one this game takes")
    await send(socket, game.frame(sent))
    return await _agents_turns(socket, game, len(game.log))


async def _agents_turns(socket: WebSocket, game: Table, sent: int) -> int:
    """In a game with a person: the agents' moves up to the person's turn (or the end), one frame each."""
    while game.human is not None and not game.waiting:
        await run_in_threadpool(game.step)
        await send(socket, game.frame(sent))
        sent = len(game.log)
    return sent


async def play_socket(socket: WebSocket) -> None:
    games: Games = socket.app.state.games
    gid = socket.path_params["gid"]
    game = games.find(session_of(socket), gid)
    await socket.accept()
    if game is None or not _same_origin(socket):
        await send(socket, {"type": "error", "message": "no such game (it may have ended with the server)"})
        await socket.close(code=4404)
        return
    lock = games.locks[gid]
    try:
        async with lock:
            await send(socket, game.frame(0))
            sent = await _guarded(socket, gid, _agents_turns(socket, game, len(game.log)), 0) \
                if isinstance(game, Table) else 0
        while True:
            text = await socket.receive_text()
            async with lock:
                sent = await _guarded(socket, gid, _answer(socket, game, text, sent), sent)
    except WebSocketDisconnect:
        pass


async def _guarded(socket: WebSocket, gid: str, work: Awaitable[int], sent: int) -> int:
    """``work``'s result, or its refusal sent to the page as an error message (then ``sent`` again)."""
    try:
        return await work
    except CardboardError as exc:
        await send(socket, {"type": "error", "message": str(exc)})
    except Exception:  # a game's or agent's bug: the page says so, the details stay in the server's log
        LOG.exception("game %s: a message failed", gid)
        await send(socket, {"type": "error", "message": "server error (its log has the details)"})
    return sent


def create_app(replays: Sequence[str] = ()) -> Starlette:
    """The app; ``replays``: the results files and self-play folders the page may replay."""
    games = Games(replays)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        games.close()

    app = Starlette(routes=[Route("/", page), Route("/api/catalog", catalog), Route("/api/games", create,
                                                                                     methods=["POST"]),
                            WebSocketRoute("/ws/{gid}", play_socket),
                            Mount("/static", StaticFiles(directory=STATIC), name="static")], lifespan=lifespan)
    app.state.games = games
    return app

"""The web app of ``cardboard serve``: one page (``static/``), a JSON API to start games and a WebSocket per game.

``GET /`` gives the page and a session cookie (unguessable, HttpOnly, SameSite=Lax: a link from another site keeps
the visitor's session). ``POST /api/games`` starts a game of the caller's session: ``{"mode": "play" | "watch" |
"replay", ...}`` (``start``), answered with its id or ``{"error": message}``. ``/ws/GAME`` carries the game: the
server sends frames (``tables``), the page sends ``{"type": "move", "version", "action"}`` (play), ``{"type":
"step"}`` (watch) or ``{"type": "goto", "step"}`` (replay). A game is found only among its session's games, so
another session's id is "no such game"; a refused message is answered ``{"type": "error", "message"}`` and changes
nothing. Agents think in a worker thread, so the page stays live; closing the page stops its search
(``envs.stop``) and frees the game at once.

Who may ask: every route answers only the Host names of this machine (``allowed_hosts``: DNS rebinding), a session
is only a cookie this server issued, a request that changes anything (``POST``, the WebSocket) only from this
server's own page (``Origin``, ``Sec-Fetch-Site``), within the sizes and caps below; what a page may start is
checked by ``checks`` (bundled values, shipped models, budget caps; never a file). Bad input is a 4xx with a
message that never repeats more than a few characters of it.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket as sockets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from cardboard import registry
from cardboard.envs.errors import CardboardError
from cardboard.envs.stop import Stopped
from cardboard.web.checks import MAX_TEXT, check_options, check_spec
from cardboard.web.tables import MoveError, Replay, Table, new_seed, replay_results, replay_selfplay

STATIC = Path(__file__).parent / "static"
COOKIE = "cardboard_session"
LOG = logging.getLogger(__name__)
LOCAL = ("127.0.0.1", "localhost", "[::1]")  # this machine's names, always allowed as Host
WILDCARDS = ("0.0.0.0", "::", "")
GAMES_PER_SESSION = 8  # a session's oldest game is dropped beyond this
GAMES_IN_ALL = 64  # beyond this the least recently used game no page has open is dropped (none: refused)
SESSIONS = 1000  # issued sessions kept; beyond this the least recently used one goes, with its games
MAX_BODY = 16 * 1024  # bytes of a POST, refused before it is read beyond
MAX_MESSAGE = 4 * 1024  # characters of a WebSocket message
INDEX_LIMIT = 2 ** 31  # a replay's game index, a seed: below this


class Full(CardboardError):
    """Every game the server may hold is open in some page: no new game now."""


@dataclass
class Held:
    """A game held for a session: its lock (one message at a time), the pages that have it open, its last use."""

    game: Table | Replay
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pages: int = 0
    used: float = field(default_factory=time.monotonic)


class Games:
    """The sessions this server issued and each one's games by id (least recently used first), and the replay
    sources named on the command line (the page may replay only these: it never names a file)."""

    def __init__(self, replays: Sequence[str] = ()):
        self.sessions: OrderedDict[str, dict[str, Held]] = OrderedDict()
        self.replays = [str(path) for path in replays]

    def issue(self) -> str:
        """A new session (the least recently used one dropped beyond ``SESSIONS``)."""
        while len(self.sessions) >= SESSIONS:
            _, games = self.sessions.popitem(last=False)
            for held in games.values():
                held.game.close()
        session = secrets.token_urlsafe(24)
        self.sessions[session] = {}
        return session

    def known(self, session: str | None) -> bool:
        """Whether ``session`` is one this server issued (and still holds); a use keeps it."""
        if session is None or session not in self.sessions:
            return False
        self.sessions.move_to_end(session)
        return True

    def add(self, session: str, game: Table | Replay) -> str:
        """Hold ``game`` for ``session`` (issued); ``Full`` when every game the server may hold is open."""
        games = self.sessions[session]
        while len(games) >= GAMES_PER_SESSION:
            games.pop(next(iter(games))).game.close()
        if sum(map(len, self.sessions.values())) >= GAMES_IN_ALL:
            idle = [(held.used, owner, gid) for owner, held_games in self.sessions.items()
                    for gid, held in held_games.items() if held.pages == 0]
            if not idle:
                game.close()
                raise Full(f"the server holds {GAMES_IN_ALL} games, all open in pages: close one and try again")
            _, owner, gid = min(idle)
            self.sessions[owner].pop(gid).game.close()
        gid = secrets.token_urlsafe(16)
        games[gid] = Held(game)
        return gid

    def find(self, session: str | None, gid: str) -> Held | None:
        return self.sessions.get(session or "", {}).get(gid)

    def count(self) -> int:
        return sum(map(len, self.sessions.values()))

    def close(self) -> None:
        """Release every game's agents (root-parallel searchers hold worker processes): the server stops."""
        for games in self.sessions.values():
            for held in games.values():
                held.game.close()


def allowed_hosts(host: str = "127.0.0.1", extra: Iterable[str] = ()) -> list[str]:
    """The Host names every route answers: this machine's (``LOCAL``), the address served on, ``extra`` (names
    visitors use for it), and where it listens on every address, the machine's own names and addresses."""
    names = [*LOCAL, host, *extra]
    if host in WILDCARDS:
        with contextlib.suppress(OSError):
            machine = sockets.gethostname()
            names += [machine, sockets.getfqdn()] + [info[4][0] for info in sockets.getaddrinfo(machine, None)]
    return list(dict.fromkeys(f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names if n))


def _whole(value: Any, name: str, limit: int = INDEX_LIMIT) -> int | None:
    """``value`` as a whole number in [0, limit) (None for none given); JSON's true and 1.5 are not."""
    if value is None or value == "":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
        raise CardboardError(f"{name}: {str(value)[:20]!r} is not a whole number in 0..{limit - 1}")
    return value


def _text(body: dict[str, Any], key: str, default: str, limit: int = MAX_TEXT) -> str:
    value = body.get(key, default)
    value = default if value is None else value
    if not isinstance(value, str) or len(value) > limit:
        raise CardboardError(f"{key}: expected text of at most {limit} characters")
    return value


def _specs(text: str, players: int, human: int | None) -> list[str]:
    """One spec per seat from the page's agents field: one spec for every agent seat, or one per agent seat."""
    specs = registry.split_agent_specs(text or "")
    agent_seats = players - (human is not None)
    if len(specs) == 1:
        specs = specs * agent_seats
    if len(specs) != agent_seats:
        raise CardboardError(f"give one agent spec, or one for each of the {agent_seats} agent seats; got "
                             f"{len(specs)}")
    for spec in dict.fromkeys(specs):
        check_spec(spec)
    if human is not None:
        specs.insert(human, "you")
    return specs


def start(body: dict[str, Any], replays: Sequence[str]) -> Table | Replay:
    """A new game from the page's form (a ``CardboardError`` saying what is wrong otherwise)."""
    mode = body.get("mode")
    view = _whole(body.get("view"), "view as seat")
    if mode == "replay":
        source = _whole(body.get("source"), "replay source", len(replays) or 1)
        if source is None or not replays:
            raise CardboardError("choose a replay source (they are named on the command line: --replay PATH)")
        index = _whole(body.get("index", 0), "game index") or 0
        path = replays[source]
        return (replay_selfplay if Path(path).is_dir() else replay_results)(path, index, view)
    if mode not in ("play", "watch"):
        raise CardboardError(f"mode {str(mode)[:20]!r}: expected play, watch or replay")
    name, text, agents = _text(body, "game", "", 64), _text(body, "options", ""), _text(body, "agents", "random")
    seed = _whole(body.get("seed"), "seed")
    if mode == "play" and seed is not None:
        raise CardboardError("a played game's seed is the server's until the game ends (it deals the hidden cards): "
                             "leave it empty; the page shows it at the end")
    registry.game_entry(name)  # an unknown game, named with the list of games
    options = registry.parse_game_options(text.split())
    check_options(name, options)
    players = registry.make_game(name, **options).info.num_players
    human = _whole(body.get("seat"), "your seat") if mode == "play" else None
    if mode == "play":
        if human is None:
            raise CardboardError("choose your seat")
        view = human
    specs = _specs(agents, players, human)
    return Table(name, options, specs, human, view, new_seed() if seed is None else seed)


def session_of(request: Request | WebSocket) -> str | None:
    """The caller's session: its cookie when this server issued it (a forged or forgotten one is none)."""
    session = request.cookies.get(COOKIE)
    return session if request.app.state.games.known(session) else None


def _same_origin(request: Request | WebSocket) -> bool:
    """Whether a request that changes something comes from this server's own page: a browser says where a request
    comes from (``Origin``, ``Sec-Fetch-Site``); a page of another site may not start games or talk to one."""
    origin, site = request.headers.get("origin"), request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    return origin is None or urlsplit(origin).netloc == request.headers.get("host")


async def page(request: Request) -> FileResponse:
    response = FileResponse(STATIC / "index.html", headers={"X-Frame-Options": "DENY", "Cache-Control": "no-store"})
    if session_of(request) is None:
        response.set_cookie(COOKIE, request.app.state.games.issue(), httponly=True, samesite="lax")
    return response


async def catalog(request: Request) -> JSONResponse:
    """The games (names, seats, defaults, the values each option takes), the agents, the replay sources by label
    (the file's name, never the server's path)."""
    games = []
    for name in registry.games():
        entry = registry.game_entry(name)
        game = await run_in_threadpool(registry.make_game, name)
        games.append({"name": name, "players": game.info.num_players, "summary": entry.summary,
                      "options": {k: str(v) for k, v in entry.defaults.items()},
                      "values": {k: list(v) for k, v in entry.values.items()}})
    replays = [f"{k}: {Path(path).name}" for k, path in enumerate(request.app.state.games.replays)]
    return JSONResponse({"games": games, "agents": [a for a in registry.agents() if a != "human"],
                         "replays": replays})


def _refusal(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> bytes | None:
    """The request's body, or None once it passes ``MAX_BODY`` (read no further: a declared length is refused
    before anything is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON data")


def _json_object(data: bytes | str) -> dict[str, Any] | None:
    """``data`` as a JSON object (no NaN / Infinity), or None."""
    try:
        value = json.loads(data, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


async def create(request: Request) -> JSONResponse:
    session = session_of(request)
    if session is None:
        return _refusal("no session: reload the page", 403)
    if not _same_origin(request):
        return _refusal("games are started from this server's own page", 403)
    try:
        data = await _body(request)
    except ClientDisconnect:
        return _refusal("the request was cut off", 400)
    if data is None:
        return _refusal(f"request too large: at most {MAX_BODY} bytes", 413)
    body = _json_object(data)
    if body is None:
        return _refusal("malformed request: expected a JSON object", 400)
    games: Games = request.app.state.games
    try:
        game = await run_in_threadpool(start, body, games.replays)
        return JSONResponse({"id": games.add(session, game)})
    except Full as exc:
        return _refusal(str(exc), 503)
    except (CardboardError, ValueError, TypeError) as exc:
        return _refusal(str(exc)[:1000], 400)


def _plain(value: Any) -> Any:
    """A numpy scalar a game's view may hold, as plain JSON."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON data")


class PageGone(Exception):
    """The page closed its socket: nothing more is sent, and its search is stopped."""


async def send(socket: WebSocket, message: dict[str, Any]) -> None:
    """Every message the server sends on a game's socket goes through here."""
    text = json.dumps(message, default=_plain, separators=(",", ":"))
    try:
        await socket.send_text(text)
    except Exception as exc:  # closed under us (the reader sees it too): the page is gone, nothing to report
        raise PageGone from exc


async def _answer(socket: WebSocket, game: Table | Replay, text: str, sent: int, stop: threading.Event) -> int:
    """Act on one message of the page and send the frames it causes; returns how many log lines the page has."""
    message = _json_object(text)
    if message is None:
        raise MoveError("malformed message: expected a JSON object")
    kind = message.get("type")
    if isinstance(game, Replay):
        step = message.get("step")
        if kind != "goto" or not isinstance(step, int) or isinstance(step, bool):
            raise MoveError("a replay takes {type: goto, step: N}")
        await send(socket, game.frame(step))
        return 0
    if kind == "move":
        game.move(message.get("version"), message.get("action"))
    elif kind == "step" and game.human is None:
        await run_in_threadpool(game.step, stop)
    else:
        raise MoveError(f"message type {str(kind)[:20]!r} is not one this game takes")
    await send(socket, game.frame(sent))
    return await _agents_turns(socket, game, len(game.log), stop)


async def _agents_turns(socket: WebSocket, game: Table, sent: int, stop: threading.Event) -> int:
    """In a game with a person: the agents' moves up to the person's turn (or the end), one frame each."""
    while game.human is not None and not game.waiting:
        await run_in_threadpool(game.step, stop)
        await send(socket, game.frame(sent))
        sent = len(game.log)
    return sent


async def _read(socket: WebSocket, inbox: asyncio.Queue, gone: threading.Event) -> None:
    """The page's messages into ``inbox`` as they come (a refusal as a ``MoveError``), then None when it closes,
    setting ``gone`` at once: a search running for the page stops."""
    try:
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await inbox.put(MoveError("binary messages are not taken: send JSON text"))
            elif len(text) > MAX_MESSAGE:
                await inbox.put(MoveError(f"message too large: at most {MAX_MESSAGE} characters"))
            else:
                await inbox.put(text)
    except Exception:  # the connection broke: the page is gone all the same
        return
    finally:
        gone.set()
        with contextlib.suppress(asyncio.QueueFull):  # full: the next message read is taken as the end
            inbox.put_nowait(None)


async def play_socket(socket: WebSocket) -> None:
    games: Games = socket.app.state.games
    held = games.find(session_of(socket), socket.path_params["gid"])
    await socket.accept()
    if held is None or not _same_origin(socket):
        await send(socket, {"type": "error", "message": "no such game (it may have ended with the server)"})
        await socket.close(code=4404)
        return
    game, gone = held.game, threading.Event()
    inbox: asyncio.Queue = asyncio.Queue(maxsize=16)
    reader = asyncio.create_task(_read(socket, inbox, gone))
    held.pages += 1
    try:
        async with held.lock:
            await send(socket, game.frame(0))
            sent = await _guarded(socket, _agents_turns(socket, game, len(game.log), gone), 0) \
                if isinstance(game, Table) else 0
        while True:
            item = await inbox.get()
            if item is None or gone.is_set():
                break
            if isinstance(item, MoveError):
                await send(socket, {"type": "error", "message": str(item)})
                continue
            async with held.lock:
                sent = await _guarded(socket, _answer(socket, game, item, sent, gone), sent)
    except (PageGone, Stopped):
        pass  # the page closed: its search stopped, the game stays as it was for the next page
    finally:
        gone.set()
        reader.cancel()
        held.pages -= 1
        held.used = time.monotonic()


async def _guarded(socket: WebSocket, work: Awaitable[int], sent: int) -> int:
    """``work``'s result, or its refusal sent to the page as an error message (then ``sent`` again)."""
    try:
        return await work
    except CardboardError as exc:
        await send(socket, {"type": "error", "message": str(exc)})
    except (PageGone, Stopped):
        raise
    except Exception:  # a game's or agent's bug: the page says so, the details stay in the server's log
        LOG.exception("game %s: a message failed", socket.path_params.get("gid"))
        await send(socket, {"type": "error", "message": "server error (its log has the details)"})
    return sent


def create_app(replays: Sequence[str] = (), host: str = "127.0.0.1", hosts: Iterable[str] = ()) -> Starlette:
    """The app; ``replays``: the results files and self-play folders the page may replay; ``host``: the address
    it is served on and ``hosts`` other names visitors use for it (``allowed_hosts``)."""
    games = Games(replays)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        games.close()

    app = Starlette(routes=[Route("/", page), Route("/api/catalog", catalog), Route("/api/games", create,
                                                                                     methods=["POST"]),
                            WebSocketRoute("/ws/{gid}", play_socket),
                            Mount("/static", StaticFiles(directory=STATIC), name="static")], lifespan=lifespan,
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, hosts),
                                           www_redirect=False)])
    app.state.games = games
    return app

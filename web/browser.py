"""The page in a real browser: Debian's chromium driven by Playwright's Python client (which never downloads a
browser here: it launches ``/usr/bin/chromium``), a server on a free local port in a thread, and the clicks of a
person who always takes the first move the page offers. The browser tests and the docs' screenshots use these.
"""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
MOVES = "#moves [data-group], #moves [data-leaf]"
OVER = '#status[data-over="1"]'


def launch(playwright: Any) -> Any:
    """Chromium from Debian's package (``apt-get install chromium``; ``make test`` installs it when missing)."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: apt-get install -y chromium (make test does it as root)")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served on a free port of 127.0.0.1 in a thread while the block runs; yields its address."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def start_game(page: Any, url: str, mode: str, game: str, wait: bool = True, **fields: Any) -> None:
    """Open the page and start a game from its form (``fields``: options, agents, seat, view, seed, source,
    index, as the form names them); ``wait``: until its first frame is drawn."""
    page.goto(url)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#mode", mode)
    if mode != "replay":
        page.select_option("#game", game)
    for name, value in fields.items():
        if name in ("seat", "view", "source"):
            page.select_option(f"#{name}", str(value))
        else:
            page.fill(f"#{name}", str(value))
    page.click("#go")
    if wait:
        page.wait_for_selector("#status:not(:empty)")


def play_first_moves(page: Any, timeout_s: float = 60, stop_after: int | None = None) -> int:
    """Click the first group or move the page offers until the game is over (or ``stop_after`` moves are made);
    returns the moves made."""
    moves, deadline = 0, time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = page.wait_for_selector(f"{OVER}, {MOVES}")  # the status comes first on the page
        kind = found.evaluate("e => e.id === 'status' ? 'over' : 'leaf' in e.dataset ? 'move' : 'group'")
        if kind == "over" or moves == stop_after:
            return moves
        moves += kind == "move"
        found.click()
    raise TimeoutError(f"the game is not over after {timeout_s} s ({moves} moves)")

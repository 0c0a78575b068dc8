"""``cardboard serve``: the web app on this machine (127.0.0.1 unless ``--host`` says otherwise, with a warning).

    cardboard serve [--port 8000] [--replay results.jsonl] [--replay runs/selfplay/DIR] [--host ADDRESS]
                    [--allow-host NAME]

The page answers only requests addressed to this machine's names (``web.app.allowed_hosts``: 127.0.0.1,
localhost, [::1], the ``--host`` address, each ``--allow-host``), which stops a DNS-rebinding page of another site.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cardboard.envs.errors import CardboardError

SUMMARY = "a local web page: play any game against agents, watch agents play, replay recorded games"
LOCAL = ("127.0.0.1", "localhost", "::1")
WS_MAX_SIZE = 64 * 1024  # bytes of a WebSocket message the server takes (the app refuses over 4 KiB with a message)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[--host H] [--port P] [--replay PATH ...]``."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; another opens the page, "
                             "with no login, to every machine that reaches it)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name visitors use for this machine in the address (repeatable; 127.0.0.1, "
                             "localhost and the --host address are always allowed)")
    parser.add_argument("--replay", action="append", default=[], metavar="PATH",
                        help="a 'play --results' file or a 'selfplay' folder the page may replay (repeatable)")


def run(args: argparse.Namespace, console: Any) -> int:
    """Serve until Ctrl-C (a clean stop: exit code 0)."""
    try:
        import uvicorn

        from cardboard.web.app import create_app
    except ImportError as exc:
        raise CardboardError(f"cardboard serve needs the web extra ({exc.name} is missing): "
                             "pip install -e \".[web]\"") from None
    missing = [path for path in args.replay if not Path(path).exists()]
    if missing:
        raise CardboardError(f"--replay: no such file or folder: {', '.join(missing)}")
    if args.host not in LOCAL:
        console.print(f"[bold red]warning:[/] --host {args.host} opens the page to every machine that can reach "
                      "this one: anyone there can start games and run agents here (there is no login)")
    console.print(f"cardboard serve: http://{'localhost' if args.host in LOCAL else args.host}:{args.port}/ "
                  "(Ctrl-C stops it)", highlight=False)
    uvicorn.run(create_app(args.replay, host=args.host, hosts=args.allow_host), host=args.host, port=args.port,
                log_level="warning", ws="websockets-sansio", ws_max_size=WS_MAX_SIZE)
    console.print("stopped", highlight=False)
    return 0

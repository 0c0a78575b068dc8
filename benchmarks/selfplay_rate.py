"""Self-play games per CPU-hour of two teachers on one game, in one process, one after the other (issue 49's bar:
ten times today's games per CPU-hour at the same teacher budget).

    python benchmarks/selfplay_rate.py lords_of_war --games 20 \
        --teacher ismcts:iterations=1000,prune=h4,hpl=20 \
        --teacher ismcts:iterations=1000,prune=h4,hpl=20,vnet=zoo:lords_of_war-v3
    python benchmarks/selfplay_rate.py hearth --option decks=handlock --games 40 --teacher ... --teacher ...

Each teacher plays ``--games`` self-play games (``training.selfplay.generate``, one process, records written to a
temporary folder as ``cardboard selfplay`` writes them) on the same seed; its rate is games per hour of this
process's CPU time (``time.process_time``, start-up and compilation excluded by a warm-up game first). ``--recorded
N`` (games per CPU-hour measured before, e.g. RESULTS's) adds each teacher's ratio to it.
"""
from __future__ import annotations

import argparse
import tempfile
import time

from cardboard import registry
from cardboard.training.selfplay import generate


def rate(game: str, spec: str, games: int, seed: int, options: dict) -> tuple[float, int]:
    """(games per CPU-hour, records) of ``spec`` playing itself."""
    with tempfile.TemporaryDirectory() as folder:
        generate(game, [spec], 1, seed + 1000, folder + "/warm", options=options)  # compiles the kernels
        start = time.process_time()
        records = 0

        def count(index: int, data: dict) -> None:
            nonlocal records
            records += len(data["action"])

        generate(game, [spec], games, seed, folder + "/run", options=options, on_game=count)
        return games * 3600.0 / (time.process_time() - start), records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--teacher", action="append", required=True, metavar="SPEC")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--recorded", type=float, default=None, help="games per CPU-hour measured before")
    args = parser.parse_args()
    options = registry.parse_game_options(args.option)
    first = None
    for spec in args.teacher:
        per_hour, records = rate(args.game, spec, args.games, args.seed, options)
        first = first or per_hour
        against = f", x{per_hour / args.recorded:.1f} the recorded {args.recorded:g}" if args.recorded else ""
        print(f"{args.game} {spec}: {per_hour:,.0f} games per CPU-hour ({records / args.games:.0f} records a game; "
              f"x{per_hour / first:.2f} the first teacher{against})", flush=True)


if __name__ == "__main__":
    main()

"""The compiled Fifth Aeon rules against the object engine at scale (issue 50): random decisions and DefaultAI games,
every state compared field by field after every move (``envs/fifth_aeon/tests/flat_oracle.py``).

Random games pair the 12 built-in decks in turn, then decks of 40 drawn from the whole pool (every card); DefaultAI
games likewise. Prints the counts and the time; any difference stops the run with the moves that reach it.

Usage: ``.venv/bin/python benchmarks/fifth_aeon_differential.py [--decisions 100000] [--default-ai-games 2000]``
"""
from __future__ import annotations

import argparse
import time

from cardboard.envs.fifth_aeon.cards import DECK_LIST
from cardboard.envs.fifth_aeon.tests.flat_oracle import play_differential
from cardboard.envs.fifth_aeon.tests.test_flat_rules import flat_apply, flat_legal, pool_decks


def decks(g: int):
    """Game g's decks: the built-in pairs, every other game decks from the whole pool."""
    if g % 2:
        return pool_decks(g)
    return DECK_LIST[g // 2 % len(DECK_LIST)], DECK_LIST[(g // 2 * 5 + 3) % len(DECK_LIST)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=100_000, help="random decisions at least")
    parser.add_argument("--default-ai-games", type=int, default=2000)
    args = parser.parse_args()
    start, decisions, games = time.perf_counter(), 0, 0
    while decisions < args.decisions:
        decisions += play_differential({"decks": decks(games)}, games, flat_legal, flat_apply, 10_000)
        games += 1
    print(f"random: {games} games, {decisions} decisions, every state equal ({time.perf_counter() - start:.0f} s)")
    start, decisions = time.perf_counter(), 0
    for g in range(args.default_ai_games):
        decisions += play_differential({"decks": decks(g)}, g, flat_legal, flat_apply, 10_000, policy="default_ai")
    print(f"DefaultAI: {args.default_ai_games} games, {decisions} decisions, every state equal "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

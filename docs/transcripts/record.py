"""Record the terminal transcripts of issue 36: a person (a seeded stand-in typing at the prompts) plays a full
game of Pandemic and of Fifth Aeon as the human seat of ``cardboard play`` in a pseudo-terminal.

    .venv/bin/python docs/transcripts/record.py      # writes docs/transcripts/pandemic.txt and fifth_aeon.txt

At each prompt it types a listed number drawn uniformly (and, once in a while inside a group, ``b`` to go back),
so the transcripts show the grouped menus, what the others did since the last decision, the cards with their text,
forced moves played with a note, and the final board with the winner.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.pty_session import play_in_pty  # noqa: E402

GAMES = {"pandemic": ["--option", "players=2"], "fifth_aeon": []}
SEED = 7
BACK_SHARE = 0.05  # how often the stand-in goes back out of a group


def record(game: str, options: list[str]) -> Path:
    """One game as the human seat 0 against ``random``; the transcript's path."""
    rng = np.random.default_rng(SEED)

    def answer(text: str, moves: int, back: bool) -> str:
        return "b" if back and rng.random() < BACK_SHARE else str(int(rng.integers(moves)) + 1)

    command = [str(ROOT / ".venv" / "bin" / "cardboard"), "play", game, *options, "--agents", "human,random",
               "--games", "1", "--seed", str(SEED)]
    rc, transcript, answers = play_in_pty(command, answer, seconds=600, columns=120)
    if rc != 0:
        raise SystemExit(f"{game}: exit code {rc}\n{transcript[-2000:]}")
    path = Path(__file__).with_name(f"{game}.txt")
    path.write_text(f"$ {' '.join(['cardboard', *command[1:]])}\n{transcript}", encoding="utf-8")
    print(f"{game}: {answers} answers, {len(transcript.splitlines())} lines -> {path.relative_to(ROOT)}")
    return path


if __name__ == "__main__":
    for name, extra in GAMES.items():
        record(name, extra)

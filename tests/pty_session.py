"""A command run in a pseudo-terminal with a person's answers typed at its move prompts: the human seat's full-game
test and the transcripts of ``docs/transcripts/record.py`` (a helper module, not a test file)."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time
from collections.abc import Callable, Sequence

PROMPT = re.compile(r"your move \(1-(\d+)(, b: back)?\): $")


def play_in_pty(command: Sequence[str], answer: Callable[[str, int, bool], str], seconds: float = 120,
                columns: int = 200) -> tuple[int, str, int]:
    """Run ``command`` in a pty; whenever its output ends in a move prompt, type ``answer(text since the last
    answer, the number of listed moves, whether 'b' goes back)``. Returns (exit code, the transcript without colours
    or carriage returns, the number of answers)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(list(command), stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            env={**os.environ, "COLUMNS": str(columns)})
    os.close(slave)
    deadline, transcript, pending, answers = time.monotonic() + seconds, [], "", 0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536).decode(errors="replace")
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            transcript.append(chunk)
            pending += chunk
            prompt = PROMPT.search(pending)
            if prompt:
                os.write(master, f"{answer(pending, int(prompt[1]), bool(prompt[2]))}\n".encode())
                answers, pending = answers + 1, ""
        rc = proc.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return rc, re.sub(r"\x1b\[[0-9;]*m", "", "".join(transcript)).replace("\r\n", "\n"), answers

"""The docs site (``mkdocs.yml``, ``docs/``): it builds with ``--strict``, and every tutorial's code runs.

A tutorial's ``python`` and ``sh`` blocks run in document order as one Python script (a shell block becomes a
``subprocess`` call of bash, so ``.venv/bin/cardboard ...`` goes through the real command line), in a temporary
folder holding a link to this venv as ``.venv``. ``SIZES`` shrinks each tutorial to its smallest size (games,
iterations, epochs, timesteps) before it runs; a tutorial page without an entry there fails, so a new tutorial
is tested too. Other fenced blocks (``toml``, ``text``) are not run.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```\s*$", re.S | re.M)
RUN = {"python": "python", "py": "python", "sh": "sh", "bash": "sh", "shell": "sh"}

# per tutorial page: (pattern, replacement) pairs applied to its code before it runs
SHRINK_CLI = [(r"iterations=\d+", "iterations=8"), (r"--games \d+", "--games 2")]
SIZES: dict[str, list[tuple[str, str]]] = {
    "train_network.md": SHRINK_CLI + [(r"--epochs \d+", "--epochs 1"), (r"games=\d+", "games=1")],
    "add_game.md": [(r"iterations=\d+", "iterations=30"), (r"games=\d+", "games=2"), (r"num_cycles=\d+", "num_cycles=20")],
    "tournament.md": SHRINK_CLI + [(r"--workers \d+", "--workers 1")],
    "tianshou.md": [(r"^EPOCHS, STEPS_PER_EPOCH, ENVS, EVAL_GAMES = .*$", "EPOCHS, STEPS_PER_EPOCH, ENVS, EVAL_GAMES = 1, 64, 1, 1"),
                    (r"VectorReplayBuffer\(50_000", "VectorReplayBuffer(2_000")],
}
NEEDS = {"tianshou.md": "tianshou", "train_network.md": "torch"}
TUTORIALS = sorted(p.name for p in (DOCS / "tutorials").glob("*.md"))


def blocks(page: Path) -> list[tuple[str, str]]:
    """``(kind, code)`` of the page's runnable fenced blocks, in order (kind: ``python`` or ``sh``)."""
    return [(RUN[lang], code) for lang, code in FENCE.findall(page.read_text(encoding="utf-8")) if lang in RUN]


def script(page: Path, sizes: list[tuple[str, str]]) -> str:
    """The page's blocks as one Python script, shrunk by ``sizes``; each replacement must apply somewhere."""
    parts = ["import subprocess"]
    for kind, code in blocks(page):
        parts.append(code if kind == "python" else
                     f"subprocess.run({code!r}, shell=True, check=True, executable='/bin/bash')")
    text = "\n".join(parts)
    for pattern, replacement in sizes:
        text, count = re.subn(pattern, replacement, text, flags=re.M)
        assert count, f"{page.name}: the size pattern {pattern!r} matches nothing (update SIZES)"
    return text


def test_every_tutorial_has_sizes_and_code():
    assert TUTORIALS and sorted(SIZES) == TUTORIALS
    for name in TUTORIALS:
        assert blocks(DOCS / "tutorials" / name), name


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_runs(name, tmp_path):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    code = script(DOCS / "tutorials" / name, SIZES[name])
    (tmp_path / ".venv").symlink_to(BIN.parent, target_is_directory=True)
    (tmp_path / "tutorial.py").write_text(code, encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1")  # one torch thread: the machine is shared
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "tutorial.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (f"docs/tutorials/{name} failed after {time.perf_counter() - start:.0f} s:\n"
                                  f"{textwrap.indent(code, '    ')}\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocstrings_handlers.python")
    pytest.importorskip("material")
    mkdocs = shutil.which("mkdocs", path=str(BIN)) or pytest.fail("mkdocs is not installed in this venv")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([mkdocs, "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    assert (tmp_path / "site" / "reference" / "search" / "index.html").is_file()

"""Search speed of this checkout against an earlier commit's ``search/``, in one process, timing windows interleaved.

Two runs of one script minutes apart differ by more than most changes on a shared 2-core machine; two packages timed
in alternating windows of one process see the same load. The earlier commit's ``search/`` folder is extracted
(``git archive``) and imported as ``cardboard.search_base`` beside this checkout's ``cardboard.search``; both use
this checkout's games (``envs``), so the base must be recent enough to run on them (``GONE`` stands in for what envs
no longer offers it). Each row is one search setting;
each window runs three searches of it; the table gives each row's best and median window (iterations a second) and
the ratio now / base::

    .venv/bin/python benchmarks/ab_search.py --base 2186b42 --rounds 8 [--rows low_ismcts hearth_duct ...]
"""
from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
LINKED = ("envs", "policies", "training", "evaluation", "search")
GONE = {  # imports of an earlier search/ that this checkout's envs no longer serve, and what stands in for them
    "from ..envs.registration import build_agent\n": "build_agent = None  # left envs in issue 48; no row builds one\n",
}


def position(game: str, seed: int = 1, moves: int = 6):
    """A decision point ``moves`` random moves into a game (chance sampled)."""
    import cardboard
    from cardboard.envs.protocol import sample_chance

    state, rng = cardboard.new_state(game, seed=seed), np.random.default_rng(0)
    for _ in range(moves):
        legal = state.legal_actions() if state.current_player >= 0 else None
        state.apply(sample_chance(state, rng) if legal is None else int(legal[rng.integers(len(legal))]))
    while state.current_player < 0:
        state.apply(sample_chance(state, rng))
    return state


def rows_for(package: str, states: dict) -> dict:
    """Each row's search of ``package`` (``search`` or ``search_base``) as a function returning its iterations."""
    mcts = importlib.import_module(f"cardboard.{package}.mcts")
    puct = importlib.import_module(f"cardboard.{package}.strategies").PUCT
    parallel = importlib.import_module(f"cardboard.{package}.parallel")

    def search(game, worlds, iterations=300, engine=None, **config):
        engine = engine or mcts.TreeSearch(mcts.SearchConfig(iterations=iterations, **config), worlds)
        rng = np.random.default_rng(0)
        return lambda: engine.search(states[game], rng).iterations

    tree_parallel = parallel.TreeParallel(mcts.SearchConfig(iterations=300), "ismcts", workers=2)
    return {"low_ismcts": search("lords_of_war", "ismcts", compiled=False),
            "low_uct": search("lords_of_war", "uct", compiled=False),
            "low_puct8": search("lords_of_war", "ismcts", compiled=False, selection=puct(1.25), depth=0, leaves=8),
            "hearth_duct": search("hearth", "duct", compiled=False, depth=2),
            "fa_ismcts": search("fifth_aeon", "ismcts", iterations=50),
            "low_tree_par": search("lords_of_war", None, engine=tree_parallel),
            "low_ismcts_compiled": search("lords_of_war", "ismcts", iterations=2000),
            "hearth_duct_compiled": search("hearth", "duct", iterations=1000, depth=2)}


def measure(rounds: int, rows: list[str] | None) -> None:
    """The interleaved windows and the table (run inside the two-package layout)."""
    import cardboard.search  # noqa: F401  (registers the agents; the base copy must not register them again)
    import cardboard.envs.registration as registration

    registration._register = lambda *args: None
    states = {game: position(game) for game in ("lords_of_war", "hearth", "fifth_aeon")}
    both = {package: rows_for(package, states) for package in ("search_base", "search")}
    which = rows or list(both["search"])
    rates: dict[tuple[str, str], list[float]] = {(p, k): [] for p in both for k in which}
    for p in both:
        for k in which:
            both[p][k]()  # kernels loaded, caches warm
    for _ in range(rounds):
        for k in which:
            for p in both:
                start = time.perf_counter()
                n = sum(both[p][k]() for _ in range(3))
                rates[p, k].append(n / (time.perf_counter() - start))
    print(f"{'row':22s} {'base best':>10s} {'median':>8s} {'now best':>10s} {'median':>8s} {'ratio best':>10s} "
          f"{'median':>7s}")
    for k in which:
        b, r = rates["search_base", k], rates["search", k]
        print(f"{k:22s} {max(b):10,.0f} {statistics.median(b):8,.0f} {max(r):10,.0f} {statistics.median(r):8,.0f} "
              f"{max(r) / max(b):10.3f} {statistics.median(r) / statistics.median(b):7.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit whose search/ is the baseline")
    parser.add_argument("--rounds", type=int, default=8, help="timing windows per row and package")
    parser.add_argument("--rows", nargs="*", help="rows to time (default: all)")
    args = parser.parse_args()
    if os.environ.get("CARDBOARD_AB_LAYOUT"):
        measure(args.rounds, args.rows)
        return
    with tempfile.TemporaryDirectory(prefix="ab_search_") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.base, "search"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        for path in (base / "search").glob("*.py"):
            text = path.read_text()
            for old, new in GONE.items():
                text = text.replace(old, new)
            path.write_text(text)
        package = Path(tmp) / "pkg" / "cardboard"
        shutil.copytree(REPO / "cardboard", package, ignore=shutil.ignore_patterns("__pycache__"))
        for name in LINKED:
            (package / name).symlink_to(REPO / name)
        (package / "search_base").symlink_to(base / "search")
        env = dict(os.environ, PYTHONPATH=str(package.parent), PYTHONSAFEPATH="1", CARDBOARD_AB_LAYOUT="1")
        subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env, check=True, cwd=tmp)


if __name__ == "__main__":
    main()

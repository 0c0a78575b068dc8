"""The walk of the searched state through one ``TreeSearch.search`` call: which files of ``search/`` handle it, in
call order, and how often the walk goes back.

Every call (``sys.setprofile``) of a function of ``search/`` that is handed the searched state, as an argument or
inside one (an argument whose ``state`` is it: ``config.Run``), is one step of the walk. Consecutive steps in one file
are one *stay*; a stay in a file the walk already left is a *return*; a stay in a file that imports the previous stay's
file (directly or through others: ``search/``'s import graph) is a *climb*, control handed back up. A game's own
methods (``envs/``) and the kernels are not steps: they are where the state lives. Usage::

    .venv/bin/python benchmarks/state_walk.py [--game lords_of_war] [--spec ismcts:iterations=64] [--trace]

prints the counts and, with ``--trace``, each stay (file, functions) in order.
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SEARCH = REPO / "search"


def importers() -> dict[str, set[str]]:
    """File stem -> the stems of ``search/`` that import it, directly or through others."""
    direct: dict[str, set[str]] = {p.stem: set() for p in SEARCH.glob("*.py")}
    for path in SEARCH.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                for name in names:
                    if name in direct:
                        direct[name].add(path.stem)
    closed = {}
    for stem in direct:
        seen, todo = set(), [stem]
        while todo:
            for up in direct[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        closed[stem] = seen
    return closed


def walk(state, search) -> list[tuple[str, str]]:
    """(file stem, function) of every step of the walk of ``state`` through ``search()``."""
    steps: list[tuple[str, str]] = []
    root = str(SEARCH)

    def handed(frame) -> bool:
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        local = frame.f_locals
        return any(local.get(n) is state or getattr(local.get(n), "state", None) is state for n in names)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root) and handed(frame):
            steps.append((Path(frame.f_code.co_filename).stem, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        search()
    finally:
        sys.setprofile(None)
    return steps


def stays(steps: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Consecutive steps in one file, merged."""
    out: list[tuple[str, list[str]]] = []
    for stem, name in steps:
        if out and out[-1][0] == stem:
            out[-1][1].append(name)
        else:
            out.append((stem, [name]))
    return out


def counts(merged: list[tuple[str, list[str]]], up: dict[str, set[str]]) -> dict[str, int]:
    """Stays, files, returns and climbs of a walk (module docstring)."""
    seen: set[str] = set()
    returns = climbs = 0
    for i, (stem, _) in enumerate(merged):
        returns += stem in seen
        climbs += i > 0 and stem in up.get(merged[i - 1][0], set())
        seen.add(stem)
    return {"stays": len(merged), "files": len(seen), "returns": returns, "climbs": climbs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="lords_of_war")
    parser.add_argument("--spec", default="ismcts:iterations=64")
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    import cardboard

    game = cardboard.make_game(args.game)
    agent = cardboard.make_agent(args.spec, game)
    state = game.new_state(1)
    while state.current_player < 0 or len(state.legal_actions()) < 2:
        state.apply(int(state.legal_actions()[0]))
    agent.searcher.search(state, np.random.default_rng(0))  # plans and loads the loop: the walk is a later search's
    merged = stays(walk(state, lambda: agent.searcher.search(state, np.random.default_rng(0))))
    if args.trace:
        for stem, names in merged:
            print(f"{stem:16} {', '.join(dict.fromkeys(names))}")
    print(args.game, args.spec, counts(merged, importers()))


if __name__ == "__main__":
    main()

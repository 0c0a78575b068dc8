"""The modules of the Fifth Aeon folder import each other without a cycle (every import counts: module-level,
inside functions, under ``TYPE_CHECKING``), read with ``ast``; the state does not import its bot; the ids card
data may name (``cards``) are the ones ``effects`` and ``targeters`` implement."""
from __future__ import annotations

import ast
from pathlib import Path

from cardboard.envs.fifth_aeon import cards, effects, targeters

FOLDER = Path(__file__).resolve().parent.parent


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module name -> the modules of ``folder`` it imports (relative imports of sibling modules)."""
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {n: set() for n in names}
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    targets = {node.module.split(".")[0]}
                else:
                    targets = {a.name for a in node.names}
                graph[path.stem] |= targets & names
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if "fifth_aeon" in parts[:-1] and parts[-1] in names:
                        graph[path.stem].add(parts[-1])
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_among_the_modules():
    assert cycles(import_graph(FOLDER)) == []


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from .c import x\n")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    (tmp_path / "d.py").write_text("from .a import z\n")
    assert cycles(import_graph(tmp_path)) == [["a", "b", "c"]]


def test_the_state_does_not_import_its_bot():
    assert "default_ai" not in import_graph(FOLDER)["state"]


def test_card_vocabulary_is_what_the_engine_implements():
    assert set(effects.EFFECTS) == cards.MECHANICS
    assert set(targeters.SINGLE) == cards.CHOSEN_TARGETERS
    assert set(targeters.AUTOMATIC) == cards.AUTOMATIC_TARGETERS
    assert set(targeters.HOSTS) == cards.HOST_TARGETERS

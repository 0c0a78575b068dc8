"""Import boundaries between the layers, read from the source with ``ast`` (no module is imported).

The rules are data: ``[tool.cardboard.layers]`` in pyproject.toml names each layer, the modules it holds and the
layers it may import (``LAYERS``); this file only reads them, so rules, test and code cannot disagree. Every
``.py`` file of the package folders (``envs`` is ``cardboard.envs``, and so on, as in setup.py; their ``tests``
folders are not shipped and not checked) is parsed; every ``import`` / ``from ... import`` statement counts, inside
functions too, with relative imports resolved to ``cardboard.*`` names. A ``from X import y`` imports ``X`` and,
when ``y`` is a submodule, ``X.y``: both are checked. ``import cardboard`` counts as importing the registry too
(the package re-exports it: ``cardboard.make_agent``).

Checked: every module belongs to a layer; each import of a cardboard module is of its own layer (its own game or
paper: ``<game>`` / ``<paper>`` make one layer per folder) or of a layer it may import; no layer imports an outside
package it forbids; the imports between layers make no cycle (nor do the rules); and the plugin of
``tests/external`` (a game written outside the repository) imports from cardboard only what
``[tool.cardboard.plugin]`` allows, otherwise only the standard library and itself.
"""
from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {"envs": "cardboard.envs", "search": "cardboard.search", "policies": "cardboard.policies",
          "training": "cardboard.training", "evaluation": "cardboard.evaluation", "jobs": "cardboard.jobs",
          "web": "cardboard.web", "cardboard": "cardboard"}
PLUGIN_ROOT = ROOT / "tests" / "external"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cardboard"]
LAYERS: dict[str, dict] = CONFIG["layers"]
PLUGIN_ALLOWED = tuple(CONFIG["plugin"]["imports"])
TEMPLATES = {"<game>": ROOT / "envs", "<paper>": ROOT / "evaluation" / "papers"}


def folders(parent: Path) -> list[str]:
    """The packages in ``parent`` (folders with an ``__init__.py``; ``tests`` aside)."""
    return sorted(d.name for d in parent.iterdir() if (d / "__init__.py").exists() and d.name != "tests")


GAMES = folders(TEMPLATES["<game>"])
PAPERS = folders(TEMPLATES["<paper>"])


@dataclass(frozen=True)
class Import:
    path: str  # relative to the repository root
    line: int
    module: str  # the importing module
    target: str  # the imported module, or ``X.y`` of ``from X import y`` (a submodule or a mere name)
    statement: str = "import"  # "import", "from" (the X of ``from X import y``) or "name" (its X.y)


def module_name(path: Path, root: Path, package: str) -> str:
    """The dotted name of the module in ``path``, a file under ``root`` (the folder of ``package``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts]) if package else ".".join(parts)


def imports_of(source: str, module: str, path: str, is_package: bool = False) -> Iterator[Import]:
    """Every import in ``source`` (the code of ``module``; ``is_package`` for an ``__init__.py``)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(path, node.lineno, module, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            yield Import(path, node.lineno, module, base, "from")
            for alias in node.names:
                if alias.name != "*":
                    yield Import(path, node.lineno, module, f"{base}.{alias.name}", "name")


def is_under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def prefixes(layers: dict[str, dict]) -> dict[str, str]:
    """Module prefix -> layer node: the layer's name, or ``layer:folder`` for a templated one (``game:hearth``)."""
    out = {}
    for name, layer in layers.items():
        for pattern in layer["modules"]:
            template = next((t for t in TEMPLATES if t in pattern), None)
            if template is None:
                out[pattern] = name
            else:
                for folder in folders(TEMPLATES[template]):
                    out[pattern.replace(template, folder)] = f"{name}:{folder}"
    return out


PREFIXES = prefixes(LAYERS)


def layer_of(module: str, table: dict[str, str] = PREFIXES) -> str | None:
    """The layer node holding ``module``: its longest matching prefix's, else None."""
    best = max((p for p in table if is_under(module, (p,))), key=len, default=None)
    return None if best is None else table[best]


def kind(node: str) -> str:
    return node.partition(":")[0]


def crossing(importer: str, target: str, layers: dict[str, dict] = LAYERS) -> bool:
    """Whether layer node ``importer`` importing node ``target`` breaks the rules."""
    return importer != target and kind(target) not in layers[kind(importer)]["imports"]


def targets_of(imp: Import) -> tuple[str, ...]:
    bare = imp.target == "cardboard" and imp.statement == "import"
    return (imp.target, "cardboard.registry") if bare else (imp.target,)


def violations(found: list[Import], layers: dict[str, dict] = LAYERS) -> list[str]:
    """``path:line: module imports target (why)`` for every import the rules forbid, and every module no layer
    holds."""
    table = prefixes(layers) if layers is not LAYERS else PREFIXES
    out = []
    for imp in found:
        here = layer_of(imp.module, table)
        if here is None:
            out.append(f"{imp.path}: {imp.module} is in no layer (pyproject.toml [tool.cardboard.layers])")
            continue
        for target in targets_of(imp):
            forbid = tuple(layers[kind(here)].get("forbid", ()))
            if is_under(target, forbid):
                out.append(f"{imp.path}:{imp.line}: {imp.module} imports {target} (layer {kind(here)} forbids "
                           f"{target.split('.')[0]})")
            there = layer_of(target, table) if is_under(target, ("cardboard",)) else None
            if there is not None and crossing(here, there, layers):
                out.append(f"{imp.path}:{imp.line}: {imp.module} imports {target} (layer {here} may import "
                           f"{', '.join(layers[kind(here)]['imports']) or 'no other layer'}, not {there})")
    return sorted(set(out))


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph ``edges`` (a path that returns to its start), else None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def layer_graph(found: list[Import]) -> dict[str, set[str]]:
    """Layer node -> the other layer nodes its modules import."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        here = layer_of(imp.module)
        for target in targets_of(imp):
            there = layer_of(target) if is_under(target, ("cardboard",)) else None
            if here is not None and there is not None and there != here:
                edges.setdefault(here, set()).add(there)
    return edges


def plugin_violations(found: list[Import]) -> list[str]:
    """Modules the plugin imports that are neither allowed, the standard library nor its own."""
    return sorted({f"{imp.path}:{imp.line}: {imp.module} imports {imp.target} (a plugin imports only "
                   f"{', '.join(PLUGIN_ALLOWED)} and the standard library)" for imp in found
                   if imp.statement != "name" and not is_under(imp.target, PLUGIN_ALLOWED)
                   and imp.target.split(".")[0] not in sys.stdlib_module_names})


def read_tree(root: Path, package: str, skip: tuple[str, ...] = ("tests",)) -> list[Import]:
    """Every import of every ``.py`` file under ``root`` (the folder of ``package``), ``skip`` folders aside."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if skip and any(part in skip for part in path.relative_to(root).parts[:-1]):
            continue
        found += imports_of(path.read_text(encoding="utf-8"), module_name(path, root, package),
                            str(path.relative_to(ROOT)), is_package=path.name == "__init__.py")
    return found


def _everything() -> list[Import]:
    return [imp for folder, package in LAYOUT.items() for imp in read_tree(ROOT / folder, package)]


def test_the_layers_keep_their_import_boundaries():
    found = _everything()
    assert len(found) > 100 and any(kind(layer_of(imp.module) or "") == "game" for imp in found)  # really read
    bad = violations(found)
    print("\n".join(bad))
    assert not bad, f"{len(bad)} imports cross a layer boundary:\n" + "\n".join(bad)


def test_no_import_cycle_between_layers_and_the_rules_allow_none():
    found = cycle(layer_graph(_everything()))
    assert found is None, "import cycle between layers: " + " -> ".join(found)
    declared = {name: set(layer["imports"]) for name, layer in LAYERS.items()}
    assert cycle(declared) is None, "the rules allow a cycle: " + " -> ".join(cycle(declared))


def test_the_rules_name_only_layers_that_exist():
    for name, layer in LAYERS.items():
        assert set(layer["imports"]) <= set(LAYERS), (name, set(layer["imports"]) - set(LAYERS))
    assert {"lords_of_war", "hearth", "pandemic", "fifth_aeon"} <= set(GAMES)
    assert len(PAPERS) == 5 and all((TEMPLATES["<paper>"] / p / "README.md").exists() for p in PAPERS)


def test_the_plugin_imports_only_public_cardboard():
    found = read_tree(PLUGIN_ROOT, "", skip=())
    assert any(imp.target == "cardboard.api" for imp in found)
    bad = plugin_violations(found)
    assert not bad, "\n".join(bad)


# ---- the checker itself can fail --------------------------------------------------------------------
def _check(source: str, module: str, is_package: bool = False) -> list[str]:
    return violations(list(imports_of(source, module, "x.py", is_package)))


def test_relative_imports_resolve_to_cardboard_names():
    found = list(imports_of("from ...search import mcts\nfrom . import rules\nfrom .state import S\n",
                            "cardboard.envs.hearth.greedy", "x.py"))
    assert {i.target for i in found} == {"cardboard.search", "cardboard.search.mcts", "cardboard.envs.hearth",
                                         "cardboard.envs.hearth.rules", "cardboard.envs.hearth.state",
                                         "cardboard.envs.hearth.state.S"}
    init = list(imports_of("from .rules import x\n", "cardboard.envs.hearth", "x.py", is_package=True))
    assert init[0].target == "cardboard.envs.hearth.rules"


def test_the_checker_flags_each_kind_of_crossing():
    game, other = GAMES[0], GAMES[-1]
    paper, other_paper = PAPERS[0], PAPERS[-1]
    assert GAMES == sorted(set(GAMES)) and len(GAMES) >= 2
    flagged = {
        "game imports search": _check("from ...search import mcts\n", f"cardboard.envs.{game}.rules"),
        "game imports another game": _check(f"from ..{other} import rules\n", f"cardboard.envs.{game}.rules"),
        "game imports torch in a function": _check("def f():\n    import torch.nn\n", f"cardboard.envs.{game}.x"),
        "envs imports the registry": _check("from .. import registry\n", "cardboard.envs.gym_wrappers"),
        "a game imports the cardboard package": _check("import cardboard\n", f"cardboard.envs.{game}.x"),
        "search imports a game": _check(f"from cardboard.envs.{game}.state import S\n", "cardboard.search.mcts"),
        "search imports evaluation": _check("from ..evaluation import match\n", "cardboard.search", True),
        "policies import the CLI": _check("import cardboard.cli\n", "cardboard.policies.agents"),
        "evaluation imports the CLI": _check("from cardboard import cli\n", "cardboard.evaluation.match"),
        "evaluation imports training": _check("from ..training import selfplay\n", "cardboard.evaluation.match"),
        "training imports a game": _check(f"from ..envs.{game} import features\n", "cardboard.training.train"),
        "evaluation imports a paper": _check(f"from .papers.{paper} import x\n", "cardboard.evaluation.match"),
        "a paper imports another": _check(f"from ..{other_paper} import x\n",
                                          f"cardboard.evaluation.papers.{paper}.x"),
        "the CLI imports a game": _check(f"from cardboard.envs.{game} import x\n", "cardboard.cli"),
        "the CLI imports a paper": _check(f"from cardboard.evaluation.papers.{paper} import x\n", "cardboard.cli"),
        "a module in no layer": _check("import numpy\n", "cardboard_extra.x"),
    }
    assert all(flagged.values()), [k for k, v in flagged.items() if not v]
    assert flagged["envs imports the registry"] == [  # the package (its __init__ imports the registry), the module
        f"x.py:1: cardboard.envs.gym_wrappers imports {m} (layer protocol may import no other layer, not registry)"
        for m in ("cardboard", "cardboard.registry")]
    clean = _check("import numpy as np\nfrom ..protocol import CHANCE\nfrom . import rules\n",
                   f"cardboard.envs.{game}.state")
    clean += _check("from ..envs.protocol import GameState\nfrom cardboard import registry\n",
                    "cardboard.evaluation.match")
    clean += _check(f"from cardboard.envs.{game} import x\nfrom cardboard.training import selfplay\n",
                    f"cardboard.evaluation.papers.{paper}.x")
    assert clean == []


def test_the_cycle_finder_finds_one_and_only_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert cycle({"training": {"evaluation"}, "evaluation": {"training"}}) == ["evaluation", "training",
                                                                              "evaluation"]


def test_the_plugin_check_flags_private_cardboard_and_other_packages():
    found = list(imports_of("from cardboard.envs.protocol import CHANCE\nimport torch\nimport numpy as np\n"
                            "from cardboard.api import GameInfo\nimport operator\n", "demo.game", "x.py"))
    assert [v.split(" imports ")[1].split(" ")[0] for v in plugin_violations(found)] == [
        "cardboard.envs.protocol", "torch"]


def module_graph(found: list[Import], modules: set[str]) -> dict[str, set[str]]:
    """Module -> the other modules of ``modules`` it imports (any import: at the top, under ``TYPE_CHECKING`` or in
    a function). ``from X import y`` counts ``X.y`` where that is a module, else ``X``; a module's own packages,
    which Python has initialised before it, are not counted."""
    submodules = {(i.module, i.line, i.target.rpartition(".")[0]) for i in found
                  if i.statement == "name" and i.target in modules}
    edges: dict[str, set[str]] = {}
    for imp in found:
        if imp.statement == "from" and (imp.module, imp.line, imp.target) in submodules:
            continue  # ``from package import submodule``: the submodule counts
        target = imp.target
        if target in modules and target != imp.module and not imp.module.startswith(target + "."):
            edges.setdefault(imp.module, set()).add(target)
    return edges


@pytest.mark.parametrize("folder", ["search", "envs"])
def test_no_import_cycle_between_the_modules_of(folder):
    found = read_tree(ROOT / folder, LAYOUT[folder], skip=("tests",))
    modules = {imp.module for imp in found} | {LAYOUT[folder]}
    loop = cycle(module_graph(found, modules))
    assert loop is None, f"import cycle in {folder}/: " + " -> ".join(loop)


def test_the_module_graph_sees_each_kind_of_import():
    source = ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\nfrom . import b\n"
              "if TYPE_CHECKING:\n    from .c import C\ndef f():\n    from pkg.d import g\n")
    found = list(imports_of(source, "pkg.a", "a.py"))
    graph = module_graph(found, {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"})
    assert graph == {"pkg.a": {"pkg.b", "pkg.c", "pkg.d"}}
    assert cycle({**graph, "pkg.c": {"pkg.a"}}) == ["pkg.a", "pkg.c", "pkg.a"]

"""Import boundaries between the layers, read from the source with ``ast`` (no module is imported).

Every ``.py`` file of the package folders (``envs`` is ``cardboard.envs``, and so on, as in setup.py; their
``tests`` folders are not shipped and not checked) is parsed; every ``import`` / ``from ... import``
statement counts, inside functions too, with relative imports resolved to ``cardboard.*`` names. A
``from X import y`` imports ``X`` and, when ``y`` is a submodule, ``X.y``: both are checked. ``import
cardboard`` counts as importing the registry too (the package re-exports it: ``cardboard.make_agent``).

The rules:

* a game (a folder ``envs/<game>/``) imports no search, policies, training, evaluation, registry or CLI,
  no torch / stable_baselines3 / sb3_contrib, and no other game;
* nothing in ``envs/`` imports torch, the registry or the CLI;
* search imports no game and nothing above it (policies, training, evaluation, registry, CLI);
* policies import no game, training, evaluation, registry or CLI;
* evaluation imports no CLI; training imports no game;
* the plugin of ``tests/external`` (a game written outside the repository) imports from cardboard only
  ``cardboard.api``, and otherwise only numpy, the standard library and itself.
"""
from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {"envs": "cardboard.envs", "search": "cardboard.search", "policies": "cardboard.policies",
          "training": "cardboard.training", "evaluation": "cardboard.evaluation", "cardboard": "cardboard"}
PLUGIN_ROOT = ROOT / "tests" / "external"
GAMES = sorted(d.name for d in (ROOT / "envs").iterdir() if (d / "__init__.py").exists() and d.name != "tests")
ABOVE_SEARCH = ("cardboard.policies", "cardboard.training", "cardboard.evaluation", "cardboard.registry",
                "cardboard.cli")
LEARNING = ("torch", "stable_baselines3", "sb3_contrib")


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


def game_of(module: str) -> str | None:
    """The game a ``cardboard.envs.<game>...`` module belongs to, else None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["cardboard", "envs"] and parts[2] in GAMES else None


def _games_but(own: str | None) -> tuple[str, ...]:
    return tuple(f"cardboard.envs.{g}" for g in GAMES if g != own)


@dataclass(frozen=True)
class Rule:
    says: str
    applies: Callable[[str], bool]  # to an importing module
    forbidden: Callable[[str], tuple[str, ...]]  # the importing module -> forbidden prefixes


RULES = (
    Rule("a game imports no search, policies, training, evaluation, registry, CLI, torch/SB3, or other game",
         lambda m: game_of(m) is not None,
         lambda m: (*ABOVE_SEARCH, "cardboard.search", *LEARNING, *_games_but(game_of(m)))),
    Rule("nothing in envs/ imports torch, the registry or the CLI",
         lambda m: is_under(m, ("cardboard.envs",)),
         lambda m: ("torch", "cardboard.registry", "cardboard.cli")),
    Rule("search imports no game and nothing above it",
         lambda m: is_under(m, ("cardboard.search",)),
         lambda m: (*_games_but(None), *ABOVE_SEARCH)),
    Rule("policies import no game, training, evaluation, registry or CLI",
         lambda m: is_under(m, ("cardboard.policies",)),
         lambda m: (*_games_but(None), "cardboard.training", "cardboard.evaluation", "cardboard.registry",
                    "cardboard.cli")),
    Rule("evaluation imports no CLI", lambda m: is_under(m, ("cardboard.evaluation",)), lambda m: ("cardboard.cli",)),
    Rule("training imports no game", lambda m: is_under(m, ("cardboard.training",)), lambda m: _games_but(None)),
)
PLUGIN_ALLOWED = ("cardboard.api", "numpy", "cardboard_plugins_demo")


def violations(found: list[Import]) -> list[str]:
    """``path:line: module imports target (rule)`` for every import a rule forbids."""
    out = []
    for imp in found:
        bare = imp.target == "cardboard" and imp.statement == "import"
        targets = (imp.target, "cardboard.registry") if bare else (imp.target,)
        for rule in RULES:
            if rule.applies(imp.module) and any(is_under(t, rule.forbidden(imp.module)) for t in targets):
                out.append(f"{imp.path}:{imp.line}: {imp.module} imports {imp.target} ({rule.says})")
    return sorted(set(out))


def plugin_violations(found: list[Import]) -> list[str]:
    """Modules the plugin imports that are neither ``cardboard.api``, numpy, the standard library nor its own."""
    return sorted({f"{imp.path}:{imp.line}: {imp.module} imports {imp.target} (a plugin imports only "
                   "cardboard.api, numpy and the standard library)" for imp in found
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


def test_the_layers_keep_their_import_boundaries():
    found = [imp for folder, package in LAYOUT.items() for imp in read_tree(ROOT / folder, package)]
    assert len(found) > 100 and any(game_of(imp.module) for imp in found)  # the tree was really read
    bad = violations(found)
    print("\n".join(bad))
    assert not bad, f"{len(bad)} imports cross a layer boundary:\n" + "\n".join(bad)


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
        "training imports a game": _check(f"from ..envs.{game} import features\n", "cardboard.training.train"),
    }
    assert all(flagged.values()), [k for k, v in flagged.items() if not v]
    assert flagged["envs imports the registry"] == [
        "x.py:1: cardboard.envs.gym_wrappers imports cardboard.registry "
        "(nothing in envs/ imports torch, the registry or the CLI)"]
    clean = _check("import numpy as np\nfrom ..protocol import CHANCE\nfrom . import rules\n",
                   f"cardboard.envs.{game}.state")
    clean += _check("from ..envs.protocol import GameState\nfrom cardboard import registry\n",
                    "cardboard.evaluation.match")
    assert clean == []


def test_the_plugin_check_flags_private_cardboard_and_other_packages():
    found = list(imports_of("from cardboard.envs.protocol import CHANCE\nimport torch\nimport numpy as np\n"
                            "from cardboard.api import GameInfo\nimport operator\n", "demo.game", "x.py"))
    assert [v.split(" imports ")[1].split(" ")[0] for v in plugin_violations(found)] == [
        "cardboard.envs.protocol", "torch"]

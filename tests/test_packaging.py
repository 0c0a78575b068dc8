"""Packaging: the wheel holds only ``cardboard``, carries its data, and works installed on its own.

The wheel is built from a copy of the source tree (so the build writes no
``build/`` or ``*.egg-info`` into the checkout), installed with ``--no-deps``
into a fresh venv, and imported there with ``PYTHONPATH`` on this venv's
site-packages, so numpy, numba, pettingzoo, ... resolve without downloads.
``.pth`` files on ``PYTHONPATH`` are not processed, so this checkout's
editable install does not leak in: ``cardboard`` must come from the wheel.
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

import cardboard

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"envs": "cardboard.envs", "search": "cardboard.search", "policies": "cardboard.policies",
           "training": "cardboard.training", "evaluation": "cardboard.evaluation", "web": "cardboard.web"}
# every package of the source tree (a folder with __init__.py, tests apart): a new game folder is one of them
PACKAGES = tuple(sorted(
    ".".join((prefix, *init.parent.relative_to(ROOT / folder).parts))
    for folder, prefix in FOLDERS.items() for init in (ROOT / folder).rglob("__init__.py")
    if "tests" not in init.relative_to(ROOT).parts))
DATA_FILE = "cardboard/envs/lords_of_war/armies.json"
HEARTH_DATA = ("cardboard/envs/hearth/brm_cards.json", "cardboard/envs/hearth/decks/mech_mage.json",
               "cardboard/envs/hearth/decks/handlock.json", "cardboard/envs/hearth/decks/face_hunter.json")
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc",
                                     ".pytest_cache", ".hypothesis", "runs", "tests")


def _run(cmd: list[str], timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    # a hang guard, not a speed check: a fresh install compiles every numba kernel (over 2 minutes on a busy 2-core machine)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    shutil.copytree(ROOT, src, ignore=COPY_IGNORE)
    proc = _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(work / "dist"), str(src)],
                timeout=180)
    # setuptools' warnings (a data folder missing from the packages, a deprecated license table) are mistakes
    assert "Warning" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    wheels = list((work / "dist").glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh venv (no pip of its own) with only the wheel installed; its python and environment."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
         timeout=180)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    env["NUMBA_CACHE_DIR"] = str(venv / "numba-cache")  # never write caches into this venv or the checkout
    return python, env


def test_wheel_holds_only_the_cardboard_package(wheel):
    version = cardboard.__version__
    assert wheel.name.startswith(f"cardboard-{version}-")
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"cardboard-{version}.dist-info/"
    squatters = sorted({n.split("/")[0] for n in names if not (n.startswith("cardboard/") or n.startswith(dist_info))})
    assert not squatters, f"the wheel installs top-level names besides cardboard: {squatters}"
    assert DATA_FILE in names
    assert set(HEARTH_DATA) <= set(names), "the hearth card data or deck lists are missing from the wheel"
    assert "cardboard.envs.hearth" in PACKAGES and "cardboard.envs.lords_of_war" in PACKAGES
    for pkg in ("cardboard", *PACKAGES):
        assert f"{pkg.replace('.', '/')}/__init__.py" in names, f"{pkg} is missing from the wheel"
    readmes = [f"cardboard/envs/{d.name}/README.md" for d in (ROOT / "envs").iterdir() if (d / "README.md").exists()]
    assert set(readmes) <= set(names), "a game's README is missing from the wheel"
    zoo = [f"cardboard/policies/models/{f.name}" for f in (ROOT / "policies" / "models").iterdir()
           if f.suffix in (".safetensors", ".md")]
    assert zoo and set(zoo) <= set(names), "the model zoo's weights or cards are missing from the wheel"
    page = [f"cardboard/web/static/{f.name}" for f in (ROOT / "web" / "static").iterdir()]
    assert page and set(page) <= set(names), "cardboard serve's page is missing from the wheel"
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc", ".pyc"))]
    with zipfile.ZipFile(wheel) as zf:
        armies = json.loads(zf.read(DATA_FILE))
        entry_points = zf.read(f"{dist_info}entry_points.txt").decode()
        metadata = zf.read(f"{dist_info}METADATA").decode()
    assert armies
    assert "cardboard = cardboard.cli:main" in entry_points
    assert f"Version: {version}" in metadata and "License-Expression: MIT" in metadata
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert any(r.startswith("numpy") for r in requires)
    heavy = [r for r in requires if r.startswith(("torch", "safetensors", "stable-baselines3", "sb3-contrib"))
             and "extra ==" not in r]
    assert not heavy, f"must stay optional extras: {heavy}"


def test_installed_wheel_imports_and_plays(installed):
    python, env = installed
    # Hearth's data from the wheel, its kernels run as Python: compiling them would add a minute and test numba,
    # not the wheel (Lords of War's compile below shows that kernels compile from an installed wheel)
    hearth = textwrap.dedent(f"""
        import importlib
        import numpy as np
        import cardboard
        for name in {list(PACKAGES)!r}:
            importlib.import_module(name)
        hearth = cardboard.new_state("hearth", seed=0, decks=("handlock", "face_hunter"))
        hearth.random_playout(np.random.default_rng(0))
        assert hearth.is_terminal()
    """)
    _run([str(python), "-c", hearth], env=env | {"NUMBA_DISABLE_JIT": "1"}, cwd=python.parent)
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import cardboard
        state = cardboard.new_state("lords_of_war", seed=0)
        steps = state.random_playout(np.random.default_rng(0))
        print(json.dumps({
            "file": cardboard.__file__,
            "prefix": sys.prefix,
            "steps": steps,
            "terminal": bool(state.is_terminal()),
            "returns": state.returns().tolist(),
        }))
    """)
    out = json.loads(_run([str(python), "-c", script], env=env, cwd=python.parent).stdout.strip().splitlines()[-1])
    venv = Path(out["prefix"]).resolve()
    assert venv == python.parent.parent.resolve()
    assert Path(out["file"]).resolve().is_relative_to(venv), f"cardboard imported from {out['file']}, not the wheel"
    assert out["terminal"] and out["steps"] > 0 and sorted(out["returns"]) in ([-1.0, 1.0], [0.0, 0.0])


def test_installed_console_script(installed):
    python, env = installed
    script = python.parent / "cardboard"
    assert script.exists(), "the wheel installs no 'cardboard' command"
    out = _run([str(python), str(script), "games"], env=env, cwd=python.parent).stdout
    assert "lords_of_war" in out


def test_games_import_without_torch():
    code = ("import sys, cardboard.envs.lords_of_war, cardboard.envs.hearth.features, cardboard; "
            "cardboard.new_state('lords_of_war', seed=0); cardboard.new_state('hearth', seed=0); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'safetensors', 'stable_baselines3', 'sb3_contrib')))")
    out = _run([sys.executable, "-c", code], cwd=ROOT).stdout.strip()
    assert out == "[]", f"importing a game pulls in: {out}"


def test_model_zoo_files_are_package_data():
    """Every shipped model's weights and card match the models package's data globs (the wheel test above checks
    that the files present ship)."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = [f.name for f in (ROOT / "policies" / "models").glob("*-v*.*")]
    assert {n.rsplit(".", 1)[1] for n in shipped} == {"safetensors", "md"}, shipped
    for name in shipped:
        assert any(fnmatch.fnmatch(name, g) for g in globs["cardboard.policies.models"]), name


def test_version_is_declared_once():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "cardboard.__version__"

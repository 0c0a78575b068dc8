"""Packages for the build: each top-level folder is mapped into the ``cardboard`` namespace (``envs`` is
``cardboard.envs``), and every folder below it is found here, so a new game folder ships without a hand-kept
list. Data-only folders (``envs/hearth/decks``) are listed too, as namespace packages, so that their files
ship as package data. Everything else about the build is in pyproject.toml."""
from setuptools import find_namespace_packages, setup

ROOTS = {"cardboard": "cardboard", "cardboard.envs": "envs", "cardboard.policies": "policies",
         "cardboard.search": "search", "cardboard.training": "training", "cardboard.evaluation": "evaluation",
         "cardboard.jobs": "jobs", "cardboard.web": "web"}
EXCLUDE = ("tests", "*.tests", "tests.*", "*.tests.*", "__pycache__", "*.__pycache__")


def packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        found += [name] + [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=EXCLUDE)]
    return found


setup(packages=packages(), package_dir=ROOTS)

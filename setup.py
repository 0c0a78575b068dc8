"""Packages for the build: each top-level folder is mapped into the ``cardboard`` namespace (``envs`` is
``cardboard.envs``), and every package below it is found here, so a new game folder ships without a hand-kept
list. Everything else about the build is in pyproject.toml."""
from setuptools import find_packages, setup

ROOTS = {"cardboard": "cardboard", "cardboard.envs": "envs", "cardboard.policies": "policies",
         "cardboard.search": "search", "cardboard.training": "training", "cardboard.evaluation": "evaluation"}
EXCLUDE = ("tests", "*.tests", "tests.*", "*.tests.*")


def packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        found += [name] + [f"{name}.{sub}" for sub in find_packages(folder, exclude=EXCLUDE)]
    return found


setup(packages=packages(), package_dir=ROOTS)

"""Puts this folder on ``sys.path`` so the test modules can ``from pandemic_helpers import ...``
(the suite runs with ``--import-mode=importlib``, which does not). The helpers are in ``pandemic_helpers``."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

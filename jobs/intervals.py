"""Intervals every long job reports: Wilson for win rates, normal for means, and matplotlib error bars of either."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

WILSON_Z = 1.959963984540054  # two-sided 95% normal quantile (Wilson and normal intervals)


def wilson_interval(successes: float, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half successes); ``low <= p <= high``
    always, so exactly 0 at no success and 1 at ``n`` (the closed form misses both by rounding)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def error_bars(values: Sequence[float], lows: Sequence[float], highs: Sequence[float],
               scale: float = 1.0) -> list[list[float]]:
    """Matplotlib's ``yerr`` for intervals ``[low, high]`` around ``values``, all times ``scale``: the distances
    below and above, clipped at 0 (matplotlib refuses a negative one, which an interval saved by an older run
    or rounded may give)."""
    return [[max(0.0, scale * (v - low)) for v, low in zip(values, lows)],
            [max(0.0, scale * (high - v)) for v, high in zip(values, highs)]]


class Estimate(NamedTuple):
    """A mean with its interval."""

    value: float
    low: float
    high: float


def normal_estimate(values: Sequence[float], z: float = WILSON_Z) -> Estimate:
    """Mean of ``values`` with the normal interval ``mean ± z s / sqrt(n)`` (``s`` the sample standard
    deviation); unbounded with fewer than two values."""
    n = len(values)
    mean = sum(values) / n if n else math.nan
    if n < 2:
        return Estimate(mean, -math.inf, math.inf)
    half = z * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return Estimate(mean, mean - half, mean + half)

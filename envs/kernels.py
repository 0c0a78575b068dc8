"""Compiled helpers shared by the games' rules kernels: the random stream of compiled rollouts.

The stream is xorshift64* (Vigna 2016) on a one-word ``uint64`` array, so a numba kernel can
advance it in place. ``seed_stream`` seeds it from a ``numpy.random.Generator``, so a seeded
search replays its rollouts exactly.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_MULTIPLIER = np.uint64(2685821657736338717)


def seed_stream(rng: np.random.Generator) -> np.ndarray:
    """A fresh stream state drawn from ``rng``: one odd ``uint64`` word (any non-zero word will do)."""
    stream = np.empty(1, dtype=np.uint64)
    stream[0] = rng.bit_generator.random_raw() | 1
    return stream


# inline: a compiled call that passes an array pays reference counting on it, a real cost in rollout loops
@njit(cache=True, nogil=True, inline="always")
def xorshift64star(stream):
    """Advance ``stream[0]`` by one xorshift64* step; return the step's 64-bit output."""
    x = stream[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    stream[0] = x
    return x * _MULTIPLIER


@njit(cache=True, nogil=True, inline="always")
def rand_below(stream, n):
    """A uniform int in [0, n) (n < 2**31) from the top 31 bits of the next output of ``stream``."""
    return np.int64(xorshift64star(stream) >> np.uint64(33)) % n


@njit(cache=True, nogil=True, inline="always")
def rand_unit(stream):
    """A uniform float in [0, 1) from the top 53 bits of the next output of ``stream``."""
    return np.float64(xorshift64star(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def fill_units(stream, out):
    """``out[i] = rand_unit(stream)`` for every i, in order."""
    for i in range(len(out)):
        out[i] = rand_unit(stream)

"""The paper's state evaluations (003 §4.1.3, eq. 3-10), by name, for RHEA's fitness and for analysis.

Single functions (higher is better, in [0, 1]):

=====  ==========================================  ============
name   formula                                     kind
=====  ==========================================  ============
od     N_d / 4 (cures found)                       optimistic
oa     (1/1.3) (1/4) (sum_t A(t) + 0.3 N_d)        optimistic (eq. 4 normalised as the authors' code)
ca     (1/4) sum_t N_c(t) / 24 (cubes off board)   pessimistic
cm     min_t N_c(t) / 24                           pessimistic
cp     prod_t N_c(t) / 24                          pessimistic
b      1 - N_b / 8 (outbreaks)                     pessimistic
=====  ==========================================  ============

A name is ``[w_|p_]f[_g]``: ``f_g`` averages two functions, ``(f + g) / 2`` (003 §5.2.2); ``w_``
makes it 1 at a win and 0 at a loss (eq. 9), ``p_`` 1 at a win and C_p = 0.1 times the value at a
loss (eq. 10). The paper's best: ``p_oa_cm``; the authors' released agent: ``p_oa_cp``.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..errors import InvalidParameterError
from . import layout as L
from .macro import cure_ability

C_P = 0.1  # 003 eq. 10: the penalty factor of p(f) at a loss
GRADIENT_BONUS = 0.3  # 003 eq. 4: "0.3 N_d gives additional pressure if the disease is already cured"
OPTIMISTIC = ("od", "oa")
PESSIMISTIC = ("ca", "cm", "cp", "b")


def _supply(s: np.ndarray) -> np.ndarray:
    return s[L.SUPPLY:L.SUPPLY + L.NUM_COLOURS] / L.CUBES_PER_COLOUR


def _cure_ability(state) -> float:
    out = np.empty(L.NUM_COLOURS)
    cure_ability(state.s, state.cards, out)
    cured = state.s[L.CURED:L.CURED + L.NUM_COLOURS].sum()
    return (out.sum() + GRADIENT_BONUS * cured) / (L.NUM_COLOURS * (1 + GRADIENT_BONUS))


SINGLE: dict[str, Callable] = {
    "od": lambda state: state.s[L.CURED:L.CURED + L.NUM_COLOURS].sum() / L.NUM_COLOURS,
    "oa": _cure_ability,
    "ca": lambda state: float(_supply(state.s).mean()),
    "cm": lambda state: float(_supply(state.s).min()),
    "cp": lambda state: float(_supply(state.s).prod()),
    "b": lambda state: 1.0 - state.s[L.OUTBREAKS] / L.MAX_OUTBREAKS,
}


class Evaluation:
    """A named evaluation: ``evaluation(state, player) -> float`` in [0, 1] (the player is ignored: the game
    is cooperative)."""

    def __init__(self, name: str, parts: tuple[str, ...], wrapper: str):
        self.name, self.parts, self.wrapper = name, parts, wrapper

    def __call__(self, state, player: int = 0) -> float:
        result = state.s[L.RESULT]
        if result == 1 and self.wrapper:
            return 1.0
        value = sum(SINGLE[p](state) for p in self.parts) / len(self.parts)
        if result == -1 and self.wrapper:
            return 0.0 if self.wrapper == "w" else C_P * value
        return float(value)

    def __repr__(self) -> str:
        return f"Evaluation({self.name!r})"


@lru_cache(maxsize=None)
def evaluation(name: str) -> Evaluation:
    """The evaluation called ``name`` (module docstring); InvalidParameterError for any other name."""
    words = name.split("_")
    wrapper = words[0] if words[0] in ("w", "p") and len(words) > 1 else ""
    parts = tuple(words[1:] if wrapper else words)
    if not 1 <= len(parts) <= 2 or any(p not in SINGLE for p in parts) or len(set(parts)) != len(parts):
        raise InvalidParameterError(
            f"pandemic has no evaluation {name!r}: a name is [w_|p_]f[_g] with f, g among "
            f"{', '.join(SINGLE)} (e.g. oa, w_od, p_oa_cm)")
    return Evaluation(name, parts, wrapper)


def all_names() -> list[str]:
    """Every single function and every optimistic + pessimistic pair, plain, w_ and p_ (the paper's 18 + 24)."""
    bases = list(SINGLE) + [f"{o}_{p}" for o in OPTIMISTIC for p in PESSIMISTIC]
    return [prefix + b for b in bases for prefix in ("", "w_", "p_")]

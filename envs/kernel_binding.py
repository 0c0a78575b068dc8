"""Compiled kernels as first-class functions, so that one compiled loop serves every game's kernels and is cached.

A ``cache=True`` kernel that takes other jitted functions as dispatcher arguments is compiled anew in every process
(the dispatcher type names the object); typed as first-class functions (``FunctionType``, called through their C
wrappers) it is cached once per game's argument types. A loop takes the kernels as one int64 array of the addresses
of their C wrappers (``numba.cfunc``'s, public and cached) and their types as ``TypeRef`` arguments, and binds them
with ``bind``: unboxing a first-class function object costs about 4 µs a kernel on every call, an address array
nothing. ``search.compiled`` (whole search iterations) and ``envs.vector`` (batches of games) are such loops.

``next_double`` calls a numpy bit generator's own ``next_double`` by address (``bit_generator.ctypes``), so compiled
code draws exactly what ``Generator.random()`` would, from the same generator.
"""
from __future__ import annotations

import ctypes
from typing import Any, NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .compiled_model import CompiledModel


class Kernels(NamedTuple):
    """A model's kernels for a compiled loop: the addresses of their C wrappers (one int64 array) and their
    first-class function types, which the loop takes as ``TypeRef`` arguments and binds with ``bind``. Passing the
    dispatchers themselves would cost their unboxing (about 4 µs a kernel) on every call of the loop."""

    addresses: np.ndarray
    types: tuple

    def arguments(self) -> tuple:
        return (self.addresses, *self.types)


_C_WRAPPERS: dict[tuple, Any] = {}  # the ``numba.cfunc`` of each kernel and argument types: they own the code


def compiled_kernel(dispatcher: Any, args: tuple) -> tuple[int, Any]:
    """The address of a C wrapper of ``dispatcher``'s function for ``args`` (``numba.cfunc``, compiled once, then read
    from its cache) and its first-class function type."""
    dispatcher.compile(args)  # from numba's cache once the game's module has run it: its signature gives the result
    sig = dispatcher.overloads[args].signature
    wrapper = _C_WRAPPERS.get((dispatcher, args))
    if wrapper is None:
        wrapper = _C_WRAPPERS[dispatcher, args] = numba.cfunc(sig, cache=True)(dispatcher.py_func)
    return wrapper.address, types.FunctionType(sig)


@intrinsic
def bind(typingctx, address, kernel_type):
    """The kernel at ``address`` (a C wrapper's) as a first-class function of the type ``kernel_type`` (a
    ``TypeRef``)."""
    function_type = kernel_type.instance_type

    def codegen(context, builder, signature, args):
        function = cgutils.create_struct_proxy(function_type)(context, builder)
        function.c_addr = builder.inttoptr(args[0], cgutils.voidptr_t)
        function.py_addr = cgutils.get_null_value(cgutils.voidptr_t)
        function.jit_addr = cgutils.get_null_value(cgutils.voidptr_t)
        return function._getvalue()

    return function_type(address, kernel_type), codegen


def shape_of(value: Any) -> Any:
    """What numba's type of ``value`` depends on, cheaply (``numba.typeof`` costs tens of microseconds)."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.ndim
    if isinstance(value, tuple):
        return tuple(shape_of(v) for v in value)
    return type(value)


def typed_kernels(model: CompiledModel, names: tuple[str, ...]) -> tuple[Kernels, Any, Any]:
    """The model's kernels ``names`` for a compiled loop, with numba's types of its state and table; an optional
    kernel the model lacks is replaced by its ``ABSENT`` stand-in (a loop never calls it then)."""
    s, table = numba.typeof(model.state).copy(layout="C", readonly=False), numba.typeof(model.table)
    i64, buf = types.int64, types.int32[::1]
    f64s, i64s, u64s = types.float64[::1], types.int64[::1], types.uint64[::1]
    signatures = {"determinize": (s, table, i64, f64s), "legal_actions": (s, table, buf),
                  "action_keys": (s, table, buf, i64, i64s), "apply": (s, table, i64, buf),
                  "playout": (s, table, buf, u64s, i64), "player": (s,), "turn": (s,), "returns": (s, f64s),
                  "heuristic": (s, table, i64),
                  "evaluations_after": (s, table, buf, i64, i64s, types.boolean, u64s, types.float64[:, ::1]),
                  "observation": (s, table, i64, types.float32[::1]), "sample_chance": (s, table, types.float64),
                  "sensible_actions": (s, table, buf, i64)}
    found = [compiled_kernel(getattr(model, name) or ABSENT[name], signatures[name]) for name in names]
    return Kernels(np.array([a for a, _ in found], dtype=np.int64), tuple(t for _, t in found)), s, table


def kernel_arguments(kernels: Kernels) -> tuple:
    """numba's types of ``Kernels.arguments()``, for a loop compiled ahead."""
    return (types.int64[::1], *(types.TypeRef(t) for t in kernels.types))


@njit(cache=True, nogil=True)
def _no_evaluations(s, table, buf, n, which, extrapolate, stream, out):
    """The scoring kernel of a model without one: never called (such a model never prunes compiled)."""


@njit(cache=True, nogil=True)
def _no_determinize(s, table, player, u):
    """The determinization of a model without one: never called (such a model never runs ISMCTS compiled)."""


@njit(cache=True, nogil=True)
def _no_chance(s, table, u):
    """The chance sampler of a model without one: never called (its game has no chance nodes in play)."""
    return np.int64(-1)


@njit(cache=True, nogil=True)
def _no_sensible(s, table, buf, n):
    """The move filter of a model without one: never called (such a model never searches with ``prune``)."""
    return n


@njit(cache=True, nogil=True)
def _no_observation(s, table, player, out):
    """The observation of a model without one: never called (such a model never searches with a network)."""


ABSENT = {"determinize": _no_determinize, "evaluations_after": _no_evaluations, "sample_chance": _no_chance,
          "sensible_actions": _no_sensible, "observation": _no_observation}  # stand-ins for a model's optional kernels


def generator_addresses(rng: np.random.Generator) -> tuple[int, int]:
    """The address of ``rng``'s bit generator's ``next_double`` and of its state, for ``next_double``; ``rng`` must
    stay alive while they are used."""
    bits = rng.bit_generator.ctypes
    return ctypes.cast(bits.next_double, ctypes.c_void_p).value, bits.state_address


@intrinsic
def next_double(typingctx, function, state):
    """``Generator.random()`` of the generator whose ``generator_addresses`` are ``function`` and ``state``."""

    def codegen(context, builder, signature, args):
        kind = ir.FunctionType(ir.DoubleType(), [cgutils.voidptr_t])
        call = builder.inttoptr(args[0], kind.as_pointer())
        return builder.call(call, [builder.inttoptr(args[1], cgutils.voidptr_t)])

    return types.float64(types.int64, types.int64), codegen

"""Element-wise kernels on Python floats, for the scalar programs of ``symgrad.compile``.

An element-wise primitive's formula (its forward, or one fused ``g * partial``) is lambdified
with the ``math`` module (:func:`symgrad.prim.kernels.scalar_lambdify`). Before it is used it
is checked against the primitive's NumPy kernel on a grid of edge values (zeros of both signs,
small and large numbers, infinities, nan) and on the traced values: where NumPy answers with
inf or nan the math kernel may raise (the program then runs its NumPy twin for that call), but
where both answer they must agree to a few units in the last place. A formula that does not
(a stable NumPy kernel where the plain formula loses accuracy, ``sign`` at nan, ``max`` with
nan) runs as its NumPy kernel on 0-d arrays instead: slower, still the eager values.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.prim.kernels import scalar_lambdify

__all__ = ["FALLBACK", "forward_kernel", "vjp_kernel", "to_float32", "number"]

# what a math kernel raises where NumPy answers with inf or nan: the call runs on NumPy
FALLBACK = (ArithmeticError, ValueError, TypeError)
_RTOL = 1e-12
_RTOL_FLOAT32 = 1e-6  # NumPy's float32 kernels are a few units in the last place off
_INF, _NAN = math.inf, math.nan
_EDGES = (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.7, -3.7, 7.5, -7.5, 30.0, -30.0)
_EDGES += (800.0, -800.0)
_EDGES += (1e-8, -1e-8, _INF, -_INF, _NAN)
_CACHE: dict = {}
_FLOAT32 = struct.Struct("f")


def to_float32(x: float, _pack: Any = _FLOAT32.pack, _unpack: Any = _FLOAT32.unpack) -> float:
    """``x`` rounded to the nearest float32, as a float (as NumPy's cast; where ``struct``
    refuses a finite number too large for float32, OverflowError: NumPy's inf then comes from
    the NumPy program)."""
    return _unpack(_pack(x))[0]


def number(v: Any, dtype: Any) -> Any:
    """A number argument (a constant input, a parameter) as NumPy's kernels see it next to
    arrays of ``dtype``: a float32 array makes a Python float a float32 (NumPy's weak
    promotion). None where it is not a plain real number."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        return None
    v = float(v)
    if dtype != np.float32:
        return v
    try:
        return to_float32(v)
    except OverflowError:
        return math.copysign(math.inf, v)


def forward_kernel(prim: Any, params: tuple, traced: list, dtype: Any) -> Callable:
    """``prim``'s forward on floats, its parameters (see :func:`number`) bound, its result
    rounded to float32 for float32 values."""
    key = (prim, "forward", params, dtype)
    kernel = _CACHE.get(key)
    if kernel is None:
        args = prim.inputs + prim.params
        kernel = _checked(args, prim.expr, prim.numeric, params, traced, None, dtype)
        _CACHE[key] = kernel
    if params:

        def bound(*xs: Any, _k: Callable = kernel, _p: tuple = params) -> float:
            return _k(*xs, *_p)

        kernel = bound
    return _rounded(kernel) if dtype == np.float32 else kernel


def vjp_kernel(
    prim: Any, i: int, params: tuple, traced: list, dtype: Any, grad_dtype: Any
) -> Callable:
    """``g * partial_i`` of ``prim`` on floats: ``f(*inputs, out, g, *params)`` for a step
    computing in ``dtype``, rounded to float32 when input ``i`` (``grad_dtype``) is."""
    key = (prim, i, params, dtype)
    kernel = _CACHE.get(key)
    if kernel is None:
        reference = prim._vjp_kernels.get(i) or prim.vjp_kernel(i)
        args = prim.inputs + (prim.out_symbol, _g_symbol(prim)) + prim.params
        out = prim.numeric
        kernel = _checked(args, prim.vjp_expression(i), reference, params, traced, out, dtype)
        _CACHE[key] = kernel
    return _rounded(kernel) if grad_dtype == np.float32 else kernel


def _g_symbol(prim: Any) -> Any:
    from symgrad.prim.elementwise import _g_symbol

    return _g_symbol(prim.level)


def _rounded(kernel: Callable) -> Callable:
    def rounded(*xs: Any, _k: Callable = kernel, _r: Callable = to_float32) -> float:
        return _r(_k(*xs))

    return rounded


def _checked(
    args: tuple,
    expr: Any,
    reference: Callable,
    params: tuple,
    traced: list,
    out: Any,
    dtype: Any,
) -> Callable:
    """The math kernel of ``expr`` where it agrees with the NumPy ``reference`` on ``dtype``
    values (see the module's note), else ``reference`` itself on 0-d arrays. ``out``: the
    forward kernel, when the kernel checked is a VJP (its arguments then end with the output
    and ``g``)."""
    n = len(args) - len(params)
    try:
        fast = scalar_lambdify(args, expr)
    except Exception:  # noqa: BLE001 - a function the math printer can't write
        return _boxed(reference, n, dtype)
    if n == 0 or len(traced) != n - (2 if out is not None else 0):
        return _boxed(reference, n, dtype)
    n -= 2 if out is not None else 0
    columns = _grid(n, traced, dtype)
    if out is not None:
        with np.errstate(all="ignore"):
            outs = np.asarray(out(*columns, *params), dtype=dtype)
        rows = len(columns[0])
        columns = [np.tile(c, 2) for c in [*columns, np.broadcast_to(outs, (rows,))]]
        columns.append(np.repeat(np.array([1.0, -2.5], dtype), rows))
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(np.asarray(reference(*columns, *params)), columns[0].shape)
    single = dtype == np.float32
    rtol = _RTOL_FLOAT32 if single else _RTOL
    for row, want in zip(zip(*[c.tolist() for c in columns]), expected.tolist()):
        try:
            got = fast(*row, *params)
            if single and type(got) is float:
                got = to_float32(got)
        except FALLBACK[:2]:
            continue
        except Exception:  # noqa: BLE001 - it can't run on floats at all
            return _boxed(reference, len(args) - len(params), dtype)
        if not _agree(got, want, rtol):
            return _boxed(reference, len(args) - len(params), dtype)
    try:  # at the traced values it must run, or the program would never be used
        fast(*[c[-1] for c in columns], *params)
    except Exception:  # noqa: BLE001
        return _boxed(reference, len(args) - len(params), dtype)
    return fast


def _grid(n: int, traced: list, dtype: Any) -> list:
    """Columns of input values: every combination of edge values (a sample of them for more
    than two inputs), then the traced values."""
    if n <= 2:
        rows = list(itertools.product(_EDGES, repeat=n))
    else:
        rng = np.random.default_rng(0)
        rows = [tuple(rng.choice(_EDGES, n)) for _ in range(400)]
    rows.append(tuple(traced))
    return [np.array(c, dtype=dtype) for c in zip(*rows)]


def _agree(got: Any, want: float, rtol: float) -> bool:
    if type(got) is not float and type(got) is not int:
        return False
    if got == want or (got != got and want != want):
        return True
    if math.isinf(got) or math.isinf(want) or got != got or want != want:
        return False
    return abs(got - want) <= rtol * max(abs(got), abs(want))


def _boxed(reference: Callable, n: int, dtype: Any) -> Callable:
    """The NumPy kernel on floats: each of the ``n`` array arguments a 0-d array of ``dtype``
    (the parameters after them as they are), the result a float."""

    def boxed(*xs: Any, _k: Callable = reference, _n: int = n, _d: Any = dtype) -> float:
        return float(_k(*[np.asarray(x, _d) for x in xs[:_n]], *xs[_n:]))

    boxed.boxed = True  # type: ignore[attr-defined]
    return boxed

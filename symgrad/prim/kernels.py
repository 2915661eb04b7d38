"""NumPy kernels from SymPy formulas: the one place that calls ``sympy.lambdify``.

Element-wise primitives build their forward and fused VJP kernels here (once per primitive,
lazily), and so does the code generation of :mod:`symgrad.symbolic`. The arguments are always
symbols the package made itself, never text from a user.
"""

from __future__ import annotations

import functools
import linecache
import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad._data import in_dtype
from symgrad._lazy import sympy as sp
from symgrad._silent import silencer

__all__ = [
    "blockwise",
    "lambdify",
    "scalar_lambdify",
    "MODULES",
    "one_like",
    "zero_like",
    "typed_number",
]

_silent_set, _silent_reset, _SILENT = silencer()


def _erf(x: Any) -> Any:
    try:
        from scipy.special import erf
    except ImportError:  # scipy is optional: fall back to the exact math.erf, one element at a time
        erf = np.vectorize(math.erf, otypes=[np.float64])
    return erf(x)


def _sign(x: Any) -> Any:
    # PyTorch's sign: 0 at nan (|x|'s derivative at nan is 0)
    return np.where(np.isnan(x), 0.0, np.sign(x))


# A Python number in arithmetic with an array costs NumPy 2 about as much again as the
# arithmetic itself on a small array: it settles the number's dtype (NEP 50's weak promotion)
# at every call. A 0-d array of the array's own float dtype gives the same bits, as the number
# is converted to that dtype first either way, for less. (With a 0-d operand, NumPy's scalar
# arithmetic takes the Python number faster still: the number stays.)
_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
ONES = {d: np.ones((), d) for d in _FLOAT_DTYPES}
_LARGEST = {d: float(np.finfo(d).max) for d in _FLOAT_DTYPES}
ZEROS = {d: np.zeros((), d) for d in _FLOAT_DTYPES}
for _table in (ONES, ZEROS):
    for _number in _table.values():
        _number.flags.writeable = False


def one_like(x: Any) -> Any:
    """1 for arithmetic with ``x``: a 0-d array of its dtype where that is cheaper for NumPy
    (``x`` a float32 or float64 array of at least one dimension), else the number 1.

    Examples
    --------
    >>> import numpy as np
    >>> one_like(np.zeros(3, np.float32)).dtype
    dtype('float32')
    >>> one_like(np.arange(3))
    1
    """
    if type(x) is np.ndarray and x.ndim:
        return ONES.get(x.dtype, 1)
    return 1


def zero_like(x: Any) -> Any:
    """0 for arithmetic with ``x``, as :func:`one_like` gives 1.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.5, -2.0])
    >>> np.logaddexp(zero_like(x), x).tolist() == np.logaddexp(0, x).tolist()
    True
    """
    if type(x) is np.ndarray and x.ndim:
        return ZEROS.get(x.dtype, 0)
    return 0


def typed_number(c: Any, like: Any) -> Any:
    """The number ``c`` for arithmetic with the array ``like``: a read-only 0-d array of its
    float dtype where that is cheaper for NumPy and gives the same bits (a finite ``c`` that
    stays finite in that dtype), else ``c`` itself. For code made once and run often (the
    programs of ``symgrad.compile``): it makes a new array at each call.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 3.0], np.float32)
    >>> three = typed_number(3, x)
    >>> three.dtype, (x / three).tobytes() == (x / 3).tobytes()
    (dtype('float32'), True)
    >>> typed_number(3, np.arange(3))  # integers: the number stays
    3
    """
    if (
        type(like) is not np.ndarray
        or not like.ndim
        or like.dtype not in _FLOAT_DTYPES
        or type(c) not in (int, float)
        or not math.isfinite(c)
        or (type(c) is int and abs(c) > 2**53)  # (exact as a double: rounded once either way)
        or abs(c) > _LARGEST[like.dtype]
    ):
        return c
    typed = np.array(c, like.dtype)
    typed.flags.writeable = False
    return typed


def _sigmoid(x: Any) -> Any:
    # PyTorch's formula, so float32 rounds as it does: exp(-x) overflows to inf far left,
    # and 1 / inf is the 0 PyTorch gives there (NumPy's overflow warning is switched off)
    token = _silent_set(_SILENT)
    try:
        one = ONES.get(x.dtype, 1) if type(x) is np.ndarray and x.ndim else 1
        return one / (one + np.exp(-x))
    finally:
        _silent_reset(token)


def _softplus(x: Any) -> Any:
    # log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): no overflow at either end
    return np.logaddexp(0, x)


def _logsumexp(*xs: Any) -> Any:
    """``log(exp(x) + exp(y) + ...)`` as repeated ``logaddexp`` (a shift by the larger term
    and ``log1p``): accurate where one term dominates, +inf where a term is +inf, -inf where
    all are -inf."""
    return functools.reduce(np.logaddexp, xs)


def _power(x: Any, e: Any) -> Any:
    """``x ** e`` as PyTorch computes it for a number exponent: 0.5 and -0.5 are ``sqrt`` and
    ``1 / sqrt`` (so (-0.0) ** -0.5 is -inf and (-inf) ** 0.5 nan), 2, 3 and -2 products."""
    if np.ndim(e) == 0 and np.result_type(x).kind == "f":
        return _special_power(x, e, np.sqrt, _float_power)
    return _float_power(x, e)


def _float_power(x: Any, e: Any) -> Any:
    """``np.power``, float32 as PyTorch's loop over a tensor's elements computes it (``std::pow``
    of a float and a double exponent, or the C library's correctly rounded ``powf``): the
    float64 power rounded once to float32. NumPy's own float32 power is an ulp off for about
    one value in five (``1.0000059604644775 ** 0.75``)."""
    if np.result_type(x, e) != np.float32:
        return np.power(x, e)
    return np.power(x, e, dtype=np.float64).astype(np.float32)


def _pow_dx(v: Any, e: Any, out: Any) -> Any:
    # PyTorch: the derivative is 0 where the exponent is 0, even at v == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        d = e * _power(v, e - 1)
    return np.where(np.equal(e, 0), 0, d)


def _pow_dx_vjp(v: Any, e: Any, out: Any, g: Any) -> Any:
    # PyTorch masks the product: 0 where the exponent is 0 whatever g is (inf, nan)
    return np.where(np.equal(e, 0), 0, g * _pow_dx(v, e, out))


def _pow_dy(v: Any, e: Any, out: Any) -> Any:
    # PyTorch: 0 where v == 0 and e >= 0 (the limit of out * log(v) from the right)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = out * np.log(v)
    return np.where(np.equal(v, 0) & np.greater_equal(e, 0), 0, d)


def _int_power(x: Any, e: Any) -> Any:
    """``x ** e`` with PyTorch's rule for integer tensors and negative integer exponents
    (NumPy refuses them): 1 for x == 1, +-1 for x == -1, else 0 (0 ** -1 too)."""
    if np.result_type(x, e).kind not in "iu" or not np.any(np.less(e, 0)):
        return _float_power(x, e)
    negative = np.less(e, 0)
    out = np.power(x, np.where(negative, 0, e))
    odd = np.not_equal(np.remainder(e, 2), 0)
    reciprocal = np.where(np.equal(x, 1), 1, np.where(np.equal(x, -1), np.where(odd, -1, 1), 0))
    return np.where(negative, reciprocal, out).astype(out.dtype, copy=False)


def _scalar_base_power(y: Any, base: Any) -> Any:
    """``base ** y`` for a number ``base``, converted to an integer exponent's dtype first
    (wrapped around where it can't hold it: ``1000 ** x`` of an int8 ``x`` is
    ``(-24) ** x``, as in PyTorch); a float32 ``y`` takes the base as a float32 number, as
    PyTorch's ``powf`` of two floats."""
    if y.dtype == np.float32 and isinstance(base, (int, float)):
        with np.errstate(over="ignore"):  # a base beyond float32's range is inf, as in PyTorch
            base = np.float32(base)
        return _float_power(base, y)
    return _int_power(in_dtype(base, y.dtype), y)


def _special_power(x: Any, e: Any, sqrt: Any, power: Any) -> Any:
    """``x ** e`` with PyTorch's special exponents, on ``sqrt`` and ``power`` of NumPy or of
    the ``math`` module."""
    if e == 0.5:
        return sqrt(x)
    if e == -0.5:
        return 1 / sqrt(x)
    if e == 2:
        return x * x
    if e == 3:
        return x * x * x
    if e == -2:
        return 1 / (x * x)
    return power(x, e)


def _gelu_kernel(v: Any) -> Any:
    return 0.5 * v * (1 + _erf(v * 0.7071067811865476))


# PyTorch's kBeta (sqrt(2) * 2 / sqrt(pi) * 0.5) halved: 1 / sqrt(2 pi) to its last bit
_HALF_K_BETA = 1.4142135623730951 * 1.1283791670955126 * 0.5 * 0.5


def _gelu_partial(v: Any, out: Any) -> Any:
    x_pdf = v * (_HALF_K_BETA * np.exp(v * v * -0.5))
    erf = _erf(v * 0.7071067811865476)
    if v.dtype == np.float64:
        # PyTorch's double order, cdf + x * pdf: the cdf (0 far left) first, so the x * pdf
        # term, alone the derivative there, survives (-7.7e-22 at -10, not 0)
        return 0.5 * (1 + erf) + x_pdf
    # float32 as PyTorch's vectorized kernel rounds it: the tail's x * pdf is absorbed
    return x_pdf + erf * 0.5 + 0.5


def _any(*conditions: Any) -> Any:
    # NumPy's logical_or.reduce, which SymPy prints for Or, fails on a mix of arrays and numbers
    return functools.reduce(np.logical_or, conditions)


def _all(*conditions: Any) -> Any:
    return functools.reduce(np.logical_and, conditions)


def _special_kernel(name: str) -> Callable:
    """A kernel of :mod:`symgrad.prim.special_functions` (or of ``bessel_functions`` and
    ``gamma_functions``, for ``besseli`` and ``zeta``), imported on first call."""

    def call(*args: Any) -> Any:
        if name == "besseli":
            from symgrad.prim.bessel_functions import besseli as kernel
        elif name == "zeta":
            from symgrad.prim.gamma_functions import zeta as kernel
        else:
            from symgrad.prim import special_functions

            kernel = getattr(special_functions, name)
        return kernel(*args)

    call.__name__ = name
    return call


# what the generated code calls: NumPy, plus erf, PyTorch's sign and power, the stable kernels
# of the functions of symgrad.prim.special, and a two-branch select
MODULES = [
    {
        "erf": _erf,
        "erfc": _special_kernel("erfc"),
        "erfinv": _special_kernel("erfinv"),
        "lgamma": _special_kernel("lgamma"),
        "polygamma": _special_kernel("polygamma"),
        "besseli": _special_kernel("besseli"),
        "zeta": _special_kernel("zeta"),
        "sign": _sign,
        "sigmoid": _sigmoid,
        "softplus": _softplus,
        "logsumexp": _logsumexp,
        "power": _power,
        "select_where": np.where,
        "any_of": _any,
        "all_of": _all,
    },
    "numpy",
]


def _as_where(*pairs: Any) -> Any:
    """A Piecewise as nested ``where`` calls: NumPy's ``select``, which SymPy prints for
    Piecewise, is several times slower for the two or three branches our ops have."""
    select_where = sp.Function("select_where")
    *rest, (last, last_cond) = pairs
    out = last if last_cond == sp.true else select_where(last_cond, last, sp.nan)
    for e, c in reversed(rest):
        out = select_where(c, e, out)
    return out


def _as_kernel_calls(expr: Any) -> Any:
    """Piecewise as ``where`` calls, ``or`` and ``and`` as NumPy's, and powers to an exponent
    that is not a number constant as PyTorch's ``power`` (``x ** p`` with a parameter ``p``)."""
    power, any_of, all_of = sp.Function("power"), sp.Function("any_of"), sp.Function("all_of")
    expr = sp.sympify(expr, strict=True).replace(sp.Piecewise, _as_where)
    expr = expr.replace(sp.Or, any_of).replace(sp.And, all_of)
    return expr.replace(
        lambda e: e.is_Pow and bool(e.exp.free_symbols), lambda e: power(e.base, e.exp)
    )


def lambdify(
    args: Sequence[Any], expr: Any, *, cse: Any = True, where: bool = True, modules: Any = None
) -> Callable:
    """A NumPy function computing ``expr`` (one expression or a list) from ``args``.

    ``cse`` is SymPy's (True, or a function doing the elimination); with ``where``, Piecewise
    branches become nested ``where`` calls and powers to a parameter PyTorch's ``power`` (the
    kernels' choice; generated source keeps SymPy's own printing). ``modules`` replaces
    :data:`MODULES` (another array library's functions, such as JAX's).
    """
    if where:
        if isinstance(expr, (list, tuple)):
            expr = [_as_kernel_calls(e) for e in expr]
        else:
            expr = _as_kernel_calls(expr)
    modules = MODULES if modules is None else modules
    return _generated(sp.lambdify, args, expr, modules=modules, cse=cse, docstring_limit=0)


# Names of collected functions' source in ``linecache``, removed when the next one is made
_COLLECTED: list[str] = []


def _generated(make: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``make(*args, **kwargs)`` (SymPy's lambdify), its source kept in ``linecache`` (for
    tracebacks) until the function is collected and the next one is made.

    SymPy removes the source from the garbage collector's finalizer, which can run while
    ``linecache.checkcache()`` (run by every doctest) walks the names it listed: the walk then
    raises KeyError. The removal moves out of the collector, to this function."""
    while _COLLECTED:
        linecache.cache.pop(_COLLECTED.pop(), None)
    fn = make(*args, **kwargs)
    registry = getattr(weakref.finalize, "_registry", None)
    if registry:
        newest = next(reversed(registry))  # SymPy's finalizer for fn, registered last
        info = registry.get(newest)
        if info is not None and info.weakref() is fn:
            newest.detach()
            weakref.finalize(fn, _COLLECTED.append, fn.__code__.co_filename)
    return fn


def blockwise(kernel: Callable, expr: Any) -> Callable:
    """``kernel``, the element-wise formula ``expr`` lambdified, marked with whether it is
    worth running block by block on large arrays (:mod:`symgrad.prim.blocks`): a formula of
    several operations (its temporaries) or with a function such as cos, not ``g * y``
    alone."""
    kernel.blockwise = sp.count_ops(expr) >= 2 or expr.has(sp.Function)
    return kernel


def _math_printer() -> Any:
    """SymPy's Python printer with powers to a non-integer exponent as :func:`_scalar_power`,
    which raises on a negative base where Python's ``**`` would make a complex number."""
    from sympy.printing.pycode import PythonCodePrinter

    class MathPrinter(PythonCodePrinter):
        def _print_Pow(self, expr: Any, rational: bool = False) -> str:
            e = expr.exp
            if e.is_Integer or e in (sp.S.Half, -sp.S.Half):
                return super()._print_Pow(expr, rational)
            return f"power({self._print(expr.base)}, {self._print(e)})"

    return MathPrinter({"fully_qualified_modules": False, "inline": True})


def _scalar_power(x: float, e: float) -> float:
    """:func:`_power` on floats: where NumPy would answer nan or inf (a negative base to a
    fractional power, zero to a negative one), ``math`` raises ValueError or
    ZeroDivisionError."""
    return _special_power(x, e, math.sqrt, math.pow)


def scalar_lambdify(args: Sequence[Any], expr: Any) -> Callable:
    """A function computing ``expr`` on Python floats with the ``math`` module: no NumPy call,
    so no per-call array overhead; an operation NumPy would answer with inf or nan (a division
    by zero, an overflow, a domain error) raises instead (ArithmeticError, ValueError)."""
    modules = [{"power": _scalar_power}, "math"]
    printer = _math_printer()
    return _generated(
        sp.lambdify, args, expr, modules=modules, cse=True, printer=printer, docstring_limit=0
    )

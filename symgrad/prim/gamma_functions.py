"""NumPy kernels of ``erfcx``, the regularized incomplete gamma functions ``igamma`` and
``igammac`` and the multivariate ``mvlgamma`` (and Hurwitz's ``zeta``, from
:mod:`symgrad.prim.special_functions`), with PyTorch's values at the edges of their domains.
They work in float64 (a float32 input is rounded once).

- ``erfcx(x) = exp(x^2) erfc(x)``: ``exp(x^2) erfc(x)`` below 2, Laplace's continued fraction
  (evaluated from the tail) above, and ``2 exp(x^2) - erfcx(-x)`` below 0;
- ``igamma(a, x)``: the power series of ``P(a, x)`` for ``x < a + 1``, Legendre's continued
  fraction of ``Q(a, x)`` (modified Lentz) elsewhere;
- ``zeta(s, q)``: at least nine terms, then Euler-Maclaurin's correction (Cephes' order).

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.gamma_functions import igamma, zeta
>>> float(np.round(igamma(np.array(1.0), np.array(1.0)), 12))  # 1 - exp(-1)
0.632120558829
>>> float(np.round(zeta(np.array(2.0), np.array(1.0)), 12))  # pi^2 / 6
1.644934066848
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.prim.special_functions import erfc, lgamma, zeta

__all__ = ["erfcx", "igamma", "igammac", "zeta", "mvlgamma", "as_float64"]

_TINY = 1e-300


def as_float64(*xs: Any) -> tuple:
    """The arrays ``xs`` broadcast together in float64, and the dtype of their result (the
    inputs' floating dtype; float32 for integers, as PyTorch's special functions)."""
    arrays = [np.asarray(x) for x in xs]
    dtype = np.result_type(*arrays)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    return (*np.broadcast_arrays(*(a.astype(np.float64) for a in arrays)), dtype)


# -- erfcx ----------------------------------------------------------------------------------------
def _erfcx_fraction(x: np.ndarray) -> np.ndarray:
    """``erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))))``, from 150
    levels deep (x >= 2)."""
    tail = np.zeros_like(x)
    for k in range(150, 0, -1):
        tail = (k / 2) / (x + tail)
    return 1 / (math.sqrt(math.pi) * (x + tail))


_ISPI = 0.56418958354775628694807945156  # 1 / sqrt(pi)


def _erfcx_far(x: np.ndarray) -> np.ndarray:
    """PyTorch's (Faddeeva's) closed forms from x = 50 on: the continued fraction cut after
    four levels, and 1 / (sqrt(pi) x) above 5e7 (so its gradient 2 x erfcx(x) - 2 / sqrt(pi)
    cancels to the same small numbers, 0 far out)."""
    x2 = x * x
    fraction = _ISPI * (x2 * (x2 + 4.5) + 2) / (x * (x2 * (x2 + 5) + 3.75))
    return np.where(x > 5e7, _ISPI / x, fraction)


def _erfcx_positive(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    near, far = x < 2, x >= 50
    middle = ~near & ~far
    out[near] = np.exp(x[near] * x[near]) * erfc(x[near])
    out[middle] = _erfcx_fraction(x[middle])
    out[far] = _erfcx_far(x[far])
    return out


def erfcx(x: Any) -> np.ndarray:
    """The scaled complementary error function ``exp(x^2) erfc(x)`` (inf below about -26.6)."""
    (v, dtype) = as_float64(x)
    with np.errstate(all="ignore"):
        out = _erfcx_positive(np.abs(np.where(np.isnan(v), 0.0, v)))
        # x^2 rounded in the input's dtype, as PyTorch's exp(x * x) rounds it
        square = (np.asarray(x, dtype) * np.asarray(x, dtype)).astype(np.float64)
        out = np.where(v < 0, 2 * np.exp(square) - out, out)
        out = np.where(np.isnan(v), np.nan, out)
        return out.astype(dtype)


# -- the incomplete gamma functions -----------------------------------------------------------
# the logarithm below which PyTorch's (Cephes') prefactor is 0 in float64 and in float32
_MAXLOG = {np.dtype(np.float64): 709.782712893384, np.dtype(np.float32): 88.72283905206835}


def _prefactor(a: np.ndarray, x: np.ndarray, maxlog: float) -> np.ndarray:
    """``x^a exp(-x) / Gamma(a)``, 0 where its logarithm is below ``-maxlog`` (so a tiny ``a``
    gives PyTorch's P = 0 rather than a subnormal prefactor over ``a``)."""
    log_factor = a * np.log(x) - x - lgamma(a)
    return np.where(log_factor < -maxlog, 0.0, np.exp(log_factor))


def _lower_series(a: np.ndarray, x: np.ndarray, maxlog: float) -> np.ndarray:
    """``P(a, x) = x^a exp(-x) / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))``."""
    term = np.ones_like(x)
    total = term.copy()
    for n in range(1, 5000):
        term = term * x / (a + n)
        total = total + term
        if np.all(np.abs(term) <= 1e-17 * np.abs(total)):
            break
    return _prefactor(a, x, maxlog) * total / a


def _upper_fraction(a: np.ndarray, x: np.ndarray, maxlog: float) -> np.ndarray:
    """``Q(a, x)`` by Legendre's continued fraction, modified Lentz (x >= a + 1)."""
    b = x + 1 - a
    c = np.full_like(x, 1 / _TINY)
    d = 1 / b
    h = d.copy()
    for n in range(1, 5000):
        an = -n * (n - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1) <= 1e-16):
            break
    return _prefactor(a, x, maxlog) * h


def _upper_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Q(a, x)`` for a small ``a`` and ``x <= 1.1`` without ``1 - P`` (which cancels to
    rounding noise, even below 0, as ``a`` goes to 0), by Cephes' series as PyTorch sums it:
    ``-expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) sum_n (-x)^n / (n! (a + n))``."""
    factor = np.ones_like(x)
    total = np.zeros_like(x)
    for n in range(1, 2000):
        factor = factor * -x / n
        term = factor / (a + n)
        total = total + term
        if np.all(np.abs(term) <= 1.1102230246251565e-16 * np.abs(total)):
            break
    log_x = np.log(x)
    return -np.expm1(a * log_x - _lgamma_near_1(1 + a)) - np.exp(a * log_x - lgamma(a)) * total


def _lgamma_near_1(v: np.ndarray) -> np.ndarray:
    """``lgamma(v)`` to relative precision (as C's) for ``v`` near 1, where the general
    kernel keeps only absolute precision: ``-gamma z + sum_k zeta(k) (-z)^k / k``, z = v - 1."""
    small = np.abs(v - 1) <= 0.5
    z = np.where(small, v - 1, 0.0)
    total = -_EULER_GAMMA * z
    power = -z
    for k, zeta_k in enumerate(_ZETA_2_TO_60, start=2):
        power = power * -z
        total = total + zeta_k * power / k
    return np.where(small, total, lgamma(v))


def _incomplete(a: np.ndarray, x: np.ndarray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(P, Q)`` where both are finite-domain values; the edges are set by the callers."""
    p, q = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    maxlog = _MAXLOG.get(np.dtype(dtype), _MAXLOG[np.dtype(np.float64)])
    inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    series = inside & ((x <= 1) | (x < a + 1))  # x = 1 too where a + 1 rounds to 1
    fraction = inside & ~series
    if series.any():
        p[series] = _lower_series(a[series], x[series], maxlog)
        q[series] = 1 - p[series]
    if fraction.any():
        q[fraction] = _upper_fraction(a[fraction], x[fraction], maxlog)
        p[fraction] = 1 - q[fraction]
    # PyTorch's choice of the direct series for Q near x = 1 (where it would give 1 - P)
    with np.errstate(divide="ignore"):
        small = inside & (x <= 1.1) & np.where(x <= 0.5, -0.4 / np.log(x) >= a, x * 1.1 >= a)
    if small.any():
        q[small] = _upper_series(a[small], x[small])
    return p, q


def _edges(a: np.ndarray, x: np.ndarray, out: np.ndarray, lower: bool) -> np.ndarray:
    """PyTorch's values at the edges, in its order of precedence: nan below 0; at ``a = 0``
    the limit for ``x > 0``; the value at ``x = 0`` (even for a nan ``a``); at ``a = inf``
    (nan if ``x`` is too); at ``x = inf``."""
    zero, one = (0.0, 1.0) if lower else (1.0, 0.0)
    choices = [
        ((x < 0) | (a < 0), np.nan),
        (a == 0, np.where(x > 0, one, np.nan)),
        (x == 0, zero),
        (np.isposinf(a), np.where(np.isinf(x), np.nan, zero)),
        (np.isposinf(x), one),
    ]
    return np.select([c for c, _ in choices], [v for _, v in choices], out)


def igamma(a: Any, x: Any) -> np.ndarray:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x, dtype = as_float64(a, x)
    with np.errstate(all="ignore"):
        return _edges(a, x, _incomplete(a, x, dtype)[0], True).astype(dtype)


def igammac(a: Any, x: Any) -> np.ndarray:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x, dtype = as_float64(a, x)
    with np.errstate(all="ignore"):
        return _edges(a, x, _incomplete(a, x, dtype)[1], False).astype(dtype)


_EULER_GAMMA = 0.5772156649015329
# zeta(k) for k = 2 .. 60, the Taylor coefficients of lgamma(1 + z)
_ZETA_2_TO_60 = tuple(float(v) for v in zeta(np.arange(2.0, 61.0), np.ones(59)))


# -- the multivariate log-gamma -----------------------------------------------------------------
def mvlgamma(x: Any, p: int) -> np.ndarray:
    """``p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2)``."""
    (v, dtype) = as_float64(x)
    with np.errstate(all="ignore"):
        total = np.full(v.shape, p * (p - 1) / 4 * math.log(math.pi))
        for j in range(p):
            total = total + lgamma(v - j / 2)
        return total.astype(dtype)

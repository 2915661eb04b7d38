"""NumPy kernels of the regularized incomplete gamma functions ``P(a, x)`` (``igamma``) and
``Q(a, x) = 1 - P(a, x)`` (``igammac``), region for region and step for step as PyTorch
computes them (Cephes' ``igam``/``igamc`` by way of SciPy), in the inputs' own dtype:

- ``a`` above 20 with ``x`` near ``a`` (relative distance below 0.3 up to ``a = 200``, below
  ``4.5 / sqrt(a)`` above it): Temme's uniform asymptotic expansion (DLMF 8.12.3/8.12.4);
- otherwise ``P`` by its power series (DLMF 8.11.4) and ``Q`` by Legendre's continued fraction
  (DLMF 8.9.2) or, for ``x <= 1.1``, by a series of its own (DLMF 8.7.3), the other one as
  ``1 -`` it;
- the prefactor ``x^a exp(-x) / Gamma(a)`` through Lanczos' sum where ``x`` is near ``a``.

Each element's sum stops at its own convergence test, as in the scalar C code, so float32 is
computed in float32 (elementary functions rounded once from float64, as C's float functions
are), and literals that C++ keeps in double (``0.4 |a|``, ``x > 1.1``) are compared in float64.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.incomplete_gamma import igamma, igammac
>>> float(np.round(igamma(np.array(1.0), np.array(1.0)), 12))  # 1 - exp(-1)
0.632120558829
>>> float(np.round(igammac(np.array(500.0), np.array(500.0)), 12))  # the asymptotic region
0.494052853912
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.prim import libm
from symgrad.prim.fused import fused_multiply_add
from symgrad.prim.special_functions import erfc, lgamma, zeta
from symgrad.prim.temme_coefficients import TEMME

__all__ = ["igamma", "igammac", "density"]

_F64 = np.float64
_MAXITER = 2000
_SCALAR_MAX = 64  # the most elements the C library is called on one by one
# Cephes' constants per dtype: machine epsilon / 2, the largest log, the continued fraction's
# rescaling threshold and its inverse
_MACHEP = {np.dtype(np.float64): 1.11022302462515654042e-16, np.dtype(np.float32): 2.0**-24}
_MAXLOG = {np.dtype(np.float64): 709.782712893384, np.dtype(np.float32): 88.72283905206835}
_BIG = {np.dtype(np.float64): 4.503599627370496e15, np.dtype(np.float32): 16777216.0}
_BIGINV = {np.dtype(np.float64): 2.22044604925031308085e-16, np.dtype(np.float32): 2.0**-24}
_E = 2.718281828459045
_TWO_PI_FLOAT = 2 * float(np.float32(np.pi))  # PyTorch takes pi in float even for double
# Boost's Lanczos approximation (g = 6.0246800407767296, 13 terms), scaled by exp(-g)
_LANCZOS_G = 6.024680040776729583740234375
_LANCZOS_NUM = (
    0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859,
)  # fmt: skip
# the coefficients of x (x + 1) ... (x + 10), lowest power last
_LANCZOS_DENOM = (
    1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0, 45995730.0, 105258076.0,
    150917976.0, 120543840.0, 39916800.0, 0.0,
)  # fmt: skip
_COUNTER_STEPS = np.array([[1.0], [1.0], [2.0]])  # the continued fraction's c, y and z
_LANCZOS = np.array([_LANCZOS_NUM, _LANCZOS_DENOM]).T  # a row per power, highest first


def _c(name: str, *args: np.ndarray) -> np.ndarray:
    """The C library's ``name`` (its float variant for float32) element by element, as
    PyTorch calls it, on up to ``_SCALAR_MAX`` elements; on more (a Python call per element
    would cost a microsecond each), or without a loadable C library, NumPy's in float64
    rounded once, which differs from it in the last bits only."""
    fn = libm.function(name, args[0].dtype) if args[0].size <= _SCALAR_MAX else None
    if fn is not None:
        return libm.apply(fn, *args)
    wide = (np.asarray(v, dtype=_F64) for v in args)
    return np.asarray(_FALLBACK[name](*wide)).astype(args[0].dtype, copy=False)


def _lanczos_sum(a: np.ndarray, fused: bool) -> np.ndarray:
    """Boost's ``lanczos_sum_expg_scaled``: a rational function, in ``1 / a`` above 1."""
    out = np.empty_like(a)
    flip = np.abs(a) > 1
    for where, y, order in ((flip, 1 / a[flip], -1), (~flip, a[~flip], 1)):
        if y.size:
            num, den = _horner(_LANCZOS[::order], y, fused)
            out[where] = num / den
    return out


def _horner(coefficients: np.ndarray, y: np.ndarray, fused: bool) -> np.ndarray:
    """The polynomials whose coefficients are the columns of ``coefficients`` (highest
    power first) at ``y``, one row each."""
    coefficients = coefficients.astype(y.dtype)[:, :, None]
    total = np.repeat(coefficients[0], y.size, axis=1)
    for c in coefficients[1:]:
        total = _fma(total, y, c, fused)
    return total


def _prefactor(a: np.ndarray, x: np.ndarray, fused: bool = True) -> np.ndarray:
    """``x^a exp(-x) / Gamma(a)``: directly where ``x`` is far from ``a`` (0 below
    ``-MAXLOG``), through Lanczos' sum near it (Maddock's (15)/(16), with exp(a - x)), each
    element by the one form it takes."""
    out = np.empty_like(a)
    far = np.abs(a - x).astype(_F64) > 0.4 * np.abs(a.astype(_F64))
    below_200 = ~far & (a < 200) & (x < 200)
    forms = ((far, _direct), (below_200, _near_below_200), (~(far | below_200), _near_above_200))
    for where, form in forms:
        if where.any():
            out[where] = form(a[where], x[where], fused)
    return out


def _direct(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    dt = a.dtype.type
    log_factor = _fma(a, _c("log", x), -x, fused) - _c("lgamma", a)
    return np.where(log_factor < -dt(_MAXLOG[a.dtype]), dt(0), _c("exp", log_factor))


def _lanczos_factors(a: np.ndarray, fused: bool) -> tuple:
    """``a + g - 1/2`` and ``sqrt((a + g - 1/2) / e) / lanczos_sum(a)``."""
    dt = a.dtype.type
    fac = ((a + dt(_LANCZOS_G)).astype(_F64) - 0.5).astype(a.dtype)
    return fac, np.sqrt(fac / dt(_E)) / _lanczos_sum(a, fused)


def _near_below_200(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    fac, res = _lanczos_factors(a, fused)
    power = _c("pow", x / fac, a)
    return res * (_c("exp", a - x) * power)


def _near_above_200(a: np.ndarray, x: np.ndarray, fused: bool) -> np.ndarray:
    g = a.dtype.type(_LANCZOS_G)
    fac, res = _lanczos_factors(a, fused)
    numfac = ((x - a - g).astype(_F64) + 0.5).astype(a.dtype) / fac
    shift = x.astype(_F64) * (0.5 - float(g)) / fac.astype(_F64)
    # float32: the product is rounded to float before the sum in double (no fused form)
    log1p_part = _c("log1p", numfac) - numfac
    if a.dtype == _F64:
        exponent = _fma(a, log1p_part, shift, fused)
    else:
        exponent = (a * log1p_part).astype(_F64) + shift
    return (res.astype(_F64) * _c("exp", exponent)).astype(a.dtype)


def _fma(x: np.ndarray, y: np.ndarray, z: Any, fused: bool = True) -> np.ndarray:
    """``x * y + z``, rounded once if ``fused``: PyTorch's build contracts these products and
    sums into fused multiply-adds in igammac's kernel, not in igamma's scalar loop."""
    return np.asarray(fused_multiply_add(x, y, z) if fused else x * y + z, dtype=x.dtype)


def _drop(done: np.ndarray, *arrays: np.ndarray) -> tuple:
    """``arrays`` without the elements (the columns) where ``done`` holds."""
    if not done.any():
        return arrays
    keep = np.flatnonzero(~done)
    return tuple(v.take(keep, axis=-1) for v in arrays)


def _lower_sum(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_n x^n / ((a + 1) ... (a + n))``, each element stopped by its own test."""
    eps = a.dtype.type(_MACHEP[a.dtype])
    out = np.ones_like(a)
    idx, r, c, total = np.arange(a.size), a.copy(), np.ones_like(a), np.ones_like(a)
    for _ in range(_MAXITER):
        r = r + 1
        c = c * (x / r)
        total = total + c
        done = c <= eps * total
        out[idx[done]] = total[done]
        idx, r, c, total, x = _drop(done, idx, r, c, total, x)
        if idx.size == 0:
            break
    out[idx] = total
    return out


def _lower_series(a: np.ndarray, x: np.ndarray, fused: bool = True) -> np.ndarray:
    """``P(a, x)`` by its power series (DLMF 8.11.4)."""
    ax = _prefactor(a, x, fused)
    out = np.zeros_like(a)
    live = ax != 0
    out[live] = _lower_sum(a[live], x[live]) * ax[live] / a[live]
    return out


def _upper_series(a: np.ndarray, x: np.ndarray, fused: bool = True) -> np.ndarray:
    """``Q(a, x)`` for ``x <= 1.1`` without ``1 - P`` (DLMF 8.7.3), as
    ``-expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) sum_n (-x)^n / (n! (a + n))``."""
    eps = a.dtype.type(_MACHEP[a.dtype])
    out = np.zeros_like(a)
    idx, fac, total, aa, xx = np.arange(a.size), np.ones_like(a), np.zeros_like(a), a, x
    for n in range(1, _MAXITER):
        fac = fac * (-xx / n)
        term = fac / (aa + n)
        total = total + term
        done = np.abs(term) <= eps * np.abs(total)
        out[idx[done]] = total[done]
        idx, fac, total, aa, xx = _drop(done, idx, fac, total, aa, xx)
        if idx.size == 0:
            break
    out[idx] = total
    log_x = _c("log", x)
    head = -_c("expm1", _fma(a, log_x, -_c("lgamma", 1 + a), fused))
    return _fma(-_c("exp", _fma(a, log_x, -_c("lgamma", a), fused)), out, head, fused)


def _upper_fraction(a: np.ndarray, x: np.ndarray, fused: bool = True) -> np.ndarray:
    """``Q(a, x)`` by Legendre's continued fraction (DLMF 8.9.2), Cephes' recurrence of
    numerators and denominators (the rows of ``last`` and ``prev``), rescaled when they grow
    past ``BIG``."""
    dt = a.dtype.type
    eps, big, biginv = dt(_MACHEP[a.dtype]), dt(_BIG[a.dtype]), dt(_BIGINV[a.dtype])
    ax = _prefactor(a, x, fused)
    out = np.zeros_like(a)
    idx = np.flatnonzero(ax != 0)
    xx = x[idx]
    y = 1 - a[idx]
    z = xx + y + 1
    counters = np.stack([np.zeros_like(xx), y, z])  # c, y, z
    prev, last = np.stack([np.ones_like(xx), xx]), np.stack([xx + 1, z * xx])
    ans = last[0] / last[1]
    for _ in range(_MAXITER):
        counters = counters + _COUNTER_STEPS.astype(a.dtype)
        c, y, z = counters
        yc = y * c
        prev, last = last, _fma(last, z, -(prev * yc), fused)
        ans, t = _fraction_step(last[0], last[1], ans)
        grown = np.abs(last[0]) > big
        if grown.any():
            scale = np.where(grown, biginv, dt(1))
            prev, last = prev * scale, last * scale
        done = t <= eps
        if done.any():
            out[idx[done]] = ans[done]
            idx, ans, counters, prev, last = _drop(done, idx, ans, counters, prev, last)
            if idx.size == 0:
                break
    out[idx] = ans
    return out * ax


def _fraction_step(pk: np.ndarray, qk: np.ndarray, ans: np.ndarray) -> tuple:
    """The next convergent ``pk / qk`` (the last one where ``qk`` is 0) and its relative
    change (1 where ``qk`` is 0)."""
    nonzero = qk != 0
    if nonzero.all():
        r = pk / qk
        return r, np.abs((ans - r) / r)
    r = np.where(nonzero, pk / np.where(nonzero, qk, 1), ans)
    return r, np.where(nonzero, np.abs((ans - r) / r), ans.dtype.type(1))


def _temme_sum(a: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """``sum_k C_k(eta) / a^k``, each ``C_k`` summed from Cephes' table until its terms are
    below epsilon, the outer sum stopped once its terms grow or fall below epsilon; each
    element summed only until its own stop."""
    eps = a.dtype.type(_MACHEP[a.dtype])
    d = TEMME.astype(a.dtype)
    # the largest |eta| first: the sums of C_k that run longest are then a leading slice
    idx = np.argsort(-np.abs(eta), kind="stable")
    powers = np.empty((25, a.size), dtype=a.dtype)
    powers[0] = 1
    for n in range(1, 25):
        powers[n] = eta[idx] * powers[n - 1]
    out = np.empty_like(a)
    aa, total, afac = a[idx], np.zeros_like(a), np.ones_like(a)
    previous = np.full_like(a, np.inf)
    for k in range(25):
        term = _temme_coefficient(d[k], powers, eps) * afac
        keep = ~(np.abs(term) > previous)
        total = np.where(keep, total + term, total)
        keep &= ~(np.abs(term) < eps * np.abs(total))
        if not keep.all():
            out[idx[~keep]] = total[~keep]
            idx, aa, total, afac, term, powers = _drop(~keep, idx, aa, total, afac, term, powers)
        if idx.size == 0:
            return out
        previous, afac = np.abs(term), afac / aa
    out[idx] = total
    return out


def _temme_coefficient(row: np.ndarray, powers: np.ndarray, eps: Any) -> np.ndarray:
    """``C_k(eta) = sum_n row[n] eta^n`` (``powers[n]`` holding ``eta^n``), each element's
    sum stopped at its first term below epsilon (relative to the sum); the sums still open
    stay within a leading slice of ``length`` elements."""
    total = np.full(powers.shape[1], row[0], dtype=powers.dtype)
    open_ = np.ones(total.shape, dtype=bool)
    length = total.size
    for n in range(1, len(row)):
        step = row[n] * powers[n, :length]
        part, live = total[:length], open_[:length]
        np.add(part, step, out=part, where=live)
        live &= ~(np.abs(step) < eps * np.abs(part))
        last = np.flatnonzero(live)
        if last.size == 0:
            break
        length = last[-1] + 1
    return total


def _asymptotic(a: np.ndarray, x: np.ndarray, lower: bool) -> np.ndarray:
    """``P`` (``lower``) or ``Q`` for a large ``a`` near ``x``: ``erfc(-+eta sqrt(a / 2)) / 2
    -+ exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k C_k(eta) / a^k`` (DLMF 8.12.3/8.12.4)."""
    sign = -1 if lower else 1
    ratio = x / a
    sigma = (x - a) / a
    root = np.sqrt(-2 * (_c("log1p", sigma) - sigma))
    eta = np.where(ratio > 1, root, np.where(ratio < 1, -root, 0)).astype(a.dtype)
    res = 0.5 * _c("erfc", sign * eta * np.sqrt(a / 2))
    a64, eta64 = a.astype(_F64), eta.astype(_F64)
    spread = np.sqrt(a.dtype.type(_TWO_PI_FLOAT) * a).astype(_F64)
    tail = sign * _c("exp", -0.5 * a64 * eta64 * eta64) * _temme_sum(a, eta).astype(_F64) / spread
    return (res.astype(_F64) + tail).astype(a.dtype)


def _asymptotic_region(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    distance = np.abs(x - a) / a
    middle = (a > 20) & (a < 200) & (distance < a.dtype.type(0.3))
    return middle | ((a > 200) & (distance < 4.5 / np.sqrt(a)))


def _fill(out: np.ndarray, where: np.ndarray, fn: Callable, a: np.ndarray, x: np.ndarray) -> None:
    if where.any():
        out[where] = fn(a[where], x[where])


def _upper(a: np.ndarray, x: np.ndarray, complement: bool = False) -> np.ndarray:
    """``Q(a, x)`` (``P = 1 - Q`` if ``complement``) for positive finite ``a`` and ``x``, by
    PyTorch's choice of method."""
    out = np.empty_like(a)
    asymptotic = _asymptotic_region(a, x)
    x64, a64 = x.astype(_F64), a.astype(_F64)
    log_x = _c("log", x).astype(_F64)
    by_lower = np.select([x64 > 1.1, x64 <= 0.5], [x < a, -0.4 / log_x < a64], x64 * 1.1 < a64)
    fraction = ~asymptotic & (x64 > 1.1) & ~by_lower
    by_lower &= ~asymptotic
    _fill(out, asymptotic, lambda a, x: _asymptotic(a, x, False), a, x)
    _fill(out, by_lower, lambda a, x: 1 - _lower_series(a, x), a, x)
    rest = ~(asymptotic | by_lower | fraction)
    _fill(out, rest, lambda a, x: _upper_series(a, x, not complement), a, x)
    _fill(out, fraction, lambda a, x: _upper_fraction(a, x, not complement), a, x)
    return 1 - out if complement else out


def _lower(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(a, x)`` for positive finite ``a`` and ``x``, by PyTorch's choice of method, each
    product and sum rounded on its own (as its scalar loop computes)."""
    out = np.empty_like(a)
    asymptotic = _asymptotic_region(a, x)
    by_upper = ~asymptotic & (x > 1) & (x > a)
    _fill(out, asymptotic, lambda a, x: _asymptotic(a, x, True), a, x)
    _fill(out, by_upper, lambda a, x: _upper(a, x, complement=True), a, x)
    _fill(out, ~(asymptotic | by_upper), lambda a, x: _lower_series(a, x, False), a, x)
    return out


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
    return np.select([c for c, _ in choices], [v for _, v in choices], out).astype(out.dtype)


def _incomplete(a: Any, x: Any, lower: bool) -> np.ndarray:
    arrays = [np.asarray(a), np.asarray(x)]
    dtype = np.result_type(*arrays)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    # half precision is computed in float, as PyTorch does
    work = np.promote_types(dtype, np.float32)
    a, x = (v.astype(work) for v in np.broadcast_arrays(*arrays))
    out = np.full(a.shape, np.nan, dtype=work)
    with np.errstate(all="ignore"):
        inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        _fill(out, inside, _lower if lower else _upper, a, x)
        return _edges(a, x, out, lower).astype(dtype)


def igamma(a: Any, x: Any) -> np.ndarray:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return _incomplete(a, x, True)


def igammac(a: Any, x: Any) -> np.ndarray:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete(a, x, False)


def density(a: Any, x: Any) -> np.ndarray:
    """``x^(a - 1) exp(-x) / Gamma(a)``, the derivative of ``P(a, x)`` in ``x``, as PyTorch
    writes it: ``exp((a - 1) log(x) - x - lgamma(a))``, each step rounded in the inputs' dtype
    and ``lgamma`` the C library's in double, rounded once (as PyTorch's ``lgamma`` tensors;
    the large terms of the sum magnify its last bits)."""
    a, x = np.broadcast_arrays(*(np.asarray(v) for v in (a, x)))
    dtype = np.result_type(a, x)
    a, x = a.astype(dtype), x.astype(dtype)
    with np.errstate(all="ignore"):
        log_gamma = _c("lgamma", a.astype(_F64)).astype(dtype)
        return np.exp((a - 1) * np.log(x) - x - log_gamma)


def _lgamma_near_1(v: np.ndarray) -> np.ndarray:
    """``lgamma(v)`` to relative precision (as C's) for ``v`` near 1, where the general
    kernel keeps only absolute precision: ``-gamma z + sum_k zeta(k) (-z)^k / k``, z = v - 1."""
    small = np.abs(v - 1) <= 0.5
    if not small.any():
        return lgamma(v)
    out = lgamma(v) if not small.all() else np.empty_like(v)
    z = v[small] - 1
    total = -_EULER_GAMMA * z
    power = -z
    for k, zeta_k in enumerate(_ZETA_2_TO_60, start=2):
        power = power * -z
        total = total + zeta_k * power / k
    out[small] = total
    return out


_FALLBACK = {
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "erfc": erfc,
    "lgamma": _lgamma_near_1,
    "pow": np.power,
}
_EULER_GAMMA = 0.5772156649015329
# zeta(k) for k = 2 .. 60, the Taylor coefficients of lgamma(1 + z)
_ZETA_2_TO_60 = tuple(float(v) for v in zeta(np.arange(2.0, 61.0), np.ones(59)))
# each loop costs per iteration, not per element: blocks of a large tensor would repeat them
igamma.blockwise = igammac.blockwise = False

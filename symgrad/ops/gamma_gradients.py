"""NumPy kernels of the implicit reparameterization gradients of gamma and beta samples.

A sample ``x`` of a distribution with CDF ``F(x; a)`` moves with its parameter as
``dx/da = -(dF/da) / f(x)``. Both kernels work in float64 and never form ``f(x)`` itself:

- gamma, ``F = P(a, x)``: below ``a + 1`` the power series of ``P`` divided by the density
  leaves ``(x / a) sum_n x^n / ((a + 1)...(a + n))``, whose terms are differentiated one by
  one; above it, Legendre's continued fraction of ``Q`` is differentiated alongside its
  modified-Lentz evaluation (a forward-mode derivative of each step). On each side every
  term has one sign, so nothing cancels.
- beta, ``F = I_x(a, b)`` with ``b`` held fixed: the hypergeometric series of ``I_x`` below
  the mean, and the same series of ``I_{1-x}(b, a)`` above it.

Examples
--------
>>> import numpy as np
>>> from symgrad.ops.gamma_gradients import standard_gamma_grad
>>> float(np.round(standard_gamma_grad(np.array(1.0), np.array(1.0)), 10))
1.1735630272
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim.gamma_functions import as_float64
from symgrad.prim.special_functions import polygamma

__all__ = ["standard_gamma_grad", "dirichlet_grad"]

_TINY = 1e-300


def digamma(x: np.ndarray) -> np.ndarray:
    return polygamma(0, x)


_STEPS = 100_000


def _gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/da`` from ``P = x^a e^-x / Gamma(a + 1) sum_n c_n``, ``c_n = x^n / prod (a + k)``:
    the density is ``x^(a-1) e^-x / Gamma(a)``, so ``dx/da = -(x / a) (S (log x - psi(a + 1))
    + dS/da)`` with ``dc_n/da = -c_n sum_k 1 / (a + k)``."""
    term = np.ones_like(x)
    harmonic = np.zeros_like(x)
    total, slope = term.copy(), np.zeros_like(x)
    live = np.arange(x.size)
    for n in range(1, _STEPS):
        an, xn = a[live], x[live]
        term[live] = term[live] * xn / (an + n)
        harmonic[live] = harmonic[live] + 1 / (an + n)
        total[live] += term[live]
        slope[live] -= term[live] * harmonic[live]
        done = term[live] * (1 + harmonic[live]) <= 1e-17 * (total[live] - slope[live])
        done &= xn < an + n  # past the largest term
        live = live[~done]
        if live.size == 0:
            break
    return -(x / a) * (total * (np.log(x) - digamma(a + 1)) + slope)


def _gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/da`` from ``Q = x^a e^-x / Gamma(a) h`` with ``h`` Legendre's continued fraction:
    ``dx/da = x (h (log x - psi(a)) + dh/da)``, with ``dh/da`` carried through each Lentz step
    as a log-derivative."""
    b, db = x + 1 - a, -np.ones_like(x)
    c, dc = np.full_like(x, 1 / _TINY), np.zeros_like(x)
    d = 1 / b
    dd = -db * d * d
    h, dlog_h = d.copy(), dd / d
    base = np.log(x) - digamma(a)
    live = np.arange(x.size)
    for n in range(1, _STEPS):
        an, dan = -n * (n - a[live]), float(n)
        bl = b[live] = b[live] + 2
        dbl = db[live]
        den = an * d[live] + bl
        dden = dan * d[live] + an * dd[live] + dbl
        den = np.where(np.abs(den) < _TINY, _TINY, den)
        cl = bl + an / c[live]
        dcl = dbl + dan / c[live] - an * dc[live] / c[live] ** 2
        cl = np.where(np.abs(cl) < _TINY, _TINY, cl)
        d[live], dd[live] = 1 / den, -dden / den**2
        c[live], dc[live] = cl, dcl
        step = d[live] * cl
        h[live] *= step
        dstep = dd[live] / d[live] + dcl / cl
        dlog_h[live] += dstep
        # at an integer a the fraction itself ends (an = 0), its derivative does not
        done = np.abs(step - 1) <= 1e-16
        done &= np.abs(dstep) <= 1e-16 * (np.abs(base[live]) + np.abs(dlog_h[live]))
        live = live[~done]
        if live.size == 0:
            break
    return x * h * (base + dlog_h)


def standard_gamma_grad(alpha: Any, x: Any) -> np.ndarray:
    """``dx/dalpha`` of a sample ``x`` of ``Gamma(alpha, 1)`` at fixed CDF value, in the
    dtype of the inputs (nan outside ``alpha > 0``, ``x >= 0``; 0 at ``x = 0``)."""
    a, v, dtype = as_float64(alpha, x)
    out = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        inside = (a > 0) & (v > 0) & np.isfinite(a) & np.isfinite(v)
        series = inside & (v < a + 1)
        fraction = inside & ~series
        if series.any():
            out[series] = _gamma_series(a[series], v[series])
        if fraction.any():
            out[fraction] = _gamma_fraction(a[fraction], v[fraction])
        # PyTorch's 0 at x <= 0 (no sample lies there)
        out[(a > 0) & (v <= 0)] = 0.0
    return out.astype(dtype)


def _beta_series(a: np.ndarray, b: np.ndarray, x: np.ndarray, first: bool) -> np.ndarray:
    """``dI_x(a, b)`` times ``a / (x (1 - x) f(x))``, by the parameter ``a`` (``first``) or
    ``b``, from ``I_x = x^a (1-x)^b / (a B(a, b)) sum_n (a + b)_n / (a + 1)_n x^n``."""
    term = np.ones_like(x)
    dlog = np.zeros_like(x)
    total, slope = term.copy(), np.zeros_like(x)
    ab = a + b
    # whole arrays each step (cheaper than picking the unconverged elements out every time);
    # the terms added after an element converged are below 1e-17 of its sums
    for k in range(_STEPS):
        term *= x * (ab + k) / (a + 1 + k)
        dlog += 1 / (ab + k) - (1 / (a + 1 + k) if first else 0.0)
        total += term
        slope += term * dlog
        if k % 8 == 7:
            scale = np.abs(total) + np.abs(slope)
            done = term * (1 + np.abs(dlog)) <= 1e-17 * scale
            if (done & (x * (ab + k) < a + 1 + k)).all():
                break
    psi_ab = digamma(a + b)
    if first:
        dlog_prefactor = np.log(x) - 1 / a - digamma(a) + psi_ab
    else:
        dlog_prefactor = np.log1p(-x) - digamma(b) + psi_ab
    return total * dlog_prefactor + slope


def dirichlet_grad(x: Any, alpha: Any, total: Any) -> np.ndarray:
    """PyTorch's ``_dirichlet_grad``: ``dx/dalpha / (1 - x)`` for a sample ``x`` of
    ``Beta(alpha, total - alpha)`` with the second parameter held fixed, which is the
    derivative of the gamma draw behind ``x`` over the draws' sum."""
    v, a, t, dtype = as_float64(x, alpha, total)
    b = t - a
    out = np.full(v.shape, np.nan)
    with np.errstate(all="ignore"):
        inside = (a > 0) & (b > 0) & (v > 0) & (v < 1) & np.isfinite(t)
        lower = inside & (v * t <= a)
        upper = inside & ~lower
        va, aa, ba = v[lower], a[lower], b[lower]
        out[lower] = -(va / aa) * _beta_series(aa, ba, va, True)
        # I_x(a, b) = 1 - I_{1-x}(b, a): the derivative in the second parameter, reflected
        y, aa, ba = 1 - v[upper], a[upper], b[upper]
        out[upper] = ((1 - y) / ba) * _beta_series(ba, aa, y, False)
        valid = (a > 0) & (b > 0)
        out[valid & (v == 0)] = 0.0
        at_one = valid & (v == 1)
        out[at_one] = (digamma(t[at_one]) - digamma(a[at_one])) / b[at_one]
    return out.astype(dtype)

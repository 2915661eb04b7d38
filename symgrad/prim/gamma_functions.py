"""NumPy kernels of ``erfcx``, the regularized incomplete gamma functions ``igamma`` and
``igammac`` and the multivariate ``mvlgamma`` (and Hurwitz's ``zeta``, from
:mod:`symgrad.prim.special_functions`), with PyTorch's values at the edges of their domains.
They work in float64 (a float32 input is rounded once).

- ``erfcx(x) = exp(x^2) erfc(x)``: ``exp(x^2) erfc(x)`` below 2, Laplace's continued fraction
  (evaluated from the tail) above, and ``2 exp(x^2) - erfcx(-x)`` below 0;
- ``igamma(a, x)`` and ``igammac(a, x)``: from :mod:`symgrad.prim.incomplete_gamma`;
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

from symgrad.prim.incomplete_gamma import igamma, igammac
from symgrad.prim.special_functions import erfc, lgamma, zeta

__all__ = ["erfcx", "igamma", "igammac", "zeta", "mvlgamma", "as_float64"]


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


# -- the multivariate log-gamma -----------------------------------------------------------------
def mvlgamma(x: Any, p: int) -> np.ndarray:
    """``p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2)``."""
    (v, dtype) = as_float64(x)
    with np.errstate(all="ignore"):
        total = np.full(v.shape, p * (p - 1) / 4 * math.log(math.pi))
        for j in range(p):
            total = total + lgamma(v - j / 2)
        return total.astype(dtype)

"""NumPy kernels of the standard normal distribution's functions PyTorch computes natively:
``log_ndtr`` (the log of its CDF, finite far into the lower tail where the CDF underflows) and
``ndtri`` (its quantile, accurate down to the smallest probabilities), and ``entr``.

Each is computed in float64 and rounded to the input's floating dtype (float32 for integers,
as PyTorch's special functions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.prim.gamma_functions import as_float64, erfcx
from symgrad.prim.special_functions import erfc, erfinv

__all__ = ["entr", "log_ndtr", "ndtri"]

_SQRT1_2 = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _log_ndtr(v: np.ndarray) -> np.ndarray:
    """``log(ndtr(v))`` in float64: below -1 from the scaled ``erfcx`` (``ndtr(v)`` is
    ``erfcx(-v / sqrt 2) / 2 * exp(-v^2 / 2)``), above as ``log1p(-erfc(v / sqrt 2) / 2)``."""
    t = v * _SQRT1_2
    low = v < -1
    with np.errstate(all="ignore"):
        tl = np.where(low, t, -1.0)
        lower = np.log(erfcx(-tl) / 2) - tl * tl
        upper = np.log1p(-erfc(np.where(low, 0.0, t)) / 2)
    return np.where(low, lower, upper)


def log_ndtr(x: Any) -> np.ndarray:
    """The log of the standard normal CDF, accurate in both tails (``-inf`` at ``-inf``)."""
    v, dtype = as_float64(x)
    return _log_ndtr(v).astype(dtype)


# the rational approximations of the normal quantile (relative error about 1e-9) that the
# Newton steps below start from: the central region and the lower tail
_CENTRAL_P = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
              -30.66479806614716, 2.506628277459239)  # fmt: skip
_CENTRAL_Q = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
              -13.28068155288572, 1.0)  # fmt: skip
_TAIL_P = (-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
           4.374664141464968, 2.938163982698783)  # fmt: skip
_TAIL_Q = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1.0)
_TAIL_START = 0.02425


def _polynomial(coefficients: tuple, x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    for c in coefficients:
        out = out * x + c
    return out


def _lower_quantile(q: np.ndarray) -> np.ndarray:
    """The normal quantile of ``q`` in ``(0, 0.5]``: the approximation, then Newton steps on
    ``log_ndtr(x) = log(q)`` (in logs, so the tail's tiny probabilities keep their digits)."""
    with np.errstate(all="ignore"):
        r = np.sqrt(-2 * np.log(q))
        tail = _polynomial(_TAIL_P, r) / _polynomial(_TAIL_Q, r)
        c = q - 0.5
        central = c * _polynomial(_CENTRAL_P, c * c) / _polynomial(_CENTRAL_Q, c * c)
        x = np.where(q < _TAIL_START, tail, central)
        log_q = np.log(q)
        for _ in range(3):
            # d log_ndtr / dx = pdf / cdf = sqrt(2 / pi) / erfcx(-x / sqrt 2)
            x = x - (_log_ndtr(x) - log_q) * erfcx(-x * _SQRT1_2) / _SQRT_2_OVER_PI
    return x


def ndtri(x: Any) -> np.ndarray:
    """The quantile of the standard normal distribution: ``-inf`` at 0, ``inf`` at 1, nan
    outside ``[0, 1]``. Between 1/4 and 3/4 it is ``sqrt(2) erfinv(2 p - 1)``, whose argument
    is exact there (so the quantile keeps its digits near 0); in the tails the quantile of
    ``min(p, 1 - p)`` (``1 - p`` is exact above one half), by Newton steps in logs."""
    v, dtype = as_float64(x)
    inside = (v > 0) & (v < 1)
    p = np.where(inside, v, 0.25)
    upper = p > 0.5
    x = _lower_quantile(np.where(upper, 1 - p, p))
    out = np.where(upper, -x, x)
    central = (p >= 0.25) & (p <= 0.75)
    out = np.where(central, math.sqrt(2) * erfinv(np.where(central, 2 * p - 1, 0.0)), out)
    out = np.where(v == 0, -np.inf, np.where(v == 1, np.inf, out))
    out = np.where(inside | (v == 0) | (v == 1), out, np.nan)
    return out.astype(dtype)


def entr(x: Any) -> np.ndarray:
    """``-x log x``: 0 at 0, ``-inf`` below 0, nan for nan."""
    v, dtype = as_float64(x)
    with np.errstate(all="ignore"):
        out = -v * np.log(np.where(v > 0, v, 1.0))
    out = np.where(v > 0, out, np.where(v == 0, 0.0, -np.inf))
    return np.where(np.isnan(v), np.nan, out).astype(dtype)

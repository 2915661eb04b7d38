"""NumPy kernels of the orthogonal polynomials of ``torch.special``: Chebyshev's ``T``, ``U``,
``V``, ``W`` (and their shifted forms, in ``2x - 1``), Hermite's ``H`` and ``He``, Laguerre's
``L`` and Legendre's ``P``, each of degree ``n`` (a tensor or a number, truncated to an
integer), computed in the input's own floating dtype as PyTorch does:

- 0 for a negative degree (also a nan or infinite one);
- the known values at the ends ``x = +-1`` (Chebyshev, Legendre) and at ``x = 0``
  (Laguerre);
- for ``|x| < 1`` and a degree above 6 (``T`` and the shifted ones) or 8 (``U``, ``V``,
  ``W``), the trigonometric form, such as ``T_n(cos t) = cos(n t)``;
- otherwise the three-term recurrence; Hermite's polynomials are nan above degree 128
  (float32) or 512 (float64), where PyTorch gives up.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.orthogonal_polynomials import chebyshev_polynomial_t, hermite_polynomial_h
>>> float(chebyshev_polynomial_t(np.array(0.5), np.array(2.0)))  # 2 x^2 - 1
-0.5
>>> float(hermite_polynomial_h(np.array(1.0), np.array(3.0)))  # 8 x^3 - 12 x
-4.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
]  # fmt: skip


def _operands(x: Any, n: Any) -> tuple[np.ndarray, np.ndarray, type]:
    """``x`` in its floating dtype and the integer degree, broadcast together."""
    x, n = np.asarray(x), np.asarray(n)
    dtype = np.result_type(x, n)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    x = x.astype(dtype)
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(n) if n.dtype.kind == "f" else np.ones(n.shape, bool)
        limit = np.abs(n) < 2.0**62 if n.dtype.kind == "f" else np.ones(n.shape, bool)
        degree = np.where(finite & limit, n, -1).astype(np.int64)
    x, degree = np.broadcast_arrays(x, degree)
    return x, degree, dtype.type


def _recurrence(x: np.ndarray, n: np.ndarray, first: np.ndarray, step: Callable) -> np.ndarray:
    """``p_n`` from ``p_0 = 1``, ``p_1 = first`` and ``p_{k+1} = step(k, p_{k-1}, p_k)``,
    stopping at each element's own degree."""
    p, q = np.ones_like(x), first.copy()
    top = int(n.max(initial=0))
    for k in range(1, top):
        r = step(k, p, q)
        more = k < n
        p, q = np.where(more, q, p), np.where(more, r, q)
    return np.where(n == 0, 1, q).astype(x.dtype)


def _chebyshev(kind: str, x: np.ndarray, n: np.ndarray, f: type, shifted: bool) -> np.ndarray:
    two = x + x
    first = {"t": x, "u": two, "v": two - f(1), "w": two + f(1)}[kind]
    out = _recurrence(x, n, first, lambda k, p, q: two * q - p)
    inside = np.abs(x) < 1
    theta = np.arccos(np.where(inside, x, 0))
    m = n.astype(x.dtype)
    odd = n % 2 == 1
    sign = np.where(odd, f(-1), f(1))
    if kind == "t":
        trig, trig_from, ends = np.cos(m * theta), 6, np.where(x > 0, f(1), sign)
    elif kind == "u":
        s = np.sin(theta)
        with np.errstate(all="ignore"):
            trig = np.where(
                s != 0, np.sin((m + 1) * theta) / s, (m + 1) * np.cos((m + 1) * theta) / x
            )
        trig_from, ends = 8, np.where(x > 0, m + 1, sign * (m + 1))
    elif kind == "v":
        edge = np.sin(theta / 2) == 1
        with np.errstate(all="ignore"):
            trig = np.where(
                edge, sign * (m + m + 1), np.cos((m + f(0.5)) * theta) / np.cos(theta / 2)
            )
        trig_from, ends = 8, np.where(x > 0, f(1), sign * (m + m + 1))
    else:
        edge = np.cos(theta / 2) == 1
        at_edge = np.where(x > 0, m + m + 1, sign)
        with np.errstate(all="ignore"):
            trig = np.where(edge, at_edge, np.sin((m + f(0.5)) * theta) / np.sin(theta / 2))
        trig_from, ends = 8, np.where(x > 0, m + m + 1, sign)
    # PyTorch switches the shifted polynomials to the trigonometric form from degree 7
    out = np.where(inside & (n > (6 if shifted else trig_from)), trig, out)
    out = np.where(np.abs(x) == 1, ends, out)
    return np.where(n < 0, 0, out).astype(x.dtype)


def _family(kind: str, shifted: bool) -> Callable:
    def kernel(x: Any, n: Any) -> np.ndarray:
        x, n, f = _operands(x, n)
        if shifted:
            x = x + x - f(1)
        with np.errstate(over="ignore", invalid="ignore"):
            return _chebyshev(kind, x, n, f, shifted)

    kernel.__name__ = f"{'shifted_' if shifted else ''}chebyshev_polynomial_{kind}"
    return kernel


chebyshev_polynomial_t = _family("t", False)
chebyshev_polynomial_u = _family("u", False)
chebyshev_polynomial_v = _family("v", False)
chebyshev_polynomial_w = _family("w", False)
shifted_chebyshev_polynomial_t = _family("t", True)
shifted_chebyshev_polynomial_u = _family("u", True)
shifted_chebyshev_polynomial_v = _family("v", True)
shifted_chebyshev_polynomial_w = _family("w", True)


def _hermite(physicists: bool) -> Callable:
    def kernel(x: Any, n: Any) -> np.ndarray:
        x, n, f = _operands(x, n)
        limit = 128 if x.dtype == np.float32 else 512
        with np.errstate(over="ignore", invalid="ignore"):
            if physicists:
                two = x + x
                out = _recurrence(x, n, two, lambda k, p, q: two * q - f(2 * k) * p)
            else:
                out = _recurrence(x, n, x, lambda k, p, q: x * q - f(k) * p)
        out = np.where(n > limit, np.nan, out)
        return np.where(n < 0, 0, out).astype(x.dtype)

    kernel.__name__ = "hermite_polynomial_h" if physicists else "hermite_polynomial_he"
    return kernel


hermite_polynomial_h = _hermite(True)
hermite_polynomial_he = _hermite(False)


def laguerre_polynomial_l(x: Any, n: Any) -> np.ndarray:
    """Laguerre's ``L_n(x)``, 1 at ``x = 0``."""
    x, n, f = _operands(x, n)
    one_minus = f(1) - x
    with np.errstate(over="ignore", invalid="ignore"):
        out = _recurrence(
            x, n, one_minus, lambda k, p, q: ((f(k + k) + one_minus) * q - f(k) * p) / f(k + 1)
        )
    out = np.where(x == 0, 1, out)
    return np.where(n < 0, 0, out).astype(x.dtype)


def legendre_polynomial_p(x: Any, n: Any) -> np.ndarray:
    """Legendre's ``P_n(x)``, +-1 at ``x = +-1``."""
    x, n, f = _operands(x, n)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _recurrence(x, n, x, lambda k, p, q: (f(k + k + 1) * x * q - f(k) * p) / f(k + 1))
    ends = np.where((x > 0) | (n % 2 == 0), f(1), f(-1))
    out = np.where(np.abs(x) == 1, ends, out)
    return np.where(n < 0, 0, out).astype(x.dtype)

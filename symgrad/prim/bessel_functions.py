"""NumPy kernels of the Bessel family of ``torch.special``: ``J0``, ``J1``, ``Y0``, ``Y1``,
the modified ``I0``, ``I1``, ``K0``, ``K1`` (and their exponentially scaled forms), the
spherical ``j0`` and Airy's ``Ai``, with PyTorch's values at 0, at the infinities and outside
the domain.

All work in float64 (a float32 input is rounded once at the end), by three methods picked by
the size of the argument (``J``, ``Y``, ``I`` and ``Ai`` are nan at the infinities, as in
PyTorch):

- power series where the terms do not cancel (small arguments, and ``I`` below 30);
- Miller's backward recurrence for ``J`` of any order sequence ``nu, nu + 1, ...`` normalised
  by the Neumann sum of ``(x / 2) ** nu`` (moderate arguments; ``Y`` from its Neumann series
  over the same values), the integral ``K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt`` by
  the trapezoidal rule, which converges geometrically for this analytic even integrand;
- Hankel's asymptotic expansions beyond 25 (``J``, ``Y``) or 30 (``I``, ``K``), summed to 30
  terms.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.bessel_functions import bessel_j0, modified_bessel_k0
>>> float(np.round(bessel_j0(np.array(1.0)), 12))
0.765197686558
>>> float(np.round(modified_bessel_k0(np.array(1.0)), 12))
0.421024438241
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
    "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "i0e", "i1e",
    "spherical_bessel_j0", "airy_ai", "besseli",
]  # fmt: skip

_EULER = 0.5772156649015329
_HANKEL_J, _HANKEL_IK = 25.0, 30.0
_TERMS = 30


def _float64(x: Any) -> tuple[np.ndarray, np.dtype]:
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    return x.astype(np.float64), dtype


def _by_region(x: np.ndarray, regions: list) -> np.ndarray:
    """``out[mask] = fn(x[mask])`` for each ``(mask, fn)``; nan elsewhere."""
    out = np.full(x.shape, np.nan)
    for mask, fn in regions:
        if mask.any():
            out[mask] = fn(x[mask])
    return out


# -- the three methods ----------------------------------------------------------------------------
def _hankel_coefficients(nu: float) -> list[float]:
    """``a_k(nu) = prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)``, k = 0 .. _TERMS."""
    mu, a = 4 * nu * nu, [1.0]
    for k in range(1, _TERMS + 1):
        a.append(a[-1] * (mu - (2 * k - 1) ** 2) / (8 * k))
    return a


def _hankel_pq(nu: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums P and Q of Hankel's expansion of ``J_nu`` and ``Y_nu`` at large ``x``."""
    p, q, power = np.zeros_like(x), np.zeros_like(x), np.ones_like(x)
    for k, a in enumerate(_hankel_coefficients(nu)):
        term = a * power
        if k % 2 == 0:
            p += term if k % 4 == 0 else -term
        else:
            q += term if k % 4 == 1 else -term
        power = power / x
    return p, q


def _hankel_jy(nu: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(J_nu(x), Y_nu(x))`` for large positive ``x``; the phase ``x - (nu/2 + 1/4) pi`` is
    expanded so that ``cos`` and ``sin`` see ``x`` itself (no rounding of a shifted argument)."""
    p, q = _hankel_pq(nu, x)
    c = (nu / 2 + 0.25) * math.pi
    cos_x, sin_x = np.cos(x), np.sin(x)
    cos_chi = cos_x * math.cos(c) + sin_x * math.sin(c)
    sin_chi = sin_x * math.cos(c) - cos_x * math.sin(c)
    scale = np.sqrt(2 / (math.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _asymptotic_ik(nu: float, x: np.ndarray, alternate: bool) -> np.ndarray:
    """``sum_k (+-1)^k a_k(nu) / x^k``: ``I_nu(x) exp(-x) sqrt(2 pi x)`` (alternating) or
    ``K_nu(x) exp(x) sqrt(2 x / pi)``."""
    total, power = np.zeros_like(x), np.ones_like(x)
    for k, a in enumerate(_hankel_coefficients(nu)):
        total += -a * power if alternate and k % 2 else a * power
        power = power / x
    return total


def _miller(nu: float, x: np.ndarray, count: int) -> list[np.ndarray]:
    """``J_{nu + k}(x)`` for k < ``count`` by backward recurrence from far above, normalised
    by ``(x/2)^nu = sum_k (nu + 2k) Gamma(nu + k) / k! J_{nu + 2k}(x)`` (1 <= x < 25)."""
    top = 2 * int((float(x.max()) + 40) / 2) + count
    values = [np.zeros_like(x)] * (top + 2)
    values[top] = np.full_like(x, 1e-30)
    for k in range(top, 0, -1):
        values[k - 1] = 2 * (nu + k) / x * values[k] - values[k + 1]
    weight, total = math.gamma(nu + 1), np.zeros_like(x)  # (nu + 2k) Gamma(nu + k) / k!
    ratio = math.gamma(nu) if nu > 0 else 1.0  # Gamma(nu + k) / k!
    for k in range(0, top // 2 + 1):
        if k:
            ratio = ratio * (nu + k - 1) / k if nu > 0 else 1.0 / k
            weight = (nu + 2 * k) * ratio
        total += weight * values[2 * k]
    norm = (x / 2) ** nu / total
    return [v * norm for v in values[: top + 1]]


def _k_integral(nu: float, x: np.ndarray) -> np.ndarray:
    """``exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt`` by the trapezoidal
    rule (step 0.05 to t = 6: the integrand is analytic and even, so the error is far below
    float64's for 1 <= x <= 30)."""
    t = np.arange(0.0, 6.0 + 1e-9, 0.05)
    weights = np.full(t.shape, 0.05)
    weights[0] = 0.025
    f = np.exp(-np.multiply.outer(x, np.cosh(t) - 1)) * np.cosh(nu * t)
    return f @ weights


# -- J and Y --------------------------------------------------------------------------------------
def _j_series(nu: int, x: np.ndarray) -> np.ndarray:
    z, term = -x * x / 4, (x / 2) ** nu / math.factorial(nu)
    total = term
    for k in range(1, 16):
        term = term * z / (k * (k + nu))
        total = total + term
    return total


def _y_series(nu: int, x: np.ndarray) -> np.ndarray:
    """``Y_0`` and ``Y_1`` below 1 from their series with the logarithm."""
    z, log_half = x * x / 4, np.log(x / 2)
    total, term, harmonic = np.zeros_like(x), np.ones_like(x), 0.0
    if nu == 0:
        for k in range(1, 16):
            harmonic += 1 / k
            term = -term * z / (k * k)
            total -= harmonic * term
        return 2 / math.pi * ((log_half + _EULER) * _j_series(0, x) + total)
    term = x / 2
    for k in range(16):
        if k:
            harmonic += 1 / k
            term = -term * z / (k * (k + 1))
        total += (2 * harmonic + 1 / (k + 1) - 2 * _EULER) * term
    return -2 / (math.pi * x) + 2 / math.pi * log_half * _j_series(1, x) - total / math.pi


def _jy_miller(x: np.ndarray) -> tuple[np.ndarray, ...]:
    """``J0, J1, Y0, Y1`` for 1 <= x < 25 from one backward recurrence: Y from the Neumann
    series ``Y0 = 2/pi ((log(x/2) + gamma) J0 - 2 sum (-1)^k J_2k / k)`` and its derivative."""
    j = _miller(0.0, x, 2)
    log_term = np.log(x / 2) + _EULER
    y0_sum, y1_sum = np.zeros_like(x), np.zeros_like(x)
    for k in range(1, (len(j) - 2) // 2):
        sign = -1.0 if k % 2 else 1.0
        y0_sum += sign * j[2 * k] / k
        y1_sum += sign * (j[2 * k - 1] - j[2 * k + 1]) / k
    y0 = 2 / math.pi * (log_term * j[0] - 2 * y0_sum)
    y1 = -2 / math.pi * (j[0] / x - log_term * j[1] - y1_sum)
    return j[0], j[1], y0, y1


def _j(nu: int, x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    out = _by_region(
        a,
        [
            (a < 1, lambda v: _j_series(nu, v)),
            ((a >= 1) & (a < _HANKEL_J), lambda v: _jy_miller(v)[nu]),
            ((a >= _HANKEL_J) & np.isfinite(a), lambda v: _hankel_jy(nu, v)[0]),
        ],
    )
    return np.where(x < 0, -out, out) if nu else out


def _y(nu: int, x: np.ndarray) -> np.ndarray:
    return _by_region(
        x,
        [
            (x == 0, lambda v: np.full(v.shape, -np.inf)),
            ((x > 0) & (x < 1), lambda v: _y_series(nu, v)),
            ((x >= 1) & (x < _HANKEL_J), lambda v: _jy_miller(v)[2 + nu]),
            ((x >= _HANKEL_J) & np.isfinite(x), lambda v: _hankel_jy(nu, v)[1]),
        ],
    )


def _public(fn: Any) -> Any:
    def kernel(x: Any) -> np.ndarray:
        v, dtype = _float64(x)
        with np.errstate(all="ignore"):
            return fn(v).astype(dtype)

    kernel.__name__ = fn.__name__.lstrip("_")
    return kernel


bessel_j0 = _public(lambda x: _j(0, x))
bessel_j1 = _public(lambda x: _j(1, x))
bessel_y0 = _public(lambda x: _y(0, x))
bessel_y1 = _public(lambda x: _y(1, x))


# -- I and K --------------------------------------------------------------------------------------
def _i_series(nu: int, x: np.ndarray) -> np.ndarray:
    """``exp(-x) I_nu(x)`` for 0 <= x < 30 (positive terms: no cancellation)."""
    z, term = x * x / 4, (x / 2) ** nu / math.factorial(nu)
    total = term
    for k in range(1, 90):
        term = term * z / (k * (k + nu))
        total = total + term
    return total * np.exp(-x)


def _i_scaled(nu: int, a: np.ndarray) -> np.ndarray:
    """``exp(-a) I_nu(a)`` for ``a >= 0``."""
    return _by_region(
        a,
        [
            (a < _HANKEL_IK, lambda v: _i_series(nu, v)),
            (
                (a >= _HANKEL_IK) & np.isfinite(a),
                lambda v: _asymptotic_ik(nu, v, True) / np.sqrt(2 * math.pi * v),
            ),
            (np.isinf(a), np.zeros_like),
        ],
    )


def _i(nu: int, scaled: bool) -> Any:
    def fn(x: np.ndarray) -> np.ndarray:
        a = np.abs(x)
        out = _i_scaled(nu, a)
        if not scaled:
            # exp(|x|) overflows from 709.8 on, where PyTorch's I0 and I1 are inf too (and
            # nan at the infinities)
            out = np.where(np.isinf(a), np.nan, out * np.exp(a))
        out = np.where(np.isnan(x), np.nan, out)
        return np.where(x < 0, -out, out) if nu else out

    return fn


modified_bessel_i0 = _public(_i(0, False))
modified_bessel_i1 = _public(_i(1, False))
i0e = _public(_i(0, True))
i1e = _public(_i(1, True))


def besseli(nu: Any, x: Any) -> np.ndarray:
    """The modified Bessel function ``I_nu`` of integer order (what SymPy's ``besseli`` in
    the derivatives of ``i0`` and ``i1`` calls), from ``I0`` and ``I1`` by the recurrence
    ``I_{k+1} = I_{k-1} - 2k / x I_k``."""
    order = abs(int(nu))
    low, high = modified_bessel_i0(x), modified_bessel_i1(x)
    if order == 0:
        return low
    with np.errstate(all="ignore"):
        for k in range(1, order):
            low, high = high, low - 2 * k / x * high
    # I_n(0) = 0 for n >= 1 (the recurrence divides by x)
    return np.where(np.equal(x, 0), 0.0, high)


def _k_series(nu: int, x: np.ndarray) -> np.ndarray:
    """``K_0`` and ``K_1`` for 0 < x < 1 from their series with the logarithm."""
    z, log_half = x * x / 4, np.log(x / 2)
    total, harmonic = np.zeros_like(x), 0.0
    i_nu = _i_series(nu, x) * np.exp(x)
    if nu == 0:
        term = np.ones_like(x)
        for k in range(1, 16):
            harmonic += 1 / k
            term = term * z / (k * k)
            total += harmonic * term
        return -(log_half + _EULER) * i_nu + total
    term = np.ones_like(x)
    for k in range(16):
        if k:
            harmonic += 1 / k
            term = term * z / (k * (k + 1))
        total += (2 * harmonic + 1 / (k + 1) - 2 * _EULER) * term
    return 1 / x + log_half * i_nu - x / 4 * total


def _k_scaled(nu: int, x: np.ndarray) -> np.ndarray:
    """``exp(x) K_nu(x)`` for ``x > 0`` (nu need not be an integer from 1 on)."""
    return _by_region(
        x,
        [
            ((x > 0) & (x < 1), lambda v: _k_series(int(nu), v) * np.exp(v)),
            ((x >= 1) & (x < _HANKEL_IK), lambda v: _k_integral(nu, v)),
            (
                (x >= _HANKEL_IK) & np.isfinite(x),
                lambda v: _asymptotic_ik(nu, v, False) * np.sqrt(math.pi / (2 * v)),
            ),
            (np.isposinf(x), np.zeros_like),
        ],
    )


def _k(nu: int, scaled: bool) -> Any:
    def fn(x: np.ndarray) -> np.ndarray:
        out = _k_scaled(nu, x)
        if not scaled:
            out = out * np.exp(-x)
        return np.where(x == 0, np.inf, np.where(x < 0, np.nan, out))

    return fn


modified_bessel_k0 = _public(_k(0, False))
modified_bessel_k1 = _public(_k(1, False))
scaled_modified_bessel_k0 = _public(_k(0, True))
scaled_modified_bessel_k1 = _public(_k(1, True))


def _spherical_j0(x: np.ndarray) -> np.ndarray:
    safe = np.where(x == 0, 1.0, x)
    out = np.where(x == 0, 1.0, np.sin(safe) / safe)
    return np.where(np.isinf(x), 0.0, out)


spherical_bessel_j0 = _public(_spherical_j0)


# -- Airy's Ai ------------------------------------------------------------------------------------
_AI0 = 0.3550280538878172  # Ai(0) = 1 / (3^(2/3) Gamma(2/3))
_AI0_SLOPE = 0.2588194037928068  # -Ai'(0) = 1 / (3^(1/3) Gamma(1/3))


def _airy_series(x: np.ndarray) -> np.ndarray:
    """Maclaurin's series ``Ai(0) f(x) - |Ai'(0)| g(x)`` (-2.5 <= x <= 1.5)."""
    cube = x**3
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, 40):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI0 * f - _AI0_SLOPE * g


def _airy_right(x: np.ndarray) -> np.ndarray:
    """``Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi``, ``zeta = 2/3 x^(3/2)`` (x > 1.5)."""
    zeta = 2 / 3 * x * np.sqrt(x)
    return np.sqrt(x / 3) / math.pi * _k_scaled(1 / 3, zeta) * np.exp(-zeta)


def _airy_left(x: np.ndarray) -> np.ndarray:
    """``Ai(-z) = sqrt(z) / 3 (J_{1/3}(zeta) + J_{-1/3}(zeta))`` (x = -z < -2.5)."""
    z = -x
    zeta = 2 / 3 * z * np.sqrt(z)
    small = zeta < _HANKEL_J
    total = np.zeros_like(x)
    if small.any():
        s = zeta[small]
        third = _miller(1 / 3, s, 1)[0]
        two_thirds = _miller(2 / 3, s, 2)
        minus_third = 4 / (3 * s) * two_thirds[0] - two_thirds[1]
        total[small] = third + minus_third
    if (~small).any():
        s = zeta[~small]
        total[~small] = _hankel_jy(1 / 3, s)[0] + _hankel_jy(-1 / 3, s)[0]
    return np.sqrt(z) / 3 * total


def _airy(x: np.ndarray) -> np.ndarray:
    return _by_region(
        x,
        [
            ((x >= -2.5) & (x <= 1.5), _airy_series),
            ((x > 1.5) & np.isfinite(x), _airy_right),
            ((x < -2.5) & np.isfinite(x), _airy_left),
        ],
    )


airy_ai = _public(_airy)

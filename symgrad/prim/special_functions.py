"""NumPy kernels of special functions that NumPy lacks: ``lgamma``, the polygamma family
(``digamma`` is ``polygamma(0, x)``), Hurwitz's ``zeta``, ``erfc`` and ``erfinv``, with
PyTorch's values at the poles and ends. SciPy is used for ``lgamma``, ``erfc`` and ``erfinv``
when installed; otherwise the series below. digamma is a recurrence up to ``x >= 15``, then the
asymptotic expansion, accurate to a few units in the last place of float64; trigamma, zeta and
with it polygamma from ``n = 2`` on are PyTorch's (Cephes') sums step for step.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.special_functions import polygamma, erfinv
>>> float(np.round(polygamma(0, np.array(1.0)), 12))  # -Euler's gamma
-0.577215664902
>>> float(erfinv(np.array(0.0)))
0.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["lgamma", "polygamma", "zeta", "erfc", "erfinv"]

# B_2, B_4, ..., B_16: the asymptotic series of digamma
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SHIFT_TO = 15.0


def _scipy(name: str) -> Any:
    try:
        import scipy.special as special
    except ImportError:
        return None
    return getattr(special, name)


def lgamma(x: Any) -> np.ndarray:
    """``log|Gamma(x)|`` (``inf`` at the poles 0, -1, -2, ...)."""
    x = np.asarray(x, dtype=np.result_type(x, np.float32))
    fn = _scipy("gammaln")
    if fn is not None:
        # SciPy gives -inf at -inf and inf at float64's subnormal numbers; PyTorch (and C's
        # lgamma) +inf and -log|x| (lgamma's value to double precision below 1e-17)
        with np.errstate(all="ignore"):
            tiny = (x != 0) & (np.abs(x) < 1e-300)
            out = np.where(tiny, -np.log(np.abs(np.where(tiny, x, 1))), fn(x))
        return np.where(np.isneginf(x), np.inf, out).astype(x.dtype, copy=False)

    def one(v: float) -> float:
        if math.isnan(v):
            return v
        if v <= 0 and (math.isinf(v) or v == math.floor(v)):
            return math.inf
        return math.lgamma(v)

    return np.vectorize(one, otypes=[x.dtype])(x)


def _digamma_series(x: np.ndarray) -> np.ndarray:
    total = np.zeros_like(x)
    while True:
        small = x < _SHIFT_TO
        if not small.any():
            break
        total = total - np.where(small, 1 / x, 0)
        x = np.where(small, x + 1, x)
    inv2 = 1 / (x * x)
    series = sum(b / (2 * (k + 1)) * inv2 ** (k + 1) for k, b in enumerate(_BERNOULLI))
    return total + np.log(x) - 0.5 / x - series


def _digamma(x: np.ndarray) -> np.ndarray:
    """PyTorch's digamma: -+inf at +-0, nan at the negative integers and -inf, and the
    reflection ``psi(1 - x) - pi / tan(pi r)`` for negative ``x`` with ``r`` its fractional
    part (more accurate than ``tan(pi x)``)."""
    pole = (x <= 0) & (x == np.floor(x))
    negative = x < 0
    base = np.where(negative, 1 - x, x)
    out = _digamma_series(np.where(pole | np.isnan(base), 1.0, base))
    out = np.where(negative, out - np.pi / np.tan(np.pi * (x - np.trunc(x))), out)
    out = np.where(pole, np.where(x == 0, np.copysign(np.inf, -x), np.nan), out)
    return np.where(np.isnan(x), np.nan, np.where(np.isposinf(x), np.inf, out))


def _trigamma(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """PyTorch's trigamma (its ``calc_trigamma``), step for step in the input's precision
    (float32 for smaller floats): below 1/2 the reflection ``pi^2 / sin(pi x)^2 - psi'(1 - x)``,
    six steps of the recurrence, then the asymptotic series to ``1 / x^7``. It is accurate to
    about 1e-9 only, and PyTorch's gradients of digamma and lgamma carry that error."""
    work = np.dtype(dtype if dtype in (np.float32, np.float64) else np.float32)
    one = work.type(1)
    x = x.astype(work)
    reflect = x < work.type(0.5)
    pi = work.type(math.pi)
    # the sine correctly rounded, as C's sinf (NumPy's own float32 sine can be an ulp off)
    sine = np.sin((pi * x).astype(np.float64)).astype(work)
    result = np.where(reflect, -(pi * pi) / (sine * sine), work.type(0))
    x = np.where(reflect, one - x, x)
    for _ in range(6):
        result = result + one / (x * x)
        x = x + one
    ixx = one / (x * x)
    sixth, thirtieth, fortysecond = (work.type(1 / k) for k in (6, 30, 42))
    series = one + one / (work.type(2) * x) + ixx * (sixth - ixx * (thirtieth - ixx * fortysecond))
    result = result + series / x
    return np.where(reflect, -result, result)


# -- Hurwitz's zeta -----------------------------------------------------------------------------
_MACHEP = 1.11022302462515654042e-16
# (2k)! / B_2k, k = 1 .. 12: Cephes' Euler-Maclaurin coefficients, as PyTorch's zeta has them
_EULER_MACLAURIN = (
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
    1.8152105401943546773e17, -7.1661652561756670113e18,
)  # fmt: skip


def _zeta_sum(s: np.ndarray, q: np.ndarray, done: np.ndarray) -> np.ndarray:
    """PyTorch's (Cephes') sum, step for step: at least nine terms ``(q + k)^-s`` and up to
    ``q + k > 9``, stopping once a term is below the sum's precision, then Euler-Maclaurin's
    correction, stopping at its first negligible term. ``done`` marks points left out."""
    out = np.full(s.shape, np.nan)
    total, a, term = q**-s, q.copy(), np.zeros_like(s)
    looping, steps = ~done, 0
    while looping.any():
        steps += 1
        a = np.where(looping, a + 1, a)
        term = np.where(looping, a**-s, term)
        total = np.where(looping, total + term, total)
        small = looping & (-_MACHEP * total < term) & (term < _MACHEP * total)
        out, done = np.where(small, total, out), done | small
        looping = looping & ~small & ((steps < 9) | (a <= 9.0))
    w = a
    total = total + term * w / (s - 1) - 0.5 * term
    rising, k = np.ones_like(s), 0.0
    for coefficient in _EULER_MACLAURIN:
        rising, term = rising * (s + k), term / w
        correction = rising * term / coefficient
        total = total + correction
        small = ~done & (np.abs(correction / total) < _MACHEP)
        out, done = np.where(small, total, out), done | small
        rising, term, k = rising * (s + k + 1), term / w, k + 2
    return np.where(done, out, total)


def zeta(s_in: Any, q_in: Any) -> np.ndarray:
    """Hurwitz's ``zeta(s, q) = sum_k (q + k)^-s``, as PyTorch sums it: inf at ``s = 1`` and
    at the poles ``q = 0, -1, ...``; nan for ``s < 1`` and for ``q < 0`` with ``s`` not an
    integer; at ``s = inf`` 1 for ``q = 1``, inf below and nan above."""
    s, q = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (s_in, q_in)))
    dtype = np.result_type(np.asarray(s_in), np.asarray(q_in))
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        fractional = (q < 0) & (s != np.floor(s))
        # a negative q sums up to positive terms: at most a million of them (its s is an integer)
        out = _zeta_sum(s, q, (s <= 1) | pole | fractional | (q < -1_000_000))
        choices = [
            (s == 1, np.inf),
            (s < 1, np.nan),
            (pole, np.inf),
            (fractional, np.nan),
        ]
        out = np.select([c for c, _ in choices], [v for _, v in choices], out)
        return out.astype(dtype)


# n! as PyTorch's polygamma has it in float64, C's exp(lgamma(n + 1)), for n = 2 .. 12
_FACTORIAL = dict(
    enumerate(
        (
            2.0, 6.0, 24.000000000000004, 119.99999999999997, 720.0000000000001,
            5039.999999999993, 40320.00000000002, 362880.00000000047, 3628800.0000000084,
            39916800.00000003, 479001600.000001,
        ),
        start=2,
    )
)  # fmt: skip


def polygamma(n: Any, x: Any) -> np.ndarray:
    """The ``n``-th derivative of the digamma function, with PyTorch's values at the edges:
    digamma (``n = 0``) is ``-inf`` at 0, ``+inf`` at -0.0 and ``nan`` at the negative
    integers; trigamma (``n = 1``) reflects for ``x <= 0``; from ``n = 2`` on, PyTorch's
    ``(-1)^(n+1) n! zeta(n + 1, x)`` is ``+-inf`` at the poles (0, the negative integers and
    -inf) and ``nan`` at +inf."""
    x = np.asarray(x, dtype=np.result_type(x, np.float32))
    n = int(n)
    work = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if n == 0:
            out = _digamma(work)
        elif n == 1:
            out = _trigamma(work, x.dtype)
        else:
            factorial = _FACTORIAL.get(n, float(math.factorial(n)))
            out = (1.0 if n % 2 else -1.0) * factorial * zeta(float(n + 1), work)
    return out.astype(x.dtype, copy=False)


def erfc(x: Any) -> np.ndarray:
    """``1 - erf(x)``, accurate where ``erf(x)`` is near 1."""
    x = np.asarray(x, dtype=np.result_type(x, np.float32))
    fn = _scipy("erfc")
    if fn is not None:
        return fn(x).astype(x.dtype, copy=False)
    return np.vectorize(math.erfc, otypes=[x.dtype])(x)


def erfinv(x: Any) -> np.ndarray:
    """The inverse of ``erf`` on ``(-1, 1)`` (``+-inf`` at ``+-1``, ``nan`` outside)."""
    x = np.asarray(x, dtype=np.result_type(x, np.float32))
    fn = _scipy("erfinv")
    if fn is not None:
        # erfinv(-0.0) is -0.0, as PyTorch
        return np.where(x == 0, x, fn(x)).astype(x.dtype, copy=False)
    v = x.astype(np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1 - v) * (1 + v))
        # Giles' single-precision approximation, then Newton steps on erf
        central = w < 5
        wc, wt = w - 2.5, np.sqrt(w) - 3
        pc = np.polyval(
            [
                2.81022636e-08,
                3.43273939e-07,
                -3.5233877e-06,
                -4.39150654e-06,
                0.00021858087,
                -0.00125372503,
                -0.00417768164,
                0.246640727,
                1.50140941,
            ],
            wc,
        )
        pt = np.polyval(
            [
                -0.000200214257,
                0.000100950558,
                0.00134934322,
                -0.00367342844,
                0.00573950773,
                -0.0076224613,
                0.00943887047,
                1.00167406,
                2.83297682,
            ],
            wt,
        )
        y = np.where(central, pc, pt) * v
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(3):
            step = (erf(y) - v) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
            y = np.where(np.isfinite(step), y - step, y)
        y = np.where(np.abs(v) == 1, np.sign(v) * np.inf, y)
        y = np.where(np.abs(v) > 1, np.nan, y)
        y = np.where(v == 0, v, y)
    return y.astype(x.dtype, copy=False)

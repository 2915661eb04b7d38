"""PyTorch's rejection samplers on its CPU generator: gamma draws (Marsaglia and Tsang's method,
``_standard_gamma``, ``_sample_dirichlet`` and the distributions built on them) and Poisson
counts (Hörmann's transformed rejection for rates of 10 or more, products of uniforms below)
and binomial counts (BTRS for a mean of 10 or more, sums of geometric draws below).

Each element takes as many numbers from the twister as its rejections need, one element after
the other, so the draws run one at a time in Python. The twister's numbers are read in bulk and
the state is then moved on by exactly the numbers used, so that what follows draws what it
draws in PyTorch. The constants and the float32 steps are PyTorch's: a float32 concentration is
boosted and shifted in float32 (``alpha - 1.0f / 3.0f``), the rest in float64, with the float
literals PyTorch writes (``0.0331f``).

Examples
--------
>>> from symgrad._cpu_generator import CpuStream
>>> gamma_draws(CpuStream(0), [2.0], single=False)
[4.552622805135891]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._cpu_generator import box_muller

__all__ = ["gamma_draws", "poisson_draws", "binomial_draws"]

_F = np.float32
_THIRD = float(_F(1) / _F(3))  # 1.0f / 3.0f
_SQUEEZE = float(_F(0.0331))  # 0.0331f
_UNIT = 2.0**-53
_LOW53 = (1 << 53) - 1
_INT64_MIN = -(2**63)


class _Reader:
    """Numbers of a :class:`~symgrad._cpu_generator.CpuStream`'s twister, read ahead in bulk;
    :meth:`close` leaves the stream just past the numbers used."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.saved = stream.bits.state
        self.words: list = []
        self.pos = 0

    def _word(self) -> int:
        if self.pos == len(self.words):
            self.words += self.stream.bits.random_raw(max(256, len(self.words))).tolist()
        self.pos += 1
        return self.words[self.pos - 1]

    def uniform(self) -> float:
        """``uniform_real_distribution<double>(0, 1)``: 53 bits of a 64-bit number."""
        high = self._word()
        return ((high << 32 | self._word()) & _LOW53) * _UNIT

    def normal(self) -> float:
        """``normal_distribution<double>(0, 1)``: a Box-Muller pair, the second value kept in
        the generator for the next call."""
        stream = self.stream
        if stream.normal_cache is not None:
            z, stream.normal_cache = stream.normal_cache, None
            return z
        u1 = self.uniform()
        z, stream.normal_cache = box_muller(u1, self.uniform())
        return z

    def close(self) -> None:
        self.stream.bits.state = self.saved
        if self.pos:
            self.stream.bits.random_raw(self.pos)


def gamma_draws(stream: Any, alphas: Any, single: bool) -> list:
    """Gamma(``alpha``, 1) draws for each of ``alphas`` (floats), PyTorch's ``sample_gamma``;
    ``single``: the concentrations are float32, whose boost and shift PyTorch computes in
    float32. Not yet clamped to the dtype's smallest normal number."""
    reader = _Reader(stream)
    try:
        return [_gamma(reader, a, single) for a in alphas]
    finally:
        reader.close()


def _gamma(reader: _Reader, alpha: float, single: bool) -> float:
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        power = float(_F(1) / _F(alpha)) if single else 1.0 / alpha
        scale *= _pow(1.0 - reader.uniform(), power)
        alpha = float(_F(alpha) + _F(1)) if single else alpha + 1.0
    d = float(_F(alpha) - _F(_THIRD)) if single else alpha - _THIRD
    c = _div(1.0, math.sqrt(9.0 * d)) if d >= 0 else math.nan
    while True:
        while True:
            x = reader.normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1.0 - reader.uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def _pow(base: float, power: float) -> float:
    try:
        return math.pow(base, power)
    except (OverflowError, ValueError):
        return float(np.power(base, power))


def _log(x: float) -> float:
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


def poisson_draws(stream: Any, rates: Any) -> list:
    """Poisson counts for each of ``rates`` (floats >= 0), PyTorch's ``sample_poisson``: an
    infinite rate gives the int64 minimum, as its conversion of an infinite ``k`` does."""
    reader = _Reader(stream)
    try:
        return [_poisson(reader, lam) for lam in rates]
    finally:
        reader.close()


def _poisson(reader: _Reader, lam: float) -> int:
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = reader.uniform() - 0.5
            v = reader.uniform()
            us = 0.5 - abs(u)
            k = _int64((_div(2 * a, us) + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            left = _log(v) + math.log(invalpha) - _log(_div(a, us * us) + b)
            if left <= -lam + k * loglam - math.lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    count, prod = 0, 1.0
    while True:
        prod *= reader.uniform()
        if prod > enlam:
            count += 1
        else:
            return count


def binomial_draws(stream: Any, counts: Any, probs: Any, single: bool) -> list:
    """Binomial counts for each pair of ``counts`` and ``probs`` (floats), PyTorch's
    ``sample_binomial``; ``single``: float32 tensors, whose count and probability arithmetic
    PyTorch rounds to float32 at each step."""
    reader = _Reader(stream)
    rounded = _round32 if single else float
    try:
        return [_binomial(reader, n, p, rounded) for n, p in zip(counts, probs)]
    finally:
        reader.close()


def _round32(x: float) -> float:
    return float(_F(x))


def _binomial(reader: _Reader, count: float, prob: float, f: Any) -> float:
    if count != count:  # (PyTorch's loop never ends for a nan count: nan, nothing drawn)
        return math.nan
    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return count
    if prob <= 0.5:
        if f(count * prob) >= 10:
            return _btrs(reader, count, prob, f)
        return _inversion(reader, count, prob, f)
    if prob > 0.5:
        q = f(1.0 - prob)
        if f(count * q) >= 10:
            return f(count - _btrs(reader, count, q, f))
        return f(count - _inversion(reader, count, q, f))
    return math.nan


def _inversion(reader: _Reader, count: float, prob: float, f: Any) -> float:
    """Geometric waiting times summed until they pass ``count``."""
    # (float32: the single-precision log1p of the float32 probability)
    logprob = float(np.log1p(_F(-prob))) if f is _round32 else math.log1p(-prob)
    total, drawn = 0.0, 0.0
    while True:
        total += _ceil(_div(_log(reader.uniform()), logprob))
        if total > count:
            return drawn
        drawn = f(drawn + 1)


def _btrs(reader: _Reader, count: float, prob: float, f: Any) -> float:
    """Hörmann's transformed rejection with squeeze, in TensorFlow's and PyTorch's form."""
    stddev = f(math.sqrt(f(f(count * prob) * f(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = f(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = f(prob / f(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = _floor(f(f(count + 1) * prob))
    while True:
        u = reader.uniform() - 0.5
        v = reader.uniform()
        us = 0.5 - abs(u)
        drawn = (_div(2 * a, us) + b) * u + c
        k = f(_floor(drawn))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (_div(a, us * us) + b))
        left = f(f(count - k) + 1)
        bound = (
            (m + 0.5) * _log(_div(m + 1, r * (count - m + 1)))
            + f(count + 1) * _log(_div(count - m + 1, left))
            + (k + 0.5) * _log(_div(r * left, f(k + 1)))
            + _tail(m)
            + _tail(count - m)
            - _tail(k)
            - _tail(f(count - k))
        )
        if v <= bound:
            return k


# log(k!) minus Stirling's approximation of it, for k = 0..9
_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)  # fmt: skip


def _tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _ceil(x: float) -> float:
    return float(math.ceil(x)) if math.isfinite(x) else x


def _floor(x: float) -> float:
    return float(math.floor(x)) if math.isfinite(x) else x


def _div(a: float, b: float) -> float:
    """``a / b`` as C divides doubles: infinite (or nan) for ``b == 0``."""
    if b:
        return a / b
    if a == 0 or a != a:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _int64(value: float) -> int:
    """C's ``(int64_t) floor(value)`` on x86: the int64 minimum for what doesn't fit."""
    if not math.isfinite(value):
        return _INT64_MIN
    k = math.floor(value)
    return k if -(2**63) <= k < 2**63 else _INT64_MIN

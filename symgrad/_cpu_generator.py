"""PyTorch's CPU random generator: its 32-bit Mersenne Twister and the kernels that turn the
twister's numbers into samples, so that a seeded program draws PyTorch's numbers.

The twister is NumPy's ``MT19937`` (the same algorithm, seeded as PyTorch seeds it); each
kernel consumes its numbers in PyTorch's order and applies PyTorch's transformation:

- floating uniforms (``rand``, ``uniform_``) take 24 bits of one number for float32 and
  float16 (a float32 uniform between float32 bounds, rounded) and 53 bits of two numbers for
  float64, scaled into ``[from, to)`` with one rounding; a value rounded up to ``to`` is
  ``from``;
- normals (``randn``, ``normal_``) of 16 values or more are Box-Muller pairs over blocks of 16
  uniforms (the last block redrawn when the size is not a multiple of 16); fewer are drawn one
  by one in float64 with a cached second value, as PyTorch's scalar kernel;
- integers in ``[low, high)`` are one number (two for ranges of 2**28 or more) modulo the
  range; permutations are PyTorch's Fisher-Yates swaps; Bernoulli draws compare a float64
  uniform (a float32 one for float32 probabilities) with ``p``.

Gamma, Poisson and binomial draws are PyTorch's rejection samplers
(``symgrad._cpu_rejection``); any other sampler is NumPy's, drawing from the same twister:
reproducible under ``manual_seed``, though not PyTorch's numbers. Float32 normals of 16 values
or more are those of PyTorch's vectorised sampler (Cephes' single-precision logarithm, sine and
cosine, as built for processors with AVX2, where PyTorch runs it); float16's kernel draws
uniforms for the whole blocks of 16 only, then the last 16 values anew.

Examples
--------
>>> import numpy as np
>>> s = CpuStream(0)
>>> s.uniform_fill((3,), np.float32)
array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from symgrad._rounding import fma

__all__ = ["CpuStream", "STATE_BYTES", "box_muller"]

_N = 624  # the twister's words
_MASK32 = 0xFFFFFFFF
_BITS = {np.dtype(np.float64): 53}  # every other dtype: 24 bits (a float32 uniform, rounded)
_TWO_PI = 2.0 * math.pi


def box_muller(u1: float, u2: float) -> tuple[float, float]:
    """PyTorch's ``normal_distribution<double>`` from two uniforms: the value, and the second
    of the pair, which the generator keeps for the next draw.

    Examples
    --------
    >>> z, kept = box_muller(0.25, 0.5)
    >>> round(z, 12), round(kept, 6)
    (0.0, 1.17741)
    """
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = _TWO_PI * u1
    return r * math.cos(theta), r * math.sin(theta)


@functools.lru_cache(maxsize=64)  # programs and tests seed with a few numbers, often
def _seeded_words(seed: int) -> np.ndarray:
    """The twister's state after PyTorch's ``mt19937(seed)``: the standard initialisation from
    the seed's low 32 bits (read-only)."""
    words = [seed & _MASK32]
    for j in range(1, _N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + j) & _MASK32)
    out = np.array(words, dtype=np.uint32)
    out.flags.writeable = False
    return out


class CpuStream:
    """One generator's twister and PyTorch's samplers over it (see the module's text)."""

    def __init__(self, seed: int) -> None:
        self.bits = np.random.MT19937(0)
        self.numpy = np.random.Generator(self.bits)
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Restart from ``seed`` (the cached normal value is dropped, as in PyTorch)."""
        self.seeded = _seeded_words(seed)  # (a state still at its seed shows next = 0)
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": self.seeded, "pos": _N}}
        self.normal_cache: float | None = None

    # vmap(randomness="same") saves and restores ``rng.bit_generator.state``
    @property
    def bit_generator(self) -> CpuStream:
        return self

    @property
    def state(self) -> tuple:
        return (self.bits.state, self.normal_cache)

    @state.setter
    def state(self, value: tuple) -> None:
        self.bits.state, self.normal_cache = value

    def __getattr__(self, name: str) -> Any:
        # the samplers PyTorch's kernels are not written for: NumPy's, on the same twister
        # (not while copy or pickle rebuild a stream, which has no NumPy generator yet)
        if name == "numpy" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.numpy, name)

    # -- the twister's numbers ---------------------------------------------------------------
    def words(self, n: int) -> np.ndarray:
        """``n`` 32-bit numbers (as uint64), PyTorch's ``random()``."""
        return self.bits.random_raw(n)

    def words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit numbers, each from two 32-bit ones (the first the high half), PyTorch's
        ``random64()``."""
        w = self.bits.random_raw(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def _unit(self, n: int, dtype: np.dtype) -> np.ndarray:
        """``n`` uniforms in [0, 1) with ``dtype``'s precision: float64 values."""
        bits = _BITS.get(dtype, 24)
        raw = self.words64(n) if bits == 53 else self.words(n)
        return (raw & np.uint64((1 << bits) - 1)).astype(np.float64) * (2.0**-bits)

    # -- PyTorch's kernels -------------------------------------------------------------------
    def uniform_fill(
        self, shape: tuple, dtype: Any, low: float = 0.0, high: float = 1.0
    ) -> np.ndarray:
        """``uniform_(low, high)`` of a ``dtype`` array (float64 ``dtype`` draws two numbers
        per value, the others one)."""
        dtype = np.dtype(dtype)
        n = math.prod(shape)
        u = self._unit(n, dtype)
        if dtype == np.float64:
            lo, hi = np.float64(low), np.float64(high)
            out = u if (lo == 0 and hi == 1) else fma(u, hi - lo, lo)
        else:  # float32 arithmetic with one rounding (float16 too, rounded after)
            lo, hi = np.float32(low), np.float32(high)
            out = (u * np.float64(hi - lo) + np.float64(lo)).astype(np.float32)
        out = out.astype(dtype)
        # a value rounded up to ``high`` wraps to ``low``, as PyTorch keeps [low, high)
        out[out == dtype.type(high)] = dtype.type(low)
        return out.reshape(shape)

    def normal_fill(
        self, shape: tuple, dtype: Any, mean: float = 0.0, std: float = 1.0
    ) -> np.ndarray:
        """``normal_(mean, std)`` of a contiguous ``dtype`` array."""
        dtype = np.dtype(dtype)
        n = math.prod(shape)
        if n < 16:
            return self.normals(n, mean, std).astype(dtype).reshape(shape)
        work = np.float64 if dtype == np.float64 else np.float32
        whole = n - n % 16
        # (float16's kernel draws uniforms for the whole blocks only, the others for every value)
        data = np.zeros(n, work)
        data[: whole if dtype == np.float16 else n] = self._unit(
            whole if dtype == np.float16 else n, dtype
        )
        if whole:
            blocks = data[:whole].reshape(-1, 2, 8)
            _box_muller(blocks, mean, std)
            data[:whole] = blocks.reshape(-1)
        if n % 16:  # the last 16 values drawn again
            tail = self._unit(16, dtype).astype(work).reshape(1, 2, 8)
            _box_muller(tail, mean, std)
            data[n - 16 :] = tail.reshape(-1)
        return data.astype(dtype).reshape(shape)

    def normals(self, n: int, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``n`` float64 normals from PyTorch's scalar kernel (a pair per two uniforms, the
        second kept for the next draw), ``z * std + mean`` rounded once."""
        out = np.empty(n)
        for k in range(n):
            if self.normal_cache is not None:
                z, self.normal_cache = self.normal_cache, None
            else:
                z, self.normal_cache = box_muller(*self._unit(2, np.dtype(np.float64)))
            out[k] = z
        return out if (std == 1 and mean == 0) else fma(out, std, mean)

    # the scalar float64 kernels of the other distributions (C's log, exp, tan: the system
    # library's, as PyTorch's, where NumPy's vectorised ones round otherwise)
    def exponential_fill(self, shape: tuple, lambd: float) -> np.ndarray:
        """``exponential_(lambd)``: ``-1 / lambd * log1p(-u)``, float64."""
        u = self._unit(math.prod(shape), np.dtype(np.float64)).tolist()
        scale = -1.0 / lambd
        return np.array([scale * math.log1p(-x) for x in u], np.float64).reshape(shape)

    def cauchy_fill(self, shape: tuple, median: float, sigma: float) -> np.ndarray:
        """``cauchy_(median, sigma)``: ``median + sigma tan(pi (u - 1/2))``, float64."""
        u = self._unit(math.prod(shape), np.dtype(np.float64)).tolist()
        return np.array(
            [median + sigma * math.tan(math.pi * (x - 0.5)) for x in u], np.float64
        ).reshape(shape)

    def log_normal_fill(self, shape: tuple, mean: float, std: float) -> np.ndarray:
        """``log_normal_(mean, std)``: ``exp`` of the scalar kernel's normals, float64."""
        z = self.normals(math.prod(shape), mean, std).tolist()
        return np.array([math.exp(v) for v in z], np.float64).reshape(shape)

    def geometric_fill(self, shape: tuple, p: float) -> np.ndarray:
        """``geometric_(p)``: ``ceil(log(u) / log(1 - p))``, float64 (u = 0 gives inf)."""
        u = self._unit(math.prod(shape), np.dtype(np.float64)).tolist()
        q = math.log(1.0 - p)
        return np.array(
            [math.ceil(math.log(x) / q) if x > 0 else math.inf for x in u], np.float64
        ).reshape(shape)

    def random_from_to(
        self, shape: tuple, low: int, high: int, whole_dtype: bool = False
    ) -> np.ndarray:
        """``random_(low, high)``: int64 values, two numbers each for a range of 2**28 or more
        whatever the dtype; ``random_()`` over the ``whole_dtype`` takes two for a range of
        2**32 or more only (int64's and float64's)."""
        n = math.prod(shape)
        span = high - low
        raw = self.words64(n) if span >= (2**32 if whole_dtype else 2**28) else self.words(n)
        return ((raw % np.uint64(span)).astype(np.int64) + low).reshape(shape)

    def randperm(self, n: int) -> np.ndarray:
        """``randperm(n)``: PyTorch's swaps of ``i`` with ``i + random() % (n - i)``."""
        if n < 2:
            return np.arange(n, dtype=np.int64)
        steps = np.arange(n - 1, dtype=np.int64)
        targets = (self.words(n - 1) % (n - steps).astype(np.uint64)).astype(np.int64) + steps
        order = list(range(n))
        for i, j in enumerate(targets.tolist()):
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)

    def bernoulli_draws(self, shape: tuple, p: Any) -> np.ndarray:
        """Booleans of probability ``p``: a number, or an array (broadcast to ``shape``) whose
        float64 values compare with float64 uniforms and others with float32 ones."""
        n = math.prod(shape)
        if isinstance(p, np.ndarray) and p.dtype != np.float64:
            u = self._unit(n, np.dtype(np.float32)).astype(np.float32).reshape(shape)
            return u < np.broadcast_to(p.astype(np.float32, copy=False), shape)
        return self._unit(n, np.dtype(np.float64)).reshape(shape) < p


def _box_muller(blocks: np.ndarray, mean: float, std: float) -> None:
    """PyTorch's ``normal_fill_16`` over blocks of 16 uniforms (``blocks[:, 0]`` the first 8,
    ``blocks[:, 1]`` the last 8), in place: the first 8 become ``r cos``, the others
    ``r sin``, scaled and shifted. Float32 takes PyTorch's vectorised path: Cephes' single
    precision logarithm, sine and cosine (:func:`_log32`, :func:`_sincos32`)."""
    kind = blocks.dtype.type
    u1 = kind(1) - blocks[:, 0]  # [0, 1) -> (0, 1] for the logarithm
    u2 = blocks[:, 1]
    theta = kind(_TWO_PI) * u2
    if kind is np.float32:
        radius = np.sqrt(np.float32(-2) * _log32(u1))
        waves = _sincos32(theta)[::-1]  # (cos, sin)
    else:  # C's logarithm, as PyTorch's scalar kernel (NumPy's rounds otherwise at times)
        logs = np.fromiter(map(math.log, u1.ravel().tolist()), np.float64, u1.size)
        radius = np.sqrt(kind(-2) * logs.reshape(u1.shape))
        waves = (np.cos(theta), np.sin(theta))
    for half, wave in enumerate(waves):
        z = radius * wave
        if std == 1 and mean == 0:
            blocks[:, half] = z
        elif kind is np.float64:
            blocks[:, half] = fma(z, std, mean)
        else:
            blocks[:, half] = z.astype(np.float64) * np.float64(np.float32(std)) + np.float32(mean)


def _fma32(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """Float32 ``a * b + c`` rounded once (exact in float64 first: 24-bit factors)."""
    return (a.astype(np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(np.float32)


_F = np.float32
# Cephes' single-precision polynomials (the logarithm's, then the sine's and cosine's on
# [-pi/4, pi/4]) and the three parts of pi/4 for the argument's reduction
_LOG_POLY = [_F(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                              -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                              2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]  # fmt: skip
_SIN_POLY = [_F(c) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS_POLY = [_F(c) for c in (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)]
_PI4_PARTS = [_F(c) for c in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)]


def _log32(x: np.ndarray) -> np.ndarray:
    """Natural logarithm of positive float32 values as Cephes' ``logf`` computes it, with the
    fused multiply-adds of PyTorch's build: ``x = m 2**e``, ``m`` in [sqrt(1/2), sqrt(2)),
    a polynomial in ``m - 1``, ``e log 2`` added in two parts."""
    x = np.maximum(x, _F(1.17549435e-38))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    m = ((bits & ~0x7F800000) | 0x3F000000).view(_F)  # the mantissa in [0.5, 1)
    low = m < _F(0.707106781186547524)
    e = e - low.astype(_F)
    m = (m - _F(1)) + np.where(low, m, _F(0))
    z = m * m
    y = np.full_like(m, _LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        y = _fma32(y, m, c)
    y = _fma32(y * m, z, e * _F(-2.12194440e-4))
    y = _fma32(z, _F(-0.5), y)
    return _fma32(e, _F(0.693359375), m + y)


def _sincos32(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine of float32 values as Cephes' ``sincosf`` computes them (PyTorch's
    vectorised normal sampler): the argument reduced by multiples of pi/4 in three parts,
    then the sine's or the cosine's polynomial by octant."""
    negative = np.signbit(x)
    x = np.abs(x)
    j = ((x * _F(1.27323954473516)).astype(np.int32) + 1) & ~1  # the even octant
    y = j.astype(_F)
    for part in _PI4_PARTS:
        x = _fma32(y, part, x)
    z = x * x
    near = (j & 2) == 0  # the sine's polynomial gives the sine here, the cosine's elsewhere
    c = _fma32(np.full_like(z, _COS_POLY[0]), z, _COS_POLY[1])
    c = _fma32(c, z, _COS_POLY[2]) * z
    c = _fma32(c, z, -(z * _F(0.5))) + _F(1)
    s = _fma32(np.full_like(z, _SIN_POLY[0]), z, _SIN_POLY[1])
    s = _fma32(_fma32(s, z, _SIN_POLY[2]) * z, x, x)
    sine, cosine = np.where(near, s, c), np.where(near, c, s)
    sine = np.where(negative ^ ((j & 4) != 0), -sine, sine)
    cosine = np.where(((j - 2) & 4) == 0, -cosine, cosine)
    return sine, cosine


STATE_BYTES = 5056  # PyTorch's CPU generator state: a legacy record, then the float cache


def to_state(stream: CpuStream, seed: int) -> np.ndarray:
    """The generator's state in PyTorch's layout (``torch.get_rng_state()``'s 5056 bytes): the
    seed, the twister's position and 624 words, the cached float64 normal."""
    st = stream.bits.state["state"]
    pos = int(st["pos"])
    # PyTorch keeps (left, next): the next word is state[next] unless left is 1 (a twist first)
    left, nxt = (1, _N) if pos >= _N else (_N + 1 - pos, pos)
    if pos >= _N and np.array_equal(st["key"], stream.seeded):
        nxt = 0  # not yet drawn from
    out = np.zeros(STATE_BYTES, dtype=np.uint8)
    out[0:8] = np.frombuffer(np.uint64(seed).tobytes(), np.uint8)
    out[8:12] = np.frombuffer(np.int32(left).tobytes(), np.uint8)
    out[12:16] = np.frombuffer(np.int32(1).tobytes(), np.uint8)  # seeded
    out[16:24] = np.frombuffer(np.uint64(nxt).tobytes(), np.uint8)
    out[24:5016] = np.frombuffer(st["key"].astype(np.uint64).tobytes(), np.uint8)
    if stream.normal_cache is not None:
        out[5024:5032] = np.frombuffer(np.float64(stream.normal_cache).tobytes(), np.uint8)
        out[5040:5044] = np.frombuffer(np.int32(1).tobytes(), np.uint8)
    return out


def from_state(stream: CpuStream, raw: np.ndarray) -> int:
    """Load PyTorch's layout (see :func:`to_state`) into ``stream``; returns the seed. A
    ValueError for bytes that are not such a state."""
    if raw.size != STATE_BYTES:
        raise ValueError(f"a generator state has {STATE_BYTES} bytes, not {raw.size}")
    buf = raw.astype(np.uint8).tobytes()
    seed = int(np.frombuffer(buf, np.uint64, 1, 0)[0])
    left = int(np.frombuffer(buf, np.int32, 1, 8)[0])
    nxt = int(np.frombuffer(buf, np.uint64, 1, 16)[0])
    words = np.frombuffer(buf, np.uint64, _N, 24)
    if not 1 <= left <= _N or nxt > _N or (words > _MASK32).any():
        raise ValueError("the bytes are not a generator state (its position or words are off)")
    pos = _N if left == 1 else nxt
    stream.seeded = words.astype(np.uint32) if nxt == 0 else np.zeros(0, np.uint32)
    stream.bits.state = {
        "bit_generator": "MT19937",
        "state": {"key": words.astype(np.uint32), "pos": pos},
    }
    valid = int(np.frombuffer(buf, np.int32, 1, 5040)[0])
    stream.normal_cache = float(np.frombuffer(buf, np.float64, 1, 5024)[0]) if valid else None
    return seed

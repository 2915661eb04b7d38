"""``x * y + z`` rounded once, as PyTorch's CPU kernels compute it where they fuse the product
with the sum (``add``/``sub``/``rsub`` with ``alpha``, ``addcmul``, ``lerp``): NumPy rounds the
product first, which differs in the last bit for a few elements in a hundred.

float32 (and float16, which PyTorch computes in float32): the operands are exact in float64,
and so is their product; the sum is rounded to float64, then to float32 (a double rounding
only where float64's rounding lands on a float32 tie). float64: the product's and the sum's
rounding errors are found exactly (Dekker's split of each factor into two halves of 26
significant bits, Knuth's two-sum) and added back.

Large operands are taken chunk by chunk through scratch arrays kept by each thread: every
operation then runs in the cache, on one dtype, and allocates nothing (a fresh float64 array
of a million elements costs the allocator more than the arithmetic). The chunks of a large
call are shared among :func:`symgrad.prim.blocks.threads` threads.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from symgrad._silent import restore, silence
from symgrad.prim import blocks

__all__ = ["fused_multiply_add"]

CHUNK = 1 << 14  # elements per chunk of float64 operands: 128 KiB per scratch array, 8 arrays
NARROW_CHUNK = 1 << 16  # of float32 operands: two scratch arrays of 512 KiB
# elements of float32 operands computed in one float64 pass: their temporaries (64 KiB) come
# from the allocator's reused blocks, not fresh pages
SMALL = 1 << 13
_SPLIT = 134217729.0  # 2**27 + 1
_SCRATCH = threading.local()


def fused_multiply_add(x: Any, y: Any, z: Any) -> Any:
    """``x * y + z`` rounded once; numbers are taken in float32 for float32 and float16
    operands (PyTorch's computing type); integers and bools as NumPy computes them.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.prim.fused import fused_multiply_add
    >>> x = np.float64(1 + 2.0**-30)
    >>> float(fused_multiply_add(x, x, -1.0)) == 2.0**-29 + 2.0**-60  # x * x - 1 exactly
    True
    """
    dtype = np.result_type(x, y, z)
    if dtype.kind != "f":
        return x * y + z
    narrow = dtype != np.float64
    if narrow:  # PyTorch's number operands of float32 (and float16) ops are float32
        x, y, z = (np.float32(v) if isinstance(v, (int, float)) else v for v in (x, y, z))
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    if narrow and math.prod(shape) <= SMALL:  # one float64 pass of each kind, no chunks
        token = silence()
        try:
            total = np.add(np.multiply(x, y, dtype=np.float64), z, dtype=np.float64)
            return np.asarray(total).astype(np.float32, order="C").astype(dtype, copy=False)
        finally:
            restore(token)
    ops = [v if np.ndim(v) == 0 else _flat(v, shape) for v in (x, y, z)]
    out = np.empty(shape, np.float32 if narrow else np.float64)
    flat = out.reshape(-1)
    chunk, step = (_narrow_chunk, NARROW_CHUNK) if narrow else (_wide_chunk, CHUNK)

    def span(lo: int, hi: int) -> None:
        token = silence()  # (a thread's own error state)
        try:
            for i in range(lo, hi, step):
                j = min(i + step, hi)
                chunk(*[v if np.ndim(v) == 0 else v[i:j] for v in ops], flat[i:j])
        finally:
            restore(token)

    if flat.size < blocks.EAGER_MIN:
        span(0, flat.size)
    else:  # shared among the threads, as PyTorch's kernel
        errors = blocks.shared(span, flat.size, step)
        if errors:
            raise errors[0]
    return out.astype(dtype, copy=False) if narrow else out


def _flat(v: np.ndarray, shape: tuple) -> np.ndarray:
    """``v`` broadcast to ``shape``, as a flat row-major array (a view where it is one)."""
    if v.shape != shape or not v.flags.c_contiguous:
        v = np.ascontiguousarray(np.broadcast_to(v, shape))
    return v.reshape(-1)


def _scratch(n: int, count: int) -> list:
    """``count`` float64 arrays of ``n`` elements, this thread's own."""
    arrays = getattr(_SCRATCH, "arrays", None)
    if arrays is None:
        arrays = _SCRATCH.arrays = [np.empty(NARROW_CHUNK) for _ in range(2)]
        arrays += [np.empty(CHUNK) for _ in range(6)]
    return [a[:n] for a in arrays[:count]]


def _widened(v: Any, into: np.ndarray) -> Any:
    """A float32 chunk copied into a float64 scratch array; a number as a float."""
    if np.ndim(v) == 0:
        return float(v)
    np.copyto(into, v)
    return into


def _narrow_chunk(x: Any, y: Any, z: Any, out: np.ndarray) -> None:
    a, b = _scratch(out.size, 2)
    x, y = _widened(x, a), _widened(y, b)
    if type(x) is float and type(y) is float:
        a[:] = x * y
    else:
        np.multiply(x, y, out=a)
    np.add(a, _widened(z, b), out=a)
    np.copyto(out, a, casting="unsafe")


def _halves(v: Any, high: np.ndarray, low: np.ndarray) -> tuple:
    """``v`` as ``high + low``, each with 26 significant bits (Dekker's split)."""
    if np.ndim(v) == 0:
        scaled = _SPLIT * float(v)
        h = scaled - (scaled - float(v))
        return h, float(v) - h
    np.multiply(v, _SPLIT, out=high)
    np.subtract(high, v, out=low)
    np.subtract(high, low, out=high)
    np.subtract(v, high, out=low)
    return high, low


def _wide_chunk(x: Any, y: Any, z: Any, out: np.ndarray) -> None:
    product, error, term, xh, xl, yh, yl, back = _scratch(out.size, 8)
    np.multiply(x, y, out=product)
    np.add(product, z, out=out)  # the sum, rounded
    xh, xl = _halves(x, xh, xl)
    yh, yl = _halves(y, yh, yl)
    # the product's rounding error, exactly: ((xh yh - p) + xh yl + xl yh) + xl yl
    np.multiply(xh, yh, out=error)
    np.subtract(error, product, out=error)
    for u, v in ((xh, yl), (xl, yh), (xl, yl)):
        np.multiply(u, v, out=term)
        np.add(error, term, out=error)
    # the sum's rounding error (two-sum): (p - (s - b)) + (z - b), b = s - p
    np.subtract(out, product, out=back)
    np.subtract(out, back, out=term)
    np.subtract(product, term, out=term)
    np.add(error, term, out=error)
    np.subtract(z, back, out=term)
    np.add(error, term, out=error)
    # no error: the sum itself, whose zero keeps its sign; where the split overflows (a
    # factor beyond 1e300) or the sum is not finite, NumPy's sum
    fine = np.isfinite(error)
    np.not_equal(error, 0, out=fine, where=fine)
    np.add(out, error, out=out, where=fine)

"""Arithmetic rounded as PyTorch's compiled kernels round it: a fused multiply-add emulated
exactly in float64, and ATen's linspace built on it.

Examples
--------
>>> linspace_values(-1, 1, 11, np.dtype(np.float64))[5]
np.float64(-5.551115123125783e-17)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._silent import cast

__all__ = ["fma", "linspace_values"]


def fma(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` in float64 rounded once (PyTorch's compiled kernels contract it into a
    fused multiply-add): the product split exactly (Dekker), then summed with its error."""
    a = np.asarray(a, np.float64)
    b = np.float64(b)
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    se = (p - (s - bb)) + (c - bb)
    with np.errstate(invalid="ignore"):
        out = s + (err + se)
    # products that overflow or are not finite: the plain expression
    bad = ~np.isfinite(out) | ~np.isfinite(p)
    if bad.any():
        out = np.where(bad, p + c, out)
    return out


def linspace_values(start: Any, end: Any, steps: int, np_dtype: np.dtype) -> np.ndarray:
    """ATen's linspace: the first half ``start + step * i``, the rest ``end - step * (steps -
    1 - i)``, each a fused multiply-add (float32 and float64 in their own precision, integers
    through float64, truncated)."""
    if np_dtype == np.float16 and steps >= 2:  # half arithmetic, each step rounded
        h = np.float16
        first, last = h(start), h(end)
        step = np.float32((last - first) / h(steps - 1))
        i = np.arange(steps)
        up = first + (step * i.astype(np.float32)).astype(h)
        down = last - (step * (steps - 1 - i).astype(np.float32)).astype(h)
        return np.where(i < steps // 2, up, down)
    real = np_dtype.kind in "fiub" and np_dtype.itemsize >= 4 or np_dtype.kind in "iub"
    if not real or steps < 2 or isinstance(start, complex) or isinstance(end, complex):
        return cast(np.linspace(start, end, steps), np_dtype)
    work = np.float32 if np_dtype == np.float32 else np.float64
    first = np.array(start).astype(np_dtype).astype(work)
    last = np.array(end).astype(np_dtype).astype(work)
    step = (last - first) / work(steps - 1)  # rounded in the working precision
    i = np.arange(steps, dtype=np.float64)
    below = i < steps // 2
    if work is np.float64:
        values = np.where(below, fma(i, step, first), fma(i - (steps - 1), step, last))
    else:  # float32: the products exact in float64, one rounding to float32
        s = np.float64(step)
        values = np.where(below, i * s + np.float64(first), np.float64(last) - (steps - 1 - i) * s)
    with np.errstate(invalid="ignore", over="ignore"):
        return cast(values.astype(work), np_dtype)

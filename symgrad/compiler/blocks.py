"""Running a fused element-wise region block by block, on every core.

A region's programs (NumPy ufuncs for the functions, numexpr for the arithmetic around them)
each make a pass over whole arrays: on a million elements every intermediate leaves the cache
before the next program reads it, and NumPy's ufuncs run on one core. Cut into blocks of
``BLOCK`` elements, all of a region's programs run on one block while it is in the cache, and
the blocks are shared among ``threads()`` threads (NumPy's ufuncs and numexpr release the GIL
while they compute). Each block's results are written into the region's output arrays; the
values are the same as the whole-array programs' (element-wise work, in the same order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from symgrad._silent import restore, silence

__all__ = ["BLOCK", "MIN_BLOCKED", "run_blocked", "threads"]

BLOCK = 32768  # elements per block: in the cache still, and few calls to hand the GIL over
MIN_BLOCKED = 1 << 16  # elements: below this one pass over the whole arrays is as fast

_POOL: list = []


def threads() -> int:
    """How many threads share a region's blocks: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity on this platform
        return os.cpu_count() or 1


def _pool() -> ThreadPoolExecutor:
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(threads(), thread_name_prefix="symgrad-block"))
    return _POOL[0]


def _operand(a: Any, shape: tuple) -> tuple | None:
    """``("flat", a as a flat array)`` for an array of the full shape laid out row by row,
    ``("one", its value)`` for one value broadcast everywhere, None otherwise."""
    if np.ndim(a) == 0:
        return ("one", a)
    if a.shape == shape and a.flags.c_contiguous:
        return ("flat", a.reshape(-1))
    if a.size == 1 or not any(a.strides):
        return ("one", np.asarray(a[(0,) * a.ndim]))
    return None


def run_blocked(
    work: Callable, inputs: list, shape: tuple, dtypes: list
) -> list[np.ndarray] | None:
    """``work(parts, block_shape)``'s results over ``shape``, block by block on every core,
    where ``parts`` are ``inputs`` cut to the block; None (nothing run) when the inputs can't
    be cut that way (broadcast along some dimensions only, or a layout other than row by row)
    or the region is too small to gain."""
    size = int(np.prod(shape, dtype=np.int64))
    if size < MIN_BLOCKED:
        return None
    operands = [_operand(a, shape) for a in inputs]
    if any(o is None for o in operands):
        return None
    # each result is an array of its own (a view's memory would be copied where .grad keeps it)
    results = [np.empty(shape, dtype) for dtype in dtypes]
    flat = [r.reshape(-1) for r in results]
    n = min(threads(), size // BLOCK) or 1
    bounds = [size * k // n for k in range(n + 1)]

    def span(lo: int, hi: int) -> None:
        token = silence()  # the caller's silenced error state is not this thread's
        try:
            for i in range(lo, hi, BLOCK):
                j = min(i + BLOCK, hi)
                parts = [v[i:j] if kind == "flat" else v for kind, v in operands]
                for out, value in zip(flat, work(parts, (j - i,))):
                    out[i:j] = value
        finally:
            restore(token)

    if n == 1:
        span(0, size)
    else:
        futures = [_pool().submit(span, bounds[k], bounds[k + 1]) for k in range(n)]
        for f in futures:
            f.result()  # (an error in a block is raised here)
    return results

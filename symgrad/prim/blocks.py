"""Running element-wise work block by block, on every core: a compiled program's fused
regions, and eager element-wise calls on large arrays.

A region's programs (NumPy ufuncs for the functions, numexpr for the arithmetic around them)
each make a pass over whole arrays: on a million elements every intermediate leaves the cache
before the next program reads it, and NumPy's ufuncs run on one core. Cut into blocks of
``BLOCK`` elements, all of a region's programs run on one block while it is in the cache, and
the blocks are shared among ``threads()`` threads (NumPy's ufuncs and numexpr release the GIL
while they compute). Each block's results are written into the region's output arrays; the
values are the same as the whole-array programs' (element-wise work, in the same order).

An eager element-wise call on at least ``EAGER_MIN`` elements (``x.sin()``, the fused
``g * (1 - out**2)`` of ``tanh``'s backward) runs the same way (:func:`elementwise`), as
PyTorch shares a large element-wise kernel among its threads. Its blocks are smaller
(``EAGER_BLOCK``): a formula's temporaries then stay in the cache and below the size at which
the C library's allocator maps fresh pages for each one, which on a million elements costs
more than the arithmetic.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from symgrad._silent import restore, silence

__all__ = [
    "BLOCK",
    "EAGER_BLOCK",
    "EAGER_MIN",
    "MIN_BLOCKED",
    "ROWS_BLOCK",
    "call",
    "elementwise",
    "rows",
    "run_blocked",
    "set_threads",
    "shared",
    "threads",
]

BLOCK = 32768  # elements per block: in the cache still, and few calls to hand the GIL over
MIN_BLOCKED = 1 << 16  # elements: below this one pass over the whole arrays is as fast
EAGER_MIN = 1 << 16  # elements: an eager element-wise call on fewer is one whole-array call
EAGER_BLOCK = 8192  # elements per block of an eager call (64 KiB of float64 per temporary)
# elements per block of rows (a softmax's): its reductions and broadcasts are cheap calls, so
# blocks this small would hand the GIL between the threads more often than they compute
ROWS_BLOCK = 1 << 17

_POOL: list = []
_SET: list = []  # the count set_threads gave, if any


def threads() -> int:
    """How many threads share a region's blocks: the count :func:`set_threads` gave
    (``symgrad.set_num_threads``), else the cores this process may use."""
    if _SET:
        return _SET[0]
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity on this platform
        return os.cpu_count() or 1


def set_threads(n: int) -> None:
    """Share blocks among ``n`` threads from now on (``symgrad.set_num_threads``)."""
    _SET[:] = [n]


def _pool() -> ThreadPoolExecutor:
    """The threads blocks are shared among: made anew for more threads, and in a process
    forked from the one that made them (whose threads the fork did not copy)."""
    n = threads()
    pid = os.getpid()
    if not _POOL or _POOL[1] != pid or _POOL[0]._max_workers < n:
        _POOL[:] = [ThreadPoolExecutor(n, thread_name_prefix="symgrad-block"), pid]
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


class _Uneven(Exception):
    """A kernel's block result is not one value per element: the whole-array call instead."""


# ufuncs a pass over memory bounds: on more threads or in blocks no faster
_CHEAP = {
    np.add, np.subtract, np.multiply, np.divide, np.negative, np.positive, np.absolute,
    np.maximum, np.minimum, np.fmax, np.fmin, np.square, np.copysign, np.floor, np.ceil,
    np.trunc, np.rint, np.sqrt, np.reciprocal, np.sign, np.logical_not, np.equal,
    np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal, np.where,
}  # fmt: skip


def _worth(kernel: Any) -> bool:
    """Whether ``kernel`` gains from blocks and threads: a ufunc other than the cheap ones, a
    lambdified formula of several operations or with a function (its ``blockwise``), or one
    of the package's own kernels (several NumPy calls each)."""
    if type(kernel) is np.ufunc:
        return kernel not in _CHEAP
    return getattr(kernel, "blockwise", True)


def _eager_operand(a: Any, shape: tuple) -> tuple | None:
    """As :func:`_operand`, for an operand that may also be a number (or None): passed as is.
    None for an array of a subclass (a memory map, a meta array): not cut."""
    if not isinstance(a, np.ndarray):
        return ("one", a)
    if type(a) is not np.ndarray:
        return None
    return _operand(a, shape)


def elementwise(kernel: Callable, operands: tuple) -> np.ndarray | None:
    """``kernel(*operands)`` computed block by block and shared among ``threads()`` threads,
    for an element-wise ``kernel`` (a NumPy ufunc, a lambdified formula or one of the
    package's kernels) that gains from it; None, having computed nothing, where it doesn't,
    where the operands can't be cut that way (broadcast along some dimensions only, a layout
    other than row by row) or where the kernel's result is not one value per element. Errors
    in a block are raised here.

    A ufunc writes each thread's share straight into the result; a formula runs on blocks of
    ``EAGER_BLOCK`` elements, whose temporaries stay in the cache."""
    shape = None
    size = 0
    for a in operands:
        if isinstance(a, np.ndarray) and a.size > size:
            shape, size = a.shape, a.size
    if size < EAGER_MIN or not _worth(kernel):
        return None
    parts_of = [_eager_operand(a, shape) for a in operands]
    if any(o is None for o in parts_of):
        return None
    probe = kernel(*[v[:1] if kind == "flat" else v for kind, v in parts_of])
    if type(probe) is not np.ndarray or probe.shape != (1,):
        return None
    result = np.empty(shape, probe.dtype)
    flat = result.reshape(-1)
    ufunc = type(kernel) is np.ufunc
    block = size if ufunc else EAGER_BLOCK

    def span(lo: int, hi: int) -> None:
        token = silence()  # (this thread's own error state)
        try:
            for i in range(lo, hi, block):
                j = min(i + block, hi)
                parts = [v[i:j] if kind == "flat" else v for kind, v in parts_of]
                if ufunc:
                    kernel(*parts, out=flat[i:j])
                    continue
                value = kernel(*parts)
                if type(value) is not np.ndarray or value.shape != (j - i,):
                    raise _Uneven
                flat[i:j] = value
        finally:
            restore(token)

    errors = shared(span, size, EAGER_BLOCK)
    if errors:
        if any(type(e) is _Uneven for e in errors):
            return None
        raise errors[0]
    return result


def shared(span: Callable, total: int, unit: int) -> list:
    """``span(lo, hi)`` over ``range(total)`` in one share of whole ``unit``s per thread
    (this thread takes the first); the errors raised, once every share has stopped."""
    n = threads()
    step = total if n == 1 else -(-total // (n * unit)) * unit
    futures = [_pool().submit(span, lo, min(lo + step, total)) for lo in range(step, total, step)]
    errors = []
    try:
        span(0, min(step, total))  # this thread's share
    except Exception as exc:  # noqa: BLE001 - raised by the caller, once the others have stopped
        errors.append(exc)
    for f in futures:
        exc = f.exception()
        if exc is not None:
            errors.append(exc)
    return errors


def rows(kernel: Callable, operands: tuple) -> np.ndarray | None:
    """``kernel(*operands)`` for a ``kernel`` that works along the last axis only (a softmax
    along it, the rows of its backward), its result of the operands' shape: computed on blocks
    of whole rows (``ROWS_BLOCK`` elements or one row) shared among ``threads()`` threads.
    The values are the whole-array call's: a reduction along the last, contiguous axis sums
    each row alone, whatever the rows around it. None, having computed nothing, for fewer than
    ``EAGER_MIN`` elements or operands that are not arrays of one shape laid out row by row."""
    first = operands[0]
    if type(first) is not np.ndarray or first.size < EAGER_MIN or not first.shape[-1]:
        return None
    shape = first.shape
    for a in operands:
        if type(a) is not np.ndarray or a.shape != shape or not a.flags.c_contiguous:
            return None
    width = shape[-1]
    count = first.size // width
    matrices = [a.reshape(count, width) for a in operands]
    probe = kernel(*[m[:1] for m in matrices])  # one row: the result's dtype
    if type(probe) is not np.ndarray or probe.shape != (1, width):
        return None
    result = np.empty(shape, probe.dtype)  # (its own memory: a .grad keeps it uncopied)
    written = result.reshape(count, width)
    per = max(1, ROWS_BLOCK // width)  # rows per block

    def span(lo: int, hi: int) -> None:
        token = silence()  # (this thread's own error state)
        try:
            for i in range(lo, hi, per):
                j = min(i + per, hi)
                written[i:j] = kernel(*[m[i:j] for m in matrices])
        finally:
            restore(token)

    errors = shared(span, count, per)
    if errors:
        raise errors[0]
    return result


def call(kernel: Callable, operands: tuple) -> Any:
    """``kernel(*operands)`` for an eager call on large arrays: block by block on every core
    where :func:`elementwise` can, else one whole-array call."""
    out = elementwise(kernel, operands)
    return kernel(*operands) if out is None else out

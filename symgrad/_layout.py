"""The strides PyTorch gives the result of an element-wise op (its ``TensorIterator``): the
inputs' memory order, so ``-x.t()`` is laid out as ``x.t()`` is. NumPy's ``order="K"`` keeps
the order of a single input as well, but breaks ties between inputs differently; meta arrays,
which NumPy never fills, take PyTorch's strides from here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "output_strides",
    "dense_strides",
    "is_dense",
    "fill_order",
    "is_contiguous",
    "cast_keeping_broadcast",
]


def output_strides(inputs: Any, shape: tuple) -> tuple | None:
    """The strides, in elements, of the result of shape ``shape`` of an element-wise op of
    ``inputs`` (arrays and numbers), or None where it is contiguous."""
    arrays = [x for x in inputs if isinstance(x, np.ndarray) and x.ndim]
    if len(shape) < 2 or not arrays:
        return None
    elements = [_element_strides(x) for x in arrays]
    if all(x.shape == shape for x in arrays) and all(s == elements[0] for s in elements):
        if is_dense(shape, elements[0]):  # PyTorch's fast setup: the inputs' own strides
            return elements[0]
    order = _order([_broadcast_strides(x, shape) for x in arrays], shape)
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def _element_strides(x: np.ndarray) -> tuple:
    return tuple(s // x.itemsize for s in x.strides)


def _broadcast_strides(x: np.ndarray, shape: tuple) -> list:
    """``x``'s strides (bytes, as PyTorch compares them) against the result's dimensions: 0 where
    it is broadcast."""
    lead = len(shape) - x.ndim
    own = [0 if n == 1 and m != 1 else s for n, m, s in zip(x.shape, shape[lead:], x.strides)]
    return [0] * lead + own


def _order(strides: list, shape: tuple) -> list:
    """The result's dimensions from innermost to outermost: PyTorch's insertion sort, where the
    first input whose strides differ decides, and a broadcast dimension leaves it to the next."""

    def should_swap(d0: int, d1: int) -> int:
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    n = len(shape)
    perm = [n - 1 - i for i in range(n)]
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return perm


def dense_strides(shape: tuple, strides: tuple) -> tuple:
    """Strides that fill a block with the dimensions in the order ``strides`` has them
    (PyTorch's ``infer_dense_strides``: the order of an element-wise op's one input)."""
    result, step = [0] * len(shape), 1
    for d in _order([list(strides)], shape):
        result[d] = step
        step *= shape[d] if shape[d] > 1 else 1
    return tuple(result)


def is_dense(shape: tuple, strides: tuple) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill a block without gaps."""
    if math.prod(shape) == 0:
        return True
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    step = 1
    for d in dims:
        if strides[d] != step:
            return False
        step *= shape[d]
    return True


def fill_order(shape: tuple, strides: tuple) -> tuple | None:
    """The dimensions of a tensor of ``shape`` and ``strides`` (in elements) from the outermost
    in memory to the innermost: the order in which PyTorch's kernels visit the elements of a
    tensor they fill (random draws land in memory order, not row-major order, on a transposed
    tensor). None where that is row-major order."""
    order = _order([list(strides)], shape)[::-1]
    kept = [d for d in order if shape[d] != 1]
    if kept == sorted(kept):
        return None
    return tuple(order)


def is_contiguous(shape: tuple, strides: tuple) -> bool:
    """PyTorch's ``is_contiguous``: row-major strides (those of dimensions of size 1 aside)."""
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != step:
                return False
            step *= n
    return True


def cast_keeping_broadcast(data: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``data`` cast to ``dtype``, an expanded array (stride 0) still expanded: NumPy's
    ``astype`` fills its broadcast dimensions in and orders them innermost, a layout an op's
    result would then take where PyTorch's result of an expanded input is row-major.

    Examples
    --------
    >>> cast_keeping_broadcast(np.broadcast_to(np.ones(3, bool), (2, 3)), np.dtype("f4")).strides
    (0, 4)
    """
    if 0 not in data.strides or data.size < 2:
        return data.astype(dtype)
    one = data[tuple(slice(0, 1) if s == 0 else slice(None) for s in data.strides)]
    return np.broadcast_to(one.astype(dtype), data.shape)

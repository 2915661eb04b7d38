"""The layout PyTorch gives the result of indexing by tensors: its ``TensorIterator`` over the
input (restrided: 0 in the indexed dimensions) and the index tensors orders the result's
dimensions as those inputs lie in memory, so ``x[:, 1, [0, 2]]`` or ``x.t()[:, idx]`` come out
row by row (and ``.view`` works on them), where NumPy lays out the indexed dimensions first."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._layout import _order

__all__ = ["index_result"]


def index_result(a: np.ndarray, key: tuple, out: np.ndarray) -> np.ndarray | None:
    """``out`` = ``a[key]`` (a key of whole slices, ``...`` and index arrays) laid out as
    PyTorch lays it out: a copy where NumPy's strides differ; None for another key.

    Examples
    --------
    >>> a = np.arange(24.0).reshape(2, 3, 4)[:, 1]
    >>> key = (slice(None), np.array([0, 2]))
    >>> a[key].flags.c_contiguous, index_result(a, key, a[key]).flags.c_contiguous
    (False, True)
    """
    if out.ndim < 2 or not out.size:
        return out
    strides = _strides(a, key, out.shape)
    if strides is None:
        return None
    have = [s // out.itemsize for s in out.strides]
    if not all(out.shape[d] == 1 or have[d] == strides[d] for d in range(out.ndim)):
        order = sorted(range(out.ndim), key=lambda d: -strides[d])
        out = np.ascontiguousarray(out.transpose(order)).transpose(np.argsort(order))
        have = [s // out.itemsize for s in out.strides]
    if have == strides:
        return out
    # the same memory read alike: only the strides of dimensions of size 1 differ
    step = [s * out.itemsize for s in strides]
    return np.lib.stride_tricks.as_strided(out, out.shape, step, writeable=True)


def _strides(a: np.ndarray, key: tuple, shape: tuple) -> list | None:
    """The result's strides, in elements, by PyTorch's rule; None for a key it can't read."""
    entries = _per_dimension(key, a.ndim)
    if entries is None or len(entries) != a.ndim:
        return None
    indexed = [d for d, k in enumerate(entries) if k is not None]
    if not indexed:
        return None
    if indexed != list(range(indexed[0], indexed[-1] + 1)):  # apart: PyTorch moves them first
        order = indexed + [d for d in range(a.ndim) if d not in indexed]
        a, entries, indexed = a.transpose(order), [entries[d] for d in order], indexed[:0]
        indexed = list(range(sum(k is not None for k in entries)))
    try:
        arrays = np.broadcast_arrays(*[entries[d] for d in indexed])
    except ValueError:
        return None
    before, after = indexed[0], a.ndim - indexed[-1] - 1
    block = arrays[0].shape
    if before + len(block) + after != len(shape):
        return None
    own = [s // a.itemsize for s in a.strides]
    src = own[:before] + [0] * len(block) + own[a.ndim - after :]
    operands = [[s * (n != 1) for s, n in zip(src, shape)]]
    for x in arrays:
        steps = [s // x.itemsize if n != 1 else 0 for s, n in zip(x.strides, x.shape)]
        operands.append([0] * before + steps + [0] * after)
    result, step = [0] * len(shape), 1
    for d in _order(operands, shape):
        result[d] = step
        step *= shape[d]
    return result


def _per_dimension(key: tuple, ndim: int) -> list | None:
    """An entry for each dimension of the input: an index array, or None for a whole slice;
    None for a key with other entries (a mask reads as its nonzero positions)."""
    out: list = []
    for k in key:
        if k is Ellipsis:
            out += [None] * (ndim - sum(_reads(j) for j in key))
        elif type(k) is slice:
            if k != slice(None):
                return None
            out.append(None)
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            out += _mask_positions(k)
        elif isinstance(k, np.ndarray):
            out.append(k)
        else:
            return None
    return out + [None] * (ndim - len(out))


def _mask_positions(mask: np.ndarray) -> list:
    """Stand-ins for a mask's positions (PyTorch's columns of ``nonzero``): one-dimensional,
    as many as it holds; only their layout counts, and one dimension has one layout."""
    found = np.empty(np.count_nonzero(mask), np.intp)
    return [found] * mask.ndim


def _reads(k: Any) -> int:
    if k is Ellipsis or k is None:
        return 0
    return k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1

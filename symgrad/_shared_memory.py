"""Whether an op's result array is a view of its input's memory (and so the result a view
of the input tensor, sharing its version counter)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["shares_memory", "owns_rows"]


def shares_memory(out: np.ndarray, a: Any) -> bool:
    """Whether ``out`` is a view of the memory of ``a``; an empty one (``x[3:]`` of 3
    elements) by the memory both are views of, as NumPy sees no overlap in no elements.

    Examples
    --------
    >>> a = np.ones(3)
    >>> shares_memory(a[3:], a), shares_memory(a[3:].copy(), a), shares_memory(a[1:], a)
    (True, False, True)
    >>> shares_memory(np.lib.stride_tricks.as_strided(a[1:], (0,), (8,)), a)
    True
    """
    if out.size or type(a) is not np.ndarray:
        return np.may_share_memory(out, a)
    return out.base is not None and _memory_of(out) is _memory_of(a)


def _memory_of(array: Any) -> Any:
    """The object owning ``array``'s memory: the end of its chain of bases (through the
    holder ``as_strided`` puts between a view and its array)."""
    while (base := getattr(array, "base", None)) is not None:
        array = base
    return array


def owns_rows(out: np.ndarray) -> bool:
    """Whether ``out`` lies row by row in memory of its own, as PyTorch allocates the result
    of a reduction or a copy: an empty one too (NumPy may give an empty view of the input).

    Examples
    --------
    >>> a = np.ones((2, 3))
    >>> owns_rows(a), owns_rows(a.T), owns_rows(a[2:]), owns_rows(a[2:].copy())
    (True, False, False, True)
    """
    return out.flags.c_contiguous and (out.size > 0 or out.base is None)

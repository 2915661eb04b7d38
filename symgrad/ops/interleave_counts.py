"""The counts of ``repeat_interleave`` as PyTorch checks them (int64 or int32, one dimension,
none negative, adding up to ``output_size`` where one is given) and the indices they repeat."""

from __future__ import annotations

import numpy as np

from symgrad import dtypes
from symgrad.tensor import Tensor

__all__ = ["check_counts", "repeated_indices"]


def check_counts(counts: Tensor) -> None:
    """PyTorch's checks of the counts of ``repeat_interleave``: int64 or int32, one dimension.

    Examples
    --------
    >>> import symgrad
    >>> check_counts(symgrad.tensor([1.0]))
    Traceback (most recent call last):
    ...
    NotImplementedError: "repeat_interleave_cpu" not implemented for 'Float': ...
    """
    if counts.ndim != 1:
        raise RuntimeError(
            "repeat_interleave only accept 1D vector as repeat, got one of shape "
            f"{list(counts.shape)}"
        )
    if counts.dtype not in (dtypes.int64, dtypes.int32):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{counts.dtype.scalar_type}': "
            "the counts must be int64 or int32 (convert them with .long())"
        )


def repeated_indices(counts: np.ndarray, output_size: int | None) -> np.ndarray:
    """Each index repeated by its count, of the counts' dtype (PyTorch's).

    Examples
    --------
    >>> repeated_indices(np.array([2, 0, 1], dtype=np.int32), None)
    array([0, 0, 2], dtype=int32)
    """
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(counts.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError(
            "allocated size does not match required size: the counts add up to "
            f"{total}, output_size is {output_size}"
        )
    return np.repeat(np.arange(counts.size, dtype=counts.dtype), counts)

"""How PyTorch 2.13 reads some index keys before indexing: a short list holding a sequence, a
slice, a tensor, ``None`` or ``...`` is a tuple of indices (deprecated, with PyTorch's
warning); a uint8 tensor is a mask (deprecated, warned); int8, int16 and the wide unsigned
tensors are not indices; one value written through a uint8 mask is refused, as
``masked_fill_`` refuses a uint8 mask."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["pytorch_key", "index_array", "list_index", "check_uint8_fill", "warn_at_user"]

_SEQUENCE_KEY = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result"
)
_UINT8_MASK = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
)
# the index dtypes PyTorch takes: long, int, byte (a mask) and bool
_INDEX_KINDS = (np.int64, np.int32, np.uint8, np.bool_)


def warn_at_user(message: str) -> None:
    """A UserWarning pointing at the first caller outside symgrad."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("symgrad"):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def _multidimensional(item: Any) -> bool:
    """NumPy's old test, kept by PyTorch: does this list entry index a dimension of its own?"""
    if isinstance(item, (Tensor, np.ndarray, slice, Sequence)):
        return True
    return item is None or item is Ellipsis


def pytorch_key(key: Any) -> Any:
    """``key``, with a list of fewer than 32 entries read as a tuple when an entry is a
    sequence, a slice, a tensor, ``None`` or ``...`` (``x[[[0, 1]]]`` is ``x[[0, 1]]``)."""
    # a string is a sequence of strings to PyTorch: a tuple of one-letter indices
    if type(key) in (list, str) and len(key) < 32 and any(_multidimensional(k) for k in key):
        warn_at_user(_SEQUENCE_KEY)
        return tuple(key)
    return key


def list_index(items: list) -> np.ndarray:
    """PyTorch's reading of a list as an index: all bools a mask, any other numbers a long
    index (floats cut toward zero, as PyTorch converts them); strings, bytes, complex numbers
    and other objects are refused with PyTorch's exception types.

    Examples
    --------
    >>> from symgrad.ops.index_keys import list_index
    >>> list_index([0, 1.9, -1.5]).tolist(), list_index([True, 2]).tolist()
    ([0, 1, -1], [1, 2])
    """
    if not items:
        return np.zeros(0, np.intp)  # [] is an empty long index
    _check_entries(items)
    try:
        values = np.asarray(items)
    except ValueError as exc:  # ragged
        raise ValueError(f"{exc} (an index list must be rectangular: {items!r})") from None
    if values.dtype == np.bool_ or values.dtype.kind in "iu":
        return values
    with np.errstate(invalid="ignore", over="ignore"):
        cut = np.trunc(values.astype(np.float64))
    if not np.all(np.isfinite(cut)) or np.any(np.abs(cut) >= 2.0**63):
        raise RuntimeError(
            f"value cannot be converted to type int64 without overflow (index list {items!r})"
        )
    return cut.astype(np.int64)


def _check_entries(items: Any) -> None:
    for item in items:
        if isinstance(item, (list, tuple)):
            _check_entries(item)
        elif isinstance(item, (str, bytes)):
            raise TypeError(
                f"new(): invalid data type '{type(item).__name__}' (index entries must be "
                f"integers, floats or booleans, got {item!r})"
            )
        elif isinstance(item, complex):
            raise TypeError(
                "'complex' object cannot be interpreted as an integer (in an index list)"
            )
        elif not isinstance(item, (int, float, np.number, np.bool_, Tensor)):
            raise RuntimeError(
                f"Could not infer dtype of {type(item).__name__} (in an index list: use "
                "integers or booleans)"
            )


def index_array(k: Tensor) -> np.ndarray:
    """The NumPy index of an index tensor (not a 0-d integer one, which is an int): a uint8
    tensor is a mask (any nonzero is True), with PyTorch's deprecation warning."""
    data = k._data
    if data.dtype == np.uint8:
        if data.ndim:  # a 0-d one is a mask too, unwarned (PyTorch reads it as a bool)
            warn_at_user(_UINT8_MASK)
        return np.not_equal(data, 0, out=np.empty(data.shape, np.bool_))
    if data.dtype.type not in _INDEX_KINDS:
        raise IndexError(
            "tensors used as indices must be long, int, byte or bool tensors, got a tensor of "
            f"dtype {k.dtype!r} (convert it with .long())"
        )
    return data


def check_uint8_fill(key: Any, value: Any) -> None:
    """PyTorch writes one value through a lone mask index with ``masked_fill_``, which
    refuses a uint8 mask."""
    keys = key if isinstance(key, tuple) else (key,)
    tensors = [k for k in keys if isinstance(k, (Tensor, list))]
    one_value = not isinstance(value, Tensor) or value.numel() == 1
    if (
        one_value
        and len(tensors) == 1
        and isinstance(tensors[0], Tensor)
        and tensors[0].ndim
        and tensors[0]._data.dtype == np.uint8
    ):
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char "
            "(index with a bool mask: mask.bool())"
        )

"""How PyTorch 2.13 reads some index keys before indexing: a short list holding a sequence, a
slice, a tensor, ``None`` or ``...`` is a tuple of indices (deprecated, with PyTorch's
warning); a uint8 tensor is a mask (deprecated, warned); int8, int16 and the wide unsigned
tensors are not indices; one value written through a uint8 mask is refused, as
``masked_fill_`` refuses a uint8 mask."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad._user_warnings import warn_at_user
from symgrad.tensor import Tensor

__all__ = [
    "pytorch_key",
    "index_array",
    "list_index",
    "is_sequence",
    "check_uint8_fill",
    "warn_at_user",
    "int_slice",
    "skipped_slice",
]

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


def is_sequence(item: Any) -> bool:
    """Whether PyTorch reads ``item`` (an entry of an index tuple, or of an index list) as a
    sequence of index values: a list, tuple or range, not a string or a tensor."""
    return isinstance(item, Sequence) and not isinstance(item, (str, bytes, Tensor))


def list_index(items: Sequence) -> np.ndarray:
    """PyTorch's reading of a sequence as an index: all bools a mask, any other numbers a long
    index (floats cut toward zero, as PyTorch converts them; a tensor entry through its
    ``__index__``, a bool one kept a bool); strings, bytes, complex numbers, other objects and
    ragged nesting are refused with PyTorch's exception types.

    Examples
    --------
    >>> from symgrad.ops.index_keys import list_index
    >>> list_index([0, 1.9, -1.5]).tolist(), list_index((True, 2)).tolist()
    ([0, 1, -1], [1, 2])
    """
    if not items:
        return np.zeros(0, np.intp)  # [] is an empty long index
    entries = _entries(items)
    _check_rectangular(items, _sizes(items), 0)
    values = np.asarray(entries)
    if values.dtype == np.bool_ or values.dtype.kind in "iu":
        return values
    with np.errstate(invalid="ignore", over="ignore"):
        cut = np.trunc(values.astype(np.float64))
    if not np.all(np.isfinite(cut)) or np.any(np.abs(cut) >= 2.0**63):
        raise RuntimeError(
            f"value cannot be converted to type int64 without overflow (index list {items!r})"
        )
    return cut.astype(np.int64)


def _entries(items: Sequence) -> list:
    """``items`` as nested lists of Python numbers, each entry checked."""
    out: list = []
    for item in items:
        if is_sequence(item):
            out.append(_entries(item))
        elif isinstance(item, Tensor):
            one_bool = item.numel() == 1 and item._data.dtype == np.bool_
            out.append(bool(item._data.reshape(())) if one_bool else operator.index(item))
        elif isinstance(item, (str, bytes)):
            raise TypeError(
                f"new(): invalid data type '{type(item).__name__}' (index entries must be "
                f"integers, floats or booleans, got {item!r})"
            )
        elif isinstance(item, complex):
            raise TypeError(
                "'complex' object cannot be interpreted as an integer (in an index list)"
            )
        elif not isinstance(item, (int, float, np.number, np.bool_)):
            raise RuntimeError(
                f"Could not infer dtype of {type(item).__name__} (in an index list: use "
                "integers or booleans)"
            )
        else:
            out.append(item)
    return out


def _sizes(items: Any) -> list:
    """The shape PyTorch reads off the first entry at each depth."""
    sizes = []
    while is_sequence(items):
        sizes.append(len(items))
        if not items:
            break
        items = items[0]
    return sizes


def _check_rectangular(items: Any, sizes: list, dim: int) -> None:
    """PyTorch's errors for nesting that does not fit the shape of the first entries."""
    if dim == len(sizes):
        if is_sequence(items):
            raise TypeError(
                f"'{type(items).__name__}' object cannot be interpreted as an integer (an "
                "index list must be rectangular)"
            )
        return
    if not is_sequence(items):
        raise TypeError("not a sequence (an index list must be rectangular)")
    if len(items) != sizes[dim]:
        raise ValueError(
            f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(items)}) (an "
            "index list must be rectangular)"
        )
    for item in items:
        _check_rectangular(item, sizes, dim + 1)


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
            "tensors used as indices must be long, int, byte or bool tensors\n(got a tensor of "
            f"dtype {k.dtype!r}: convert it with .long())"
        )
    return data


def check_uint8_fill(key: Any, value: Any, shape: tuple, zero_dim: bool = False) -> None:
    """PyTorch writes one value through a lone mask index with ``masked_fill_``, which
    refuses a uint8 mask (one that fits the tensor of ``shape``: a mask that does not fit gets
    the indexing's own error; a 0-d mask counts only where ``zero_dim``, as in
    ``index_put_``: ``x[mask] = v`` reads a 0-d one as a bool)."""
    keys = key if isinstance(key, tuple) else (key,)
    tensors = [k for k in keys if isinstance(k, (Tensor, list))]
    one_value = not isinstance(value, Tensor) or value.numel() == 1
    if not (one_value and len(tensors) == 1 and isinstance(tensors[0], Tensor)):
        return
    mask = tensors[0]
    if mask._data.dtype != np.uint8 or not (mask.ndim or zero_dim):
        return
    probe = tuple(mask._data != 0 if k is mask else k for k in keys)
    try:
        np.empty(shape, dtype=np.bool_)[probe]
    except IndexError:
        return
    except (TypeError, ValueError):  # a key NumPy can't read (slice bounds as tensors)
        pass
    raise RuntimeError(
        "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char "
        "(index with a bool mask: mask.bool())"
    )


def int_slice(k: slice) -> slice:
    """``k`` with int bounds: a 0-d integer tensor (or any object with ``__index__``) is read
    as its value, so the node's key holds plain numbers."""
    if plain_slice(k):
        return k  # plain bounds already
    bounds = []
    for bound in (k.start, k.stop, k.step):
        if bound is None or isinstance(bound, Tensor):  # a tensor raises its own TypeError
            bounds.append(bound if bound is None else operator.index(bound))
            continue
        try:
            bounds.append(operator.index(bound))
        except TypeError:
            raise TypeError(
                "slice indices must be integers or None or have an __index__ method"
            ) from None
    if bounds[2] == 0:
        raise ValueError("slice step cannot be zero")
    if bounds[2] is not None and bounds[2] < 0:
        raise ValueError("step must be greater than zero")
    return slice(*bounds)


def plain_slice(k: slice) -> bool:
    """Whether ``k`` has int (or no) bounds and a positive step, as NumPy reads it."""
    step = k.step
    return (
        (k.start is None or type(k.start) is int)
        and (k.stop is None or type(k.stop) is int)
        and (step is None or type(step) is int and step > 0)
    )


def skipped_slice(k: slice, n: int) -> bool:
    """Whether PyTorch skips the slice ``k`` (int bounds) of a dimension of size ``n`` in a
    key of several entries: it starts at 0 as written, ends at ``n`` or past it and steps by
    1 (``x[:, 0]``, ``x[0:99, 0]``); ``x[-3:, 0]`` of 3 rows is a slice node, though whole.

    Examples
    --------
    >>> skipped_slice(slice(None), 3), skipped_slice(slice(0, 5, 1), 3)
    (True, True)
    >>> skipped_slice(slice(-3, None), 3), skipped_slice(slice(None, None, 3), 1)
    (False, False)
    """
    return k.start in (None, 0) and k.step in (None, 1) and (k.stop is None or k.stop >= n)


def plain_key(key: Any, shape: tuple) -> tuple | None:
    """``(normalized key, node kind)`` for the commonest keys, which make one node: an int
    in range or a slice of plain bounds alone, or a tuple of those with one entry that
    does something (the others whole slices, which PyTorch skips); None for any other."""
    if not shape:
        return None
    kind = type(key)
    if kind is int:
        return ((key,), "select") if -shape[0] <= key < shape[0] else None
    if kind is slice:  # alone, a slice node even when whole (PyTorch's)
        return ((key,), "slice") if plain_slice(key) else None
    if kind is not tuple or len(key) > len(shape):
        return None
    node = "alias"
    for k, n in zip(key, shape):
        if type(k) is int:
            if not -n <= k < n:
                return None
            step = "select"
        elif type(k) is slice and plain_slice(k):
            if skipped_slice(k, n):
                continue
            step = "slice"
        else:
            return None
        if node != "alias":  # a second step: a second node
            return None
        node = step
    return key, node


def torch_words(message: str, key: tuple, shape: tuple) -> str:
    """NumPy's message for a key out of range, in PyTorch's words."""
    found = re.fullmatch(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", message)
    if found:
        return "index {} is out of bounds for dimension {} with size {}".format(*found.groups())
    found = re.match(r"too many indices for array: array is (\d+)-dimensional", message)
    if found and len(key) == 1 and isinstance(key[0], slice):
        return "slice() cannot be applied to a 0-dim tensor."
    if found and len(key) == 1 and isinstance(key[0], int):
        return (
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if found:
        return f"too many indices for tensor of dimension {found.group(1)}"
    found = re.match(r"boolean index did not match indexed array along axis (\d+)", message)
    if found:
        start = 0  # the first dimension the mask covers
        for k in key:
            if isinstance(k, np.ndarray) and k.dtype.kind == "b":
                break
            if k is Ellipsis:
                return message
            start += k is not None
        axis = int(found.group(1))
        return (
            f"The shape of the mask {list(k.shape)} at index {axis - start} does not match the "
            f"shape of the indexed tensor {list(shape)} at index {axis}"
        )
    return message

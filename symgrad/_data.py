"""Reading the user's data: nested lists, numbers and arrays as NumPy arrays with PyTorch's
dtype inference, and sizes given PyTorch's two ways.

It sits below :mod:`symgrad.tensor`, so it knows tensors only by their base class.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import dtypes

__all__ = ["HoldsArray", "to_array", "sizes"]


class HoldsArray:
    """The base of :class:`symgrad.Tensor`: an object whose values are the array ``_data``."""

    __slots__ = ()
    _data: np.ndarray


def _nested_values(data: Any, found: set) -> Any:
    """Replace one-element tensors inside nested lists by their values, adding the dtype of
    every element to ``found`` (PyTorch infers the dtype element by element)."""
    if isinstance(data, (list, tuple)):
        return [_nested_values(v, found) for v in data]
    found.add(_element_dtype(data))
    return data._data if isinstance(data, HoldsArray) else data


def _element_dtype(value: Any) -> Any:
    if isinstance(value, HoldsArray):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(value, np.generic):
        return dtypes.as_dtype(value.dtype) if value.dtype.kind in "biuf" else None
    if isinstance(value, numbers.Integral):
        return dtypes.int64
    if isinstance(value, numbers.Real):
        return dtypes.get_default_dtype()
    return None  # not a number: reported once the array is built


def to_array(data: Any, dtype: Any = None) -> np.ndarray:
    """A new array holding ``data``, with PyTorch's dtype inference."""
    target = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(data, HoldsArray):
        array = np.array(data._data)
    elif isinstance(data, np.ndarray):
        array = np.array(data)
        if target is None:
            dtypes.from_numpy_dtype(array.dtype)
    elif isinstance(data, (list, tuple, numbers.Number, np.generic)):
        found: set = set()
        try:
            array = np.array(_nested_values(data, found))
        except ValueError as exc:
            raise ValueError(f"can't build a tensor from ragged nested sequences: {exc}") from None
        if array.dtype == object or array.dtype.kind not in "biuf" or None in found:
            raise TypeError(f"can't build a tensor from {type(data).__name__} data {data!r:.80}")
        if target is None:
            target = _inferred(found)
    else:
        raise TypeError(
            f"can't build a tensor from an object of type {type(data).__name__}; pass a number, "
            "a (nested) list or tuple of numbers, a NumPy array or a Tensor"
        )
    if target is not None and array.dtype != target.numpy:
        array = array.astype(target.numpy)
    return array


def _inferred(found: set) -> dtypes.dtype:
    """The dtype holding elements of all the ``found`` dtypes (the default for no element)."""
    result = None
    for d in found:
        result = d if result is None else dtypes.promote_types(result, d)
    return dtypes.get_default_dtype() if result is None else result


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as ``symgrad.Size([2, 3])`` (PyTorch's
    ``torch.Size``).

    Examples
    --------
    >>> import symgrad
    >>> s = symgrad.zeros(2, 3).shape
    >>> s, s == (2, 3), s.numel(), s[1:]
    (symgrad.Size([2, 3]), True, 6, symgrad.Size([3]))
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"symgrad.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for k in self:
            n *= k
        return n

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:
        return Size(tuple.__add__(self, tuple(other)))

    def __mul__(self, n: Any) -> Size:
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def sizes(args: tuple, op: str) -> tuple[int, ...]:
    """Sizes given PyTorch's two ways: ``f(2, 3)`` or ``f((2, 3))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for n in args:
        if (
            isinstance(n, bool)
            or not isinstance(n, (int, np.integer, HoldsArray))
            or (isinstance(n, HoldsArray) and (n.numel() != 1 or n.dtype.category != 1))
        ):
            raise TypeError(
                f"{op}(): sizes must be ints or one tuple of ints, got {args!r} "
                f"({type(n).__name__} {n!r:.20})"
            )
    return tuple(int(n) for n in args)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n

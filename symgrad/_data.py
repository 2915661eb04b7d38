"""Reading the user's data: nested lists, numbers and arrays as NumPy arrays with PyTorch's
dtype inference, and sizes given PyTorch's two ways.

It sits below :mod:`symgrad.tensor`, so it knows tensors only by their base class.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import dtypes

__all__ = [
    "HoldsArray",
    "to_array",
    "sizes",
    "int_argument",
    "check_number",
    "check_fits",
    "cannot_convert",
]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# PyTorch reads a Python int argument as a signed or unsigned 64-bit number
INT_ARG_MIN, INT_ARG_END = INT64_MIN, 2**64

# the dtype recorded for a Python int beyond int64: such data can only become floating
_WIDE_INT = "an int beyond int64"


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
        return dtypes.int64 if INT64_MIN <= value <= INT64_MAX else _WIDE_INT
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
        array, target = _number_array(data, target)
    else:
        raise TypeError(
            f"can't build a tensor from an object of type {type(data).__name__}; pass a number, "
            "a (nested) list or tuple of numbers, a NumPy array or a Tensor"
        )
    if target is not None and array.dtype != target.numpy:
        with np.errstate(over="ignore"):  # a float too big for float32 is inf, as in PyTorch
            array = array.astype(target.numpy)
    return array


def _number_array(data: Any, target: Any) -> tuple[np.ndarray, Any]:
    """Nested lists of numbers as an array, and the dtype PyTorch gives them (``target`` if
    given); a value the dtype can't hold is an error, never a wrapped number."""
    found: set = set()
    values = _nested_values(data, found)
    wide = _WIDE_INT in found
    if wide:
        found.discard(_WIDE_INT)
        found.add(dtypes.int64)
    if None in found:
        raise TypeError(f"can't build a tensor from {type(data).__name__} data {data!r:.80}")
    if target is None:
        target = _inferred(found)
    if wide:
        values = _wide_ints_as_floats(values, target)
    try:
        array = np.array(values)
    except ValueError as exc:
        raise ValueError(f"can't build a tensor from ragged nested sequences: {exc}") from None
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise TypeError(f"can't build a tensor from {type(data).__name__} data {data!r:.80}")
    if array.dtype != target.numpy:
        check_fits(array, target, "tensor()")
    return array, target


def _wide_ints_as_floats(values: Any, target: dtypes.dtype) -> Any:
    """``values`` with every int beyond int64 as a float, for a floating or bool ``target``
    (PyTorch reads such an int as a double); an integer ``target`` can't hold them."""
    if isinstance(values, list):
        return [_wide_ints_as_floats(v, target) for v in values]
    if type(values) is not int or INT64_MIN <= values <= INT64_MAX:
        return values
    if target.category == dtypes.int64.category:
        raise ValueError(
            f"Overflow when unpacking long long: {values} is outside int64's range "
            "[-2**63, 2**63 - 1]; pass dtype=symgrad.float64 for a floating tensor"
        )
    try:
        return float(values)
    except OverflowError:
        raise OverflowError(
            f"int too large to convert to float: {_short(values)} is beyond float64's range"
        ) from None


def _short(n: int) -> str:
    """An int for a message: its digits, or its size when they would fill the screen."""
    return str(n) if n.bit_length() <= 100 else f"an int of {n.bit_length()} bits"


def int_argument(value: int, op: str) -> int:
    """``value``, a Python int given as a number argument, if 64 bits hold it; else
    PyTorch's OverflowError."""
    if not INT_ARG_MIN <= value < INT_ARG_END:
        raise OverflowError(
            f"{op}: int too big to convert: {_short(value)} needs more than 64 bits; pass "
            "it as a float (float(n)) to compute in floating point"
        )
    return value


def check_number(value: Any, target: dtypes.dtype, op: str) -> None:
    """PyTorch's errors for a number written into a tensor of dtype ``target`` (a fill
    value): OverflowError for an int beyond 64 bits, RuntimeError for a value an integer
    ``target`` can't hold."""
    if isinstance(value, (bool, np.bool_, HoldsArray)):
        return
    if isinstance(value, int):
        int_argument(value, f"{op}()")
    check_fits(value, target, f"{op}()")


def cannot_convert(op: str, value: Any, np_dtype: Any) -> RuntimeError:
    """PyTorch's error for a number an integer dtype can't hold (where a cast would wrap)."""
    info = np.iinfo(np_dtype)
    return RuntimeError(
        f"{op}: value cannot be converted to type {np.dtype(np_dtype).name} without overflow: "
        f"{value!r} is not in [{info.min}, {info.max}]"
    )


def check_fits(values: Any, target: dtypes.dtype, op: str) -> None:
    """PyTorch's RuntimeError for a value (an array or a number; nan and inf too) the integer
    dtype ``target`` can't hold."""
    if target.category != dtypes.int64.category:
        return
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise cannot_convert(op, values, target.numpy)  # an int beyond 64 bits
    info = np.iinfo(target.numpy)
    if array.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.trunc(array)
            # the bounds as exact floats: -2**63 and 2**63, not a rounded 2**63 - 1
            bad = ~((whole >= info.min) & (whole < info.max + 1))
    else:
        bad = (array < info.min) | (array > info.max)
    if bad.any():
        raise cannot_convert(op, array[bad].flat[0].item(), target.numpy)


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

"""Reading the user's data: nested lists, numbers and arrays as NumPy arrays with PyTorch's
dtype inference, and sizes given PyTorch's two ways.

It sits below :mod:`symgrad.tensor`, so it knows tensors only by their base class.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from symgrad import _layout, _user_warnings, dtypes
from symgrad._broadcast_errors import broadcast_mismatch, check_broadcast
from symgrad._silent import cast
from symgrad._size import Size as Size  # where the package's modules import it from

__all__ = [
    "HoldsArray",
    "to_array",
    "sizes",
    "int_argument",
    "check_number",
    "check_fits",
    "in_dtype",
    "cannot_convert",
    "broadcast_mismatch",
    "check_broadcast",
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
    _user_warnings.note_list_value(data, found)
    if isinstance(data, (list, tuple, range)):
        return [_nested_values(v, found) for v in data]
    if isinstance(data, np.ndarray) and not data.ndim:  # PyTorch takes it for a sequence
        raise TypeError(
            "len() of unsized object\n(can't build a tensor from a list holding a 0-d NumPy "
            "array: give its number, array.item())"
        )
    if isinstance(data, np.ndarray) and data.ndim and data.dtype.kind in "biuf":
        # a sequence of NumPy numbers to PyTorch: its dtype joins the inference
        found.add(dtypes.from_numpy_dtype(data.dtype))
        return data
    found.add(_element_dtype(data))
    if isinstance(data, HoldsArray):
        if data._data.size != 1:  # refused once the dtype is known (see _many_elements)
            found.add(("many", tuple(data._data.shape)))
            return data._data
        return data._data.reshape(())
    return data


def _element_dtype(value: Any) -> Any:
    if isinstance(value, HoldsArray):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(value, np.generic):
        return dtypes.from_numpy_dtype(value.dtype) if value.dtype.kind in "biuf" else None
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
    elif isinstance(data, (list, tuple, range, numbers.Number, np.generic)):
        array, target = _number_array(data, target)
    else:
        raise _not_a_number(data, target is not None, ())
    if target is not None and array.dtype != target.numpy:
        array = cast(array, target.numpy)  # (too big for float32: inf, as in PyTorch)
    return array


def _number_array(data: Any, target: Any) -> tuple[np.ndarray, Any]:
    """Nested lists of numbers as an array, and the dtype PyTorch gives them (``target`` if
    given); a value the dtype can't hold is an error, never a wrapped number."""
    found: set = set()
    values = _nested_values(data, found)
    _user_warnings.warn_arrays_in_list(found)
    wide = _WIDE_INT in found
    if wide:
        found.discard(_WIDE_INT)
        found.add(dtypes.int64)
    shapes = [f for f in found if isinstance(f, tuple)]
    many = shapes[0] if shapes else None
    found.difference_update(shapes)
    if None in found:
        raise _data_error(data, target is not None)
    if target is None:
        target = _inferred(found)
    if many is not None:
        raise _many_elements(many[1], target)
    if wide:
        values = _wide_ints_as_floats(values, target)
    try:
        array = np.array(values)
    except ValueError:
        raise _data_error(data, True) from None
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise _data_error(data, True)
    if array.dtype != target.numpy:
        check_fits(array, target, "tensor()")
    return array, target


def _many_elements(shape: tuple, target: Any) -> Exception:
    """PyTorch's error for a tensor of several elements inside nested lists: it reads each
    element as an index for an integer or bool result, as a float otherwise."""
    hint = (
        f"\n(can't build a tensor from a list holding a tensor of shape {list(shape)}: use "
        "symgrad.stack(tensors) to join tensors)"
    )
    if target.is_floating_point:
        return ValueError("only one element tensors can be converted to Python scalars" + hint)
    return TypeError("only integer tensors of a single element can be converted to an index" + hint)


def _data_error(data: Any, typed: bool) -> Exception:
    """PyTorch's error for nested ``data`` that can't be a tensor, found as PyTorch finds it:
    the shape from the first element at each depth, then (without a ``dtype``, ``typed``
    False) every element's dtype, then every sequence against the shape."""
    shape: list[int] = []
    item = data
    while isinstance(item, (list, tuple, range, str)):
        if isinstance(item, str):  # a string is a sequence to PyTorch: of strings, endlessly
            return ValueError(
                f"too many dimensions 'str'\n(can't build a tensor from strings: {item!r:.20})"
            )
        if not item:
            break
        shape.append(len(item))
        item = item[0]
    if not typed:
        for index, value in _elements(data, ()):
            if _element_dtype(value) is None and not isinstance(value, numbers.Complex):
                return _not_a_number(value, False, index)
    return _store_error(data, shape, ()) or TypeError(
        f"can't build a tensor from {type(data).__name__} data {data!r:.80}"
    )


def _elements(data: Any, index: tuple) -> Any:
    """(index, value) of every element of nested lists, in order."""
    if isinstance(data, (list, tuple, range)):
        for i, v in enumerate(data):
            yield from _elements(v, (*index, i))
    else:
        yield index, data


def _not_a_number(value: Any, typed: bool, index: tuple) -> Exception:
    """PyTorch's error for ``value``, found at ``index`` of the data, which is no number."""
    kind = type(value).__name__
    where = f" at index {list(index)}" if index else ""
    if isinstance(value, (str, bytes)):
        return TypeError(
            f"new(): invalid data type '{kind}': can't build a tensor from {value!r:.20}{where}; "
            "convert strings to numbers first"
        )
    if typed:
        return TypeError(f"must be real number, not {kind}: can't build a tensor from it{where}")
    return RuntimeError(
        f"Could not infer dtype of {kind}: can't build a tensor from {value!r:.40}{where}; "
        "pass a number, a (nested) list or tuple of numbers, a NumPy array or a Tensor"
    )


def _store_error(item: Any, shape: list, index: tuple) -> Exception | None:
    """The error for the first element of ``item`` that doesn't fit ``shape``, or None."""
    dim = len(index)
    if dim == len(shape):
        kind = type(item).__name__
        if isinstance(item, (list, tuple, range)):
            return TypeError(
                f"must be real number, not {kind}: can't build a tensor from ragged nested "
                f"sequences, found a {kind} at index {list(index)} where a number belongs"
            )
        if _element_dtype(item) is None:
            return TypeError(
                f"must be real number, not {kind}: can't build a tensor from {item!r:.20} at "
                f"index {list(index)}; tensor data holds numbers only"
            )
        return None
    if not isinstance(item, (list, tuple, range)):
        return TypeError(
            f"not a sequence\n(can't build a tensor from ragged nested sequences: found "
            f"{item!r:.20} at index {list(index)} where a sequence of length {shape[dim]} belongs)"
        )
    if len(item) != shape[dim]:
        return ValueError(
            f"expected sequence of length {shape[dim]} at dim {dim} (got {len(item)})\n(can't "
            f"build a tensor from ragged nested sequences: the one at index {list(index)})"
        )
    for i, v in enumerate(item):
        error = _store_error(v, shape, (*index, i))
        if error is not None:
            return error
    return None


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
    """``value``, an int given as a number argument, if 64 bits hold it; else an OverflowError."""
    if not INT_ARG_MIN <= value < INT_ARG_END:
        raise OverflowError(
            f"{op}: int too big to convert: {_short(value)} needs more than 64 bits; pass "
            "it as a float (float(n)) to compute in floating point"
        )
    return value


def check_number(value: Any, target: dtypes.dtype, op: str) -> Any:
    """PyTorch's errors for a number written into a tensor of dtype ``target`` (a fill
    value): OverflowError for an int beyond 64 bits, RuntimeError for a value an integer
    ``target`` can't hold. Returns the number to write: a negative int wrapped into an
    unsigned ``target`` (-1 is 255 in uint8), as PyTorch writes it."""
    if isinstance(value, (bool, np.bool_, HoldsArray)):
        return value
    if isinstance(value, int):
        int_argument(value, f"{op}()")
    check_fits(value, target, f"{op}()")
    if isinstance(value, (int, np.integer)) and value < 0 and target.numpy.kind == "u":
        return int(value) + int(np.iinfo(target.numpy).max) + 1
    return value


def check_fill(value: Any, target: dtypes.dtype, op: str, *, one: bool = False) -> Any:
    """``check_number`` for a fill value, which PyTorch converts to ``target`` with a range
    check: also its RuntimeError for a finite number beyond a float16 or float32 ``target``'s
    range (a number in arithmetic is not checked: it overflows to inf); a TypeError for None.
    ``one``: the tensor written has one element, where PyTorch's float16 fill takes no check."""
    if not isinstance(value, (numbers.Number, np.number, np.bool_, HoldsArray)):
        raise TypeError(f"{op}(): a fill value must be a Number, not {type(value).__name__}")
    value = check_number(value, target, op)
    kind = target.numpy
    if kind.kind == "f" and kind.itemsize < 8 and not (one and kind.itemsize == 2):
        if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
            info = np.finfo(kind)
            if math.isfinite(value) and abs(value) > float(info.max):
                raise RuntimeError(
                    f"{op}(): value cannot be converted to type {kind.name} without overflow: "
                    f"{value!r} is not in [{-float(info.max)!r}, {float(info.max)!r}]"
                )
    return value


def cannot_convert(op: str, value: Any, np_dtype: Any) -> RuntimeError:
    """PyTorch's error for a number an integer dtype can't hold (where a cast would wrap)."""
    info = np.iinfo(np_dtype)
    return RuntimeError(
        f"{op}: value cannot be converted to type {np.dtype(np_dtype).name} without overflow: "
        f"{value!r} is not in [{info.min}, {info.max}]"
    )


_RANGES = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max) for t in np.typecodes["AllInteger"]}


def in_dtype(data: Any, dtype: np.dtype) -> Any:
    """An operand converted to the dtype an op computes in, as PyTorch converts it: integers
    for a floating result, a 0-d array of another dtype (float64 rounded to float32, int64
    wrapped into int8), an int the integer dtype can't hold wrapped (``int8 + 1000`` adds
    -24, where NumPy raises); a lower-precision floating array is widened first, so a kernel
    computing on it alone (the log of xlogy) does so in the result's precision."""
    kind = type(data)
    if kind is np.ndarray:
        if data.dtype != dtype and (data.ndim == 0 or dtype.kind == "f"):
            return _layout.cast_keeping_broadcast(data, dtype)
    elif kind is int and dtype.kind in "iu":
        low, high = _RANGES[dtype]
        if not low <= data <= high:  # two's complement
            return (data - low) % (high - low + 1) + low
    return data


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
        # PyTorch lets a negative int into an unsigned type when it wraps once (-1 is 255)
        low = -int(info.max) if info.min == 0 and array.dtype.kind == "i" else info.min
        bad = (array < low) | (array > info.max)
    if bad.any():
        raise cannot_convert(op, array[bad].flat[0].item(), target.numpy)


def _inferred(found: set) -> dtypes.dtype:
    """The dtype holding elements of all the ``found`` dtypes (the default for no element)."""
    result = None
    for d in found:
        result = d if result is None else dtypes.promote_types(result, d)
    return dtypes.get_default_dtype() if result is None else result


def sizes(args: tuple, op: str) -> tuple[int, ...]:
    """Sizes given PyTorch's two ways: ``f(2, 3)`` or ``f((2, 3))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if all(type(n) is int for n in args):  # (the common case: as they are)
        return args
    for i, n in enumerate(args):
        # PyTorch tells an int list by its first element; a later bool counts as 0 or 1
        if (
            (isinstance(n, bool) and i == 0)
            or not isinstance(n, (int, np.integer, HoldsArray))
            or (isinstance(n, HoldsArray) and (n.numel() != 1 or n.dtype.category != 1))
        ):
            raise TypeError(
                f"{op}(): sizes must be ints or one tuple of ints, got {args!r} "
                f"({type(n).__name__} {n!r:.20})"
            )
    return tuple(int(n) for n in args)


def keyword_sizes(op: str, given: tuple, keywords: dict, name: str) -> tuple:
    """The sizes of ``op(*given)``, or those given as the keyword ``name`` instead
    (``zeros(size=(2, 3))``, ``x.reshape(shape=(3, 2))``), with PyTorch's TypeErrors for
    any other keyword, a keyword next to positional sizes, or a keyword value that is not a
    sequence."""
    for key in keywords:
        if key != name:
            raise TypeError(f"{op}() got an unexpected keyword argument '{key}'")
    if given:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    value = keywords[name]
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{op}(): argument '{name}' must be tuple of ints, not {type(value).__name__}"
        )
    return (value,)


def _wrap_dim(dim: int, ndim: int) -> int:
    if type(dim) is not int:
        dim = _dim_index(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def distinct_dims(wrapped: Any) -> None:
    """PyTorch's error for a list of (wrapped) dimensions naming one twice."""
    seen: set = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)


def wrap_dim_of_dims(dim: Any, ndim: int, error: type = IndexError) -> int:
    """``dim`` wrapped for an op that needs a real dimension: a 0-d tensor has none (PyTorch's
    message, as ``error``), where most ops treat it as one of size 1."""
    if ndim == 0:
        raise error(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def _dim_index(dim: Any) -> int:
    """``dim``, a NumPy integer or a one-element integer tensor, as an int (PyTorch's
    TypeError for a float, a bool or anything else)."""
    if isinstance(dim, (bool, np.bool_)) or not hasattr(type(dim), "__index__"):
        raise TypeError(
            f"argument 'dim' must be int, not {type(dim).__name__} ({dim!r:.20}); "
            "dimensions are counted with ints"
        )
    return dim.__index__()

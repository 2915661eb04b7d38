"""Tensor factories with PyTorch's signatures and dtype inference, and the random generator."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import OMITTED, int_value, require_tensor
from symgrad._assign import warn_copy_construct
from symgrad._data import check_fill, int_argument, keyword_sizes, to_array
from symgrad._device import as_device
from symgrad._factory import (
    _bound,
    _check_device,
    _finish,
    _float_dtype,
    _meta_or,
    _shape,
    require_size,
)
from symgrad._integer_steps import arange_values, check_arange
from symgrad._memory_format import checked, contiguous_format, copy_strided, format_strides
from symgrad._meta import NO_DATA, is_meta, meta_array
from symgrad._numpy_strides import refuse_negative_strides
from symgrad._silent import cast, quiet
from symgrad.random import (
    Generator,
    check_from_to,
    check_randint,
    check_randperm,
    float_bounds,
    get_rng_state,
    initial_seed,
    manual_seed,
    numpy_generator,
    seed,
    set_rng_state,
)
from symgrad.spaced import linspace
from symgrad.tensor import Tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "full",
    "empty",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "Generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "is_tensor",
    "numel",
]


def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """A new tensor holding a copy of ``data``.

    Python floats give the default dtype (float32), ints give int64, bools give bool; NumPy
    arrays keep their dtype. ``name`` is the symbol the tensor stands for in closed forms.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> symgrad.tensor(2.0, requires_grad=True, name="a")
    tensor(2., requires_grad=True)
    """
    d = _check_device(device)
    if is_meta(getattr(data, "_data", data)):  # a meta tensor's values: a meta tensor again
        if device is not None and d.type != "meta":
            raise NotImplementedError(NO_DATA)
        d = as_device("meta")
    warn_copy_construct(data)
    return _finish(to_array(data, dtype), requires_grad, name, d)


def as_tensor(data: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory with a NumPy array or tensor where possible."""
    d = _check_device(device)
    if d.type == "meta":
        return (data if isinstance(data, Tensor) else tensor(data, dtype=dtype)).to(d, dtype)
    if isinstance(data, Tensor) and (dtype is None or dtypes.as_dtype(dtype) is data.dtype):
        return data
    if isinstance(data, np.ndarray) and (
        dtype is None or dtypes.as_dtype(dtype).numpy == data.dtype
    ):
        return from_numpy(data)
    return _finish(to_array(data, dtype), False)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (changes to one show in the other).

    Examples
    --------
    >>> import numpy as np, symgrad
    >>> a = np.zeros(2)
    >>> t = symgrad.from_numpy(a)
    >>> a[0] = 5
    >>> t
    tensor([5., 0.], dtype=symgrad.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy expected a NumPy array, got {type(ndarray).__name__}")
    dtypes.from_numpy_dtype(ndarray.dtype)
    refuse_negative_strides(ndarray)
    if not ndarray.flags.writeable:
        _warn_read_only()
    return Tensor._make(ndarray)


_WARNED = {"read_only": False}


def _warn_read_only() -> None:
    """PyTorch's warning for a tensor sharing a read-only array, once per process as its."""
    if not _WARNED["read_only"]:
        _WARNED["read_only"] = True
        warnings.warn(
            "The given NumPy array is not writable: the tensor shares its memory, and an "
            "in-place change gives the tensor a copy of its own (undefined behavior in PyTorch). "
            "You may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest of "
            "this program.",
            UserWarning,
            stacklevel=3,
        )


def is_tensor(obj: Any) -> bool:
    """True for a :class:`Tensor`."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    if type(input) is not Tensor:
        require_tensor("numel", "input", 1, input)
    return input.numel()


def zeros(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **keyword: Any
) -> Tensor:
    """A tensor of zeros of the given size.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(2, 3).shape
    symgrad.Size([2, 3])
    """
    require_size("zeros", size, keyword)
    if keyword:
        size = keyword_sizes("zeros", size, keyword, "size")
    if as_device(device).type == "meta":
        return _finish(meta_array(_shape(size, "zeros"), _float_dtype(dtype)), requires_grad)
    shape = _shape(size, "zeros", negative="zeros: Dimension size must be non-negative.")
    return _finish(np.zeros(shape, _float_dtype(dtype)), requires_grad)


def ones(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **keyword: Any
) -> Tensor:
    """A tensor of ones of the given size."""
    require_size("ones", size, keyword)
    if keyword:
        size = keyword_sizes("ones", size, keyword, "size")
    if as_device(device).type == "meta":
        return _finish(meta_array(_shape(size, "ones"), _float_dtype(dtype)), requires_grad)
    return _finish(np.ones(_shape(size, "ones"), _float_dtype(dtype)), requires_grad)


def empty(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = contiguous_format,
    **keyword: Any,
) -> Tensor:
    """A tensor of the given size (zero-filled: symgrad never hands out uninitialised memory),
    laid out in ``memory_format``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.empty(2, 3, 4, 5, memory_format=symgrad.channels_last).stride()
    (60, 1, 15, 3)
    """
    require_size("empty", size, keyword)
    if keyword:
        size = keyword_sizes("empty", size, keyword, "size")
    fmt = checked(memory_format, "empty")
    t = zeros(_shape(size, "empty"), dtype=dtype, device=device, requires_grad=requires_grad)
    if fmt is None or fmt is contiguous_format:
        return t
    return _finish(copy_strided(t._data, format_strides(fmt, t.shape)), requires_grad)


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (its dtype inferred from the value)."""
    d = _check_device(device)
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size).__name__} (give full(({size!r:.20},), value))"
        )
    shape = _shape(tuple(size), "full")
    if isinstance(fill_value, Tensor):  # a 0-d tensor is its number, as PyTorch reads it
        if fill_value.ndim:
            raise TypeError(
                "full(): argument 'fill_value' (position 2) must be Number, not Tensor (of shape "
                f"{list(fill_value.shape)}); give one value"
            )
        fill_value = fill_value.item()
    if dtype is None:
        # a fill value is a scalar to PyTorch: NumPy float64 gives the default dtype here
        dtype = dtypes._scalar_dtype(fill_value)
    dtype = dtypes.as_dtype(dtype)
    fill_value = check_fill(fill_value, dtype, "full", one=math.prod(shape) == 1)
    if dtype is dtypes.float16 and type(fill_value) is float and abs(fill_value) < 3e38:
        fill_value = np.float32(fill_value)  # (a double to half through float, as PyTorch)
    # (a one-element float16 tensor takes a number beyond its range as inf, silently)
    values = _meta_or(d, shape, dtype.numpy, lambda: quiet(np.full)(shape, fill_value, dtype.numpy))
    return _finish(values, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The ``n`` x ``m`` identity matrix."""
    d = _check_device(device)
    shape, np_dtype = (n, n if m is None else m), _float_dtype(dtype)
    for name, size in zip("nm", shape):
        if size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    return _finish(
        _meta_or(d, shape, np_dtype, lambda: np.eye(*shape, dtype=np_dtype)), requires_grad
    )


def arange(
    start: Any = OMITTED,
    end: Any = OMITTED,
    step: Any = OMITTED,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(4)
    tensor([0, 1, 2, 3])
    """
    d = _check_device(device)
    # PyTorch's overloads: (end), (start, end) and (start, end, step), also by keyword
    if start is OMITTED and (end is OMITTED or step is not OMITTED):
        raise TypeError("arange() takes (end), (start, end) or (start, end, step)")
    if start is None or end is None or step is None:
        raise TypeError(
            "arange(): start, end and step must be numbers, not None (arange(end), "
            "arange(start, end) or arange(start, end, step))"
        )
    start, end = (0, start) if end is OMITTED else (0, end) if start is OMITTED else (start, end)
    step = 1 if step is OMITTED else step
    # a one-element (0-d) tensor bound is its number, as PyTorch reads it: an int stays an int
    start, end, step = (_bound(v) for v in (start, end, step))
    check_arange(start, end, step)
    if (end - start) * step < 0:
        raise RuntimeError(
            f"upper bound and lower bound inconsistent with step sign (arange from {start} to "
            f"{end} by {step}: give a step of the other sign)"
        )
    is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    dtype = dtypes.as_dtype(dtype or (dtypes.int64 if is_int else dtypes.get_default_dtype()))
    for v in (start, end, step):
        if isinstance(v, int):
            int_argument(v, "arange()")
    values = arange_values(start, end, step, dtype, is_int)
    return _finish(cast(values, dtype.numpy), requires_grad, None, d)


def _random_dtype(dtype: Any, op: str) -> np.dtype:
    d = _float_dtype(dtype)
    if d.kind != "f":
        raise NotImplementedError(
            f"{op}() draws floating point values and does not support dtype "
            f"{dtypes.as_dtype(dtype)!r}; use symgrad.randint for integers"
        )
    return d


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **keyword: Any,
) -> Tensor:
    """Uniform random values in [0, 1).

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> a = symgrad.rand(2, 3)
    >>> _ = symgrad.manual_seed(0)
    >>> bool((a == symgrad.rand((2, 3))).all())
    True
    """
    require_size("rand", size, keyword)
    if keyword:
        size = keyword_sizes("rand", size, keyword, "size")
    on = _check_device(device)
    d, shape = _random_dtype(dtype, "rand"), _shape(size, "rand")
    values = _meta_or(on, shape, d, lambda: numpy_generator(generator).uniform_fill(shape, d))
    return _finish(values, requires_grad)


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **keyword: Any,
) -> Tensor:
    """Standard normal random values."""
    require_size("randn", size, keyword)
    if keyword:
        size = keyword_sizes("randn", size, keyword, "size")
    on = _check_device(device)
    d, shape = _random_dtype(dtype, "randn"), _shape(size, "randn")
    values = _meta_or(on, shape, d, lambda: numpy_generator(generator).normal_fill(shape, d))
    return _finish(values, requires_grad)


def randint(
    low: int = 0,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Random integers in ``[low, high)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.randint(3, 5, (2, 2)).shape, symgrad.randint(3, (4,)).dtype
    (symgrad.Size([2, 2]), symgrad.int64)
    """
    on = _check_device(device)
    if size is None:
        low, high, size = 0, low, high
    check_randint(low, high, size)
    shape = _shape(tuple(size), "randint")
    d = (dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)).numpy
    low, high = float_bounds(low, high, d)
    check_from_to(low, high, d)
    values = _meta_or(on, shape, d, lambda: _random_from_to(generator, shape, low, high, d))
    return _finish(values, requires_grad)


def _random_from_to(generator: Any, shape: tuple, low: int, high: int, d: Any) -> np.ndarray:
    """PyTorch's integers in ``[low, high)`` of NumPy dtype ``d``."""
    stream = numpy_generator(generator)
    return stream.random_from_to(shape, low, high).astype(d)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of ``0, ..., n - 1`` (``int64`` unless ``dtype`` says otherwise).

    Examples
    --------
    >>> import symgrad
    >>> sorted(symgrad.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    on = _check_device(device)
    n = int_argument(int_value("randperm", "n", n, 1, sized=True), "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if on.type != "meta":
        check_randperm(n, d.numpy, d.scalar_type)
    values = _meta_or(
        on, (n,), d.numpy, lambda: numpy_generator(generator).randperm(n).astype(d.numpy)
    )
    return _finish(values, requires_grad)

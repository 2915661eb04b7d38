"""``linspace`` and ``logspace``: values evenly spaced on a linear or a log scale, computed as
PyTorch computes them (the ends cast to the result's type, the second half counted back from
the end)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import check_fill
from symgrad._factory import _bound, _check_device, _finish, _float_dtype, int_steps
from symgrad._rounding import linspace_values
from symgrad.tensor import Tensor

__all__ = ["linspace", "logspace"]


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    d = _check_device(device)
    steps = int_steps("linspace", steps)
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    np_dtype = _float_dtype(dtype)
    if np_dtype.kind == "f":  # the bounds converted with PyTorch's range check
        for bound in (start, end):
            check_fill(_bound(bound), dtypes.from_numpy_dtype(np_dtype), "linspace")
    values = linspace_values(start, end, steps, np_dtype)
    return _finish(values, requires_grad, None, d)


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` values from ``base**start`` to ``base**end`` whose logarithms are evenly
    spaced. An integer ``dtype`` truncates the ends and the values toward zero.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    >>> symgrad.logspace(0, 3, 4, base=2)
    tensor([1., 2., 4., 8.])
    """
    on = _check_device(device)
    steps = int_steps("logspace", steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = (dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)).numpy
    idx = np.arange(steps)
    if steps == 1:
        exponents = np.full(1, float(start))
    else:
        # as ATen: the ends in the result's type, their difference too, the rest in double
        first, last = np.array([start, end]).astype(target)
        step = float(last - first) / (steps - 1)
        exponents = np.where(
            idx < steps // 2, float(first) + step * idx, float(last) - step * (steps - idx - 1)
        )
    # each power as ATen's scalar loop computes it, by the C library's pow (Python's float
    # power); NumPy's vectorised power may differ in the last bit on some processors
    base = float(base)
    values = np.fromiter((_power(base, e) for e in exponents.tolist()), np.float64, steps)
    with np.errstate(over="ignore", invalid="ignore"):
        values = values.astype(target)
    return _finish(values, requires_grad, None, on)


def _power(base: float, exponent: float) -> float:
    """``base ** exponent`` by the C library's pow; NumPy's inf or nan where Python raises
    (overflow, 0 to a negative power) or gives a complex number (a negative base)."""
    try:
        value = base**exponent
    except (OverflowError, ZeroDivisionError):
        value = None
    if type(value) is not float:
        with np.errstate(all="ignore"):
            return float(np.power(base, exponent))
    return value

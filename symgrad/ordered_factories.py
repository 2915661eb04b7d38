"""Two more factories: ``empty_permuted``, a tensor laid out in memory in a given order of
its dimensions, and the deprecated ``range``, whose end is included.

Examples
--------
>>> import symgrad
>>> symgrad.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
(12, 1, 3)
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import sizes
from symgrad._meta import meta_array
from symgrad.creation import _check_device, _finish
from symgrad.tensor import Tensor

__all__ = ["empty_permuted", "range_"]


def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A zero-filled tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``(0, 1, ..., n-1)`` is contiguous.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.empty_permuted((2, 3), (1, 0)).stride()
    (1, 2)
    """
    shape = sizes((size,), "empty_permuted")
    order = sizes((physical_layout,), "empty_permuted")
    if len(order) != len(shape):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(shape)} is not equal to len(physical_layout) = {len(order)}"
        )
    for k, d in enumerate(order):
        if not 0 <= d < len(shape):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(shape) - 1}, but "
                f"got {d} at index {k}).  NB: negative dims not currently supported; file an "
                "issue if you want it."
            )
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    bad = [n for n in shape if n < 0]
    if bad:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {bad[0]}: {list(shape)}"
        )
    on = _check_device(device)
    kind = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    physical = np.zeros(tuple(shape[d] for d in order), dtype=kind.numpy)
    array = physical.transpose(np.argsort(order))
    if on is not None and on.type == "meta":
        strides = tuple(s // array.itemsize for s in array.strides)
        return _finish(meta_array(shape, kind.numpy, strides), requires_grad)
    return _finish(array, requires_grad)


def _number(value: Any) -> float:
    return float(value.item() if isinstance(value, Tensor) else value)


def range_(
    start: Any,
    end: Any,
    step: Any = 1,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` to ``end`` *inclusive* in steps of ``step``, of the default float
    dtype unless ``dtype`` says otherwise. Deprecated (it warns): use :func:`symgrad.arange`,
    whose end is excluded. Public as ``symgrad.range``.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    warnings.warn(
        "symgrad.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use symgrad.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    first, last, by = _number(start), _number(end), _number(step)
    if by == 0:
        raise RuntimeError("step must be nonzero")
    if (by > 0 and last < first) or (by < 0 and last > first):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if not all(math.isfinite(v) for v in (first, last)):
        raise RuntimeError(f"unsupported range: {first} -> {last}")
    count = int((last - first) / by + 1)
    on = _check_device(device)
    kind = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    values = first + np.arange(count, dtype=np.float64) * by
    array = values.astype(kind.numpy)
    if on is not None and on.type == "meta":
        array = meta_array(array.shape, array.dtype)
    return _finish(array, requires_grad)


range_.__name__ = range_.__qualname__ = "range"  # its public name

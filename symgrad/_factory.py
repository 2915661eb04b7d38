"""The steps every tensor factory shares: the device, the checked shape and dtype, and the
finished tensor (meta arrays on the meta device, ``requires_grad`` checked)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._assign import check_requires_grad
from symgrad._data import sizes
from symgrad._device import as_device
from symgrad._meta import meta_array
from symgrad.tensor import Tensor

__all__: list = []


def _check_device(device: Any) -> Any:
    """The device a factory makes its tensor on (CPU or meta; other devices raise)."""
    return as_device(device)


def _finish(
    array: np.ndarray, requires_grad: bool, name: str | None = None, device: Any = None
) -> Tensor:
    if device is not None and device.type == "meta":
        array = meta_array(array.shape, array.dtype)
    t = Tensor._make(array)
    if type(requires_grad) is not bool:
        raise TypeError(
            f"argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
        )
    if requires_grad:
        check_requires_grad(t, True, "Only Tensors of floating point and complex dtype")
        t._requires_grad = True
    if name is not None:
        t.name = name
    return t


def _meta_or(d: Any, shape: tuple, dtype: Any, draw: Any) -> np.ndarray:
    """``draw()`` on the CPU; on the meta device an array of ``shape`` and ``dtype`` with no
    values, drawing nothing from the generator (as PyTorch)."""
    return meta_array(shape, dtype) if d.type == "meta" else draw()


def require_size(op: str, size: tuple, keyword: dict) -> None:
    """PyTorch's TypeError for a factory given no size at all (``zeros(())`` is 0-d)."""
    if not size and not keyword:
        raise TypeError(
            f'{op}() missing 1 required positional arguments: "size" (give {op}(()) for a '
            "0-d tensor)"
        )


def int_steps(op: str, steps: Any) -> int:
    """``steps``, an int or a one-element integer tensor, as an int (PyTorch's TypeError for
    a float or a bool)."""
    if isinstance(steps, Tensor) and steps.numel() == 1 and steps.dtype.category == 1:
        return int(steps.item())
    if isinstance(steps, (bool, np.bool_)) or not hasattr(type(steps), "__index__"):
        raise TypeError(
            f"{op}(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    return steps.__index__()


def _bound(v: Any) -> Any:
    """An ``arange`` bound: a 0-d tensor's number, anything else as it is."""
    if isinstance(v, Tensor) and v.ndim:
        raise TypeError(f"arange(): bounds must be numbers or 0-d tensors, not shape {v.shape}")
    return v.item() if isinstance(v, Tensor) else v


def _shape(size: tuple, op: str, negative: str | None = None) -> tuple[int, ...]:
    """``size`` as a shape; a negative size raises PyTorch's message naming the first one, or
    ``negative`` where the factory has its own (``zeros``)."""
    shape = sizes(size, op)
    bad = [n for n in shape if n < 0]
    if bad:
        raise RuntimeError(
            negative or f"Trying to create tensor with negative dimension {bad[0]}: {list(shape)}"
        )
    return shape


def _float_dtype(dtype: Any) -> np.dtype:
    return (dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)).numpy

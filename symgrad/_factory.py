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


def _shape(size: tuple, op: str) -> tuple[int, ...]:
    shape = sizes(size, op)
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    return shape


def _float_dtype(dtype: Any) -> np.dtype:
    return (dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)).numpy

"""Factories PyTorch programs call beside the usual ones: ``scalar_tensor``, ``empty_strided``
and ``Tensor.new_empty_strided`` (zero-filled: symgrad never hands out uninitialised memory)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad.creation import _check_device, _finish, _float_dtype
from symgrad.tensor import Tensor, bind_methods

__all__ = ["scalar_tensor", "empty_strided"]


def scalar_tensor(
    s: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A 0-d tensor holding the number ``s``, of the default float dtype unless ``dtype`` says
    otherwise (also for an int or a bool, unlike ``tensor``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.scalar_tensor(3), symgrad.scalar_tensor(2.7, dtype=symgrad.int64)
    (tensor(3.), tensor(2))
    """
    on = _check_device(device)
    if isinstance(s, Tensor):
        if s.numel() != 1:
            raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not Tensor")
        s = s.item()
    if not isinstance(s, (numbers.Number, np.generic)) or isinstance(s, complex):
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
        )
    return _finish(np.array(s).astype(_float_dtype(dtype)), requires_grad, device=on)


def _sizes(value: Any, op: str, name: str, position: int) -> tuple:
    if isinstance(value, (int, np.integer, Tensor)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not "
            f"{type(value).__name__}"
        )
    return tuple(int(n) for n in value)


def _strided_zeros(op: str, size: Any, stride: Any, np_dtype: Any) -> np.ndarray:
    shape = _sizes(size, op, "size", 1)
    steps = _sizes(stride, op, "stride", 2)
    if len(shape) != len(steps):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
            f"({len(steps)})"
        )
    if any(n < 0 for n in shape):
        bad = next(n for n in shape if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")
    if any(s < 0 for s in steps):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(steps)}"
        )
    needed = 1 + sum((n - 1) * s for n, s in zip(shape, steps)) if all(shape) else 0
    memory = np.zeros(needed, dtype=np_dtype)
    itemsize = memory.itemsize
    return np.lib.stride_tricks.as_strided(
        memory, shape=shape, strides=tuple(s * itemsize for s in steps)
    )


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A tensor of ``size`` laid out in memory with ``stride`` (in elements), zero-filled.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    on = _check_device(device)
    data = _strided_zeros("empty_strided", size, stride, _float_dtype(dtype))
    return _finish(data, requires_grad, device=on)


def new_empty_strided(
    self: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """:func:`empty_strided` of ``self``'s dtype unless ``dtype`` says otherwise.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, dtype=symgrad.float64)
    >>> y = x.new_empty_strided((2, 2), (1, 2))
    >>> y.dtype, y.stride()
    (symgrad.float64, (1, 2))
    """
    kind = self.dtype if dtype is None else dtype
    on = self.device if device is None else device
    return empty_strided(size, stride, dtype=kind, device=on, requires_grad=requires_grad)


bind_methods({"new_empty_strided": new_empty_strided})

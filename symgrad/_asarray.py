"""``asarray``: an object as a tensor, sharing memory with a tensor or NumPy array unless a
copy is asked for or a conversion needs one (PyTorch's ``torch.asarray``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad._device import as_device
from symgrad.tensor import Tensor

__all__ = ["asarray"]

_WARNED = {"requires_grad": False}


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Tensor:
    """``obj`` (a tensor, a NumPy array, a number or nested sequences) as a tensor.

    A tensor or NumPy array is shared, not copied, when ``copy`` is not True and neither the
    dtype nor the device changes; ``copy=False`` refuses a needed copy with ``ValueError``.
    A tensor keeps its graph; ``requires_grad`` unspecified follows ``obj`` (PyTorch warns
    once about that default), ``requires_grad=False`` turns it off (a leaf in place, as
    PyTorch does; otherwise a detached tensor).

    Examples
    --------
    >>> import numpy as np, symgrad
    >>> a = np.zeros(2)
    >>> t = symgrad.asarray(a)
    >>> a[0] = 5
    >>> t
    tensor([5., 0.], dtype=symgrad.float64)
    >>> symgrad.asarray([1, 2], dtype=symgrad.float32)
    tensor([1., 2.])
    """
    target = None if dtype is None else dtypes.as_dtype(dtype)
    place = None if device is None else as_device(device)
    if isinstance(obj, np.ndarray):
        obj = creation.from_numpy(obj)
    if isinstance(obj, Tensor):
        out = _from_tensor(obj, target, place, copy)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = creation.tensor(obj, dtype=target, device=place)
    return _with_requires_grad(out, obj, requires_grad)


def _from_tensor(obj: Tensor, target: Any, place: Any, copy: bool | None) -> Tensor:
    wrong_dtype = target is not None and target is not obj.dtype
    wrong_device = place is not None and place != obj.device
    if not (wrong_dtype or wrong_device or copy):
        return obj
    if copy is False:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to '{place}'.")
        raise ValueError(
            f"can't alias tensor with dtype '{obj.dtype.scalar_type}' into dtype "
            f"'{target.scalar_type}'."
        )
    if not (wrong_dtype or wrong_device):
        return obj.clone()
    return obj.to(device=place if wrong_device else obj.device, dtype=target or obj.dtype)


def _with_requires_grad(out: Tensor, obj: Any, requires_grad: bool | None) -> Tensor:
    if requires_grad is None:
        if isinstance(obj, Tensor) and obj.requires_grad and not _WARNED["requires_grad"]:
            _WARNED["requires_grad"] = True
            warnings.warn(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                "instead of False. Pass requires_grad=False explicitly to get the old behavior "
                "and silence this warning.",
                UserWarning,
                stacklevel=3,
            )
        return out
    if requires_grad and not out.requires_grad:
        return out.requires_grad_(True)
    if not requires_grad and out.requires_grad:
        if out.grad_fn is None:
            return out.requires_grad_(False)
        return out.detach()
    return out

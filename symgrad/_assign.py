"""PyTorch's checks of the values assigned to a tensor's ``grad``, ``data`` and
``requires_grad``, and its warning for a tensor copied with ``tensor()``.

It sits below :mod:`symgrad.tensor`, so it knows tensors only by their base class.
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import _version, dtypes
from symgrad._data import HoldsArray
from symgrad._grad_dtype import grad_dtype_of

__all__ = ["check_grad", "check_data", "check_requires_grad", "warn_copy_construct"]


def check_grad(t: Any, value: Any) -> None:
    """Refuse ``value`` as the ``.grad`` of ``t``: not a tensor (or None), ``t`` itself, or of
    another shape or dtype."""
    if value is None:
        return
    if not isinstance(value, HoldsArray):
        raise TypeError(
            f"assigned grad expected to be a Tensor or None but got grad of type "
            f"{type(value).__name__}"
        )
    if value is t:
        raise RuntimeError("can't assign Variable as its own grad: assign a copy (t.clone())")
    if value.shape != t.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
            f"'{list(t.shape)}'. Please ensure that the gradient and the tensor are the same size"
            f"\n(the gradient has shape {list(value.shape)} but the tensor has shape "
            f"{list(t.shape)})"
        )
    allowed = grad_dtype_of(t)
    if allowed is not t.dtype and allowed is not None and value.dtype is not allowed:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype {value.dtype!r} to a tensor with "
            f"grad_dtype {allowed!r}. The gradient must match the tensor's grad_dtype "
            "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
            "with a specific dtype, or None to allow any dtype."
        )
    if allowed is t.dtype and value.dtype is not t.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{dtypes.cpp_name(value.dtype)}' to a "
            f"tensor with grad_dtype '{t.dtype.scalar_type}'. The gradient must match the "
            f"tensor's grad_dtype (defaults to the tensor's dtype).\n(the gradient has dtype "
            f"{value.dtype!r}, the tensor dtype {t.dtype!r}: convert the gradient first)"
        )


def check_data(t: Any, value: Any) -> None:
    """Refuse ``value`` as the ``.data`` of ``t``: not a tensor, or not floating while ``t``
    requires grad."""
    if not isinstance(value, HoldsArray):
        raise TypeError(f"Tensor.data must be set to a Tensor, got {type(value).__name__}")
    if t._requires_grad and not value.dtype.is_floating_point:
        raise RuntimeError(
            "data set to a tensor that requires gradients must be floating point or complex "
            f"dtype: the new data has dtype {value.dtype!r}; convert it first (data.float())"
        )


def check_requires_grad(
    t: Any, value: Any, kinds: str = "only Tensors of floating point and complex dtype"
) -> None:
    """Refuse ``value`` for ``t.requires_grad``: not a bool, False on a non-leaf, True on an
    inference tensor or a tensor that is not floating. ``kinds`` begins the message for a
    tensor that is not floating, worded as PyTorch words it where the flag is set."""
    if type(value) is not bool:
        raise RuntimeError(f"requires_grad must be a bool, got {type(value).__name__}")
    if t.grad_fn is not None and not value:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use "
            "a computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    if value:
        _version.check_may_require_grad(t)
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"{kinds} can require gradients\n(this tensor has dtype {t.dtype!r}: convert "
                "it first, e.g. t.float() or t.double())"
            )


def warn_copy_construct(data: Any) -> None:
    """PyTorch's warning for ``tensor(t)`` of a tensor ``t`` (a copy cut from the graph)."""
    if isinstance(data, HoldsArray):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=3,
        )

"""``Tensor.grad_dtype``: the dtype a leaf's gradients are cast to (PyTorch 2.13).

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
>>> x.grad_dtype
symgrad.float32
>>> x.grad_dtype = symgrad.float64
>>> (x * 2).sum().backward()
>>> x.grad
tensor([2., 2.], dtype=symgrad.float64)
"""

from __future__ import annotations

from typing import Any

from symgrad import dtypes
from symgrad._grad_dtype import grad_dtype_of, set_grad_dtype
from symgrad.tensor import Tensor, bind_methods

__all__ = ["grad_dtype"]


def _get(self: Tensor) -> Any:
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return grad_dtype_of(self)


def _set(self: Tensor, value: Any) -> None:
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None and not isinstance(value, dtypes.dtype):
        raise RuntimeError(
            f"grad_dtype must be a symgrad.dtype or None, but got {type(value).__name__}"
        )
    grad = self._grad
    if grad is not None and value is not None and grad.dtype != value:
        raise RuntimeError(
            f"Cannot set grad_dtype to {value} because there is already a gradient with dtype "
            f"{grad.dtype}. Please clear the gradient (.grad = None) before changing "
            "grad_dtype, or ensure the new grad_dtype matches the existing gradient's dtype."
        )
    set_grad_dtype(self, value)


grad_dtype = property(
    _get,
    _set,
    doc="""The dtype the engine casts this leaf's gradients to: the tensor's own by default;
    set it to another floating dtype (or None, to keep whatever dtype arrives) with care, as
    code after the backward may expect ``.grad`` in the tensor's dtype. Only leaves have it
    (the module's documentation has an example).""",
)

bind_methods({"grad_dtype": grad_dtype})

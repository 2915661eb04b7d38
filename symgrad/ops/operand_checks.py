"""PyTorch's refusals of operand combinations in the arithmetic operators (a bool operand
of subtraction, an ``alpha`` the result's dtype can't take) and of bool tensors where it has
no kernel; how many zeros an operand holds, which some of its gradient rules branch on."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import cannot_convert
from symgrad.ops import elementwise as E
from symgrad.tensor import Tensor


def check_alpha(input: Any, other: Any, alpha: Any, op: str = "add") -> Any:
    """``alpha`` as a number, with PyTorch's errors for one the result's dtype can't take. A
    0-d tensor (an optimizer's tensor ``lr``) is read as the number it holds; any other
    tensor is refused."""
    if isinstance(alpha, Tensor):
        if alpha.dim() != 0:
            raise TypeError(f"{op}(): argument 'alpha' must be Number, not Tensor")
        alpha = alpha.item()
    result = dtypes.result_type(input, other)
    if type(alpha) is bool and result is not dtypes.bool_:
        raise RuntimeError(
            "Boolean alpha only supported for Boolean results: give alpha as a number"
        )
    if isinstance(alpha, (float, np.bool_)) and not result.is_floating_point:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number: "
            f"the result is {result!r}; convert the tensors first, e.g. other.float()"
        )
    kind = result.numpy.kind
    if kind in "iu" and type(alpha) is not bool and isinstance(alpha, (int, np.integer)):
        # PyTorch converts alpha to the result's type with a range check (an unsigned type
        # takes down to minus its largest value)
        info = np.iinfo(result.numpy)
        if not (-info.max if kind == "u" else info.min) <= alpha <= info.max:
            raise cannot_convert(f"{op}()", alpha, result.numpy)
    return alpha


def is_bool(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value.dtype is dtypes.bool_
    return type(value) is bool


def subtract_operator(self: Tensor, other: Any) -> Tensor:
    """``self - other``, the operator: PyTorch refuses a bool operand, even with a floating
    other side (the kernel sees the bool already cast to the result's type)."""
    if self.dtype is dtypes.bool_ or is_bool(other):
        raise bool_subtraction(self, other)
    return E.SUB(self, other)


def bool_subtraction(a: Any, b: Any) -> RuntimeError:
    if is_bool(a) and is_bool(b):
        return RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    return RuntimeError(E.BOOL_SUB)


def refuse_bool(input: Tensor, kernel: str) -> None:
    """PyTorch has no bool kernel for ``kernel`` (median, kthvalue)."""
    if input.dtype.category == 0:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Bool'; convert the tensor with .long() or .float()"
        )


def zero_count(x: Any) -> int | None:
    """How many elements of ``x`` are 0; None when ``x`` holds no numbers (the symbolic and
    code interpreters, whose rule must hold for every value)."""
    values = x._data if isinstance(x, Tensor) else x
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "biuf":
        return None
    return int(np.count_nonzero(values == 0))

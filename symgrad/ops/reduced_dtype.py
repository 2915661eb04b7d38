"""Reductions and scans asked for a ``dtype=`` (``x.sum(dtype=torch.float64)``).

PyTorch converts the input inside the op's own kernel: the graph holds the one node
(``SumBackward0`` reading the input's ``AccumulateGrad``, no ``ToCopyBackward0``), the node
saves the input as it was given, and the gradient comes back in the input's dtype. Such a
primitive takes a ``dtype`` parameter (a NumPy dtype, or None) and converts its input with
:func:`converted` first.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._silent import cast
from symgrad.autograd import grad_mode
from symgrad.tensor import Tensor

__all__ = ["check_result_dtype", "converted", "grad_in_input_dtype", "kernel_dtype"]


def kernel_dtype(input: Tensor, dtype: Any) -> Any:
    """The ``dtype`` parameter of the reduction of ``input`` asked for the dtype ``dtype``:
    a NumPy dtype where the node converts the input itself (a floating input and result of
    different dtypes), else None; then the caller converts an input of another dtype (an
    integer one, which has no gradient), after :func:`check_result_dtype`."""
    if dtype is None or dtype is input.dtype:
        return None
    if input.dtype.is_floating_point and dtype.is_floating_point:
        return np.dtype(dtype.numpy)
    check_result_dtype(input, dtype)
    return None


def check_result_dtype(input: Tensor, dtype: Any) -> None:
    """PyTorch's error for a reduction of an ``input`` that requires grad asked for an
    integer or bool ``dtype`` while grad mode is on: its result can't require grad."""
    if dtype.is_floating_point or dtype.is_complex:
        return
    if input._requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"Autograd not support dtype: {dtype.scalar_type}; a result that requires grad "
            "must be floating point: leave dtype out, or reduce under no_grad()"
        )


def converted(xp: Any, a: Any, dtype: Any) -> Any:
    """``a`` converted to the NumPy dtype ``dtype`` (None: as it is) on the interpreters that
    hold dtypes: NumPy arrays (as PyTorch converts: inf beyond the range), tensors (a
    recorded conversion) and the compiler's variables; SymPy's values have none."""
    if dtype is None:
        return a
    if isinstance(a, Tensor):
        return a if a._data.dtype == dtype else a.to(dtypes.from_numpy_dtype(dtype))
    if type(a) is np.ndarray:  # (an object array holds SymPy's values)
        return a if a.dtype == dtype or a.dtype == object else cast(a, dtype)
    if isinstance(a, np.generic) or hasattr(a, "astype"):
        return a.astype(dtype)
    return a


def grad_in_input_dtype(rule: Any) -> Any:
    """A VJP rule that first converts the gradient to the input's dtype when the node
    converted its input (PyTorch's ``grad.to(self.scalar_type())`` of cumsum, cumprod and
    nansum: their backward runs in the input's dtype, not the result's)."""

    @functools.wraps(rule)
    def run(xp: Any, g: Any, c: Any) -> Any:
        if c.params.get("dtype") is not None and c._meta is not None:
            g = converted(xp, g, c._meta[0][1])
        return rule(xp, g, c)

    return run

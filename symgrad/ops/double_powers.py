"""``float_power`` (a power computed in double precision) and ``signbit``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.math import pow as _pow
from symgrad.prim.primitive import as_operand
from symgrad.tensor import Tensor, bind_methods

__all__ = ["float_power", "signbit"]


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` in ``float64`` whatever the operands' dtypes (PyTorch's graph:
    ``ToCopyBackward0`` then ``PowBackward0``/``1``/``2``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.float_power(symgrad.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=symgrad.float64)
    """
    input, exponent = as_operand(input, "float_power"), as_operand(exponent, "float_power")
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected at least one Tensor argument, got two numbers")
    return _pow(_double(input), _double(exponent))


def _double(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value if value.dtype is dtypes.float64 else value.to(dtypes.float64)
    return float(value) if type(value) in (int, bool) else value


def signbit(input: Tensor) -> Tensor:
    """Whether each element's sign bit is set (True for -0.0 too), a bool tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.signbit(symgrad.tensor([-0.0, 1.0, -2.0]))
    tensor([ True, False,  True])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): argument 'input' must be Tensor, not {type(input).__name__}")
    return Tensor._make(np.asarray(np.signbit(input._data)))


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self.dtype is not dtypes.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self.dtype.scalar_type} but the "
            "operation's result requires dtype Double: convert with .double() first"
        )
    return self.pow_(_double(exponent))


bind_methods(
    {
        "float_power": float_power,
        "float_power_": _float_power_,
        "signbit": signbit,
    }
)

"""``ldexp`` (``input * 2 ** other``) and ``nextafter`` (the next float after ``input`` towards
``other``), with their in-place forms; element-wise primitives declared as the others are."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._lazy import sympy as sp
from symgrad.dtypes import result_type
from symgrad.ops.elementwise import declare
from symgrad.ops.inplace import inplace
from symgrad.prim.kernels import _scalar_base_power
from symgrad.tensor import Tensor, bind_methods

__all__ = ["ldexp", "nextafter"]

# PyTorch: the promoted dtype, the default float dtype for integers; 2 ** other is taken in
# that dtype, so ldexp(3.0, -200) underflows to 0 in float32
LDEXP = declare(
    "ldexp",
    "x y",
    lambda x, y: x * 2**y,
    partials=lambda x, y, out: (2**y, out * sp.log(2)),
    kernel=lambda x, y: x * np.exp2(y),
    # PyTorch's grad * pow(2, other) in other's dtype: an integer power (0 for a negative
    # exponent, wrapped around past the integer's range), not NumPy's error
    partial_kernels={0: lambda x, y, out: _scalar_base_power(y, 2)},
    promote="float",
)
# the value differs from input by one step at most: PyTorch passes the gradient to input
# where it is not other (0 where they are equal), and gives other none
NEXTAFTER = declare(
    "nextafter",
    "x y",
    lambda x, y: x,
    partials=lambda x, y: (sp.Piecewise((0, sp.Eq(x, y)), (1, True)), 0),
    kernel=np.nextafter,
    exact=False,
    masked=True,
)
NEXTAFTER.half_in_float32 = False  # the next float16, not the next float32 rounded back


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` (two tensors; integers give the default float dtype).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ldexp(symgrad.tensor([1.0, 3.0]), symgrad.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    if type(input) is not Tensor:
        require_tensor("ldexp", "input", 1, input)
    if type(other) is not Tensor:
        require_tensor("ldexp", "other", 2, other)
    return LDEXP(input, other)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable float after each element of ``input`` in the direction of
    ``other`` (floating tensors; the gradient passes to ``input`` where it differs from ``other``,
    as PyTorch's).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.nextafter(symgrad.tensor([1.0]), symgrad.tensor([2.0]))
    >>> (x - 1).item() == 2.0**-23
    True
    """
    if type(input) is not Tensor:
        require_tensor("nextafter", "input", 1, input)
    if type(other) is not Tensor:
        require_tensor("nextafter", "other", 2, other)
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{dtype.scalar_type}'")
    return NEXTAFTER(input, other)


def _method(function: Any, op: str) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        if type(other) is not Tensor:
            require_tensor(op, "other", 1, other)
        return function(self, other)

    def in_place(self: Tensor, other: Tensor) -> Tensor:
        if type(other) is not Tensor:
            require_tensor(f"{op}_", "other", 1, other)
        return inplace(self, f"{op}_", lambda x: function(x, other), other)

    method.__name__ = method.__qualname__ = op
    in_place.__name__ = in_place.__qualname__ = f"{op}_"
    method.__doc__ = function.__doc__
    in_place.__doc__ = f"""In-place :func:`{op}`: ``self`` holds the result.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0])
    >>> x.{op}_(symgrad.tensor([1.0, 1.0])) is x
    True
    """
    return method, in_place


_LDEXP, _LDEXP_ = _method(ldexp, "ldexp")
_NEXTAFTER, _NEXTAFTER_ = _method(nextafter, "nextafter")
bind_methods(
    {"ldexp": _LDEXP, "ldexp_": _LDEXP_, "nextafter": _NEXTAFTER, "nextafter_": _NEXTAFTER_}
)

"""The greatest common divisor and least common multiple of integer tensors (not
differentiable): ``gcd``, ``lcm`` and their in-place forms, with PyTorch's promotion, wrapping
and errors (two tensors; bool and floating dtypes raise ``NotImplementedError``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.inplace import inplace
from symgrad.ops.math_special import require_tensor
from symgrad.tensor import Tensor, bind_methods

__all__ = ["gcd", "lcm", "gcd_", "lcm_"]


def _integers(name: str, input: Any, other: Any) -> tuple:
    """Both operands as NumPy arrays of their promoted integer dtype."""
    require_tensor(name, "input", 1, input)
    require_tensor(name, "other", 2, other)
    d = dtypes.result_type(input, other)
    if d.is_floating_point or d is dtypes.bool_ or d in dtypes.LIMITED:
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{d.scalar_type}': {name} takes integer "
            "tensors; convert with .long()"
        )
    return input._data.astype(d.numpy, copy=False), other._data.astype(d.numpy, copy=False)


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of each pair of elements (non-negative; ``gcd(0, 0)`` is 0).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.gcd(symgrad.tensor([12, -18, 0]), symgrad.tensor([8, 12, 5]))
    tensor([4, 6, 5])
    """
    a, b = _integers("gcd", input, other)
    return Tensor._make(np.asarray(np.gcd(a, b)))


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of each pair of elements (non-negative, 0 where either is 0;
    it wraps around in the dtype, as PyTorch's does).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.lcm(symgrad.tensor([12, -18, 0]), symgrad.tensor([8, 12, 5]))
    tensor([24, 36,  0])
    """
    a, b = _integers("lcm", input, other)
    return Tensor._make(np.asarray(np.lcm(a, b)))


def gcd_(input: Tensor, other: Tensor) -> Tensor:
    """:func:`gcd` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([12, 18])
    >>> symgrad.gcd_(x, symgrad.tensor([8, 12])) is x, x
    (True, tensor([4, 6]))
    """
    require_tensor("gcd_", "other", 1, other)  # (position 1: PyTorch counts from the method's)
    return inplace(input, "gcd_", lambda x: gcd(x, other), other)


def lcm_(input: Tensor, other: Tensor) -> Tensor:
    """:func:`lcm` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([12, 18])
    >>> symgrad.lcm_(x, symgrad.tensor([8, 12])) is x, x
    (True, tensor([24, 36]))
    """
    require_tensor("lcm_", "other", 1, other)
    return inplace(input, "lcm_", lambda x: lcm(x, other), other)


def _method(fn: Any) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        require_tensor(fn.__name__, "other", 1, other)  # (position 1, as the method counts)
        return fn(self, other)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


bind_methods({"gcd": _method(gcd), "lcm": _method(lcm), "gcd_": gcd_, "lcm_": lcm_})

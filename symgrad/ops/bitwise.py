"""Bitwise operations on integer and bool tensors (not differentiable): ``bitwise_and``,
``bitwise_or``, ``bitwise_xor``, ``bitwise_not``, the shifts, ``logical_xor``, and the
operators ``& | ^ ~ << >>`` with their reflected and in-place forms.

The result's dtype is PyTorch's promotion of the operands; floating operands raise PyTorch's
``NotImplementedError``. Shifts follow PyTorch where NumPy's are undefined: a shift by a
negative amount or by at least the type's width gives 0 to the left, and the sign (0 or -1)
to the right.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensors
from symgrad._data import check_broadcast, in_dtype
from symgrad.ops.inplace import inplace
from symgrad.prim.primitive import as_operand
from symgrad.tensor import Tensor

__all__ = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "logical_xor",
]


def _operands(input: Any, other: Any, name: str, kernel: str, bools: bool) -> tuple:
    """The two operands as NumPy values of their promoted dtype, and that dtype."""
    input, other = as_operand(input, name), as_operand(other, name)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}(): expected a Tensor among the arguments, got two numbers")
    d = dtypes.result_type(input, other)
    if d.is_floating_point or (d is dtypes.bool_ and not bools):
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{d.scalar_type}': {name} takes integer "
            f"{'or bool ' if bools else ''}tensors; convert with .long() or compare to get a mask"
        )
    values = []
    for v in (input, other):
        if isinstance(v, Tensor):
            values.append(v._data.astype(d.numpy, copy=False))
        else:
            values.append(np.asarray(in_dtype(int(v), d.numpy), d.numpy))
    check_broadcast(name, values)  # PyTorch's RuntimeError, not NumPy's ValueError
    return values[0], values[1], d


def _binary(ufunc: Any, name: str, kernel: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        a, b, _ = _operands(input, other, name, kernel, bools=True)
        return Tensor._make(np.asanyarray(ufunc(a, b)))

    op.__name__ = op.__qualname__ = name
    return op


bitwise_and = _binary(np.bitwise_and, "bitwise_and", "bitwise_and")
bitwise_and.__doc__ = """The bits (or truth values) set in both ``input`` and ``other``.

Examples
--------
>>> import symgrad
>>> symgrad.bitwise_and(symgrad.tensor([12, -3]), symgrad.tensor([10, 5]))
tensor([8, 5])
"""
bitwise_or = _binary(np.bitwise_or, "bitwise_or", "bitwise_or")
bitwise_or.__doc__ = """The bits (or truth values) set in ``input`` or ``other``.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([12, 1]) | 2
tensor([14,  3])
"""
bitwise_xor = _binary(np.bitwise_xor, "bitwise_xor", "bitwise_xor")
bitwise_xor.__doc__ = """The bits (or truth values) set in exactly one of ``input`` and ``other``.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([True, False]) ^ True
tensor([False,  True])
"""


def _shift(left: bool, name: str, kernel: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        a, s, d = _operands(input, other, name, kernel, bools=False)
        bits = d.itemsize * 8
        inside = (s >= 0) & (s < bits)
        amount = np.where(inside, s, 0).astype(d.numpy)
        if left:
            out = np.where(inside, np.left_shift(a, amount), 0)
        else:
            out = np.where(inside, np.right_shift(a, amount), np.where(a < 0, -1, 0))
        return Tensor._make(np.asanyarray(out).astype(d.numpy, copy=False))

    op.__name__ = op.__qualname__ = name
    return op


bitwise_left_shift = _shift(True, "bitwise_left_shift", "lshift")
bitwise_left_shift.__doc__ = """``input`` shifted left by ``other`` bits (``input << other``),
wrapping in the result's dtype.

Examples
--------
>>> import symgrad
>>> symgrad.bitwise_left_shift(symgrad.tensor([1, -3]), 2)
tensor([  4, -12])
"""
bitwise_right_shift = _shift(False, "bitwise_right_shift", "rshift")
bitwise_right_shift.__doc__ = """``input`` shifted right by ``other`` bits (``input >> other``),
keeping the sign.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([12, -8]) >> 1
tensor([ 6, -4])
"""


def bitwise_not(input: Tensor) -> Tensor:
    """The bits of ``input`` flipped (``~input``); for bool tensors, the logical not.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.bitwise_not(symgrad.tensor([0, 5]))
    tensor([-1, -6])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bitwise_not(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"bitwise_not_cpu\" not implemented for '{input.dtype.scalar_type}': bitwise_not "
            "takes integer or bool tensors"
        )
    return Tensor._make(np.invert(input._data))


def logical_xor(input: Any, other: Any) -> Tensor:
    """True where exactly one of ``input`` and ``other`` is nonzero (a bool tensor).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logical_xor(symgrad.tensor([0.0, 1.0, 2.0]), symgrad.tensor([1, 1, 0]))
    tensor([ True, False,  True])
    """
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("logical_xor", input, "other", other)
    a, b = as_operand(input, "logical_xor"), as_operand(other, "logical_xor")
    a = a._data if isinstance(a, Tensor) else a
    b = b._data if isinstance(b, Tensor) else b
    check_broadcast("logical_xor", [a, b])
    return Tensor._make(np.asanyarray(np.logical_xor(a, b)))


# -- operators and in-place methods -----------------------------------------------------------
def _invert(self: Tensor) -> Tensor:
    if self.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(self)


def _reflected(op: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return op(other, self)

    method.__name__ = f"__r{op.__name__}__"
    return method


def _in_place(op: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        # PyTorch checks the result's type against self's before computing
        d = dtypes.result_type(self, as_operand(other, op.__name__))
        if d.category > self.dtype.category:
            raise RuntimeError(
                f"result type {d.scalar_type} can't be cast to the desired output type "
                f"{self.dtype.scalar_type} ({op.__name__}_ writes into the tensor itself); "
                "use the out-of-place op"
            )
        return inplace(self, f"{op.__name__}_", lambda x: op(x, other), other)

    method.__name__ = f"{op.__name__}_"
    method.__doc__ = f"In-place :func:`{op.__name__}`."
    return method


def _bitwise_not_(self: Tensor) -> Tensor:
    bitwise_not(self)  # PyTorch's error for a floating tensor
    return inplace(self, "bitwise_not_", bitwise_not)


_BINARY = {
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "bitwise_left_shift": bitwise_left_shift,
    "bitwise_right_shift": bitwise_right_shift,
}
_OPERATORS = {
    "and": bitwise_and,
    "or": bitwise_or,
    "xor": bitwise_xor,
    "lshift": bitwise_left_shift,
    "rshift": bitwise_right_shift,
}
METHODS: dict[str, Any] = {
    **_BINARY,
    **{f"{name}_": _in_place(op) for name, op in _BINARY.items()},
    **{f"__{name}__": op for name, op in _OPERATORS.items()},
    **{f"__r{name}__": _reflected(op) for name, op in _OPERATORS.items()},
    **{f"__i{name}__": _in_place(op) for name, op in _OPERATORS.items()},
    "bitwise_not": bitwise_not,
    "bitwise_not_": _bitwise_not_,
    "__invert__": _invert,
    "logical_xor": logical_xor,
}

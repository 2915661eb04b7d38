"""Comparisons and predicates with PyTorch's signatures: not differentiable, bool results."""

from __future__ import annotations

import numbers
import operator
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor, require_tensor_input, require_tensors
from symgrad._data import check_broadcast, in_dtype
from symgrad._memory_format import laid_out_as_inputs
from symgrad._tracing import TRACE
from symgrad.prim import batching as _batching
from symgrad.prim.primitive import as_operand, camel, with_origin
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_not",
    "isnan",
    "isinf",
    "isfinite",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
]


def _data(v: Any, op: str) -> Any:
    v = as_operand(v, op)
    return v._data if isinstance(v, Tensor) else v


def _compare(ufunc: Any, name: str) -> Any:
    logical = name.startswith("logical_")  # tensors only, on both sides

    def op(input: Any, other: Any) -> Tensor:
        if type(input) is not Tensor or (logical and type(other) is not Tensor):
            if logical:
                require_tensors(name, input, "other", other)
            else:
                require_tensor_input(name, input, other)
        if _batching.STATE.depth and (
            type(input) is _batching.BatchedTensor or type(other) is _batching.BatchedTensor
        ):
            return _batching.broadcasting_op(op, (input, other))
        a, b = _data(input, name), _data(other, name)
        if name not in ("eq", "ne") and (_limited(a) or _limited(b)):
            dtype = dtypes.from_numpy_dtype(np.asarray(a if _limited(a) else b).dtype)
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{dtype.scalar_type}'; convert the tensor "
                "with .long() first"
            )
        if (type(a) is not type(b) or a.dtype != b.dtype) and not _raw(input, other):
            # a number or a 0-d tensor is converted to the common dtype first, as in PyTorch
            common = dtypes.result_type(input, other).numpy
            a, b = in_dtype(a, common), in_dtype(b, common)
        try:
            values = ufunc(a, b)
        except ValueError:
            check_broadcast(name, [a, b])  # PyTorch's RuntimeError for shapes that don't
            raise
        result = Tensor._make(laid_out_as_inputs(np.asanyarray(values), (a, b)))
        if TRACE.log is not None:  # symgrad.compile: a mask computed from traced values
            with_origin(prim, (input, other), {}, result)
        return result

    prim = Structural(
        name,
        lambda xp, a, b: np.asanyarray(ufunc(a, b)),
        lambda xp, g, ctx: (None, None),
        backward=f"{camel(name)}Backward0",
    )
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise ``{ufunc.__name__}`` as a bool tensor (not differentiable)."
    return op


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")


def _raw(*operands: Any) -> bool:
    """Whether a NumPy array is among ``operands`` (compared by NumPy's own rules)."""
    return any(isinstance(v, np.ndarray) for v in operands)


def _limited(v: Any) -> bool:
    return type(v) is np.ndarray and v.dtype in (np.uint16, np.uint32, np.uint64)


def _predicate(ufunc: Any, name: str) -> Any:
    def op(input: Any) -> Tensor:
        if type(input) is not Tensor:
            require_tensor(name, "input", 1, input)
        return Tensor._make(np.asanyarray(ufunc(_data(input, name))))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise ``{ufunc.__name__}`` (not differentiable)."
    return op


logical_not = _predicate(np.logical_not, "logical_not")
isnan = _predicate(np.isnan, "isnan")
isinf = _predicate(np.isinf, "isinf")
isfinite = _predicate(np.isfinite, "isfinite")


# PyTorch's other names of the comparisons
def _compare_alias(name: str, op: Any, op_py: Any) -> Any:
    def compare(input: Any, other: Any) -> Tensor:
        if type(input) is not Tensor:
            require_tensor_input(name, input, other)
        return op(input, other)

    compare.__name__ = name
    compare.__doc__ = (
        f"Another name of ``{op.__name__}``.\n\n>>> import symgrad\n"
        f">>> symgrad.{name}(symgrad.tensor([1, 2, 3]), 2).tolist()\n"
        f"{[op_py(v, 2) for v in (1, 2, 3)]}"
    )
    return compare


greater = _compare_alias("greater", gt, operator.gt)
greater_equal = _compare_alias("greater_equal", ge, operator.ge)
less = _compare_alias("less", lt, operator.lt)
less_equal = _compare_alias("less_equal", le, operator.le)
not_equal = _compare_alias("not_equal", ne, operator.ne)


_COMPARABLE = (Tensor, numbers.Number, np.generic, np.ndarray)
_PLAIN = frozenset((Tensor, int, float, bool))  # (the common operands: no ABC to ask)


def operator_form(compare: Any) -> Any:
    """The operator ``==`` (``<``, ...) of the comparison ``compare``: NotImplemented for
    something neither a tensor, a number nor an array, as PyTorch's (so ``x == None`` is
    False, ``x != "a"`` True, and ``x < None`` Python's TypeError)."""

    def method(self: Tensor, other: Any) -> Any:
        if type(other) not in _PLAIN and not isinstance(other, _COMPARABLE):
            return NotImplemented
        return compare(self, other)

    method.__name__ = method.__qualname__ = f"__{compare.__name__}__"
    method.__doc__ = compare.__doc__
    return method

"""PyTorch's other spellings of existing ops and small composites written over them:
``hstack``/``vstack``/``column_stack``, ``tensor_split``, ``argwhere``, ``take``, ``addcmul``,
``addcdiv``, ``isin``, the comparison aliases (``greater``, ``less_equal``, ...), and the
Tensor methods that are only another name (``type_as``, ``multiply``, ``moveaxis``, ...).

Every function here is plain Python over recorded ops, so gradients, ``create_graph`` and the
closed forms come from the ops it calls.
"""

from __future__ import annotations

import math as math_
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import items_one_by_one, require_tensor, tensor_method
from symgrad._data import in_dtype
from symgrad._tracing import TRACE, data_params
from symgrad.autograd.modified import watch_indices
from symgrad.ops import atleast, bitwise, joining, linalg, math, nan_ignoring, tiling
from symgrad.ops.addc import ADDCDIV, ADDCMUL
from symgrad.ops.comparisons import greater, greater_equal, less, less_equal, not_equal
from symgrad.ops.inplace import inplace, write_values
from symgrad.ops.reflected_sub import subtract
from symgrad.ops.tensor_splits import dsplit, hsplit, tensor_split, vsplit
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = [
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "argwhere",
    "take",
    "addcmul",
    "addcdiv",
    "isin",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "multiply",
    "subtract",
    "divide",
    "true_divide",
    "negative",
    "positive",
    "moveaxis",
    "ravel",
]


def hstack(tensors: Any) -> Tensor:
    """Join tensors column-wise: along dimension 0 for 1-D tensors, else dimension 1.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hstack([symgrad.tensor([1, 2]), symgrad.tensor([3])])
    tensor([1, 2, 3])
    """
    tensors = atleast.atleast_1d(*joining._listed(tensors, "hstack"))
    tensors = tensors if isinstance(tensors, tuple) else (tensors,)
    return joining.cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join tensors row-wise (1-D tensors become rows).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.vstack([symgrad.tensor([1, 2]), symgrad.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    tensors = atleast.atleast_2d(*joining._listed(tensors, "vstack"))
    return joining.cat(tensors if isinstance(tensors, tuple) else (tensors,), 0)


row_stack = vstack


def dstack(tensors: Any) -> Tensor:
    """Join tensors depth-wise, along dimension 2 (after ``atleast_3d``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.dstack([symgrad.tensor([1, 2]), symgrad.tensor([3, 4])]).shape
    symgrad.Size([1, 2, 2])
    """
    tensors = atleast.atleast_3d(*joining._listed(tensors, "dstack"))
    return joining.cat(tensors if isinstance(tensors, tuple) else (tensors,), 2)


def column_stack(tensors: Any) -> Tensor:
    """Join tensors as columns: 0-D and 1-D tensors become columns, others join along 1.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.column_stack([symgrad.tensor([1, 2]), symgrad.tensor([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    listed = joining._listed(tensors, "column_stack")
    columns = [t.reshape(-1, 1) if t.ndim <= 1 else t for t in listed]
    return joining.cat(columns, 1)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero elements, one row per element (``nonzero``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.argwhere(symgrad.tensor([0, 3, 0, 5]))
    tensor([[1],
            [3]])
    """
    if type(input) is not Tensor:
        require_tensor("argwhere", "input", 1, input)
    return tiling.nonzero(input)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of ``input`` read as a flat 1-D tensor, at ``index`` (any shape).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.take(symgrad.tensor([[4, 3], [5, 7]]), symgrad.tensor([0, 3]))
    tensor([4, 7])
    """
    require_tensor("take", "index", 1, index)
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    n = input.numel()
    if type(input) is not Tensor or type(index._data) is not np.ndarray:
        if type(index._data) is np.ndarray:  # (a meta index has no values to check)
            _check_positions(index._data, n)
        return input.reshape(-1)[index]  # (inside vmap, or a meta index: by indexing)

    def params(positions: np.ndarray) -> dict:
        _check_positions(positions, n)
        return {"index": np.where(positions < 0, positions + n, positions)}

    out = _TAKE(input, **params(index._data))
    watch_indices(out, index)
    if TRACE.log is not None:  # symgrad.compile: the positions read afresh at every call
        data_params(out, params, index)
    return out


def _check_positions(positions: Any, n: int) -> None:
    """PyTorch's IndexError for a position outside a tensor of ``n`` elements."""
    data = np.asarray(positions)
    if data.size and (data.max() >= n or data.min() < -n):
        raise IndexError(
            f"out of range: tried to access index {int(np.abs(data).max())} on a tensor of "
            f"{n} elements."
        )


def _take_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """The gradient scattered back to the flat positions read, summed where one is read
    twice, in the input's shape."""
    shape = c.shapes[0]
    if shape:  # PyTorch's formula: zeros_like(self).put_(index, grad, true), PutBackward0
        key = np.unravel_index(c.params["index"], shape)
        return (xp.index_put_zeros(shape, key, g, False, node="PutBackward0"),)
    flat = xp.index_put_zeros((math_.prod(shape),), (c.params["index"],), g, False)
    return (xp.reshape(flat, shape),)


# PyTorch's one TakeBackward0 node (not a view and an index)
_TAKE = Structural(
    "take",
    lambda xp, a, index: xp.getitem(xp.reshape(a, (-1,)), (index,)),
    _take_vjp,
    backward="TakeBackward0",
)


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``.

    Examples
    --------
    >>> import symgrad
    >>> t = symgrad.tensor([1.0, 2.0])
    >>> symgrad.addcmul(symgrad.ones(2), t, t + 2, value=0.5)
    tensor([2.5000, 5.0000])
    """
    return _addc(ADDCMUL, input, tensor1, tensor2, value)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (integer ``tensor1`` and ``tensor2`` refused, as
    in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> t = symgrad.tensor([1.0, 2.0])
    >>> symgrad.addcdiv(symgrad.zeros(2), t, symgrad.full((2,), 4.0), value=2)
    tensor([0.5000, 1.0000])
    """
    if all(isinstance(t, Tensor) and not t.dtype.is_floating_point for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. Convert them to a "
            "floating dtype first."
        )
    return _addc(ADDCDIV, input, tensor1, tensor2, value)


def _addc(prim: Any, input: Any, tensor1: Any, tensor2: Any, value: Any) -> Tensor:
    """The primitive on three tensors; the value a number of the result's kind (an integer
    result truncates it, as PyTorch)."""
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{prim.name}(): argument '{name}' must be Tensor, not {type(t).__name__} "
                f"(wrap it with torch.tensor)"
            )
    if isinstance(value, Tensor):
        value = value.item()
    kind = dtypes.promote_types(dtypes.promote_types(input.dtype, tensor1.dtype), tensor2.dtype)
    if not kind.is_floating_point and not isinstance(value, bool):
        value = int(value)
    return prim(input, tensor1, tensor2, params=(value,))


def isin(
    elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False
) -> Tensor:
    """Whether each element of ``elements`` is among ``test_elements`` (a boolean tensor).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.isin(symgrad.tensor([1, 2, 3]), symgrad.tensor([2, 5]))
    tensor([False,  True, False])
    """
    a = elements.detach().numpy() if isinstance(elements, Tensor) else np.asarray(elements)
    if type(test_elements) is int:  # in the elements' dtype, wrapped around as in PyTorch
        test_elements = in_dtype(test_elements, a.dtype)
    b = (
        test_elements.detach().numpy()
        if isinstance(test_elements, Tensor)
        else np.asarray(test_elements)
    )
    return Tensor._make(np.isin(a, b, invert=invert))


def multiply(input: Any, other: Any) -> Tensor:
    """Another name of ``mul``."""
    return math.mul(input, other)


def divide(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """Another name of ``div``."""
    return math.div(input, other, rounding_mode=rounding_mode)


def true_divide(input: Any, other: Any) -> Tensor:
    """``div`` without rounding."""
    return math.div(input, other)


def negative(input: Tensor) -> Tensor:
    """Another name of ``neg``."""
    if type(input) is not Tensor:
        require_tensor("negative", "input", 1, input)
    return math.neg(input)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (refused for booleans, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, -2.0])
    >>> symgrad.positive(x) is x
    True
    """
    if type(input) is not Tensor:
        require_tensor("positive", "input", 1, input)
    if input.dtype is dtypes.bool_:
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported. Convert it with .int() first."
        )
    return input


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Another name of ``movedim``.

    >>> import symgrad
    >>> symgrad.moveaxis(symgrad.ones(2, 3, 4), 0, -1).shape
    symgrad.Size([3, 4, 2])
    """
    return input.movedim(source, destination)


def ravel(input: Tensor) -> Tensor:
    """A flat 1-D tensor of the elements (a view where the layout allows).

    >>> import symgrad
    >>> symgrad.ravel(symgrad.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    if type(input) is not Tensor:
        require_tensor("ravel", "input", 1, input)
    return input.reshape(-1)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return self.to(other.dtype)


def _addcmul_(self: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    return inplace(
        self, "addcmul_", lambda x: addcmul(x, tensor1, tensor2, value=value), tensor1, tensor2
    )


def _addcdiv_(self: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    return inplace(
        self, "addcdiv_", lambda x: addcdiv(x, tensor1, tensor2, value=value), tensor1, tensor2
    )


def _logical(op: Any) -> Any:
    # no derivative: PyTorch writes the values and keeps the tensor's history
    def logical_(self: Tensor, other: Any) -> Tensor:
        return write_values(self, f"{op.__name__}_", lambda x: op(x, other), other)

    return logical_


METHODS = {
    name: globals()[name]
    for name in (
        "tensor_split", "hsplit", "vsplit", "dsplit", "argwhere", "take", "addcmul", "addcdiv",
        "greater", "greater_equal", "less", "less_equal", "not_equal", "multiply",
        "subtract", "divide", "true_divide", "negative", "positive", "moveaxis", "ravel",
    )
}  # fmt: skip
METHODS.update(
    {name: items_one_by_one(name, METHODS[name]) for name in ("hsplit", "vsplit", "dsplit")}
)
METHODS.update(
    {
        "type_as": tensor_method(_type_as, "type_as"),
        "addcmul_": _addcmul_,
        "addcdiv_": _addcdiv_,
        "outer": linalg.outer,
        "logical_and": math.logical_and,
        "logical_or": math.logical_or,
        "logical_xor": bitwise.logical_xor,
        "logical_and_": _logical(math.logical_and),
        "logical_or_": _logical(math.logical_or),
        "logical_xor_": _logical(bitwise.logical_xor),
        "ndimension": lambda self: self.ndim,
        "fmax": nan_ignoring.fmax,
        "fmin": nan_ignoring.fmin,
    }
)
bind_methods(METHODS)

"""The reductions with no gradient: the indices of extrema (``argmax``, ``argmin``) and the
truth values ``all`` and ``any``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._tracing import TRACE, data_value
from symgrad.ops.reductions import _check_nonempty, _dims, _refuse_limited
from symgrad.prim import batching as _batching
from symgrad.tensor import Tensor, _wrap_dim

__all__ = ["argmax", "argmin", "all", "any"]


def _arg(input: Tensor, dim: Any, keepdim: bool, arg: Any) -> Tensor:
    """The indices ``arg`` (``np.argmax`` or ``np.argmin``) finds, found afresh at every call
    of a compiled program."""
    name = arg.__name__
    d = None if dim is None else _wrap_dim(dim, input.ndim)  # (a dim that is no int first)
    _check_nonempty(input, name, dim, IndexError)
    if _batching.any_batched(input):  # inside vmap: the whole batch's indices at once
        if d is None:
            found = _arg(input.reshape(-1), 0, False, arg)
            return found.reshape((1,) * input.ndim) if keepdim else found
        if d is not None and input.ndim:
            return _batching.per_batch(lambda p: _arg(p, d + 1, keepdim, arg), input)

    def find(a: np.ndarray) -> np.ndarray:
        if d is None:  # keepdim: a 1 for every dimension, as PyTorch
            return np.asanyarray(arg(a, keepdims=keepdim), dtype=np.int64)
        return arg(a, axis=d, keepdims=keepdim).astype(np.int64)

    out = Tensor._make(find(input._data))
    if TRACE.log is not None:
        data_value(out, find, input)
    return out


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the maximum (over the flattened tensor when ``dim`` is None)."""
    if type(input) is not Tensor:
        require_tensor("argmax", "input", 1, input)
    _refuse_limited(input, "argmax_cpu")
    if input.dtype.category == 0:
        raise RuntimeError("argmax(): does not support bool input")
    return _arg(input, dim, keepdim, np.argmax)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the minimum (over the flattened tensor when ``dim`` is None)."""
    if type(input) is not Tensor:
        require_tensor("argmin", "input", 1, input)
    _refuse_limited(input, "argmin_cpu")
    if input.dtype.category == 0:
        raise RuntimeError("argmin(): does not support bool input")
    return _arg(input, dim, keepdim, np.argmin)


def _truth(name: str, reduce: Any, doc: str) -> Any:
    """``all`` or ``any``: ``reduce`` over ``dim`` (an int or a tuple of ints)."""

    def op(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        if type(input) is not Tensor:
            require_tensor(name, "input", 1, input)
        # PyTorch keeps uint8 (as 0 and 1); every other dtype gives bool
        kind = np.uint8 if input._data.dtype == np.uint8 else np.bool_
        if _batching.any_batched(input):  # inside vmap: the whole batch at once
            return _batching.on_values(
                input, lambda a, axis: reduce(a, axis=axis, keepdims=keepdim).astype(kind), dim
            )
        axis = None if dim is None else (_dims(input, dim) or ())  # dim=() reduces nothing
        truth = np.asanyarray(reduce(input._data, axis=axis, keepdims=keepdim))
        return Tensor._make(truth.astype(kind, order="C", copy=False))  # (row by row, as PyTorch)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


all = _truth("all", np.all, "True where all elements are non-zero (over ``dim``).")
any = _truth("any", np.any, "True where any element is non-zero (over ``dim``).")

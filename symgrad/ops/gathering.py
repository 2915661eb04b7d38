"""Picking entries along one dimension by an index tensor: gather and index_select.

Both check their arguments in PyTorch's order and with its exception types, which differ
between the layouts PyTorch's CPU kernels take (see :func:`index_select`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import _wrap_dim
from symgrad._tracing import TRACE, data_params
from symgrad.autograd.modified import watch_indices
from symgrad.ops.indexing import _getitem_forward, normalize_key
from symgrad.ops.shape import expand_to
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor

__all__ = ["gather", "index_select"]


def _index_tensor(index: Any, op: str) -> Tensor:
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}; "
            "wrap the indices in symgrad.tensor(...)"
        )
    return index


def _check_integer(index: Tensor, op: str) -> None:
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(
            f"{op}(): Expected dtype int32/int64 for index, got {index.dtype!r}; "
            "convert the indices with .long()"
        )


# -- gather ---------------------------------------------------------------------------------------
_GATHER = Structural(
    "gather",
    lambda xp, a, dim, index: xp.gather(a, dim, index),
    lambda xp, g, c: (xp.scatter_zeros(c.shapes[0], c.params["dim"], c.params["index"], g),),
    jvp="linear",
    text=COPIES,
    batch="along_index",
    rows=True,
)
_SCATTER_ZEROS = Structural(
    "scatter_zeros",
    lambda xp, g, shape, dim, index: xp.scatter_zeros(shape, dim, index, g),
    lambda xp, g, c: (xp.gather(g, c.params["dim"], c.params["index"]),),
    backward="ScatterAddBackward0",
    batch="along_index",
    edges=(None, 0),  # PyTorch's scatter_add of the gradient into zeros: no edge for the zeros
)


def _check_gather_shapes(input: Tensor, d: int, index: Tensor) -> None:
    # PyTorch counts a 0-d tensor as one of one dimension here
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError(
            f"gather(): Index tensor must have the same number of dimensions as input tensor: "
            f"index {list(index.shape)}, input {list(input.shape)}"
        )
    for i in range(index.ndim if input.ndim else 0):
        if i != d and index.shape[i] > input.shape[i]:
            raise RuntimeError(
                f"gather(): Size does not match at dimension {i}: expected index "
                f"{list(index.shape)} to be no larger than input {list(input.shape)} apart from "
                f"dimension {d}"
            )


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (``dim=1`` here).

    ``index`` has as many dimensions as ``input``, no size larger than ``input``'s apart from
    along ``dim``, and gives the output its shape. ``sparse_grad=True`` (a sparse gradient
    for ``input``) is not supported: symgrad's tensors are dense.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> symgrad.gather(x, 1, symgrad.tensor([[2, 0], [1, 1]]))
    tensor([[3., 1.],
            [5., 5.]])
    """
    if sparse_grad:
        raise NotImplementedError(
            "gather(sparse_grad=True): symgrad has no sparse tensors; pass sparse_grad=False "
            "for the same gradient as a dense tensor"
        )
    d = _wrap_dim(dim, input.ndim)
    index = _index_tensor(index, "gather")
    if _batching.any_batched(index) and input.ndim:  # inside vmap: each element's own index
        _check_integer(index, "gather")
        return _batching.per_batch(lambda x, i: gather(x, d + 1, i), input, index)
    if index.numel() == 0:  # nothing is read: PyTorch checks neither dtype nor shapes
        return _GATHER(input, dim=d, index=np.zeros(index.shape, dtype=np.int64))
    _check_integer(index, "gather")
    _check_gather_shapes(input, d, index)
    size = input.shape[d] if input.ndim else 1

    def params(i: np.ndarray) -> dict:
        outside = (i < 0) | (i >= size)
        if outside.any():
            raise RuntimeError(
                f"index {i[outside].flat[0]} is out of bounds for dimension {d} with size {size}"
            )
        return {"dim": d, "index": i.astype(np.int64)}

    result = _GATHER(input, **params(index._data))
    watch_indices(result, index)
    if TRACE.log is not None:  # symgrad.compile: indices computed from values, read afresh
        data_params(result, params, index)
    return result


def xp_gather(a: Tensor, dim: int, index: np.ndarray) -> Tensor:
    return _GATHER(a, dim=dim, index=index)


def xp_scatter_zeros(
    shape: tuple, dim: int, index: np.ndarray, g: Tensor, unique: bool = False
) -> Tensor:
    """Zeros with ``g`` added at ``index``; ``unique`` (no position twice): written as PyTorch's
    formulas write it, ``zeros.scatter(dim, index, g)`` (``ScatterBackward0``)."""
    if unique:
        zeros = Tensor._make(np.zeros(shape, dtype=g._data.dtype))
        return zeros.scatter(dim, Tensor._make(index), g)
    return _SCATTER_ZEROS(g, shape=shape, dim=dim, index=index)


# -- index_select ---------------------------------------------------------------------------------
def _index_select_kernel(xp: Any, a: np.ndarray, key: Any) -> np.ndarray:
    # a new contiguous tensor, as PyTorch's, whatever the input's layout
    out = np.asarray(a[key])
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def _index_select_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # (PyTorch's gradient is zeros.index_add(dim, index, g): IndexAddBackward0 under create_graph)
    return (xp.index_put_zeros(c.shapes[0], c.params["key"], g, node="IndexAddBackward0"),)


_INDEX_SELECT = Structural(
    "index_select",
    _getitem_forward,
    _index_select_vjp,
    backward="IndexSelectBackward0",
    kernel=_index_select_kernel,
    jvp="linear",
    batch="getitem",
)


def _check_select_range(input: Tensor, d: int, index: np.ndarray) -> None:
    """PyTorch's range checks: negative indices are out of range too. Its CPU kernel raises
    IndexError, except on the paths for an empty input and for dim 1 (RuntimeError)."""
    if input.ndim == 0:
        if index.size != 1:
            raise RuntimeError(
                f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)"
            )
        size = 1
    else:
        size = input.shape[d]
        if input.ndim > 1 and index.size == 0:  # nothing is read, nothing is checked
            return
        if input.ndim > 1 and size == 0:
            raise RuntimeError(
                f"index_select(): self indexing axis dim should be positive: dimension {d} "
                f"of the input of shape {list(input.shape)} is empty"
            )
    outside = (index < 0) | (index >= size)
    if not outside.any():
        return
    error = RuntimeError if input.ndim > 1 and (input.numel() == 0 or d == 1) else IndexError
    valid = f"valid indices run from 0 to {size - 1}" if size else "the dimension is empty"
    raise error(
        f"index out of range in self\n(index_select(): index {index[outside].flat[0]} is out of "
        f"range for dimension {d} of size {size} (input of shape {list(input.shape)}); {valid})"
    )


def _spread(index: Tensor, shape: tuple, d: int) -> Tensor:
    """A vector of indices along ``d`` as a ``gather`` index for an input of ``shape``."""
    view = [1] * len(shape)
    view[d] = -1
    target = list(shape)
    target[d] = index.shape[0]
    return expand_to(index.reshape(view), tuple(target))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of ``input`` at ``index`` (a vector of integers, none negative) along
    ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> symgrad.index_select(x, 0, symgrad.tensor([2, 0]))
    tensor([[5., 6.],
            [1., 2.]])
    """
    index = _index_tensor(index, "index_select")
    d = _wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(
            f"index_select(): Index is supposed to be a vector, got an index of shape "
            f"{list(index.shape)}; flatten it with .reshape(-1)"
        )
    _check_integer(index, "index_select")
    if _batching.any_batched(index) and input.ndim:  # each element's own index: a gather
        return gather(input, d, _spread(index.reshape(-1), tuple(input.shape), d))

    def params(i: np.ndarray) -> dict:
        flat = i.reshape(-1)
        _check_select_range(input, d, flat)
        if input.ndim == 0:  # the one element: PyTorch keeps the input's shape
            return {"key": ()}
        return {"key": normalize_key((slice(None),) * d + (flat,), input.shape)}

    result = _INDEX_SELECT(input, **params(index._data))
    watch_indices(result, index)
    if TRACE.log is not None:  # symgrad.compile: indices computed from values, read afresh
        data_params(result, params, index)
    return result

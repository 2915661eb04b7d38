"""``index_reduce``: the slices of ``source`` reduced into ``input`` at the entries ``index``
along a dimension, with ``prod``, ``mean``, ``amax`` or ``amin``, counting ``input``'s own
slice or not (``include_self``), and PyTorch's gradients (``IndexReduceBackward0``).

It is :func:`symgrad.scatter_reduce` with ``index`` spread over ``source``'s shape (each
entry of ``index`` naming the place of a whole slice), so the values and the gradient rules
(products exact at zeros, ties sharing the gradient of ``amax``/``amin``) are that op's.
"""

from __future__ import annotations

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_bool, require_tensor
from symgrad._data import _wrap_dim
from symgrad.ops.inplace import inplace
from symgrad.ops.scatter_reductions import reduce_into, reduce_prims
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor, bind_methods

__all__ = ["index_reduce"]

_REDUCTIONS = ("prod", "mean", "amax", "amin")
_PRIMS = reduce_prims("index_reduce", "IndexReduceBackward0")
for _prim in _PRIMS.values():  # PyTorch declares no forward-mode rule for index_reduce
    _prim.jvp_rule = no_forward_rule("index_reduce")


def _check(input: Tensor, index: Tensor, source: Tensor, d: int) -> np.ndarray:
    """PyTorch's checks of the index and the shapes; the index as int64."""
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{index.dtype.scalar_type}"
        )
    if index.ndim > 1:
        raise IndexError(
            "index_reduce_(): Index is supposed to be a vector, but got dim: "
            f"{index.ndim} with type: {index.dtype.scalar_type} and size: {list(index.shape)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({input.dtype.scalar_type}) and source "
            f"({source.dtype.scalar_type}) must have the same scalar type"
        )
    count = source.shape[d] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({count}), for dim: {d}"
        )
    same = source.ndim == input.ndim and all(
        n == m for k, (n, m) in enumerate(zip(input.shape, source.shape)) if k != d
    )
    if not same:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = "
            f"{list(source.shape)}"
        )
    idx = index._data.astype(np.int64).reshape(-1)
    size = input.shape[d] if input.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    if input.dtype is dtypes.bool_:
        raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
    return idx


def index_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """``input`` with the slices of ``source`` reduced into it at ``index`` along ``dim``
    (``out[index[i]] = reduce(out[index[i]], source[i])`` for ``dim=0``): ``reduce`` is
    ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``; ``include_self=False`` leaves
    ``input``'s slices out of the places written to.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> source = symgrad.tensor([[5.0, 0.0], [2.0, 6.0]])
    >>> x.index_reduce(0, symgrad.tensor([1, 1]), source, "amax")
    tensor([[1., 2.],
            [5., 6.]])
    >>> x.index_reduce(0, symgrad.tensor([0, 0]), source, "mean", include_self=False)
    tensor([[3.5000, 3.0000],
            [3.0000, 4.0000]])
    """
    for position, name, value in ((1, "input", input), (3, "index", index), (4, "source", source)):
        if type(value) is not Tensor:
            require_tensor("index_reduce", name, position, value)
    require_bool("index_reduce", "include_self", include_self)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    d = _wrap_dim(dim, max(input.ndim, 1))
    idx = _check(input, index, source, d)
    x = input.reshape(1) if input.ndim == 0 else input
    src = source.reshape(1) if source.ndim == 0 else source
    spread = [1] * src.ndim
    spread[d] = idx.size
    places = np.broadcast_to(idx.reshape(spread), tuple(src.shape))
    result = reduce_into(x, d, places, src, reduce, include_self, _PRIMS)
    return result.reshape(()) if input.ndim == 0 else result


def index_reduce_(
    self: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """In-place :func:`index_reduce`.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0, 3.0])
    >>> x.index_reduce_(0, symgrad.tensor([2, 2]), symgrad.tensor([4.0, 5.0]), "prod")
    tensor([ 1.,  2., 60.])
    """
    if type(source) is not Tensor:
        require_tensor("index_reduce_", "source", 3, source)

    def compute(x: Tensor) -> Tensor:
        return index_reduce(x, dim, index, source, reduce, include_self=include_self)

    return inplace(self, "index_reduce_", compute, index, source)


def _method(
    self: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    if type(source) is not Tensor:
        require_tensor("index_reduce", "source", 3, source)
    return index_reduce(self, dim, index, source, reduce, include_self=include_self)


_method.__name__ = _method.__qualname__ = "index_reduce"
_method.__doc__ = index_reduce.__doc__
bind_methods({"index_reduce": _method, "index_reduce_": index_reduce_})

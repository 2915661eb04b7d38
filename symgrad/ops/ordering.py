"""Ordering along a dimension: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``.

The order is found on the numbers (with nan after every number as PyTorch sorts it; among
equal elements PyTorch's choice, see :mod:`symgrad.ops.tie_order`); the values are then picked
by those indices, so the gradient goes back to the elements each
value came from (``SortBackward0``, ``TopkBackward0``, ``KthvalueBackward0``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from symgrad._arguments import OMITTED, check_keepdim, require_int, require_tensor
from symgrad._data import _wrap_dim
from symgrad._memory_format import laid_out_like
from symgrad._meta import stand_in
from symgrad._tracing import TRACE, data_params, data_value
from symgrad.ops.operand_checks import refuse_bool
from symgrad.ops.reductions import _pick_forward, _pick_vjp, picked, picked_itself
from symgrad.ops.tie_order import kth_order, sort_order, topk_order
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue"]


class _ValuesIndices(NamedTuple):
    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        return (
            f"symgrad.return_types.{type(self).op}(\nvalues={self.values!r},\n"
            f"indices={self.indices!r})"
        )


def _return_type(op: str) -> type:
    return type(op, (_ValuesIndices,), {"__slots__": (), "op": op})


_RETURNS = {op: _return_type(op) for op in ("sort", "topk", "kthvalue")}
# PyTorch sorts a copy laid out as the input; topk and kthvalue fill new row-major results
_PICKS = {
    "sort": Structural(
        "sort", _pick_forward, _pick_vjp, backward="SortBackward0", jvp="linear", like_input=True
    ),
    **{
        op: Structural(op, _pick_forward, _pick_vjp, backward=name, jvp="linear", rows=True)
        for op, name in (("topk", "TopkBackward0"), ("kthvalue", "KthvalueBackward0"))
    },
}


def _order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable order along ``dim``, nan last ascending and first descending (PyTorch's)."""
    if a.dtype.kind == "b":
        a = a.astype(np.int8)
    if descending:
        if a.dtype.kind == "f":
            nan = np.isnan(a)
            return _lexsort_along(np.where(nan, 0.0, -a), np.where(nan, 0, 1), dim)
        return np.argsort(-a.astype(np.int64), axis=dim, kind="stable")
    return np.argsort(a, axis=dim, kind="stable")


def _lexsort_along(key: np.ndarray, rank: np.ndarray, dim: int) -> np.ndarray:
    """Stable order by ``rank`` first, then ``key``, along ``dim``, row-major as
    ``np.argsort``'s (the moved axis would leave the sort's result strided)."""
    moved_key = np.moveaxis(key, dim, -1)
    moved_rank = np.moveaxis(rank, dim, -1)
    order = np.lexsort((moved_key, moved_rank), axis=-1)
    return np.ascontiguousarray(np.moveaxis(order, -1, dim))


def _pick(op: str, x: Tensor, dim: int, find: Any, keepdim: bool = True, given: Any = None):
    return _RETURNS[op](*picked(_PICKS[op], x, dim, keepdim, find, given))


def _pick_of(
    op: str, input: Tensor, x: Tensor, dim: int, find: Any, keepdim: bool = True, given: Any = None
) -> Any:
    """``_pick`` of ``x``, ``input`` made at least 1-d; of a 0-d ``input`` the element itself,
    one node on ``input`` as PyTorch's (no reshape around it)."""
    if input.ndim == 0:
        return _RETURNS[op](*picked_itself(_PICKS[op], input))
    return _pick(op, x, dim, find, keepdim, given)


def _along(input: Tensor, dim: Any) -> tuple:
    x = input.reshape(1) if input.ndim == 0 else input
    return x, _wrap_dim(dim, x.ndim)


def _scalar_back(result: Any, input: Tensor) -> Any:
    if input.ndim:
        return result
    return type(result)(result.values.reshape(()), result.indices.reshape(()))


def sort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = False
) -> Any:
    """``(values, indices)`` sorted along ``dim`` (nan sorts as the largest; equal elements
    in PyTorch's order: stable up to 16 elements or with ``stable``, not past that).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([3.0, 1.0, 2.0]).sort().indices
    tensor([1, 2, 0])
    """
    if type(input) is not Tensor:
        require_tensor("sort", "input", 1, input)
    if stable is not None and type(stable) is not bool:
        raise _stable_not_a_bool("sort", stable)
    x, d = _along(input, dim)
    if _batching.any_batched(x):  # inside vmap: the whole batch sorted at once
        found = _batching.per_batch(lambda p: sort(p, d + 1, descending, stable=stable), x)
        return _scalar_back(found, input)

    def find(a: np.ndarray) -> np.ndarray:
        return sort_order(a, d, descending, stable, _order(a, d, descending)).astype(np.int64)

    return _pick_of("sort", input, x, d, find, given=dim)


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    if type(input) is not Tensor:
        require_tensor("argsort", "input", 1, input)
    if type(stable) is not bool:
        raise _stable_not_a_bool("argsort", stable)
    x, d = _along(input, dim)
    if _batching.any_batched(x):
        index = _batching.per_batch(lambda p: argsort(p, d + 1, descending, stable=stable), x)
        return index.reshape(()) if input.ndim == 0 else index

    def find(a: np.ndarray) -> np.ndarray:
        return sort_order(a, d, descending, stable, _order(a, d, descending)).astype(np.int64)

    index = Tensor._make(laid_out_like(find(x._data), x._data))
    if TRACE.log is not None:
        data_value(index, find, x)
    return index.reshape(()) if input.ndim == 0 else index


def _stable_not_a_bool(op: str, stable: Any) -> TypeError:
    return TypeError(f"{op}(): argument 'stable' must be bool, not {type(stable).__name__}")


# PyTorch's overloads with stable= take the other arguments by keyword only
sort.keyword_overload = argsort.keyword_overload = "stable"  # type: ignore[attr-defined]


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``."""
    if type(input) is not Tensor:
        require_tensor("msort", "input", 1, input)
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, 5.0, 3.0]).topk(2)
    symgrad.return_types.topk(
    values=tensor([5., 3.]),
    indices=tensor([1, 2]))
    """
    if type(input) is not Tensor:
        require_tensor("topk", "input", 1, input)
    if type(k) is not int:
        require_int("topk", "k", k)
    if input.dtype.category == 0:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    x, d = _along(input, dim)
    n = x.shape[d]
    if not 0 <= k <= n:
        raise RuntimeError(f"selected index k out of range: k={k} for a dimension of size {n}")
    if _batching.any_batched(x):
        found = _batching.per_batch(lambda p: topk(p, k, d + 1, largest, sorted), x)
        return _scalar_back(found, input)

    def find(a: np.ndarray) -> np.ndarray:
        return topk_order(a, d, k, largest, sorted, _order(a, d, largest)).astype(np.int64)

    if k == 0 and input.ndim:
        return _pick("topk", x, d, find, given=dim)
    return _pick_of("topk", input, x, d, find, given=dim)  # (of a 0-d input k=0 picks it too)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (1-based)."""
    if type(input) is not Tensor:
        require_tensor("kthvalue", "input", 1, input)
    if type(k) is not int:
        require_int("kthvalue", "k", k)
    refuse_bool(input, "kthvalue_cpu")
    x, d = _along(input, dim)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(
            f"kthvalue(): selected number k out of range for dimension {d}: k={k}, size {n}"
        )
    if _batching.any_batched(x):
        found = _batching.per_batch(lambda p: kthvalue(p, k, d + 1, keepdim), x)
        return _scalar_back(found, input)

    def find(a: np.ndarray) -> np.ndarray:
        return kth_order(a, d, k, _order(a, d, False)).astype(np.int64)

    return _pick_of("kthvalue", input, x, d, find, bool(keepdim), dim)


_PICKS["median"] = Structural(
    "median", _pick_forward, _pick_vjp, backward="MedianBackward1", jvp="linear"
)


def _shared_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """PyTorch's ``evenly_distribute_backward`` for the median of all elements: ``g / count``
    to every element equal to the median (to every nan, when it is nan), ``+0`` elsewhere:
    filled into zeros (``MaskedFillBackward1`` under ``create_graph``, as PyTorch's)."""
    ties = xp.constant(c.params["ties"])
    dtype = g._data.dtype if isinstance(g, Tensor) else None  # (the tensor's own dtype)
    zeros = xp.constant(np.zeros(c.shapes[0], dtype=dtype))
    return (xp.masked_fill(zeros, ties, g / xp.count(ties)),)


def _shared_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """PyTorch's ``evenly_read_jvp``: the tangents at those elements, each over the count,
    summed."""
    ties = xp.constant(c.params["ties"])
    return xp.sum(xp.where(ties, tangents[0] / c.params["count"], 0.0), None, False)


def shared_pick_forward(
    xp: Any, a: Any, dim: int, index: Any, keepdim: bool, ties: Any, count: int
) -> Any:
    """The element of all of ``a`` at ``index`` in its flattened order (the median of all
    elements: one node on the input itself, as PyTorch's); nan when ``a`` has none."""
    if 0 in tuple(a.shape):
        return xp.constant(np.full((), np.nan, a.dtype))
    return _pick_forward(xp, xp.reshape(a, (-1,)), dim, index, keepdim)


_MEDIAN_ALL = Structural(
    "median_all",
    shared_pick_forward,
    _shared_vjp,
    saves=(0,),  # (unread: PyTorch's node saves both, so changing them in place is an error)
    saves_out=True,
    backward="MedianBackward0",
    jvp=_shared_jvp,
)
_RETURNS["median"] = _return_type("median")


def _median_all_params(data: np.ndarray) -> dict:
    """The parameters of the median of all elements of ``data``: the index in its flattened
    order, the elements equal to the median (in its shape) and their count (none of an
    empty ``data``, whose median is nan)."""
    a = data.reshape(-1)
    if not a.size:
        index, ties = np.zeros(1, np.int64), np.zeros(data.shape, bool)
        return {"dim": 0, "index": index, "keepdim": False, "ties": ties, "count": 1}
    index = _order(a, 0, False)[[(a.shape[0] - 1) // 2]].astype(np.int64)
    if a.dtype.kind == "f" and np.isnan(a).any():  # PyTorch returns the first nan
        index = np.flatnonzero(np.isnan(a))[:1].astype(np.int64)
    value = a[index[0]]
    ties = (a == value if value == value else np.isnan(a)).reshape(data.shape)
    return {"dim": 0, "index": index, "keepdim": False, "ties": ties, "count": int(ties.sum())}


def median(input: Tensor, dim: Any = OMITTED, keepdim: bool = False) -> Any:
    """The lower median (the ``(n - 1) // 2``-th smallest; nan if any element is nan), of
    all elements, or ``(values, indices)`` along ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, 2.0, 3.0, 4.0]).median()
    tensor(2.)
    """
    if type(input) is not Tensor:
        require_tensor("median", "input", 1, input)
    check_keepdim("median", dim, keepdim)
    if dim is OMITTED:
        dim = None
    elif type(dim) is not int:
        require_int("median", "dim", dim)
    refuse_bool(input, "median_cpu" if dim is None else "median_out")
    if dim is None:
        data = input._data
        if data.size == 0 and data.dtype.kind != "f":  # an integer's nan is its minimum
            return Tensor._make(np.array(np.iinfo(data.dtype).min, dtype=data.dtype))
        out = _MEDIAN_ALL(input, **_median_all_params(stand_in(input._data)))
        if TRACE.log is not None:
            data_params(out, _median_all_params, input)
        return out
    x, d = _along(input, dim)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if _batching.any_batched(x):
        found = _batching.per_batch(lambda p: median(p, d + 1, keepdim), x)
        return _scalar_back(found, input)

    def find(a: np.ndarray) -> np.ndarray:
        index = np.take(_order(a, d, False), [(n - 1) // 2], axis=d)
        if a.dtype.kind == "f":  # a row with a nan reports its first nan, as PyTorch
            nan = np.isnan(a)
            first = np.argmax(nan, axis=d, keepdims=True)
            index = np.where(nan.any(axis=d, keepdims=True), first, index)
        return index.astype(np.int64)

    return _pick_of("median", input, x, d, find, bool(keepdim), dim)


__all__ += ["median"]

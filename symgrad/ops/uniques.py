"""The distinct elements of a tensor (or its distinct slices along a dimension): ``unique``
and ``unique_consecutive``, with the inverse indices and counts.

The values are sorted as PyTorch's CPU kernel sorts them (``sorted=False`` sorts too, as
there): with ``std::sort``, which is not stable, so where equal elements can be told apart (a
``-0.0`` and a ``0.0``: the first in that order stands for both; the nans, each its own value:
the order of their inverse indices) the answer is the one that sort leaves
(:mod:`symgrad._std_sort`). As in PyTorch, the values of a tensor that requires grad record a
node (``Unique2Backward0``, ``UniqueDimBackward0``, ``UniqueConsecutiveBackward0``) whose
backward raises ``NotImplementedError``: the op has no derivative."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._data import _wrap_dim
from symgrad._std_sort import std_sort
from symgrad.prim import batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["unique", "unique_consecutive"]


def _no_derivative(name: str) -> Any:
    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    def jvp(xp: Any, tangents: tuple, c: Any) -> Any:
        raise NotImplementedError(f"the forward derivative of '{name}' is not implemented")

    return vjp, jvp


def _picked(xp: Any, a: Any, dim: Any, picks: np.ndarray) -> Any:
    """The slices ``picks`` of ``a`` along ``dim`` (of its flattened elements when None)."""
    if dim is None:
        return xp.getitem(xp.reshape(a, (-1,)), (picks,))
    return xp.getitem(a, (slice(None),) * dim + (picks,))


def _prim(name: str, node: str) -> Structural:
    vjp, jvp = _no_derivative(name)
    return Structural(name, _picked, vjp, backward=node, jvp=jvp)


_UNIQUE = _prim("_unique2", "Unique2Backward0")
_UNIQUE_DIM = _prim("unique_dim", "UniqueDimBackward0")
_UNIQUE_CONSECUTIVE = _prim("unique_consecutive", "UniqueConsecutiveBackward0")


def _sort_less(a: tuple, b: tuple) -> bool:
    """PyTorch's ascending sort order: nan after every number (``KeyValueCompAsc``)."""
    return (b[0] != b[0] and a[0] == a[0]) or a[0] < b[0]


def _row_less(a: tuple, b: tuple) -> bool:
    """unique_dim's order of slices: the first element that differs decides (nan decides
    nothing)."""
    for x, y in zip(a[0], b[0]):
        if x < y:
            return True
        if x > y:
            return False
    return False


def _sorted_order(flat: np.ndarray) -> np.ndarray:
    """The positions of ``flat`` in the order PyTorch's sort leaves them; NumPy's stable order
    where no two equal elements can be told apart (no nans, not both zeros)."""
    if flat.dtype.kind == "f":
        zeros = flat[flat == 0]
        if np.isnan(flat).any() or (np.signbit(zeros).any() and not np.signbit(zeros).all()):
            pairs = std_sort(list(zip(flat.tolist(), range(flat.size))), _sort_less)
            return np.array([i for _, i in pairs], dtype=np.int64)
    return np.argsort(flat, kind="stable")


def _groups(starts: np.ndarray, order: np.ndarray, n: int) -> tuple:
    """``(picks, inverse, counts)`` from the group starts of ``n`` elements taken in
    ``order``: the first element of each group, each element's group, each group's size."""
    group = np.cumsum(starts) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = group
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, n)).astype(np.int64)
    return order[first].astype(np.int64), inverse, counts


def _flat_groups(flat: np.ndarray, order: np.ndarray) -> tuple:
    ordered = flat[order]
    starts = np.ones(flat.size, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]  # a nan starts a group of its own
    return _groups(starts, order, flat.size)


def _slices(input: Tensor, dim: Any, op: str) -> tuple:
    """The slices along ``dim`` as rows, with PyTorch's refusals of empty dimensions."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    empties = sum(1 for n in input.shape if n == 0)
    if input.shape[d] == 0 and empties > 1:
        raise RuntimeError(
            f"Number of zero sized dimensions is more than one, so {op} cannot be applied "
            f"(shape {list(input.shape)})"
        )
    if input.shape[d] != 0 and empties:
        raise RuntimeError(
            f"There are 0 sized dimensions, and they aren't selected, so {op} cannot be "
            f"applied (shape {list(input.shape)}, dim {d})"
        )
    moved = np.moveaxis(input._data, d, 0)
    return d, moved.reshape(input.shape[d], math.prod(moved.shape[1:]))


def _row_groups(rows: np.ndarray, order: np.ndarray) -> tuple:
    n = len(rows)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    ordered = rows[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)  # a nan never equals
    return _groups(starts, order, n)


def _result(prim: Structural, input: Tensor, dim: Any, parts: tuple, flags: tuple) -> Any:
    picks, inverse, counts = parts
    values = prim.record(
        (input,), {"dim": dim, "picks": picks}, _picked(_NP, input._data, dim, picks)
    )
    extra = [Tensor._make(a) for a, wanted in zip((inverse, counts), flags) if wanted]
    return (values, *extra) if extra else values


class _NP:
    """Just the two words :func:`_picked` uses, on arrays."""

    @staticmethod
    def reshape(a: np.ndarray, shape: tuple) -> np.ndarray:
        return a.reshape(shape)

    @staticmethod
    def getitem(a: np.ndarray, key: tuple) -> np.ndarray:
        return a[key]


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: Any = None,
) -> Any:
    """The distinct elements in ascending order (each nan counts as distinct), or the distinct
    slices along ``dim``; with ``return_inverse`` each element's (slice's) position among them,
    with ``return_counts`` how often each occurs, as a tuple.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unique(symgrad.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))
    >>> symgrad.tensor([[1, 2], [0, 5], [1, 2]]).unique(dim=0)
    tensor([[0, 5],
            [1, 2]])
    """
    if batching.any_batched(input):  # each element has its own number of distinct values
        batching.refuse_dynamic_shape("aten::_unique2" if dim is None else "aten::unique_dim")
    flags = (return_inverse, return_counts)
    if dim is None:
        flat = input._data.reshape(-1)
        picks, inverse, counts = _flat_groups(flat, _sorted_order(flat))
        return _result(_UNIQUE, input, None, (picks, inverse.reshape(input.shape), counts), flags)
    d, rows = _slices(input, dim, "unique")
    keyed = list(zip(map(tuple, rows.tolist()), range(len(rows))))
    order = np.array([i for _, i in std_sort(keyed, _row_less)], dtype=np.int64)
    return _result(_UNIQUE_DIM, input, d, _row_groups(rows, order), flags)


def unique_consecutive(*args: Any, **kwargs: Any) -> Any:
    """``symgrad.unique_consecutive(input, return_inverse, return_counts, dim)``: the method
    :meth:`Tensor.unique_consecutive`, with PyTorch's choice of what to return made as its
    function makes it, which reads the flags given by position one place off: the second
    argument decides whether counts are returned, the third whether the inverse is (a part
    returned without being asked for is empty).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1, 1, 2])
    >>> symgrad.unique_consecutive(x, return_counts=True)
    (tensor([1, 2]), tensor([2, 1]))
    >>> symgrad.unique_consecutive(x, True)
    (tensor([1, 2]), tensor([], dtype=symgrad.int64))
    """
    inverse_shown = args[2] if len(args) > 2 else kwargs.get("return_inverse", False)
    counts_shown = args[1] if len(args) > 1 else kwargs.get("return_counts", False)
    values, inverse, counts = _consecutive_parts(*args, **kwargs)
    extra = [t for t, shown in ((inverse, inverse_shown), (counts, counts_shown)) if shown]
    return (values, *extra) if extra else values


def _consecutive_parts(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
) -> tuple:
    """The values, inverse and counts of ``input.unique_consecutive``, each part not asked
    for empty (as ATen leaves it, over all elements; along a dim it computes every part)."""
    values, *parts = unique_consecutive_method(input, True, True, dim)
    if dim is None:
        wanted = (return_inverse, return_counts)
        empty = Tensor._make(np.zeros(0, np.int64))
        parts = [part if want else empty for part, want in zip(parts, wanted)]
    return (values, *parts)


def unique_consecutive_method(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
) -> Any:
    """The elements (or slices along ``dim``) with each run of equal neighbours kept once;
    ``return_inverse`` and ``return_counts`` as for :func:`unique`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1, 1, 2, 2, 3, 1, 1]).unique_consecutive(return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 2]))
    """
    if type(input) is not Tensor:
        require_tensor("unique_consecutive", "input", 1, input)
    if batching.any_batched(input):
        batching.refuse_dynamic_shape("aten::unique_consecutive")
    flags = (return_inverse, return_counts)
    if dim is None or (input.ndim == 1 and _wrap_dim(dim, 1) == 0):
        flat = input._data.reshape(-1)
        order = np.arange(flat.size)
        picks, inverse, counts = _flat_groups(flat, order)
        parts = (picks, inverse.reshape(input.shape), counts)
        return _result(_UNIQUE_CONSECUTIVE, input, None, parts, flags)
    d, rows = _slices(input, dim, "unique")
    parts = _row_groups(rows, np.arange(len(rows)))
    return _result(_UNIQUE_CONSECUTIVE, input, d, parts, flags)

"""Picking one element per row by counting or ranking: ``mode`` and ``nanmedian``.

Both report the index PyTorch's CPU kernels report, ties included: ``mode`` sorts each row with
``std::sort`` (not stable) and takes the last element of the first most frequent run, so among
equal values the index is the one that sort leaves last (the last occurrence in rows of up to
16 elements); ``nanmedian`` ranks stably with nans last, and a row of nans only reports where
``std::nth_element`` leaves its first element (:mod:`symgrad._std_sort` replays both). The
gradient goes to the element picked (``ModeBackward0``, ``NanmedianBackward1``); the nanmedian
of all elements shares it among the elements equal to it (``NanmedianBackward0``)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from symgrad._arguments import OMITTED, require_int, require_tensor
from symgrad._data import _wrap_dim
from symgrad._meta import stand_in
from symgrad._std_sort import nth_element, std_sort
from symgrad._tracing import TRACE, data_params
from symgrad.ops.ordering import (
    _RETURNS,
    _median_all_params,
    _order,
    _return_type,
    _shared_jvp,
    _shared_vjp,
    shared_pick_forward,
)
from symgrad.ops.reductions import _pick_forward, _pick_vjp, picked
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["mode", "nanmedian"]

_RETURNS["mode"] = _return_type("mode")
_RETURNS["nanmedian"] = _return_type("nanmedian")
_MODE = Structural("mode", _pick_forward, _pick_vjp, backward="ModeBackward0", jvp="linear")
_NANMEDIAN = Structural(
    "nanmedian", _pick_forward, _pick_vjp, backward="NanmedianBackward1", jvp="linear"
)
_NANMEDIAN_ALL = Structural(
    "nanmedian_all",
    shared_pick_forward,
    _shared_vjp,
    saves=(0,),  # (as the median's)
    saves_out=True,
    backward="NanmedianBackward0",
    jvp=_shared_jvp,
)


def _rows(a: np.ndarray, dim: int) -> np.ndarray:
    """``a`` with ``dim`` moved last and the other dimensions flattened into rows."""
    moved = np.moveaxis(a, dim, -1)
    return moved.reshape(-1, moved.shape[-1])


def _back(index: np.ndarray, shape: tuple, dim: int) -> np.ndarray:
    """Row indices (one per row) as an index array of ``shape`` with ``dim`` kept as size 1."""
    moved = shape[:dim] + shape[dim + 1 :] + (1,)
    return np.moveaxis(index.reshape(moved), -1, dim).astype(np.int64)


def _mode_less(a: tuple, b: tuple) -> bool:
    return a[0] < b[0]


def _mode_of_row(row: list) -> int:
    """The index PyTorch's mode reports: the row's (value, position) pairs sorted by value as
    ``std::sort`` leaves them, then the last pair of the first run of the largest count
    (a nan is a run of its own: it equals nothing)."""
    pairs = std_sort([(v, i) for i, v in enumerate(row)], _mode_less)
    best, count, run = 0, 0, 0
    for k, (value, position) in enumerate(pairs):
        run += 1
        if k == len(pairs) - 1 or value != pairs[k + 1][0]:
            if run > count:
                best, count = position, run
            run = 0
    return best


def _reduction_dim(input: Tensor, dim: Any, op: str) -> tuple:
    """``input`` as at least 1-d and the wrapped ``dim``, refusing an empty ``dim``."""
    d = _wrap_dim(dim, max(input.ndim, 1))
    x = input.reshape(1) if input.ndim == 0 else input
    if x.shape[d] == 0:
        raise IndexError(
            f"{op}(): Expected reduction dim {d} to have non-zero size; the tensor has shape "
            f"{list(input.shape)}"
        )
    return x, d


def _picked(
    prim: Structural,
    op: str,
    input: Tensor,
    x: Tensor,
    d: int,
    picks: Any,
    keepdim: bool,
    given: Any,
) -> Any:
    """``op``'s (values, indices), one element per row along ``d`` at ``picks(rows)``;
    ``given``: the dim as the user gave it, as the node shows it."""
    if input.ndim == 0:  # the element itself, picked from the 0-d tensor (no reshape node)
        index = np.zeros((), np.int64)
        return _RETURNS[op](prim(input, dim=0, index=index, keepdim=True), Tensor._make(index))

    def find(a: np.ndarray) -> np.ndarray:
        return _back(picks(a, _rows(a, d)), x.shape, d)

    return _RETURNS[op](*picked(prim, x, d, bool(keepdim), find, given))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of those
    equally frequent) and where it was found, as PyTorch's CPU kernel reports it.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([[3.0, 1.0, 3.0, 1.0, 2.0], [4.0, 4.0, 0.0, 5.0, 5.0]]).mode()
    symgrad.return_types.mode(
    values=tensor([1., 4.]),
    indices=tensor([3, 1]))
    """
    if type(input) is not Tensor:
        require_tensor("mode", "input", 1, input)
    x, d = _reduction_dim(input, dim, "mode")
    if _batching.any_batched(x) and input.ndim:  # inside vmap: every row of the batch at once
        return _batching.per_batch(lambda p: mode(p, d + 1, keepdim), x)

    def picks(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.array([_mode_of_row(row) for row in rows.tolist()], dtype=np.int64)

    return _picked(_MODE, "mode", input, x, d, picks, keepdim, dim)


@functools.lru_cache(maxsize=64)
def _all_nan_index(n: int) -> int:
    """Where ``std::nth_element`` leaves the first element of a row whose elements all
    compare equal (PyTorch's nanmedian of a row of nans reports that position)."""
    return nth_element(list(range(n)), 0, lambda a, b: False)[0]


def _check_numbers(input: Tensor, op: str) -> None:
    if input.dtype.category == 0:
        raise NotImplementedError(
            f"\"{op}\" not implemented for 'Bool'; convert the tensor with .long() or .float()"
        )


def nanmedian(input: Tensor, dim: Any = OMITTED, keepdim: Any = None) -> Any:
    """The lower median ignoring nans (nan only when every element is nan), of all elements,
    or ``(values, indices)`` along ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> nan = float("nan")
    >>> symgrad.tensor([3.0, nan, 1.0, 2.0, nan]).nanmedian()
    tensor(2.)
    >>> symgrad.tensor([[3.0, nan, 1.0], [nan, nan, 5.0]]).nanmedian(1)
    symgrad.return_types.nanmedian(
    values=tensor([1., 5.]),
    indices=tensor([2, 2]))
    """
    if type(input) is not Tensor:
        require_tensor("nanmedian", "input", 1, input)
    if dim is OMITTED:
        dim = None
    elif type(dim) is not int:
        require_int("nanmedian", "dim", dim)
    if dim is None:
        if keepdim is not None:
            raise TypeError('nanmedian() missing 1 required positional arguments: "dim"')
        _check_numbers(input, "median_cpu")
        return _nanmedian_all(input)
    _check_numbers(input, "median_out")
    x, d = _reduction_dim(input, dim, "median")
    if _batching.any_batched(x) and input.ndim:
        return _batching.per_batch(lambda p: nanmedian(p, d + 1, keepdim), x)

    def picks(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        order = _rows(_order(a, d, False), d)
        missing = np.isnan(rows).sum(axis=1) if rows.dtype.kind == "f" else np.zeros(len(rows), int)
        n = rows.shape[1]
        rank = np.where(missing < n, (n - missing - 1) // 2, 0)
        found = np.take_along_axis(order, rank[:, None], axis=1)[:, 0]
        return np.where(missing == n, _all_nan_index(n), found)

    return _picked(_NANMEDIAN, "nanmedian", input, x, d, picks, keepdim, dim)


def _nanmedian_all(input: Tensor) -> Tensor:
    data = input._data
    if data.size == 0 and data.dtype.kind != "f":  # an integer's nan is its minimum
        return Tensor._make(np.array(np.iinfo(data.dtype).min, dtype=data.dtype))
    out = _NANMEDIAN_ALL(input, **_nanmedian_all_params(stand_in(input._data)))
    if TRACE.log is not None:
        data_params(out, _nanmedian_all_params, input)
    return out


def _nanmedian_all_params(given: np.ndarray) -> dict:
    """The parameters of the nanmedian of all elements of ``given`` (not empty), as those of
    the median of all elements (:func:`symgrad.ops.ordering._median_all_params`)."""
    data = given.reshape(-1)
    nans = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, bool)
    if not data.size:  # nan, as the median of nothing
        return _median_all_params(given)
    if nans.all():
        index = np.array([0], np.int64)
        ties = nans
    else:
        order = _order(data, 0, False)
        index = order[[(data.size - int(nans.sum()) - 1) // 2]].astype(np.int64)
        ties = data == data[index[0]]
    ties = ties.reshape(given.shape)
    return {"dim": 0, "index": index, "keepdim": False, "ties": ties, "count": int(ties.sum())}

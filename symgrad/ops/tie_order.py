"""Which of several equal elements PyTorch's CPU kernels report: the indices of ``sort``,
``argsort``, ``topk`` and ``kthvalue`` where a row holds ties.

PyTorch sorts (value, index) pairs by value alone with algorithms that are not stable:
``std::sort`` for ``sort`` (stable only up to 16 elements, where it is an insertion sort),
``std::partial_sort`` for a ``topk`` of at most 1/64 of the row and ``std::nth_element`` (then
``std::sort`` of the first ``k - 1``) for a larger one, and a quickselect of its own for
``kthvalue``. Rows without ties have one answer, found with NumPy; a row with ties is replayed
step by step (:mod:`symgrad._std_sort`) on integer keys that compare as PyTorch's comparators
do: ``0.0`` equals ``-0.0``, nan equals nan and sorts above every number.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symgrad._std_sort import nth_element, partial_sort, quick_select, std_sort

__all__ = ["sort_order", "topk_order", "kth_order"]

_INSERTION_ONLY = 16  # std::sort of up to 16 elements is one insertion sort: stable


def _less(a: tuple, b: tuple) -> bool:
    return a[0] < b[0]


def _greater(a: tuple, b: tuple) -> bool:
    return a[0] > b[0]


def _rows(a: np.ndarray, dim: int) -> np.ndarray:
    moved = np.moveaxis(a, dim, -1)
    return moved.reshape(-1, moved.shape[-1])


def _unrows(rows: np.ndarray, shape: tuple, dim: int) -> np.ndarray:
    moved = shape[:dim] + shape[dim + 1 :] + (rows.shape[-1],)
    return np.moveaxis(rows.reshape(moved), -1, dim)


def _pairs(row: np.ndarray, descending: bool) -> list:
    """``(key, position)`` per element: equal values share a key, nan has the largest, and
    descending order negates them."""
    if row.dtype.kind == "f":
        nan = np.isnan(row)
        _, key = np.unique(np.where(nan, 0, row), return_inverse=True)
        key = np.where(nan, key.max(initial=0) + 1, key)
    else:
        _, key = np.unique(row, return_inverse=True)
    key = -key if descending else key
    return list(zip(key.reshape(-1).tolist(), range(row.shape[0])))


def _tied(rows: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Per row, whether two of its elements compare equal (from the row in sorted ``order``)."""
    ordered = np.take_along_axis(rows, order, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if rows.dtype.kind == "f":
        same |= np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1])
    return same.any(axis=1)


def _replay(
    a: np.ndarray,
    dim: int,
    order: np.ndarray,
    width: int,
    rows_to: np.ndarray,
    descending: bool,
    steps: Callable,
) -> np.ndarray:
    """``order`` (stable, the first ``width`` along ``dim`` kept) with the rows picked by
    ``rows_to`` replaced by ``steps(pairs)``'s first ``width`` positions."""
    rows = _rows(a, dim)
    found = np.array(_rows(order, dim)[:, :width])
    for r in np.flatnonzero(rows_to):
        pairs = steps(_pairs(rows[r], descending))
        found[r] = [position for _, position in pairs[:width]]
    return _unrows(found, order.shape[:dim] + (width,) + order.shape[dim + 1 :], dim)


def sort_order(a: np.ndarray, dim: int, descending: bool, stable: bool, order: np.ndarray):
    """The indices PyTorch's ``sort`` reports, from NumPy's stable ``order``."""
    n = a.shape[dim]
    if stable or n <= _INSERTION_ONLY or a.size == 0:
        return order
    tied = _tied(_rows(a, dim), _rows(order, dim))
    if not tied.any():
        return order
    return _replay(a, dim, order, n, tied, descending, lambda p: std_sort(p, _less))


def topk_order(a: np.ndarray, dim: int, k: int, largest: bool, sorted: bool, order: np.ndarray):
    """The indices PyTorch's ``topk`` reports, from NumPy's stable ``order`` (largest first
    when ``largest``)."""
    n = a.shape[dim]
    if a.size == 0 or k == 0:
        return np.take(order, np.arange(k), axis=dim)
    partial = k * 64 <= n
    redo = _tied(_rows(a, dim), _rows(order, dim))
    if not partial and not sorted and k > 1:  # nth_element's order: every row replayed
        redo = np.ones_like(redo)

    def steps(pairs: list) -> list:
        if partial:
            return partial_sort(pairs, k, _less)
        nth_element(pairs, k - 1, _less)
        if sorted:
            pairs[: k - 1] = std_sort(pairs[: k - 1], _less)
        return pairs

    return _replay(a, dim, order, k, redo, largest, steps)


def kth_order(a: np.ndarray, dim: int, k: int, order: np.ndarray) -> np.ndarray:
    """The index PyTorch's ``kthvalue`` reports (size 1 along ``dim``), from NumPy's stable
    ascending ``order``."""
    rows, rows_order = _rows(a, dim), _rows(order, dim)
    tied = _tied(rows, rows_order)

    def steps(pairs: list) -> list:
        chosen = quick_select(pairs, k - 1, _greater)[k - 1]
        return [chosen]

    picked = np.take(order, [k - 1], axis=dim)
    if not tied.any():
        return picked
    return _replay(a, dim, picked, 1, tied, False, steps)

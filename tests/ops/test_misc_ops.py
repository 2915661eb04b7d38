"""mode, nanmedian, unique, unique_consecutive, logcumsumexp, scatter_reduce and index_put:
values, indices, gradients, node names and errors as PyTorch 2.13 gives them.

Each case holds its expected result (values, or the exception type PyTorch raises), so the
tables run without PyTorch; with PyTorch installed, the same tables are checked against it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN, INF = float("nan"), float("inf")
# a row of 17: std::sort leaves the tied 1s out of order, so PyTorch's mode reports index 6
LONG_ROW = [0, 0, 2, 3, 3, 2, 1, 1, 3, 1, 2, 1, 0, 0, 3, 3, 1]
M = [[1, 2], [1, 2], [0, 5]]


def _f(T, data):
    return T.tensor(data, dtype=T.float64)


def _plain(result):
    """Nested lists of a tensor or a tuple of tensors (nan as the string 'nan')."""
    if isinstance(result, tuple):
        return [_plain(r) for r in result]
    return _named_nan(result.detach().numpy().tolist())


def _named_nan(value):
    if isinstance(value, list):
        return [_named_nan(v) for v in value]
    return "nan" if isinstance(value, float) and math.isnan(value) else value


# (name, f(T) -> tensor or tuple, expected nested lists or exception type)
CASES = [
    (
        "mode_rows",
        lambda T: T.mode(_f(T, [[1, 2, 2, 3, 3, 1], [5, 4, 4, 5, 0, 0]])),
        [[1, 0], [5, 5]],
    ),
    ("mode_long_row", lambda T: T.mode(_f(T, LONG_ROW)), [1, 6]),
    ("mode_nan_alone", lambda T: T.mode(_f(T, [NAN, 1, NAN])), ["nan", 0]),
    ("mode_nan_runs", lambda T: T.mode(_f(T, [NAN, NAN, 1, 1, 1])), [1, 4]),
    ("mode_0d", lambda T: _f(T, 3.0).mode(), [3, 0]),
    (
        "mode_keepdim",
        lambda T: T.tensor([[1, 2], [1, 3]]).mode(0, keepdim=True),
        [[[1, 2]], [[1, 0]]],
    ),
    ("mode_bool", lambda T: T.tensor([True, False, True]).mode(), [True, 2]),
    ("mode_empty_dim", lambda T: T.zeros(0).mode(), IndexError),
    ("mode_empty_rows", lambda T: T.zeros(2, 0).mode(0), [[], []]),
    ("mode_dim_out_of_range", lambda T: T.zeros(2).mode(2), IndexError),
    ("nanmedian_all", lambda T: _f(T, [1, NAN, 2, 2, NAN, 0]).nanmedian(), 1),
    ("nanmedian_all_nan", lambda T: _f(T, [NAN, NAN]).nanmedian(), "nan"),
    ("nanmedian_empty", lambda T: T.zeros(0).nanmedian(), "nan"),
    ("nanmedian_ints", lambda T: T.tensor([1, 3, 2]).nanmedian(0), [2, 2]),
    (
        "nanmedian_rows",
        lambda T: _f(T, [[1, NAN, 2, 2, NAN, 0], [NAN] * 6, [3, 1, 2, NAN, 1, 5]]).nanmedian(1),
        [[1, "nan", 2], [0, 3, 2]],
    ),
    # a row of nans reports where std::nth_element leaves the first of its equal elements
    (
        "nanmedian_nan_rows",
        lambda T: T.stack([_f(T, [NAN] * n).nanmedian(0).indices for n in range(1, 9)]),
        [0, 0, 0, 2, 2, 3, 5, 6],
    ),
    ("nanmedian_bool", lambda T: T.tensor([True, False]).nanmedian(), NotImplementedError),
    ("nanmedian_empty_dim", lambda T: T.zeros(0).nanmedian(0), IndexError),
    ("nanmedian_keepdim_alone", lambda T: T.nanmedian(T.zeros(2), keepdim=True), TypeError),
    (
        "unique_nan",
        lambda T: T.unique(
            _f(T, [3, 1, 2, 1, 3, NAN, NAN]), return_inverse=True, return_counts=True
        ),
        [[1, 2, 3, "nan", "nan"], [2, 0, 1, 0, 2, 3, 4], [2, 1, 2, 1, 1]],
    ),
    (
        "unique_unsorted_sorts",
        lambda T: T.unique(T.tensor([2, 1, 2, 3, 1]), sorted=False, return_inverse=True),
        [[1, 2, 3], [1, 0, 1, 2, 0]],
    ),
    (
        "unique_matrix",
        lambda T: T.tensor([[1, 2], [3, 1]]).unique(return_inverse=True),
        [[1, 2, 3], [[0, 1], [2, 0]]],
    ),
    ("unique_0d", lambda T: T.unique(_f(T, 3.0), return_inverse=True), [[3], 0]),
    ("unique_empty", lambda T: T.unique(T.zeros(0), return_counts=True), [[], []]),
    (
        "unique_rows",
        lambda T: T.unique(T.tensor(M), dim=0, return_inverse=True, return_counts=True),
        [[[0, 5], [1, 2]], [1, 1, 0], [1, 2]],
    ),
    (
        "unique_columns",
        lambda T: T.unique(T.tensor(M), dim=1, return_inverse=True, return_counts=True),
        [M, [0, 1], [1, 1]],
    ),
    (
        "unique_rows_with_nan",
        lambda T: T.unique(_f(T, [[NAN, 1], [NAN, 1]]), dim=0),
        [["nan", 1]] * 2,
    ),
    ("unique_empty_columns", lambda T: T.unique(T.zeros(2, 0), dim=1), [[], []]),
    ("unique_unselected_empty", lambda T: T.unique(T.zeros(2, 0), dim=0), RuntimeError),
    ("unique_two_empty", lambda T: T.unique(T.zeros(0, 0), dim=0), RuntimeError),
    ("unique_0d_dim", lambda T: T.unique(_f(T, 2.0), dim=0), IndexError),
    ("unique_dim_out_of_range", lambda T: T.unique(T.tensor(M), dim=2), IndexError),
    (
        "unique_consecutive",
        lambda T: T.unique_consecutive(
            T.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True
        ),
        [[1, 2, 3, 1, 2], [0, 0, 1, 1, 2, 3, 3, 4], [2, 2, 1, 2, 1]],
    ),
    (
        "unique_consecutive_nan",
        lambda T: _f(T, [1, NAN, NAN, 1]).unique_consecutive(return_counts=True),
        [[1, "nan", "nan", 1], [1, 1, 1, 1]],
    ),
    (
        "unique_consecutive_rows",
        lambda T: T.unique_consecutive(T.tensor(M), return_inverse=True, return_counts=True, dim=0),
        [[[1, 2], [0, 5]], [0, 0, 1], [2, 1]],
    ),
    ("unique_consecutive_0d_dim", lambda T: T.unique_consecutive(_f(T, 2.0), dim=0), IndexError),
    (
        "logcumsumexp",
        lambda T: T.logcumsumexp(_f(T, [0, 0, 1000, -INF]), 0),
        [0.0, math.log(2.0), 1000.0, 1000.0],
    ),
    ("logcumsumexp_all_neg_inf", lambda T: T.logcumsumexp(_f(T, [-INF, -INF]), 0), [-INF, -INF]),
    ("logcumsumexp_int", lambda T: T.logcumsumexp(T.tensor([1, 2]), 0), NotImplementedError),
    ("logcumsumexp_dim", lambda T: T.logcumsumexp(T.zeros(2), 2), IndexError),
    (
        "scatter_reduce_int_mean_floors",
        lambda T: T.tensor([1, 2, 3]).scatter_reduce(
            0, T.tensor([0, 0]), T.tensor([-2, -5]), "mean", include_self=False
        ),
        [-4, 2, 3],
    ),
    (
        "scatter_reduce_nan",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([0, 0]), _f(T, [NAN, -5]), "amin"),
        ["nan", 2],
    ),
    (
        "scatter_reduce_legacy_max",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([0, 0, 1]), _f(T, [5, -3, 7]), "max"),
        [5, 7],
    ),
    (
        "scatter_reduce_0d",
        lambda T: _f(T, 2.0).scatter_reduce(0, T.tensor([0]), _f(T, [3.0]), "prod"),
        6,
    ),
    (
        "scatter_reduce_bad_reduce",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([0]), _f(T, [1]), "add"),
        RuntimeError,
    ),
    (
        "scatter_reduce_src_dtype",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([0]), T.tensor([1]), "sum"),
        RuntimeError,
    ),
    (
        "scatter_reduce_index_too_long",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([0, 1, 1]), _f(T, [1]), "sum"),
        RuntimeError,
    ),
    (
        "scatter_reduce_out_of_range",
        lambda T: _f(T, [1, 2]).scatter_reduce(0, T.tensor([2]), _f(T, [1]), "sum"),
        RuntimeError,
    ),
    (
        "scatter_reduce_bool_mean",
        lambda T: T.tensor([True]).scatter_reduce(0, T.tensor([0]), T.tensor([True]), "mean"),
        NotImplementedError,
    ),
    (
        "index_put_last_wins",
        lambda T: T.zeros(3).index_put((T.tensor([1, 1, 2]),), T.tensor([1.0, 2.0, 3.0])),
        [0, 2, 3],
    ),
    (
        "index_put_int_accumulate",
        lambda T: T.zeros(5, dtype=T.int64).index_put(
            (T.tensor([0, 0, 0]),), T.tensor([1, 2, 3]), accumulate=True
        ),
        [6, 0, 0, 0, 0],
    ),
    (
        "index_put_mask_then_index",
        lambda T: T.zeros(3, 2).index_put(
            (T.tensor([True, False, True]), T.tensor([1, 0])), T.tensor(5.0)
        ),
        [[0, 5], [0, 0], [5, 0]],
    ),
    (
        "index_put_0d_index",
        lambda T: T.zeros(3).index_put((T.tensor(1),), T.tensor(5.0)),
        [0, 5, 0],
    ),
    (
        "index_put_out_of_range",
        lambda T: T.zeros(3).index_put((T.tensor([3]),), T.tensor(1.0)),
        IndexError,
    ),
    (
        "index_put_float_index",
        lambda T: T.zeros(3).index_put((T.tensor([0.0]),), T.tensor(1.0)),
        IndexError,
    ),
    (
        "index_put_too_many",
        lambda T: T.zeros(3).index_put((T.tensor([0]),) * 2, T.tensor(1.0)),
        IndexError,
    ),
    (
        "index_put_not_a_tuple",
        lambda T: T.zeros(3).index_put(T.tensor([0]), T.tensor(1.0)),
        TypeError,
    ),
    ("index_put_number", lambda T: T.zeros(3).index_put((T.tensor([0]),), 1.0), TypeError),
    (
        "index_put_dtype",
        lambda T: _f(T, [0, 0]).index_put((T.tensor([0]),), T.tensor(1.0)),
        RuntimeError,
    ),
    (
        "index_put_leading_one",
        lambda T: T.zeros(3, 2).index_put((T.tensor([0]),), T.ones(1, 1, 2)),
        RuntimeError,
    ),
]


def _check(T, fn, expected):
    if isinstance(expected, type):
        with pytest.raises(expected):
            fn(T)
        return
    assert _plain(fn(T)) == expected


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_symgrad(name, fn, expected):
    _check(symgrad, fn, expected)


# (name, f(T, *inputs), inputs, incoming gradient, expected gradients, node name)
_INDEX = [0, 1, 0, 1, 2]
_SRC = [5.0, 2.0, 7.0, 0.0, 2.0]


def _reduce(reduce, include_self=True):
    return lambda T, x, s: T.scatter_reduce(
        x, 0, T.tensor(_INDEX), s, reduce, include_self=include_self
    )


GRADIENTS = [
    ("mode", lambda T, x: T.mode(x).values, ([1.0, 1.0, 2.0],), 1.0, [[0, 1, 0]], "ModeBackward0"),
    (
        "nanmedian_all_ties",
        lambda T, x: x.nanmedian(),
        ([2.0, NAN, 2.0, 1.0, 5.0],),
        1.0,
        [[0.5, 0, 0.5, 0, 0]],
        "NanmedianBackward0",
    ),
    (
        "nanmedian_all_nan",
        lambda T, x: x.nanmedian(),
        ([NAN, NAN],),
        1.0,
        [[0.5, 0.5]],
        "NanmedianBackward0",
    ),
    (
        "nanmedian_dim",
        lambda T, x: x.nanmedian(0).values,
        ([3.0, NAN, 1.0, 2.0],),
        1.0,
        [[0, 0, 0, 1]],
        "NanmedianBackward1",
    ),
    (
        "logcumsumexp_neg_inf",
        lambda T, x: T.logcumsumexp(x, 0),
        ([1.0, -INF, 2.0],),
        [1.0, 1.0, 1.0],
        [[2.2689414213699952, 0.0, 0.7310585786300048]],
        "LogcumsumexpBackward0",
    ),
    (
        "logcumsumexp_leading_neg_inf",
        lambda T, x: T.logcumsumexp(x, 0),
        ([-INF, -INF, 2.0],),
        [1.0, 1.0, 1.0],
        [["nan", "nan", 1.0]],
        "LogcumsumexpBackward0",
    ),
    (
        "logcumsumexp_far_apart",
        lambda T, x: T.logcumsumexp(x, 0),
        ([1000.0, 1000.0, -1000.0],),
        [1.0, 1.0, 1.0],
        [[2.0, 1.0, 0.0]],
        "LogcumsumexpBackward0",
    ),
    (
        "sum",
        _reduce("sum"),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[1, 2, 3, 4], [1, 2, 1, 2, 3]],
        "ScatterReduceBackward0",
    ),
    (
        "sum_exclude",
        _reduce("sum", False),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[0, 0, 0, 4], [1, 2, 1, 2, 3]],
        "ScatterReduceBackward0",
    ),
    # exact where factors are zero: src[3] is 0, so the other factors of place 1 get 0
    (
        "prod",
        _reduce("prod"),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[35, 0, 6, 4], [7, 0, 5, 8, 9]],
        "ScatterReduceBackward0",
    ),
    (
        "prod_exclude",
        _reduce("prod", False),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[0, 0, 0, 4], [7, 0, 5, 4, 3]],
        "ScatterReduceBackward0",
    ),
    (
        "mean",
        _reduce("mean"),
        ([1.0, 2.0, 3.0, 6.0], _SRC),
        [3.0, 6.0, 3.0, 4.0],
        [[1, 2, 1.5, 4], [1, 2, 1, 2, 1.5]],
        "ScatterReduceBackward0",
    ),
    (
        "mean_exclude",
        _reduce("mean", False),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[0, 0, 0, 4], [0.5, 1, 0.5, 1, 3]],
        "ScatterReduceBackward0",
    ),
    (
        "amax",
        _reduce("amax"),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[0, 1, 3, 4], [0, 1, 1, 0, 0]],
        "ScatterReduceBackward0",
    ),
    (
        "amin_exclude",
        _reduce("amin", False),
        ([1.0, 2.0, 3.0, 4.0], _SRC),
        [1.0, 2.0, 3.0, 4.0],
        [[0, 0, 0, 4], [1, 0, 0, 2, 3]],
        "ScatterReduceBackward0",
    ),
    # ties of amax split the gradient evenly: place 0 has input 3 and two 3s of src
    (
        "amax_ties",
        lambda T, x, s: x.scatter_reduce(0, T.tensor([0, 0, 1, 2]), s, "amax"),
        ([3.0, 1.0, 0.0], [3.0, 3.0, 1.0, 1.0]),
        [1.0, 1.0, 1.0],
        [[1 / 3, 0.5, 0], [1 / 3, 1 / 3, 0.5, 1]],
        "ScatterReduceBackward0",
    ),
    # without include_self PyTorch still counts input's entry among the ties
    (
        "amax_ties_exclude",
        lambda T, x, s: x.scatter_reduce(0, T.tensor([0, 0]), s, "amax", include_self=False),
        ([5.0, 0.0], [5.0, 1.0]),
        [1.0, 1.0],
        [[0, 1], [0.5, 0]],
        "ScatterReduceBackward0",
    ),
    (
        "index_put",
        lambda T, x, v: T.index_put(x, (T.tensor([0, 2, 0]), T.tensor([1, 3, 1])), v),
        (np.zeros((3, 4)), [1.0, 2.0, 3.0]),
        np.arange(12.0).reshape(3, 4),
        [[[0, 0, 2, 3], [4, 5, 6, 7], [8, 9, 10, 0]], [1, 11, 1]],
        "IndexPutBackward0",
    ),
    (
        "index_put_accumulate",
        lambda T, x, v: x.index_put((T.tensor([0, 2, 0]), T.tensor([1, 3, 1])), v, accumulate=True),
        (np.zeros((3, 4)), [1.0, 2.0, 3.0]),
        np.arange(12.0).reshape(3, 4),
        [np.arange(12.0).reshape(3, 4).tolist(), [1, 11, 1]],
        "IndexPutBackward0",
    ),
    (
        "index_put_broadcast",
        lambda T, x, v: x.index_put((T.tensor([[True, False], [True, True]]),), v, accumulate=True),
        (np.zeros((2, 2)), 3.0),
        [[1.0, 2.0], [3.0, 4.0]],
        [[[1, 2], [3, 4]], 8],
        "IndexPutBackward0",
    ),
]


def _gradients(T, fn, inputs, incoming):
    xs = [T.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in inputs]
    out = fn(T, *xs)
    grads = T.autograd.grad(out, xs, T.tensor(np.asarray(incoming, dtype=np.float64)))
    return [_plain(g) for g in grads], out.grad_fn.name()


def _close(found, expected) -> bool:
    if isinstance(expected, list):
        return len(found) == len(expected) and all(_close(f, e) for f, e in zip(found, expected))
    if expected == "nan":
        return found == "nan"
    return found != "nan" and math.isclose(found, expected, rel_tol=1e-12, abs_tol=1e-14)


@pytest.mark.parametrize("name,fn,inputs,g,expected,node", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_gradients(name, fn, inputs, g, expected, node):
    grads, found = _gradients(symgrad, fn, inputs, g)
    assert _close(grads, expected), grads
    assert found == node


# -- the same tables against PyTorch ------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_pytorch_agrees(name, fn, expected):
    torch = pytest.importorskip("torch")
    _check(torch, fn, expected)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,inputs,g,expected,node", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_pytorch_gradients_agree(name, fn, inputs, g, expected, node):
    torch = pytest.importorskip("torch")
    grads, found = _gradients(torch, fn, inputs, g)
    assert _close(grads, expected), grads
    assert found == node

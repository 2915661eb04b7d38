"""Tensor methods PyTorch programs call on occasion: ``index_reduce``, ``resize_`` and the
deprecated ``resize``, the legacy ``new``, ``nonzero_static``, ``map2_``, ``as_subclass``,
``dim_order`` and the storage, layout and dtype queries.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_table import run as _run

import symgrad


def _reduce(T, reduce, include_self, dim=0):
    """index_reduce's result and both gradients for an incoming gradient 1, 2, 3, ..."""
    x = T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    source = T.tensor([[2.0, 3.0], [4.0, 0.0], [1.0, 7.0], [2.0, 2.0]], requires_grad=True)
    out = x.index_reduce(dim, T.tensor([0, 2, 0, 0]), source, reduce, include_self=include_self)
    out.backward(T.arange(1.0, 7.0).reshape(3, 2))
    return out, x.grad, source.grad


def _in_place_reduce(T):
    y = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
    source = T.tensor([[5.0, 1.0]], requires_grad=True)
    before = y._version
    y.index_reduce_(0, T.tensor([1]), source, "amax")
    y.sum().backward()
    return y, y._version - before, source.grad


def _resized(T, make, *sizes):
    """``make(T)`` resized in place: the tensor, its strides and how its version moved."""
    t = make(T)
    before = t._version
    t.resize_(*sizes)
    return t, t.stride(), t._version - before


def _view_resize(T, start, stop, n):
    """A slice resized in place, then written: the slice and the tensor it was cut from."""
    base = T.arange(6.0)
    view = base[start:stop]
    view.resize_(n)
    view[0] = -1.0
    return view, base


def _resize_grad(T):
    x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x.resize(2, 2)
    (y * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return y, x.grad


def _resize_shares(T):
    a = T.arange(4.0)
    b = a.resize(2, 2)
    b[0, 0] = 9.0
    return a, b._base is a


def _subclass(T, requires_grad):
    class Marked(T.Tensor):
        pass

    y = T.ones(2, requires_grad=requires_grad).as_subclass(Marked)
    node = y.grad_fn
    return type(y).__name__, y.requires_grad, None if node is None else type(node).__name__


def _map2(T):
    t = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    before = t._version
    t.map2_(T.tensor([10.0, 20.0]), T.tensor([[1.0], [2.0]]), lambda v, a, b: v + a * b)
    return t, t._version - before


def _shared(T):
    x = T.arange(4.0)
    view = x[1:]
    view.share_memory_()
    return x.is_shared(), view.is_shared(), x.detach().is_shared(), x.clone().is_shared()


def _T_of_few_dims(T, shape):
    """``x.T`` below two dimensions: a view of ``x`` through PermuteBackward0, not ``x``."""
    x = T.ones(shape, requires_grad=True)
    y = x.T
    y.sum().backward()
    return y is x, y._base is x, type(y.grad_fn).__name__, x.grad.tolist()


def _order(T, shape, perm, **kw):
    return T.empty(shape).permute(perm).dim_order(**kw)


F32, I64 = "float32", "int64"
CASES = {
    "T_of_0d": (lambda T: _T_of_few_dims(T, ()), (False, True, "PermuteBackward0", 1.0)),
    "T_of_1d": (lambda T: _T_of_few_dims(T, (2,)), (False, True, "PermuteBackward0", (1.0, 1.0))),
    # -- index_reduce: values, node, gradients
    "prod_self": (
        lambda T: _reduce(T, "prod", True),
        (
            ([[4.0, 84.0], [3.0, 4.0], [20.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[4.0, 84.0], [3.0, 4.0], [20.0, 0.0]], "float32", None),
            ([[2.0, 56.0], [25.0, 36.0], [4.0, 24.0], [2.0, 84.0]], "float32", None),
        ),
    ),
    "prod_no_self": (
        lambda T: _reduce(T, "prod", False),
        (
            ([[4.0, 42.0], [3.0, 4.0], [4.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], "float32", None),
            ([[2.0, 28.0], [5.0, 6.0], [4.0, 12.0], [2.0, 42.0]], "float32", None),
        ),
    ),
    "mean_self": (
        lambda T: _reduce(T, "mean", True),
        (
            ([[1.5, 3.5], [3.0, 4.0], [4.5, 3.0]], "float32", "IndexReduceBackward0"),
            ([[0.25, 0.5], [3.0, 4.0], [2.5, 3.0]], "float32", None),
            ([[0.25, 0.5], [2.5, 3.0], [0.25, 0.5], [0.25, 0.5]], "float32", None),
        ),
    ),
    "mean_no_self": (
        lambda T: _reduce(T, "mean", False),
        (
            ([[1.6667, 4.0], [3.0, 4.0], [4.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], "float32", None),
            ([[0.3333, 0.6667], [5.0, 6.0], [0.3333, 0.6667], [0.3333, 0.6667]], "float32", None),
        ),
    ),
    "amax_self": (
        lambda T: _reduce(T, "amax", True),
        (
            ([[2.0, 7.0], [3.0, 4.0], [5.0, 6.0]], "float32", "IndexReduceBackward0"),
            ([[0.0, 0.0], [3.0, 4.0], [5.0, 6.0]], "float32", None),
            ([[0.5, 0.0], [0.0, 0.0], [0.0, 2.0], [0.5, 0.0]], "float32", None),
        ),
    ),
    "amax_no_self": (
        lambda T: _reduce(T, "amax", False),
        (
            ([[2.0, 7.0], [3.0, 4.0], [4.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], "float32", None),
            ([[0.5, 0.0], [5.0, 6.0], [0.0, 2.0], [0.5, 0.0]], "float32", None),
        ),
    ),
    "amin_self": (
        lambda T: _reduce(T, "amin", True),
        (
            ([[1.0, 2.0], [3.0, 4.0], [4.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[0.5, 1.0], [3.0, 4.0], [0.0, 0.0]], "float32", None),
            ([[0.0, 0.0], [5.0, 6.0], [0.5, 0.0], [0.0, 1.0]], "float32", None),
        ),
    ),
    "amin_no_self": (
        lambda T: _reduce(T, "amin", False),
        (
            ([[1.0, 2.0], [3.0, 4.0], [4.0, 0.0]], "float32", "IndexReduceBackward0"),
            ([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], "float32", None),
            ([[0.0, 0.0], [5.0, 6.0], [0.5, 0.0], [0.0, 1.0]], "float32", None),
        ),
    ),
    "sum_refused": (lambda T: _reduce(T, "sum", True), ("raises", "RuntimeError")),
    "max_refused": (lambda T: _reduce(T, "max", True), ("raises", "RuntimeError")),
    "along_dim1": (
        lambda T: T.ones(2, 3).index_reduce(
            1, T.tensor([2, 0, 2]), T.tensor([[1.0, 2, 3], [4, 5, 6]]), "amax", include_self=False
        ),
        ([[2.0, 1.0, 3.0], [5.0, 1.0, 6.0]], "float32", None),
    ),
    "int_mean_floors": (
        lambda T: T.tensor([1, 2, 3]).index_reduce(0, T.tensor([0, 0]), T.tensor([4, 5]), "mean"),
        ([3, 2, 3], "int64", None),
    ),
    "int32_index": (
        lambda T: T.tensor([5.0, 1.0]).index_reduce(
            0, T.tensor([1, 1], dtype=T.int32), T.tensor([2.0, 3.0]), "prod"
        ),
        ([5.0, 6.0], "float32", None),
    ),
    "zero_dim": (
        lambda T: T.tensor(5.0).index_reduce(0, T.tensor([0]), T.tensor(2.0), "prod"),
        (10.0, "float32", None),
    ),
    "empty_index": (
        lambda T: T.tensor([5.0, 1.0]).index_reduce(
            0, T.tensor([], dtype=T.int64), T.tensor([]), "prod"
        ),
        ([5.0, 1.0], "float32", None),
    ),
    "nan_amax": (
        lambda T: T.tensor([5.0, 1.0]).index_reduce(
            0, T.tensor([0, 1]), T.tensor([math.nan, 1.0]), "amax"
        ),
        (["nan", 1.0], "float32", None),
    ),
    "top_level": (
        lambda T: T.index_reduce(
            T.tensor([[5.0, 1.0]]), 0, T.tensor([0]), T.tensor([[7.0, 0.0]]), "amin"
        ),
        ([[5.0, 0.0]], "float32", None),
    ),
    "in_place": (
        _in_place_reduce,
        (
            ([[1.0, 2.0], [5.0, 4.0]], "float32", "IndexReduceBackward0"),
            1,
            ([[1.0, 0.0]], "float32", None),
        ),
    ),
    "in_place_leaf": (
        lambda T: T.ones(2, requires_grad=True).index_reduce_(0, T.tensor([0]), T.ones(1), "prod"),
        ("raises", "RuntimeError"),
    ),
    "dtype_mismatch": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([0]), T.ones(1, dtype=T.float64), "prod"),
        ("raises", "RuntimeError"),
    ),
    "index_out_of_range": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([2]), T.ones(1), "prod"),
        ("raises", "IndexError"),
    ),
    "negative_index": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([-1]), T.ones(1), "prod"),
        ("raises", "IndexError"),
    ),
    "float_index": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([0.0]), T.ones(1), "prod"),
        ("raises", "RuntimeError"),
    ),
    "matrix_index": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([[0]]), T.ones(1), "prod"),
        ("raises", "IndexError"),
    ),
    "count_mismatch": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([0, 1]), T.ones(1), "prod"),
        ("raises", "RuntimeError"),
    ),
    "shape_mismatch": (
        lambda T: T.ones(1, 2).index_reduce(0, T.tensor([0]), T.ones(1, 3), "prod"),
        ("raises", "RuntimeError"),
    ),
    "bad_dim": (
        lambda T: T.ones(2).index_reduce(1, T.tensor([0]), T.ones(1), "prod"),
        ("raises", "IndexError"),
    ),
    "bool_input": (
        lambda T: T.tensor([True]).index_reduce(0, T.tensor([0]), T.tensor([False]), "amax"),
        ("raises", "NotImplementedError"),
    ),
    "number_source": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([0]), 3.0, "prod"),
        ("raises", "TypeError"),
    ),
    "int_include_self": (
        lambda T: T.ones(2).index_reduce(0, T.tensor([0]), T.ones(1), "prod", include_self=1),
        ("raises", "TypeError"),
    ),
    # -- resize_: memory order, views, growth, versions
    "resize_shrink": (
        lambda T: _resized(T, lambda T: T.arange(6.0), 2, 2),
        (([[0.0, 1.0], [2.0, 3.0]], "float32", None), (2, 1), 1),
    ),
    "resize_same_shape": (
        lambda T: _resized(T, lambda T: T.arange(6.0), 6),
        (([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None), (1,), 0),
    ),
    "resize_grow": (
        lambda T: (lambda t: (t.shape, t.stride(), t[:3]))(T.arange(3.0).resize_(5)),
        ((5,), (1,), ([0.0, 1.0, 2.0], "float32", None)),
    ),
    "resize_tuple": (
        lambda T: _resized(T, lambda T: T.arange(3.0), (3, 1)),
        (([[0.0], [1.0], [2.0]], "float32", None), (1, 1), 1),
    ),
    "resize_transposed_same": (
        lambda T: _resized(T, lambda T: T.arange(6.0).reshape(2, 3).t(), 3, 2),
        (([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], "float32", None), (1, 3), 0),
    ),
    "resize_transposed_memory_order": (
        lambda T: _resized(T, lambda T: T.arange(6.0).reshape(2, 3).t(), 2, 2),
        (([[0.0, 1.0], [2.0, 3.0]], "float32", None), (2, 1), 1),
    ),
    "resize_expanded": (
        lambda T: _resized(T, lambda T: T.arange(3.0).expand(2, 3), 4),
        (([0.0, 1.0, 2.0, 0.0], "float32", None), (1,), 1),
    ),
    "resize_channels_last": (
        lambda T: _resized(T, lambda T: T.arange(24.0), 1, 2, 3, 4, memory_format=T.channels_last)[
            1:
        ],
        ("raises", "TypeError"),
    ),
    "resize_channels_last_rank": (
        lambda T: T.arange(6.0).resize_(3, 2, memory_format=T.channels_last),
        ("raises", "RuntimeError"),
    ),
    "resize_zero_dim": (lambda T: T.arange(6.0).resize_(()), (0.0, "float32", None)),
    "resize_view_fits": (
        lambda T: _view_resize(T, 0, 3, 5),
        (
            ([-1.0, 1.0, 2.0, 3.0, 4.0], "float32", None),
            ([-1.0, 1.0, 2.0, 3.0, 4.0, 5.0], "float32", None),
        ),
    ),
    "resize_view_offset": (
        lambda T: _view_resize(T, 2, 4, 3),
        (([-1.0, 3.0, 4.0], "float32", None), ([0.0, 1.0, -1.0, 3.0, 4.0, 5.0], "float32", None)),
    ),
    "resize_view_grows": (
        lambda T: _view_resize(T, 4, 6, 3)[0][:2],
        ([-1.0, 5.0], "float32", None),
    ),
    "resize_requires_grad": (
        lambda T: T.ones(2, requires_grad=True).resize_(1),
        ("raises", "RuntimeError"),
    ),
    "resize_non_leaf": (
        lambda T: (T.ones(2, requires_grad=True) * 1).resize_(2),
        ("raises", "RuntimeError"),
    ),
    "resize_negative": (lambda T: T.ones(2).resize_(-1), ("raises", "RuntimeError")),
    "resize_float_size": (lambda T: T.ones(2).resize_(2.0), ("raises", "TypeError")),
    "resize_no_size": (lambda T: T.ones(2).resize_(), ("raises", "TypeError")),
    "resize_as_": (
        lambda T: T.arange(6.0).resize_as_(T.zeros(2, 2, dtype=T.int64)),
        ([[0.0, 1.0], [2.0, 3.0]], "float32", None),
    ),
    "resize_as_top_level": (
        lambda T: T.resize_as_(T.arange(6.0), T.zeros(3, 1)),
        ([[0.0], [1.0], [2.0]], "float32", None),
    ),
    "resize_as_contiguous": (
        lambda T: T.arange(6.0).resize_as_(T.zeros(2, 3).t()).stride(),
        (2, 1),
    ),
    "resize_as_not_tensor": (lambda T: T.arange(6.0).resize_as_([1, 2]), ("raises", "TypeError")),
    # -- the deprecated out-of-place resize
    "resize_gradient": (
        _resize_grad,
        (
            ([[1.0, 2.0], [3.0, 4.0]], "float32", "ResizeBackward"),
            ([1.0, 2.0, 3.0, 4.0], "float32", None),
        ),
    ),
    "resize_shares_memory": (_resize_shares, (([9.0, 1.0, 2.0, 3.0], "float32", None), True)),
    "resize_transposed_copies": (
        lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).t().resize(4),
        ([1.0, 3.0, 2.0, 4.0], "float32", "ResizeBackward"),
    ),
    "resize_count_differs": (lambda T: T.arange(6.0).resize(2, 2), ("raises", "RuntimeError")),
    "resize_as_method": (
        lambda T: T.ones(3, requires_grad=True).resize_as(T.zeros(1, 3)),
        ([[1.0, 1.0, 1.0]], "float32", "ResizeBackward"),
    ),
    "resize_as_count_differs": (
        lambda T: T.ones(3).resize_as(T.zeros(2, 2)),
        ("raises", "RuntimeError"),
    ),
    # -- new: the legacy constructor
    "new_sizes": (lambda T: T.tensor([1, 2]).new(2, 3).shape, (2, 3)),
    "new_dtype": (lambda T: str(T.tensor([1, 2]).new(2).dtype).rsplit(".")[-1], "int64"),
    "new_size_object": (lambda T: T.ones(1).new(T.Size([2, 1])).shape, (2, 1)),
    "new_list": (lambda T: T.tensor([1, 2]).new([1.5, 2.5]), ([1, 2], "int64", None)),
    "new_tuple_is_data": (lambda T: T.ones(1).new((2, 3)), ([2.0, 3.0], "float32", None)),
    "new_nested": (
        lambda T: T.ones(1).new([[1, 2], [3, 4]]),
        ([[1.0, 2.0], [3.0, 4.0]], "float32", None),
    ),
    "new_empty": (lambda T: T.ones(1, dtype=T.float64).new(), ([], "float64", None)),
    "new_numpy": (lambda T: T.ones(1).new(np.array([1, 2])), ([1.0, 2.0], "float32", None)),
    "new_alias": (
        lambda T: T.ones(2, requires_grad=True).new(T.ones(2, requires_grad=True)),
        ([1.0, 1.0], "float32", "AliasBackward0"),
    ),
    "new_other_dtype": (lambda T: T.ones(2).new(T.tensor([1, 2])), ("raises", "TypeError")),
    "new_float": (lambda T: T.ones(2).new(2.0), ("raises", "TypeError")),
    "new_bool": (lambda T: T.ones(2).new(True), ("raises", "TypeError")),
    "new_str": (lambda T: T.ones(2).new("a"), ("raises", "TypeError")),
    "new_negative": (lambda T: T.ones(2).new(-1), ("raises", "RuntimeError")),
    "new_mixed": (lambda T: T.ones(2).new(2, [3]), ("raises", "TypeError")),
    "new_dtype_keyword": (lambda T: T.ones(2).new([1], dtype=T.float64), ("raises", "TypeError")),
    # -- nonzero_static
    "nonzero_static_pads": (
        lambda T: T.nonzero_static(T.tensor([[0.0, 1.0], [2.0, 0.0]]), size=3),
        ([[0, 1], [1, 0], [-1, -1]], "int64", None),
    ),
    "nonzero_static_cuts": (
        lambda T: T.tensor([1, 0, 3]).nonzero_static(size=1),
        ([[0]], "int64", None),
    ),
    "nonzero_static_fill": (
        lambda T: T.tensor([True, False]).nonzero_static(size=2, fill_value=7),
        ([[0], [7]], "int64", None),
    ),
    "nonzero_static_none": (lambda T: T.tensor([1, 0]).nonzero_static(size=0).shape, (0, 1)),
    "nonzero_static_zero_dim": (lambda T: T.nonzero_static(T.tensor(3.0), size=2).shape, (2, 0)),
    "nonzero_static_nan": (
        lambda T: T.nonzero_static(T.tensor([math.nan, 0.0]), size=2),
        ([[0], [-1]], "int64", None),
    ),
    "nonzero_static_negative": (
        lambda T: T.nonzero_static(T.ones(2), size=-1),
        ("raises", "RuntimeError"),
    ),
    "nonzero_static_float_size": (
        lambda T: T.nonzero_static(T.ones(2), size=2.0),
        ("raises", "TypeError"),
    ),
    "nonzero_static_bool_fill": (
        lambda T: T.nonzero_static(T.ones(2), size=2, fill_value=True),
        ("raises", "TypeError"),
    ),
    "nonzero_static_positional": (lambda T: T.ones(2).nonzero_static(2), ("raises", "TypeError")),
    "nonzero_static_list": (lambda T: T.nonzero_static([1, 0], size=1), ("raises", "TypeError")),
    # -- map2_, as_subclass
    "map2_": (_map2, (([[11.0, 22.0], [23.0, 44.0]], "float32", None), 0)),
    "map2_requires_grad": (
        lambda T: T.ones(2).map2_(T.ones(2), T.ones(2, requires_grad=True), lambda v, a, b: v),
        ("raises", "RuntimeError"),
    ),
    "map2_dtype": (
        lambda T: T.ones(2).map2_(T.ones(2), T.tensor([1, 2]), lambda v, a, b: v),
        ("raises", "TypeError"),
    ),
    "map2_number": (
        lambda T: T.ones(2).map2_(T.ones(2), 2, lambda v, a, b: v),
        ("raises", "TypeError"),
    ),
    "map2_not_a_number": (
        lambda T: T.ones(2).map2_(T.ones(2), T.ones(2), lambda v, a, b: "x"),
        ("raises", "TypeError"),
    ),
    "map2_no_broadcast": (
        lambda T: T.ones(2).map2_(T.ones(2, 2), T.ones(2), lambda v, a, b: v),
        ("raises", "RuntimeError"),
    ),
    "as_subclass_grad": (lambda T: _subclass(T, True), ("Marked", True, "AliasBackward0")),
    "as_subclass_plain": (lambda T: _subclass(T, False), ("Marked", False, None)),
    "as_subclass_tensor": (
        lambda T: T.ones(2, requires_grad=True).as_subclass(T.Tensor),
        ([1.0, 1.0], "float32", "AliasBackward0"),
    ),
    "as_subclass_not_tensor": (lambda T: T.ones(2).as_subclass(int), ("raises", "TypeError")),
    # -- storage, layout and dtype queries
    "flags": (
        lambda T: [
            getattr(T.ones(2), name)
            for name in (
                "is_sparse",
                "is_sparse_csr",
                "is_quantized",
                "is_mkldnn",
                "is_nested",
                "is_xpu",
                "is_mps",
                "is_vulkan",
                "is_ipu",
                "is_maia",
                "is_mtia",
                "is_xla",
            )
        ],
        (False, False, False, False, False, False, False, False, False, False, False, False),
    ),  # fmt: skip
    "is_distributed": (lambda T: T.ones(2).is_distributed(), False),
    "pin_memory": (lambda T: T.ones(2).pin_memory(), ("raises", "RuntimeError")),
    "is_pinned": (lambda T: T.ones(2).is_pinned(), False),
    "shared": (_shared, (True, True, True, False)),
    "not_shared": (lambda T: T.ones(2).is_shared(), False),
    "share_memory_": (
        lambda T: T.ones(2, requires_grad=True).share_memory_(),
        ([1.0, 1.0], "float32", None),
    ),
    "record_stream": (lambda T: T.ones(2).record_stream(None), ("raises", "RuntimeError")),
    "is_set_to": (
        lambda T: (
            lambda x: (
                x.is_set_to(x),
                x.is_set_to(x.detach()),
                x.is_set_to(x[:]),
                x.is_set_to(x.view(1, 3)),
                x.is_set_to(x.clone()),
            )
        )(T.ones(3)),
        (True, True, True, False, False),
    ),  # fmt: skip
    "is_set_to_number": (lambda T: T.ones(3).is_set_to(3), ("raises", "TypeError")),
    "const_data_ptr": (lambda T: (lambda x: x.const_data_ptr() == x.data_ptr())(T.ones(2)), True),
    "volatile": (lambda T: T.ones(2).volatile, False),
    "reinforce": (lambda T: T.ones(2).reinforce(1.0), ("raises", "RuntimeError")),
    "to_dense": (lambda T: (lambda x: x.to_dense() is x)(T.ones(2)), True),
    "to_dense_dtype": (
        lambda T: T.ones(2, requires_grad=True).to_dense(T.float64),
        ([1.0, 1.0], "float64", "ToCopyBackward0"),
    ),
    "to_dense_bad_dtype": (lambda T: T.ones(2).to_dense(2), ("raises", "TypeError")),
    "sparse_dims": (lambda T: (T.ones(2, 3).sparse_dim(), T.ones(2, 3).dense_dim()), (0, 2)),
    "coalesce": (lambda T: T.ones(2).coalesce(), ("raises", "RuntimeError")),
    "is_coalesced": (lambda T: T.ones(2).is_coalesced(), ("raises", "RuntimeError")),
    "order_reversed": (lambda T: _order(T, (2, 3, 4), (2, 1, 0)), (2, 1, 0)),
    "order_swapped": (lambda T: _order(T, (2, 3, 4), (1, 0, 2)), (1, 0, 2)),
    "order_singletons": (lambda T: _order(T, (3, 1, 4), (0, 1, 2)), (0, 1, 2)),
    "order_all_singletons": (lambda T: _order(T, (4, 1, 1), (1, 2, 0)), (0, 1, 2)),
    "order_channels_last": (lambda T: _order(T, (2, 3, 4, 5), (0, 2, 3, 1)), (0, 3, 1, 2)),
    "order_mixed": (lambda T: _order(T, (2, 3, 1, 4), (3, 2, 0, 1)), (2, 3, 1, 0)),
    "order_expanded": (lambda T: T.empty(1, 4).expand(3, 4).t().dim_order(), (0, 1)),
    "order_zero_dim": (lambda T: T.ones(()).dim_order(), ()),
    "order_check": (
        lambda T: (
            T.empty(2, 3, 4, 5)
            .contiguous(memory_format=T.channels_last)
            .dim_order(ambiguity_check=True)
        ),
        (0, 2, 3, 1),
    ),
    "order_check_singleton": (
        lambda T: T.empty(2, 3, 1, 1).dim_order(ambiguity_check=True),
        ("raises", "RuntimeError"),
    ),
    "order_check_formats": (
        lambda T: T.empty(2, 3).t().dim_order(ambiguity_check=[T.contiguous_format]),
        (1, 0),
    ),
    "order_check_repeated": (
        lambda T: T.empty(2, 2)[:, :1].dim_order(ambiguity_check=True),
        ("raises", "RuntimeError"),
    ),
    "order_check_sliced": (lambda T: T.empty(3, 3)[:, :2].dim_order(ambiguity_check=True), (0, 1)),
    "order_check_type": (
        lambda T: T.empty(2, 3).dim_order(ambiguity_check=1),
        ("raises", "TypeError"),
    ),
    "order_check_list_type": (
        lambda T: T.empty(2, 3).dim_order(ambiguity_check=[1]),
        ("raises", "TypeError"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert _run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert _run(torch, fn) == expected


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients_match_finite_differences(reduce, include_self):
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.normal(size=(3, 2)), requires_grad=True)
    source = symgrad.tensor(rng.normal(size=(4, 2)), requires_grad=True)
    index = symgrad.tensor([0, 2, 0, 1])

    def f(x, source):
        return x.index_reduce(0, index, source, reduce, include_self=include_self)

    assert symgrad.autograd.gradcheck(f, (x, source))


def test_index_reduce_prod_gradient_is_exact_at_zeros():
    x = symgrad.tensor([2.0, 3.0], requires_grad=True)
    source = symgrad.tensor([0.0, 5.0, 4.0], requires_grad=True)
    out = x.index_reduce(0, symgrad.tensor([0, 0, 1]), source, "prod")
    out.sum().backward()
    assert out.tolist() == [0.0, 12.0]
    assert x.grad.tolist() == [0.0, 4.0]
    assert source.grad.tolist() == [10.0, 0.0, 3.0]


def test_resize_grows_with_zeros_and_keeps_a_shrunk_tensors_memory():
    x = symgrad.arange(6.0)
    x.resize_(2, 2)
    assert x.resize_(7).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]


def test_resize_warns_deprecated():
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        symgrad.ones(4).resize(2, 2)
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        symgrad.ones(4).resize_as(symgrad.ones(2, 2))


def test_create_graph_through_index_reduce_and_resize():
    x = symgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning, match="deprecated"):
        rows = x.resize(2, 2)
    y = rows.index_reduce(0, symgrad.tensor([0]), (x * x).reshape(1, 4)[:, :2], "mean")
    (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = symgrad.autograd.grad(g.sum(), x)
    # y[0] = (x[:2] + x[:2]**2) / 2, y[1] = x[2:]: dy/dx = 1/2 + x on the first two
    assert g.tolist() == [1.5, 2.5, 1.0, 1.0]
    assert h.tolist() == [1.0, 1.0, 0.0, 0.0]

"""Edge semantics of tensor ops found by running the same programs under PyTorch and symgrad:
dtype rules of the writing ops, indexing keys, and more.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

F32 = "float32"
RUNTIME = ("raises", "RuntimeError")


def _ones(T):
    return T.ones(2, 3)


def _index(T):
    return T.tensor([[2, 0]])


CASES = {
    # -- writing ops need the source in self's dtype: PyTorch raises rather than converting
    "scatter_int_src": (lambda T: _ones(T).scatter(1, _index(T), T.tensor([[1, 2]])), RUNTIME),
    "scatter_in_place_double_src": (
        lambda T: _ones(T).scatter_(1, _index(T), T.tensor([[1.0, 2.0]], dtype=T.float64)),
        RUNTIME,
    ),
    "scatter_add_int_src": (
        lambda T: _ones(T).scatter_add(1, _index(T), T.tensor([[1, 2]])),
        RUNTIME,
    ),
    "scatter_add_in_place_int_src": (
        lambda T: _ones(T).scatter_add_(1, _index(T), T.tensor([[1, 2]])),
        RUNTIME,
    ),
    "scatter_reduce_add_int_src": (
        lambda T: _ones(T).scatter(1, _index(T), T.tensor([[1, 2]]), reduce="add"),
        RUNTIME,
    ),
    "scatter_same_dtype": (
        lambda T: _ones(T).scatter(1, _index(T), T.tensor([[5.0, 7.0]])),
        ([[7.0, 1.0, 5.0], [1.0, 1.0, 1.0]], F32, None),
    ),
    "scatter_value_int": (
        lambda T: _ones(T).scatter(1, _index(T), 4),
        ([[4.0, 1.0, 4.0], [1.0, 1.0, 1.0]], F32, None),
    ),
    "index_add_int_source": (
        lambda T: T.ones(3).index_add(0, T.tensor([0]), T.tensor([1])),
        RUNTIME,
    ),
    "index_add_in_place_double_source": (
        lambda T: T.ones(3).index_add_(0, T.tensor([0]), T.tensor([1.0], dtype=T.float64)),
        RUNTIME,
    ),
    "index_copy_int_source": (
        lambda T: T.ones(3, dtype=T.int32).index_copy(0, T.tensor([0]), T.tensor([5])),
        RUNTIME,
    ),
    "index_copy_same_dtype": (
        lambda T: T.ones(3, dtype=T.int32).index_copy(
            0, T.tensor([2]), T.tensor([5], dtype=T.int32)
        ),
        ([1, 1, 5], "int32", None),
    ),
    "masked_scatter_int_source": (
        lambda T: T.ones(3).masked_scatter(T.tensor([True, False, False]), T.tensor([4])),
        RUNTIME,
    ),
    "masked_scatter_in_place_double_source": (
        lambda T: T.ones(3).masked_scatter_(
            T.tensor([True, False, True]), T.tensor([4.0, 5.0], dtype=T.float64)
        ),
        RUNTIME,
    ),
    "put_int_source": (lambda T: T.ones(3).put(T.tensor([0]), T.tensor([4])), RUNTIME),
    "put_accumulate_double_source": (
        lambda T: T.ones(3).put_(T.tensor([0]), T.tensor([4.0], dtype=T.float64), accumulate=True),
        RUNTIME,
    ),
    "put_same_dtype": (
        lambda T: T.ones(3).put_(T.tensor([0, 0]), T.tensor([4.0, 5.0]), accumulate=True),
        ([10.0, 1.0, 1.0], F32, None),
    ),
    # -- arange with an integer dtype: narrower types wrap, float bounds are truncated
    "arange_int8_wraps": (
        lambda T: T.arange(0, 300, 100, dtype=T.int8),
        ([0, 100, -56], "int8", None),
    ),
    "arange_uint8_from_negative": (
        lambda T: T.arange(-2, 1, dtype=T.uint8),
        ([254, 255, 0], "uint8", None),
    ),
    "arange_int64_float_bounds": (
        lambda T: T.arange(-3.5, 2.2, 1.3, dtype=T.int64),
        ([-3, -2, -1, 0, 1], "int64", None),
    ),
    "arange_int64_float_step_truncates_to_zero": (
        lambda T: T.arange(0, 2, 0.5, dtype=T.int64),
        ("raises", "ValueError"),
    ),
    "arange_int32_float_bounds": (
        lambda T: T.arange(0.5, 5.5, 1.5, dtype=T.int32),
        ([0, 1, 2, 3], "int32", None),
    ),
    "arange_int16_descending": (
        lambda T: T.arange(3.5, 0.5, -1.2, dtype=T.int16),
        ([3, 2, 1], "int16", None),
    ),
    "arange_bool": (
        lambda T: T.arange(0, 2, dtype=T.bool),
        ("raises", "NotImplementedError"),
    ),
    "eye_negative_n": (lambda T: T.eye(-1), RUNTIME),
    "eye_negative_m": (lambda T: T.eye(2, -1), RUNTIME),
    # -- all and any keep uint8; prod takes one int dim, not a tuple
    "all_uint8": (
        lambda T: T.tensor([[1, 0], [3, 2]], dtype=T.uint8).all(1),
        ([0, 1], "uint8", None),
    ),
    "any_uint8_whole": (
        lambda T: T.tensor([[1, 0], [3, 0]], dtype=T.uint8).any(),
        (1, "uint8", None),
    ),
    "all_uint8_keepdim": (
        lambda T: T.all(T.tensor([[1, 0], [3, 2]], dtype=T.uint8), 0, keepdim=True),
        ([[1, 0]], "uint8", None),
    ),
    "all_int8": (
        lambda T: T.tensor([[1, 0], [3, 2]], dtype=T.int8).all(1),
        ([False, True], "bool", None),
    ),
    "prod_tuple_dim": (
        lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).prod((0, 1)),
        ("raises", "TypeError"),
    ),
    "prod_list_dim": (lambda T: T.tensor([1.0, 2.0]).prod(dim=[0]), ("raises", "TypeError")),
    "prod_int_dim": (
        lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(-1),
        ([2.0, 12.0], F32, None),
    ),
    # -- alpha takes no part in the promotion; integer results wrap around
    "add_alpha_bool_stays_bool": (
        lambda T: T.tensor([True, False, True]).add(T.tensor([False, False, True]), alpha=2),
        ([True, False, True], "bool", None),
    ),
    "add_alpha_bool_in_place": (
        lambda T: T.tensor([True, False]).add_(T.tensor([True, True]), alpha=2),
        ([True, True], "bool", None),
    ),
    "sub_alpha_uint8_wraps": (
        lambda T: T.tensor([3, 0, 2], dtype=T.uint8).sub(
            T.tensor([2, 1, 2], dtype=T.uint8), alpha=2
        ),
        ([255, 254, 254], "uint8", None),
    ),
    "sub_alpha_uint8_number": (
        lambda T: T.sub(T.tensor([1, 2], dtype=T.uint8), 5, alpha=3),
        ([242, 243], "uint8", None),
    ),
    "add_alpha_negative_uint8": (
        lambda T: T.tensor([3, 0], dtype=T.uint8).add(1, alpha=-1),
        ([2, 255], "uint8", None),
    ),
    "add_alpha_int8_wraps": (
        lambda T: T.add(T.tensor([1, 2], dtype=T.int8), T.tensor([100, 2], dtype=T.int8), alpha=3),
        ([45, 8], "int8", None),
    ),
    "add_alpha_int_with_float": (
        lambda T: T.add(T.tensor([1, 2]), T.tensor([0.5, 2.0]), alpha=3),
        ([2.5, 8.0], F32, None),
    ),
    "add_alpha_float_for_ints": (
        lambda T: T.add(T.tensor([1, 2]), T.tensor([1, 2]), alpha=2.5),
        RUNTIME,
    ),
    "add_alpha_shapes_mismatch": (
        lambda T: T.add(T.tensor([1, 2]), T.tensor([1, 2, 3]), alpha=3),
        RUNTIME,
    ),
    # -- Python protocols: **= in place, `in`, reversed()
    "ipow_in_place": (lambda T: _ipow(T, T.tensor([1, 2]), 2), ([1, 4], "int64", None)),
    "ipow_tensor_exponent": (
        lambda T: _ipow(T, T.tensor([1.0, 2.0]), T.tensor([2.0, 3.0])),
        ([1.0, 8.0], F32, None),
    ),
    "ipow_float_into_int": (lambda T: _ipow(T, T.tensor([1, 2]), 0.5), RUNTIME),
    "ipow_records": (
        lambda T: _ipow(T, T.tensor([1.0, 2.0], requires_grad=True) * 1, 2),
        ([1.0, 4.0], F32, "PowBackward0"),
    ),
    "contains": (
        lambda T: tuple(
            v in T.tensor([[1, 2], [3, 4]])
            for v in (T.tensor([1, 2]), T.tensor([1, 3]), 3, 5, 2.0, T.tensor([[1], [3]]))
        ),
        (True, True, True, False, True, True),
    ),
    "contains_zero_dim": (lambda T: 3 in T.tensor(3.0), True),
    "contains_list": (lambda T: [1, 2] in T.tensor([[1, 2], [3, 4]]), RUNTIME),
    "reversed": (
        lambda T: reversed(T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)),
        ([[3.0, 4.0], [1.0, 2.0]], F32, "FlipBackward0"),
    ),
    "reversed_zero_dim": (lambda T: reversed(T.tensor(3)), (3, "int64", None)),
    # -- a float16 operand is widened before a kernel computes on it alone
    "xlogy_float32_float16": (
        lambda T: T.xlogy(T.tensor([3.0, 0.0, -2.0]), T.tensor([2.0, 1.0, 3.0], dtype=T.float16)),
        ([2.0794, 0.0, -2.1972], F32, None),
    ),
    "xlogy_float64_float16": (
        lambda T: T.special.xlogy(
            T.tensor([3.0, 1.0], dtype=T.float64), T.tensor([2.0, 3.0], dtype=T.float16)
        ),
        ([2.0794, 1.0986], "float64", None),
    ),
    "xlog1py_float32_float16": (
        lambda T: T.special.xlog1py(T.tensor([3.0]), T.tensor([2.0], dtype=T.float16)),
        ([3.2958], F32, None),
    ),
    # -- a negative int written into an unsigned tensor wraps once, as PyTorch
    "fill_uint8_minus_one": (
        lambda T: T.zeros(2, dtype=T.uint8).fill_(-1),
        ([255, 255], "uint8", None),
    ),
    "full_uint8_negative": (lambda T: T.full((2,), -255, dtype=T.uint8), ([1, 1], "uint8", None)),
    "full_uint8_too_negative": (lambda T: T.full((2,), -256, dtype=T.uint8), RUNTIME),
    "setitem_uint8_negative": (lambda T: _set(T, 0, -1), ([255, 0], "uint8", None)),
    "setitem_uint8_mask": (
        lambda T: _set(T, T.tensor([False, True]), -2),
        ([0, 254], "uint8", None),
    ),
    "setitem_uint8_slice_too_big": (lambda T: _set(T, slice(0, 1), 256), RUNTIME),
    "masked_fill_uint8_negative": (
        lambda T: T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), -1),
        ([255, 0], "uint8", None),
    ),
    "index_fill_uint8_negative": (
        lambda T: T.zeros(2, dtype=T.uint8).index_fill(0, T.tensor([0]), -1),
        ([255, 0], "uint8", None),
    ),
    "index_fill_uint8_too_big": (
        lambda T: T.zeros(2, dtype=T.uint8).index_fill(0, T.tensor([0]), 256),
        RUNTIME,
    ),
    "scatter_value_uint8_negative": (
        lambda T: T.zeros(2, dtype=T.uint8).scatter(0, T.tensor([1]), -3),
        ([0, 253], "uint8", None),
    ),
    "full_like_uint8_negative": (
        lambda T: T.full_like(T.zeros(2, dtype=T.uint8), -1),
        ([255, 255], "uint8", None),
    ),
    "fill_int8_out_of_range": (lambda T: T.zeros(2, dtype=T.int8).fill_(-129), RUNTIME),
    "fill_uint8_negative_float": (lambda T: T.zeros(2, dtype=T.uint8).fill_(-1.0), RUNTIME),
    # -- out= on scans, selections and comparisons
    "cumsum_out_is_dtype": (
        lambda T: T.cumsum(T.tensor([1.5, 2.5, 0.7]), 0, out=T.empty(0, dtype=T.int64)),
        ([1, 3, 3], "int64", None),
    ),
    "cumprod_out_double": (
        lambda T: T.cumprod(T.tensor([1.5, 2.0]), 0, out=T.empty(0, dtype=T.float64)),
        ([1.5, 3.0], "float64", None),
    ),
    "cumsum_out_other_dtype": (
        lambda T: T.cumsum(T.ones(2), 0, dtype=T.float64, out=T.empty(0)),
        RUNTIME,
    ),
    "cumsum_out_requires_grad": (
        lambda T: T.cumsum(T.ones(2, requires_grad=True), 0, out=T.empty(0)),
        RUNTIME,
    ),
    "sum_out_int_truncates": (
        lambda T: T.sum(T.tensor([[1.5, 2.5], [1.6, 0.7]]), 0, out=T.empty(0, dtype=T.int64)),
        ([2, 2], "int64", None),
    ),
    "gather_out": (
        lambda T: T.gather(T.tensor([1.0, 2.0]), 0, T.tensor([1, 1]), out=T.empty(0)),
        ([2.0, 2.0], F32, None),
    ),
    "gather_out_other_dtype": (
        lambda T: T.gather(T.ones(2), 0, T.tensor([0]), out=T.empty(0, dtype=T.float64)),
        RUNTIME,
    ),
    "index_select_out": (
        lambda T: T.index_select(
            T.tensor([[1, 2], [3, 4]]), 1, T.tensor([1]), out=T.empty(0, dtype=T.int64)
        ),
        ([[2], [4]], "int64", None),
    ),
    "gt_out_float": (
        lambda T: T.gt(T.tensor([1.0, 3.0]), 2, out=T.empty(0)),
        ([0.0, 1.0], F32, None),
    ),
    "eq_out_requires_grad": (
        lambda T: T.eq(T.ones(2, requires_grad=True), 1, out=T.empty(0, dtype=T.bool)),
        ([True, True], "bool", None),
    ),
    "logical_not_out_int": (
        lambda T: T.logical_not(T.tensor([0, 3]), out=T.empty(0, dtype=T.int64)),
        ([1, 0], "int64", None),
    ),
    "logical_and_out": (
        lambda T: T.logical_and(T.tensor([1, 0]), T.tensor([2, 2]), out=T.empty(0)),
        ([1.0, 0.0], F32, None),
    ),
    # -- isclose needs one dtype; quantile a non-empty input
    "allclose_int_float": (
        lambda T: T.allclose(T.tensor([1, 2]), T.tensor([1.0, 2.0])),
        RUNTIME,
    ),
    "isclose_float_double": (
        lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
        RUNTIME,
    ),
    "isclose_broadcast": (
        lambda T: T.isclose(T.tensor([1.0, 2.0]), T.tensor(1.0)),
        ([True, False], "bool", None),
    ),
    "quantile_empty": (lambda T: T.quantile(T.tensor([]), 0.3), RUNTIME),
    "quantile_empty_dim": (lambda T: T.quantile(T.zeros(2, 0), 0.3, dim=1), RUNTIME),
    "nanquantile_empty": (lambda T: T.nanquantile(T.tensor([]), 0.3), RUNTIME),
    # -- a list of NumPy arrays (observations stacked in a loop) is nested data
    "tensor_of_arrays": (
        lambda T: T.tensor([np.array([1.0, 2.0]), np.array([3.0, 4.0])]),
        ([[1.0, 2.0], [3.0, 4.0]], "float64", None),
    ),
    "tensor_of_int32_arrays": (
        lambda T: T.tensor([np.array([1, 2], dtype=np.int32)]),
        ([[1, 2]], "int32", None),
    ),
    "tensor_of_array_and_list": (
        lambda T: T.tensor([np.array([1.0, 2.0], dtype=np.float32), [3, 4]]),
        ([[1.0, 2.0], [3.0, 4.0]], F32, None),
    ),
    "tensor_of_int_array_and_floats": (
        lambda T: T.tensor([np.array([1, 2]), [3, 4.5]]),
        ([[1.0, 2.0], [3.0, 4.5]], F32, None),
    ),
    "tensor_of_2d_arrays_dtype": (
        lambda T: T.tensor([np.array([[1]]), np.array([[2]])], dtype=T.float32),
        ([[[1.0]], [[2.0]]], F32, None),
    ),
    "as_tensor_of_bool_arrays": (
        lambda T: T.as_tensor([np.array([True, False])]),
        ([[True, False]], "bool", None),
    ),
    "from_numpy_negative_strides": (
        lambda T: T.from_numpy(np.arange(4.0)[::-1]),
        ("raises", "ValueError"),
    ),
    "from_numpy_positive_step": (
        lambda T: T.from_numpy(np.arange(4.0)[::2]),
        ([0.0, 2.0], "float64", None),
    ),
    # -- float16 norms sum in float32; count_nonzero and nanmean edges
    "norm_float16_no_overflow": (
        lambda T: T.tensor([300.0, 300.0, -5.0], dtype=T.float16).norm(),
        (424.25, "float16", None),
    ),
    "norm3_float16": (
        lambda T: T.tensor([300.0, 300.0, -5.0], dtype=T.float16).norm(3),
        (378.0, "float16", None),
    ),
    "vector_norm_float16": (
        lambda T: T.linalg.vector_norm(T.tensor([[300.0, 300.0]], dtype=T.float16), dim=1),
        ([424.25], "float16", None),
    ),
    "vector_norm_int": (lambda T: T.linalg.vector_norm(T.tensor([1, 2])), RUNTIME),
    "count_nonzero_empty_dims": (
        lambda T: T.tensor([[1, 2], [3, 0]]).count_nonzero(()),
        (3, "int64", None),
    ),
    "count_nonzero_zero_dim": (lambda T: T.tensor(3).count_nonzero(0), (1, "int64", None)),
    "nanmean_int": (lambda T: T.tensor([1, 2]).nanmean(), RUNTIME),
    # -- 0-d tensors reduced over their one dim (0 or -1)
    "nansum_zero_dim": (lambda T: T.tensor(5.0).nansum(0), (5.0, F32, None)),
    "nansum_zero_dim_keepdim": (
        lambda T: T.tensor(5.0).nansum(-1, keepdim=True),
        (5.0, F32, None),
    ),
    "nansum_zero_dim_out_of_range": (lambda T: T.tensor(5.0).nansum(1), ("raises", "IndexError")),
    "nansum_repeated_dim": (
        lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).nansum((1, -1)),
        RUNTIME,
    ),
    "quantile_zero_dim": (lambda T: T.tensor(5.0).quantile(0.5, dim=0), (5.0, F32, None)),
    "quantile_zero_dim_levels": (
        lambda T: T.tensor(5.0).quantile(T.tensor([0.2, 0.5]), dim=-1),
        ([5.0, 5.0], F32, None),
    ),
    "nanquantile_zero_dim_keepdim": (
        lambda T: T.tensor(5.0).nanquantile(0.5, dim=0, keepdim=True),
        (5.0, F32, None),
    ),
    "quantile_zero_dim_out_of_range": (
        lambda T: T.tensor(5.0).quantile(0.5, dim=1),
        ("raises", "IndexError"),
    ),
    # -- x[indices] = tensor: PyTorch's index_put_ takes no other dtype
    "setitem_index_double_value": (
        lambda T: _put(T, T.tensor([0, 1]), T.tensor([1.0, 2.0], dtype=T.float64)),
        RUNTIME,
    ),
    "setitem_list_bool_value": (lambda T: _put(T, [0, 1], T.tensor([True, False])), RUNTIME),
    "setitem_mask_int_values": (
        lambda T: _put(T, T.tensor([True, False, True]), T.tensor([1, 2])),
        RUNTIME,
    ),
    "setitem_index_zero_dim_double": (
        lambda T: _put(T, T.tensor([0, 1]), T.tensor(1.5, dtype=T.float64)),
        RUNTIME,
    ),
    "setitem_mask_zero_dim_double": (
        lambda T: _put(T, T.tensor([True, False, True]), T.tensor(1.5, dtype=T.float64)),
        ([1.5, 0.0, 1.5], F32, None),
    ),
    "setitem_zero_dim_key_double": (
        lambda T: _put(T, T.tensor(1), T.tensor(1.5, dtype=T.float64)),
        ([0.0, 1.5, 0.0], F32, None),
    ),
    "setitem_slice_int_values": (
        lambda T: _put(T, slice(1, None), T.tensor([1, 2])),
        ([0.0, 1.0, 2.0], F32, None),
    ),
    "setitem_index_same_dtype": (
        lambda T: _put(T, T.tensor([2, 0]), T.tensor([1.0, 2.0])),
        ([2.0, 0.0, 1.0], F32, None),
    ),
}


def _put(T, key, value):
    x = T.zeros(3)
    x[key] = value
    return x


def _set(T, key, value):
    x = T.zeros(2, dtype=T.uint8)
    x[key] = value
    return x


def _ipow(T, x, exponent):
    y = x
    y **= exponent
    return x


test_symgrad, test_table_is_pytorchs = table_tests(CASES)

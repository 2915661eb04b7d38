"""Arguments of the wrong type get PyTorch's exception type, raised before any work: a
number or a list where a tensor is wanted (``x.addmm_(0, 1)``), a string or a list where a
scalar is (``beta="a"``, ``alpha=[2]``), a bad ``rounding_mode``.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad

TE, RE = ("raises", "TypeError"), ("raises", "RuntimeError")


def _m(T, *shape):
    return T.ones(*shape)


CASES = {
    # in-place fused products: the factors are tensors
    "addmm_numbers": (lambda T: _m(T, 2, 2).addmm_(0, 1), TE),
    "addmm_second_number": (lambda T: _m(T, 2, 2).addmm_(_m(T, 2, 2), 1), TE),
    "addmv_number": (lambda T: _m(T, 2).addmv_(_m(T, 2, 2), 1), TE),
    "addr_list": (lambda T: _m(T, 2, 2).addr_(_m(T, 2), [1.0, 1.0]), TE),
    "baddbmm_numbers": (lambda T: _m(T, 2, 2, 2).baddbmm_(0, 1), TE),
    "addbmm_number": (lambda T: _m(T, 2, 2).addbmm_(_m(T, 1, 2, 2), 1), TE),
    "addmm_": (
        lambda T: _m(T, 2, 2).addmm_(_m(T, 2, 2), _m(T, 2, 2)),
        ([[3.0, 3.0]] * 2, "float32", None),
    ),
    # their scalars are Numbers: a 0-d tensor is one, a list or a vector is not
    "addmm_beta_str": (lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), beta="a"), TE),
    "addmm_beta_list": (lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), beta=[2]), TE),
    "addmm_beta_vector": (
        lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), beta=T.tensor([2.0])),
        TE,
    ),
    "addmm_beta_0d": (
        lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), beta=T.tensor(2.0)),
        ([[4.0, 4.0]] * 2, "float32", None),
    ),
    "addmm_alpha_bool": (
        lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), alpha=True),
        ([[3.0, 3.0]] * 2, "float32", None),
    ),
    "addmm__alpha_str": (lambda T: _m(T, 2, 2).addmm_(_m(T, 2, 2), _m(T, 2, 2), alpha="2"), TE),
    "addmv_beta_str": (lambda T: _m(T, 2).addmv(_m(T, 2, 2), _m(T, 2), beta="a"), TE),
    "addr_beta_str": (lambda T: _m(T, 2, 2).addr(_m(T, 2), _m(T, 2), beta="a"), TE),
    "baddbmm_alpha_str": (
        lambda T: _m(T, 2, 2, 2).baddbmm(_m(T, 2, 2, 2), _m(T, 2, 2, 2), alpha="a"),
        TE,
    ),
    "addbmm_alpha_str": (
        lambda T: _m(T, 2, 2).addbmm(_m(T, 2, 2, 2), _m(T, 2, 2, 2), alpha="a"),
        TE,
    ),
    # a NumPy scalar is a Python number: it does not promote the result to float64
    "addmm_numpy_alpha": (
        lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), alpha=np.float64(2)),
        ([[5.0, 5.0]] * 2, "float32", None),
    ),
    "addmm_numpy_int_beta": (
        lambda T: _m(T, 2, 2).addmm(_m(T, 2, 2), _m(T, 2, 2), beta=np.int64(2)),
        ([[4.0, 4.0]] * 2, "float32", None),
    ),
    "addr_numpy_beta": (
        lambda T: _m(T, 2, 2).addr(_m(T, 2), _m(T, 2), beta=np.float64(0.5)),
        ([[1.5, 1.5]] * 2, "float32", None),
    ),
    "baddbmm_numpy_alpha": (
        lambda T: _m(T, 1, 1, 1).baddbmm(_m(T, 1, 1, 2), _m(T, 1, 2, 1), alpha=np.float64(2)),
        ([[[5.0]]], "float32", None),
    ),
    # lists where tensors are wanted
    "multi_dot_list": (lambda T: T.linalg.multi_dot([_m(T, 2, 2), [[1.0, 1.0], [1.0, 1.0]]]), TE),
    "masked_fill_list_mask": (lambda T: _m(T, 2).masked_fill([True, False], 1), TE),
    "masked_fill_int_mask": (lambda T: _m(T, 2).masked_fill(T.tensor([1, 0]), 1), RE),
    # a 0-d integer tensor or a NumPy integer is an int (PyTorch reads ints through __index__)
    "chunk_0d": (
        lambda T: T.arange(6).chunk(T.tensor(2)),
        (([0, 1, 2], "int64", None), ([3, 4, 5], "int64", None)),
    ),
    "chunk_numpy": (
        lambda T: T.arange(4).chunk(np.int32(2)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "chunk_function_0d": (
        lambda T: T.chunk(T.arange(2), T.tensor(2)),
        (([0], "int64", None), ([1], "int64", None)),
    ),
    "chunk_vector": (lambda T: T.arange(6).chunk(T.tensor([2])), TE),
    "chunk_bool_tensor": (lambda T: T.arange(6).chunk(T.tensor(True)), TE),
    "unsafe_chunk_0d": (
        lambda T: T.arange(2).unsafe_chunk(T.tensor(2)),
        (([0], "int64", None), ([1], "int64", None)),
    ),
    "split_0d": (
        lambda T: T.arange(4).split(T.tensor(2)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "split_keyword_0d": (
        lambda T: T.arange(4).split(split_size=T.tensor(2)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "split_one_element": (
        lambda T: T.arange(4).split(T.tensor([2])),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "split_float_0d": (
        lambda T: T.arange(4).split(T.tensor(2.5)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "split_function_0d": (
        lambda T: T.split(T.arange(4), T.tensor(2)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "split_sizes_tensor": (lambda T: T.arange(6).split(T.tensor([2, 4])), TE),
    "unsafe_split_0d": (
        lambda T: T.arange(4).unsafe_split(T.tensor(2)),
        (([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "select_one_element": (lambda T: T.arange(6).select(0, T.tensor([1])), (1, "int64", None)),
    "select_numpy": (lambda T: T.arange(6).select(0, np.int64(-1)), (5, "int64", None)),
    "randperm_0d": (lambda T: tuple(T.randperm(T.tensor(3)).shape), (3,)),
    "randperm_one_element": (lambda T: tuple(T.randperm(T.tensor([3])).shape), (3,)),
    "randperm_float": (lambda T: T.randperm(3.0), TE),
    # narrow's start is an int or a 0-d integer tensor, its length an int
    "narrow_bool_start": (lambda T: T.arange(6).narrow(0, True, 2), TE),
    "narrow_bool_length": (lambda T: T.arange(6).narrow(0, 1, True), TE),
    "narrow_vector_start": (lambda T: T.arange(6).narrow(0, T.tensor([1]), 2), RE),
    "narrow_float_start": (lambda T: T.arange(6).narrow(0, T.tensor(1.0), 2), RE),
    "narrow_0d": (
        lambda T: T.arange(6).narrow(0, T.tensor(1), T.tensor(2)),
        ([1, 2], "int64", None),
    ),
    # a list where a tensor is wanted
    "scatter_add_list": (lambda T: T.zeros(3).scatter_add(0, T.tensor([0]), [1.0]), TE),
    "scatter_add__list": (lambda T: T.zeros(3).scatter_add_(0, T.tensor([0]), [1.0]), TE),
    "index_add_list": (lambda T: T.zeros(3).index_add(0, T.tensor([0]), [1.0]), TE),
    "index_add__list": (lambda T: T.zeros(3).index_add_(0, T.tensor([0]), [1.0]), TE),
    "index_copy_list": (lambda T: T.zeros(3).index_copy(0, T.tensor([0]), [1.0]), TE),
    "masked_scatter_list": (
        lambda T: T.zeros(2).masked_scatter(T.tensor([True, False]), [1.0]),
        TE,
    ),
    "masked_scatter__list_mask": (
        lambda T: T.zeros(2).masked_scatter_([True, False], T.ones(2)),
        TE,
    ),
    "put__list": (lambda T: T.zeros(3).put_(T.tensor([0]), [1.0]), TE),
    "take_list": (lambda T: T.zeros(3).take([0]), TE),
    "one_hot_list": (lambda T: T.nn.functional.one_hot([0, 1], 3), TE),
    "embedding_list_indices": (lambda T: T.nn.functional.embedding([0], T.ones(2, 2)), TE),
    "embedding_list_weight": (lambda T: T.nn.functional.embedding(T.tensor([0]), [[1.0, 2.0]]), TE),
    # repeat_interleave(None) is no call of the counts form
    "repeat_interleave_none": (lambda T: T.tensor([1.0]).repeat_interleave(None), TE),
    "repeat_interleave_counts": (
        lambda T: T.repeat_interleave(T.tensor([1, 2])),
        ([0, 1, 1], "int64", None),
    ),
    "repeat_interleave_method_no_repeats": (lambda T: T.tensor([1, 2]).repeat_interleave(), TE),
    "repeat_interleave_function_none": (lambda T: T.repeat_interleave(T.tensor([1, 2]), None), TE),
    # strings and shapes
    "gelu_approximate_none": (lambda T: T.nn.functional.gelu(T.ones(2), approximate=None), TE),
    "layer_norm_float_shape": (lambda T: T.nn.functional.layer_norm(T.ones(2, 2), [2.0]), TE),
    "layer_norm_bool_shape": (lambda T: T.nn.functional.layer_norm(T.ones(2, 2), (True,)), TE),
    "rms_norm_float_shape": (lambda T: T.nn.functional.rms_norm(T.ones(2, 2), [2.0]), TE),
    "rms_norm_int_shape": (lambda T: T.nn.functional.rms_norm(T.ones(2, 2), 2), TE),
    "interpolate_str_scale": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2), scale_factor="2"),
        TE,
    ),
    "interpolate_tensor_scale": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2), scale_factor=T.tensor(2.0)),
        TE,
    ),
    "interpolate_str_scales": (
        lambda T: T.nn.functional.interpolate(
            T.ones(1, 1, 2, 2), scale_factor=["2", 2], mode="bilinear"
        ),
        TE,
    ),
    "interpolate_bool_size": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2), size=True),
        TE,
    ),
    "interpolate_0d_size": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2), size=T.tensor(4)),
        ([[[1.0] * 4]], "float32", None),
    ),
    "interpolate_numpy_scale": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 1), scale_factor=np.float32(2)),
        ([[[1.0, 1.0]]], "float32", None),
    ),
    # losses, dropout, convolution and friends
    "dropout_training_int": (lambda T: T.nn.functional.dropout(T.ones(2), 0.5, training=1), TE),
    "dropout_training_str": (lambda T: T.nn.functional.dropout(T.ones(2), 0.5, "yes"), TE),
    "dropout_training_numpy": (lambda T: T.nn.functional.dropout(T.ones(2), 0.5, np.True_), TE),
    "dropout_not_training": (
        lambda T: T.nn.functional.dropout(T.ones(2), 0.5, False),
        ([1.0, 1.0], "float32", None),
    ),
    "alpha_dropout_training_none": (
        lambda T: T.nn.functional.alpha_dropout(T.ones(2), 0.5, None),
        TE,
    ),
    "feature_alpha_dropout_training_int": (
        lambda T: T.nn.functional.feature_alpha_dropout(T.ones(1, 2), 0.5, 1),
        TE,
    ),
    "bce_logits_list_pos_weight": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.ones(2), T.ones(2), pos_weight=[1.0, 1.0]
        ),
        TE,
    ),
    "bce_logits_list_weight": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.ones(2), T.ones(2), weight=[1.0, 1.0]
        ),
        TE,
    ),
    "cross_entropy_list_weight": (
        lambda T: T.nn.functional.cross_entropy(
            T.ones(2, 3), T.tensor([0, 1]), weight=[1.0, 1.0, 1.0]
        ),
        TE,
    ),
    "cross_entropy_float_ignore_index": (
        lambda T: T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 1]), ignore_index=1.0),
        TE,
    ),
    "cross_entropy_bool_ignore_index": (
        lambda T: T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 1]), ignore_index=True),
        TE,
    ),
    "nll_loss_numpy_ignore_index": (
        lambda T: T.nn.functional.nll_loss(
            -T.ones(2, 3), T.tensor([0, 1]), ignore_index=np.int64(1)
        ),
        (1.0, "float32", None),
    ),
    "nll_loss_list_weight": (
        lambda T: T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0, 1]), weight=[1.0, 1.0, 1.0]),
        TE,
    ),
    "threshold_str": (lambda T: T.nn.functional.threshold(T.ones(2), "1", 0.0), TE),
    "threshold_none_value": (lambda T: T.nn.functional.threshold(T.ones(2), 0.5, None), TE),
    "threshold_0d": (
        lambda T: T.nn.functional.threshold(T.ones(2), T.tensor(1.0), 0.0),
        ([0.0, 0.0], "float32", None),
    ),
    "pairwise_distance_str_p": (
        lambda T: T.nn.functional.pairwise_distance(T.ones(2), T.ones(2), p="fro"),
        TE,
    ),
    "conv2d_float_groups": (
        lambda T: T.nn.functional.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), groups=1.0),
        TE,
    ),
    "conv2d_bool_groups": (
        lambda T: T.nn.functional.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), groups=True),
        TE,
    ),
    "conv2d_zero_groups": (
        lambda T: T.nn.functional.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), groups=0),
        RE,
    ),
    "embedding_float_padding_idx": (
        lambda T: T.nn.functional.embedding(T.tensor([0]), T.ones(2, 2), padding_idx=0.5),
        TE,
    ),
    "embedding_str_max_norm": (
        lambda T: T.nn.functional.embedding(T.tensor([0]), T.ones(2, 2), max_norm="a"),
        TE,
    ),
    "transpose_list": (lambda T: T.transpose([[1.0]], 0, 1), TE),
    "is_floating_point_list": (lambda T: T.is_floating_point([1.0]), TE),
    # NumPy's bool is no Python bool: PyTorch reads it as a float (its __float__)
    "full_numpy_bool": (lambda T: T.full((2,), np.True_), ([1.0, 1.0], "float32", None)),
    "int_plus_numpy_bool": (lambda T: T.tensor([1, 2]) + np.True_, ([2.0, 3.0], "float32", None)),
    "bool_plus_numpy_bool": (lambda T: T.tensor([True]) + np.True_, ([2.0], "float32", None)),
    "int_add_numpy_bool_alpha": (lambda T: T.tensor([1, 2]).add(1, alpha=np.True_), RE),
    "float_add_numpy_bool_alpha": (
        lambda T: T.tensor([1.0, 2.0]).add(1, alpha=np.True_),
        ([2.0, 3.0], "float32", None),
    ),
    "tensor_of_numpy_bool": (lambda T: T.tensor(np.True_), (True, "bool", None)),
    # autograd and conversion flags
    "grad_of_a_float": (
        lambda T: T.autograd.grad([1.0], [T.ones(2, requires_grad=True)]),
        ("raises", "AssertionError"),
    ),
    "backward_of_a_float": (lambda T: T.autograd.backward([1.0]), ("raises", "AssertionError")),
    "set_detect_anomaly_str": (lambda T: T.autograd.set_detect_anomaly("yes"), TE),
    "set_detect_anomaly_check_nan_int": (
        lambda T: T.autograd.set_detect_anomaly(False, check_nan=1),
        TE,
    ),
    "numpy_force_str": (lambda T: T.ones(2).numpy(force="a"), TE),
    "to_copy_int": (lambda T: T.ones(2).to("cpu", copy=1), TE),
    "to_non_blocking_int": (lambda T: T.ones(2).to(T.float64, non_blocking=1), TE),
    "to_copy": (lambda T: T.ones(2).to("cpu", copy=True), ([1.0, 1.0], "float32", None)),
    "cpu_memory_format_str": (lambda T: T.ones(2).cpu(memory_format="a"), TE),
    "clip_grad_norm_none": (
        lambda T: T.nn.utils.clip_grad_norm_([T.ones(2, requires_grad=True)], None),
        TE,
    ),
    "clip_grad_norm_str": (
        lambda T: T.nn.utils.clip_grad_norm_([T.ones(2, requires_grad=True)], "a"),
        ("raises", "ValueError"),
    ),
    # a correction is a Number, quantile levels a number or a tensor
    "std_correction_str": (lambda T: T.ones(2, 3).std(correction="a"), TE),
    "var_mean_correction_list": (lambda T: T.var_mean(T.ones(2, 3), correction=[1]), TE),
    "var_correction_0d": (
        lambda T: T.tensor([1.0, 3.0]).var(correction=T.tensor(1)),
        (2.0, "float32", None),
    ),
    "quantile_list": (lambda T: T.tensor([1.0, 3.0]).quantile([0.5]), TE),
    "nanquantile_tuple": (lambda T: T.nanquantile(T.tensor([1.0, 3.0]), (0.5,)), TE),
    "quantile_numpy": (
        lambda T: T.tensor([1.0, 3.0]).quantile(np.float64(0.5)),
        (2.0, "float32", None),
    ),
    # the legacy constructor: sizes (a Size, NumPy integers) or one sequence of data
    "Tensor_of_a_size": (lambda T: tuple(T.Tensor(T.Size([2, 3])).shape), (2, 3)),
    "Tensor_of_an_empty_size": (lambda T: tuple(T.Tensor(T.Size([])).shape), ()),
    "Tensor_of_numpy_ints": (lambda T: tuple(T.Tensor(np.int64(2), 3).shape), (2, 3)),
    "Tensor_of_a_float": (lambda T: T.Tensor(2.5), TE),
    "Tensor_of_a_bool": (lambda T: T.Tensor(True), TE),
    "Tensor_of_a_numpy_float": (lambda T: T.Tensor(np.float64(2.0)), TE),
    "Tensor_negative_size": (lambda T: T.Tensor(2, -1), RE),
    "DoubleTensor_of_a_float": (lambda T: T.DoubleTensor(2.5), TE),
    "Tensor_of_a_tuple": (lambda T: T.Tensor((2, 3)), ([2.0, 3.0], "float32", None)),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def test_messages_name_the_argument():
    with pytest.raises(
        TypeError, match=r"addmm_\(\): argument 'mat1' \(position 1\) must be Tensor"
    ):
        symgrad.ones(2, 2).addmm_(0, 1)
    with pytest.raises(TypeError, match=r"addr\(\): argument 'beta' must be Number, not list"):
        symgrad.ones(2, 2).addr(symgrad.ones(2), symgrad.ones(2), beta=[1])

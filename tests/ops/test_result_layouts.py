"""Result memory layouts as PyTorch gives them: strides, contiguity and whether ``.view(-1)``
works afterwards, for element-wise ops of operands laid out differently (PyTorch's
``TensorIterator`` follows the first operand where NumPy falls back to row-major), for
kernels of several NumPy steps (``lerp``, ``addcmul``, ``sub`` with ``alpha``), comparisons
and unreduced losses.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, strides, contiguity, whether ``view(-1)`` works): the table holds
the expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad

F64 = "float64"
_A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
_B = [[0.5, -1.0, 2.0], [1.5, 0.25, -2.0], [3.0, 1.0, -0.5]]


def _pair(T, requires_grad=False):
    a = T.tensor(_A, dtype=T.float64, requires_grad=requires_grad)
    b = T.tensor(_B, dtype=T.float64, requires_grad=requires_grad)
    return a, b


def _viewable(t):
    try:
        t.view(-1)
    except RuntimeError:
        return False
    return True


def _layout(t):
    """A result as (values, dtype, grad_fn name), its strides, contiguity and whether it
    flattens without a copy."""
    return t, t.stride(), t.is_contiguous(), _viewable(t)


def _cube(T, kind):
    x = T.tensor(np.arange(24.0).reshape(2, 3, 4) / 8 - 1)
    if kind == "permuted":
        return x.permute(2, 1, 0)  # (4, 3, 2)
    if kind == "last_two":
        return x.permute(2, 0, 1)  # (4, 2, 3)
    return x.contiguous().view(4, 3, 2)


def _channels_last(T):
    x = T.tensor(np.arange(24.0).reshape(1, 2, 3, 4) / 8 - 1)
    return x.contiguous(memory_format=T.channels_last)


_AT = [[1.0, 4.0, 7.0], [2.0, 5.0, 8.0], [3.0, 6.0, 9.0]]
_SUM_T = [[1.5, 3.0, 9.0], [3.5, 5.25, 6.0], [6.0, 7.0, 8.5]]
_T_STRIDES = (1, 3)
CASES = {
    # -- two operands of different layouts: the first one's
    "add_transposed_first": (
        lambda T: _layout(_pair(T)[0].t() + _pair(T)[1]),
        ((_SUM_T, F64, None), _T_STRIDES, False, False),
    ),
    "add_contiguous_first": (
        lambda T: _layout(_pair(T)[1] + _pair(T)[0].t()),
        ((_SUM_T, F64, None), (3, 1), True, True),
    ),
    "mul_recorded": (
        lambda T: _layout(_pair(T, True)[0].t() * 2 * _pair(T)[1]),
        (
            ([[1.0, -8.0, 28.0], [6.0, 2.5, -32.0], [18.0, 12.0, -9.0]], F64, "MulBackward0"),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "maximum": (
        lambda T: _layout(T.maximum(_pair(T)[0].t(), _pair(T)[1])),
        ((_AT, F64, None), _T_STRIDES, False, False),
    ),
    "gt": (
        lambda T: _layout(_pair(T)[0].t() > _pair(T)[1] * 4),
        (
            ([[False, True, False], [False, True, True], [False, True, True]], "bool", None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "where": (
        lambda T: _layout(T.where(_pair(T)[0].t() > 4, _pair(T)[0].t(), _pair(T)[1])),
        (
            ([[0.5, -1.0, 7.0], [1.5, 5.0, 8.0], [3.0, 6.0, 9.0]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "permuted_then_other_permutation": (
        lambda T: _layout(_cube(T, "permuted") + _cube(T, "plain"))[1:],
        ((1, 4, 12), False, False),
    ),
    "channels_last_first": (
        lambda T: (
            (_channels_last(T) + _channels_last(T).contiguous()).stride(),
            (_channels_last(T) + _channels_last(T).contiguous()).is_contiguous(
                memory_format=T.channels_last
            ),
        ),
        ((24, 1, 8, 2), True),
    ),
    "contiguous_first_channels_last_second": (
        lambda T: (_channels_last(T).contiguous() + _channels_last(T)).stride(),
        (24, 12, 4, 1),
    ),
    # -- kernels of several NumPy steps keep the layout of transposed operands
    "sub_alpha": (
        lambda T: _layout(T.sub(_pair(T)[0].t(), _pair(T)[1].t(), alpha=2)),
        (
            ([[0.0, 1.0, 1.0], [4.0, 4.5, 6.0], [-1.0, 10.0, 10.0]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "lerp": (
        lambda T: _layout(T.lerp(_pair(T)[0].t(), _pair(T)[1].t(), 0.5)),
        (
            ([[0.75, 2.75, 5.0], [0.5, 2.625, 4.5], [2.5, 2.0, 4.25]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "addcmul": (
        lambda T: _layout(T.addcmul(_pair(T)[0].t(), _pair(T)[1].t(), _pair(T)[1].t(), value=2)),
        (
            ([[1.5, 8.5, 25.0], [4.0, 5.125, 10.0], [11.0, 14.0, 9.5]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "clamp_tensor_bound": (
        lambda T: _layout(T.clamp(_pair(T)[0].t(), max=_pair(T)[1].t())),
        (
            ([[0.5, 1.5, 3.0], [-1.0, 0.25, 1.0], [2.0, -2.0, -0.5]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    # -- unreduced losses: the input's layout (binary_cross_entropy_with_logits: the target's)
    "mse_loss_none": (
        lambda T: _layout(T.nn.functional.mse_loss(_pair(T)[0].t(), _pair(T)[1], reduction="none")),
        (
            ([[0.25, 25.0, 25.0], [0.25, 22.5625, 100.0], [0.0, 25.0, 90.25]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "bce_with_logits_follows_target": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            _pair(T)[1], _pair(T)[0].t() / 10, reduction="none"
        ).stride(),
        _T_STRIDES,
    ),
    # -- reductions of several results and scans: row-major; a sort: the input's layout
    "std_mean_permuted": (
        lambda T: [_layout(t)[1:] for t in T.std_mean(_cube(T, "permuted"), 1)],
        (((2, 1), True, True), ((2, 1), True, True)),
    ),
    "var_mean_permuted": (
        lambda T: [t.stride() for t in T.var_mean(_cube(T, "permuted"), (0, 2), keepdim=True)],
        ((3, 1, 1), (3, 1, 1)),
    ),
    "aminmax_permuted": (
        lambda T: [_layout(t)[1:] for t in T.aminmax(_cube(T, "permuted"), dim=1)],
        (((2, 1), True, True), ((2, 1), True, True)),
    ),
    "aminmax_values": (
        lambda T: T.aminmax(_cube(T, "permuted"), dim=1),
        (
            ([[-1.0, 0.5], [-0.875, 0.625], [-0.75, 0.75], [-0.625, 0.875]], F64, None),
            ([[0.0, 1.5], [0.125, 1.625], [0.25, 1.75], [0.375, 1.875]], F64, None),
        ),
    ),
    "cummax_permuted": (
        lambda T: [_layout(t)[1:] for t in T.cummax(_cube(T, "permuted"), 1)],
        (((6, 2, 1), True, True), ((6, 2, 1), True, True)),
    ),
    "cummin_transposed": (
        lambda T: [t.stride() for t in _cube(T, "last_two").cummin(0)],
        ((6, 3, 1), (6, 3, 1)),
    ),
    "topk_permuted": (
        lambda T: [_layout(t)[1:] for t in _cube(T, "permuted").topk(2, 1)],
        (((4, 2, 1), True, True), ((4, 2, 1), True, True)),
    ),
    "sort_keeps_layout": (
        lambda T: [_layout(t)[1:] for t in _cube(T, "permuted").sort(1)],
        (((1, 4, 12), False, False), ((1, 4, 12), False, False)),
    ),
    "argsort_keeps_layout": (
        lambda T: _layout(_pair(T)[1].t().argsort(0)),
        (([[1, 2, 2], [0, 1, 1], [2, 0, 0]], "int64", None), _T_STRIDES, False, False),
    ),
    # -- an expanded operand of another dtype: row-major, as an expanded one of the result's
    "expanded_bool_times_float": (
        lambda T: _layout(T.ones(3, 4, dtype=T.bool).expand(2, 3, 4) * T.ones(2, 3, 4))[1:],
        ((12, 4, 1), True, True),
    ),
    "exp_of_expanded_int": (
        lambda T: _layout(T.ones(3, 4, dtype=T.int64).expand(2, 3, 4).exp())[1:],
        ((12, 4, 1), True, True),
    ),
    "where_expanded_bool": (
        lambda T: T.where(
            T.ones(3, 4, dtype=T.bool).expand(2, 3, 4), T.ones(2, 3, 4), 0.0
        ).stride(),
        (12, 4, 1),
    ),
    "triu_gradient_under_create_graph": (
        lambda T: _triu_gradient(T),
        ((12, 4, 1), True),
    ),
    "sort_descending_along_rows_is_row_major": (
        lambda T: [_layout(t)[1:] for t in _pair(T)[1].sort(0, descending=True)],
        (((3, 1), True, True), ((3, 1), True, True)),
    ),
    "argsort_descending_along_rows_is_row_major": (
        lambda T: _layout(_pair(T)[1].argsort(0, descending=True)),
        (([[2, 2, 0], [1, 1, 2], [0, 0, 1]], "int64", None), (3, 1), True, True),
    ),
    "sort_values_gradient": (
        lambda T: _sorted_gradient(T),
        (
            ([[0.5, -1.0, -2.0], [1.5, 0.25, -0.5], [3.0, 1.0, 2.0]], F64, "TBackward0"),
            _T_STRIDES,
            ([[1.0, 1.0, 3.0], [2.0, 2.0, 1.0], [3.0, 3.0, 2.0]], F64, None),
        ),
    ),
    # -- ops that fill a new row-major result (PyTorch), or keep the input's layout (flip)
    "masked_fill_permuted": (
        lambda T: _layout(_cube(T, "permuted").masked_fill(_cube(T, "permuted") > 0, 0.0))[1:],
        ((6, 2, 1), True, True),
    ),
    "gather_channels_last": (
        lambda T: _channels_last(T).gather(1, T.zeros(1, 2, 3, 4, dtype=T.int64)).stride(),
        (24, 12, 4, 1),
    ),
    "repeat_transposed": (
        lambda T: _layout(_pair(T)[0].t().repeat(1, 1))[1:],
        ((3, 1), True, True),
    ),
    "renorm_transposed": (
        lambda T: _layout(_pair(T)[0].t().renorm(2, 0, 5.0))[1:],
        ((3, 1), True, True),
    ),
    "layer_norm_channels_last": (
        lambda T: T.nn.functional.layer_norm(_channels_last(T), (4,)).stride(),
        (24, 12, 4, 1),
    ),
    "batch_norm_permuted": (
        lambda T: T.nn.functional.batch_norm(
            _channels_last(T).permute(0, 1, 3, 2), None, None, training=True
        ).stride(),
        (24, 12, 3, 1),
    ),
    "group_norm_keeps_channels_last": (
        lambda T: T.nn.functional.group_norm(_channels_last(T), 1).stride(),
        (24, 1, 8, 2),
    ),
    "flip_keeps_layout": (
        lambda T: _layout(_pair(T)[0].t().flip(0)),
        (
            ([[3.0, 6.0, 9.0], [2.0, 5.0, 8.0], [1.0, 4.0, 7.0]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "nonzero_column_major": (
        lambda T: _layout(T.tensor([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]]).nonzero()),
        (([[0, 1], [1, 0], [2, 0], [2, 1]], "int64", None), (1, 4), False, False),
    ),
    "nonzero_as_tuple_contiguous": (
        lambda T: [
            (t.tolist(), t.stride(), t.is_contiguous())
            for t in T.where(T.tensor([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]]) > 0)
        ],
        (((0, 1, 2, 2), (1,), True), ((1, 0, 0, 1), (1,), True)),
    ),
    "argwhere_column_major": (
        lambda T: T.argwhere(T.tensor([1.0, 0.0, 2.0])).stride(),
        (1, 2),
    ),
    "cat_permuted": (
        lambda T: _layout(T.cat([_cube(T, "permuted"), _cube(T, "permuted")], 1))[1:],
        ((12, 2, 1), True, True),
    ),
    "cat_channels_last": (
        lambda T: T.cat([_channels_last(T), _channels_last(T)], 1).stride(),
        (48, 1, 16, 4),
    ),
    "cat_mixed_formats": (
        lambda T: T.cat([_channels_last(T), _channels_last(T).contiguous()], 1).stride(),
        (48, 12, 4, 1),
    ),
    "stack_transposed": (
        lambda T: _layout(T.stack([_pair(T)[0].t(), _pair(T)[1].t()]))[1:],
        ((9, 3, 1), True, True),
    ),
    # -- channels-last stays channels-last through convolutions, pooling and padding
    "conv2d_channels_last": (
        lambda T: _conv_program(T),
        (
            ((6, 1, 3, 1), True),
            (3.5, F64, "DivBackward0"),
            (24, 1, 8, 2),
            ([[[[-3.75, -3.0], [-0.75, 0.0]], [[5.25, 6.0], [8.25, 9.0]]]], F64, None),
        ),
    ),
    "conv2d_channels_last_weight": (
        lambda T: T.nn.functional.conv2d(
            _channels_last(T).contiguous(),
            T.ones(2, 2, 2, 2, dtype=T.float64).contiguous(memory_format=T.channels_last),
        ).stride(),
        (12, 1, 6, 2),
    ),
    "conv_transpose2d_channels_last": (
        lambda T: T.nn.functional.conv_transpose2d(
            _channels_last(T), T.ones(2, 1, 2, 2, dtype=T.float64)
        ).stride(),
        (20, 1, 5, 1),
    ),
    "max_pool2d_with_indices": (
        lambda T: [
            t.stride()
            for t in T.nn.functional.max_pool2d(_channels_last(T), 2, return_indices=True)
        ],
        ((4, 1, 4, 2), (4, 1, 4, 2)),
    ),
    "avg_pool2d_channels_last": (
        lambda T: T.nn.functional.avg_pool2d(_channels_last(T), 2).stride(),
        (4, 1, 4, 2),
    ),
    "interpolate_channels_last": (
        lambda T: T.nn.functional.interpolate(_channels_last(T), scale_factor=2).stride(),
        (96, 1, 16, 2),
    ),
    "pad_channels_last": (
        lambda T: T.nn.functional.pad(_channels_last(T), (1, 1, 1, 1)).stride(),
        (60, 1, 12, 2),
    ),
    "conv2d_permuted_input_row_major": (
        lambda T: T.nn.functional.conv2d(
            _channels_last(T).contiguous().permute(0, 1, 3, 2), T.ones(1, 2, 2, 2, dtype=T.float64)
        ).stride(),
        (6, 6, 2, 1),
    ),
    "index_fill_keeps_layout": (
        lambda T: _layout(_pair(T)[0].t().index_fill(0, T.tensor([0]), 0.0))[1:],
        (_T_STRIDES, False, False),
    ),
    "index_fill_tensor_value_keeps_layout": (
        lambda T: _pair(T)[0].t().index_fill(1, T.tensor([2]), T.tensor(0.0)).stride(),
        _T_STRIDES,
    ),
    "index_copy_row_major": (
        lambda T: _pair(T)[0].t().index_copy(0, T.tensor([0]), _pair(T)[1][:1]).stride(),
        (3, 1),
    ),
    "cdist_permuted": (
        lambda T: _layout(T.cdist(_cube(T, "permuted"), _cube(T, "permuted")))[1:],
        ((9, 3, 1), True, True),
    ),
    "pow_number_base_row_major": (
        lambda T: _layout(2.0 ** _pair(T)[0].t()),
        (
            ([[2.0, 16.0, 128.0], [4.0, 32.0, 256.0], [8.0, 64.0, 512.0]], F64, None),
            (3, 1),
            True,
            True,
        ),
    ),
    "logsigmoid_row_major": (
        lambda T: T.nn.functional.logsigmoid(_cube(T, "permuted")).stride(),
        (6, 2, 1),
    ),
    # -- a view of a channels-last tensor's memory is a view, not a copy
    "unfold_channels_last_is_a_view": (
        lambda T: _unfold_write(T),
        ((24, 1, 8, 2, 2), -5.0, (24, 1, 8, 2)),
    ),
    "as_strided_channels_last": (
        lambda T: T.as_strided(_channels_last(T), (2, 2), (1, 2)).tolist(),
        ((-1.0, -0.875), (0.5, 0.625)),
    ),
    # -- an in-place op keeps its tensor's strides, even a recorded one
    "copy_broadcast_recorded": (
        lambda T: _in_place_copy(T),
        (((3, 1), True, True), ([[3.0, 3.0, 3.0]], F64, None)),
    ),
    "add_transposed_in_place": (
        lambda T: _layout((_pair(T, True)[0] * 1).add_(_pair(T)[1].t()))[1:],
        ((3, 1), True, True),
    ),
    # -- a conversion of an expanded tensor: dense, row-major in the input's order
    "to_float32_expanded": (
        lambda T: _layout(_pair(T)[0][:1].expand(3, 3).to(T.float32)),
        (([[1.0, 2.0, 3.0]] * 3, "float32", None), (3, 1), True, True),
    ),
    "long_then_add_expanded": (
        lambda T: _layout(_pair(T)[0][:, :1].expand(3, 3).long() + 1),
        (([[2, 2, 2], [5, 5, 5], [8, 8, 8]], "int64", None), (3, 1), True, True),
    ),
    "to_float32_recorded_expanded": (
        lambda T: _layout(_pair(T, True)[0][:1].expand(3, 3).float())[::2],
        ((([[1.0, 2.0, 3.0]] * 3, "float32", "ToCopyBackward0")), True),
    ),
    # -- an output resized by out= is laid out as the op's result
    "add_out_resized": (
        lambda T: _layout(T.add(_pair(T)[0].t(), 1, out=T.empty(0, dtype=T.float64))),
        (
            ([[2.0, 5.0, 8.0], [3.0, 6.0, 9.0], [4.0, 7.0, 10.0]], F64, None),
            _T_STRIDES,
            False,
            False,
        ),
    ),
    "exp_out_channels_last": (
        lambda T: T.exp(_channels_last(T), out=T.empty(0, dtype=T.float64)).stride(),
        (24, 1, 8, 2),
    ),
    "out_of_the_right_shape_keeps_its_layout": (
        lambda T: T.add(_pair(T)[0].t(), 1, out=T.empty(3, 3, dtype=T.float64)).stride(),
        (3, 1),
    ),
}


def _unfold_write(T):
    """Windows of a channels-last tensor written through, and the gradient's layout."""
    x = _channels_last(T)
    windows = x.unfold(3, 2, 1)
    windows[0, 0, 0, 0, 0] = -5.0
    y = _channels_last(T).requires_grad_()
    (y.unfold(3, 2, 1) ** 2).sum().backward()
    return windows.stride(), x[0, 0, 0, 0].item(), y.grad.stride()


def _in_place_copy(T):
    """A plain tensor written in place from a broadcast row that needs a gradient."""
    row = T.tensor([[1.0, 2.0, 3.0]], dtype=T.float64, requires_grad=True)
    x = T.zeros(3, 3, dtype=T.float64)
    x.copy_(row)
    x.sum().backward()
    return _layout(x)[1:], row.grad


def _conv_program(T):
    """A channels-last convolution: its result's layout, value and node, and the input's
    gradient, laid out as the input (PyTorch's gradient layout contract)."""
    x = _channels_last(T).requires_grad_()
    w = T.ones(1, 2, 2, 2, dtype=T.float64, requires_grad=True)
    y = T.nn.functional.conv2d(x, w)
    y.sum().backward()
    return (
        (y.stride(), y.is_contiguous(memory_format=T.channels_last)),
        y.sum() / 6,
        x.grad.stride(),
        w.grad,
    )


def _triu_gradient(T):
    x = T.arange(24.0, dtype=T.float64).reshape(2, 3, 4).requires_grad_()
    (g,) = T.autograd.grad(T.triu(x, 1), x, T.ones(2, 3, 4, dtype=T.float64), create_graph=True)
    return g.stride(), g.is_contiguous()


def _sorted_gradient(T):
    b = T.tensor(_B, dtype=T.float64, requires_grad=True)
    values = b.t().sort(1).values.t()
    (values * T.tensor([[1.0], [2.0], [3.0]], dtype=T.float64)).sum().backward()
    return values, b.t().sort(1).values.stride(), b.grad


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def test_inputs_in_row_major_order_give_a_row_major_result_without_a_look(monkeypatch):
    """``x[:, t] * h`` (a slice of a batch-first sequence, the step of a recurrent net): the
    inputs' dimensions are in row-major order, so the result is row-major, as PyTorch's,
    and the general layout rule is not asked."""
    from symgrad import _layout

    x = symgrad.arange(24.0).reshape(2, 3, 4)
    h = symgrad.ones(2, 4)
    monkeypatch.setattr(_layout, "output_strides", lambda *a: pytest.fail("asked"))
    y = x[:, 1] * h
    assert y.stride() == (4, 1) and y.tolist() == [[4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0]]

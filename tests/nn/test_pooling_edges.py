"""Pooling and resizing at their edges as PyTorch: the padding and dilation a pooling accepts,
windows of -inf beside padding, inputs without channels, and NaN or infinity in a window of
an average pooling's second derivative.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import pytest
from _torch_table import NAN, run

import symgrad

F = lambda T: T.nn.functional  # noqa: E731
RAISES = ("raises", "RuntimeError")
ROW = [[[float(i) for i in range(9)]]]  # (1, 1, 9)


def _second_derivative(pool):
    """The gradient of the squared gradient of ``pool(x ** 3.5) ** (1 / 3.5)``: its first
    window is NaN (a negative number to a fractional power), which must stay there."""

    def run(T):
        x = T.tensor([-2.0, -0.5, 0.0, 0.5, 2.0, 1.0], requires_grad=True)
        y = pool(T, x.view(1, 1, 6).pow(3.5)).pow(1 / 3.5)
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        return T.autograd.grad((g * g).sum(), x)[0]

    return run


INF = float("inf")
ROW_INF = [[-INF, -INF, 1.0, -INF, -INF]]  # (1, 5)
LEAST = -(2**63)


def _max_gradient(pool, values):
    """``pool(T, x)`` of a leaf holding ``values`` and the leaf's gradient after a backward
    of the values weighted by 1, 2, 3, ..."""

    def run(T):
        x = T.tensor(values, requires_grad=True)
        out = pool(T, x)
        w = T.arange(1.0, out[0].numel() + 1).reshape(out[0].shape)
        (out[0] * w).sum().backward()
        return out, x.grad

    return run


CASES = {
    # PyTorch checks the padding against half the effective kernel (with its dilation)
    # and then against half the kernel itself
    "max_pool1d_dilated_padding_over_half": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 3, padding=2, dilation=2),
        RAISES,
    ),
    "max_pool1d_dilated_padding_over_half_with_indices": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 3, 1, 2, 2, return_indices=True),
        RAISES,
    ),
    "max_pool2d_dilated_padding_over_half": (
        lambda T: F(T).max_pool2d(T.ones(1, 1, 9, 9), 3, padding=(0, 2), dilation=2),
        RAISES,
    ),
    "max_pool3d_dilated_padding_over_half": (
        lambda T: F(T).max_pool3d(T.ones(1, 1, 5, 5, 5), 3, padding=2, dilation=2),
        RAISES,
    ),
    "MaxPool2d_dilated_padding_over_half": (
        lambda T: T.nn.MaxPool2d(3, padding=2, dilation=3)(T.ones(1, 9, 9)),
        RAISES,
    ),
    "max_pool1d_dilated_padding_half": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 4, padding=2, dilation=2),
        ([[[4.0, 8.0]]], "float32", None),
    ),
    "avg_pool2d_negative_padding": (
        lambda T: F(T).avg_pool2d(T.ones(1, 1, 6, 6), 2, padding=-1),
        RAISES,
    ),
    "max_pool2d_negative_padding": (
        lambda T: F(T).max_pool2d(T.ones(1, 1, 6, 6), 2, padding=(0, -1)),
        RAISES,
    ),
    "max_pool1d_negative_padding": (
        lambda T: F(T).max_pool1d(T.ones(1, 1, 6), 2, padding=-1),
        RAISES,
    ),
    "max_pool3d_zero_dilation": (
        lambda T: F(T).max_pool3d(T.ones(1, 1, 4, 4, 4), 2, dilation=0),
        RAISES,
    ),
    "max_pool2d_negative_dilation": (
        lambda T: F(T).max_pool2d(T.ones(1, 1, 6, 6), 2, dilation=(1, -1)),
        RAISES,
    ),
    "max_pool1d_no_channels": (lambda T: F(T).max_pool1d(T.ones(2, 0, 6), 2), RAISES),
    "max_pool2d_no_channels_unbatched": (lambda T: F(T).max_pool2d(T.ones(0, 6, 6), 2), RAISES),
    "avg_pool2d_no_channels": (lambda T: F(T).avg_pool2d(T.ones(2, 0, 6, 6), 2), RAISES),
    "avg_pool3d_no_channels": (lambda T: F(T).avg_pool3d(T.ones(2, 0, 4, 4, 4), 2), RAISES),
    "lp_pool1d_no_channels": (lambda T: F(T).lp_pool1d(T.ones(2, 0, 6), 2, 2), RAISES),
    "max_pool2d_empty_batch": (
        lambda T: F(T).max_pool2d(T.ones(0, 2, 4, 4), 2).shape,
        (0, 2, 2, 2),
    ),
    "interpolate_no_channels": (
        lambda T: F(T).interpolate(T.ones(2, 0, 6), size=4, mode="linear"),
        RAISES,
    ),
    "interpolate_bicubic_no_channels": (
        lambda T: F(T).interpolate(T.ones(2, 0, 6, 6), scale_factor=2, mode="bicubic"),
        RAISES,
    ),
    "interpolate_nearest_empty_batch": (
        lambda T: F(T).interpolate(T.ones(0, 2, 3), size=4).shape,
        (0, 2, 4),
    ),
    # a window of -inf inputs ties with its -inf padding: PyTorch picks its first input
    "max_pool1d_windows_of_minus_infinity": (
        _max_gradient(lambda T, x: F(T).max_pool1d(x, 2, 1, 1, return_indices=True), [ROW_INF]),
        (
            (
                ([[[-INF, -INF, 1.0, 1.0, -INF, -INF]]], "float32", "SqueezeBackward1"),
                ([[[0, 0, 2, 2, 3, 4]]], "int64", None),
            ),
            ([[[3.0, 0.0, 7.0, 5.0, 6.0]]], "float32", None),
        ),
    ),
    "max_pool1d_dilated_windows_of_minus_infinity": (
        _max_gradient(lambda T, x: F(T).max_pool1d(x, 2, 2, 1, 2, return_indices=True), [ROW_INF]),
        (
            (
                ([[[-INF, -INF, -INF]]], "float32", "SqueezeBackward1"),
                ([[[1, 1, 3]]], "int64", None),
            ),
            ([[[0.0, 3.0, 0.0, 3.0, 0.0]]], "float32", None),
        ),
    ),
    "max_pool2d_ceil_windows_of_minus_infinity": (
        _max_gradient(
            lambda T, x: F(T).max_pool2d(x, 2, 2, 1, ceil_mode=True, return_indices=True),
            [[ROW_INF[0], [-INF] * 5]],
        ),
        (
            (
                (
                    [[[-INF, 1.0, -INF], [-INF, -INF, -INF]]],
                    "float32",
                    "MaxPool2DWithIndicesBackward0",
                ),
                ([[[0, 2, 3], [5, 6, 8]]], "int64", None),
            ),
            ([[[1.0, 0.0, 2.0, 3.0, 0.0], [4.0, 5.0, 0.0, 6.0, 0.0]]], "float32", None),
        ),
    ),
    "max_pool1d_int64_windows_of_its_least": (
        lambda T: F(T).max_pool1d(
            T.tensor([[[LEAST, LEAST, 3, LEAST]]]), 2, 1, 1, return_indices=True
        ),
        (
            ([[[LEAST, LEAST, 3, 3, LEAST]]], "int64", None),
            ([[[0, 0, 2, 2, 3]]], "int64", None),
        ),
    ),
    "avg_pool1d_second_derivative_keeps_nan_in_its_window": (
        _second_derivative(lambda T, x: F(T).avg_pool1d(x, 2)),
        ([NAN, NAN, 0.0, 0.0, 0.0783, -0.1565], "float32", None),
    ),
    "avg_pool2d_second_derivative_keeps_nan_in_its_window": (
        _second_derivative(lambda T, x: F(T).avg_pool2d(x.unsqueeze(0), (1, 2))[0]),
        ([NAN, NAN, 0.0, 0.0, 0.0783, -0.1565], "float32", None),
    ),
    "adaptive_avg_pool1d_second_derivative_keeps_nan_in_its_window": (
        _second_derivative(lambda T, x: F(T).adaptive_avg_pool1d(x, 3)),
        ([NAN, NAN, 0.0, 0.0, 0.0783, -0.1565], "float32", None),
    ),
    "interpolate_area_second_derivative_keeps_nan_in_its_window": (
        _second_derivative(lambda T, x: F(T).interpolate(x, size=3, mode="area")),
        ([NAN, NAN, 0.0, 0.0, 0.0783, -0.1565], "float32", None),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symgrad_matches_the_expected_data(name):
    fn, expected = CASES[name]
    assert run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_gives_the_same_data(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn) == expected


def _pooling_node_of_1d(T, pool):
    """The saved kernel size and stride of the 2-d node under a 1-d pooling's squeeze."""
    x = T.ones(1, 2, 6, requires_grad=True)
    node = pool(T, x).grad_fn.next_functions[0][0]
    return type(node).__name__, node._saved_kernel_size, node._saved_stride


POOLS_1D = {
    "max_pool1d": (
        lambda T, x: F(T).max_pool1d(x, 2),
        ("MaxPool2DWithIndicesBackward0", (1, 2), (1, 2)),
    ),
    "max_pool1d_stride": (
        lambda T, x: F(T).max_pool1d(x, 3, 1),
        ("MaxPool2DWithIndicesBackward0", (1, 3), (1, 1)),
    ),
    "avg_pool1d": (
        lambda T, x: F(T).avg_pool1d(x, (3,)),
        ("AvgPool2DBackward0", (1, 3), (1, 3)),
    ),
    "MaxPool1d": (
        lambda T, x: T.nn.MaxPool1d(2, return_indices=True)(x)[0],
        ("MaxPool2DWithIndicesBackward0", (1, 2), (1, 2)),
    ),
}


@pytest.mark.parametrize("name", sorted(POOLS_1D))
def test_1d_pooling_saves_the_kernel_as_its_stride(name):
    pool, expected = POOLS_1D[name]
    assert _pooling_node_of_1d(symgrad, pool) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(POOLS_1D))
def test_1d_pooling_saves_the_kernel_as_its_stride_in_pytorch(name):
    torch = pytest.importorskip("torch")
    pool, expected = POOLS_1D[name]
    assert _pooling_node_of_1d(torch, pool) == expected


def _backward_of_empty(pool):
    def run(T):
        y = pool(T, T.ones(1, 2, 4, 4, requires_grad=True))
        y.sum().backward()
        return y.shape

    return run


EMPTY_OUTPUTS = {
    # PyTorch computes an adaptive pooling to an empty output, and refuses its backward
    "adaptive_avg_pool2d": (_backward_of_empty(lambda T, x: F(T).adaptive_avg_pool2d(x, (0, 2)))),
    "adaptive_avg_pool1d": (
        _backward_of_empty(lambda T, x: F(T).adaptive_avg_pool1d(x[:, :, 0], 0))
    ),
    "adaptive_max_pool2d": (_backward_of_empty(lambda T, x: F(T).adaptive_max_pool2d(x, (2, 0)))),
    "interpolate_area": (
        _backward_of_empty(lambda T, x: F(T).interpolate(x, scale_factor=0.1, mode="area"))
    ),
}


@pytest.mark.parametrize("name", sorted(EMPTY_OUTPUTS))
def test_backward_of_an_adaptive_pooling_to_nothing_raises(name):
    assert run(symgrad, EMPTY_OUTPUTS[name]) == RAISES


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(EMPTY_OUTPUTS))
def test_backward_of_an_adaptive_pooling_to_nothing_raises_in_pytorch(name):
    torch = pytest.importorskip("torch")
    assert run(torch, EMPTY_OUTPUTS[name]) == RAISES

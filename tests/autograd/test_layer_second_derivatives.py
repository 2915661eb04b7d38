"""Second derivatives as programs take them (gradient penalties, Hessian-vector products)
through nn layers: ``g = grad(f(x).sum(), x, create_graph=True)`` then ``grad`` of ``g``.

Where PyTorch's backward of an op reads its input (max and average pooling, adaptive and
fractional pooling, reflection and replication padding), the first gradient requires grad
whenever the input does, even when the op is the whole path from ``x`` (its derivative by
``x`` is then zero, not an error). Grid sampling and convolution record their gradients as
one node reading (g, input, grid or weight): a gradient that is a constant (nearest sampling,
a frozen kernel) still requires grad, with no derivative (None).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

import symgrad

_X = [[[[1.0, 5.0, 2.0], [4.0, 3.0, 0.5], [0.0, 6.0, 2.5]]]]
_S = [[[0.3, 0.7]]]  # fractional pooling's samples


def _second(T, f, x=_X, dtype="float64", named=True):
    """``f``'s first gradient at ``x`` (values, dtype, node unless not ``named``), whether it
    requires grad, and then its derivative along ``v = 1, 2, 3, ...`` (zeros where ``f`` is
    linear)."""
    x = T.tensor(x, dtype=getattr(T, dtype), requires_grad=True)
    (g,) = T.autograd.grad(f(T, T.nn.functional, x).sum(), x, create_graph=True)
    if not g.requires_grad:
        return g, False
    v = T.arange(1, g.numel() + 1, dtype=g.dtype).reshape(g.shape)
    (h,) = T.autograd.grad((g * v).sum(), x, allow_unused=True)
    return g if named else g.detach(), True, h


_W = [[[[1.0, -2.0], [0.5, 3.0]]]]
_GRID = [[[[-0.9, 0.3], [0.2, 0.8]], [[0.6, -0.1], [1.2, -0.7]]]]


def _constant(T, values, like):
    return T.tensor(values, dtype=like.dtype)


def _sample(T, F, x, grid, mode="bilinear", padding="zeros"):
    return F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=False)


def _frac(T, F, x):
    s = T.tensor(_S, dtype=x.dtype)
    return F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=s)


_CASES = {
    # the op alone: the first gradient is a constant, still a node with an edge to x
    "max_pool2d": lambda T, F, x: F.max_pool2d(x, 2, 1),
    "max_pool2d_padded_ceil": lambda T, F, x: F.max_pool2d(x, 2, 2, 1, ceil_mode=True),
    "max_pool2d_indices": lambda T, F, x: F.max_pool2d(x, 2, 1, return_indices=True)[0],
    "max_pool1d": lambda T, F, x: F.max_pool1d(x[0], 2),
    "max_pool3d": lambda T, F, x: F.max_pool3d(x, (1, 2, 2), 1),
    "avg_pool2d": lambda T, F, x: F.avg_pool2d(x, 2, 1),
    "avg_pool2d_count_exclude_pad": lambda T, F, x: F.avg_pool2d(
        x, 2, 2, 1, count_include_pad=False
    ),
    "avg_pool1d": lambda T, F, x: F.avg_pool1d(x[0], 2, 1),
    "adaptive_avg_pool2d": lambda T, F, x: F.adaptive_avg_pool2d(x, 2),
    "adaptive_max_pool2d": lambda T, F, x: F.adaptive_max_pool2d(x, 2),
    "adaptive_max_pool1d": lambda T, F, x: F.adaptive_max_pool1d(x[0], 2),
    "fractional_max_pool2d": _frac,
    "interpolate_area": lambda T, F, x: F.interpolate(x, size=(2, 2), mode="area"),
    "reflection_pad": lambda T, F, x: F.pad(x, (1, 2, 0, 1), mode="reflect"),
    "replication_pad": lambda T, F, x: F.pad(x, (1, 0, 2, 1), mode="replicate"),
    "replication_pad1d": lambda T, F, x: F.pad(x[0], (2, 1), mode="replicate"),
    # PyTorch's backward of these reads only the gradient: a constant first gradient
    "circular_pad": lambda T, F, x: F.pad(x, (1, 1, 1, 0), mode="circular"),
    "interpolate_bilinear": lambda T, F, x: F.interpolate(x, size=(2, 4), mode="bilinear"),
    # with a nonlinearity after: second derivatives through the pick, the window averages
    "max_pool2d_squared": lambda T, F, x: F.max_pool2d(x, 2, 1) ** 2,
    "avg_pool2d_squared": lambda T, F, x: F.avg_pool2d(x, 2, 1) ** 2,
    "reflection_pad_cubed": lambda T, F, x: F.pad(x, (1, 1, 1, 1), mode="reflect") ** 3,
    "adaptive_avg_pool2d_tanh": lambda T, F, x: T.tanh(F.adaptive_avg_pool2d(x, 2)),
    # grid sampling: the gradients are outputs of one node reading (g, input, grid)
    "grid_sample_nearest": lambda T, F, x: _sample(T, F, x, _constant(T, _GRID, x), "nearest"),
    "grid_sample_constant_grid": lambda T, F, x: _sample(T, F, x, _constant(T, _GRID, x)),
    "grid_sample_nearest_squared": lambda T, F, x: (
        _sample(T, F, x, _constant(T, _GRID, x), "nearest", "border") ** 2
    ),
    # a convolution by a constant (frozen) kernel: PyTorch's gradient is still a node
    "conv2d_frozen": lambda T, F, x: F.conv2d(x, _constant(T, _W, x), padding=1, stride=2),
    "conv_transpose2d_frozen": lambda T, F, x: F.conv_transpose2d(
        x, _constant(T, _W, x), stride=2, output_padding=1
    ),
    "conv1d_frozen_bias": lambda T, F, x: F.conv1d(
        x.reshape(1, 1, 9),
        _constant(T, [[[1.0, -2.0, 0.5]]], x),
        _constant(T, [0.5], x),
        dilation=2,
    ),
}
# the same with the grid as the variable (the input a constant)
_GRID_CASES = {
    "grid_sample_nearest_by_grid": lambda T, F, grid: _sample(
        T, F, _constant(T, _X, grid), grid, "nearest"
    ),
    "grid_sample_nearest_by_grid_squared": lambda T, F, grid: (
        _sample(T, F, _constant(T, _X, grid), grid, "nearest") ** 2
    ),
    "grid_sample_bilinear_by_grid": lambda T, F, grid: (
        _sample(T, F, _constant(T, _X, grid), grid, padding="reflection") ** 2
    ),
}

_EXPECTED = {
    "max_pool2d": (
        (
            [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "MaxPool2DWithIndicesBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "max_pool2d_padded_ceil": (
        (
            [[[[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]],
            "float64",
            "MaxPool2DWithIndicesBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "max_pool2d_indices": (
        (
            [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "MaxPool2DWithIndicesBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "max_pool1d": (
        (
            [[[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]],
            "float64",
            "SelectBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "max_pool3d": (
        (
            [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "MaxPool3DWithIndicesBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "avg_pool2d": (
        (
            [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]],
            "float64",
            "AvgPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "avg_pool2d_count_exclude_pad": (
        (
            [[[[1.0, 0.5, 0.5], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]]]],
            "float64",
            "AvgPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "avg_pool1d": (
        (
            [[[[0.5, 1.0, 0.5], [0.5, 1.0, 0.5], [0.5, 1.0, 0.5]]]],
            "float64",
            "SelectBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "adaptive_avg_pool2d": (
        (
            [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]],
            "float64",
            "AdaptiveAvgPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "adaptive_max_pool2d": (
        (
            [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "AdaptiveMaxPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "adaptive_max_pool1d": (
        (
            [[[[0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "SelectBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "fractional_max_pool2d": (
        (
            [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]],
            "float64",
            "FractionalMaxPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "interpolate_area": (
        (
            [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]],
            "float64",
            "AdaptiveAvgPool2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "reflection_pad": (
        (
            [[[[2.0, 3.0, 1.0], [4.0, 6.0, 2.0], [2.0, 3.0, 1.0]]]],
            "float64",
            "ReflectionPad2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "replication_pad": (
        (
            [[[[6.0, 3.0, 3.0], [2.0, 1.0, 1.0], [4.0, 2.0, 2.0]]]],
            "float64",
            "ReplicationPad2DBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "replication_pad1d": (
        (
            [[[[3.0, 1.0, 2.0], [3.0, 1.0, 2.0], [3.0, 1.0, 2.0]]]],
            "float64",
            "SelectBackwardBackward0",
        ),
        True,
        ([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], "float64", None),
    ),
    "circular_pad": (
        ([[[[2.0, 1.0, 2.0], [2.0, 1.0, 2.0], [4.0, 2.0, 4.0]]]], "float64", None),
        False,
    ),
    "interpolate_bilinear": (
        (
            [[[[1.0312, 0.9375, 1.0312], [0.6875, 0.625, 0.6875], [1.0312, 0.9375, 1.0312]]]],
            "float64",
            None,
        ),
        False,
    ),
    "max_pool2d_squared": (
        (
            [[[[0.0, 20.0, 0.0], [0.0, 0.0, 0.0], [0.0, 24.0, 0.0]]]],
            "float64",
            "MaxPool2DWithIndicesBackwardBackward0",
        ),
        True,
        ([[[[0.0, 8.0, 0.0], [0.0, 0.0, 0.0], [0.0, 32.0, 0.0]]]], "float64", None),
    ),
    "avg_pool2d_squared": (
        (
            [[[[1.625, 2.9375, 1.3125], [3.25, 6.0625, 2.8125], [1.625, 3.125, 1.5]]]],
            "float64",
            "AvgPool2DBackwardBackward0",
        ),
        True,
        ([[[[1.5, 3.5, 2.0], [4.5, 10.0, 5.5], [3.0, 6.5, 3.5]]]], "float64", None),
    ),
    "reflection_pad_cubed": (
        (
            [[[[3.0, 225.0, 12.0], [144.0, 243.0, 2.25], [0.0, 324.0, 18.75]]]],
            "float64",
            "ReflectionPad2DBackwardBackward0",
        ),
        True,
        ([[[[6.0, 180.0, 36.0], [288.0, 810.0, 54.0], [0.0, 864.0, 135.0]]]], "float64", None),
    ),
    "adaptive_avg_pool2d_tanh": (
        (
            [[[[0.0015, 0.0067, 0.0052], [0.003, 0.0107, 0.0077], [0.0015, 0.004, 0.0025]]]],
            "float64",
            "AdaptiveAvgPool2DBackwardBackward0",
        ),
        True,
        (
            [
                [
                    [
                        [-0.009, -0.0501, -0.0411],
                        [-0.0269, -0.1024, -0.0755],
                        [-0.0179, -0.0523, -0.0344],
                    ]
                ]
            ],
            "float64",
            None,
        ),
    ),
    "grid_sample_nearest": (
        (
            [[[[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]],
            "float64",
            "GridSampler2DBackwardBackward0",
        ),
        True,
        None,
    ),
    "grid_sample_constant_grid": (
        (
            [[[[0.0, 0.015, 0.325], [0.3575, 0.085, 0.765], [0.2925, 0.56, 0.24]]]],
            "float64",
            "GridSampler2DBackwardBackward0",
        ),
        True,
        None,
    ),
    "grid_sample_nearest_squared": (
        ([[[[0.0, 0.0, 4.0], [8.0, 0.0, 1.0], [0.0, 12.0, 0.0]]]], "float64", None),
        True,
        ([[[[0.0, 0.0, 6.0], [8.0, 0.0, 12.0], [0.0, 16.0, 0.0]]]], "float64", None),
    ),
    "conv2d_frozen": (
        (
            [[[[3.0, 0.5, 3.0], [-2.0, 1.0, -2.0], [3.0, 0.5, 3.0]]]],
            "float64",
            "ConvolutionBackwardBackward0",
        ),
        True,
        None,
    ),
    "conv_transpose2d_frozen": (
        (
            [[[[2.5, 2.5, 2.5], [2.5, 2.5, 2.5], [2.5, 2.5, 2.5]]]],
            "float64",
            "ConvolutionBackwardBackward0",
        ),
        True,
        None,
    ),
    "conv1d_frozen_bias": (
        ([[[[1.0, 1.0, -1.0], [-1.0, -0.5, -1.5], [-1.5, 0.5, 0.5]]]], "float64", "ViewBackward0"),
        True,
        None,
    ),
    "grid_sample_nearest_by_grid": (
        (
            [[[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]],
            "float64",
            "GridSampler2DBackwardBackward0",
        ),
        True,
        None,
    ),
    "grid_sample_nearest_by_grid_squared": (
        (
            [[[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]],
            "float64",
            "GridSampler2DBackwardBackward0",
        ),
        True,
        None,
    ),
    "grid_sample_bilinear_by_grid": (
        ([[[[0.0, -26.4], [-51.975, 0.0]], [[-7.5898, -4.5686], [0.0, 0.0]]]], "float64", None),
        True,
        ([[[[0.0, 144.0], [165.375, 0.0]], [[270.2166, 165.7237], [0.0, 0.0]]]], "float64", None),
    ),
}

CASES = {name: (lambda T, f=f: _second(T, f), _EXPECTED[name]) for name, f in _CASES.items()}
CASES.update(
    {
        name: (lambda T, f=f: _second(T, f, _GRID), _EXPECTED[name])
        for name, f in _GRID_CASES.items()
    }
)
# where the incoming gradient requires grad symgrad's nodes are those of its rule
for _name in ("grid_sample_nearest_squared", "grid_sample_bilinear_by_grid"):
    _at = _GRID if _name in _GRID_CASES else _X
    _f = _GRID_CASES.get(_name) or _CASES[_name]
    CASES[_name] = (lambda T, f=_f, x=_at: _second(T, f, x, named=False), _EXPECTED[_name])

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def _first_gradient(f, a):
    x = symgrad.tensor(a, requires_grad=True)
    (g,) = symgrad.autograd.grad(f(symgrad, symgrad.nn.functional, x).sum(), x)
    return g.numpy()


def test_second_derivatives_match_finite_differences():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((1, 2, 4, 5))
    v = rng.standard_normal(a.shape)
    eps = 1e-6
    for name in ("max_pool2d_squared", "avg_pool2d_squared", "reflection_pad_cubed"):
        f = _CASES[name]
        x = symgrad.tensor(a, requires_grad=True)
        (g,) = symgrad.autograd.grad(
            f(symgrad, symgrad.nn.functional, x).sum(), x, create_graph=True
        )
        (hv,) = symgrad.autograd.grad(g, x, symgrad.tensor(v))
        plus, minus = _first_gradient(f, a + eps * v), _first_gradient(f, a - eps * v)
        # the Hessian is symmetric: H v is the derivative of the gradient along v
        np.testing.assert_allclose(hv.numpy(), (plus - minus) / (2 * eps), atol=1e-6)


def test_hessians_of_pooling_stay_whole():
    a = np.array(_X)
    for f in (_CASES["max_pool2d_squared"], _CASES["max_pool2d"]):
        fn = lambda x, f=f: f(symgrad, symgrad.nn.functional, x).sum()  # noqa: E731
        by_func = symgrad.func.hessian(fn)(symgrad.tensor(a))
        by_autograd = symgrad.autograd.functional.hessian(fn, symgrad.tensor(a))
        assert by_func.shape == by_autograd.shape == (1, 1, 3, 3) * 2
        np.testing.assert_array_equal(by_func.numpy(), by_autograd.numpy())
    square = by_func.numpy()  # the last f is the op alone: a zero Hessian
    assert not square.any()


def test_gradient_penalty_of_a_pooled_critic():
    """A WGAN-GP style penalty: the gradient's norm through conv, max pooling and padding,
    differentiated again for the weights."""
    rng = np.random.default_rng(4)
    w = symgrad.tensor(rng.standard_normal((2, 1, 2, 2)), requires_grad=True)
    x = symgrad.tensor(rng.standard_normal((3, 1, 5, 5)), requires_grad=True)
    F = symgrad.nn.functional
    score = F.max_pool2d(F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w), 2).sum()
    (g,) = symgrad.autograd.grad(score, x, create_graph=True)
    assert g.requires_grad
    assert type(g.grad_fn).__name__ == "ReflectionPad2DBackwardBackward0"
    penalty = ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
    (gw,) = symgrad.autograd.grad(penalty, w)
    assert gw.shape == w.shape and np.isfinite(gw.numpy()).all() and gw.numpy().any()


def test_input_changed_in_place_after_pooling_is_an_error():
    """The pooling saves its input (as PyTorch's does): an in-place change before backward
    is an error."""
    x = symgrad.tensor(_X, requires_grad=True)
    y = x * 1
    out = symgrad.nn.functional.max_pool2d(y, 2, 1)
    y.add_(1)
    try:
        out.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("no error")

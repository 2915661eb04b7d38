"""Resizing: ``interpolate`` and the ``Upsample`` layers, by hand (nearest, nearest-exact,
linear with and without aligned corners, gradients, closed forms) and against PyTorch
(values in float32 and float64, gradients, node names, exception types, reprs)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn


def test_nearest_values_and_gradient_by_hand():
    x = symgrad.tensor([[[1.0, 2.0, 4.0]]], requires_grad=True)
    y = F.interpolate(x, scale_factor=2)
    assert y.tolist() == [[[1.0, 1.0, 2.0, 2.0, 4.0, 4.0]]]
    assert y.grad_fn.name() == "UpsampleNearest1DBackward0"
    (y * symgrad.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [[[1.0, 5.0, 9.0]]]
    # 3 -> 2: nearest takes floor(j * 1.5), nearest-exact floor((j + 0.5) * 1.5)
    assert F.interpolate(x, size=2).tolist() == [[[1.0, 2.0]]]
    exact = F.interpolate(x, size=2, mode="nearest-exact")
    assert exact.tolist() == [[[1.0, 4.0]]]
    assert exact.grad_fn.name() == "UpsampleNearestExact1DBackward0"


def test_bilinear_values_and_gradient_by_hand():
    x = symgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], requires_grad=True)
    y = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert y.tolist() == [
        [
            [
                [1.0, 1.25, 1.75, 2.0],
                [1.5, 1.75, 2.25, 2.5],
                [2.5, 2.75, 3.25, 3.5],
                [3.0, 3.25, 3.75, 4.0],
            ]
        ]
    ]
    assert y.grad_fn.name() == "UpsampleBilinear2DBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]
    aligned = F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
    assert aligned.tolist() == [[[[1.0, 1.5, 2.0], [2.0, 2.5, 3.0], [3.0, 3.5, 4.0]]]]


def test_linear_closed_form():
    x = symgrad.tensor([[[1.0, 2.0]]], name="x")
    y = F.interpolate(x, size=3, mode="linear", align_corners=True)
    expr = symgrad.symbolic.expression(y)
    assert str(expr) == "[[[x[0, 0, 0], x[0, 0, 0]/2 + x[0, 0, 1]/2, x[0, 0, 1]]]]"


def test_trilinear_and_nearest_3d_shapes():
    x = symgrad.zeros(1, 2, 2, 3, 4)
    y = F.interpolate(x, scale_factor=(2, 1, 0.5), mode="trilinear")
    assert y.shape == (1, 2, 4, 3, 2)
    assert F.interpolate(x, size=5).shape == (1, 2, 5, 5, 5)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"size": 2, "scale_factor": 2}, ValueError, "only one of size or scale_factor"),
        ({}, ValueError, "either size or scale_factor"),
        ({"size": (2,)}, ValueError, "same number of spatial dimensions"),
        ({"size": 2, "align_corners": True}, ValueError, "align_corners option"),
        ({"size": 2, "mode": "linear"}, NotImplementedError, "linear mode needs 3D input"),
        ({"size": 2, "mode": "foo"}, NotImplementedError, "Only 3D, 4D and 5D"),
        ({"size": 0}, RuntimeError, "sizes should be greater than 0"),
        ({"scale_factor": 0.2}, RuntimeError, "sizes should be greater than 0"),
        ({"size": (2, 2.5)}, TypeError, "expected size"),
        ({"size": 2, "antialias": True}, ValueError, "Anti-alias"),
    ],
)
def test_interpolate_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        F.interpolate(symgrad.zeros(1, 1, 3, 3), **kwargs)


def test_upsample_layers():
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(nn.Upsample(size=(3, 4), mode="bilinear")) == (
        "Upsample(size=(3, 4), mode='bilinear')"
    )
    x = symgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    assert nn.UpsamplingNearest2d(scale_factor=2)(x)[0, 0, 1].tolist() == [1.0, 1.0, 2.0, 2.0]
    bilinear = nn.UpsamplingBilinear2d(size=3)
    assert bilinear.align_corners is True
    assert bilinear(x)[0, 0, 1].tolist() == [2.0, 2.5, 3.0]


MODES = [
    ("nearest", 1, None),
    ("nearest", 2, None),
    ("nearest", 3, None),
    ("nearest-exact", 1, None),
    ("nearest-exact", 2, None),
    ("linear", 1, False),
    ("linear", 1, True),
    ("bilinear", 2, False),
    ("bilinear", 2, True),
    ("trilinear", 3, False),
    ("area", 2, None),
]
SPECS = [
    {"size": 5},
    {"size": 2},
    {"scale_factor": 2},
    {"scale_factor": 1.7},
    {"scale_factor": 0.6},
    {"scale_factor": 2.5, "recompute_scale_factor": True},
]


@pytest.mark.parametrize("mode, d, align", MODES)
@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_interpolate_against_torch(mode, d, align, spec):
    torch = pytest.importorskip("torch")
    from .torch_pairs import compare

    shape = (2, 2) + (4, 3, 2)[:d]
    a = np.random.default_rng(d).standard_normal(shape)

    def call(T, x):
        return T.nn.functional.interpolate(x, mode=mode, align_corners=align, **spec)

    # area is adaptive average pooling, whose first gradient PyTorch marks as requiring
    # grad (see docs/api.md on pooling)
    compare(call, [a], flags=mode != "area")
    a32 = a.astype(np.float32)
    np.testing.assert_allclose(
        call(symgrad, symgrad.tensor(a32)).numpy(),
        call(torch, torch.tensor(a32)).numpy(),
        rtol=0,
        atol=2e-6,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": 2, "scale_factor": 2},
        {"size": (2,)},
        {"size": 2, "align_corners": True},
        {"size": 2, "mode": "linear"},
        {"size": 0},
        {"size": (2, 2.5)},
        {"size": 3, "recompute_scale_factor": True},
    ],
    ids=str,
)
def test_interpolate_error_types_match_torch(kwargs):
    pytest.importorskip("torch")
    from .torch_pairs import errors_alike

    errors_alike(lambda T, x: T.nn.functional.interpolate(x, **kwargs), [np.zeros((1, 1, 3, 3))])


def test_upsample_reprs_match_torch():
    torch = pytest.importorskip("torch")
    for args in [
        {"scale_factor": 2},
        {"size": 4, "mode": "bilinear"},
        {"scale_factor": (2, 3), "mode": "nearest-exact"},
    ]:
        assert repr(nn.Upsample(**args)) == repr(torch.nn.Upsample(**args))
    assert repr(nn.UpsamplingBilinear2d(scale_factor=2)) == repr(
        torch.nn.UpsamplingBilinear2d(scale_factor=2)
    )
    assert repr(nn.UpsamplingNearest2d(size=3)) == repr(torch.nn.UpsamplingNearest2d(size=3))


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_gradcheck(mode):
    x = symgrad.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda x: F.interpolate(x, scale_factor=1.5, mode=mode), (x,))
    assert symgrad.autograd.gradgradcheck(
        lambda x: F.interpolate(x, size=(4, 3), mode=mode) ** 2, (x,)
    )


def test_deprecated_names_warn_and_resize():
    x = symgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    with pytest.warns(UserWarning, match="upsample` is deprecated"):
        assert F.upsample(x, scale_factor=2).shape == (1, 1, 4, 4)
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        assert F.upsample_nearest(x, 3)[0, 0, 0].tolist() == [1.0, 1.0, 2.0]
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        assert F.upsample_bilinear(x, 3)[0, 0, 0].tolist() == [1.0, 1.5, 2.0]


def test_integer_images():
    x = symgrad.tensor([[[[1, 2], [3, 4]]]], dtype=symgrad.uint8)
    assert F.interpolate(x, scale_factor=2)[0, 0, 1].tolist() == [1, 1, 2, 2]
    # PyTorch rounds uint8 after each pass of its own kernel: refused rather than guessed
    with pytest.raises(NotImplementedError, match="floating"):
        F.interpolate(x, scale_factor=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match="Bool"):
        F.interpolate(x.bool(), scale_factor=2)


# PyTorch's 1-d and 3-d nearest kernels compute floor(j / scale) for every output while their
# backward kernels (and the 2-d ones) copy each input twice where the output is twice as long
NEAREST_SHORTCUTS = [
    # (shape, scale_factor, first row of the output, first row of the gradient)
    ((1, 1, 5), 2.161, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4], [3, 7, 11, 15, 19]),
    ((1, 1, 4), 1.1, [0, 0, 1, 2], [1, 2, 3, 4]),  # (as many outputs: a copy backward)
    ((1, 1, 5, 5), 2.161, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [26, 34, 42, 50, 58]),
    ((1, 1, 2, 2, 5), 2.161, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4], [212, 228, 244, 260, 276]),
]


def _nearest_rows(T, shape, scale):
    x = T.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
    y = F_of(T).interpolate(x, scale_factor=scale)
    y.backward(T.arange(1.0, y.numel() + 1).reshape(y.shape))
    first = (0,) * (len(shape) - 1)
    return y[first].int().tolist(), x.grad[first].int().tolist()


def F_of(T):  # noqa: N802 - the functional module of symgrad or torch
    return T.nn.functional


@pytest.mark.parametrize("shape, scale, values, grad", NEAREST_SHORTCUTS)
def test_nearest_1d_and_3d_scale_their_outputs_and_their_gradients_as_pytorch(
    shape, scale, values, grad
):
    assert _nearest_rows(symgrad, shape, scale) == (values, grad)


@pytest.mark.torch
@pytest.mark.parametrize("shape, scale, values, grad", NEAREST_SHORTCUTS)
def test_nearest_shortcuts_match_torch(shape, scale, values, grad):
    torch = pytest.importorskip("torch")
    assert _nearest_rows(torch, shape, scale) == (values, grad)


def _resized(T, shape, scale, mode, weights, antialias=False):
    x = T.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
    y = F_of(T).interpolate(x, scale_factor=scale, mode=mode, antialias=antialias)
    y.backward(T.tensor(weights).reshape(y.shape))
    rounded = [round(v, 4) for v in x.grad.flatten().tolist()]
    return [round(v, 4) for v in y.flatten().tolist()], rounded


UNCHANGED_SIZES = {
    # PyTorch's linear kernels copy a dimension whose size the scale factor leaves
    "linear": (
        ((1, 1, 3), 1.11, "linear", [1.0, 2.0, 3.0]),
        ([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]),
    ),
    "bilinear": (
        ((1, 1, 3, 2), (1.2, 2.0), "bilinear", [1.0] * 12),
        (
            [0.0, 0.25, 0.75, 1.0, 2.0, 2.25, 2.75, 3.0, 4.0, 4.25, 4.75, 5.0],
            [2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
        ),
    ),
    # the anti-aliased forward skips such a dimension, its backward filters it
    "bilinear_antialias": (
        ((1, 1, 4, 2), (0.5, 1.2), "bilinear", [1.0, 2.0, 3.0, 4.0], True),
        (
            [1.4286, 2.4286, 4.5714, 5.5714],
            [0.6429, 0.6429, 1.2143, 1.0714, 1.9286, 1.5, 1.7143, 1.2857],
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(UNCHANGED_SIZES))
def test_a_dimension_of_unchanged_size_is_resized_as_pytorch(name):
    args, expected = UNCHANGED_SIZES[name]
    assert _resized(symgrad, *args) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(UNCHANGED_SIZES))
def test_a_dimension_of_unchanged_size_is_resized_so_in_torch(name):
    torch = pytest.importorskip("torch")
    args, expected = UNCHANGED_SIZES[name]
    assert _resized(torch, *args) == expected


def _resized_twice(T, shape, scale, mode, antialias=False):
    """The gradient of a gradient with respect to the incoming gradient: PyTorch's backward
    of a resize's backward kernel is the forward resize, even where the backward kernel
    takes other inputs than the forward."""
    x = T.zeros(shape, dtype=T.float64, requires_grad=True)
    y = F_of(T).interpolate(x, scale_factor=scale, mode=mode, antialias=antialias)
    v = T.ones(y.shape, dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(y, x, v, create_graph=True)
    weights = T.arange(float(g.numel()), dtype=T.float64).reshape(g.shape)
    (gg,) = T.autograd.grad(g, v, weights)
    return [round(t, 4) for t in gg.flatten().tolist()]


RESIZED_TWICE = [
    (((1, 1, 2, 3), 1.2, "bicubic"), [-0.2101, 0.5104, 1.5119, 2.2678, 2.9883, 3.9897]),
    (((1, 1, 4), 1.1, "nearest"), [0.0, 0.0, 1.0, 2.0]),
    (((1, 1, 4, 2), (0.5, 1.2), "bilinear", True), [1.4286, 2.4286, 4.5714, 5.5714]),
]


@pytest.mark.parametrize("args, expected", RESIZED_TWICE)
def test_a_backward_kernel_differentiates_as_the_forward_resize(args, expected):
    assert _resized_twice(symgrad, *args) == expected


@pytest.mark.torch
@pytest.mark.parametrize("args, expected", RESIZED_TWICE)
def test_a_backward_kernel_differentiates_so_in_torch(args, expected):
    torch = pytest.importorskip("torch")
    assert _resized_twice(torch, *args) == expected

"""``interpolate`` with ``mode='bicubic'`` and ``antialias=True`` (bilinear, bicubic,
lanczos): values and gradients by hand, errors, and against PyTorch (values in float32 and
float64, gradients, double backward, node names, exception types)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn
from symgrad.autograd import gradcheck, gradgradcheck


def test_bicubic_by_hand():
    # 2 -> 4 without aligned corners: sources -0.25, 0.25, 0.75, 1.25, taps clamped to the
    # border; at fraction 0.75 the cubic weights are -9/256, 67/256, 225/256, -27/256
    x = symgrad.tensor([[[[0.0, 1.0]]]], dtype=symgrad.float64, requires_grad=True)
    y = F.interpolate(x, size=(1, 4), mode="bicubic")
    assert y.tolist() == [[[[-0.10546875, 0.2265625, 0.7734375, 1.10546875]]]]
    assert y.grad_fn.name() == "UpsampleBicubic2DBackward0"
    y.backward(symgrad.tensor([[[[1.0, 0.0, 0.0, 0.0]]]], dtype=symgrad.float64))
    assert x.grad.tolist() == [[[[1.10546875, -0.10546875]]]]
    # at a source pixel the cubic weights are 0, 1, 0, 0
    x = symgrad.tensor([[[[1.0, 5.0, 2.0]]]])
    assert F.interpolate(x, size=(1, 5), mode="bicubic", align_corners=True)[0, 0, 0, 2] == 5.0


def test_antialias_by_hand():
    # 4 -> 2 bilinear: the triangle widened to 2 inputs each side; weights 3/7, 3/7, 1/7
    x = symgrad.tensor([[[[1.0, 2.0, 3.0, 4.0]]]], dtype=symgrad.float64, requires_grad=True)
    y = F.interpolate(x, size=(1, 2), mode="bilinear", antialias=True)
    np.testing.assert_allclose(y.detach().numpy(), [[[[12 / 7, 23 / 7]]]], rtol=1e-15)
    assert y.grad_fn.name() == "UpsampleBilinear2DAaBackward0"
    y.backward(symgrad.tensor([[[[7.0, 0.0]]]], dtype=symgrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [[[[3.0, 3.0, 1.0, 0.0]]]], rtol=1e-15)
    cubic = F.interpolate(x, size=(1, 2), mode="bicubic", antialias=True)
    assert cubic.grad_fn.name() == "UpsampleBicubic2DAaBackward0"
    lanczos = F.interpolate(x, size=(1, 2), mode="lanczos", antialias=True)
    assert lanczos.grad_fn.name() == "UpsampleLanczos2DAaBackward0"
    # upsampling keeps the filter's own width: bilinear antialias is plain bilinear then
    same = F.interpolate(x, size=(1, 7), mode="bilinear", antialias=True)
    plain = F.interpolate(x, size=(1, 7), mode="bilinear")
    np.testing.assert_allclose(same.detach().numpy(), plain.detach().numpy(), rtol=1e-15)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "bicubic", "scale_factor": 1.5},
        {"mode": "bicubic", "size": (2, 5), "align_corners": True},
        {"mode": "bilinear", "antialias": True, "size": (2, 2)},
        {"mode": "bicubic", "antialias": True, "scale_factor": 0.7},
        {"mode": "lanczos", "antialias": True, "size": (4, 2)},
    ],
    ids=str,
)
def test_gradcheck(kwargs):
    x = symgrad.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.interpolate(x, **kwargs) ** 2, (x,))


@pytest.mark.parametrize(
    "shape, kwargs, error, message",
    [
        ((1, 1, 3), {"mode": "bicubic"}, NotImplementedError, "got bicubic"),
        ((1, 1, 3, 3, 3), {"mode": "bicubic"}, NotImplementedError, "got bicubic"),
        ((1, 1, 3), {"mode": "bilinear", "antialias": True}, ValueError, "Anti-alias"),
        ((1, 1, 3, 3), {"mode": "nearest", "antialias": True}, ValueError, "Anti-alias"),
        ((1, 1, 3, 3), {"mode": "lanczos"}, ValueError, "requires antialias=True"),
        (
            (1, 1, 3, 3),
            {"mode": "lanczos", "antialias": True, "align_corners": True},
            ValueError,
            "does not support align_corners",
        ),
        ((1, 1, 3), {"mode": "lanczos"}, NotImplementedError, "got lanczos"),
    ],
    ids=str,
)
def test_errors(shape, kwargs, error, message):
    with pytest.raises(error, match=message):
        F.interpolate(symgrad.zeros(*shape), scale_factor=2, **kwargs)


def test_integer_inputs():
    x = symgrad.tensor([[[[1, 2], [3, 4]]]])
    with pytest.raises(NotImplementedError, match="compute_indices_weights_cubic.*Long"):
        F.interpolate(x, scale_factor=2, mode="bicubic")
    with pytest.raises(NotImplementedError, match="compute_index_ranges_weights.*Long"):
        F.interpolate(x, scale_factor=2, mode="bilinear", antialias=True)
    with pytest.raises(NotImplementedError, match="floating"):
        F.interpolate(x.to(symgrad.uint8), scale_factor=2, mode="bicubic", antialias=True)


def test_upsample_layer_bicubic():
    up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)
    assert repr(up) == "Upsample(scale_factor=2.0, mode='bicubic')"
    y = up(symgrad.tensor([[[[1.0, 3.0]]]]))
    assert y.shape == (1, 1, 2, 4)
    assert y[0, 0, 0, 0].item() == 1.0 and y[0, 0, 1, 3].item() == 3.0


CASES = [
    ("bicubic", False, False),
    ("bicubic", False, True),
    ("bilinear", True, False),
    ("bilinear", True, True),
    ("bicubic", True, False),
    ("bicubic", True, True),
    ("lanczos", True, False),
]
SPECS = [
    {"size": (3, 7)},
    {"scale_factor": 0.6},
    {"scale_factor": (1.7, 2.5)},
    {"scale_factor": (0.45, 1.3), "recompute_scale_factor": True},
]


@pytest.mark.parametrize("mode, antialias, align", CASES)
@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_against_torch(mode, antialias, align, spec):
    torch = pytest.importorskip("torch")
    from .torch_pairs import compare

    a = np.random.default_rng(1).standard_normal((2, 2, 5, 4))

    def call(T, x):
        return T.nn.functional.interpolate(
            x, mode=mode, align_corners=align, antialias=antialias, **spec
        )

    compare(call, [a], rtol=1e-12, atol=1e-12)
    a32 = a.astype(np.float32)
    np.testing.assert_allclose(
        call(symgrad, symgrad.tensor(a32)).numpy(),
        call(torch, torch.tensor(a32)).numpy(),
        rtol=2e-6,
        atol=2e-6,
    )


def test_torch_forward_backward_quirks():
    """Where PyTorch's CPU forward and its own backward disagree. Anti-aliased: a dimension
    whose size does not change is not resampled by the forward (even with a scale factor
    other than 1), and an output one pixel wide makes the forward repeat the first row's
    weights down every row. Bicubic: the backward copies the gradient when no size changes,
    while the forward resamples with the scale factor. symgrad follows the forward, except
    for the repeated rows, where it follows the backward and resamples every row."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((1, 1, 7, 3))
    same = {"scale_factor": (1.3, 1.3), "mode": "bilinear", "antialias": True}  # 3 -> 3 wide
    ours = F.interpolate(symgrad.tensor(x), **same).numpy()
    theirs = torch.nn.functional.interpolate(torch.tensor(x), **same).numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    narrow = {"size": (2, 1), "mode": "bilinear", "antialias": True}
    ours = symgrad.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, ty = F.interpolate(ours, **narrow), torch.nn.functional.interpolate(theirs, **narrow)
    assert ty[0, 0, 0, 0].item() == ty[0, 0, 1, 0].item()  # PyTorch's repeated row
    assert y[0, 0, 0, 0].item() != y[0, 0, 1, 0].item()
    y[0, 0, 1, 0].backward()
    ty[0, 0, 1, 0].backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-12)
    # the value symgrad gives is the one PyTorch's gradient describes
    assert np.isclose(y[0, 0, 1, 0].item(), float((theirs.grad.numpy() * x).sum()))
    cubic = {"scale_factor": 1.12, "mode": "bicubic"}  # 7 x 3 stays 7 x 3
    ours = symgrad.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, ty = F.interpolate(ours, **cubic), torch.nn.functional.interpolate(theirs, **cubic)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), atol=1e-12)
    y[0, 0, 3, 1].backward()
    ty[0, 0, 3, 1].backward()
    assert theirs.grad[0, 0, 3, 1].item() == 1.0 and theirs.grad.abs().sum().item() == 1.0
    assert ours.grad[0, 0, 3, 1].item() < 1.0  # the forward's weights, transposed
    assert np.isclose(y[0, 0, 3, 1].item(), float((ours.grad.numpy() * x).sum()))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "bicubic", "size": 2},
        {"mode": "bicubic", "size": 2, "antialias": True},
        {"mode": "lanczos", "size": 2},
        {"mode": "lanczos", "size": 2, "antialias": True, "align_corners": True},
        {"mode": "bilinear", "size": 2, "antialias": True},
    ],
    ids=str,
)
@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 1, 3, 3, 3)])
def test_error_types_match_torch(kwargs, shape):
    pytest.importorskip("torch")
    from .torch_pairs import errors_alike

    errors_alike(lambda T, x: T.nn.functional.interpolate(x, **kwargs), [np.zeros(shape)])

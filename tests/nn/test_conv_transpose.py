"""Transposed convolutions: values and gradients by hand, the argument checks, the layers
(initialisation, ``output_size=``, repr) and cross-checks against PyTorch (values, gradients
of every input, double backward, node names, exception types)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn


def test_conv_transpose2d_values_and_gradients_by_hand():
    x = symgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=symgrad.float64, requires_grad=True)
    w = symgrad.tensor([[[[1.0, -1.0], [0.0, 2.0]]]], dtype=symgrad.float64, requires_grad=True)
    y = F.conv_transpose2d(x, w, stride=2)
    assert y.tolist() == [
        [
            [
                [1.0, -1.0, 2.0, -2.0],
                [0.0, 2.0, 0.0, 4.0],
                [3.0, -3.0, 4.0, -4.0],
                [0.0, 6.0, 0.0, 8.0],
            ]
        ]
    ]
    assert y.grad_fn.name() == "ConvolutionBackward0"
    (y * symgrad.arange(16.0, dtype=symgrad.float64).reshape(y.shape)).sum().backward()
    # each input's gradient is its 2x2 block of the weights times the block's gradient
    assert x.grad.tolist() == [[[[9.0, 13.0], [25.0, 29.0]]]]
    assert w.grad.tolist() == [[[[68.0, 78.0], [108.0, 118.0]]]]


def test_conv_transpose1d_output_padding_groups_and_unbatched():
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = symgrad.tensor([[[1.0, 1.0]], [[1.0, -1.0]]])
    y = F.conv_transpose1d(x, w, symgrad.tensor([0.0, 10.0]), stride=2, output_padding=1, groups=2)
    assert y.tolist() == [[1.0, 1.0, 2.0, 2.0, 0.0], [13.0, 7.0, 14.0, 6.0, 10.0]]
    assert y.grad_fn.name() == "SqueezeBackward1"
    assert F.conv_transpose1d(x[None], w, groups=2, dilation=2).shape == (1, 2, 4)


def test_conv_transpose_is_the_input_gradient_of_conv():
    rng = np.random.default_rng(1)
    z = symgrad.tensor(rng.standard_normal((2, 4, 8, 7)), requires_grad=True)
    w = symgrad.tensor(rng.standard_normal((6, 2, 3, 2)))
    g = symgrad.tensor(rng.standard_normal((2, 6, 4, 2)))
    (F.conv2d(z, w, stride=(2, 3), padding=(1, 0), dilation=(1, 2), groups=2) * g).sum().backward()
    out = F.conv_transpose2d(
        g, w, stride=(2, 3), padding=(1, 0), output_padding=(1, 1), groups=2, dilation=(1, 2)
    )
    np.testing.assert_allclose(out.numpy(), z.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=2), "output padding"),
        (lambda x, w: F.conv_transpose2d(x[:, :1], w), "to have 2 channels"),
        (lambda x, w: F.conv_transpose2d(x, w, padding=2), "Output size is too small"),
        (lambda x, w: F.conv_transpose2d(x, w, groups=3), "expected weight to be at least 3"),
        (lambda x, w: F.conv_transpose2d(x[:, :1], w[:1], groups=2), "at least 2 at dimension 0"),
        (lambda x, w: F.conv_transpose2d(x, w, symgrad.zeros(2)), "with 3 elements"),
        (lambda x, w: F.conv_transpose2d(x[0, 0], w), "Expected 3D (unbatched) or 4D"),
        (lambda x, w: F.conv_transpose2d(x, w, padding=-1), "negative padding"),
        (lambda x, w: F.conv_transpose2d(x, w, stride=0), "non-positive stride"),
    ],
)
def test_conv_transpose_errors(call, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(symgrad.zeros(1, 2, 3, 3), symgrad.zeros(2, 3, 2, 2))
    with pytest.raises(TypeError, match="must be tuple of ints|must be a tuple of ints"):
        F.conv_transpose2d(symgrad.zeros(1, 2, 3, 3), symgrad.zeros(2, 3, 2, 2), padding="same")


def test_conv_transpose_layers():
    layer = nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1, output_padding=1, groups=2)
    assert repr(layer) == (
        "ConvTranspose2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), "
        "output_padding=(1, 1), groups=2)"
    )
    assert layer.weight.shape == (4, 3, 3, 2) and layer.bias.shape == (6,)
    assert layer.transposed is True
    bound = 1 / np.sqrt(3 * 3 * 2)  # fan_in = weight.shape[1] * kernel positions
    assert float(layer.bias.detach().abs().max()) <= bound
    assert float(layer.weight.detach().abs().max()) <= bound
    assert layer(symgrad.zeros(1, 4, 5, 5)).shape == (1, 6, 10, 9)
    assert repr(nn.ConvTranspose1d(2, 3, 4, bias=False)) == (
        "ConvTranspose1d(2, 3, kernel_size=(4,), stride=(1,), bias=False)"
    )
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


def test_conv_transpose_output_size():
    layer = nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1)
    x = symgrad.zeros(1, 1, 4, 4)
    assert layer(x).shape == (1, 1, 7, 7)
    assert layer(x, output_size=[8, 8]).shape == (1, 1, 8, 8)
    assert layer(x, output_size=(1, 1, 8, 7)).shape == (1, 1, 8, 7)
    assert layer(x[0], output_size=[1, 8, 8]).shape == (1, 8, 8)
    with pytest.raises(ValueError, match="valid sizes range from"):
        layer(x, output_size=[9, 8])
    with pytest.raises(ValueError, match="output_size must have 2 or 4 elements"):
        layer(x, output_size=[8])


CASES = [
    ("conv_transpose1d", (2, 3, 4), (3, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("conv_transpose1d", (2, 5), (2, 3, 2), {"dilation": 2}),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 3, 2, 2), {}),
    ("conv_transpose2d", (2, 4, 3, 2), (4, 1, 3, 2), {"stride": (2, 3), "groups": 2}),
    (
        "conv_transpose2d",
        (1, 2, 3, 4),
        (2, 2, 2, 3),
        {"stride": 2, "padding": (1, 0), "output_padding": (1, 0), "dilation": (1, 2)},
    ),
    ("conv_transpose2d", (2, 3, 3), (2, 1, 2, 2), {"dilation": 3, "output_padding": 2}),
    ("conv_transpose3d", (1, 2, 2, 2, 3), (2, 1, 2, 1, 2), {"stride": (1, 2, 1)}),
]


@pytest.mark.parametrize("name, x_shape, w_shape, kwargs", CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose_against_torch(name, x_shape, w_shape, kwargs, bias):
    pytest.importorskip("torch")
    from .torch_pairs import compare

    rng = np.random.default_rng(len(x_shape) + len(kwargs))
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape)]
    if bias:
        out_channels = w_shape[1] * kwargs.get("groups", 1)
        arrays.append(rng.standard_normal(out_channels))
    # PyTorch's first gradients require grad also where they depend on nothing that does
    # (the bias's; see docs/api.md on convolution): the flags are not compared
    compare(lambda T, *ts: getattr(T.nn.functional, name)(*ts, **kwargs), arrays, flags=False)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"stride": 2, "output_padding": 2},
        {"padding": 2},
        {"groups": 3},
        {"stride": (1, 2, 3)},
        {"padding": "same"},
        {"stride": 1.5},
    ],
)
def test_conv_transpose_error_types_match_torch(kwargs):
    pytest.importorskip("torch")
    from .torch_pairs import errors_alike

    call = lambda T, x, w: T.nn.functional.conv_transpose2d(x, w, **kwargs)  # noqa: E731
    errors_alike(call, [np.zeros((1, 2, 3, 3)), np.zeros((2, 3, 2, 2))])


def test_conv_transpose_layer_init_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    symgrad.manual_seed(0)
    ours = nn.ConvTranspose2d(3, 4, 2, stride=2)
    theirs = torch.nn.ConvTranspose2d(3, 4, 2, stride=2)
    assert repr(ours) == repr(theirs)
    assert ours.weight.shape == tuple(theirs.weight.shape)
    ours.weight.data = symgrad.tensor(theirs.weight.detach().numpy())
    ours.bias.data = symgrad.tensor(theirs.bias.detach().numpy())
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        ours(symgrad.tensor(x), output_size=[9, 9]).detach().numpy(),
        theirs(torch.tensor(x), output_size=[9, 9]).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_conv_transpose_gradcheck_and_vmap():
    rng = np.random.default_rng(3)
    x = symgrad.tensor(rng.standard_normal((1, 2, 3, 2)), requires_grad=True)
    w = symgrad.tensor(rng.standard_normal((2, 2, 2, 2)), requires_grad=True)
    b = symgrad.tensor(rng.standard_normal(4), requires_grad=True)

    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)

    assert symgrad.autograd.gradcheck(f, (x, w, b))
    assert symgrad.autograd.gradgradcheck(f, (x, w, b))
    xs = symgrad.tensor(rng.standard_normal((3, 1, 2, 3, 2)))
    ws = symgrad.tensor(rng.standard_normal((3, 2, 2, 2, 2)))
    batched = symgrad.func.vmap(lambda x, w: f(x, w, b.detach()))(xs, ws)
    for i in range(3):
        np.testing.assert_allclose(
            batched[i].numpy(), f(xs[i], ws[i], b.detach()).numpy(), rtol=1e-12
        )
    one = symgrad.func.vmap(lambda x: f(x, w.detach(), b.detach()))(xs)
    np.testing.assert_allclose(one[1].numpy(), f(xs[1], w, b).detach().numpy(), rtol=1e-12)

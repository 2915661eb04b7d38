"""Convolution, pooling, padding and attention against PyTorch: values and gradients by hand
(the stored numbers were printed by PyTorch 2.13), argument checks, return types, modules and
their reprs; a LeNet from copied weights trains as PyTorch's does."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn

HAS_TORCH = importlib.util.find_spec("torch") is not None
X4 = [[[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0], [9.0, 7.0, 9.0, 3.0]]]


def test_conv2d_values_and_gradients_by_hand():
    x = symgrad.arange(16.0, dtype=symgrad.float64).reshape(1, 1, 4, 4).requires_grad_()
    w = symgrad.tensor(
        [[[[1.0, 0.0], [0.0, -1.0]]], [[[0.5, 0.5], [0.5, 0.5]]]],
        dtype=symgrad.float64,
        requires_grad=True,
    )
    y = F.conv2d(x, w, symgrad.tensor([0.0, 1.0], dtype=symgrad.float64), stride=2, padding=1)
    assert y.tolist() == [
        [
            [[0.0, -2.0, 0.0], [-8.0, -5.0, 7.0], [0.0, 13.0, 15.0]],
            [[1.0, 2.5, 2.5], [7.0, 16.0, 10.0], [7.0, 14.5, 8.5]],
        ]
    ]
    assert y.grad_fn.name() == "ConvolutionBackward0"
    (y * symgrad.arange(18.0, dtype=symgrad.float64).reshape(y.shape)).sum().backward()
    assert x.grad.tolist() == [
        [
            [
                [4.5, 5.0, 4.0, 5.5],
                [6.0, 10.5, 6.5, 12.0],
                [3.0, 6.5, 2.5, 7.0],
                [7.5, 15.0, 8.0, 16.5],
            ]
        ]
    ]
    assert w.grad.tolist() == [[[[266.0, 206.0], [98.0, 66.0]]], [[[626.0, 530.0], [314.0, 246.0]]]]


def test_conv1d_unbatched_and_closed_form():
    x = symgrad.tensor([[1.0, 2.0, 3.0]], name="x")
    w = symgrad.tensor([[[0.5, -1.0]]], requires_grad=True, name="w")
    y = F.conv1d(x, w)
    assert y.tolist() == [[-1.5, -2.0]] and y.grad_fn.name() == "SqueezeBackward1"
    expr = str(symgrad.symbolic.expression(y.sum()))
    assert (
        expr == "w[0, 0, 0]*x[0, 0] + w[0, 0, 0]*x[0, 1] + w[0, 0, 1]*x[0, 1] + w[0, 0, 1]*x[0, 2]"
    )
    (dw,) = symgrad.symbolic.gradient(y.sum(), [w])
    assert str(dw.tolist()) == "[[[x[0, 0] + x[0, 1], x[0, 1] + x[0, 2]]]]"


def test_pooling_values_by_hand():
    x = symgrad.tensor(X4)
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    assert values.tolist() == [[[9.0, 6.0], [9.0, 9.0]]] and indices.tolist() == [
        [[5, 7], [12, 14]]
    ]
    assert F.max_pool2d(x, 3, stride=1, padding=1)[0, 0].tolist() == [9.0, 9.0, 9.0, 6.0]
    np.testing.assert_allclose(
        F.avg_pool2d(x, 3, stride=2, padding=1).numpy(),
        [[[2.0, 23 / 9], [38 / 9, 52 / 9]]],
        rtol=1e-6,
    )
    exclude = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
    np.testing.assert_allclose(exclude.numpy(), [[[4.5, 23 / 6], [38 / 6, 52 / 9]]], rtol=1e-6)
    assert F.adaptive_avg_pool2d(x, (3, 2)).tolist() == [[[4.5, 3.25], [5.5, 5.25], [6.0, 6.25]]]


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = symgrad.tensor([[[1.0, 5.0, 5.0, 2.0]]], requires_grad=True)
    F.max_pool1d(x, 2, stride=1).sum().backward()  # windows (1,5) (5,5) (5,2)
    assert x.grad.tolist() == [[[0.0, 2.0, 1.0, 0.0]]]  # the tie goes to the first 5


def test_padding_modes_by_hand():
    row = symgrad.tensor([[1.0, 2.0, 3.0]])
    assert F.pad(row, (2, 1), mode="reflect").tolist() == [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    assert F.pad(row, (2, 2), mode="replicate").tolist() == [[1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0]]
    assert F.pad(row, (2, 1), mode="circular").tolist() == [[2.0, 3.0, 1.0, 2.0, 3.0, 1.0]]
    assert F.pad(row, (1, -1), value=9.0).tolist() == [[9.0, 1.0, 2.0]]
    x = row.clone().requires_grad_()
    F.pad(x, (2, 1), mode="reflect").sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0, 2.0]]  # 3 2 1 2 3 2: each element's count


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: F.conv2d(symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 3, 3, 3)),
            RuntimeError,
            "expected input\\[1, 2, 5, 5\\] to have 3 channels, but got 2",
        ),
        (
            lambda: F.conv2d(symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 2, 3, 3), groups=3),
            RuntimeError,
            "divisible by 3 at dimension 0",
        ),
        (
            lambda: F.conv2d(symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 2, 7, 7)),
            RuntimeError,
            "Kernel size can't be greater than actual input size",
        ),
        (
            lambda: F.conv2d(symgrad.ones(5, 5), symgrad.ones(4, 2, 3, 3)),
            RuntimeError,
            "Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to conv2d",
        ),
        (
            lambda: F.conv2d(
                symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 2, 3, 3), stride=2, padding="same"
            ),
            RuntimeError,
            "not supported for strided convolutions",
        ),
        (
            lambda: F.conv2d(symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 2, 3, 3), padding="foo"),
            RuntimeError,
            "Invalid padding string: 'foo'",
        ),
        (
            lambda: F.conv2d(
                symgrad.ones(1, 2, 5, 5, dtype=symgrad.float64), symgrad.ones(4, 2, 3, 3)
            ),
            RuntimeError,
            "expected scalar type Double but found Float",
        ),
        (
            lambda: F.conv2d(symgrad.ones(1, 2, 5, 5), symgrad.ones(4, 2, 3, 3), stride=(1, 2, 3)),
            RuntimeError,
            "a list of 2 values",
        ),
        (
            lambda: F.max_pool2d(symgrad.ones(1, 4, 4), 2, padding=2),
            RuntimeError,
            "pad should be at most half of effective kernel size",
        ),
        (lambda: F.max_pool2d(symgrad.ones(1, 4, 4), 5), RuntimeError, "Output size is too small"),
        (lambda: F.avg_pool2d(symgrad.ones(3), 2), IndexError, "Dimension out of range"),
        (
            lambda: F.adaptive_avg_pool2d(symgrad.ones(4), (2, 2)),
            ValueError,
            "Input dimension should be at least 3",
        ),
        (
            lambda: F.pad(symgrad.ones(1, 4, 4), (1, 1, 1)),
            RuntimeError,
            "Padding length must be divisible by 2",
        ),
        (
            lambda: F.pad(symgrad.ones(1, 4, 4), (4, 4), mode="reflect"),
            RuntimeError,
            "Padding size should be less than the corresponding input dimension",
        ),
        (
            lambda: F.pad(symgrad.ones(4), (1, 1), mode="foo"),
            NotImplementedError,
            "Unrecognised padding mode foo",
        ),
        (
            lambda: F.scaled_dot_product_attention(*[symgrad.ones(3)] * 3),
            RuntimeError,
            "at least 2 dimensional",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                *[symgrad.ones(2, 3)] * 3, attn_mask=symgrad.ones(2, 2), is_causal=True
            ),
            RuntimeError,
            "should not be set when is_causal=True",
        ),
        (
            lambda: nn.Conv2d(3, 4, 3, groups=2),
            ValueError,
            "in_channels must be divisible by groups",
        ),
        (lambda: nn.Conv2d(2, 4, 3, padding_mode="bad"), ValueError, "padding_mode must be one of"),
        (
            lambda: F.conv1d(symgrad.ones(1, 2, 4), symgrad.ones(0, 1, 3), groups=2),
            RuntimeError,
            r"Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of "
            r"size \[0, 1, 3\] instead",
        ),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_attention_by_hand():
    q = k = symgrad.eye(2).unsqueeze(0)
    v = symgrad.tensor([[[1.0], [3.0]]])
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    w = 1 / (1 + np.exp(-1 / np.sqrt(2)))  # the second query: weights (1 - w, w)
    np.testing.assert_allclose(out.numpy().ravel(), [1.0, (1 - w) + 3 * w], rtol=1e-6)
    mask = symgrad.tensor([[True, False], [True, True]])
    masked = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    np.testing.assert_allclose(masked.numpy(), out.numpy(), rtol=1e-6)


def lenet(T):
    class LeNet(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = T.nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect")
            self.pool = T.nn.MaxPool2d(2)
            self.conv2 = T.nn.Conv2d(4, 6, 3)
            self.avg = T.nn.AdaptiveAvgPool2d((2, 2))
            self.fc = T.nn.Linear(24, 3)

        def forward(self, x):
            x = self.pool(self.conv1(x).relu())
            x = self.avg(self.conv2(x).relu())
            return self.fc(x.flatten(1))

    return LeNet()


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_a_small_cnn_trains_step_for_step_as_pytorch():
    import torch

    torch.manual_seed(0)
    ref = lenet(torch).double()
    ours = lenet(symgrad).double()
    ours.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    assert repr(ours) == repr(ref)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 1, 8, 8)), np.array([0, 2, 1, 2])
    losses = []
    for T, model in ((torch, ref), (symgrad, ours)):
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        run = []
        for _ in range(3):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(T.tensor(x)), T.tensor(y))
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append((run, [p.detach().numpy().copy() for p in model.parameters()]))
    np.testing.assert_allclose(losses[1][0], losses[0][0], rtol=1e-10)
    for mine, theirs in zip(losses[1][1], losses[0][1]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


def test_module_reprs_and_parameters():
    conv = nn.Conv2d(
        3, 6, (3, 2), stride=2, padding=1, groups=3, bias=False, padding_mode="reflect", dilation=2
    )
    assert repr(conv) == (
        "Conv2d(3, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
        "groups=3, bias=False, padding_mode=reflect)"
    )
    assert conv.weight.shape == (6, 1, 3, 2) and conv.bias is None
    assert repr(nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)) == (
        "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)"
    )
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.ConstantPad1d((1, 2), 3.5)) == "ConstantPad1d(padding=(1, 2), value=3.5)"
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert nn.Conv1d(2, 4, 3, padding="same")(symgrad.ones(2, 7)).shape == (4, 7)
    values, indices = nn.MaxPool2d(2, return_indices=True)(symgrad.tensor(X4))
    assert indices.tolist() == [[[5, 7], [12, 14]]]

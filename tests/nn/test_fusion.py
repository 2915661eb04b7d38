"""Folding an evaluation-mode batch norm into the convolution or linear layer before it:
fused weights by hand, fused modules that compute what the pair computes, dtypes and
``requires_grad`` as PyTorch's, and PyTorch's assertions."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)

# var + eps is 4 and 16, so the scales are exact: gamma / sqrt(var + eps) = 1 and 1
MEAN, VAR, GAMMA, BETA, EPS = [1.0, 2.0], [3.0, 15.0], [2.0, 4.0], [0.5, 1.0], 1.0


def stats(dtype=symgrad.float32):
    return [symgrad.tensor(v, dtype=dtype) for v in (MEAN, VAR, GAMMA, BETA)]


def randomize(bn):
    with symgrad.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        if bn.weight is not None:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-1, 1)
    return bn.eval()


def test_conv_weights_by_hand():
    mean, var, gamma, beta = stats()
    w = symgrad.tensor([2.0, 3.0]).reshape(2, 1, 1, 1)
    fw, fb = fuse_conv_bn_weights(w, symgrad.tensor([1.0, -1.0]), mean, var, EPS, gamma, beta)
    assert isinstance(fw, nn.Parameter) and isinstance(fb, nn.Parameter)
    assert fw.flatten().tolist() == [2.0, 3.0] and fb.tolist() == [0.5, -2.0]
    # without a conv bias (zeros) and without affine parameters (ones and zeros)
    fw, fb = fuse_conv_bn_weights(w, None, mean, var, EPS, None, None)
    assert fw.flatten().tolist() == [1.0, 0.75] and fb.tolist() == [-0.5, -0.5]


def test_transposed_conv_weights_scale_the_second_dimension():
    mean, var, gamma, beta = stats()
    w = symgrad.ones(3, 2, 1, 1)
    fw, fb = fuse_conv_bn_weights(w, None, mean, var, EPS, gamma, beta, transpose=True)
    assert fw[:, :, 0, 0].tolist() == [[1.0, 1.0]] * 3 and fb.tolist() == [-0.5, -1.0]


def test_linear_weights_by_hand():
    mean, var, gamma, beta = stats()
    w = symgrad.tensor([[2.0, 4.0], [8.0, 1.0]])
    fw, fb = fuse_linear_bn_weights(w, symgrad.tensor([1.0, -1.0]), mean, var, EPS, gamma, beta)
    assert isinstance(fw, nn.Parameter) and isinstance(fb, nn.Parameter)
    assert fw.tolist() == [[2.0, 4.0], [8.0, 1.0]] and fb.tolist() == [0.5, -2.0]
    fw, fb = fuse_linear_bn_weights(w, None, mean, var, EPS, gamma, beta)
    assert fb.tolist() == [-0.5, -1.0]


def test_dtypes_and_requires_grad_follow_the_layer():
    mean, var, gamma, beta = stats(symgrad.float64)
    w = symgrad.ones(2, 1, 1, 1, requires_grad=True)
    fw, fb = fuse_conv_bn_weights(w, None, mean, var, EPS, gamma, beta)
    assert (fw.dtype, fb.dtype) == (symgrad.float32, symgrad.float32)
    assert fw.requires_grad and not fb.requires_grad and fw.is_leaf and fw.grad_fn is None
    b = symgrad.zeros(2, dtype=symgrad.float64, requires_grad=True)
    mean, var, gamma, beta = stats()
    fw, fb = fuse_linear_bn_weights(w.detach().reshape(2, 1), b, mean, var, EPS, gamma, beta)
    assert (fw.dtype, fb.dtype) == (symgrad.float32, symgrad.float64)
    assert not fw.requires_grad and fb.requires_grad


@pytest.mark.parametrize(
    "conv, bn, shape",
    [
        (nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), (2, 2, 5, 5)),
        (nn.Conv1d(2, 4, 3, bias=False), nn.BatchNorm1d(4), (2, 2, 6)),
        (nn.Conv2d(4, 6, 3, groups=2), nn.BatchNorm2d(6), (1, 4, 4, 4)),
        (nn.Conv3d(1, 2, 2), nn.BatchNorm3d(2, affine=False), (1, 1, 3, 3, 3)),
    ],
)
def test_fused_conv_computes_conv_then_bn(conv, bn, shape):
    conv.eval()
    randomize(bn)
    fused = fuse_conv_bn_eval(conv, bn)
    assert type(fused) is type(conv) and fused is not conv and not fused.training
    assert fused.weight is not conv.weight and fused.bias is not None
    x = symgrad.randn(*shape)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), atol=1e-5)


def test_fused_transposed_conv():
    conv, bn = nn.ConvTranspose2d(2, 3, 3, stride=2).eval(), randomize(nn.BatchNorm2d(3))
    fused = fuse_conv_bn_eval(conv, bn, transpose=True)
    x = symgrad.randn(1, 2, 4, 4)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), atol=1e-5)


def test_fused_linear_computes_linear_then_bn():
    lin, bn = nn.Linear(4, 3).eval(), randomize(nn.BatchNorm1d(3))
    fused = fuse_linear_bn_eval(lin, bn)
    assert type(fused) is nn.Linear and fused is not lin
    x = symgrad.randn(5, 4)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(lin(x)).detach().numpy(), atol=1e-5)
    one = randomize(nn.BatchNorm1d(1))
    fused = fuse_linear_bn_eval(lin, one)
    expected = one(lin(x).reshape(-1, 1)).reshape(5, 3)
    np.testing.assert_allclose(fused(x).detach().numpy(), expected.detach().numpy(), atol=1e-5)


def test_training_mode_and_missing_statistics_are_refused():
    conv, bn = nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(conv, bn)
    conv.eval()
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(conv, bn)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(3))
    no_stats = nn.BatchNorm2d(3, track_running_stats=False).eval()
    with pytest.raises(AssertionError, match="bn.running_mean and bn.running_var must not be None"):
        fuse_conv_bn_eval(conv, no_stats)
    with pytest.raises(AssertionError, match="bn.running_mean and bn.running_var must not be None"):
        fuse_linear_bn_eval(
            nn.Linear(2, 3).eval(), nn.BatchNorm1d(3, track_running_stats=False).eval()
        )


def test_linear_and_bn_sizes_must_agree():
    with pytest.raises(
        AssertionError,
        match="To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
        "linear.out_features=3 and bn.num_features=5",
    ):
        fuse_linear_bn_eval(nn.Linear(4, 3).eval(), nn.BatchNorm1d(5).eval())


@pytest.mark.torch
def test_fused_weights_match_torch():
    torch = pytest.importorskip("torch")
    from torch.nn.utils import fuse_conv_bn_eval as theirs

    conv, bn = nn.Conv2d(2, 3, 3).eval(), randomize(nn.BatchNorm2d(3))
    their_conv, their_bn = torch.nn.Conv2d(2, 3, 3).eval(), torch.nn.BatchNorm2d(3).eval()
    their_conv.load_state_dict({k: torch.tensor(v.numpy()) for k, v in conv.state_dict().items()})
    their_bn.load_state_dict({k: torch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    ours, ref = fuse_conv_bn_eval(conv, bn), theirs(their_conv, their_bn)
    for name in ("weight", "bias"):
        np.testing.assert_allclose(
            getattr(ours, name).detach().numpy(), getattr(ref, name).detach().numpy(), rtol=1e-6
        )

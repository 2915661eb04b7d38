"""A batch norm's gradients in training, computed on NumPy as PyTorch's kernel does (the
per-channel sums of ``g`` and ``(x - mean) * g``, then one expression for the input's), for
2-d to 5-d inputs, float32 and float64, with and without weight and bias, each of input,
weight and bias frozen in turn, and an incoming gradient broadcast from ``.mean()``: against
central differences in float64 and against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])
SHAPES = [(6, 3), (4, 3, 5), (3, 2, 4, 4), (2, 2, 3, 2, 3)]


def _data(shape, dtype):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    w = rng.standard_normal(shape[1]).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    return x, w, b, g


def _numpy_norm(x, w, b, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    view = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        out = out * w.reshape(view)
    if b is not None:
        out = out + b.reshape(view)
    return out


def _differences(x, w, b, g, which):
    """Central differences of ``sum(norm * g)`` by input ``which`` (0 x, 1 w, 2 b)."""
    args = [x, w, b]
    base = args[which]
    grad = np.zeros_like(base)
    h = 1e-6
    for i in np.ndindex(base.shape):
        up, down = (
            [a.copy() if a is not None else None for a in args],
            [a.copy() if a is not None else None for a in args],
        )
        up[which][i] += h
        down[which][i] -= h
        grad[i] = ((_numpy_norm(*up) * g).sum() - (_numpy_norm(*down) * g).sum()) / (2 * h)
    return grad


def _grads(lib, x, w, b, g, frozen=()):
    tx = lib.tensor(x, requires_grad=0 not in frozen)
    tw = None if w is None else lib.tensor(w, requires_grad=1 not in frozen)
    tb = None if b is None else lib.tensor(b, requires_grad=2 not in frozen)
    y = lib.nn.functional.batch_norm(tx, None, None, tw, tb, training=True)
    y.backward(lib.tensor(g))
    return [None if t is None or t.grad is None else t.grad.numpy() for t in (tx, tw, tb)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_float64_gradients_are_the_derivative(shape, affine):
    x, w, b, g = _data(shape, np.float64)
    w = w if affine in ("both", "weight") else None
    b = b if affine in ("both", "bias") else None
    got = _grads(symgrad, x, w, b, g)
    for which, grad in enumerate(got):
        if [x, w, b][which] is None:
            assert grad is None
            continue
        np.testing.assert_allclose(grad, _differences(x, w, b, g, which), rtol=1e-6, atol=1e-7)
    if torch is not None:
        for a, e in zip(got, _grads(torch, x, w, b, g)):
            assert (a is None) == (e is None)
            if a is not None:
                np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("frozen", [(0,), (1,), (2,), (1, 2)])
def test_frozen_inputs_get_no_gradient(frozen):
    x, w, b, g = _data((4, 3, 2, 2), np.float64)
    got = _grads(symgrad, x, w, b, g, frozen)
    for which in range(3):
        assert (got[which] is None) == (which in frozen)
        if got[which] is not None:
            np.testing.assert_allclose(got[which], _differences(x, w, b, g, which), rtol=1e-6)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_float32_gradients_match_pytorch(shape):
    x, w, b, g = _data(shape, np.float32)
    got = _grads(symgrad, x, w, b, g)
    assert all(a.dtype == np.float32 for a in got)
    exact = [
        _differences(x.astype(float), w.astype(float), b.astype(float), g.astype(float), i)
        for i in range(3)
    ]
    for a, e in zip(got, exact):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4)
    if torch is not None:
        for a, e in zip(got, _grads(torch, x, w, b, g)):
            np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_gradient_broadcast_from_a_mean(lib):
    """``bn(x).mean()``: the incoming gradient is one value seen everywhere; the input's
    gradient is then zero (each channel's outputs sum to its bias), the weight's too."""
    x, w, b, _ = _data((8, 2, 3, 3), np.float64)
    bn = lib.nn.BatchNorm2d(2).double()
    with lib.no_grad():
        bn.weight.copy_(lib.tensor(w))
        bn.bias.copy_(lib.tensor(b))
    tx = lib.tensor(x, requires_grad=True)
    bn(tx).mean().backward()
    assert np.abs(tx.grad.numpy()).max() < 1e-15
    assert np.abs(bn.weight.grad.numpy()).max() < 1e-15
    np.testing.assert_allclose(bn.bias.grad.numpy(), [0.5, 0.5], rtol=1e-15)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_values(shape, dtype):
    """The output, computed as PyTorch's kernel does (``x * a + c`` per channel)."""
    x, w, b, _ = _data(shape, dtype)
    y = symgrad.nn.functional.batch_norm(
        symgrad.tensor(x), None, None, symgrad.tensor(w), symgrad.tensor(b), training=True
    )
    assert y.dtype == symgrad.tensor(x).dtype and y.shape == x.shape
    exact = _numpy_norm(x.astype(float), w.astype(float), b.astype(float))
    tol = 1e-12 if dtype == np.float64 else 2e-6
    np.testing.assert_allclose(y.numpy(), exact, rtol=tol, atol=tol)
    if torch is not None:
        t = torch.nn.functional.batch_norm(
            torch.tensor(x), None, None, torch.tensor(w), torch.tensor(b), training=True
        )
        np.testing.assert_allclose(y.numpy(), t.numpy(), rtol=tol, atol=tol)

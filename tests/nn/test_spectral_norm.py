"""Spectral normalization, as the parametrization ``nn.utils.parametrizations.spectral_norm``
and as the older hook-based ``nn.utils.spectral_norm``: buffers, the power method in training
and evaluation mode, gradients, errors, and a cross-check against PyTorch from the same
weights and vectors after several training steps."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils import parametrizations, remove_spectral_norm, spectral_norm

W = [[3.0, 0.0], [0.0, 1.0]]


def _linear(weight=W):
    lin = nn.Linear(len(weight[0]), len(weight)).double()
    with symgrad.no_grad():
        lin.weight.copy_(symgrad.tensor(weight))
    return lin


def test_parametrization_divides_by_the_largest_singular_value():
    lin = parametrizations.spectral_norm(_linear())
    sn = lin.parametrizations.weight[0]
    assert sn._u.shape == (2,) and sn._v.shape == (2,)
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[1.0, 0.0], [0.0, 1 / 3]], atol=1e-8)
    assert lin.weight.grad_fn.name() == "DivBackward0"
    assert [n for n, _ in lin.named_buffers()] == [
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]


def test_power_method_steps_in_training_mode_only():
    lin = parametrizations.spectral_norm(_linear([[2.0, 1.0], [1.0, 3.0]]))
    sn = lin.parametrizations.weight[0]
    with symgrad.no_grad():
        sn._u.copy_(symgrad.tensor([1.0, 0.0], dtype=symgrad.float64))
        sn._v.copy_(symgrad.tensor([1.0, 0.0], dtype=symgrad.float64))
    lin.eval()
    # sigma = u . (W v) = 2 with the vectors as they are
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[1.0, 0.5], [0.5, 1.5]])
    assert sn._u.tolist() == [1.0, 0.0]
    lin.train()
    _ = lin.weight
    # one step: u = W v / |W v| = (2, 1)/sqrt(5), v = W^T u / |W^T u| = (1, 1)/sqrt(2)
    np.testing.assert_allclose(sn._u.numpy(), np.array([2.0, 1.0]) / 5**0.5)
    np.testing.assert_allclose(sn._v.numpy(), np.array([1.0, 1.0]) / 2**0.5)


def test_gradient_holds_the_vectors_fixed():
    lin = parametrizations.spectral_norm(_linear())
    lin.eval()
    lin(symgrad.ones(1, 2, dtype=symgrad.float64)).sum().backward()
    grad = lin.parametrizations.weight.original.grad.numpy()
    # weight / sigma with sigma = W[0, 0] (u = v = e1): d/dW of sum(W) / W00 (ones in)
    expected = np.array([[1 / 3 - 4 / 9, 1 / 3], [1 / 3, 1 / 3]])
    np.testing.assert_allclose(grad, expected, atol=1e-6)


def test_a_one_dimensional_weight_is_normalized():
    lin = parametrizations.spectral_norm(_linear(), name="bias")
    np.testing.assert_allclose(np.linalg.norm(lin.bias.detach().numpy()), 1.0)


def test_default_dim_of_a_transposed_convolution():
    conv = parametrizations.spectral_norm(nn.ConvTranspose1d(2, 3, 4))
    assert conv.parametrizations.weight[0]._u.shape == (3,)
    assert conv.parametrizations.weight[0]._v.shape == (8,)


def test_parametrization_errors():
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        parametrizations.spectral_norm(_linear(), n_power_iterations=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.spectral_norm(_linear(), dim=3)
    with pytest.raises(ValueError, match="no parameter or buffer with name 'nope'"):
        parametrizations.spectral_norm(_linear(), name="nope")


def test_hook_based_spectral_norm_and_its_removal():
    lin = spectral_norm(_linear())
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in lin.named_buffers()] == ["weight_u", "weight_v"]
    assert not lin.weight.requires_grad  # the weight before the first call
    lin(symgrad.ones(1, 2, dtype=symgrad.float64))
    assert lin.weight.grad_fn.name() == "DivBackward0"
    for _ in range(20):
        lin(symgrad.ones(1, 2, dtype=symgrad.float64))
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[1.0, 0.0], [0.0, 1 / 3]], atol=1e-8)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        spectral_norm(lin)
    assert remove_spectral_norm(lin) is lin
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    assert not lin._forward_pre_hooks and not list(lin.named_buffers())
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[1.0, 0.0], [0.0, 1 / 3]], atol=1e-8)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        remove_spectral_norm(lin)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        spectral_norm(_linear(), n_power_iterations=0)


# -- against PyTorch ----------------------------------------------------------------------------
MODULES = [
    ("Linear", (4, 3), (2, 4), None),
    ("Conv1d", (2, 3, 2), (2, 2, 5), None),
    ("ConvTranspose1d", (2, 3, 2), (2, 2, 5), None),
    ("Conv1d", (2, 3, 2), (2, 2, 5), 2),
]


def _pair(torch, cls, args, seed):
    torch.manual_seed(seed)
    t = getattr(torch.nn, cls)(*args).double()
    s = getattr(nn, cls)(*args).double()
    s.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return t, s


def _copy(dst, src):
    with symgrad.no_grad():
        dst.copy_(symgrad.tensor(src.detach().numpy()))


def _steps(torch, t, s, x, t_weight, s_weight, t_vectors, s_vectors):
    for _ in range(3):
        yt, ys = t(torch.tensor(x)), s(symgrad.tensor(x))
        yt.square().sum().backward()
        ys.square().sum().backward()
        np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=1e-10)
        for tv, sv in zip(t_vectors(), s_vectors()):
            np.testing.assert_allclose(sv.numpy(), tv.numpy(), atol=1e-10)
        np.testing.assert_allclose(s_weight().grad.numpy(), t_weight().grad.numpy(), atol=1e-8)
    t.eval()
    s.eval()
    yt, ys = t(torch.tensor(x)), s(symgrad.tensor(x))
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=1e-10)


@pytest.mark.parametrize(("cls", "args", "x_shape", "dim"), MODULES)
def test_parametrization_against_torch(cls, args, x_shape, dim):
    torch = pytest.importorskip("torch")
    t, s = _pair(torch, cls, args, 0)
    torch.nn.utils.parametrizations.spectral_norm(t, n_power_iterations=2, dim=dim)
    parametrizations.spectral_norm(s, n_power_iterations=2, dim=dim)
    tp, sp = t.parametrizations.weight, s.parametrizations.weight
    _copy(sp.original, tp.original)
    _copy(sp[0]._u, tp[0]._u)
    _copy(sp[0]._v, tp[0]._v)
    assert s.weight.grad_fn.name() == type(t.weight.grad_fn).__name__
    x = np.random.default_rng(1).standard_normal(x_shape)
    _steps(
        torch, t, s, x,
        lambda: tp.original, lambda: sp.original,
        lambda: (tp[0]._u, tp[0]._v), lambda: (sp[0]._u, sp[0]._v),
    )  # fmt: skip


@pytest.mark.parametrize(("cls", "args", "x_shape", "dim"), MODULES)
def test_hook_based_against_torch(cls, args, x_shape, dim):
    torch = pytest.importorskip("torch")
    t, s = _pair(torch, cls, args, 0)
    torch.nn.utils.spectral_norm(t, n_power_iterations=2, dim=dim)
    spectral_norm(s, n_power_iterations=2, dim=dim)
    for name in ("weight_orig", "weight_u", "weight_v"):
        _copy(getattr(s, name), getattr(t, name))
    x = np.random.default_rng(1).standard_normal(x_shape)
    _steps(
        torch, t, s, x,
        lambda: t.weight_orig, lambda: s.weight_orig,
        lambda: (t.weight_u, t.weight_v), lambda: (s.weight_u, s.weight_v),
    )  # fmt: skip
    assert s.weight.grad_fn.name() == type(t.weight.grad_fn).__name__
    torch.nn.utils.remove_spectral_norm(t)
    remove_spectral_norm(s)
    np.testing.assert_allclose(s.weight.detach().numpy(), t.weight.detach().numpy(), atol=1e-10)


def _spectral_norm_metadata(T):
    """The root's state dict metadata with the hook on, nested, and after its removal."""
    lin = T.nn.utils.spectral_norm(T.nn.Linear(3, 2))
    nested = T.nn.Sequential(lin).state_dict()._metadata["0"]
    on = lin.state_dict()._metadata[""]
    T.nn.utils.remove_spectral_norm(lin)
    return on, nested, lin.state_dict()._metadata[""]


def test_hook_based_spectral_norm_records_its_version_in_the_metadata():
    on, nested, off = _spectral_norm_metadata(symgrad)
    assert on == nested == {"version": 1, "spectral_norm": {"weight.version": 1}}
    assert off == {"version": 1}


@pytest.mark.torch
def test_hook_based_spectral_norm_metadata_against_torch():
    torch = pytest.importorskip("torch")
    assert _spectral_norm_metadata(torch) == _spectral_norm_metadata(symgrad)

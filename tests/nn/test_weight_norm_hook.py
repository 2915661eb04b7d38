"""The older, hook-based ``nn.utils.weight_norm`` and ``remove_weight_norm``: parameters,
the recomputed weight, the deprecation warning, errors, and a cross-check against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils import remove_weight_norm, weight_norm


def _quiet(module, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return weight_norm(module, **kwargs)


def _linear():
    lin = nn.Linear(2, 2)
    with symgrad.no_grad():
        lin.weight.copy_(symgrad.tensor([[3.0, 4.0], [0.0, 2.0]]))
    return lin


def test_parameters_g_and_v_and_the_weight():
    lin = _quiet(_linear())
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(lin.weight_g.detach().numpy(), [[5.0], [2.0]])
    np.testing.assert_allclose(lin.weight_v.detach().numpy(), [[3.0, 4.0], [0.0, 2.0]])
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[3.0, 4.0], [0.0, 2.0]])
    assert lin.weight.grad_fn.name() == "WeightNormInterfaceBackward0"
    assert "weight" not in lin._parameters and "weight" not in lin.state_dict()


def test_the_weight_is_recomputed_before_each_call_and_gradients_reach_g_and_v():
    lin = _quiet(_linear())
    with symgrad.no_grad():
        lin.weight_g.mul_(2.0)
    lin(symgrad.ones(1, 2)).sum().backward()
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[6.0, 8.0], [0.0, 4.0]])
    # d/dg of sum(g * v / |v|) per row is sum(v) / |v|
    np.testing.assert_allclose(lin.weight_g.grad.numpy(), [[7 / 5], [1.0]])
    assert lin.weight_v.grad.shape == (2, 2)


def test_dim_none_is_the_whole_norm():
    lin = _quiet(_linear(), dim=None)
    assert lin.weight_g.shape == ()
    np.testing.assert_allclose(lin.weight_g.item(), np.sqrt(29.0))


def test_future_warning():
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        weight_norm(_linear())


def test_remove_weight_norm():
    lin = _quiet(_linear())
    with symgrad.no_grad():
        lin.weight_g.mul_(0.5)
    assert remove_weight_norm(lin) is lin
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    assert isinstance(lin.weight, nn.Parameter)
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[1.5, 2.0], [0.0, 1.0]])
    assert not lin._forward_pre_hooks
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        remove_weight_norm(lin)


def test_errors():
    lin = _quiet(_linear())
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        _quiet(lin)
    with pytest.raises(AttributeError):
        _quiet(nn.Linear(2, 2), name="nope")


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 2, 2)), rng.standard_normal(3)
    x = rng.standard_normal((2, 2, 5))
    for dim in (0, 1, 2, -1, None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            tc = torch.nn.Conv1d(2, 3, 2).double()
            with torch.no_grad():
                tc.weight.copy_(torch.tensor(w))
                tc.bias.copy_(torch.tensor(b))
            torch.nn.utils.weight_norm(tc, dim=dim)
        sc = nn.Conv1d(2, 3, 2).double()
        sc.load_state_dict({"weight": symgrad.tensor(w), "bias": symgrad.tensor(b)})
        _quiet(sc, dim=dim)
        assert tuple(sc.weight_g.shape) == tuple(tc.weight_g.shape)
        assert sc.weight.grad_fn.name() == type(tc.weight.grad_fn).__name__
        tc(torch.tensor(x)).square().sum().backward()
        sc(symgrad.tensor(x)).square().sum().backward()
        for name in ("weight_g", "weight_v"):
            expected = getattr(tc, name).grad.numpy()
            np.testing.assert_allclose(getattr(sc, name).grad.numpy(), expected, atol=1e-10)

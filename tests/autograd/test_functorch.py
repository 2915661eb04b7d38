"""The modules PyTorch's ``functorch`` package imports from torch (``_functorch.deprecated``,
``_functorch.make_functional``): ``make_functional``, ``make_functional_with_buffers``,
``combine_state_for_ensemble`` and the deprecated transforms; and ``jvp(..., strict=True)``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import func, nn
from symgrad._functorch import deprecated as ft
from symgrad._functorch.make_functional import (
    FunctionalModule,
    FunctionalModuleWithBuffers,
    combine_state_for_ensemble,
    make_functional,
    make_functional_with_buffers,
)


def _linear(T, w, b):
    layer = T.nn.Linear(len(w[0]), len(w))
    with T.no_grad():
        layer.weight.copy_(T.tensor(w))
        layer.bias.copy_(T.tensor(b))
    return layer


W, B = [[1.0, 2.0], [3.0, -1.0]], [0.5, -0.5]


def test_make_functional_calls_with_given_params():
    model = _linear(symgrad, W, B)
    fmodel, params = make_functional(model)
    assert isinstance(fmodel, FunctionalModule)
    assert [tuple(p.shape) for p in params] == [(2, 2), (2,)]
    assert all(p.is_leaf and p.requires_grad for p in params)
    assert fmodel.param_names == ("weight", "bias")
    x = symgrad.tensor([1.0, 2.0])
    np.testing.assert_allclose(fmodel(params, x).detach().numpy(), [5.5, 0.5])
    doubled = tuple(2 * p for p in params)
    np.testing.assert_allclose(fmodel(doubled, x).detach().numpy(), [11.0, 1.0])
    # the model handed in is untouched; the function's copy holds meta placeholders
    assert model.weight.device.type == "cpu"
    assert fmodel.stateless_model.weight.device.type == "meta"


def test_make_functional_gradients_and_tracking():
    fmodel, params = make_functional(_linear(symgrad, W, B))
    x = symgrad.tensor([1.0, 2.0])
    gw, gb = func.grad(lambda p: fmodel(p, x).sum())(params)
    np.testing.assert_allclose(gw.numpy(), [[1.0, 2.0], [1.0, 2.0]])
    np.testing.assert_allclose(gb.numpy(), [1.0, 1.0])
    fmodel(params, x).sum().backward()
    np.testing.assert_allclose(params[0].grad.numpy(), [[1.0, 2.0], [1.0, 2.0]])
    _, frozen = make_functional(_linear(symgrad, W, B), disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in frozen)


def test_make_functional_jvp_over_params():
    fmodel, params = make_functional(_linear(symgrad, W, B))
    x = symgrad.tensor([1.0, 2.0])
    tangents = (symgrad.ones(2, 2), symgrad.tensor([1.0, 0.0]))
    out, jv = func.jvp(lambda p: fmodel(p, x), (params,), (tangents,))
    np.testing.assert_allclose(out.detach().numpy(), [5.5, 0.5])
    np.testing.assert_allclose(jv.detach().numpy(), [4.0, 3.0])


def test_make_functional_tied_weights_and_buffers_error():
    shared = _linear(symgrad, W, B)
    fmodel, params = make_functional(nn.Sequential(shared, shared))
    assert len(params) == 2
    x = symgrad.tensor([1.0, 2.0])
    np.testing.assert_allclose(fmodel(params, x).detach().numpy(), [7.0, 15.5])
    with pytest.raises(RuntimeError, match="make_functional_with_buffers"):
        make_functional(nn.BatchNorm1d(2))
    with pytest.raises(RuntimeError, match="expected 2"):
        fmodel(params[:1], x)


def test_make_functional_with_buffers():
    bn = nn.BatchNorm1d(2).eval()
    fmodel, params, buffers = make_functional_with_buffers(bn)
    assert isinstance(fmodel, FunctionalModuleWithBuffers)
    assert fmodel.buffer_names == ("running_mean", "running_var", "num_batches_tracked")
    mean, var = symgrad.tensor([1.0, 2.0]), symgrad.tensor([4.0, 1.0])
    x = symgrad.tensor([[3.0, 2.0]])
    out = fmodel(params, (mean, var, buffers[2]), x)
    np.testing.assert_allclose(out.detach().numpy(), [[1.0, 0.0]], atol=1e-4)


def test_combine_state_for_ensemble():
    models = [_linear(symgrad, W, B), _linear(symgrad, [[0.0, 1.0], [1.0, 0.0]], [0.0, 1.0])]
    fmodel, params, buffers = combine_state_for_ensemble(models)
    assert [tuple(p.shape) for p in params] == [(2, 2, 2), (2, 2)]
    assert buffers == () and not any(p.requires_grad for p in params)
    x = symgrad.tensor([1.0, 2.0])
    out = func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    np.testing.assert_allclose(out.numpy(), [[5.5, 0.5], [2.0, 2.0]])
    with pytest.raises(RuntimeError, match="at least one model"):
        combine_state_for_ensemble([])
    with pytest.raises(RuntimeError, match="same class"):
        combine_state_for_ensemble([nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2))])
    with pytest.raises(RuntimeError, match="training/eval mode"):
        combine_state_for_ensemble([nn.Linear(2, 2), nn.Linear(2, 2).eval()])


def test_deprecated_transforms_warn_and_compute():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.warns(FutureWarning, match="torch.func.jvp"):
        out, jv = ft.jvp(lambda x: x**2, (x,), (symgrad.ones(2),))
    np.testing.assert_allclose(jv.numpy(), [2.0, 4.0])
    with pytest.warns(FutureWarning, match="torch.vmap"):
        ft.vmap(lambda v: v.sum())
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        ft.make_functional_with_buffers(nn.Linear(2, 2))
    with pytest.warns(FutureWarning, match="torch.func.stack_module_state"):
        ft.combine_state_for_ensemble([nn.Linear(2, 2)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(ft.hessian(lambda x: (x**3).sum())(x).numpy(), [[6, 0], [0, 12]])


def test_jvp_strict():
    x = symgrad.tensor([1.0, 2.0])
    out, jv = func.jvp(lambda x: symgrad.ones(2), (x,), (x,))
    np.testing.assert_allclose(jv.numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        func.jvp(lambda x: symgrad.ones(2), (x,), (x,), strict=True)
    c = symgrad.tensor([1.0, 1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        func.jvp(lambda x: c * 2, (x,), (x,), strict=True)
    _, jv = func.jvp(lambda x: x * c, (x,), (x,), strict=True)
    np.testing.assert_allclose(jv.detach().numpy(), [1.0, 2.0])
    batched = func.vmap(lambda x: func.jvp(lambda y: 3 * y, (x,), (x,), strict=True)[1])
    np.testing.assert_allclose(batched(symgrad.ones(3, 2)).numpy(), 3 * np.ones((3, 2)))


def _functorch_values(T, F):
    x = T.tensor([[1.0, 2.0], [0.5, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fmodel, params, buffers = F.make_functional_with_buffers(_linear(T, W, B))
        tangents = tuple(T.ones_like(p) for p in params)
        out, jv = F.jvp(lambda p: fmodel(p, buffers, x), (params,), (tangents,))
        grads = F.grad(lambda p: fmodel(p, buffers, x).tanh().sum())(params)
        with pytest.raises(RuntimeError, match="independent"):
            F.jvp(lambda p: T.ones(2), (params,), (tangents,), strict=True)
    return [t.detach().numpy() for t in (out, jv, *grads)]


def test_against_functorch():
    torch = pytest.importorskip("torch")
    functorch = pytest.importorskip("functorch")
    ours, theirs = _functorch_values(symgrad, ft), _functorch_values(torch, functorch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5)

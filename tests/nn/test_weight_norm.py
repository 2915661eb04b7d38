"""Weight normalization: ``torch._weight_norm`` (``WeightNormInterfaceBackward0``: values,
gradients, forward tangents), ``norm_except_dim`` and
``nn.utils.parametrizations.weight_norm``; cross-checked against PyTorch when installed."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.check import gradcheck


def _interface(lib):
    v = lib.tensor([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]], requires_grad=True)
    g = lib.tensor([[3.0], [5.0]], requires_grad=True)
    w = lib._weight_norm(v, g, 0)
    w.backward(lib.tensor([[1.0, 0.0, 2.0], [1.0, 1.0, 1.0]]))
    rows = lib._weight_norm(v.detach(), lib.tensor([[1.0, 2.0, 3.0]]), 1)
    whole = lib._weight_norm(v.detach(), lib.tensor(2.0), -1)
    return (
        type(w.grad_fn).__name__,
        [[round(x, 4) for x in r] for r in w.tolist()],
        [[round(x, 4) for x in r] for r in v.grad.tolist()],
        [[round(x, 4) for x in r] for r in g.grad.tolist()],
        [[round(x, 4) for x in r] for r in rows.tolist()],
        [[round(x, 4) for x in r] for r in whole.tolist()],
        [[round(x, 4) for x in r] for r in lib.norm_except_dim(v.detach(), 2, 1).tolist()],
    )


def _module(lib):
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]))
        lin.bias.zero_()
    lin = lib.nn.utils.parametrizations.weight_norm(lin)
    names = [n for n, _ in lin.named_parameters()]
    lin(lib.ones(1, 3)).sum().backward()
    g = lin.parametrizations.weight.original0
    v = lin.parametrizations.weight.original1
    conv = lib.nn.utils.parametrizations.weight_norm(lib.nn.Conv1d(2, 4, 3), dim=1)
    whole = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2), dim=None)
    return (
        names,
        g.tolist(),
        [[round(x, 4) for x in r] for r in g.grad.tolist()],
        [[round(x, 4) for x in r] for r in v.grad.tolist()],
        type(lin.weight.grad_fn).__name__,
        list(conv.parametrizations.weight.original0.shape),
        list(whole.parametrizations.weight.original0.shape),
    )


def test_interface_values_and_gradients():
    name, w, gv, gg, rows, whole, norms = _interface(symgrad)
    assert name == "WeightNormInterfaceBackward0"
    assert w == [[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]
    assert gv == [[0.4444, -1.1111, 0.8889], [1.0, 0.16, -0.12]]
    assert gg == [[1.6667], [1.4]]
    assert rows == [[1.0, 1.1094, 1.3416], [0.0, 1.6641, 2.6833]]
    assert whole == [[0.343, 0.686, 0.686], [0.0, 1.029, 1.372]]
    assert norms == [[1.0, 3.6056, 4.4721]]


def test_gradcheck_and_forward_mode():
    v = symgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=symgrad.float64)
    g = symgrad.tensor([[1.5], [-0.5]], dtype=symgrad.float64)
    assert gradcheck(
        lambda a, b: symgrad._weight_norm(a, b, 0),
        (v.requires_grad_(), g.requires_grad_()),
        check_forward_ad=True,
    )


def test_the_parametrization():
    names, g, g_grad, v_grad, node, conv_g, whole_g = _module(symgrad)
    assert names == [
        "bias",
        "parametrizations.weight.original0",
        "parametrizations.weight.original1",
    ]
    assert g == [[3.0], [5.0]]
    assert g_grad == [[1.6667], [1.4]]
    assert v_grad == [[0.4444, -0.1111, -0.1111], [1.0, 0.16, -0.12]]
    assert node == "WeightNormInterfaceBackward0"
    assert conv_g == [1, 2, 1] and whole_g == []


def test_errors_are_pytorchs():
    v = symgrad.ones(2, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        symgrad._weight_norm(v, symgrad.ones(2, 1), 2)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        symgrad._weight_norm(symgrad.tensor(1.0), symgrad.tensor(2.0), 0)


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _interface(symgrad) == _interface(torch)
    assert _module(symgrad) == _module(torch)


def test_weight_norm_node_is_fused_only_along_the_first_or_last_dimension():
    # PyTorch's _weight_norm uses its fused kernel only for dim 0 and the last dimension;
    # any other dimension is v * (g / norm_except_dim(v)), a MulBackward0
    v = symgrad.tensor(np.arange(1.0, 9.0).reshape(2, 2, 2), requires_grad=True)
    names = {}
    for dim in (0, 1, 2, -2):
        shape = [1, 1, 1]
        shape[dim] = 2
        w = symgrad._weight_norm(v, symgrad.ones(shape, dtype=symgrad.float64), dim)
        names[dim] = w.grad_fn.name()
        expected = v.detach().numpy() / symgrad.norm_except_dim(v, 2, dim).detach().numpy()
        np.testing.assert_allclose(w.detach().numpy(), expected)
    assert names == {
        0: "WeightNormInterfaceBackward0",
        1: "MulBackward0",
        2: "WeightNormInterfaceBackward0",
        -2: "MulBackward0",
    }

"""binary_cross_entropy clamps as PyTorch does (each log at -100, the gradient's denominator at
float32's 1e-12), in closed forms and compiled gradients too: at saturated probabilities they
give backward's numbers (PyTorch's, stored here), not the unclamped formula's -inf, nan or 1/3."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic

# PyTorch 2.13, float64
SATURATED_LOSS = 46.85145174815617
SATURATED_GRAD = [0.0, -1.416118090755725e-06, -0.14185249439611367]
EDGE_LOSS = 201.3862943611199
EDGE_GRAD = [-1000000003995.8029, 1000000003995.8029, -4.0]


def _saturated():
    z = symgrad.tensor([40.0, -40.0, 0.3], dtype=symgrad.float64, requires_grad=True, name="z")
    y = symgrad.tensor([0.0, 1.0, 1.0], dtype=symgrad.float64, name="y")
    return F.binary_cross_entropy(z.sigmoid(), y), z, y


def test_compiled_gradient_and_value_are_backwards_at_saturated_probabilities():
    loss, z, y = _saturated()
    gradient = symbolic.compile_gradient(loss, [z])
    (got,) = gradient(z.detach().numpy(), y.numpy())
    np.testing.assert_allclose(got, SATURATED_GRAD, rtol=1e-12, atol=0)
    value = symbolic.lambdify(symbolic.expression(loss), [z, y])
    assert value(z.detach().numpy(), y.numpy()) == pytest.approx(SATURATED_LOSS, rel=1e-14)
    loss.backward()
    np.testing.assert_allclose(z.grad.numpy(), SATURATED_GRAD, rtol=1e-12, atol=0)


def test_probabilities_of_exactly_zero_and_one():
    p = symgrad.tensor([0.0, 1.0, 0.25], dtype=symgrad.float64, requires_grad=True, name="p")
    t = symgrad.tensor([1.0, 0.0, 1.0], dtype=symgrad.float64, name="t")
    loss = F.binary_cross_entropy(p, t, reduction="sum")
    (got,) = symbolic.compile_gradient(loss, [p])(p.detach().numpy(), t.numpy())
    np.testing.assert_allclose(got, EDGE_GRAD, rtol=1e-12)
    assert loss.item() == pytest.approx(EDGE_LOSS, rel=1e-14)
    loss.backward()
    np.testing.assert_allclose(p.grad.numpy(), EDGE_GRAD, rtol=1e-12)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    p = torch.tensor([0.0, 1.0, 0.25], dtype=torch.float64, requires_grad=True)
    t = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)
    loss = torch.nn.functional.binary_cross_entropy(p, t, reduction="sum")
    loss.backward()
    assert loss.item() == pytest.approx(EDGE_LOSS, rel=1e-14)
    np.testing.assert_allclose(p.grad.numpy(), EDGE_GRAD, rtol=1e-12)

"""A gradient of exactly 0 (a branch ``where`` did not take, a value ``nan_to_num`` replaced)
times a local derivative that is infinite or undefined at the traced values is nan, as in
PyTorch's backward (IEEE 0 * inf), not the mathematical 0: gradient, lambdify and
compile_gradient agree with backward() there; where the derivative is finite the closed form
stays 0."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import symbolic

POINTS = [-1.0, 0.0, 2.0]
PROGRAMS = {
    "where_sqrt": lambda t, x: t.where(x > 0, t.sqrt(x), 0.0).sum(),
    "nan_to_num_log": lambda t, x: t.nan_to_num(t.log(x)).sum(),
    "zero_times_sqrt": lambda t, x: (0.0 * t.sqrt(x)).sum(),
}
# PyTorch's gradients at POINTS (x.grad of backward())
EXPECTED = {
    "where_sqrt": [math.nan, math.nan, 0.3535533905932738],
    "nan_to_num_log": [0.0, math.nan, 0.5],
    "zero_times_sqrt": [math.nan, math.nan, 0.0],
}


def _leaf():
    return symgrad.tensor(POINTS, dtype=symgrad.float64, requires_grad=True)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_backward_gives_nan_where_zero_meets_an_infinite_derivative(name):
    x = _leaf()
    PROGRAMS[name](symgrad, x).backward()
    np.testing.assert_allclose(x.grad.numpy(), EXPECTED[name])


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_closed_forms_agree_with_backward(name):
    x = _leaf()
    y = PROGRAMS[name](symgrad, x)
    (g,) = symbolic.gradient(y, [x])
    values = {s: v for s, v in zip(symbolic.symbols(x), POINTS)}
    got = [float(sp.sympify(e).xreplace(values)) for e in g]
    np.testing.assert_allclose(got, EXPECTED[name])
    np.testing.assert_allclose(symbolic.lambdify(g, [x])(np.array(POINTS)), EXPECTED[name])
    (compiled,) = symbolic.compile_gradient(y, [x])(np.array(POINTS))
    np.testing.assert_allclose(compiled, EXPECTED[name])


def test_a_masked_element_with_a_finite_derivative_stays_zero():
    x = symgrad.tensor([-1.0, 4.0], dtype=symgrad.float64, requires_grad=True, name="x")
    (g,) = symbolic.gradient(symgrad.where(x > 0, symgrad.exp(x), 0.0).sum(), [x])
    assert g[0] == 0
    assert g[1] == sp.exp(sp.Symbol("x[1]", real=True)) or g[1].func == sp.exp


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_expected_values_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(PROGRAMS[name](torch, x), x)
    np.testing.assert_allclose(g.numpy(), EXPECTED[name])

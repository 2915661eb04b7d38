"""Derivatives of ``x ** p`` of every order at ``x = 0``, where formulas written with ``1/x``
give 0/0: the values are PyTorch's (torch 2.13), kept here so the test runs without it."""

import math

import numpy as np
import pytest

import symgrad

INF = math.inf

# exponent -> (first derivative at 0, second derivative at 0), as PyTorch gives them
AT_ZERO = {2: (0.0, 2.0), 3: (0.0, 0.0), 1.5: (0.0, INF), 0.5: (INF, -INF), 1: (1.0, 0.0)}


@pytest.mark.parametrize("exponent", sorted(AT_ZERO))
def test_first_and_second_derivatives_of_power_at_zero(exponent):
    t = symgrad.tensor(0.0, dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(t**exponent, t, create_graph=True)
    (gg,) = symgrad.autograd.grad(g, t)
    first, second = AT_ZERO[exponent]
    assert g.item() == first  # float() of a tensor requiring grad warns
    assert float(gg) == second


def _rosenbrock(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def test_rosenbrock_hessian_at_its_optimum_by_double_backward():
    x = symgrad.ones(4, dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(_rosenbrock(x), x, create_graph=True)
    rows = [symgrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(4)]
    expected = [
        [802.0, -400.0, 0.0, 0.0],
        [-400.0, 1002.0, -400.0, 0.0],
        [0.0, -400.0, 1002.0, -400.0],
        [0.0, 0.0, -400.0, 200.0],
    ]
    np.testing.assert_array_equal(np.array(rows), expected)


@pytest.mark.torch
@pytest.mark.parametrize("exponent", sorted(AT_ZERO))
def test_power_at_zero_matches_pytorch(exponent):
    torch = pytest.importorskip("torch")
    t = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(t**exponent, t, create_graph=True)
    (gg,) = torch.autograd.grad(g, t)
    assert (g.item(), gg.item()) == AT_ZERO[exponent]


def test_gradgradcheck_passes_at_the_rosenbrock_optimum():
    x = symgrad.ones(4, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradgradcheck(_rosenbrock, (x,))

"""The gradients of the piecewise activations at a nan input, as PyTorch gives them.

PyTorch's backward kernels test the cut-off regions (``x <= min``, ``|x| <= lambd``,
``x <= 0``) and pass the remaining slope otherwise, so a nan, which fails every comparison,
gets that slope: 1, or selu's scale. ``logit(x, eps)`` is one node whose gradient is 0 only
outside ``[eps, 1 - eps]``, so a nan gets nan."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

NAN = float("nan")
SELU_SCALE = 1.0507009873554804934193349852946

ACTIVATIONS = {
    "relu6": (lambda x: F.relu6(x), 1.0),
    "hardtanh": (lambda x: F.hardtanh(x), 1.0),
    "hardtanh(-2, 3)": (lambda x: F.hardtanh(x, -2.0, 3.0), 1.0),
    "relu6_": (lambda x: F.relu6(x * 1, inplace=True), 1.0),
    "softshrink": (lambda x: F.softshrink(x), 1.0),
    "hardshrink": (lambda x: F.hardshrink(x), 1.0),
    "hardswish": (lambda x: F.hardswish(x), 1.0),
    "hardswish_": (lambda x: F.hardswish(x * 1, inplace=True), 1.0),
    "celu": (lambda x: F.celu(x), 1.0),
    "celu(alpha=2)": (lambda x: F.celu(x, 2.0), 1.0),
    "celu_": (lambda x: F.celu(x * 1, inplace=True), 1.0),
    "selu": (lambda x: F.selu(x), SELU_SCALE),
    "selu_": (lambda x: F.selu(x * 1, inplace=True), SELU_SCALE),
    "elu": (lambda x: F.elu(x, 0.5), 1.0),
}


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_gradient_at_nan(name: str, dtype: symgrad.dtype) -> None:
    fn, slope = ACTIVATIONS[name]
    x = symgrad.tensor([NAN], dtype=dtype, requires_grad=True)
    fn(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [slope], rtol=1e-7)


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "softshrink", "hardshrink", "hardswish"])
def test_gradient_on_the_bounds_is_unchanged(name: str) -> None:
    """On a bound the gradient is still the cut-off side's (0), as before."""
    bounds = {"hardtanh": -1.0, "relu6": 6.0, "softshrink": 0.5, "hardshrink": -0.5}
    at = bounds.get(name, -3.0)
    x = symgrad.tensor([at], requires_grad=True)
    ACTIVATIONS[name][0](x).sum().backward()
    assert x.grad.item() == 0.0
    if name == "hardswish":  # and 1 from 3 on
        y = symgrad.tensor([3.0], requires_grad=True)
        F.hardswish(y).sum().backward()
        assert y.grad.item() == 1.0


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_logit_with_eps_is_one_node(dtype: symgrad.dtype) -> None:
    values = [0.05, 0.95, 0.5, -1.0, 2.0, NAN, 0.3]
    x = symgrad.tensor(values, dtype=dtype, requires_grad=True)
    y = symgrad.logit(x, eps=0.1)
    assert y.grad_fn.name() == "LogitBackward0" and y.grad_fn._saved_eps == 0.1
    # no clamp before it: its one edge leads to the leaf
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.sum().backward()
    lo, hi = math.log(0.1 / 0.9), math.log(0.9 / 0.1)
    expected = [lo, hi, 0.0, lo, hi, NAN, math.log(0.3 / 0.7)]
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
    grad = [0.0, 0.0, 4.0, 0.0, 0.0, NAN, 1 / (0.3 * 0.7)]
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6)
    assert x.grad.dtype == dtype


def test_logit_eps_crossing_bounds_and_integers() -> None:
    """With eps above 1/2 PyTorch's kernel gives eps below it and 1 - eps above (no clamp)."""
    np.testing.assert_allclose(
        symgrad.logit(symgrad.tensor([0.3]), eps=0.6).numpy(), [math.log(1.5)], rtol=1e-6
    )
    out = symgrad.logit(symgrad.tensor([1, 0]), eps=0.25)
    assert out.dtype == symgrad.float32
    np.testing.assert_allclose(out.numpy(), [math.log(3), -math.log(3)], rtol=1e-6)

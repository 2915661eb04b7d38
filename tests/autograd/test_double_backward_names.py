"""Under ``create_graph=True`` the gradients of the common element-wise ops are recorded with
the ops of PyTorch's own derivative formulas: the nodes carry PyTorch's names (plain expected
names, checked against PyTorch when it is importable), and the derivatives of every order are
the fused ones'."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])

# program -> the gradient's node and its inputs' nodes, two levels deep
CASES = {
    "exp": (lambda x: x.exp(), ["MulBackward0", "ExpBackward0"]),
    "sin": (lambda x: x.sin(), ["MulBackward0", "CosBackward0"]),
    "cos": (lambda x: x.cos(), ["MulBackward0", "NegBackward0"]),
    "cube": (lambda x: x**3, ["MulBackward0", "MulBackward1"]),
    "square": (lambda x: x * x, ["AddBackward0", "MulBackward0", "MulBackward0"]),
    "log": (lambda x: x.log(), ["DivBackward0", "AccumulateGrad"]),
    "log1p": (lambda x: x.log1p(), ["DivBackward0", "AddBackward1"]),
    "sqrt": (lambda x: x.sqrt(), ["DivBackward0", "MulBackward1"]),
    "rsqrt": (lambda x: x.rsqrt(), ["MulBackward0", "PowBackward0"]),
    "abs": (lambda x: x.abs(), ["MulBackward0", "SgnBackward0"]),
    "reciprocal": (lambda x: 1 / x, ["MulBackward0", "MulBackward0"]),
    "expm1": (lambda x: x.expm1(), ["MulBackward0", "AddBackward1"]),
    "tan": (lambda x: x.tan(), ["MulBackward0", "AddBackward1"]),
    "tanh": (lambda x: x.tanh(), ["TanhBackwardBackward0", "TanhBackward0"]),
    "sigmoid": (lambda x: x.sigmoid(), ["SigmoidBackwardBackward0", "SigmoidBackward0"]),
    "relu": (lambda x: x.relu(), ["ThresholdBackwardBackward0"]),
    "div": (lambda x: x / (x + 1), ["AddBackward0", "DivBackward0", "MulBackward0"]),
    "clamp": (lambda x: x.clamp(0, 1) * x, ["AddBackward0", "WhereBackward0", "MulBackward0"]),
    "maximum": (
        lambda x: x.maximum(x.detach() * 0 + 1) * x,
        ["AddBackward0", "MaskedFillBackward0"],
    ),
    "select": (lambda x: x[0] * x, ["AddBackward0", "SelectBackwardBackward0"]),
    "slice": (lambda x: x[1:] * x[1:], ["AddBackward0", "SliceBackwardBackward0"]),
    "index": (lambda x: x[[0, 1]] * x, ["AddBackward0", "IndexPutImplBackward0"]),
}


def _names(node, depth=2):
    out = [type(node).__name__]
    if depth > 1:
        out += [type(n).__name__ for n, _ in node.next_functions if n is not None]
    return out


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_first_gradient_nodes_carry_pytorchs_names(lib, name):
    fn, expected = CASES[name]
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(fn(x).sum(), x, create_graph=True)
    top, *inputs = _names(g.grad_fn)
    assert top == expected[0]
    for name in expected[1:]:  # each expected input node, whatever the order
        assert name in inputs, (name, inputs)
        inputs.remove(name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_and_third_derivatives_agree_with_finite_differences(name):
    fn = CASES[name][0]
    x = symgrad.tensor([0.5, 1.5], dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradgradcheck(lambda t: fn(t), (x,))
    (g,) = symgrad.autograd.grad(fn(x).sum(), x, create_graph=True)
    (h,) = symgrad.autograd.grad(g.sum(), x, create_graph=True)
    step = 1e-6
    up = symgrad.autograd.grad(fn(x + step).sum(), x, create_graph=True)[0]
    down = symgrad.autograd.grad(fn(x - step).sum(), x, create_graph=True)[0]
    np.testing.assert_allclose(
        h.detach().numpy(), ((up - down) / (2 * step)).detach().numpy(), rtol=1e-5
    )

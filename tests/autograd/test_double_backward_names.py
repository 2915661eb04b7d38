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
    # (the inverse functions, logit: at inputs inside their domains, below)
    "asin": (lambda x: x.asin(), ["MulBackward0", "RsqrtBackward0"]),
    "acos": (lambda x: x.acos(), ["MulBackward0", "NegBackward0"]),
    "asinh": (lambda x: x.asinh(), ["MulBackward0", "RsqrtBackward0"]),
    "acosh": (lambda x: (x + 1.2).acosh(), ["MulBackward0", "RsqrtBackward0"]),
    "atan": (lambda x: x.atan(), ["DivBackward0", "AddBackward1"]),
    "atanh": (lambda x: x.atanh(), ["DivBackward0", "SubBackward0"]),
    "sinh": (lambda x: x.sinh(), ["MulBackward0", "CoshBackward0"]),
    "cosh": (lambda x: x.cosh(), ["MulBackward0", "SinhBackward0"]),
    "lgamma": (lambda x: x.lgamma(), ["MulBackward0", "DigammaBackward0"]),
    "digamma": (lambda x: x.digamma(), ["MulBackward0", "PolygammaBackward0"]),
    "polygamma": (lambda x: x.polygamma(1), ["MulBackward0", "PolygammaBackward0"]),
    "erfc": (lambda x: x.erfc(), ["MulBackward0", "MulBackward1"]),
    "erfinv": (lambda x: x.erfinv(), ["MulBackward0", "MulBackward1"]),
    "exp2": (lambda x: x.exp2(), ["MulBackward1", "MulBackward0"]),
    "log2": (lambda x: x.log2(), ["DivBackward0", "MulBackward1"]),
    "log10": (lambda x: x.log10(), ["DivBackward0", "MulBackward1"]),
    "sinc": (lambda x: x.sinc(), ["WhereBackward0", "MulBackward0"]),
    "logit": (lambda x: x.logit(), ["WhereBackward0", "DivBackward0"]),
    "logit_eps": (lambda x: x.logit(eps=0.1), ["WhereBackward0", "DivBackward0"]),
    "i0": (lambda x: x.i0(), ["MulBackward0", "SpecialI1Backward0"]),
}


INSIDE = {"asin", "acos", "atanh", "erfinv", "logit", "logit_eps"}


def _point(lib, name):
    values = [0.2, 0.6] if name in INSIDE else [0.5, 1.5]
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def _names(node, depth=2):
    out = [type(node).__name__]
    if depth > 1:
        out += [type(n).__name__ for n, _ in node.next_functions if n is not None]
    return out


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_first_gradient_nodes_carry_pytorchs_names(lib, name):
    fn, expected = CASES[name]
    x = _point(lib, name)
    (g,) = lib.autograd.grad(fn(x).sum(), x, create_graph=True)
    top, *inputs = _names(g.grad_fn)
    assert top == expected[0]
    for name in expected[1:]:  # each expected input node, whatever the order
        assert name in inputs, (name, inputs)
        inputs.remove(name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_and_third_derivatives_agree_with_finite_differences(name):
    fn = CASES[name][0]
    x = _point(symgrad, name)
    assert symgrad.autograd.gradgradcheck(lambda t: fn(t), (x,))
    (g,) = symgrad.autograd.grad(fn(x).sum(), x, create_graph=True)
    (h,) = symgrad.autograd.grad(g.sum(), x, create_graph=True)
    # digamma's first derivative is PyTorch's trigamma series, good to about 5e-10: over a
    # step of 1e-6 that is 5e-4 of noise, so its differences take a wider step
    step = 1e-4 if name == "digamma" else 1e-6
    up = symgrad.autograd.grad(fn(x + step).sum(), x, create_graph=True)[0]
    down = symgrad.autograd.grad(fn(x - step).sum(), x, create_graph=True)[0]
    np.testing.assert_allclose(
        h.detach().numpy(), ((up - down) / (2 * step)).detach().numpy(), rtol=1e-5
    )

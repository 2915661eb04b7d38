"""First and second derivatives of activations where PyTorch's derivative formulas round
otherwise than the exact derivative: ``celu``'s ``1 / float32(alpha)`` (in place or not, and
its value at nan), ``logsigmoid``'s ``(z - 1) * z`` (0 at 40) and tanh-``gelu``'s sum of
products (a denormal at 20, not 0).

The expected numbers are PyTorch's (2.13), written out so the tests run without it; with
PyTorch importable, ``test_matches_pytorch`` recomputes them there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN = math.nan

# name: (call, input, gradient, second derivative, the gradient's node)
CASES = {
    "celu_0.7": (
        lambda F, x: F.celu(x, 0.7),
        [-1.0, 0.0, NAN, 2.0],
        [0.23965103469267596, 1.0000000170298988, 1.0, 1.0],
        [0.3423586268198698, 0.0, 0.0, 0.0],
        "EluBackwardBackward0",
    ),
    "celu_0.3": (
        lambda F, x: F.celu(x, 0.3),
        [-0.3, -0.0, 0.4],
        [0.36787944117144206, 0.9999999602635717, 1.0],
        [1.2262647551774235, 0.0, 0.0],
        "EluBackwardBackward0",
    ),
    "celu_in_place_0.7": (
        lambda F, x: F.celu(x * 1, 0.7, inplace=True),
        [-1.0, 0.0, 2.0],
        [0.23965104052300862, 1.0000000170298988, 1.0],
        [0.34235863514891657, 0.0, 0.0],
        "MulBackward0",
    ),
    "logsigmoid": (
        lambda F, x: F.logsigmoid(x),
        [-20.0, 20.0, 30.0, 40.0],
        [0.9999999979388464, 2.0611536181902033e-09, 9.3576229688393e-14, 4.248354255291589e-18],
        [-2.0611536139418496e-09, -2.0611536879193953e-09, -9.348077867342945e-14, 0.0],
        "LogSigmoidBackwardBackward0",
    ),
    "gelu_tanh": (
        lambda F, x: F.gelu(x, approximate="tanh"),
        [-1.0, 6.0, 20.0],
        [-0.08296408384578252, 1.0000000007709977, 1.0],
        [0.24214819798377296, -6.824247144948227e-09, -2.5679075796379862e-257],
        "GeluBackwardBackward0",
    ),
}


def _run(T, case):
    call, values = CASES[case][:2]
    x = T.tensor(values, dtype=T.float64, requires_grad=True)
    y = call(T.nn.functional, x)
    (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    return g, gg


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_as_pytorch(case):
    grad, second, node = CASES[case][2:]
    g, gg = _run(symgrad, case)
    np.testing.assert_allclose(g.detach().numpy(), grad, rtol=1e-15, atol=0)
    np.testing.assert_allclose(gg.numpy(), second, rtol=1e-15, atol=0)
    assert g.grad_fn.name() == node


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    grad, second, node = CASES[case][2:]
    g, gg = _run(torch, case)
    np.testing.assert_allclose(g.detach().numpy(), grad, rtol=1e-15, atol=0)
    np.testing.assert_allclose(gg.numpy(), second, rtol=1e-15, atol=0)
    assert g.grad_fn.name() == node

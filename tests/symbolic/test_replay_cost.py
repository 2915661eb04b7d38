"""The inline gradient replays the values its rules read, and no others: the loss itself and
the values no partial derivative reads are never built (their cost is the forward pass's)."""

from __future__ import annotations

import importlib

import numpy as np

import symgrad
from symgrad.symbolic import gradient, lambdify
from symgrad.symbolic.replay import Replay, seed_ones


def _sum_of_sines():
    x = symgrad.tensor([0.5, -1.0, 2.0], dtype=symgrad.float64, requires_grad=True, name="x")
    c = symgrad.tensor([1.5, 2.5], dtype=symgrad.float64, name="c")
    a = x[:-1] * x[1:]
    s = symgrad.sin(a)
    t = c * s
    return x, c, [a, s, t, t.sum()]


def test_inline_gradient_builds_only_the_values_it_reads():
    x, c, (a, s, t, y) = _sum_of_sines()
    replay = Replay()
    replay.adjoints(y, seed_ones(y.shape), [x])
    # sin's partial reads its input (the product a), the product with c reads c: neither
    # sin's value, nor the product with c, nor the sum is built
    assert (a.grad_fn, 0) in replay.values
    for unread in (s, t, y):
        assert (unread.grad_fn, 0) not in replay.values, unread.grad_fn.name()


def test_the_gradient_is_the_numeric_one():
    x, c, (*_, y) = _sum_of_sines()
    y.backward()
    f = lambdify(gradient(y, x), [x, c])
    np.testing.assert_allclose(f(x.detach().numpy(), c.numpy()), x.grad.numpy(), rtol=1e-14)
    # and by hand: d/dx1 = c0 cos(x0 x1) x0 + c1 cos(x1 x2) x2
    x0, x1, x2 = 0.5, -1.0, 2.0
    expected = 1.5 * np.cos(x0 * x1) * x0 + 2.5 * np.cos(x1 * x2) * x2
    np.testing.assert_allclose(x.grad.numpy()[1], expected, rtol=1e-14)


def test_assignment_form_keeps_every_value_in_order():
    x, c, (a, s, t, y) = _sum_of_sines()
    replay = Replay(cse=True)
    replay.adjoints(y, seed_ones(y.shape), [x])
    for node in (a, s, t, y):
        assert (node.grad_fn, 0) in replay.values


def test_the_gradient_steps_ask_sympy_no_assumptions_of_nonzero_gradients(monkeypatch):
    """Whether an incoming gradient is 0 (PyTorch's 0 * inf is nan) is read off the number:
    SymPy's assumption system, asked of every element's expression, cost more than the rules."""
    assumptions = importlib.import_module("sympy.core.assumptions")
    x, c, (*_, y) = _sum_of_sines()
    asked = []
    real_ask = assumptions._ask
    monkeypatch.setattr(
        assumptions, "_ask", lambda fact, obj: asked.append(fact) or real_ask(fact, obj)
    )
    Replay().adjoints(y, seed_ones(y.shape), [x])
    assert "zero" not in asked

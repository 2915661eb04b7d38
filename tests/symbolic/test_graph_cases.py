"""Closed forms of graphs as notebook code builds them: in-place ops, detached values,
intermediate tensors, graphs already run backward, and choices made by the traced values."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import expression, gradient, symbols

from .support import (
    assert_close,
    check_against_diff,
    element_symbols,
    evaluate,
    evaluate_all,
    flat,
    leaf,
    numeric_gradients,
    rng_for,
    scalarise,
    values_of,
)


def _setitem_products(x):
    y = x * 1
    y[1:] = x[:2] * x[1:]
    return y


IN_PLACE = {
    "mul_": lambda x: x.clone().mul_(2.0),
    "add_": lambda x: (x * 1).add_(x * x),
    "sub_alpha": lambda x: (x * 1).sub_(x * x, alpha=2),
    "div_": lambda x: (x * 1).div_(x * x + 1),
    "pow_": lambda x: (x * 1).pow_(3),
    "neg_": lambda x: (x * 1).neg_(),
    "clamp_": lambda x: (x * 1).clamp_(-0.5, 0.5),
    "masked_fill_": lambda x: (x * 1).masked_fill_(symgrad.tensor([True, False, True]), 0.25),
    "fill_": lambda x: (x * 1).fill_(2.0) + x,
    "copy_": lambda x: (x * 1).copy_(x.flip(0) * 3),
    "exp_through_view": lambda x: (x * 1).view(3, 1).exp_().view(3),
    "setitem_products": _setitem_products,
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_ops(name):
    x = leaf([0.3, -0.8, 1.4], "x")
    y = scalarise(IN_PLACE[name](x), rng_for(name))
    expr, (g,) = expression(y), gradient(y, [x])
    values = values_of([x])
    assert_close(evaluate(expr, values), y.item())
    assert_close(evaluate_all(flat(g), values), numeric_gradients(y, [x])[0])
    check_against_diff(expr, [g], [x], name)


def test_expression_result_types_follow_the_shape():
    x = leaf(np.full((2, 3), 0.5), "x")
    assert isinstance(expression(x.sum()), sp.Expr)
    assert isinstance(expression(x * 2), sp.MatrixBase) and expression(x * 2).shape == (2, 3)
    assert isinstance(expression(x[0] * 2), sp.NDimArray) and expression(x[0] * 2).shape == (3,)
    three = expression(x.reshape(1, 2, 3) * 2)
    assert isinstance(three, sp.NDimArray) and three.shape == (1, 2, 3)


def test_detached_values_enter_as_numbers():
    x = leaf([0.5, 2.0], "x")
    y = (x.detach() * x).sum()
    X = element_symbols(x)
    assert expression(y) == X[0] / 2 + 2 * X[1]
    assert list(gradient(y, x)) == [sp.Rational(1, 2), 2]
    assert_close([0.5, 2.0], numeric_gradients(y, [x])[0])


def test_gradient_by_an_intermediate_tensor():
    x = leaf([0.3, 0.6], "x")
    h = x * 2
    y = symgrad.sin(h).sum() + (x * x).sum()
    X = element_symbols(x)
    g_h, g_x = gradient(y, [h, x])
    assert list(g_h) == [sp.cos(2 * s) for s in X]
    assert list(g_x) == [2 * sp.cos(2 * s) + 2 * s for s in X]


def test_closed_forms_after_backward_freed_the_graph():
    w = leaf([[0.5, -1.0], [2.0, 0.25]], "w")
    x = leaf([0.7, -0.3], "x")
    y = symgrad.softmax(symgrad.matmul(w, x), 0)[0] * symgrad.tanh(x).sum()
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()  # the buffers are freed ...
    grads = gradient(y, [w, x])  # ... and the closed forms still replay
    values = values_of([w, x])
    for g, t in zip(grads, (w, x)):
        assert_close(evaluate_all(flat(g), values), t.grad.numpy().reshape(-1))


def test_choices_by_value_are_the_traced_ones():
    x = leaf([0.3, 1.7, -0.2], "x")
    X = element_symbols(x)
    assert expression(x.max()) == X[1]
    assert list(gradient(x.max(), x)) == [0, 1, 0]
    assert expression(x[x > 0].sum()) == X[0] + X[1]
    assert expression(symgrad.relu(x).sum()).subs({X[0]: 0.3, X[1]: 1.7, X[2]: -0.2}) == 2.0


def test_python_control_flow_gives_the_branch_taken():
    x = leaf(0.4, "x")
    y = x
    while y.item() < 3:
        y = y * 2
    X = symbols(x)
    assert expression(y) == 8 * X
    assert gradient(y, x) == 8

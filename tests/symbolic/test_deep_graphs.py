"""Deep graphs: assignment form (``cse=True``) stays linear in the graph, and inline form
refuses clearly instead of letting a RecursionError out of SymPy."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import SymbolicDepthError, expression, gradient, hessian, jacobian

from .support import assert_close, evaluate_cse, flat, leaf, values_of


def sine_chain(steps: int, start: float = 0.5):
    """``y = sin(y) * 1.01 + 0.1`` repeated: three ops per step."""
    x = leaf(start, "x0")
    y = x
    for _ in range(steps):
        y = symgrad.sin(y) * 1.01 + 0.1
    return x, y


def recurrence(steps: int):
    """``h = tanh(W @ h) * h`` repeated with one named 2x2 ``W``: three ops per step, and ``h``
    used twice by each."""
    rng = np.random.default_rng(2)
    w, h0 = leaf(rng.uniform(-0.5, 0.5, (2, 2)), "W"), leaf(rng.uniform(-1, 1, 2), "h")
    h = h0
    for _ in range(steps):
        h = symgrad.tanh(symgrad.matmul(w, h)) * h
    return [w, h0], h.sum()


@pytest.mark.slow
def test_600_op_chain_differentiates_in_assignment_form():
    x, y = sine_chain(200)
    replacements, g = gradient(y, x, cse=True)
    assert len(replacements) > 200
    (value,) = evaluate_cse((replacements, g), values_of([x]))
    y.backward()
    assert_close(value, [x.grad.item()])


def test_600_op_chain_expression_in_assignment_form():
    x, y = sine_chain(200)
    (value,) = evaluate_cse(expression(y, cse=True), values_of([x]))
    assert_close(value, [y.item()])


@pytest.mark.slow
@pytest.mark.parametrize("function", ["expression", "gradient", "jacobian", "hessian"])
def test_too_deep_inline_form_is_a_clear_error_suggesting_cse(function):
    x, y = sine_chain(200)
    call = {
        "expression": lambda: expression(y),
        "gradient": lambda: gradient(y, x),
        "jacobian": lambda: jacobian(y, x),
        "hessian": lambda: hessian(y, x),
    }[function]
    with pytest.raises(SymbolicDepthError, match="cse=True") as info:
        call()
    assert not isinstance(info.value, RecursionError)


def test_much_deeper_graph_still_gives_the_clear_error():
    x, y = sine_chain(1500)  # 4500 ops: deeper than Python's recursion limit
    with pytest.raises(SymbolicDepthError, match="cse=True"):
        gradient(y, x)


def test_shallow_chain_inline_and_cse_agree():
    x, y = sine_chain(10)
    inline = gradient(y, x)
    (value,) = evaluate_cse(gradient(y, x, cse=True), values_of([x]))
    assert_close(value, [float(inline.xreplace(values_of([x])))])


def count_operations(pair) -> int:
    """``sympy.count_ops`` over the replacements and the results."""
    replacements, results = pair
    items = results if isinstance(results, list) else [results]
    definitions = sum(sp.count_ops(d) for _, d in replacements)
    return definitions + sum(sp.count_ops(r) for item in items for r in flat(item))


def _gradient_sizes(make, steps_list):
    sizes = []
    for steps in steps_list:
        xs, y = make(steps)
        sizes.append(count_operations(gradient(y, xs, cse=True)))
    return sizes


@pytest.mark.slow
@pytest.mark.parametrize("make", [sine_chain, recurrence], ids=["chain", "recurrence"])
def test_assignment_form_size_grows_linearly(make):
    # 3 ops per step: about 50, 100 and 200 ops
    small, medium, large = _gradient_sizes(make, (17, 33, 67))
    per_op = [small / 51, medium / 99, large / 201]
    assert max(per_op) / min(per_op) < 1.2, per_op
    assert 1.7 < medium / small < 2.3 and 1.7 < large / medium < 2.3, (small, medium, large)


def test_inline_form_grows_faster_than_linearly():
    """The size measure can tell: the inline gradient of the chain is quadratic (each factor
    ``cos(...)`` holds the whole chain below it)."""
    sizes = []
    for steps in (10, 20):
        x, y = sine_chain(steps)
        sizes.append(sp.count_ops(gradient(y, x)))
    assert sizes[1] / sizes[0] > 3

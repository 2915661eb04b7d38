"""Closed forms of every op in the shared op table (``tests/ops/op_db.py``).

For each entry, on its float64 samples with named leaves ``x0, x1, ...``, scalarised with
random constant weights:

- ``expression(y)`` evaluated at the samples is the engine's forward value;
- ``gradient(y, xs)`` evaluated at the samples is the engine's numeric gradient (1e-10);
- ``gradient(y, xs)`` equals ``sympy.diff(expression(y), element)`` at the samples and at a
  perturbed point, for a sample of each input's elements (``sympy.diff`` of the composed
  formula is the slow part).

For the non-linear ops, ``hessian(y, x)`` evaluated is the engine's double-backward Hessian.

The table covers element-wise functions, reductions (sum, mean, prod, amax, amin, max, min,
var, std, logsumexp, norm), softmax and log_softmax, matmul in all its shape cases, the shape
ops, indexing with ints, slices, integer tensors and masks, setitem, gather and the losses.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import grad
from symgrad.symbolic import expression, gradient, hessian

from .support import (
    assert_close,
    check_against_diff,
    element_symbols,
    evaluate,
    flat,
    leaf,
    numeric_gradients,
    rng_for,
    scalarise,
    values_of,
)

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from ops.op_db import OP_DB
except ImportError:  # tests/ made a package itself
    from tests.ops.op_db import OP_DB

KNOWN_BUGS: dict = {}  # op name -> a strict xfail mark, for a bug awaiting its fix


def _params():
    for op in OP_DB:
        marks = (KNOWN_BUGS[op.name],) if op.name in KNOWN_BUGS else ()
        yield pytest.param(op, id=op.name, marks=marks)


def _traced(op):
    """Named leaves on the op's samples, and the scalarised output."""
    xs = [leaf(a, f"x{i}") for i, a in enumerate(op.sample())]
    y = scalarise(op.fn(symgrad, *xs), rng_for(op.name))
    return xs, y


@pytest.mark.parametrize("op", list(_params()))
def test_closed_forms_match_engine_and_sympy_diff(op):
    xs, y = _traced(op)
    if "numeric_only" in op.tags:  # decompositions: a clear refusal, not a wrong formula
        with pytest.raises(NotImplementedError, match="has no closed form"):
            expression(y)
        return
    expr = expression(y)
    grads = gradient(y, xs)
    symbol_lists = [element_symbols(x) for x in xs]
    point = values_of(xs, symbol_lists)

    assert_close(evaluate(expr, point), y.item(), f"{op.name}: forward")
    for x, g, numeric in zip(xs, grads, numeric_gradients(y, xs)):
        assert len(flat(g)) == x.numel()
        assert_close([evaluate(e, point) for e in flat(g)], numeric, f"{op.name}: gradient")
    check_against_diff(expr, grads, xs, op.name, symbol_lists)


# Second derivatives of the non-linear ops, with respect to the first input.
HESSIAN_OPS = [
    "exp",
    "log",
    "sigmoid",
    "tanh",
    "erf",
    "gelu",
    "softplus",
    "pow_tensor",
    "div",
    "prod_all_with_zero",
    "softmax_1d",
    "log_softmax_dim0",
    "norm_p3_dim",
    "var_dim",
    "matmul_self",
    "bce_with_logits_mean",
    "cross_entropy_mean",
    "cross_entropy_label_smoothing_mean",
]


def _double_backward_hessian(op):
    """Rows ``d(dy/dx)_k / dx`` from ``grad(..., create_graph=True)`` and a second ``grad``."""
    xs, y = _traced(op)
    x = xs[0]
    (g,) = grad(y, x, create_graph=True)
    rows = []
    for k in range(x.numel()):
        # a gradient that does not depend on x (div's 1/y) has a zero Hessian, not an error
        (row,) = grad(g.reshape(-1)[k], x, retain_graph=True, materialize_grads=True)
        rows.append(row.numpy().reshape(-1))
    return np.array(rows)


@pytest.mark.parametrize("name", HESSIAN_OPS)
def test_hessian_matches_double_backward(name):
    op = {o.name: o for o in OP_DB}[name]
    xs, y = _traced(op)
    H = hessian(y, xs[0])
    assert H.shape == (xs[0].numel(), xs[0].numel())
    values = values_of(xs)
    assert_close(
        [evaluate(e, values) for e in H],
        _double_backward_hessian(op).reshape(-1),
        f"{name}: Hessian",
    )

"""Random compositions of ops on random small shapes: the closed-form gradient, evaluated at the
leaves' values, is the engine's numeric gradient, in inline and in assignment form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import symgrad
from symgrad.symbolic import gradient

from .support import (
    assert_close,
    evaluate_all,
    evaluate_cse,
    flat,
    leaf,
    numeric_gradients,
    scalarise,
    values_of,
)


def _constant(shape):
    n = int(np.prod(shape)) if shape else 1
    values = (np.arange(n) % 5 - 2) / 4.0 + 0.125
    return symgrad.tensor(values.reshape(shape), dtype=symgrad.float64)


def _last_dim_matrix(x):
    n = x.shape[-1]
    m = np.add.outer(np.arange(n), 2 * np.arange(n)) % 3 / 2.0 - 0.5
    return symgrad.matmul(x, symgrad.tensor(m, dtype=symgrad.float64))


# Every op keeps the shape, so any sequence composes and binary ops can use the second leaf.
ANY_SHAPE = {
    "sin": lambda x, y: symgrad.sin(x),
    "tanh": lambda x, y: symgrad.tanh(x),
    "sigmoid": lambda x, y: symgrad.sigmoid(x),
    "exp_half": lambda x, y: symgrad.exp(x * 0.5),
    "square_half": lambda x, y: x * x * 0.5,
    "log1p_square": lambda x, y: symgrad.log1p(x * x),
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (1 + y * y),
    "sub_constant": lambda x, y: x - _constant(tuple(x.shape)),
    "pow_constant_exponent": lambda x, y: (x * x + 1) ** 0.5,
}
WITH_DIMS = {
    "softmax": lambda x, y: symgrad.softmax(x, -1),
    "log_softmax": lambda x, y: symgrad.log_softmax(x, -1),
    "sum_keepdim": lambda x, y: x.sum(-1, keepdim=True) * y,
    "mean_keepdim": lambda x, y: x.mean(-1, keepdim=True) + x,
    "logsumexp": lambda x, y: symgrad.logsumexp(x, -1, keepdim=True) - y,
    "flip": lambda x, y: x.flip(-1),
    "matmul_constant": lambda x, y: _last_dim_matrix(x),
    "reshape_round_trip": lambda x, y: x.reshape(-1).reshape(x.shape),
    "cat_split": lambda x, y: symgrad.cat([x, y], -1).split(x.shape[-1], -1)[1] * x,
}
MATRIX = {
    "transpose_twice": lambda x, y: x.transpose(-1, -2).exp().transpose(-1, -2),
    "matmul_square": lambda x, y: x * symgrad.matmul(x.transpose(-1, -2), y).sum(-1)[..., None, :],
    "index_rows": lambda x, y: x[..., [1, 0], :] * y,
}

SHAPES = [(), (3,), (2, 3), (2, 2, 2)]


def _available(shape):
    ops = dict(ANY_SHAPE)
    if len(shape) >= 1:
        ops.update(WITH_DIMS)
    if len(shape) >= 2:
        ops.update(MATRIX)
    return sorted(ops.items())


@st.composite
def graphs(draw):
    """A shape, two named leaves of it, and a sequence of ops applicable to it."""
    shape = draw(st.sampled_from(SHAPES))
    values = arrays(np.float64, shape, elements=st.floats(-1.5, 1.5, allow_subnormal=False))
    x, y = draw(values), draw(values)
    names = [name for name, _ in _available(shape)]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=5))
    seed = draw(st.integers(0, 2**16))
    return shape, x, y, chosen, seed


def _build(shape, x, y, chosen, seed):
    ops = dict(_available(shape))
    p, q = leaf(x, "p"), leaf(y, "q")
    out = p
    for name in chosen:
        out = ops[name](out, q)
    return [p, q], scalarise(out, np.random.default_rng(seed))


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(graphs())
def test_random_composition_gradient_is_numeric_gradient(case):
    leaves, y = _build(*case)
    values = values_of(leaves)
    closed = gradient(y, leaves)
    for g, numeric in zip(closed, numeric_gradients(y, leaves)):
        assert_close(evaluate_all(flat(g), values), numeric, str(case))


@settings(max_examples=15, deadline=None)
@given(graphs())
def test_random_composition_cse_gradient_is_numeric_gradient(case):
    leaves, y = _build(*case)
    results = evaluate_cse(gradient(y, leaves, cse=True), values_of(leaves))
    for got, numeric in zip(results, numeric_gradients(y, leaves)):
        assert_close(got, numeric, str(case))

"""Every op in the op table: gradients and second derivatives against finite differences.

For each entry of :data:`op_db.OP_DB`: the vector-Jacobian product with a random ``v`` equals
central finite differences of ``<v, op(x)>`` in float64; the gradient of ``<w, J^T v>`` taken
through ``grad(..., create_graph=True)`` equals finite differences of the numeric first
gradient; and, when PyTorch is importable, values and first gradients equal PyTorch's.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import symgrad
from symgrad.autograd import grad

from .op_db import OP_DB

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-6


def _ids(ops):
    return [op.name for op in ops]


def _outputs(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _leaves(arrays) -> list:
    return [symgrad.tensor(x, dtype=symgrad.float64, requires_grad=True) for x in arrays]


def _rng(op, salt: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32((op.name + salt).encode()))


def _forward(op, arrays) -> tuple[np.ndarray, ...]:
    with symgrad.no_grad():
        outs = _outputs(op.fn(symgrad, *(symgrad.tensor(x, dtype=symgrad.float64) for x in arrays)))
    return tuple(o.numpy() for o in outs)


def _projections(op, arrays) -> list[np.ndarray]:
    rng = _rng(op, "v")
    return [rng.standard_normal(np.shape(o)) for o in _forward(op, arrays)]


def _vjp(op, arrays, vs, create_graph=False) -> tuple:
    """``J^T v`` for every input (zeros where an input does not reach the output)."""
    xs = _leaves(arrays)
    outs = _outputs(op.fn(symgrad, *xs))
    gs = grad(
        outs,
        xs,
        [symgrad.tensor(v, dtype=symgrad.float64) for v in vs],
        create_graph=create_graph,
        allow_unused=True,
    )
    return xs, [
        g if g is not None else symgrad.zeros(x.shape, dtype=symgrad.float64)
        for g, x in zip(gs, xs)
    ]


def numeric_gradient(f, arrays) -> list[np.ndarray]:
    """Central differences of the scalar function ``f(arrays)`` for each element."""
    result = []
    for k, x in enumerate(arrays):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            shifted = [np.array(y, copy=True) for y in arrays]
            shifted[k][idx] = x[idx] + EPS
            up = f(shifted)
            shifted[k][idx] = x[idx] - EPS
            g[idx] = (up - f(shifted)) / (2 * EPS)
        result.append(g)
    return result


def _assert_close(actual, expected, what) -> None:
    for k, (a, e) in enumerate(zip(actual, expected)):
        assert a.shape == e.shape, f"{what}, input {k}: shape {a.shape} != {e.shape}"
        np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, err_msg=f"{what}, input {k}")


@pytest.mark.parametrize("op", OP_DB, ids=_ids(OP_DB))
def test_gradient_matches_finite_differences(op):
    arrays = op.sample()
    vs = _projections(op, arrays)
    _, gs = _vjp(op, arrays, vs)
    for g, x in zip(gs, arrays):
        assert g.dtype is symgrad.float64 and g.shape == x.shape

    def projected(xs):
        return sum(float(np.sum(o * v)) for o, v in zip(_forward(op, xs), vs))

    _assert_close([g.numpy() for g in gs], numeric_gradient(projected, arrays), op.name)


@pytest.mark.parametrize("op", OP_DB, ids=_ids(OP_DB))
def test_double_backward_matches_finite_differences(op):
    arrays = op.sample()
    vs = _projections(op, arrays)
    rng = _rng(op, "w")
    ws = [rng.standard_normal(x.shape) for x in arrays]

    xs, gs = _vjp(op, arrays, vs, create_graph=True)
    if "no_double_backward" in op.tags:  # PyTorch's error
        with pytest.raises((RuntimeError, NotImplementedError), match="is not implemented"):
            grad(sum(g.sum() for g in gs), xs)
        return
    terms = [
        (g * symgrad.tensor(w, dtype=symgrad.float64)).sum()
        for g, w in zip(gs, ws)
        if g.requires_grad
    ]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        second = grad(total, xs, allow_unused=True)
        second = [np.zeros(x.shape) if s is None else s.numpy() for s, x in zip(second, xs)]
    else:  # the first gradient does not depend on the inputs: the op is linear
        second = [np.zeros(x.shape) for x in xs]

    def first_gradient_projected(arrs):
        _, g1 = _vjp(op, arrs, vs)
        return sum(float(np.sum(g.numpy() * w)) for g, w in zip(g1, ws))

    _assert_close(second, numeric_gradient(first_gradient_projected, arrays), op.name)


TORCH_OPS = [op for op in OP_DB if op.torch]


@pytest.mark.torch
@pytest.mark.parametrize("op", TORCH_OPS, ids=_ids(TORCH_OPS))
def test_values_and_gradients_match_pytorch(op):
    torch = pytest.importorskip("torch")
    arrays = op.sample()
    vs = _projections(op, arrays)
    ours_in = _leaves(arrays)
    theirs_in = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in arrays]
    ours = _outputs(op.fn(symgrad, *ours_in))
    theirs = _outputs(op.fn(torch, *theirs_in))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.shape == tuple(t.shape)
        assert o.dtype.name == str(t.dtype).removeprefix("torch."), (o.dtype, t.dtype)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14)
    ours_g = grad(
        ours, ours_in, [symgrad.tensor(v, dtype=symgrad.float64) for v in vs], allow_unused=True
    )
    theirs_g = torch.autograd.grad(
        theirs, theirs_in, [torch.tensor(v) for v in vs], allow_unused=True
    )
    # PyTorch's trigamma (digamma's derivative) is a short series, good to ~5e-10 relative;
    # symgrad's is good to float64's rounding
    rtol = 1e-9 if "torch_series" in op.tags else 1e-12
    for g, t, x in zip(ours_g, theirs_g, arrays):
        g = np.zeros(x.shape) if g is None else g.numpy()
        t = np.zeros(x.shape) if t is None else t.numpy()
        np.testing.assert_allclose(g, t, rtol=rtol, atol=1e-14)


# -- broadcasting, for any pair of shapes ----------------------------------------------------------
def _sample(kind: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    if kind == "pos":
        return rng.uniform(0.3, 2.0, shape)
    if kind == "away":
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 2.0, shape)
    return rng.uniform(-2.0, 2.0, shape)


BROADCASTING = {
    "add": (lambda x, y: x + y, "any", "any"),
    "sub": (lambda x, y: symgrad.sub(x, y, alpha=2), "any", "any"),
    "mul": (lambda x, y: x * y, "any", "any"),
    "div": (lambda x, y: x / y, "any", "away"),
    "pow": (lambda x, y: x**y, "pos", "any"),
    "maximum": (symgrad.maximum, "any", "any"),
    "where": (lambda x, y: symgrad.where(x > y, x * 2, y), "any", "any"),
}


@pytest.mark.parametrize("name", sorted(BROADCASTING))
@settings(max_examples=15)
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_broadcasting_gradients_reduce_to_each_input_shape(name, shapes, seed):
    fn, kind_x, kind_y = BROADCASTING[name]
    rng = np.random.default_rng(seed)
    arrays = [
        _sample(kind_x, shapes.input_shapes[0], rng),
        _sample(kind_y, shapes.input_shapes[1], rng),
    ]
    v = rng.standard_normal(shapes.result_shape)
    xs = _leaves(arrays)
    out = fn(*xs)
    assert out.shape == shapes.result_shape
    gs = grad(out, xs, symgrad.tensor(v, dtype=symgrad.float64), allow_unused=True)

    def projected(arrs):
        with symgrad.no_grad():
            return float(np.sum(fn(*(symgrad.tensor(a) for a in arrs)).numpy() * v))

    _assert_close([g.numpy() for g in gs], numeric_gradient(projected, arrays), name)

"""A fused region that keeps its partial derivatives: where fewer inputs need a gradient than
the region has costly members, the forward pass computes ``d out / d input`` for those inputs
in its blocks and the backward pass multiplies, with the eager gradients in every case."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.compiler import numexpr_backend
from symgrad.prim import blocks

N = 3000


pytestmark = pytest.mark.usefixtures("small_blocks")  # (tests/compiler/conftest.py)


def w4(x):
    return (symgrad.sin(x) * symgrad.exp(-x * x) + symgrad.tanh(x)).sum()


def _x(requires_grad=True, dtype=np.float64):
    values = np.linspace(-2.5, 2.5, N).astype(dtype)
    return symgrad.tensor(values, requires_grad=requires_grad)


def _region_line(source: str) -> str:
    return next(line for line in source.splitlines() if "# fused" in line)


def _grad(fn, *tensors):
    for t in tensors:
        t.grad = None
    fn(*tensors).backward()
    return [None if t.grad is None else t.grad.numpy().copy() for t in tensors]


def test_one_input_keeps_its_partial_instead_of_three_members():
    x = _x()
    f = symgrad.compile(w4, fullgraph=True)
    (got,) = _grad(f, x)
    # the result and one partial, not the sine, exponential and tanh
    assert _region_line(f.source).strip().startswith("v0_0, v0_1 = f0(a0)")
    (want,) = _grad(w4, x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    xs = np.linspace(-2.5, 2.5, N)  # the formula by hand
    by_hand = np.cos(xs) * np.exp(-xs * xs) - 2 * xs * np.sin(xs) * np.exp(-xs * xs)
    by_hand += 1 - np.tanh(xs) ** 2
    np.testing.assert_allclose(got, by_hand, rtol=1e-13, atol=1e-15)


def test_more_gradients_than_members_keep_the_members():
    # one costly member (the sine) and two inputs needing gradients: the members are kept
    def fn(x, y):
        return (symgrad.sin(x * y) * y).sum()

    x, y = _x(), _x()
    f = symgrad.compile(fn, fullgraph=True)
    got = _grad(f, x, y)
    assert _region_line(f.source).strip().startswith("v0_0, v0_1 = f0(a0, a1)")
    want = _grad(fn, x, y)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    # with y alone needing its gradient, its partial is kept instead
    x.requires_grad_(False)
    got = _grad(f, x, y)
    want = _grad(fn, x, y)
    assert got[0] is None and want[0] is None
    np.testing.assert_allclose(got[1], want[1], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_broadcast_input_s_partial_is_summed_to_its_shape(dtype):
    def fn(x, w):
        return (symgrad.sin(x.reshape(50, 60) * w).exp() * 0.5).sum()

    x = _x(requires_grad=False, dtype=dtype)
    w = symgrad.tensor(np.linspace(0.5, 1.5, 50).reshape(50, 1).astype(dtype), requires_grad=True)
    f = symgrad.compile(fn, fullgraph=True)
    (_, got) = _grad(f, x, w)
    (_, want) = _grad(fn, x, w)
    assert got.shape == (50, 1) and got.dtype == dtype
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got, want, **tol)


def test_first_call_under_no_grad_still_builds_the_partials():
    x = _x()
    f = symgrad.compile(w4, fullgraph=True)  # (a graph break raises)
    with symgrad.no_grad():
        value = f(x)  # built here, outside grad mode
    assert not value.requires_grad
    assert value.item() == pytest.approx(w4(x).item(), rel=1e-13)
    (got,) = _grad(f, x)
    (want,) = _grad(w4, x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_retain_graph_backward_twice_accumulates_the_same_gradient():
    x = _x()
    f = symgrad.compile(w4, fullgraph=True)
    loss = f(x)
    loss.backward(retain_graph=True)
    once = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * once, rtol=1e-15)


def test_blocked_results_own_their_memory():
    # an array of its own, so .grad keeps it without a copy
    (out,) = blocks.run_blocked(
        lambda parts, shape: [parts[0] * 2], [np.ones((60, 50))], (60, 50), [np.float64]
    )
    assert out.base is None and out.shape == (60, 50) and np.all(out == 2)


@pytest.mark.parametrize("vml", [False, True])
def test_numexpr_backend_without_vml_runs_large_regions_in_numpy_blocks(vml, monkeypatch):
    numexpr = pytest.importorskip("numexpr")
    monkeypatch.setattr(numexpr, "use_vml", vml, raising=False)
    monkeypatch.setattr(numexpr_backend, "MIN_SIZE", 1000)
    x = _x()
    f = symgrad.compile(w4, backend="numexpr", fullgraph=True)
    (got,) = _grad(f, x)
    forward = f.source.split("def backward")[0]
    # numexpr's functions are libm's without VML: NumPy's vectorised ones, in blocks
    assert ("# numexpr" in forward) == vml and ("# fused" in forward) == (not vml)
    (want,) = _grad(w4, x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


UNARY = [
    symgrad.sin,
    symgrad.cos,
    symgrad.exp,
    symgrad.tanh,
    lambda a: a * a,
    lambda a: -a,
    lambda a: (a * a + 1).sqrt(),
    lambda a: (a * a + 1).log(),
    lambda a: a * 0.5 + 1.25,
]
BINARY = [
    lambda a, b: a * b,
    lambda a, b: a + b,
    lambda a, b: a - b * 2.0,
    lambda a, b: a / (b * b + 1),
]


def _chain(seed: int):
    """A random element-wise chain over x (N,), y (N,) and w (1,), as a function."""
    rng = np.random.default_rng(seed)
    plan = [(int(rng.integers(2)), int(rng.integers(9)), int(rng.integers(3))) for _ in range(6)]

    def fn(x, y, w):
        values = [x, y, w]
        a = x
        for binary, k, other in plan:
            a = BINARY[k % len(BINARY)](a, values[other]) if binary else UNARY[k](a)
        return (a * y * w).sum()  # every input used

    return fn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(40))
def test_random_chains_give_the_eager_gradients_for_every_choice_of_inputs(seed, dtype):
    fn = _chain(seed)
    rng = np.random.default_rng(100 + seed)
    arrays = [rng.uniform(-1.5, 1.5, N), rng.uniform(-1.5, 1.5, N), rng.uniform(0.5, 1.5, 1)]
    flags = [bool(f) for f in rng.integers(2, size=3)]
    flags[seed % 3] = True  # at least one input needs its gradient
    tensors = [symgrad.tensor(a.astype(dtype), requires_grad=r) for a, r in zip(arrays, flags)]
    f = symgrad.compile(fn, fullgraph=True)
    got = _grad(f, *tensors)
    got = _grad(f, *tensors)  # the program, run again
    want = _grad(fn, *tensors)
    tol = dict(rtol=2e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for a, b, r in zip(got, want, flags):
        assert (a is None) == (b is None) == (not r)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, **tol)

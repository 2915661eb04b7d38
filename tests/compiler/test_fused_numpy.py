"""The NumPy backend's element-wise regions: on large arrays a chain of element-wise steps is
one fused step, run block by block on every core (no numexpr needed), with the eager values
and gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

CHAINS = {
    "w4": lambda x, y: (symgrad.sin(x) * symgrad.exp(-x * x) + symgrad.tanh(x)).sum(),
    "polynomial": lambda x, y: ((x * x - 3.0 * x + 1.5) * y / (1 + y * y)).sum(),
    "relu_sqrt": lambda x, y: (symgrad.relu(x) + (y * y + 1).sqrt() * x.cosh()).mean(),
    "returns_both": lambda x, y: (x.sin() * y, (x * y).exp()),
    "broadcast": lambda x, y: (x.reshape(50, 60) * y.reshape(50, 60)[:, :1]).tanh().sum(),
    "sigmoid_kept": lambda x, y: (x.sigmoid() * y + F.softplus(x)).sum(),
}
N = 3000


pytestmark = pytest.mark.usefixtures("small_blocks")  # (tests/compiler/conftest.py)


def _run(fn, x, y):
    x.grad = y.grad = None
    out = fn(x, y)
    outs = out if isinstance(out, tuple) else (out,)
    symgrad.autograd.backward([o.sum() for o in outs])
    grads = [t.grad.numpy() for t in (x, y) if t.grad is not None]
    return [o.detach().numpy() for o in outs] + grads


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CHAINS))
def test_fused_regions_give_the_eager_values_and_gradients(case, dtype):
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.standard_normal(N).astype(dtype), requires_grad=True)
    y = symgrad.tensor(rng.standard_normal(N).astype(dtype), requires_grad=True)
    fn = CHAINS[case]
    compiled = symgrad.compile(fn, fullgraph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fused program passed its check: no break
        got = _run(compiled, x, y)
        got = _run(compiled, x, y)  # the program, run again
    want = _run(fn, x, y)
    tol = dict(rtol=2e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, **tol)


def test_a_chain_is_one_fused_step_and_small_arrays_stay_steps():
    x = symgrad.tensor(np.linspace(-2, 2, N), requires_grad=True)
    f = symgrad.compile(CHAINS["w4"])
    f(x, x).backward()
    forward = f.source.split("def backward")[0]
    assert "# fused" in forward and "# sin" not in forward
    small = symgrad.tensor(np.linspace(-2, 2, 500), requires_grad=True)
    f(small, small).backward()
    assert "# sin" in f.source and "# fused" not in f.source


def test_stable_kernels_stay_numpy_steps_and_edges_are_the_eager_ones():
    x = symgrad.tensor(np.linspace(-3, 3, N), requires_grad=True)
    x.data[:2] = symgrad.tensor([1000.0, -1000.0], dtype=symgrad.float64)
    y = symgrad.tensor(np.ones(N), requires_grad=True)
    f = symgrad.compile(CHAINS["sigmoid_kept"])
    got = _run(f, x, y)
    assert "# sigmoid" in f.source and "# softplus" in f.source
    for a, b in zip(got, _run(CHAINS["sigmoid_kept"], x, y)):
        np.testing.assert_allclose(a, b, rtol=1e-12)

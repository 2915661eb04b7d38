"""SGD's step runs on the arrays for float32 and float64 weights (no tensor op per update):
the same numbers as the tensor ops give, bit for bit,
for every combination of momentum, dampening, Nesterov, weight decay and maximize, with the
momentum buffer laid out as the gradient; and PyTorch's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

VARIANTS = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.3},
    {"momentum": 0.8, "nesterov": True, "weight_decay": 5e-4},
    {"weight_decay": 1e-2, "maximize": True},
    {"momentum": 0.5, "maximize": True, "weight_decay": 0.1},
]


def _run(lib, dtype, kwargs, steps=6):
    rng = np.random.default_rng(11)
    w0 = rng.standard_normal((5, 4)).astype(dtype)
    b0 = rng.standard_normal(4).astype(dtype)
    x = lib.tensor(rng.standard_normal((3, 5)).astype(dtype))
    w = lib.tensor(w0, requires_grad=True)
    b = lib.tensor(b0, requires_grad=True)
    opt = lib.optim.SGD([w, b], lr=0.05, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).tanh() ** 2).sum().backward()
        opt.step()
    bufs = [opt.state[p].get("momentum_buffer") for p in (w, b)]
    return [t.detach().numpy() for t in (w, b)], [None if q is None else q.numpy() for q in bufs]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arrays_give_the_tensor_ops_numbers(kwargs, dtype, monkeypatch):
    from symgrad.optim import sgd

    weights, bufs = _run(symgrad, dtype, kwargs)
    monkeypatch.setattr(sgd, "on_arrays", lambda *a: False)
    ref_weights, ref_bufs = _run(symgrad, dtype, kwargs)
    for a, e in zip(weights + bufs, ref_weights + ref_bufs):
        assert (a is None) == (e is None)
        if a is not None:
            assert a.dtype == e.dtype == dtype
            np.testing.assert_array_equal(a, e)


@pytest.mark.skipif(torch is None, reason="PyTorch is the reference here")
@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
def test_float32_steps_are_pytorchs(kwargs):
    (weights, bufs), (t_weights, t_bufs) = (
        _run(symgrad, np.float32, kwargs),
        _run(torch, np.float32, kwargs),
    )
    for a, e in zip(weights + bufs, t_weights + t_bufs):
        if a is not None:
            np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-6)


def test_plain_values_of_two_momentum_steps():
    """w = 1, loss w^2, lr 0.1, momentum 0.9: w 0.8, then 0.8 - 0.1 * (0.9 * 2 + 1.6)."""
    w = symgrad.tensor([1.0], requires_grad=True)
    opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    versions = []
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        versions.append(w._version)
    assert w.tolist() == pytest.approx([0.46])
    assert opt.state[w]["momentum_buffer"].tolist() == pytest.approx([3.4])
    assert versions == [1, 2]


def test_buffer_keeps_the_gradients_layout():
    """The first momentum buffer is the gradient cloned (its strides kept, as PyTorch's)."""
    w = symgrad.zeros(4, 3).t().requires_grad_()  # a transposed leaf
    opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    w.grad = symgrad.ones(4, 3).t()
    opt.step()
    buf = opt.state[w]["momentum_buffer"]
    assert buf.stride() == w.grad.stride() == (1, 3)
    assert buf.tolist() == [[1.0] * 4] * 3

"""Adadelta's step runs on the arrays for float32 and float64 weights: the same numbers as
its tensor ops, bit for bit (with and without weight decay, maximize), and PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

VARIANTS = [{}, {"rho": 0.5, "eps": 1e-4}, {"weight_decay": 0.01}, {"maximize": True, "lr": 0.5}]


def _run(lib, dtype, kwargs, steps=6):
    rng = np.random.default_rng(12)
    w = lib.tensor(rng.standard_normal((5, 4)).astype(dtype), requires_grad=True)
    b = lib.tensor(rng.standard_normal(4).astype(dtype), requires_grad=True)
    x = lib.tensor(rng.standard_normal((3, 5)).astype(dtype))
    opt = lib.optim.Adadelta([w, b], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).sin() ** 2).sum().backward()
        opt.step()
    state = [opt.state[w][k].numpy() for k in ("square_avg", "acc_delta", "step")]
    return [w.detach().numpy(), b.detach().numpy()] + state


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arrays_give_the_tensor_ops_numbers(kwargs, dtype, monkeypatch):
    from symgrad.optim import sign_steps

    got = _run(symgrad, dtype, kwargs)
    monkeypatch.setattr(sign_steps, "on_arrays", lambda *a: False)
    for a, e in zip(got, _run(symgrad, dtype, kwargs)):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)
    assert got[-1] == 6.0


def test_plain_values_of_one_step():
    """w = 1, loss w^2 (g = 2), rho 0.9, eps 1e-6: s = 0.4, delta = sqrt(1e-6 / 0.400001) * 2."""
    w = symgrad.tensor([1.0], dtype=symgrad.float64, requires_grad=True)
    opt = symgrad.optim.Adadelta([w])
    (w * w).sum().backward()
    opt.step()
    delta = np.sqrt(1e-6) / np.sqrt(0.4 + 1e-6) * 2
    assert w.item() == pytest.approx(1 - delta, rel=1e-15)
    assert opt.state[w]["acc_delta"].item() == pytest.approx(0.1 * delta * delta, rel=1e-14)


@pytest.mark.skipif(torch is None, reason="PyTorch is the reference here")
@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
def test_float64_steps_are_pytorchs(kwargs):
    for a, e in zip(_run(symgrad, np.float64, kwargs), _run(torch, np.float64, kwargs)):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-14)

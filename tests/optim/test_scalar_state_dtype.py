"""The scalar state of optimizers (``step``, NAdam's ``mu_product``) follows the default dtype as
PyTorch's ``_get_scalar_dtype``: float64 under ``set_default_dtype(float64)``, else float32. NAdam
divides by ``1 - mu_product``, so its steps under a float64 default depend on it."""

from __future__ import annotations

import pytest

import symgrad

NAMES = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad", "Adadelta"]


def _scalar_state(T, name, default):
    """The dtypes of ``name``'s scalar state after one step under the default dtype ``default``."""
    saved = T.get_default_dtype()
    T.set_default_dtype(getattr(T, default))
    try:
        p = T.nn.Parameter(T.ones(2))
        opt = getattr(T.optim, name)([p], lr=0.1)
        p.grad = T.ones(2)
        opt.step()
        return {k: str(v.dtype)[-7:] for k, v in opt.state[p].items() if v.dim() == 0}
    finally:
        T.set_default_dtype(saved)


def _nadam(T):
    """Ten NAdam steps on a float64-default parameter."""
    saved = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        w = T.nn.Parameter(T.tensor([-1.5, 2.0]))
        opt = T.optim.NAdam([w], lr=0.1)
        for _ in range(10):
            opt.zero_grad()
            ((w - 1) ** 2).sum().backward()
            opt.step()
        return w.tolist()
    finally:
        T.set_default_dtype(saved)


EXPECTED = {"float32": "float32", "float64": "float64"}
NADAM = [-0.7383746343861697, 1.3233640194019862]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_scalar_state_follows_the_default_dtype(name, default):
    state = _scalar_state(symgrad, name, default)
    assert state and set(state.values()) == {EXPECTED[default]}


def test_nadam_under_a_float64_default():
    assert _nadam(symgrad) == NADAM


@pytest.mark.torch
@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_pytorch_scalar_state(name, default):
    torch = pytest.importorskip("torch")
    assert _scalar_state(torch, name, default) == _scalar_state(symgrad, name, default)


@pytest.mark.torch
def test_pytorch_nadam_under_a_float64_default():
    torch = pytest.importorskip("torch")
    assert _nadam(torch) == NADAM

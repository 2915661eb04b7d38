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


def _loaded_steps(T):
    """The ``step`` a loaded state holds when it was saved as a plain number: an optimizer of
    the user's own (a tutorial's ``MySGD``) keeps the number, PyTorch's Adam makes it its
    scalar tensor (its ``__setstate__``)."""

    class MySGD(T.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

    found = []
    for make in (lambda ps: MySGD(ps), lambda ps: T.optim.Adam(ps)):
        p = T.nn.Parameter(T.ones(2))
        opt = make([p])
        opt.load_state_dict(
            {
                "state": {0: {"step": 6, "exp_avg": T.zeros(2), "exp_avg_sq": T.zeros(2)}},
                "param_groups": [{**opt.param_groups[0], "params": [0]}],
            }
        )
        step = opt.state[p]["step"]
        found.append((type(step).__name__, float(step)))
    return found


LOADED_STEPS = [("int", 6.0), ("Tensor", 6.0)]


def test_a_plain_step_stays_a_number_for_optimizers_of_ones_own():
    assert _loaded_steps(symgrad) == LOADED_STEPS


@pytest.mark.torch
def test_pytorch_loaded_steps():
    torch = pytest.importorskip("torch")
    assert _loaded_steps(torch) == LOADED_STEPS

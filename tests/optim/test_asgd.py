"""ASGD: a NumPy reference of the documented update (eta and mu kept as float32 scalars, as
PyTorch keeps them), the state's layout, and PyTorch's errors; cross-checked against
torch.optim.ASGD when PyTorch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

START = [-1.5, 2.0]


def _grad(w):
    return np.array([2 * (w[0] - 1) + w[1] + 0.4 * w[0] ** 3, 6 * (w[1] + 0.5) + w[0]])


def _loss(w):
    return (w[0] - 1) ** 2 + 3 * (w[1] + 0.5) ** 2 + w[0] * w[1] + 0.1 * w[0] ** 4


def _reference(steps, lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False):
    """ASGD in float64 parameters, with eta and mu rounded to float32 after each step."""
    w = np.array(START)
    ax = np.zeros(2)
    eta, mu = np.float32(lr), np.float32(1.0)
    for step in range(1, steps + 1):
        g = -_grad(w) if maximize else _grad(w)
        if weight_decay:
            g = g + weight_decay * w
        w = w * (1 - lambd * float(eta))
        w = w - float(eta) * g
        ax = ax + (w - ax) * np.float64(mu) if mu != 1 else w.copy()
        eta = np.float32(lr / (1 + lambd * lr * step) ** alpha)
        mu = np.float32(1 / max(1, step - t0))
    return w, ax, float(eta), float(mu)


def _train(lib, steps, **kwargs):
    w = lib.tensor(START, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.ASGD([w], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        _loss(w).backward()
        opt.step()
    return w, opt


CASES = [
    {},
    {"lr": 0.05, "lambd": 0.3, "t0": 2},
    {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 0, "weight_decay": 0.1},
    {"lr": 0.02, "t0": 3, "maximize": True},
]


@pytest.mark.parametrize("kwargs", CASES)
def test_six_steps_follow_the_reference(kwargs):
    w, opt = _train(symgrad, 6, **kwargs)
    want_w, want_ax, want_eta, want_mu = _reference(6, **kwargs)
    state = opt.state[w]
    assert w.tolist() == pytest.approx(want_w.tolist(), rel=1e-12)
    assert state["ax"].tolist() == pytest.approx(want_ax.tolist(), rel=1e-12)
    assert state["eta"].item() == want_eta
    assert state["mu"].item() == want_mu
    assert state["step"].item() == 6.0


def test_state_layout_and_defaults():
    w, opt = _train(symgrad, 1)
    assert list(opt.state[w]) == ["step", "eta", "mu", "ax"]
    assert [opt.state[w][k].dtype for k in ("step", "eta", "mu")] == [symgrad.float32] * 3
    assert opt.state[w]["ax"].dtype == symgrad.float64
    assert opt.defaults == {
        "lr": 0.01,
        "lambd": 1e-4,
        "alpha": 0.75,
        "t0": 1e6,
        "weight_decay": 0,
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }
    saved = opt.state_dict()
    assert list(saved["param_groups"][0])[-1] == "params"
    assert list(saved["state"]) == [0]


def test_state_dict_round_trip_continues_the_same_run():
    w, opt = _train(symgrad, 4, lr=0.05, t0=1)
    w2 = symgrad.tensor(w.tolist(), dtype=symgrad.float64, requires_grad=True)
    opt2 = symgrad.optim.ASGD([w2])
    opt2.load_state_dict(opt.state_dict())
    for weight, optimizer in ((w, opt), (w2, opt2)):
        optimizer.zero_grad()
        _loss(weight).backward()
        optimizer.step()
    assert w2.tolist() == w.tolist()
    assert opt2.state[w2]["ax"].tolist() == opt.state[w]["ax"].tolist()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lr": -1.0}, "Invalid learning rate: -1.0"),
        ({"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
    ],
)
def test_bad_arguments_raise_pytorchs_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        symgrad.optim.ASGD([symgrad.zeros(2, requires_grad=True)], **kwargs)


def test_capturable_is_accepted_but_cannot_step_on_cpu():
    w = symgrad.zeros(2, requires_grad=True)
    opt = symgrad.optim.ASGD([w], capturable=True, foreach=True)
    assert opt.defaults["capturable"] and opt.defaults["foreach"]
    w.sum().backward()
    with pytest.raises(AssertionError, match="If capturable=True, params, mus, etas"):
        opt.step()


@pytest.mark.parametrize("kwargs", CASES)
def test_against_torch(kwargs):
    torch = pytest.importorskip("torch")
    w, opt = _train(symgrad, 8, **kwargs)
    tw, topt = _train(torch, 8, **kwargs)
    assert w.tolist() == pytest.approx(tw.tolist(), rel=1e-13)
    for key in ("step", "eta", "mu", "ax"):
        got, want = opt.state[w][key], topt.state[tw][key]
        assert got.tolist() == pytest.approx(want.tolist(), rel=1e-13)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


def _tensor_lr_run(lib):
    """Four steps with a float32 tensor ``lr``: the next eta is float32 tensor arithmetic,
    its power rounded as PyTorch's (a correctly rounded float32 power)."""
    w = lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.ASGD([w], lr=lib.tensor(0.03), t0=2)
    etas = []
    for _ in range(4):
        w.grad = lib.tensor([1.0, 0.5, -0.25], dtype=lib.float64)
        opt.step()
        etas.append(opt.state[w]["eta"].item())
    return w.tolist(), etas, opt.state[w]["ax"].tolist()


def test_tensor_lr_eta_is_rounded_as_pytorchs():
    w, etas, ax = _tensor_lr_run(symgrad)
    assert etas == [
        0.029999932274222374,
        0.02999986708164215,  # (1 + 6e-6) ** 0.75 rounded down, as powf does
        0.02999979816377163,
        0.02999972738325596,
    ]
    assert w == [-0.02000025684436077, -0.25999712844575906, 0.3299961642417425]
    assert ax == w


@pytest.mark.torch
def test_tensor_lr_against_torch():
    torch = pytest.importorskip("torch")
    assert _tensor_lr_run(symgrad) == _tensor_lr_run(torch)

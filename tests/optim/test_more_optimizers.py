"""Adadelta, Adamax, NAdam, RAdam, Rprop and LBFGS against PyTorch: ten steps on a small
fixed loss must end where torch.optim ends (values printed by PyTorch 2.13); when PyTorch is
installed the run is repeated under it."""

from __future__ import annotations

import pytest

import symgrad

CASES = [
    ("Adadelta", {"lr": 1.0, "weight_decay": 0.1}, [-1.466539, 1.966378]),
    ("Adadelta", {"lr": 0.5, "maximize": True}, [-1.51695, 2.016908]),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1}, [-0.659077, 1.08905]),
    ("NAdam", {"lr": 0.1}, [-0.769131, 1.235019]),
    (
        "NAdam",
        {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True},
        [-0.667602, 1.089225],
    ),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1}, [-0.769297, 1.235248]),
    ("RAdam", {"lr": 0.1}, [0.510284, -1.429785]),
    (
        "RAdam",
        {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True},
        [0.506235, -1.339887],
    ),
    ("Rprop", {"lr": 0.1}, [1.095869, -0.595869]),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.2)}, [0.35, 0.15]),
]


def _loss(w):
    return (w[0] - 1) ** 2 + 3 * (w[1] + 0.5) ** 2 + w[0] * w[1] + 0.1 * w[0] ** 4


def _train(lib, name, kwargs, steps=10):
    w = lib.tensor([-1.5, 2.0], requires_grad=True)
    opt = getattr(lib.optim, name)([w], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        _loss(w).backward()
        opt.step()
    return w.tolist(), sorted(opt.state[w])


@pytest.mark.parametrize(("name", "kwargs", "expected"), CASES)
def test_ten_steps_end_where_pytorch_ends(name, kwargs, expected):
    got, _ = _train(symgrad, name, kwargs)
    assert got == pytest.approx(expected, abs=2e-6)


@pytest.mark.parametrize(("name", "kwargs", "expected"), CASES)
def test_ten_steps_and_state_keys_against_torch(name, kwargs, expected):
    torch = pytest.importorskip("torch")
    got, keys = _train(symgrad, name, kwargs)
    want, want_keys = _train(torch, name, kwargs)
    assert got == pytest.approx(want, abs=1e-6)
    assert keys == want_keys


def _lbfgs(lib, line_search_fn):
    a = lib.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]], dtype=lib.float64)
    b = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)
    w = lib.zeros(3, dtype=lib.float64, requires_grad=True)
    lr = 0.5 if line_search_fn is None else 1
    opt = lib.optim.LBFGS([w], lr=lr, max_iter=4, history_size=3, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = 0.5 * w @ a @ w - b @ w + (w**4).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(3)]
    return losses, w.tolist(), opt.state[w]["func_evals"]


LBFGS_EXPECTED = {
    None: (
        [0.0, -1.3283900137127378, -1.3311683881901124],
        [0.44508043813578835, -0.6874877859395024, 0.45832303377333383],
        12,
    ),
    "strong_wolfe": (
        [0.0, -1.3286082766872502, -1.331180757937201],
        [0.4449880795187068, -0.6874197852974429, 0.4584040247145989],
        12,
    ),
}


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_pytorch_steps(line_search_fn):
    losses, w, evals = _lbfgs(symgrad, line_search_fn)
    want_losses, want_w, want_evals = LBFGS_EXPECTED[line_search_fn]
    assert losses == pytest.approx(want_losses, abs=1e-12)
    assert w == pytest.approx(want_w, abs=1e-12)
    assert evals == want_evals


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_against_torch(line_search_fn):
    torch = pytest.importorskip("torch")
    got, want = _lbfgs(symgrad, line_search_fn), _lbfgs(torch, line_search_fn)
    assert got[0] == pytest.approx(want[0], abs=1e-12)
    assert got[1] == pytest.approx(want[1], abs=1e-12)
    assert got[2] == want[2]


def test_lbfgs_fits_a_parabola_in_float32():
    xs = symgrad.linspace(-1, 1, 20)
    ys = 3 * xs**2 - 2 * xs + 0.5
    coef = symgrad.zeros(3, requires_grad=True)
    opt = symgrad.optim.LBFGS([coef], max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((coef[0] * xs**2 + coef[1] * xs + coef[2] - ys) ** 2).mean()
        loss.backward()
        return loss

    opt.step(closure)
    assert coef.tolist() == pytest.approx([3.0, -2.0, 0.5], abs=1e-4)


def test_argument_errors_are_pytorchs():
    w = symgrad.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid rho value"):
        symgrad.optim.Adadelta([w], rho=1.5)
    with pytest.raises(ValueError, match="Invalid eta values"):
        symgrad.optim.Rprop([w], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        symgrad.optim.NAdam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid momentum_decay value"):
        symgrad.optim.NAdam([w], momentum_decay=-1)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        symgrad.optim.LBFGS([{"params": [w]}, {"params": [symgrad.zeros(1, requires_grad=True)]}])
    opt = symgrad.optim.LBFGS([w], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(lambda: (w + 1).pow(2).sum().backward() or (w + 1).pow(2).sum())

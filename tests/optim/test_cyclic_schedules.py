"""CyclicLR and ChainedScheduler against PyTorch: the rates (and momenta) of two parameter
groups over nine steps, as PyTorch 2.13 printed them; repeated under PyTorch when installed."""

from __future__ import annotations

import warnings

import pytest

import symgrad


def _run(lib, opt_name, make, n=9):
    w = lib.zeros(1, requires_grad=True)
    v = lib.zeros(1, requires_grad=True)
    kw = {"lr": 0.1, "momentum": 0.9} if opt_name == "SGD" else {"lr": 0.1}
    opt = getattr(lib.optim, opt_name)([{"params": [w]}, {"params": [v]}], **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schedule = make(lib.optim.lr_scheduler, opt)
        out = []
        for _ in range(n):
            groups = opt.param_groups
            mom = [g.get("momentum", g.get("betas", (None,))[0]) for g in groups]
            out.append([round(g["lr"], 8) for g in groups] + [m and round(m, 8) for m in mom])
            opt.step()
            schedule.step()
    return out


CASES = {
    "triangular": (
        "SGD",
        lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2),
    ),
    "triangular2_down": (
        "SGD",
        lambda S, o: S.CyclicLR(
            o,
            base_lr=[0.01, 0.02],
            max_lr=[0.1, 0.3],
            step_size_up=1,
            step_size_down=3,
            mode="triangular2",
        ),
    ),
    "exp_range_adam": (
        "Adam",
        lambda S, o: S.CyclicLR(
            o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9
        ),
    ),
    "custom_no_momentum": (
        "Adagrad",
        lambda S, o: S.CyclicLR(
            o,
            0.01,
            0.1,
            3,
            scale_fn=lambda x: 0.5**x,
            scale_mode="iterations",
            cycle_momentum=False,
        ),
    ),
    "chained": (
        "SGD",
        lambda S, o: S.ChainedScheduler(
            [S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)]
        ),
    ),
}

EXPECTED = {
    "triangular": [
        [0.01, 0.01, 0.9, 0.9],
        [0.055, 0.055, 0.85, 0.85],
        [0.1, 0.1, 0.8, 0.8],
        [0.055, 0.055, 0.85, 0.85],
        [0.01, 0.01, 0.9, 0.9],
        [0.055, 0.055, 0.85, 0.85],
        [0.1, 0.1, 0.8, 0.8],
        [0.055, 0.055, 0.85, 0.85],
        [0.01, 0.01, 0.9, 0.9],
    ],
    "triangular2_down": [
        [0.01, 0.02, 0.9, 0.9],
        [0.1, 0.3, 0.8, 0.8],
        [0.07, 0.20666667, 0.83333333, 0.83333333],
        [0.04, 0.11333333, 0.86666667, 0.86666667],
        [0.01, 0.02, 0.9, 0.9],
        [0.055, 0.16, 0.85, 0.85],
        [0.04, 0.11333333, 0.86666667, 0.86666667],
        [0.025, 0.06666667, 0.88333333, 0.88333333],
        [0.01, 0.02, 0.9, 0.9],
    ],
    "exp_range_adam": [
        [0.01, 0.01, 0.9, 0.9],
        [0.0505, 0.0505, 0.855, 0.855],
        [0.0829, 0.0829, 0.819, 0.819],
        [0.042805, 0.042805, 0.86355, 0.86355],
        [0.01, 0.01, 0.9, 0.9],
        [0.03657205, 0.03657205, 0.8704755, 0.8704755],
        [0.05782969, 0.05782969, 0.8468559, 0.8468559],
        [0.03152336, 0.03152336, 0.87608516, 0.87608516],
        [0.01, 0.01, 0.9, 0.9],
    ],
    "custom_no_momentum": [
        [0.01, 0.01, None, None],
        [0.025, 0.025, None, None],
        [0.025, 0.025, None, None],
        [0.02125, 0.02125, None, None],
        [0.01375, 0.01375, None, None],
        [0.0109375, 0.0109375, None, None],
        [0.01, 0.01, None, None],
        [0.01023438, 0.01023438, None, None],
        [0.01023438, 0.01023438, None, None],
    ],
    "chained": [
        [0.01, 0.01, 0.9, 0.9],
        [0.009, 0.009, 0.9, 0.9],
        [0.081, 0.081, 0.9, 0.9],
        [0.0729, 0.0729, 0.9, 0.9],
        [0.06561, 0.06561, 0.9, 0.9],
        [0.059049, 0.059049, 0.9, 0.9],
        [0.0531441, 0.0531441, 0.9, 0.9],
        [0.04782969, 0.04782969, 0.9, 0.9],
        [0.04304672, 0.04304672, 0.9, 0.9],
    ],
}


@pytest.mark.parametrize("case", list(CASES))
def test_rates_and_momenta_are_pytorchs(case):
    assert _run(symgrad, *CASES[case]) == EXPECTED[case]


@pytest.mark.parametrize("case", list(CASES))
def test_against_torch(case):
    torch = pytest.importorskip("torch")
    assert _run(symgrad, *CASES[case]) == _run(torch, *CASES[case])


def test_cyclic_state_dict_drops_the_custom_function():
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    schedule = symgrad.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1.0)
    state = schedule.state_dict()
    assert state["_scale_fn_custom"] is None and "optimizer" not in state
    schedule.load_state_dict(state)
    assert schedule.scale_fn(3) == 1.0


def test_errors_are_pytorchs():
    S = symgrad.optim.lr_scheduler
    opt = symgrad.optim.Adagrad([symgrad.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        S.CyclicLR(opt, 0.01, 0.1)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        S.CyclicLR(opt, 0.01, 0.1, mode="square", cycle_momentum=False)
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        S.ChainedScheduler([])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
    other = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        S.ChainedScheduler([S.ExponentialLR(opt, 0.9), S.ExponentialLR(other, 0.9)])

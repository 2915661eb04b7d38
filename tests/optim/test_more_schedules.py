"""LinearLR, ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts, SequentialLR, OneCycleLR
and ReduceLROnPlateau: plain values, and PyTorch's rates number for number."""

import pytest

import symgrad
from symgrad.optim import lr_scheduler as S


def _rates(lib, make, steps=8, optimizer="SGD", metric=None):
    w = lib.ones(1, requires_grad=True)
    opt = getattr(lib.optim, optimizer)(
        [w], lr=0.1, **({"momentum": 0.9} if optimizer == "SGD" else {})
    )
    sched = make(lib.optim.lr_scheduler, opt)
    out = []
    for i in range(steps):
        opt.step()
        sched.step(metric[i]) if metric else sched.step()
        group = opt.param_groups[0]
        out.append((group["lr"], group.get("momentum", group.get("betas", (0,))[0])))
    return out


CASES = {
    "linear": lambda m, o: m.LinearLR(o, start_factor=0.25, total_iters=4),
    "constant": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=3),
    "polynomial": lambda m, o: m.PolynomialLR(o, total_iters=5, power=2.0),
    "restarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01),
    "sequential": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, 0.1, total_iters=3), m.ExponentialLR(o, 0.5)], milestones=[3]
    ),
    "onecycle": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=8),
    "onecycle_linear3": lambda m, o: m.OneCycleLR(
        o, max_lr=1.0, epochs=2, steps_per_epoch=4, anneal_strategy="linear", three_phase=True
    ),
}


def test_plain_values():
    assert [r for r, _ in _rates(symgrad, CASES["linear"], 5)] == pytest.approx(
        [0.04375, 0.0625, 0.08125, 0.1, 0.1]
    )
    assert [r for r, _ in _rates(symgrad, CASES["constant"], 4)] == pytest.approx(
        [0.05, 0.05, 0.1, 0.1]
    )
    sequential = [r for r, _ in _rates(symgrad, CASES["sequential"], 5)]
    assert sequential == pytest.approx([0.04, 0.07, 0.1, 0.05, 0.025])
    onecycle = _rates(symgrad, CASES["onecycle"], 7)
    assert onecycle[1] == pytest.approx((0.9719417773875232, 0.8528058334845816))
    rates = _rates(symgrad, lambda m, o: m.ReduceLROnPlateau(o, patience=1), 4, metric=[1, 1, 1, 1])
    assert [r for r, _ in rates] == pytest.approx([0.1, 0.1, 0.01, 0.01])
    with pytest.raises(ValueError):
        _rates(symgrad, CASES["onecycle"], 9)


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_torch(case):
    torch = pytest.importorskip("torch")
    for optimizer in ("SGD", "Adam"):
        ours = _rates(symgrad, CASES[case], 8, optimizer)
        theirs = _rates(torch, CASES[case], 8, optimizer)
        assert ours == theirs


def test_plateau_against_torch():
    torch = pytest.importorskip("torch")
    metric = [1.0, 1.05, 1.2, 1.2, 1.2, 1.2, 1.3, 1.3]

    def make(m, o):
        return m.ReduceLROnPlateau(
            o, mode="max", patience=0, cooldown=1, threshold=0.1, threshold_mode="abs", min_lr=0.02
        )

    assert _rates(symgrad, make, 8, metric=metric) == _rates(torch, make, 8, metric=metric)
    assert S.ReduceLROnPlateau is symgrad.optim.lr_scheduler.ReduceLROnPlateau

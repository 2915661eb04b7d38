"""Schedules over an optimizer whose rate is a tensor: as in PyTorch the tensor the optimizer
holds is filled in place (it stays the same object, of its own dtype), while ``initial_lr``,
``base_lrs`` and ``get_last_lr()`` hold copies that never alias it."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.optim import lr_scheduler

SCHEDULES = {
    "step": lambda L, o: L.StepLR(o, 2, gamma=0.5),
    "exponential": lambda L, o: L.ExponentialLR(o, 0.9),
    "cosine": lambda L, o: L.CosineAnnealingLR(o, 3),
    "sequential": lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, 0.1, total_iters=2), L.ExponentialLR(o, 0.9)], milestones=[2]
    ),
    "plateau": lambda L, o: L.ReduceLROnPlateau(o, patience=0),
}

# group["lr"].item() at construction and after each of five steps, printed by PyTorch 2.13
EXPECTED = {
    "step": [0.10000000149011612, 0.10000000149011612, 0.05000000074505806]
    + [0.05000000074505806, 0.02500000037252903, 0.02500000037252903],
    "exponential": [0.10000000149011612, 0.08999999612569809, 0.08099999278783798]
    + [0.07289998978376389, 0.06560999155044556, 0.05904899165034294],
    "cosine": [0.10000000149011612, 0.07500000298023224, 0.02500000223517418, 0.0]
    + [0.02500000037252903, 0.07500000298023224],
    "sequential": [0.010000000707805157, 0.010000000707805157, 0.10000000149011612]
    + [0.08999999612569809, 0.08099999278783798, 0.07289998978376389],
    "plateau": [0.10000000149011612, 0.10000000149011612, 0.009999999776482582]
    + [0.0009999999310821295, 9.99999901978299e-05, 9.99999883788405e-06],
}


def run(T, case):
    lr = T.tensor(0.1)
    opt = T.optim.Adam([T.nn.Parameter(T.zeros(1))], lr=lr)
    schedule = SCHEDULES[case](T.optim.lr_scheduler, opt)
    seen = [lr.item()]
    for _ in range(5):
        opt.step()
        schedule.step(1.0) if case == "plateau" else schedule.step()
        group = opt.param_groups[0]
        assert group["lr"] is lr and lr.dtype == T.float32
        last = schedule.get_last_lr()[0]
        assert isinstance(last, T.Tensor) and last is not lr and last.item() == lr.item()
        seen.append(lr.item())
    if case not in ("plateau", "sequential"):
        assert opt.param_groups[0]["initial_lr"] is not lr
        assert schedule.base_lrs[0] is not opt.param_groups[0]["initial_lr"]
    return seen


@pytest.mark.parametrize("case", sorted(SCHEDULES))
def test_a_tensor_rate_is_filled_in_place(case):
    assert run(symgrad, case) == EXPECTED[case]


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(SCHEDULES))
def test_a_tensor_rate_is_filled_in_place_as_in_torch(case):
    torch = pytest.importorskip("torch")
    assert run(symgrad, case) == run(torch, case)


def test_initial_lr_is_a_copy_so_base_lrs_stay_put():
    lr = symgrad.tensor(0.1)
    opt = symgrad.optim.SGD([symgrad.nn.Parameter(symgrad.zeros(1))], lr=lr)
    schedule = lr_scheduler.StepLR(opt, 1, gamma=0.5)
    for _ in range(3):
        opt.step()
        schedule.step()
    assert opt.param_groups[0]["initial_lr"].item() == pytest.approx(0.1)
    assert schedule.base_lrs[0].item() == pytest.approx(0.1)
    assert lr.item() == pytest.approx(0.0125)


class _TooFew(lr_scheduler.LRScheduler):
    def get_lr(self):
        return [0.5]


def test_a_custom_get_lr_of_the_wrong_length_raises():
    groups = [{"params": [symgrad.nn.Parameter(symgrad.zeros(1))]} for _ in range(2)]
    opt = symgrad.optim.SGD(groups, lr=0.1)
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is shorter than argument 1"):
        _TooFew(opt)


def test_per_group_lengths_are_checked_with_pytorchs_message():
    groups = [{"params": [symgrad.nn.Parameter(symgrad.zeros(1))]} for _ in range(2)]
    opt = symgrad.optim.SGD(groups, lr=0.1, momentum=0.9)
    message = "max_lr has 1 values, param_groups has 2"
    with pytest.raises(ValueError, match=message):
        lr_scheduler.OneCycleLR(opt, [1.0], total_steps=10)
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])

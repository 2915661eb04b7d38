"""symgrad.optim.lr_scheduler against PyTorch: each schedule's rates over ten epochs must be
PyTorch's bit for bit (the stored lists were printed by PyTorch 2.13; when PyTorch is
installed the same run is repeated under it), with its warnings, errors and state dicts."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

import symgrad
from symgrad import optim
from symgrad.optim import lr_scheduler

HAS_TORCH = importlib.util.find_spec("torch") is not None

CASES = {
    "step": ("StepLR", dict(step_size=3, gamma=0.5)),
    "multistep": ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.1)),
    "exponential": ("ExponentialLR", dict(gamma=0.9)),
    "cosine": ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    "lambda": ("LambdaLR", dict(lr_lambda=lambda e: 1 / (1 + e))),
    "multiplicative": ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
}

# the rate at construction and after each of ten epochs, printed by PyTorch 2.13
EXPECTED = {
    "step": [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125],
    "multistep": [
        0.1,
        0.1,
        0.010000000000000002,
        0.010000000000000002,
        0.010000000000000002,
        0.00010000000000000005,
        0.00010000000000000005,
        0.00010000000000000005,
        0.00010000000000000005,
        0.00010000000000000005,
        0.00010000000000000005,
    ],
    "exponential": [
        0.1,
        0.09000000000000001,
        0.08100000000000002,
        0.07290000000000002,
        0.06561000000000002,
        0.05904900000000002,
        0.05314410000000002,
        0.04782969000000002,
        0.043046721000000024,
        0.03874204890000002,
        0.03486784401000002,
    ],
    "cosine": [
        0.1,
        0.08681980515339464,
        0.05500000000000001,
        0.023180194846605363,
        0.01,
        0.023180194846605363,
        0.05500000000000002,
        0.08681980515339469,
        0.10000000000000006,
        0.0868198051533947,
        0.05500000000000005,
    ],
    "lambda": [
        0.1,
        0.05,
        0.03333333333333333,
        0.025,
        0.020000000000000004,
        0.016666666666666666,
        0.014285714285714285,
        0.0125,
        0.011111111111111112,
        0.010000000000000002,
        0.009090909090909092,
    ],
    "multiplicative": [
        0.1,
        0.095,
        0.09025,
        0.0857375,
        0.08145062499999998,
        0.07737809374999999,
        0.07350918906249998,
        0.06983372960937498,
        0.06634204312890622,
        0.0630249409724609,
        0.05987369392383786,
    ],
}


def rates(T, case: str, epochs: int = 10) -> list[float]:
    name, kw = CASES[case]
    opt = T.optim.SGD([T.ones(1, requires_grad=True)], lr=0.1)
    schedule = getattr(T.optim.lr_scheduler, name)(opt, **kw)
    seen = [schedule.get_last_lr()[0]]
    for _ in range(epochs):
        opt.step()
        schedule.step()
        seen.append(schedule.get_last_lr()[0])
        assert opt.param_groups[0]["lr"] == seen[-1]
    return seen


@pytest.mark.parametrize("case", sorted(CASES))
def test_rates_are_pytorchs_bit_for_bit(case):
    assert rates(symgrad, case) == EXPECTED[case]


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("case", sorted(CASES))
def test_rates_match_torch_over_longer_runs(case):
    import torch

    assert rates(symgrad, case, 25) == rates(torch, case, 25)


def test_schedule_sets_initial_lr_and_base_lrs_per_group():
    a, b = symgrad.ones(1, requires_grad=True), symgrad.ones(1, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    schedule = lr_scheduler.LambdaLR(opt, [lambda e: 0.5**e, lambda e: 1.0])
    assert schedule.base_lrs == [0.1, 1.0]
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 1.0]
    opt.step()
    schedule.step()
    assert schedule.get_last_lr() == [0.05, 1.0]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])


def test_stepping_the_schedule_first_warns_as_pytorch():
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    schedule = lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        schedule.step()
    opt2 = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    schedule2 = lr_scheduler.StepLR(opt2, step_size=1)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schedule2.step()
    with pytest.warns(UserWarning, match="use `get_last_lr\\(\\)`"):
        assert schedule2.get_lr() == [0.0010000000000000002]  # PyTorch: lr * gamma again


def test_epoch_argument_uses_the_closed_form_with_a_deprecation_warning():
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    schedule = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
        schedule.step(5)
    assert schedule.last_epoch == 5 and schedule.get_last_lr() == [0.025]


def test_state_dict_round_trip_resumes_the_schedule():
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    schedule = lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
    for _ in range(3):
        opt.step()
        schedule.step()
    saved = schedule.state_dict()
    assert sorted(saved) == sorted(
        ["T_max", "eta_min", "base_lrs", "last_epoch", "_step_count", "_is_initial"]
        + ["_get_lr_called_within_step", "_last_lr"]
    )
    opt2 = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    resumed = lr_scheduler.CosineAnnealingLR(opt2, T_max=4, eta_min=0.01)
    resumed.load_state_dict(saved)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    for sched, o in ((schedule, opt), (resumed, opt2)):
        o.step()
        sched.step()
    assert resumed.get_last_lr() == schedule.get_last_lr() == [EXPECTED["cosine"][4]]


def test_lambda_state_dict_saves_callable_objects_only():
    class Halve:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor**epoch

    opt = optim.SGD([{"params": [symgrad.ones(1, requires_grad=True)]}] * 1, lr=0.1)
    halve = Halve()
    schedule = lr_scheduler.LambdaLR(opt, halve)
    assert schedule.state_dict()["lr_lambdas"] == [{"factor": 0.5}]
    halve.factor = 0.25
    schedule.load_state_dict({**schedule.state_dict(), "lr_lambdas": [{"factor": 0.5}]})
    assert halve.factor == 0.5
    plain = lr_scheduler.LambdaLR(opt, lambda e: 1.0)
    assert plain.state_dict()["lr_lambdas"] == [None]


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=1)
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    with pytest.raises(KeyError, match="'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, step_size=1, last_epoch=3)


def test_resuming_without_initial_lr_gives_pytorchs_message():
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    with pytest.raises(KeyError) as info:
        lr_scheduler.StepLR(opt, step_size=1, last_epoch=3)
    assert info.value.args[0] == (
        "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with "
        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training "
        "from a checkpoint but haven't properly loaded the optimizer state\n2. You're using "
        "last_epoch >= 0 for a fresh training run (not recommended)"
    )

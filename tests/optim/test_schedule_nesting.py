"""Schedules nested inside SequentialLR and ChainedScheduler, and the argument checks of
the restarting and one-cycle schedules, as in PyTorch 2.13."""

from __future__ import annotations

import warnings

import pytest

import symgrad
from symgrad.optim import lr_scheduler


def nested_rates(T):
    L = T.optim.lr_scheduler
    opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0)
    with warnings.catch_warnings():
        # building a sequence steps its first schedule before any optimizer.step()
        warnings.simplefilter("ignore")
        inner = L.SequentialLR(
            opt, [L.ConstantLR(opt, 0.5, total_iters=1), L.ExponentialLR(opt, 0.5)], [2]
        )
        outer = L.SequentialLR(opt, [inner, L.StepLR(opt, 1, 0.1)], [4])
    seen = [outer.get_last_lr()[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(7):
            opt.step()
            outer.step()
            seen.append(outer.get_last_lr()[0])
    return seen, inner.last_epoch, [s.last_epoch for s in inner._schedulers]


# printed by PyTorch 2.13
NESTED = (
    [0.5, 1.0, 0.5, 0.25, 1.0, 0.1, 0.010000000000000002, 0.0010000000000000002],
    4,
    [0, 2],
)


def test_a_nested_sequence_undoes_the_steps_of_its_schedules_only():
    # the schedules inside go back one epoch, the nested sequence keeps its count
    assert nested_rates(symgrad) == NESTED


@pytest.mark.torch
def test_a_nested_sequence_runs_as_in_torch():
    torch = pytest.importorskip("torch")
    assert nested_rates(symgrad) == nested_rates(torch)


def test_restarts_refuse_an_eta_min_that_is_not_a_number():
    opt = symgrad.optim.SGD([symgrad.nn.Parameter(symgrad.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="Expected float or int eta_min, but got a of type"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, eta_min="a")
    with pytest.raises(ValueError, match="Expected float or int eta_min"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, eta_min=symgrad.tensor(0.01))


def test_one_cycle_compares_total_steps_first():
    opt = symgrad.optim.SGD([symgrad.nn.Parameter(symgrad.zeros(1))], lr=0.1, momentum=0.9)
    with pytest.raises(TypeError, match="'<=' not supported"):
        lr_scheduler.OneCycleLR(opt, 1.0, total_steps="10")
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 2.5"):
        lr_scheduler.OneCycleLR(opt, 1.0, total_steps=2.5)


def test_plateau_with_a_new_group_and_a_min_lr_list_says_how_many():
    opt = symgrad.optim.SGD([symgrad.nn.Parameter(symgrad.zeros(1))], lr=0.1)
    schedule = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
    opt.add_param_group({"params": [symgrad.nn.Parameter(symgrad.zeros(1))]})
    schedule.step(1.0)
    with pytest.raises(RuntimeError, match="\\(2\\) differs from when .* initialized \\(1\\)"):
        schedule.step(1.0)


def test_sequential_schedules_of_another_optimizer_name_both():
    params = [symgrad.nn.Parameter(symgrad.zeros(1))]
    opt, other = symgrad.optim.SGD(params, lr=0.1), symgrad.optim.SGD(params, lr=0.1)
    step = lr_scheduler.StepLR(other, 1)
    with pytest.raises(ValueError) as info:
        lr_scheduler.SequentialLR(opt, [step], milestones=[])
    assert str(info.value) == (
        "SequentialLR expects all schedulers to belong to the same optimizer, but got scheduler "
        f"StepLR at index 0 has {other}, which is different from SGD."
    )

"""``optim.swa_utils``: averaged models (running mean, EMA, buffers), SWALR's schedule and
errors, and ``update_bn``; values worked out by hand, cross-checked against PyTorch when it
is installed."""

from __future__ import annotations

import warnings

import pytest

import symgrad
from symgrad.optim import swa_utils


def _run(avg, model, values):
    for value in values:
        with symgrad.no_grad():
            model.weight.fill_(value)
        avg.update_parameters(model)
    return avg.module.weight.item()


def test_running_mean_and_counter():
    model = symgrad.nn.Linear(1, 1, bias=False)
    avg = swa_utils.AveragedModel(model)
    assert avg.n_averaged.item() == 0 and avg.n_averaged.dtype == symgrad.int64
    assert _run(avg, model, [1.0, 2.0, 6.0, 3.0]) == 3.0
    assert avg.n_averaged.item() == 4
    assert list(avg.state_dict()) == ["n_averaged", "module.weight"]
    assert avg(symgrad.ones(1, 1)).item() == 3.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"avg_fn": swa_utils.get_ema_avg_fn(0.5)},
        {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.5)},
    ],
)
def test_exponential_moving_average(kwargs):
    model = symgrad.nn.Linear(1, 1, bias=False)
    avg = swa_utils.AveragedModel(model, **kwargs)
    assert _run(avg, model, [4.0, 8.0, 2.0]) == 4.0  # 4, then 6, then 4


def test_swa_multi_avg_fn_is_the_running_mean():
    model = symgrad.nn.Linear(1, 1, bias=False)
    avg = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    assert _run(avg, model, [1.0, 2.0, 6.0]) == 3.0


def test_buffers_copied_or_averaged():
    model = symgrad.nn.BatchNorm1d(1)
    copied = swa_utils.AveragedModel(model)
    averaged = swa_utils.AveragedModel(model, use_buffers=True)
    for value in (2.0, 4.0):
        model.running_mean.fill_(value)
        copied.update_parameters(model)
        averaged.update_parameters(model)
    assert copied.module.running_mean.item() == 4.0
    assert averaged.module.running_mean.item() == 3.0


def test_avg_functions_and_their_errors():
    x, y = symgrad.tensor([0.0]), symgrad.tensor([1.0])
    assert swa_utils.get_swa_avg_fn()(x, y, symgrad.tensor(3)).item() == 0.25
    assert swa_utils.get_ema_avg_fn(0.75)(x, y, 1).item() == 0.25
    for make in (swa_utils.get_ema_avg_fn, swa_utils.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide"):
            make(1.5)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(
            symgrad.nn.Linear(1, 1),
            avg_fn=swa_utils.get_swa_avg_fn(),
            multi_avg_fn=swa_utils.get_swa_multi_avg_fn(),
        )


def _rates(schedule, opt, steps):
    rates = [schedule.get_last_lr()]
    for _ in range(steps):
        opt.step()
        schedule.step()
        rates.append(schedule.get_last_lr())
    return rates


def test_swalr_cosine_and_linear():
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.5)
    cos = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    got = [r[0] for r in _rates(cos, opt, 4)]
    # (1 - cos(pi t)) / 2 at t = 1/3, 2/3, 1, each step taken from the previous rate
    assert got == pytest.approx([0.5, 0.3875, 0.1625, 0.05, 0.05], rel=1e-12)
    assert opt.param_groups[0]["swa_lr"] == 0.05
    opt = symgrad.optim.SGD([{"params": [symgrad.zeros(1, requires_grad=True)], "lr": 1.0}], lr=0.5)
    opt.add_param_group({"params": [symgrad.zeros(1, requires_grad=True)]})
    linear = swa_utils.SWALR(opt, swa_lr=[0.2, 0.05], anneal_epochs=2, anneal_strategy="linear")
    got = _rates(linear, opt, 3)
    assert got == [[1.0, 0.5], [0.6, 0.275], [0.2, 0.05], [0.2, 0.05]]


def test_swalr_without_annealing_and_its_state():
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.5)
    schedule = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=0)
    assert [r[0] for r in _rates(schedule, opt, 2)] == [0.05, 0.05, 0.05]
    state = schedule.state_dict()
    assert state["_anneal_strategy"] == "cos" and state["anneal_epochs"] == 0
    assert "optimizer" not in state


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"anneal_strategy": "exp"}, "anneal_strategy must be one of 'cos' or 'linear', inst"),
        ({"anneal_epochs": -1}, "anneal_epochs must be equal or greater than 0, got -1"),
        ({"anneal_epochs": 1.5}, "anneal_epochs must be equal or greater than 0, got 1.5"),
        ({"swa_lr": [0.1, 0.2]}, "swa_lr has 2 values, param_groups has 1"),
    ],
)
def test_swalr_errors(kwargs, message):
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.5)
    with pytest.raises(ValueError, match=message):
        swa_utils.SWALR(opt, **{"swa_lr": 0.1, **kwargs})


def test_swalr_warnings():
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.5)
    schedule = swa_utils.SWALR(opt, swa_lr=0.1)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before"):
        schedule.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr"):
        schedule.get_lr()


def test_update_bn():
    model = symgrad.nn.Sequential(symgrad.nn.Identity(), symgrad.nn.BatchNorm1d(1, momentum=0.3))
    model.eval()
    loader = [(symgrad.tensor([[1.0], [3.0]]), 0), (symgrad.tensor([[5.0], [7.0]]), 1)]
    swa_utils.update_bn(loader, model)
    bn = model[1]
    assert bn.running_mean.item() == 4.0  # the mean of the batch means 2 and 6
    assert bn.running_var.item() == 2.0  # each batch's unbiased variance is 2
    assert bn.num_batches_tracked.item() == 2
    assert bn.momentum == 0.3 and not model.training
    plain = symgrad.nn.Linear(1, 1)
    swa_utils.update_bn(loader, plain)  # no batch norm: nothing to do


def test_against_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (symgrad, torch):
        model = lib.nn.Linear(3, 2)
        with lib.no_grad():
            model.weight.copy_(lib.arange(6.0).reshape(2, 3) * 0.3)
            model.bias.copy_(lib.tensor([0.1, -0.7]))
        fns = lib.optim.swa_utils
        runs = []
        for kwargs in ({}, {"multi_avg_fn": fns.get_ema_multi_avg_fn(0.9)},
                       {"avg_fn": fns.get_ema_avg_fn(0.9)},
                       {"multi_avg_fn": fns.get_swa_multi_avg_fn()}):  # fmt: skip
            avg = fns.AveragedModel(model, **kwargs)
            for _ in range(5):
                with lib.no_grad():
                    for p in model.parameters():
                        p.mul_(1.7).add_(0.1)
                avg.update_parameters(model)
            runs.append([(k, v.tolist()) for k, v in avg.state_dict().items()])
        opt = lib.optim.SGD(model.parameters(), lr=0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schedule = fns.SWALR(opt, swa_lr=0.01, anneal_epochs=4)
            runs.append(_rates(schedule, opt, 6))
        results.append(runs)
    assert results[0] == results[1]

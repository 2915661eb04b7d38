"""Parameters added with ``add_param_group`` after construction get their state and steps as
in PyTorch, for every optimizer."""

import numpy as np
import pytest

import symgrad

_NAMES = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam",
          "Rprop"]  # fmt: skip


def _run(lib, name, steps=3, **group):
    p = lib.nn.Parameter(lib.tensor([[1.0, 2.0], [3.0, -1.0]]))
    q = lib.nn.Parameter(lib.tensor([[0.5, -2.0], [1.0, 4.0]]))
    opt = getattr(lib.optim, name)([p], lr=0.1)
    opt.add_param_group({"params": [q], **group})
    for _ in range(steps):
        opt.zero_grad()
        ((p**2).sum() + (q**3).sum()).backward()
        opt.step()
    return opt, q


def test_adagrad_added_group_steps():
    opt, q = _run(symgrad, "Adagrad", steps=1)
    # the first Adagrad step moves each weight by lr, against its gradient's sign
    assert np.allclose(q.tolist(), [[0.4, -2.1], [0.9, 3.9]], atol=1e-6)
    assert sorted(opt.state[q]) == ["step", "sum"] and opt.state[q]["step"].item() == 1.0
    assert opt.state[q]["sum"].tolist() == [[0.5625, 144.0], [9.0, 2304.0]]


def test_adagrad_state_of_added_group_starts_at_its_step():
    p = symgrad.nn.Parameter(symgrad.ones(2))
    q = symgrad.nn.Parameter(symgrad.ones(2))
    opt = symgrad.optim.Adagrad([p], initial_accumulator_value=1.0)
    opt.add_param_group({"params": [q], "initial_accumulator_value": 5.0})
    assert q not in opt.state and len(opt.state_dict()["state"]) == 1
    (p.sum() + q.sum()).backward()
    opt.step()
    # PyTorch fills the late state from the optimizer's defaults, not from the group
    assert opt.state[q]["sum"].tolist() == [2.0, 2.0]


def test_lbfgs_refuses_a_second_group():
    p = symgrad.nn.Parameter(symgrad.ones(2))
    opt = symgrad.optim.LBFGS([p])
    opt.add_param_group({"params": [symgrad.nn.Parameter(symgrad.ones(1))]})
    with pytest.raises(AssertionError, match="Expected exactly one param_group, but got 2"):
        opt.step(lambda: (p * p).sum())


@pytest.mark.parametrize("name", _NAMES)
def test_against_torch(name):
    torch = pytest.importorskip("torch")
    opt, q = _run(symgrad, name)
    ref_opt, ref_q = _run(torch, name)
    assert np.allclose(q.detach().numpy(), ref_q.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert sorted(opt.state[q]) == sorted(ref_opt.state[ref_q])


@pytest.mark.parametrize(
    ("group", "message"),
    [
        ([symgrad.zeros(1)], "param_group must be a dict, but got <class 'list'>"),
        ((symgrad.zeros(1),), "param_group must be a dict, but got <class 'tuple'>"),
    ],
)
def test_a_group_that_is_not_a_dict_is_a_type_error(group, message):
    opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(TypeError) as info:
        opt.add_param_group(group)
    assert str(info.value) == message


@pytest.mark.torch
def test_a_group_that_is_not_a_dict_is_torchs_type_error():
    torch = pytest.importorskip("torch")
    texts = []
    for lib in (symgrad, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(TypeError) as info:
            opt.add_param_group([lib.zeros(1)])
        texts.append(str(info.value))
    assert texts[0] == texts[1]

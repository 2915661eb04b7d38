"""Optimizers over ``model.named_parameters()``: (name, parameter) pairs, the names kept as
each group's ``param_names`` and in the state dict, as in PyTorch 2.13."""

from __future__ import annotations

import pytest

import symgrad


def _model():
    layer = symgrad.nn.Linear(2, 1)
    with symgrad.no_grad():
        layer.weight.copy_(symgrad.tensor([[1.0, -1.0]]))
        layer.bias.fill_(0.5)
    return layer


def test_named_parameters_give_param_names():
    model = _model()
    opt = symgrad.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    group = opt.param_groups[0]
    assert list(group)[:2] == ["params", "param_names"]
    assert group["param_names"] == ["weight", "bias"]
    assert group["params"][0] is model.weight
    model(symgrad.ones(1, 2)).sum().backward()
    opt.step()
    assert model.weight.tolist()[0] == pytest.approx([0.9, -1.1])
    saved = opt.state_dict()
    assert saved["param_groups"][0]["param_names"] == ["weight", "bias"]
    assert list(saved["param_groups"][0])[0] == "param_names"
    assert list(saved["param_groups"][0])[-1] == "params"
    assert saved["param_groups"][0]["params"] == [0, 1]
    assert list(saved["state"]) == [0, 1]


def test_named_groups_and_mixing_errors():
    a = symgrad.zeros(1, requires_grad=True)
    b = symgrad.zeros(1, requires_grad=True)
    opt = symgrad.optim.Adam([{"params": [("a", a)], "lr": 0.5}])
    assert opt.param_groups[0]["param_names"] == ["a"]
    opt.add_param_group({"params": [("b", b)]})
    assert opt.param_groups[1]["param_names"] == ["b"]
    with pytest.raises(ValueError, match="cannot add param group without names to the optim"):
        opt.add_param_group({"params": [symgrad.zeros(1, requires_grad=True)]})
    with pytest.raises(ValueError, match="Some param names are missing"):
        symgrad.optim.SGD([("a", a), b])
    with pytest.raises(ValueError, match="cannot add param group with names to the optimizer"):
        symgrad.optim.SGD([{"params": [a]}, {"params": [("b", b)]}])


def test_loading_keeps_the_saved_names_or_the_current_ones():
    named = symgrad.optim.SGD(_model().named_parameters(), lr=0.1)
    plain = symgrad.optim.SGD(_model().parameters(), lr=0.5)
    plain.load_state_dict(named.state_dict())
    assert plain.param_groups[0]["param_names"] == ["weight", "bias"]
    x = symgrad.zeros(1, 2, requires_grad=True)
    y = symgrad.zeros(1, requires_grad=True)
    other = symgrad.optim.SGD([("x", x), ("y", y)], lr=0.5)
    other.load_state_dict(symgrad.optim.SGD(_model().parameters(), lr=0.1).state_dict())
    assert other.param_groups[0]["param_names"] == ["x", "y"]
    other.load_state_dict(named.state_dict())
    assert other.param_groups[0]["param_names"] == ["weight", "bias"]


def test_named_parameters_against_torch():
    torch = pytest.importorskip("torch")
    groups = []
    for lib in (symgrad, torch):
        model = lib.nn.Linear(2, 1)
        opt = lib.optim.AdamW(model.named_parameters(), lr=0.1)
        model(lib.ones(1, 2)).sum().backward()
        opt.step()
        saved = opt.state_dict()
        groups.append((saved["param_groups"], {k: sorted(v) for k, v in saved["state"].items()}))
    assert groups[0] == groups[1]

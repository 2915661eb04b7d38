"""symgrad.optim against PyTorch's update rules: a tiny fixed problem (a Linear layer, its
weights set by hand, mean squared error) trained four steps by each optimizer must end at the
weights torch.optim reaches. The stored values were printed by PyTorch 2.13; when PyTorch is
installed the same run is also repeated under it."""

from __future__ import annotations

import copy
import importlib.util

import numpy as np
import pytest

import symgrad
from symgrad import nn, optim
from symgrad.optim import adam as adam_module

HAS_TORCH = importlib.util.find_spec("torch") is not None

W0 = [[0.5, -0.25, 0.125], [-0.75, 0.375, 1.0]]
B0 = [0.1, -0.2]
X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [-2.0, 0.25, 0.75], [1.5, 1.0, -0.5]]
Y = [[1.0, -1.0], [0.0, 2.0], [-1.5, 0.5], [2.0, 1.0]]

CONFIGS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum_decay": ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    "sgd_nesterov_maximize": ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, maximize=True)),
    "sgd_dampening": ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.3)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_decay_amsgrad": ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    "adam_betas_maximize": ("Adam", dict(lr=0.01, betas=(0.3, 0.9), maximize=True)),
    "adamw": ("AdamW", dict(lr=0.01)),
    "adamw_amsgrad": ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.5, eps=1e-6)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered_momentum": (
        "RMSprop",
        dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True),
    ),
    "rmsprop_decay_maximize": (
        "RMSprop",
        dict(lr=0.005, weight_decay=0.1, maximize=True, eps=1e-3),
    ),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay_initial": (
        "Adagrad",
        dict(lr=0.1, lr_decay=0.5, weight_decay=0.1, initial_accumulator_value=0.3),
    ),
    "adagrad_maximize": ("Adagrad", dict(lr=0.05, maximize=True, eps=1e-3)),
}

# (weight, bias) after four steps, printed by PyTorch 2.13 (rounded to 7 decimals)
EXPECTED = {
    "sgd": (
        [[0.7465652, 0.0304454, -0.1219426], [-0.1769825, 0.3690539, 1.0176871]],
        [0.155967, -0.0407212],
    ),
    "sgd_momentum_decay": (
        [[1.0247271, 0.3462099, -0.4002844], [0.5199935, 0.3378603, 1.0472459]],
        [0.2197261, 0.1540325],
    ),
    "sgd_nesterov_maximize": (
        [[0.3674051, -0.4113652, 0.2647454], [-0.9985003, 0.3463489, 1.0163161]],
        [0.0708641, -0.2688434],
    ),
    "sgd_dampening": (
        [[0.697647, -0.0169517, -0.0782506], [-0.3369491, 0.3951168, 0.9943733]],
        [0.1440814, -0.0852778],
    ),
    "adam": (
        [[0.5399112, -0.2100952, 0.0850776], [-0.7100416, 0.4133456, 0.9634336]],
        [0.1397988, -0.1600674],
    ),
    "adam_decay_amsgrad": (
        [[0.5399021, -0.2100956, 0.0850795], [-0.7100413, 0.4121144, 0.9608446]],
        [0.1397642, -0.1600695],
    ),
    "adam_betas_maximize": (
        [[0.4594444, -0.2905871, 0.1654978], [-0.7902985, 0.3321245, 1.0435548]],
        [0.0589865, -0.2404429],
    ),
    "adamw": (
        [[0.5397055, -0.2100013, 0.0850336], [-0.7097479, 0.4131806, 0.9630734]],
        [0.1397531, -0.1599934],
    ),
    "adamw_amsgrad": (
        [[0.641091, -0.0382818, -0.0759556], [-0.4868117, 0.3752747, 0.9160145]],
        [0.2692559, 0.0091668],
    ),
    "rmsprop": (
        [[0.722611, -0.0319726, -0.1038383], [-0.4880553, 0.3636553, 0.9849325]],
        [0.2482786, 0.0395245],
    ),
    "rmsprop_centered_momentum": (
        [[0.649781, -0.1011014, -0.0262572], [-0.5929058, 0.4210598, 0.987712]],
        [0.2345489, -0.0474334],
    ),
    "rmsprop_decay_maximize": (
        [[0.3526717, -0.3984667, 0.2719185], [-0.8939248, 0.2124771, 1.1135144]],
        [-0.049388, -0.3457907],
    ),
    "adagrad": (
        [[0.7219513, -0.0326019, -0.1031507], [-0.4889044, 0.364154, 0.9850008]],
        [0.2482282, 0.038752],
    ),
    "adagrad_decay_initial": (
        [[0.6543449, -0.0880208, -0.0342434], [-0.5662807, 0.3835446, 0.9496065]],
        [0.1655664, -0.0601629],
    ),
    "adagrad_maximize": (
        [[0.3515265, -0.3989547, 0.2725866], [-0.8945876, 0.2045956, 1.1736212]],
        [-0.0543554, -0.3466597],
    ),
}


def train(T, name: str, kw: dict, steps: int = 4, layer=None):
    """Four steps of ``T.optim.<name>`` on the fixed problem; the layer trained."""
    if layer is None:
        layer = T.nn.Linear(3, 2)
        with T.no_grad():
            layer.weight.copy_(T.tensor(W0))
            layer.bias.copy_(T.tensor(B0))
    opt = getattr(T.optim, name)(layer.parameters(), **kw)
    for _ in range(steps):
        opt.zero_grad()
        T.nn.functional.mse_loss(layer(T.tensor(X)), T.tensor(Y)).backward()
        opt.step()
    return layer, opt


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_four_steps_reach_pytorchs_weights(case):
    name, kw = CONFIGS[case]
    layer, _ = train(symgrad, name, kw)
    weight, bias = EXPECTED[case]
    np.testing.assert_allclose(layer.weight.detach().numpy(), weight, atol=2e-6)
    np.testing.assert_allclose(layer.bias.detach().numpy(), bias, atol=2e-6)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_matches_torch_from_copied_weights(case):
    import torch

    name, kw = CONFIGS[case]
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    ours.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    results = []
    for T, model in ((torch, ref), (symgrad, ours)):
        opt = getattr(T.optim, name)(model.parameters(), **kw)
        for _ in range(6):
            opt.zero_grad()
            T.nn.functional.mse_loss(model(T.tensor(x)), T.tensor(x[:, :2])).backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
        assert sorted(opt.state_dict()["param_groups"][0]) == sorted(
            getattr(torch.optim, name)(ref.parameters(), **kw).state_dict()["param_groups"][0]
        )
    for theirs, mine in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_sgd_by_hand():
    # d(w^2)/dw = 2w: momentum 0.9, first step b = g, then b = 0.9 b + g
    w = symgrad.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    values = []
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        values.append(w.item())
    assert values == pytest.approx([0.8, 0.8 - 0.1 * (0.9 * 2.0 + 1.6)])
    assert opt.state[w]["momentum_buffer"].tolist() == pytest.approx([0.9 * 2.0 + 1.6])


def test_adam_state_and_step_count():
    w = nn.Parameter(symgrad.tensor([1.0, -2.0]))
    opt = optim.Adam([w], lr=0.1, amsgrad=True)
    (w * w).sum().backward()
    opt.step()
    state = opt.state[w]
    assert sorted(state) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    assert state["step"].dtype is symgrad.float32 and state["step"].item() == 1.0
    np.testing.assert_allclose(state["exp_avg"].numpy(), [0.2, -0.4], rtol=1e-6)
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(), [0.004, 0.016], rtol=1e-5)
    np.testing.assert_allclose(w.detach().numpy(), [0.9, -1.9], rtol=1e-6)


def test_parameters_without_grad_are_skipped():
    a, b = nn.Parameter(symgrad.ones(2)), nn.Parameter(symgrad.ones(2))
    opt = optim.Adam([a, b], lr=0.5)
    (a * 3).sum().backward()
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state and a in opt.state


def test_step_runs_the_closure_with_grad_enabled():
    w = symgrad.tensor([2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with symgrad.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == 1.0


def test_zero_grad_to_none_or_zeros():
    w = symgrad.tensor([2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0]
    opt.zero_grad()
    assert w.grad is None


def test_param_groups_and_defaults():
    a, b = nn.Parameter(symgrad.ones(1)), nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.9
    assert list(opt.param_groups[0]) == [
        "params",
        "lr",
        "momentum",
        "dampening",
        "weight_decay",
        "nesterov",
        "maximize",
        "foreach",
        "differentiable",
        "fused",
    ]
    c = nn.Parameter(symgrad.ones(1))
    opt.add_param_group({"params": [c], "lr": 1.0})
    assert len(opt.param_groups) == 3
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda p: optim.SGD(p, lr=-1), ValueError, "Invalid learning rate: -1"),
        (lambda p: optim.SGD(p, momentum=-1), ValueError, "Invalid momentum value: -1"),
        (
            lambda p: optim.SGD(p, lr=None),
            TypeError,
            "'<' not supported between instances of 'NoneType' and 'float'",
        ),
        (lambda p: optim.SGD(p, nesterov=True), ValueError, "Nesterov momentum requires"),
        (lambda p: optim.Adam(p, betas=(1.0, 0.9)), ValueError, "beta parameter at index 0"),
        (lambda p: optim.Adam(p, eps=-1.0), ValueError, "Invalid epsilon value: -1.0"),
        (lambda p: optim.AdamW(p, weight_decay=-1), ValueError, "Invalid weight_decay"),
        (lambda p: optim.RMSprop(p, alpha=-0.5), ValueError, "Invalid alpha value: -0.5"),
        (lambda p: optim.RMSprop(p, momentum=-1), ValueError, "Invalid momentum value: -1"),
        (lambda p: optim.Adagrad(p, lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
        (
            lambda p: optim.Adagrad(p, initial_accumulator_value=-1),
            ValueError,
            "Invalid initial_accumulator_value value: -1",
        ),
        (lambda p: optim.SGD([], lr=0.1), ValueError, "empty parameter list"),
        (lambda p: optim.SGD(p[0], lr=0.1), TypeError, "but got torch.FloatTensor"),
        (lambda p: optim.SGD([{"params": set(p)}], lr=0.1), TypeError, "ordered collections"),
        (lambda p: optim.SGD([1.0], lr=0.1), TypeError, "can only optimize Tensors"),
        (lambda p: optim.SGD([p[0] * 2], lr=0.1), ValueError, "non-leaf Tensor"),
    ],
)
def test_argument_errors(make, error, message):
    with pytest.raises(error, match=message):
        make([symgrad.ones(2, requires_grad=True)])


def test_state_dict_round_trip_continues_identically():
    name, kw = CONFIGS["adam_decay_amsgrad"]
    # two steps, saved; two more from the saved state must end where four steps do
    layer, opt = train(symgrad, name, kw, steps=2)
    saved_layer, saved = copy.deepcopy(layer.state_dict()), copy.deepcopy(opt.state_dict())
    assert saved["param_groups"][0]["params"] == [0, 1] and sorted(saved["state"]) == [0, 1]
    resumed = nn.Linear(3, 2)
    resumed.load_state_dict(saved_layer)
    opt2 = optim.Adam(resumed.parameters(), **kw)
    opt2.load_state_dict(saved)
    for _ in range(2):
        opt2.zero_grad()
        nn.functional.mse_loss(resumed(symgrad.tensor(X)), symgrad.tensor(Y)).backward()
        opt2.step()
    weight, bias = EXPECTED["adam_decay_amsgrad"]
    np.testing.assert_allclose(resumed.weight.detach().numpy(), weight, atol=2e-6)
    np.testing.assert_allclose(resumed.bias.detach().numpy(), bias, atol=2e-6)
    assert opt2.state[resumed.weight]["step"].item() == 4.0


def test_load_state_dict_checks_the_groups():
    opt = optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    two = [symgrad.ones(1, requires_grad=True), symgrad.ones(1, requires_grad=True)]
    other = optim.SGD(two, lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other.state_dict())


SGD_REPR = """\
SGD (
Parameter Group 0
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.1
    maximize: False
    momentum: 0
    nesterov: False
    weight_decay: 0
)"""


def test_repr():
    assert repr(optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)) == SGD_REPR
    if HAS_TORCH:
        import torch

        assert repr(torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)) == SGD_REPR


def test_adagrad_state_exists_from_construction_and_rmsprop_state_from_the_first_step():
    w = nn.Parameter(symgrad.tensor([1.0, -2.0]))
    adagrad = optim.Adagrad([w], lr=0.5, initial_accumulator_value=0.25)
    assert sorted(adagrad.state[w]) == ["step", "sum"]
    assert adagrad.state[w]["sum"].tolist() == [0.25, 0.25]
    (w * w).sum().backward()
    adagrad.step()
    assert adagrad.state[w]["sum"].tolist() == [4.25, 16.25]
    assert adagrad.state[w]["step"].item() == 1.0
    rmsprop = optim.RMSprop([w], momentum=0.9, centered=True)
    assert not rmsprop.state[w]
    rmsprop.step()
    state = rmsprop.state[w]
    assert sorted(state) == ["grad_avg", "momentum_buffer", "square_avg", "step"]
    assert state["grad_avg"].tolist() == pytest.approx([0.02, -0.04])


@pytest.mark.parametrize("case", ["adam", "adam_decay_amsgrad", "adam_betas_maximize", "adamw"])
def test_adam_on_arrays_gives_the_tensor_ops_numbers(case, monkeypatch):
    # the default runs the update on the arrays; with forward-mode duals active (forced
    # here) it runs as tensor ops
    name, kw = CONFIGS[case]
    fast, opt = train(symgrad, name, kw)
    monkeypatch.setattr(adam_module.dual, "active", lambda: True)
    slow, _ = train(symgrad, name, kw)
    assert fast.weight.tolist() == slow.weight.tolist() and fast.bias.tolist() == slow.bias.tolist()
    assert opt.state[fast.weight]["step"].item() == 4.0
    assert fast.weight._version == slow.weight._version  # one in-place write per step each

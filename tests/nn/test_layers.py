"""The layer modules, containers, losses and ``nn.init`` against PyTorch's behaviour: shapes,
initialization bounds, values, reprs (PyTorch 2.13's printouts, compared live when it is
installed)."""

from __future__ import annotations

import importlib.util
import math
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn import init

HAS_TORCH = importlib.util.find_spec("torch") is not None
F = nn.functional


def both(make):
    """``make(symgrad)``, and ``make(torch)`` when PyTorch is installed (else None)."""
    if not HAS_TORCH:
        return make(symgrad), None
    import torch

    return make(symgrad), make(torch)


# -- Linear and its initialization ----------------------------------------------------------------


@pytest.mark.parametrize("fan_in, fan_out", [(1, 1), (3, 5), (100, 2)])
def test_linear_init_shapes_and_bounds(fan_in, fan_out):
    symgrad.manual_seed(0)
    layer = nn.Linear(fan_in, fan_out)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) and the bias: both 1/sqrt(fan_in)
    assert layer.weight.shape == (fan_out, fan_in) and layer.bias.shape == (fan_out,)
    assert layer.weight.dtype is symgrad.float32
    for p in (layer.weight, layer.bias):
        assert isinstance(p, nn.Parameter) and p.requires_grad
        assert float(p.detach().abs().max()) <= bound
    if fan_in == 100:  # uniform over the whole interval, not a corner of it
        w = layer.weight.detach().numpy()
        assert w.min() < -0.8 * bound and w.max() > 0.8 * bound


def test_linear_forward_bias_false_and_dtype():
    layer = nn.Linear(3, 2, bias=False, dtype=symgrad.float64)
    assert layer.bias is None and layer.weight.dtype is symgrad.float64
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    x = symgrad.ones(4, 3, dtype=symgrad.float64)
    np.testing.assert_allclose(
        layer(x).detach().numpy(), x.numpy() @ layer.weight.detach().numpy().T
    )
    assert type(layer(x).grad_fn).__name__ == "MmBackward0"


REPRS = {
    "linear": "Linear(in_features=3, out_features=2, bias=True)",
    "no_bias": "Linear(in_features=3, out_features=2, bias=False)",
    "relu": "ReLU()",
    "relu_inplace": "ReLU(inplace=True)",
    "softmax": "Softmax(dim=1)",
    "log_softmax": "LogSoftmax(dim=-1)",
    "flatten": "Flatten(start_dim=1, end_dim=-1)",
    "identity": "Identity()",
    "ce": "CrossEntropyLoss()",
    "seq": "Sequential(\n  (0): Linear(in_features=3, out_features=2, bias=True)\n  (1): Tanh()\n)",
    "list": (
        "ModuleList(\n  (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (2): Sigmoid()\n  (3): Linear(in_features=2, out_features=2, bias=True)\n)"
    ),
    "empty_list": "ModuleList()",
    "dict": "ModuleDict(\n  (act): ReLU()\n  (loss): MSELoss()\n)",
}


def make_modules(T):
    n = T.nn
    return {
        "linear": n.Linear(3, 2),
        "no_bias": n.Linear(3, 2, bias=False),
        "relu": n.ReLU(),
        "relu_inplace": n.ReLU(inplace=True),
        "softmax": n.Softmax(dim=1),
        "log_softmax": n.LogSoftmax(dim=-1),
        "flatten": n.Flatten(),
        "identity": n.Identity(),
        "ce": n.CrossEntropyLoss(),
        "seq": n.Sequential(n.Linear(3, 2), n.Tanh()),
        "list": n.ModuleList([n.Linear(2, 2), n.Linear(2, 2), n.Sigmoid(), n.Linear(2, 2)]),
        "empty_list": n.ModuleList(),
        "dict": n.ModuleDict({"act": n.ReLU(), "loss": n.MSELoss()}),
    }


def test_reprs():
    ours, theirs = both(make_modules)
    assert {k: repr(m) for k, m in ours.items()} == REPRS
    if theirs is not None:
        assert {k: repr(m) for k, m in theirs.items()} == REPRS


# -- activations and losses call the functions -------------------------------------------------


def test_activations():
    x = symgrad.tensor([[-1.0, 0.0, 2.0]])
    assert nn.ReLU()(x).tolist() == [[0.0, 0.0, 2.0]]
    assert nn.Tanh()(x).tolist() == F.tanh(x).tolist()
    assert nn.Sigmoid()(x).tolist() == F.sigmoid(x).tolist()
    assert nn.Softmax(dim=1)(x).tolist() == F.softmax(x, dim=1).tolist()
    assert nn.LogSoftmax(dim=1)(x).tolist() == F.log_softmax(x, dim=1).tolist()
    assert nn.Flatten(0)(symgrad.ones(2, 3, 4)).shape == (24,)
    y = x.clone().requires_grad_()
    z = y * 1
    assert nn.ReLU(inplace=True)(z) is z and z.tolist() == [[0.0, 0.0, 2.0]]
    z.sum().backward()
    assert y.grad.tolist() == [[0.0, 0.0, 1.0]]
    assert type(z.grad_fn).__name__ == "ReluBackward0"


def test_losses():
    x = symgrad.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
    t = symgrad.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    labels = symgrad.tensor([2, 1])
    w = symgrad.tensor([1.0, 2.0, 0.5])
    assert nn.MSELoss()(x, t).item() == F.mse_loss(x, t).item()
    assert nn.MSELoss(reduction="sum")(x, t).item() == pytest.approx(16.25)
    assert nn.L1Loss(reduction="none")(x, t).tolist() == [[1.0, 3.0, 0.5], [1.0, 2.0, 1.0]]
    assert nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)(x, labels).item() == (
        F.cross_entropy(x, labels, weight=w, label_smoothing=0.1).item()
    )
    assert nn.NLLLoss(ignore_index=1)(x, labels).item() == -0.5
    pos = symgrad.tensor([2.0, 1.0, 1.0])
    assert nn.BCEWithLogitsLoss(pos_weight=pos)(x, t).item() == (
        F.binary_cross_entropy_with_logits(x, t, pos_weight=pos).item()
    )
    assert nn.BCELoss()(symgrad.tensor([0.5]), symgrad.tensor([1.0])).item() == pytest.approx(
        math.log(2)
    )
    loss = nn.CrossEntropyLoss(weight=w)
    assert [n for n, _ in loss.named_buffers()] == ["weight"] and list(loss.parameters()) == []
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    loss = nn.L1Loss(reduction="avg")  # checked when called, as PyTorch
    assert loss.reduction == "avg"
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        loss(symgrad.ones(1), symgrad.ones(1))


# -- containers --------------------------------------------------------------------------------


def test_sequential():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    assert seq.append(c) is seq and seq[2] is c
    assert seq(symgrad.ones(4, 2)).shape == (4, 1)
    assert type(seq[1:]) is nn.Sequential and list(seq[1:]) == [b, c]
    assert list(seq[1:]._modules) == ["1", "2"]  # a slice keeps the names, as in PyTorch
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[0] is b
    seq.insert(0, a)
    assert list(seq) == [a, b, c]
    seq[1] = nn.Tanh()
    assert type(seq[1]).__name__ == "Tanh" and list(seq._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    named = nn.Sequential(__import__("collections").OrderedDict([("fc", a), ("act", b)]))
    assert [n for n, _ in named.named_parameters()] == ["fc.weight", "fc.bias"]
    assert named.fc is a


def test_module_list_and_dict():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers += [nn.Tanh()]
    assert [type(m).__name__ for m in layers[-2:]] == ["ReLU", "Tanh"]
    layers.insert(1, nn.Sigmoid())
    assert type(layers[1]).__name__ == "Sigmoid" and len(layers) == 6
    assert type(layers.pop(1)).__name__ == "Sigmoid" and list(layers._modules)[-1] == "4"
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]

    heads = nn.ModuleDict({"a": nn.Linear(2, 1)})
    heads["b"] = nn.ReLU()
    heads.update([("c", nn.Tanh())])
    assert list(heads) == ["a", "b", "c"] and "b" in heads and len(heads) == 3
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias"]
    assert type(heads.pop("b")).__name__ == "ReLU" and list(heads.keys()) == ["a", "c"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        heads.update([("x",)])


# -- nn.init -----------------------------------------------------------------------------------


def test_init_returns_the_tensor_and_works_on_parameters():
    w = nn.Parameter(symgrad.empty(200, 300))
    for fill in (
        lambda t: init.uniform_(t, -2.0, 3.0),
        lambda t: init.normal_(t, 1.0, 0.5),
        init.xavier_uniform_,
        init.xavier_normal_,
        init.kaiming_uniform_,
        lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
        lambda t: init.constant_(t, 0.3),
        init.ones_,
        init.zeros_,
    ):
        assert fill(w) is w and w.requires_grad and w.grad_fn is None


def test_init_distributions():
    symgrad.manual_seed(1)
    t = symgrad.empty(200, 300)  # fan_in 300, fan_out 200
    v = init.uniform_(t, -2.0, 3.0).numpy()
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.05
    v = init.normal_(t, 1.0, 0.5).numpy()
    assert abs(v.mean() - 1.0) < 0.01 and abs(v.std() - 0.5) < 0.01
    bound = math.sqrt(6 / 500)
    v = init.xavier_uniform_(t, gain=2.0).numpy()
    assert np.abs(v).max() <= 2 * bound and np.abs(v).max() > 1.9 * bound
    assert abs(init.xavier_normal_(t).numpy().std() - math.sqrt(2 / 500)) < 1e-3
    v = init.kaiming_uniform_(t, nonlinearity="relu").numpy()
    assert np.abs(v).max() <= math.sqrt(6 / 300)
    v = init.kaiming_normal_(t, mode="fan_out").numpy()
    assert abs(v.std() - math.sqrt(2 / (1 + 0.01**2)) / math.sqrt(200)) < 1e-3
    assert init.constant_(symgrad.empty(2), 0.25).tolist() == [0.25, 0.25]
    assert init.ones_(symgrad.empty(2)).tolist() == [1.0, 1.0]
    assert init.zeros_(symgrad.ones(2)).tolist() == [0.0, 0.0]


def test_init_gains_and_errors():
    ours, theirs = both(
        lambda T: [
            T.nn.init.calculate_gain(n, p)
            for n, p in [
                ("linear", None),
                ("sigmoid", None),
                ("tanh", None),
                ("relu", None),
                ("leaky_relu", None),
                ("leaky_relu", 0.2),
                ("selu", None),
            ]
        ]
    )
    assert ours == [1, 1, 5 / 3, math.sqrt(2), math.sqrt(2 / 1.0001), math.sqrt(2 / 1.04), 0.75]
    assert theirs is None or theirs == ours
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(symgrad.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(symgrad.empty(3, 3), mode="fan_avg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init.kaiming_uniform_(symgrad.empty(0, 3))
    assert "Initializing zero-element tensors is a no-op" in str(caught[0].message)

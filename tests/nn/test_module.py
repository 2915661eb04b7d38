"""nn.Module and nn.Parameter as in PyTorch: registration, names and order, state dicts,
modes, hooks, conversion and printing. Expected values are PyTorch 2.13's (printed by it);
where PyTorch is installed the same structure is built with it and compared too."""

from __future__ import annotations

import copy
import importlib.util
import re

import numpy as np
import pytest

import symgrad
from symgrad import nn

HAS_TORCH = importlib.util.find_spec("torch") is not None


def build(T):
    """A small network exercising parameters, buffers (one not persistent), nesting and a
    module registered twice."""

    class Block(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(3, 4)
            self.act = T.nn.ReLU()
            self.register_buffer("running", T.zeros(4))
            self.register_buffer("tmp", T.ones(1), persistent=False)
            self.scale = T.nn.Parameter(T.ones(1))

        def forward(self, x):
            return self.act(self.fc1(x)) * self.scale + self.running

    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = T.nn.Sequential(T.nn.Linear(4, 2, bias=False), T.nn.Softmax(dim=1))
            self.shared = self.block.fc1

        def forward(self, x):
            return self.head(self.block(x))

    return Net()


NET_REPR = """\
Net(
  (block): Block(
    (fc1): Linear(in_features=3, out_features=4, bias=True)
    (act): ReLU()
  )
  (head): Sequential(
    (0): Linear(in_features=4, out_features=2, bias=False)
    (1): Softmax(dim=1)
  )
  (shared): Linear(in_features=3, out_features=4, bias=True)
)"""

NAMES = {
    "parameters": ["block.scale", "block.fc1.weight", "block.fc1.bias", "head.0.weight"],
    "buffers": ["block.running", "block.tmp"],
    "state_dict": [
        "block.scale",
        "block.running",
        "block.fc1.weight",
        "block.fc1.bias",
        "head.0.weight",
        "shared.weight",
        "shared.bias",
    ],
    "modules": ["", "block", "block.fc1", "block.act", "head", "head.0", "head.1"],
    "children": ["block", "head", "shared"],
}


def names_of(net) -> dict:
    return {
        "parameters": [n for n, _ in net.named_parameters()],
        "buffers": [n for n, _ in net.named_buffers()],
        "state_dict": list(net.state_dict()),
        "modules": [n for n, _ in net.named_modules()],
        "children": [n for n, _ in net.named_children()],
    }


def test_names_and_order():
    net = build(symgrad)
    assert names_of(net) == NAMES
    assert len(list(net.parameters())) == 4 and len(list(net.modules())) == 7
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == [
        "block.scale",
        "block.fc1.weight",
        "block.fc1.bias",
        "head.0.weight",
        "shared.weight",
        "shared.bias",
    ]
    assert [n for n, _ in net.block.named_parameters(prefix="b", recurse=False)] == ["b.scale"]
    if HAS_TORCH:
        import torch

        assert names_of(build(torch)) == NAMES


def test_repr():
    assert repr(build(symgrad)) == NET_REPR
    if HAS_TORCH:
        import torch

        assert repr(build(torch)) == NET_REPR


def test_forward_and_backward_through_the_parameters():
    net = build(symgrad)
    out = net(symgrad.ones(5, 3))
    assert out.shape == (5, 2) and type(out.grad_fn).__name__ == "SoftmaxBackward0"
    (out[:, 0] ** 2).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_parameter():
    t = symgrad.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert isinstance(p, nn.Parameter) and isinstance(p, symgrad.Tensor)
    assert p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(t, requires_grad=False)) == "Parameter containing:\ntensor([1., 2.])"
    assert repr(nn.Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"
    assert type(p * 2) is symgrad.Tensor and type(p.detach()) is symgrad.Tensor
    t.add_(1)  # the parameter shares the tensor's memory and version counter
    assert p.tolist() == [2.0, 3.0] and p._version == 1
    p.grad = symgrad.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.grad is None
    assert q.tolist() == [2.0, 3.0] and not np.shares_memory(q.detach().numpy(), t.numpy())
    with pytest.raises(AttributeError, match="'list' object has no attribute 'detach'"):
        nn.Parameter([1.0])


def test_parameter_gradients_equal_plain_leaves():
    w = nn.Parameter(symgrad.tensor([[1.0, -2.0], [0.5, 3.0]]))
    plain = symgrad.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    x = symgrad.tensor([[1.0, 2.0]])
    for leaf in (w, plain):
        (nn.functional.linear(x, leaf).tanh() * leaf.sum()).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), plain.grad.numpy())


def test_symbolic_gradient_of_a_module():
    layer = nn.Linear(2, 1)
    with symgrad.no_grad():
        layer.weight.copy_(symgrad.tensor([[2.0, -1.0]]))
        layer.bias.fill_(0.5)
    x = symgrad.tensor([[1.0, 3.0]])
    loss = nn.MSELoss()(layer(x), symgrad.tensor([[0.0]]))
    # parameters are named after their path in named_parameters(), without being asked
    dw, db = symgrad.symbolic.gradient(loss, layer.parameters())
    assert str(db) == "2*weight[0, 0] + 6*weight[0, 1] + 2*bias"
    assert layer.weight.name is None  # the tensors themselves stay unnamed, as in PyTorch
    nn.utils.name_parameters(layer, prefix="net")
    loss = nn.MSELoss()(layer(x), symgrad.tensor([[0.0]]))
    dw, db = symgrad.symbolic.gradient(loss, list(layer.parameters()))
    assert str(db) == "2*net.weight[0, 0] + 6*net.weight[0, 1] + 2*net.bias"
    loss.backward()  # d/db (w.x + b)^2 = 2 (w.x + b) = 2 (2 - 3 + 0.5)
    assert layer.bias.grad.tolist() == [-1.0]


def test_state_dict_values_are_detached_and_shared():
    net = build(symgrad)
    sd = net.state_dict()
    assert not sd["block.fc1.weight"].requires_grad
    assert np.shares_memory(sd["block.fc1.weight"].numpy(), net.block.fc1.weight.detach().numpy())
    assert net.state_dict(keep_vars=True)["block.scale"] is net.block.scale
    assert list(sd._metadata) == [
        "",
        "block",
        "block.fc1",
        "block.act",
        "head",
        "head.0",
        "head.1",
        "shared",
    ]


def test_load_state_dict_copies_in_place():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = b.weight
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    # initialized in place (one change), then copied into (as in PyTorch)
    assert b.weight is weight and b.weight._version == 2
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())


LOAD_ERROR = (
    "Error(s) in loading state_dict for Net:\n\t"
    'Missing key(s) in state_dict: "block.scale". \n\t'
    'Unexpected key(s) in state_dict: "extra.w". \n\t'
    "size mismatch for head.0.weight: copying a param with shape {}([3, 3]) from checkpoint, "
    "the shape in current model is {}([2, 4])."
)


def _broken_state(T, net):
    sd = net.state_dict()
    del sd["block.scale"]
    sd["extra.w"] = T.ones(1)
    sd["head.0.weight"] = T.ones(3, 3)
    return sd


def test_load_state_dict_errors():
    net = build(symgrad)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(_broken_state(symgrad, net))
    assert str(info.value) == LOAD_ERROR.format("symgrad.Size", "symgrad.Size")
    result = net.load_state_dict(
        {"block.fc1.weight": symgrad.ones(4, 3), "x": symgrad.ones(1)}, strict=False
    )
    assert result.missing_keys == [
        "block.scale",
        "block.running",
        "block.fc1.bias",
        "head.0.weight",
        "shared.weight",
        "shared.bias",
    ]
    assert result.unexpected_keys == ["x"]
    assert net.block.fc1.weight.tolist() == [[1.0] * 3] * 4
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        net.load_state_dict([1])
    if HAS_TORCH:
        import torch

        ref = build(torch)
        with pytest.raises(RuntimeError) as info:
            ref.load_state_dict(_broken_state(torch, ref))
        assert str(info.value) == LOAD_ERROR.format("torch.Size", "torch.Size")


def test_assignment_errors():
    net = build(symgrad)
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'torch.FloatTensor' as parameter 'scale' "
        r"\(torch.nn.Parameter or None expected\)",
    ):
        net.block.scale = symgrad.ones(1)
    with pytest.raises(TypeError, match=r"cannot assign 'int' as buffer 'running'"):
        net.block.running = 3
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        _ = net.nothing
    with pytest.raises(
        NotImplementedError,
        match=r"Module \[Module\] is missing the required "
        r'"forward" function',
    ):
        nn.Module()(1)
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        nn.Module().train(1)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(symgrad.ones(1))

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Early()


def test_reassigning_moves_between_kinds():
    m = nn.Module()
    m.w = nn.Parameter(symgrad.ones(1))
    m.w = None
    assert list(m.named_parameters()) == [] and "w" in m._parameters
    m.sub = nn.ReLU()
    del m.sub
    assert list(m.children()) == []
    m.register_buffer("b", None)
    m.b = symgrad.ones(2)
    assert [n for n, _ in m.named_buffers()] == ["b"]


def test_train_eval_apply_requires_grad():
    net = build(symgrad)
    assert net.eval() is net and not any(m.training for m in net.modules())
    assert all(m.training for m in net.train().modules())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    # children first; the shared Linear is visited under both names, as in PyTorch
    assert seen == ["Linear", "ReLU", "Block", "Linear", "Softmax", "Sequential", "Linear", "Net"]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_to_converts_parameters_in_place():
    net = build(symgrad)
    w = net.block.fc1.weight
    (net(symgrad.ones(2, 3)).sum()).backward()
    assert net.double() is net
    assert net.block.fc1.weight is w and w.dtype is symgrad.float64
    assert w.grad.dtype is symgrad.float64 and isinstance(w, nn.Parameter)
    assert net.block.running.dtype is symgrad.float64
    assert net.to(symgrad.float32).block.scale.dtype is symgrad.float32
    assert net.to("cpu") is net and net.cpu() is net
    assert net.to(symgrad.ones(1, dtype=symgrad.float64)).head[0].weight.dtype is symgrad.float64
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        net.to(symgrad.int64)


def test_forward_hooks():
    layer = nn.Identity()
    calls = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    post = layer.register_forward_hook(lambda m, args, out: calls.append(args[0].item()) or out + 1)
    assert layer(symgrad.tensor(3.0)).item() == 7.0 and calls == [6.0]
    layer.register_forward_hook(lambda m, args, out: out * 10, prepend=True)
    assert layer(symgrad.tensor(1.0)).item() == 21.0  # (1 * 2) * 10 + 1: the prepended first
    pre.remove()
    post.remove()
    assert layer(symgrad.tensor(1.0)).item() == 10.0

    kw = nn.Identity()
    kw.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    assert kw(symgrad.tensor(1.0)).item() == 2.0


def test_always_call_hook_runs_when_forward_fails():
    class Failing(nn.Module):
        def forward(self, x):
            raise ValueError("bad input")

    m = Failing()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="bad input"):
        m(1)
    assert seen == [None]


def test_deepcopy_gives_an_independent_model():
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    model.extra = model[0]  # shared: stays shared in the copy
    twin = copy.deepcopy(model)
    assert twin[0].weight is not model[0].weight and twin.extra is twin[0]
    assert isinstance(twin[0].weight, nn.Parameter)
    assert [n for n, _ in twin.named_parameters()] == ["0.weight", "0.bias"]
    before = model[0].weight.detach().clone()
    twin(symgrad.ones(1, 2)).sum().backward()
    symgrad.optim.SGD(twin.parameters(), lr=1.0).step()
    assert bool((model[0].weight == before).all())
    assert model[0].weight.grad is None


def test_second_derivatives_through_a_parameter():
    w = nn.Parameter(symgrad.tensor([1.0, 2.0]))
    (g,) = symgrad.autograd.grad((w**3).sum(), w, create_graph=True)
    (h,) = symgrad.autograd.grad(g.sum(), w)
    assert g.tolist() == [3.0, 12.0] and h.tolist() == [6.0, 12.0]  # 3 w^2, 6 w


def test_closed_forms_derivations_and_pictures_name_parameters_by_module_path():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 1)
            self.out = nn.Linear(1, 1)

        def forward(self, x):
            return self.out(symgrad.tanh(self.fc1(x)))

    net = Net()
    loss = net(symgrad.tensor([[1.0, 2.0]])).sum()
    dw1 = symgrad.symbolic.gradient(loss, net.parameters())[0]
    assert "fc1.weight[0, 1]" in str(dw1) and "out.weight" in str(dw1)
    text = symgrad.symbolic.derivation(loss).markdown()
    assert "fc1.bias" in text and "x_" not in text
    assert "fc1.weight" in symgrad.viz.draw(loss).source
    # nested in a bigger model, the paths are the bigger model's
    model = nn.Sequential(Net(), nn.ReLU())
    expr = str(symgrad.symbolic.expression(model(symgrad.tensor([[1.0, 0.0]])).sum()))
    assert "0.fc1.weight[0, 0]" in expr and "0.out.bias" in expr
    # two live models with the same paths: the later one's names take a suffix (which one
    # depends on the other live modules with these paths, from earlier tests too)
    a, b = nn.Linear(1, 1), nn.Linear(1, 1)
    both = str(symgrad.symbolic.expression((a(symgrad.ones(1)) + b(symgrad.ones(1))).sum()))
    names = set(both.split(" + "))
    assert len(names) == 4
    for kind in ("weight", "bias"):
        mine = [n for n in names if n.split("_")[0] == kind]
        assert len(mine) == 2 and all(re.fullmatch(kind + r"(_\d+)?", n) for n in mine), names

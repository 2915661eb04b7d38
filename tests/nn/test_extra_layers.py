"""Unflatten, PReLU, RMSNorm, CosineSimilarity, PairwiseDistance, Dropout1d/2d/3d,
ParameterList, ParameterDict and the functional prelu, rms_norm, dropout2d."""

import math

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn
import symgrad.nn.functional as F


def test_plain_values():
    x = symgrad.tensor([[-2.0, 0.0, 3.0]], requires_grad=True)
    prelu = nn.PReLU()
    y = prelu(x)
    assert y.tolist() == [[-0.5, 0.0, 3.0]]
    y.sum().backward()
    assert x.grad.tolist() == [[0.25, 0.25, 1.0]] and prelu.weight.grad.tolist() == [-2.0]
    r = F.rms_norm(symgrad.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    assert np.allclose(r.numpy(), [[3 / math.sqrt(12.5), 4 / math.sqrt(12.5)]])
    assert nn.RMSNorm(2).weight.tolist() == [1.0, 1.0]
    assert nn.Unflatten(1, (2, 3))(symgrad.ones(4, 6)).shape == (4, 2, 3)
    a = symgrad.tensor([[1.0, 0.0]])
    assert nn.CosineSimilarity()(a, a).tolist() == [1.0]
    assert nn.PairwiseDistance()(a, a * 3).item() == pytest.approx(2.0, abs=1e-5)
    drop = nn.Dropout2d(0.5)
    out = drop(symgrad.ones(4, 8, 3, 3))
    assert set(out.unique().tolist()) <= {0.0, 2.0} and bool((out.std((2, 3)) == 0).all())
    drop.eval()
    assert bool((drop(symgrad.ones(2, 3, 2, 2)) == 1).all())
    with pytest.raises(RuntimeError):
        F.prelu(symgrad.ones(2, dtype=symgrad.float64), symgrad.ones(1))


def _prelu_with_int_init(lib) -> tuple:
    prelu = lib.nn.PReLU(2, init=0)
    return str(prelu.weight.dtype).split(".")[-1], prelu.weight.tolist()


def test_an_int_init_gives_float_slopes():
    # nn.PReLU(init=0) raised: a Parameter of int64 can't require grad
    assert _prelu_with_int_init(symgrad) == ("float32", [0.0, 0.0])


@pytest.mark.torch
def test_an_int_init_gives_float_slopes_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _prelu_with_int_init(torch) == ("float32", [0.0, 0.0])


def test_parameter_containers():
    ps = nn.ParameterList([nn.Parameter(symgrad.ones(2)), symgrad.zeros(3)])
    assert len(ps) == 2 and isinstance(ps[1], nn.Parameter) and ps[-1].shape == (3,)
    assert [n for n, _ in ps.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"a": nn.Parameter(symgrad.ones(1)), "b": symgrad.ones(2, 2)})
    assert list(pd.keys()) == ["a", "b"] and "a" in pd and isinstance(pd["b"], nn.Parameter)
    assert "(b): Parameter containing: [torch.FloatTensor of size 2x2]" in repr(pd)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList(
                [nn.Parameter(symgrad.full((2, 2), float(i))) for i in range(3)]
            )

        def forward(self, x):
            for w in self.ws:
                x = x @ w
            return x

    net = Net()
    net(symgrad.ones(1, 2)).sum().backward()
    assert [p.grad.sum().item() for p in net.parameters()] == [32.0, 0.0, 0.0]
    assert list(net.state_dict()) == ["ws.0", "ws.1", "ws.2"]


def test_against_torch():
    torch = pytest.importorskip("torch")
    data = np.arange(8.0).reshape(2, 4) - 3
    results = []
    for lib in (symgrad, torch):
        x = lib.tensor(data, dtype=lib.float32, requires_grad=True)
        prelu = lib.nn.PReLU(2)
        y = prelu(x.view(2, 2, 2)).sum() + lib.nn.RMSNorm(4, eps=1e-6)(x).pow(2).sum()
        y = y + lib.nn.functional.rms_norm(x, (2, 4)).sum()
        y.backward()
        results.append([x.grad.numpy(), prelu.weight.grad.numpy(), y.detach().numpy()])
    for a, b in zip(*results):
        assert np.allclose(a, b, atol=1e-5)

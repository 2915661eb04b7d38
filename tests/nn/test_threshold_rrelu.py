"""``F.threshold``/``threshold_``/``nn.Threshold`` and ``F.rrelu``/``rrelu_``/``nn.RReLU``:
values, gradients, node names, in-place forms, randomness under ``manual_seed``, errors;
PyTorch cross-checks when importable."""

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn
import symgrad.nn.functional as F
from symgrad.symbolic import gradient

X = [-1.0, 0.5, 1.0, 2.0]


def test_threshold_values_gradients_and_nodes():
    x = symgrad.tensor(X, requires_grad=True)
    y = F.threshold(x, 1.0, -5.0)
    assert y.tolist() == [-5.0, -5.0, -5.0, 2.0]
    assert type(y.grad_fn).__name__ == "ThresholdBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]
    z = x * 1.0
    out = F.threshold_(z, 1.0, 3.0)
    assert out is z and z.tolist() == [3.0, 3.0, 3.0, 2.0]
    assert type(z.grad_fn).__name__ == "ThresholdBackward1"
    assert F.threshold(x * 1.0, 1.0, 3.0, inplace=True).grad_fn.name() == "ThresholdBackward1"
    g = symgrad.autograd.grad(F.threshold(x, 0.0, 5.0).sum(), x, create_graph=True)[0]
    assert g.tolist() == [0.0, 1.0, 1.0, 1.0]
    assert type(g.grad_fn).__name__ == "ThresholdBackwardBackward0"
    assert F.threshold(symgrad.tensor([1, -2]), 0.5, 2.5).tolist() == [1, 2]
    assert F.threshold(symgrad.tensor([1.0, float("nan")]), 2.0, 9.0).isnan().tolist() == [
        False,
        True,
    ]
    a = symgrad.tensor(0.6, name="a", requires_grad=True)
    closed = gradient(F.threshold(a * a, 0.25, 0.0), a)
    assert str(closed) == "2*a*Piecewise((0, a**2 <= 1/4), (1, True))"


def test_threshold_module_and_errors():
    m = nn.Threshold(0.1, 20)
    assert repr(m) == "Threshold(threshold=0.1, value=20)"
    assert (
        repr(nn.Threshold(0.1, 20, inplace=True))
        == "Threshold(threshold=0.1, value=20, inplace=True)"
    )
    assert m(symgrad.tensor(X)).tolist() == [20.0, 0.5, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.threshold_(symgrad.tensor(X, requires_grad=True), 1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Bool"):
        F.threshold(symgrad.tensor([True]), 0.5, 2.0)


def test_rrelu_eval_is_leaky_relu_with_the_mean_slope():
    x = symgrad.tensor([0.0, -1.0, 2.0], requires_grad=True)
    y = F.rrelu(x)
    assert np.allclose(y.detach().numpy(), [0.0, -(1 / 8 + 1 / 3) / 2, 2.0])
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), [(1 / 8 + 1 / 3) / 2, (1 / 8 + 1 / 3) / 2, 1.0])
    z = x * 1.0
    assert F.rrelu_(z, 0.1, 0.3) is z and np.allclose(z.detach().numpy(), [0.0, -0.2, 2.0])
    assert type(z.grad_fn).__name__ == "RreluWithNoiseBackward1"
    a = symgrad.tensor(-0.5, name="a", requires_grad=True)
    closed = gradient(F.rrelu(a * 2, 0.25, 0.75), a)
    (sym,) = closed.free_symbols
    assert [closed.subs(sym, v) for v in (-1, 1)] == [1, 2]


def test_rrelu_training_draws_slopes_from_the_generator():
    x = symgrad.tensor([-1.0, -2.0, 1.0, -3.0, 0.0], requires_grad=True)
    symgrad.manual_seed(3)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    y.sum().backward()
    slopes = x.grad.numpy()
    assert slopes[2] == 1.0 and np.all(
        (slopes[[0, 1, 3, 4]] >= 0.1) & (slopes[[0, 1, 3, 4]] <= 0.3)
    )
    assert np.allclose(y.detach().numpy(), x.detach().numpy() * slopes)
    symgrad.manual_seed(3)
    assert F.rrelu(x, 0.1, 0.3, training=True).tolist() == y.tolist()  # reproducible
    g = symgrad.autograd.grad(F.rrelu(x, training=True).sum(), x, create_graph=True)[0]
    assert type(g.grad_fn).__name__ == "RreluWithNoiseBackwardBackward0"
    z = x * 1.0
    assert F.rrelu(z, training=True, inplace=True) is z
    assert type(z.grad_fn).__name__ == "RreluWithNoiseBackward1"
    m = nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)" and repr(nn.RReLU()) == (
        "RReLU(lower=0.125, upper=0.3333333333333333)"
    )
    assert repr(nn.RReLU(inplace=True)).endswith("inplace=True)")
    assert m.eval()(symgrad.tensor([-1.0])).tolist() == pytest.approx([-0.2])
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(x, 0.5, 0.2)
    with pytest.raises(NotImplementedError, match="Long"):
        F.rrelu(symgrad.tensor([1, -2]))


def test_against_torch():
    torch = pytest.importorskip("torch")
    data = np.array([-1.5, -0.2, 0.0, 0.7, 3.0])
    for f in (
        lambda L, x: L.nn.functional.threshold(x, 0.5, -2.0),
        lambda L, x: L.nn.functional.threshold(x * 1.0, -0.2, 4.0, inplace=True),
        lambda L, x: L.nn.functional.rrelu(x, 0.2, 0.6),
        lambda L, x: L.nn.functional.rrelu_(x * 1.0),
        lambda L, x: L.nn.RReLU().eval()(x),
        lambda L, x: L.nn.Threshold(0.0, 1.5)(x),
    ):
        found = []
        for lib in (symgrad, torch):
            x = lib.tensor(data, requires_grad=True)
            y = f(lib, x)
            (y * y).sum().backward()
            found.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()))
        assert np.allclose(found[0][0], found[1][0]) and np.allclose(found[0][1], found[1][1])
        assert found[0][2] == found[1][2]


def test_meta_tensors_keep_their_shape():
    x = symgrad.empty(3, 2, device="meta", requires_grad=True)
    for y in (F.rrelu(x, training=True), F.rrelu(x), F.threshold(x, 0.1, 1.0)):
        assert y.is_meta and y.shape == (3, 2)

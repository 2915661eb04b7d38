"""``var_mean``, ``std_mean`` and ``aminmax``: two outputs of one node, as PyTorch records them
(``VarMeanBackward0``, ``StdMeanBackward0``, ``AminmaxBackward0``), with the gradients of both
outputs summed into the input, second derivatives and forward tangents."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.symbolic import expression, gradient

X = [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]
TIES = [[1.0, 1.0, 4.0], [3.0, 9.0, 9.0]]

# (name, fn(T, x) -> two outputs, node name, input)
PAIRS = [
    ("var_mean", lambda T, x: T.var_mean(x, 1), "VarMeanBackward0", X),
    ("var_mean_all", lambda T, x: T.var_mean(x), "VarMeanBackward0", X),
    (
        "var_mean_dims_biased",
        lambda T, x: T.var_mean(x, [0, 1], unbiased=False),
        "VarMeanBackward0",
        X,
    ),
    (
        "std_mean_keepdim",
        lambda T, x: T.std_mean(x, 1, correction=0, keepdim=True),
        "StdMeanBackward0",
        X,
    ),
    ("std_mean_all", lambda T, x: T.std_mean(x), "StdMeanBackward0", X),
    ("aminmax", lambda T, x: T.aminmax(x), "AminmaxBackward0", TIES),
    ("aminmax_dim", lambda T, x: T.aminmax(x, dim=1), "AminmaxBackward0", TIES),
    ("aminmax_method", lambda T, x: x.aminmax(dim=0, keepdim=True), "AminmaxBackward0", TIES),
]
IDS = [p[0] for p in PAIRS]


def _run(T, fn, values):
    x = T.tensor(values, dtype=T.float64, requires_grad=True)
    a, b = fn(T, x)
    (a * 2).sum().add((b * 3).sum()).backward()
    return x, a, b


@pytest.mark.parametrize("name, fn, node, values", PAIRS, ids=IDS)
def test_both_outputs_share_one_node_of_pytorchs_name(name, fn, node, values):
    x, a, b = _run(symgrad, fn, values)
    assert a.grad_fn is b.grad_fn
    assert type(a.grad_fn).__name__ == node
    assert (a.output_nr, b.output_nr) == (0, 1)
    assert [type(f).__name__ for f, _ in a.grad_fn.next_functions] == ["AccumulateGrad"]


@pytest.mark.parametrize("name, fn, node, values", PAIRS, ids=IDS)
def test_values_and_gradients_agree_with_torch(name, fn, node, values):
    torch = pytest.importorskip("torch")
    x, a, b = _run(symgrad, fn, values)
    tx, ta, tb = _run(torch, fn, values)
    assert type(ta.grad_fn).__name__ == node
    for mine, theirs in ((a, ta), (b, tb), (x.grad, tx.grad)):
        assert tuple(mine.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


def test_var_mean_gradients():
    x, v, m = _run(symgrad, PAIRS[0][1], X)
    np.testing.assert_allclose(v.detach().numpy(), [7 / 3, 28 / 3])
    np.testing.assert_allclose(m.detach().numpy(), [7 / 3, 17 / 3])
    # 2 * 2 (x - mean) / (3 - 1) + 3 / 3
    np.testing.assert_allclose(x.grad.numpy(), [[-5 / 3, 1 / 3, 13 / 3], [-13 / 3, -1 / 3, 23 / 3]])


def test_one_output_alone():
    x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    v, m = symgrad.var_mean(x, 1)
    m.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1 / 3))
    x.grad = None
    s, m = symgrad.std_mean(x, 1)
    s.sum().backward()
    data = np.array(X)
    centered = data - data.mean(1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), centered / (2 * data.std(1, ddof=1)[:, None]))


def test_aminmax_ties_share_the_gradient():
    x = symgrad.tensor(TIES, requires_grad=True)
    lo, hi = symgrad.aminmax(x, dim=1)
    (lo * symgrad.tensor([1.0, 10.0]) + hi * symgrad.tensor([100.0, 1000.0])).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5, 100.0], [10.0, 500.0, 500.0]]
    x.grad = None
    lo, hi = symgrad.aminmax(x)
    (lo * 2 + hi * 3).backward()
    assert x.grad.tolist() == [[1.0, 1.0, 0.0], [0.0, 1.5, 1.5]]
    y = symgrad.tensor([2.0, 2.0], requires_grad=True)
    lo, hi = symgrad.aminmax(y)
    (lo + hi * 10).backward()
    assert y.grad.tolist() == [5.5, 5.5]


@pytest.mark.parametrize("name, fn, node, values", PAIRS, ids=IDS)
def test_second_derivatives_and_tangents(name, fn, node, values):
    x = symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)
    if name.startswith("aminmax"):  # away from the ties, where the gradient is a choice
        x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda t: fn(symgrad, t), (x,), check_forward_ad=True)
    assert symgrad.autograd.gradgradcheck(lambda t: fn(symgrad, t), (x,))


def test_aminmax_errors_as_pytorch():
    with pytest.raises(RuntimeError, match="aminmax"):
        symgrad.aminmax(symgrad.tensor([]))
    with pytest.raises(IndexError, match="aminmax"):
        symgrad.aminmax(symgrad.zeros(2, 0), dim=1)
    with pytest.raises(TypeError, match="must be int"):
        symgrad.tensor([[1.0, 2.0]]).aminmax(dim=(0, 1))
    assert symgrad.aminmax(symgrad.zeros(2, 0), dim=0).min.shape == (0,)


def test_degrees_of_freedom_warning_names_the_pair():
    with pytest.warns(UserWarning, match=r"var_mean\(\): degrees of freedom"):
        v, m = symgrad.var_mean(symgrad.tensor([1.0]))
    assert np.isnan(v.item()) and m.item() == 1.0
    with pytest.raises(RuntimeError, match="var_mean"):
        symgrad.var_mean(symgrad.tensor([1, 2]))


def test_closed_forms():
    x = symgrad.tensor([1.0, 2.0, 4.0], requires_grad=True, name="x")
    v, m = symgrad.var_mean(x)
    symbols = list(expression(x))
    subs = dict(zip(symbols, [1, 2, 4]))
    assert expression(v).subs(subs) == pytest.approx(7 / 3)
    assert expression(m).subs(subs) == pytest.approx(7 / 3)
    gv = gradient(v, x)
    assert [g.subs(subs) for g in gv] == pytest.approx([-4 / 3, -1 / 3, 5 / 3])


# (call, the node's _saved_* values but self: correction, dim, keepdim; and whether it saves
# result0) as PyTorch 2.13 shows them
SAVED = [
    (lambda T, x: T.var_mean(x, 1), (1, (1,), False), False),
    (lambda T, x: T.var_mean(x), (None, None, False), False),
    (lambda T, x: T.var_mean(x, [0], unbiased=False, keepdim=True), (0, (0,), True), False),
    (lambda T, x: T.std_mean(x, correction=1.5), (1.5, None, False), True),
    (lambda T, x: T.std_mean(x, (0, 1), correction=2), (2, (0, 1), False), True),
    (lambda T, x: T.std_mean(x, unbiased=True), (1, None, False), True),
    # PyTorch shows a negative dim as the unsigned 64-bit number of the same bits
    (lambda T, x: T.var_mean(x, -1), (1, (2**64 - 1,), False), False),
]


@pytest.mark.parametrize("call, values, result0", SAVED)
def test_saved_values_under_pytorchs_names(call, values, result0):
    x = symgrad.tensor(X, requires_grad=True)
    spread, _ = call(symgrad, x)
    node = spread.grad_fn
    found = (node._saved_correction, node._saved_dim, node._saved_keepdim)
    assert found == values and [type(v) for v in found] == [type(v) for v in values]
    assert node._saved_self is x
    names = sorted(n for n in dir(node) if n.startswith("_saved_") and _has(node, n))
    expected = ["_saved_correction", "_saved_dim", "_saved_keepdim", "_saved_self"]
    assert names == sorted(expected + (["_saved_result0"] if result0 else []))
    if result0:
        assert node._saved_result0.tolist() == spread.tolist()


def _has(node, name):
    try:
        getattr(node, name)
    except AttributeError:
        return False
    return True


@pytest.mark.parametrize("call, values, result0", SAVED)
def test_saved_values_agree_with_torch(call, values, result0):
    torch = pytest.importorskip("torch")
    node = call(torch, torch.tensor(X, requires_grad=True))[0].grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    assert (node._saved_correction, node._saved_dim, node._saved_keepdim) == values
    assert ("_saved_result0" in names) == result0 and "_saved_result1" not in names

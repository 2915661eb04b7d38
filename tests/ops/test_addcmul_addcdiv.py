"""``addcmul`` and ``addcdiv`` (and their in-place forms): one node each, PyTorch's
``AddcmulBackward0``/``AddcdivBackward0``, with gradients to all three tensors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.symbolic import expression, gradient

X, A, B = [1.0, 2.0], [3.0, 4.0], [5.0, 0.5]

# (name, fn(T, x, a, b), node, value, grads of x, a, b for a gradient of ones)
CALLS = [
    (
        "addcmul",
        lambda T, x, a, b: T.addcmul(x, a, b, value=2),
        "AddcmulBackward0",
        [31.0, 6.0],  # x + 2 a b
        ([1.0, 1.0], [10.0, 1.0], [6.0, 8.0]),
    ),
    (
        "addcmul_method",
        lambda T, x, a, b: x.addcmul(a, b),
        "AddcmulBackward0",
        [16.0, 4.0],
        ([1.0, 1.0], [5.0, 0.5], [3.0, 4.0]),
    ),
    (
        "addcmul_inplace",
        lambda T, x, a, b: (x * 1).addcmul_(a, b, value=-1),
        "AddcmulBackward0",
        [-14.0, 0.0],
        ([1.0, 1.0], [-5.0, -0.5], [-3.0, -4.0]),
    ),
    (
        "addcdiv",
        lambda T, x, a, b: T.addcdiv(x, a, b, value=2),
        "AddcdivBackward0",
        [2.2, 18.0],  # x + 2 a / b
        ([1.0, 1.0], [0.4, 4.0], [-0.24, -32.0]),
    ),
    (
        "addcdiv_inplace",
        lambda T, x, a, b: (x * 1).addcdiv_(a, b),
        "AddcdivBackward0",
        [1.6, 10.0],
        ([1.0, 1.0], [0.2, 2.0], [-0.12, -16.0]),
    ),
]
IDS = [c[0] for c in CALLS]


def _run(T, fn):
    x, a, b = (T.tensor(v, dtype=T.float64, requires_grad=True) for v in (X, A, B))
    y = fn(T, x, a, b)
    y.sum().backward()
    return y, [t.grad for t in (x, a, b)]


@pytest.mark.parametrize("name, fn, node, value, grads", CALLS, ids=IDS)
def test_one_node_and_its_gradients(name, fn, node, value, grads):
    y, got = _run(symgrad, fn)
    assert type(y.grad_fn).__name__ == node
    np.testing.assert_allclose(y.detach().numpy(), value, rtol=1e-15)
    for g, want in zip(got, grads):
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("name, fn, node, value, grads", CALLS, ids=IDS)
def test_agrees_with_torch(name, fn, node, value, grads):
    torch = pytest.importorskip("torch")
    y, got = _run(symgrad, fn)
    ty, want = _run(torch, fn)
    assert type(ty.grad_fn).__name__ == node
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("name, fn, node, value, grads", CALLS, ids=IDS)
def test_second_derivatives_and_tangents(name, fn, node, value, grads):
    xs = [symgrad.tensor(v, dtype=symgrad.float64, requires_grad=True) for v in (X, A, B)]

    def f(x, a, b):
        return fn(symgrad, x, a, b)

    assert symgrad.autograd.gradcheck(f, xs, check_forward_ad=True)
    assert symgrad.autograd.gradgradcheck(f, xs)


def test_broadcasting_dtypes_and_errors():
    t = symgrad.tensor([1.0, 2.0])
    wide = symgrad.addcmul(symgrad.tensor(1.0), t, symgrad.tensor([[3.0], [4.0]]))
    assert wide.tolist() == [[4.0, 7.0], [5.0, 9.0]]
    ints = symgrad.addcmul(symgrad.tensor([1, 2]), symgrad.tensor([1, 2]), symgrad.tensor([3, 4]))
    assert ints.dtype == symgrad.int64 and ints.tolist() == [4, 10]
    # an integer result takes the value as an integer (2.7 -> 2), as PyTorch
    i = symgrad.tensor([1, 2])
    assert symgrad.addcmul(i, i, symgrad.tensor([3, 4]), value=2.7).tolist() == [7, 18]
    assert symgrad.addcmul(t, t, t, value=symgrad.tensor(2.0)).tolist() == [3.0, 10.0]
    with pytest.raises(TypeError, match="tensor2"):
        symgrad.addcmul(t, t, 2.0)
    with pytest.raises(TypeError, match="input"):
        symgrad.addcdiv(1.0, t, t)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        symgrad.addcdiv(t, symgrad.tensor([1, 2]), symgrad.tensor([3, 4]))


def test_closed_forms():
    x, a, b = (symgrad.tensor(2.0, requires_grad=True, name=n) for n in "xab")
    y = symgrad.addcdiv(x, a, b, value=3)
    sx, sa, sb = (expression(t) for t in (x, a, b))
    assert expression(y) == sx + 3 * sa / sb
    assert gradient(y, [x, a, b]) == [1, 3 / sb, -3 * sa / sb**2]


def test_saved_values_under_pytorchs_names():
    x, a, b = (symgrad.tensor(v, requires_grad=True) for v in (X, A, B))
    node = symgrad.addcmul(x, a, b, value=2).grad_fn
    assert (node._saved_tensor1, node._saved_tensor2, node._saved_value) == (a, b, 2)

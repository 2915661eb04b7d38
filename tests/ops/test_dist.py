"""dist: values, PyTorch's gradients for every p, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

# x of shape (1, 3) against y of shape (2, 1): differences [[-3, -2, -1], [-1, 0, 1]]
X, Y = [[1.0, 2.0, 3.0]], [[4.0], [2.0]]
EXPECTED = [  # p, distance, x.grad, y.grad (PyTorch's)
    (1, 8.0, [[-2.0, -1.0, 0.0]], [[3.0], [0.0]]),
    (2, 4.0, [[-1.0, -0.5, 0.0]], [[1.5], [0.0]]),
    (math.inf, 3.0, [[-1.0, 0.0, 0.0]], [[1.0], [0.0]]),
    (-math.inf, 0.0, [[0.0, 0.0, 0.0]], [[0.0], [0.0]]),
    (-1, 0.0, [[0.0, 0.0, 0.0]], [[0.0], [0.0]]),
]


@pytest.mark.parametrize("p,value,gx,gy", EXPECTED)
def test_values_and_gradients(p, value, gx, gy):
    x = symgrad.tensor(X, requires_grad=True)
    y = symgrad.tensor(Y, requires_grad=True)
    d = symgrad.dist(x, y, p)
    assert type(d.grad_fn).__name__ == "DistBackward0"
    d.backward()
    assert d.item() == pytest.approx(value)
    assert np_close(x.grad.tolist(), gx) and np_close(y.grad.tolist(), gy)


def test_zero_distance_and_dtypes():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    symgrad.dist(x, x.detach()).backward()
    assert x.grad.tolist() == [0.0, 0.0]  # PyTorch's 0 where the norm is 0
    assert (
        symgrad.dist(symgrad.ones(2, dtype=symgrad.float64), symgrad.ones(2)).dtype
        is symgrad.float64
    )
    assert symgrad.tensor([1.0, 2.0]).dist(symgrad.tensor([4.0, 6.0]), p=1).item() == 7.0
    assert symgrad.dist(x, symgrad.tensor([1.0, 3.0]), 0).item() == 1.0


def test_errors():
    with pytest.raises(RuntimeError, match="input dtype should be either floating point"):
        symgrad.dist(symgrad.tensor([1, 2]), symgrad.tensor([1, 3]))
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor"):
        symgrad.dist(symgrad.ones(2), 2.0)
    with pytest.raises(RuntimeError, match="don't broadcast"):
        symgrad.dist(symgrad.ones(2), symgrad.ones(3))
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        symgrad.dist(symgrad.ones(0), symgrad.ones(0), math.inf)
    assert symgrad.dist(symgrad.ones(0), symgrad.ones(0)).item() == 0.0


def test_closed_form():
    from symgrad import symbolic

    a = symgrad.tensor([1.0, 2.0], requires_grad=True, name="a")
    b = symgrad.tensor([4.0, 6.0], requires_grad=True, name="b")
    assert (
        str(symbolic.expression(symgrad.dist(a, b))) == "sqrt((a[0] - b[0])**2 + (a[1] - b[1])**2)"
    )


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for p in (1, 2, 3, 0.5, math.inf, -math.inf, -1):
        results = []
        for lib in (torch, symgrad):
            x = lib.tensor(X, requires_grad=True)
            y = lib.tensor(Y, requires_grad=True)
            d = lib.dist(x, y, p)
            d.backward()
            results.append((d.item(), x.grad.tolist(), y.grad.tolist()))
        assert results[1][0] == pytest.approx(results[0][0], rel=1e-6)
        for got, want in zip(results[1][1:], results[0][1:]):
            assert np_close(got, want)


def np_close(got, want):
    return np.allclose(np.array(got), np.array(want), rtol=1e-5, atol=1e-6)

"""float16 ``add``/``sub``/``rsub`` with an ``alpha`` as PyTorch's CPU loop computes them: 32
elements at a time in float32 vectors (``a + alpha * b`` rounded once), and the last
``n % 32`` of each contiguous run in its scalar loop, in float16 arithmetic (the product
``alpha * b`` rounded to float16 first). A broadcast row makes runs of its length, a column
runs of one row, and operands of different layouts go through the scalar loop whole. The
optimizers' float16 steps (``p.add_(g, alpha=-lr)``) round the same way.

The plain oracle is that rule written out in NumPy; with PyTorch installed the values are
compared with PyTorch's bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

RNG = np.random.default_rng(32)
F16, F32 = np.float16, np.float32


def _half(*shape):
    return (RNG.standard_normal(shape) * 2).astype(F16)


def _vector(a, b, alpha):
    return (a.astype(np.float64) + float(F16(alpha)) * b.astype(np.float64)).astype(F32).astype(F16)


def _scalar(a, b, alpha):
    return (a.astype(F32) + (F16(alpha) * b).astype(F32)).astype(F16)


def _expected(a, b, alpha, tail):
    """``tail``: the mask of the elements of the scalar loop."""
    return np.where(tail, _scalar(a, b, alpha), _vector(a, b, alpha))


def _last(n):
    return np.arange(n) >= n - n % 32


A40, B40 = _half(40), _half(40)
A5, B5 = _half(5), _half(5)
A100, B100 = _half(100), _half(100)
M, ROW, COL = _half(5, 40), _half(40), _half(5, 1)
T20, C20 = _half(20, 5), _half(5, 20)

# name: (program, inputs, expected)
CASES = {
    "add_40": (
        lambda T, a, b: T.add(a, b, alpha=0.3),
        [A40, B40],
        _expected(A40, B40, 0.3, _last(40)),
    ),
    "add_5": (lambda T, a, b: T.add(a, b, alpha=0.3), [A5, B5], _expected(A5, B5, 0.3, _last(5))),
    "sub_100": (
        lambda T, a, b: T.sub(a, b, alpha=0.7),
        [A100, B100],
        _expected(A100, B100, -0.7, _last(100)),
    ),
    "add_in_place_40": (
        lambda T, a, b: a.clone().add_(b, alpha=-0.01),
        [A40, B40],
        _expected(A40, B40, -0.01, _last(40)),
    ),
    "rsub_number_40": (
        lambda T, a: T.rsub(a, 1.3, alpha=0.3),
        [A40],
        _expected(np.full(40, 1.3, F16), A40, -0.3, _last(40)),
    ),
    "row_broadcast": (
        lambda T, a, b: T.add(a, b, alpha=0.3),
        [M, ROW],
        _expected(M, ROW, 0.3, np.broadcast_to(_last(40), (5, 40))),
    ),
    "column_broadcast": (
        lambda T, a, b: T.add(a, b, alpha=0.3),
        [M, COL],
        _expected(M, COL, 0.3, np.broadcast_to(_last(40), (5, 40))),
    ),
    "transposed_and_contiguous": (
        lambda T, a, b: T.add(a.t(), b, alpha=0.3),
        [T20, C20],
        _expected(T20.T, C20, 0.3, np.ones((5, 20), bool)),
    ),
}


def _run(T, case):
    fn, arrays, _ = CASES[case]
    return fn(T, *[T.tensor(a) for a in arrays]).numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_tails_round_the_product_to_float16(case):
    got = _run(symgrad, case)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, CASES[case][2])


def _sgd(T, p, g):
    p = T.nn.Parameter(T.tensor(p))
    opt = T.optim.SGD([p], lr=0.013, momentum=0.9, weight_decay=0.01)
    for _ in range(3):
        p.grad = T.tensor(g)
        opt.step()
    return p.detach().numpy()


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(_run(torch, case), CASES[case][2])


@pytest.mark.torch
def test_sgd_step_matches_pytorch():
    torch = pytest.importorskip("torch")
    p, g = _half(45), _half(45)
    np.testing.assert_array_equal(_sgd(symgrad, p, g), _sgd(torch, p, g))

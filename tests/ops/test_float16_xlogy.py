"""float16 ``xlogy`` as PyTorch's kernel computes it, in float16 arithmetic: ``log(y)`` rounded
to float16, then the product rounded (a third of the elements were a bit off when the
formula was rounded once from float32), for two tensors and for either operand a number
(a float16 number, as PyTorch wraps it). The plain oracle is that rule in NumPy; with PyTorch
installed the values are compared with PyTorch's bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

RNG = np.random.default_rng(11)
X = (RNG.standard_normal(100) * 2).astype(np.float16)
Y = (np.abs(RNG.standard_normal(100)) * 3 + 0.01).astype(np.float16)
X[3], Y[5] = 0, 0


def _rule(x, y):
    x, y = np.float16(x), np.float16(y)
    with np.errstate(divide="ignore"):
        out = x * np.log(y)  # float16 arithmetic: each step rounded
    return np.where((x == 0) & ~np.isnan(y), np.float16(0), out)


CASES = {
    "tensors": (lambda T: T.xlogy(T.tensor(X), T.tensor(Y)), _rule(X, Y)),
    "number_other": (lambda T: T.xlogy(T.tensor(X), 2.7), _rule(X, 2.7)),
    "number_self": (lambda T: T.xlogy(1.7, T.tensor(Y)), _rule(1.7, Y)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_is_rounded_to_float16_first(case):
    got = CASES[case][0](symgrad).numpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, CASES[case][1])


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(CASES[case][0](torch).numpy(), CASES[case][1])

"""The 2-norm where it overflows or underflows, in float32 and float64: PyTorch's values and
gradients (0 where the norm is 0, also when it underflowed), checked as plain values and,
when PyTorch is importable, against it."""

from __future__ import annotations

import math

import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

INF, NAN = math.inf, math.nan
# (dtype, values) -> (norm, gradient)
CASES = {
    ("float32", (1e30, 1e30)): (INF, [0.0, 0.0]),
    ("float32", (1e-30, 1e-30)): (0.0, [0.0, 0.0]),
    ("float32", (1e-40, 1e-40)): (0.0, [0.0, 0.0]),
    ("float32", (0.0, 0.0)): (0.0, [0.0, 0.0]),
    ("float32", (3e38, 3e38)): (INF, [0.0, 0.0]),
    ("float64", (1e200, 1e200)): (INF, [0.0, 0.0]),
    ("float64", (1e-200, 1e-200)): (0.0, [0.0, 0.0]),
    ("float64", (1e30, 1e30)): (1.4142135623730953e30, [0.7071067811865475] * 2),
    ("float64", (1e-170, 1e-170)): (0.0, [0.0, 0.0]),  # x*x underflows, as in PyTorch
    ("float64", (1e-150, 1e-150)): (1.4142135623730952e-150, [0.7071067811865476] * 2),
}
LIBS = [symgrad] + ([torch] if torch is not None else [])


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("dtype,values", sorted(CASES), ids=str)
def test_norm_at_the_ends_of_the_range(lib, dtype, values):
    x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
    n = x.norm()
    n.backward()
    expected_norm, expected_grad = CASES[(dtype, values)]
    assert _same(n.item(), expected_norm)
    assert all(_same(a, b) for a, b in zip(x.grad.tolist(), expected_grad))

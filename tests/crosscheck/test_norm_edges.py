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


# A norm over one element each is that element's absolute value, whatever the order: PyTorch
# never squares it, so nothing overflows or underflows. (order, dtype) -> (norms, gradients)
# of the rows [big], [-2 big], [0] (big 1e30 in float32, 1e200 in float64)
ONE_ELEMENT = {
    (2, "float32"): ([1e30, 2e30, 0.0], [1.0, -1.0, 0.0]),
    (3, "float32"): ([1e30, 2e30, 0.0], [NAN, NAN, 0.0]),  # x |x| / n**2: inf / inf
    (0.5, "float32"): ([1e30, 2e30, 0.0], [1.0, -1.0, 0.0]),
    (1.5, "float32"): ([1e30, 2e30, 0.0], [1.0, -1.0, 0.0]),
    (-2, "float32"): ([1e30, 2e30, 0.0], [NAN, NAN, 0.0]),
    (2, "float64"): ([1e200, 2e200, 0.0], [1.0, -1.0, 0.0]),
    (1.5, "float64"): ([1e200, 2e200, 0.0], [1.0, -1.0, 0.0]),
    (-2, "float64"): ([1e200, 2e200, 0.0], [NAN, NAN, 0.0]),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("order,dtype", sorted(ONE_ELEMENT), ids=str)
def test_norm_of_one_element_is_its_absolute_value(lib, order, dtype):
    big = 1e30 if dtype == "float32" else 1e200
    x = lib.tensor([[big], [-2 * big], [0.0]], dtype=getattr(lib, dtype), requires_grad=True)
    n = lib.linalg.vector_norm(x, order, dim=1)
    n.sum().backward()
    norms, grads = ONE_ELEMENT[(order, dtype)]
    assert all(_same(a, b) for a, b in zip(n.tolist(), norms))
    assert all(_same(a, b) for a, b in zip(x.grad.flatten().tolist(), grads))
    assert type(n.grad_fn).__name__ == "LinalgVectorNormBackward0"


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_one_element_rows(lib):
    """A row of one huge value normalizes to 1, and one of a tiny value has its own norm (their
    squares overflow and underflow in float32)."""
    y = lib.nn.functional.normalize(lib.tensor([[1e30], [-3.0]]), dim=1)
    assert y.tolist() == [[1.0], [-1.0]]
    x = lib.tensor([[1e-30], [-3.0]], requires_grad=True)
    n = x.norm(dim=1)
    n.sum().backward()
    assert _same(n[0].item(), 1e-30) and x.grad.tolist() == [[1.0], [-1.0]]
    d = lib.nn.functional.pairwise_distance(lib.tensor([[1e30]]), lib.tensor([[0.0]]))
    assert _same(d.item(), 1e30)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_half_pairwise_distance_sums_in_float32(lib):
    """ATen's ``norm`` (``pairwise_distance``) sums float16 squares in float32, as
    ``linalg.vector_norm`` does: 300 and 400 give 500, not the inf of 400**2 in float16."""
    a = lib.tensor([[300.0, 400.0]], dtype=lib.float16)
    d = lib.nn.functional.pairwise_distance(a, a * 0)
    assert d.tolist() == [500.0] and d.dtype == lib.float16

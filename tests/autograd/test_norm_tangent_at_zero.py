"""Forward mode through the 2-norm at a zero vector: PyTorch's tangent ``<x, t> / |x|`` is 0
there, not the nan of differentiating the square root at 0."""

from __future__ import annotations

import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD


def _tangent(fn, primal, tangent):  # noqa: ANN001, ANN202
    with fwAD.dual_level():
        return fwAD.unpack_dual(fn(fwAD.make_dual(primal, tangent))).tangent


def test_zero_vector() -> None:
    assert _tangent(lambda x: x.norm(), symgrad.zeros(3), symgrad.ones(3)).item() == 0.0
    rows = _tangent(
        lambda x: symgrad.linalg.vector_norm(x, dim=1), symgrad.zeros(2, 2), symgrad.ones(2, 2)
    )
    assert rows.tolist() == [0.0, 0.0]


def test_elsewhere_unchanged() -> None:
    x = symgrad.tensor([3.0, 4.0])
    for fn in (lambda v: v.norm(), lambda v: symgrad.linalg.vector_norm(v)):
        assert _tangent(fn, x, symgrad.ones(2)).item() == pytest.approx(1.4, rel=1e-6)

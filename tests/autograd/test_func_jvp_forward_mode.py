"""func.jvp (and so jacfwd and hessian) computes in forward mode, as PyTorch's: the norm's
tangent at a zero vector is 0 (it was nan, from two reverse passes through its masked
gradient), and a custom Function's own jvp is used (one without it raises, as in PyTorch)."""

from __future__ import annotations

import pytest

import symgrad
from symgrad import func


def test_norm_at_zero() -> None:
    out, tangent = func.jvp(symgrad.linalg.norm, (symgrad.zeros(2),), (symgrad.ones(2),))
    assert out.item() == 0.0 and tangent.item() == 0.0
    jac = func.jacfwd(lambda v: symgrad.linalg.vector_norm(v, dim=-1))(symgrad.zeros(2, 3))
    assert jac.shape == (2, 2, 3) and jac.abs().sum().item() == 0.0
    # away from zero: <x, t> / |x|
    _, tangent = func.jvp(
        symgrad.linalg.norm, (symgrad.tensor([3.0, 4.0]),), (symgrad.tensor([1.0, 1.0]),)
    )
    assert tangent.item() == pytest.approx(7 / 5)


class _Square(symgrad.autograd.Function):
    @staticmethod
    def forward(x):  # noqa: ANN001, ANN205
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):  # noqa: ANN001, ANN205
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return 2 * x * g


class _SquareWithJvp(_Square):
    @staticmethod
    def jvp(ctx, t):  # noqa: ANN001, ANN205
        return 3 * t  # (not the true derivative: shows that this rule is the one used)


def test_custom_function_jvp_rules() -> None:
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="implement the jvp function"):
        func.jvp(_Square.apply, (x,), (symgrad.ones(2),))
    out, tangent = func.jvp(_SquareWithJvp.apply, (x,), (symgrad.ones(2),))
    assert out.tolist() == [1.0, 4.0] and tangent.tolist() == [3.0, 3.0]


def test_jvp_inside_a_dual_level_still_works() -> None:
    import symgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        _, tangent = func.jvp(lambda x: x**3, (symgrad.tensor(2.0),), (symgrad.tensor(1.0),))
    assert tangent.item() == 12.0

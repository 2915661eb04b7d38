"""``symbolic.jvp``: the closed-form J v equals the Jacobian times v (SymPy), and evaluates to
forward mode's tangent on the traced values."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import symbolic
from symgrad.autograd import forward_ad as fwAD


def _x():
    return symgrad.tensor([0.5, -1.0, 2.0], dtype=symgrad.float64, requires_grad=True, name="x")


W_VALUES = [[1.0, 2.0, 0.0], [0.5, -1.0, 1.0]]
TORCH_JVP = [1.1762082120303394, -1.0104879938636475]


def _program(x, W=None):
    W = symgrad.tensor(W_VALUES, dtype=symgrad.float64, name="W") if W is None else W
    return (W @ x).tanh() * x.sum()


def test_named_direction_equals_jacobian_times_v():
    x = _x()
    v = symgrad.tensor([1.0, 0.0, -2.0], dtype=symgrad.float64, name="v")
    y = _program(x)
    found = symbolic.jvp(y, x, v)
    J = symbolic.jacobian(y, x)
    V = sp.Matrix(list(symbolic.symbols(v)))
    assert found.shape == (2,)
    for k in range(2):
        assert sp.simplify(found[k] - (J * V)[k]) == 0


def test_numbers_agree_with_forward_mode():
    x = _x()
    W = symgrad.tensor(W_VALUES, dtype=symgrad.float64, name="W")
    direction = symgrad.tensor([1.0, 0.0, -2.0], dtype=symgrad.float64)
    found = symbolic.jvp(_program(x, W), x, direction)
    got = np.asarray(symbolic.lambdify(found, [x, W])(x.detach().numpy(), W.numpy()), float)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x.detach(), direction)
        tangent = fwAD.unpack_dual(_program(dual, W)).tangent
    np.testing.assert_allclose(got, tangent.numpy(), rtol=1e-12)
    # PyTorch's torch.func.jvp at x = (0.5, -1, 2), v = (1, 0, -2)
    np.testing.assert_allclose(got, TORCH_JVP, rtol=1e-12)


def test_several_inputs_and_errors():
    a = symgrad.tensor(2.0, requires_grad=True, name="a")
    b = symgrad.tensor(3.0, requires_grad=True, name="b")
    da = symgrad.tensor(1.0, name="da")
    db = symgrad.tensor(1.0, name="db")
    A, B, DA, DB = sp.symbols("a b da db", real=True)
    assert symbolic.jvp(a * b, [a, b], [da, db]) == B * DA + A * DB
    with pytest.raises(ValueError, match="2 inputs but 1 directions"):
        symbolic.jvp(a * b, [a, b], [da])
    with pytest.raises(ValueError, match="has shape \\[2\\], its input \\[\\]"):
        symbolic.jvp(a * b, a, symgrad.ones(2))
    with pytest.raises(TypeError, match="must be a Tensor"):
        symbolic.jvp(a * b, a, 1.0)

"""Symbolic Jacobians and Hessians of several inputs: blocks, as PyTorch's functional API."""

from __future__ import annotations

import sympy as sp

import symgrad
from symgrad import symbolic


def test_jacobian_and_hessian_take_a_list_of_inputs_and_give_blocks():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = symgrad.tensor(3.0, requires_grad=True, name="y")
    X0, X1 = symbolic.symbols(x)
    Y = symbolic.symbols(y)
    f = (x**2).sum() * y
    (hxx, hxy), (hyx, hyy) = symbolic.hessian(f, [x, y])
    assert hxx == sp.Matrix([[2 * Y, 0], [0, 2 * Y]]) and hyy == sp.Matrix([[0]])
    assert hxy == sp.Matrix([[2 * X0], [2 * X1]]) and hyx == hxy.T
    jx, jy = symbolic.jacobian(x * y, [x, y])
    assert jx == sp.Matrix([[Y, 0], [0, Y]]) and jy == sp.Matrix([[X0], [X1]])

"""Closed forms show as LaTeX in Jupyter: single results are SymPy objects; several inputs give
a list, blocks a tuple, and assignment form a pair, each with a ``_repr_latex_`` and otherwise
the plain list/tuple PyTorch's functional API returns."""

from __future__ import annotations

import sympy as sp

import symgrad
from symgrad import symbolic


def _leaf(v, name):
    return symgrad.tensor(v, dtype=symgrad.float64, requires_grad=True, name=name)


def test_gradient_of_several_inputs_is_a_list_with_latex():
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    found = symbolic.gradient(a * b + a.sigmoid(), [a, b])
    A, B = sp.symbols("a b", real=True)
    assert isinstance(found, list) and found[1] == A
    text = found._repr_latex_()
    assert text.startswith(r"$\displaystyle \left[") and r"\sigma" not in text  # unsimplified
    assert (
        r"\sigma\left(a\right)" in symbolic.gradient(a.sigmoid(), [a], simplify=True)._repr_latex_()
    )
    assert symbolic.gradient(a * b, [a, b]) == [B, A]


def test_matrix_forms_of_several_inputs_show_the_matrix_notation():
    X = symgrad.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=symgrad.float64, name="X")
    w, b = _leaf([0.1, 0.2], "w"), _leaf(0.3, "b")
    found = symbolic.gradient((X @ w + b).tanh().sum(), [w, b], form="matrix")
    text = found._repr_latex_()
    assert r"X^{T}" in text and r"\mathbf{1}^{T}" in text and r"\tanh" in text


def test_blocks_and_assignments_show_as_latex_and_stay_tuples():
    x, y = _leaf([1.0, 2.0], "x"), _leaf(0.5, "y")
    J = symbolic.jacobian(x * y, [x, y])
    assert isinstance(J, tuple) and len(J) == 2 and J[1].shape == (2, 1)
    assert J._repr_latex_().startswith(r"$\displaystyle \left( \left[\begin{matrix}")
    H = symbolic.hessian((x * x).sum() * y, [x, y])
    assert isinstance(H[0], tuple) and H[0][1].shape == (2, 1)
    assert H._repr_latex_().count(r"\left( ") == 3
    defs, value = pair = symbolic.expression((x * y).exp().sum(), cse=True)
    assert isinstance(pair, tuple) and defs and value is not None
    shown = pair._repr_latex_()
    assert shown.startswith("$$\n\\begin{aligned}") and "&=" in shown

"""LaTeX of matrix forms as people write them: transposes, the ones vector in bold, sigma for
the logistic function, a scalar factor in front without brackets, Hadamard products with circ."""

from __future__ import annotations

import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.prim.matrix_functions import Ones
from symgrad.prim.special import sigmoid
from symgrad.symbolic import latex


def _t(values, name, grad=False):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=grad, name=name)


def _logistic():
    X = _t([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], "X")
    w = _t([0.1, -0.2], "w", grad=True)
    b = _t(0.3, "b", grad=True)
    y = _t([1.0, 0.0, 1.0], "y")
    return F.binary_cross_entropy_with_logits(X @ w + b, y), w, b


def test_logistic_gradients_print_as_people_write_them():
    loss, w, b = _logistic()
    gw, gb = symbolic.gradient(loss, [w, b], form="matrix")
    body = r"\left(\sigma\left(b \mathbf{1} + X w\right) - y\right)"
    assert latex(gw) == r"\frac{1}{3} X^{T} " + body
    assert latex(gb) == r"\frac{1}{3} \mathbf{1}^{T} " + body


def test_quadratic_form_and_least_squares():
    A = _t([[1.0, 2.0], [3.0, 4.0]], "A")
    x = _t([1.0, -1.0], "x", grad=True)
    b = _t([0.5, 2.0], "b")
    assert latex(symbolic.gradient(x @ A @ x, x, form="matrix")) == r"\left(A + A^{T}\right) x"
    g = symbolic.gradient(((A @ x - b) ** 2).sum(), x, form="matrix")
    assert latex(g) == r"2 A^{T} \left(A x - b\right)"


def test_negative_factor_and_hadamard_and_ones_matrix():
    A = sp.MatrixSymbol("A", 2, 3)
    assert latex(sp.MatMul(-2, A)) == "- 2 A"
    assert latex(sp.HadamardProduct(A, A)) == r"A \circ A"
    assert latex(Ones(2, 3)) == r"\mathbf{1}_{2 \times 3}"
    assert Ones(3, 1).T == Ones(1, 3) and isinstance(Ones(3, 1).T, Ones)


def test_element_functions_print_their_own_latex():
    x = _t([1.0, 2.0], "x", grad=True)
    W = _t([[1.0, 0.0], [0.5, 1.0]], "W")
    g = symbolic.gradient((W @ x).tanh().sum(), x, form="matrix")
    text = latex(g)
    assert text == r"W^{T} \left(\mathbf{1} - \tanh{\left(W x \right)}^{\circ {2}}\right)"
    assert sp.latex(sigmoid(sp.Symbol("z"))) == r"\sigma\left(z\right)"


def test_notebook_display_shows_the_ones_vector_and_sigma():
    loss, w, b = _logistic()
    gw, gb = symbolic.gradient(loss, [w, b], form="matrix")
    shown = gb._repr_latex_()  # what Jupyter shows: SymPy's own printer
    assert r"\mathbf{1}^{T}" in shown and r"\sigma\left(b \mathbf{1} + X w\right)" in shown

"""Class-index targets in matrix form: ``cross_entropy(X @ W, y)`` picks each row's class with
the one-hot matrix of ``y``, whose rows sum to 1, so the gradient is the familiar
Xᵀ(softmax(XW) − onehot(y))/N; checked against backward."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.prim.matrix_functions import OneHot, OneHotSymbol
from symgrad.prim.matrix_xp import MatrixFormError


def _data():
    X = symgrad.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], dtype=symgrad.float64, name="X")
    W = symgrad.tensor(
        [[0.1, 0.2, 0.0], [0.3, -0.1, 0.5]], dtype=symgrad.float64, requires_grad=True, name="W"
    )
    return X, W


def _value(expr, X, W, hot=None):
    subs = {sp.MatrixSymbol("X", 3, 2): sp.Matrix(X.numpy())}
    subs[sp.MatrixSymbol("W", 2, 3)] = sp.Matrix(W.detach().numpy())
    if hot is not None:
        subs[OneHotSymbol("y", 3, 3)] = sp.Matrix(hot)
    return np.array(sp.N(expr.xreplace(subs).as_explicit()), dtype=float)


def test_named_class_target_gives_softmax_minus_one_hot():
    X, W = _data()
    y = symgrad.tensor([0, 2, 1], name="y")
    loss = F.cross_entropy(X @ W, y)
    g = symbolic.gradient(loss, W, form="matrix")
    Xm, Wm = sp.MatrixSymbol("X", 3, 2), sp.MatrixSymbol("W", 2, 3)
    Y = OneHotSymbol("y", 3, 3)
    assert g.args[:2] == (sp.Rational(1, 3), Xm.T)
    assert set(g.args[2].args) == {-Y, g.args[2].args[1]} and "softmax(X*W)" in str(g)
    assert str(g) == "(1/3)*X.T*(-onehot(y) + softmax(X*W))"
    assert symbolic.latex(g) == (
        r"\frac{1}{3} X^{T} \left(\operatorname{softmax}\left(X W\right) - "
        r"\operatorname{onehot}\left(y\right)\right)"
    )
    loss.backward()
    got = _value(g, X, W, np.eye(3)[[0, 2, 1]])
    np.testing.assert_allclose(got, W.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert Wm.shape == g.shape


def test_unnamed_targets_are_a_constant_one_hot_and_sum_reduction():
    X, W = _data()
    y = symgrad.tensor([1, 1, 0])
    loss = F.nll_loss(F.log_softmax(X @ W, 1), y, reduction="sum")
    g = symbolic.gradient(loss, W, form="matrix")
    assert str(g) == "X.T*(-onehot([1, 1, 0]) + softmax(X*W))"
    assert g.has(OneHot([1, 1, 0], 3))
    loss.backward()
    np.testing.assert_allclose(_value(g, X, W), W.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_class_weights_and_ignored_targets_have_no_matrix_form():
    X, W = _data()
    y = symgrad.tensor([0, 2, 1], name="y")
    weighted = F.cross_entropy(
        X @ W, y, weight=symgrad.tensor([1.0, 2.0, 0.5], dtype=symgrad.float64)
    )
    with pytest.raises(MatrixFormError, match="NllLossBackward0"):
        symbolic.gradient(weighted, W, form="matrix")
    ignored = F.cross_entropy(X @ W, symgrad.tensor([0, -100, 1]))
    with pytest.raises(MatrixFormError):
        symbolic.gradient(ignored, W, form="matrix")


def test_the_loss_itself_in_matrix_form():
    X, W = _data()
    y = symgrad.tensor([0, 2, 1], name="y")
    e = symbolic.expression(F.cross_entropy(X @ W, y), form="matrix")
    assert str(e) == "-(1/3)*1.T*(HadamardProduct(onehot(y), logsoftmax(X*W)))*1"


def test_a_hostile_target_name_stays_escaped():
    X, W = _data()
    name = "}\\end{aligned}\\input{x}|$`"
    y = symgrad.tensor([0, 2, 1], name=name)
    g = symbolic.gradient(F.cross_entropy(X @ W, y), W, form="matrix")
    tex = symbolic.latex(g)
    assert (
        "\\input" not in tex and "\\end{aligned}" not in tex and "$" not in tex.replace("\\$", "")
    )
    bare = tex.replace("\\{", "").replace("\\}", "")
    assert bare.count("{") == bare.count("}")  # no brace of the name is left unescaped

"""Matrix-form closed forms: the gradients people write, derived from eager code, checked
structurally (they are matrix expressions of the named matrices, in the stated form) and
numerically (they evaluate to backward's gradients on the traced values)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.prim.matrix_xp import MatrixFormError


def _t(values, name, grad=False):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=grad, name=name)


def evaluate(expr, tensors):
    """The matrix expression at the tensors' values, as a NumPy array (a column for a vector)."""
    subs = {}
    for t in tensors:
        values = t.detach().numpy()
        if values.ndim == 0:
            subs[sp.Symbol(t.name, real=True)] = sp.Float(float(values))
        else:
            column = values.reshape(-1, 1) if values.ndim == 1 else values
            subs[sp.MatrixSymbol(t.name, *column.shape)] = sp.ImmutableMatrix(column)
    done = sp.sympify(expr).xreplace(subs)
    if isinstance(done, sp.MatrixExpr):  # entry by entry (element-wise functions included)
        return np.array(sp.N(done.as_explicit()).tolist(), float)
    return np.array(float(sp.N(done.doit())))


def check_against_backward(y, xs, grads, tensors):
    y.backward()
    for x, g in zip(xs, grads):
        got = evaluate(g, tensors).reshape(x.shape)
        np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.fixture
def A():
    return _t([[1.0, 2.0, 0.5], [3.0, -4.0, 1.0], [0.2, 0.1, 2.0]], "A")


def test_quadratic_form(A):
    x = _t([0.5, -1.0, 2.0], "x", grad=True)
    y = x @ A @ x
    g = symbolic.gradient(y, x, form="matrix")
    Am, xm = sp.MatrixSymbol("A", 3, 3), sp.MatrixSymbol("x", 3, 1)
    assert g == sp.MatMul(sp.MatAdd(Am, Am.T), xm) or g == sp.MatMul(sp.MatAdd(Am.T, Am), xm)
    assert str(symbolic.expression(y, form="matrix")) == "x.T*A*x"
    check_against_backward(y, [x], [g], [A, x])


def test_least_squares(A):
    x = _t([0.5, -1.0, 2.0], "x", grad=True)
    b = _t([1.0, 2.0, -1.0], "b")
    loss = ((A @ x - b) ** 2).sum()
    g = symbolic.gradient(loss, x, form="matrix")
    Am, xm, bm = sp.MatrixSymbol("A", 3, 3), sp.MatrixSymbol("x", 3, 1), sp.MatrixSymbol("b", 3, 1)
    assert isinstance(g, sp.MatMul) and g.args[:2] == (2, Am.T) and str(g) == "2*A.T*(A*x - b)"
    assert set(g.args[2].args) == {sp.MatMul(Am, xm), -bm}
    assert str(symbolic.expression(loss, form="matrix")) == "(A*x - b).T*(A*x - b)"
    check_against_backward(loss, [x], [g], [A, x, b])


def test_logistic_regression():
    X = _t([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], "X")
    w = _t([0.1, -0.2], "w", grad=True)
    b = _t(0.3, "b", grad=True)
    y = _t([1.0, 0.0, 1.0], "y")
    loss = F.binary_cross_entropy_with_logits(X @ w + b, y)
    gw, gb = symbolic.gradient(loss, [w, b], form="matrix")
    Xm, wm, ym = sp.MatrixSymbol("X", 3, 2), sp.MatrixSymbol("w", 2, 1), sp.MatrixSymbol("y", 3, 1)
    # X.T (sigma(X w + b 1) - y) / N, and 1.T (sigma(X w + b 1) - y) / N
    assert gw.has(Xm.T) and gw.has(ym)
    assert "sigmoid(b*1 + X*w) - y" in str(gw) and str(gw).startswith("(1/3)*X.T*")
    assert str(gb) == "(1/3)*1.T*(sigmoid(b*1 + X*w) - y)"
    assert not gw.has(sp.exp)
    check_against_backward(loss, [w, b], [gw, gb], [X, w, b, y])
    assert {s.name for s in gw.free_symbols} == {"X", "w", "b", "y"}
    assert isinstance(gw, sp.MatrixExpr) and gw.shape == (2, 1) and wm.shape == gw.shape


def test_an_op_without_a_matrix_form_is_named():
    x = _t([0.5, -1.0, 2.0], "x", grad=True)
    loss = (x[1:] * x[:2]).sum()
    with pytest.raises(MatrixFormError, match="SliceBackward0"):
        symbolic.gradient(loss, x, form="matrix")
    with pytest.raises(ValueError, match="form must be 'elements' or 'matrix'"):
        symbolic.gradient(loss, x, form="rows")


def test_forward_falls_back_to_elements_for_that_part():
    from symgrad.symbolic.matrix import MatrixReplay

    x = _t([0.5, -1.0, 2.0], "x", grad=True)
    replay = MatrixReplay()
    value = replay.value(x[1:].exp())
    assert replay.fallbacks and replay.fallbacks[0].startswith("SliceBackward0")
    np.testing.assert_allclose(evaluate(value.expr, [x]).ravel(), np.exp([-1.0, 2.0]))


def test_cross_entropy_with_probability_targets():
    X = _t([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], "X")
    W = _t([[0.1, -0.2, 0.3], [0.2, 0.1, -0.1]], "W", grad=True)
    Y = _t([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0], [0.3, 0.3, 0.4]], "Y")
    loss = F.cross_entropy(X @ W, Y)
    g = symbolic.gradient(loss, W, form="matrix")
    assert "softmax(X*W)" in str(g) and str(g).startswith("(1/3)*X.T*(")
    assert "logsoftmax(X*W)" in str(symbolic.expression(loss, form="matrix"))
    check_against_backward(loss, [W], [g], [X, W, Y])


def test_two_layer_tanh_network_backpropagates_a_delta():
    x = _t([0.5, -1.0], "x")
    W1 = _t([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], "W1", grad=True)
    W2 = _t([[0.1, 0.2, -0.3]], "W2", grad=True)
    out = (W2 @ (W1 @ x).tanh()).sum()
    g1, g2 = symbolic.gradient(out, [W1, W2], form="matrix")
    # (delta o (1 - h o h)) x.T with h = tanh(W1 x)
    assert str(g1).endswith("*x.T") and "tanh(W1*x)" in str(g1)
    check_against_backward(out, [W1, W2], [g1, g2], [x, W1, W2])


def test_hostile_names_stay_escaped_in_matrix_forms():
    name = r"}\end{aligned}\input{x}"
    A = _t([[1.0, 2.0], [3.0, 4.0]], name)
    x = _t([0.5, -1.0], "x", grad=True)
    latex = sp.latex(symbolic.gradient(x @ A @ x, x, form="matrix"))
    bare = latex.replace(r"\{", "").replace(r"\}", "")
    assert r"\input" not in bare and bare.count("{") == bare.count("}")
    assert r"\backslash{}input\{x\}" in latex


def test_centered_squares_where_terms_share_a_last_factor():
    # the terms of the gradient all end in x, one of them as a number times x: no
    # (scalar + matrix) sum when the factor is taken out
    x = _t([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]], "x", grad=True)
    loss = (x - x.mean(0, keepdim=True)).pow(2).mean()
    g = symbolic.gradient(loss, x, form="matrix")
    check_against_backward(loss, [x], [g], [x])
    np.testing.assert_allclose(x.grad.numpy(), CENTERED_GRAD, rtol=1e-14, atol=1e-16)


# PyTorch 2.13: 2 (x - column means) / 6
CENTERED_GRAD = [
    [0.16666666666666666, 0.2222222222222222],
    [0.0, -0.7777777777777777],
    [-0.16666666666666666, 0.5555555555555556],
]


@pytest.mark.torch
def test_centered_squares_gradient_is_pytorchs():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]], dtype=torch.float64)
    x.requires_grad_()
    (x - x.mean(0, keepdim=True)).pow(2).mean().backward()
    np.testing.assert_allclose(x.grad.numpy(), CENTERED_GRAD, rtol=1e-14, atol=1e-16)

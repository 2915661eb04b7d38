"""Closed forms of the tutorial graphs, derived by hand, and Jacobians and Hessians against
``sympy.diff`` of ``expression(y)`` and the engine's (double-backward) numeric derivatives."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad.autograd import grad
from symgrad.symbolic import expression, gradient, hessian, jacobian, symbols

from .support import (
    assert_close,
    element_symbols,
    evaluate,
    evaluate_all,
    evaluate_cse,
    flat,
    leaf,
    values_of,
)


def _scalar_leaves():
    return [leaf(v, n) for v, n in ((2.0, "a"), (3.0, "b"), (5.0, "c"), (10.0, "d"))]


# -- the tutorial graph ------------------------------------------------------------------------


def test_tutorial_graph_gradients_are_b_a_log_d_c_over_d():
    a, b, c, d = _scalar_leaves()
    e = a * b + symgrad.log(d) * c
    A, B, C, D = (symbols(t) for t in (a, b, c, d))
    assert expression(e) == A * B + sp.log(D) * C
    assert gradient(e, [a, b, c, d]) == [B, A, sp.log(D), C / D]


def test_tutorial_graph_gradients_evaluate_to_backward():
    leaves = _scalar_leaves()
    a, b, c, d = leaves
    e = a * b + symgrad.log(d) * c
    closed = gradient(e, leaves)
    e.backward()
    assert_close(evaluate_all(closed, values_of(leaves)), [t.grad.item() for t in leaves])
    assert_close([t.grad.item() for t in leaves], [3.0, 2.0, np.log(10.0), 0.5])


# -- the one-layer network ---------------------------------------------------------------------


def _network(named_data: bool = False):
    """``x = ones(5)``, ``y = zeros(3)``, ``z = x @ w + b``, mean BCE-with-logits loss."""
    x = leaf(np.ones(5), "x" if named_data else None, requires_grad=False)
    y = leaf(np.zeros(3), "y" if named_data else None, requires_grad=False)
    rng = np.random.default_rng(3)
    w, b = leaf(rng.standard_normal((5, 3)), "w"), leaf(rng.standard_normal(3), "b")
    z = symgrad.matmul(x, w) + b
    return x, y, w, b, F.binary_cross_entropy_with_logits(z, y)


def _sigmoid(v):
    return 1 / (1 + sp.exp(-v))


@pytest.mark.slow
def test_network_gradient_is_sigmoid_minus_target_over_three():
    _, _, w, b, loss = _network()
    W, B = symbols(w), symbols(b)
    z = [sum(W[i, j] for i in range(5)) + B[j] for j in range(3)]
    g_w, g_b = gradient(loss, [w, b])
    assert g_w.shape == (5, 3) and len(flat(g_b)) == 3
    for j in range(3):
        assert sp.simplify(flat(g_b)[j] - (_sigmoid(z[j]) - 0) / 3) == 0
        # x_i = 1: every row of dL/dw is dL/db
        assert all(sp.expand(g_w[i, j] - flat(g_b)[j]) == 0 for i in range(5))


def test_network_gradient_evaluates_to_formula_and_backward():
    _, _, w, b, loss = _network()
    g_w, g_b = gradient(loss, [w, b])
    values = values_of([w, b])
    z = np.ones(5) @ w.detach().numpy() + b.detach().numpy()
    by_hand = (1 / (1 + np.exp(-z)) - 0.0) / 3
    loss.backward()
    assert_close(evaluate_all(flat(g_b), values), by_hand)
    assert_close(evaluate_all(flat(g_b), values), b.grad.numpy())
    assert_close(evaluate_all(flat(g_w), values), w.grad.numpy().reshape(-1))
    assert_close(w.grad.numpy(), np.broadcast_to(by_hand, (5, 3)))


@pytest.mark.slow
def test_network_with_named_data_keeps_x_and_y_symbolic():
    x, y, w, b, loss = _network(named_data=True)
    X, Y, W, B = (symbols(t) for t in (x, y, w, b))
    g_w = gradient(loss, w)
    for i, j in ((0, 0), (4, 1), (2, 2)):
        z = sum(X[k] * W[k, j] for k in range(5)) + B[j]
        assert sp.simplify(g_w[i, j] - (_sigmoid(z) - Y[j]) * X[i] / 3) == 0


# -- Jacobian ----------------------------------------------------------------------------------


def test_jacobian_of_square_is_diagonal_two_x_plus_one():
    X = leaf([0.5, -1.5, 2.0], "X")
    J = jacobian((X + 1) ** 2, X)
    S = element_symbols(X)
    assert J.shape == (3, 3)
    assert (J - sp.diag(*(2 * (s + 1) for s in S))).expand() == sp.zeros(3, 3)
    numeric = _numeric_jacobian(lambda t: (t + 1) ** 2, X)
    assert_close(evaluate_all(list(J), values_of([X])), numeric.reshape(-1))
    assert_close(numeric, np.diag(2 * (X.detach().numpy() + 1)))


def _numeric_jacobian(make, x):
    """Rows ``d y_k / d x`` by one backward per output element."""
    y = make(x)
    rows = []
    for k in range(y.numel()):
        v = np.zeros(y.numel())
        v[k] = 1.0
        (g,) = grad(
            y, x, symgrad.tensor(v.reshape(y.shape), dtype=symgrad.float64), retain_graph=True
        )
        rows.append(g.numpy().reshape(-1))
    return np.array(rows)


JACOBIAN_CASES = {
    "softmax_of_matrix_product": lambda x: symgrad.softmax(
        x @ symgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=symgrad.float64), -1
    ),
    "tanh_times_sin": lambda x: symgrad.tanh(x) * symgrad.sin(x.flip(-1)),
    "transpose_and_reduce": lambda x: (x.T * x.T.exp()).sum(0),
}


@pytest.mark.parametrize("name", list(JACOBIAN_CASES))
def test_jacobian_agrees_with_diff_and_backward(name):
    make = JACOBIAN_CASES[name]
    x = leaf(np.random.default_rng(5).uniform(-1, 1, (2, 2)), "x")
    y = make(x)
    J = jacobian(y, x)
    expr, syms = flat(expression(y)), element_symbols(x)
    assert J.shape == (y.numel(), x.numel())
    values = values_of([x])
    for k, j in np.ndindex(*J.shape):
        assert_close(evaluate(J[k, j], values), evaluate(sp.diff(expr[k], syms[j]), values))
    numeric = _numeric_jacobian(make, x)
    assert_close(evaluate_all(list(J), values), numeric.reshape(-1))


def test_jacobian_flattens_row_major():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "x")
    J = jacobian(x.T * 1.0, x)  # y[i, j] = x[j, i], y of shape (3, 2)
    assert J.shape == (6, 6)
    for k in range(6):
        i, j = divmod(k, 2)  # row k of J is y.flat[k] = y[i, j] = x[j, i] = x.flat[3 j + i]
        assert [J[k, m] for m in range(6)] == [1 if m == 3 * j + i else 0 for m in range(6)]


# -- Hessian -----------------------------------------------------------------------------------


def test_hessian_of_quadratic_form_with_symbolic_matrix_is_a_plus_a_transpose():
    x = leaf([1.0, -2.0, 0.5], "x")
    A = leaf(np.arange(9.0).reshape(3, 3), "A", requires_grad=False)
    H = hessian(x @ A @ x, x)
    M = symbols(A)
    assert H.shape == (3, 3)
    assert (H - (M + M.T)).expand() == sp.zeros(3, 3)


def _double_backward_hessian(make, x):
    y = make(x)
    (g,) = grad(y, x, create_graph=True)
    rows = []
    for k in range(x.numel()):
        (row,) = grad(g.reshape(-1)[k], x, retain_graph=True)
        rows.append(row.numpy().reshape(-1))
    return np.array(rows)


def test_hessian_of_quadratic_form_with_numeric_matrix():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 3))
    A = symgrad.tensor(a, dtype=symgrad.float64)
    x = leaf(rng.standard_normal(3), "x")
    H = hessian(x @ A @ x, x)
    assert_close(np.array(H.tolist(), dtype=float), a + a.T)
    assert_close(_double_backward_hessian(lambda t: t @ A @ t, x), a + a.T)


HESSIAN_CASES = {
    "log_sum_exp": lambda x: symgrad.logsumexp(
        x * symgrad.tensor([1.0, 2.0, -1.0], dtype=symgrad.float64), 0
    ),
    "sin_of_product": lambda x: symgrad.sin(x[0] * x[1]) + x[2] ** 3 * x[0],
    "norm_times_sigmoid": lambda x: x.norm() * symgrad.sigmoid(x).sum(),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HESSIAN_CASES))
def test_hessian_agrees_with_diff_and_double_backward(name):
    make = HESSIAN_CASES[name]
    x = leaf([0.3, -0.7, 1.1], "x")
    H = hessian(make(x), x)
    expr, syms, values = expression(make(x)), element_symbols(x), values_of([x])
    for i, j in np.ndindex(3, 3):
        assert_close(evaluate(H[i, j], values), evaluate(sp.diff(expr, syms[i], syms[j]), values))
    assert_close(evaluate_all(list(H), values), _double_backward_hessian(make, x).reshape(-1))


def test_hessian_of_one_element_input_is_one_by_one():
    t = leaf(0.4, "t")
    H = hessian(symgrad.sin(t) * t, t)
    T = symbols(t)
    assert H.shape == (1, 1)
    assert sp.simplify(H[0, 0] - sp.diff(sp.sin(T) * T, T, 2)) == 0


# -- options: cse and simplify -----------------------------------------------------------------


def _cse_case():
    x = leaf([[0.2, -0.4], [0.9, 0.1]], "x")
    return x, (symgrad.tanh(x @ x) * symgrad.exp(x)).sum()


def _is_pair(result):
    replacements, _ = result
    return isinstance(result, tuple) and all(
        isinstance(s, sp.Symbol) and isinstance(e, sp.Basic) for s, e in replacements
    )


@pytest.mark.slow
@pytest.mark.parametrize("function", ["expression", "gradient", "jacobian", "hessian"])
def test_cse_result_evaluates_like_the_inline_one(function):
    x, y = _cse_case()
    values = values_of([x])
    if function == "expression":
        inline, pair = expression(y), expression(y, cse=True)
    elif function == "gradient":
        inline, pair = gradient(y, x), gradient(y, x, cse=True)
    elif function == "jacobian":
        inline, pair = jacobian(symgrad.tanh(x @ x), x), jacobian(symgrad.tanh(x @ x), x, cse=True)
    else:
        inline, pair = hessian(y, x), hessian(y, x, cse=True)
    assert _is_pair(pair) and len(pair[0]) > 0
    if isinstance(inline, sp.MatrixBase):
        assert isinstance(pair[1], sp.MatrixBase) and pair[1].shape == inline.shape
    (cse_values,) = evaluate_cse(pair, values)
    assert_close(cse_values, evaluate_all(flat(inline), values))


def test_cse_gradient_of_a_list_gives_a_list():
    x, y = _cse_case()
    z = leaf(0.5, "z")
    replacements, grads = gradient(y * z, [x, z], cse=True)
    assert isinstance(grads, list) and len(grads) == 2
    assert grads[0].shape == (2, 2)


def _rational(x):
    return (x * x - 1) / (x - 1)  # x + 1 where x != 1


def test_simplify_option_simplifies_and_is_off_by_default():
    x = leaf(1.5, "x")
    X = symbols(x)
    plain = gradient(_rational(x), x)
    assert plain != 1  # the replayed rules, as they come
    assert sp.simplify(plain) == 1
    assert gradient(_rational(x), x, simplify=True) == 1
    assert expression(_rational(x)) != X + 1
    assert expression(_rational(x), simplify=True) == X + 1


def test_simplify_option_on_jacobian_and_hessian():
    x = leaf([0.5, 2.0], "x")
    assert jacobian(_rational(x), x) != sp.eye(2)
    assert jacobian(_rational(x), x, simplify=True) == sp.eye(2)
    assert hessian(_rational(x).sum(), x, simplify=True) == sp.zeros(2, 2)


# -- results have the inputs' shapes -----------------------------------------------------------


def test_gradient_results_have_the_inputs_shapes():
    s, v, m, t = (
        leaf(np.full(shape, 0.5), n)
        for shape, n in (((), "s"), ((3,), "v"), ((2, 3), "m"), ((2, 1, 2), "t"))
    )
    y = (s * v * m).sum() + t.sum() * s
    g_s, g_v, g_m, g_t = gradient(y, [s, v, m, t])
    assert isinstance(g_s, sp.Expr)
    assert isinstance(g_v, sp.NDimArray) and g_v.shape == (3,)
    assert isinstance(g_m, sp.MatrixBase) and g_m.shape == (2, 3)
    assert isinstance(g_t, sp.NDimArray) and g_t.shape == (2, 1, 2)


def test_gradient_of_an_unused_input_is_zero():
    x, u = leaf([1.0, 2.0], "x"), leaf([3.0, 4.0], "u")
    assert list(gradient((x * x).sum(), u)) == [0, 0]


def test_gradient_needs_a_one_element_output():
    x = leaf([1.0, 2.0], "x")
    with pytest.raises(ValueError, match="jacobian"):
        gradient(x * 2, x)


def test_gradient_by_an_unnamed_constant_is_a_clear_error():
    x, c = leaf([1.0, 2.0], "x"), leaf([3.0, 4.0], requires_grad=False)
    with pytest.raises(ValueError, match="unnamed constant"):
        gradient((x * c).sum(), c)


# -- named tensors that do not require grad ----------------------------------------------------


def test_gradient_by_a_named_constant_is_its_partial_derivative():
    x = leaf([1.0, 2.0], "x")
    y = leaf([3.0, 4.0], "y", requires_grad=False)
    s = (x * y).sum()
    expr = expression(s)
    g = gradient(s, y)
    assert [sp.diff(expr, v) for v in element_symbols(y)] == element_symbols(x)
    assert list(g) == element_symbols(x)


def test_jacobian_by_a_named_constant_is_its_partial_derivative():
    x = leaf([1.0, 2.0], "x")
    y = leaf([3.0, 4.0], "y", requires_grad=False)
    assert jacobian(x * y, y) == sp.diag(*element_symbols(x))

"""User-defined ops: ``symgrad.elementwise`` from a SymPy formula, and custom
``autograd.Function`` classes with and without a ``symbolic`` formula."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

import symgrad
from symgrad.autograd import Function, grad
from symgrad.symbolic import expression, gradient, symbols

from .support import (
    assert_close,
    check_against_diff,
    evaluate_all,
    flat,
    leaf,
    numeric_gradients,
    values_of,
)

EPS = 1e-6
FD_TOL = 1e-8  # central differences are accurate to about EPS**2 and rounding / EPS

softsign = symgrad.elementwise("softsign", lambda x: x / (1 + sp.Abs(x)))
SAMPLE = np.array([-1.7, -0.4, 0.3, 2.5])


def _central_difference(f, v):
    out = np.empty_like(v)
    for k in range(v.size):
        step = np.zeros_like(v)
        step[k] = EPS
        out[k] = (f(v + step) - f(v - step)) / (2 * EPS)
    return out


def _softsign_numpy(v):
    return v / (1 + np.abs(v))


# -- symgrad.elementwise -----------------------------------------------------------------------


def test_softsign_forward_is_the_formula():
    x = leaf(SAMPLE)
    y = softsign(x)
    assert y.grad_fn.name() == "SoftsignBackward0"
    assert_close(y.detach().numpy(), _softsign_numpy(SAMPLE))


def test_softsign_gradient_matches_finite_differences_and_closed_form():
    x = leaf(SAMPLE)
    softsign(x).sum().backward()
    fd = _central_difference(lambda v: _softsign_numpy(v).sum(), SAMPLE)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=FD_TOL, atol=FD_TOL)
    assert_close(x.grad.numpy(), 1 / (1 + np.abs(SAMPLE)) ** 2)


def test_softsign_double_backward():
    x = leaf(SAMPLE)
    (g,) = grad(softsign(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = grad(g.sum(), x)
    assert_close(gg.numpy(), -2 * np.sign(SAMPLE) / (1 + np.abs(SAMPLE)) ** 3)
    fd = _central_difference(lambda v: (1 / (1 + np.abs(v)) ** 2).sum(), SAMPLE)
    np.testing.assert_allclose(gg.numpy(), fd, rtol=FD_TOL, atol=FD_TOL)


def test_softsign_formula_and_derivative():
    (x,) = softsign.formula.free_symbols
    assert softsign.formula == x / (1 + sp.Abs(x))
    (d,) = softsign.derivatives
    assert sp.simplify(d - sp.diff(softsign.formula, x)) == 0


def test_softsign_closed_forms_in_a_graph_with_builtin_ops():
    w = leaf([[0.5, -1.0], [2.0, 0.25]], "w")
    x = leaf([0.7, -0.3], "x")
    y = (softsign(symgrad.matmul(w, x)) * symgrad.sin(x)).sum() + softsign(x).prod()
    W, X = symbols(w), symbols(x)
    z0 = W[0, 0] * X[0] + W[0, 1] * X[1]
    expr = expression(y)
    assert expr.has(z0 / (1 + sp.Abs(z0)))
    grads = gradient(y, [w, x])
    check_against_diff(expr, grads, [w, x], "softsign graph")
    values = values_of([w, x])
    for g, numeric in zip(grads, numeric_gradients(y, [w, x])):
        assert_close(evaluate_all(flat(g), values), numeric)


def test_elementwise_from_an_expression_with_two_inputs():
    a, b = sp.symbols("a b", real=True)
    hypot = symgrad.elementwise("hypot_sq", sp.sqrt(a**2 + b**2), inputs=[a, b])
    x, y = leaf([[3.0, 1.0], [0.5, 2.0]], "x"), leaf([4.0, 1.0], "y")
    out = hypot(x, y).sum()
    out.backward()
    r = np.hypot(x.detach().numpy(), y.detach().numpy())
    assert_close(x.grad.numpy(), x.detach().numpy() / r)
    assert_close(y.grad.numpy(), (y.detach().numpy() / r).sum(0))
    check_against_diff(expression(out), gradient(out, [x, y]), [x, y], "hypot")


def test_elementwise_rejects_strings():
    with pytest.raises(TypeError, match="strings"):
        symgrad.elementwise("softsign2", "x / (1 + abs(x))")


def test_elementwise_rejects_stray_symbols():
    k = sp.Symbol("k")
    with pytest.raises(ValueError, match="k"):
        symgrad.elementwise("scaled", lambda x: k * x)
    t = sp.Symbol("t")
    with pytest.raises(ValueError, match="k"):
        symgrad.elementwise("scaled2", k * t, inputs=[t])


def test_elementwise_rejects_bad_names_and_arity():
    with pytest.raises(ValueError, match="identifier"):
        symgrad.elementwise("soft sign", lambda x: x)
    with pytest.raises(TypeError, match="2 inputs"):
        symgrad.elementwise("pair", lambda x, y: x * y)(leaf([1.0]))


# -- custom autograd.Function ------------------------------------------------------------------


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x**2

    @staticmethod
    def symbolic(x):
        return x**3


class WeightedProduct(Function):
    """``x * y**2``: two inputs, a formula for the closed forms."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y**2

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y**2, g * 2 * x * y

    @staticmethod
    def symbolic(x, y):
        return x * y**2


class Mystery(Function):
    """No ``symbolic``: its closed form can only be an undefined function."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x


def test_function_with_symbolic_gives_closed_form_and_gradient():
    x = leaf([0.5, -1.5], "x")
    y = (Cube.apply(symgrad.sin(x)) * 2).sum()
    X = symbols(x)
    assert expression(y) == sum(2 * sp.sin(X[k]) ** 3 for k in range(2))
    assert list(gradient(y, x)) == [6 * sp.sin(X[k]) ** 2 * sp.cos(X[k]) for k in range(2)]
    values = values_of([x])
    assert_close(evaluate_all(list(gradient(y, x)), values), numeric_gradients(y, [x])[0])


def test_function_with_two_inputs_and_broadcasting():
    x, y = leaf([[0.5, 2.0], [1.0, -1.0]], "x"), leaf([1.5, -0.5], "y")
    out = (
        WeightedProduct.apply(x, y)
        * symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=symgrad.float64)
    ).sum()
    grads = gradient(out, [x, y])
    check_against_diff(expression(out), grads, [x, y], "weighted product")
    values = values_of([x, y])
    for g, numeric in zip(grads, numeric_gradients(out, [x, y])):
        assert_close(evaluate_all(flat(g), values), numeric)


def test_function_without_symbolic_is_an_undefined_function_named_after_the_class():
    x = leaf([0.5, -1.5], "x")
    expr = expression(Mystery.apply(x, x * 2).sum())
    undefined = expr.atoms(AppliedUndef)
    X = symbols(x)
    assert {f.func.__name__ for f in undefined} == {"Mystery"}
    assert sp.Function("Mystery")(X[0], 2 * X[0]) in undefined


def test_gradient_through_function_without_symbolic_names_the_class():
    x = leaf([0.5, -1.5], "x")
    y = Mystery.apply(x, x * 2).sum()
    with pytest.raises(ValueError, match="Mystery") as info:
        gradient(y, x)
    assert "symbolic" in str(info.value)


def test_gradient_not_through_the_function_still_works():
    x, z = leaf([0.5, -1.5], "x"), leaf(2.0, "z")
    y = Mystery.apply(x, x).sum() + z**2
    assert gradient(y, z) == 2 * symbols(z)


class SinCos(Function):
    """Two outputs, with a formula for each."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        (x,) = ctx.saved_tensors
        return g_sin * x.cos() - g_cos * x.sin()

    @staticmethod
    def symbolic(x):
        return sp.sin(x), sp.cos(x)


class Scale(Function):
    """A Python number argument, passed to ``symbolic`` as a SymPy number."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def symbolic(x, k):
        return x * k


@pytest.mark.parametrize("use", ["both", "second"])
def test_function_with_two_outputs(use):
    x = leaf([0.3, -0.8], "x")
    a, b = SinCos.apply(x)
    y = (b * 3).sum() if use == "second" else (a * 2 + b * b).sum()
    X = symbols(x)
    expected = [3 * sp.cos(s) if use == "second" else 2 * sp.sin(s) + sp.cos(s) ** 2 for s in X]
    assert sp.simplify(expression(y) - sum(expected)) == 0
    grads = gradient(y, x)
    assert all(sp.simplify(g - sp.diff(e, s)) == 0 for g, e, s in zip(grads, expected, X))
    assert_close(evaluate_all(list(grads), values_of([x])), numeric_gradients(y, [x])[0])


def test_function_with_a_number_argument():
    x = leaf([0.3, -0.8], "x")
    y = Scale.apply(x, 2.5).sum()
    X = symbols(x)
    assert expression(y) == sp.Rational(5, 2) * (X[0] + X[1])
    assert list(gradient(y, x)) == [sp.Rational(5, 2)] * 2


class Pair(Function):
    """Two outputs, no formula."""

    @staticmethod
    def forward(ctx, x):
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        return g_sin


def test_function_with_two_outputs_without_symbolic_names_each_output():
    x = leaf(0.3, "x")
    a, b = Pair.apply(x)
    X = symbols(x)
    assert expression(a + b) == sp.Function("Pair_0")(X) + sp.Function("Pair_1")(X)
    with pytest.raises(ValueError, match="Pair"):
        gradient(a + b, x)


def test_a_symbolic_method_returning_a_string_is_refused_not_parsed(tmp_path):
    target = tmp_path / "created"

    class Twice(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def symbolic(x):
            return f"__import__('pathlib').Path({str(target)!r}).touch()"

    x = symgrad.tensor(1.0, requires_grad=True, name="x")
    with pytest.raises(TypeError, match="strings are not parsed"):
        expression(Twice.apply(x))
    assert not target.exists()

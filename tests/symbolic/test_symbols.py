"""Which symbols and numbers tensors stand for in closed forms."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import expression, gradient, symbols

from .support import element_symbols, flat, leaf


def test_named_one_element_tensor_is_a_plain_symbol():
    for shape in ((), (1,), (1, 1)):
        a = leaf(np.full(shape, 2.0), "a")
        s = symbols(a)
        assert type(s) is sp.Symbol and s.name == "a"
        assert flat(expression(a * 3)) == [3 * s]


def test_named_matrix_has_indexed_symbols():
    w = leaf(np.arange(6.0).reshape(2, 3), "w")
    W = symbols(w)
    assert isinstance(W, sp.MatrixBase) and W.shape == (2, 3)
    assert str(W[0, 1]) == "w[0, 1]"
    assert sp.latex(W[0, 1]) == "w_{0,1}"
    assert len(set(W)) == 6


def test_named_vector_and_3d_tensor_have_indexed_symbols_of_their_shape():
    v, t = leaf([1.0, 2.0, 3.0], "v"), leaf(np.zeros((2, 1, 2)), "t")
    assert isinstance(symbols(v), sp.NDimArray) and symbols(v).shape == (3,)
    assert str(symbols(v)[2]) == "v[2]"
    assert symbols(t).shape == (2, 1, 2)
    assert str(symbols(t)[1, 0, 1]) == "t[1, 0, 1]"
    assert sp.latex(symbols(t)[1, 0, 1]) == "t_{1,0,1}"


def test_name_is_settable_and_given_at_creation():
    t = symgrad.tensor([1.0, 2.0], requires_grad=True)
    t.name = "p"
    assert t.name == "p" and str(element_symbols(t)[0]) == "p[0]"
    assert symgrad.tensor(1.0, name="q").name == "q"


def test_symbols_are_real():
    a, w = leaf(1.0, "a"), leaf([[1.0, 2.0]], "w")
    for s in [symbols(a), *element_symbols(w)]:
        assert s.is_real is True
        assert sp.conjugate(s) == s
        assert sp.im(s) == 0
    x = leaf(1.0)
    assert symbols(x).is_real is True


def test_unnamed_leaves_requiring_grad_get_stable_automatic_names():
    x, z = leaf([1.0, 2.0]), leaf(3.0)
    first = element_symbols(x)
    assert re.fullmatch(r"x_\d+\[0\]", str(first[0]))
    assert element_symbols(x) == first  # the same name on every call
    assert expression((x * 2).sum()).free_symbols == set(first)
    assert gradient((x * x).sum(), x)[0] == 2 * first[0]
    assert re.fullmatch(r"x_\d+", str(symbols(z)))
    assert symbols(z) not in first and str(symbols(z)) != str(first[0]).split("[")[0]


def test_automatic_names_do_not_clash_between_leaves():
    leaves = [leaf(float(k)) for k in range(5)]
    names = {str(symbols(t)) for t in leaves}
    assert len(names) == 5


def test_named_tensor_not_requiring_grad_is_symbolic():
    x = leaf([1.0, 2.0], "x")
    y = leaf([3.0, 4.0], "y", requires_grad=False)
    expr = expression((x * y).sum())
    X, Y = element_symbols(x), element_symbols(y)
    assert expr == X[0] * Y[0] + X[1] * Y[1]
    assert list(gradient((x * y).sum(), x)) == Y


def test_symbols_rejects_non_leaves_and_unnamed_constants():
    x = leaf([1.0], "x")
    with pytest.raises(ValueError, match="expression"):
        symbols(x * 2)
    with pytest.raises(ValueError, match="name"):
        symbols(symgrad.tensor([1.0]))
    with pytest.raises(TypeError):
        symbols(np.ones(2))


def _constant_expression(values, **options):
    x = leaf(np.ones(len(values)), "x")
    c = symgrad.tensor(values, dtype=symgrad.float64)
    return expression((x * c).sum(), **options), element_symbols(x)


def test_unnamed_constants_are_exact_numbers():
    expr, X = _constant_expression([2.0, 0.1, 0.25, -1.5])
    coefficients = [expr.coeff(s) for s in X]
    assert coefficients == [2, sp.Rational(1, 10), sp.Rational(1, 4), sp.Rational(-3, 2)]
    assert all(isinstance(c, (sp.Integer, sp.Rational)) for c in coefficients)


def test_integer_tensor_constants_are_integers():
    x = leaf([1.0, 1.0], "x")
    expr = expression((x * symgrad.tensor([3, -4])).sum())
    X = element_symbols(x)
    assert [expr.coeff(s) for s in X] == [3, -4]
    assert all(isinstance(expr.coeff(s), sp.Integer) for s in X)


def test_long_decimal_constants_are_floats_of_the_value():
    third = 1.0 / 3.0
    expr, X = _constant_expression([third])
    c = expr.coeff(X[0])
    assert isinstance(c, sp.Float) and float(c) == third


def test_as_float_gives_floats():
    expr, X = _constant_expression([0.1, 0.25], as_float=True)
    coefficients = [expr.coeff(s) for s in X]
    assert all(isinstance(c, sp.Float) for c in coefficients)
    assert [float(c) for c in coefficients] == [0.1, 0.25]


def test_python_number_operands_are_exact():
    x = leaf(1.0, "x")
    X = symbols(x)
    assert expression(x * 0.1 + 3) == X / 10 + 3
    assert expression(x**2 * 0.5) == X**2 / 2


def _next_automatic_number():
    return int(str(symbols(leaf(0.0))).rpartition("_")[2]) + 1


def test_automatic_names_skip_the_names_users_gave():
    taken = f"x_{_next_automatic_number()}"
    a = leaf(2.0, taken)
    b = leaf(3.0)
    A = sp.Symbol(taken, real=True)
    assert str(symbols(b)) != taken
    assert gradient(a * b, [a, b]) == [symbols(b), A]
    # a name given after the leaf is made counts too
    c = leaf(4.0)
    c_name = f"x_{_next_automatic_number()}"
    d = leaf(5.0)
    d.name = c_name
    assert str(symbols(c)) != c_name
    assert gradient(c * d, [c, d]) == [sp.Symbol(c_name, real=True), symbols(c)]


def test_automatic_model_paths_skip_the_names_users_gave():
    layer = symgrad.nn.Linear(1, 1)
    w = leaf(2.0, "bias")
    assert str(symbols(layer.bias)) == "bias_2"
    assert expression((layer.bias * w).sum()) == symbols(layer.bias) * symbols(w)

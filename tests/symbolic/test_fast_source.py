"""The fast builders and printer of closed forms give what SymPy's own constructors and
``lambdify`` give: the same expressions (argument order included), the same numbers."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.prim import kernels
from symgrad.prim.special import logsumexp, sigmoid
from symgrad.prim.sympy_build import apply, product, real_symbol, total
from symgrad.prim.sympy_xp import ElementSymbol
from symgrad.symbolic import codegen, compile_gradient, gradient, lambdify
from symgrad.symbolic.fast_source import numpy_program

X = sp.symbols("x0:6", real=True)
Y = sp.symbols("y0:3")
POOL = [
    *X,
    *Y,
    sp.sin(X[0]),
    sp.cos(X[1] * X[2]),
    sp.exp(X[3]),
    X[0] ** 2,
    sp.Integer(2),
    sp.Rational(1, 2),
    sp.Integer(-3),
    sp.Float(1.5),
    sp.Integer(0),
    -X[1],
    3 * X[2],
    -X[0] * X[3],
    sp.tanh(X[4] + X[5]),
    sp.Abs(X[2]),
    sp.sign(X[2]),
    sp.Piecewise((X[0], X[1] > 0), (0, True)),
    X[0] + X[1],
    1 - sp.tanh(X[4]) ** 2,
    (X[2] + X[3]) ** 2,
    sp.sqrt(X[1]),
    sp.sin(X[0]) ** 2,
    X[1] ** -1,
    sp.sqrt(2),
    (X[0] * X[1]) ** sp.Rational(1, 3),
    sp.exp(X[1]) ** 2,
]


def _same(a, b) -> None:
    assert a == b and a.args == b.args and sp.srepr(a) == sp.srepr(b) and hash(a) == hash(b)


def test_product_and_total_build_what_mul_and_add_build():
    rng = random.Random(0)
    for _ in range(1500):
        args = [rng.choice(POOL) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.3:
            args.insert(0, sp.Mul(rng.choice(POOL), rng.choice(POOL)))
        _same(product(tuple(args)), sp.Mul(*args))
        terms = [
            sp.Mul(*(rng.choice(POOL) for _ in range(rng.randint(1, 3))))
            for _ in range(rng.randint(1, 4))
        ]
        _same(total(terms), sp.Add(*terms))


def test_products_the_replay_builds_take_the_direct_route():
    a, b, c = X[:3]
    _same(product((a, sp.sin(b))), sp.Mul(a, sp.sin(b)))
    _same(product((c * sp.cos(a * b), b)), sp.Mul(c * sp.cos(a * b), b))
    _same(product((sp.Integer(2), a, b)), 2 * a * b)
    _same(total([a * sp.cos(b), b * sp.cos(a), 2 * a]), a * sp.cos(b) + b * sp.cos(a) + 2 * a)
    # alike terms are collected, as Add collects them
    assert total([a * b, 2 * a * b]) == 3 * a * b
    assert product((a, a)) == a**2


def test_real_symbol_is_the_symbol_the_constructor_makes():
    made = real_symbol(ElementSymbol, "w[0, 1]")
    expected = ElementSymbol("w[0, 1]", real=True)
    _same(made, expected)
    assert made._assumptions == expected._assumptions
    assert made.is_real and made.is_positive is None
    assert sp.sqrt(made**2) == sp.Abs(expected)
    assert sp.latex(made) == "w_{0,1}"
    other = real_symbol(ElementSymbol, "w[0, 2]")
    assert other._assumptions is not made._assumptions  # facts learnt later stay apart


a, b, c = sp.symbols("a b c", real=True)
PRINTED = [
    (a * b) ** 2,
    (a**2) ** sp.Rational(3, 2),
    -((a + b) ** 2),
    a ** sp.Rational(3, 2),
    1 / sp.sqrt(a),
    sp.Rational(1, 2) * a**2,
    a / (b * c),
    -1 / a,
    (a + b) / (a - b),
    sp.sin(-a * b),
    sp.Rational(-3, 4) * a * b / c**3,
    a - sp.Rational(1, 2) - b * c,
    sp.Float(0.25) * a - 2,
    (sp.Rational(1, 3) * a) ** 2,
    sp.atan2(a, b) + sp.Abs(a - b),
    sp.log(1 + sp.exp(a)),  # printed through the stable forms: softplus
    sp.exp(a) / (sp.exp(a) + sp.exp(b)),
    sigmoid(a) * logsumexp(a, b),
    sp.pi * a + sp.E,
    sp.cos(a * b) * sp.cos(a * b) + sp.sin(a * b) * sp.cos(a * b),
]


@pytest.mark.parametrize("k", range(len(PRINTED)))
def test_the_fast_printer_computes_what_sympy_lambdify_computes(k):
    expr = PRINTED[k]
    names = {a: "a0", b: "a1", c: "a2"}
    found = numpy_program([], [expr], names, ["a0", "a1", "a2"])
    assert found is not None, expr
    source, fn = found
    compile(source, "<test>", "exec")
    point = (0.7, -0.4, 1.3)
    theirs = sp.lambdify((a, b, c), expr, modules=kernels.MODULES)(*point)
    np.testing.assert_allclose(fn(*point)[0], theirs, rtol=1e-13)


def test_shared_sub_terms_are_computed_once():
    shared = sp.cos(a * b)
    source, _ = numpy_program([], [shared * a, shared * b], {a: "a0", b: "a1"}, ["a0", "a1"])
    assert source.count("cos(") == 1, source


@pytest.mark.parametrize("expr", [sp.Piecewise((a, b > 0), (0, True)), sp.Max(a, b), a**b])
def test_what_the_fast_printer_does_not_know_is_left_to_sympy(expr):
    assert numpy_program([], [expr], {a: "a0", b: "a1"}, ["a0", "a1"]) is None
    f = lambdify(expr, [a, b])
    point = (0.7, 0.4)
    assert np.isclose(f(*point), sp.lambdify((a, b), expr)(*point))


def test_complex_infinity_is_printed_as_nan():
    # a constant folded into 1/0 or log(0): undefined, nan as a real number, on either route
    for expr in (a * sp.zoo + sp.sin(b), sp.Piecewise((a * sp.zoo, b > 0), (a, True))):
        f = lambdify(expr, [a, b])
        assert np.isnan(f(0.7, 0.4)), expr
    source, fn = numpy_program([], [a * sp.zoo + 1], {a: "a0"}, ["a0"])
    assert "nan" in source and np.isnan(fn(2.0)[0])


def test_complex_numbers_are_left_to_sympy():
    assert numpy_program([], [sp.I * a], {a: "a0"}, ["a0"]) is None


def test_unknown_symbols_are_named():
    with pytest.raises(ValueError, match="not among the leaves"):
        numpy_program([], [a * b], {a: "a0"}, ["a0"])


def _sum_graph(n: int):
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.uniform(-1, 1, n + 1), requires_grad=True, name="x")
    w = symgrad.tensor(rng.uniform(-1, 1, n), name="w")
    return x, w, (w * symgrad.sin(x[:-1] * x[1:])).sum() + (x * x).sum()


def test_compiled_gradient_agrees_with_sympys_route_and_the_engine(monkeypatch):
    x, w, y = _sum_graph(30)
    fast = compile_gradient(y, x)
    monkeypatch.setattr(codegen, "numpy_program", lambda *args: None)
    slow = compile_gradient(y, x)
    point = [x.detach().numpy(), w.numpy()]
    np.testing.assert_allclose(fast(*point), slow(*point), rtol=1e-13)
    (expected,) = symgrad.autograd.grad(y, x)
    np.testing.assert_allclose(fast(*point), expected.numpy(), rtol=1e-13)
    assert "c_source" in dir(fast) and "void f(" in fast.c_source()


def test_gradient_of_the_sum_matches_sympy_diff():
    x, w, y = _sum_graph(6)
    xs = [sp.Symbol(f"x[{i}]", real=True) for i in range(7)]
    ws = [sp.Symbol(f"w[{i}]", real=True) for i in range(6)]
    formula = sum(ws[i] * sp.sin(xs[i] * xs[i + 1]) for i in range(6)) + sum(v**2 for v in xs)
    ours = gradient(y, x)
    by_name = {str(s): s for e in ours for s in e.free_symbols}
    for k in range(7):
        theirs = sp.diff(formula, xs[k])
        theirs = theirs.xreplace({s: by_name[str(s)] for s in theirs.free_symbols})
        assert sp.expand(ours[k] - theirs) == 0


def test_apply_builds_relations_and_functions_alike():
    x, y = X[0], X[1]
    for _ in range(2):  # the second call takes the direct route where there is one
        assert apply(sp.Eq, (x, y)) == sp.Eq(x, y)
        _same(apply(sp.sin, (x * y,)), sp.sin(x * y))
        _same(apply(sp.atan2, (x, y)), sp.atan2(x, y))
    assert apply(sp.sin, (-x,)) == -sp.sin(x)

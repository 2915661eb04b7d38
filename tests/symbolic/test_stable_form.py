"""The stable functions (sigmoid, softplus, logsumexp) and the rewriting that brings them into
generated code: each kernel agrees with its formula and stays finite at the extremes, each
rewrite is an identity, and expressions with nothing to protect are left alone."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad.prim import kernels
from symgrad.prim.special import logsumexp, sigmoid, softplus
from symgrad.symbolic.stable import stable_form

x, y, z = sp.symbols("x y z", real=True)
KERNELS = kernels.MODULES[0]

MODERATE = np.array([-30.0, -2.5, -0.5, 0.0, 0.75, 3.0, 30.0])
EXTREME = np.array([-1e308, -1000.0, 1000.0, 1e308])


def _exact(expr, args, grids) -> np.ndarray:
    """``expr`` at every point of the grids, to 40 digits, rounded to float64 (inf where the
    value is beyond float64)."""

    def one(values):
        v = expr.evalf(40, subs={a: sp.Float(float(v), 40) for a, v in zip(args, values)})
        return float(v) if abs(v) < sp.Float("1.7e308") else float(sp.sign(v)) * np.inf

    points = zip(*(g.ravel() for g in grids))
    return np.array([one(p) for p in points]).reshape(grids[0].shape)


@pytest.mark.parametrize(
    "function, arity", [(sigmoid, 1), (softplus, 1), (logsumexp, 2), (logsumexp, 3)]
)
def test_kernel_agrees_with_the_formula_and_stays_finite(function, arity):
    args = sp.symbols(f"u0:{arity}", real=True)
    formula = function(*args).rewrite(sp.exp)
    kernel = KERNELS[function.__name__]
    grids = np.meshgrid(*([MODERATE] * arity), indexing="ij")
    np.testing.assert_allclose(kernel(*grids), _exact(formula, args, grids), rtol=1e-14, atol=0)
    extremes = np.meshgrid(*([EXTREME] * arity), indexing="ij")
    with np.errstate(over="ignore"):  # inside logaddexp at 1e308, not in its result
        assert np.isfinite(kernel(*extremes)).all()


def test_kernels_at_infinities_and_nan_are_pytorchs():
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(KERNELS["sigmoid"](np.array([-inf, inf])), [0.0, 1.0])
    np.testing.assert_array_equal(KERNELS["softplus"](np.array([-inf, inf])), [0.0, inf])
    with np.errstate(invalid="ignore"):
        lse = KERNELS["logsumexp"](np.array([-inf, inf, 0.0, nan]), np.array([-inf, 0.0, inf, 0.0]))
    np.testing.assert_array_equal(lse, [-inf, inf, inf, nan])


def test_kernels_keep_float32():
    v = np.array([-100.0, 0.0, 100.0], dtype=np.float32)
    for name in ("sigmoid", "softplus"):
        assert KERNELS[name](v).dtype == np.float32
    assert KERNELS["logsumexp"](v, v).dtype == np.float32


def test_derivatives_are_pytorchs_forms():
    assert sp.diff(softplus(x), x) == sigmoid(x)
    assert sp.diff(logsumexp(x, y), x) == sp.exp(x - logsumexp(x, y))
    for f in (softplus(x), logsumexp(x, y, z), sigmoid(x)):
        for v in f.free_symbols:
            exact = sp.diff(f.rewrite(sp.exp), v)
            ours = sp.diff(f, v).rewrite(sp.exp)
            assert sp.simplify(exact - ours) == 0, (f, v)


def test_numbers_evaluate():
    assert softplus(sp.Integer(0)) == sp.log(2)
    assert logsumexp(sp.Integer(0), sp.Integer(0)) == sp.log(2)
    assert float(logsumexp(x, y).subs({x: 1, y: 2}).evalf()) == pytest.approx(
        np.logaddexp(1.0, 2.0), rel=1e-15
    )
    with pytest.raises(TypeError, match="two or more"):
        logsumexp(x)


REWRITES = [
    # (expression, what it becomes)
    (1 / (1 + sp.exp(-x)), sigmoid(x)),
    (sp.exp(-x) / (1 + sp.exp(-x)), sigmoid(-x)),
    (sp.exp(x) / (1 + sp.exp(x)), sigmoid(x)),
    (sp.exp(-x) / (1 + sp.exp(-x)) ** 2, sigmoid(x) * sigmoid(-x)),
    (sp.exp(2 * x) / (1 + sp.exp(x)) ** 3, sigmoid(x) ** 2 * sigmoid(-x)),
    (sp.log(1 + sp.exp(-x)), softplus(-x)),
    (sp.log(sp.exp(x) + sp.exp(y)), logsumexp(x, y)),
    (sp.log(2 + sp.exp(x)), logsumexp(sp.log(2), x)),
    (sp.exp(x) / (sp.exp(x) + sp.exp(y) + sp.exp(z)), sp.exp(x - logsumexp(x, y, z))),
    (1 / (sp.exp(x) + sp.exp(y)) ** 2, sp.exp(-2 * logsumexp(x, y))),
    (y * (1 - y) - x * sp.exp(-x) / (1 + sp.exp(-x)), y * (1 - y) - x * sigmoid(-x)),
]


@pytest.mark.parametrize("expr, expected", REWRITES, ids=[str(e) for e, _ in REWRITES])
def test_rewrites(expr, expected):
    got = stable_form(expr)
    assert got == expected
    # an identity, evaluated to full precision at moderate points and at +-1000
    args = sorted(expr.free_symbols, key=str)
    compiled = kernels.lambdify(args, got)
    points = np.concatenate([MODERATE, EXTREME[1:-1]])
    grids = np.meshgrid(*([points] * len(args)), indexing="ij")
    with np.errstate(over="ignore"):
        values = np.broadcast_to(compiled(*grids), grids[0].shape)
    np.testing.assert_allclose(values, _exact(expr, args, grids), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize(
    "expr",
    [
        sp.log(1 - sp.exp(x)),  # a difference of exponentials: nothing to shift
        sp.log(x + sp.exp(y)),  # a term that is not an exponential
        1 / (1 + sp.exp(2)),  # numbers: evaluated once, exactly
        sp.exp(x) * sp.sin(y),
        (1 + sp.exp(x)) ** 2,
        sp.Piecewise((x, x > 0), (sp.exp(x), True)),
    ],
)
def test_nothing_to_protect_is_left_alone(expr):
    assert stable_form(expr) == expr


def test_a_string_is_refused_not_parsed():
    with pytest.raises(TypeError, match="not a string"):
        stable_form('__import__("os").getcwd()')

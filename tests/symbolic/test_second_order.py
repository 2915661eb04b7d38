"""Hessians by forward mode over the assignment form, and the fast SymPy builders they use."""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad
from symgrad.prim.sympy_build import apply, substitute
from symgrad.symbolic import hessian, symbols
from symgrad.symbolic.second_order import _times

from .support import assert_close, evaluate_all, evaluate_cse, flat, leaf, values_of


def _sin_sum(x):
    return (x[:-1] * x[1:]).sin().sum() + (x * x).sum()


def test_hessian_of_the_sin_sum_is_sympys_hessian():
    x = leaf(np.linspace(-1, 1, 6), "x")
    xs = list(symbols(x))
    f = sum(sp.sin(xs[i] * xs[i + 1]) for i in range(5)) + sum(v**2 for v in xs)
    assert (hessian(_sin_sum(x), x) - sp.hessian(f, xs)).expand() == sp.zeros(6, 6)


def test_assignment_form_hessian_is_sparse_and_agrees_with_inline():
    x = leaf(np.linspace(-1, 1, 40), "x")
    definitions, H = hessian(_sin_sum(x), x, cse=True)
    assert H.shape == (40, 40) and H[0, 2] == 0 and H[39, 0] == 0
    inline = hessian(_sin_sum(x), x)
    (found,) = evaluate_cse((definitions, H), values_of([x]))
    assert_close(found, evaluate_all(flat(inline), values_of([x])))


def test_hessian_blocks_with_a_named_matrix():
    rng = np.random.default_rng(3)
    W = symgrad.tensor(rng.standard_normal((3, 3)), dtype=symgrad.float64, name="W")
    x = leaf(rng.standard_normal(3), "x")
    (hxx, hxw), (hwx, hww) = hessian((W @ x).tanh().sum(), [x, W])
    assert hxx.shape == (3, 3) and hxw.shape == (3, 9) and hww.shape == (9, 9)
    assert (hxw - hwx.T).expand() == sp.zeros(3, 9)


def test_times_is_sympys_product():
    x, y, z = sp.symbols("x y z", real=True)
    big = -2 * y * sp.tanh(x + y) * (1 - sp.tanh(x + y) ** 2)
    for p, t in ((z, big), (x, big), (y, big), (z, x + y), (z, sp.sqrt(2) * x), (z, 3 * x**2)):
        found = _times(p, t)
        assert found == p * t and found.args == (p * t).args


def test_apply_and_substitute_build_what_sympy_builds():
    x, y, u = sp.symbols("x y u", real=True)
    for func in (sp.sin, sp.cos, sp.tanh, sp.exp, sp.log):
        for arg in (x * y, x + y, -x, x - y, sp.Integer(0), x * y, 2 * x, x + x * y):
            found = apply(func, (arg,))
            assert found == func(arg) and found.args == func(arg).args
    assert substitute(sp.sin(u) * u, {u: x * y}) == (sp.sin(u) * u).xreplace({u: x * y})

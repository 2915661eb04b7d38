"""Every element-wise primitive in ``REGISTRY``, through the symbolic layer.

The tests iterate over the registry, so a new primitive gets its closed-form tests by being
declared, sampled in the domain declared with it (with its first parameter set). Inputs are
named float64 leaves ``x0`` of shape (2, 3) and ``x1``, ``x2`` of shape (3,) (broadcast, so the
gradient is summed back to the input's shape).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad.ops.elementwise import REGISTRY
from symgrad.prim.domains import KINDS
from symgrad.symbolic import expression, gradient

from .support import (
    assert_close,
    element_symbols,
    evaluate,
    flat,
    leaf,
    numeric_gradients,
    perturbed,
    rng_for,
    scalarise,
    values_of,
)


def _params(prim) -> tuple:
    """The first parameter set declared in the primitive's domain (``()`` without parameters)."""
    sets = prim.domain.params
    return sets[0] if sets else ()


def _traced(name):
    prim = REGISTRY[name]
    rng = rng_for("registry/" + name)
    kinds = prim.domain.kinds(tuple(str(x) for x in prim.inputs))
    shapes = [(2, 3)] + [(3,)] * (len(prim.inputs) - 1)
    xs = [leaf(KINDS[k](rng, shape, i), f"x{i}") for i, (k, shape) in enumerate(zip(kinds, shapes))]
    out = prim(*xs, params=_params(prim))
    if not np.all(np.isfinite(out.detach().numpy())):
        pytest.fail(f"{name}: its samples leave its domain; declare the domain with the op")
    return prim, xs, out, scalarise(out, rng)


# differences with more operations than this are compared numerically at the samples:
# simplify takes minutes on some (mish), and proves nothing a wrong formula could pass there
_SIMPLIFIABLE = 40


def _is_zero(difference) -> bool:
    """Whether a difference of closed forms simplifies to 0 (``sigmoid`` rewritten with ``exp``,
    ``sign`` and ``Abs`` as the ``Piecewise`` the rules use, which ``simplify`` alone does not
    see through)."""
    if difference == 0 or sp.simplify(difference) == 0:
        return True
    if sp.simplify(difference.rewrite(sp.exp)) == 0:  # sigmoid(x) as 1 / (1 + exp(-x))
        return True
    return sp.simplify(sp.piecewise_fold(difference.rewrite(sp.Piecewise))) == 0


def test_every_parameterised_primitive_has_a_sample():
    missing = [n for n, p in REGISTRY.items() if p.params and not p.domain.params]
    assert not missing, f"declare parameter values in the domain of {missing}"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_expression_is_the_formula_per_element(name):
    prim, xs, out, _ = _traced(name)
    closed = flat(expression(out))
    syms = [element_symbols(x) for x in xs]
    values = values_of(xs, syms)
    assert_close([evaluate(e, values) for e in closed], out.detach().numpy().reshape(-1))
    # element (i, j) of the output is the primitive's formula of the broadcast elements
    params = _params(prim)
    fixed = dict(zip(prim.params, (sp.Rational(str(v)) for v in params)))
    for i, j in np.ndindex(2, 3):
        args = [syms[0][3 * i + j]] + [s[j] for s in syms[1:]]
        formula = prim.expr.xreplace(fixed).xreplace(dict(zip(prim.inputs, args)))
        assert _is_zero(closed[3 * i + j] - formula), (closed[3 * i + j], formula)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_gradient_is_sympy_diff_of_expression(name):
    prim, xs, _, y = _traced(name)
    expr, grads = expression(y), gradient(y, xs)
    syms = [element_symbols(x) for x in xs]
    values = values_of(xs, syms)
    for symbols_x, g in zip(syms, grads):
        for s, g_s in zip(symbols_x, flat(g)):
            reference = sp.diff(expr, s)
            if prim.exact and sp.count_ops(g_s - reference) <= _SIMPLIFIABLE:
                assert _is_zero(g_s - reference), (s, g_s, reference)
            else:
                # a declared subgradient (sign's 0 where diff gives a Dirac delta): equal away
                # from the kink, which the samples avoid; and a difference too large for
                # simplify to settle in reasonable time (mish: tanh of log(1 + exp(x)) against
                # its sigmoid form) is compared at the samples as well
                for point in (values, perturbed(values, name)):
                    assert_close(evaluate(g_s, point), evaluate(reference, point))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_gradient_evaluates_to_engine_gradient(name):
    _, xs, _, y = _traced(name)
    grads = gradient(y, xs)
    values = values_of(xs)
    for x, g, numeric in zip(xs, grads, numeric_gradients(y, xs)):
        assert_close([evaluate(e, values) for e in flat(g)], numeric, f"{name}: d/d{x.name}")

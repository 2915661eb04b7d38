"""Every element-wise primitive in ``REGISTRY``, through the symbolic layer.

The tests iterate over the registry, so a new primitive gets its closed-form tests by being
declared; it needs a line in ``SAMPLES`` only when its inputs have a restricted domain or it
takes parameters. Inputs are named float64 leaves ``x0`` of shape (2, 3) and ``x1``, ``x2`` of
shape (3,) (broadcast, so the gradient is summed back to the input's shape).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp

from symgrad.ops.elementwise import REGISTRY
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


def _any(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def _positive(rng, shape):
    return rng.uniform(0.3, 2.0, shape)


def _away(rng, shape):
    """|v| in (0.2, 1.2): clear of the kinks at 0 and of tan's poles."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 1.2, shape)


def _probability(rng, shape):
    return rng.uniform(0.05, 0.95, shape)


def _condition(rng, shape):
    return rng.integers(0, 2, shape).astype(np.float64)


def _bounded(rng, shape):
    """At least 0.1 from the bounds -0.5 and 0.5 used as parameters below."""
    return rng.choice([-1.2, -0.2, 0.25, 1.1], shape) + rng.uniform(-0.05, 0.05, shape)


def _distinct(offset):
    """Values 0.2 apart, shifted by ``offset`` so that two inputs never tie."""

    def sample(rng, shape):
        n = int(np.prod(shape))
        return rng.permutation(np.linspace(-2.0, 2.0, n) + offset).reshape(shape)

    return sample


@dataclass(frozen=True)
class Sample:
    """Samplers of a primitive's inputs (``_any`` for the missing ones) and its parameters."""

    inputs: tuple = ()
    params: tuple = ()


SAMPLES = {
    "div": Sample((_any, _away)),
    "pow": Sample((_positive,), (2.5,)),
    "pow_tensor": Sample((_positive, _any)),
    "pow_scalar_base": Sample((_any,), (1.5,)),
    "reciprocal": Sample((_away,)),
    "log": Sample((_positive,)),
    "log1p": Sample((_positive,)),
    "sqrt": Sample((_positive,)),
    "rsqrt": Sample((_positive,)),
    "tan": Sample((_away,)),
    "abs": Sample((_away,)),
    "sign": Sample((_away,)),
    "relu": Sample((_away,)),
    "leaky_relu": Sample((_away,), (0.2,)),
    "elu": Sample((_away,), (0.5,)),
    "clamp": Sample((_bounded,), (-0.5, 0.5)),
    "clamp_min": Sample((_bounded,), (-0.5,)),
    "clamp_max": Sample((_bounded,), (0.5,)),
    "maximum": Sample((_distinct(0.0), _distinct(0.05))),
    "minimum": Sample((_distinct(0.0), _distinct(0.05))),
    "where": Sample((_condition, _any, _any)),
    "softplus": Sample((_bounded,), (2.0, 1.5)),
    "bce_with_logits": Sample((_any, _probability, _positive)),
    "bce": Sample((_probability, _probability)),
}


def _traced(name):
    prim, sample = REGISTRY[name], SAMPLES.get(name, Sample())
    rng = rng_for("registry/" + name)
    samplers = sample.inputs + (_any,) * (len(prim.inputs) - len(sample.inputs))
    shapes = [(2, 3)] + [(3,)] * (len(prim.inputs) - 1)
    xs = [leaf(s(rng, shape), f"x{i}") for i, (s, shape) in enumerate(zip(samplers, shapes))]
    out = prim(*xs, params=sample.params)
    if not np.all(np.isfinite(out.detach().numpy())):
        pytest.fail(f"{name}: the default samples leave its domain; add it to SAMPLES")
    return prim, xs, out, scalarise(out, rng)


def _is_zero(difference) -> bool:
    """Whether a difference of closed forms simplifies to 0 (``sign`` and ``Abs`` rewritten as
    the ``Piecewise`` the rules use, which ``simplify`` alone does not see through)."""
    if difference == 0 or sp.simplify(difference) == 0:
        return True
    return sp.simplify(sp.piecewise_fold(difference.rewrite(sp.Piecewise))) == 0


def test_every_parameterised_primitive_has_a_sample():
    missing = [n for n, p in REGISTRY.items() if p.params and n not in SAMPLES]
    assert not missing, f"add parameters for {missing} to SAMPLES"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_expression_is_the_formula_per_element(name):
    prim, xs, out, _ = _traced(name)
    closed = flat(expression(out))
    syms = [element_symbols(x) for x in xs]
    values = values_of(xs, syms)
    assert_close([evaluate(e, values) for e in closed], out.detach().numpy().reshape(-1))
    # element (i, j) of the output is the primitive's formula of the broadcast elements
    params = SAMPLES.get(name, Sample()).params
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
            if prim.exact:
                assert _is_zero(g_s - reference), (s, g_s, reference)
            else:
                # a declared subgradient (sign's 0 where diff gives a Dirac delta): equal away
                # from the kink, which the samples avoid
                for point in (values, perturbed(values, name)):
                    assert_close(evaluate(g_s, point), evaluate(reference, point))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_gradient_evaluates_to_engine_gradient(name):
    _, xs, _, y = _traced(name)
    grads = gradient(y, xs)
    values = values_of(xs)
    for x, g, numeric in zip(xs, grads, numeric_gradients(y, xs)):
        assert_close([evaluate(e, values) for e in flat(g)], numeric, f"{name}: d/d{x.name}")

"""The per-op gradient test: gradcheck and gradgradcheck over every op in the op table and over
every element-wise primitive in the registry, in float64, on several shapes with broadcasting.

The op table (``tests/ops/op_db.py``) says how each public op is called and where its inputs
may lie (away from kinks, poles and ties). The registry part calls each primitive directly, so
a newly declared primitive is checked without anyone writing a test for it; one with a
restricted domain or parameters needs an entry in ``DOMAINS`` below (the test says so).
"""

from __future__ import annotations

import numpy as np
import pytest
from ops.op_db import OP_DB  # tests/ is on the import path, as for tests/ops itself

import symgrad
from symgrad.autograd import gradcheck, gradgradcheck
from symgrad.ops.elementwise import REGISTRY


def _leaves(arrays) -> tuple:
    return tuple(symgrad.tensor(a, dtype=symgrad.float64, requires_grad=True) for a in arrays)


# -- the op table ---------------------------------------------------------------------------------


@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_gradcheck_and_gradgradcheck(op):
    inputs = _leaves(op.sample())

    def f(*xs):
        return op.fn(symgrad, *xs)

    assert gradcheck(f, inputs)
    assert gradcheck(f, inputs, fast_mode=True)
    assert gradgradcheck(f, inputs)


# -- every element-wise primitive -----------------------------------------------------------------


def _uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def _away(rng, shape):
    """|v| in (0.2, 2): clear of the kinks and poles at 0."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 2.0, shape)


def _clear_of_bounds(rng, shape):
    """At least 0.1 from -0.5 and 0.5, the clamp bounds used below."""
    return rng.choice([-1.2, -0.2, 0.25, 1.1], shape) + rng.uniform(-0.08, 0.08, shape)


def _condition(rng, shape):
    return rng.integers(0, 2, shape).astype(np.float64)


ANY, POSITIVE, UNIT = _uniform(-2, 2), _uniform(0.3, 2), _uniform(0.05, 0.95)

# {name: (one sampler per input, params)}; a sampler of None marks a constant input
DOMAINS = {
    "div": ((ANY, _away), ()),
    "pow": ((POSITIVE,), (2.5,)),
    "pow_tensor": ((POSITIVE, ANY), ()),
    "pow_scalar_base": ((ANY,), (1.5,)),
    "reciprocal": ((_away,), ()),
    "log": ((POSITIVE,), ()),
    "log1p": ((POSITIVE,), ()),
    "sqrt": ((POSITIVE,), ()),
    "rsqrt": ((POSITIVE,), ()),
    "tan": ((_uniform(-1.2, 1.2),), ()),
    "abs": ((_away,), ()),
    "sign": ((_away,), ()),
    "relu": ((_away,), ()),
    "leaky_relu": ((_away,), (0.2,)),
    "elu": ((_away,), (0.5,)),
    "clamp": ((_clear_of_bounds,), (-0.5, 0.5)),
    "clamp_min": ((_clear_of_bounds,), (-0.5,)),
    "clamp_max": ((_clear_of_bounds,), (0.5,)),
    "where": ((_condition, ANY, ANY), ()),  # the condition is a constant 0/1 mask
    "softplus": ((ANY,), (1.5, 2.0)),  # both branches of the threshold are sampled
    "bce": ((UNIT, UNIT), ()),
    "bce_with_logits": ((ANY, UNIT, POSITIVE), ()),
    "bce_with_logits_plain": ((ANY, UNIT), ()),
}
CONSTANT_INPUTS = {"where": (0,)}

# one shape per input position (a unary primitive takes the first): shapes that broadcast to
# (2, 3), or 0-d tensors; the op table covers more shapes, through the public ops
SHAPES = {"broadcast": [(2, 3), (3,), (2, 1)], "0-d": [()] * 3}


def _sample(name: str, prim, shapes: list, rng) -> tuple[list, tuple]:
    samplers, params = DOMAINS.get(name, ((ANY,) * len(prim.inputs), ()))
    if prim.params and not params:
        pytest.fail(f"primitive {name!r} takes parameters: give sample values in DOMAINS")
    assert len(samplers) == len(prim.inputs), f"DOMAINS[{name!r}] has the wrong arity"
    constant = CONSTANT_INPUTS.get(name, ())
    args = [
        symgrad.tensor(s(rng, shape), dtype=symgrad.float64, requires_grad=k not in constant)
        for k, (s, shape) in enumerate(zip(samplers, shapes))
    ]
    return args, params


@pytest.mark.parametrize("shapes", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_elementwise_primitive(name, shapes):
    prim = REGISTRY[name]
    args, params = _sample(name, prim, SHAPES[shapes], np.random.default_rng(7))

    def f(*xs):
        return prim(*xs, params=params)

    assert f(*args).shape == np.broadcast_shapes(*(a.shape for a in args))
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)

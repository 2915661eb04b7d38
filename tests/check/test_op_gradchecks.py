"""The per-op gradient test: gradcheck and gradgradcheck over every op in the op table and over
every element-wise primitive in the registry, in float64, on several shapes with broadcasting.

The op table (``tests/ops/op_db.py``) says how each public op is called and where its inputs
may lie (away from kinks, poles and ties). The registry part calls each primitive directly, so
a newly declared primitive is checked without anyone writing a test for it, in the domain
declared with it (``domain=``; the test says so when parameter values are missing).
"""

from __future__ import annotations

import numpy as np
import pytest
from ops.op_db import OP_DB  # tests/ is on the import path, as for tests/ops itself

import symgrad
from symgrad.autograd import gradcheck, gradgradcheck
from symgrad.ops.elementwise import REGISTRY
from symgrad.prim.domains import KINDS


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
    if {"no_double_backward", "no_gradgradcheck"} & set(op.tags):  # PyTorch's error
        with pytest.raises((RuntimeError, NotImplementedError), match="is not implemented"):
            gradgradcheck(f, inputs)
        return
    assert gradgradcheck(f, inputs)


# -- every element-wise primitive -----------------------------------------------------------------


# one shape per input position (a unary primitive takes the first): shapes that broadcast to
# (2, 3), or 0-d tensors; the op table covers more shapes, through the public ops
SHAPES = {"broadcast": [(2, 3), (3,), (2, 1)], "0-d": [()] * 3}


def _sample(name: str, prim, shapes: list, rng) -> tuple[list, tuple]:
    """Inputs drawn from the domain declared with the primitive (a "condition" input is a
    constant mask) and its first parameter set."""
    dom = prim.domain
    if prim.params and not dom.params:
        pytest.fail(f"primitive {name!r} takes parameters: declare sample values in its domain")
    kinds = dom.kinds(tuple(str(x) for x in prim.inputs))
    args = [
        symgrad.tensor(
            KINDS[kind](rng, shape, k), dtype=symgrad.float64, requires_grad=kind != "condition"
        )
        for k, (kind, shape) in enumerate(zip(kinds, shapes))
    ]
    return args, dom.params[0]


@pytest.mark.parametrize("shapes", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_elementwise_primitive(name, shapes):
    prim = REGISTRY[name]
    args, params = _sample(name, prim, SHAPES[shapes], np.random.default_rng(7))

    def f(*xs):
        return prim(*xs, params=params)

    assert f(*args).shape == np.broadcast_shapes(*(a.shape for a in args))
    assert gradcheck(f, args)
    if prim.vjp_backward == "NotImplemented":  # PyTorch's backward op has no derivative
        with pytest.raises((RuntimeError, NotImplementedError), match="is not implemented"):
            gradgradcheck(f, args)
        return
    assert gradgradcheck(f, args)

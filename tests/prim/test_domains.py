"""Input domains are declared with the element-wise primitives and checked when declared."""

import numpy as np
import pytest

from symgrad.ops import REGISTRY
from symgrad.prim.domains import KINDS, Domain
from symgrad.prim.elementwise import Elementwise


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_primitive_has_a_usable_domain(name):
    prim = REGISTRY[name]
    dom = prim.domain
    names = prim.input_names
    assert set(dom.inputs) <= set(names)
    assert all(kind in KINDS for kind in dom.kinds(names))
    assert dom.params, f"{name} takes parameters: its domain must give values for them"
    assert all(len(p) == len(prim.param_names) for p in dom.params)
    arrays = dom.sample(names, np.random.default_rng(0), (16,))
    out = prim.numeric(*arrays, *dom.params[0])
    assert np.isfinite(out).all(), f"{name} is not finite in its declared domain"


def test_a_domain_that_does_not_fit_the_op_is_refused_when_declared():
    with pytest.raises(ValueError, match=r"halve: the domain names \['y'\]"):
        Elementwise("halve", "x", lambda x: x / 2, domain={"y": "positive"})
    with pytest.raises(ValueError, match="unknown domain kinds"):
        Elementwise("halve", "x", lambda x: x / 2, domain={"x": "big"})
    with pytest.raises(ValueError, match="has 2 values for the parameters"):
        Elementwise(
            "scale", "x", lambda x, a: a * x, params="a", domain=Domain(params=((1.0, 2.0),))
        )


def test_a_primitive_with_parameters_and_no_values_is_caught_by_the_registry_tests():
    prim = Elementwise("scale", "x", lambda x, a: a * x, params="a")
    assert prim.domain.params == ()


def test_the_kinds_sample_what_they_promise():
    rng = np.random.default_rng(1)
    shape = (200,)
    assert (KINDS["positive"](rng, shape, 0) > 0).all()
    assert (np.abs(KINDS["nonzero"](rng, shape, 0)) >= 0.2).all()
    unit = KINDS["unit"](rng, shape, 0)
    assert ((unit > 0) & (unit < 1)).all()
    assert set(np.unique(KINDS["condition"](rng, shape, 0))) <= {0.0, 1.0}
    x, y = KINDS["distinct"](rng, shape, 0), KINDS["distinct"](rng, shape, 1)
    assert len(np.unique(x)) == shape[0] and not np.isin(x, y).any()
    clear = KINDS["clear_of_bounds"](rng, shape, 0)
    for bound in (-2.0, -1.0, -0.5, 0.4, 0.5, 0.7, 1.0):
        assert (np.abs(clear - bound) >= 0.05).all()

"""Where each input of an element-wise primitive may be sampled, declared with the op.

A domain names one *kind* per input (the kinds and their samplers are defined here, once) and
the parameter values to try. The registry-driven tests read it, so a new primitive is tested in
its own domain as soon as it is declared.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim.domains import Domain
>>> d = Domain({"x": "positive"}, params=((2.0,),))
>>> d.kinds(("x", "y"))
('positive', 'any')
>>> bool((d.sample(("x",), np.random.default_rng(0), (5,))[0] > 0).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Domain", "KINDS"]


def _uniform(lo: float, hi: float) -> Callable:
    return lambda rng, shape, position: rng.uniform(lo, hi, shape)


def _nonzero(rng: Any, shape: tuple, position: int) -> np.ndarray:
    """|v| in (0.2, 1.2) with a random sign: clear of the kinks and poles at 0."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 1.2, shape)


def _condition(rng: Any, shape: tuple, position: int) -> np.ndarray:
    """0.0 or 1.0: a mask, which the tests hold constant (it gets no gradient)."""
    return rng.integers(0, 2, shape).astype(np.float64)


def _distinct(rng: Any, shape: tuple, position: int) -> np.ndarray:
    """An even grid over (-2, 2), shuffled, shifted by each input's position and jittered: no
    two values tie, within an input or across inputs, nor in absolute value."""
    n = int(np.prod(shape))
    grid = np.linspace(-2.0, 2.0, n) + 0.05 * position + rng.uniform(-0.02, 0.02, n)
    return rng.permutation(grid).reshape(shape)


def _clear_of_bounds(rng: Any, shape: tuple, position: int) -> np.ndarray:
    """At least 0.05 from the bounds the parameters put at -2, -1, -0.5, 0.4, 0.5, 0.7, 1."""
    return rng.choice([-1.2, -0.2, 0.25, 1.1], shape) + rng.uniform(-0.05, 0.05, shape)


def _between_steps(rng: Any, shape: tuple, position: int) -> np.ndarray:
    """In (-2, 2), at least 0.01 from every multiple of 0.05: clear of the steps of floor and
    the like (the integers), of round (the halves) and of round to one decimal."""
    return rng.integers(-40, 40, shape) * 0.05 + rng.uniform(0.01, 0.04, shape)


# kind -> sampler(rng, shape, position of the input)
KINDS: dict[str, Callable] = {
    "any": _uniform(-2.0, 2.0),
    "positive": _uniform(0.3, 2.0),
    "unit": _uniform(0.05, 0.95),  # a probability, clear of 0 and 1
    "open_unit": _uniform(-0.95, 0.95),  # inside (-1, 1): asin, atanh, erfinv
    "above_one": _uniform(1.1, 3.0),  # acosh
    "half_period": _uniform(-1.2, 1.2),  # clear of tan's poles at +-pi/2
    "nonzero": _nonzero,
    "condition": _condition,
    "distinct": _distinct,
    "clear_of_bounds": _clear_of_bounds,
    "between_steps": _between_steps,
}


class Domain:
    """The sampling domain of an element-wise primitive.

    Parameters
    ----------
    inputs : ``{input name: kind}``; an input not named is of kind ``"any"``.
    params : the parameter sets to try, each a tuple with one value per parameter (the first
        set is the one the slower tests use); ``((),)`` for a primitive without parameters.
    """

    __slots__ = ("inputs", "params")

    def __init__(self, inputs: dict | None = None, params: tuple = ((),)) -> None:
        inputs = dict(inputs or {})
        unknown = sorted(set(inputs.values()) - set(KINDS))
        if unknown:
            raise ValueError(f"unknown domain kinds {unknown}; the kinds are {sorted(KINDS)}")
        self.inputs = inputs
        self.params = tuple(tuple(p) for p in params)

    def check(self, op: str, names: tuple, param_names: tuple) -> None:
        """Raise a clear error unless this domain fits an op with these inputs and parameters."""
        stray = sorted(set(self.inputs) - set(names))
        if stray:
            raise ValueError(f"{op}: the domain names {stray}, which are not inputs {list(names)}")
        for values in self.params:
            if len(values) != len(param_names):
                raise ValueError(
                    f"{op}: a parameter set of its domain has {len(values)} values for the "
                    f"parameters {list(param_names)}"
                )

    def kinds(self, names: tuple) -> tuple:
        """The kind of each input, in order."""
        return tuple(self.inputs.get(n, "any") for n in names)

    def sample(self, names: tuple, rng: Any, shape: tuple) -> list:
        """One array of ``shape`` per input, each drawn from its kind."""
        return [KINDS[k](rng, shape, i) for i, k in enumerate(self.kinds(names))]

    def __repr__(self) -> str:
        return f"Domain({self.inputs!r}, params={self.params!r})"

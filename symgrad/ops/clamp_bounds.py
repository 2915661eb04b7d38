"""``clamp`` with tensor bounds: one element-wise primitive per PyTorch overload, so the graph
records ``ClampBackward0`` (``clamp``/``clip`` with a tensor ``min`` and/or ``max``),
``ClampMinBackward1`` (``clamp_min`` of a tensor) or ``ClampMaxBackward1`` (``clamp_max``).

PyTorch's gradients (``clamp_backward`` and ``clamp_backward_min_max``): the input gets ``g``
where ``min <= x <= max`` (ties included), ``min`` where ``x < min < max``, ``max`` where
``x > max`` or the bounds cross (``max < min``); a nan anywhere gives no gradient. Its forward
tangents are written separately (``clamp_jvp``) and differ at the ties: a lone tensor ``min`` of
``clamp`` passes ``min``'s tangent where ``x == min``, ``clamp_min``'s passes the input's; a
nan passes the input's tangent (both bounds) or the bound's (one bound). The tangents here
follow PyTorch's rule, each as an element-wise primitive of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad.ops.elementwise import REGISTRY
from symgrad.prim.domains import Domain
from symgrad.prim.elementwise import Elementwise
from symgrad.tensor import Tensor

__all__: list[str] = []


class _Clamp(Elementwise):
    """A clamp whose forward tangent is PyTorch's ``clamp_jvp``: the element-wise primitive
    ``tangent`` of the inputs followed by their tangents (a missing tangent enters as 0)."""

    def __init__(self, *args: Any, tangent: Elementwise, **options: Any) -> None:
        super().__init__(*args, **options)
        self.tangent = tangent

    def jvp(self, xp: Any, tangents: tuple, ctx: Any) -> Any:
        ts = tuple(0.0 if t is None else t for t in tangents)
        return xp.elementwise(self.tangent, tuple(ctx.inputs) + ts, ctx.params)


def _clamp_both(v: Any, low: Any, high: Any) -> Any:
    # NumPy's maximum and minimum propagate a nan of either argument, as PyTorch's clamp
    return np.minimum(high, np.maximum(low, v))


def _register(name: str, inputs: str, expr: Any, partials: Any, tangent: Any, **kw: Any) -> Any:
    t_inputs = inputs + " " + " ".join("t" + n for n in inputs.split())
    tangent_prim = Elementwise(name + "_jvp", t_inputs, tangent, domain=_domain(t_inputs))
    prim = _Clamp(
        name,
        inputs,
        expr,
        partials=partials,
        exact=False,
        masked=True,
        vjp_backward="WhereBackward0",
        tangent=tangent_prim,
        domain=_domain(inputs),
        **kw,
    )
    REGISTRY[name] = prim
    return prim


def _domain(inputs: str) -> Domain:
    return Domain({n: "distinct" for n in inputs.split()})


def _step(condition: Any) -> Any:
    return sp.Piecewise((1, condition), (0, True))


CLAMP_TENSOR = _register(
    "clamp_tensor",
    "x min max",
    # min(max(x, min), max): max where the bounds cross
    lambda x, min, max: sp.Piecewise(
        (x, (x >= min) & (x <= max)),
        (max, (x > max) | (min > max)),
        (min, x < min),
        (sp.nan, True),
    ),
    lambda x, min, max: (
        _step((x >= min) & (x <= max)),
        _step((x < min) & (min < max)),
        _step((x > max) | (max < min)),
    ),
    lambda x, min, max, tx, tmin, tmax: sp.Piecewise(
        (tmax, min > max), (tmin, x < min), (tmax, x > max), (tx, True)
    ),
    kernel=_clamp_both,
    backward="ClampBackward0",
)
CLAMP_TENSOR_MIN = _register(
    "clamp_tensor_min",
    "x min",
    lambda x, min: sp.Piecewise((x, x >= min), (min, x < min), (sp.nan, True)),
    lambda x, min: (_step(x >= min), _step(x < min)),
    lambda x, min, tx, tmin: sp.Piecewise((tx, x > min), (tmin, True)),
    kernel=lambda v, low: np.maximum(low, v),
    backward="ClampBackward0",
    edges=(0, 1, None),  # PyTorch's clamp(self, min, max): no max given
)
CLAMP_TENSOR_MAX = _register(
    "clamp_tensor_max",
    "x max",
    lambda x, max: sp.Piecewise((x, x <= max), (max, x > max), (sp.nan, True)),
    lambda x, max: (_step(x <= max), _step(x > max)),
    lambda x, max, tx, tmax: sp.Piecewise((tx, x < max), (tmax, True)),
    kernel=lambda v, high: np.minimum(high, v),
    backward="ClampBackward0",
    edges=(0, None, 1),  # PyTorch's clamp(self, min, max): no min given
)
CLAMP_MIN_TENSOR = _register(
    "clamp_min_tensor",
    "x min",
    lambda x, min: sp.Piecewise((x, x >= min), (min, x < min), (sp.nan, True)),
    lambda x, min: (_step(x >= min), _step(x < min)),
    lambda x, min, tx, tmin: sp.Piecewise((tx, x >= min), (tmin, True)),
    kernel=lambda v, low: np.maximum(low, v),
    backward="ClampMinBackward1",
)
CLAMP_TENSOR_MIN.argument_names = ("self", "min")
CLAMP_TENSOR_MAX.argument_names = ("self", "max")
CLAMP_MAX_TENSOR = _register(
    "clamp_max_tensor",
    "x max",
    lambda x, max: sp.Piecewise((x, x <= max), (max, x > max), (sp.nan, True)),
    lambda x, max: (_step(x <= max), _step(x > max)),
    lambda x, max, tx, tmax: sp.Piecewise((tx, x <= max), (tmax, True)),
    kernel=lambda v, high: np.minimum(high, v),
    backward="ClampMaxBackward1",
)


def number_bounds(min: Any, max: Any) -> tuple:
    """``clamp``'s bounds, where a 0-d tensor beside a number is that number, as PyTorch's
    overload of Number bounds reads it (not one that needs a gradient: that stays a tensor,
    and mixed bounds are refused)."""
    if min is None or max is None or isinstance(min, Tensor) and isinstance(max, Tensor):
        return min, max
    return tuple(
        b.item() if isinstance(b, Tensor) and b.ndim == 0 and not b.requires_grad else b
        for b in (min, max)
    )


def clamp_tensor(input: Any, min: Any, max: Any) -> Tensor:
    """PyTorch's ``clamp.Tensor`` overload: both bounds tensors (or None)."""
    for name, b in (("min", min), ("max", max)):
        if b is not None and not isinstance(b, Tensor):
            raise TypeError(
                f"clamp(): got a Tensor bound and a {type(b).__name__} {name}={b!r}; the bounds "
                "must both be Tensors (or None) or both be numbers (a 0-d tensor beside a number "
                f"counts as one): pass {name}=torch.tensor({b!r})"
            )
    if min is None:
        return CLAMP_TENSOR_MAX(input, max)
    return CLAMP_TENSOR_MIN(input, min) if max is None else CLAMP_TENSOR(input, min, max)

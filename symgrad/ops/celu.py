"""``celu``, in place or not, as PyTorch computes it: ``elu`` with ``input_scale = 1 / alpha``
forward, and a derivative formula that scales by ``1.0 / alpha.toFloat()``, alpha rounded to
float32 first (so ``alpha=0.3`` gives 0.99999996 at 0, where ``exp(x / alpha)`` gives 1).

The SymPy partials stay the exact ``exp(x / alpha)`` (the closed forms); the kernels, which give
every numeric gradient and second derivative, round as PyTorch's formula does. The domain
samples only alphas float32 holds, where both agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad.ops.activations import _NEGATIVE_IN_PLACE
from symgrad.ops.elementwise import declare
from symgrad.prim.domains import Domain


def _celu(v: Any, alpha: Any) -> Any:
    # a product by 1 / alpha, not a quotient, as PyTorch's elu kernel
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.where(v > 0, v, np.expm1(np.minimum(0, v) * (1.0 / alpha)) * alpha)


def _slope(alpha: Any) -> float:
    """PyTorch's ``1.0 / alpha.toFloat()``: the input scale of celu's derivative."""
    with np.errstate(divide="ignore"):
        return 1.0 / float(np.float32(alpha))


def _exp_part(v: Any, alpha: Any, *factors: Any) -> Any:
    """``factors * slope * alpha * exp(v * slope)``, multiplied left to right as PyTorch."""
    s = _slope(alpha)
    r = 1.0
    for f in factors:
        r = r * f
    with np.errstate(over="ignore", invalid="ignore"):
        return r * s * alpha * np.exp(np.minimum(0, v) * s)


def _vjp(v: Any, out: Any, g: Any, alpha: Any) -> Any:
    # elu_backward(g, alpha, 1, slope, self): g * slope * alpha * exp(v * slope) where v <= 0,
    # g elsewhere (at nan too)
    return np.where(v <= 0, _exp_part(v, alpha, g), g)


def _in_place_vjp(v: Any, out: Any, g: Any, alpha: Any) -> Any:
    # elu_backward on the result: g * slope * (out + alpha) where out <= 0
    if alpha < 0:
        raise RuntimeError(_NEGATIVE_IN_PLACE.format(op="elu"))
    with np.errstate(invalid="ignore"):
        return np.where(out <= 0, g * _slope(alpha) * (out + alpha), g)


# the partials of the gradient (g * partial) by x, out and g: elu_double_backward, which is
# elu_backward(gg * g * slope, ...) masked to x < 0, and elu_backward itself
_SECOND = {
    0: lambda v, out, g, out2, alpha: np.where(v < 0, _exp_part(v, alpha, g, _slope(alpha)), 0.0),
    2: lambda v, out, g, out2, alpha: np.where(v <= 0, _exp_part(v, alpha), 1.0),
}
# in place, through the result: g * slope where out < 0, and the slope times out + alpha
_IN_PLACE_SECOND = {
    1: lambda v, out, g, out2, alpha: np.where(out < 0, g * _slope(alpha), 0.0),
    2: lambda v, out, g, out2, alpha: np.where(out <= 0, _slope(alpha) * (out + alpha), 1.0),
}


def _formula(x: Any, alpha: Any) -> Any:
    return sp.Piecewise((x, x > 0), (alpha * (sp.exp(x / alpha) - 1), True))


_DOMAIN = Domain({"x": "nonzero"}, params=((1.0,), (0.5,), (2.0,)))
CELU = declare(
    "celu",
    "x",
    _formula,
    params="alpha",
    # 1 at nan, as PyTorch's elu_backward
    partials=lambda x, alpha: (
        sp.Piecewise((1, x > 0), (sp.exp(x / alpha), x < 0), (1, sp.Eq(x, 0)), (1, True)),
    ),
    kernel=_celu,
    vjp_kernels={0: _vjp},
    vjp_partial_kernels={0: _SECOND},
    exact=False,
    promote="float",
    domain=_DOMAIN,
    vjp_backward="EluBackwardBackward0",
)
# PyTorch's in-place celu differentiates through its result, which its node saves
CELU_ = declare(
    "celu_",
    "x",
    _formula,
    params="alpha",
    partials=lambda out, alpha: (sp.Piecewise(((out + alpha) / alpha, out <= 0), (1, True)),),
    kernel=_celu,
    vjp_kernels={0: _in_place_vjp},
    vjp_partial_kernels={0: _IN_PLACE_SECOND},
    exact=False,
    promote="float",
    domain=_DOMAIN,
    backward="CeluBackward1",
    vjp_backward="EluBackwardBackward0",
    reads_result=True,
)

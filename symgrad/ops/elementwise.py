"""The element-wise primitives: one declaration each, the formula SymPy differentiates.

Read it like a derivative handout: the name, the inputs, the forward formula and, where cheaper
or stabler, partials written with the output ``out`` or a kernel (the registry's tests check it).

A formula is a function of the named input (and parameter) symbols, called the first time the
primitive is differentiated or shown, so that ``import symgrad`` does not load SymPy; partials
are functions of whichever of the inputs, parameters and ``out`` they use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad._memory_format import rows_kernel
from symgrad.prim.domains import Domain
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.kernels import (
    _int_power,
    _pow_dx,
    _pow_dx_vjp,
    _pow_dy,
    _scalar_base_power,
    _sigmoid,
)

REGISTRY: dict[str, Elementwise] = {}


def declare(name: str, inputs: str, expr: Any, **options: Any) -> Elementwise:
    """Declare an element-wise primitive and add it to the registry."""
    prim = Elementwise(name, inputs, expr, **options)
    REGISTRY[name] = prim
    return prim


# -- stable or faster kernels (each tested against its formula) -------------------------------


def _special() -> Any:
    # imported when a formula is first needed: the module loads SymPy
    from symgrad.prim import special

    return special


def _silu_partial(v: Any, out: Any) -> Any:
    # sigmoid(v) * (1 + v * (1 - sigmoid(v))): the formula's exp(-v)**2 overflows at v = -1000
    s = _sigmoid(v)
    return s * (1 + v * (1 - s))


def _softplus(v: Any, b: Any, t: Any) -> Any:
    bv = b * v
    with np.errstate(over="ignore"):
        return np.where(bv > t, v, np.logaddexp(0, bv) / b)


def _softplus_partial(v: Any, out: Any, b: Any, t: Any) -> Any:
    return np.where(b * v > t, 1, _sigmoid(b * v))


# the integer type of each float's width, to mask a gradient by clearing all its bits
_BITS = {
    np.dtype(t): np.dtype(f"int{np.dtype(t).itemsize * 8}")
    for t in (np.float16, np.float32, np.float64)
}


def _relu_vjp(v: Any, out: Any, g: Any) -> Any:
    """PyTorch's ``threshold_backward``: ``g`` where the result is not ``<= 0`` (so a nan
    result passes it), ``+0`` elsewhere whatever arrives (``g * mask`` would give ``-0`` or
    nan). On floats: one bitwise and with a mask of all-ones or zeros, faster than where."""
    cut = np.less_equal(out, 0)
    bits = _BITS.get(g.dtype) if type(g) is np.ndarray and type(cut) is np.ndarray else None
    if bits is None:
        return np.where(cut, 0, g)
    mask = np.subtract(cut, 1, dtype=bits)  # cut: 0, kept: -1 (every bit set)
    # (a batched gradient, inside vmap, may have more dimensions than the mask)
    into = mask if mask.shape == g.shape else None
    return np.bitwise_and(g.view(bits), mask, out=into).view(g.dtype)


def _where(cond: Any, a: Any, b: Any) -> Any:
    return np.where(cond, a, b)


# NumPy's maximum and minimum return their second argument on a tie: the input, as PyTorch
# (clamp(-0.0, min=0.0) is -0.0); a nan input stays nan


def _clamp(v: Any, low: Any, high: Any) -> Any:
    return np.minimum(high, np.maximum(low, v))


def _elu(v: Any, alpha: Any) -> Any:
    # expm1 keeps the sign of -0.0, as PyTorch
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(v > 0, v, alpha * np.expm1(np.minimum(0, v)))


def _sign(v: Any) -> Any:
    # PyTorch: (0 < v) - (v < 0), so the sign of nan is 0; a bool is its own sign
    if np.result_type(v).kind == "b":
        return np.array(v)
    s = np.sign(v)
    return np.nan_to_num(s, copy=type(s) is not np.ndarray, nan=0)


# -- arithmetic ---------------------------------------------------------------------------------
ADD = declare("add", "x y", lambda x, y: x + y, kernel=np.add)
BOOL_SUB = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)


def _subtract(a: Any, b: Any) -> Any:
    # PyTorch refuses any bool operand (mask - 1, x - True); NumPy would refuse only two
    # boolean arrays, with a TypeError
    if getattr(a, "dtype", None) == np.bool_ or getattr(b, "dtype", None) == np.bool_:
        raise RuntimeError(BOOL_SUB)
    if type(a) is bool or type(b) is bool:
        raise RuntimeError(BOOL_SUB)
    return np.subtract(a, b)


SUB = declare("sub", "x y", lambda x, y: x - y, kernel=_subtract)
# number - tensor: PyTorch records it as rsub of the tensor
RSUB = declare(
    "rsub",
    "x y",
    lambda x, y: y - x,
    kernel=lambda a, b: _subtract(b, a),
    backward="RsubBackward1",
    edges=(0,),  # the number is no edge
)
MUL = declare("mul", "x y", lambda x, y: x * y, kernel=np.multiply)
DIV = declare(
    "div",
    "x y",
    lambda x, y: x / y,
    kernel=np.true_divide,
    # PyTorch's -g * ((x / y) / y): no y * y to overflow or underflow on the way
    vjp_kernels={1: lambda x, y, out, g: -g * ((x / y) / y)},
    promote="float",
    domain={"y": "nonzero"},
)
NEG = declare("neg", "x", lambda x: -x, kernel=np.negative)
# PyTorch's three nodes: a number exponent and a number base are parameters (one edge each),
# a tensor exponent an input
POW = declare(
    "pow",
    "x",
    lambda x, exponent: x**exponent,
    params="exponent",
    partials=lambda x, exponent: (exponent * x ** (exponent - 1),),
    partial_kernels={0: lambda v, out, e: _pow_dx(v, e, out)},
    vjp_kernels={0: lambda v, out, g, e: _pow_dx_vjp(v, e, out, g)},
    domain=Domain({"x": "positive"}, params=((2.5,), (2,), (0.5,), (-1.5,), (3.0,))),
)
POW_SCALAR_BASE = declare(
    "pow_scalar_base",
    "y",
    lambda y, base: base**y,
    params="base",
    # PyTorch's pow_backward_exponent: 0 where the base is 0 and the exponent >= 0
    partials=lambda y, base: (
        sp.Piecewise((0, sp.Eq(base, 0) & (y >= 0)), (base**y * sp.log(base), True)),
    ),
    kernel=rows_kernel(_scalar_base_power),
    partial_kernels={0: lambda v, out, b: _pow_dy(b, v, np.power(b, v))},
    exact=False,
    backward="PowBackward2",
    domain=Domain(params=((1.5,), (2.0,), (0.5,))),
)
# the same formula under PyTorch's names for a tensor exponent and for a number base; d/dy is
# written with out so that the node saves the output the stable kernel reads. The partials
# are PyTorch's masked ones (pow_backward_self, pow_backward_exponent): 0 where the exponent
# is 0, and 0 where the base is 0 and the exponent >= 0, not 0 * 0**-1 or 0 * log(0)
POW_TENSOR = declare(
    "pow_tensor",
    "x y",
    lambda x, y: x**y,
    partials=lambda x, y, out: (
        sp.Piecewise((0, sp.Eq(y, 0)), (y * x ** (y - 1), True)),
        sp.Piecewise((0, sp.Eq(x, 0) & (y >= 0)), (out * sp.log(x), True)),
    ),
    kernel=_int_power,
    partial_kernels={0: _pow_dx, 1: _pow_dy},
    vjp_kernels={0: _pow_dx_vjp},
    exact=False,
    backward="PowBackward1",
    domain={"x": "positive"},
)
RECIPROCAL = declare(
    "reciprocal",
    "x",
    lambda x: 1 / x,
    partials=lambda out: (-(out**2),),
    promote="float",
    domain={"x": "nonzero"},
)
SQUARE = declare("square", "x", lambda x: x**2, kernel=np.square, backward="PowBackward0")

# -- exponentials, logarithms, powers -----------------------------------------------------------
EXP = declare(
    "exp", "x", lambda x: sp.exp(x), partials=lambda out: (out,), kernel=np.exp, promote="float"
)
EXPM1 = declare(
    "expm1",
    "x",
    lambda x: sp.exp(x) - 1,
    partials=lambda out: (out + 1,),
    kernel=np.expm1,
    promote="float",
)
LOG = declare(
    "log", "x", lambda x: sp.log(x), kernel=np.log, promote="float", domain={"x": "positive"}
)
LOG1P = declare(
    "log1p",
    "x",
    lambda x: sp.log(1 + x),
    kernel=np.log1p,
    promote="float",
    backward="Log1PBackward0",
    domain={"x": "positive"},
)
SQRT = declare(
    "sqrt",
    "x",
    lambda x: sp.sqrt(x),
    partials=lambda out: (1 / (2 * out),),
    kernel=np.sqrt,
    promote="float",
    domain={"x": "positive"},
)
RSQRT = declare(
    "rsqrt",
    "x",
    lambda x: 1 / sp.sqrt(x),
    partials=lambda out: (-(out**3) / 2,),
    promote="float",
    domain={"x": "positive"},
)

# -- trigonometric and hyperbolic ---------------------------------------------------------------
SIN = declare("sin", "x", lambda x: sp.sin(x), kernel=np.sin, promote="float")
COS = declare("cos", "x", lambda x: sp.cos(x), kernel=np.cos, promote="float")
TAN = declare(
    "tan",
    "x",
    lambda x: sp.tan(x),
    partials=lambda out: (1 + out**2,),
    kernel=np.tan,
    promote="float",
    domain={"x": "half_period"},
)
TANH = declare(
    "tanh",
    "x",
    lambda x: sp.tanh(x),
    partials=lambda out: (1 - out**2,),
    kernel=np.tanh,
    promote="float",
)
ERF = declare("erf", "x", lambda x: sp.erf(x), promote="float")


# -- piecewise: PyTorch's choices at the kinks are part of the formula ---------------------------
def _abs(v: Any) -> Any:
    if getattr(v, "dtype", None) == np.bool_:  # PyTorch has no abs of bools
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(v)


ABS = declare("abs", "x", lambda x: sp.Abs(x), kernel=_abs, domain={"x": "nonzero"})
SIGN = declare(
    "sign",
    "x",
    lambda x: sp.sign(x),
    partials=lambda: (0,),
    kernel=_sign,
    exact=False,
    domain={"x": "nonzero"},
)
RELU = declare(
    "relu",
    "x",
    lambda x: sp.Piecewise((0, x <= 0), (x, True)),
    # in the result, as PyTorch's threshold_backward(grad, result, 0): relu saves its output,
    # so changing the output in place breaks the backward and changing the input does not
    partials=lambda out: (sp.Piecewise((0, out <= 0), (1, True)),),
    kernel=lambda v: np.maximum(0, v),
    vjp_kernels={0: _relu_vjp},
    domain={"x": "nonzero"},
    vjp_backward="ThresholdBackwardBackward0",
)
LEAKY_RELU = declare(
    "leaky_relu",
    "x",
    lambda x, negative_slope: sp.Piecewise((x, x > 0), (negative_slope * x, True)),
    params="negative_slope",
    domain=Domain({"x": "nonzero"}, params=((0.2,), (0.01,), (0.3,))),
    vjp_backward="LeakyReluBackwardBackward0",
)
ELU = declare(
    "elu",
    "x",
    lambda x, alpha: sp.Piecewise((x, x > 0), (alpha * (sp.exp(x) - 1), True)),
    params="alpha",
    # PyTorch: alpha * exp(x) where x <= 0, 1 elsewhere (so at nan too), and the second
    # derivative only where x < 0 (0 at the kink, from either side)
    partials=lambda x, alpha: (
        sp.Piecewise((1, x > 0), (alpha * sp.exp(x), x < 0), (alpha, sp.Eq(x, 0)), (1, True)),
    ),
    kernel=_elu,
    exact=False,
    promote="float",
    domain=Domain({"x": "nonzero"}, params=((0.5,), (1.0,), (0.4,))),
    vjp_backward="EluBackwardBackward0",
)
CLAMP = declare(
    "clamp",
    "x",
    # PyTorch: min(max(x, min), max), so max where the bounds cross; gradient 1 on the bounds,
    # 0 at nan (and everywhere for a nan bound)
    lambda x, min, max: sp.Piecewise(
        (x, (x >= min) & (x <= max) & (min <= max)),
        (max, (x > max) | (min > max)),
        (min, x < min),
        (sp.nan, True),
    ),
    params="min max",
    kernel=_clamp,
    backward="ClampBackward1",
    domain=Domain({"x": "clear_of_bounds"}, params=((-0.5, 0.5), (-0.5, 0.7), (-2.0, 1.0))),
    masked=True,
    vjp_backward="WhereBackward0",
)
CLAMP_MIN = declare(
    "clamp_min",
    "x",
    lambda x, min: sp.Piecewise((x, x >= min), (min, x < min), (sp.nan, True)),
    params="min",
    kernel=lambda v, min: np.maximum(min, v),
    domain=Domain({"x": "clear_of_bounds"}, params=((-0.5,), (-0.3,), (1.0,))),
    masked=True,
    vjp_backward="WhereBackward0",
)
CLAMP_MAX = declare(
    "clamp_max",
    "x",
    lambda x, max: sp.Piecewise((x, x <= max), (max, x > max), (sp.nan, True)),
    params="max",
    kernel=lambda v, max: np.minimum(max, v),
    domain=Domain({"x": "clear_of_bounds"}, params=((0.5,), (0.4,), (-1.0,))),
    masked=True,
    vjp_backward="WhereBackward0",
)
MAXIMUM = declare(
    "maximum",
    "x y",
    # a nan passes the whole gradient to both inputs, as in PyTorch
    lambda x, y: sp.Piecewise((x, x > y), (y, x < y), ((x + y) / 2, sp.Eq(x, y)), (x + y, True)),
    kernel=np.maximum,
    domain={"x": "distinct", "y": "distinct"},
    masked=True,
    vjp_backward="MaskedFillBackward0",
)
MINIMUM = declare(
    "minimum",
    "x y",
    lambda x, y: sp.Piecewise((x, x < y), (y, x > y), ((x + y) / 2, sp.Eq(x, y)), (x + y, True)),
    kernel=np.minimum,
    domain={"x": "distinct", "y": "distinct"},
    masked=True,
    vjp_backward="MaskedFillBackward0",
)
WHERE = declare(
    "where",
    "c x y",
    lambda c, x, y: sp.Piecewise((x, sp.Ne(c, 0)), (y, True)),
    kernel=_where,
    domain={"c": "condition"},
    vjp_backward="WhereBackward0",  # PyTorch's gradient is a where of it and a zero
    edges=(1, 2),  # the condition is no edge
)

# -- activations --------------------------------------------------------------------------------
SIGMOID = declare(
    "sigmoid",
    "x",
    lambda x: 1 / (1 + sp.exp(-x)),
    partials=lambda out: (out * (1 - out),),
    kernel=_sigmoid,
    promote="float",
    # PyTorch's sigmoid_backward on float16: (g * (1 - y)) * y, each product rounded
    half_backward=lambda x, out, g: g * (1 - out) * out,
)
SOFTPLUS = declare(
    "softplus",
    "x",
    lambda x, beta, threshold: sp.Piecewise(
        (x, beta * x > threshold), (sp.log(1 + sp.exp(beta * x)) / beta, True)
    ),
    params="beta threshold",
    # PyTorch: 1 above the threshold, sigmoid(beta * x) below it, and the second derivative
    # only where beta * x < threshold (so 0 at the threshold itself)
    partials=lambda x, beta, threshold: (
        sp.Piecewise(
            (1, beta * x > threshold),
            (_special().sigmoid(beta * x), beta * x < threshold),
            (_special().sigmoid(threshold), sp.Eq(beta * x, threshold)),
            (_special().sigmoid(beta * x), True),
        ),
    ),
    kernel=_softplus,
    partial_kernels={0: _softplus_partial},
    exact=False,
    promote="float",
    domain=Domain(
        {"x": "clear_of_bounds"}, params=((2.0, 1.5), (1.5, 2.0), (1.0, 20.0), (0.5, 1.0))
    ),
    vjp_backward="SoftplusBackwardBackward0",
)
SILU = declare(
    "silu",
    "x",
    lambda x: x / (1 + sp.exp(-x)),
    # sigmoid(x) * (1 + x * (1 - sigmoid(x))), PyTorch's form: finite at every order
    partials=lambda x: (_special().sigmoid(x) * (1 + x * (1 - _special().sigmoid(x))),),
    kernel=lambda v: v * _sigmoid(v),
    partial_kernels={0: _silu_partial},
    promote="float",
    half_backward="float32",
)

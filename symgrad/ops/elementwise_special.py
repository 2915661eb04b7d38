"""More element-wise primitives, declared as those of :mod:`symgrad.ops.elementwise` are:
inverse trigonometric and hyperbolic functions, ``exp2``, ``log2``, ``log10``, the gamma
family, ``erfc``/``erfinv``, ``sinc``, angle conversions, and the binary ``atan2``,
``hypot``, ``logaddexp``, ``xlogy``, ``copysign`` and ``lerp``; each with PyTorch's node
name and its values at the edges (``sinc(0) = 1``, ``xlogy(0, y) = 0``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad.ops.elementwise import _sign, declare
from symgrad.prim import normal_functions as N
from symgrad.prim.domains import Domain
from symgrad.prim.fused import fused_multiply_add

__all__: list[str] = []


def _unary(name: str, expr: Any, kernel: Any = None, **options: Any) -> Any:
    options.setdefault("promote", "float")
    return declare(name, "x", expr, kernel=kernel, **options)


# -- inverse trigonometric and hyperbolic -------------------------------------------------------
ASIN = _unary("asin", lambda x: sp.asin(x), np.arcsin, domain={"x": "open_unit"})
ACOS = _unary("acos", lambda x: sp.acos(x), np.arccos, domain={"x": "open_unit"})
ATAN = _unary("atan", lambda x: sp.atan(x), np.arctan)
SINH = _unary("sinh", lambda x: sp.sinh(x), np.sinh)
COSH = _unary("cosh", lambda x: sp.cosh(x), np.cosh)
ASINH = _unary("asinh", lambda x: sp.asinh(x), np.arcsinh)
# PyTorch: (x * x - 1).rsqrt(), defined for x <= -1 too (SymPy's 1/(sqrt(x - 1) sqrt(x + 1))
# is not)
ACOSH = _unary(
    "acosh",
    lambda x: sp.acosh(x),
    np.arccosh,
    partials=lambda x: (1 / sp.sqrt(x**2 - 1),),
    exact=False,
    domain={"x": "above_one"},
)
ATANH = _unary("atanh", lambda x: sp.atanh(x), np.arctanh, domain={"x": "open_unit"})

# -- exponentials and logarithms in other bases -------------------------------------------------
EXP2 = _unary("exp2", lambda x: 2**x, np.exp2, partials=lambda out: (out * sp.log(2),))

# PyTorch's ln 10 in log10's derivative: the double one unit below math.log(10)
LN10 = 2.3025850929940456


def _log_base_vjp(ln_base: float) -> Any:
    # PyTorch's g / (x * ln(base)) with ln(base) in x's dtype: in float32, x * ln(10) overflows
    # to inf (a gradient of 0) from about 1.5e38 on
    return lambda v, out, g: g / (v * ln_base)


LOG2 = _unary(
    "log2",
    lambda x: sp.log(x) / sp.log(2),
    np.log2,
    vjp_kernels={0: _log_base_vjp(math.log(2))},
    domain={"x": "positive"},
)
LOG10 = _unary(
    "log10",
    lambda x: sp.log(x) / sp.log(10),
    np.log10,
    vjp_kernels={0: _log_base_vjp(LN10)},
    domain={"x": "positive"},
)

# -- special functions --------------------------------------------------------------------------
ERFC = _unary("erfc", lambda x: sp.erfc(x))
ERFINV = _unary(
    "erfinv",
    lambda x: sp.erfinv(x),
    partials=lambda out: (sp.sqrt(sp.pi) / 2 * sp.exp(out**2),),
    domain={"x": "open_unit"},
)
LOGIT = _unary(
    "logit",
    lambda x: sp.log(x / (1 - x)),
    lambda v: np.log(v / (1 - v)),
    # PyTorch: nan outside [0, 1], where the logit itself is nan
    partials=lambda x: (sp.Piecewise((sp.nan, (x < 0) | (x > 1)), (1 / (x * (1 - x)), True)),),
    exact=False,
    domain={"x": "unit"},
)


def _logit_eps(v: Any, eps: Any) -> Any:
    # PyTorch's: below eps, eps; above 1 - eps, 1 - eps (eps itself when they cross)
    z = np.where(v < eps, eps, np.where(v > 1 - eps, 1 - eps, v))
    return np.log(z / (1 - z))


# logit(x, eps): one LogitBackward0 node saving eps, as PyTorch records it
LOGIT_EPS = declare(
    "logit_eps",
    "x",
    lambda x, eps: sp.Piecewise(
        (sp.log(eps / (1 - eps)), x < eps),
        (sp.log((1 - eps) / eps), x > 1 - eps),
        (sp.log(x / (1 - x)), True),
    ),
    params="eps",
    # PyTorch: the logit's derivative inside [eps, 1 - eps], 0 elsewhere (at nan too, as its
    # vectorized kernel gives it on all but a short tensor's tail)
    partials=lambda x, eps: (
        sp.Piecewise((1 / (x * (1 - x)), (x >= eps) & (x <= 1 - eps)), (0, True)),
    ),
    kernel=_logit_eps,
    exact=False,
    promote="float",
    backward="LogitBackward0",
    domain=Domain({"x": "unit"}, params=((1e-3,), (0.01,))),
    vjp_backward="WhereBackward0",
)
LGAMMA = _unary(
    "lgamma",
    lambda x: sp.loggamma(x),
    partials=lambda x: (sp.polygamma(0, x),),
    domain={"x": "positive"},
)
DIGAMMA = _unary("digamma", lambda x: sp.polygamma(0, x), domain={"x": "positive"})


def _sinc_vjp(v: Any, out: Any, g: Any) -> Any:
    # PyTorch: 0 where x * x * pi is 0, so also where it underflows
    pi_x, pi_x2 = v * np.pi, v * v * np.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        d = g * (pi_x * np.cos(pi_x) - np.sin(pi_x)) / pi_x2
    return np.where(pi_x2 == 0, 0.0, d)


# PyTorch: sinc(0) = 1 with derivative 0 there
SINC = _unary(
    "sinc",
    lambda x: sp.Piecewise((1, sp.Eq(x, 0)), (sp.sin(sp.pi * x) / (sp.pi * x), True)),
    np.sinc,
    partials=lambda x: (
        sp.Piecewise(
            (0, sp.Eq(x, 0)),
            ((sp.pi * x * sp.cos(sp.pi * x) - sp.sin(sp.pi * x)) / (sp.pi * x**2), True),
        ),
    ),
    vjp_kernels={0: _sinc_vjp},
)
DEG2RAD = _unary("deg2rad", lambda x: x * (sp.pi / 180), np.deg2rad, backward="Deg2RadBackward0")
RAD2DEG = _unary("rad2deg", lambda x: x * (180 / sp.pi), np.rad2deg, backward="Rad2DegBackward0")

# -- binary ---------------------------------------------------------------------------------------


def _atan2_recip(a: Any, b: Any) -> Any:
    # PyTorch's 1 / (x^2 + y^2), taken as 0 where the sum is 0 (also where it underflows)
    s = a * a + b * b
    with np.errstate(divide="ignore"):
        return np.where(s == 0, 0.0, 1 / np.where(s == 0, 1.0, s))


def _atan2_recip_formula(x: Any, y: Any) -> Any:
    return sp.Piecewise((0, sp.Eq(x**2 + y**2, 0)), (1 / (x**2 + y**2), True))


ATAN2 = declare(
    "atan2",
    "x y",
    lambda x, y: sp.atan2(x, y),
    partials=lambda x, y: (y * _atan2_recip_formula(x, y), -x * _atan2_recip_formula(x, y)),
    vjp_kernels={
        0: lambda a, b, out, g: g * b * _atan2_recip(a, b),
        1: lambda a, b, out, g: g * -a * _atan2_recip(a, b),
    },
    exact=False,
    kernel=np.arctan2,
    promote="float",
    domain={"x": "nonzero", "y": "nonzero"},
)
HYPOT = declare(
    "hypot",
    "x y",
    lambda x, y: sp.sqrt(x**2 + y**2),
    partials=lambda x, y, out: (x / out, y / out),
    kernel=np.hypot,
    promote="float",
    domain={"x": "nonzero", "y": "nonzero"},
)
LOGADDEXP = declare(
    "logaddexp",
    "x y",
    lambda x, y: sp.log(sp.exp(x) + sp.exp(y)),
    partials=lambda x, y: (1 / (1 + sp.exp(y - x)), 1 / (1 + sp.exp(x - y))),
    kernel=np.logaddexp,
    promote="float",
)


def _logaddexp2(a: Any, b: Any) -> Any:
    # PyTorch's max(a, b) + log1p(2**-|a - b|) / ln 2 with the multiply-add rounded once (as
    # its compiled loop does): logaddexp2(-1, -1) is -4.8e-17, not 0
    with np.errstate(all="ignore"):
        tail = np.log1p(np.exp2(-np.abs(a - b)))
        out = fused_multiply_add(tail, 1 / math.log(2), np.maximum(a, b))
    return np.where(np.isinf(a) & (a == b), a, out)


# log2(2**x + 2**y); PyTorch's partials 1 / (1 + 2**(y - x)), finite far from the diagonal
LOGADDEXP2 = declare(
    "logaddexp2",
    "x y",
    lambda x, y: sp.log(2**x + 2**y) / sp.log(2),
    partials=lambda x, y: (1 / (1 + 2 ** (y - x)), 1 / (1 + 2 ** (x - y))),
    kernel=_logaddexp2,
    promote="float",
)
# the complex sign of a real tensor is its sign, with its own node (PyTorch's sgn)
SGN = declare(
    "sgn",
    "x",
    lambda x: sp.sign(x),
    partials=lambda: (0,),
    kernel=_sign,
    exact=False,
    domain={"x": "nonzero"},
)


def _angle(v: Any) -> Any:
    # the argument of a real number: pi below 0 (-0.0 gives 0), nan stays nan
    return np.where(np.isnan(v), v, np.where(v < 0, np.pi, 0.0)).astype(np.result_type(v))


# PyTorch: a real tensor's angle has the gradient 0 everywhere
ANGLE = _unary(
    "angle",
    lambda x: sp.Piecewise((sp.pi, x < 0), (0, True)),
    _angle,
    partials=lambda: (0,),
    exact=False,
    domain={"x": "nonzero"},
)


def _half_numbers(a: Any, b: Any) -> tuple:
    """Number operands of a float16 op as float16 numbers (PyTorch's wrapped scalars)."""
    half = np.result_type(a, b) == np.float16
    return tuple(np.float16(v) if half and isinstance(v, (int, float)) else v for v in (a, b))


def _xlogy(a: Any, b: Any) -> Any:
    """``a * log(b)``, 0 where ``a`` is 0 unless ``b`` is nan (PyTorch's xlogy). On float16
    each step is rounded to float16, as PyTorch's kernel computes in float16 arithmetic."""
    a, b = _half_numbers(a, b)
    zero = (a == 0) & ~np.isnan(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(zero, 0.0, a * np.log(np.where(zero, 1, b).astype(np.result_type(b))))


def _xlogy_dx(a: Any, b: Any, out: Any, g: Any) -> Any:
    # PyTorch: xlogy(grad, y) masked to 0 where x == 0 and y <= 0
    return np.where((a == 0) & (b <= 0), 0.0, _xlogy(g, b))


def _xlogy_number_dx(a: Any, out: Any, g: Any, b: Any) -> Any:
    # PyTorch: xlogy(grad, y), masked to 0 where x == 0 unless the number y is positive
    return np.where((a == 0) & ~np.greater(b, 0), 0.0, _xlogy(g, b))


# x * log(y), 0 where x == 0 (unless y is nan), as PyTorch
XLOGY = declare(
    "xlogy",
    "x y",
    lambda x, y: sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(y), True)),
    partials=lambda x, y: (
        sp.Piecewise((0, sp.Eq(x, 0) & (y <= 0)), (sp.log(y), True)),
        x / y,
    ),
    kernel=_xlogy,
    vjp_kernels={0: _xlogy_dx},
    exact=False,
    promote="float",
    domain={"y": "positive"},
)
XLOGY_NUMBER_OTHER = declare(
    "xlogy_number_other",
    "x",
    lambda x, y: sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(y), True)),
    params="y",
    partials=lambda x, y: (sp.Piecewise((0, sp.Eq(x, 0) & (y <= 0)), (sp.log(y), True)),),
    kernel=_xlogy,
    vjp_kernels={0: _xlogy_number_dx},
    # PyTorch: xlogy(grad, other), masked by input == 0: no graph back to the input
    masked=True,
    exact=False,
    promote="float",
    backward="XlogyBackward2",
    domain=Domain(params=((2.0,), (0.5,), (3.0,))),
)
XLOGY_NUMBER_SELF = declare(
    "xlogy_number_self",
    "y",
    lambda y, x: x * sp.log(y),
    params="x",
    kernel=lambda b, a: _xlogy(a, b),
    exact=False,
    promote="float",
    backward="XlogyBackward1",
    domain=Domain({"y": "positive"}, params=((2.0,), (-0.5,), (1.5,))),
)
for _prim in (XLOGY, XLOGY_NUMBER_OTHER, XLOGY_NUMBER_SELF):
    _prim.half_in_float32 = False  # float16 as it is: PyTorch's kernel rounds log(y) first


def _xlog1py(a: Any, b: Any) -> Any:
    """``a * log1p(b)``, 0 where ``a`` is 0 unless ``b`` is nan (PyTorch's xlog1py)."""
    zero = (a == 0) & ~np.isnan(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(zero, 0.0, a * np.log1p(np.where(zero, 0, b)))


def _xlog1py_dx(a: Any, b: Any, out: Any, g: Any) -> Any:
    # PyTorch: xlog1py(grad, y) masked to 0 where x == 0 and y <= -1
    return np.where((a == 0) & (b <= -1), 0.0, _xlog1py(g, b))


# x * log1p(y), 0 where x == 0 (unless y is nan): special.xlog1py, one node as in PyTorch
XLOG1PY = declare(
    "special_xlog1py",
    "x y",
    lambda x, y: sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(1 + y), True)),
    partials=lambda x, y: (
        sp.Piecewise((0, sp.Eq(x, 0) & (y <= -1)), (sp.log(1 + y), True)),
        x / (1 + y),
    ),
    kernel=_xlog1py,
    vjp_kernels={0: _xlog1py_dx},
    exact=False,
    promote="float",
    backward="SpecialXlog1PyBackward0",
    domain={"y": "positive"},
)


# |x| with the sign of y; PyTorch: d/dx = out / x (0 at x == 0), d/dy = 0
COPYSIGN = declare(
    "copysign",
    "x y",
    lambda x, y: sp.Piecewise((sp.Abs(x), y >= 0), (-sp.Abs(x), True)),
    partials=lambda x, y, out: (sp.Piecewise((0, sp.Eq(x, 0)), (out / x, True)), 0),
    kernel=np.copysign,
    exact=False,
    promote="float",
    domain={"x": "nonzero", "y": "nonzero"},
)
# its forward formula reads only x's tangent: y's adds no zero (nor -0.0 + 0.0), and a tangent
# of y alone gives none
COPYSIGN.tangent_inputs = (0,)
COPYSIGN_SCALAR = declare(
    "copysign_scalar",
    "x",
    lambda x, y: sp.Piecewise((sp.Abs(x), y >= 0), (-sp.Abs(x), True)),
    params="y",
    partials=lambda x, out: (sp.Piecewise((0, sp.Eq(x, 0)), (out / x, True)),),
    kernel=np.copysign,
    exact=False,
    promote="float",
    backward="CopysignBackward1",
    domain=Domain({"x": "nonzero"}, params=((-1.0,), (2.0,), (-0.5,))),
)


def lerp_values(a: Any, b: Any, w: Any) -> Any:
    """PyTorch's two forms, each exact at its end, each a fused multiply-add (float16 in
    float32, PyTorch's computing type)."""
    dtype = np.result_type(a, b, w)
    if dtype == np.float16:
        a, b, w = (v if isinstance(v, float) else np.asarray(v, np.float32) for v in (a, b, w))
    if isinstance(w, float) and dtype != np.float64:
        w = np.float32(w)
    diff = b - a
    low = np.abs(w) < 0.5
    if np.ndim(w) == 0:  # one form for every element
        out = fused_multiply_add(w, diff, a) if low else fused_multiply_add(-diff, 1 - w, b)
    else:
        out = np.where(low, fused_multiply_add(w, diff, a), fused_multiply_add(-diff, 1 - w, b))
    return np.asarray(out).astype(dtype, copy=False)


lerp_values.blockwise = False  # (its chunks already run in the cache)
LERP_SCALAR = declare(
    "lerp",
    "x y",
    lambda x, y, weight: x + weight * (y - x),
    params="weight",
    kernel=lerp_values,
    backward="LerpBackward0",
    domain=Domain(params=((0.25,), (0.75,), (1.5,))),
)
LERP_TENSOR = declare(
    "lerp_tensor",
    "x y w",
    lambda x, y, w: x + w * (y - x),
    kernel=lerp_values,
    backward="LerpBackward1",
)


# PyTorch's derivative is -(1 + log x) everywhere: inf at 0, nan below
# PyTorch's derivative is -(1 + log x) everywhere: inf at 0, nan below
ENTR = declare(
    "special_entr",
    "x",
    lambda x: sp.Piecewise((-x * sp.log(x), x > 0), (0, sp.Eq(x, 0)), (-sp.oo, True)),
    partials=lambda x: (-(1 + sp.log(x)),),
    kernel=N.entr,
    exact=False,
    promote="float",
    backward="SpecialEntrBackward0",
    # (clear of 1/e, where float32's -(1 + log x) cancels to a few digits)
    domain={"x": "above_one"},
)


# the gradient through the output, pdf / cdf = exp(-x^2/2 - out) / sqrt(2 pi), as PyTorch's:
# finite where the cdf underflows
LOG_NDTR = declare(
    "special_log_ndtr",
    "x",
    lambda x: sp.log(sp.erfc(-x / sp.sqrt(2)) / 2),
    partials=lambda x, out: (sp.exp(-(x**2) / 2 - out) / sp.sqrt(2 * sp.pi),),
    kernel=N.log_ndtr,
    promote="float",
    backward="SpecialLogNdtrBackward0",
)


NDTRI = declare(
    "special_ndtri",
    "x",
    lambda x: sp.sqrt(2) * sp.erfinv(2 * x - 1),
    partials=lambda out: (sp.sqrt(2 * sp.pi) * sp.exp(out**2 / 2),),
    kernel=N.ndtri,
    promote="float",
    backward="SpecialNdtriBackward0",
    domain={"x": "unit"},
)

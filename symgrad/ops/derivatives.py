"""PyTorch's derivative formulas, for the graphs that ``create_graph=True`` records.

A first backward pass computes ``g * partial`` with one fused kernel per input, derived by
SymPy. When the pass records a graph (for second derivatives), the element-wise ops below
write it with the ops PyTorch's own formulas use (its ``derivatives.yaml``), so the nodes of
that graph carry PyTorch's names (``MulBackward0`` for the gradient of ``exp``, not a
derivative-of-exp node) and the derivatives of every order agree with PyTorch's, including
where a formula meets 0 or inf. Ops without an entry keep the fused node, named after the
derivative it computes, or after PyTorch's own backward op where it has one (declared with
the op: ``vjp_backward="ThresholdBackwardBackward0"`` for relu).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._lazy import sympy as sp
from symgrad.ops import elementwise as E
from symgrad.ops import elementwise_special as ES
from symgrad.ops import special_functions as SF
from symgrad.ops.activations import LOGSIGMOID
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.kernels import _scalar_base_power
from symgrad.prim.structural import without_derivative
from symgrad.tensor import Tensor

__all__ = ["FORMULAS", "formula", "apply_formula"]


class _Args:
    """What a formula reads: the incoming gradient, the op's inputs, its output."""

    __slots__ = ("g", "xs", "_out", "_prim", "_params")

    def __init__(self, g: Tensor, xs: tuple, out: Any, prim: Any, params: tuple) -> None:
        self.g, self.xs, self._out, self._prim, self._params = g, xs, out, prim, params

    @property
    def x(self) -> Any:
        return self.xs[0]

    @property
    def y(self) -> Any:
        return self.xs[1]

    @property
    def out(self) -> Tensor:
        """The op's output (computed again when the node did not keep it)."""
        if self._out is None:
            self._out = self._prim(*self.xs, params=self._params)
        return self._out

    @property
    def p(self) -> Any:
        return self._params[0]


# the Scalar overloads PyTorch's C++ formulas call (``2 * result`` is mul.Scalar there)
_MUL_SCALAR = Elementwise(
    "mul_scalar", "x", lambda x, c: x * c, params="c", kernel=np.multiply, backward="MulBackward1"
)
_ADD_SCALAR = Elementwise(
    "add_scalar", "x", lambda x, c: x + c, params="c", kernel=np.add, backward="AddBackward1"
)
_DIV_SCALAR = Elementwise(
    "div_scalar", "x", lambda x, c: x / c, params="c", kernel=np.divide, backward="DivBackward1"
)
_SGN = Elementwise(
    "sgn",
    "x",
    lambda x: sp.sign(x),
    partials=lambda: (0,),
    kernel=E.SIGN.kernel,
    backward="SgnBackward0",
    exact=False,
)


def _scaled(t: Tensor, c: float) -> Tensor:
    return _MUL_SCALAR(t, params=(c,))


def _divided(t: Tensor, c: float) -> Tensor:
    return _DIV_SCALAR(t, params=(c,))


def _shifted(t: Tensor, c: float) -> Tensor:
    return _ADD_SCALAR(t, params=(c,))


def number_minus(c: float, t: Tensor) -> Tensor:
    """``c - t`` as ATen's C++ formulas write it: the number a 0-d tensor of ``t``'s dtype
    (``SubBackward0``, its edge None), not PyTorch's Python ``rsub`` (``RsubBackward1``)."""
    from symgrad.creation import tensor
    from symgrad.ops.math import sub

    return sub(tensor(c, dtype=t.dtype), t)


def minus_number(t: Tensor, c: float) -> Tensor:
    """``t - c`` as PyTorch's C++ formulas write it: sub.Scalar (``SubBackward1``)."""
    from symgrad.ops.scaled import SUB_NUMBER

    return SUB_NUMBER(t, c, params=(1,))


def plus_number(t: Tensor, c: float) -> Tensor:
    """``t + c`` as ATen's C++ formulas write it: add.Scalar (``AddBackward1``) for a
    floating ``t``."""
    return _shifted(t, c) if t.dtype.is_floating_point else t + c


def _pow(a: _Args) -> Any:
    if a.p == 0:  # PyTorch: zeros, no graph
        return None
    return a.g * _scaled(a.x.pow(a.p - 1), a.p)


def _pow_self(a: _Args) -> Any:
    """PyTorch's pow_backward_self: 0 where the exponent is 0, else g * y * x ** (y - 1)."""
    from symgrad.ops.math import where

    return where(a.y == 0, 0.0, a.g * (a.y * a.x.pow(minus_number(a.y, 1.0))))


def _pow_exponent(a: _Args, base: Any) -> Any:
    """PyTorch's pow_backward_exponent: 0 where the base is 0 and the exponent >= 0, else
    g * out * log(base)."""
    from symgrad.ops.math import where

    y = a.xs[-1]
    if isinstance(base, Tensor):
        return a.g * where((base == 0) & (y >= 0), 0.0, a.out * base.log())
    if base == 0:
        return a.g * where(y >= 0, 0.0, a.out * -math.inf)
    return a.g * _scaled(a.out, math.log(base) if base > 0 else math.nan)


# (op, input) -> the gradient of that input, as PyTorch writes it; None: zeros without graph
FORMULAS: dict[tuple[str, int], Callable[[_Args], Any]] = {
    ("add", 0): lambda a: a.g,
    ("add", 1): lambda a: a.g,
    ("add_scalar", 0): lambda a: a.g,
    ("sub", 0): lambda a: a.g,
    ("mul", 0): lambda a: a.g * a.y,
    ("mul_scalar", 0): lambda a: _scaled(a.g, a.p),
    ("mul", 1): lambda a: a.g * a.x,
    ("div", 0): lambda a: a.g / a.y,
    ("div", 1): lambda a: -a.g * ((a.x / a.y) / a.y),
    ("sub", 1): lambda a: -a.g,
    ("neg", 0): lambda a: -a.g,
    ("pow", 0): _pow,
    ("pow_tensor", 0): _pow_self,
    ("pow_tensor", 1): lambda a: _pow_exponent(a, a.x),
    ("pow_scalar_base", 0): lambda a: _pow_exponent(a, a.p),
    ("square", 0): lambda a: a.g * _scaled(a.x.pow(1), 2),
    ("exp", 0): lambda a: a.g * a.out,
    ("expm1", 0): lambda a: a.g * _shifted(a.out, 1),
    ("log", 0): lambda a: a.g / a.x,
    ("log1p", 0): lambda a: a.g / _shifted(a.x, 1),
    ("sin", 0): lambda a: a.g * a.x.cos(),
    ("cos", 0): lambda a: a.g * -a.x.sin(),
    ("tan", 0): lambda a: a.g * _shifted(a.out.pow(2), 1),
    ("sqrt", 0): lambda a: a.g / _scaled(a.out, 2),
    ("rsqrt", 0): lambda a: _scaled(a.g, -0.5) * a.out.pow(3),
    ("reciprocal", 0): lambda a: -a.g * (a.out * a.out),
    ("abs", 0): lambda a: a.g * _SGN(a.x),
    ("erf", 0): lambda a: _scaled((-a.x.pow(2)).exp(), 2.0 / math.sqrt(math.pi)) * a.g,
    ("silu", 0): lambda a: _silu(a),
    ("asin", 0): lambda a: a.g * _shifted(-a.x * a.x, 1).rsqrt(),
    ("acos", 0): lambda a: a.g * -_shifted(-a.x * a.x, 1).rsqrt(),
    ("asinh", 0): lambda a: a.g * _shifted(a.x.pow(2), 1).rsqrt(),
    ("acosh", 0): lambda a: a.g * minus_number(a.x * a.x, 1.0).rsqrt(),
    ("atan", 0): lambda a: a.g / _shifted(a.x * a.x, 1),
    ("atanh", 0): lambda a: _scaled(a.g, 1) / (_one(a.x) - a.x.pow(2)),
    ("sinh", 0): lambda a: a.g * a.x.cosh(),
    ("cosh", 0): lambda a: a.g * a.x.sinh(),
    ("lgamma", 0): lambda a: a.g * a.x.digamma(),
    ("digamma", 0): lambda a: a.g * a.x.polygamma(1),
    ("erfc", 0): lambda a: _scaled((-a.x.pow(2)).exp(), -2.0 / math.sqrt(math.pi)) * a.g,
    ("erfinv", 0): lambda a: _scaled(a.out.pow(2).exp(), math.sqrt(math.pi) / 2) * a.g,
    ("exp2", 0): lambda a: _scaled(a.g * a.out, math.log(2)),
    ("log2", 0): lambda a: a.g / _scaled(a.x, math.log(2)),
    ("log10", 0): lambda a: a.g / _scaled(a.x, ES.LN10),
    ("sinc", 0): lambda a: _sinc(a),
    ("logit", 0): lambda a: _logit(a, 0.0, 1.0, math.nan),
    ("logit_eps", 0): lambda a: _logit(a, a.p, 1.0 - a.p, 0.0),
    ("mish", 0): lambda a: _mish(a),
    ("polygamma", 0): lambda a: a.g * SF.POLYGAMMA(a.x, params=(a.p + 1,)),
    ("polygamma_", 0): lambda a: a.g * SF.POLYGAMMA(a.x, params=(a.p + 1,)),
    ("i0", 0): lambda a: a.g * SF.I1(a.x),
    ("i0e", 0): lambda a: a.g * (SF.I1E(a.x) - _SGN(a.x) * a.out),
    ("ldexp", 0): lambda a: a.g * _two_to_the(a.y),
    ("xlogy", 0): lambda a: _masked_zero(ES.XLOGY(a.g, a.y), (a.x == 0) & (a.y <= 0)),
    ("xlogy", 1): lambda a: a.g * a.x / a.y,
    ("xlogy_number_self", 0): lambda a: _scaled(a.g, a.p) / a.x,
    ("special_xlog1py", 0): lambda a: _masked_zero(ES.XLOG1PY(a.g, a.y), (a.x == 0) & (a.y <= -1)),
    ("special_xlog1py", 1): lambda a: a.g * a.x / _shifted(a.y, 1.0),
    # binary_cross_entropy_with_logits_backward and its target's, under grad mode
    ("bce_with_logits_plain", 0): lambda a: (a.x.sigmoid() - a.y) * a.g,
    ("bce_with_logits_plain", 1): lambda a: -a.x * a.g,
    ("bce_with_logits", 0): lambda a: _bce_logits_input(a),
    ("bce_with_logits", 1): lambda a: (LOGSIGMOID(-a.x) - LOGSIGMOID(a.x) * a.xs[2]) * a.g,
    ("i1", 0): lambda a: _i1(a, lambda safe: SF.I0(safe) - a.out * safe.reciprocal()),
    ("i1e", 0): lambda a: _i1(
        a, lambda safe: SF.I0E(safe) - a.out * (_SGN(safe) + safe.reciprocal())
    ),
    # the backward ops' own formulas (inputs: x, the op's output, the gradient it received)
    ("tanh_backward", 1): lambda a: a.g * (_scaled(a.xs[1], -2.0) * a.xs[2]),
    ("tanh_backward", 2): lambda a: E.TANH.vjp_primitive(0)(0, a.xs[1], a.g),
    ("sigmoid_backward", 1): lambda a: a.g * a.xs[2] * _shifted(_scaled(a.xs[1], -2.0), 1.0),
    ("sigmoid_backward", 2): lambda a: E.SIGMOID.vjp_primitive(0)(0, a.xs[1], a.g),
    # binary_cross_entropy's backward (inputs: x, target, output, the gradient it received)
    ("bce_backward0", 0): lambda a: _bce_double_backward(a),
    ("bce_backward0", 1): lambda a: -(a.g * a.xs[3]) / (a.x * (_one(a.x) - a.x)).clamp_min(1e-12),
    ("bce_backward0", 3): lambda a: a.g * ((a.x - a.y) / (_bce_plus_eps(a) * _bce_minus_eps(a))),
    # binary_cross_entropy_target_backward: -logit(x) * g
    ("bce", 1): lambda a: -a.x.logit() * a.g,
    ("softplus_backward", 0): lambda a: _softplus_double_backward(a),
    ("softplus_backward", 2): lambda a: E.SOFTPLUS.vjp_primitive(0)(
        a.xs[0], a.xs[1], a.g, params=a._params
    ),
    # _prelu_kernel_backward's (inputs: x, weight, output, the gradient it received): its
    # kernel takes x > 0 as positive, these formulas x >= 0 (so at 0 they differ, as PyTorch)
    ("prelu_backward0", 1): lambda a: _where(a.x >= 0, 0.0, a.xs[3] * a.g),
    ("prelu_backward0", 3): lambda a: _where(a.x >= 0, a.g, a.g * a.y),
    ("prelu_backward1", 0): lambda a: _where(a.x >= 0, 0.0, a.xs[3] * a.g),
    ("prelu_backward1", 3): lambda a: _where(a.x >= 0, 0.0, a.g * a.x),
    ("atan2", 0): lambda a: a.g * a.y * _atan2_recip(a),
    ("atan2", 1): lambda a: a.g * -a.x * _atan2_recip(a),
    ("hypot", 0): lambda a: a.g * a.x / a.out,
    ("hypot", 1): lambda a: a.g * a.y / a.out,
    ("maximum", 0): lambda a: _extremum_share(a, a.x < a.y),
    ("maximum", 1): lambda a: _extremum_share(a, a.x > a.y),
    ("minimum", 0): lambda a: _extremum_share(a, a.x > a.y),
    ("minimum", 1): lambda a: _extremum_share(a, a.x < a.y),
    ("fmax", 0): lambda a: _masked_zero(a.g, ~((a.x >= a.y) | a.y.isnan())),
    ("fmax", 1): lambda a: _masked_zero(a.g, (a.x >= a.y) | a.y.isnan()),
    ("fmin", 0): lambda a: _masked_zero(a.g, ~((a.x <= a.y) | a.y.isnan())),
    ("fmin", 1): lambda a: _masked_zero(a.g, (a.x <= a.y) | a.y.isnan()),
    ("lerp", 0): lambda a: _scaled(a.g, 1.0 - a.p),
    ("lerp", 1): lambda a: _scaled(a.g, a.p),
    ("lerp_tensor", 0): lambda a: a.g * (_one(a.xs[2]) - a.xs[2]),
    ("lerp_tensor", 1): lambda a: a.g * a.xs[2],
    ("lerp_tensor", 2): lambda a: a.g * (a.y - a.x),
    # addcmul and addcdiv (inputs: x, tensor1, tensor2; the parameter: value)
    ("addcmul", 0): lambda a: a.g,
    ("addcmul", 1): lambda a: a.g * _scaled(a.xs[2], a.p),
    ("addcmul", 2): lambda a: a.g * _scaled(a.xs[1], a.p),
    ("addcdiv", 0): lambda a: a.g,
    ("addcdiv", 1): lambda a: a.g * (_number_tensor(a.p, a.xs[2]) / a.xs[2]),
    ("addcdiv", 2): lambda a: -a.g * (_scaled(a.xs[1], a.p) / (a.xs[2] * a.xs[2])),
    ("frac", 0): lambda a: a.g,
    ("deg2rad", 0): lambda a: _scaled(a.g, math.pi / 180),
    ("rad2deg", 0): lambda a: _scaled(a.g, 180 / math.pi),
    # number - tensor and the alpha-scaled sums and differences (maybe_multiply by alpha)
    ("rsub", 0): lambda a: -a.g,
    ("rsub_number", 0): lambda a: _times_alpha(-a.g, a.p),
    ("rsub_tensor", 0): lambda a: _times_alpha(-a.g, a.p),
    ("rsub_tensor", 1): lambda a: a.g,
    ("add_scaled", 0): lambda a: a.g,
    ("add_scaled", 1): lambda a: _times_alpha(a.g, a.p),
    ("sub_scaled", 0): lambda a: a.g,
    ("sub_scaled", 1): lambda a: _times_alpha(-a.g, a.p),
    ("sub_number", 0): lambda a: a.g,
    ("where", 1): lambda a: _where(a.xs[0], a.g, 0.0),
    ("where", 2): lambda a: _where(a.xs[0], 0.0, a.g),
    ("logaddexp", 0): lambda a: a.g / _shifted((a.y - a.x).exp(), 1),
    ("logaddexp", 1): lambda a: a.g / _shifted((a.x - a.y).exp(), 1),
    ("logaddexp2", 0): lambda a: a.g / _shifted(E.POW_SCALAR_BASE(a.y - a.x, params=(2.0,)), 1),
    ("logaddexp2", 1): lambda a: a.g / _shifted(E.POW_SCALAR_BASE(a.x - a.y, params=(2.0,)), 1),
    ("copysign", 0): lambda a: a.g * _masked_zero(a.out / a.x, a.x == 0),
    ("copysign_scalar", 0): lambda a: a.g * _masked_zero(a.out / a.x, a.x == 0),
}


def _times_alpha(t: Tensor, alpha: Any) -> Tensor:
    """PyTorch's maybe_multiply: ``t`` itself for an alpha of 1, else ``t * alpha``."""
    return t if alpha == 1 else _scaled(t, alpha)


def _where(condition: Any, x: Any, y: Any) -> Tensor:
    """PyTorch's ``where`` of the gradient; the element-wise primitive also takes a number
    condition (its elements true where not zero, as the formula reads them)."""
    from symgrad.ops.math import where

    if condition.dtype is not dtypes.bool_:
        condition = condition != 0
    return where(condition, x, y)


def _number_tensor(c: float, x: Tensor) -> Tensor:
    """The number ``c`` as a 0-d tensor of ``x``'s dtype (a wrapped number, no edge)."""
    return Tensor._make(np.asarray(c, dtype=x._data.dtype))


def _one(x: Tensor) -> Tensor:
    """1 as a 0-d tensor of ``x``'s dtype (PyTorch's ``1 - t`` in C++ is a sub of two
    tensors)."""
    return Tensor._make(np.ones((), x._data.dtype))


_UNDIFFERENTIABLE: dict[str, Any] = {}


def _not_differentiable(a: _Args) -> Tensor:
    """The gradient of a one-input op whose PyTorch backward op has no derivative
    (``vjp_backward="NotImplemented"``) as that op's ``NotImplemented`` node: edges to the
    incoming gradient and the input where they require grad, an error when a pass reaches
    it."""
    name = f"{a._prim.name}_backward"
    node = _UNDIFFERENTIABLE.get(name) or _UNDIFFERENTIABLE.setdefault(
        name, without_derivative(name)
    )
    arrays = [x._data if isinstance(x, Tensor) else x for x in a.xs]
    values = a._prim.vjp_kernel(0)(*arrays, None, a.g._data, *a._params)
    reads = [t for t in (a.g, a.x) if isinstance(t, Tensor) and t.requires_grad]
    return node(*reads, values=values) if reads else Tensor._make(values)


def _atan2_recip(a: _Args) -> Any:
    """PyTorch's ``1 / (x^2 + y^2)`` of atan2_backward, 0 where it is inf (at the origin)."""
    from symgrad.ops.mask_fill import masked_fill

    recip = (a.x * a.x + a.y * a.y).reciprocal()
    return masked_fill(recip, recip.isinf(), 0.0)


def _masked_zero(t: Tensor, mask: Tensor) -> Tensor:
    from symgrad.ops.mask_fill import masked_fill

    return masked_fill(t, mask, 0.0)


def _extremum_share(a: _Args, lost: Tensor) -> Any:
    """PyTorch's maximum and minimum backward: half the gradient at ties, all of it where the
    input is chosen (or either is nan), 0 where it ``lost``."""
    from symgrad.ops.math import where

    return _masked_zero(where(a.x == a.y, _divided(a.g, 2), a.g), lost)


def _bce_plus_eps(a: _Args) -> Any:
    return _shifted(a.x, _BCE_EPS)


def _bce_minus_eps(a: _Args) -> Any:
    return _shifted(_one(a.x) - a.x, _BCE_EPS)


def _bce_double_backward(a: _Args) -> Any:
    """PyTorch's binary_cross_entropy_double_backward: ``g g_out (x^2 - 2 x y + y) /
    ((x + eps)^2 (1 - x + eps)^2)``, with eps added, not clamped: 0 for a right prediction
    of exactly 0 or 1, ``1 / eps^2`` for a wrong one."""
    x, y = a.x, a.y
    top = x * x - _scaled(x * y, 2.0) + y
    return a.g * a.xs[3] * (top / (_bce_plus_eps(a).pow(2) * _bce_minus_eps(a).pow(2)))


_BCE_EPS = 1e-12


def _softplus_double_backward(a: _Args) -> Any:
    """PyTorch's softplus_double_backward: ``sigmoid_backward(grad * grad_output,
    sigmoid(beta x)) * (beta x < threshold) * beta``."""
    beta, threshold = a._params
    scaled = _scaled(a.x, beta)
    slope = E.SIGMOID.vjp_primitive(0)(0, scaled.sigmoid(), a.g * a.xs[2])
    return _scaled(slope * (scaled < threshold), beta)


def _sinc(a: _Args) -> Any:
    """PyTorch's sinc_backward: ``g (pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 at 0."""
    from symgrad.ops.math import where

    x_pi = _scaled(a.x, math.pi)
    x2_pi = _scaled(a.x * a.x, math.pi)
    out = a.g * ((x_pi * x_pi.cos() - x_pi.sin()) / x2_pi)
    return where(x2_pi == 0.0, 0.0, out)


def _two_to_the(y: Tensor) -> Tensor:
    """PyTorch's ``pow(2, other)`` in ldexp's gradient: recorded for a floating ``other``, an
    integer power in its dtype otherwise (0 for a negative exponent)."""
    if y.dtype.is_floating_point:
        return E.POW_SCALAR_BASE(y, params=(2.0,))
    return Tensor._make(np.asarray(_scalar_base_power(y._data, 2)))


def _bce_logits_input(a: _Args) -> Any:
    """``((pos_weight y + 1 - y) sigmoid(x) - pos_weight y) g``, in PyTorch's order."""
    t = a.xs[2] * a.y
    return ((_shifted(t, 1.0) - a.y) * a.x.sigmoid() - t) * a.g


def _i1(a: _Args, derivative: Callable) -> Any:
    """PyTorch's i1_backward and i1e_backward: 1/2 where ``|x|`` is not above epsilon (and
    at nan), elsewhere ``derivative`` of x read as epsilon there."""
    from symgrad.ops.math import where

    eps = float(np.finfo(a.x.dtype.numpy).eps)
    not_tiny = a.x.abs() > eps
    return a.g * where(not_tiny, derivative(where(not_tiny, a.x, eps)), 0.5)


def _logit(a: _Args, low: float, high: float, outside: float) -> Any:
    """PyTorch's logit backward under grad mode: ``g / (x (1 - x))`` inside [low, high]."""
    from symgrad.ops.math import where

    return where((a.x >= low) & (a.x <= high), a.g / (a.x * (_one(a.x) - a.x)), outside)


def _mish(a: _Args) -> Any:
    """PyTorch's mish_backward: ``g (t + x sigmoid(x) (1 - t^2))``, ``t = tanh(log1p(exp(x)))``."""
    s, t = a.x.sigmoid(), a.x.exp().log1p().tanh()
    return a.g * (t + a.x * s * (_one(t) - t * t))


def _silu(a: _Args) -> Any:
    s = a.x.sigmoid()
    return a.g * s * _shifted(a.x * (_one(s) - s), 1.0)


def formula(prim: Any, i: int) -> Callable[[_Args], Any] | None:
    """PyTorch's formula for the gradient of input ``i`` of ``prim``, if written here."""
    if prim.vjp_backward == "NotImplemented":
        return _not_differentiable
    return FORMULAS.get((prim.name, i))


def apply_formula(rule: Callable, prim: Any, args: tuple, out: Any, g: Tensor, params: tuple):
    """The gradient by PyTorch's formula ``rule`` (zeros that record nothing for None)."""
    result = rule(_Args(g, tuple(args), out, prim, tuple(params)))
    if result is None:
        return Tensor._make(g._data * 0)
    return result

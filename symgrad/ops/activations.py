"""More element-wise primitives: the activations of ``torch.nn.functional`` and the two
piecewise regression losses, declared like those of :mod:`symgrad.ops.elementwise`.

Where PyTorch's derivative at a kink differs from the one-sided limit SymPy would take, the
partial is declared (``exact=False``) with PyTorch's value there, and written so that its own
derivative (the second derivative) is PyTorch's too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad._memory_format import rows_kernel
from symgrad.ops import elementwise as E
from symgrad.ops.elementwise import declare
from symgrad.prim.domains import Domain
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.kernels import _sigmoid
from symgrad.prim.tangents import no_forward_rule

# PyTorch's SELU constants (Klambauer et al., 2017)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _selu(v: Any) -> Any:
    with np.errstate(over="ignore", invalid="ignore"):
        return SELU_SCALE * np.where(v > 0, v, SELU_ALPHA * np.expm1(np.minimum(0, v)))


def _hardtanh(v: Any, low: Any, high: Any) -> Any:
    # min(max(v, low), high) as ATen's clamp: high everywhere when the bounds cross
    return np.where((v > high) | (low > high), high, np.where(v < low, low, v))


def _mish(v: Any) -> Any:
    return v * np.tanh(np.logaddexp(0, v))


def _mish_partial(v: Any, out: Any) -> Any:
    # PyTorch's form: tanh(softplus(v)) + v * sigmoid(v) * (1 - tanh(softplus(v))**2)
    t = np.tanh(np.logaddexp(0, v))
    return t + v * _sigmoid(v) * (1 - t * t)


def _special() -> Any:
    from symgrad.prim import special

    return special


def _mish_formula_partial(x: Any) -> Any:
    # tanh(softplus(x)) = (1 - (1 - s)**2) / (1 + (1 - s)**2) for s = sigmoid(x): finite at
    # every order, where the exponential form overflows
    s = _special().sigmoid(x)
    t = (1 - (1 - s) ** 2) / (1 + (1 - s) ** 2)
    return t + x * s * (1 - t**2)


def _selu_formula(x: Any) -> Any:
    scale, alpha = sp.Float(SELU_SCALE, 30), sp.Float(SELU_ALPHA, 30)
    return scale * sp.Piecewise((x, x > 0), (alpha * (sp.exp(x) - 1), True))


def _selu_partial(x: Any) -> Any:
    scale, alpha = sp.Float(SELU_SCALE, 30), sp.Float(SELU_ALPHA, 30)
    # as elu: scale * alpha * exp(x) below 0, a constant at the kink (second derivative 0)
    return sp.Piecewise(
        (scale, x > 0),
        (scale * alpha * sp.exp(x), x < 0),
        (scale * alpha, sp.Eq(x, 0)),
        (sp.nan, True),  # PyTorch: nan at nan
    )


SELU = declare(
    "selu",
    "x",
    _selu_formula,
    partials=lambda x: (_selu_partial(x),),
    kernel=_selu,
    exact=False,
    promote="float",
    backward="EluBackward0",
    domain={"x": "nonzero"},
    vjp_backward="EluBackwardBackward0",
)


_NEGATIVE_IN_PLACE = (
    "In-place {op} backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


def _positive_only(prim: Elementwise, op: str) -> dict:
    """The VJP kernel of ``prim``, refusing a negative last parameter (slope or alpha) as
    PyTorch's in-place backward does: the sign of the result no longer tells the input's."""

    def vjp(*args: Any) -> Any:
        if args[-1] < 0:
            raise RuntimeError(_NEGATIVE_IN_PLACE.format(op=op))
        return prim.vjp_kernel(0)(*args)

    return {0: vjp}


def _renamed(
    prim: Elementwise,
    name: str,
    backward: str,
    vjp_backward: Any = None,
    vjp_kernels: dict | None = None,
    reads_result: bool = False,
    vjp_edges: tuple | None = None,
) -> Any:
    """``prim``'s formula, partials, kernels and domain under another name and node name
    (with other VJP kernels or edges, or reading its result, where given)."""
    inputs, expr, params, partials = prim._declared
    return declare(
        name,
        inputs,
        expr,
        params=params,
        partials=partials,
        kernel=prim.kernel,
        partial_kernels=prim.partial_kernels,
        vjp_kernels=prim._vjp_kernels if vjp_kernels is None else vjp_kernels,
        promote=prim.promote,
        exact=prim.exact,
        domain=prim.domain,
        masked=prim.masked,
        backward=backward,
        vjp_backward=vjp_backward or prim.vjp_backward,
        reads_result=reads_result,
        edges=prim.edges,
        vjp_edges=vjp_edges or prim.vjp_edges,
    )


def _in_place_form(
    prim: Elementwise, backward: str, op: str | None = None, vjp_edges: tuple | None = None
) -> Elementwise:
    """``prim`` again under the name of PyTorch's in-place node, whose backward reads the
    result (saved, so changing it afterwards breaks the backward): the same formula, partials,
    kernels and domain; ``op`` names it in the error for a negative slope, ``vjp_edges`` gives
    its backward op's edges where they differ from ``prim``'s."""
    vjp_kernels = None if op is None else _positive_only(prim, op)
    return _renamed(
        prim,
        prim.name + "_",
        backward,
        vjp_kernels=vjp_kernels,
        reads_result=True,
        vjp_edges=vjp_edges,
    )


def _scaled_elu(v: Any, scale: Any, input_scale: Any, alpha: Any) -> Any:
    with np.errstate(over="ignore", invalid="ignore"):
        return scale * np.where(v > 0, v, alpha * np.expm1(np.minimum(0, v) * input_scale))


# ATen's elu with all its coefficients (F.elu_(x, alpha, scale, input_scale)); alpha last, so
# the in-place form's check of a negative alpha reads it where it reads the others' slope
SCALED_ELU = declare(
    "scaled_elu",
    "x",
    lambda x, scale, input_scale, alpha: sp.Piecewise(
        (scale * x, x > 0), (scale * alpha * (sp.exp(input_scale * x) - 1), True)
    ),
    params="scale input_scale alpha",
    # as ELU's: the x <= 0 branch at the kink, scale at nan, the second derivative only for x < 0
    partials=lambda x, scale, input_scale, alpha: (
        sp.Piecewise(
            (scale, x > 0),
            (scale * alpha * input_scale * sp.exp(input_scale * x), x < 0),
            (scale * alpha * input_scale, sp.Eq(x, 0)),
            (scale, True),
        ),
    ),
    kernel=_scaled_elu,
    exact=False,
    promote="float",
    backward="EluBackward0",
    domain=Domain({"x": "nonzero"}, params=((1.0, 1.0, 0.5), (2.0, 0.5, 1.0), (1.5, 2.0, 0.4))),
    vjp_backward="EluBackwardBackward0",
)
SELU_ = _in_place_form(SELU, "EluBackward1")
SCALED_ELU_ = _in_place_form(SCALED_ELU, "EluBackward1", "elu")
ELU_ = _in_place_form(E.ELU, "EluBackward1", "elu")
LEAKY_RELU_ = _in_place_form(E.LEAKY_RELU, "LeakyReluBackward1", "leakyReLu")
MISH = declare(
    "mish",
    "x",
    lambda x: x * sp.tanh(sp.log(1 + sp.exp(x))),
    partials=lambda x: (_mish_formula_partial(x),),
    kernel=_mish,
    partial_kernels={0: _mish_partial},
    promote="float",
    half_backward="float32",
)
HARDTANH = declare(
    "hardtanh",
    "x",
    lambda x, min_val, max_val: sp.Piecewise(
        (max_val, (x > max_val) | (min_val > max_val)), (min_val, x < min_val), (x, True)
    ),
    params="min_val max_val",
    # PyTorch: gradient 1 strictly inside the bounds only (0 on them, and at nan)
    partials=lambda x, min_val, max_val: (
        sp.Piecewise((1, (x > min_val) & (x < max_val)), (0, True)),
    ),
    kernel=_hardtanh,
    exact=False,
    domain=Domain({"x": "clear_of_bounds"}, params=((-1.0, 1.0), (-0.5, 0.5), (-0.5, 0.7))),
    vjp_backward="HardtanhBackwardBackward0",
)
HARDSWISH = declare(
    "hardswish",
    "x",
    lambda x: sp.Piecewise((0, x < -3), (x * (x + 3) / 6, x <= 3), (x, True)),
    # PyTorch: 0 up to -3, 1 from 3 on, x/3 + 1/2 strictly between (and at nan)
    partials=lambda x: (
        sp.Piecewise((0, x <= -3), (1, x >= 3), (x / 3 + sp.Rational(1, 2), True)),
    ),
    # PyTorch's x * min(max(x + 3, 0), 6) / 6 everywhere: x * 6 overflows for huge float32
    kernel=lambda v: v * np.minimum(np.maximum(v + 3, 0), 6) / 6,
    exact=False,
    promote="float",
    vjp_backward="HardswishBackwardBackward0",
)
HARDSIGMOID = declare(
    "hardsigmoid",
    "x",
    lambda x: sp.Piecewise((0, x <= -3), (1, x >= 3), (x / 6 + sp.Rational(1, 2), True)),
    # 1/6 exactly (PyTorch's backward uses the float32 constant 1/6, in float64 too)
    partials=lambda x: (sp.Piecewise((sp.Rational(1, 6), (x > -3) & (x < 3)), (0, True)),),
    kernel=lambda v: np.minimum(np.maximum(v + 3, 0), 6) / 6,
    exact=False,
    promote="float",
    vjp_backward="NotImplemented",  # PyTorch's hardsigmoid_backward has no derivative
    half_backward="float32",
)


def _logsigmoid_half_backward(x: Any, out: Any, g: Any) -> Any:
    """PyTorch's log_sigmoid_backward on float16: its forward's buffer ``exp(-|x|)`` rounded
    to float16, then ``(max_deriv - sign * b / (1 + b)) * g`` in float32."""
    v = x.astype(np.float32)
    b = np.exp(-np.abs(v)).astype(np.float16).astype(np.float32)
    negative = v < 0
    return (negative - np.where(negative, 1.0, -1.0) * (b / (1 + b))) * g.astype(np.float32)


def _logsigmoid_partial(v: Any, out: Any) -> Any:
    # PyTorch's log_sigmoid_backward: max_deriv - sign * z / (1 + z) for z = exp(-|x|)
    z = np.exp(-np.abs(v))
    q = z / (1 + z)
    return np.where(v < 0, 1 - q, q)


LOGSIGMOID = declare(
    "logsigmoid",
    "x",
    lambda x: -sp.log(1 + sp.exp(-x)),
    partials=lambda x: (_special().sigmoid(-x),),
    # PyTorch's form: min(x, 0) - log1p(exp(-|x|)), so +0.0 for a large x
    kernel=rows_kernel(lambda v: np.minimum(v, 0) - np.log1p(np.exp(-np.abs(v)))),
    partial_kernels={0: _logsigmoid_partial},
    promote="float",
    backward="LogSigmoidBackward0",
    half_backward=_logsigmoid_half_backward,
    vjp_backward="LogSigmoidBackwardBackward0",
    # PyTorch's log_sigmoid_double_backward: g * (z - 1) * z for z = sigmoid(x), so 0 where z
    # rounds to 1 (x = 40), not the exact -sigmoid(x) * sigmoid(-x)
    vjp_partial_kernels={
        0: {
            0: lambda v, out, g, out2: g * (_sigmoid(v) - 1) * _sigmoid(v),
            2: lambda v, out, g, out2: _logsigmoid_partial(v, out),
        }
    },
)


def _inside(x: Any, lambd: Any) -> Any:
    return (x >= -lambd) & (x <= lambd)


def _outside(x: Any, lambd: Any) -> Any:
    # not the negation of _inside: nan is neither (PyTorch's gradient there is 0)
    return (x < -lambd) | (x > lambd)


SOFTSHRINK = declare(
    "softshrink",
    "x",
    lambda x, lambd: sp.Piecewise(
        (0, _inside(x, lambd)), (x - lambd, x > lambd), (x + lambd, True)
    ),
    params="lambd",
    partials=lambda x, lambd: (sp.Piecewise((1, _outside(x, lambd)), (0, True)),),
    kernel=lambda v, lambd: np.where(
        _inside(v, lambd), 0.0, np.where(v > lambd, v - lambd, v + lambd)
    ),
    exact=False,
    domain=Domain({"x": "clear_of_bounds"}, params=((0.5,), (1.0,))),
    vjp_backward="SoftshrinkBackwardBackward0",
)
HARDSHRINK = declare(
    "hardshrink",
    "x",
    lambda x, lambd: sp.Piecewise((0, _inside(x, lambd)), (x, True)),
    params="lambd",
    partials=lambda x, lambd: (sp.Piecewise((1, _outside(x, lambd)), (0, True)),),
    kernel=lambda v, lambd: np.where(_inside(v, lambd), 0.0, v),
    exact=False,
    domain=Domain({"x": "clear_of_bounds"}, params=((0.5,), (1.0,))),
    vjp_backward="HardshrinkBackwardBackward0",
)

# -- piecewise regression losses (fused with their reduction in symgrad.ops.losses) ------------


def _smooth_l1(v: Any, t: Any, beta: Any) -> Any:
    z = np.abs(v - t)
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def _huber(v: Any, t: Any, delta: Any) -> Any:
    z = np.abs(v - t)
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def _clipped(d: Any, bound: Any, inner: Any) -> Any:
    # PyTorch: -bound below -beta, +bound above, inner between, the ends taken by the outer
    # constants so that the second derivative is 0 there
    return sp.Piecewise((-bound, d <= -bound), (bound, d >= bound), (inner, True))


SMOOTH_L1 = declare(
    "smooth_l1",
    "x y",
    lambda x, y, beta: sp.Piecewise(
        ((x - y) ** 2 / (2 * beta), sp.Abs(x - y) < beta), (sp.Abs(x - y) - beta / 2, True)
    ),
    params="beta",
    partials=lambda x, y, beta: (
        sp.Piecewise((-1, x - y <= -beta), (1, x - y >= beta), ((x - y) / beta, True)),
        sp.Piecewise((1, x - y <= -beta), (-1, x - y >= beta), ((y - x) / beta, True)),
    ),
    kernel=_smooth_l1,
    exact=False,
    promote="float",
    domain=Domain({"x": "distinct", "y": "distinct"}, params=((1.0,), (0.5,))),
    vjp_backward="SmoothL1LossBackwardBackward0",
    vjp_edges=(3, 0, 1),  # smooth_l1_loss_backward(grad_output, self, target)
)
HUBER = declare(
    "huber",
    "x y",
    lambda x, y, delta: sp.Piecewise(
        ((x - y) ** 2 / 2, sp.Abs(x - y) < delta), (delta * (sp.Abs(x - y) - delta / 2), True)
    ),
    params="delta",
    partials=lambda x, y, delta: (
        _clipped(x - y, delta, x - y),
        -_clipped(x - y, delta, x - y),
    ),
    kernel=_huber,
    exact=False,
    promote="float",
    domain=Domain({"x": "distinct", "y": "distinct"}, params=((1.0,), (0.5,))),
    vjp_backward="HuberLossBackwardBackward0",
    vjp_edges=(3, 0, 1),  # huber_loss_backward(grad_output, self, target)
)


# -- threshold and rrelu: PyTorch's own node names over piecewise-linear formulas ----------------


def _threshold(v: Any, threshold: Any, value: Any) -> Any:
    return np.where(v <= threshold, value, v)


THRESHOLD = declare(
    "threshold",
    "x",
    lambda x, threshold, value: sp.Piecewise((value, x <= threshold), (x, True)),
    params="threshold value",
    kernel=_threshold,
    domain=Domain({"x": "clear_of_bounds"}, params=((0.5, -2.0), (-0.5, 0.0), (1.0, 3.0))),
    backward="ThresholdBackward0",
    vjp_backward="ThresholdBackwardBackward0",
)
# PyTorch's in-place form saves the input as it was (a copy), not the result
THRESHOLD_ = _renamed(THRESHOLD, "threshold_", "ThresholdBackward1")
# rrelu outside training: leaky_relu with the mean slope, under rrelu's node names
RRELU = _renamed(
    E.LEAKY_RELU, "rrelu", "RreluWithNoiseBackward0", "RreluWithNoiseBackwardBackward0"
)
RRELU_ = _in_place_form(RRELU, "RreluWithNoiseBackward1")
# in training: each negative element scaled by its own slope, drawn from U(lower, upper)
RRELU_WITH_NOISE = declare(
    "rrelu_with_noise",
    "x noise",
    lambda x, noise: sp.Piecewise((x, x > 0), (noise * x, True)),
    kernel=lambda v, noise: np.where(v > 0, v, noise * v),
    domain={"x": "nonzero", "noise": "unit"},
    backward="RreluWithNoiseBackward0",
    vjp_backward="RreluWithNoiseBackwardBackward0",
    edges=(0,),  # the drawn slopes are no edge
    vjp_edges=(3, 0),  # rrelu_with_noise_backward(grad_output, self, noise): no edge to noise
)
# in place, rrelu_with_noise_backward reads the result, not self
RRELU_WITH_NOISE_ = _in_place_form(RRELU_WITH_NOISE, "RreluWithNoiseBackward1", vjp_edges=(3, 2))
# in place, PyTorch's rrelu_with_noise_ has no forward-mode rule
RRELU_.jvp = RRELU_WITH_NOISE_.jvp = no_forward_rule("rrelu_with_noise_")
# PyTorch's _prelu_kernel_backward takes x > 0 as positive, its derivatives x >= 0: at 0 the
# second derivatives are those of the positive side (the partials of the gradients by
# (x, weight, output, incoming gradient), for the numeric pass; derivatives.py has the same
# for graphs)
_PRELU_DOUBLE_BACKWARD = {
    0: {
        1: lambda v, w, out, g, out2: np.where(v >= 0, 0.0, g),
        3: lambda v, w, out, g, out2: np.where(v >= 0, 1.0, w),
    },
    1: {
        0: lambda v, w, out, g, out2: np.where(v >= 0, 0.0, g),
        3: lambda v, w, out, g, out2: np.where(v >= 0, 0.0, v),
    },
}
PRELU = declare(
    "prelu",
    "x weight",
    lambda x, weight: sp.Piecewise((x, x > 0), (weight * x, True)),
    kernel=lambda v, weight: np.where(v > 0, v, weight * v),
    # the weight's partial as a kernel: its gradient's node then reads the weight too, an
    # edge of PyTorch's PreluKernelBackwardBackward0
    partial_kernels={1: lambda v, weight, out: np.where(v > 0, 0.0, v)},
    domain={"x": "nonzero"},
    backward="PreluKernelBackward0",
    vjp_backward="PreluKernelBackwardBackward0",
    vjp_edges=(3, 0, 1),  # _prelu_kernel_backward(grad_output, self, weight)
    vjp_partial_kernels=_PRELU_DOUBLE_BACKWARD,
)

"""Loss primitives: element-wise loss formulas fused with their reduction into one node.

The formulas are element-wise primitives (so SymPy differentiates them and the symbolic layer
can show them); fusing the reduction gives the node PyTorch's name
(``BinaryCrossEntropyWithLogitsBackward0``) and saves a pass over the data.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad._memory_format import laid_out_as_inputs
from symgrad.ops import activations as _activations
from symgrad.ops.elementwise import _sigmoid, declare
from symgrad.prim.batch_rules import physical_key
from symgrad.prim.batching import Unbatchable, batch_size, unwrap_level
from symgrad.prim.kernels import one_like, zero_like
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS


def _softplus0(v: Any) -> Any:
    return np.logaddexp(zero_like(v), v)


def _bce_logits(v: Any, t: Any, w: Any) -> Any:
    return (1 - t) * v + (1 + (w - 1) * t) * _softplus0(-v)


BCE_WITH_LOGITS = declare(
    "bce_with_logits",
    "x y pos_weight",
    lambda x, y, pos_weight: (1 - y) * x + (1 + (pos_weight - 1) * y) * sp.log(1 + sp.exp(-x)),
    kernel=_bce_logits,
    partial_kernels={
        # in PyTorch's order of operations, so that they round alike
        0: lambda v, t, w, out: (w * t + 1 - t) * _sigmoid(v) - w * t,
        1: lambda v, t, w, out: _softplus0(-v) * w - _softplus0(v),
        2: lambda v, t, w, out: t * _softplus0(-v),
    },
    promote="float",
    domain={"y": "unit", "pos_weight": "positive"},
)


# without pos_weight: the same formula with two inputs, so the node has PyTorch's two edges
BCE_WITH_LOGITS_PLAIN = declare(
    "bce_with_logits_plain",
    "x y",
    lambda x, y: (1 - y) * x + sp.log(1 + sp.exp(-x)),
    kernel=lambda v, t: (one_like(t) - t) * v + _softplus0(-v),
    partial_kernels={
        0: lambda v, t, out: _sigmoid(v) - t,
        1: lambda v, t, out: -v,
    },
    promote="float",
    domain={"y": "unit"},
)


def _clamped_log(v: Any) -> Any:
    # PyTorch clamps log at -100 so that a probability of exactly 0 or 1 gives a finite loss
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(v), -100)


# PyTorch clamps the logs at -100 and the gradient's denominator at float32's 1e-12, so that
# probabilities of exactly 0 or 1 give finite numbers; the formulas say so too, so that closed
# forms and compiled gradients give backward's numbers there (away from the clamps, the partials
# are the formula's derivatives)
_EPS = float(np.float32(1e-12))


def _clamped(e: Any) -> Any:
    return sp.Max(sp.log(e), -100)


# PyTorch's binary_cross_entropy_double_backward (and its _grad_output and _target halves),
# the partials of g * (x - y) / max(x (1 - x), eps): eps added, not clamped, in the input's
# and the gradient's, so that a right prediction of exactly 0 or 1 has a second derivative 0
_BCE_DOUBLE_BACKWARD = {
    0: lambda v, t, out, g, out2: (
        g * (v * v - 2 * v * t + t) / ((v + 1e-12) ** 2 * (1 - v + 1e-12) ** 2)
    ),
    1: lambda v, t, out, g, out2: -g / np.maximum(v * (1 - v), 1e-12),
    3: lambda v, t, out, g, out2: (v - t) / ((v + 1e-12) * (1 - v + 1e-12)),
}
BCE = declare(
    "bce",
    "x y",
    lambda x, y: -(y * _clamped(x) + (1 - y) * _clamped(1 - x)),
    # the target's partial is PyTorch's -logit(x), unclamped: -inf and inf at 1 and 0
    partials=lambda x, y: (
        (x - y) / sp.Max(x * (1 - x), sp.Float(_EPS)),
        sp.log(1 - x) - sp.log(x),
    ),
    exact=False,
    kernel=lambda v, t: -(t * _clamped_log(v) + (1 - t) * _clamped_log(1 - v)),
    partial_kernels={
        # PyTorch's clamp of the denominator is the float32 constant 1e-12
        0: lambda v, t, out: (v - t) / np.maximum(v * (1 - v), np.float32(1e-12)),
        1: lambda v, t, out: -np.log(v / (1 - v)),
    },
    promote="float",
    domain={"x": "unit", "y": "unit"},
    vjp_backward=("BinaryCrossEntropyBackwardBackward0", None),
    vjp_edges=(3, 0, 1),  # binary_cross_entropy_backward(grad_output, self, target)
    vjp_partial_kernels={0: _BCE_DOUBLE_BACKWARD},
)
SQUARED_ERROR = declare(
    "squared_error",
    "x y",
    lambda x, y: (x - y) ** 2,
    promote="float",
    vjp_backward="MseLossBackwardBackward0",
    vjp_edges=(3, 0, 1),  # mse_loss_backward(grad_output, self, target)
)


def _soft_margin_grad(v: Any, t: Any, out: Any) -> Any:
    e = np.exp(-t * v)
    return -t * e / (1 + e)


# log(1 + exp(-y x)) as PyTorch computes it: inf (and a nan gradient) where exp overflows
SOFT_MARGIN = declare(
    "soft_margin",
    "x y",
    lambda x, y: sp.log(1 + sp.exp(-y * x)),
    kernel=lambda v, t: np.log1p(np.exp(-t * v)),
    partial_kernels={0: _soft_margin_grad},
    promote="float",
    vjp_backward="SoftMarginLossBackwardBackward0",
    vjp_edges=(3, 0),  # soft_margin_loss_backward(grad_output, self), the target no edge
)


def _reduce(xp: Any, loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    total = xp.sum(loss)
    if reduction != "mean":
        return total
    n = math.prod(loss.shape)
    return total / n if n else total * math.nan  # the mean of nothing is nan, as in PyTorch


def _unreduce(xp: Any, g: Any, shape: tuple, reduction: str) -> Any:
    # a reduced loss's gradient stays a scalar: the partials broadcast it to every element
    if reduction != "mean":
        return g
    return g / max(math.prod(shape), 1)


def _to_input(xp: Any, g: Any, shape: tuple, input_shape: tuple) -> Any:
    """A partial's gradient, broadcast to the loss's shape, summed down to the input's."""
    if tuple(g.shape) != tuple(shape):
        g = xp.expand(g, shape)
    return xp.sum_to_size(g, input_shape)


def fused_loss(
    prim: Any, backward: str, edges: tuple | None = None, target_first: bool = False
) -> Structural:
    """A node that applies an element-wise loss ``prim``, weights it and reduces it (with
    PyTorch's ``edges`` where they are not one per input of ``prim``); an unreduced loss is
    laid out as an element-wise op of the input and target (of the target and input where
    ``target_first``, as PyTorch's formula starts from the target)."""

    def forward(
        xp: Any, *arrays: Any, reduction: str, weight: Any, shape: tuple, params: tuple = ()
    ) -> Any:
        loss = xp.elementwise(prim, arrays, params)
        if loss.shape != shape:  # the inputs broadcast to a smaller shape than the loss's
            loss = xp.expand(loss, shape)
        return _reduce(xp, loss if weight is None else loss * weight, reduction)

    def kernel(
        xp: Any, *arrays: Any, reduction: str, weight: Any, shape: tuple, params: tuple = ()
    ) -> Any:
        # forward on NumPy arrays: the formula's own kernel, with no interpreter in between
        loss = prim.numeric(*arrays, *params)
        if reduction == "none":
            loss = laid_out_as_inputs(loss, arrays[1::-1] if target_first else arrays)
        if loss.shape != shape:
            loss = np.broadcast_to(loss, shape)
        return np.asarray(_reduce(NP, loss if weight is None else loss * weight, reduction))

    kernel.faster_only = True  # type: ignore[attr-defined]  # forward's steps: compile writes them

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        shape, weight = c.params["shape"], c.params["weight"]
        scalars = c.params.get("params", ())
        if prim.vjp_backward is None:
            return _scaled_last(xp, g, c, scalars)
        gl = _unreduce(xp, g, shape, c.params["reduction"])
        if weight is not None:
            gl = gl * xp.constant(np.broadcast_to(weight, shape))
        return tuple(
            _to_input(xp, xp.elementwise_vjp(prim, i, c.inputs, None, gl, scalars), shape, s)
            if need
            else None
            for i, (need, s) in enumerate(zip(c.needs, c.shapes))
        )

    def _scaled_last(xp: Any, g: Any, c: Any, scalars: tuple) -> tuple:
        # a loss with no backward op of its own (binary_cross_entropy_with_logits) is
        # PyTorch's chain partial * g, times the weight, divided by the count for 'mean':
        # the gradients' nodes under create_graph are MulBackward0 and DivBackward1
        shape, weight, reduction = c.params["shape"], c.params["weight"], c.params["reduction"]
        out = []
        for i, (need, s) in enumerate(zip(c.needs, c.shapes)):
            if not need:
                out.append(None)
                continue
            gi = xp.elementwise_vjp(prim, i, c.inputs, None, g, scalars)
            if tuple(gi.shape) != tuple(shape):
                gi = xp.expand(gi, shape)
            if weight is not None:
                gi = gi * xp.constant(np.broadcast_to(weight, shape))
            if reduction == "mean":
                gi = xp.div_scalar(gi, max(math.prod(shape), 1))
            out.append(xp.sum_to_size(gi, s))
        return tuple(out)

    def numeric_vjp(g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple) -> list:
        # vjp's steps on NumPy arrays, without the interpreter: the backward of every
        # training step with this loss
        shape, weight = params["shape"], params["weight"]
        scalars = params.get("params", ())
        if prim.vjp_backward is None:
            return _numeric_scaled_last(g, arrays, needs, params, scalars)
        gl = _unreduce(NP, g, shape, params["reduction"])
        if weight is not None:
            gl = gl * np.broadcast_to(weight, shape)
        result = []
        for i, need in enumerate(needs):
            if need:
                r = prim.vjp_kernel(i)(*arrays, None, gl, *scalars)
                result.append(r if r.shape == shape else np.broadcast_to(r, shape))
            else:
                result.append(None)
        return result

    def _numeric_scaled_last(g: Any, arrays: list, needs: list, params: dict, scalars: tuple):
        # _scaled_last's steps on NumPy arrays, rounded in PyTorch's order
        shape, weight = params["shape"], params["weight"]
        result = []
        for i, need in enumerate(needs):
            if not need:
                result.append(None)
                continue
            r = prim.vjp_kernel(i)(*arrays, None, g, *scalars)
            if r.shape != shape:
                r = np.broadcast_to(r, shape)
            if weight is not None:
                r = r * np.broadcast_to(weight, shape)
            if params["reduction"] == "mean":
                r = NP.div_scalar(r, max(math.prod(shape), 1))
            result.append(r)
        return result

    return Structural(
        prim.name,
        forward,
        vjp,
        saves=tuple(range(prim.arity)),
        backward=backward,
        kernel=kernel,
        formula=prim,
        batch="loss",
        numeric_vjp=numeric_vjp,
        edges=edges,
    )


# PyTorch differentiates the input and target only, not pos_weight
BCE_WITH_LOGITS_LOSS = fused_loss(
    BCE_WITH_LOGITS, "BinaryCrossEntropyWithLogitsBackward0", edges=(0, 1), target_first=True
)
BCE_WITH_LOGITS_PLAIN_LOSS = fused_loss(
    BCE_WITH_LOGITS_PLAIN, "BinaryCrossEntropyWithLogitsBackward0", target_first=True
)
BCE_LOSS = fused_loss(BCE, "BinaryCrossEntropyBackward0")
MSE_LOSS = fused_loss(SQUARED_ERROR, "MseLossBackward0")
SMOOTH_L1_LOSS = fused_loss(_activations.SMOOTH_L1, "SmoothL1LossBackward0")
HUBER_LOSS = fused_loss(_activations.HUBER, "HuberLossBackward0")
SOFT_MARGIN_LOSS = fused_loss(SOFT_MARGIN, "SoftMarginLossBackward0", edges=(0,))  # not target


def _nll_forward(
    xp: Any, a: Any, key: tuple, weight: Any, denom: float, reduction: str, saved_as: tuple = ()
) -> Any:
    # key picks input[n, target[n], ...]; weight is None for unit weights and no ignored target
    picked = xp.getitem(a, key)
    loss = -picked if weight is None else -picked * xp.constant(weight)
    if reduction == "none":
        return loss
    total = xp.sum(loss)
    return total / xp.constant(float(denom)) if reduction == "mean" else total


def _nll_kernel(
    xp: Any, a: Any, key: tuple, weight: Any, denom: float, reduction: str, saved_as: tuple = ()
) -> Any:
    """The forward on NumPy: for unit weights and a reduced loss, the picked entries' sum and
    NumPy's scalar arithmetic (a 0-d array's costs ten times more); the rule otherwise."""
    if weight is not None or reduction == "none" or type(a) is not np.ndarray:
        return _nll_forward(xp, a, key, weight, denom, reduction)
    total = 0.0 - a[key].sum()  # (0, not -0, when nothing or only zeros are picked: PyTorch's)
    return np.asarray(total / denom if reduction == "mean" else total)


def _nll_grad(xp: Any, g: Any, shape: tuple, params: dict, expand: bool = True) -> Any:
    """The gradient for the input of shape ``shape``: zeros but at the picked entries.
    The key holds each row once: the gradient is assigned, with no accumulation to do."""
    weight, key, mean = params["weight"], params["key"], params["reduction"] == "mean"
    if weight is None and xp is NP and type(g) is np.ndarray and g.ndim == 0:
        # a reduced loss's gradient on NumPy: its scalar, assigned at the picked entries
        value = g[()]
        out = np.zeros(shape, dtype=g.dtype)
        out[key] = -(value / params["denom"]) if mean else -value
        return out
    if weight is None:  # -(g / total weight), as PyTorch computes it
        picked = g / xp.constant(float(params["denom"])) if mean else g
        return xp.index_put_zeros(shape, key, -picked, True)
    coef = -weight
    if mean and params["denom"] != params["denom"]:
        # every target ignored: PyTorch's gradient is 0, whatever gradient flows in (nan,
        # from the nan mean itself)
        return xp.index_put_zeros(shape, key, xp.constant(np.zeros_like(weight)), True)
    if mean:
        # ignored targets (weight 0) get 0 even when all are ignored and the mean is nan,
        # as in PyTorch: one padding-only batch must not turn every gradient into nan
        with np.errstate(invalid="ignore"):
            coef = np.where(weight != 0, coef / params["denom"], 0).astype(weight.dtype)
    if params["reduction"] != "none" and expand:
        g = xp.expand(g, weight.shape)
    return xp.index_put_zeros(shape, key, g * xp.constant(coef), True)


def _nll_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if xp is INTERPRETERS.tensor:
        # under create_graph PyTorch records the gradient as a node of its own with an edge
        # to the input too (whose derivative there is 0), so it requires grad with the input
        x = c.inputs[0]
        return (NLL_LOSS_BACKWARD(g, x, dtype=x._data.dtype, **c.params),)
    return (_nll_grad(xp, g, c.shapes[0], c.params),)


def _batch_key(params: dict) -> tuple:
    """The key picking the targets' entries of a batch of inputs (the batch in front)."""
    key, at = physical_key(params["key"])
    if at:  # pragma: no cover - the key's index arrays are side by side
        raise Unbatchable("nll_loss's key puts the batch elsewhere")
    return key


def _nll_batch(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """nll_loss of a batch of inputs with the same targets: each element's loss."""
    xp, p = INTERPRETERS.tensor, args[0]._physical
    loss = _nll_forward(xp, p, _batch_key(params), params["weight"], 1.0, "none")
    if params["reduction"] == "none":
        return loss
    total = xp.sum(loss, tuple(range(1, loss.ndim)), False)
    return total / xp.constant(float(params["denom"])) if params["reduction"] == "mean" else total


def _nll_backward_batch(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """nll_loss's gradient for a batch of incoming gradients (or inputs)."""
    g, x = args
    size = batch_size(args, level)
    key = _batch_key(params)
    g = unwrap_level(g, level, size)
    if params["reduction"] != "none":  # one value per batch element, for all its entries
        picked = np.broadcast_shapes(*[np.shape(k) for k in key[1:]])
        g = g.reshape((size,) + (1,) * len(picked))
    shape = (size, *x.shape)
    return _nll_grad(INTERPRETERS.tensor, g, shape, dict(params, key=key), expand=False)


def _spatial(suffix: str) -> Any:
    """PyTorch's node name, ``NllLoss2D...`` for inputs (the last input) beyond (N, C)."""
    return lambda params, inputs: ("NllLoss2D" if len(inputs[-1][0]) > 2 else "NllLoss") + suffix


NLL_LOSS = Structural(
    "nll_loss",
    _nll_forward,
    _nll_vjp,
    saves=(0,),
    backward=_spatial("Backward0"),
    kernel=_nll_kernel,
    jvp="linear",  # a weighted sum of picked elements
    batch=_nll_batch,
)


def _nll_backward_vjp(xp: Any, gg: Any, c: Any) -> tuple:
    p = c.params
    gg_g = _nll_forward(xp, gg, p["key"], p["weight"], p["denom"], p["reduction"])
    gg_x = xp.constant(np.zeros(c.shapes[1], dtype=p["dtype"]))
    return (gg_g if c.needs[0] else None, gg_x if c.needs[1] else None)


# the gradient of nll_loss for its input, as a node: (g, input) -> zeros but at the targets
NLL_LOSS_BACKWARD = Structural(
    "nll_loss_backward",
    lambda xp, g, a, dtype, **params: _nll_grad(xp, g, a.shape, params),
    _nll_backward_vjp,
    backward=_spatial("BackwardBackward0"),
    jvp="linear",  # in the incoming gradient; the input gives its shape only
    batch=_nll_backward_batch,
)

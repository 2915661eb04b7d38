"""The gradients of softmax and log_softmax as ops of their own, as PyTorch records them
under ``create_graph`` (``SoftmaxBackwardDataBackward0``, ``LogSoftmaxBackwardDataBackward0``),
each with its derivatives in the incoming gradient ``g`` and in the saved output ``out``.

For ``log_softmax``, ``h = g - exp(out) * S(g)``; for ``softmax``, ``h = out * (g - S(g out))``,
with ``S`` the sum along ``dim`` kept as a size-1 dimension; float16 is computed in float32
and rounded once, as PyTorch's kernels.
"""

from __future__ import annotations

from typing import Any

from symgrad.prim.batch_rules import aligned_reduction
from symgrad.prim.numpy_xp import half_in_float32, half_rule_in_float32
from symgrad.prim.structural import Structural

__all__ = ["SOFTMAX_BACKWARD", "LOG_SOFTMAX_BACKWARD"]


def _log_softmax_backward(xp: Any, g: Any, out: Any, dim: Any) -> Any:
    return g - xp.exp(out) * xp.sum(g, dim, True)


def _log_softmax_backward_vjp(xp: Any, u: Any, c: Any) -> tuple:
    g, out = c.inputs
    dim = c.params["dim"]
    e = xp.exp(out)
    by_g = u - xp.sum(u * e, dim, True) if c.needs[0] else None
    by_out = -(u * e) * xp.sum(g, dim, True) if c.needs[1] else None
    return by_g, by_out


def _log_softmax_backward_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``tg - exp(out) S(tg) - exp(out) tout S(g)`` (a missing tangent is zero)."""
    (g, out), (tg, tout), dim = c.inputs, tangents, c.params["dim"]
    e = xp.exp(out)
    terms = [] if tg is None else [_log_softmax_backward(xp, tg, out, dim)]
    terms += [] if tout is None else [-(e * tout) * xp.sum(g, dim, True)]
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _softmax_backward(xp: Any, g: Any, out: Any, dim: Any) -> Any:
    return out * (g - xp.sum(g * out, dim, True))


def _softmax_backward_vjp(xp: Any, u: Any, c: Any) -> tuple:
    g, out = c.inputs
    dim = c.params["dim"]
    by_g = _softmax_backward(xp, u, out, dim) if c.needs[0] else None
    by_out = None
    if c.needs[1]:
        by_out = u * (g - xp.sum(g * out, dim, True)) - g * xp.sum(u * out, dim, True)
    return by_g, by_out


def _softmax_backward_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``tout (g - S(g out)) + out (tg - S(tg out + g tout))`` (a missing tangent is zero)."""
    (g, out), (tg, tout), dim = c.inputs, tangents, c.params["dim"]
    terms = [] if tg is None else [_softmax_backward(xp, tg, out, dim)]
    if tout is not None:
        terms.append(tout * (g - xp.sum(g * out, dim, True)) - out * xp.sum(g * tout, dim, True))
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


LOG_SOFTMAX_BACKWARD = Structural(
    "log_softmax_backward",
    _log_softmax_backward,
    half_rule_in_float32(_log_softmax_backward_vjp),
    kernel=half_in_float32(_log_softmax_backward),
    saves=(0, 1),
    backward="LogSoftmaxBackwardDataBackward0",
    text="the gradient of log_softmax along dim {dim}",
    batch=aligned_reduction,
    jvp=_log_softmax_backward_jvp,
)
SOFTMAX_BACKWARD = Structural(
    "softmax_backward",
    _softmax_backward,
    half_rule_in_float32(_softmax_backward_vjp),
    kernel=half_in_float32(_softmax_backward),
    saves=(0, 1),
    backward="SoftmaxBackwardDataBackward0",
    text="the gradient of softmax along dim {dim}",
    batch=aligned_reduction,
    jvp=_softmax_backward_jvp,
)

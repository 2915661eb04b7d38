"""The multi-class hinge losses as one node each, as PyTorch records them:
``multi_margin_loss`` (``MultiMarginLossBackward0``) and ``multilabel_margin_loss``
(``MultilabelMarginLossBackward0``).

Both compare scores within a row of an ``(N, C)`` input: with ``d = margin - x[n, y] + x[n, i]``
each pair adds ``relu(d)`` (or its square), scaled by a constant that holds the class weight,
the ``1 / C`` and a zero where the pair does not count. The targets are data, so they enter as
parameters; the rules are written in the interpreter vocabulary, so closed forms come from
the same lines. PyTorch has no second derivative for either: under ``create_graph`` the
gradient is its backward op's ``NotImplemented`` node, which raises when reached.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.elementwise import RELU
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural, without_derivative
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS

__all__ = ["MULTI_MARGIN_LOSS", "MULTILABEL_MARGIN_LOSS"]


def _per_sample(xp: Any, g: Any, n: int, reduction: str) -> Any:
    """The incoming gradient as one entry per sample, shape ``(n,)``."""
    if reduction == "none":
        return xp.reshape(g, (n,))
    g = xp.expand(xp.reshape(g, (1,)), (n,))
    return g / n if reduction == "mean" else g


def _reduced(xp: Any, loss: Any, n: int, reduction: str, out_shape: tuple) -> Any:
    if reduction == "none":
        return xp.reshape(loss, out_shape)
    total = xp.sum(loss)
    # an empty batch's mean is 0 here, as PyTorch's kernels give it
    return total / n if reduction == "mean" and n else total


def _without_second(rule: Any, name: str) -> Any:
    """The VJP rule ``rule``, whose gradient under ``create_graph`` is a node of PyTorch's
    backward op ``name``, which has no derivative (``NotImplemented``): edges to the incoming
    gradient and the input where they require grad."""
    node = without_derivative(name)

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        x = c.inputs[0]
        if xp is not INTERPRETERS.tensor or any(type(t) is BatchedTensor for t in (g, x)):
            return rule(xp, g, c)
        arrays = Ctx((x._data,), None, c.shapes, c.needs, c.params)
        values = rule(NP, g._data, arrays)[0]
        return (node(*(t for t in (g, x) if t.requires_grad), values=values),)

    vjp.__wrapped__ = rule  # type: ignore[attr-defined]  # (what symgrad.compile calls)
    return vjp


# -- multi_margin_loss: the target class's score against each other class's ------------------


def _mm_differences(xp: Any, x: Any, key: tuple, margin: float, rows: tuple) -> Any:
    x = xp.reshape(x, rows)
    picked = xp.unsqueeze(xp.getitem(x, key), 1)
    return x, (margin - picked) + x


def _mm_forward(
    xp: Any, x: Any, *, key: tuple, scale: np.ndarray, p: int, margin: float, reduction: str,
    out_shape: tuple,
) -> Any:  # fmt: skip
    n = scale.shape[0]
    _, d = _mm_differences(xp, x, key, margin, scale.shape)
    z = xp.elementwise(RELU, (d,))
    hinge = z * z if p == 2 else z
    return _reduced(xp, xp.sum(hinge * xp.constant(scale), (1,)), n, reduction, out_shape)


def _mm_vjp(xp: Any, g: Any, c: Any) -> tuple:
    prm = c.params
    scale = prm["scale"]
    n = scale.shape[0]
    _, d = _mm_differences(xp, c.inputs[0], prm["key"], prm["margin"], scale.shape)
    z = xp.elementwise(RELU, (d,))
    coef = xp.unsqueeze(_per_sample(xp, g, n, prm["reduction"]), 1) * xp.constant(scale)
    if prm["p"] == 2:
        coef = coef * (2 * z)
    gd = xp.elementwise_vjp(RELU, 0, (d,), z, coef)
    gx = gd - xp.index_put_zeros(scale.shape, prm["key"], xp.sum(gd, (1,)), True)
    return (xp.reshape(gx, c.shapes[0]),)


MULTI_MARGIN_LOSS = Structural(
    "multi_margin_loss",
    _mm_forward,
    _without_second(_mm_vjp, "multi_margin_loss_backward"),
    saves=(0,),
    backward="MultiMarginLossBackward0",
    jvp=no_forward_rule("multi_margin_loss"),
)


# -- multilabel_margin_loss: each listed target class's score against each other class's ------


def _ml_differences(xp: Any, x: Any, index: np.ndarray) -> Any:
    x = xp.reshape(x, index.shape)
    picked = xp.gather(x, 1, index)
    return (1 - xp.unsqueeze(picked, 2)) + xp.unsqueeze(x, 1)


def _ml_forward(
    xp: Any, x: Any, *, index: np.ndarray, scale: np.ndarray, reduction: str, out_shape: tuple
) -> Any:
    d = _ml_differences(xp, x, index)
    z = xp.elementwise(RELU, (d,))
    loss = xp.sum(xp.sum(z * xp.constant(scale), (2,)), (1,))
    return _reduced(xp, loss, index.shape[0], reduction, out_shape)


def _ml_vjp(xp: Any, g: Any, c: Any) -> tuple:
    prm = c.params
    index, scale = prm["index"], prm["scale"]
    d = _ml_differences(xp, c.inputs[0], index)
    z = xp.elementwise(RELU, (d,))
    gn = _per_sample(xp, g, index.shape[0], prm["reduction"])
    coef = xp.unsqueeze(xp.unsqueeze(gn, 1), 2) * xp.constant(scale)
    gd = xp.elementwise_vjp(RELU, 0, (d,), z, coef)
    gx = xp.sum(gd, (1,)) - xp.scatter_zeros(index.shape, 1, index, xp.sum(gd, (2,)))
    return (xp.reshape(gx, c.shapes[0]),)


MULTILABEL_MARGIN_LOSS = Structural(
    "multilabel_margin_loss",
    _ml_forward,
    _without_second(_ml_vjp, "multilabel_margin_loss_backward"),
    saves=(0,),
    backward="MultilabelMarginLossBackward0",
    jvp=no_forward_rule("multilabel_margin_loss_forward"),
)

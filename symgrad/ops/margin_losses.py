"""The multi-class hinge losses as one node each, as PyTorch records them:
``multi_margin_loss`` (``MultiMarginLossBackward0``) and ``multilabel_margin_loss``
(``MultilabelMarginLossBackward0``).

Both compare scores within a row of an ``(N, C)`` input: with ``d = margin - x[n, y] + x[n, i]``
each pair adds ``relu(d)`` (or its square), scaled by a constant that holds the class weight,
the ``1 / C`` and a zero where the pair does not count. The targets are data, so they enter as
parameters; the rules are written in the interpreter vocabulary, so closed forms and higher
derivatives come from the same lines (PyTorch has no second derivative for either).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.elementwise import RELU
from symgrad.prim.structural import Structural

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
    _mm_vjp,
    saves=(0,),
    backward="MultiMarginLossBackward0",
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
    _ml_vjp,
    saves=(0,),
    backward="MultilabelMarginLossBackward0",
)

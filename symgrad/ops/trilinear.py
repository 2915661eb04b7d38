"""PyTorch's ``_trilinear`` as ``F.bilinear`` calls it: ``out[n, o] = sum_ij x1[n, i]
w[o, i, j] x2[n, j]`` (node ``TrilinearBackward0``), linear in each of its three inputs.

Each input's gradient is the same contraction with that input replaced by ``g``, written with
matrix products: ``m = g @ w.reshape(out, in1 * in2)`` holds ``sum_o g[n, o] w[o, i, j]``, which
``x2`` (for ``x1``) or ``x1`` (for ``x2``) then contracts; ``w`` gets ``gᵀ`` times the row-wise
outer products of ``x1`` and ``x2``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["trilinear"]


def _forward(xp: Any, x1: Any, w: Any, x2: Any) -> Any:
    n, i = x1.shape
    o, _, j = w.shape
    a = xp.reshape(x1, (n, 1, i, 1))
    b = xp.reshape(x2, (n, 1, 1, j))
    return xp.sum(a * xp.reshape(w, (1, o, i, j)) * b, (2, 3))


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    x1, w, x2 = c.inputs
    n, i = c.shapes[0]
    o, _, j = c.shapes[1]
    g1 = g2 = gw = None
    if c.needs[0] or c.needs[2]:
        m = xp.reshape(xp.matmul(g, xp.reshape(w, (o, i * j))), (n, i, j))
        if c.needs[0]:
            g1 = xp.reshape(xp.matmul(m, xp.reshape(x2, (n, j, 1))), (n, i))
        if c.needs[2]:
            g2 = xp.reshape(xp.matmul(xp.reshape(x1, (n, 1, i)), m), (n, j))
    if c.needs[1]:
        outer = xp.reshape(xp.reshape(x1, (n, i, 1)) * xp.reshape(x2, (n, 1, j)), (n, i * j))
        gw = xp.reshape(xp.matmul(xp.transpose(g, 0, 1), outer), (o, i, j))
    return g1, gw, g2


_TRILINEAR = Structural(
    "trilinear",
    _forward,
    _vjp,
    saves=(0, 1, 2),
    backward="TrilinearBackward0",
    kernel=lambda xp, x1, w, x2: np.einsum("ni,oij,nj->no", x1, w, x2),
    jvp="bilinear",  # the product rule, one term per input with a tangent
)


def trilinear(x1: Tensor, weight: Tensor, x2: Tensor) -> Tensor:
    """``out[n, o] = sum_ij x1[n, i] weight[o, i, j] x2[n, j]`` for ``x1`` of shape ``(N, in1)``,
    ``weight`` of shape ``(out, in1, in2)`` and ``x2`` of shape ``(N, in2)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.ops.trilinear import trilinear
    >>> trilinear(symgrad.ones(2, 2), symgrad.ones(3, 2, 2), symgrad.ones(2, 2))
    tensor([[4., 4., 4.],
            [4., 4., 4.]])
    """
    return _TRILINEAR(x1, weight, x2)

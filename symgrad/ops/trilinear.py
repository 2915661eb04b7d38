"""PyTorch's ``_trilinear`` as ``F.bilinear`` calls it: ``out[n, o] = sum_ij x1[n, i]
w[o, i, j] x2[n, j]`` (node ``TrilinearBackward0``), linear in each of its three inputs.

Each input's gradient is the same contraction with that input replaced by ``g``. On arrays it
is written with matrix products: ``m = g @ w.reshape(out, in1 * in2)`` holds ``sum_o g[n, o]
w[o, i, j]``, which ``x2`` (for ``x1``) or ``x1`` (for ``x2``) then contracts; ``w`` gets ``gᵀ``
times the row-wise outer products of ``x1`` and ``x2``. On Tensors (``create_graph``) it is
PyTorch's: one ``_trilinear`` per input, with the dimensions PyTorch's
``_trilinear_backward`` gives it, so the gradients' nodes are ``TrilinearBackward0`` too."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["trilinear"]


# F.bilinear's call, in PyTorch's dimensions (n, o, i, j): x1 lacks o and j, w lacks n, x2
# lacks o and i; i and j are summed
_BILINEAR = {"expand1": (1, 3), "expand2": (0,), "expand3": (1, 2), "sumdim": (2, 3)}


def _spread(xp: Any, x: Any, expand: tuple, total: int) -> Any:
    """``x`` with a dimension of size 1 at each position of ``expand``."""
    shape, sizes = [], iter(x.shape)
    for d in range(total):
        shape.append(1 if d in expand else next(sizes))
    return xp.reshape(x, tuple(shape))


def _forward(
    xp: Any,
    i1: Any,
    i2: Any,
    i3: Any,
    expand1: tuple = (1, 3),
    expand2: tuple = (0,),
    expand3: tuple = (1, 2),
    sumdim: tuple = (2, 3),
) -> Any:
    """PyTorch's ``_trilinear``: the three inputs spread over the common dimensions, their
    product summed over ``sumdim``."""
    total = len(i1.shape) + len(expand1)
    a, b, c = (_spread(xp, x, e, total) for x, e in ((i1, expand1), (i2, expand2), (i3, expand3)))
    return xp.sum(a * b * c, tuple(sumdim))


def _kernel(
    xp: Any,
    i1: Any,
    i2: Any,
    i3: Any,
    expand1: tuple = (1, 3),
    expand2: tuple = (0,),
    expand3: tuple = (1, 2),
    sumdim: tuple = (2, 3),
) -> Any:
    total = len(i1.shape) + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:total]

    def subs(expand: tuple) -> str:
        return "".join(c for d, c in enumerate(letters) if d not in expand)

    equation = f"{subs(expand1)},{subs(expand2)},{subs(expand3)}->{subs(sumdim)}"
    return np.einsum(equation, i1, i2, i3)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    if c.params or isinstance(g, Tensor):
        return _trilinear_vjp(xp, g, c)
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


def _trilinear_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """PyTorch's ``_trilinear_backward``: each input's gradient is itself a ``_trilinear`` of
    ``g`` and the other two inputs (so ``create_graph`` records ``TrilinearBackward0`` nodes,
    as PyTorch does). Used on Tensors, and for the general calls only gradients make."""
    p = {**_BILINEAR, **c.params}
    e1, e2, e3, s = p["expand1"], p["expand2"], p["expand3"], p["sumdim"]
    x1, w, x2 = c.inputs
    if isinstance(g, Tensor):
        call = _TRILINEAR
    else:
        rule = _kernel if xp is NP else _forward
        call = functools.partial(rule, xp)
    orders = (
        ((g, w, x2), (s, e2, e3, e1)),
        ((x1, g, x2), (e1, s, e3, e2)),
        ((x1, w, g), (e1, e2, s, e3)),
    )
    grads = []
    for need, (args, (a, b, d, summed)) in zip(c.needs, orders):
        params = {"expand1": a, "expand2": b, "expand3": d, "sumdim": summed}
        grads.append(call(*args, **params) if need else None)
    return tuple(grads)


_TRILINEAR = Structural(
    "trilinear",
    _forward,
    _vjp,
    saves=(0, 1, 2),
    backward="TrilinearBackward0",
    kernel=_kernel,
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

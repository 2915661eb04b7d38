"""``cdist``: the ``p``-norm distance between every row of ``x1`` and every row of ``x2``, one
``CdistBackward0`` node as in PyTorch, with PyTorch's ``_cdist_backward`` rules: 0 where a
distance is 0, ties of the ``inf`` norm each receiving the whole gradient, and a zero (not
missing) gradient for ``p = 0``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_same_dtype, require_tensor
from symgrad.ops import elementwise as E
from symgrad.ops.norms import _norm_p
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.no_derivative import backward_without_derivative
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["cdist"]


def _differences(xp: Any, x1: Any, x2: Any) -> Any:
    """``d[..., i, j, :] = x1[..., i, :] - x2[..., j, :]``."""
    return xp.unsqueeze(x1, x1.ndim - 1) - xp.unsqueeze(x2, x2.ndim - 2)


def _forward(xp: Any, x1: Any, x2: Any, p: float) -> Any:
    d = _differences(xp, x1, x2)
    if p == 2:
        return xp.sqrt(xp.sum(d * d, (d.ndim - 1,), False))
    return _norm_p(xp, d, p, (d.ndim - 1,), False)


def _kernel(xp: Any, x1: Any, x2: Any, p: float) -> Any:
    m = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if math.isinf(p):
        return m.max(-1, initial=0.0)
    if p == 0:
        return np.count_nonzero(m, axis=-1).astype(m.dtype)
    if p == 1:
        return m.sum(-1)
    if p == 2:
        return np.sqrt((m * m).sum(-1))
    return (m**p).sum(-1) ** (1 / p)


def _pow(xp: Any, a: Any, exponent: float) -> Any:
    return xp.elementwise(E.POW, (a,), (exponent,))


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    x1, x2 = c.inputs
    d = _differences(xp, x1, x2)
    last = d.ndim - 1
    gd = _difference_gradient(xp, d, g, c.out, c.params["p"])
    return (
        xp.sum_to_size(xp.sum(gd, (last - 1,), False), c.shapes[0]) if c.needs[0] else None,
        xp.sum_to_size(-xp.sum(gd, (last - 2,), False), c.shapes[1]) if c.needs[1] else None,
    )


def _difference_gradient(xp: Any, d: Any, g: Any, out: Any, p: float) -> Any:
    """The gradient for the differences ``d`` (last axis: the coordinates) of the distances
    ``out`` receiving ``g``, by PyTorch's ``_cdist_backward`` rules."""
    last = d.ndim - 1
    g = xp.unsqueeze(g, last)
    out = xp.unsqueeze(out, last)
    if p == 0:
        gd = d * 0.0
    elif p == 1:
        gd = g * xp.sign(d)
    elif math.isinf(p):
        gd = xp.where(xp.eq(xp.abs(d), out), g * xp.sign(d), 0.0)
    elif p == 2:  # the ratio masked before it meets d, so a second derivative has no 0 * inf
        gd = d * xp.where(xp.eq(out, 0), 0.0, g / out)
    else:
        scale = xp.where(xp.eq(out, 0), 0.0, g / _pow(xp, out, p - 1))
        gd = xp.sign(d) * _pow(xp, xp.abs(d), p - 1) * scale
        if p < 1:  # |d| ** (p - 1) is infinite at 0: PyTorch's 0 there
            gd = xp.where(xp.eq(d, 0), 0.0, gd)
    return gd


_CDIST_BACKWARD = backward_without_derivative("_cdist_backward", "CdistBackwardBackward0")


def _recorded_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """Under ``create_graph``, PyTorch's gradients: ``_cdist_backward(g, x1, x2, result)``
    and ``_cdist_backward(g.mT, x2, x1, result.mT)`` (contiguous copies), nodes without a
    derivative of their own."""
    x1, x2 = c.inputs
    out = c.out
    if xp is not INTERPRETERS.tensor or any(type(t) is BatchedTensor for t in (g, x1, x2, out)):
        return _vjp(xp, g, c)
    arrays = Ctx((x1._data, x2._data), out._data, c.shapes, c.needs, c.params)
    values = _vjp(NP, g._data, arrays)
    first = second = None
    if c.needs[0]:
        first = _CDIST_BACKWARD(g.contiguous(), x1, x2, out, values=values[0])
    if c.needs[1]:
        swapped = (g.mT.contiguous(), x2, x1, out.mT.contiguous())
        second = _CDIST_BACKWARD(*swapped, values=values[1])
    return first, second


_recorded_vjp.__wrapped__ = _vjp  # type: ignore[attr-defined]  # (what symgrad.compile calls)


_CDIST = Structural(
    "cdist",
    _forward,
    _recorded_vjp,
    jvp=no_forward_rule("_cdist_forward"),
    saves=(0, 1),
    saves_out=True,
    backward="CdistBackward0",
    kernel=_kernel,
    rows=True,
)

# PyTorch's matrix-product path for p = 2: the same distances and gradients, its own node under a
# view
_EUCLIDEAN_DIST = Structural(
    "_euclidean_dist",
    _forward,
    _vjp,
    saves=(0, 1),
    saves_out=True,
    backward="EuclideanDistBackward0",
    jvp=no_forward_rule("_euclidean_dist"),
    kernel=_kernel,
    rows=True,
)

_COMPUTE_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def _uses_matrix_product(x1: Tensor, x2: Tensor, p: float, compute_mode: str) -> bool:
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if p != 2 or compute_mode == _COMPUTE_MODES[2]:
        return False
    return compute_mode == _COMPUTE_MODES[1] or max(x1.shape[-2], x2.shape[-2]) > 25


def _check(x1: Tensor, x2: Tensor, p: float) -> None:
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(
                f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D "
                "(rows of points along the second to last dimension)"
            )
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {t.dtype.scalar_type}"
            )
    if x1.dtype.scalar_type == "Half":
        raise NotImplementedError("\"cdist\" not implemented for 'Half'")
    if not p >= 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got p={p}")
    try:
        np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"cdist: the batch dimensions {list(x1.shape[:-2])} and {list(x2.shape[:-2])} "
            "don't broadcast"
        ) from None


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The ``p``-norm distances between the rows of ``x1`` ``(..., P, M)`` and of ``x2``
    ``(..., R, M)``: a tensor ``(..., P, R)`` (batch dimensions broadcast).

    ``compute_mode`` picks PyTorch's node (``EuclideanDistBackward0`` under a view where
    PyTorch takes its matrix-product shortcut for ``p = 2``); the distances are always computed
    from the differences (PyTorch's shortcut rounds differently in the last digits).

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[0.0, 0.0], [1.0, 1.0]])
    >>> symgrad.cdist(a, symgrad.tensor([[3.0, 4.0]]))
    tensor([[5.0000],
            [3.6056]])
    >>> symgrad.cdist(a, symgrad.tensor([[3.0, 4.0]]), p=1)
    tensor([[7.],
            [5.]])
    """
    if type(x1) is not Tensor or type(x2) is not Tensor:
        require_tensor("cdist", "x1", 1, x1)
        require_tensor("cdist", "x2", 2, x2)
    p = float(p)
    _check(x1, x2, p)
    require_same_dtype(x1, x2, "x2")
    d = dtypes.promote_types(x1.dtype, x2.dtype)
    if _uses_matrix_product(x1, x2, p, compute_mode):
        out = _EUCLIDEAN_DIST(x1.to(d), x2.to(d), p=p)
        return out.view(out.shape)
    return _CDIST(x1.to(d), x2.to(d), p=p)

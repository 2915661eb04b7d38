"""``dist``: the p-norm of a difference, one ``DistBackward0`` node as in PyTorch, its rule
the vector norm's (:mod:`symgrad.ops.norms`) sent back to both inputs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.norms import _check_identity, _norm2_vjp, _norm_p, _norm_p_vjp
from symgrad.ops.operand_checks import bool_subtraction
from symgrad.prim.structural import Ctx, Structural
from symgrad.tensor import Tensor

__all__ = ["dist"]


def _norm_of(xp: Any, d: Any, order: float) -> Any:
    if order == 2:
        return xp.sqrt(xp.sum(d * d, None, False))
    return _norm_p(xp, d, order, None, False)


def _dist_forward(xp: Any, a: Any, b: Any, order: float) -> Any:
    return _norm_of(xp, a - b, order)


def _dist_kernel(xp: Any, a: Any, b: Any, order: float) -> Any:
    m = np.abs(np.asarray(a - b))
    if math.isinf(order):
        return np.asarray((np.max if order > 0 else np.min)(m)) if m.size else np.asarray(0.0)
    if order == 0:
        return np.asarray(np.count_nonzero(m), dtype=m.dtype)
    if order == 2:
        return np.asarray(np.sqrt(np.sum(m * m)))
    return np.asarray(np.sum(m**order) ** (1 / order))


def _dist_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, b = c.inputs
    order = c.params["order"]
    if order == 0:  # piecewise constant: no gradient, as vector norms of order 0
        return (None, None)
    d = a - b
    shape = np.broadcast_shapes(c.shapes[0], c.shapes[1])
    inner = Ctx([d], c.out, [shape], (True,), {"order": order, "dim": None, "keepdim": False})
    (gd,) = (_norm2_vjp if order == 2 else _norm_p_vjp)(xp, g, inner)
    return (
        xp.sum_to_size(gd, c.shapes[0]) if c.needs[0] else None,
        xp.sum_to_size(-gd, c.shapes[1]) if c.needs[1] else None,
    )


_DIST = Structural(
    "dist",
    _dist_forward,
    _dist_vjp,
    saves=(0, 1),
    saves_out=True,
    backward="DistBackward0",
    kernel=_dist_kernel,
)


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast together): the distance between them.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.dist(symgrad.tensor([1.0, 2.0]), symgrad.tensor([4.0, 6.0]))
    tensor(5.)
    >>> symgrad.tensor([1.0, 2.0]).dist(symgrad.tensor([4.0, 6.0]), p=1)
    tensor(7.)
    """
    for name, t, position in (("input", input, 1), ("other", other, 2)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"dist(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if input.dtype is dtypes.bool_ or other.dtype is dtypes.bool_:  # PyTorch subtracts first
        raise bool_subtraction(input, other)
    d = dtypes.promote_types(input.dtype, other.dtype)
    if not d.is_floating_point:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{d.scalar_type} instead."
        )
    order = float(p.item() if isinstance(p, Tensor) else p)
    if math.isnan(order):
        raise ValueError("dist: p must be a number, got nan")
    try:
        np.broadcast_shapes(input.shape, other.shape)
    except ValueError:
        raise RuntimeError(
            f"dist: the shapes {list(input.shape)} and {list(other.shape)} don't broadcast: "
            "each dimension must match, be 1, or be missing (counting from the last)"
        ) from None
    if order < 0 or math.isinf(order):  # no identity: refused on nothing, as vector norms
        _check_identity(input if input.numel() == 0 else other, order, None)
    return _DIST(input.to(d), other.to(d), order=order)

"""``renorm``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to
it, one ``RenormBackward0`` node with PyTorch's rule (``renorm_backward``): where a slice was
scaled by ``f = maxnorm / (norm + 1e-7)``, its gradient is ``f g - f / (norm + 1e-7)`` times
the norm's gradient for ``sum(x g)`` over the slice; elsewhere ``g``."""

from __future__ import annotations

import math
from typing import Any

from symgrad._data import _wrap_dim
from symgrad.ops.inplace import inplace
from symgrad.ops.norms import _norm2_vjp, _norm_p, _norm_p_vjp
from symgrad.prim.structural import Ctx, Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = ["renorm"]

_EPS = 1e-7  # PyTorch's, added to the norm before dividing


def _norms(xp: Any, x: Any, p: float, dims: tuple) -> Any:
    if p == 2:
        return xp.sqrt(xp.sum(x * x, dims, True))
    return _norm_p(xp, x, p, dims, True)


def _above(xp: Any, norm: Any, maxnorm: float) -> Any:
    """Where ``norm > maxnorm``, in vocabulary words (every interpreter speaks ``sign``)."""
    return xp.eq(xp.sign(norm - maxnorm), 1.0)


def _forward(xp: Any, x: Any, p: float, dims: tuple, maxnorm: float) -> Any:
    norm = _norms(xp, x, p, dims)
    factor = xp.where(_above(xp, norm, maxnorm), maxnorm / (norm + _EPS), 1.0)
    return x * factor


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    (x,) = c.inputs
    p, dims, maxnorm = c.params["p"], c.params["dims"], c.params["maxnorm"]
    norm = _norms(xp, x, p, dims)
    weighted = xp.sum(x * g, dims, True)
    inner = Ctx([x], norm, [c.shapes[0]], (True,), {"order": p, "dim": dims, "keepdim": True})
    (nb,) = (_norm2_vjp if p == 2 else _norm_p_vjp)(xp, weighted, inner)
    factor = maxnorm / (norm + _EPS)
    scaled = factor * g - (factor / (norm + _EPS)) * nb
    return (xp.where(xp.expand(_above(xp, norm, maxnorm), c.shapes[0]), scaled, g),)


_RENORM = Structural(
    "renorm",
    _forward,
    _vjp,
    saves=(0,),
    backward="RenormBackward0",
    rows=True,
)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm``, scaled to
    norm ``maxnorm``; the others unchanged.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.renorm(symgrad.tensor([[3.0, 4.0], [0.1, 0.2]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.1000, 0.2000]])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    p, maxnorm = float(p), float(maxnorm)
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype.scalar_type}"
        )
    d = _wrap_dim(dim, input.ndim)
    dims = tuple(i for i in range(input.ndim) if i != d)
    return _RENORM(input, p=p if not math.isinf(p) else math.inf, dims=dims, maxnorm=maxnorm)


def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """In-place :func:`renorm`: ``self`` holds the result (recorded as ``RenormBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[3.0, 4.0], [0.1, 0.2]])
    >>> x.renorm_(2, 0, 1.0) is x, x[0]
    (True, tensor([0.6000, 0.8000]))
    """
    return inplace(self, "renorm_", lambda x: renorm(x, p, dim, maxnorm))


bind_methods({"renorm_": renorm_})

"""Weight normalization: ``_weight_norm(v, g, dim) = v * g / ||v||`` with the norm over every
dimension but ``dim`` (PyTorch's ``WeightNormInterfaceBackward0``), and ``norm_except_dim``.

The derivatives, with ``n = ||v||`` and ``s = sum(g_w * v) / n`` over the normed dimensions:
``d/dv = g / n * (g_w - v * s / n)`` and ``d/dg = s``.
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_tensor
from symgrad._data import _wrap_dim
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["weight_norm_interface", "norm_except_dim"]


def _axes(ndim: int, dim: int) -> tuple:
    return tuple(a for a in range(ndim) if a != dim)


def _norm(xp: Any, v: Any, axes: tuple) -> Any:
    return xp.sqrt(xp.sum(v * v, axes, True))


def _forward(xp: Any, v: Any, g: Any, *, axes: tuple) -> Any:
    return v * (g / _norm(xp, v, axes))


def _vjp(xp: Any, gw: Any, c: Any) -> tuple:
    v, g = c.inputs
    axes = c.params["axes"]
    n = _norm(xp, v, axes)
    s = xp.sum(gw * v, axes, True) / n
    gv = (g / n) * (gw - v * (s / n)) if c.needs[0] else None
    return gv, (s if c.needs[1] else None)


def _jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    v, g = c.inputs
    dv, dg = tangents
    axes = c.params["axes"]
    n = _norm(xp, v, axes)
    out = None
    if dv is not None:
        out = (g / n) * (dv - v * (xp.sum(v * dv, axes, True) / (n * n)))
    if dg is not None:
        term = v * (dg / n)
        out = term if out is None else out + term
    return out


_WEIGHT_NORM = Structural(
    "weight_norm",
    _forward,
    _vjp,
    saves=(0, 1),
    backward="WeightNormInterfaceBackward0",
    jvp=_jvp,
)


def weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * g / ||v||``, the norm taken over every dimension of ``v`` but ``dim`` (``g`` has
    ``v``'s shape with 1 in those dimensions); ``dim=-1`` normalizes by the whole norm
    (PyTorch's ``torch._weight_norm``).

    Examples
    --------
    >>> import symgrad
    >>> v = symgrad.tensor([[3.0, 4.0], [0.0, 2.0]], requires_grad=True)
    >>> symgrad._weight_norm(v, symgrad.tensor([[10.0], [1.0]]), 0)
    tensor([[6., 8.],
            [0., 1.]], grad_fn=<WeightNormInterfaceBackward0>)
    """
    if dim == -1:
        return v * (g / v.norm())
    if v.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, v.ndim)
    if d not in (0, v.ndim - 1):  # PyTorch fuses only these two; the rest is composite
        return v * (g / norm_except_dim(v, 2, d))
    return _WEIGHT_NORM(v, g, axes=_axes(v.ndim, d))


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, shaped to broadcast
    against ``v`` (``dim=-1``: the norm of the whole tensor, 0-d).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.norm_except_dim(symgrad.tensor([[3.0, 4.0], [0.0, 2.0]]), 2, 0)
    tensor([[5.],
            [2.]])
    """
    if type(v) is not Tensor:
        require_tensor("norm_except_dim", "v", 1, v)
    if isinstance(pow, bool):  # norm reads a bool p as a number, this op does not
        raise TypeError("norm_except_dim(): argument 'pow' (position 2) must be int, not bool")
    if dim == -1:
        return v.norm(pow)
    d = _wrap_dim(dim, v.ndim)
    shape = [1] * v.ndim
    shape[d] = v.shape[d]
    rows = v.transpose(0, d) if d else v
    return rows.reshape(v.shape[d], -1).norm(pow, dim=1).view(shape)

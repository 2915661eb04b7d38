"""``quantile`` and a few small element-wise functions PyTorch programs use: ``logit``,
``heaviside``; each composed of recorded ops."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import creation
from symgrad._arguments import require_int, require_tensor, require_tensors
from symgrad._data import _wrap_dim
from symgrad.autograd import grad_mode
from symgrad.autograd.grad_mode import no_grad
from symgrad.ops import elementwise_special as ES
from symgrad.ops import math
from symgrad.ops.inplace import inplace
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = ["quantile", "nanquantile", "logit", "heaviside"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """The ``q``-quantiles (a number, or a 1-D tensor whose values make a new first dimension)
    of ``input`` along ``dim`` (of all elements when None), interpolated as PyTorch does.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.quantile(symgrad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
    tensor(2.5000)
    >>> symgrad.tensor([[0.0, 4.0], [2.0, 8.0]]).quantile(symgrad.tensor([0.25, 0.5]), dim=1)
    tensor([[1.0000, 3.5000],
            [2.0000, 5.0000]])
    """
    if type(input) is not Tensor:
        require_tensor("quantile", "input", 1, input)
    if dim is not None:
        require_int("quantile", "dim", dim)
    if input.ndim == 0 and dim is not None:  # its one dim (0 or -1) is the one element
        _wrap_dim(dim, 0)
        return quantile(input.reshape(1), q, 0, interpolation=interpolation)
    qs, scalar = _levels(input, q, interpolation)
    x = input.reshape(-1) if dim is None else input.movedim(dim, -1)
    ordered = x.sort(dim=-1).values
    n = ordered.shape[-1]
    pos = qs * (n - 1)
    lo, hi, weight = _neighbours(pos, interpolation, input.dtype)
    low = ordered.index_select(-1, creation.tensor(lo))
    high = ordered.index_select(-1, creation.tensor(hi))
    out = low + (high - low) * weight
    out = math.where(x.isnan().any(-1, keepdim=True), float("nan"), out)
    return _arranged(out, input, dim, keepdim, scalar)


def _neighbours(pos: np.ndarray, interpolation: str, dtype: Any) -> tuple:
    """The sorted positions below and above each fractional position ``pos``, as
    ``interpolation`` picks them, and the weight of the upper one."""
    lo = np.floor(pos).astype(np.int64)
    hi = np.ceil(pos).astype(np.int64)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = np.round(pos).astype(np.int64)
    if interpolation == "midpoint":
        weight = creation.tensor(np.where(hi > lo, 0.5, 0.0), dtype=dtype)
    else:
        weight = creation.tensor(pos - lo, dtype=dtype)
    return lo, hi, weight


def _arranged(out: Tensor, input: Tensor, dim: Any, keepdim: bool, scalar: bool) -> Tensor:
    """The quantiles (along the last dimension of ``out``) first, as PyTorch."""
    out = out.movedim(-1, 0)
    if keepdim:
        out = (
            out.reshape(out.shape[0], *([1] * input.ndim))
            if dim is None
            else out.unsqueeze(dim % input.ndim + 1)
        )
    return out[0] if scalar else out


def nanquantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """:func:`quantile` of the elements that are not NaN (NaN where all of them are).

    Examples
    --------
    >>> import symgrad
    >>> nan = float("nan")
    >>> symgrad.nanquantile(symgrad.tensor([1.0, nan, 3.0, 4.0]), 0.5)
    tensor(3.)
    >>> symgrad.tensor([[0.0, nan], [nan, nan]]).nanquantile(0.5, dim=1)
    tensor([0., nan])
    """
    if type(input) is not Tensor:
        require_tensor("nanquantile", "input", 1, input)
    if input.ndim == 0 and dim is not None:  # its one dim (0 or -1) is the one element
        _wrap_dim(dim, 0)
        return nanquantile(input.reshape(1), q, 0, interpolation=interpolation)
    qs, scalar = _levels(input, q, interpolation)
    x = input.reshape(-1) if dim is None else input.movedim(dim, -1)
    ordered = x.sort(dim=-1).values  # NaNs last
    counts = np.sum(~np.isnan(x._data), axis=-1, keepdims=True)
    # a row of NaNs reads its first element (a NaN), as PyTorch
    pos = qs * (np.maximum(counts, 1) - 1)
    lo, hi, weight = _neighbours(pos, interpolation, input.dtype)
    low = ordered.gather(-1, creation.tensor(lo))
    high = ordered.gather(-1, creation.tensor(hi))
    return _arranged(low + (high - low) * weight, input, dim, keepdim, scalar)


def _levels(input: Tensor, q: Any, interpolation: str) -> tuple[np.ndarray, bool]:
    """The checked levels ``q`` as a 1-D float array, and whether ``q`` was a number."""
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"quantile() input tensor must be either float or double dtype, got {input.dtype}"
        )
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    scalar = isinstance(q, numbers.Real)
    qs = np.atleast_1d(np.asarray(q.detach().numpy() if isinstance(q, Tensor) else q, float))
    if qs.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return qs, scalar


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logit(symgrad.tensor([0.5]))
    tensor([0.])
    """
    if type(input) is not Tensor:
        require_tensor("logit", "input", 1, input)
    if eps is None:
        return ES.LOGIT(input)
    return ES.LOGIT_EPS(input, params=(float(eps),))


def _no_derivative(xp: Any, g: Any, ctx: Any) -> tuple:
    raise RuntimeError(f"derivative for aten::{ctx.params['op']} is not implemented")


# PyTorch declares no derivative for heaviside: a node that raises when backward reaches it
_HEAVISIDE = Structural(
    "heaviside", lambda xp, *tensors, out, op: xp.constant(out), _no_derivative,
    backward="NotImplemented",
)  # fmt: skip


def heaviside(input: Tensor, values: Any) -> Tensor:
    """1 where ``input > 0``, 0 where ``input < 0``, ``values`` where ``input == 0``
    (``values`` of ``input``'s dtype; not differentiable, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.heaviside(symgrad.tensor([-1.0, 0.0, 2.0]), symgrad.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if type(input) is not Tensor or type(values) is not Tensor:
        require_tensors("heaviside", input, "values", values)
    return heaviside_values(input, values, "heaviside")


def heaviside_values(input: Tensor, values: Any, op: str) -> Tensor:
    """``heaviside`` as the op ``op`` (``heaviside_`` names its own missing derivative)."""
    if isinstance(values, Tensor) and values.dtype is not input.dtype:
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes "
            f"({input.dtype.name} and {values.dtype.name}); convert values with "
            f".to({input.dtype.name})"
        )
    with no_grad():
        step = (input > 0).to(input.dtype)
        out = math.where(input == 0, values, step).to(input.dtype)
    tensors = [t for t in (input, values) if isinstance(t, Tensor)]
    if grad_mode.recording() and any(t.requires_grad for t in tensors):
        return _HEAVISIDE(*tensors, out=out._data, op=op)
    return out


def _logit_(self: Tensor, eps: float | None = None) -> Tensor:
    return inplace(self, "logit_", lambda x: logit(x, eps))


bind_methods(
    {
        "quantile": quantile,
        "nanquantile": nanquantile,
        "logit": logit,
        "logit_": _logit_,
        "heaviside": heaviside,
    }
)

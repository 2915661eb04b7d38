"""``quantile`` and a few small element-wise functions PyTorch programs use: ``logit``,
``heaviside``; each composed of recorded ops."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import creation
from symgrad._arguments import require_int, require_tensor, require_tensors
from symgrad._data import _wrap_dim
from symgrad.autograd import dual, grad_mode
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
    return _quantiles(input, q, dim, keepdim, interpolation, ignore_nan=False)


def _quantiles(
    input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    """PyTorch's quantile steps, node for node: sort (the dim moved last), view as the
    output's shape with the sorted values last, gather below and above each rank, lerp,
    and squeeze the quantiles' dimension (moved first when ``q`` is a tensor). A row with
    a NaN reads its last sorted element (a NaN) for ``quantile``; ``nanquantile`` ranks
    among the elements that are not NaN."""
    qs, scalar = _levels(input, q, interpolation)
    if dim is None:
        ordered = input.flatten().sort().values
    else:
        d = _wrap_dim(dim, input.ndim)
        moved = input if d == input.ndim - 1 else input.unsqueeze(-1).transpose(d, -1)
        ordered = moved.sort().values
    n = ordered.shape[-1]
    ordered = ordered.view(*_kept_shape(input, dim, keepdim), n)
    ranks = _ranks(ordered._data, qs.astype(ordered._data.dtype), ignore_nan)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    out = ordered.gather(-1, creation.tensor(below))
    if interpolation in ("linear", "midpoint"):
        weights = (
            np.full_like(ranks, 0.5)
            if interpolation == "midpoint"
            else ranks - below.astype(ranks.dtype)
        )
        above = ordered.gather(-1, creation.tensor(np.ceil(ranks).astype(np.int64)))
        out = out.lerp(above, creation.tensor(weights))
    if scalar:
        return out.squeeze_(-1)
    return out.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _kept_shape(input: Tensor, dim: Any, keepdim: bool) -> tuple:
    """The output's shape without the quantiles' dimension."""
    if dim is None:
        return (1,) * input.ndim if keepdim else ()
    d = _wrap_dim(dim, input.ndim)
    shape = list(input.shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return tuple(shape)


def _ranks(ordered: np.ndarray, qs: np.ndarray, ignore_nan: bool) -> np.ndarray:
    """The fractional sorted positions of the levels ``qs`` in each row, in its dtype."""
    nan = np.isnan(ordered)
    if ignore_nan:
        counts = np.sum(~nan, axis=-1, keepdims=True) - 1
        return np.maximum(qs * counts.astype(qs.dtype), 0)
    last = ordered.shape[-1] - 1
    ranks = np.broadcast_to(qs * qs.dtype.type(last), nan.shape[:-1] + qs.shape)
    return np.where(nan.any(-1, keepdims=True), qs.dtype.type(last), ranks)


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
    return _quantiles(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _levels(input: Tensor, q: Any, interpolation: str) -> tuple[np.ndarray, bool]:
    """The checked levels ``q`` as a 1-D float array, and whether ``q`` was a number (or a
    0-d tensor)."""
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError(
            f"quantile() input tensor must be either float or double dtype, got {input.dtype}"
        )
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    number = isinstance(q, numbers.Real)
    if not number and not isinstance(q, Tensor):
        raise TypeError(
            f"quantile(): q must be a number or a tensor, not {type(q).__name__} (give "
            "symgrad.tensor(q) for several levels)"
        )
    qs = np.atleast_1d(np.asarray(q.detach().numpy() if isinstance(q, Tensor) else q, float))
    if qs.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if number and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # a 0-d tensor of levels makes no quantiles' dimension, as a number does
    return qs, number or q.ndim == 0


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
    if dual.active() and any(dual.tangent_of(t) is not None for t in tensors):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{op} that does not support it."
        )
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

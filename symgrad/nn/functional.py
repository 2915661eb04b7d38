"""``torch.nn.functional`` names: activations, losses with PyTorch's reductions, ``linear``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import ops as _ops
from symgrad.ops import losses as _losses
from symgrad.ops.linalg import linear_2d
from symgrad.ops.math import elu, gelu, leaky_relu, relu, sigmoid, softplus, tanh
from symgrad.ops.softmax_family import log_softmax, softmax
from symgrad.tensor import Tensor

__all__ = [
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy",
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "leaky_relu",
    "elu",
    "gelu",
    "softplus",
    "silu",
    "one_hot",
]

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> str:
    if size_average is not None or reduce is not None:
        # PyTorch's deprecated pair: reduce=False means 'none', size_average=False means 'sum'
        if reduce is False:
            return "none"
        return "sum" if size_average is False else "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{reduction} is not a valid value for reduction; use one of {_REDUCTIONS}"
        )
    return reduction


def _check_tensors(op: str, **arguments: Any) -> None:
    for name, v in arguments.items():
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' must be a Tensor, not {type(v).__name__}; "
                "wrap the values in symgrad.tensor(...)"
            )


def _pair(input: Any, target: Any, op: str) -> tuple[Tensor, Tensor]:
    _check_tensors(op, input=input, target=target)
    if target.dtype is not input.dtype and input.dtype.is_floating_point:
        target = target.to(input.dtype)
    return input, target


def _weight_array(weight: Any, input: Tensor, shape: tuple, op: str) -> Any:
    if weight is None:
        return None
    w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
    try:
        return np.broadcast_to(w.astype(input._data.dtype), shape)
    except ValueError:
        raise ValueError(
            f"{op}(): weight of shape {list(w.shape)} doesn't broadcast to the input's shape "
            f"{list(shape)}"
        ) from None


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, stable for any logit.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.binary_cross_entropy_with_logits(symgrad.tensor([1000.0, -1000.0]),
    ...                                    symgrad.tensor([1.0, 0.0]))
    tensor(0.)
    """
    input, target = _pair(input, target, "binary_cross_entropy_with_logits")
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({list(target.shape)}) must be the same as input size "
            f"({list(input.shape)})"
        )
    options = {
        "reduction": _reduction(reduction, size_average, reduce),
        "weight": _weight_array(weight, input, input.shape, "binary_cross_entropy_with_logits"),
        "shape": input.shape,
    }
    if pos_weight is None:
        return _losses.BCE_WITH_LOGITS_PLAIN_LOSS(input, target, **options)
    if not isinstance(pos_weight, Tensor):
        pos_weight = _ops.as_tensor(np.asarray(pos_weight, input._data.dtype))
    return _losses.BCE_WITH_LOGITS_LOSS(input, target, pos_weight.to(input.dtype), **options)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy of probabilities ``input`` against ``target`` (logs clamped at
    -100, as PyTorch)."""
    input, target = _pair(input, target, "binary_cross_entropy")
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    data = input._data
    if data.size and (np.nanmin(data) < 0 or np.nanmax(data) > 1):
        raise RuntimeError(
            "all elements of input should be between 0 and 1 (binary_cross_entropy takes "
            "probabilities; for logits use binary_cross_entropy_with_logits)"
        )
    return _losses.BCE_LOSS(
        input,
        target,
        reduction=_reduction(reduction, size_average, reduce),
        weight=_weight_array(weight, input, input.shape, "binary_cross_entropy"),
        shape=input.shape,
    )


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean squared error (``reduction`` 'mean', 'sum' or 'none')."""
    input, target = _pair(input, target, "mse_loss")
    shape = _broadcast(input, target, "mse_loss")
    return _losses.MSE_LOSS(
        input,
        target,
        reduction=_reduction(reduction, size_average, reduce),
        weight=None,
        shape=shape,
    )


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean absolute error (``reduction`` 'mean', 'sum' or 'none')."""
    input, target = _pair(input, target, "l1_loss")
    _broadcast(input, target, "l1_loss")
    loss = _ops.abs(input - target)
    r = _reduction(reduction, size_average, reduce)
    return loss if r == "none" else loss.sum() if r == "sum" else loss.mean()


def _broadcast(input: Tensor, target: Tensor, op: str) -> tuple:
    if target.shape != input.shape:
        warnings.warn(
            f"{op}: using a target size ({list(target.shape)}) that is different to the input "
            f"size ({list(input.shape)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
    try:
        return np.broadcast_shapes(input.shape, target.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}: the input of shape {list(input.shape)} and the target of shape "
            f"{list(target.shape)} don't broadcast"
        ) from None


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...) at class indices
    ``target`` (N, ...)."""
    r = _reduction(reduction, size_average, reduce)
    _check_tensors("nll_loss", input=input, target=target)
    return _nll_loss(input, target, weight, ignore_index, r)


def _nll_loss(input: Tensor, target: Tensor, weight: Any, ignore_index: int, r: str) -> Tensor:
    """``nll_loss`` once its arguments are checked (``r`` the reduction's name)."""
    batched = input.ndim >= 2
    x = input if batched else input.unsqueeze(0)
    t = target._data if batched else target._data[None]
    if target._data.dtype.kind in "fb":
        raise RuntimeError(
            f"nll_loss: expected target of integer dtype (class indices), got {target.dtype!r}"
        )
    if t.shape != (x.shape[0],) + x.shape[2:]:
        raise ValueError(
            f"nll_loss: expected target of shape {[x.shape[0], *x.shape[2:]]} for input of "
            f"shape {list(input.shape)}, got {list(target.shape)}"
        )
    n_classes = x.shape[1]
    safe, elem_w = _nll_targets(t, n_classes, ignore_index, weight, x._data.dtype)
    grids = np.indices(t.shape, sparse=True) if t.ndim > 1 else [np.arange(t.shape[0])]
    key = (grids[0], safe, *grids[1:])  # input[n, target[n, ...], ...]
    denom = float(t.size if elem_w is None else elem_w.sum())
    out = _losses.NLL_LOSS(
        x, key=key, weight=elem_w, denom=denom if denom else float("nan"), reduction=r
    )
    return out if batched or r != "none" else out.squeeze(0)


def _nll_targets(
    t: np.ndarray, n_classes: int, ignore_index: int, weight: Any, dtype: np.dtype
) -> tuple:
    """The targets made safe to index with, and the per-element weights (None for unit
    weights with nothing ignored, the fast common case)."""
    in_range = not t.size or (t.min() >= 0 and t.max() < n_classes)  # cheap test first
    if not in_range:
        outside = (t != ignore_index) & ((t < 0) | (t >= n_classes))
        if outside.any():
            raise IndexError(
                f"Target {t[outside].flat[0]} is out of bounds (there are {n_classes} classes)"
            )
    elif weight is None and not 0 <= ignore_index < n_classes:
        return t, None  # every target is a class: none can be the ignored index
    keep = t != ignore_index
    if weight is None and keep.all():
        return t, None
    safe = np.where(keep, t, 0)
    w = keep.astype(dtype) if weight is None else weight._data.astype(dtype)[safe] * keep
    return safe, w.astype(dtype, copy=False)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits ``input`` (N, C, ...) against class indices or class
    probabilities ``target``, computed through a stable ``log_softmax``."""
    r = _reduction(reduction, size_average, reduce)
    _check_tensors("cross_entropy", input=input, target=target)
    dim = 1 if input.ndim >= 2 else 0
    logp = log_softmax(input, dim)
    if target.dtype.is_floating_point:
        if target.shape != input.shape:
            raise RuntimeError(
                f"cross_entropy: class-probability targets must have the input's shape "
                f"{list(input.shape)}, got {list(target.shape)}"
            )
        n = input.shape[dim]
        # no classes: PyTorch's 0 / 0 of the smoothing share and of the mean is nan
        share = label_smoothing / n if n else (math.nan if label_smoothing else 0.0)
        probs = target * (1 - label_smoothing) + share
        w = 1 if weight is None else weight.reshape((n,) + (1,) * (input.ndim - dim - 1))
        loss = -(logp * probs * w).sum(dim)
        if r == "mean":
            return loss.sum() / loss.numel() if loss.numel() and n else loss.sum() * math.nan
        return loss if r == "none" else loss.sum()
    loss = _nll_loss(logp, target, weight, ignore_index, r)
    if label_smoothing:
        smooth = _smoothing_term(logp, target, weight, ignore_index, dim, r)
        loss = loss * (1 - label_smoothing) + smooth * (label_smoothing / input.shape[dim])
    return loss


def _smoothing_term(
    logp: Tensor, target: Tensor, weight: Any, ignore_index: int, dim: int, reduction: str
) -> Tensor:
    """``-sum_c w_c log p_c`` per sample, reduced as PyTorch does: ignored targets add
    nothing, and 'mean' divides by the weight of the kept targets, as ``nll_loss`` does."""
    n = logp.shape[dim]
    w = None if weight is None else weight.reshape((n,) + (1,) * (logp.ndim - dim - 1))
    smooth = -(logp if w is None else logp * w).sum(dim)
    keep = target._data != ignore_index
    if not keep.all():
        smooth = _ops.where(Tensor._make(np.asarray(keep)), smooth, 0.0)
    if reduction == "none":
        return smooth
    if reduction == "sum":
        return smooth.sum()
    kept = target._data[keep]
    denom = float(weight._data[kept].sum()) if weight is not None else float(kept.size)
    if not denom:  # every target ignored: the mean is nan and its gradient 0, as PyTorch's
        return smooth.sum() * 0.0 + float("nan")
    return smooth.sum() / denom


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``."""
    a, w = input._data, weight._data
    if (
        a.ndim == 2
        and w.ndim == 2
        and a.dtype == w.dtype
        and (
            bias is None
            or (
                bias._data.ndim == 1
                and bias._data.dtype == a.dtype
                and bias._data.shape[0] == w.shape[0]
            )
        )
    ):
        return linear_2d(input, weight, bias)
    if bias is not None and weight.ndim == 1:  # PyTorch's addmm path wants a matrix
        raise RuntimeError(
            "mat2 must be a matrix, got 1-D tensor (linear with a bias needs a 2-D weight of "
            "shape [out_features, in_features])"
        )
    out = _ops.matmul(input, weight.t() if weight.ndim == 2 else weight)
    return out if bias is None else out + bias


def silu(input: Tensor) -> Tensor:
    """``input * sigmoid(input)``, one node (``SiluBackward0``)."""
    from symgrad.ops import elementwise

    return elementwise.SILU(input)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class indices as one-hot int64 rows."""
    if tensor.dtype.is_floating_point:
        raise RuntimeError("one_hot is only applicable to index tensor of integer dtype")
    n = int(tensor._data.max()) + 1 if num_classes < 0 else num_classes
    return Tensor._make(np.eye(n, dtype=np.int64)[tensor._data])


__all__ += ["elu", "gelu", "leaky_relu", "softplus"]

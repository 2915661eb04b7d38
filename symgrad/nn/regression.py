"""More losses of :mod:`symgrad.nn.functional`: ``smooth_l1_loss`` and ``huber_loss`` (one
fused node each, as PyTorch), and ``kl_div``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
``margin_ranking_loss``, ``hinge_embedding_loss``, ``triplet_margin_loss``, composed of
recorded ops in PyTorch's own order, so their nodes are PyTorch's."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import _like
from symgrad import ops as _ops
from symgrad._arguments import require_float, require_tensor_arguments
from symgrad._data import broadcast_mismatch
from symgrad.nn._arguments import _check_tensors, _promoted, _reduction
from symgrad.nn.normalization import pairwise_distance
from symgrad.ops import losses as _losses
from symgrad.ops.copies import clamped_copy
from symgrad.ops.derivatives import number_minus, plus_number
from symgrad.tensor import Tensor

__all__ = [
    "kl_div",
    "smooth_l1_loss",
    "huber_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "triplet_margin_loss",
]


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    """ATen's apply_loss_reduction."""
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _huber_pair(input: Any, target: Any) -> tuple[Tensor, Tensor]:
    """PyTorch computes huber_loss in the input's dtype, which must be floating."""
    _check_tensors("huber_loss", input=input, target=target)
    if not input.dtype.is_floating_point and target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {target.dtype.scalar_type} can't be cast to the desired output type "
            f"{input.dtype.scalar_type}: huber_loss computes in the input's dtype"
        )
    input, _ = _promoted(input, input, "huber_loss", "huber_cpu")
    return input, target.to(input.dtype)


def _warn_size(input: Tensor, target: Tensor, stacklevel: int = 3) -> tuple:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=stacklevel,
        )
    try:
        return np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except ValueError:
        words = broadcast_mismatch([list(input.shape), list(target.shape)])[2:-1]
        raise RuntimeError(
            f"{words[:1].upper()}{words[1:]}\n(input of shape {list(input.shape)}, target of "
            f"shape {list(target.shape)})"
        ) from None


def broadcast_pair(input: Tensor, target: Tensor) -> tuple:
    """``input`` and ``target`` of PyTorch's element-wise losses (``mse_loss``, ``l1_loss``,
    ``smooth_l1_loss``, ``huber_loss``): its warning when their sizes differ, then both
    broadcast by ``broadcast_tensors`` (an ``ExpandBackward0`` for each that grows)."""
    _warn_size(input, target, stacklevel=4)
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    return tuple(_ops.broadcast_tensors(input, target))


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence of log-probabilities ``input`` from ``target``
    (probabilities, or log-probabilities with ``log_target``); ``reduction='batchmean'``
    divides the sum by the batch size.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> p = symgrad.tensor([[0.5, 0.5]])
    >>> F.kl_div(p.log(), p, reduction="batchmean")
    tensor(0.)
    """
    if size_average is not None or reduce is not None:
        r = _reduction(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                UserWarning,
                stacklevel=2,
            )
        r = "sum" if reduction == "batchmean" else _reduction(reduction)
    _check_tensors("kl_div", input=input, target=target)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # PyTorch's xlogy(target, target): 0 where the target is 0 (its gradient there nan)
        loss = _ops.xlogy(target, target) - target * input
    out = _reduce(loss, r)
    if reduction == "batchmean" and input.ndim != 0:
        out = out / input.shape[0]
    return out


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``, for ``d = input -
    target`` (one ``SmoothL1LossBackward0`` node; ``beta=0`` is ``l1_loss``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.smooth_l1_loss(symgrad.tensor([0.5, 3.0]), symgrad.zeros(2), reduction="none")
    tensor([0.1250, 2.5000])
    """
    input, target = _promoted(input, target, "smooth_l1_loss", "smooth_l1_cpu")
    input, target = broadcast_pair(input, target)
    r = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:  # PyTorch's l1_loss of the broadcast pair
        return _reduce(_ops.abs(input - target), r)
    return _losses.SMOOTH_L1_LOSS(
        input, target, reduction=r, weight=None, shape=tuple(input.shape), params=(float(beta),)
    )


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (one
    ``HuberLossBackward0`` node); ``weight`` (the input's shape) weights each element.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.huber_loss(symgrad.tensor([0.5, 3.0]), symgrad.zeros(2), reduction="none")
    tensor([0.1250, 2.5000])
    """
    input, target = broadcast_pair(*_huber_pair(input, target))
    shape = tuple(input.shape)
    if weight is not None and weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    r = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _losses.HUBER_LOSS(
        input,
        target,
        reduction="none" if weight is not None else r,
        weight=None,
        shape=shape,
        params=(float(delta),),
    )
    return loss if weight is None else _reduce(loss * weight, r)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: Any = None,
    eps: float = 1e-8,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The Poisson negative log-likelihood: ``exp(input) - target * input`` (``log_input``),
    else ``input - target * log(input + eps)``; ``full`` adds Stirling's term where
    ``target > 1``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.poisson_nll_loss(symgrad.zeros(2), symgrad.ones(2))
    tensor(1.)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    _check_tensors("poisson_nll_loss", input=input, target=target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * plus_number(input, eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def _gaussian_var(input: Tensor, var: Any) -> Tensor:
    """PyTorch's checks of ``var``: non-negative, and of the input's shape or one
    homoscedastic dimension short of it."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _like.ones_like(input)
    elif not isinstance(var, Tensor):  # PyTorch takes a float or a tensor only
        raise TypeError(
            f"gaussian_nll_loss(): var must be a Tensor or a float, not {type(var).__name__}"
        )
    elif bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (
            input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1
        ):
            raise ValueError(
                f"var is of incorrect size: var of shape {list(var.shape)} for input of shape "
                f"{list(input.shape)}"
            )
    return var


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Any,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The Gaussian negative log-likelihood ``0.5 (log(var) + (input - target)**2 / var)``
    (``var`` clamped at ``eps`` with the gradient passed through, as PyTorch), plus
    ``0.5 log(2 pi)`` with ``full``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.gaussian_nll_loss(symgrad.ones(2), symgrad.ones(2), symgrad.ones(2))
    tensor(0.)
    """
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = clamped_copy(var, eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.margin_ranking_loss(symgrad.tensor([1.0]), symgrad.tensor([2.0]), symgrad.ones(1))
    tensor(1.)
    """
    r = _reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    require_float("margin_ranking_loss", "margin", margin)
    # PyTorch's margin is a C++ double: integer inputs give a loss of the default float dtype
    return _reduce(plus_number(-target * (input1 - input2), float(margin)).clamp_min(0), r)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hinge_embedding_loss(symgrad.tensor([0.3, 0.3]), symgrad.tensor([1.0, -1.0]),
    ...                        reduction="none")
    tensor([0.3000, 0.7000])
    """
    r = _reduction(reduction, size_average, reduce)
    zeros = _like.zeros_like(input)
    if not input.dtype.is_floating_point:  # PyTorch's margin in the input's dtype
        margin = int(margin)
    margin_clamp = number_minus(margin, input).clamp_min(0)
    output_margin = _ops.where(target != 1, margin_clamp, zeros)
    output_self = _ops.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, r)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with the
    ``pairwise_distance`` d; ``swap`` takes the smaller of the two negative distances.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> a = symgrad.zeros(1, 2)
    >>> F.triplet_margin_loss(a, a, symgrad.tensor([[3.0, 4.0]]), eps=0.0)
    tensor(0.)
    """
    if (
        not isinstance(anchor, Tensor)
        or not isinstance(positive, Tensor)
        or not isinstance(negative, Tensor)
    ):
        require_tensor_arguments(
            "triplet_margin_loss", "anchor positive negative", anchor, positive, negative
        )
    r = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _ops.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((plus_number(dist_pos, margin) - dist_neg).clamp_min(0), r)

"""The margin losses of :mod:`symgrad.nn.functional`: ``multi_margin_loss``,
``multilabel_margin_loss`` and ``soft_margin_loss`` (one node each, as PyTorch's kernels), and
``multilabel_soft_margin_loss``, ``cosine_embedding_loss`` and
``triplet_margin_with_distance_loss``, composed of recorded ops in PyTorch's own order, so
their nodes are PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _like
from symgrad._arguments import require_same_dtype, require_tensor, require_tensor_arguments
from symgrad.nn._arguments import _no_grad_for, _reduction
from symgrad.nn.activations import logsigmoid
from symgrad.nn.normalization import pairwise_distance
from symgrad.ops import losses as _losses
from symgrad.ops.derivatives import minus_number, number_minus, plus_number
from symgrad.ops.margin_losses import MULTI_MARGIN_LOSS, MULTILABEL_MARGIN_LOSS
from symgrad.ops.math import minimum, where
from symgrad.tensor import Tensor

__all__ = [
    "multi_margin_loss",
    "multilabel_margin_loss",
    "soft_margin_loss",
    "multilabel_soft_margin_loss",
    "cosine_embedding_loss",
    "triplet_margin_with_distance_loss",
]

# ATen's cosine_embedding_loss keeps the magnitudes off zero with it: a C++ float, so
# 9.99999996e-13 added to a double
_EPSILON = float(np.float32(1e-12))


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _check_scores(op: str, kernel: str, input: Tensor, target: Tensor) -> tuple[int, int]:
    """PyTorch's checks of the scores ``(C,)`` or ``(N, C)`` and the int64 targets; the
    number of samples and of classes."""
    if type(input) is not Tensor or type(target) is not Tensor:
        require_tensor(op, "input", 1, input)
        require_tensor(op, "target", 2, target)
    if not input.dtype.is_floating_point or input.dtype.scalar_type == "Half":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.scalar_type}'")
    shape = tuple(input.shape)
    if len(shape) > 2 or (len(shape) == 1 and shape[0] == 0) or (len(shape) == 2 and not shape[1]):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(shape)}"
        )
    if target.dtype.scalar_type != "Long":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_type}")
    return (shape[0] if len(shape) == 2 else 1), (shape[-1] if shape else 1)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss of scores ``(N, C)`` (or ``(C,)``) for class indices
    ``target``: ``sum_{i != y} weight[y] * max(0, margin - x[y] + x[i])**p / C`` per sample
    (``p`` 1 or 2), one ``MultiMarginLossBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> F.multi_margin_loss(x, symgrad.tensor([3]))
    tensor(0.3250)
    """
    r = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    n, c = _check_scores("multi_margin_loss", "multi_margin_loss_cpu_kernel", input, target)
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    classes = np.asarray(target._data).reshape(-1)
    if classes.size and (classes.min() < 0 or classes.max() >= c):
        raise RuntimeError("target out of range")
    dtype = input._data.dtype
    scale = np.ones((n, c), dtype=dtype)
    if weight is not None:
        require_same_dtype(input, weight, "the weight")
        if weight.numel() != c:
            raise RuntimeError(
                f"inconsistent weight size, expected {c} but got {list(weight.shape)}"
            )
        _no_grad_for("multi_margin_loss", "weight", weight)
        scale = scale * np.asarray(weight._data)[classes][:, None]
    rows = np.arange(n)
    scale[rows, classes] = 0
    return MULTI_MARGIN_LOSS(
        input,
        key=(rows, classes),
        scale=scale / dtype.type(c),
        p=int(p),
        margin=float(margin),
        reduction=r,
        out_shape=tuple(target.shape),
    )


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss: each row of ``target`` lists class indices (ended by the
    first -1), and every listed class ``y`` and unlisted class ``i`` add
    ``max(0, 1 - (x[y] - x[i])) / C``; one ``MultilabelMarginLossBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> F.multilabel_margin_loss(x, symgrad.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    r = _reduction(reduction, size_average, reduce)
    kernel = "multilabel_margin_loss_forward_out_frame"
    n, c = _check_scores("multilabel_margin_loss", kernel, input, target)
    if (input.ndim == 2 and target.shape != input.shape) or (
        input.ndim < 2 and (target.ndim > 1 or target.numel() != c)
    ):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    labels = np.asarray(target._data).reshape(n, c)
    if labels.size and (labels.min() < -1 or labels.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(labels != -1, axis=1).astype(bool)
    index = np.where(listed, labels, 0)
    # the classes listed in each row; the unlisted entries mark a spare column, dropped
    is_target = np.zeros((n, c + 1), dtype=bool)
    is_target[np.arange(n)[:, None], np.where(listed, labels, c)] = True
    is_target = is_target[:, :c]
    pairs = listed[:, :, None] & ~is_target[:, None, :]
    dtype = input._data.dtype
    return MULTILABEL_MARGIN_LOSS(
        input,
        index=index,
        scale=pairs.astype(dtype) / dtype.type(c),
        reduction=r,
        out_shape=(n,) if input.ndim == 2 else (),
    )


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The two-class logistic loss ``log(1 + exp(-target * input))`` for targets of 1 or -1
    (the target broadcast to the input's shape), one ``SoftMarginLossBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.soft_margin_loss(symgrad.tensor([0.0, 2.0]), symgrad.tensor([1.0, -1.0]),
    ...                    reduction="none")
    tensor([0.6931, 2.1269])
    """
    if type(input) is not Tensor or type(target) is not Tensor:
        require_tensor("soft_margin_loss", "input", 1, input)
        require_tensor("soft_margin_loss", "target", 2, target)
    r = _reduction(reduction, size_average, reduce)
    _no_grad_for("soft_margin_loss", "target", target)
    shape = tuple(input.shape)
    try:
        joint = np.broadcast_shapes(shape, tuple(target.shape))
    except ValueError:
        raise RuntimeError(
            f"soft_margin_loss: the size of the input {list(shape)} and of the target "
            f"{list(target.shape)} must match at every non-singleton dimension"
        ) from None
    if joint != shape:
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(joint)}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {input.dtype.scalar_type}"
        )
    if target.dtype is not input.dtype:
        target = target.to(input.dtype)
    return _losses.SOFT_MARGIN_LOSS(input, target, reduction=r, weight=None, shape=shape)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """``-(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))``, times
    ``weight``, averaged over the classes (the last dimension), then reduced over the
    samples.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.multilabel_soft_margin_loss(symgrad.zeros(1, 2), symgrad.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it
    is -1 (0 elsewhere), the cosine taken along the last dimension as ATen does.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> a = symgrad.tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> b = symgrad.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> F.cosine_embedding_loss(a, b, symgrad.tensor([1.0, -1.0]), 0.5, reduction="none")
    tensor([1.0000, 0.5000])
    """
    if (
        not isinstance(input1, Tensor)
        or not isinstance(input2, Tensor)
        or not isinstance(target, Tensor)
    ):
        require_tensor_arguments(
            "cosine_embedding_loss", "input1 input2 target", input1, input2, target
        )
    r = _reduction(reduction, size_average, reduce)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(
            f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with "
            f"sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = plus_number((input1 * input1).sum(dim), _EPSILON)
    mag_square2 = plus_number((input2 * input2).sum(dim), _EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = _like.zeros_like(cos)
    # ATen's ``1 - cos`` and ``cos - margin``: a 0-d tensor minus, and sub.Scalar
    pos = where(target == 1, number_minus(1.0, cos), zeros)
    neg = where(target == -1, minus_number(cos, margin).clamp_min(0), zeros)
    return _reduce(pos + neg, r)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Any = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` for any distance
    function ``d`` (default :func:`pairwise_distance`); ``swap`` takes the smaller of
    ``d(anchor, negative)`` and ``d(positive, negative)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> a = symgrad.zeros(1, 2)
    >>> F.triplet_margin_with_distance_loss(
    ...     a, a, symgrad.tensor([[0.3, 0.4]]), distance_function=lambda u, v: (u - v).norm(dim=1))
    tensor(0.5000)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)

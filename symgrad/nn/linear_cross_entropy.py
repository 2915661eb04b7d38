"""``linear_cross_entropy`` of :mod:`symgrad.nn.functional` (PyTorch 2.13): the cross entropy
of ``linear(input, linear_weight, linear_bias)``, composed as PyTorch's reference."""

from __future__ import annotations

import math
import warnings
from typing import Any

from symgrad import dtypes
from symgrad.nn.classification import cross_entropy
from symgrad.ops.affine import linear
from symgrad.tensor import Tensor

__all__ = ["linear_cross_entropy"]


def _check(input: Tensor, linear_weight: Tensor, linear_bias: Any) -> tuple:
    """PyTorch's checks of the shapes; the batch shape, the classes and the K output dims."""
    if not 1 <= input.ndim <= 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}"
        )
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), got "
            f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if out_features and input.ndim == 1:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {input.shape[-1]}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    return tuple(input.shape[:-1]), classes, out_features


def _check_options(options: Any, input: Tensor, target: Tensor, classes: int, **call: Any) -> None:
    """What PyTorch does with ``options`` before its chunked kernel (symgrad computes the
    reference either way): the warning that they are ignored where the kernel can't run,
    else their checks against the call's sizes."""
    out_features, reduction, smooth = call["out_features"], call["reduction"], call["smooth"]
    if (
        out_features
        or reduction not in ("mean", "sum", "none")
        or smooth != 0.0
        or (target.dtype != dtypes.int64)
    ):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features "
            f"== (). Got reduction={reduction!r}, label_smoothing={smooth}, "
            f"target.dtype={target.dtype}, out_features={tuple(out_features)}, tracing=False, "
            f"linear_bias.shape={call['bias_shape']}.",
            stacklevel=3,
        )
        return
    batches = input.shape[0] if input.ndim == 2 else 1
    options._adjust(batches, input.shape[-1], classes, input.dtype)


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``; a
    ``linear_weight`` of shape ``(C, d_1, ..., d_K, in_features)`` gives K-dimensional logits
    ``(N, C, d_1, ..., d_K)``. ``ignore_index`` (``None``: -100) is refused with class
    probabilities. ``options`` (PyTorch's chunking) is accepted and the reference computed.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.linear_cross_entropy(symgrad.ones(1, 2), symgrad.eye(2), symgrad.tensor([0]))
    tensor(0.6931)
    """
    batch, classes, out_features = _check(input, linear_weight, linear_bias)
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None:
        call = {"out_features": out_features, "reduction": reduction, "smooth": label_smoothing}
        call["bias_shape"] = None if linear_bias is None else tuple(linear_bias.shape)
        _check_options(options, input, target, classes, **call)
    if out_features:
        rows = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape(rows, input.shape[-1])
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )

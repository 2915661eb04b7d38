"""Folding an evaluation-mode batch norm into the convolution or linear layer before it, as
``torch.nn.utils.fusion`` does: one layer whose output is the pair's, for faster inference.

In evaluation mode batch norm is the affine map
``y = (x - mean) * gamma / sqrt(var + eps) + beta``, so following a layer ``W x + b`` it
gives ``(scale * W) x + (b - mean) * scale + beta`` with ``scale = gamma / sqrt(var + eps)``
per output channel.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from symgrad._like import ones_like, zeros_like
from symgrad.nn.parameter import Parameter
from symgrad.ops import rsqrt
from symgrad.tensor import Tensor

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]

ConvT = TypeVar("ConvT")
LinearT = TypeVar("LinearT")


def _check_eval(layer: Any, bn: Any) -> None:
    # PyTorch asserts these, so its AssertionError is what callers catch
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def _fused(weight: Tensor, bias: Tensor, like_weight: Tensor, like_bias: Tensor | None):
    # the weight keeps the layer's dtype; the bias its own, or the weight's when there is none
    bias_like = like_weight if like_bias is None else like_bias
    return (
        Parameter(weight.to(like_weight.dtype), like_weight.requires_grad),
        Parameter(bias.to(bias_like.dtype), like_bias is not None and like_bias.requires_grad),
    )


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution that computes convolution ``(conv_w, conv_b)``
    followed by batch norm with running mean ``bn_rm``, running variance ``bn_rv``, ``bn_eps``
    and affine ``bn_w``, ``bn_b`` (``None``: no bias, no affine parameters). Output channels
    lie along the first weight dimension, or the second with ``transpose`` (a transposed
    convolution). Both come back as parameters of the convolution's dtypes, requiring grad
    as ``conv_w`` and ``conv_b`` do.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import fuse_conv_bn_weights
    >>> w, b = fuse_conv_bn_weights(symgrad.ones(2, 1, 1, 1), None, symgrad.tensor([1.0, 2.0]),
    ...                             symgrad.tensor([3.0, 15.0]), 1.0, None, None)
    >>> w.flatten().tolist(), b.tolist()
    ([0.5, 0.25], [-0.5, -0.5])
    """
    if conv_b is None:
        bias = zeros_like(bn_rm)
    else:
        bias = conv_b
    gamma = ones_like(bn_rm) if bn_w is None else bn_w
    beta = zeros_like(bn_rm) if bn_b is None else bn_b
    scale = gamma * rsqrt(bn_rv + bn_eps)
    channel_shape = [1] * conv_w.ndim
    channel_shape[1 if transpose else 0] = -1
    weight = conv_w * scale.reshape(channel_shape)
    fused_bias = (bias - bn_rm) * scale + beta
    return _fused(weight, fused_bias, conv_w, conv_b)


def fuse_conv_bn_eval(conv: ConvT, bn: Any, transpose: bool = False) -> ConvT:
    """A copy of ``conv`` whose output, in evaluation mode, is ``bn(conv(x))``: the batch
    norm folded into its weight and bias (see :func:`fuse_conv_bn_weights`; ``transpose``
    for a transposed convolution). Both modules must be in evaluation mode and ``bn`` must
    track running statistics (``AssertionError`` otherwise, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import fuse_conv_bn_eval
    >>> conv, bn = nn.Conv2d(1, 2, 3).eval(), nn.BatchNorm2d(2).eval()
    >>> fused = fuse_conv_bn_eval(conv, bn)
    >>> x = symgrad.randn(1, 1, 5, 5)
    >>> symgrad.allclose(fused(x), bn(conv(x)), atol=1e-6)
    True
    """
    _check_eval(conv, bn)
    return _with_bn_folded(conv, bn, fuse_conv_bn_weights, transpose)


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer that computes linear ``(linear_w, linear_b)``
    followed by batch norm with running mean ``bn_rm``, running variance ``bn_rv``,
    ``bn_eps`` and affine ``bn_w``, ``bn_b`` (one value per output feature, or a single
    one for all); parameters of the linear layer's dtypes, requiring grad as its do.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import fuse_linear_bn_weights
    >>> one = symgrad.ones(1)
    >>> w, b = fuse_linear_bn_weights(symgrad.tensor([[2.0, 4.0]]), symgrad.tensor([1.0]),
    ...                               one, 3 * one, 1.0, 2 * one, one)
    >>> w.tolist(), b.tolist()
    ([[2.0, 4.0]], [1.0])
    """
    bias = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * rsqrt(bn_rv + bn_eps)
    weight = linear_w * scale.unsqueeze(-1)
    fused_bias = (bias - bn_rm) * scale + bn_b
    return _fused(weight, fused_bias, linear_w, linear_b)


def fuse_linear_bn_eval(linear: LinearT, bn: Any) -> LinearT:
    """A copy of ``linear`` whose output, in evaluation mode, is ``bn(linear(x))`` (see
    :func:`fuse_linear_bn_weights`). Both modules must be in evaluation mode, ``bn`` must
    track running statistics and have ``linear.out_features`` features, or one
    (``AssertionError`` otherwise, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import fuse_linear_bn_eval
    >>> linear, bn = nn.Linear(3, 2).eval(), nn.BatchNorm1d(2).eval()
    >>> fused = fuse_linear_bn_eval(linear, bn)
    >>> x = symgrad.randn(4, 3)
    >>> symgrad.allclose(fused(x), bn(linear(x)), atol=1e-6)
    True
    """
    _check_eval(linear, bn)
    out_features = linear.out_features  # type: ignore[attr-defined]
    if out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={out_features} and bn.num_features={bn.num_features}"
        )
    return _with_bn_folded(linear, bn, fuse_linear_bn_weights)


def _with_bn_folded(layer: Any, bn: Any, fold: Any, *extra: Any) -> Any:
    """A copy of ``layer`` with the weight and bias ``fold`` gives from its own and ``bn``'s
    running statistics and affine parameters."""
    fused = copy.deepcopy(layer)
    fused.weight, fused.bias = fold(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        *extra,
    )  # fmt: skip
    return fused

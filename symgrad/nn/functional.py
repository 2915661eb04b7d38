"""``torch.nn.functional`` names: activations, losses with PyTorch's reductions, ``linear``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad import ops as _ops
from symgrad._arguments import require_floating, require_tensor
from symgrad.nn import activations as _activations
from symgrad.nn import adaptive_pooling as _adaptive_pooling
from symgrad.nn import channel_ops as _channel_ops
from symgrad.nn import fractional_pooling as _fractional_pooling
from symgrad.nn import grad  # noqa: F401  (torch.nn.functional.grad is torch.nn.grad)
from symgrad.nn import margin_losses as _margin_losses
from symgrad.nn import normalization as _normalization
from symgrad.nn import pooling as _pooling
from symgrad.nn import regression as _regression
from symgrad.nn import sparse as _sparse
from symgrad.nn._arguments import _check_tensors, _no_grad_for, _promoted, _reduction
from symgrad.nn.activations import *  # noqa: F403
from symgrad.nn.adaptive_pooling import *  # noqa: F403
from symgrad.nn.attention import scaled_dot_product_attention
from symgrad.nn.channel_ops import *  # noqa: F403
from symgrad.nn.classification import cross_entropy, nll_loss
from symgrad.nn.conv_tbc import conv_tbc
from symgrad.nn.convolution import conv1d, conv2d, conv3d
from symgrad.nn.convolution_transposed import conv_transpose1d, conv_transpose2d, conv_transpose3d
from symgrad.nn.ctc import ctc_loss
from symgrad.nn.embedding_bag import embedding_bag
from symgrad.nn.extras import dropout1d, dropout2d, dropout3d, prelu, rms_norm
from symgrad.nn.fractional_pooling import *  # noqa: F403
from symgrad.nn.grid_sample import grid_sample
from symgrad.nn.grid_sampling import affine_grid
from symgrad.nn.instance_norm import instance_norm
from symgrad.nn.linear_cross_entropy import linear_cross_entropy
from symgrad.nn.lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d
from symgrad.nn.margin_losses import *  # noqa: F403
from symgrad.nn.multi_head_attention import multi_head_attention_forward
from symgrad.nn.normalization import *  # noqa: F403
from symgrad.nn.pooling import *  # noqa: F403
from symgrad.nn.rearranging import fold, pixel_shuffle, pixel_unshuffle, unfold
from symgrad.nn.regression import *  # noqa: F403
from symgrad.nn.sparse import *  # noqa: F403
from symgrad.nn.threshold_rrelu import rrelu, rrelu_, threshold, threshold_
from symgrad.nn.unpooling import max_unpool1d, max_unpool2d, max_unpool3d
from symgrad.nn.upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest
from symgrad.ops import losses as _losses
from symgrad.ops import math as _math
from symgrad.ops import softmax_family as _softmax_family
from symgrad.ops.affine import linear
from symgrad.ops.inplace import inplace as _inplace
from symgrad.ops.math import gelu, sigmoid, softplus, tanh
from symgrad.ops.pdist import pdist
from symgrad.tensor import Tensor

__all__ = [
    "prelu",
    "rms_norm",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy",
    "cross_entropy",
    "linear_cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "gelu",
    "softplus",
    "silu",
    "relu_",
]


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``exp(input) / sum(exp(input), dim)``, computed without overflow. Without ``dim``,
    PyTorch's deprecated choice (0 for 0-, 1- and 3-dimensional inputs, else 1) with its
    ``UserWarning``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.softmax(symgrad.zeros(2, 2), dim=1)
    tensor([[0.5000, 0.5000],
            [0.5000, 0.5000]])
    """
    if dim is None:
        dim = _softmax_family.implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax_family.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``input - logsumexp(input, dim)``, computed without overflow; without ``dim``, as
    :func:`softmax`.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.log_softmax(symgrad.zeros(2), dim=0)
    tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _softmax_family.implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _softmax_family.log_softmax(input, dim, dtype)


def _logits_pair(input: Any, target: Any) -> tuple[Tensor, Tensor]:
    """PyTorch computes binary_cross_entropy_with_logits in the target's floating dtype."""
    if type(input) is not Tensor or type(target) is not Tensor:
        _check_tensors("binary_cross_entropy_with_logits", input=input, target=target)
    elif input._data.dtype is target._data.dtype and input._data.dtype.kind == "f":
        return input, target  # a loss of every step: the common case (read from the arrays)
    require_floating(input, "log_sigmoid_cpu")
    if not target.dtype.is_floating_point:
        result = dtypes.promote_types(input.dtype, target.dtype)
        raise RuntimeError(
            f"result type {result.scalar_type} can't be cast to the desired output type "
            f"{target.dtype.scalar_type}\n(the target of binary_cross_entropy_with_logits must "
            "be floating: convert it with .float())"
        )
    return input.to(target.dtype), target


def _probabilities_pair(input: Any, target: Any) -> tuple[Tensor, Tensor]:
    """PyTorch's binary_cross_entropy takes an input and a target of one floating dtype."""
    if type(input) is not Tensor or type(target) is not Tensor:
        _check_tensors("binary_cross_entropy", input=input, target=target)
    if input.dtype is not target.dtype:
        raise RuntimeError(
            f"Found dtype {target.dtype.scalar_type} but expected {input.dtype.scalar_type}\n"
            "(binary_cross_entropy takes an input and a target of the same dtype)"
        )
    require_floating(input, "binary_cross_entropy")
    return input, target


def _weight_array(weight: Any, input: Tensor, shape: tuple, op: str) -> Any:
    if weight is None:
        return None
    w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
    try:
        return np.broadcast_to(w.astype(input._data.dtype), shape)
    except ValueError:
        raise RuntimeError(
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
    input, target = _logits_pair(input, target)
    if weight is not None:
        if not isinstance(weight, Tensor):
            require_tensor("binary_cross_entropy_with_logits", "weight", 3, weight)
        _no_grad_for("binary_cross_entropy_with_logits", "weight", weight)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({target.shape!r}) must be the same as input size ({input.shape!r})"
        )
    shape = input.shape
    options = {
        "reduction": _reduction(reduction, size_average, reduce),
        "weight": _weight_array(weight, input, shape, "binary_cross_entropy_with_logits"),
        "shape": shape,
    }
    if pos_weight is None:
        return _losses.BCE_WITH_LOGITS_PLAIN_LOSS(input, target, **options)
    if not isinstance(pos_weight, Tensor):
        require_tensor("binary_cross_entropy_with_logits", "pos_weight", 4, pos_weight)
    _weight_array(pos_weight, input, shape, "binary_cross_entropy_with_logits")
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
    input, target = _probabilities_pair(input, target)
    _no_grad_for("binary_cross_entropy", "weight", weight)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    _check_probabilities(input, target)
    return _losses.BCE_LOSS(
        input,
        target,
        reduction=_reduction(reduction, size_average, reduce),
        weight=_weight_array(weight, input, input.shape, "binary_cross_entropy"),
        shape=input.shape,
    )


def _check_probabilities(input: Tensor, target: Tensor) -> None:
    """PyTorch's error for an input or target element outside [0, 1], nan included; it reads
    the elements in order, each input before its target."""
    if input.is_meta or target.is_meta:
        return
    outside = [~((t._data >= 0) & (t._data <= 1)).ravel() for t in (input, target)]
    bad = np.flatnonzero(outside[0] | outside[1])
    if bad.size:
        if outside[0][bad[0]]:
            name, hint = "input", "for logits use binary_cross_entropy_with_logits"
        else:
            name, hint = "target", "a target is a probability too"
        raise RuntimeError(
            f"all elements of {name} should be between 0 and 1\n(binary_cross_entropy takes "
            f"probabilities; {hint})"
        )


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error (``reduction`` 'mean', 'sum' or 'none'); ``weight`` (the input's
    shape) weights each squared error, and 'mean' then divides by the weights' sum.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.mse_loss(symgrad.tensor([1.0, 3.0]), symgrad.zeros(2), weight=symgrad.tensor([3.0, 1.0]))
    tensor(3.)
    """
    input, target = _regression.broadcast_pair(*_promoted(input, target, "mse_loss", "mse_cpu"))
    shape = tuple(input.shape)
    r = _reduction(reduction, size_average, reduce)
    if weight is not None:
        return _weighted(_ops.pow(input - target, 2), weight, input, r)
    return _losses.MSE_LOSS(
        input,
        target,
        reduction=r,
        weight=None,
        shape=shape,
    )


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error (``reduction`` 'mean', 'sum' or 'none'); ``weight`` as
    :func:`mse_loss`'s.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.l1_loss(symgrad.tensor([1.0, -3.0]), symgrad.zeros(2), reduction="none")
    tensor([1., 3.])
    """
    if type(input) is not Tensor or type(target) is not Tensor:
        _check_tensors("l1_loss", input=input, target=target)
    input, target = _regression.broadcast_pair(input, target)
    loss = _ops.abs(input - target)
    r = _reduction(reduction, size_average, reduce)
    if weight is not None:
        return _weighted(loss, weight, input, r)
    return loss if r == "none" else loss.sum() if r == "sum" else loss.mean()


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """PyTorch's weighted mse_loss and l1_loss: each error times its weight, the 'mean' of
    the products divided by the sum of the weights."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = errors * weight
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / weight.sum()


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * sigmoid(input)``, one node (``SiluBackward0``); ``inplace=True`` writes it
    into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.functional.silu(symgrad.tensor([0.0, 2.0]))
    tensor([0.0000, 1.7616])
    """
    from symgrad.ops import elementwise

    require_floating(input, "silu_cpu")
    if inplace:
        return _inplace(input, "silu_", elementwise.SILU)
    return elementwise.SILU(input)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``ReluBackward0``, which saves the result); ``inplace=True``
    writes it into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.functional.relu(symgrad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return relu_(input) if inplace else _math.relu(input)


def relu_(input: Tensor) -> Tensor:
    """``relu`` written into ``input``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([-1.0, 2.0])
    >>> symgrad.nn.functional.relu_(x) is x, x
    (True, tensor([0., 2.]))
    """
    return _inplace(input, "relu_", _math.relu)


__all__ += [
    *_activations.__all__,
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
    *_normalization.__all__,
    *_pooling.__all__,
    *_adaptive_pooling.__all__,
    *_fractional_pooling.__all__,
    *_regression.__all__,
    *_sparse.__all__,
    *_margin_losses.__all__,
    *_channel_ops.__all__,
    "instance_norm",
    "embedding_bag",
    "affine_grid",
    "grid_sample",
    "ctc_loss",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "interpolate",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "pixel_shuffle",
    "pixel_unshuffle",
    "unfold",
    "fold",
    "threshold",
    "threshold_",
    "rrelu",
    "rrelu_",
    "pdist",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
]

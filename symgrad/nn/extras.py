"""``prelu``, ``rms_norm`` and the channel dropouts (``dropout1d``, ``dropout2d``,
``dropout3d``) of :mod:`symgrad.nn.functional`, composed of recorded ops as PyTorch's
reference implementations."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import dtypes
from symgrad._arguments import int_tuple, require_floating, require_tensor
from symgrad.nn.channel_ops import feature_dropout_impl
from symgrad.ops.activations import PRELU
from symgrad.ops.derivatives import plus_number
from symgrad.tensor import Tensor

__all__ = ["prelu", "rms_norm", "dropout1d", "dropout2d", "dropout3d"]


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, ``weight`` one number or one per channel (dim 1).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.functional.prelu(symgrad.tensor([-2.0, 3.0]), symgrad.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    if type(input) is not Tensor or type(weight) is not Tensor:
        require_tensor("prelu", "input", 1, input)
        require_tensor("prelu", "weight", 2, weight)
    if weight.dtype is not input.dtype:  # checked before the dtype's kernel, as PyTorch
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {input.dtype.scalar_type} and "
            f"{weight.dtype.scalar_type}"
        )
    require_floating(input, "prelu_cpu")
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        # as ATen, a 1-d input is one channel
        channels = input.shape[1] if input.ndim >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.numel()} and channel size = {channels}."
            )
    if weight.ndim != input.ndim:  # viewed to broadcast along the channels, as ATen
        if weight.numel() == 1:
            weight = weight.reshape((1,) * input.ndim)
        else:
            weight = weight.reshape(1, -1, *([1] * (input.ndim - 2)))
    # at 0 the gradient is weight's, as PyTorch's x > 0 ? x : weight * x
    return PRELU(input, weight)


def rms_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """``input / sqrt(mean(input**2) + eps) * weight`` over the last ``normalized_shape``
    dimensions, as PyTorch's composite: a float16 input computed in float32 (``eps`` by default
    the machine epsilon of the dtype computed in), the result in the input's dtype; a weight
    of another dtype than the input's is PyTorch's ``UserWarning``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.functional.rms_norm(symgrad.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    if type(input) is not Tensor:
        require_tensor("rms_norm", "input", 1, input)
    shape = int_tuple("rms_norm", "normalized_shape", normalized_shape, 2)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, "
            f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    require_floating(input, "rms_norm")
    dtype = input.dtype
    computed = dtypes.float32 if dtype is dtypes.float16 else dtype  # PyTorch's opmath type
    if eps is None:
        from symgrad.type_info import finfo

        eps = finfo(computed).eps
    if weight is not None and weight.dtype is not dtype:
        warnings.warn(
            f"Mismatch dtype between input and weight: input dtype = {dtypes.cpp_name(dtype)}, "
            f"weight dtype = {dtypes.cpp_name(weight.dtype)}, Cannot dispatch to fused "
            "implementation.",
            UserWarning,
            stacklevel=2,
        )
    x = input if computed is dtype else input.to(computed)
    dims = tuple(range(-len(shape), 0))
    out = x * plus_number(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()  # (AddBackward1)
    if weight is not None:
        out = out * weight
    return out if out.dtype is dtype else out.to(dtype)


_EXPECTED = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}


def _check_rank(name: str, spatial: int, ndim: int) -> None:
    """PyTorch's reaction to an input that is not ``spatial + 1`` or ``spatial + 2`` dims: an
    error for ``dropout1d``, a deprecation warning (and on regardless) for the others."""
    if ndim in (spatial + 1, spatial + 2):
        return
    if spatial == 1:
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in "
        f"an error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on inputs "
        f"with {spatial} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {_EXPECTED[spatial]} inputs).",
        stacklevel=3,
    )


def _channel_dropout(name: str, spatial: int) -> Any:
    def channel_dropout(
        input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
    ) -> Tensor:
        if p < 0.0 or p > 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        if not isinstance(training, bool):
            raise TypeError(
                f"feature_dropout(): argument 'train' (position 3) must be bool, not "
                f"{type(training).__name__}"
            )
        ndim = input.ndim
        _check_rank(name, spatial, ndim)
        if spatial == 2 and ndim == 3:
            # PyTorch keeps the historical reading of a 3-d input as (N, C, L)
            warnings.warn(
                "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                "is the channel dim. This behavior will change in a future release to interpret "
                "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
                "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
                stacklevel=2,
            )
        # dropout1d and dropout3d add the batch dim to an unbatched input (and take it off
        # after, a SqueezeBackward1 node even in eval); dropout2d never does
        unbatched = spatial != 2 and ndim != spatial + 2
        if unbatched:
            input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
        result = feature_dropout_impl(
            input, p, training, False, "feature_dropout_" if inplace else None
        )
        if unbatched:
            result = result.squeeze_(0) if inplace else result.squeeze(0)
        return result

    channel_dropout.__name__ = name
    channel_dropout.__doc__ = (
        f"Zero whole channels (the last {spatial} dimensions together) with probability ``p``, "
        "scaling the others by ``1 / (1 - p)``."
    )
    return channel_dropout


dropout1d = _channel_dropout("dropout1d", 1)
dropout2d = _channel_dropout("dropout2d", 2)
dropout3d = _channel_dropout("dropout3d", 3)

"""Normalization layers: ``LayerNorm``, ``GroupNorm``, ``BatchNorm1d``/``2d``/``3d``, with
PyTorch's parameters, buffers (``running_mean``, ``running_var``, ``num_batches_tracked``),
initialization and ``repr``."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


def _affine(module: Module, shape: tuple, affine: bool, bias: bool, kwargs: dict) -> None:
    """Register ``weight`` and ``bias`` of ``shape`` (or None), ones and zeros."""
    if affine:
        module.weight = Parameter(creation.ones(shape, **kwargs))
        if bias:
            module.bias = Parameter(creation.zeros(shape, **kwargs))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module: Module) -> None:
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalize over the last dims ``normalized_shape``, then ``* weight + bias``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> ln = nn.LayerNorm(2)
    >>> ln
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(symgrad.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kwargs = {"device": device, "dtype": dtype}
        _affine(self, self.normalized_shape, elementwise_affine, bias, kwargs)

    def reset_parameters(self) -> None:
        """Weight ones, bias zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine="
            f"{self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalize each of ``num_groups`` groups of channels, then scale and shift per channel.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine(self, (num_channels,), affine, bias, {"device": device, "dtype": dtype})

    def reset_parameters(self) -> None:
        """Weight ones, bias zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _NormBase(Module):
    """What the batch and instance norms share: the affine parameters and running statistics
    (``torch.nn.modules.batchnorm._NormBase``)."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        kwargs = {"device": device, "dtype": dtype}
        _affine(self, (num_features,), affine, bias, kwargs)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, **kwargs))
            self.register_buffer("running_var", creation.ones(num_features, **kwargs))
            count = Tensor._make(np.array(0, dtype=np.int64))
            self.register_buffer("num_batches_tracked", count)
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    _version = 2  # version 2 added num_batches_tracked

    def _upgrade_state(self, state: dict, prefix: str, version: int | None) -> None:
        """A state dict older than ``num_batches_tracked`` (or without ``_metadata``) keeps
        the module's count, as PyTorch's ``_NormBase._load_from_state_dict``."""
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state:
            count = self.num_batches_tracked
            if count is None or count.is_meta:
                count = Tensor._make(np.array(0, dtype=np.int64))
            state[key] = count

    def reset_running_stats(self) -> None:
        """Running mean zeros, running variance ones, no batch seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, weight ones, bias zeros."""
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine="
            f"{self.affine}, bias={self.bias is not None}, track_running_stats="
            f"{self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """The batch norms (not the instance norms, as in PyTorch's class tree)."""

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs per channel; in training the
    running statistics move towards the batch's (``momentum``; None for a cumulative
    average), in evaluation they normalize.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> bn = nn.BatchNorm1d(1)
    >>> bn(symgrad.tensor([[1.0], [3.0]]))
    tensor([[-1.0000],
            [ 1.0000]], grad_fn=<NativeBatchNormBackward0>)
    >>> bn.running_mean, bn.running_var, bn.num_batches_tracked
    (tensor([0.2000]), tensor([1.1000]), tensor(1))
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs per channel (see ``BatchNorm1d``).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.BatchNorm2d(3)
    BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> list(nn.BatchNorm2d(3).state_dict())
    ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) inputs per channel (see ``BatchNorm1d``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> bn = nn.BatchNorm3d(2)
    >>> bn(symgrad.arange(8.0).reshape(2, 2, 2, 1, 1)).shape
    symgrad.Size([2, 2, 2, 1, 1])
    >>> bn.running_mean
    tensor([0.2500, 0.4500])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")

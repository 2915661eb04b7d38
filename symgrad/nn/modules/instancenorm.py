"""Instance normalization layers: ``InstanceNorm1d``, ``InstanceNorm2d``, ``InstanceNorm3d``,
with PyTorch's options (no affine parameters and no running statistics by default), buffers,
``repr`` and unbatched inputs."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad.nn.instance_norm import instance_norm
from symgrad.nn.modules.normalization import _NormBase
from symgrad.tensor import Tensor

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _spatial = 1

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _check_input_dim(self, input: Tensor) -> None:
        unbatched = self._spatial + 1
        if input.ndim not in (unbatched, unbatched + 1):
            raise ValueError(
                f"expected {unbatched}D or {unbatched + 1}D input (got {input.ndim}D input)"
            )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.ndim - self._spatial - 1
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if feature_dim == 0:
            return self._apply(input.unsqueeze(0)).squeeze(0)
        return self._apply(input)

    def _apply(self, input: Tensor) -> Tensor:
        return instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or unbatched (C, L) inputs: each channel of each
    sample normalized over its positions (see :func:`symgrad.nn.functional.instance_norm`).

    Examples
    --------
    >>> import symgrad
    >>> norm = symgrad.nn.InstanceNorm1d(2, affine=True)
    >>> norm
    InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)
    >>> norm(symgrad.tensor([[1.0, 3.0], [0.0, 4.0]]))
    tensor([[-1.0000,  1.0000],
            [-1.0000,  1.0000]], grad_fn=<SqueezeBackward1>)
    """


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or unbatched (C, H, W) inputs.

    Examples
    --------
    >>> import symgrad
    >>> list(symgrad.nn.InstanceNorm2d(3, track_running_stats=True).state_dict())
    ['running_mean', 'running_var', 'num_batches_tracked']
    """

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or unbatched (C, D, H, W) inputs.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.InstanceNorm3d(2)(symgrad.ones(1, 2, 2, 1, 1)).shape
    symgrad.Size([1, 2, 2, 1, 1])
    """

    _spatial = 3

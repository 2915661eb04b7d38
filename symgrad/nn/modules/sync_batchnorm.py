"""``SyncBatchNorm``: batch normalization whose statistics PyTorch gathers over the processes
of a distributed run. symgrad runs in one process, where PyTorch's layer normalizes as
``BatchNorm`` does, so this one does too."""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.instancenorm import _InstanceNorm
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import _BatchNorm
from symgrad.tensor import Tensor

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of inputs ``(N, C, ...)`` per channel, for distributed training;
    in one process (symgrad's only kind) exactly ``BatchNorm1d``/``2d``/``3d``'s arithmetic,
    running statistics and parameters. ``process_group`` is kept but not used.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    >>> model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    >>> model[1]
    SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> model(symgrad.ones(2, 1, 4, 4)).shape
    symgrad.Size([2, 2, 2, 2])
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with each batch normalization layer in it (``BatchNorm1d``/``2d``/``3d``)
        replaced by a ``SyncBatchNorm`` holding the same parameters and running statistics; a
        new layer when ``module`` is one itself.

        Examples
        --------
        >>> from symgrad import nn
        >>> bn = nn.BatchNorm1d(3)
        >>> synced = nn.SyncBatchNorm.convert_sync_batchnorm(bn)
        >>> type(synced).__name__, synced.weight is bn.weight
        ('SyncBatchNorm', True)
        """
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            converted = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                with no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted

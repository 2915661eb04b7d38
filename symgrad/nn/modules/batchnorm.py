"""``torch.nn.modules.batchnorm``: the batch norms under PyTorch's module path, with their
base classes, for programs that pick them by class (``isinstance(m,
nn.modules.batchnorm._BatchNorm)`` to freeze them while fine-tuning).

Examples
--------
>>> from symgrad import nn
>>> from symgrad.nn.modules import batchnorm
>>> isinstance(nn.BatchNorm2d(3), batchnorm._BatchNorm)
True
>>> isinstance(nn.InstanceNorm2d(3), batchnorm._BatchNorm)
False
>>> isinstance(nn.InstanceNorm2d(3), batchnorm._NormBase)
True
"""

from symgrad.nn.modules.lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    _LazyNormBase,
)
from symgrad.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    _BatchNorm,
    _NormBase,
)
from symgrad.nn.modules.sync_batchnorm import SyncBatchNorm

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
    "_BatchNorm",
    "_LazyNormBase",
    "_NormBase",
]

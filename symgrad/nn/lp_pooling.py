"""Power-average pooling of :mod:`symgrad.nn.functional`: ``lp_pool1d``/``2d``/``3d``, the
``p``-norm of each window, composed as PyTorch composes it (an average pooling of
``input ** p``, times the window size, to the power ``1 / p``; a window whose sum is zero or
negative gives zero and a zero gradient), so nodes, values and gradients are PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from symgrad.nn import pooling as _pooling
from symgrad.nn.convolution import expand_param
from symgrad.ops import math as _math
from symgrad.tensor import Tensor

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _lp_pool(d: int, input, norm_type, kernel_size, stride, ceil_mode) -> Tensor:
    # PyTorch's 1-d form multiplies by kernel_size as given
    size = kernel_size
    if d > 1:
        size = math.prod(expand_param(kernel_size, d, "kernel_size", f"lp_pool{d}d"))
    max_pool = getattr(_pooling, f"max_pool{d}d")
    avg_pool = getattr(_pooling, f"avg_pool{d}d")
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * _math.relu(out.abs())).mul(size).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: int,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The ``norm_type``-norm of each window of ``(N, C, L)`` or ``(C, L)``:
    ``sum(x ** p) ** (1 / p)`` (the maximum of ``|x|`` for ``p = inf``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.lp_pool1d(symgrad.tensor([[3.0, 4.0, 1.0, 0.0]]), 2, 2)
    tensor([[5., 1.]])
    """
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The ``norm_type``-norm of each window of ``(N, C, H, W)`` or ``(C, H, W)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.lp_pool2d(symgrad.tensor([[[1.0, 2.0], [2.0, 4.0]]]), 2, 2)
    tensor([[[5.]]])
    """
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The ``norm_type``-norm of each window of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.lp_pool3d(symgrad.ones(1, 2, 2, 2), 1, 2)
    tensor([[[[8.]]]])
    """
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)

"""The pooling and padding ops PyTorch also has at the top level (``torch.max_pool2d``,
``torch.avg_pool1d``, ``torch.constant_pad_nd``), with ATen's signatures: no
``return_indices`` flag (``torch.max_pool1d_with_indices`` and ``torch.adaptive_max_pool1d``
always give ``(values, indices)``), a stride of ``[]`` meaning the kernel size. Each calls the
implementation of :mod:`symgrad.nn.functional`, so values, gradients and nodes are the
functional op's.

Examples
--------
>>> import symgrad
>>> symgrad.max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
tensor([[3., 2.]])
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

from symgrad._arguments import require_tensor
from symgrad.nn import adaptive_pooling as _adaptive
from symgrad.nn import pooling as _pooling
from symgrad.ops.pooling import constant_pad
from symgrad.tensor import Tensor

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "constant_pad_nd",
]


def _tensor(op: str, input: Any) -> None:
    if not isinstance(input, Tensor):
        require_tensor(op, "input", 1, input)


def max_pool1d(
    input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:  # fmt: skip
    """The maximum of each window of ``(N, C, L)`` or ``(C, L)`` (see
    :func:`symgrad.nn.functional.max_pool1d`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0]]), 2, stride=1)
    tensor([[3., 3.]])
    """
    _tensor("max_pool1d", input)
    return _pooling.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False,
) -> tuple:  # fmt: skip
    """:func:`max_pool1d` and the positions of the maxima, ``(values, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.max_pool1d_with_indices(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    _tensor("max_pool1d_with_indices", input)
    return _pooling.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d(
    input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:  # fmt: skip
    """The maximum of each window of ``(N, C, H, W)`` or ``(C, H, W)`` (node
    ``MaxPool2DWithIndicesBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.max_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    _tensor("max_pool2d", input)
    return _pooling.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(
    input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:  # fmt: skip
    """The maximum of each window of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (node
    ``MaxPool3DWithIndicesBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.max_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    _tensor("max_pool3d", input)
    return _pooling.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(
    input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
    ceil_mode: bool = False, count_include_pad: bool = True,
) -> Tensor:  # fmt: skip
    """The mean of each window of ``(N, C, L)`` or ``(C, L)`` (see
    :func:`symgrad.nn.functional.avg_pool1d`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.avg_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    _tensor("avg_pool1d", input)
    return _pooling.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` to ``output_size``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.adaptive_avg_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 1)
    tensor([[1.5000]])
    """
    return _adaptive.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple:
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` to ``output_size``, with the positions of
    the maxima: ``(values, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.adaptive_max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    return _adaptive.adaptive_max_pool1d_with_indices(input, output_size)


def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:
    """``input`` padded with ``value``: ``pad = (left, right)`` of the last dimension, then of
    the one before, ...; negative pads crop (node ``ConstantPadNdBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.constant_pad_nd(symgrad.tensor([[1.0, 2.0]]), (1, -1), value=9.0)
    tensor([[9., 1.]])
    """
    op = "constant_pad_nd"
    _tensor(op, input)
    pad = _pad_ints(pad, op)
    if not isinstance(value, numbers.Number):
        where = "" if value is None else " (position 3)"
        raise TypeError(
            f"{op}(): argument 'value'{where} must be Number, not {type(value).__name__}"
        )
    if isinstance(value, complex) and not input.dtype.is_complex:
        raise RuntimeError("value cannot be converted to type float without overflow")
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(  # PyTorch's message, its missing spaces included
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)}while the input has {input.ndim}dimensions."
        )
    pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)][::-1]
    return constant_pad(input, pairs, value)


def _pad_ints(pad: Any, op: str) -> tuple:
    where = f"{op}(): argument 'pad' (position 2) must be tuple of ints"
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"{where}, not {type(pad).__name__}")
    ints = []
    for pos, p in enumerate(pad):
        if isinstance(p, bool):
            raise TypeError(f"{where}, but found element of type bool at pos {pos}")
        try:
            ints.append(operator.index(p))
        except TypeError:
            raise TypeError(
                f"{where}, but found element of type {type(p).__name__} at pos {pos}"
            ) from None
    return tuple(ints)
